"""The simulated firmware's protocol rules, driven frame by frame on a hand-held clock."""
from __future__ import annotations

import numpy as np
import pytest

from config.sim import TrueError
from controller import protocol as wire
from controller.conformance.clauses import CLAUSES
from controller.protocol import Frame, Hello, ShotCommand, Status, decode_frame, encode_frame, err_code
from controller.sim.firmware import Firmware
from controller.sim.quirks import QUIRKS, firmware_class
from controller.sim.world import RecordingWorld
from planner.shot import ErrorModel, ShotParams

SHOT_ARGS = ("45.000", "10.000", "2.000", "1.00", "-2.00", "500.0", "600.0")


class Bench:
    """A firmware on a hand-held clock, answering frames as lists of decoded replies."""

    def __init__(self, fast_config, limits, error=None, boot=True):
        self.world = RecordingWorld()
        self.t = 0.0
        self.timing = fast_config.timing
        self.fw = Firmware("fw-test", limits, self.timing, error or fast_config.error, self.world,
                           np.random.default_rng(3), self.t)
        if boot:
            self.advance(self.timing.boot_s)

    def advance(self, dt: float) -> list[Frame]:
        self.t += dt
        return [decode_frame(x[:-1]) for x in self.fw.tick(self.t)]

    def send(self, seq: int, verb: str, *args: str) -> list[Frame]:
        return self.raw(encode_frame(seq, verb, args))

    def raw(self, data: bytes) -> list[Frame]:
        return [decode_frame(x[:-1]) for x in self.fw.feed(data, self.t)]

    def ready(self) -> None:
        assert self.send(1, "HELLO", "1")[0].verb == "HELLO"
        assert [f.verb for f in self.send(2, "HOME")] == ["ACK"]
        assert [f.verb for f in self.advance(self.timing.home_s)] == ["DONE"]

    def status(self) -> Status:
        return Status.parse(self.send(999999, "STATUS")[0].fields())

    def finish_motion(self) -> list[Frame]:
        return self.advance(self.timing.move_s + self.timing.move_jitter_s + self.timing.strike_s + 1e-6)


@pytest.fixture
def bench(fast_config, limits):
    return Bench(fast_config, limits)


def _err(frames: list[Frame]) -> int:
    assert len(frames) == 1 and frames[0].verb == "ERR", frames
    return err_code(frames[0])


def test_boot_announces_itself_and_ignores_input_until_then(fast_config, limits):
    b = Bench(fast_config, limits, boot=False)
    assert b.send(1, "STATUS") == []
    (announce,) = b.advance(b.timing.boot_s)
    assert announce.seq == 0 and announce.verb == "HELLO"
    hello = Hello.parse(announce)
    assert hello.firmware == "fw-test" and hello.limits == limits and hello.status.state == "UNHOMED"
    assert hello.tmax == pytest.approx(b.timing.move_s + b.timing.move_jitter_s + b.timing.strike_s)


def test_bad_input_gets_clear_errors_and_nothing_moves(bench):
    assert bench.raw(b"garbage\n")[0].args[:2] == (str(wire.NAK_MALFORMED), "MALFORMED")
    assert bench.raw(b"3 STATUS*00000000\n")[0].args[:2] == (str(wire.NAK_BAD_CRC), "BAD_CRC")
    assert bench.raw(b"\n\r\n") == []  # empty lines are resynchronisation, not frames
    assert _err(bench.send(3, "SHOT", *SHOT_ARGS)) == wire.E_NO_SESSION
    assert _err(bench.send(4, "HELLO", "2")) == wire.E_VERSION
    assert _err(bench.send(5, "HELLO")) == wire.E_BAD_ARGUMENTS
    bench.send(6, "HELLO", "1")
    assert _err(bench.send(7, "SHOT", *SHOT_ARGS)) == wire.E_NOT_HOMED
    assert _err(bench.send(8, "FIRE")) == wire.E_UNKNOWN_COMMAND
    assert _err(bench.send(9, "SHOT", *SHOT_ARGS[:6])) == wire.E_BAD_ARGUMENTS
    assert _err(bench.send(10, "SHOT", "1e3", *SHOT_ARGS[1:])) == wire.E_BAD_ARGUMENTS
    assert _err(bench.send(11, "STATUS", "now")) == wire.E_BAD_ARGUMENTS
    bench.send(12, "HOME")
    bench.advance(bench.timing.home_s)
    (err,) = bench.send(13, "SHOT", SHOT_ARGS[0], SHOT_ARGS[1], "9.000", *SHOT_ARGS[3:])
    assert err_code(err) == wire.E_OUT_OF_RANGE
    assert "V=9.000 m/s outside the robot's limit 0.100..4.500 m/s" in " ".join(err.args)
    (err,) = bench.send(14, "SHOT", *SHOT_ARGS[:5], "5000.0", SHOT_ARGS[6])
    assert err_code(err) == wire.E_OUT_OF_RANGE and "workspace" in " ".join(err.args)
    bench.finish_motion()
    assert bench.world.strikes == []
    # refused motion commands use up their numbers too ([H2]): hi is the last one read, 14
    assert bench.status() == Status("READY", True, 12, "DONE", 0, 14)


