"""The dashboard's annotated frame (controller.annotate): predicted paths from the engine, drawn
where the camera sees the balls."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from config.camera import load_camera_settings
from controller.annotate import (
    BallPath,
    annotate_frame,
    draw_paths,
    encode_png,
    path_colour,
    path_pixels,
    paths_to_json,
    predicted_paths,
)
from planner.physics.engine import Simulator
from planner.shot import ShotParams
from planner.state import TableState
from vision.overlay import PANEL_WIDTH
from vision.pipeline import TableVision
from vision.render import SyntheticCamera

CUE_AT, OBJECT_AT = (0.40, 1.20), (0.80, 1.80)


@pytest.fixture(scope="module")
def scene(table_config):
    """(table settings, posed camera, simulator, state, a shot that pots ball 1 in the rt pocket)."""
    tc = table_config
    cs = load_camera_settings(tc.table)
    R = tc.physics.R
    pocket = tc.table.pocket_center[list(tc.table.pocket_ids).index("rt")]
    to_pocket = (pocket - OBJECT_AT) / np.linalg.norm(pocket - OBJECT_AT)
    aim = OBJECT_AT - 2 * R * to_pocket - np.array(CUE_AT)           # at the ghost ball
    shot = ShotParams(float(np.degrees(np.arctan2(aim[1], aim[0]))), 5.0, 2.5)
    state = TableState.from_dict({0: CUE_AT, 1: OBJECT_AT, 9: (0.30, 0.50)})
    return tc, cs, Simulator(tc.table, tc.physics), state, shot


def test_paths_follow_the_engine_from_start_to_rest_or_drop(scene):
    tc, _, sim, state, shot = scene
    paths = predicted_paths(sim, state, shot)
    result = sim.simulate(state, shot)
    assert set(paths) == {0, 1}                                       # ball 9 does not move
    assert [b for b, _ in result.pocketed()] == [1]
    cue, obj = paths[0], paths[1]
    assert not cue.pocketed and obj.pocketed
    np.testing.assert_allclose(cue.points[0], CUE_AT, atol=1e-12)
    np.testing.assert_allclose(obj.points[0], OBJECT_AT, atol=1e-12)
    np.testing.assert_allclose(cue.points[-1], result.final_pos[0], atol=1e-9)
    # It ends where it drops: at the rt pocket's radius (sampled 1 us before the drop: a few um out).
    k = list(tc.table.pocket_ids).index("rt")
    assert abs(np.linalg.norm(obj.points[-1] - tc.table.pocket_center[k]) - tc.table.pocket_radius[k]) < 1e-5
    # Events are corners of the path, sampled exactly: the contact with ball 1 (still at its start
    # then) is on the cue ball's path, at touching distance (steps of PATH_DT alone would miss it by cm).
    d = np.linalg.norm(cue.points - OBJECT_AT, axis=1)
    assert np.abs(d - 2 * tc.physics.R).min() < 1e-5                  # the engine resolves contacts 1 um apart
    assert np.isfinite(cue.points).all() and np.isfinite(obj.points).all()
    as_json = paths_to_json(paths)
    assert set(as_json) == {0, 1} and as_json[0][0] == [0.4, 1.2]


def test_paths_are_drawn_where_the_camera_sees_the_balls(scene):
    """The path starts are projected at the centres' height z = R: on a rendered frame they land
    on the balls the detector finds (projecting at the cloth, z = 0, misses by about 1 px here)."""
    tc, cs, sim, state, shot = scene
    R = tc.physics.R
    frame = SyntheticCamera(cs.camera, tc.table, R, cs.landmarks).render(state).image
    _, balls = TableVision(cs.camera, tc.table, R, cs.landmarks).detect(frame)
    seen = {b.ball_id: np.array([b.x_px, b.y_px]) for b in balls}
    paths = predicted_paths(sim, state, shot)
    for ball in (0, 1):
        start = path_pixels(cs.camera, paths[ball].points[:1], R)[0]
        assert np.linalg.norm(start - seen[ball]) < 0.3
        assert np.linalg.norm(path_pixels(cs.camera, paths[ball].points[:1], 0.0)[0] - seen[ball]) > 0.6

    out = annotate_frame(frame, balls, cs.camera, paths, R)
    assert out.shape == (frame.shape[0], frame.shape[1] + PANEL_WIDTH, 3)
    # Half way along the cue ball's path (away from the balls' outlines) the line is the path colour.
    mid = np.round(path_pixels(cs.camera, paths[0].points[len(paths[0].points) // 4][None], R)[0]).astype(int)
    assert tuple(int(v) for v in out[mid[1], mid[0]]) == path_colour(0)
    assert tuple(int(v) for v in frame[mid[1], mid[0]]) != path_colour(0)
    png = encode_png(out)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    np.testing.assert_array_equal(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), out)


def test_a_ball_at_rest_ends_in_a_ghost_ball_and_a_dropped_one_does_not(scene):
    tc, cs, _, _, _ = scene
    R = tc.physics.R
    blank = np.zeros((cs.camera.size[1], cs.camera.size[0], 3), np.uint8)
    line = np.array([[0.3, 0.5], [0.3, 0.9]])
    end_px = path_pixels(cs.camera, line[-1:], R)[0]
    rim_px = path_pixels(cs.camera, line[-1:] + (R, 0.0), R)[0]
    r_px = np.linalg.norm(rim_px - end_px)
    rests = draw_paths(blank, cs.camera, {3: BallPath(line, pocketed=False)}, R)
    drops = draw_paths(blank, cs.camera, {3: BallPath(line, pocketed=True)}, R)
    ring = [(int(round(end_px[0] + r_px * np.cos(a))), int(round(end_px[1] + r_px * np.sin(a))))
            for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)]
    assert sum(rests[y, x].any() for x, y in ring) >= 12
    assert sum(drops[y, x].any() for x, y in ring) <= 4                 # only where the line itself passes
    assert not blank.any()                                               # drawing copies


def test_paths_need_a_camera_and_radius():
    with pytest.raises(ValueError, match="posed camera model and the ball radius"):
        annotate_frame(np.zeros((10, 10, 3), np.uint8), [], paths={0: BallPath(np.zeros((2, 2)), False)})
