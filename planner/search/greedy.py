"""Greedy search (Smith 2006, Section 4): the candidate with the highest success probability
estimate, no look-ahead."""
from __future__ import annotations

from planner.movegen import CandidateShot
from planner.rules.game import GameState
from planner.search.common import Scored, SearchContext
from planner.state import TableState

SAMPLED = False   # judges shots by estimates, not samples


def search(ctx: SearchContext, state: TableState, game: GameState, candidates: list[CandidateShot],
           deadline: float) -> Scored:
    """Best estimate first; ties keep the generator's order (least speed, stun). candidates non-empty."""
    best = max(candidates, key=lambda c: c.p)
    return Scored(best, best.p, best.p)
