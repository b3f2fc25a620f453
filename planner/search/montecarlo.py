"""Monte-Carlo search (Smith 2006, Section 4.2): each candidate is executed ``samples`` times
under the robot's error model (one batch simulation), every sample is refereed, and the
candidate's value is the mean over samples of: 0 for a sample that passes the turn (PickPocket;
see ``miss_weight`` below); for one where the shooter continues, the evaluation of the resulting
state (1 ply) or the best MC value of the shots from it (2 ply, ``breadth_deep`` candidates,
``samples_deep`` samples each).

Beyond PickPocket:
- a sample that passes the turn is worth minus ``miss_weight`` x the position's value to the
  opponent, and one that loses the rack minus ``loss_value`` (both 0 reproduce the paper), so
  that of two shots alike in success the one whose misses leave the opponent less, foul least
  and risk the 8 least is preferred;
- common random numbers: the candidates of one node are executed with the same noise draws, so
  that their values differ by the shots and not by the luck of the draw (with 15 samples a
  fresh draw per candidate lets the maximum favour the luckiest, not the best);
- move ordering by the estimate and two cutoffs: a candidate whose (p + slack) x best-reachable
  value cannot beat the best is skipped; after its batch, one whose successes x best-reachable
  value cannot beat the best skips its children;
- a time budget after which the best candidate so far is returned.
"""
from __future__ import annotations

import math

import numpy as np

from planner.movegen import CandidateShot
from planner.rules.eightball import Outcome
from planner.rules.game import GameState
from planner.search.common import (Scored, SearchContext, opponent_value, past, play_samples, top_calls,
                                   value_bound)
from planner.state import TableState

SAMPLED = True   # judges shots by samples under the error model


def sample_value(ctx: SearchContext, state_after: TableState, game_after: GameState, outcome: Outcome,
                 player: int) -> float | None:
    """The value for ``player`` of one sample that ends his turn or the rack: ``win_value`` for a
    won rack, ``-loss_value`` for a lost one; otherwise minus ``miss_weight`` x what the position
    is worth to the opponent (``opponent_value``: his evaluation, its maximum after a foul).
    None when the shooter continues (the caller evaluates or searches the state)."""
    if game_after.is_over:
        return ctx.cfg.win_value if game_after.winner == player else -ctx.cfg.loss_value
    if outcome.turn_continues:
        return None
    return -ctx.cfg.miss_weight * opponent_value(ctx, state_after, game_after, outcome, player)


def draws(ctx: SearchContext, samples: int) -> np.ndarray:
    """(samples, 5) standard-normal draws shared by the candidates of one node."""
    return ctx.rng.standard_normal((samples, 5))


def mc_value(ctx: SearchContext, cand: CandidateShot, state: TableState, game: GameState, player: int,
             plies: int, z: np.ndarray, beat: float, deadline: float) -> tuple[float, float]:
    """(value, success fraction) of ``cand`` executed with the node's noise draws ``z``
    (samples x 5, standard normal); ``beat`` is the value it must exceed to matter (the children
    are not searched when it cannot). Failed samples are worth <= 0, so successes x
    best-reachable value bounds the mean."""
    samples = len(z)
    results = play_samples(ctx, state, game, cand, samples, z=z)
    bound = value_bound(ctx, game, plies)
    n_ok = sum(1 for _, g2, o in results if (o.turn_continues and not g2.is_over) or g2.winner == player)
    frac = n_ok / samples
    if frac * bound <= beat:
        ctx.count("cutoffs")
        return frac * bound, frac
    total = 0.0
    for s2, g2, o in results:
        v = sample_value(ctx, s2, g2, o, player)
        if v is None:
            if plies <= 1 or past(deadline):
                v = ctx.evaluate(s2, g2, player)
            else:
                v, z2 = 0.0, draws(ctx, ctx.cfg.samples_deep)
                for c in ctx.movegen.generate(s2, g2)[:ctx.cfg.breadth_deep]:
                    v = max(v, mc_value(ctx, c, s2, g2, player, plies - 1, z2, v, deadline)[0])
        total += v
    return total / samples, frac


def search(ctx: SearchContext, state: TableState, game: GameState, candidates: list[CandidateShot],
           deadline: float) -> Scored:
    """Search the root candidates (non-empty) best estimate first until the time budget."""
    player = game.shooter
    bound = value_bound(ctx, game, ctx.cfg.ply)
    ordered = top_calls(candidates, ctx.cfg.breadth)
    best, z = None, draws(ctx, ctx.cfg.samples)
    for c in ordered:
        if best is not None and (min(1.0, c.p + ctx.cfg.cutoff_slack) * bound <= best.value or past(deadline)):
            ctx.count("cutoffs")
            break
        v, frac = mc_value(ctx, c, state, game, player, ctx.cfg.ply, z,
                           -math.inf if best is None else best.value, deadline)
        if best is None or v > best.value:
            best = Scored(c, frac, v)
    return best
