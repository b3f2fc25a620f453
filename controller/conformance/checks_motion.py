"""Checks that move the robot: homing, a shot, exactly-once, busy and stale numbers, timing
([X2], [E1], [E3], ERR 15, [T1]). Every shot is the gentle one of ``shots``."""
from __future__ import annotations

import time

from controller import protocol as wire
from controller.conformance.check import LATCHED, READY, Skipped, check, require
from controller.conformance.host import Host
from controller.conformance.shots import gentle, gentle_other, same_numbers_other_text

TMAX_TOLERANCE_S = 2 * wire.ROBOT_REPLY_S   # [T1]: the DONE frame's own latency on top of tmax


def _done(h: Host, seq: int, verb: str = wire.SHOT) -> None:
    """Wait for motion ``seq`` to end; CheckFailed unless it ends with DONE."""
    f = h.final(seq)
    require(f.verb == wire.DONE, f"{verb} {seq} ended with {f} instead of DONE")


def _struck_and_ready(h: Host, seq: int, when: str) -> None:
    """STATUS must say READY, motion ``seq`` DONE and struck ``seq``."""
    st = h.status()
    require((st.state, st.motion, st.phase, st.struck) == ("READY", seq, "DONE", seq),
            f"{when}: expected READY, motion {seq} DONE, struck {seq}; got {st}")


def _shot_done(h: Host, args: tuple[str, ...]) -> int:
    """Strike the shot ``args`` and wait for its DONE; returns its seq."""
    seq = h.start_shot(args)
    _done(h, seq)
    return seq


@check("homing", "X2", needs=LATCHED, moves=True)
def homing(h: Host) -> str:
    """HOME gets ACK at once, state HOMING while it runs, then DONE; it clears the latch."""
    seq, f = h.start_motion(wire.HOME)
    require(f is not None, f"HOME {seq} was accepted without an ACK")
    require(f.verb == wire.ACK, f"HOME {seq} must be answered ACK, got {f}")
    st = h.status()
    require(st.state == "HOMING" or st.phase == "DONE", f"while homing, STATUS must say HOMING, got {st}")
    _done(h, seq, wire.HOME)
    st = h.status()
    require((st.state, st.homed, st.motion, st.phase) == ("READY", True, seq, "DONE"),
            f"after HOME {seq}: expected READY, homed, motion {seq} DONE; got {st}")
    return f"HOME {seq}: ACK, HOMING, DONE, READY"


@check("shot", "X2", needs=READY)
def shot(h: Host) -> str:
    """SHOT gets ACK at once, state MOVING/STRIKING while it runs, then DONE; STATUS says struck."""
    args = gentle(h.hello.limits)
    seq, f = h.start_motion(wire.SHOT, *args)
    require(f is not None, f"SHOT {seq} was accepted without an ACK")
    require(f.verb == wire.ACK, f"SHOT {seq} must be answered ACK, got {f}")
    st = h.status()
    require(st.state in ("MOVING", "STRIKING") or st.phase == "DONE",
            f"during SHOT {seq}, STATUS must say MOVING or STRIKING, got {st}")
    _done(h, seq)
    _struck_and_ready(h, seq, f"after SHOT {seq}")
    return f"SHOT {' '.join(args)}: ACK, {st.state}, DONE, struck={seq}"


@check("exactly-once", "E1", needs=READY)
def exactly_once(h: Host) -> str:
    """Resending a SHOT (while it moves and after DONE) gets its phase and never strikes again."""
    args = gentle(h.hello.limits)
    seq = h.start_shot(args)
    f = h.ask(wire.SHOT, *args, seq=seq)
    require(f.verb in (wire.ACK, wire.DONE), f"a resend of SHOT {seq} while it moves must get ACK, got {f}")
    if f.verb == wire.ACK:
        f = h.final(seq)
    require(f.verb == wire.DONE, f"SHOT {seq} ended with {f} instead of DONE")
    extra = h.collect(h.reply_timeout_s)
    require(all(rx.frame and rx.frame.verb == wire.DONE for rx in extra), f"unexpected frames {[x.raw for x in extra]}")
    for _ in range(2):
        f = h.ask(wire.SHOT, *args, seq=seq)
        require(f.verb == wire.DONE, f"a resend of SHOT {seq} after its DONE must get DONE, got {f}")
    _struck_and_ready(h, seq, "after the resends")
    return f"SHOT {seq} sent 4 times: ACK, ACK, DONE, DONE; one motion"


