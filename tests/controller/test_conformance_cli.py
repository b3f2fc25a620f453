"""``cuerobot robot conformance`` against ``cuerobot sim-robot``, both as real processes."""
from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from pathlib import Path

import yaml

from config.reader import default_path

TIMING = dict(move_s=0.3, move_jitter_s=0.0, strike_s=0.1, home_s=0.1, boot_s=0.1)


def _sim_robot(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    data = yaml.safe_load(default_path("sim.yaml").read_text())
    data["timing"].update(TIMING)
    data["world"] = "recording"
    cfg = tmp_path / "sim.yaml"
    cfg.write_text(yaml.safe_dump(data))
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "sim-robot", "--config", str(cfg), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    assert ready, "sim-robot printed no port"
    return proc, proc.stdout.readline().strip()


def _conformance(port: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", "robot", "conformance", "--port", port,
                           "--reply-timeout", "0.15", *args],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=10)
    assert proc.returncode == 0


def test_the_command_certifies_sim_robot_and_writes_the_report(tmp_path):
    proc, port = _sim_robot(tmp_path)
    try:
        out = _conformance(port, "--json", "--yes", "--report", str(tmp_path / "report.html"))
    finally:
        _stop(proc)
    assert out.returncode == 0, out.stdout + out.stderr
    res = json.loads(out.stdout)
    assert (res["ok"], res["failed"], res["skipped"], res["passed"]) == (True, 0, 0, 34)
    assert res["firmware"] == "cuerobot-sim-0.1" and res["motion_allowed"] is True
    page = (tmp_path / "report.html").read_text()
    assert "PASS  34 checks: 34 passed, 0 failed, 0 skipped" in page
    assert all(f"<td>{c['name']}</td>" in page for c in res["checks"])
    assert "SHOT 180.000 0.000 0.100 0.00 0.00 558.8 1117.6" in page   # the transcripts are in it


def test_a_quirk_given_to_sim_robot_fails_its_checks_and_the_exit_code(tmp_path):
    proc, port = _sim_robot(tmp_path, "--quirk", "no-ack")
    try:
        out = _conformance(port, "--json", "--yes", "--check", "homing", "--check", "shot", "--check", "timing")
    finally:
        _stop(proc)
    assert out.returncode == 1
    res = json.loads(out.stdout)
    assert {c["name"]: c["verdict"] for c in res["checks"]} == {"homing": "fail", "shot": "fail", "timing": "pass"}
    assert "accepted without an ACK" in {c["name"]: c["detail"] for c in res["checks"]}["shot"]


def test_without_a_terminal_or_yes_no_motion_and_an_unknown_quirk_is_named(tmp_path):
    proc, port = _sim_robot(tmp_path)
    try:
        out = _conformance(port, "--check", "hello", "--check", "shot")
    finally:
        _stop(proc)
    assert out.returncode == 0, out.stderr
    assert "SKIP  shot" in out.stdout and "PASS  hello" in out.stdout
    assert "Not a terminal: moving checks skipped" in out.stderr
    bad = subprocess.run([sys.executable, "-m", "controller.cli", "sim-robot", "--quirk", "no-such"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown quirk 'no-such'; known: crc-byte-order" in bad.stderr
