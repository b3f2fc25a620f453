"""Checks of the framing: lines, the CRC, numbers and the three NAKs ([F1]-[F3], [N1]-[N3])."""
from __future__ import annotations

import time

from controller import protocol as wire
from controller.conformance.check import LATCHED, SESSION, CheckFailed, check, require
from controller.conformance.host import Host
from controller.conformance.shots import gentle
from controller.protocol import MAX_LINE, crc32


def framed(body: bytes) -> bytes:
    """``body`` with its correct CRC and the newline."""
    return body + b"*%08X\n" % crc32(body)


def _quiet(h: Host, what: str) -> None:
    got = h.collect(h.reply_timeout_s)
    require(not got, f"{what}: expected no reply, got {[rx.raw for rx in got]}")


@check("lines", "F1", needs=SESSION)
def lines(h: Host) -> str:
    """Empty lines get no reply; CR LF is accepted; a frame cut in pieces is read; MAX_LINE bytes fit."""
    h.forget()
    for empty in (b"\n", b"\r\n", b"\n\n"):
        h.send_raw(empty)
        _quiet(h, f"the empty line {empty!r}")
    seq = h.next_seq()
    h.send_raw(framed(b"%d STATUS" % seq)[:-1] + b"\r\n")
    require(h.reply(seq, "a STATUS ending in CR LF").verb == wire.STATUS, "a STATUS ending in CR LF was not answered")
    seq = h.next_seq()
    data = framed(b"%d STATUS" % seq)
    for piece in (data[:3], data[3:9], data[9:]):   # as a slow UART delivers it
        h.send_raw(piece)
        time.sleep(0.02)
    require(h.reply(seq, "a STATUS sent in three pieces").verb == wire.STATUS, "a STATUS sent in pieces was not answered")
    seq = h.next_seq()
    prefix = b"%d STATUS " % seq
    line = framed(prefix + b"X" * (MAX_LINE - len(prefix) - 9))
    assert len(line) == MAX_LINE + 1
    h.send_raw(line)
    f = h.reply(seq, f"a frame of exactly {MAX_LINE} bytes")
    require(f.verb == wire.ERR and wire.err_code(f) == wire.E_BAD_ARGUMENTS,
            f"a frame of exactly {MAX_LINE} bytes (STATUS with an argument) must be read and get ERR 11, got {f}")
    return f"empty lines ignored, CR LF and split frames read, a {MAX_LINE}-byte frame read"


@check("crc", "F2", needs=SESSION)
def crc(h: Host) -> str:
    """The robot's CRC is CRC-32/ISO-HDLC in 8 upper-case hex digits; it reads lower-case ones."""
    seq = h.send(wire.STATUS)
    rx = h.next_rx(seq)
    if rx is None:
        bad = h.next_rx(-1, 0.0)
        raise CheckFailed(f"no readable reply to {seq} STATUS" + (f"; got {bad.raw!r} ({bad.error})" if bad else ""))
    raw = rx.raw.rstrip(b"\r")
    body, sent = raw[:-9], raw[-8:]
    require(not rx.crc_reversed, f"{raw.decode()}: the CRC's four bytes are in reverse order "
                                 f"(CRC-32 of the body is {crc32(body):08X})")
    require(sent == sent.upper(), f"{raw.decode()}: the CRC must be sent in upper case")
    seq = h.next_seq()
    body = b"%d STATUS" % seq
    h.send_raw(body + b"*%08x\n" % crc32(body))
    f = h.reply(seq, "a STATUS with a lower-case CRC")
    require(f.verb == wire.STATUS, f"a STATUS with a lower-case CRC must be read, got {f}")
    return f"reply CRC {sent.decode()} checks out; a lower-case CRC is read"


def _expect_nak(h: Host, line: bytes, code: int, what: str) -> None:
    h.send_raw(line)
    rx = h.next_rx(0)
    require(rx is not None, f"{what} {line!r}: no NAK within {h.patience_s} s")
    f = rx.frame
    require(f.verb == wire.NAK and f.args == wire.nak_args(code),
            f"{what} {line!r}: expected 0 NAK {' '.join(wire.nak_args(code))}, got {f}")


