"""The robot's serial protocol: framing (bytes <-> frames), commands, replies and their fields.

Pure: no port, no clock. docs/protocol.md is the specification; this module implements it for both
ends (the driver in ``controller.driver`` and the simulated firmware in ``controller.sim``).

A frame is one ASCII line::

    <seq> <VERB> [<arg> ...]*<CRC>\\n

``seq`` is a decimal integer (1..SEQ_MAX from the host; 0 in robot-initiated frames), ``VERB`` is
upper-case letters, args are printable non-space tokens, ``CRC`` is 8 hex digits of CRC-32
(IEEE 802.3, as zlib/binascii compute it) over every byte before the ``*``.

Units inside Python are SI (``planner.shot.ShotParams``: phi, theta deg; V m/s; a, b m; cue-ball
position m). On the wire lengths are millimetres (docs/frame.md); conversion happens only in
``ShotCommand`` and the HELLO limits, here.
"""
from __future__ import annotations

import binascii
import math
import re
from dataclasses import dataclass
from typing import Sequence

from planner.shot import ShotParams

PROTOCOL_VERSION = 1
MAX_LINE = 320          # longest frame in bytes, without the trailing newline (the worst-case HELLO fits)
SEQ_MAX = 2**32 - 1     # host sequence numbers are 1..SEQ_MAX; 0 marks robot-initiated frames
FIRMWARE_ID_MAX = 24    # longest firmware id in HELLO (characters)
HELLO_NUMBER_MAX = 8    # longest range bound in HELLO (characters, e.g. "-180.000", "2235.2")
TMAX_MAX = 999.999      # largest tmax a robot may declare [s] (written with 3 decimals)

# Obligations of the robot's timing (docs/protocol.md, "Timing"), in seconds.
ROBOT_REPLY_S = 0.05    # from the last byte of a frame to the first byte of its immediate reply
ROBOT_BOOT_S = 1.0      # from power-up, a reset or RESET's ACK to the ``0 HELLO`` announcement

# Host -> robot commands.
HELLO, HOME, SHOT, STATUS, ESTOP, RESET = "HELLO", "HOME", "SHOT", "STATUS", "ESTOP", "RESET"
MOTION_COMMANDS = (HOME, SHOT)
# Robot -> host replies (HELLO and STATUS replies reuse the command's verb).
ACK, DONE, ERR, NAK = "ACK", "DONE", "ERR", "NAK"

# NAK codes: the frame could not be read; the host resends it unchanged.
NAK_BAD_CRC, NAK_MALFORMED, NAK_TOO_LONG = 1, 2, 3
NAK_NAMES = {NAK_BAD_CRC: "BAD_CRC", NAK_MALFORMED: "MALFORMED", NAK_TOO_LONG: "TOO_LONG"}

# ERR codes: the frame was read and refused; resending it cannot help. Nothing moves.
E_UNKNOWN_COMMAND = 10
E_BAD_ARGUMENTS = 11
E_OUT_OF_RANGE = 12
E_NOT_HOMED = 13
E_ESTOPPED = 14
E_BUSY = 15
E_SEQ_REUSED = 16
E_STALE_SEQ = 17
E_NO_SESSION = 18
E_VERSION = 19
ERR_NAMES = {E_UNKNOWN_COMMAND: "UNKNOWN_COMMAND", E_BAD_ARGUMENTS: "BAD_ARGUMENTS",
             E_OUT_OF_RANGE: "OUT_OF_RANGE", E_NOT_HOMED: "NOT_HOMED", E_ESTOPPED: "ESTOPPED",
             E_BUSY: "BUSY", E_SEQ_REUSED: "SEQ_REUSED", E_STALE_SEQ: "STALE_SEQ",
             E_NO_SESSION: "NO_SESSION", E_VERSION: "VERSION"}

# Robot states reported in HELLO and STATUS replies.
STATES = ("UNHOMED", "HOMING", "READY", "MOVING", "STRIKING", "ESTOP")
# Phase of the robot's last accepted motion command (HOME or SHOT).
PHASES = ("NONE", "ACK", "DONE", "ABORTED")

_SEQ_RE = re.compile(rb"0|[1-9][0-9]{0,9}")
_VERB_RE = re.compile(rb"[A-Z]{1,8}")
_CRC_RE = re.compile(rb"[0-9A-Fa-f]{8}")
_NUMBER_RE = re.compile(r"-?[0-9]{1,7}(\.[0-9]{1,6})?")   # the grammar of every number on the wire


def crc32(data: bytes) -> int:
    """CRC-32/ISO-HDLC (the zlib CRC): poly 0x04C11DB7 reflected, init and xorout 0xFFFFFFFF."""
    return binascii.crc32(data) & 0xFFFFFFFF


