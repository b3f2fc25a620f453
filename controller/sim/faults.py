"""Byte-level faults on one direction of the simulated serial line.

A FaultChannel sits between the robot and its port. Bytes pushed into it come out of
``pop_ready`` in order, except that each byte may independently be dropped, have one bit flipped,
be duplicated, or stall the line: that byte and every byte behind it leave ``delay_s`` later
(a line never reorders bytes). Time is passed in (seconds, any monotonic clock).
"""
from __future__ import annotations

from collections import Counter, deque

import numpy as np

from config.sim import Faults


class FaultChannel:
    """One direction of the line. ``counts`` tallies the faults injected by kind."""

    def __init__(self, faults: Faults, rng: np.random.Generator):
        self.faults = faults
        self._rng = rng
        self._queue: deque[tuple[float, bytes]] = deque()
        self._floor = 0.0  # no byte leaves before this time (the current stall)
        self.counts: Counter = Counter()

    def push(self, data: bytes, now: float) -> None:
        f = self.faults
        cut = np.cumsum([f.drop, f.corrupt, f.duplicate, f.delay])
        r = self._rng.random(len(data))
        t = max(now, self._floor)
        if not (r < cut[-1]).any():
            self._queue.append((t, data))
            return
        out = bytearray()
        for byte, x in zip(data, r):
            if x < cut[0]:
                self.counts["drop"] += 1
                continue
            if x < cut[1]:
                byte ^= 1 << int(self._rng.integers(8))
                self.counts["corrupt"] += 1
            elif x < cut[2]:
                out.append(byte)
                self.counts["duplicate"] += 1
            elif x < cut[3]:
                if out:
                    self._queue.append((t, bytes(out)))
                    out = bytearray()
                t = self._floor = max(t, now) + f.delay_s
                self.counts["delay"] += 1
            out.append(byte)
        if out:
            self._queue.append((t, bytes(out)))

    def pop_ready(self, now: float) -> bytes:
        """The bytes due by ``now``, in order."""
        out = bytearray()
        while self._queue and self._queue[0][0] <= now:
            out += self._queue.popleft()[1]
        return bytes(out)

    def next_release(self) -> float | None:
        return self._queue[0][0] if self._queue else None

    def clear(self) -> None:
        """Lose everything in flight (the port closed or the robot reset)."""
        self._queue.clear()
