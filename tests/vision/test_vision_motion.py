"""At rest or moving, and the cue ball's track through a shot (rendered with motion blur)."""
from __future__ import annotations

import numpy as np
import pytest

from planner.state import TableState
from vision.motion import at_rest, track_ball


def test_at_rest_on_rendered_frames(synthetic_camera, vision):
    sc, _ = synthetic_camera
    balls = {0: (0.3, 0.5), 8: (0.7, 1.4), 12: (0.2, 2.0)}
    state = TableState.from_dict(balls)
    rng = np.random.default_rng(9)
    still = [vision.detect(sc.render(state, rng).image)[0].xy for _ in range(3)]
    assert at_rest(still)
    balls[8] = (0.702, 1.4)                          # 2 mm further
    moved = vision.detect(sc.render(TableState.from_dict(balls), rng).image)[0].xy
    assert not at_rest(still[:2] + [moved])


def test_at_rest_needs_the_same_balls():
    a = np.array([[0.1, 0.2], [0.5, 0.5]])
    assert not at_rest([a, a[:1]])
    assert at_rest([a, a[::-1]])
    with pytest.raises(ValueError):
        at_rest([a])


def test_cue_ball_tracked_through_a_shot(synthetic_camera, vision):
    """The cue ball rolls at 1.2 m/s; 60 frames/s with a 4 ms exposure (5 mm of blur). Each fix is
    within 1.5 mm of the ball's position at mid-exposure."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(10)
    start, vel, dt = np.array([0.5, 0.4]), np.array([0.15, 1.19]), 1 / 60
    others = {3: (0.9, 1.5), 11: (0.2, 1.9)}
    truth, frames = [], []
    for k in range(1, 6):
        p = start + vel * k * dt
        state = TableState.from_dict({0: tuple(p), **others})
        frames.append(sc.render(state, rng, velocities=[vel, (0, 0), (0, 0)], exposure_s=0.004).image)
        truth.append(p)
    track = track_ball(frames, lambda img: vision.detect(img)[0].xy, start, gate=0.06)
    err = np.linalg.norm(track - np.array(truth), axis=1)
    assert np.all(err < 0.0015)
