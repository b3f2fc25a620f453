"""Recordings: the serial frame log and the run directory of a game.

- The frame log: every frame of the serial line, both directions, timestamped, as JSON lines
  (docs/protocol.md, "Frame log"). ``FrameLog`` writes one (it is a ``FrameSink`` of the
  driver); ``read_frame_log`` reads one back.
- The run directory (docs/recording.md): the game log, the state transitions, the frames, the
  serial frame log and the configuration in force. ``RunWriter`` writes one (the controller
  service), ``read_run`` reads one back (replay, reports).

A leaf module: it imports nothing of the controller, the planner or vision, so that both the
controller that writes recordings and the tools that replay them can use it.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import time
from dataclasses import dataclass
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


# ---- the run directory: the recording of one game (docs/recording.md) ------------------------

GAME_LOG = "game.jsonl"            # one record per line: start, shot, resume, end (docs/recording.md)
TRANSITIONS_LOG = "transitions.jsonl"
SERIAL_LOG = "serial.jsonl"        # the driver's FrameLog
FRAMES_DIR = "frames"              # numbered PNGs and their index
FRAME_INDEX = "index.jsonl"
CONFIG_DIR = "config"              # the YAML files in force, copied at the start
RUN_META = "run.json"


def append_line(fd: int, rec: dict) -> None:
    """Append ``rec`` as one JSON line to the file opened on ``fd`` (O_APPEND) in one system call,
    so that a killed process leaves either the whole line or a torn tail, never a line spliced
    into another."""
    data = (json.dumps(rec, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def repair_jsonl(path: str | Path) -> int:
    """Cut a torn last line (no final newline, left by a killed writer) off a JSON-lines file, so
    that appending to it starts on a fresh line. Returns the bytes cut (0 if none or no file)."""
    p = Path(path)
    if not p.exists():
        return 0
    data = p.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep == len(data):
        return 0
    with open(p, "r+b") as f:
        f.truncate(keep)
    return len(data) - keep


def read_jsonl(path: str | Path) -> list[dict]:
    """Every complete record of a JSON-lines file. A torn last line (a killed writer) is skipped;
    an unreadable line elsewhere raises ValueError naming the file and line number."""
    p = Path(path)
    if not p.exists():
        return []
    lines = p.read_text(encoding="utf-8").split("\n")
    out = []
    for k, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            if k == len(lines) - 1:
                break            # the torn tail: written last, never finished
            raise ValueError(f"{p}: line {k + 1} is not JSON ({e.msg})") from None
    return out


def new_run_dir(runs_dir: str | Path, now: float | None = None) -> Path:
    """A fresh directory ``runs_dir/<YYYYmmdd-HHMMSS>`` (suffixed -2, -3, ... if taken)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    base = Path(runs_dir)
    base.mkdir(parents=True, exist_ok=True)
    for k in range(1, 1000):
        p = base / (stamp if k == 1 else f"{stamp}-{k}")
        try:
            p.mkdir()
            return p
        except FileExistsError:
            continue
    raise RuntimeError(f"{base}: no free run directory name for {stamp}")


