"""The simulated camera shows the simulated world where the engine has it; the hardware camera
reads real video through OpenCV; camera.yaml says where its frames come from."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from config.camera import load_camera_settings
from config.reader import ConfigError, default_path
from controller.camera import CameraError, VideoCamera
from controller.protocol import ShotCommand
from controller.sim.camera import SimCamera, SimClock
from controller.sim.world import PhysicsWorld, Strike
from planner.physics.trajectory import positions_at
from planner.shot import ShotParams
from planner.state import TableState
from vision.pipeline import TableVision
from vision.render import synthetic_camera_from_config

FPS = 30.0


@pytest.fixture(scope="module")
def synthetic():
    """(SyntheticCamera, Landmarks) of the default configs, its empty table and G-buffer computed."""
    sc, lm = synthetic_camera_from_config()
    sc.empty_linear, sc.gbuffer                   # noqa: B018 - the per-camera caches, once
    return sc, lm


@pytest.fixture(scope="module")
def vision(synthetic):
    sc, lm = synthetic
    return TableVision(sc.cam, sc.table, sc.R, lm)


# four balls in the open; the cue ball and the 1 lined up on the top-right corner pocket
LAYOUT = {0: (0.40, 1.30), 1: (0.8306, 1.8611), 5: (0.30, 0.50), 12: (0.85, 0.70)}


def _aim(frm, to) -> float:
    return float(np.degrees(np.arctan2(to[1] - frm[1], to[0] - frm[0]))) % 360.0


@pytest.fixture
def world(simulator):
    return PhysicsWorld(simulator, TableState.from_dict(LAYOUT))


@pytest.fixture
def camera(world, synthetic):
    cam = SimCamera(world, synthetic[0], FPS, SimClock(), np.random.default_rng(4))
    yield cam
    cam.close()


def _seen(vision, image) -> dict[int, np.ndarray]:
    """What the vision pipeline sees: ball id -> table position [m]."""
    state = vision.table_state(image)
    return {int(i): p for i, p in zip(state.ids, state.pos)}


def test_the_clock_advances_one_frame_per_read(camera):
    frames = [camera.read() for _ in range(5)]
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert np.allclose([f.t for f in frames], np.arange(1, 6) / FPS)
    assert camera.clock.now() == frames[-1].t
    assert frames[0].image.shape == (720, 1280, 3) and frames[0].image.dtype == np.uint8


def test_rest_frames_are_one_image_rendered_once(camera, world, vision):
    calls = []
    update = camera._renderer.update
    camera._renderer.update = lambda *a: calls.append(1) or update(*a)
    frames = [camera.read() for _ in range(4)]
    assert len(calls) == 1                            # the rest state rendered once, then reused
    assert all(f.image is frames[0].image for f in frames) and not frames[0].image.flags.writeable
    seen = _seen(vision, frames[0].image)
    assert set(seen) == set(LAYOUT)
    for i, p in LAYOUT.items():
        assert np.linalg.norm(seen[i] - p) < 1e-3


def test_frames_follow_the_shot(camera, world, vision, simulator):
    """Through an opponent's shot the balls are where the engine has them at each frame's time
    since the frame that noticed it (within 1 mm, seen by the vision pipeline, on frames with no
    ball at a pocket's mouth); the 1 drops in the top-right corner and is gone; after t_end the
    frames are the world at rest, one image."""
    camera.read()
    t_end = world.play(ShotParams(_aim(LAYOUT[0], LAYOUT[1]), 5.0, 2.0, 0.0, 0.0))
    motion = world.snapshot().motion
    assert t_end > 1.0 and motion.by == "opponent" and motion.seq == 1
    assert motion.result.pocketed() == [(1, list(simulator.table.pocket_ids).index("rt"))]
    frames = []
    while not frames or frames[-1].t - frames[0].t < t_end + 2 / FPS:
        frames.append(camera.read())
    times = np.array([f.t - frames[0].t for f in frames])
    truth = positions_at(motion.result, motion.start, times, simulator.params)         # (T, N, 2)
    to_pocket = np.linalg.norm(truth[:, :, None, :] - simulator.table.pocket_center[None, None], axis=-1)
    clear = np.flatnonzero(np.all(np.nan_to_num(to_pocket, nan=1.0) > 0.1, axis=(1, 2)))
    picks = clear[np.linspace(0, clear.size - 1, 5).round().astype(int)]
    assert times[picks[0]] == 0.0 and times[picks[-1]] > t_end / 2
    for k in picks:
        expected = {int(i): p for i, p in zip(motion.result.ids, truth[k]) if not np.isnan(p[0])}
        seen = _seen(vision, frames[k].image)
        assert set(seen) == set(expected), (k, times[k])
        for i, p in expected.items():
            assert np.linalg.norm(seen[i] - p) < 1e-3, (times[k], i, seen[i], p)
    assert 1 not in _seen(vision, frames[-1].image)
    assert frames[-1].image is frames[-2].image                          # at rest: one image
    assert set(_seen(vision, frames[-1].image)) == set(world.snapshot().state.ids.tolist()) == {0, 5, 12}
    assert not np.array_equal(frames[1].image, frames[2].image)          # moving


def test_ball_in_hand_and_a_robot_strike(camera, world, vision, simulator):
    camera.read()
    v0 = world.snapshot().version
    world.place_cue((0.55, 0.40))
    assert world.snapshot().version == v0 + 1
    seen = _seen(vision, camera.read().image)
    assert np.linalg.norm(seen[0] - (0.55, 0.40)) < 1e-3
    with pytest.raises(ValueError, match="overlap"):
        world.place_cue(LAYOUT[5])                                     # onto the 5
    with pytest.raises(ValueError, match="outside the cushions|cushion"):
        world.place_cue((-0.1, 1.0))
    assert world.snapshot().version == v0 + 1
    # the robot's strike arrives on its own thread while the camera reads
    cmd = ShotCommand.from_params(ShotParams(_aim((0.55, 0.40), LAYOUT[12]), 5.0, 1.5, 0.0, 0.0), (0.55, 0.40))
    s = Strike(1, cmd, cmd.params, time.time())
    t = threading.Thread(target=world.strike, args=(s,))
    t.start()
    t.join()
    m = world.snapshot().motion
    assert m.by == "robot" and m.start.to_dict()[0] == (0.55, 0.40) and world.motions == 1
    first = camera.read()
    later = [camera.read() for _ in range(5)]
    truth = positions_at(m.result, m.start, np.array([later[-1].t - first.t]), simulator.params)[0]
    seen = _seen(vision, later[-1].image)
    assert np.linalg.norm(seen[0] - truth[list(m.result.ids).index(0)]) < 1e-3


def test_a_closed_camera_raises(camera):
    camera.close()
    camera.close()
    with pytest.raises(CameraError):
        camera.read()


# ---- the hardware camera on a real video file --------------------------------------------------
def test_video_camera_reads_a_file(tmp_path, synthetic, vision):
    sc, _ = synthetic
    fr = sc.fast_renderer()
    rot = np.tile(np.eye(3), (len(LAYOUT), 1, 1))
    images = []
    for k in range(6):
        state = TableState.from_dict({**LAYOUT, 0: (0.40 + 0.01 * k, 1.30)})
        images.append(fr.render(state, np.random.default_rng(k), rot).image)
    path = str(tmp_path / "table.avi")
    out = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"FFV1"), 25.0, (1280, 720))
    assert out.isOpened()
    for im in images:
        out.write(im)
    out.release()

    cam = VideoCamera(path)
    assert cam.fps == pytest.approx(25.0)
    frames = [cam.read() for _ in range(6)]
    assert [f.index for f in frames] == list(range(6))
    assert np.allclose([f.t for f in frames], np.arange(6) / 25.0) and cam.clock.now() == frames[-1].t
    for f, im in zip(frames, images):
        assert f.image.shape == im.shape and f.image.dtype == np.uint8
        assert np.abs(f.image.astype(np.int16) - im).mean() < 1.0       # a codec's colour conversion at most
    seen = _seen(vision, frames[3].image)
    assert np.linalg.norm(seen[0] - (0.43, 1.30)) < 1e-3
    with pytest.raises(CameraError, match="end of the video file"):
        cam.read()
    cam.close()
    cam.close()
    with pytest.raises(CameraError, match="closed"):
        cam.read()


def test_video_camera_refuses_what_it_cannot_open(tmp_path):
    with pytest.raises(CameraError, match="cannot open"):
        VideoCamera(str(tmp_path / "missing.avi"))
    (tmp_path / "junk.avi").write_bytes(b"not a video")
    with pytest.raises(CameraError, match="cannot open"):
        VideoCamera(str(tmp_path / "junk.avi"))
    with pytest.raises(CameraError, match="device index"):
        VideoCamera(True)


# ---- camera.yaml: source -------------------------------------------------------------------------
def _with_source(tmp_path, value, present=True) -> Path:
    data = yaml.safe_load(default_path("camera.yaml").read_text())
    data.pop("source", None)
    if present:
        data["source"] = value
    p = tmp_path / "camera.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.parametrize("value, expected", [(0, 0), (2, 2), ("clip.mp4", "clip.mp4"),
                                             ("rtsp://10.0.0.5/stream", "rtsp://10.0.0.5/stream"), (None, None)])
def test_camera_source_is_read(tmp_path, table_config, value, expected):
    assert load_camera_settings(table_config.table, _with_source(tmp_path, value)).source == expected


def test_camera_source_defaults(tmp_path, table_config):
    assert load_camera_settings(table_config.table, _with_source(tmp_path, None, present=False)).source is None
    assert load_camera_settings(table_config.table).source == 0          # the shipped file: the first device


@pytest.mark.parametrize("value", [-1, 1.5, True, "", [0]])
def test_a_malformed_camera_source_is_named(tmp_path, table_config, value):
    path = _with_source(tmp_path, value)
    with pytest.raises(ConfigError) as e:
        load_camera_settings(table_config.table, path)
    assert str(e.value) == (f"{path}: source must be an OpenCV VideoCapture device index (a whole number >= 0), "
                            f"a video file or a URL, or null, got {value!r}")
