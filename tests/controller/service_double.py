"""A ServiceControl test double for the API and dashboard tests: fixed status, plan, frame and game
log in the contract's shapes (controller/service/control.py), control calls recorded, and events
published to the subscribers by hand (``publish``) or by the control calls themselves."""
from __future__ import annotations

import queue
import threading
import time

import numpy as np

from controller.annotate import encode_png

TOKEN = "test-token-7f3a9c"


def frame_png(width: int = 320, height: int = 180) -> bytes:
    """A small PNG: green cloth with a white ball."""
    img = np.zeros((height, width, 3), np.uint8)
    img[:] = (60, 120, 20)
    yy, xx = np.mgrid[:height, :width]
    img[(xx - width // 3) ** 2 + (yy - height // 2) ** 2 < 100] = 255
    return encode_png(img)


SHOT = {"phi": 63.5, "theta": 5.0, "V": 2.5, "a": 0.0, "b": -0.005}
PLAN = {
    "kind": "pot", "call": {"ball": 1, "pocket": "rt"}, "estimate": 0.82, "shot": SHOT, "cue_pos": None,
    "alternatives": [
        {"kind": "pot", "call": {"ball": 3, "pocket": "lc"}, "estimate": 0.61,
         "shot": {"phi": 120.0, "theta": 5.0, "V": 1.8, "a": 0.002, "b": 0.0}},
        {"kind": "safety", "call": None, "estimate": 0.4,
         "shot": {"phi": 200.0, "theta": 8.0, "V": 1.2, "a": 0.0, "b": 0.0}},
    ],
    "paths": {0: [[0.4, 1.2], [0.77, 1.78]], 1: [[0.8, 1.8], [1.1, 2.2]]},
}


class ServiceDouble:
    """Implements ServiceControl. ``calls``: the control methods called, in order. Thread-safe."""

    def __init__(self, frame: bytes | None = None, plan: dict | None = PLAN):
        self.calls: list[str] = []
        self.subscribers: list[queue.Queue] = []
        self._lock = threading.Lock()
        self._frame = frame_png() if frame is None else frame
        self._plan = plan
        self._state, self._reason, self._fault = "thinking", None, None
        self._log = [{"t": 0.0, "event": "start", "players": ["mc", "greedy"]},
                     {"t": 1.5, "event": "shot", "shot": 1, "shooter": "mc", "pocketed": [3]}]

    # ---- reads ------------------------------------------------------------------------------
    def status(self) -> dict:
        with self._lock:
            return {"state": self._state, "reason": self._reason, "fault": self._fault, "shot": 1,
                    "players": ["mc", "greedy"],
                    "game": {"shooter": "mc", "groups": {"mc": "solids", "greedy": "stripes"}, "winner": None,
                             "in_hand": False, "balls": {0: [0.4, 1.2], 1: [0.8, 1.8], 9: [0.3, 0.5]}},
                    "backend": "sim", "run_dir": "runs/test"}

    def frame_png(self) -> bytes | None:
        with self._lock:
            return self._frame

    def plan(self) -> dict | None:
        with self._lock:
            return self._plan

    def game_log(self, since: int = 0) -> list[dict]:
        with self._lock:
            return list(self._log[since:])

    # ---- events -----------------------------------------------------------------------------
    def subscribe(self) -> queue.Queue:
        q = queue.Queue()
        with self._lock:
            self.subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            if q in self.subscribers:
                self.subscribers.remove(q)

    def publish(self, event: dict) -> None:
        with self._lock:
            subs = list(self.subscribers)
        for q in subs:
            q.put(event)

    # ---- test controls ----------------------------------------------------------------------
    def set_frame(self, png: bytes) -> None:
        with self._lock:
            self._frame = png
        self.publish({"type": "frame", "index": 1})

    def set_plan(self, plan: dict | None) -> None:
        with self._lock:
            self._plan = plan
        self.publish({"type": "plan", "plan": plan})

    def add_log(self, record: dict) -> None:
        with self._lock:
            self._log.append(record)
        self.publish({"type": "shot", "record": record})

    # ---- controls ---------------------------------------------------------------------------
    def _set(self, call: str, state: str, reason=None, fault=None) -> None:
        with self._lock:
            self.calls.append(call)
            self._state, self._reason, self._fault = state, reason, fault
        self.publish({"type": "state", "state": state, "reason": reason})

    def pause(self) -> None:
        self._set("pause", "paused", "paused from the dashboard")

    def resume(self) -> None:
        self._set("resume", "capturing")

    def estop(self) -> None:
        self._set("estop", "faulted", "e-stop", "ESTOP sent from the dashboard")
        self.publish({"type": "fault", "fault": "ESTOP sent from the dashboard"})

    def shoot_now(self) -> None:
        with self._lock:
            self.calls.append("shoot_now")

    def opponent_done(self) -> None:
        with self._lock:
            self.calls.append("opponent_done")


def wait_until(predicate, timeout: float = 10.0, what: str = "condition"):
    """Poll ``predicate`` until it returns something true (returned) or fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.01)
