"""``cuerobot calibrate robot --backend serial``: the hardware path, with the simulated robot
process (``cuerobot sim-robot``) on a real pty as the robot and a video file as the camera
(hardware_footage.py: the designed shots executed with a known bias and noise). The operator's
prompts, the dashboard's view and controls of a calibration, and the live camera's frame buffer."""
from __future__ import annotations

import json
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml
from fastapi.testclient import TestClient
from hardware_footage import write_footage

from calibration.robot_design import design
from calibration.robot_operator import CalibrationDesk, CalibrationStopped, OperatorPlacer, draw_spots
from config.reader import default_path
from config.robot import load_robot_settings
from controller.api import make_app
from controller.camera import BufferedCamera, CameraError, CameraFrame
from controller.driver.actuator import Actuator
from controller.protocol import ShotCommand
from planner.shot import SHOT_FIELDS, ShotParams
from vision.camera import table_to_pixels
from vision.render import synthetic_camera_from_config

REPO = Path(__file__).resolve().parents[2]
SHOTS, FPS = 10, 15.0
BIAS = ShotParams(1.0, 0.0, 0.0, 0.0, 0.0)                # executed - commanded, mean
SIGMA = ShotParams(0.3, 0.05, 0.02, 0.0005, 0.0005)       # and spread
TOKEN = "calibration-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def sim_robot(tmp_path):
    """(the robot's pty link, its strike log): ``cuerobot sim-robot`` with quick motions."""
    data = yaml.safe_load(default_path("sim.yaml").read_text())
    data["timing"].update(data["soak"]["timing"])
    data["world"] = "recording"
    cfg, link, strikes = tmp_path / "sim.yaml", tmp_path / "robot-link", tmp_path / "strikes.jsonl"
    cfg.write_text(yaml.safe_dump(data))
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "sim-robot", "--config", str(cfg), "--link",
                             str(link), "--strike-log", str(strikes)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready and proc.stdout.readline().strip(), "sim-robot printed no port"
        yield link, strikes
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _set(path: Path, key: str, value: str) -> None:
    """Replace the value of the line ``key: ...`` (indentation kept) in a YAML file."""
    text = path.read_text()
    new, n = re.subn(rf"^(\s*{key}:)\s*[^#\n]*", rf"\g<1> {value} ", text, count=1, flags=re.M)
    assert n == 1, key
    path.write_text(new)


def test_the_hardware_calibration_measures_the_robot_the_footage_shows(tmp_path, config_dir, sim_robot):
    link, strikes = sim_robot
    video = tmp_path / "table.avi"
    executed = write_footage(video, SHOTS, FPS, BIAS, SIGMA, seed=11)
    _set(config_dir / "camera.yaml", "source", str(video))
    _set(config_dir / "robot.yaml", "port", str(link))
    port = _free_port()
    _set(config_dir / "service.yaml", "port", str(port))
    before = (config_dir / "robot.yaml").read_text()

    env = {**os.environ, "CUEROBOT_CONFIG_DIR": str(config_dir), "CUEROBOT_API_TOKEN": TOKEN}
    p = subprocess.run([sys.executable, "-m", "controller.cli", "calibrate", "robot", "--backend", "serial",
                        "--shots", str(SHOTS), "--json"], cwd=REPO, env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout)

    # the operator was told where each shot's balls go, and the dashboard was served
    shots = design(SHOTS, yaml_table(), yaml_R())
    x, y = shots[0].cue_xy
    assert f"shot 1 of {SHOTS}: put the cue ball at ({x:.3f}, {y:.3f}) m" in p.stderr
    assert f"shot {SHOTS} of {SHOTS}: put " in p.stderr
    assert f"dashboard: http://127.0.0.1:{port}/" in p.stderr

    # the robot struck each designed shot once, as commanded (no bias was known before)
    struck = [json.loads(line) for line in strikes.read_text().splitlines()]
    assert len(struck) == SHOTS
    for rec, ds in zip(struck, shots):
        wire = ShotCommand.from_params(ds.command, ds.cue_xy).params
        assert rec["commanded"] == pytest.approx(dict(zip(SHOT_FIELDS, wire.as_array().tolist())), abs=1e-9)

    # the footage's biases and spreads are measured (theta's 0.05 deg is below what the camera can
    # see, as on sim); what is measured is written
    assert out["shots"] == SHOTS and set(out["unidentifiable"]) <= {"theta"}
    drawn = np.array([e.as_array() - ds.command.as_array() for e, ds in zip(executed, shots)])
    for j, k in enumerate(SHOT_FIELDS):
        if k in out["unidentifiable"]:
            continue
        sd = drawn[:, j].std(ddof=1)
        assert out["bias"][k] == pytest.approx(drawn[:, j].mean(), abs=sd), k       # ~3 standard errors
        assert 0.5 * sd < out["sigma"][k] < 2.0 * sd, k
    written = yaml.safe_load((config_dir / "robot.yaml").read_text())
    assert written["biases"]["phi"] == pytest.approx(out["bias"]["phi"], rel=1e-12)
    assert written["calibrated"]["shots"] == SHOTS
    assert (config_dir / "robot.yaml").read_text().startswith(before.rstrip("\n"))


def yaml_table():
    from config.table import load_table_settings
    return load_table_settings().table


def yaml_R() -> float:
    from config.table import load_table_settings
    return load_table_settings().physics.R


