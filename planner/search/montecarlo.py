"""Monte-Carlo search (Smith 2006, Section 4.2): each candidate is executed ``samples`` times
under the robot's error model (one batch simulation), every sample is refereed, and the
candidate's value is the mean over samples of 0 for a sample that passes the turn and, for one
where the shooter continues, the evaluation of the resulting state (1 ply) or the best MC value of
the shots from it (2 ply, ``breadth_deep`` candidates, ``samples_deep`` samples each).

Beyond PickPocket: move ordering by the estimate, two cutoffs (a candidate whose
(p + slack) x best-reachable value cannot beat the best is skipped; after its batch, one whose
successes x best-reachable value cannot beat the best skips its children), and a time budget
after which the best candidate so far is returned.
"""
from __future__ import annotations

from planner.movegen import CandidateShot
from planner.rules.game import GameState
from planner.search.common import (Scored, SearchContext, past, play_samples, success_value,
                                   top_calls, value_bound)
from planner.state import TableState


def mc_value(ctx: SearchContext, cand: CandidateShot, state: TableState, game: GameState, player: int,
             plies: int, samples: int, beat: float, deadline: float) -> tuple[float, float]:
    """(value, success fraction) of ``cand``; ``beat`` is the value it must exceed to matter (the
    children are not searched when it cannot)."""
    results = play_samples(ctx, state, game, cand, samples)
    bound = value_bound(ctx, game, plies)
    wins = [success_value(ctx, g2, o, player) for _, g2, o in results]
    n_ok = sum(1 for v, (_, g2, o) in zip(wins, results) if v is None or v > 0)
    frac = n_ok / samples
    if frac * bound <= beat:
        ctx.count("cutoffs")
        return frac * bound, frac
    total = 0.0
    for v, (s2, g2, _) in zip(wins, results):
        if v is None:
            if plies <= 1 or past(deadline):
                v = ctx.evaluate(s2, g2, player)
            else:
                v = 0.0
                for c in ctx.movegen.generate(s2, g2)[:ctx.cfg.breadth_deep]:
                    v = max(v, mc_value(ctx, c, s2, g2, player, plies - 1, ctx.cfg.samples_deep, v,
                                        deadline)[0])
        total += v
    return total / samples, frac


def search(ctx: SearchContext, state: TableState, game: GameState, candidates: list[CandidateShot],
           deadline: float) -> Scored:
    """Search the root candidates (non-empty) best estimate first until the time budget."""
    player = game.shooter
    bound = value_bound(ctx, game, ctx.cfg.ply)
    ordered = top_calls(candidates, ctx.cfg.breadth)
    best = None
    for c in ordered:
        if best is not None and (min(1.0, c.p + ctx.cfg.cutoff_slack) * bound <= best.value or past(deadline)):
            ctx.count("cutoffs")
            break
        v, frac = mc_value(ctx, c, state, game, player, ctx.cfg.ply, ctx.cfg.samples,
                           -1.0 if best is None else best.value, deadline)
        if best is None or v > best.value:
            best = Scored(c, frac, v)
    return best