def test_a_repeated_shot_frame_is_answered_but_never_struck_twice(bench):
    bench.ready()
    assert [f.verb for f in bench.send(3, "SHOT", *SHOT_ARGS)] == ["ACK"]
    assert [f.verb for f in bench.send(3, "SHOT", *SHOT_ARGS)] == ["ACK"]   # retransmission while moving
    assert [(f.seq, f.verb) for f in bench.finish_motion()] == [(3, "DONE")]
    for _ in range(3):
        assert [(f.seq, f.verb) for f in bench.send(3, "SHOT", *SHOT_ARGS)] == [(3, "DONE")]
    bench.finish_motion()
    assert [s.seq for s in bench.world.strikes] == [3]
    assert bench.world.strikes[0].command == ShotCommand.from_args(SHOT_ARGS)
    # the same seq with other arguments is a protocol error, an older seq is stale
    assert _err(bench.send(3, "SHOT", "46.000", *SHOT_ARGS[1:])) == wire.E_SEQ_REUSED
    assert _err(bench.send(2, "SHOT", *SHOT_ARGS)) == wire.E_STALE_SEQ
    assert _err(bench.send(1, "HOME")) == wire.E_STALE_SEQ
    bench.finish_motion()
    assert len(bench.world.strikes) == 1


def test_a_second_motion_while_busy_is_refused(bench):
    bench.ready()
    bench.send(3, "SHOT", *SHOT_ARGS)
    assert _err(bench.send(4, "SHOT", *SHOT_ARGS)) == wire.E_BUSY
    assert _err(bench.send(5, "HOME")) == wire.E_BUSY
    bench.finish_motion()
    assert [f.verb for f in bench.send(6, "SHOT", *SHOT_ARGS)] == ["ACK"]
    bench.finish_motion()
    assert [s.seq for s in bench.world.strikes] == [3, 6]


def test_estop_is_honoured_in_every_state_and_aborts_a_shot_before_the_strike(bench):
    assert [f.verb for f in bench.send(1, "ESTOP")] == ["ACK"]          # no session, unhomed
    assert bench.status().state == "ESTOP"
    bench.send(2, "HELLO", "1")
    bench.send(3, "HOME")                                               # HOME clears the latch
    bench.advance(bench.timing.home_s)
    bench.send(4, "SHOT", *SHOT_ARGS)
    replies = bench.send(5, "ESTOP", "whatever")
    assert [(f.seq, f.verb) for f in replies] == [(5, "ACK"), (4, "ERR")] and err_code(replies[1]) == wire.E_ESTOPPED
    bench.finish_motion()
    assert bench.world.strikes == []
    assert _err(bench.send(4, "SHOT", *SHOT_ARGS)) == wire.E_ESTOPPED            # its phase: aborted
    assert _err(bench.send(6, "SHOT", *SHOT_ARGS)) == wire.E_ESTOPPED            # latched
    assert bench.status().phase == "ABORTED"


def test_estop_after_the_strike_reports_the_shot_done(bench):
    bench.ready()
    bench.send(3, "SHOT", *SHOT_ARGS)
    while not bench.fw.motion.struck:
        bench.advance(0.0005)
    assert [(f.seq, f.verb) for f in bench.send(4, "ESTOP")] == [(4, "ACK"), (3, "DONE")]
    assert [s.seq for s in bench.world.strikes] == [3]


def test_a_reset_after_the_strike_keeps_the_struck_seq_and_never_strikes_again(bench):
    bench.ready()
    bench.send(3, "SHOT", *SHOT_ARGS)
    while not bench.fw.motion.struck:
        bench.advance(0.0005)
    bench.fw.reset(bench.t)
    (announce,) = bench.advance(bench.timing.boot_s)
    st = Hello.parse(announce).status
    assert (st.struck, st.state, st.motion, st.hi) == (3, "UNHOMED", 0, 3)
    assert _err(bench.send(3, "SHOT", *SHOT_ARGS)) == wire.E_NO_SESSION     # the old frame, retransmitted
    bench.send(4, "HELLO", "1")
    assert _err(bench.send(3, "SHOT", *SHOT_ARGS)) == wire.E_STALE_SEQ
    bench.finish_motion()
    assert [s.seq for s in bench.world.strikes] == [3]


def test_a_reset_keeps_the_estop_latch(bench):
    bench.ready()
    bench.send(3, "ESTOP")
    bench.fw.reset(bench.t)
    (announce,) = bench.advance(bench.timing.boot_s)
    assert Hello.parse(announce).status.state == "ESTOP"


