"""Fixtures for the serial tests: the simulated robot on a real pty and the real driver."""
from __future__ import annotations

from dataclasses import replace

import pytest

from config.robot import load_robot_settings
from config.sim import Faults, load_sim_settings
from controller.driver.actuator import Actuator
from controller.sim.robot import SimRobot
from controller.sim.world import RecordingWorld
from hil.recording import FrameLog


@pytest.fixture(scope="session")
def limits():
    return load_robot_settings().limits


@pytest.fixture(scope="session")
def fast_config():
    """config/sim.yaml with the soak profile's fast motions and no faults."""
    return replace(load_sim_settings(profile="soak"), faults=Faults())


@pytest.fixture
def start_robot(fast_config, limits):
    """start_robot(faults=None, world=None, **timing) -> a SimRobot serving in a thread."""
    robots = []

    def start(faults: Faults | None = None, world=None, **timing) -> SimRobot:
        cfg = replace(fast_config, faults=faults or Faults(), timing=replace(fast_config.timing, **timing))
        robot = SimRobot(cfg, limits, world if world is not None else RecordingWorld()).start()
        robots.append(robot)
        return robot

    yield start
    for r in robots:
        r.stop()


@pytest.fixture
def make_driver(tmp_path):
    """make_driver(robot, **settings) -> a connected Actuator logging frames to tmp_path."""
    drivers = []

    def make(robot: SimRobot, connect: bool = True, **kw) -> Actuator:
        settings = replace(load_robot_settings().driver, **{"port": str(robot.link), "reply_timeout_s": 0.1,
                                                             "retries": 3, "reconnect_timeout_s": 2.0,
                                                             "done_margin_s": 0.1, **kw})
        act = Actuator(settings, FrameLog(tmp_path / f"frames{len(drivers)}.jsonl"))
        drivers.append(act)
        if connect:
            act.connect()
        return act

    yield make
    for d in drivers:
        d.close()
        d.frame_log.close()
