"""Serial driver for the cue robot: a shot is sent exactly once, exactly as planned, or not at all.

The protocol is docs/protocol.md (``controller.protocol``). The driver

- opens a device path or any pyserial URL and handshakes (HELLO: version, limits, workspace);
- refuses a shot outside the limits the robot declared, before anything is sent;
- waits for every reply with an explicit timeout and resends the *same* frame (same sequence
  number, so the robot never acts twice) on silence, a NAK or a garbled line;
- reopens the port when it disappears (reconnect_timeout_s), handshakes again and, if a shot was
  in flight, asks the robot's STATUS whether it was struck instead of sending it again;
- writes every frame, both directions, timestamped, to a FrameLog.

Every failure is a specific subclass of ``ActuatorError``. For ``shot()`` the contract is: it
returns only if the robot struck the shot; ``ShotOutcomeUnknown`` means it may or may not have
been struck; every other exception means it was not struck.
"""
from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import serial

from controller.protocol import (
    ACK, DONE, E_ESTOPPED, E_NO_SESSION, E_OUT_OF_RANGE, E_STALE_SEQ, ERR, ERR_NAMES, ESTOP, HELLO,
    HOME, NAK, PROTOCOL_VERSION, SHOT, STATUS, Frame, FrameError, Hello, LineSplitter,
    ShotCommand, Status, decode_frame, encode_frame, err_code,
)
from planner.config import ConfigError, Section, default_path, load_yaml
from planner.shot import ShotParams

log = logging.getLogger(__name__)

READ_POLL_S = 0.05     # reader thread's read timeout: how quickly it notices close()
REOPEN_POLL_S = 0.05   # pause between attempts to reopen a vanished port
LINK_TRIES = 3         # times a command is restarted after the link was lost or the robot reset
RECONCILE_TRIES = 3    # times a shot in flight is followed across link losses before giving up
SILENCE, GARBLED, LINK_LOST, ROBOT_RESET = "silence", "garbled", "link lost", "robot reset"  # fault kinds


# ---- exceptions ---------------------------------------------------------------------------

class ActuatorError(Exception):
    """Base of every driver failure."""


class RobotTimeout(ActuatorError):
    """The robot did not answer a frame within reply_timeout_s, on every try."""


class FrameCorrupted(ActuatorError):
    """No valid reply to a frame on any try, most tries ending in a NAK or a garbled reply."""


class RobotDisconnected(ActuatorError):
    """The port is gone and did not come back within reconnect_timeout_s."""


class ProtocolMismatch(ActuatorError):
    """The robot's HELLO is unusable: another protocol version or a malformed field."""


class RobotError(ActuatorError):
    """The robot read the frame and refused it with ``ERR <code>``; nothing moved.

    ``code`` is the protocol's ERR code (None when the driver refused before sending).
    """

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.code = code


class ShotRejected(RobotError):
    """The shot is outside the robot's limits or workspace (refused by the driver before sending,
    code None, or by the robot, code E_OUT_OF_RANGE)."""


class RobotEstopped(RobotError):
    """The robot is emergency-stopped (or the motion was aborted by ESTOP); HOME clears it."""


class ShotNotExecuted(ActuatorError):
    """The link failed while the shot was in flight, and the robot's STATUS shows it was not
    struck. Sending the shot again (it gets a new sequence number) is safe."""

    def __init__(self, seq: int, message: str):
        super().__init__(message)
        self.seq = seq


class ShotOutcomeUnknown(ActuatorError):
    """The link failed while the shot was in flight and the robot could not be asked whether it
    was struck. Do not resend: look at the table, or call ``was_struck(seq)`` once the line is back."""

    def __init__(self, seq: int, message: str):
        super().__init__(message)
        self.seq = seq


class _LinkLost(Exception):
    """Internal: the port failed under us."""


class _RobotReset(Exception):
    """Internal: the robot announced itself (``0 HELLO``) after a reset."""


# ---- settings -----------------------------------------------------------------------------

