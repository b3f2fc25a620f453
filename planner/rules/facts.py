"""What happened in one shot, read from a physics event log: the facts a referee rules on.

The referee never looks at positions or velocities; it needs only the order of contacts:
which ball the cue ball touched first, whether any ball reached a cushion after that, which
balls reached a cushion at all (the break), which balls dropped and where, and which balls
left the table.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.physics.eventlog import CUSHION_EVENTS, EV_BALL_BALL, EV_POCKET, EventLog
from planner.state import CUE


@dataclass(frozen=True)
class ShotFacts:
    """The contacts of one shot.

    first_contact: id of the first ball the cue ball touched, or None if it touched none.
    rail_after_contact: some ball (cue or object) touched a cushion (rail, jaw face or jaw tip)
        after the cue ball's first contact with a ball.
    balls_to_rail: object balls (not the cue ball) that touched a cushion at any time.
    pocketed: (ball id, pocket id) in the order the balls dropped; may include the cue ball.
    off_table: balls that left the table (not through a pocket); may include the cue ball.
    """
    first_contact: int | None
    rail_after_contact: bool
    balls_to_rail: frozenset[int]
    pocketed: tuple[tuple[int, str], ...]
    off_table: frozenset[int]

    @property
    def pocketed_ids(self) -> frozenset[int]:
        return frozenset(b for b, _ in self.pocketed)

    def pocket_of(self, ball_id: int) -> str | None:
        """The pocket ``ball_id`` dropped into on this shot, or None."""
        for b, p in self.pocketed:
            if b == ball_id:
                return p
        return None


def read_shot(events: EventLog, pocket_ids: tuple[str, ...],
              off_table: frozenset[int] = frozenset()) -> ShotFacts:
    """Read the contacts of one shot from its event log (events in time order).

    events: the simulation's EventLog (planner.physics.eventlog): for EV_BALL_BALL a and b are
        ball ids; for cushion events a is the ball id; for EV_POCKET a is the ball id and b the
        index of the pocket in ``pocket_ids``.
    pocket_ids: the table's pocket ids in index order (``Table.pocket_ids``).
    off_table: ids of balls that left the table (the 2-D engine never produces these).
    Raises ValueError if a pocket index is out of range, a ball drops twice, or a ball is both
    pocketed and off the table.
    """
    kind = np.asarray(events.kind)
    a = np.asarray(events.a)
    b = np.asarray(events.b)
    first_contact: int | None = None
    first_index = -1
    for i in np.flatnonzero(kind == EV_BALL_BALL):
        if a[i] == CUE or b[i] == CUE:
            first_contact = int(b[i] if a[i] == CUE else a[i])
            first_index = int(i)
            break
    is_cushion = np.isin(kind, CUSHION_EVENTS)
    rail_after = first_contact is not None and bool(np.any(is_cushion[first_index + 1:]))
    to_rail = frozenset(int(x) for x in a[is_cushion] if x != CUE)

    pocketed: list[tuple[int, str]] = []
    for i in np.flatnonzero(kind == EV_POCKET):
        ball, idx = int(a[i]), int(b[i])
        if not 0 <= idx < len(pocket_ids):
            raise ValueError(f"event {i}: pocket index {idx} is outside the table's "
                             f"{len(pocket_ids)} pockets {pocket_ids}")
        if any(ball == p for p, _ in pocketed):
            raise ValueError(f"event {i}: ball {ball} is pocketed a second time")
        pocketed.append((ball, pocket_ids[idx]))
    off = frozenset(int(x) for x in off_table)
    both = off & {p for p, _ in pocketed}
    if both:
        raise ValueError(f"balls {sorted(both)} are both pocketed and off the table")
    return ShotFacts(first_contact, rail_after, to_rail, tuple(pocketed), off)
