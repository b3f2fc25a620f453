"""Checks that never move the robot: HELLO, STATUS, replies, hi, ESTOP and the refusals
([X1], [X3], [X4], [H1]-[H3], [S1], [T2], ERR 10, 11, 12, 14, 19)."""
from __future__ import annotations

import re
import statistics

from controller import protocol as wire
from controller.conformance.check import LATCHED, NONE, check, require
from controller.conformance.host import Host
from controller.conformance.shots import gentle, outside
from controller.protocol import HELLO_KEYS, SHOT_WIRE, FrameError, Status


def _keys(args) -> list[str]:
    return [a.partition("=")[0] for a in args]


@check("hello", "X1", needs=NONE)
def hello(h: Host) -> str:
    """HELLO 1 gets HELLO with v, fw, the seven ranges, tmax and the status, in that order."""
    seq = h.send(wire.HELLO, str(wire.PROTOCOL_VERSION))
    f = h.reply(seq, f"{seq} HELLO 1")
    require(f.verb == wire.HELLO, f"HELLO 1 must be answered with HELLO, got {f}")
    require(_keys(f.args) == list(HELLO_KEYS),
            f"HELLO fields must be {' '.join(HELLO_KEYS)} in this order, got {' '.join(_keys(f.args))}")
    fields = f.fields()
    require(fields["v"] == str(wire.PROTOCOL_VERSION), f"v must be {wire.PROTOCOL_VERSION}, got {fields['v']}")
    fw = fields["fw"]
    require(1 <= len(fw) <= wire.FIRMWARE_ID_MAX, f"fw must be 1-{wire.FIRMWARE_ID_MAX} characters, got {fw!r}")
    for name, d, _, unit in SHOT_WIRE:
        lo, sep, hi = fields[name].partition(":")
        for x in (lo, hi):
            require(re.fullmatch(rf"-?[0-9]{{1,7}}\.[0-9]{{{d}}}", x) is not None and len(x) <= wire.HELLO_NUMBER_MAX,
                    f"{name}={fields[name]}: each bound must have {d} decimals and at most "
                    f"{wire.HELLO_NUMBER_MAX} characters")
        require(sep == ":" and float(lo) <= float(hi), f"{name}={fields[name]} must be low:high with low <= high")
    tmax = fields["tmax"]
    require(re.fullmatch(r"[0-9]{1,3}\.[0-9]{3}", tmax) is not None and float(tmax) > 0,
            f"tmax={tmax} must be a positive number of seconds with 3 decimals, at most {wire.TMAX_MAX}")
    try:
        parsed = wire.Hello.parse(f)
    except FrameError as e:
        require(False, f"unreadable HELLO: {e}")
    require(parsed.status.hi >= seq, f"hi={parsed.status.hi} must be at least the HELLO's seq {seq} ([H1])")
    h.hello, h.session, h.seq = parsed, True, max(h.seq, parsed.status.hi)
    return f"fw={fw}, tmax={tmax} s, {len(wire.encode_frame(f.seq, f.verb, f.args)) - 1} bytes"


@check("status", "X3")
def status(h: Host) -> str:
    """STATUS gets STATUS with state, homed, motion, phase, struck and hi, in that order."""
    f = h.ask(wire.STATUS, expect=(wire.STATUS,))
    keys = list(HELLO_KEYS[-6:])
    require(_keys(f.args) == keys, f"STATUS fields must be {' '.join(keys)}, got {' '.join(_keys(f.args))}")
    try:
        st = Status.parse(f.fields())
    except FrameError as e:
        require(False, f"unreadable STATUS: {e}")
    return " ".join(st.fields())


@check("one-reply", "X4")
def one_reply(h: Host) -> str:
    """Each frame gets exactly one immediate reply, with its seq, and nothing else."""
    for verb, args in ((wire.STATUS, ()), (wire.HELLO, ("1",)), ("FIRE", ()), (wire.STATUS, ("x",))):
        seq = h.send(verb, *args)
        got = h.collect(h.reply_timeout_s)
        require([rx.frame.seq if rx.frame else None for rx in got] == [seq],
                f"{seq} {verb}: expected one reply with seq {seq}, got {[rx.raw for rx in got]}")
        if verb == wire.HELLO:
            h.hello = wire.Hello.parse(got[0].frame)
            h.seq = max(h.seq, h.hello.status.hi)
    return "STATUS, HELLO, an unknown verb and a refused STATUS: one reply each"


@check("err-10", "ERR10")
def err_unknown(h: Host) -> str:
    """A verb that is not a command gets ERR 10 UNKNOWN_COMMAND."""
    for verb in ("FIRE", "ABCDEFGH"):
        h.expect_err(wire.E_UNKNOWN_COMMAND, verb)
    return "FIRE and ABCDEFGH refused"


@check("err-19", "ERR19", needs=NONE)
def err_version(h: Host) -> str:
    """HELLO with a protocol version other than 1 gets ERR 19 VERSION."""
    for version in ("2", "0"):
        h.expect_err(wire.E_VERSION, wire.HELLO, version)
    h.do_hello()
    return "HELLO 2 and HELLO 0 refused"


@check("hi-hello", "H1", needs=NONE)
def hi_hello(h: Host) -> str:
    """HELLO raises hi to its seq when higher, and never lowers it."""
    h.do_hello()
    s1 = h.seq + 10
    got = h.do_hello(seq=s1).status.hi
    require(got == s1, f"HELLO {s1} above hi must raise hi to {s1}, got hi={got}")
    got = h.do_hello(seq=1).status.hi
    require(got == s1, f"HELLO 1 (a restarted host) must leave hi at {s1}, got hi={got}")
    return f"HELLO {s1} raised hi to {s1}; HELLO 1 left it"


