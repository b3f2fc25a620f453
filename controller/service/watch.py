"""Watching the table: the states of the loop that only read frames (WAITING_FOR_REST, CAPTURING,
DETECTING, OBSERVING) and what they hand back: a consistent capture, or the frames of a shot.

Contracts (times on the service clock [s], positions in the table frame [m]):

- ``wait_for_rest``: returns once the last ``rest_frames`` frames are at rest; CameraFault after
  ``max_shot_s`` of frames without rest.
- ``settle(shot, expect, want)``: a capture of ``rest_frames`` fresh frames at rest that
  passes ``check_capture`` (and shows ``want``'s ball within ``tolerance`` of its spot), re-captured
  up to ``recaptures`` times; then CameraFault naming every problem of the last try (NotPlaced
  when its only problem was ``want``'s ball not at its spot).
- ``shot_frames(before, t_from, person)``: the frames of a shot, until ``rest_frames`` frames
  taken at or after ``t_from`` are at rest. A person's shot (hardware): rest frames are kept as
  ``before`` (the last ``rest_frames``) until something moves, or the dashboard says the
  opponent is done.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

import numpy as np

from config.service import CameraTiming
from controller.service.observe import CameraFault, Capture, FrameReader, Sighting, at_rest, check_capture, still
from controller.service.states import State, StateMachine
from planner.state import CUE

log = logging.getLogger("controller.service")

LIFT_TRAVEL = 0.03    # [m] how far a cue ball lifted by hand may seem to move before it is out of sight


class NotPlaced(CameraFault):
    """The table is consistent, but the ball being placed is not (yet) within the tolerance of
    its spot."""


class Stopped(Exception):
    """The service was asked to stop (``Service.stop``)."""


class Watcher:
    """The frame-reading states of the loop. ``t_rest``: perf_counter time at which the table was
    last found at rest; ``stage``: wall time [s] of the last capture's camera reads ("capture")
    and vision ("vision"); ``on_capture(capture)`` is called with every consistent capture."""

    def __init__(self, reader: FrameReader, machine: StateMachine, timing: CameraTiming, table, R: float,
                 tolerance: float, stop: threading.Event, on_capture: Callable[[Capture], None] | None = None):
        self.reader, self.machine, self.timing = reader, machine, timing
        self.table, self.R, self.tolerance, self._stop = table, R, tolerance, stop
        self.on_capture = on_capture
        self.recent: deque[Sighting] = deque(maxlen=max(timing.rest_frames, 2))
        self.t_rest = time.perf_counter()
        self.stage = {"capture": 0.0, "vision": 0.0}

    def next(self) -> Sighting:
        if self._stop.is_set():
            raise Stopped
        s = self.reader.next()
        self.recent.append(s)
        return s

    def forget(self) -> None:
        """Drop the frames kept for rest detection and the resting balls' anchors (after a pause:
        the table may have changed)."""
        self.recent.clear()
        self.reader.anchors.clear()

    def wait_for_rest(self, shot: int) -> None:
        self.machine.go(State.WAITING_FOR_REST, shot=shot)
        rf, tol = self.timing.rest_frames, self.timing.rest_tolerance
        t0 = None
        while not (len(self.recent) >= rf and at_rest(list(self.recent)[-rf:], tol)):
            s = self.next()
            t0 = s.t if t0 is None else t0
            if s.t - t0 > self.timing.max_shot_s:
                raise CameraFault(f"camera: the table has not come to rest in {self.timing.max_shot_s} s")
        if t0 is not None:
            self.t_rest = time.perf_counter()

    def settle(self, shot: int, expect, want: tuple[int, tuple[float, float]] | None = None) -> Capture:
        """expect: (expected, optional, last_seen) for ``check_capture``, or a function of the
        capture's frames returning them (called on every capture)."""
        problems: tuple[str, ...] = ()
        missed: tuple[str, ...] = ()
        tries = 1 + self.timing.recaptures
        for _ in range(tries):
            self.wait_for_rest(shot)
            self.machine.go(State.CAPTURING, shot=shot)
            frames = [self.next() for _ in range(self.timing.rest_frames)]
            self.stage = {"capture": sum(s.read_s for s in frames), "vision": sum(s.vision_s for s in frames)}
            self.machine.go(State.DETECTING, shot=shot)
            if not still(frames, self.timing.rest_tolerance):
                problems = ("the table moved during the capture",)
                continue
            expected, optional, last_seen = expect(frames) if callable(expect) else expect
            cap = check_capture(frames, expected, self.table, self.R, optional, last_seen)
            missed = () if cap.problems else self._missed(cap, want)
            problems = cap.problems or missed
            if not problems:
                self.reader.anchors = {int(b): tuple(cap.state.position(b)) for b in cap.state.ids}
                if self.on_capture is not None:
                    self.on_capture(cap)
                return cap
            log.warning("inconsistent capture: %s", "; ".join(problems))
        if missed:
            raise NotPlaced(f"camera: {missed[0]} after {tries} captures")
        raise CameraFault(f"camera: the table seen is inconsistent after {tries} captures: " + "; ".join(problems))

    def _missed(self, cap: Capture, want) -> tuple[str, ...]:
        if want is None:
            return ()
        ball, xy = want
        seen = cap.state.position(ball) if cap.state.has(ball) else None
        off = np.inf if seen is None else float(np.hypot(*(seen - np.asarray(xy))))
        if off <= self.tolerance:
            return ()
        where = "not seen" if seen is None else f"seen {1000 * off:.0f} mm away"
        return (f"ball {ball} should be at ({xy[0]:.3f}, {xy[1]:.3f}) m but is {where}",)

    def shot_frames(self, shot: int, before: list[Sighting], frames: list[Sighting], t_from: float,
                    person: bool = False, done: threading.Event | None = None) -> list[Sighting]:
        """OBSERVING: extends ``frames`` in place until the shot is over; returns the frames
        before the shot (``before``, replaced by the last rest frames for a person's shot).

        A person's motion that only lifts the cue ball off the table (``lifted_cue``) or ends with
        only the cue ball elsewhere after it was out of sight (``placed_by_hand``) is ball in hand,
        not the shot: the frames after it become ``before`` and the watch for the shot goes on."""
        self.machine.go(State.OBSERVING, shot=shot)
        rf, tol = self.timing.rest_frames, self.timing.rest_tolerance
        waiting = person
        t0 = None
        while True:
            s = self.next()
            t0 = s.t if t0 is None else t0
            if waiting:
                if before and not at_rest([before[-1], s], tol):
                    waiting = False
                    frames.append(s)
                elif done is not None and done.is_set():
                    break
                else:
                    before = (before + [s])[-rf:]
                    t0 = s.t
                continue
            frames.append(s)
            tail = frames[-rf:]
            if len(tail) == rf and tail[0].t >= t_from and at_rest(tail, tol):
                if person and (placed_by_hand(before, frames) or lifted_cue(before, frames)):
                    before, waiting = list(tail), True
                    frames.clear()
                    continue
                break
            if s.t - t0 > self.timing.max_shot_s:
                raise CameraFault(f"camera: the table still moves {self.timing.max_shot_s} s into shot {shot}")
        self.t_rest = time.perf_counter()
        return before


