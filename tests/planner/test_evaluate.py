"""PickPocket's evaluation: weights over the best three distinct (ball, pocket) shots."""
from __future__ import annotations

import pytest

from planner.evaluate import evaluate, weighted_best
from planner.movegen import MoveGenerator
from planner.rules.game import GameState
from planner.state import TableState


def test_weighted_best_takes_the_three_largest():
    assert weighted_best([0.2, 0.9, 0.1, 0.5]) == pytest.approx(0.9 + 0.33 * 0.5 + 0.15 * 0.2)
    assert weighted_best([0.7]) == pytest.approx(0.7)
    assert weighted_best([]) == 0.0


def test_evaluate_matches_the_move_generators_probabilities(table_config, tiny_difficulty, coarse_movegen):
    mg = MoveGenerator(table_config.table, table_config.physics, tiny_difficulty, coarse_movegen)
    st = TableState([0, 1, 2, 9], [[0.5, 0.7], [0.3, 1.5], [0.8, 0.5], [0.2, 0.3]])
    game = GameState(frozenset({1, 2, 9, 8}), 0, ("solid", "stripe"))
    probs = mg.straight_probabilities(st, [1, 2])
    top = sorted(probs.values(), reverse=True)
    assert len(top) >= 3
    assert evaluate(mg, st, game) == pytest.approx(top[0] + 0.33 * top[1] + 0.15 * top[2])
    # the opponent (stripes) sees only ball 9's shots
    opp = GameState(frozenset({1, 2, 9, 8}), 1, ("solid", "stripe"))
    assert evaluate(mg, st, opp) == pytest.approx(weighted_best(mg.straight_probabilities(st, [9]).values()))
    won = GameState(frozenset({9}), 0, ("solid", "stripe"), winner=0)
    assert evaluate(mg, st, won, player=0, win_value=2.0) == 2.0
    assert evaluate(mg, st, won, player=1) == 0.0