@check("nak-1", "N1", needs=SESSION)
def nak_bad_crc(h: Host) -> str:
    """A frame whose CRC does not match gets 0 NAK 1 BAD_CRC."""
    seq = h.next_seq()
    good = framed(b"%d STATUS" % seq)
    _expect_nak(h, good[:-9] + b"00000000\n", wire.NAK_BAD_CRC, "a zero CRC")
    _expect_nak(h, good.replace(b"STATUS", b"STATVS"), wire.NAK_BAD_CRC, "one flipped bit in the body")
    _quiet(h, f"a NAKed frame {seq}")
    return "a wrong CRC and a flipped bit are NAKed with code 1"


# (line with %d for a fresh seq, whether it gets its correct CRC, what is wrong with it)
MALFORMED = (
    (b"garbage", False, "not a frame"),
    (b"%d STATUS", False, "no CRC"),
    (b"%d STATUS*1234", False, "a 4-digit CRC"),
    (b"0%d STATUS", True, "a seq with a leading zero"),
    (b"%d status", True, "a lower-case verb"),
    (b"%d  STATUS", True, "two spaces"),
    (b"%d TOOLONGVERB", True, "an 11-letter verb"),
    (b"0 STATUS", True, "seq 0 from the host"),
    (b"4294967296 STATUS", True, "a seq above 2^32 - 1"),
    (b"%d STA\x01TUS", True, "a control byte"),
    (b"%d STA\x93TUS", True, "a byte above 0x7E"),
)


@check("nak-2", "N2", needs=SESSION)
def nak_malformed(h: Host) -> str:
    """Malformed lines, non-printable bytes and seq 0 from the host get 0 NAK 2 MALFORMED."""
    for pattern, with_crc, what in MALFORMED:
        body = pattern.replace(b"%d", b"%d" % h.next_seq())
        _expect_nak(h, framed(body) if with_crc else body + b"\n", wire.NAK_MALFORMED, what)
    return f"{len(MALFORMED)} kinds of malformed line NAKed with code 2"


@check("nak-3", "N3", needs=SESSION)
def nak_too_long(h: Host) -> str:
    """A line longer than MAX_LINE gets 0 NAK 3 TOO_LONG, and the next frame is read normally."""
    seq = h.next_seq()
    prefix = b"%d STATUS " % seq
    line = framed(prefix + b"X" * (MAX_LINE + 1 - len(prefix) - 9))
    _expect_nak(h, line, wire.NAK_TOO_LONG, f"a frame of {MAX_LINE + 1} bytes")
    _expect_nak(h, b"9" * 5000 + b"\n", wire.NAK_TOO_LONG, "5000 bytes")
    h.status()
    return f"{MAX_LINE + 1} and 5000 bytes NAKed with code 3; the next frame read"


@check("numbers", "F3", needs=LATCHED)
def numbers(h: Host) -> str:
    """Numbers of -?d{1,7}(.d{1,6})? are read (ERR 12 or 14 while latched); others get ERR 11."""
    args = gentle(h.hello.limits)
    good = ("180", "180.5", "180.123456", "0180.0", "-0", "1234567", "-1234567.123456")
    bad = ("1e2", "+180", ".5", "180.", "12345678", "1.1234567", "nan", "inf", "0x10", "1,5", "--1", "1-")
    for text in good:
        code = h.ask_err(wire.SHOT, text, *args[1:])
        require(code in (wire.E_OUT_OF_RANGE, wire.E_ESTOPPED),
                f"phi={text} is a number of the grammar: expected ERR 12 or 14 (emergency-stopped), got ERR {code}")
    for text in bad:
        h.expect_err(wire.E_BAD_ARGUMENTS, wire.SHOT, text, *args[1:], why=f" (phi={text} is not a number)")
    return f"{len(good)} numbers read, {len(bad)} non-numbers refused with ERR 11"