@check("exactly-once-aborted", "E1", needs=READY)
def exactly_once_aborted(h: Host) -> str:
    """Resending a SHOT that ESTOP aborted before its strike gets ERR 14 and never moves."""
    args = gentle(h.hello.limits)
    seq = h.start_shot(args)
    h.ask(wire.ESTOP, expect=(wire.ACK,))
    st = h.settle()
    if st.struck == seq:
        raise Skipped(f"the robot struck SHOT {seq} before the ESTOP sent right after its ACK")
    h.expect_err(wire.E_ESTOPPED, wire.SHOT, *args, seq=seq, why=" (a resend of a shot aborted by ESTOP)")
    st = h.status()
    require(st.motion == seq and st.phase == "ABORTED" and st.struck != seq,
            f"after the resend: expected motion {seq} ABORTED, not struck; got {st}")
    return f"resent SHOT {seq} after its abort: ERR 14, nothing moved"


@check("err-16", "E1", needs=READY)
def err_seq_reused(h: Host) -> str:
    """The last SHOT's seq with other arguments, or the same numbers in other digits, gets ERR 16."""
    lim = h.hello.limits
    seq = _shot_done(h, gentle(lim))
    h.expect_err(wire.E_SEQ_REUSED, wire.SHOT, *gentle_other(lim), seq=seq, why=" (phi 1 degree off)")
    other_text = same_numbers_other_text(gentle(lim))
    h.expect_err(wire.E_SEQ_REUSED, wire.SHOT, *other_text, seq=seq, why=" (same numbers, one more decimal)")
    st = h.status()
    require((st.state, st.motion) == ("READY", seq), f"after ERR 16 the robot must be READY on motion {seq}; got {st}")
    return f"SHOT {seq} with phi 1 degree off, and with {other_text[0]} for {gentle(lim)[0]}: ERR 16"


@check("err-17", "E3", needs=READY)
def err_stale(h: Host) -> str:
    """A motion command whose seq is not above hi (and is not the last motion's) gets ERR 17."""
    seq = _shot_done(h, gentle(h.hello.limits))
    h.expect_err(wire.E_STALE_SEQ, wire.SHOT, *gentle(h.hello.limits), seq=seq - 1, why=f" (below hi={seq})")
    h.expect_err(wire.E_STALE_SEQ, wire.HOME, seq=seq - 1, why=f" (below hi={seq})")
    st = h.settle()
    require(st.motion == seq and st.struck == seq, f"a stale command must not start a motion; got {st}")
    return f"SHOT and HOME with seq {seq - 1} after SHOT {seq}: ERR 17"


@check("err-15", "ERR15", needs=READY)
def err_busy(h: Host) -> str:
    """A motion command while a motion is in progress gets ERR 15 BUSY."""
    args = gentle(h.hello.limits)
    seq = h.start_shot(args)
    if h.status().phase != "ACK":
        raise Skipped(f"SHOT {seq} was complete before a second command could be sent")
    h.expect_err(wire.E_BUSY, wire.SHOT, *args, why=f" (during SHOT {seq})")
    h.expect_err(wire.E_BUSY, wire.HOME, why=f" (during SHOT {seq})")
    f = h.final(seq)
    st = h.status()
    require(f.verb == wire.DONE and st.motion == seq, f"SHOT {seq} must go on to DONE; got {f}, {st}")
    return f"SHOT and HOME during SHOT {seq}: ERR 15; SHOT {seq} completed"


@check("timing", "T1", needs=READY)
def timing(h: Host) -> str:
    """DONE comes within the declared tmax of ACK, for HOME and for a SHOT."""
    out = []
    for verb, args in ((wire.HOME, ()), (wire.SHOT, gentle(h.hello.limits))):
        t = time.monotonic()
        seq, f = h.start_motion(verb, *args)
        t_ack = time.monotonic() if f is not None and f.verb == wire.ACK else t
        if f is None or f.verb == wire.ACK:
            f = h.final(seq)
        took = time.monotonic() - t_ack
        require(f.verb == wire.DONE, f"{verb} {seq} ended with {f}")
        require(took <= h.tmax + TMAX_TOLERANCE_S,
                f"{verb} {seq}: DONE {took:.3f} s after ACK, more than the declared tmax={h.tmax:.3f} s")
        out.append(f"{verb} {took:.3f} s")
    return f"ACK to DONE: {', '.join(out)} (tmax {h.tmax:.3f} s)"
