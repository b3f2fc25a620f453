"""The shot the robot executed, fitted to what the camera saw: nonlinear least squares against the
physics engine over the whole observed trajectory.

    fit = fit_shot(observed, simulator, theta_sd)   # ShotFit: executed (phi, theta, V, a, b), t0, covariance

The unknowns are the five shot parameters (docs/frame.md units: phi, theta deg; V m/s; a, b m) and
the strike time t0 [s] on the camera's clock (the camera does not know when the cue struck). The
model of a frame at time t is the engine's ball centres ``t - t0`` seconds into the simulated shot
(``planner.physics.trajectory.positions_at``); the residuals are model minus observed centre, per
ball and axis, over every frame in which vision saw the ball. What each parameter shows: the
cue ball's direction gives phi (with the squirt of a), its distance and timing give V, the shape
of the sliding phase gives b and theta, the curve of an elevated shot and the behaviour after a
cushion or a collision give a.

The covariance is the Gauss-Newton one, s^2 (J^T J)^-1 with s^2 the residual variance per
coordinate (vision's noise as the fit sees it): Bjorck, "Numerical Methods for Least Squares
Problems" (SIAM 1996), Section 1.1.3. It is right for white measurement noise; vision's errors
also drift with a ball's place on the table, which it does not see: calibration/robot_replay.py
measures that part. A direction the data cannot see gives a huge variance.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from planner.physics.engine import PhysicsInputError, Simulator
from planner.physics.trajectory import positions_at
from planner.shot import ShotParams
from planner.state import TableState

N_FREE = 6                 # phi, theta, V, a, b, t0
# Finite-difference steps of the Jacobian, per unknown (deg, deg, m/s, m, m, s): small against
# any robot's error, large against the engine's round-off.
FD_STEP = np.array([1e-3, 1e-3, 1e-4, 2e-6, 2e-6, 1e-4])
# Typical size of each unknown's correction, for the trust region's scaling.
X_SCALE = np.array([0.1, 0.1, 0.01, 1e-3, 1e-3, 0.01])
LOST_BALL_M = 0.05         # residual [m] per axis where the model has a ball pocketed that vision saw
# Box the optimiser stays in (phi deg, theta deg, V m/s, a m, b m, t0 s): the engine's domain
# (theta >= 0, a tip offset short of a miscue).
LOWER = np.array([-np.inf, 0.0, 0.05, -0.018, -0.018, -np.inf])
UPPER = np.array([np.inf, 89.0, 12.0, 0.018, 0.018, np.inf])
THETA_SE_MAX = 1.0         # [deg] a shot's theta is measured when its fit's standard error is below this
WINDOWS_S = (0.4, 1.2)     # continuation windows after the strike [s] (fit_shot)
MAX_NFEV = 40              # the optimiser's residual evaluations per fit (Jacobians not counted)


@dataclass(frozen=True)
class ObservedShot:
    """One shot as the camera saw it. start: the balls at rest before it (vision's mean of the
    rest frames) [m]; times (T,) frame times [s]; ids (N,) ball ids, the order of ``start.ids``;
    pos (T, N, 2) centres [m], NaN where vision did not see the ball; commanded: the shot as sent
    (wire resolution)."""
    start: TableState
    times: np.ndarray
    ids: np.ndarray
    pos: np.ndarray
    commanded: ShotParams


@dataclass(frozen=True)
class ShotFit:
    """The fitted shot. params: executed (phi, theta, V, a, b); t0: strike time on the frames'
    clock [s]; cov (5, 5): covariance of params (SHOT_FIELDS order and units); noise_m: residual
    standard deviation per coordinate [m] (vision's noise as the fit sees it); n_points: residual
    count; nfev: model evaluations; ok: the optimiser converged to a finite covariance. A
    parameter the shot did not measure has an infinite variance."""
    params: ShotParams
    t0: float
    cov: np.ndarray
    noise_m: float
    n_points: int
    nfev: int
    ok: bool


def strike_time_guess(times: np.ndarray, cue_track: np.ndarray, move_m: float = 0.002) -> float:
    """The last frame time [s] before the cue ball (track (T, 2) [m], NaN unseen) first stood
    ``move_m`` away from its first sighting; the first frame time if it moved at once."""
    seen = np.flatnonzero(np.isfinite(cue_track[:, 0]))
    if seen.size == 0:
        raise ValueError("the cue ball was never seen")
    d = np.hypot(*(cue_track[seen] - cue_track[seen[0]]).T)
    moved = np.flatnonzero(d > move_m)
    if moved.size == 0:
        raise ValueError("the cue ball never moved")
    k = seen[moved[0]]
    return float(times[max(k - 1, 0)])


class TrajectoryModel:
    """Model centres for unknowns x = (phi, theta, V, a, b, t0), over one observed shot; ``free``
    (6,) bool: the unknowns the residuals vary (the others stay at ``x_fixed``)."""

    def __init__(self, obs: ObservedShot, simulator: Simulator, x_fixed: np.ndarray, free: np.ndarray):
        if not np.array_equal(obs.ids, obs.start.ids):
            raise ValueError(f"observed ball ids {obs.ids.tolist()} differ from the start state's "
                             f"{obs.start.ids.tolist()}")
        self.obs, self.sim = obs, simulator
        self.x_fixed, self.free = np.asarray(x_fixed, dtype=np.float64), np.asarray(free, dtype=bool)
        self.seen = np.isfinite(obs.pos[..., 0])
        self.n_points = 2 * int(self.seen.sum())

    def full(self, z: np.ndarray) -> np.ndarray:
        """The six unknowns with the free ones taken from ``z``."""
        x = self.x_fixed.copy()
        x[self.free] = z
        return x

    def positions(self, x: np.ndarray) -> np.ndarray:
        """(T, N, 2) model centres [m] for all six unknowns ``x``; raises PhysicsInputError for
        a shot the engine refuses."""
        res = self.sim.simulate(self.obs.start, ShotParams.from_array(x[:5]))
        return positions_at(res, self.obs.start, self.obs.times - x[5], self.sim.params)

    def residuals(self, z: np.ndarray) -> np.ndarray:
        """(n_points,) model minus observed [m] over the sightings, for the free unknowns ``z``."""
        try:
            pred = self.positions(self.full(z))
        except PhysicsInputError:
            return np.full(self.n_points, LOST_BALL_M)
        r = pred[self.seen] - self.obs.pos[self.seen]
        return np.where(np.isfinite(r), r, LOST_BALL_M).reshape(-1)

    def jacobian(self, z: np.ndarray) -> np.ndarray:
        """(n_points, free count) central finite differences with FD_STEP."""
        steps = FD_STEP[self.free]
        J = np.empty((self.n_points, steps.size))
        for k, h in enumerate(steps):
            e = np.zeros(steps.size)
            e[k] = h
            J[:, k] = (self.residuals(z + e) - self.residuals(z - e)) / (2 * h)
        return J


def _solve(obs: ObservedShot, simulator: Simulator, x: np.ndarray, free: np.ndarray,
           windows: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray, float, int, bool]:
    """Least squares over growing windows of frames after the strike (``windows`` [s], then all).
    Returns (x (6,), covariance (6, 6) with inf where not free, residual variance [m^2] per
    coordinate, model evaluations, converged with a finite covariance)."""
    lo, hi = LOWER[free], UPPER[free]
    nfev, sol, model = 0, None, None
    for w in (*windows, np.inf):
        keep = obs.times <= x[5] + w
        sub = ObservedShot(obs.start, obs.times[keep], obs.ids, obs.pos[keep], obs.commanded)
        model = TrajectoryModel(sub, simulator, x, free)
        if model.n_points <= free.sum():
            continue
        sol = least_squares(model.residuals, np.clip(x[free], lo, hi), jac=model.jacobian, bounds=(lo, hi),
                            x_scale=X_SCALE[free], method="trf", max_nfev=MAX_NFEV, xtol=1e-10, ftol=1e-12)
        x = model.full(sol.x)
        nfev += int(sol.nfev) + 2 * int(free.sum()) * int(sol.njev)
    if sol is None:
        raise ValueError(f"too few sightings to fit: {model.n_points if model else 0} coordinates")
    J = model.jacobian(x[free])
    r = model.residuals(x[free])
    nfev += 1 + 2 * int(free.sum())
    s2 = float(r @ r) / max(model.n_points - int(free.sum()), 1)
    cov = np.full((N_FREE, N_FREE), np.inf)
    try:
        cf = s2 * np.linalg.inv(J.T @ J)
    except np.linalg.LinAlgError:
        return x, cov, s2, nfev, False
    ok = bool(np.all(np.isfinite(cf)) and np.all(np.diag(cf) > 0) and sol.status > 0)
    cov[np.ix_(free, free)] = cf
    return x, cov, s2, nfev, ok


def theta_leak(obs: ObservedShot, simulator: Simulator, x: np.ndarray, free: np.ndarray) -> np.ndarray:
    """g (free count,): how the least-squares solution of the ``free`` unknowns moves per degree
    of theta held wrong, -(J_f^T J_f)^-1 J_f^T J_theta at ``x`` (the linearised normal equations)."""
    model = TrajectoryModel(obs, simulator, x, np.ones(N_FREE, bool))
    J = model.jacobian(x)
    Jf, Jt = J[:, free], J[:, 1]
    return -np.linalg.solve(Jf.T @ Jf, Jf.T @ Jt)


def fit_shot(obs: ObservedShot, simulator: Simulator, theta_sd: float) -> ShotFit:
    """Least-squares fit of the executed shot to ``obs`` (scipy.optimize.least_squares, trust
    region reflective, within LOWER..UPPER), starting from the commanded shot.

    Two stages. (1) theta held at its commanded value, the other five unknowns free, over
    growing windows of frames (WINDOWS_S, then every frame), each starting from the last
    solution: a later cushion or collision, whose timing a poor first guess gets wrong, cannot
    pull the fit into another sequence of events. (2) From there, theta free as well, over every
    frame. Elevation shows only in the curve of the short sliding phase (the swerve of side spin
    struck from above), so on many shots theta trades off against V and b along a nearly flat
    valley; stage 2 is kept only when its theta standard error is below THETA_SE_MAX, else the
    result is stage 1's with theta's variance infinite (not measured on this shot). The executed
    theta then differs from the commanded one by the robot's scatter, ``theta_sd`` [deg] (its
    current sigma), and the other unknowns absorb that: their covariance gets g g^T theta_sd^2
    (``theta_leak``), the error of holding theta at the commanded value.
    Raises ValueError if the cue ball is not seen moving."""
    cue = int(np.flatnonzero(obs.ids == 0)[0])
    x = np.append(obs.commanded.as_array(), strike_time_guess(obs.times, obs.pos[:, cue]))
    x = np.clip(x, LOWER, UPPER)
    no_theta = np.array([True, False, True, True, True, True])
    x1, cov1, s2_1, n1, ok1 = _solve(obs, simulator, x, no_theta, WINDOWS_S)
    x2, cov2, s2_2, n2, ok2 = _solve(obs, simulator, x1, np.ones(N_FREE, bool), ())
    if ok2 and np.sqrt(cov2[1, 1]) < THETA_SE_MAX and s2_2 <= s2_1 * (1 + 1e-6):
        x, cov, s2, ok = x2, cov2, s2_2, ok2
    else:
        x, cov, s2, ok = x1, cov1, s2_1, ok1
        if ok:
            try:
                g = theta_leak(obs, simulator, x1, no_theta)
                cov[np.ix_(no_theta, no_theta)] += theta_sd ** 2 * np.outer(g, g)
                n2 += 1 + 2 * N_FREE
            except np.linalg.LinAlgError:
                ok = False
    n_points = 2 * int(np.isfinite(obs.pos[..., 0]).sum())
    return ShotFit(ShotParams.from_array(x[:5]), float(x[5]), cov[:5, :5], float(np.sqrt(s2)), n_points,
                   n1 + n2, ok)