@dataclass(frozen=True)
class DriverSettings:
    """port: device path (e.g. /dev/serial/by-id/...) or pyserial URL. Times in seconds.

    retries: resends of a frame after its first send. done_margin_s: added to the robot's declared
    tmax when waiting for DONE. auto_home: home after a handshake that finds the robot unhomed
    (never when it is emergency-stopped). frame_log: JSON-lines file of every frame, or None.
    """
    port: str
    baudrate: int = 115200
    reply_timeout_s: float = 0.25
    retries: int = 4
    reconnect_timeout_s: float = 5.0
    done_margin_s: float = 0.5
    auto_home: bool = True
    frame_log: str | None = None


def parse_driver_settings(sec: Section, base: DriverSettings | None = None) -> DriverSettings:
    """Read a ``driver`` section; keys missing from it take ``base``'s values (all required if
    base is None, except those with a default in DriverSettings). Raises ConfigError."""
    d = base or DriverSettings(port="")
    port = sec.string("port", "a device path or pyserial URL", default=base.port if base else None)
    log_path = d.frame_log
    if sec.has("frame_log"):
        log_path = sec.raw("frame_log", "a file path or null")
        if log_path is not None and not isinstance(log_path, str):
            raise sec.fail("frame_log", "a file path or null", log_path)
    return DriverSettings(
        port=port,
        baudrate=sec.integer("baudrate", "a positive integer (baud)", lo=1, default=d.baudrate),
        reply_timeout_s=sec.number("reply_timeout_s", "a positive number of seconds", positive=True,
                                   default=d.reply_timeout_s),
        retries=sec.integer("retries", "an integer >= 0", lo=0, default=d.retries),
        reconnect_timeout_s=sec.number("reconnect_timeout_s", "a positive number of seconds",
                                       positive=True, default=d.reconnect_timeout_s),
        done_margin_s=sec.number("done_margin_s", "a number of seconds >= 0", nonneg=True,
                                 default=d.done_margin_s),
        auto_home=sec.boolean("auto_home", default=d.auto_home),
        frame_log=log_path,
    )


def load_driver_settings(path: str | Path | None = None) -> DriverSettings:
    """The ``driver`` section of config/robot.yaml (or ``path``). Raises ConfigError."""
    root = load_yaml(path or default_path("robot.yaml"))
    settings = parse_driver_settings(root.section("driver"))
    if not settings.port:
        raise ConfigError(f"{root.path}: driver.port must be a device path or pyserial URL, got ''")
    return settings


# ---- frame log ----------------------------------------------------------------------------

