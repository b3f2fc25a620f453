"""Recordings: the serial frame log and the run directory of a game.

- The frame log: every frame of the serial line, both directions, timestamped, as JSON lines
  (docs/protocol.md, "Frame log"). ``FrameLog`` writes one (it is a ``FrameSink`` of the
  driver); ``read_frame_log`` reads one back.
- The run directory (docs/recording.md): the game log, the state transitions, the frames, their
  ground truth where it is known (frames/truth.jsonl), the serial frame log and the
  configuration in force. ``RunWriter`` writes one (the controller service, ``cuerobot hil
  record|import``), ``read_run`` reads one back (replay, reports). Format version:
  ``FORMAT_VERSION``, in run.json's ``format`` (a run.json without it is version 1).

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from config.atomic import write_atomic


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
FRAME_TRUTH = "truth.jsonl"        # per-frame ground truth (sim: exact; footage: annotations)
FORMAT_VERSION = 2                 # 1: no format key, no frames/truth.jsonl; 2: both
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
    ``frames/<index>.png`` (written to a temporary name, then renamed: never a torn PNG), then
    its truth line (frames/truth.jsonl) when ``frame_truth`` knows the frame, then its index
    line: an index line always names a whole PNG and follows its truth. ``snapshot_config``
    copies the configuration files in force. Safe to use from several threads; ``close`` may be
    called twice.

    frame_truth: None, or a callable (camera time [s]) -> {ball id: (x, y) [m]} or None, the
    exact balls of the frame of that time (the simulated camera's ``truth_at``).
    """
    frame_truth: Callable[[float], dict | None] | None = None

    def __init__(self, root: str | Path, resume: bool = False):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / FRAMES_DIR).mkdir(exist_ok=True)
        self._lock = threading.Lock()
        paths = (self.root / GAME_LOG, self.root / TRANSITIONS_LOG, self.root / FRAMES_DIR / FRAME_INDEX,
                 self.root / SERIAL_LOG)
        if resume:
            for p in (*paths, self.root / FRAMES_DIR / FRAME_TRUTH):
                repair_jsonl(p)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        self._game, self._trans, self._index = (os.open(p, flags, 0o644) for p in paths[:3])
        self._truth = os.open(self.root / FRAMES_DIR / FRAME_TRUTH, flags, 0o644)
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

    def frame(self, image, t: float, kind: str, shot: int | None, annotation=None) -> int:
        """Write one frame; returns its number in this run. image: BGR uint8 (H, W, 3); t: its
        camera time [s]; kind: "rest" (a capture of the table at rest), "shot" or "footage"
        (recorded without a game); shot: the number of the shot it belongs to (the next shot
        for a rest frame; None for footage). annotation: (balls, px) of a hand-annotated frame
        (``truth_line``'s), stored as its truth instead of ``frame_truth``'s."""
        import cv2

        with self._lock:
            i = self.next_frame
            self.next_frame += 1
        name = f"{i:06d}.png"
        tmp = self.root / FRAMES_DIR / f".{name}.tmp.png"
        if not cv2.imwrite(str(tmp), image, [cv2.IMWRITE_PNG_COMPRESSION, 1]):
            raise OSError(f"{tmp}: could not write the frame")
        os.replace(tmp, self.root / FRAMES_DIR / name)
        if annotation is not None:
            truth = truth_line(i, t, annotation[0], "annotation", annotation[1])
        else:
            balls = self.frame_truth(t) if self.frame_truth is not None else None
            truth = None if balls is None else truth_line(i, t, list(balls.items()), "sim")
        with self._lock:
            if truth is not None:
                append_line(self._truth, truth)
            append_line(self._index, {"i": i, "t": float(t), "kind": kind,
                                      "shot": None if shot is None else int(shot), "file": name})
        return i

    def snapshot_config(self, files: dict[str, str | Path], meta: dict) -> None:
        """Copy the configuration files (name -> path) into ``config/`` and write ``run.json``
        (``meta``: seed, backend, players, ...). Done once, at the start of a run."""
        d = self.root / CONFIG_DIR
        d.mkdir(exist_ok=True)
        for name, src in files.items():
            shutil.copyfile(src, d / name)
        write_meta(self.root, meta)

    def close(self) -> None:
        with self._lock:
            for name in ("_game", "_trans", "_index", "_truth"):
                fd = getattr(self, name)
                if fd is not None:
                    os.close(fd)
                    setattr(self, name, None)


def write_meta(root: str | Path, meta: dict) -> None:
    """Write ``root/run.json`` (``meta`` plus ``"format": FORMAT_VERSION``) atomically
    (``config.atomic``)."""
    write_atomic(Path(root) / RUN_META,
                 json.dumps({**meta, "format": FORMAT_VERSION}, indent=1, sort_keys=True, allow_nan=False) + "\n")


def truth_line(i: int, t: float, balls, source: str, px=None) -> dict:
    """One frames/truth.jsonl record: frame number ``i``, camera time ``t`` [s], ``balls`` a list
    of (id or None, (x, y) table-frame centre [m]) (id None: a ball annotated without its
    number), ``source`` ("sim": exact, "annotation": by hand). ``px``: for annotated frames, the
    annotated pixel centres (N, 2) [px], parallel to ``balls``, which the table positions came
    from."""
    rec = {"i": int(i), "t": float(t), "source": source,
           "balls": [{"id": None if b is None else int(b), "x": float(xy[0]), "y": float(xy[1])} for b, xy in balls]}
    if px is not None:
        for ball, p in zip(rec["balls"], px):
            ball["px"] = [float(p[0]), float(p[1])]
    return rec


@dataclass(frozen=True)
class RunRecording:
    """A run directory read back: meta (run.json), the game log's records, the state
    transitions, the frame index (one dict per frame: i, t, kind, shot, file), the frames'
    ground truth ({frame number: its frames/truth.jsonl record}, empty if none) and the paths."""
    root: Path
    meta: dict
    records: list[dict]
    transitions: list[dict]
    frames: list[dict]
    truth: dict = field(default_factory=dict)

    @property
    def version(self) -> int:
        """The format version (docs/recording.md); 1 for a run.json without ``format``."""
        return int(self.meta.get("format", 1))

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
    """Read a run directory: a game's (game.jsonl) or footage alone (frames/index.jsonl, no game
    log). Raises FileNotFoundError if it has neither; torn last lines (a killed writer) are
    skipped, and so is an index line whose PNG is missing (never the case for a RunWriter)."""
    p = Path(root)
    if not (p / GAME_LOG).exists() and not (p / FRAMES_DIR / FRAME_INDEX).exists():
        raise FileNotFoundError(f"{p}: not a recording (no {GAME_LOG} and no {FRAMES_DIR}/{FRAME_INDEX})")
    meta_p = p / RUN_META
    meta = json.loads(meta_p.read_text(encoding="utf-8")) if meta_p.exists() else {}
    frames = [f for f in read_jsonl(p / FRAMES_DIR / FRAME_INDEX) if (p / FRAMES_DIR / f["file"]).exists()]
    truth = {int(r["i"]): r for r in read_jsonl(p / FRAMES_DIR / FRAME_TRUTH)}
    return RunRecording(p, meta, read_jsonl(p / GAME_LOG), read_jsonl(p / TRANSITIONS_LOG), frames, truth)
