"""Monte-Carlo sample values beyond PickPocket: a sample that passes the turn is worth minus
miss_weight x the position's value to the opponent (0 reproduces the paper)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from planner.evaluate import evaluate
from planner.movegen import CandidateShot
from planner.rules.game import CalledShot, GameState
from planner.search.common import play_samples
from planner.search.montecarlo import mc_value, sample_value
from planner.shot import ShotParams
from planner.state import TableState

SOLIDS_P0 = ("solid", "stripe")
INTO_LB = ShotParams(225.0, 0.0, 1.2)        # from (0.3, 0.3) straight at the lb corner


def _ctx(make, miss_weight, seed=0):
    ctx = make("mc", seed).ctx
    ctx.cfg = dataclasses.replace(ctx.cfg, miss_weight=miss_weight)
    return ctx


def _one(ctx, state, game, call, shot=INTO_LB):
    (s2, g2, out), = play_samples(ctx, state, game, CandidateShot(shot, call, "straight", 1.0), 1, noise=False)
    return s2, g2, out


def test_win_continue_scratch_and_lost_rack(make):
    ctx = _ctx(make, 0.5)
    weights_max = float(sum(ctx.cfg.weights))
    # the 8 on the lip of lb, the cue ball behind it on the diagonal: a stun shot wins the rack
    eight = TableState([0, 8, 9], [[0.30, 0.30], [0.15, 0.15], [0.8, 1.2]])
    on_eight = GameState(frozenset({8, 9}), 0, SOLIDS_P0)
    s2, g2, out = _one(ctx, eight, on_eight, CalledShot.shot(8, "lb"))
    assert g2.winner == 0 and sample_value(ctx, s2, g2, out, 0) == ctx.cfg.win_value
    # the same shot on a solid: the shooter continues, the caller evaluates the table
    one = TableState([0, 1, 9], [[0.30, 0.30], [0.15, 0.15], [0.8, 1.2]])
    solids = GameState(frozenset({1, 8, 9}), 0, SOLIDS_P0)
    s2, g2, out = _one(ctx, one, solids, CalledShot.shot(1, "lb"))
    assert out.turn_continues and sample_value(ctx, s2, g2, out, 0) is None
    # nothing in the way: the cue ball drops in lb, a foul: the opponent's maximum
    empty = TableState([0, 1, 9], [[0.30, 0.30], [0.8, 1.5], [0.8, 1.2]])
    s2, g2, out = _one(ctx, empty, solids, CalledShot.shot(1, "lb"))
    assert out.fouls and sample_value(ctx, s2, g2, out, 0) == pytest.approx(-0.5 * weights_max)
    # the 8 pocketed in a group not yet cleared: the rack is lost, worth -loss_value
    early = TableState([0, 8, 1, 9], [[0.30, 0.30], [0.15, 0.15], [0.8, 1.5], [0.8, 1.2]])
    s2, g2, out = _one(ctx, early, GameState(frozenset({1, 8, 9}), 0, SOLIDS_P0), CalledShot.shot(1, "lb"))
    assert g2.winner == 1 and sample_value(ctx, s2, g2, out, 0) == -ctx.cfg.loss_value


def test_a_legal_miss_is_worth_minus_the_opponents_evaluation(make):
    ctx = _ctx(make, 0.4)
    # a thin miss on ball 1 that reaches a rail: legal, the turn passes
    state = TableState([0, 1, 9, 10], [[0.5, 0.5], [0.5, 1.5], [0.2, 1.9], [0.9, 0.4]])
    game = GameState(frozenset({1, 8, 9, 10}), 0, SOLIDS_P0)
    s2, g2, out = _one(ctx, state, game, CalledShot.shot(1, "lt"), ShotParams(91.5, 0.0, 2.0))
    assert not out.turn_continues and not out.fouls and not g2.is_over
    expected = -0.4 * evaluate(ctx.movegen, s2, g2, 1, ctx.cfg.weights, ctx.cfg.win_value)
    assert expected < 0       # the opponent has a shot, so the miss costs something
    assert sample_value(ctx, s2, g2, out, 0) == pytest.approx(expected)


def test_miss_weight_only_lowers_values_by_the_failed_samples(make):
    """Same samples (same seed) with and without the miss term: the value drops by
    miss_weight x the mean opponent value over failures, never rises."""
    state = TableState([0, 1, 2, 9, 10], [[0.4, 0.9], [0.2, 1.6], [0.9, 1.7], [0.6, 1.2], [0.3, 0.4]])
    game = GameState(frozenset({1, 2, 8, 9, 10}), 0, SOLIDS_P0)
    cand = max(make("mc").movegen.generate(state, game), key=lambda c: c.p)
    values = {}
    for w in (0.0, 0.5):
        ctx = _ctx(make, w, seed=3)
        ctx.cfg = dataclasses.replace(ctx.cfg, ply=1)
        values[w] = mc_value(ctx, cand, state, game, 0, 1, np.random.default_rng(3).standard_normal((24, 5)),
                             -np.inf, np.inf)
    (v0, f0), (v5, f5) = ((t.value, t.frac) for t in (values[0.0], values[0.5]))
    assert f0 == f5 and 0 < f0 < 1             # same samples, some fail
    assert v0 >= 0 and v5 < v0
