"""What the service publishes for the dashboard: status, the latest frame, the plan, the game log,
and live events. The game loop writes it; the web server's threads read it (``ServiceControl``'s
read side). Every method is thread-safe.
"""
from __future__ import annotations

import queue
import threading
import time

import numpy as np

from controller.annotate import annotate_frame, encode_png

MAX_QUEUE = 256     # events kept per live client before the oldest are dropped
FRAME_EVENT_S = 0.1  # at most one "frame" event per this many seconds of wall time (the sim runs faster than real time)


class Hub:
    """The published state. ``frame_png`` draws the latest frame with ``controller.annotate``:
    the detections, and the plan's predicted paths when ``cam`` (the posed CameraModel) and the
    ball radius ``R`` [m] are given."""

    def __init__(self, cam=None, R: float | None = None):
        self._lock = threading.Lock()
        self._status: dict = {}
        self._frame: tuple | None = None          # (image, observations)
        self._png: bytes | None = None
        self._plan: dict | None = None
        self._log: list[dict] = []
        self._subs: list[queue.Queue] = []
        self._paths: dict = {}
        self._cam, self._R = cam, R
        self._last_frame_event = -np.inf

    # ---- written by the game loop ----
    def set_status(self, **fields) -> None:
        with self._lock:
            self._status.update(fields)
            snap = dict(self._status)
        self.publish({"type": "state", **snap})

    def set_frame(self, image: np.ndarray, observations, index: int) -> None:
        now = time.monotonic()
        with self._lock:
            self._frame = (image, observations)
            self._png = None
            due = now - self._last_frame_event >= FRAME_EVENT_S
            if due:
                self._last_frame_event = now
        if due:
            self.publish({"type": "frame", "index": int(index)})

    def set_plan(self, plan: dict | None, paths: dict | None = None) -> None:
        """The plan (ServiceControl.plan's form) and its predicted paths ({ball: annotate.BallPath})."""
        with self._lock:
            self._plan = plan
            self._paths = paths or {}
            self._png = None
        self.publish({"type": "plan", "plan": plan})

    def add_record(self, rec: dict) -> None:
        with self._lock:
            self._log.append(rec)
        if rec.get("type") == "shot":
            self.publish({"type": "shot", "record": rec})

    def fault(self, text: str) -> None:
        self.publish({"type": "fault", "fault": text})

    def publish(self, event: dict) -> None:
        with self._lock:
            subs = list(self._subs)
        for q in subs:
            while True:
                try:
                    q.put_nowait(event)
                    break
                except queue.Full:
                    try:
                        q.get_nowait()
                    except queue.Empty:
                        pass

    # ---- read by the dashboard ----
    def status(self) -> dict:
        with self._lock:
            return dict(self._status)

    def plan(self) -> dict | None:
        with self._lock:
            return self._plan

    def game_log(self, since: int = 0) -> list[dict]:
        with self._lock:
            return list(self._log[max(int(since), 0):])

    def frame_png(self) -> bytes | None:
        with self._lock:
            if self._png is not None or self._frame is None:
                return self._png
            image, obs = self._frame
            paths = self._paths
        png = encode_png(self._draw(image, obs, paths))
        with self._lock:
            if self._frame is not None and self._frame[0] is image:
                self._png = png
        return png

    def _draw(self, image, obs, paths):
        if self._cam is None or not paths:
            return annotate_frame(image, list(obs))
        return annotate_frame(image, list(obs), self._cam, paths, self._R)

    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(MAX_QUEUE)
        with self._lock:
            self._subs.append(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            if q in self._subs:
                self._subs.remove(q)
