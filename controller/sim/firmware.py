"""The simulated robot's firmware: the protocol of docs/protocol.md as a microcontroller runs it.

A state machine with no I/O and no clock of its own: ``feed`` takes received bytes, ``tick``
advances the motions, both at a time ``now`` [s, monotonic] given by the caller, and both return
the frames to transmit. ``reset`` models a reboot: RAM is lost, ``Nvm`` survives.

Exactly-once: a SHOT is accepted only with a sequence number above every one accepted before
(``hi``); a frame repeating the last motion command's seq is answered with that motion's phase
(ACK, DONE, or ERR ESTOPPED) and never moves anything again. The seq of a shot is written to
non-volatile memory just before it is struck, so after a reset STATUS still tells whether it was.
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
    (the simulator schedules faults with it)."""

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
        """Bytes from the port; returns the frames to send."""
        out = []
        for line in self._uart.feed(data):
            out += self.on_line(line, now)
        return out

    def on_line(self, line: bytes, now: float) -> list[bytes]:
        if now < self._boot_until or not line.strip(b"\r"):
            return []
        try:
            f = decode_frame(line)
        except FrameError as e:
            return [encode_frame(0, NAK, nak_args(e.code))]
        if f.seq == 0:
            return [encode_frame(0, NAK, nak_args(NAK_MALFORMED))]
        handler = {HELLO: self._on_hello, HOME: self._on_home, SHOT: self._on_shot,
                   STATUS: self._on_status, ESTOP: self._on_estop}.get(f.verb)
        if handler is None:
            return [self._err(f.seq, E_UNKNOWN_COMMAND, f"unknown command {f.verb}")]
        return handler(f, now)

    def tick(self, now: float) -> list[bytes]:
        """Advance to ``now``; returns the frames to send (the boot announcement, DONE)."""
        out = []
        if self._announce and now >= self._boot_until:
            self._announce = False
            out.append(encode_frame(0, HELLO, self.hello().args()))
        m = self.motion
        if m is not None and m.phase == ACK:
            if m.command is not None and not m.struck and now >= m.t_strike:
                self._strike(m)
            if now >= m.t_done:
                m.phase = DONE
                if m.verb == HOME:
                    self.homed = True
                out.append(encode_frame(m.seq, DONE))
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
        return Hello(PROTOCOL_VERSION, self.firmware_id, self.limits, self.timing.tmax, self.status())

    # ---- commands ----
    def _on_hello(self, f: Frame, now: float) -> list[bytes]:
        if len(f.args) != 1 or not f.args[0].isdigit():
            return [self._err(f.seq, E_BAD_ARGUMENTS, "HELLO takes the host's protocol version")]
        if int(f.args[0]) != PROTOCOL_VERSION:
            return [self._err(f.seq, E_VERSION, f"robot speaks protocol {PROTOCOL_VERSION}")]
        self.session = True
        self.hi = max(self.hi, f.seq)
        return [encode_frame(f.seq, HELLO, self.hello().args())]

    def _on_status(self, f: Frame, now: float) -> list[bytes]:
        if f.args:
            return [self._err(f.seq, E_BAD_ARGUMENTS, "STATUS takes no arguments")]
        return [encode_frame(f.seq, STATUS, self.status().fields())]

    def _on_estop(self, f: Frame, now: float) -> list[bytes]:
        """Always honoured: stops any motion (a shot not yet struck is aborted), latches ESTOP."""
        out = [encode_frame(f.seq, ACK)]
        m = self.motion
        if m is not None and m.phase == ACK:
            if m.struck:
                m.phase = DONE
                out.append(encode_frame(m.seq, DONE))
            else:
                m.phase = "ABORTED"
                out.append(self._err(m.seq, E_ESTOPPED, f"motion aborted by ESTOP {f.seq}"))
        self.nvm.estop = True
        self.homed = False
        return out

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
        """The reply to a motion command that must not start a motion, or None if it may."""
        m = self.motion
        if m is not None and f.seq == m.seq:
            if (f.verb, f.args) != (m.verb, m.args):
                return [self._err(f.seq, E_SEQ_REUSED, f"seq {f.seq} was {m.verb} with other arguments")]
            if m.phase == "ABORTED":
                return [self._err(m.seq, E_ESTOPPED, "motion aborted by ESTOP")]
            return [encode_frame(m.seq, m.phase)]
        if not self.session:
            return [self._err(f.seq, E_NO_SESSION, "send HELLO first")]
        if f.seq <= self.hi:
            return [self._err(f.seq, E_STALE_SEQ, f"seq {f.seq} is not above {self.hi}")]
        if m is not None and m.phase == ACK:
            return [self._err(f.seq, E_BUSY, f"motion {m.seq} in progress")]
        return None

    def _accept(self, f: Frame, cmd: ShotCommand | None, now: float, t_strike: float,
                t_done: float) -> list[bytes]:
        self.hi = f.seq
        self.motion = Motion(f.seq, f.verb, f.args, cmd, ACK, now, t_strike, t_done)
        return [encode_frame(f.seq, ACK)]

    def _strike(self, m: Motion) -> None:
        self.nvm.struck = m.seq  # write-ahead: a reset from here on reports the shot as struck
        m.struck = True
        executed = self.error.perturb(m.command.params, self._rng)
        self.world.strike(Strike(m.seq, m.command, executed, time.time()))

    @staticmethod
    def _err(seq: int, code: int, message: str) -> bytes:
        return encode_frame(seq, ERR, err_args(code, message))
