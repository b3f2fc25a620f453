"""The synthetic camera's fast path renders what the full render renders, and only what changed."""
from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.spatial.transform import Rotation

from planner.state import TableState
from vision.balls import linear_to_srgb
from vision.layouts import rack, random_layout


@pytest.fixture(scope="module")
def quiet(synthetic_camera):
    """The default synthetic camera without sensor noise, sharing its cached empty table and G-buffer."""
    sc, _ = synthetic_camera
    sc.empty_linear, sc.gbuffer                   # noqa: B018 - computed once, shared by the copy
    q = copy.copy(sc)
    q.noise_sigma = 0.0
    return q


@pytest.fixture(scope="module")
def layouts(quiet):
    """(state, orientations) of a rack, two random 16-ball layouts and a random 9-ball one
    (touching clusters, balls frozen on cushions and in pocket jaws, the distorted corners)."""
    rng = np.random.default_rng(31)
    states = [rack(quiet.table, quiet.R, rng), random_layout(quiet.table, quiet.R, rng, n=16),
              random_layout(quiet.table, quiet.R, rng, n=16), random_layout(quiet.table, quiet.R, rng, n=9)]
    return [(s, Rotation.random(len(s.ids), random_state=rng).as_matrix()) for s in states]


@pytest.fixture(scope="module")
def pairs(quiet, layouts):
    """(full render, fast render) images of each layout, without noise."""
    rng = np.random.default_rng(0)
    return [(quiet.render(s, rng, orientations=r).image, quiet.fast_renderer().render(s, rng, r).image)
            for s, r in layouts]


def _box_mask(sc, state) -> np.ndarray:
    w, h = sc.cam.size
    mask = np.zeros((h, w), bool)
    for u0, v0, u1, v1 in sc.ball_boxes(np.concatenate([state.pos, np.full((len(state.ids), 1), sc.R)], axis=1)):
        mask[v0:v1, u0:u1] = True
    return mask


def test_fast_render_is_the_full_render(quiet, layouts, pairs):
    """Per pixel and channel, over the whole frame and over the balls' boxes alone: mean
    |difference| below 0.01 and 0.1 levels, none above 8 levels (measured: 0.001, ~0.03 and 4).
    Far from every ball (outside the boxes and the blur's reach) the frames are the same but for
    a handful of values a hair's breadth from x.5 levels, rounded the other way."""
    for (state, _), (full, fast) in zip(layouts, pairs):
        d = np.abs(full.astype(np.int16) - fast.astype(np.int16))
        near = _box_mask(quiet, state)
        far = ~cv2.dilate(near.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        assert d.mean() < 0.01
        assert d[near].mean() < 0.1
        assert d.max() <= 8
        assert d[far].max() <= 1 and np.count_nonzero(d[far]) < 1e-4 * d[far].size


def test_detector_sees_the_same_centres(vision, pairs):
    """Every ball the detector finds in the full render it finds in the fast one within 0.05 px."""
    for full, fast in pairs:
        a, b = vision.detect(full)[0], vision.detect(fast)[0]
        assert len(a) == len(b) >= 9
        d = np.linalg.norm(a.px[:, None] - b.px[None], axis=-1)
        r, c = linear_sum_assignment(d)
        assert np.max(d[r, c]) < 0.05


def test_truth_is_the_full_renders(quiet, layouts):
    state, rot = layouts[1]
    a = quiet.render(state, np.random.default_rng(0), orientations=rot).truth
    b = quiet.fast_renderer().render(state, np.random.default_rng(0), rot).truth
    assert np.array_equal(a.ids, b.ids) and np.array_equal(a.pos, b.pos) and np.allclose(a.centre_px, b.centre_px)


def test_incremental_frames_equal_fresh_ones(quiet, layouts):
    """A renderer that went through other frames draws exactly what a new one draws: balls
    moved a little (one, then all), taken away, put back, none, another layout."""
    (a, ra), (b, rb) = layouts[0], layouts[2]
    moved = TableState(a.ids, a.pos + np.where(a.ids[:, None] == 0, [0.004, -0.01], 0.0))
    shaken = TableState(a.ids, a.pos + 0.001)
    fewer = TableState(a.ids[3:], a.pos[3:])
    empty = TableState(np.zeros(0, np.int64), np.zeros((0, 2)))
    seq = [(a, ra), (moved, ra), (shaken, ra), (fewer, ra[3:]), (a, ra), (empty, ra[:0]), (b, rb), (a, ra)]
    fr = quiet.fast_renderer()
    for state, rot in seq:
        img = fr.render(state, None, rot).image
        assert np.array_equal(img, quiet.fast_renderer().render(state, None, rot).image)


def test_an_unchanged_frame_renders_nothing(quiet, layouts):
    state, rot = layouts[1]
    fr = quiet.fast_renderer()
    first = fr.render(state, None, rot).image
    n = fr._frame
    again = fr.render(state, None, rot).image
    assert fr._frame == n and np.array_equal(first, again) and first is not again


def test_no_balls_is_the_empty_table(quiet):
    img = quiet.fast_renderer().render(TableState(np.zeros(0, np.int64), np.zeros((0, 2))), None).image
    ref = np.rint(linear_to_srgb(cv2.GaussianBlur(quiet.empty_linear, (0, 0), quiet.blur_sigma)))[:, :, ::-1]
    assert np.abs(img.astype(np.int16) - ref).max() <= 1


def test_noise_is_reproducible_and_has_the_cameras_sigma(synthetic_camera, quiet, layouts):
    sc, _ = synthetic_camera
    state, rot = layouts[3]
    fr = sc.fast_renderer(seed=5)
    a = fr.render(state, np.random.default_rng(1), rot).image
    b = sc.fast_renderer(seed=5).render(state, np.random.default_rng(1), rot).image
    c = fr.render(state, np.random.default_rng(2), rot).image
    clean = quiet.fast_renderer().render(state, None, rot).image
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    noise = (a.astype(np.float64) - clean)[50:-50, 50:-50]       # away from clipping at 0 and 255
    assert abs(noise.mean()) < 0.05 and abs(noise.std() - sc.noise_sigma) < 0.15


def test_bench_render_command(capsys):
    """``cuerobot bench render`` runs end to end and reports the figures and their agreement."""
    import json

    from controller.cli import main
    assert main(["bench", "render", "--layouts", "2", "--full", "1", "--shots", "1", "--fps", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert {"cold_ms", "full_ms", "ratio", "shot_ms", "vision_ms", "game_frames", "game_s"} <= set(out)
    assert out["shot_frames"] > 10 and out["mad"] < 0.01 and out["game_frames"] == 1400
