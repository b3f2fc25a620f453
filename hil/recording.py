"""The frame log: every frame of the serial line, both directions, timestamped, as JSON lines
(docs/protocol.md, "Frame log"). ``FrameLog`` writes one (it is a ``FrameSink`` of the driver);
``read_frame_log`` reads one back.
"""
from __future__ import annotations

import contextlib
import json
import threading
import time
from pathlib import Path


class FrameLog:
    """Append-only JSON-lines log of every frame, one line per frame, flushed as written, so a
    crash loses at most the frame being written.

    Each line: ``{"t": unix time [s], "dir": "tx"|"rx"|"ev", "frame": text}`` plus ``"error"``
    for a received line that is not a valid frame, and ``"event"`` instead of ``"frame"`` for
    link events (open, lost). Safe to use from several threads; ``close()`` may be called twice.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._f = open(self.path, "a", buffering=1, encoding="ascii")

    def frame(self, direction: str, line: bytes, error: str | None = None) -> None:
        rec = {"t": round(time.time(), 6), "dir": direction,
               "frame": line.rstrip(b"\n").decode("ascii", "backslashreplace")}
        if error:
            rec["error"] = error
        self._write(rec)

    def event(self, text: str) -> None:
        self._write({"t": round(time.time(), 6), "dir": "ev", "event": text})

    def _write(self, rec: dict) -> None:
        with self._lock:
            if not self._f.closed:
                self._f.write(json.dumps(rec) + "\n")
                self._f.flush()

    def close(self) -> None:
        with self._lock:
            self._f.close()


def read_frame_log(path: str | Path) -> list[dict]:
    """All complete records of a FrameLog (a torn last line, from a crash, is skipped)."""
    out = []
    for line in Path(path).read_text(encoding="ascii").splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            out.append(json.loads(line))
    return out
