"""The designed shot set and the per-shot fit (calibration/robot_design.py, robot_fit.py), on
trajectories the engine generates from known executed shots, observed with Gaussian noise."""
from __future__ import annotations

import numpy as np
import pytest

from calibration.robot_design import KINDS, OBJECT_BALL, design
from calibration.robot_fit import ObservedShot, fit_shot, strike_time_guess
from config.robot import load_robot_settings
from planner.physics.engine import Simulator
from planner.physics.trajectory import frame_times, positions_at
from planner.shot import E_HIGH, ShotParams
from planner.state import CUE, TableState

NOISE_M = 5e-5          # vision's noise per coordinate on rendered frames is of this order
FPS = 30.0


@pytest.fixture(scope="module")
def sim(table_config):
    return Simulator(table_config.table, table_config.physics)


def observe(sim, start: TableState, executed: ShotParams, commanded: ShotParams, rng, t0: float) -> ObservedShot:
    res = sim.simulate(start, executed)
    times = frame_times(res.t_end, FPS, 0.3) - 0.1
    pos = positions_at(res, start, times - t0, sim.params) + rng.normal(0.0, NOISE_M, (len(times), len(start.ids), 2))
    return ObservedShot(start, times, start.ids.copy(), pos, commanded)


def test_the_design_is_playable_and_varies_every_parameter(sim, table_config):
    shots = design(2 * len(KINDS), table_config.table, table_config.physics.R)
    limits = load_robot_settings().limits
    for s in shots:
        start = TableState.from_dict(s.balls)
        sim.check_state(start)                                   # raises where a ball cannot rest
        c = s.command
        assert limits.theta.lo <= c.theta <= limits.theta.hi and limits.V.lo <= c.V <= limits.V.hi
        assert abs(c.a) <= limits.a.hi and abs(c.b) <= limits.b.hi
        res = sim.simulate(start, c)
        if OBJECT_BALL in s.balls:
            assert res.first_hit == OBJECT_BALL                  # the nominal shot makes the collision
    cmds = np.array([s.command.as_array() for s in shots])
    assert np.ptp(cmds[:, 0] % 180) > 45                         # directions spread
    assert {np.sign(a) for a in cmds[:, 3]} == {-1, 1} and {np.sign(b) for b in cmds[:, 4]} == {-1, 1}
    assert len(set(cmds[:, 2])) >= 2 and len(set(cmds[:, 1])) >= 3
    assert 0 < sum(OBJECT_BALL in s.balls for s in shots) < len(shots)


def test_the_fit_recovers_executed_shots_within_its_own_standard_errors(sim, table_config):
    """Eight designed shots executed with E_high errors: the fitted phi, V, a, b lie within 4.5
    standard errors of the executed values, and the normalised errors have an RMS near 1 (the
    covariance is honest, neither inflated nor shrunk). Every fit is fast in evaluations."""
    rng = np.random.default_rng(21)
    z = []
    for s in design(len(KINDS), table_config.table, table_config.physics.R):
        start = TableState.from_dict(s.balls)
        executed = ShotParams.from_array(s.command.as_array() + rng.standard_normal(5) * E_HIGH.sigmas())
        fit = fit_shot(observe(sim, start, executed, s.command, rng, rng.uniform(0, 1 / FPS)), sim, E_HIGH.theta)
        assert fit.ok and fit.noise_m == pytest.approx(NOISE_M, rel=0.2)
        se = np.sqrt(np.diag(fit.cov))
        err = fit.params.as_array() - executed.as_array()
        keep = [0, 2, 3, 4]
        z.extend(err[keep] / se[keep])
        assert np.all(np.abs(err[keep]) < 4.5 * se[keep]), (s.kind.name, err, se)
        assert np.all(se[keep] < 0.1 * E_HIGH.sigmas()[keep])   # the fit sees far finer than the robot's error
        if np.isfinite(se[1]):
            assert abs(err[1]) < 4.5 * se[1]
    assert 0.5 < np.sqrt(np.mean(np.square(z))) < 1.6


def test_theta_is_not_measured_on_a_shot_without_side_spin(sim, table_config):
    """Without side spin an elevation only trades against V and b (no swerve): the fit reports
    theta's variance as infinite and keeps the commanded theta."""
    rng = np.random.default_rng(2)
    start = TableState.from_dict({CUE: (0.56, 0.6)})
    cmd = ShotParams(88.0, 12.0, 1.5, 0.0, -0.006)
    executed = ShotParams(88.1, 12.02, 1.46, 0.0, -0.0062)
    fit = fit_shot(observe(sim, start, executed, cmd, rng, 0.01), sim, E_HIGH.theta)
    assert np.isinf(fit.cov[1, 1]) and fit.params.theta == cmd.theta
    assert fit.params.phi == pytest.approx(executed.phi, abs=0.01)


def test_a_cue_ball_that_never_moves_is_an_error(sim):
    times = np.arange(10) / FPS
    pos = np.tile([[0.5, 0.5]], (10, 1, 1))
    with pytest.raises(ValueError, match="never moved"):
        strike_time_guess(times, pos[:, 0])
    obs = ObservedShot(TableState.from_dict({CUE: (0.5, 0.5)}), times, np.array([0]), pos,
                       ShotParams(90.0, 5.0, 1.0))
    with pytest.raises(ValueError, match="never moved"):
        fit_shot(obs, sim, E_HIGH.theta)
