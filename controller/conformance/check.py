"""What a conformance check is: a name, the spec clause it tests, what it needs, and a function.

A check function takes the Host (its precondition already established by the runner) and
returns a one-line account of what it saw; it raises CheckFailed (the robot broke its clause)
or Skipped (it could not be exercised on this robot, e.g. the robot was too fast to catch).

    @check("nak-1", "N1", needs=SESSION)
    def nak_bad_crc(h: Host) -> str: ...
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from controller.conformance.clauses import CLAUSES

# Preconditions, from weakest to strongest. READY needs motion (HOME), so it asks first.
NONE = "none"          # a port, nothing else
SESSION = "session"    # a HELLO answered since the robot last booted
LATCHED = "latched"    # SESSION, idle and emergency-stopped: no motion command can move it
READY = "ready"        # SESSION, homed, idle, not emergency-stopped


class CheckFailed(AssertionError):
    """The robot did not do what its clause says; the message says what it did instead."""


class Skipped(Exception):
    """The check could not be exercised on this robot; the message says why."""


@dataclass(frozen=True)
class Check:
    """``name`` unique; ``clause`` an id of clauses.CLAUSES; ``needs`` a precondition; ``moves``:
    it may move the robot (always true for READY); ``run(host) -> str``."""
    name: str
    clause: str
    needs: str
    moves: bool
    run: Callable
    doc: str

    @property
    def clause_text(self) -> str:
        return CLAUSES[self.clause]


REGISTRY: list[Check] = []


def check(name: str, clause: str, needs: str = SESSION, moves: bool = False):
    """Register the decorated function as a check, in definition order. Raises KeyError for a
    clause that is not in clauses.CLAUSES, ValueError for a name used twice."""
    CLAUSES[clause]  # noqa: B018  (a KeyError here names a clause missing from the catalogue)
    if any(c.name == name for c in REGISTRY):
        raise ValueError(f"check name {name!r} used twice")

    def register(fn):
        REGISTRY.append(Check(name, clause, needs, moves or needs == READY, fn,
                              (fn.__doc__ or "").strip().splitlines()[0]))
        return fn
    return register


def require(cond: bool, message: str) -> None:
    """Raise CheckFailed(message) unless ``cond``."""
    if not cond:
        raise CheckFailed(message)
