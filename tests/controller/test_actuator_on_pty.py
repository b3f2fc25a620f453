"""The real driver (pyserial) against the simulated robot through a real pseudo-terminal."""
from __future__ import annotations

import math
import threading
import time
from collections import Counter

import numpy as np
import pytest
import serial

from config.sim import Faults, TrueError
from controller.driver.deadline import Deadline
from controller.driver.errors import (
    RobotDisconnected,
    RobotEstopped,
    RobotTimeout,
    ShotNotExecuted,
    ShotOutcomeUnknown,
    ShotRejected,
)
from controller.driver.link import LinkFault
from controller.protocol import (
    E_BAD_ARGUMENTS,
    E_OUT_OF_RANGE,
    E_UNKNOWN_COMMAND,
    NAK_BAD_CRC,
    LineSplitter,
    ShotCommand,
    decode_frame,
    encode_frame,
    err_code,
)
from controller.sim.world import PhysicsWorld, RecordingWorld
from hil.recording import read_frame_log
from planner.shot import ErrorModel, ShotParams
from planner.state import TableState

SHOT = ShotParams(phi=123.4567, theta=7.5, V=2.25, a=0.00123, b=-0.00456)
XY = (0.5, 0.75)


def _tx_shots(act) -> list[str]:
    return [r["frame"] for r in read_frame_log(act.frame_log.path) if r["dir"] == "tx" and " SHOT " in r["frame"]]


def _wait_for(condition, what: str, timeout_s: float = 5.0) -> None:
    """Poll ``condition()`` until it holds; fail the test, naming ``what``, after ``timeout_s``."""
    deadline = Deadline(timeout_s)
    while not condition():
        assert not deadline.expired(), f"waited {timeout_s} s for {what}"
        time.sleep(0.005)


def _no_motion_in_progress(robot) -> bool:
    """The robot's last motion is over (done, aborted, or wiped by a reset): a strike happens only
    during a motion, so none can follow until the next one is accepted."""
    return robot.firmware.status().phase != "ACK"


def test_handshake_learns_the_declared_limits_and_homes(start_robot, make_driver, limits, fast_config):
    robot = start_robot()
    act = make_driver(robot)
    assert act.hello.limits == limits
    assert act.hello.firmware == fast_config.firmware
    assert act.status().state == "READY"


def test_a_shot_is_struck_once_exactly_as_commanded(start_robot, make_driver, fast_config):
    world = RecordingWorld()
    bias = ShotParams(0.25, 0.5, -0.1, 0.001, -0.002)
    robot = start_robot(world=world)
    robot.firmware.error = TrueError(ErrorModel(0, 0, 0, 0, 0), bias)  # exact execution, known offset
    act = make_driver(robot)
    rep = act.shot(SHOT, XY)
    assert not rep.recovered
    (strike,) = world.strikes
    assert strike.seq == rep.seq
    assert strike.command == rep.command == ShotCommand.from_params(SHOT, XY)
    # mm on the wire, metres inside: the robot received the same offsets the planner asked for
    assert strike.command.params.a == pytest.approx(0.00123) and strike.command.params.b == pytest.approx(-0.00456)
    assert np.allclose(strike.executed.as_array(), rep.command.params.as_array() + bias.as_array())
    assert act.status().struck == rep.seq


def test_every_frame_is_logged_both_ways_as_it_happens(start_robot, make_driver):
    act = make_driver(start_robot())
    t_before = time.time()
    rep = act.shot(SHOT, XY)
    t_after = time.time()
    log = read_frame_log(act.frame_log.path)  # read while the driver is still open: flushed per frame
    frames = [(r["dir"], decode_frame(r["frame"].encode())) for r in log if r["dir"] in ("tx", "rx")]
    assert ("tx", decode_frame(encode_frame(rep.seq, "SHOT", rep.command.args())[:-1])) in frames
    assert [v for d, f in frames if f.seq == rep.seq for v in [(d, f.verb)]] == [("tx", "SHOT"), ("rx", "ACK"),
                                                                                   ("rx", "DONE")]
    ts = [r["t"] for r in log]      # epoch timestamps, in order; the shot's frames stamped during it
    assert ts == sorted(ts) and all(t_before <= r["t"] <= t_after for r in log if r["dir"] in ("tx", "rx")
                                    and decode_frame(r["frame"].encode()).seq == rep.seq)


def test_phi_is_turned_into_the_declared_range(start_robot, make_driver):
    world = RecordingWorld()
    act = make_driver(start_robot(world=world))
    rep = act.shot(ShotParams(-30.0, 5.0, 1.0), XY)
    assert rep.command.params.phi == 330.0 and world.strikes[0].command.params.phi == 330.0


