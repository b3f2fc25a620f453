"""Probabilistic search (Smith 2006, Section 4.1): expectimax-like look-ahead in which a shot's
value is its estimated success probability times the value of the state its nominal (noise-free)
execution leads to; a failed shot is worth 0. Leaves are scored by the evaluation function.
Move ordering by estimate and a cutoff: once p x (best value reachable) cannot beat the best
found, the remaining (lower-p) candidates are skipped.
"""
from __future__ import annotations

from planner.movegen import CandidateShot
from planner.rules.game import GameState
from planner.search.common import Scored, SearchContext, past, play_samples, success_value, top_calls, value_bound
from planner.state import TableState

SAMPLED = False   # judges shots by nominal (noise-free) simulations


def _value(ctx: SearchContext, cand: CandidateShot, state: TableState, game: GameState,
           player: int, plies: int, deadline: float) -> float:
    """p x value after the nominal shot; ``plies`` shots including this one."""
    (s2, g2, out), = play_samples(ctx, state, game, cand, 1, noise=False)
    v = success_value(ctx, g2, out, player)
    if v is None:
        v = (ctx.evaluate(s2, g2, player) if plies <= 1 or past(deadline)
             else _best(ctx, s2, g2, player, plies - 1, deadline, ctx.cfg.breadth_deep))
    return cand.p * v


def _best(ctx, state, game, player, plies, deadline, breadth) -> float:
    best = 0.0
    bound = value_bound(ctx, game, plies)
    for c in ctx.movegen.best(state, game, breadth):
        if c.p * bound <= best:
            break
        best = max(best, _value(ctx, c, state, game, player, plies, deadline))
    return best


def search(ctx: SearchContext, state: TableState, game: GameState, candidates: list[CandidateShot],
           deadline: float) -> Scored:
    """Look ``ctx.cfg.ply`` shots ahead from the root candidates (sorted by p, non-empty)."""
    player = game.shooter
    bound = value_bound(ctx, game, ctx.cfg.ply)
    ordered = top_calls(candidates, ctx.cfg.breadth)
    best = Scored(ordered[0], ordered[0].p, -1.0)
    for c in ordered:
        if best.value >= 0 and (c.p * bound <= best.value or past(deadline)):
            ctx.count("cutoffs")
            break
        v = _value(ctx, c, state, game, player, ctx.cfg.ply, deadline)
        if v > best.value:
            best = Scored(c, c.p, v)
    return best