class FrameError(ValueError):
    """A line that is not a valid frame. ``code`` is the NAK code the robot answers with."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Frame:
    seq: int
    verb: str
    args: tuple[str, ...] = ()

    def fields(self) -> dict[str, str]:
        """The ``key=value`` arguments of a robot reply (HELLO, STATUS) as a dict."""
        return parse_fields(self.args)


def encode_frame(seq: int, verb: str, args: Sequence[str] = ()) -> bytes:
    """Bytes of one frame including the CRC and the trailing newline.

    Raises ValueError for a seq outside 0..SEQ_MAX, a verb that is not 1-8 upper-case letters, an
    argument with a space, ``*`` or a non-printable character, or a frame longer than MAX_LINE.
    """
    if not 0 <= seq <= SEQ_MAX:
        raise ValueError(f"seq must be in 0..{SEQ_MAX}, got {seq}")
    if not _VERB_RE.fullmatch(verb.encode("ascii", "replace")):
        raise ValueError(f"verb must be 1-8 upper-case letters, got {verb!r}")
    for a in args:
        if not a or any(c == " " or c == "*" or not 0x21 <= ord(c) <= 0x7E for c in a):
            raise ValueError(f"frame argument must be printable ASCII without spaces or '*', got {a!r}")
    body = " ".join([str(seq), verb, *args]).encode("ascii")
    line = body + b"*%08X" % crc32(body)
    if len(line) > MAX_LINE:
        raise ValueError(f"frame is {len(line)} bytes, longer than MAX_LINE={MAX_LINE}")
    return line + b"\n"


def decode_frame(line: bytes) -> Frame:
    """Parse one line (without its ``\\n``; a trailing ``\\r`` is ignored). Raises FrameError."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) > MAX_LINE:
        raise FrameError(NAK_TOO_LONG, f"frame longer than {MAX_LINE} bytes")
    if any(not 0x20 <= c <= 0x7E for c in line):
        raise FrameError(NAK_MALFORMED, "frame has a non-printable byte")
    star = line.rfind(b"*")
    if star < 0 or not _CRC_RE.fullmatch(line[star + 1:]):
        raise FrameError(NAK_MALFORMED, "frame does not end in '*' and 8 hex digits of CRC")
    body = line[:star]
    if int(line[star + 1:], 16) != crc32(body):
        raise FrameError(NAK_BAD_CRC, "CRC mismatch")
    tokens = body.split(b" ")
    if len(tokens) < 2 or any(not t for t in tokens) or b"*" in body:
        raise FrameError(NAK_MALFORMED, "frame must be '<seq> <VERB> [args]' with single spaces")
    if not _SEQ_RE.fullmatch(tokens[0]) or int(tokens[0]) > SEQ_MAX:
        raise FrameError(NAK_MALFORMED, f"seq must be a decimal integer 0..{SEQ_MAX}")
    if not _VERB_RE.fullmatch(tokens[1]):
        raise FrameError(NAK_MALFORMED, "verb must be 1-8 upper-case letters")
    return Frame(int(tokens[0]), tokens[1].decode(), tuple(t.decode() for t in tokens[2:]))


class LineSplitter:
    """Reassembles lines from a byte stream cut anywhere.

    ``feed`` returns the complete lines (without ``\\n``). A line that grows past MAX_LINE is
    returned cut to MAX_LINE + 1 bytes as soon as its newline arrives, so that ``decode_frame``
    reports it as TOO_LONG; the splitter never holds more than MAX_LINE + 1 bytes.
    """

    def __init__(self):
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        *parts, rest = data.split(b"\n")
        lines = []
        for part in parts:
            self._append(part)
            lines.append(bytes(self._buf))
            self._buf.clear()
        self._append(rest)
        return lines

    def clear(self) -> None:
        self._buf.clear()

    def _append(self, part: bytes) -> None:
        self._buf += part[:max(MAX_LINE + 1 - len(self._buf), 0)]


def parse_fields(args: Sequence[str]) -> dict[str, str]:
    """``("k=v", ...)`` -> ``{"k": "v"}``. Raises FrameError(NAK_MALFORMED) on a token without '='."""
    out = {}
    for a in args:
        k, sep, v = a.partition("=")
        if not sep or not k:
            raise FrameError(NAK_MALFORMED, f"expected key=value, got {a!r}")
        out[k] = v
    return out


def parse_number(text: str) -> float:
    """A decimal number as the firmware reads it: ``-?digits[.digits]``, no exponent, no nan/inf."""
    if not _NUMBER_RE.fullmatch(text):
        raise ValueError(f"{text!r} is not a decimal number")
    return float(text)


