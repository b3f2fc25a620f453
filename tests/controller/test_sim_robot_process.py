"""``cuerobot sim-robot`` and ``cuerobot bench serial`` as a user runs them: real processes."""
from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import yaml

from config.reader import default_path
from config.robot import load_robot_settings
from controller.driver.actuator import Actuator
from planner.shot import ShotParams


def _sim_yaml(tmp_path: Path, **changes) -> Path:
    """config/sim.yaml with the soak profile's fast timing and a recording world (no engine to
    compile), plus ``changes`` at the top level."""
    data = yaml.safe_load(default_path("sim.yaml").read_text())
    data["timing"].update(data["soak"]["timing"])
    data["world"] = "recording"
    data.update(changes)
    path = tmp_path / "sim.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "controller.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def test_sim_robot_process_serves_the_driver_and_logs_its_strikes(tmp_path):
    strikes = tmp_path / "strikes.jsonl"
    proc = _cli("sim-robot", "--config", str(_sim_yaml(tmp_path)), "--strike-log", str(strikes))
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "sim-robot printed no port"
        port = proc.stdout.readline().strip()
        assert Path(port).resolve().as_posix().startswith("/dev/pts/")
        settings = replace(load_robot_settings().driver, port=port, reply_timeout_s=0.2, done_margin_s=0.2)
        with Actuator(settings) as act:
            rep = act.shot(ShotParams(200.0, 4.0, 1.5, -0.002, 0.003), (0.3, 0.4))
        (rec,) = [json.loads(x) for x in strikes.read_text().splitlines()]
        assert rec["seq"] == rep.seq
        assert rec["commanded"] == {"phi": 200.0, "theta": 4.0, "V": 1.5, "a": -0.002, "b": 0.003}
        assert rec["cue_xy"] == [0.3, 0.4]
        assert rec["executed"] != rec["commanded"]  # the robot's own error, from config/sim.yaml
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert not Path(port).exists()  # the link is removed on the way out


def test_sim_robot_names_the_bad_key_of_its_config(tmp_path):
    bad = _sim_yaml(tmp_path, true_sigmas={"phi": 0.1, "theta": 0.1, "V": "fast", "a": 0.0, "b": 0.0})
    proc = _cli("sim-robot", "--config", str(bad))
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and out == ""
    assert f"{bad}: true_sigmas.V must be a standard deviation >= 0 in m/s, got 'fast'" in err


def test_bench_serial_prints_the_documented_json():
    proc = _cli("bench", "serial", "--shots", "40", "--json")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    summary = json.loads(out)
    assert set(summary) >= {"attempted", "executed", "duplicated", "corrupted_executed", "faults", "recovery_ms"}
    assert summary["attempted"] == 40 and summary["duplicated"] == 0 and summary["corrupted_executed"] == 0
    assert 0 < summary["executed"] <= 40