@pytest.mark.parametrize("params, xy, what", [
    (ShotParams(10.0, 5.0, 6.2), XY, "V=6.200 m/s outside the robot's limit 0.100..4.500 m/s"),
    (ShotParams(10.0, 75.0, 2.0), XY, "theta=75.000 deg outside"),
    (ShotParams(10.0, 5.0, 2.0, a=0.02), XY, "a=20.00 mm outside the robot's limit -15.00..15.00 mm"),
    (ShotParams(10.0, 5.0, 2.0), (1.5, 0.5), "x=1500.0 mm outside the robot's workspace"),
    (ShotParams(10.0, math.nan, 2.0), XY, "theta must be a finite number"),
])
def test_a_shot_outside_the_declared_limits_is_refused_before_sending(start_robot, make_driver, params, xy, what):
    world = RecordingWorld()
    act = make_driver(start_robot(world=world))
    with pytest.raises(ShotRejected, match="rejected before sending") as e:
        act.shot(params, xy)
    assert what in str(e.value) and e.value.code is None
    assert _tx_shots(act) == [] and world.strikes == []


def test_a_noisy_line_costs_retransmissions_never_a_second_strike(start_robot, make_driver):
    world = RecordingWorld()
    robot = start_robot(Faults(drop=0.001, corrupt=0.001, duplicate=0.001), world=world)
    act = make_driver(robot, retries=8)
    reports = [act.shot(ShotParams(9.0 * i, 5.0, 2.0), XY) for i in range(40)]
    assert [s.seq for s in world.strikes] == [r.seq for r in reports]
    assert [s.command for s in world.strikes] == [r.command for r in reports]
    resent = [f for f, n in Counter(_tx_shots(act)).items() if n > 1]
    assert resent, "the faults never made the driver resend a SHOT"
    assert any(kind is LinkFault.GARBLED for kind, _ in act.recoveries)


def test_silence_raises_a_timeout_and_the_driver_recovers_after_it(start_robot, make_driver):
    robot = start_robot()
    act = make_driver(robot)
    before = len(act.recoveries)
    robot.go_silent(0.8)  # longer than 4 tries of 0.1 s
    with pytest.raises(RobotTimeout, match="no reply after 4 tries"):
        act.status()
    _wait_for(lambda: not robot.silent, "the robot's silence to end")
    assert act.status().state == "READY"
    ((kind, seconds),) = act.recoveries[before:]
    assert kind is LinkFault.SILENCE and seconds >= 0.5


@pytest.mark.parametrize("when", ["before_strike", "after_strike"])
def test_a_disconnect_mid_shot_reconnects_and_follows_the_shot_to_its_end(start_robot, make_driver, when):
    world = RecordingWorld()
    robot = start_robot(Faults(disconnect=1.0, disconnect_when=when), world=world, move_s=0.1)
    act = make_driver(robot)
    rep = act.shot(SHOT, XY)
    assert rep.recovered and act.reconnects == 1 and robot.counts["disconnect"] == 1
    assert [s.seq for s in world.strikes] == [rep.seq]
    assert any(kind is LinkFault.LINK_LOST for kind, _ in act.recoveries)


def test_a_reset_after_the_strike_is_reported_struck_from_status(start_robot, make_driver):
    world = RecordingWorld()
    robot = start_robot(Faults(reset=1.0, reset_when="after_strike"), world=world)
    act = make_driver(robot)
    a = act.shot(SHOT, XY)
    b = act.shot(SHOT, XY)  # the driver re-handshakes and re-homes after each reset
    assert a.recovered and b.recovered and robot.counts["reset"] == 2
    assert [s.seq for s in world.strikes] == [a.seq, b.seq]


def test_a_reset_before_the_strike_raises_shot_not_executed(start_robot, make_driver):
    world = RecordingWorld()
    robot = start_robot(Faults(reset=1.0, reset_when="before_strike"), world=world)
    act = make_driver(robot)
    with pytest.raises(ShotNotExecuted, match="not struck") as e:
        act.shot(SHOT, XY)
    assert e.value.seq == act.last_shot_seq
    _wait_for(lambda: _no_motion_in_progress(robot), "the robot's motion to end")
    assert world.strikes == [] and not act.was_struck(e.value.seq)


def test_estop_from_another_thread_aborts_the_shot_until_homed(start_robot, make_driver):
    world = RecordingWorld()
    robot = start_robot(world=world, move_s=0.4)
    act = make_driver(robot)
    threading.Timer(0.1, act.estop).start()
    with pytest.raises(RobotEstopped, match="ESTOP"):
        act.shot(SHOT, XY)
    _wait_for(lambda: _no_motion_in_progress(robot), "the robot's motion to end")
    assert world.strikes == []
    with pytest.raises(RobotEstopped):
        act.shot(SHOT, XY)
    act.home()
    rep = act.shot(SHOT, XY)
    assert [s.seq for s in world.strikes] == [rep.seq]


