"""Deliberately broken firmware: each quirk breaks exactly one clause of docs/protocol.md.

``cuerobot sim-robot --quirk NAME`` serves a Firmware with that quirk, so that the conformance
suite (``cuerobot robot conformance``) can be shown to fail exactly the checks of that clause
and no other. A quirk is a mixin that overrides one rule method of ``Firmware``.

    cls = firmware_class(["status-raises-hi"])     # a Firmware subclass; () gives Firmware itself
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from controller.protocol import ESTOP, HELLO, Frame
from controller.sim.firmware import Firmware, Motion


class _CrcByteOrder(Firmware):
    def _frame(self, seq, verb, args=()):
        line = super()._frame(seq, verb, args)
        crc = line[-9:-1]   # 8 hex digits before the newline: send the four bytes in reverse order
        return line[:-9] + crc[6:8] + crc[4:6] + crc[2:4] + crc[0:2] + b"\n"


class _NoNakOnBadCrc(Firmware):
    def _nak(self, code):
        return [] if code == 1 else super()._nak(code)


class _HelloFieldsReordered(Firmware):
    def _frame(self, seq, verb, args=()):
        if verb == HELLO:
            args = tuple(sorted(args))
        return super()._frame(seq, verb, args)


class _StatusRaisesHi(Firmware):
    def _on_status(self, f: Frame, now):
        self.hi = max(self.hi, f.seq)
        return super()._on_status(f, now)


class _RefusalKeepsSeq(Firmware):
    def _claim(self, f: Frame):
        pass

    def _accept(self, f: Frame, cmd, now, t_strike, t_done):
        self.hi = f.seq
        return super()._accept(f, cmd, now, t_strike, t_done)


class _NoAck(Firmware):
    def _accept(self, f: Frame, cmd, now, t_strike, t_done):
        super()._accept(f, cmd, now, t_strike, t_done)
        return []


class _RepeatNotRecognised(Firmware):
    def _repeat(self, f: Frame):
        return None


class _NoStaleCheck(Firmware):
    def _stale(self, f: Frame):
        return False


class _EstopSilentAbort(Firmware):
    def _on_estop(self, f: Frame, now):
        return super()._on_estop(f, now)[:1]   # the ESTOP's ACK, but not the motion's final reply


class _StruckWrittenAfter(Firmware):
    def _strike(self, m: Motion):
        self._hit(m)                           # no write-ahead ...

    def _finish(self, m: Motion):
        super()._finish(m)
        if m.command is not None:
            self.nvm.struck = m.seq            # ... the seq is written when the shot is complete


class _ResetClearsEstop(Firmware):
    def reset(self, now):
        super().reset(now)
        self.nvm.estop = False


class _TmaxUnderstated(Firmware):
    def declared_tmax(self):
        return round(super().declared_tmax() / 2, 3)


@dataclass(frozen=True)
class Quirk:
    """One deliberate deviation: ``clause`` is the spec clause it breaks (docs/protocol.md)."""
    name: str
    clause: str
    what: str
    mixin: type


QUIRKS = {q.name: q for q in (
    Quirk("crc-byte-order", "F2", "sends its CRC's four bytes in reverse order", _CrcByteOrder),
    Quirk("no-nak-on-bad-crc", "N1", "ignores a line with a bad CRC instead of NAKing it", _NoNakOnBadCrc),
    Quirk("hello-fields-reordered", "X1", "sends the HELLO fields in alphabetical order", _HelloFieldsReordered),
    Quirk("status-raises-hi", "H3", "counts STATUS sequence numbers toward hi", _StatusRaisesHi),
    Quirk("refusal-keeps-seq", "H2", "lets a refused motion command keep its number for later", _RefusalKeepsSeq),
    Quirk("no-ack", "X2", "starts an accepted motion without ACK (DONE only)", _NoAck),
    Quirk("repeat-not-recognised", "E1", "treats a resend of the last motion as a new command", _RepeatNotRecognised),
    Quirk("no-stale-check", "E3", "accepts a motion command whose seq is not above hi", _NoStaleCheck),
    Quirk("estop-silent-abort", "S2", f"ends a motion stopped by {ESTOP} without its final reply",
          _EstopSilentAbort),
    Quirk("struck-written-after", "R2", "writes the struck seq to NVM after the shot, not before",
          _StruckWrittenAfter),
    Quirk("reset-clears-estop", "R3", "loses the emergency-stop latch on a reset", _ResetClearsEstop),
    Quirk("tmax-understated", "T1", "declares half the tmax its motions take", _TmaxUnderstated),
)}


def firmware_class(names: Sequence[str]) -> type[Firmware]:
    """The Firmware class with the quirks ``names`` (Firmware itself for none).
    Raises ValueError naming an unknown quirk and listing the known ones."""
    unknown = [n for n in names if n not in QUIRKS]
    if unknown:
        raise ValueError(f"unknown quirk {unknown[0]!r}; known: {', '.join(QUIRKS)}")
    if not names:
        return Firmware
    mixins = tuple(QUIRKS[n].mixin for n in dict.fromkeys(names))
    return type("QuirkyFirmware", (*mixins, Firmware), {"quirks": tuple(names)})