def lifted_cue(before: list[Sighting], frames: list[Sighting], still: float = 2e-3,
               travel: float = LIFT_TRAVEL) -> bool:
    """Whether a motion from ``before`` through ``frames`` (ending at rest) only took the cue ball
    off the table by hand: it was on the table before, is gone at the end, was never seen more
    than ``travel`` [m] from where it was (a cue ball struck into a pocket is seen rolling
    there), and every other ball ends within ``still`` [m] of where it was."""
    if not before or not frames:
        return False
    a, b = before[-1].balls, frames[-1].balls
    if CUE not in a or CUE in b or set(a) - {CUE} != set(b):
        return False
    if any(np.hypot(*np.subtract(s.balls[CUE], a[CUE])) > travel for s in frames if CUE in s.balls):
        return False
    return all(np.hypot(*np.subtract(a[k], b[k])) <= still for k in b)


def placed_by_hand(before: list[Sighting], frames: list[Sighting], still: float = 2e-3) -> bool:
    """Whether a motion from ``before`` through ``frames`` (ending at rest) only put the cue ball
    somewhere by hand: it was unseen in some frame (or before the motion: a scratched cue ball),
    and every other ball ends within ``still`` [m] of where it was."""
    if not before or not frames:
        return False
    a, b = before[-1].balls, frames[-1].balls
    lifted = any(CUE not in s.balls for s in [before[-1], *frames])
    if CUE not in b or not lifted or set(a) - {CUE} != set(b) - {CUE}:
        return False
    return all(np.hypot(*np.subtract(a[k], b[k])) <= still for k in a if k != CUE)
