"""The cue robot over a serial line: ``Actuator``.

The driver

- opens a device path or any pyserial URL and handshakes (HELLO: version, limits, workspace);
- refuses a shot outside the limits the robot declared, before anything is sent;
- waits for every reply with an explicit timeout and resends the *same* frame (same sequence
  number, so the robot never acts twice) on silence, a NAK or a garbled line;
- reopens the port when it disappears (reconnect_timeout_s), handshakes again and, if a shot was
  in flight, asks the robot's STATUS whether it was struck instead of sending it again;
- writes every frame, both directions, timestamped, to a FrameSink (a FrameLog).

Every failure is a specific subclass of ``ActuatorError`` (``controller.driver.errors``). For
``shot()`` the contract is: it returns only if the robot struck the shot; ``ShotOutcomeUnknown``
means it may or may not have been struck; every other exception means it was not struck.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, replace

import serial

from config.robot import DriverSettings
from controller import protocol as wire
from controller.driver.deadline import Deadline
from controller.driver.errors import (
    ActuatorError,
    FrameCorrupted,
    ProtocolMismatch,
    RobotDisconnected,
    RobotError,
    RobotEstopped,
    RobotTimeout,
    ShotNotExecuted,
    ShotOutcomeUnknown,
    ShotRejected,
)
from controller.driver.link import READ_POLL_S, FrameSink, Link, LinkFault, LinkLost
from controller.protocol import Frame, FrameError, Hello, ShotCommand, Status, encode_frame, err_code
from hil.recording import FrameLog
from planner.shot import SHOT_FIELDS, ShotParams

log = logging.getLogger(__name__)

REOPEN_POLL_S = 0.05   # pause between attempts to reopen a vanished port
LINK_TRIES = 3         # times a command is restarted after the link was lost or the robot reset
RECONCILE_TRIES = 3    # times a shot in flight is followed across link losses before giving up


class _RobotReset(Exception):
    """Internal: the robot announced itself (``0 HELLO``) after a reset."""


@dataclass(frozen=True)
class ShotReport:
    """A shot the robot struck. command: what was sent (wire resolution, SI units); t_sent, t_done:
    unix times [s] of the first send and of learning it was struck; recovered: the strike was
    learned from STATUS after a reset or reconnect rather than from DONE."""
    seq: int
    command: ShotCommand
    t_sent: float
    t_done: float
    recovered: bool


class Actuator:
    """The cue robot over a serial line. Use ``connect()`` (or ``with``), then ``shot()``.

    ``frame_log``: where every frame is recorded (the FrameSink given, else a FrameLog opened on
    ``settings.frame_log``, else None). Thread-safety: calls are serialised, except ``estop()``,
    which may be called from another thread at any time, also while ``shot()`` is waiting.
    ``recoveries``: (kind, seconds) from each first fault to the next successful exchange; kind
    is that fault's LinkFault (SILENCE, GARBLED for a NAK or an unreadable reply, LINK_LOST,
    ROBOT_RESET). ``reconnects``: times the port was reopened.
    """

    def __init__(self, settings: DriverSettings, frame_log: FrameSink | None = None):
        self.settings = settings
        owns_log = frame_log is None and settings.frame_log is not None
        self._owned_log = FrameLog(settings.frame_log) if owns_log else None
        self.frame_log = self._owned_log if owns_log else frame_log
        self._link: Link | None = None
        self._txn = threading.RLock()
        self._seq_lock = threading.Lock()
        self._seq = 0
        self._ready = False
        self._fault_since: tuple[LinkFault, float] | None = None
        self.hello: Hello | None = None
        self.last_shot_seq = 0
        self.recoveries: list[tuple[LinkFault, float]] = []
        self.reconnects = 0

    def __enter__(self) -> "Actuator":
        self.connect()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- public API ----
    def connect(self) -> Hello:
        """Open the port and handshake (and home, if auto_home and the robot is unhomed).
        Raises RobotDisconnected, RobotTimeout, FrameCorrupted, ProtocolMismatch."""
        with self._txn:
            self._ensure()
            return self.hello

    def close(self) -> None:
        """Close the port (and the frame log opened from settings.frame_log). Safe to call twice."""
        link, self._link = self._link, None
        self._ready = False
        if link is not None:
            link.close()
        if self._owned_log is not None:
            self._owned_log.close()

    def status(self) -> Status:
        with self._txn:
            return self._status()

    def home(self) -> None:
        """Home the robot (also clears an emergency stop). Blocks until DONE."""
        with self._txn:
            for _ in range(LINK_TRIES):
                self._ensure()
                try:
                    return self._home()
                except (LinkLost, _RobotReset) as e:
                    self._fault(_kind(e))
                except RobotError as e:
                    if e.code != wire.E_NO_SESSION:
                        raise
                    self._fault(_kind(e))
            raise RobotDisconnected(f"{self.settings.port}: link lost {LINK_TRIES} times while homing")

    def estop(self) -> None:
        """Emergency stop, from any thread. Raises RobotDisconnected if the port is closed (use the
        robot's hardware stop), RobotTimeout/FrameCorrupted if it was not acknowledged."""
        link = self._link
        if link is None or link.dead is not None:
            raise RobotDisconnected(f"{self.settings.port}: cannot send ESTOP, the port is not open")
        for _ in range(LINK_TRIES):
            seq = self._next_seq()
            with link.inbox(seq) as box:
                try:
                    self._exchange(link, box, encode_frame(seq, wire.ESTOP), (wire.ACK,))
                    return
                except _RobotReset:
                    continue
                except LinkLost as e:
                    raise RobotDisconnected(f"{self.settings.port}: link lost while sending ESTOP ({e})") from e
        raise RobotTimeout(f"{self.settings.port}: the robot kept resetting; ESTOP not acknowledged")

    def check_shot(self, params: ShotParams, cue_xy: tuple[float, float]) -> ShotCommand:
        """The command ``shot()`` would send: ``params`` less the robot's measured biases
        (``settings.biases``, robot.yaml ``biases``: the robot executes sent + bias on average,
        so sending params - bias makes it execute params; a value inside its declared range is
        kept inside it), phi turned by whole turns into the
        declared range, rounded to the wire's resolution. Raises ShotRejected if it is outside
        the limits or the workspace the robot declared in its HELLO, ActuatorError before the
        first handshake."""
        if self.hello is None:
            raise ActuatorError("no HELLO yet: connect() before checking shots against the robot's limits")
        lim = self.hello.limits
        params = self._corrected(params, lim)
        params = replace(params, phi=lim.phi.lo + (params.phi - lim.phi.lo) % 360.0)
        try:
            cmd = ShotCommand.from_params(params, cue_xy)
        except ValueError as e:
            raise ShotRejected(f"shot rejected before sending: {e}") from None
        why = lim.violations(cmd)
        if why:
            raise ShotRejected("shot rejected before sending: " + "; ".join(why)
                               + f" (from its HELLO, firmware {self.hello.firmware})")
        return cmd

    def _corrected(self, params: ShotParams, lim) -> ShotParams:
        """params - biases; a parameter inside its declared range stays inside it (at a limit the
        robot cannot do better, e.g. a level shot with a bias that lifts the cue)."""
        raw = params.as_array()
        out = raw - self.settings.biases.as_array()
        for j, name in enumerate(SHOT_FIELDS):
            r = getattr(lim, name)
            if name != "phi" and r.lo <= raw[j] <= r.hi:
                out[j] = min(max(out[j], r.lo), r.hi)
        return ShotParams.from_array(out)

    def shot(self, params: ShotParams, cue_xy: tuple[float, float]) -> ShotReport:
        """Strike once: ``params`` (ShotParams units) at the cue ball centred at ``cue_xy`` [m].

        Returns when the robot reports the strike (DONE, or STATUS after a reset or reconnect).
        Raises ShotOutcomeUnknown if it may have been struck but the robot cannot tell us; every
        other exception means it was not struck: ShotRejected (limits), RobotEstopped,
        RobotError (other ERR), ShotNotExecuted (link failed, robot confirms no strike),
        RobotDisconnected / RobotTimeout / FrameCorrupted (raised before the shot was sent).
        """
        with self._txn:
            self._ensure()
            cmd = self.check_shot(params, cue_xy)
            seq = self._next_seq()
            self.last_shot_seq = seq
            frame = encode_frame(seq, wire.SHOT, cmd.args())
            t_sent = time.time()
            return self._follow_shot(seq, cmd, frame, t_sent)

    def was_struck(self, seq: int) -> bool:
        """Whether the robot struck shot ``seq`` (the latest shot sent), from its STATUS."""
        return self.status().struck == seq

    # ---- shots ----
    def _follow_shot(self, seq: int, cmd: ShotCommand, frame: bytes, t_sent: float) -> ShotReport:
        recovered = False
        known_struck = False
        for _ in range(RECONCILE_TRIES):
            link = self._link
            try:
                with link.inbox(seq) as box:
                    self._motion(link, box, frame)
                return ShotReport(seq, cmd, t_sent, time.time(), recovered)
            except RobotError as e:
                if e.code not in (wire.E_NO_SESSION, wire.E_STALE_SEQ):
                    raise
                cause: Exception = e
            except (LinkLost, _RobotReset, RobotTimeout, FrameCorrupted) as e:
                cause = e
            self._fault(_kind(cause))
            recovered = True
            # Handshake again: the robot may have reset unnoticed, and HELLO raises its hi above
            # seq, so a copy of this SHOT still on the line can never start a motion afterwards.
            self._ready = False
            try:
                self._ensure()
                st = self._status()
            except ActuatorError as e:
                if known_struck:
                    return ShotReport(seq, cmd, t_sent, time.time(), True)
                raise ShotOutcomeUnknown(seq, f"shot {seq}: link failed ({_describe(cause)}) and the robot's "
                                              f"STATUS could not be read ({_describe(e)})") from e
            known_struck = known_struck or st.struck == seq
            if st.motion == seq and st.phase == "ACK":
                continue  # the robot is still on it (the link dropped, the robot did not reset)
            if st.struck == seq:
                return ShotReport(seq, cmd, t_sent, time.time(), True)
            if st.motion == seq and st.phase == "ABORTED":
                raise RobotEstopped(f"shot {seq} aborted by an emergency stop before the strike", wire.E_ESTOPPED)
            if st.struck > seq:
                raise ShotOutcomeUnknown(seq, f"shot {seq}: the robot reports a later strike ({st}); "
                                              "another host is driving it")
            raise ShotNotExecuted(seq, f"shot {seq} not struck: link failed ({_describe(cause)}); the robot "
                                       f"reports its last strike was {st.struck}") from cause
        if known_struck:
            return ShotReport(seq, cmd, t_sent, time.time(), True)
        raise ShotOutcomeUnknown(seq, f"shot {seq}: robot still busy with it after {RECONCILE_TRIES} link failures")

    def _motion(self, link: Link, box: queue.Queue, frame: bytes) -> Frame:
        """Send a motion command (HOME, SHOT) and wait for its DONE, polling with the same frame."""
        reply = self._exchange(link, box, frame, (wire.ACK, wire.DONE))
        if reply.verb == wire.DONE:
            return reply
        s = self.settings
        wait = self.hello.tmax + s.done_margin_s
        give_up = Deadline(2 * wait + (s.retries + 1) * s.reply_timeout_s)
        deadline = Deadline(wait)
        while True:
            item = self._next_item(box, deadline)
            if isinstance(item, Frame) and item.verb == wire.DONE:
                self._ok()
                return item
            if isinstance(item, Frame) and item.verb == wire.ERR:
                raise self._robot_error(item)
            if item is None or item is LinkFault.GARBLED or (isinstance(item, Frame) and item.verb == wire.NAK):
                self._fault(LinkFault.SILENCE if item is None else LinkFault.GARBLED)
                if give_up.expired():
                    raise RobotTimeout(f"no DONE within {2 * wait:.2f} s (robot's tmax {self.hello.tmax} s)")
                reply = self._exchange(link, box, frame, (wire.ACK, wire.DONE))  # poll: same seq, never a new strike
                if reply.verb == wire.DONE:
                    return reply
                deadline = Deadline(s.reply_timeout_s)

    # ---- commands ----
    def _status(self) -> Status:
        reply = self._command(wire.STATUS, (wire.STATUS,))
        try:
            return Status.parse(reply.fields())
        except FrameError as e:
            raise ProtocolMismatch(f"unreadable STATUS reply {reply}: {e}") from e

    def _home(self) -> None:
        seq = self._next_seq()
        link = self._link
        with link.inbox(seq) as box:
            self._motion(link, box, encode_frame(seq, wire.HOME))

    def _command(self, verb: str, accept: tuple[str, ...]) -> Frame:
        for _ in range(LINK_TRIES):
            self._ensure()
            seq = self._next_seq()
            link = self._link
            with link.inbox(seq) as box:
                try:
                    return self._exchange(link, box, encode_frame(seq, verb), accept)
                except (LinkLost, _RobotReset) as e:
                    self._fault(_kind(e))
        raise RobotDisconnected(f"{self.settings.port}: link lost {LINK_TRIES} times during {verb}")

    def _exchange(self, link: Link, box: queue.Queue, frame: bytes, accept: tuple[str, ...]) -> Frame:
        """Send ``frame`` until a reply with a verb in ``accept`` arrives for its seq; resend the
        same bytes on silence, NAK or a garbled line (up to ``retries`` times).

        Raises RobotTimeout / FrameCorrupted when the tries run out, a RobotError for an ERR reply,
        LinkLost, _RobotReset."""
        s = self.settings
        corrupted = 0
        for _ in range(s.retries + 1):
            try:
                link.send(frame)
            except serial.SerialTimeoutException:
                self._fault(LinkFault.SILENCE)
                continue
            deadline = Deadline(s.reply_timeout_s)
            while True:
                item = self._next_item(box, deadline)
                if item is None:
                    self._fault(LinkFault.SILENCE)
                    break
                if item is LinkFault.GARBLED or item.verb == wire.NAK:
                    self._fault(LinkFault.GARBLED)
                    corrupted += 1
                    break
                if item.verb == wire.ERR:
                    raise self._robot_error(item)
                if item.verb in accept:
                    self._ok()
                    return item
        what = frame.split(b"*")[0].decode()
        if corrupted > s.retries // 2:
            raise FrameCorrupted(f"'{what}': {corrupted} of {s.retries + 1} tries NAKed or garbled")
        raise RobotTimeout(f"'{what}': no reply after {s.retries + 1} tries of {s.reply_timeout_s} s")

    @staticmethod
    def _next_item(box: queue.Queue, deadline: Deadline) -> Frame | LinkFault | None:
        """Next frame or LinkFault.GARBLED from ``box`` before ``deadline``; None on timeout.
        Raises LinkLost, _RobotReset when the link reports them."""
        try:
            item = box.get(timeout=deadline.remaining())
        except queue.Empty:
            return None
        if item is LinkFault.LINK_LOST:
            raise LinkLost("port lost")
        if item is LinkFault.ROBOT_RESET:
            raise _RobotReset("robot reset")
        return item

    def _robot_error(self, f: Frame) -> RobotError:
        code = err_code(f)
        if code == wire.E_NO_SESSION:
            self._ready = False  # the robot reset and lost our session: handshake again
        text = f"robot refused frame {f.seq}: ERR {' '.join(f.args)}"
        if code == wire.E_OUT_OF_RANGE:
            return ShotRejected(text, code)
        if code == wire.E_ESTOPPED:
            return RobotEstopped(text, code)
        return RobotError(text if code in wire.ERR_NAMES else f"robot refused frame {f.seq}: {f}", code)

    # ---- connection ----
    def _ensure(self) -> None:
        """Make sure the port is open and the handshake done (reopening and re-handshaking after a
        lost port or a robot reset)."""
        deadline = Deadline(self.settings.reconnect_timeout_s)
        while True:
            try:
                if self._link is None or self._link.dead is not None:
                    self._reopen(deadline)
                if not self._ready or self._link.reset_seen:
                    self._handshake()
                return
            except (LinkLost, _RobotReset) as e:
                self._fault(_kind(e))
                if deadline.expired():
                    raise RobotDisconnected(f"{self.settings.port}: link kept failing for "
                                            f"{self.settings.reconnect_timeout_s} s") from None

    def _reopen(self, deadline: Deadline) -> None:
        s = self.settings
        if self._link is not None:
            self._fault(LinkFault.LINK_LOST)
            self._link.close()
            self._link = None
            self.reconnects += 1
        self._ready = False
        while True:
            try:
                ser = serial.serial_for_url(s.port, baudrate=s.baudrate, timeout=READ_POLL_S,
                                            write_timeout=s.reply_timeout_s)
                break
            except (serial.SerialException, OSError, ValueError) as e:
                if deadline.expired():
                    raise RobotDisconnected(f"{s.port}: cannot open the port for {s.reconnect_timeout_s} s "
                                            f"({e})") from e
                time.sleep(REOPEN_POLL_S)
        if self.frame_log:
            self.frame_log.event(f"open {s.port}")
        log.info("opened %s", s.port)
        self._link = Link(ser, self.frame_log)
        self._link.send(b"\n")  # ends any partial line left in the robot's receive buffer

    def _handshake(self) -> None:
        link = self._link
        link.reset_seen = False
        seq = self._next_seq()
        with link.inbox(seq) as box:
            reply = self._exchange(link, box, encode_frame(seq, wire.HELLO, (str(wire.PROTOCOL_VERSION),)), (wire.HELLO,))
        try:
            hello = Hello.parse(reply)
        except FrameError as e:
            raise ProtocolMismatch(f"unreadable HELLO from the robot: {e}") from e
        if hello.version != wire.PROTOCOL_VERSION:
            raise ProtocolMismatch(f"robot speaks protocol {hello.version}, driver {wire.PROTOCOL_VERSION}")
        with self._seq_lock:
            self._seq = max(self._seq, hello.status.hi)
        self.hello = hello
        log.info("handshake: firmware %s, %s", hello.firmware, hello.status)
        if self.settings.auto_home and hello.status.state == "UNHOMED":
            self._home()
        self._ready = True

    # ---- bookkeeping ----
    def _next_seq(self) -> int:
        with self._seq_lock:
            self._seq += 1
            return self._seq

    def _fault(self, kind: LinkFault) -> None:
        if self._fault_since is None:
            self._fault_since = (kind, time.monotonic())

    def _ok(self) -> None:
        since, self._fault_since = self._fault_since, None
        if since is not None:
            self.recoveries.append((since[0], time.monotonic() - since[1]))


def _kind(e: BaseException) -> LinkFault:
    """The recovery kind of a failure."""
    if isinstance(e, LinkLost):
        return LinkFault.LINK_LOST
    if isinstance(e, (_RobotReset, RobotError)):
        return LinkFault.ROBOT_RESET
    return LinkFault.GARBLED if isinstance(e, FrameCorrupted) else LinkFault.SILENCE


def _describe(e: BaseException) -> str:
    return f"{type(e).__name__.lstrip('_')}: {e}"
