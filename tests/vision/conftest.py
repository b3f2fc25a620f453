"""Shared fixtures: the simulated camera of config/camera.yaml and a sweep of rendered layouts."""
from __future__ import annotations

import numpy as np
import pytest

from vision.bench import Score, render_layouts
from vision.pipeline import TableVision
from vision.render import synthetic_camera_from_config

SWEEP_LAYOUTS = 24      # random layouts (the first a full rack, every third with chalk marks)


@pytest.fixture(scope="session")
def synthetic_camera():
    """(SyntheticCamera, Landmarks) from the default configs."""
    return synthetic_camera_from_config()


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