def test_a_missing_camera_source_is_named_and_nothing_is_written(tmp_path, config_dir):
    _set(config_dir / "camera.yaml", "source", "null")
    before = (config_dir / "robot.yaml").read_bytes()
    env = {**os.environ, "CUEROBOT_CONFIG_DIR": str(config_dir)}
    p = subprocess.run([sys.executable, "-m", "controller.cli", "calibrate", "robot", "--backend", "serial",
                        "--shots", "3"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip().endswith(f"{config_dir / 'camera.yaml'}: no camera source (an OpenCV device index, "
                                     f"file or URL) for the hardware camera")
    assert (config_dir / "robot.yaml").read_bytes() == before


def test_the_dashboard_shows_the_placement_and_its_stop_reaches_the_robot(sim_robot):
    link, strikes = sim_robot
    sc, _ = synthetic_camera_from_config()
    driver = replace(load_robot_settings().driver, port=str(link), reply_timeout_s=0.5, done_margin_s=0.5)
    with Actuator(driver) as act:
        desk = CalibrationDesk(sc.cam, sc.R, act.estop)
        said = []
        placer = OperatorPlacer(lambda: None, said.append, desk, timeout_s=60.0, total=4)
        spot = {0: (0.5, 0.9)}
        placer.place(spot)
        placer.waiting("ball 0 is seen 40 mm from its spot (0.500, 0.900) m (at most 10 mm); place it again")
        image = sc.render(_empty_state()).image
        desk.show(CameraFrame(image, 0.0, 0))
        with TestClient(make_app(desk, TOKEN)) as client:
            st = client.get("/api/status").json()
            assert st["state"] == "WAITING" and st["shot"] == 1 and st["backend"] == "serial"
            assert st["reason"].startswith("ball 0 is seen 40 mm from its spot")
            assert said == ["shot 1 of 4: put the cue ball at (0.500, 0.900) m; nothing else on the table",
                            "  waiting: ball 0 is seen 40 mm from its spot (0.500, 0.900) m (at most 10 mm); "
                            "place it again"]
            png = cv2.imdecode(np.frombuffer(client.get("/api/frame.png").content, np.uint8), cv2.IMREAD_COLOR)
            png = png[:, :image.shape[1]]                  # the frame (the ball list's panel is beside it)
            assert np.array_equal(png, draw_spots(image, sc.cam, spot, sc.R))
            c, e = table_to_pixels(sc.cam, [[0.5, 0.9, sc.R], [0.5 + sc.R, 0.9, sc.R]])
            ring = png[int(round(c[1])), int(round(c[0] + np.hypot(*(e - c))))]
            assert ring.tolist() == [0, 255, 255] and not np.array_equal(png, image)

            r = client.post("/api/shoot-now", headers=AUTH)
            assert r.status_code == 503 and "a calibration plays its designed shots" in r.json()["detail"]

            # pause: the next strike waits until resume
            calls = []
            strike = desk.guard(lambda shot, xy: calls.append(act.shot(shot, xy)))
            assert client.post("/api/pause", headers=AUTH).status_code == 200
            th = threading.Thread(target=strike, args=(ShotParams(90.0, 5.0, 1.0, 0.0, 0.0), (0.5, 0.9)))
            th.start()
            th.join(timeout=0.5)
            assert th.is_alive() and calls == [] and client.get("/api/status").json()["state"] == "PAUSED"
            assert client.post("/api/resume", headers=AUTH).status_code == 200
            th.join(timeout=30)
            assert not th.is_alive() and len(calls) == 1

            # e-stop: the robot is stopped, the calibration refuses to go on
            assert client.post("/api/estop", headers=AUTH).status_code == 200
            assert act.status().state == "ESTOP"
            st = client.get("/api/status").json()
            assert st["state"] == "FAULTED" and st["fault"] == "e-stop from the dashboard"
            with pytest.raises(CalibrationStopped):
                placer.waiting("anything")
            with pytest.raises(CalibrationStopped):
                desk.guard(lambda shot, xy: None)(ShotParams(90.0, 5.0, 1.0, 0.0, 0.0), (0.5, 0.9))
            r = client.post("/api/resume", headers=AUTH)
            assert r.status_code == 503 and "start the calibration again" in r.json()["detail"]
    assert len(strikes.read_text().splitlines()) == 1


def _empty_state():
    from planner.state import TableState
    return TableState.from_dict({})


class _LiveSource:
    """A camera that makes ``n`` frames as fast as asked (index k at t = k / 30 s), then fails
    (``failed``: the grabber has stored every frame and asked for one more)."""
    fps = 30.0

    def __init__(self, n: int):
        self.n, self.k, self.closed, self.failed = n, 0, False, False
        self.image = np.zeros((4, 4, 3), np.uint8)

    def read(self) -> CameraFrame:
        if self.k >= self.n or self.closed:
            self.failed = True
            raise CameraError(f"no frame after {self.k} frames")
        self.k += 1
        return CameraFrame(self.image, (self.k - 1) / 30.0, self.k - 1)

    def close(self) -> None:
        self.closed = True


def _wait_for(cond, timeout=10.0):
    t_end = time.monotonic() + timeout
    while not cond() and time.monotonic() < t_end:
        time.sleep(0.01)
    assert cond()


def test_a_buffered_camera_keeps_every_frame_while_the_reader_is_busy():
    src = _LiveSource(50)
    cam = BufferedCamera(src)
    _wait_for(lambda: src.failed)                      # the reader was busy while all 50 came
    assert [cam.read().index for _ in range(50)] == list(range(50))
    with pytest.raises(CameraError, match="no frame after 50 frames"):
        cam.read()
    cam.close()


def test_a_buffered_camera_drops_the_oldest_beyond_its_size_and_discards_on_request():
    src = _LiveSource(20)
    cam = BufferedCamera(src, max_frames=5)
    _wait_for(lambda: src.failed)
    assert cam.dropped == 15
    assert [cam.read().index for _ in range(2)] == [15, 16]
    cam.discard()
    with pytest.raises(CameraError):
        cam.read()
    cam.close()
    cam.close()
    assert src.closed
