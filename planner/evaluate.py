"""PickPocket's evaluation function (Smith 2006, Section 3.3): the value of a table state for the
player to move is w1 p1 + w2 p2 + w3 p3 over the success probabilities of the best three shots
on distinct (ball, pocket) pairs, weights (1.0, 0.33, 0.15). A rack won by that player scores
``win_value``, one lost scores 0.
"""
from __future__ import annotations

import numpy as np

from planner.movegen import MoveGenerator
from planner.rules.game import GameState
from planner.state import TableState

WEIGHTS = (1.0, 0.33, 0.15)


def weighted_best(probs, weights=WEIGHTS) -> float:
    """sum_i w_i p_(i) over the largest probabilities, p_(1) >= p_(2) >= ...; missing shots count 0."""
    top = sorted(probs, reverse=True)[:len(weights)]
    return float(np.dot(weights[:len(top)], top))


def evaluate(movegen: MoveGenerator, state: TableState, game: GameState, player: int | None = None,
             weights=WEIGHTS, win_value: float = 2.0) -> float:
    """Value of (state, game) for ``player`` (default: the player to move). A finished rack:
    ``win_value`` if ``player`` won it, else 0. If ``player`` is not to move the value is that
    of the position the player to move faces (the caller's sign convention decides its use)."""
    who = game.shooter if player is None else player
    if game.is_over:
        return win_value if game.winner == who else 0.0
    probs = movegen.legal_straight_probabilities(state, game)
    return weighted_best(probs.values(), weights)