# ---- the shot command ---------------------------------------------------------------------

# Wire fields of SHOT: name, decimals on the wire, factor from SI to wire units, wire unit.
SHOT_WIRE = (("phi", 3, 1.0, "deg"), ("theta", 3, 1.0, "deg"), ("V", 3, 1.0, "m/s"),
             ("a", 2, 1000.0, "mm"), ("b", 2, 1000.0, "mm"), ("x", 1, 1000.0, "mm"),
             ("y", 1, 1000.0, "mm"))


@dataclass(frozen=True)
class ShotCommand:
    """A SHOT as it travels: the five parameters and the cue-ball centre, at the wire's resolution.

    ``params`` in ShotParams units (a, b metres); ``x``, ``y``: cue-ball centre in the table frame
    [m]. Built only from wire strings (``from_args``), so the host's command and the robot's parse
    of the same frame are equal floats.
    """
    params: ShotParams
    x: float
    y: float

    @classmethod
    def from_params(cls, params: ShotParams, cue_xy: tuple[float, float]) -> "ShotCommand":
        """Round to the wire resolution. Raises ValueError for a non-finite value."""
        values = (*params.as_array(), *cue_xy)
        for (name, _, _, _), v in zip(SHOT_WIRE, values):
            if not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v}")
        args = tuple(f"{v * k:.{d}f}" for (_, d, k, _), v in zip(SHOT_WIRE, values))
        return cls.from_args(args)

    @classmethod
    def from_args(cls, args: Sequence[str]) -> "ShotCommand":
        """Parse the 7 SHOT arguments (wire units). Raises ValueError naming the bad argument."""
        if len(args) != len(SHOT_WIRE):
            raise ValueError(f"SHOT takes {len(SHOT_WIRE)} numbers (phi theta V a b x y), got {len(args)}")
        vals = []
        for (name, _, k, unit), text in zip(SHOT_WIRE, args):
            try:
                vals.append(parse_number(text) / k)
            except ValueError:
                raise ValueError(f"{name} must be a decimal number of {unit}, got {text!r}") from None
        return cls(ShotParams(*vals[:5]), vals[5], vals[6])

    def args(self) -> tuple[str, ...]:
        return tuple(f"{v * k:.{d}f}" for (_, d, k, _), v in zip(SHOT_WIRE, self.values()))

    def values(self) -> tuple[float, ...]:
        """(phi, theta, V, a, b, x, y) in SI/degrees, the order of SHOT_WIRE."""
        p = self.params
        return (p.phi, p.theta, p.V, p.a, p.b, self.x, self.y)


# ---- limits, HELLO and STATUS -------------------------------------------------------------

@dataclass(frozen=True)
class Range:
    lo: float
    hi: float

    def contains(self, v: float) -> bool:
        return self.lo <= v <= self.hi


@dataclass(frozen=True)
class RobotLimits:
    """What the robot can do, as its HELLO declares: a closed range per SHOT field (SI/degrees).

    phi, theta [deg]; V [m/s]; a, b [m] tip offsets; x, y [m] the workspace, i.e. the cue-ball
    centres the robot can reach, in the table frame.
    """
    phi: Range
    theta: Range
    V: Range
    a: Range
    b: Range
    x: Range
    y: Range

    def violations(self, cmd: ShotCommand) -> list[str]:
        """Human-readable reasons ``cmd`` is outside the limits (empty if it is inside)."""
        out = []
        for (name, d, k, unit), v in zip(SHOT_WIRE, cmd.values()):
            r = getattr(self, name)
            if not r.contains(v):
                what = "workspace" if name in ("x", "y") else "limit"
                out.append(f"{name}={v * k:.{d}f} {unit} outside the robot's {what} "
                           f"{r.lo * k:.{d}f}..{r.hi * k:.{d}f} {unit}")
        return out


@dataclass(frozen=True)
class Status:
    """The robot's state as HELLO and STATUS report it.

    state: one of STATES. homed: axes referenced. motion: seq of the last accepted motion
    command (HOME or SHOT), 0 if none since boot; phase: its phase (PHASES). struck: seq of the
    last SHOT struck, kept in non-volatile memory across resets (0 if none). hi: the highest seq
    the robot has accepted; a new motion command needs a larger one.
    """
    state: str
    homed: bool
    motion: int
    phase: str
    struck: int
    hi: int

    def fields(self) -> tuple[str, ...]:
        """``key=value`` tokens in the order of the spec: state homed motion phase struck hi."""
        return (f"state={self.state}", f"homed={int(self.homed)}", f"motion={self.motion}",
                f"phase={self.phase}", f"struck={self.struck}", f"hi={self.hi}")

    @classmethod
    def parse(cls, f: dict[str, str]) -> "Status":
        """From reply fields. Raises FrameError(NAK_MALFORMED) naming a missing or bad field."""
        try:
            st = cls(state=f["state"], homed=f["homed"] == "1", motion=int(f["motion"]),
                     phase=f["phase"], struck=int(f["struck"]), hi=int(f["hi"]))
        except KeyError as e:
            raise FrameError(NAK_MALFORMED, f"status field {e.args[0]} missing") from None
        except ValueError as e:
            raise FrameError(NAK_MALFORMED, f"bad status field: {e}") from None
        if st.state not in STATES or st.phase not in PHASES or f["homed"] not in ("0", "1"):
            raise FrameError(NAK_MALFORMED, f"bad status fields {f}")
        return st


