"""MC's verification of its finalists (planner.search.montecarlo.verify): the best root
candidates are played ``verify_samples`` more times and re-ranked on all their samples."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from planner.movegen import CandidateShot
from planner.rules.game import CalledShot, GameState
from planner.search.montecarlo import Tally, mc_value, verify
from planner.shot import ShotParams
from planner.state import TableState

R = 0.028575
# the 8 on the lip of lb, the cue ball behind it on the diagonal, the shooter on the 8
EIGHT = TableState([0, 8, 9], [[0.30, 0.30], [0.15, 0.15], [0.8, 1.2]])
ON_EIGHT = GameState(frozenset({8, 9}), 0, ("solid", "stripe"))
CALL = CalledShot.shot(8, "lb")
STUN = CandidateShot(ShotParams(225.0, 0.0, 1.2), CALL, "straight", 1.0)                # wins the rack
FOLLOW = CandidateShot(ShotParams(225.0, 0.0, 2.0, 0.0, 0.6 * R), CALL, "straight", 1.0)  # follows it in: lost


def _ctx(make, verify_samples, seed):
    ctx = make("mc").ctx
    ctx.cfg = dataclasses.replace(ctx.cfg, verify_samples=verify_samples, ply=1)
    ctx.rng = np.random.default_rng(seed)
    return ctx


def test_verification_overturns_a_lucky_search_result(make):
    """A finalist whose search samples all won (forged) but that scratches on the 8 when played
    again loses to the shot that really wins; its value counts the new samples' losses."""
    ctx = _ctx(make, 30, seed=4)
    z = np.random.default_rng(1).standard_normal((15, 5))
    honest = mc_value(ctx, STUN, EIGHT, ON_EIGHT, 0, 1, z, -np.inf, np.inf)
    assert honest == Tally(15, 15, 15 * ctx.cfg.win_value, 0, 0.0)
    lucky = Tally(15, 15, 15 * ctx.cfg.win_value, 0, 0.0)   # what a lucky search might report
    best = verify(ctx, EIGHT, ON_EIGHT, [(FOLLOW, lucky), (STUN, honest)])
    assert best.candidate is STUN and best.p == 1.0 and best.value == ctx.cfg.win_value
    alone = verify(_ctx(make, 30, seed=4), EIGHT, ON_EIGHT, [(FOLLOW, lucky)])
    assert alone.value < 0 and alone.p < 0.5          # most of the 30 new samples lose the rack


@pytest.mark.parametrize("cand", [STUN, FOLLOW])
def test_when_every_sample_ends_the_turn_verification_is_the_mean_over_all_draws(make, cand):
    """On the 8 no sample lets the shooter continue, so the stratified estimate over the search's
    15 draws and the 45 new ones equals the plain mean value over all 60 draws."""
    z15 = np.random.default_rng(2).standard_normal((15, 5))
    ctx = _ctx(make, 45, seed=9)
    searched = mc_value(ctx, cand, EIGHT, ON_EIGHT, 0, 1, z15, -np.inf, np.inf)
    verified = verify(ctx, EIGHT, ON_EIGHT, [(cand, searched)])
    z45 = np.random.default_rng(9).standard_normal((45, 5))   # the draws verify took from ctx.rng
    direct = mc_value(ctx, cand, EIGHT, ON_EIGHT, 0, 1, np.vstack([z15, z45]), -np.inf, np.inf)
    assert direct.cont == 0
    assert verified.value == pytest.approx(direct.value, abs=1e-12) and verified.p == direct.frac
