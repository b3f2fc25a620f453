"""The inning-race win probability behind Monte-Carlo search's shoot-or-safety choice
(planner.search.winprob): the closed form against a direct simulation of the race it models,
its identities and monotonicity, the values of refereed outcomes, and the choice itself."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from config.planner import load_planner_settings
from planner.decision import prefer_safety
from planner.movegen import CandidateShot
from planner.rules.game import CalledShot, GameState, balls_to_win
from planner.safety import SafetyChoice
from planner.search.common import Scored, play_samples
from planner.search.winprob import fresh_inning_win, outcome_win_probability, win_probability
from planner.shot import ShotParams
from planner.state import TableState

SOLIDS_P0 = ("solid", "stripe")
S, Q = 0.85, 0.6


def _race(p_now, n_me, n_opp, s, q, races, rng):
    """Fraction of simulated races won by the player to move: innings alternate, an inning runs
    out when every shot succeeds (first with p_now or q, later ones with s)."""
    wins = 0
    for _ in range(races):
        first, mover = p_now, 0
        while True:
            n = n_me if mover == 0 else n_opp
            if rng.random() < first and (n == 1 or rng.random() < s ** (n - 1)):
                wins += mover == 0
                break
            first, mover = q, 1 - mover
    return wins / races


@pytest.mark.parametrize("p_now,n_me,n_opp", [(0.9, 2, 8), (0.3, 8, 2), (0.6, 5, 5), (0.0, 3, 4)])
def test_closed_form_matches_a_simulated_race(p_now, n_me, n_opp):
    races = 40000
    sim = _race(p_now, n_me, n_opp, S, Q, races, np.random.default_rng(1))
    w = win_probability(p_now, n_me, n_opp, S, Q)
    assert abs(sim - w) < 4 * np.sqrt(w * (1 - w) / races)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.floats(0.3, 1.0), st.floats(0.1, 1.0), st.floats(0.0, 1.0))
def test_identities_and_monotonicity(n_me, n_opp, s, q, p):
    w = win_probability(p, n_me, n_opp, s, q)
    assert 0.0 <= w <= 1.0
    # a first shot as good as a fresh inning's: the fresh-inning probability
    assert win_probability(q, n_me, n_opp, s, q) == pytest.approx(fresh_inning_win(n_me, n_opp, s, q))
    # better first shot, fewer balls to go, or an opponent further away: never worse
    assert win_probability(min(1.0, p + 0.1), n_me, n_opp, s, q) >= w - 1e-12
    assert win_probability(p, n_me, min(8, n_opp + 1), s, q) >= w - 1e-12
    if n_me > 1:
        assert win_probability(p, n_me - 1, n_opp, s, q) >= w - 1e-12


def test_balls_to_win_counts_the_group_and_the_eight():
    game = GameState(frozenset({1, 2, 8, 9, 10, 11}), 0, SOLIDS_P0)
    assert balls_to_win(game, 0) == 3 and balls_to_win(game, 1) == 4
    assert balls_to_win(GameState(frozenset({8, 9}), 0, SOLIDS_P0), 0) == 1   # on the 8
    assert balls_to_win(GameState(frozenset({1, 2, 8, 9, 10, 11}), 0), 1) == 3   # open: smaller group + 8


def _one(ctx, state, game, call, shot):
    (s2, g2, out), = play_samples(ctx, state, game, CandidateShot(shot, call, "straight", 1.0), 1, noise=False)
    return s2, g2, out


def test_outcome_values(make):
    ctx = make("mc").ctx
    cfg = ctx.cfg
    into_lb = ShotParams(225.0, 0.0, 1.2)   # from (0.3, 0.3) straight at the lb corner
    on_eight = GameState(frozenset({8, 9}), 0, SOLIDS_P0)
    s2, g2, out = _one(ctx, TableState([0, 8, 9], [[0.3, 0.3], [0.15, 0.15], [0.8, 1.2]]), on_eight,
                       CalledShot.shot(8, "lb"), into_lb)
    assert g2.winner == 0 and outcome_win_probability(ctx, s2, g2, out, 0) == 1.0
    assert outcome_win_probability(ctx, s2, g2, out, 1) == 0.0
    # the cue ball drops in lb: a foul, the opponent (needing 2) has a sure first shot
    solids = GameState(frozenset({1, 8, 9}), 0, SOLIDS_P0)
    s2, g2, out = _one(ctx, TableState([0, 1, 9], [[0.3, 0.3], [0.8, 1.5], [0.8, 1.2]]), solids,
                       CalledShot.shot(1, "lb"), into_lb)
    assert out.fouls
    expected = 1.0 - win_probability(1.0, 2, 2, cfg.run_success, cfg.inning_first)
    assert outcome_win_probability(ctx, s2, g2, out, 0) == pytest.approx(expected)
    # a solid pocketed: the shooter continues, needing only the 8
    s2, g2, out = _one(ctx, TableState([0, 1, 9], [[0.3, 0.3], [0.15, 0.15], [0.8, 1.2]]), solids,
                       CalledShot.shot(1, "lb"), into_lb)
    assert out.turn_continues
    p = ctx.evaluate(s2, g2, 0)
    assert outcome_win_probability(ctx, s2, g2, out, 0) == pytest.approx(
        win_probability(p, 1, 2, cfg.run_success, cfg.inning_first))


def _scored(p, value):
    return Scored(CandidateShot(ShotParams(0.0, 0.0, 1.0), CalledShot.shot(1, "lb"), "straight", p), p, value)


def test_prefer_safety_paper_rule_and_win_probabilities():
    cfg = dataclasses.replace(load_planner_settings().search, t0=0.65, t1=0.6)
    safety = SafetyChoice(None, 0.5, 0.7)               # (candidate, opponent value, W)
    assert prefer_safety(None, safety, None, cfg)        # no shot at all
    assert prefer_safety(_scored(0.3, 0.2), safety, None, cfg)              # paper: leaves < t1
    assert not prefer_safety(_scored(0.3, 0.2), SafetyChoice(None, 0.9, None), None, cfg)
    assert prefer_safety(_scored(0.5, 0.9), safety, 0.6, cfg)               # MC: W 0.7 > 0.6
    assert not prefer_safety(_scored(0.5, 0.1), safety, 0.75, cfg)          # MC: W 0.7 < 0.75
