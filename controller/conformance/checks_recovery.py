"""Checks of stops and resets: ESTOP before and after the strike, RESET mid-shot and the recovery
through STATUS, the latch and the session across a reset ([S2], [R1]-[R3], [E2], ERR 13)."""
from __future__ import annotations

from controller import protocol as wire
from controller.conformance.check import LATCHED, READY, SESSION, Skipped, check, require
from controller.conformance.host import Host
from controller.conformance.shots import gentle

CATCH_TRIES = 3   # shots tried to catch the robot between its strike and its DONE


def _striking(h: Host) -> int:
    """Start gentle shots until STATUS catches one between strike and DONE; returns its seq.
    Raises Skipped after CATCH_TRIES shots that all completed first."""
    for _ in range(CATCH_TRIES):
        seq = h.start_shot(gentle(h.hello.limits))
        st = h.wait_state(lambda s: s.state == "STRIKING" or s.phase != "ACK", 2 * h.tmax + 1.0)
        if st is not None and st.state == "STRIKING":
            return seq
        h.final(seq)
    raise Skipped(f"{CATCH_TRIES} shots went from MOVING to DONE without STATUS seeing STRIKING")


def _estop_and_final(h: Host, seq: int) -> tuple[wire.Frame, bool]:
    """ESTOP during motion ``seq``; returns the motion's final reply and whether it came after the
    ESTOP's ACK. CheckFailed if the ACK or the final reply does not come."""
    e = h.send(wire.ESTOP)
    ack = h.next_rx(e)
    require(ack is not None and ack.frame.verb == wire.ACK, f"ESTOP {e} must be answered ACK, got {ack}")
    final = h.next_rx(seq)
    while final is not None and final.frame.verb == wire.ACK:
        final = h.next_rx(seq)
    require(final is not None, f"ESTOP {e} during motion {seq}: the motion must end with its own final reply "
                               f"({seq} ERR 14 or {seq} DONE) after the ACK; none came")
    return final.frame, final.n > ack.n


@check("estop-before-strike", "S2", needs=READY)
def estop_before_strike(h: Host) -> str:
    """ESTOP right after a SHOT's ACK: ACK, then the shot's own ERR 14; it is never struck."""
    seq = h.start_shot(gentle(h.hello.limits))
    f, after = _estop_and_final(h, seq)
    st = h.status()
    if f.verb == wire.DONE and st.struck == seq:
        raise Skipped(f"the robot struck SHOT {seq} before the ESTOP sent right after its ACK")
    require(f.verb == wire.ERR and wire.err_code(f) == wire.E_ESTOPPED and after,
            f"SHOT {seq} stopped before its strike must end with {seq} ERR 14 after the ESTOP's ACK, got {f}")
    require((st.state, st.phase) == ("ESTOP", "ABORTED") and st.struck != seq,
            f"after the abort: expected ESTOP, phase ABORTED, not struck; got {st}")
    return f"SHOT {seq}: ESTOP acknowledged, then {seq} ERR 14; STATUS ABORTED, not struck"


@check("estop-after-strike", "S2", needs=READY)
def estop_after_strike(h: Host) -> str:
    """ESTOP between a SHOT's strike and its DONE: ACK, then the shot's DONE; STATUS says struck."""
    seq = _striking(h)
    f, _ = _estop_and_final(h, seq)
    require(f.verb == wire.DONE, f"SHOT {seq} stopped after its strike must end with {seq} DONE, got {f}")
    st = h.status()
    require((st.state, st.phase, st.struck) == ("ESTOP", "DONE", seq),
            f"after ESTOP during STRIKING: expected ESTOP, phase DONE, struck {seq}; got {st}")
    return f"SHOT {seq} caught STRIKING: ESTOP acknowledged, then {seq} DONE; struck={seq}"


@check("err-18", "E2", needs=SESSION)
def err_no_session(h: Host) -> str:
    """After a reset, a motion command before HELLO gets ERR 18 NO_SESSION."""
    h.reset()
    h.expect_err(wire.E_NO_SESSION, wire.SHOT, *gentle(h.hello.limits), why=" (after RESET, before HELLO)")
    h.do_hello()
    return "SHOT between RESET and HELLO refused"


@check("reset", "R1", needs=READY)
def reset_mid_shot(h: Host) -> str:
    """RESET right after a SHOT's ACK: ACK, 0 HELLO as at power-up (RAM lost, hi = struck), the
    shot abandoned; after HELLO, STATUS says it was not struck."""
    before = h.status().struck
    seq = h.start_shot(gentle(h.hello.limits))
    st = h.reset().status
    if st.struck == seq:
        raise Skipped(f"the robot struck SHOT {seq} before the RESET sent right after its ACK")
    require(st.struck == before, f"struck must survive a reset: was {before}, announced {st.struck}")
    require((st.state, st.homed, st.motion, st.phase) == ("UNHOMED", False, 0, "NONE"),
            f"after a reset: expected UNHOMED, homed=0, motion=0, phase=NONE; got {st}")
    require(st.hi == st.struck, f"after a reset hi must restart at struck={st.struck}, got hi={st.hi}")
    h.do_hello()
    after = h.status()
    require(after.struck != seq, f"STATUS after the reset claims SHOT {seq} was struck: {after}")
    late = h.next_rx(seq, 0.0)
    require(late is None, f"the abandoned SHOT {seq} must send nothing after the reset, got {late}")
    return f"SHOT {seq} reset before its strike: announced {' '.join(st.fields())}; STATUS: not struck"


@check("reset-after-strike", "R2", needs=READY)
def reset_after_strike(h: Host) -> str:
    """RESET between a SHOT's strike and its DONE: the announcement and STATUS say it was struck."""
    seq = _striking(h)
    st = h.reset().status
    require(st.struck == seq, f"SHOT {seq} was STRIKING when reset: the announcement must say struck={seq}, "
                              f"got struck={st.struck}")
    h.do_hello()
    st = h.status()
    require(st.struck == seq, f"STATUS after the reset must say struck={seq}, got {st}")
    return f"SHOT {seq} reset while STRIKING: struck={seq} kept"


def _reset_then_shot(h: Host, state: str, code: int, why: str) -> None:
    """RESET; the announcement must say ``state``; after HELLO the gentle SHOT must get ERR ``code``."""
    st = h.reset().status
    require(st.state == state, f"{why}: the announcement must say state {state}, got {st.state}")
    h.do_hello()
    h.expect_err(code, wire.SHOT, *gentle(h.hello.limits), why=f" ({why})")


@check("latch-reset", "R3", needs=LATCHED)
def latch_reset(h: Host) -> str:
    """The emergency-stop latch survives a reset: announced state ESTOP, SHOT refused with ERR 14."""
    _reset_then_shot(h, "ESTOP", wire.E_ESTOPPED, "emergency-stopped, then reset")
    return "ESTOP, RESET: announced ESTOP, SHOT refused with ERR 14"


@check("err-13", "ERR13", needs=READY)
def err_not_homed(h: Host) -> str:
    """After a reset (not emergency-stopped), a SHOT before HOME gets ERR 13 NOT_HOMED."""
    _reset_then_shot(h, "UNHOMED", wire.E_NOT_HOMED, "reset while READY, before HOME")
    return "SHOT after a reset, before HOME, refused"
