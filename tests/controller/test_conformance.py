"""The conformance suite against the simulated robot on a real pty: it passes the conforming
firmware, and each quirk fails exactly the checks of the clause it breaks."""
from __future__ import annotations

import os
import re
import select
import threading
import time
import tty
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from config.robot import load_robot_settings
from config.sim import Faults, load_sim_settings
from controller.conformance.check import REGISTRY
from controller.conformance.clauses import CLAUSES
from controller.conformance.runner import FAIL, PASS, SKIP, run_suite
from controller.sim.firmware import Firmware
from controller.sim.quirks import QUIRKS
from controller.sim.robot import SimRobot
from controller.sim.world import RecordingWorld

SPEC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
REPLY_TIMEOUT_S = 0.15
# Motions long enough for an ESTOP or RESET sent after an ACK to land before the strike, even
# when that ACK is missing (no-ack: the suite waits REPLY_TIMEOUT_S, then asks STATUS).
TIMING = dict(move_s=0.3, move_jitter_s=0.0, strike_s=0.1, home_s=0.1, boot_s=0.1)


@pytest.fixture(scope="module")
def sim_config():
    cfg = load_sim_settings()
    return replace(cfg, world="recording", faults=Faults(), timing=replace(cfg.timing, **TIMING))


def _run(sim_config, quirks=(), confirm=lambda plan: True):
    world = RecordingWorld()
    with SimRobot(sim_config, load_robot_settings().limits, world, quirks=quirks) as robot:
        report = run_suite(str(robot.link), 115200, REPLY_TIMEOUT_S, confirm=confirm)
        nvm_struck = robot.firmware.nvm.struck
    return report, world, nvm_struck


def test_the_suite_passes_the_simulated_robot_and_moves_it_only_within_its_limits(sim_config):
    report, world, nvm_struck = _run(sim_config)
    assert [(r.check.name, r.verdict, r.detail) for r in report.results if r.verdict != PASS] == []
    assert len(report.results) == len(REGISTRY) == 34 and report.ok and report.motion_allowed
    limits = load_robot_settings().limits
    seqs = [s.seq for s in world.strikes]
    assert 5 <= len(seqs) <= 20 and len(set(seqs)) == len(seqs)       # no shot struck twice
    assert all(limits.violations(s.command) == [] for s in world.strikes)
    assert nvm_struck == seqs[-1]
    details = {r.check.name: r.detail for r in report.results}
    assert "ACK, ACK, DONE, DONE; one motion" in details["exactly-once"]


@pytest.mark.parametrize("quirk", sorted(QUIRKS))
def test_each_quirk_fails_exactly_the_checks_of_its_clause(sim_config, quirk):
    report, _, _ = _run(sim_config, quirks=[quirk])
    clause = QUIRKS[quirk].clause
    failed = {r.check.name for r in report.results if r.verdict == FAIL}
    assert failed == {c.name for c in REGISTRY if c.clause == clause}, \
        [(r.check.name, r.detail) for r in report.results if r.verdict == FAIL]
    assert [r.check.name for r in report.results if r.verdict == SKIP] == []


def test_without_consent_the_suite_never_moves_the_robot(sim_config):
    plans = []
    report, world, _ = _run(sim_config, confirm=lambda plan: plans.append(plan) or False)
    moving = [r for r in report.results if r.check.moves]
    assert moving and all(r.verdict == SKIP for r in moving)
    assert all(r.verdict == PASS for r in report.results if not r.check.moves)
    assert world.strikes == [] and not report.motion_allowed
    (plan,) = plans
    assert "V=0.100 m/s" in plan and "x=558.8 mm, y=1117.6 mm" in plan   # the lowest speed, the middle


def test_every_check_names_a_clause_the_spec_states_and_the_spec_lists_every_check():
    assert {c.clause for c in REGISTRY} == set(CLAUSES)
    for clause in CLAUSES:
        assert f"**[{clause}]**" in SPEC, clause
    row = re.compile(r"^\| `([a-z0-9-]+)` \| \[([A-Z0-9]+)\] \|", re.M)
    checks = SPEC[SPEC.index("## 11. Conformance"):SPEC.index("## Frame log")]
    assert set(row.findall(checks)) == {(c.name, c.clause) for c in REGISTRY}
    quirks = SPEC[SPEC.index("## The simulated robot"):]
    assert set(row.findall(quirks)) == {(q.name, q.clause) for q in QUIRKS.values()}


LATE_S = 0.3   # every reply of the late robot below leaves this long after its frame came in


@contextmanager
def _late_robot(sim_config):
    """The conforming firmware on a real pty, every reply (and the boot announcement) written
    LATE_S late, as a host whose scheduler stalls would see it. Yields the pty's device path."""
    master, slave = os.openpty()
    tty.setraw(slave)
    fw = Firmware("late-0.1", load_robot_settings().limits, replace(sim_config.timing, boot_s=0.0),
                  sim_config.error, RecordingWorld(), np.random.default_rng(1), time.monotonic())
    stop = threading.Event()

    def serve():
        due: list[tuple[float, bytes]] = []
        while not stop.is_set():
            if select.select([master], [], [], 0.005)[0]:
                now = time.monotonic()
                due += [(now + LATE_S, f) for f in fw.feed(os.read(master, 4096), now)]
            now = time.monotonic()
            due += [(now + LATE_S, f) for f in fw.tick(now)]
            while due and due[0][0] <= now:
                os.write(master, due.pop(0)[1])

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield os.ttyname(slave)
    finally:
        stop.set()
        t.join()
        os.close(master)
        os.close(slave)


def test_a_late_reply_fails_the_reply_time_check_alone(sim_config):
    with _late_robot(sim_config) as port:
        report = run_suite(port, 115200, REPLY_TIMEOUT_S, only=["hello", "status", "reply-time"])
    verdicts = {r.check.name: (r.verdict, r.detail) for r in report.results}
    assert verdicts["hello"][0] == PASS and verdicts["status"][0] == PASS, verdicts
    assert verdicts["reply-time"][0] == FAIL, verdicts
    assert f"within {REPLY_TIMEOUT_S} s" in verdicts["reply-time"][1]