@check("reply-time", "T2")
def reply_time(h: Host) -> str:
    """Immediate replies start within ROBOT_REPLY_S (median of 20 STATUS), none later than reply_timeout_s."""
    lat, budget = [], []
    for _ in range(20):
        seq = h.next_seq()
        line = wire.encode_frame(seq, wire.STATUS)
        t = h.send_raw(line)
        rx = h.next_rx(seq, h.reply_timeout_s)
        require(rx is not None, f"no reply to {seq} STATUS within {h.reply_timeout_s} s")
        lat.append(rx.t - t)
        budget.append(wire.ROBOT_REPLY_S + (len(line) + len(rx.raw) + 1) * 10 / h.baudrate)
    med, allowed = statistics.median(lat), statistics.median(budget)
    require(med <= allowed, f"median reply time {med * 1e3:.1f} ms exceeds {allowed * 1e3:.1f} ms "
                            f"({wire.ROBOT_REPLY_S * 1e3:.0f} ms plus both frames' transmission)")
    return f"STATUS round trip median {med * 1e3:.1f} ms, max {max(lat) * 1e3:.1f} ms (allowed {allowed * 1e3:.1f} ms)"


@check("estop", "S1")
def estop(h: Host) -> str:
    """ESTOP is acknowledged whatever its arguments, with or without a session, and latches."""
    h.ask(wire.ESTOP, "now", "please", expect=(wire.ACK,))
    st = h.status()
    require(st.state == "ESTOP" and not st.homed, f"after ESTOP the state must be ESTOP, unhomed; got {st}")
    h.ask(wire.ESTOP, expect=(wire.ACK,))
    h.reset()
    h.ask(wire.ESTOP, expect=(wire.ACK,))
    st = h.status()
    require(st.state == "ESTOP", f"after ESTOP without a session the state must be ESTOP; got {st}")
    return "ESTOP with arguments, twice, and without a session: ACK and latched"


@check("err-11", "ERR11", needs=LATCHED)
def err_arguments(h: Host) -> str:
    """A command with the wrong number of arguments gets ERR 11 BAD_ARGUMENTS."""
    args = gentle(h.hello.limits)
    cases = ((wire.SHOT, args[:6]), (wire.SHOT, (*args, "1.0")), (wire.STATUS, ("x",)),
             (wire.HELLO, ()), (wire.HELLO, ("x",)))
    for verb, a in cases:
        h.expect_err(wire.E_BAD_ARGUMENTS, verb, *a)
    return f"{len(cases)} frames with wrong arguments refused"


@check("err-12", "ERR12", needs=LATCHED)
def err_out_of_range(h: Host) -> str:
    """A SHOT outside the declared limits or workspace gets ERR 12 OUT_OF_RANGE (sent only while latched)."""
    names = ("phi", "theta", "V", "a", "x", "y")
    for name in names:
        h.expect_err(wire.E_OUT_OF_RANGE, wire.SHOT, *outside(h.hello.limits, name), why=f" ({name} above its limit)")
    return f"{', '.join(names)} above their declared limits refused"


@check("err-14", "ERR14", needs=LATCHED)
def err_estopped(h: Host) -> str:
    """A SHOT while emergency-stopped (and so unhomed) gets ERR 14 ESTOPPED, not ERR 13."""
    h.expect_err(wire.E_ESTOPPED, wire.SHOT, *gentle(h.hello.limits))
    return "the gentle shot refused with ERR 14 while latched"


def _hi(h: Host) -> int:
    """hi as a HELLO with seq 1 reports it (HELLO 1 cannot raise it)."""
    return h.do_hello(seq=1).status.hi


@check("hi-other", "H3", needs=LATCHED)
def hi_other(h: Host) -> str:
    """STATUS and ESTOP sequence numbers are not counted toward hi."""
    s0 = h.do_hello(seq=h.seq + 1).status.hi
    args = gentle(h.hello.limits)
    h.ask(wire.STATUS, seq=s0 + 100, expect=(wire.STATUS,))
    h.expect_err(wire.E_ESTOPPED, wire.SHOT, *args, seq=s0 + 1, why=f" after STATUS {s0 + 100}")
    h.ask(wire.ESTOP, seq=s0 + 200, expect=(wire.ACK,))
    h.expect_err(wire.E_ESTOPPED, wire.SHOT, *args, seq=s0 + 2, why=f" after ESTOP {s0 + 200}")
    got = _hi(h)
    require(got < s0 + 100, f"hi={got}: raised by the STATUS {s0 + 100} or the ESTOP {s0 + 200}")
    h.seq = s0 + 200
    return f"STATUS {s0 + 100} and ESTOP {s0 + 200} left hi below them (hi={got})"


@check("hi-refused", "H2", needs=LATCHED)
def hi_refused(h: Host) -> str:
    """A refused motion command uses up its seq: hi becomes it."""
    s = h.seq + 1
    h.expect_err(wire.E_ESTOPPED, wire.SHOT, *gentle(h.hello.limits), seq=s)
    got = _hi(h)
    require(got == s, f"after SHOT {s} was refused with ERR 14, hi must be {s}, got {got}")
    return f"refused SHOT {s} raised hi to {s}"
