"""The robot calibration's statistics (calibration/robot_stats.py) against their textbook forms
and, by simulation, their coverage."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2

from calibration.robot_stats import MIN_SHOTS, error_stats, parameter_stats, q_statistic


def test_without_measurement_noise_the_estimates_are_the_sample_sd_and_the_chi_square_interval():
    rng = np.random.default_rng(3)
    d = 0.4 + 0.2 * rng.standard_normal(25)
    st = parameter_stats(d, np.zeros_like(d))
    s = np.std(d, ddof=1)
    n = d.size
    assert st.sigma == pytest.approx(s, rel=1e-9)
    assert st.bias == pytest.approx(np.mean(d), rel=1e-12)
    assert st.ci95[0] == pytest.approx(s * np.sqrt((n - 1) / chi2.ppf(0.975, n - 1)), rel=1e-8)
    assert st.ci95[1] == pytest.approx(s * np.sqrt((n - 1) / chi2.ppf(0.025, n - 1)), rel=1e-8)
    assert st.bias_se == pytest.approx(s / np.sqrt(n), rel=1e-9)
    assert st.identifiable


def test_the_estimate_makes_q_equal_its_expectation():
    rng = np.random.default_rng(4)
    c = rng.uniform(0.0, 0.5, 40) ** 2
    d = rng.normal(0.0, np.sqrt(1.0 + c))
    st = parameter_stats(d, c)
    assert q_statistic(d, c, st.sigma ** 2) == pytest.approx(d.size - 1, rel=1e-8)


@pytest.mark.parametrize("meas", [0.0, 0.4])
def test_the_95_percent_intervals_cover_the_true_sigma_about_95_percent_of_the_time(meas):
    """400 seeded data sets of 30 shots, each with its own measurement variance (up to meas^2
    sigma^2): the share covered lies within 3 binomial standard errors of 0.95."""
    rng = np.random.default_rng(11)
    sigma, runs, n = 0.7, 400, 30
    covered = 0
    for _ in range(runs):
        c = (rng.uniform(0.0, meas, n) * sigma) ** 2
        d = 0.1 + rng.normal(0.0, np.sqrt(sigma ** 2 + c))
        lo, hi = parameter_stats(d, c).ci95
        covered += lo <= sigma <= hi
    se = np.sqrt(0.95 * 0.05 / runs)
    assert abs(covered / runs - 0.95) < 3 * se, covered / runs


def test_measurement_noise_is_taken_out_of_the_sigma():
    rng = np.random.default_rng(5)
    n, sigma = 4000, 1.0
    c = np.full(n, 0.3 ** 2)
    d = rng.normal(0.0, np.sqrt(sigma ** 2 + c))
    st = parameter_stats(d, c)
    assert st.sigma == pytest.approx(sigma, rel=0.03)          # 3 x the sampling error 1/sqrt(2n)
    assert np.std(d) > 1.04 * sigma                           # the raw scatter is inflated


def test_a_parameter_measured_worse_than_its_scatter_or_too_rarely_is_unidentifiable():
    rng = np.random.default_rng(6)
    c = np.full(200, 5.0 ** 2)
    assert not parameter_stats(rng.normal(0.0, np.sqrt(1.0 + c)), c).identifiable
    few = rng.normal(0.0, 1.0, MIN_SHOTS - 1)
    st = parameter_stats(few, np.zeros_like(few))
    assert not st.identifiable and np.isnan(st.sigma)
    unmeasured = np.full(50, np.inf)
    assert parameter_stats(rng.normal(0.0, 1.0, 50), unmeasured).n == 0


def test_error_stats_checks_its_shapes():
    with pytest.raises(ValueError, match=r"\(n, 5\)"):
        error_stats(np.zeros((10, 4)), np.zeros((10, 4)))