class FrameLog:
    """Append-only JSON-lines log of every frame, one line per frame, flushed as written, so a
    crash loses at most the frame being written.

    Each line: ``{"t": unix time [s], "dir": "tx"|"rx"|"ev", "frame": text}`` plus ``"error"``
    for a received line that is not a valid frame, and ``"event"`` instead of ``"frame"`` for
    link events (open, lost). Safe to use from several threads; ``close()`` may be called twice.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._f = open(self.path, "a", buffering=1, encoding="ascii")

    def frame(self, direction: str, line: bytes, error: str | None = None) -> None:
        rec = {"t": round(time.time(), 6), "dir": direction,
               "frame": line.rstrip(b"\n").decode("ascii", "backslashreplace")}
        if error:
            rec["error"] = error
        self._write(rec)

    def event(self, text: str) -> None:
        self._write({"t": round(time.time(), 6), "dir": "ev", "event": text})

    def _write(self, rec: dict) -> None:
        with self._lock:
            if not self._f.closed:
                self._f.write(json.dumps(rec) + "\n")
                self._f.flush()

    def close(self) -> None:
        with self._lock:
            self._f.close()


def read_frame_log(path: str | Path) -> list[dict]:
    """All complete records of a FrameLog (a torn last line, from a crash, is skipped)."""
    out = []
    for line in Path(path).read_text(encoding="ascii").splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            out.append(json.loads(line))
    return out


# ---- the link: one open port and its reader thread -----------------------------------------

_GARBLED, _RESET, _LOST = "garbled", "reset", "lost"


class _Link:
    """One open port. ``send`` writes a frame; a reader thread decodes replies and routes each to
    the inbox of its sequence number. Seq-0 frames (NAK, the robot's reset announcement), garbled
    lines and the loss of the port are broadcast to every open inbox as well."""

    def __init__(self, ser: serial.SerialBase, frame_log: FrameLog | None):
        self._ser = ser
        self._log = frame_log
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._inboxes: dict[int, queue.Queue] = {}
        self.dead: BaseException | None = None
        self.reset_seen = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read_loop, name="actuator-reader", daemon=True)
        self._thread.start()

    @contextlib.contextmanager
    def inbox(self, seq: int):
        q: queue.Queue = queue.Queue()
        with self._lock:
            self._inboxes[seq] = q
            if self.dead is not None:
                q.put(_LOST)
        try:
            yield q
        finally:
            with self._lock:
                self._inboxes.pop(seq, None)

    def send(self, data: bytes) -> None:
        if self.dead is not None:
            raise _LinkLost(str(self.dead))
        try:
            with self._write_lock:
                if self._log and data.strip():
                    self._log.frame("tx", data)  # before writing, so a reply is never logged first
                self._ser.write(data)
        except serial.SerialTimeoutException:
            raise  # the robot is not reading: the caller treats it like silence
        except (serial.SerialException, OSError) as e:
            self._die(e)
            raise _LinkLost(str(e)) from e

    def _read_loop(self) -> None:
        splitter = LineSplitter()
        while not self._stop.is_set():
            try:
                data = self._ser.read(max(1, self._ser.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                if not self._stop.is_set():
                    self._die(e)
                return
            for line in splitter.feed(data):
                self._route(line)

    def _route(self, line: bytes) -> None:
        if not line.strip(b"\r"):
            return
        try:
            f = decode_frame(line)
        except FrameError as e:
            if self._log:
                self._log.frame("rx", line, error=str(e))
            self._broadcast(_GARBLED)
            return
        if self._log:
            self._log.frame("rx", line)
        if f.seq == 0:
            if f.verb == HELLO:
                self.reset_seen = True
                self._broadcast(_RESET)
            elif f.verb == NAK:
                self._broadcast(f)
            return
        with self._lock:
            q = self._inboxes.get(f.seq)
        if q is not None:
            q.put(f)

    def _broadcast(self, item) -> None:
        with self._lock:
            for q in self._inboxes.values():
                q.put(item)

    def _die(self, e: BaseException) -> None:
        if self.dead is None:
            self.dead = e
            if self._log:
                self._log.event(f"link lost: {e}")
        self._broadcast(_LOST)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
        with contextlib.suppress(Exception):
            self._ser.close()


# ---- the driver ---------------------------------------------------------------------------

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

    ``frame_log``: where every frame is logged (the one given, else one opened on
    ``settings.frame_log``, else None). Thread-safety: calls are serialised, except ``estop()``,
    which may be called from another thread at any time, also while ``shot()`` is waiting.
    ``recoveries``: (kind, seconds) from each first fault to the next successful exchange; kind
    is that fault's: "silence", "garbled" (NAK or unreadable reply), "link lost", "robot reset".
    ``reconnects``: times the port was reopened.
    """

    def __init__(self, settings: DriverSettings, frame_log: FrameLog | None = None):
        self.settings = settings
        self._owns_log = frame_log is None and settings.frame_log is not None
        self.frame_log = FrameLog(settings.frame_log) if self._owns_log else frame_log
        self._link: _Link | None = None
        self._txn = threading.RLock()
        self._seq_lock = threading.Lock()
        self._seq = 0
        self._ready = False
        self._fault_since: tuple[str, float] | None = None
        self.hello: Hello | None = None
        self.last_shot_seq = 0
        self.recoveries: list[tuple[str, float]] = []
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
        if self._owns_log:
            self.frame_log.close()

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
                except (_LinkLost, _RobotReset) as e:
                    self._fault(_kind(e))
                except RobotError as e:
                    if e.code != E_NO_SESSION:
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
                    self._exchange(link, box, encode_frame(seq, ESTOP), (ACK,))
                    return
                except _RobotReset:
                    continue
                except _LinkLost as e:
                    raise RobotDisconnected(f"{self.settings.port}: link lost while sending ESTOP ({e})") from e
        raise RobotTimeout(f"{self.settings.port}: the robot kept resetting; ESTOP not acknowledged")

    def check_shot(self, params: ShotParams, cue_xy: tuple[float, float]) -> ShotCommand:
        """The command ``shot()`` would send: phi turned by whole turns into the declared range,
        rounded to the wire's resolution. Raises ShotRejected if it is outside the limits or the
        workspace the robot declared in its HELLO, ActuatorError before the first handshake."""
        if self.hello is None:
            raise ActuatorError("no HELLO yet: connect() before checking shots against the robot's limits")
        lim = self.hello.limits
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
            frame = encode_frame(seq, SHOT, cmd.args())
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
                if e.code not in (E_NO_SESSION, E_STALE_SEQ):
                    raise
                cause: Exception = e
            except (_LinkLost, _RobotReset, RobotTimeout, FrameCorrupted) as e:
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
                raise RobotEstopped(f"shot {seq} aborted by an emergency stop before the strike", E_ESTOPPED)
            if st.struck > seq:
                raise ShotOutcomeUnknown(seq, f"shot {seq}: the robot reports a later strike ({st}); "
                                              "another host is driving it")
            raise ShotNotExecuted(seq, f"shot {seq} not struck: link failed ({_describe(cause)}); the robot "
                                       f"reports its last strike was {st.struck}") from cause
        if known_struck:
            return ShotReport(seq, cmd, t_sent, time.time(), True)
        raise ShotOutcomeUnknown(seq, f"shot {seq}: robot still busy with it after {RECONCILE_TRIES} link failures")

    def _motion(self, link: _Link, box: queue.Queue, frame: bytes) -> Frame:
        """Send a motion command (HOME, SHOT) and wait for its DONE, polling with the same frame."""
        reply = self._exchange(link, box, frame, (ACK, DONE))
        if reply.verb == DONE:
            return reply
        s = self.settings
        wait = self.hello.tmax + s.done_margin_s
        give_up = time.monotonic() + 2 * wait + (s.retries + 1) * s.reply_timeout_s
        deadline = time.monotonic() + wait
        while True:
            item = self._next_item(box, deadline)
            if isinstance(item, Frame) and item.verb == DONE:
                self._ok()
                return item
            if isinstance(item, Frame) and item.verb == ERR:
                raise self._robot_error(item)
            if item is None or item == _GARBLED or (isinstance(item, Frame) and item.verb == NAK):
                self._fault(SILENCE if item is None else GARBLED)
                if time.monotonic() > give_up:
                    raise RobotTimeout(f"no DONE within {2 * wait:.2f} s (robot's tmax {self.hello.tmax} s)")
                reply = self._exchange(link, box, frame, (ACK, DONE))  # poll: same seq, never a new strike
                if reply.verb == DONE:
                    return reply
                deadline = time.monotonic() + s.reply_timeout_s

    # ---- commands ----
    def _status(self) -> Status:
        reply = self._command(STATUS, (STATUS,))
        try:
            return Status.parse(reply.fields())
        except FrameError as e:
            raise ProtocolMismatch(f"unreadable STATUS reply {reply}: {e}") from e

    def _home(self) -> None:
        seq = self._next_seq()
        link = self._link
        with link.inbox(seq) as box:
            self._motion(link, box, encode_frame(seq, HOME))

    def _command(self, verb: str, accept: tuple[str, ...]) -> Frame:
        for _ in range(LINK_TRIES):
            self._ensure()
            seq = self._next_seq()
            link = self._link
            with link.inbox(seq) as box:
                try:
                    return self._exchange(link, box, encode_frame(seq, verb), accept)
                except (_LinkLost, _RobotReset) as e:
                    self._fault(_kind(e))
        raise RobotDisconnected(f"{self.settings.port}: link lost {LINK_TRIES} times during {verb}")

    def _exchange(self, link: _Link, box: queue.Queue, frame: bytes, accept: tuple[str, ...]) -> Frame:
        """Send ``frame`` until a reply with a verb in ``accept`` arrives for its seq; resend the
        same bytes on silence, NAK or a garbled line (up to ``retries`` times).

        Raises RobotTimeout / FrameCorrupted when the tries run out, a RobotError for an ERR reply,
        _LinkLost, _RobotReset."""
        s = self.settings
        corrupted = 0
        for _ in range(s.retries + 1):
            try:
                link.send(frame)
            except serial.SerialTimeoutException:
                self._fault(SILENCE)
                continue
            deadline = time.monotonic() + s.reply_timeout_s
            while True:
                item = self._next_item(box, deadline)
                if item is None:
                    self._fault(SILENCE)
                    break
                if item == _GARBLED or item.verb == NAK:
                    self._fault(GARBLED)
                    corrupted += 1
                    break
                if item.verb == ERR:
                    raise self._robot_error(item)
                if item.verb in accept:
                    self._ok()
                    return item
        what = frame.split(b"*")[0].decode()
        if corrupted > s.retries // 2:
            raise FrameCorrupted(f"'{what}': {corrupted} of {s.retries + 1} tries NAKed or garbled")
        raise RobotTimeout(f"'{what}': no reply after {s.retries + 1} tries of {s.reply_timeout_s} s")

    @staticmethod
    def _next_item(box: queue.Queue, deadline: float):
        """Next frame or _GARBLED from ``box`` before ``deadline``; None on timeout."""
        try:
            item = box.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if item == _LOST:
            raise _LinkLost("port lost")
        if item == _RESET:
            raise _RobotReset("robot reset")
        return item

    def _robot_error(self, f: Frame) -> RobotError:
        code = err_code(f)
        if code == E_NO_SESSION:
            self._ready = False  # the robot reset and lost our session: handshake again
        text = f"robot refused frame {f.seq}: ERR {' '.join(f.args)}"
        if code == E_OUT_OF_RANGE:
            return ShotRejected(text, code)
        if code == E_ESTOPPED:
            return RobotEstopped(text, code)
        return RobotError(text if code in ERR_NAMES else f"robot refused frame {f.seq}: {f}", code)

    # ---- connection ----
    def _ensure(self) -> None:
        """Make sure the port is open and the handshake done (reopening and re-handshaking after a
        lost port or a robot reset)."""
        deadline = time.monotonic() + self.settings.reconnect_timeout_s
        while True:
            try:
                if self._link is None or self._link.dead is not None:
                    self._reopen(deadline)
                if not self._ready or self._link.reset_seen:
                    self._handshake()
                return
            except (_LinkLost, _RobotReset) as e:
                self._fault(_kind(e))
                if time.monotonic() > deadline:
                    raise RobotDisconnected(f"{self.settings.port}: link kept failing for "
                                            f"{self.settings.reconnect_timeout_s} s") from None

    def _reopen(self, deadline: float) -> None:
        s = self.settings
        if self._link is not None:
            self._fault(LINK_LOST)
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
                if time.monotonic() > deadline:
                    raise RobotDisconnected(f"{s.port}: cannot open the port for {s.reconnect_timeout_s} s "
                                            f"({e})") from e
                time.sleep(REOPEN_POLL_S)
        if self.frame_log:
            self.frame_log.event(f"open {s.port}")
        log.info("opened %s", s.port)
        self._link = _Link(ser, self.frame_log)
        self._link.send(b"\n")  # ends any partial line left in the robot's receive buffer

    def _handshake(self) -> None:
        link = self._link
        link.reset_seen = False
        seq = self._next_seq()
        with link.inbox(seq) as box:
            reply = self._exchange(link, box, encode_frame(seq, HELLO, (str(PROTOCOL_VERSION),)), (HELLO,))
        try:
            hello = Hello.parse(reply)
        except FrameError as e:
            raise ProtocolMismatch(f"unreadable HELLO from the robot: {e}") from e
        if hello.version != PROTOCOL_VERSION:
            raise ProtocolMismatch(f"robot speaks protocol {hello.version}, driver {PROTOCOL_VERSION}")
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

    @property
    def recovery_times(self) -> list[float]:
        return [t for _, t in self.recoveries]

    def _fault(self, kind: str) -> None:
        if self._fault_since is None:
            self._fault_since = (kind, time.monotonic())

    def _ok(self) -> None:
        since, self._fault_since = self._fault_since, None
        if since is not None:
            self.recoveries.append((since[0], time.monotonic() - since[1]))


def _kind(e: BaseException) -> str:
    """The recovery kind of a failure."""
    if isinstance(e, _LinkLost):
        return LINK_LOST
    if isinstance(e, (_RobotReset, RobotError)):
        return ROBOT_RESET
    return GARBLED if isinstance(e, FrameCorrupted) else SILENCE


def _describe(e: BaseException) -> str:
    return f"{type(e).__name__.lstrip('_')}: {e}"
