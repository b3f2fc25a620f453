"""Throw-corrected aim and spin-aware speeds, checked against the engine itself."""
import numpy as np
import pytest

from planner.aim import aim_straight
from planner.movegen import MoveGenerator
from planner.physics.eventlog import EV_BALL_BALL
from planner.rules.game import GameState
from planner.shot import ShotParams
from planner.speed import contact_speed, launch_ratio
from planner.state import TableState


@pytest.mark.parametrize("b", [0.0, 0.4, -0.4])
@pytest.mark.parametrize("d2", [0.1, 0.5, 1.2])
def test_contact_speed_matches_the_engine(simulator, b, d2):
    """The cue ball's speed when it reaches a ball d2 away, from the slide-then-roll model,
    equals the engine's cue-ball speed just before the collision."""
    R = simulator.params.R
    V = 2.0
    cue = np.array([0.5, 0.3])
    st = TableState([0, 1], [cue, cue + [0.0, d2 + 2 * R]])
    res = simulator.simulate(st, ShotParams(90.0, 0.0, V, 0.0, b * R))
    k = list(res.events.kind).index(EV_BALL_BALL)
    # speed just before the hit: momentum conservation along the line of centres (e = 0.95)
    v_obj = res.event_rvw[k, 1, 1, 1] if res.events.b[k] == 1 else res.event_rvw[k, 0, 1, 1]
    v_before = v_obj / (0.5 * (1 + simulator.params.e_b))
    model = contact_speed(simulator.params, launch_ratio(simulator.params, b) * V, d2, b)
    assert model == pytest.approx(v_before, rel=2e-3)


def test_throw_correction_pots_more_noise_free_shots(table_config, tiny_difficulty, coarse_movegen, simulator):
    """Over random two-ball layouts, the move generator's aim (ghost ball + throw correction)
    pots the called ball in more noise-free shots than plain ghost-ball aim."""
    mg = MoveGenerator(table_config.table, table_config.physics, tiny_difficulty, coarse_movegen)
    t, R = mg.table, mg.params.R
    rng = np.random.default_rng(7)
    game = GameState(frozenset({1}), 0)
    made = {"corrected": 0, "ghost": 0}
    n = 0
    while n < 200:
        cue, obj = rng.uniform([0.1, 0.1], [t.width - 0.1, t.length - 0.1], (2, 2))
        if np.linalg.norm(cue - obj) < 3 * R:
            continue
        st = TableState([0, 1], [cue, obj])
        for c in mg.straight_in(st, game):
            if c.shot.b != 0.0:
                continue
            k = t.pocket_index(c.call.pocket)
            ghost = aim_straight(cue, obj, mg.targets[k], mg.axes[k], R).phi
            for label, phi in (("corrected", c.shot.phi), ("ghost", ghost)):
                r = simulator.simulate(st, ShotParams(phi, c.shot.theta, c.shot.V, c.shot.a, c.shot.b))
                made[label] += (1, k) in r.pocketed()
            n += 1
    assert made["corrected"] >= made["ghost"] + 0.02 * n
    assert made["corrected"] >= 0.95 * n