class RunWriter:
    """Writes one run directory (layout: docs/recording.md).

    ``record`` appends a game-log record and ``transition`` a state transition, each one JSON
    line written in one system call (a ``kill -9`` leaves at most a torn last line, which
    ``read_jsonl`` skips and ``RunWriter(resume=True)`` cuts off). ``frame`` writes a BGR image as
    ``frames/<index>.png`` (written to a temporary name, then renamed: never a torn PNG) and
    appends its index line. ``snapshot_config`` copies the configuration files in force. Safe
    to use from several threads; ``close`` may be called twice.
    """

    def __init__(self, root: str | Path, resume: bool = False):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / FRAMES_DIR).mkdir(exist_ok=True)
        self._lock = threading.Lock()
        paths = (self.root / GAME_LOG, self.root / TRANSITIONS_LOG, self.root / FRAMES_DIR / FRAME_INDEX,
                 self.root / SERIAL_LOG)
        if resume:
            for p in paths:
                repair_jsonl(p)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        self._game, self._trans, self._index = (os.open(p, flags, 0o644) for p in paths[:3])
        frames = read_jsonl(paths[2]) if resume else []
        self.next_frame = 1 + max((int(f["i"]) for f in frames), default=-1)

    @property
    def serial_log_path(self) -> Path:
        return self.root / SERIAL_LOG

    def record(self, rec: dict) -> None:
        with self._lock:
            append_line(self._game, rec)

    def transition(self, rec: dict) -> None:
        with self._lock:
            append_line(self._trans, rec)

    def frame(self, image, t: float, kind: str, shot: int) -> int:
        """Write one frame; returns its number in this run. image: BGR uint8 (H, W, 3); t: its
        camera time [s]; kind: "rest" (a capture of the table at rest) or "shot"; shot: the
        number of the shot it belongs to (the next shot for a rest frame)."""
        import cv2

        with self._lock:
            i = self.next_frame
            self.next_frame += 1
        name = f"{i:06d}.png"
        tmp = self.root / FRAMES_DIR / f".{name}.tmp.png"
        if not cv2.imwrite(str(tmp), image, [cv2.IMWRITE_PNG_COMPRESSION, 1]):
            raise OSError(f"{tmp}: could not write the frame")
        os.replace(tmp, self.root / FRAMES_DIR / name)
        with self._lock:
            append_line(self._index, {"i": i, "t": float(t), "kind": kind, "shot": int(shot), "file": name})
        return i

    def snapshot_config(self, files: dict[str, str | Path], meta: dict) -> None:
        """Copy the configuration files (name -> path) into ``config/`` and write ``run.json``
        (``meta``: seed, backend, players, ...). Done once, at the start of a run."""
        d = self.root / CONFIG_DIR
        d.mkdir(exist_ok=True)
        for name, src in files.items():
            shutil.copyfile(src, d / name)
        tmp = self.root / (RUN_META + ".tmp")
        tmp.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.root / RUN_META)

    def close(self) -> None:
        with self._lock:
            for name in ("_game", "_trans", "_index"):
                fd = getattr(self, name)
                if fd is not None:
                    os.close(fd)
                    setattr(self, name, None)


@dataclass(frozen=True)
class RunRecording:
    """A run directory read back: meta (run.json), the game log's records, the state
    transitions, the frame index (one dict per frame: i, t, kind, shot, file) and the paths."""
    root: Path
    meta: dict
    records: list[dict]
    transitions: list[dict]
    frames: list[dict]

    @property
    def shots(self) -> list[dict]:
        return [r for r in self.records if r.get("type") == "shot"]

    @property
    def end(self) -> dict | None:
        """The closing record (who won), or None if the game was not finished."""
        return next((r for r in reversed(self.records) if r.get("type") == "end"), None)

    @property
    def config_dir(self) -> Path:
        return self.root / CONFIG_DIR

    @property
    def serial_log(self) -> list[dict]:
        p = self.root / SERIAL_LOG
        return read_frame_log(p) if p.exists() else []

    def frame_path(self, i: int) -> Path:
        return self.root / FRAMES_DIR / f"{int(i):06d}.png"


def read_run(root: str | Path) -> RunRecording:
    """Read a run directory. Raises FileNotFoundError if it has no game log; torn last lines
    (a killed writer) are skipped."""
    p = Path(root)
    if not (p / GAME_LOG).exists():
        raise FileNotFoundError(f"{p}: not a run directory (no {GAME_LOG})")
    meta_p = p / RUN_META
    meta = json.loads(meta_p.read_text(encoding="utf-8")) if meta_p.exists() else {}
    return RunRecording(p, meta, read_jsonl(p / GAME_LOG), read_jsonl(p / TRANSITIONS_LOG),
                        read_jsonl(p / FRAMES_DIR / FRAME_INDEX))