def test_a_robot_gone_for_good_leaves_the_outcome_unknown(start_robot, make_driver):
    robot = start_robot(move_s=0.3)
    act = make_driver(robot, reconnect_timeout_s=0.4)
    threading.Timer(0.1, robot.stop).start()
    with pytest.raises(ShotOutcomeUnknown, match="could not be read") as e:
        act.shot(SHOT, XY)
    assert isinstance(e.value.__cause__, RobotDisconnected)
    with pytest.raises(RobotDisconnected, match="cannot open the port"):
        act.status()
    act.close()
    act.close()


def test_a_second_driver_numbers_its_frames_above_the_robots_hi(start_robot, make_driver):
    world = RecordingWorld()
    robot = start_robot(world=world)
    first = make_driver(robot)
    a = first.shot(SHOT, XY)
    first.close()
    second = make_driver(robot)
    b = second.shot(SHOT, XY)
    assert b.seq > a.seq and [s.seq for s in world.strikes] == [a.seq, b.seq]


def _ask(port: serial.Serial, line: bytes, n: int = 1) -> list:
    """Send ``line``; the decoded replies once ``n`` have come (or after a second), plus any more
    that come within 0.1 s after."""
    port.write(line)
    sp, out, end = LineSplitter(), [], time.monotonic() + 1.0
    while time.monotonic() < end:
        out += [decode_frame(x) for x in sp.feed(port.read(port.in_waiting or 1)) if x]
        if len(out) >= n:
            end = min(end, time.monotonic() + 0.1)
    return out


def test_bad_input_over_the_pty_gets_clear_errors_and_no_motion(start_robot, make_driver):
    world = RecordingWorld()
    robot = start_robot(world=world)
    make_driver(robot).close()  # handshake and home, then let go of the port
    with serial.Serial(str(robot.link), timeout=0.02) as port:
        assert _ask(port, b"\n", n=0) == []
        (nak,) = _ask(port, b"5 SHOT 1 2 3*DEADBEEF\n")
        assert (nak.seq, nak.verb, nak.args) == (0, "NAK", (str(NAK_BAD_CRC), "BAD_CRC"))
        (nak,) = _ask(port, b"\x00\xff garbage\n")
        assert nak.verb == "NAK"
        (err,) = _ask(port, encode_frame(900, "HELLO", ("1",)))
        assert err.verb == "HELLO"
        (err,) = _ask(port, encode_frame(901, "JUMP"))
        assert (err.seq, err_code(err)) == (901, E_UNKNOWN_COMMAND)
        (err,) = _ask(port, encode_frame(902, "SHOT", ("10.000", "5.000", "2.000", "0.00", "0.00")))
        assert err_code(err) == E_BAD_ARGUMENTS and "takes 7 numbers" in " ".join(err.args)
        (err,) = _ask(port, encode_frame(903, "SHOT", ("10.000", "5.000", "7.500", "0.00", "0.00", "500.0", "600.0")))
        assert err_code(err) == E_OUT_OF_RANGE and "V=7.500" in " ".join(err.args)
        (st,) = _ask(port, encode_frame(904, "STATUS"))
        assert st.fields()["state"] == "READY"
    assert world.strikes == []



def test_a_physics_world_plays_the_executed_shot(start_robot, make_driver, simulator):
    """The world moves the balls with the shot the robot executed (its own error included), which
    is not the commanded one."""
    start = TableState.from_dict({0: (0.56, 0.5), 1: (0.56, 1.2)})
    world = PhysicsWorld(simulator, start)
    robot = start_robot(world=world)
    act = make_driver(robot)
    rep = act.shot(ShotParams(90.0, 2.0, 1.5), (0.56, 0.5))
    (strike,) = world.strikes
    assert strike.seq == rep.seq and strike.executed != rep.command.params
    expect = simulator.simulate(start, strike.executed)
    assert np.array_equal(world.state.pos, expect.state_after().pos)
    assert world.last_result.first_hit == 1  # straight up the table into ball 1
    assert not np.allclose(world.state.pos, start.pos)


def test_the_port_may_be_a_pyserial_url(start_robot, make_driver, tmp_path):
    robot = start_robot()
    act = make_driver(robot, port=f"spy://{robot.link}?file={tmp_path / 'spy.txt'}")
    rep = act.shot(SHOT, XY)
    assert f"{rep.seq} SHOT".encode().hex(" ").upper() in (tmp_path / "spy.txt").read_text()