def test_executed_shots_carry_the_true_bias_and_sigmas(fast_config, limits):
    """Executed - commanded over many strikes: mean = bias, standard deviation = sigma."""
    sig = ErrorModel(phi=0.2, theta=0.1, V=0.05, a=0.001, b=0.0008)
    bias = ShotParams(0.1, 0.2, -0.03, 0.0005, -0.0004)
    bench = Bench(fast_config, limits, TrueError(sig, bias))
    bench.ready()
    n = 400
    for i in range(n):
        bench.send(3 + i, "SHOT", *SHOT_ARGS)
        bench.finish_motion()
    d = np.array([s.executed.as_array() - s.command.params.as_array() for s in bench.world.strikes])
    assert d.shape == (n, 5)
    se = sig.sigmas() / np.sqrt(n)
    assert np.all(np.abs(d.mean(0) - bias.as_array()) < 4 * se)
    assert np.all(np.abs(d.std(0, ddof=1) / sig.sigmas() - 1) < 4 / np.sqrt(2 * n))


def test_hello_raises_hi_so_a_new_host_continues_above_it(bench):
    bench.ready()
    bench.send(50, "SHOT", *SHOT_ARGS)
    bench.finish_motion()
    (hello,) = bench.send(7, "HELLO", "1")  # a restarted host, counting from low numbers again
    assert Hello.parse(hello).status.hi == 50
    assert _err(bench.send(8, "SHOT", *SHOT_ARGS)) == wire.E_STALE_SEQ
    assert [f.verb for f in bench.send(51, "SHOT", *SHOT_ARGS)] == ["ACK"]


def test_a_refused_motion_uses_up_its_number_so_a_late_resend_cannot_strike(bench):
    """[H2]: SHOT 4 refused while busy; its resend arrives when the robot is idle (the host resent
    because the ERR was slow). It must not be struck: the host was already told 'not struck'."""
    bench.ready()
    bench.send(3, "SHOT", *SHOT_ARGS)
    assert _err(bench.send(4, "SHOT", *SHOT_ARGS)) == wire.E_BUSY
    bench.finish_motion()
    assert _err(bench.send(4, "SHOT", *SHOT_ARGS)) == wire.E_STALE_SEQ
    bench.finish_motion()
    assert [s.seq for s in bench.world.strikes] == [3]
    assert bench.status().hi == 4


def test_status_estop_and_reset_never_change_hi(bench):
    """[H3]: only HELLO and motion commands move hi."""
    bench.ready()
    assert bench.fw.hi == 2
    bench.send(500, "STATUS")
    bench.send(600, "ESTOP")
    assert bench.fw.hi == 2
    assert [f.verb for f in bench.send(3, "HOME")] == ["ACK"]   # 3 is still above hi


def test_reset_command_acknowledges_then_reboots_as_at_power_up(bench):
    """[R1]: ACK, the rest of the input lost, input ignored while booting, then 0 HELLO with
    RAM cleared and hi back at struck; the latch and struck survive."""
    bench.ready()
    bench.send(3, "SHOT", *SHOT_ARGS)
    bench.finish_motion()
    bench.send(4, "ESTOP")
    replies = bench.raw(encode_frame(5, "RESET") + encode_frame(6, "STATUS"))
    assert [(f.seq, f.verb) for f in replies] == [(5, "ACK")]          # the STATUS behind it was lost
    assert bench.send(7, "STATUS") == []                              # booting: input ignored
    (announce,) = bench.advance(bench.timing.boot_s)
    assert announce.seq == 0 and announce.verb == "HELLO"
    assert Hello.parse(announce).status == Status("ESTOP", False, 0, "NONE", 3, 3)
    assert _err(bench.send(8, "SHOT", *SHOT_ARGS)) == wire.E_NO_SESSION


def test_a_shot_in_progress_is_abandoned_by_reset_and_never_struck(bench):
    bench.ready()
    bench.send(3, "SHOT", *SHOT_ARGS)
    bench.send(4, "RESET")
    frames = bench.advance(bench.timing.boot_s) + bench.finish_motion()
    assert [(f.seq, f.verb) for f in frames] == [(0, "HELLO")]        # no DONE for 3, ever
    assert bench.world.strikes == [] and bench.fw.nvm.struck == 0


def test_quirks_are_named_and_an_unknown_one_lists_them():
    assert firmware_class([]) is Firmware
    assert issubclass(firmware_class(["no-ack"]), Firmware)
    with pytest.raises(ValueError, match="unknown quirk 'no-such'; known: crc-byte-order, no-nak-on-bad-crc"):
        firmware_class(["no-such"])
    assert {q.clause for q in QUIRKS.values()} <= set(CLAUSES)
