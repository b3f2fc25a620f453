"""robot.yaml's calibration sections: written atomically beside the rest of the file, read back by
config/robot.py, applied by the driver, reported by the run log; and the sim robot presets."""
from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from calibration.robot_config import write_calibration
from config.reader import ConfigError
from config.robot import NO_BIAS, load_robot_settings
from config.sim import load_sim_settings
from controller.driver.actuator import Actuator
from controller.service.setup import error_model_meta
from controller.sim.robot import SimRobot
from controller.sim.world import RecordingWorld
from planner.shot import E_HIGH, E_LOW, ErrorModel, ShotParams

REPO = Path(__file__).resolve().parents[2]
SIGMAS = ErrorModel(0.2, 0.04, 0.05, 0.0007, 0.0009)
BIASES = ShotParams(0.11, -0.02, 0.015, -0.0002, 0.0003)


@pytest.fixture
def robot_yaml(tmp_path) -> Path:
    p = tmp_path / "robot.yaml"
    shutil.copy(REPO / "config" / "robot.yaml", p)
    return p


def test_writing_replaces_only_the_calibration_sections_and_reads_back(robot_yaml):
    before = robot_yaml.read_text()
    assert load_robot_settings(robot_yaml).error_sigmas is None
    write_calibration(robot_yaml, SIGMAS, BIASES, "2026-11-24", 100)
    text = robot_yaml.read_text()
    assert text.startswith(before.rstrip("\n"))                 # every line and comment kept, in order
    s = load_robot_settings(robot_yaml)
    assert s.error_sigmas == SIGMAS and s.biases == BIASES and s.driver.biases == BIASES
    assert (s.calibrated.date, s.calibrated.shots) == ("2026-11-24", 100)
    assert "calibrated 2026-11-24 (100 shots)" in s.error_source()
    write_calibration(robot_yaml, E_LOW, NO_BIAS, "2026-11-25", 40)   # a second calibration replaces the first
    again = robot_yaml.read_text()
    assert again.count("error_sigmas:") == 1 and again.count("biases:") == 1 and again.count("calibrated:") == 1
    assert again.startswith(before.rstrip("\n"))
    s = load_robot_settings(robot_yaml)
    assert s.error_sigmas == E_LOW and s.biases == NO_BIAS and s.calibrated.shots == 40


def test_a_calibration_that_does_not_parse_leaves_the_file_untouched(robot_yaml):
    before = robot_yaml.read_bytes()
    with pytest.raises(ConfigError, match=r"error_sigmas\.phi must be a standard deviation >= 0"):
        write_calibration(robot_yaml, ErrorModel(-1.0, 0.0, 0.0, 0.0, 0.0), NO_BIAS, "2026-11-24", 10)
    assert robot_yaml.read_bytes() == before
    assert [p.name for p in robot_yaml.parent.iterdir()] == ["robot.yaml"]   # no temporary left


def test_bad_calibration_records_are_named(robot_yaml):
    base = robot_yaml.read_text()
    robot_yaml.write_text(base + "calibrated:\n  date: yesterday\n  shots: 10\n")
    with pytest.raises(ConfigError, match=r"robot.yaml: calibrated.date must be a date YYYY-MM-DD, got 'yesterday'"):
        load_robot_settings(robot_yaml)
    robot_yaml.write_text(base + "biases:\n  phi: 0.1\n")
    with pytest.raises(ConfigError, match=r"biases.theta is missing"):
        load_robot_settings(robot_yaml)


def test_the_driver_sends_the_command_less_the_biases(robot_yaml, tmp_path):
    """The real driver against the simulated robot on its pty: the robot receives commanded -
    bias (at the wire's resolution)."""
    write_calibration(robot_yaml, SIGMAS, BIASES, "2026-11-24", 100)
    settings = load_robot_settings(robot_yaml)
    sim = load_sim_settings(REPO / "config" / "sim.yaml")
    fast = replace(sim.timing, move_s=0.01, move_jitter_s=0.0, strike_s=0.01)
    world = RecordingWorld()
    with SimRobot(replace(sim, timing=fast), settings.limits, world) as robot:
        with Actuator(replace(settings.driver, port=str(robot.link), frame_log=None)) as act:
            asked = ShotParams(45.0, 10.0, 2.0, 0.004, -0.003)
            report = act.shot(asked, (0.5, 0.6))
            steep = act.check_shot(ShotParams(45.0, settings.limits.theta.hi, 2.0), (0.5, 0.6))
    got = world.strikes[0].command.params.as_array()
    assert np.allclose(got, asked.as_array() - BIASES.as_array(), atol=[1e-3, 1e-3, 1e-3, 1e-5, 1e-5])
    assert np.array_equal(report.command.params.as_array(), got)
    # theta's bias (-0.02 deg) would raise the steepest cue above the robot's range: sent at the limit
    assert steep.params.theta == settings.limits.theta.hi


def test_the_run_log_names_the_model_its_source_and_its_difficulty_table(robot_yaml, tmp_path, monkeypatch):
    monkeypatch.setenv("CUEROBOT_DIFFICULTY_DIR", str(tmp_path / "grids"))
    bare = load_robot_settings(robot_yaml)
    meta = error_model_meta(bare, E_HIGH, "high", "high")
    assert meta["source"] == "the 'high' preset (robot.yaml has no error_sigmas)"
    assert meta["difficulty_table"] == str(tmp_path / "grids" / "difficulty_high.npz")
    write_calibration(robot_yaml, SIGMAS, BIASES, "2026-11-24", 100)
    cal = load_robot_settings(robot_yaml)
    meta = error_model_meta(cal, SIGMAS, "calibrated-0123abcd", "high")
    assert meta["source"].startswith("calibrated 2026-11-24 (100 shots)")
    assert meta["sigmas"] == {"phi": 0.2, "theta": 0.04, "V": 0.05, "a": 0.0007, "b": 0.0009}
    assert meta["biases"]["phi"] == 0.11
    assert meta["difficulty_table"].endswith("difficulty_calibrated-0123abcd.npz")


@pytest.mark.parametrize("name, sigmas", [("e_low", E_LOW), ("e_high", E_HIGH)])
def test_the_sim_robot_presets_carry_their_true_error_over_the_base(name, sigmas):
    s = load_sim_settings(REPO / "config" / "sim_robots" / f"{name}.yaml")
    assert np.allclose(s.error.sigmas.sigmas(), sigmas.sigmas(), rtol=1e-12)
    base = load_sim_settings(REPO / "config" / "sim.yaml")
    assert (s.firmware, s.timing, s.faults) == (base.firmware, base.timing, base.faults)


def test_a_preset_of_a_preset_is_refused(tmp_path):
    (tmp_path / "a.yaml").write_text("base: b.yaml\n")
    (tmp_path / "b.yaml").write_text(f"base: {REPO / 'config' / 'sim.yaml'}\n")
    with pytest.raises(ConfigError, match=r"a.yaml: base must be a sim config that has no base of its own"):
        load_sim_settings(tmp_path / "a.yaml")
