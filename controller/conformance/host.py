"""The conformance suite's host: one port, frames out and in, and nothing done behind its back.

Unlike the driver (``controller.driver``) it never resends and never reconnects on its own: a
check must see exactly what the robot does. Every line sent and received is kept in
``transcript`` with its time, for the report.

Its reader is tolerant in one named way: a robot frame whose CRC is right but written with its
four bytes in reverse order is read anyway and marked (``Rx.crc_reversed``), so that this one
fault fails the CRC check ([F2]) instead of every check. Its waits are tolerant in the same way:
a reply a check needs is awaited up to PATIENCE_S, and only the reply-time check ([T2]) and the
wait for a motion's immediate reply ([X2]) hold the robot to ``reply_timeout_s``; so a late reply
fails [T2], not whichever check happened to be waiting when the host's scheduler stalled.
"""
from __future__ import annotations

import time
from collections import defaultdict, deque
from dataclasses import dataclass

import serial

from controller import protocol as wire
from controller.conformance.check import CheckFailed
from controller.protocol import Frame, FrameError, Hello, LineSplitter, Status, crc32, decode_frame, encode_frame

READ_SLICE_S = 0.005     # the port's read timeout: the resolution of arrival times
STATUS_POLL_S = 0.01     # pause between STATUS polls while waiting for a state
FINAL_SLACK_S = 1.0      # added to 2 x tmax when waiting for a motion's end (tmax itself is [T1]'s)
PATIENCE_S = 1.0         # the longest wait for a reply a check needs: 4 x the default reply_timeout_s


@dataclass(frozen=True)
class Rx:
    """One line received: ``n`` its rank among all lines received, ``t`` its arrival [s,
    monotonic]; ``frame`` the decoded frame or None with ``error`` saying why not."""
    n: int
    t: float
    raw: bytes
    frame: Frame | None
    error: str | None = None
    crc_reversed: bool = False


def _decode(raw: bytes) -> tuple[Frame | None, str | None, bool]:
    try:
        return decode_frame(raw), None, False
    except FrameError as e:
        error = e
    star = raw.rfind(b"*")
    crc = raw[star + 1:]
    if error.code == wire.NAK_BAD_CRC and int(crc[6:8] + crc[4:6] + crc[2:4] + crc[0:2], 16) == crc32(raw[:star]):
        return decode_frame(raw[:star] + b"*%08X" % crc32(raw[:star])), None, True
    return None, str(error), False


