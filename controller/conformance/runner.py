"""Run the conformance checks against a robot on a port, in order, and collect their results.

    report = run_suite("/dev/ttyACM0", 115200, 0.25, confirm=ask_the_operator)

Checks that never move the robot run first. Before the first check that may move it, ``confirm``
is shown the plan (the gentle shot, from the robot's own limits) and must return True; if it
returns False, or is None, the moving checks are skipped. Each check's precondition (a session,
emergency-stopped, ready) is established by the runner just before it, so that one failure does
not cascade into the checks after it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import serial

from controller import protocol as wire
from controller.conformance import checks_framing, checks_motion, checks_recovery, checks_session
from controller.conformance.check import LATCHED, READY, REGISTRY, SESSION, Check, CheckFailed, Skipped, require
from controller.conformance.host import Host
from controller.conformance.shots import gentle
from controller.protocol import SHOT_WIRE, Hello

PASS, FAIL, SKIP = "pass", "fail", "skip"
# The check modules in running order (a check runs in its module's rank, then definition order).
MODULES = (checks_session, checks_framing, checks_motion, checks_recovery)


@dataclass(frozen=True)
class Result:
    """One check's outcome: ``verdict`` PASS, FAIL or SKIP; ``detail`` what was seen (or why it
    failed or was skipped); ``seconds`` its duration; ``transcript`` its lines (t [s from the
    start of the suite], "tx"|"rx"|"note", text)."""
    check: Check
    verdict: str
    detail: str
    seconds: float
    transcript: tuple[tuple[float, str, str], ...] = ()


@dataclass
class SuiteReport:
    """The whole run: the port, the robot's HELLO (None if it never answered one), the results in
    order, the total time [s] and whether motion was allowed."""
    port: str
    hello: Hello | None
    results: list[Result] = field(default_factory=list)
    seconds: float = 0.0
    motion_allowed: bool = False

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.results)

    @property
    def ok(self) -> bool:
        """No check failed (skipped checks do not certify, but do not fail the robot either)."""
        return bool(self.results) and self.count(FAIL) == 0

    def failed(self) -> list[str]:
        return [r.check.name for r in self.results if r.verdict == FAIL]


def ordered_checks(only: Sequence[str] | None = None) -> list[Check]:
    """The checks in running order: those that never move the robot first. ``only``: names to
    keep (ValueError naming an unknown one)."""
    names = {c.name for c in REGISTRY}
    unknown = [n for n in only or () if n not in names]
    if unknown:
        raise ValueError(f"unknown check {unknown[0]!r}; known: {', '.join(c.name for c in REGISTRY)}")
    rank = [m.__name__ for m in MODULES]
    keep = sorted((c for c in REGISTRY if not only or c.name in only), key=lambda c: rank.index(c.run.__module__))
    return [c for c in keep if not c.moves] + [c for c in keep if c.moves]


def motion_plan(hello: Hello, n_moving: int) -> str:
    """What the suite will do to the robot, for the operator to agree to."""
    args = gentle(hello.limits)
    shot = ", ".join(f"{name}={a} {unit}" for (name, _, _, unit), a in zip(SHOT_WIRE, args))
    return (f"The conformance suite will now move the robot ({hello.firmware}): {n_moving} checks home it "
            f"and strike about {n_moving + 3} gentle shots ({shot}), all inside the limits it declared. "
            "Clear the table around the cue.")


def establish(h: Host, needs: str) -> None:
    """Bring the robot to the precondition ``needs``; raises CheckFailed if it cannot be reached."""
    h.forget()
    if needs in (SESSION, LATCHED, READY) and not h.session:
        h.do_hello()
    if needs == LATCHED:
        h.settle()
        h.ask(wire.ESTOP, expect=(wire.ACK,))
        st = h.status()
        require(st.state == "ESTOP", f"ESTOP did not latch (state {st.state}): not safe to go on")
    elif needs == READY:
        st = h.settle()
        if st.state != "READY":
            f = h.run_motion(wire.HOME)
            require(f.verb == wire.DONE, f"HOME ended with {f}")
            st = h.status()
        require(st.state == "READY", f"not READY after HOME: {st}")
    h.forget()


def run_suite(port: str, baudrate: int, reply_timeout_s: float,
              confirm: Callable[[str], bool] | None = None, only: Sequence[str] | None = None,
              progress: Callable[[Result], None] | None = None) -> SuiteReport:
    """Run the checks against the robot on ``port`` (device or pyserial URL). ``reply_timeout_s``
    [s]: how long an immediate reply may take. ``progress(result)`` is called after each check.
    Raises serial.SerialException (or ValueError) if the port cannot be opened."""
    h = Host(port, baudrate, reply_timeout_s)
    checks = ordered_checks(only)
    report = SuiteReport(port, None)
    allowed: bool | None = None
    t_start = time.monotonic()
    h.open()
    try:
        _wake(h)
        for c in checks:
            if c.moves and allowed is None:
                allowed = _ask(h, confirm, sum(x.moves for x in checks))
                report.motion_allowed = allowed
            if c.moves and not allowed:
                r = Result(c, SKIP, "motion not allowed by the operator (use --yes)", 0.0)
            else:
                r = _run_one(h, c)
            report.results.append(r)
            if progress:
                progress(r)
    finally:
        report.hello = h.hello
        report.seconds = time.monotonic() - t_start
        h.close()
    return report


def _wake(h: Host) -> None:
    """Give a robot that is still booting (the port was just opened) its ROBOT_BOOT_S: HELLO until
    it answers or that time has passed. Leaves the verdict on the HELLO to the checks."""
    until = time.monotonic() + wire.ROBOT_BOOT_S + h.reply_timeout_s
    while time.monotonic() < until:
        seq = h.send(wire.HELLO, str(wire.PROTOCOL_VERSION))
        if h.next_rx(seq, h.reply_timeout_s) is not None or h.next_rx(0, 0.0) is not None:
            break
    h.forget()


def _ask(h: Host, confirm: Callable[[str], bool] | None, n_moving: int) -> bool:
    if confirm is None:
        return False
    try:
        if h.hello is None:
            h.do_hello()
    except CheckFailed:
        return False
    return bool(confirm(motion_plan(h.hello, n_moving)))


def _run_one(h: Host, c: Check) -> Result:
    t0 = time.monotonic()
    mark = len(h.transcript)
    try:
        establish(h, c.needs)
    except (CheckFailed, Skipped, serial.SerialException, OSError) as e:
        return _result(h, c, FAIL, f"precondition '{c.needs}' not reached: {e}", t0, mark)
    try:
        return _result(h, c, PASS, c.run(h), t0, mark)
    except CheckFailed as e:
        return _result(h, c, FAIL, str(e), t0, mark)
    except Skipped as e:
        return _result(h, c, SKIP, str(e), t0, mark)
    except (serial.SerialException, OSError) as e:
        return _result(h, c, FAIL, f"port failed: {e}", t0, mark)
    except (KeyError, ValueError, wire.FrameError) as e:   # a reply the check could not read
        return _result(h, c, FAIL, f"unreadable reply: {type(e).__name__}: {e}", t0, mark)


def _result(h: Host, c: Check, verdict: str, detail: str, t0: float, mark: int) -> Result:
    lines = tuple((t - h.t0, d, text) for t, d, text in h.transcript[mark:])
    return Result(c, verdict, detail, time.monotonic() - t0, lines)
