"""The service's states, the transitions allowed between them, and the machine that logs them.

One turn of the game loop (``controller.service.service``) walks the states in this order:

    WAITING_FOR_REST -> CAPTURING -> DETECTING -> JUDGING (after a shot) -> PLANNING (robot's turn)
        -> EXECUTING -> OBSERVING -> WAITING_FOR_REST -> ...
    ... JUDGING -> OBSERVING (the opponent's turn: its shot, or a person's) -> WAITING_FOR_REST ...

Placing a ball (ball in hand, the spotted 8) is a capture inside the turn: EXECUTING (or
JUDGING, OBSERVING) -> WAITING_FOR_REST -> CAPTURING -> DETECTING -> back.

- WAITING_FOR_REST: reading frames until the table has been still for ``rest_frames`` frames.
- CAPTURING: reading the capture (``rest_frames`` fresh frames of the table at rest).
- DETECTING: vision on the capture, and its consistency with the game (ball count, duplicates,
  merged balls, balls vanished away from a pocket). Inconsistent: back to CAPTURING, at most
  ``recaptures`` times, then PAUSED.
- JUDGING: the observed referee and the 8-ball referee on the last shot's frames.
- PLANNING: the robot's planner chooses a shot (and a ball-in-hand spot).
- EXECUTING: placing the cue ball (ball in hand) and sending the shot to the robot.
- OBSERVING: frames through a shot (the robot's or the opponent's) until the table is at rest.
- PAUSED: no shot is sent; a person (the dashboard) or a camera fault asked for it. ``resume``
  re-captures the table.
- FAULTED: the robot failed (timeout, ERR, disconnect, reset, e-stop): the safe state, no
  further shot. ``resume`` reconnects (and homes after an e-stop) and re-captures.
- GAME_OVER: the referee gave the rack to a player. Final.
"""
from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("controller.service")


class State(enum.Enum):
    WAITING_FOR_REST = "waiting_for_rest"
    CAPTURING = "capturing"
    DETECTING = "detecting"
    JUDGING = "judging"
    PLANNING = "planning"
    EXECUTING = "executing"
    OBSERVING = "observing"
    PAUSED = "paused"
    FAULTED = "faulted"
    GAME_OVER = "game_over"


S = State
# Where each state may go. PAUSED and FAULTED are reachable from every working state (a person,
# a camera fault or a robot fault can stop the loop anywhere); GAME_OVER only after a ruling.
_WORKING = (S.WAITING_FOR_REST, S.CAPTURING, S.DETECTING, S.JUDGING, S.PLANNING, S.EXECUTING, S.OBSERVING)
TRANSITIONS: dict[State, frozenset[State]] = {
    S.WAITING_FOR_REST: frozenset({S.CAPTURING}),
    S.CAPTURING: frozenset({S.DETECTING}),
    S.DETECTING: frozenset({S.WAITING_FOR_REST, S.JUDGING, S.PLANNING, S.EXECUTING, S.OBSERVING}),
    S.JUDGING: frozenset({S.WAITING_FOR_REST, S.PLANNING, S.OBSERVING, S.GAME_OVER}),
    S.PLANNING: frozenset({S.EXECUTING}),
    S.EXECUTING: frozenset({S.WAITING_FOR_REST, S.OBSERVING}),
    S.OBSERVING: frozenset({S.WAITING_FOR_REST}),
    S.PAUSED: frozenset({S.WAITING_FOR_REST, S.OBSERVING}),
    S.FAULTED: frozenset({S.WAITING_FOR_REST, S.OBSERVING}),
    S.GAME_OVER: frozenset(),
}
for _s in _WORKING:
    TRANSITIONS[_s] = TRANSITIONS[_s] | {S.PAUSED, S.FAULTED}
TRANSITIONS[S.PAUSED] |= {S.FAULTED}
TRANSITIONS[S.FAULTED] |= {S.PAUSED}


class StateMachine:
    """The current state, changed only along ``TRANSITIONS``; every change is logged (``logging``
    and ``on_transition(record)``, record = {"t": unix time, "from", "to", "reason", "shot"}).
    Thread-safe: the game loop moves it, the dashboard's threads read it."""

    def __init__(self, on_transition: Callable[[dict], None] | None = None,
                 start: State = State.WAITING_FOR_REST):
        self._lock = threading.Condition()
        self._state = start
        self._published = start          # the state once its transition has been logged
        self._reason: str | None = None
        self._on = on_transition

    @property
    def state(self) -> State:
        with self._lock:
            return self._state

    @property
    def reason(self) -> str | None:
        """Why the machine is PAUSED or FAULTED (None otherwise)."""
        with self._lock:
            return self._reason

    def go(self, to: State, reason: str | None = None, shot: int | None = None) -> None:
        """Move to ``to`` (a no-op if already there and the reason is unchanged). Raises
        RuntimeError for a transition ``TRANSITIONS`` does not allow (a bug in the loop)."""
        with self._lock:
            frm = self._state
            if frm is to and reason == self._reason:
                return
            if frm is not to and to not in TRANSITIONS[frm]:
                raise RuntimeError(f"service: no transition from {frm.value} to {to.value}")
            self._state = to
            self._reason = reason if to in (State.PAUSED, State.FAULTED) else None
        rec = {"t": round(time.time(), 6), "from": frm.value, "to": to.value, "reason": reason, "shot": shot}
        if to in (State.PAUSED, State.FAULTED):
            log.warning("%s -> %s: %s", frm.value, to.value, reason)
        else:
            log.info("%s -> %s%s", frm.value, to.value, f" ({reason})" if reason else "")
        if self._on is not None:
            self._on(rec)
        with self._lock:
            self._published = to
            self._lock.notify_all()

    def begin(self, reason: str, shot: int | None = None) -> None:
        """Log the machine's start (a record with "from": None), e.g. when a process starts or
        resumes a game: the transitions log is one chain per process."""
        rec = {"t": round(time.time(), 6), "from": None, "to": self.state.value, "reason": reason, "shot": shot}
        log.info("start in %s (%s)", self.state.value, reason)
        if self._on is not None:
            self._on(rec)

    def wait_for(self, states, timeout: float | None = None) -> bool:
        """Block until the state is one of ``states`` (a State or an iterable of them) and its
        transition has been logged (so the status shows it); False if ``timeout`` [s] passed first."""
        want = {states} if isinstance(states, State) else set(states)
        with self._lock:
            return self._lock.wait_for(lambda: self._published in want, timeout)