class Host:
    """The port at ``url`` (device path or pyserial URL). ``reply_timeout_s``: how long to wait
    for an immediate reply [s]. ``hello``: the last HELLO reply or announcement; ``session``:
    whether a HELLO was answered since the robot last booted, as far as this host knows."""

    def __init__(self, url: str, baudrate: int, reply_timeout_s: float):
        self.url = url
        self.baudrate = baudrate
        self.reply_timeout_s = reply_timeout_s
        self.hello: Hello | None = None
        self.session = False
        self.seq = 0
        self.transcript: list[tuple[float, str, str]] = []   # (t, "tx"|"rx"|"note", text)
        self._ser: serial.SerialBase | None = None
        self._split = LineSplitter()
        self._by_seq: dict[int, deque[Rx]] = defaultdict(deque)
        self._n = 0
        self.t0 = time.monotonic()

    # ---- the port ----
    def open(self) -> None:
        """Open the port and end any partial line in the robot's buffer. Raises
        serial.SerialException (or ValueError for a bad URL)."""
        self._ser = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=READ_SLICE_S,
                                          write_timeout=1.0)
        self._ser.write(b"\n")

    def close(self) -> None:
        """Close the port. Safe to call twice."""
        ser, self._ser = self._ser, None
        if ser is not None:
            ser.close()

    def send_raw(self, data: bytes) -> float:
        """Write ``data`` as it is; returns the time [s, monotonic] it was written."""
        self._ser.write(data)
        self._ser.flush()
        t = time.monotonic()
        self.transcript.append((t, "tx", data.decode("ascii", "backslashreplace").rstrip("\n")))
        return t

    def note(self, text: str) -> None:
        self.transcript.append((time.monotonic(), "note", text))

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def send(self, verb: str, *args: str, seq: int | None = None) -> int:
        """Send one frame; returns its seq (the next one unless ``seq`` is given)."""
        if seq is None:
            seq = self.next_seq()
        self.seq = max(self.seq, seq)
        self.send_raw(encode_frame(seq, verb, args))
        return seq

    @property
    def patience_s(self) -> float:
        """How long a check waits for a reply it needs [s]: PATIENCE_S, or reply_timeout_s if longer."""
        return max(PATIENCE_S, self.reply_timeout_s)

    # ---- receiving ----
    def _pump(self, until: float) -> None:
        """Read what arrives before ``until`` (at least one read), filing each line by seq."""
        while True:
            data = self._ser.read(max(1, self._ser.in_waiting))
            now = time.monotonic()
            got = False
            for raw in self._split.feed(data):
                if not raw.strip(b"\r"):
                    continue
                frame, error, reversed_ = _decode(raw)
                self._n += 1
                rx = Rx(self._n, now, raw, frame, error, reversed_)
                self._by_seq[frame.seq if frame else -1].append(rx)
                self.transcript.append((now, "rx", raw.decode("ascii", "backslashreplace")
                                        + (f"   <- {error}" if error else "")))
                got = True
            if got or now >= until:
                return

    def next_rx(self, seq: int, timeout: float | None = None) -> Rx | None:
        """The next line received for ``seq`` (0: the robot's own frames; -1: unreadable lines)
        within ``timeout`` [s] (default PATIENCE_S, at least reply_timeout_s), or None."""
        until = time.monotonic() + (self.patience_s if timeout is None else timeout)
        box = self._by_seq[seq]
        while not box:
            if time.monotonic() >= until:
                return None
            self._pump(until)
        return box.popleft()

    def collect(self, seconds: float) -> list[Rx]:
        """Every line received within ``seconds`` from now, including those already waiting, in
        order of arrival. A ``0 HELLO`` among them ends the session."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            self._pump(until)
        out = sorted((rx for box in self._by_seq.values() for rx in box), key=lambda rx: rx.n)
        self._by_seq.clear()
        if any(rx.frame and rx.frame.seq == 0 and rx.frame.verb == wire.HELLO for rx in out):
            self.session = False   # the robot announced a reboot: the session is gone
        return out

    def forget(self) -> None:
        """Drop every line received and not yet looked at (e.g. left over from a failed check)."""
        self.collect(0.0)

    def reply(self, seq: int, what: str, timeout: float | None = None) -> Frame:
        """The next frame for ``seq``; raises CheckFailed naming ``what`` if none comes in time."""
        rx = self.next_rx(seq, timeout)
        if rx is None:
            raise CheckFailed(f"no reply to {what} within {self.patience_s if timeout is None else timeout:.2f} s")
        return rx.frame

    # ---- exchanges ----
    def ask(self, verb: str, *args: str, seq: int | None = None, expect: tuple[str, ...] = ()) -> Frame:
        """Send a frame and return its reply; raises CheckFailed if none comes, or if ``expect``
        is given and the reply's verb is not in it."""
        seq = self.send(verb, *args, seq=seq)
        what = f"{seq} {verb}{' ' if args else ''}{' '.join(args)}"
        f = self.reply(seq, what)
        if expect and f.verb not in expect:
            raise CheckFailed(f"{what}: expected {' or '.join(expect)}, got {_show(f)}")
        return f

    def ask_err(self, verb: str, *args: str, seq: int | None = None) -> int:
        """Send a frame that must be refused; returns the ERR code (CheckFailed if not an ERR)."""
        return wire.err_code(self.ask(verb, *args, seq=seq, expect=(wire.ERR,)))

    def expect_err(self, code: int, verb: str, *args: str, seq: int | None = None, why: str = "") -> None:
        """Send a frame that must get ``ERR code``; raises CheckFailed saying what came instead."""
        got = self.ask(verb, *args, seq=seq)
        if got.verb != wire.ERR or wire.err_code(got) != code:
            raise CheckFailed(f"{_show_sent(got.seq, verb, args)}{why}: expected ERR {code} "
                              f"{wire.ERR_NAMES[code]}, got {_show(got)}")
        if got.args[1:2] != (wire.ERR_NAMES[code],):
            raise CheckFailed(f"ERR {code} must be followed by its name {wire.ERR_NAMES[code]}, got {_show(got)}")

    def do_hello(self, seq: int | None = None) -> Hello:
        """HELLO 1; returns the parsed reply, opens the session and numbers on above its hi."""
        f = self.ask(wire.HELLO, str(wire.PROTOCOL_VERSION), seq=seq, expect=(wire.HELLO,))
        try:
            self.hello = Hello.parse(f)
        except FrameError as e:
            raise CheckFailed(f"unreadable HELLO reply {_show(f)}: {e}") from None
        self.session = True
        self.seq = max(self.seq, self.hello.status.hi)
        return self.hello

    def status(self) -> Status:
        """STATUS, parsed; raises CheckFailed if it does not come or cannot be read."""
        f = self.ask(wire.STATUS, expect=(wire.STATUS,))
        try:
            return Status.parse(f.fields())
        except FrameError as e:
            raise CheckFailed(f"unreadable STATUS reply {_show(f)}: {e}") from None

    # ---- motions ----
    @property
    def tmax(self) -> float:
        return self.hello.tmax if self.hello else 10.0

    def start_motion(self, verb: str, *args: str, seq: int | None = None) -> tuple[int, Frame | None]:
        """Send a motion command; returns (seq, its immediate reply). If none comes within
        reply_timeout_s, STATUS tells whether it was accepted anyway: then the reply is None and a
        note says so (the missing ACK is [X2]'s to report); otherwise CheckFailed."""
        seq = self.send(verb, *args, seq=seq)
        rx = self.next_rx(seq, self.reply_timeout_s)
        if rx is not None:
            return seq, rx.frame
        st = self.status()
        if st.motion == seq and st.phase in ("ACK", "DONE"):
            self.note(f"no immediate reply to {seq} {verb}, but STATUS shows it accepted")
            return seq, None
        raise CheckFailed(f"no reply to {seq} {verb}, and STATUS shows it was not accepted ({st})")

    def start_shot(self, args: tuple[str, ...], seq: int | None = None) -> int:
        """Send a SHOT that must be accepted; returns its seq. CheckFailed if it is refused."""
        seq, f = self.start_motion(wire.SHOT, *args, seq=seq)
        if f is not None and f.verb == wire.DONE:   # no ACK ([X2]'s to report): keep DONE for final()
            self._by_seq[seq].appendleft(Rx(0, time.monotonic(), b"", f))
        elif f is not None and f.verb != wire.ACK:
            raise CheckFailed(f"a SHOT within the declared limits was not accepted: {_show(f)}")
        return seq

    def final(self, seq: int, timeout: float | None = None) -> Frame:
        """The next DONE or ERR for motion ``seq`` (skipping ACKs), waiting up to ``timeout``
        (default 2 x tmax + FINAL_SLACK_S). Raises CheckFailed if none comes."""
        timeout = 2 * self.tmax + FINAL_SLACK_S if timeout is None else timeout
        until = time.monotonic() + timeout
        while True:
            rx = self.next_rx(seq, max(0.0, until - time.monotonic()))
            if rx is None:
                raise CheckFailed(f"motion {seq} did not end (no DONE or ERR) within {timeout:.2f} s")
            if rx.frame.verb != wire.ACK:
                return rx.frame

    def run_motion(self, verb: str, *args: str) -> Frame:
        """A motion from start to end; returns its final reply (DONE or ERR)."""
        seq, f = self.start_motion(verb, *args)
        return f if f is not None and f.verb != wire.ACK else self.final(seq)

    def wait_state(self, accept, timeout: float) -> Status | None:
        """Poll STATUS until ``accept(status)`` holds; returns that status, or None after
        ``timeout`` [s]."""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            st = self.status()
            if accept(st):
                return st
            time.sleep(STATUS_POLL_S)
        return None

    def settle(self) -> Status:
        """Wait until no motion is in progress; returns the STATUS. CheckFailed if it never ends."""
        st = self.wait_state(lambda s: s.phase != "ACK", 2 * self.tmax + FINAL_SLACK_S)
        if st is None:
            raise CheckFailed(f"the robot stayed busy for more than {2 * self.tmax + FINAL_SLACK_S:.1f} s")
        self.forget()
        return st

    def reset(self) -> Hello:
        """RESET; returns the robot's ``0 HELLO`` announcement (the session is gone). Raises
        CheckFailed if RESET is not acknowledged or no announcement comes within ROBOT_BOOT_S
        (plus one reply timeout)."""
        self.ask(wire.RESET, expect=(wire.ACK,))
        t = time.monotonic()
        self.session = False
        until = t + wire.ROBOT_BOOT_S + self.reply_timeout_s
        while True:
            rx = self.next_rx(0, max(0.0, until - time.monotonic()))
            if rx is None:
                raise CheckFailed(f"no 0 HELLO announcement within {wire.ROBOT_BOOT_S} s of RESET's ACK")
            if rx.frame.verb == wire.HELLO:
                break
        try:
            self.hello = Hello.parse(rx.frame)
        except FrameError as e:
            raise CheckFailed(f"unreadable announcement {_show(rx.frame)}: {e}") from None
        self.note(f"announcement {rx.t - t:.3f} s after RESET's ACK")
        return self.hello


def _show(f: Frame) -> str:
    return " ".join([str(f.seq), f.verb, *f.args])


def _show_sent(seq: int, verb: str, args) -> str:
    return " ".join([str(seq), verb, *args])
