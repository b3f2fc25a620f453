"""The simulated robot's firmware: the protocol of docs/protocol.md as a microcontroller runs it.

A state machine with no I/O and no clock of its own: ``feed`` takes received bytes, ``tick``
advances the motions, both at a time ``now`` [s, monotonic] given by the caller, and both return
the frames to transmit. ``reset`` models a reboot: RAM is lost, ``Nvm`` survives.

Exactly-once (docs/protocol.md, [E1]-[E4]): a frame repeating the last accepted motion command
is answered with that motion's phase (ACK, DONE, or ERR ESTOPPED) and never moves anything again;
any other motion command needs a sequence number above ``hi``, and uses it up whether it is then
accepted or refused. The seq of a shot is written to non-volatile memory just before it is struck,
so after a reset STATUS still tells whether it was.

Each rule of the spec is one small method, so that ``controller.sim.quirks`` can break exactly one
of them (``cuerobot sim-robot --quirk NAME``) to prove that the conformance suite notices.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from config.sim import Timing, TrueError
from controller.protocol import (
    ACK,
    DONE,
    E_BAD_ARGUMENTS,
    E_BUSY,
    E_ESTOPPED,
    E_NO_SESSION,
    E_NOT_HOMED,
    E_OUT_OF_RANGE,
    E_SEQ_REUSED,
    E_STALE_SEQ,
    E_UNKNOWN_COMMAND,
    E_VERSION,
    ERR,
    ESTOP,
    HELLO,
    HOME,
    NAK,
    NAK_MALFORMED,
    PROTOCOL_VERSION,
    RESET,
    SHOT,
    STATUS,
    Frame,
    FrameError,
    Hello,
    LineSplitter,
    RobotLimits,
    ShotCommand,
    Status,
    decode_frame,
    encode_frame,
    err_args,
    nak_args,
)
from controller.sim.world import Strike, World


@dataclass
class Nvm:
    """Non-volatile memory: survives reset. struck: seq of the last SHOT struck (written before
    the strike); estop: the emergency-stop latch (cleared only by HOME)."""
    struck: int = 0
    estop: bool = False


@dataclass
class Motion:
    """The last accepted motion command. phase: ACK (in progress), DONE, ABORTED (by ESTOP).
    Times [s]: accepted, strike (inf for HOME), done."""
    seq: int
    verb: str
    args: tuple[str, ...]
    command: ShotCommand | None
    phase: str
    t_accept: float
    t_strike: float
    t_done: float
    struck: bool = False


class Firmware:
    """The robot's protocol state machine. ``on_accept(motion)`` is called when a SHOT is accepted
    (the simulator schedules faults with it).

    Raises ValueError at construction if ``firmware_id``, ``limits`` or the timing's tmax cannot
    be declared in a HELLO (Hello.args)."""

    def __init__(self, firmware_id: str, limits: RobotLimits, timing: Timing, error: TrueError,
                 world: World, rng: np.random.Generator, now: float,
                 on_accept: Callable[[Motion], None] | None = None):
        self.firmware_id = firmware_id
        self.limits = limits
        self.timing = timing
        self.error = error
        self.world = world
        self._rng = rng
        self.on_accept = on_accept
        self.nvm = Nvm()
        self._uart = LineSplitter()
        self.reset(now)
        self.hello().args()  # fail now, not at the first HELLO, on what a HELLO cannot carry

    # ---- power ----
    def reset(self, now: float) -> None:
        """Reboot: everything but the NVM is lost; the robot announces itself (``0 HELLO``) after
        boot_s and ignores input until then."""
        self._uart.clear()
        self.session = False
        self.homed = False
        self.hi = self.nvm.struck
        self.motion: Motion | None = None
        self._boot_until = now + self.timing.boot_s
        self._announce = True

    # ---- inputs ----
    def feed(self, data: bytes, now: float) -> list[bytes]:
        """Bytes from the port; returns the frames to send. A RESET reboots after its ACK: the
        rest of ``data`` is lost with the receive buffer."""
        out = []
        for line in self._uart.feed(data):
            out += self.on_line(line, now)
            if now < self._boot_until:   # a RESET rebooted the robot: what follows is lost
                break
        return out

    def on_line(self, line: bytes, now: float) -> list[bytes]:
        """One received line (without ``\\n``); returns the frames to send."""
        if now < self._boot_until or not line.strip(b"\r"):
            return []
        try:
            f = decode_frame(line)
        except FrameError as e:
            return self._nak(e.code)
        if f.seq == 0:
            return self._nak(NAK_MALFORMED)
        handler = {HELLO: self._on_hello, HOME: self._on_home, SHOT: self._on_shot,
                   STATUS: self._on_status, ESTOP: self._on_estop, RESET: self._on_reset}.get(f.verb)
        if handler is None:
            return [self._err(f.seq, E_UNKNOWN_COMMAND, f"unknown command {f.verb}")]
        return handler(f, now)

    def tick(self, now: float) -> list[bytes]:
        """Advance to ``now``; returns the frames to send (the boot announcement, DONE)."""
        out = []
        if self._announce and now >= self._boot_until:
            self._announce = False
            out.append(self._frame(0, HELLO, self.hello().args()))
        m = self.motion
        if m is not None and m.phase == ACK:
            if m.command is not None and not m.struck and now >= m.t_strike:
                self._strike(m)
            if now >= m.t_done:
                self._finish(m)
                if m.verb == HOME:
                    self.homed = True
                out.append(self._frame(m.seq, DONE))
        return out

    def next_deadline(self) -> float | None:
        """The next time ``tick`` has something to do, or None."""
        times = []
        if self._announce:
            times.append(self._boot_until)
        m = self.motion
        if m is not None and m.phase == ACK:
            times.append(m.t_done if m.struck or m.command is None else m.t_strike)
        return min(times) if times else None

    # ---- state ----
    @property
    def state(self) -> str:
        m = self.motion
        if self.nvm.estop:
            return "ESTOP"
        if m is not None and m.phase == ACK:
            return "HOMING" if m.verb == HOME else ("STRIKING" if m.struck else "MOVING")
        return "READY" if self.homed else "UNHOMED"

    def status(self) -> Status:
        m = self.motion
        return Status(state=self.state, homed=self.homed, motion=m.seq if m else 0,
                      phase=m.phase if m else "NONE", struck=self.nvm.struck, hi=self.hi)

    def hello(self) -> Hello:
        return Hello(PROTOCOL_VERSION, self.firmware_id, self.limits, self.declared_tmax(), self.status())

    def declared_tmax(self) -> float:
        """The tmax the HELLO declares [s]: the longest ACK-to-DONE time of any motion ([T1])."""
        return self.timing.tmax

    # ---- commands that never move ([X1], [X3], [S1], [X5]) ----
    def _on_hello(self, f: Frame, now: float) -> list[bytes]:
        if len(f.args) != 1 or not f.args[0].isdigit():
            return [self._err(f.seq, E_BAD_ARGUMENTS, "HELLO takes the host's protocol version")]
        if int(f.args[0]) != PROTOCOL_VERSION:
            return [self._err(f.seq, E_VERSION, f"robot speaks protocol {PROTOCOL_VERSION}")]
        self.session = True
        self.hi = max(self.hi, f.seq)
        return [self._frame(f.seq, HELLO, self.hello().args())]

    def _on_status(self, f: Frame, now: float) -> list[bytes]:
        if f.args:
            return [self._err(f.seq, E_BAD_ARGUMENTS, "STATUS takes no arguments")]
        return [self._frame(f.seq, STATUS, self.status().fields())]

    def _on_estop(self, f: Frame, now: float) -> list[bytes]:
        """Always honoured, whatever its arguments: stops any motion, latches ESTOP. A motion in
        progress ends with its own final reply after the ACK ([S2]): DONE if it had struck,
        ERR ESTOPPED if not."""
        out = [self._frame(f.seq, ACK)]
        m = self.motion
        if m is not None and m.phase == ACK:
            if m.struck:
                self._finish(m)
                out.append(self._frame(m.seq, DONE))
            else:
                m.phase = "ABORTED"
                out.append(self._err(m.seq, E_ESTOPPED, f"motion aborted by ESTOP {f.seq}"))
        self.nvm.estop = True
        self.homed = False
        return out

    def _on_reset(self, f: Frame, now: float) -> list[bytes]:
        """ACK, then reboot as at power-up ([R1]); ``feed`` drops the rest of the input."""
        out = [self._frame(f.seq, ACK)]
        self.reset(now)
        return out

    # ---- motion commands ([E1]-[E4], then the checks of [X2]) ----
    def _on_home(self, f: Frame, now: float) -> list[bytes]:
        refused = self._refuse_motion(f)
        if refused is not None:
            return refused
        if f.args:
            return [self._err(f.seq, E_BAD_ARGUMENTS, "HOME takes no arguments")]
        self.nvm.estop = False
        self.homed = False
        return self._accept(f, None, now, np.inf, now + self.timing.home_s)

    def _on_shot(self, f: Frame, now: float) -> list[bytes]:
        refused = self._refuse_motion(f)
        if refused is not None:
            return refused
        try:
            cmd = ShotCommand.from_args(f.args)
        except ValueError as e:
            return [self._err(f.seq, E_BAD_ARGUMENTS, str(e))]
        why = self.limits.violations(cmd)
        if why:
            return [self._err(f.seq, E_OUT_OF_RANGE, "; ".join(why))]
        if self.nvm.estop:
            return [self._err(f.seq, E_ESTOPPED, "emergency-stopped; HOME clears it")]
        if not self.homed:
            return [self._err(f.seq, E_NOT_HOMED, "HOME first")]
        t = self.timing
        t_strike = now + t.move_s + t.move_jitter_s * self._rng.random()
        out = self._accept(f, cmd, now, t_strike, t_strike + t.strike_s)
        if self.on_accept:
            self.on_accept(self.motion)
        return out

    def _refuse_motion(self, f: Frame) -> list[bytes] | None:
        """Rules [E1]-[E4] of a motion command, in order: the reply if it must not start a motion
        (a repeat's phase, ERR NO_SESSION, STALE_SEQ, BUSY), or None if it may go on to the checks.
        From [E4] on, its seq is used up whatever the outcome."""
        repeat = self._repeat(f)
        if repeat is not None:
            return repeat
        if not self.session:
            return [self._err(f.seq, E_NO_SESSION, "send HELLO first")]
        if self._stale(f):
            return [self._err(f.seq, E_STALE_SEQ, f"seq {f.seq} is not above {self.hi}")]
        self._claim(f)
        m = self.motion
        if m is not None and m.phase == ACK:
            return [self._err(f.seq, E_BUSY, f"motion {m.seq} in progress")]
        return None

    def _repeat(self, f: Frame) -> list[bytes] | None:
        """[E1]: the answer to a repeat of the last accepted motion (its phase; ERR SEQ_REUSED if
        the arguments differ as text), or None if ``f`` is not one."""
        m = self.motion
        if m is None or f.seq != m.seq:
            return None
        if (f.verb, f.args) != (m.verb, m.args):
            return [self._err(f.seq, E_SEQ_REUSED, f"seq {f.seq} was {m.verb} with other arguments")]
        if m.phase == "ABORTED":
            return [self._err(m.seq, E_ESTOPPED, "motion aborted by ESTOP")]
        return [self._frame(m.seq, m.phase)]

    def _stale(self, f: Frame) -> bool:
        """[E3]: a motion command whose seq is not above hi."""
        return f.seq <= self.hi

    def _claim(self, f: Frame) -> None:
        """[E4], [H2]: a motion command that got this far uses up its seq, accepted or refused."""
        self.hi = f.seq

    def _accept(self, f: Frame, cmd: ShotCommand | None, now: float, t_strike: float,
                t_done: float) -> list[bytes]:
        """Start the motion; its immediate reply is ACK ([X2])."""
        self.motion = Motion(f.seq, f.verb, f.args, cmd, ACK, now, t_strike, t_done)
        return [self._frame(f.seq, ACK)]

    def _strike(self, m: Motion) -> None:
        """[R2]: the seq goes to NVM just before the strike, never after."""
        self.nvm.struck = m.seq  # write-ahead: a reset from here on reports the shot as struck
        self._hit(m)

    def _hit(self, m: Motion) -> None:
        m.struck = True
        executed = self.error.perturb(m.command.params, self._rng)
        self.world.strike(Strike(m.seq, m.command, executed, time.time()))

    def _finish(self, m: Motion) -> None:
        """The motion is complete (retracted, or stopped by ESTOP after its strike)."""
        m.phase = DONE

    # ---- replies ----
    def _frame(self, seq: int, verb: str, args: tuple[str, ...] = ()) -> bytes:
        """Every frame the robot sends goes through here ([F2])."""
        return encode_frame(seq, verb, args)

    def _nak(self, code: int) -> list[bytes]:
        """[N1]-[N3]: the reply to a line that is not a valid frame."""
        return [self._frame(0, NAK, nak_args(code))]

    def _err(self, seq: int, code: int, message: str) -> bytes:
        return self._frame(seq, ERR, err_args(code, message))