# The fields of a HELLO reply, in the order the robot sends them.
HELLO_KEYS = ("v", "fw", *(name for name, *_ in SHOT_WIRE), "tmax",
              "state", "homed", "motion", "phase", "struck", "hi")


@dataclass(frozen=True)
class Hello:
    """The robot's HELLO reply: protocol version, firmware id, limits, the longest a motion takes
    from ACK to DONE (``tmax`` [s]) and its status."""
    version: int
    firmware: str
    limits: RobotLimits
    tmax: float
    status: Status

    def args(self) -> tuple[str, ...]:
        """The reply's fields in the order of HELLO_KEYS, ranges with the SHOT decimals.

        Raises ValueError for what a HELLO may not carry (docs/protocol.md, [X1]): a firmware id
        that is not 1..FIRMWARE_ID_MAX printable characters without space or '*', a range bound
        longer than HELLO_NUMBER_MAX characters, a tmax outside 0..TMAX_MAX s.
        """
        fw = self.firmware
        if not 1 <= len(fw) <= FIRMWARE_ID_MAX or any(c == "*" or not 0x21 <= ord(c) <= 0x7E for c in fw):
            raise ValueError(f"firmware id must be 1-{FIRMWARE_ID_MAX} printable characters without "
                             f"spaces or '*', got {fw!r}")
        if not 0 < self.tmax <= TMAX_MAX:
            raise ValueError(f"tmax must be in (0, {TMAX_MAX}] s, got {self.tmax}")
        ranges = []
        for name, d, k, unit in SHOT_WIRE:
            r = getattr(self.limits, name)
            lo, hi = f"{r.lo * k:.{d}f}", f"{r.hi * k:.{d}f}"
            if max(len(lo), len(hi)) > HELLO_NUMBER_MAX:
                raise ValueError(f"{name} range {lo}:{hi} {unit} has a bound longer than "
                                 f"{HELLO_NUMBER_MAX} characters")
            ranges.append(f"{name}={lo}:{hi}")
        return (f"v={self.version}", f"fw={fw}", *ranges, f"tmax={self.tmax:.3f}", *self.status.fields())

    @classmethod
    def parse(cls, frame: Frame) -> "Hello":
        """From a HELLO reply frame. Raises FrameError(NAK_MALFORMED) naming the bad field."""
        f = frame.fields()
        try:
            ranges = {}
            for name, _, k, _ in SHOT_WIRE:
                lo, _, hi = f[name].partition(":")
                ranges[name] = Range(parse_number(lo) / k, parse_number(hi) / k)
            return cls(version=int(f["v"]), firmware=f["fw"], limits=RobotLimits(**ranges),
                       tmax=parse_number(f["tmax"]), status=Status.parse(f))
        except KeyError as e:
            raise FrameError(NAK_MALFORMED, f"HELLO field {e.args[0]} missing") from None
        except ValueError as e:
            raise FrameError(NAK_MALFORMED, f"bad HELLO field: {e}") from None


ERR_TEXT_MAX = 160  # longest ERR message, so that every ERR frame fits in MAX_LINE


def err_args(code: int, message: str = "") -> tuple[str, ...]:
    """Arguments of an ERR reply: the code, its name, then the message's words. The message is
    cut to its first ERR_TEXT_MAX characters, each non-printable character and '*' becomes '?',
    and runs of spaces collapse (docs/protocol.md, [X6])."""
    text = "".join(c if 0x20 <= ord(c) <= 0x7E and c != "*" else "?" for c in message[:ERR_TEXT_MAX])
    return (str(code), ERR_NAMES[code], *text.split())


def nak_args(code: int) -> tuple[str, ...]:
    """Arguments of a NAK reply: the code and its name."""
    return (str(code), NAK_NAMES[code])


def err_code(frame: Frame) -> int:
    """The numeric code of an ERR or NAK reply (-1 if unreadable)."""
    try:
        return int(frame.args[0])
    except (IndexError, ValueError):
        return -1
