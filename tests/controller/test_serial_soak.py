"""A bounded fault soak: a few hundred shots through the real driver and a pty to the simulated
robot under every kind of fault at once. The long run is ``cuerobot bench serial``."""
from __future__ import annotations

from dataclasses import replace

import pytest

from config.sim import Faults, load_soak_settings
from controller.driver.link import LinkFault
from controller.serial_bench import run_soak

SHOTS = 250
FAULTS = Faults(drop=0.001, corrupt=0.001, duplicate=0.001, delay=0.002, delay_s=0.03,
                silence=0.01, silence_s=0.3, disconnect=0.04, reset=0.04)


@pytest.fixture(scope="module")
def soak():
    setup = load_soak_settings()
    setup = replace(setup, sim=replace(setup.sim, faults=FAULTS), invalid_rate=0.03)
    return run_soak(SHOTS, setup, seed=11)


def test_every_kind_of_fault_was_injected(soak):
    for kind in ("rx_drop", "rx_corrupt", "rx_duplicate", "rx_delay", "tx_drop", "tx_corrupt",
                 "tx_duplicate", "tx_delay", "silence", "disconnect", "reset"):
        assert soak.faults[kind] > 0, kind
    # which kind a recovery is filed under depends on timing (a reset seen mid-frame is a garbled
    # line, a silence that outlasts the timeout a lost link), so ask for most of them, not all
    kinds = {k for k, _ in soak.recoveries}
    assert kinds <= {LinkFault.SILENCE, LinkFault.GARBLED, LinkFault.LINK_LOST, LinkFault.ROBOT_RESET}
    assert {LinkFault.GARBLED, LinkFault.LINK_LOST} <= kinds and len(kinds) >= 3
    assert soak.reconnects > 0


def test_no_shot_is_struck_twice_or_with_other_parameters(soak):
    assert soak.duplicated == 0
    assert soak.corrupted_executed == 0


def test_the_driver_never_misreports_and_every_valid_shot_gets_through(soak):
    assert soak.misreported == 0
    assert soak.given_up == 0
    assert soak.invalid > 0 and soak.refused_before_sending == soak.invalid
    assert soak.executed == soak.attempted - soak.invalid


def test_failures_surface_as_specific_exceptions(soak):
    failures = {k for k in soak.outcomes if k != "struck"}
    assert failures - {"ShotRejected before sending"}, "no attempt ever failed: the soak tested nothing"
    generic = {"ActuatorError", "RobotError", "Exception"}
    assert not {k.split(" ")[0] for k in failures} & generic


def test_the_summary_has_the_documented_keys(soak):
    s = soak.summary()
    assert set(s) >= {"attempted", "executed", "duplicated", "corrupted_executed", "misreported", "faults",
                      "recovery_ms"}
    assert s["attempted"] == SHOTS and s["recovery_ms"]["all"]["median"] > 0
    assert s["faults"] == dict(soak.faults) and sum(s["outcomes"].values()) == sum(soak.outcomes.values())
