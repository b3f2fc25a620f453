"""How searches draw noise: the error model applies given standard-normal draws exactly; MC
executes every candidate of a node with the same draws (common random numbers); safeties are
judged the way each search judges shots (MC by samples, Greedy and Prob by one nominal shot)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from planner.rules.game import GameState
from planner.search.montecarlo import mc_value
from planner.shot import E_HIGH, ShotParams
from planner.state import TableState

SOLIDS_P0 = ("solid", "stripe")
# two solids and two stripes in open play, the cue ball mid-table
STATE = TableState([0, 1, 2, 9, 10], [[0.4, 0.9], [0.2, 1.6], [0.9, 1.7], [0.6, 1.2], [0.3, 0.4]])
GAME = GameState(frozenset({1, 2, 8, 9, 10}), 0, SOLIDS_P0)


def test_perturb_applies_given_draws_and_clips_theta():
    shot = ShotParams(30.0, 0.01, 2.0, 0.001, -0.002)
    z = np.array([[1.0, -2.0, 0.5, 0.0, 3.0], [-1.0, 1.0, 0.0, 2.0, 0.0]])
    out = E_HIGH.perturb(shot, np.random.default_rng(0), 2, z)
    sig = np.array([E_HIGH.phi, E_HIGH.theta, E_HIGH.V, E_HIGH.a, E_HIGH.b])
    expected = shot.as_array() + z * sig
    expected[0, 1] = 0.0          # 0.01 - 2 x 0.03 deg is below the horizontal: clipped
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-15)


def test_mc_value_depends_on_the_draws_not_on_the_search_stream(make):
    """At 1 ply a candidate's value is a function of its draws: two contexts whose random
    streams differ give the same value for the same draws, and other draws give another."""
    cand = max(make("mc").movegen.generate(STATE, GAME), key=lambda c: c.p)
    z = np.random.default_rng(5).standard_normal((12, 5))
    values = []
    for seed in (1, 2):
        ctx = make("mc", seed).ctx
        ctx.cfg = dataclasses.replace(ctx.cfg, ply=1)
        values.append(mc_value(ctx, cand, STATE, GAME, 0, 1, z, -np.inf, np.inf))
    assert values[0] == values[1]
    other = mc_value(ctx, cand, STATE, GAME, 0, 1, 3.0 * z, -np.inf, np.inf)   # three-sigma misses
    assert other.frac < values[0].frac


@pytest.mark.parametrize("name, sampled", [("mc", True), ("greedy", False), ("prob", False)])
def test_safeties_are_judged_as_the_search_judges_shots(make, name, sampled):
    """MC plays each safety candidate `samples` times under noise; Greedy and Prob once, as
    aimed, so their choice does not depend on the random stream."""
    planners = [make(name, seed) for seed in (1, 2)]
    n_cands = len(planners[0].safety.candidates(STATE, GAME, False)) + len(planners[0].safety.fouls(STATE, GAME))
    assert n_cands > 1
    chosen = []
    for pl in planners:
        pl.ctx.stats.clear()
        choice = pl.safety.best(STATE, GAME, False)
        c, v, w = choice.candidate, choice.opponent_value, choice.win_probability
        assert (w is not None) == sampled and 0.0 <= v     # MC also carries a win probability
        chosen.append((c.shot, v))
        per = pl.ctx.cfg.samples if sampled else 1
        assert pl.ctx.stats["simulations"] == per * n_cands
    if not sampled:
        assert chosen[0] == chosen[1]
