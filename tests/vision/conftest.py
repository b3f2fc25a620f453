"""Shared fixtures: the simulated camera of config/camera.yaml, a sweep of rendered layouts, and one frame's score
against its truth."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from vision.bench import Score, _radius_range, render_layouts
from vision.evaluate import match
from vision.pipeline import TableVision
from vision.render import synthetic_camera_from_config

SWEEP_LAYOUTS = 24      # random layouts (the first a full rack, every third with chalk marks)


@pytest.fixture(scope="session")
def synthetic_camera():
    """(SyntheticCamera, Landmarks) from the default configs."""
    return synthetic_camera_from_config()


@pytest.fixture(scope="session")
def radius_px(synthetic_camera):
    """The simulated camera's median ball outline radius [px], for the pixel-only mode."""
    sc, _ = synthetic_camera
    return float(np.median(_radius_range(sc.cam, sc.table, sc.R)))


@pytest.fixture(scope="session")
def vision(synthetic_camera):
    sc, lm = synthetic_camera
    return TableVision(sc.cam, sc.table, sc.R, lm)


@pytest.fixture(scope="session")
def sweep(synthetic_camera, vision):
    """Rendered frames of random layouts with what the pipeline reports for each, and the score."""
    sc, _ = synthetic_camera
    frames = render_layouts(sc, SWEEP_LAYOUTS, seed=2024, rack_every=12, chalk_every=3)
    results = [vision.detect(f.image) for f in frames]
    score = Score()
    for f, (det, obs) in zip(frames, results):
        ids = np.array([o.ball_id if o.ball_id is not None else -1 for o in obs])
        score.add(f.truth.ids, f.truth.pos, det.xy, ids, sc.R)
    return frames, results, score


@dataclass(frozen=True)
class FrameCount:
    """One rendered frame against its truth: balls detected, of them matched one to one to a true ball (within
    R, ``vision.evaluate.match``), balls in the frame, and off [m]: the named ball's true centre to the nearest
    detection (inf with none)."""
    detected: int
    matched: int
    balls: int
    off: float


@pytest.fixture(scope="session")
def counted(synthetic_camera, vision):
    """A function (RenderedFrame, ball id) -> FrameCount of the registered pipeline on that frame."""
    sc, _ = synthetic_camera

    def count(frame, ball_id: int) -> FrameCount:
        det, _ = vision.detect(frame.image)
        rows, _ = match(frame.truth.pos, det.xy, sc.R)
        true = frame.truth.pos[list(frame.truth.ids).index(ball_id)]
        off = float(np.linalg.norm(det.xy - true, axis=1).min()) if len(det) else np.inf
        return FrameCount(len(det), len(rows), len(frame.truth.ids), off)
    return count
