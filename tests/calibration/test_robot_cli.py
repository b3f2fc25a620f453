"""``cuerobot calibrate robot`` as a user runs it: a real process that drives the simulated robot
(in the rig's own process) through the real driver and sees only camera frames. Under an audit
hook, the calibrating process never opens the sim config with the robot's true error, nor imports
the simulator's modules."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from planner.shot import E_HIGH

REPO = Path(__file__).resolve().parents[2]
SHOTS = 8
TRUE_PHI_BIAS = 0.5          # deg
TRUE_PHI_SIGMA = 0.1         # deg

# Runs the command line in this process, recording every file it opens (audit event "open",
# PEP 578) and, at the end, every module it imported.
AUDITED = """
import json, os, sys
opened = []
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        opened.append(os.path.realpath(os.fsdecode(args[0])))
sys.addaudithook(hook)
from controller.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    json.dump({"opened": opened, "modules": sorted(sys.modules)}, f)
sys.exit(code)
"""


def truth_file(tmp_path: Path, config_dir: Path) -> Path:
    """A sim robot preset with a large phi bias and quick motions, outside the config directory."""
    p = tmp_path / "truth" / "robot_truth.yaml"
    p.parent.mkdir()
    p.write_text(yaml.safe_dump({
        "base": os.path.relpath(config_dir / "sim.yaml", p.parent),
        "true_sigmas": {"phi": TRUE_PHI_SIGMA, "theta": 0.03, "V": 0.02, "a": 0.0005, "b": 0.0005},
        "biases": {"phi": TRUE_PHI_BIAS, "theta": 0.0, "V": 0.01, "a": 0.0, "b": 0.0},
        "timing": {"move_s": 0.05, "move_jitter_s": 0.02, "strike_s": 0.02, "home_s": 0.05, "boot_s": 0.05,
                   "reconnect_s": 0.1}}))
    return p


def run(config_dir: Path, audit: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CUEROBOT_CONFIG_DIR": str(config_dir)}
    return subprocess.run([sys.executable, "-c", AUDITED, str(audit), "calibrate", "robot", *args], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=600)


def test_calibrating_the_sim_robot_writes_robot_yaml_and_never_touches_the_truth(tmp_path, config_dir):
    truth = truth_file(tmp_path, config_dir)
    before = (config_dir / "robot.yaml").read_text()
    audit, png = tmp_path / "audit.json", tmp_path / "robot.png"
    p = run(config_dir, audit, "--sim-config", str(truth), "--shots", str(SHOTS), "--seed", "5", "--json",
            "--report", str(png))
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)
    fields = ["phi", "theta", "V", "a", "b"]
    assert set(out) == {"shots", "sigma", "ci95", "bias", "unidentifiable"}
    assert all(list(out[k]) == fields for k in ("sigma", "ci95", "bias"))
    assert 0 < out["shots"] <= SHOTS and set(out["unidentifiable"]) <= set(fields)
    assert "phi" not in out["unidentifiable"]
    assert abs(out["bias"]["phi"] - TRUE_PHI_BIAS) < 1.5 * TRUE_PHI_SIGMA     # 4 standard errors at 8 shots
    lo, hi = out["ci95"]["phi"]
    assert lo < out["sigma"]["phi"] < hi
    for k in out["unidentifiable"]:                  # kept at the previous values: E_high, no bias
        assert out["bias"][k] == 0.0 and out["sigma"][k] == getattr(E_HIGH, k)

    text = (config_dir / "robot.yaml").read_text()
    assert text.startswith(before.rstrip("\n"))
    written = yaml.safe_load(text)
    assert written["calibrated"]["shots"] == out["shots"]
    assert written["error_sigmas"] == pytest.approx(out["sigma"], rel=1e-12)
    assert written["biases"] == pytest.approx(out["bias"], rel=1e-12)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    seen = json.loads(audit.read_text())
    secret = {os.path.realpath(truth), os.path.realpath(config_dir / "sim.yaml")}
    assert not secret & set(seen["opened"])
    assert any(f.endswith("robot.yaml") for f in seen["opened"])            # the hook does see opens
    assert not [m for m in seen["modules"] if m == "config.sim" or m.startswith("controller.sim")]


def test_a_bad_sim_config_is_named_and_nothing_is_written(tmp_path, config_dir):
    """The rig's process reads the truth file (so the audit above is not vacuous): a bad key in it
    stops the run with that file and key named, exit 2, robot.yaml unchanged."""
    truth = truth_file(tmp_path, config_dir)
    truth.write_text(truth.read_text().replace(f"phi: {TRUE_PHI_SIGMA}", "phi: -1.0"))
    before = (config_dir / "robot.yaml").read_bytes()
    p = run(config_dir, tmp_path / "audit.json", "--sim-config", str(truth), "--shots", "2")
    assert p.returncode == 2
    assert "robot_truth.yaml: true_sigmas.phi must be a standard deviation >= 0" in p.stderr
    assert (config_dir / "robot.yaml").read_bytes() == before
