"""The robot's error model from fitted minus commanded shots: a bias and a sigma per parameter,
with a 95 % confidence interval, net of the fit's own measurement noise.

Per parameter, shot i gives d_i = fitted - commanded with the fit's variance c_i (from its
covariance; infinite where the shot did not measure the parameter). The model is
d_i ~ N(mu, sigma^2 + c_i): the robot's own scatter plus the measurement's. That is the
random-effects model of meta-analysis, and its standard estimators apply:

- sigma: the Paule-Mandel estimator, the sigma^2 >= 0 at which the generalised Q statistic
  Q(sigma^2) = sum_i (d_i - mu_w)^2 / (sigma^2 + c_i) (mu_w the weighted mean with weights
  1 / (sigma^2 + c_i)) equals its expectation n - 1. Paule & Mandel (1982), "Consensus values and
  weighting factors", J. Res. NBS 87(5), 377-385; DerSimonian & Kacker (2007), Contemp. Clin.
  Trials 28, 105-114, Eq. (9).
- its 95 % interval: the Q-profile interval, the sigma^2 at which Q equals the chi-square
  quantiles chi2_{0.975, n-1} and chi2_{0.025, n-1}. Viechtbauer (2007), "Confidence intervals
  for the amount of heterogeneity in meta-analysis", Stat. Med. 26, 37-52, Eq. (6). With no
  measurement noise (every c_i = 0) it is exactly the chi-square interval for a Gaussian
  standard deviation, s sqrt((n-1) / chi2_{1-alpha/2, n-1}) .. s sqrt((n-1) / chi2_{alpha/2, n-1})
  (NIST/SEMATECH e-Handbook of Statistical Methods, Section 7.2.3.1 / 1.3.5.8).
- bias: mu_w at the estimated sigma.

A parameter is unidentifiable when fewer than MIN_SHOTS shots measured it, when its typical
measurement error is not small against the sigma found (median sqrt(c_i) > MEAS_FRACTION sigma:
then most of the scatter would be the fit's own, and an error in the fit's variances would
dominate the difference), or when the interval reaches zero (the data cannot tell the scatter
from none); its values are then not used.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.stats import chi2

from planner.shot import SHOT_FIELDS

MIN_SHOTS = 8          # shots that measured a parameter before its sigma is estimated
LEVEL = 0.95           # confidence level of the intervals
MEAS_FRACTION = 0.5    # identifiable: median measurement sd below this fraction of sigma


@dataclass(frozen=True)
class ParamStats:
    """One parameter. n: shots that measured it; bias: mean executed - commanded; sigma: the
    robot's standard deviation, net of measurement noise; ci95: (lo, hi) for sigma; bias_se:
    standard error of bias; meas_sd: median measurement standard deviation of the shots;
    identifiable: whether the data determine sigma (module doc). Units of the parameter."""
    n: int
    bias: float
    sigma: float
    ci95: tuple[float, float]
    bias_se: float
    meas_sd: float
    identifiable: bool


def q_statistic(d: np.ndarray, c: np.ndarray, tau2: float) -> float:
    """Generalised Q at scatter variance tau2 (module doc): d (n,) deviations, c (n,) their
    measurement variances."""
    w = 1.0 / (tau2 + c)
    mu = float(np.sum(w * d) / np.sum(w))
    return float(np.sum(w * (d - mu) ** 2))


def _solve_tau2(d: np.ndarray, c: np.ndarray, target: float) -> float:
    """The tau2 >= 0 with Q(tau2) = target (Q decreases in tau2); 0 if Q(0) <= target."""
    if q_statistic(d, c, 0.0) <= target:
        return 0.0
    hi = max(float(np.var(d)), 1e-300)
    while q_statistic(d, c, hi) > target:
        hi *= 4.0
    return float(brentq(lambda t: q_statistic(d, c, t) - target, 0.0, hi, xtol=hi * 1e-12, rtol=1e-12))


def parameter_stats(d: np.ndarray, c: np.ndarray) -> ParamStats:
    """Statistics of one parameter from deviations d (n,) and measurement variances c (n,)
    (inf: not measured; those shots are left out)."""
    d, c = np.asarray(d, dtype=np.float64), np.asarray(c, dtype=np.float64)
    keep = np.isfinite(d) & np.isfinite(c) & (c >= 0)
    d, c = d[keep], c[keep]
    n = int(d.size)
    if n < MIN_SHOTS:
        mu = float(np.mean(d)) if n else float("nan")
        return ParamStats(n, mu, float("nan"), (float("nan"), float("nan")), float("nan"),
                          float(np.sqrt(np.median(c))) if n else float("nan"), False)
    c = np.maximum(c, 1e-300)
    dof = n - 1
    tau2 = _solve_tau2(d, c, dof)
    alpha = 1.0 - LEVEL
    lo2 = _solve_tau2(d, c, chi2.ppf(1 - alpha / 2, dof))
    hi2 = _solve_tau2(d, c, chi2.ppf(alpha / 2, dof))
    w = 1.0 / (tau2 + c)
    mu = float(np.sum(w * d) / np.sum(w))
    meas = float(np.sqrt(np.median(c)))
    sigma = float(np.sqrt(tau2))
    identifiable = bool(lo2 > 0 and meas < MEAS_FRACTION * sigma)
    return ParamStats(n, mu, sigma, (float(np.sqrt(lo2)), float(np.sqrt(hi2))), float(np.sqrt(1.0 / np.sum(w))),
                      meas, identifiable)


def error_stats(deltas: np.ndarray, variances: np.ndarray) -> dict[str, ParamStats]:
    """{parameter name: ParamStats} from deltas (n, 5) fitted - commanded and variances (n, 5)
    (the diagonals of the fits' covariances), columns in SHOT_FIELDS order."""
    deltas, variances = np.asarray(deltas, dtype=np.float64), np.asarray(variances, dtype=np.float64)
    if deltas.ndim != 2 or deltas.shape[1] != 5 or deltas.shape != variances.shape:
        raise ValueError(f"deltas and variances must both be (n, 5), got {deltas.shape} and {variances.shape}")
    return {k: parameter_stats(deltas[:, j], variances[:, j]) for j, k in enumerate(SHOT_FIELDS)}
