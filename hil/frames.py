"""Recorded frames through today's vision: one job, the detections of every frame of a recording.

``VisionSpec`` says which vision to run (picklable, so that worker processes build their own):
the recording's camera and table unless overridden, and an optional ball-radius factor (a
deliberately wrong radius, to show that replay catches a degraded detector). ``detect_frames``
runs it over the recording's frames, in this process or in a pool of worker processes, and
returns one ``FrameResult`` per frame in frame order.
"""
from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class VisionSpec:
    """The vision a replay runs. camera / table: YAML files replacing the recording's
    config/camera.yaml / config/table.yaml (None: the recording's, else the project's config/);
    radius_scale: factor on the ball radius the detector is told (1: the table's)."""
    camera: str | None = None
    table: str | None = None
    radius_scale: float = 1.0


@dataclass(frozen=True)
class Rig:
    """The camera and table a recording was made with, and the vision to replay it through."""
    cam: object          # vision.camera.CameraModel of the recording (truth projection)
    table: object        # planner.table.Table
    R: float             # ball radius [m]
    vision: object       # vision.pipeline.TableVision to replay with
    gate_px: float       # a detection within this of a true centre [px] is that ball (one radius)


def recording_config(root: Path, name: str, override: str | None) -> Path | None:
    """The config file ``name`` to use for a recording: ``override``, else the recording's
    snapshot (config/<name>), else None (the project's default)."""
    if override is not None:
        return Path(override)
    p = Path(root) / "config" / name
    return p if p.exists() else None


def build_rig(root: str | Path, spec: VisionSpec) -> Rig:
    """The recording's camera and table, and ``spec``'s vision. Raises config.reader.ConfigError."""
    from config.camera import load_camera_settings
    from config.table import load_table_settings
    from vision.pipeline import TableVision

    tc = load_table_settings(recording_config(root, "table.yaml", None))
    cs = load_camera_settings(tc.table, recording_config(root, "camera.yaml", None))
    vtc = load_table_settings(recording_config(root, "table.yaml", spec.table))
    vcs = load_camera_settings(vtc.table, recording_config(root, "camera.yaml", spec.camera))
    vision = TableVision(vcs.camera, vtc.table, vtc.physics.R * spec.radius_scale, vcs.landmarks, vcs.cloth_srgb)
    true_vision = (vision if spec == VisionSpec() else
                   TableVision(cs.camera, tc.table, tc.physics.R, cs.landmarks, cs.cloth_srgb))
    gate = float(true_vision.detector.r_map.mean())
    return Rig(cs.camera, tc.table, tc.physics.R, vision, gate)


@dataclass(frozen=True)
class FrameResult:
    """What vision saw in one recorded frame. px (M, 2) [px], xy (M, 2) [m], labels (M,),
    ids (M,) (-1: not identified); ms: detection time [ms] (not the PNG decode); observations:
    vision's own list (``vision.pipeline.BallObservation``), what the service reads a frame from
    (``hil.sightings``)."""
    i: int
    t: float
    kind: str
    shot: int | None
    px: np.ndarray
    xy: np.ndarray
    labels: list
    ids: np.ndarray
    ms: float
    observations: tuple = ()


def _detect_one(vision, root: Path, entry: dict) -> FrameResult:
    import cv2

    image = cv2.imread(str(root / "frames" / entry["file"]), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{root}/frames/{entry['file']}: cannot read the frame")
    t0 = time.perf_counter()
    obs = vision.observe(image)
    ms = (time.perf_counter() - t0) * 1000.0
    return FrameResult(int(entry["i"]), float(entry["t"]), str(entry.get("kind", "")), entry.get("shot"),
                       np.array([(o.x_px, o.y_px) for o in obs], float).reshape(-1, 2),
                       np.array([(o.x_m, o.y_m) for o in obs], float).reshape(-1, 2),
                       [o.label for o in obs],
                       np.array([-1 if o.ball_id is None else o.ball_id for o in obs], np.int64), ms, tuple(obs))


_WORKER: dict = {}


def _init_worker(root: str, spec: VisionSpec) -> None:
    _WORKER["vision"] = build_rig(root, spec).vision
    _WORKER["root"] = Path(root)


def _work(entry: dict) -> FrameResult:
    return _detect_one(_WORKER["vision"], _WORKER["root"], entry)


def detect_frames(root: str | Path, frames: list[dict], rig: Rig, spec: VisionSpec,
                  workers: int = 1) -> list[FrameResult]:
    """Vision on every frame (index entries of ``hil.recording.RunRecording.frames``), in frame
    order. workers > 1: a pool of that many processes (forked; each builds the vision of ``spec``
    once), else ``rig.vision`` here. The first frame is detected once untimed (a warm-up).
    Raises ValueError for an unreadable frame."""
    root = Path(root)
    if not frames:
        return []
    if workers <= 1:
        _detect_one(rig.vision, root, frames[0])
        return [_detect_one(rig.vision, root, f) for f in frames]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(str(root), spec)) as pool:
        list(pool.map(_work, frames[:workers]))          # warm every worker
        return list(pool.map(_work, frames, chunksize=max(1, len(frames) // (8 * workers))))
