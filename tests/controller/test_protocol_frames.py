"""The framing and the fields of the serial protocol, without a port (docs/protocol.md)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.protocol import (
    FIRMWARE_ID_MAX,
    HELLO_KEYS,
    HELLO_NUMBER_MAX,
    MAX_LINE,
    NAK_BAD_CRC,
    NAK_MALFORMED,
    NAK_TOO_LONG,
    SEQ_MAX,
    SHOT_WIRE,
    TMAX_MAX,
    Frame,
    FrameError,
    Hello,
    LineSplitter,
    Range,
    RobotLimits,
    ShotCommand,
    Status,
    crc32,
    decode_frame,
    encode_frame,
)
from planner.shot import ShotParams

seqs = st.integers(0, 2**32 - 1)
verbs = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=8)
args = st.lists(st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters="*"),
                        min_size=1, max_size=12), max_size=6)


def test_crc32_is_the_catalogued_crc32_iso_hdlc():
    # Check value of CRC-32/ISO-HDLC in the CRC catalogue (Greg Cook's reveng catalogue).
    assert crc32(b"123456789") == 0xCBF43926


def test_frame_bytes_are_as_documented():
    assert encode_frame(7, "STATUS") == b"7 STATUS*%08X\n" % crc32(b"7 STATUS")
    # the example of docs/protocol.md
    f = decode_frame(b"116 SHOT 31.757 19.757 0.606 -8.97 11.41 917.9 1849.8*CB906DC9")
    assert f == Frame(116, "SHOT", ("31.757", "19.757", "0.606", "-8.97", "11.41", "917.9", "1849.8"))


@given(seqs, verbs, args)
def test_frames_round_trip(seq, verb, a):
    line = encode_frame(seq, verb, a)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode_frame(line[:-1]) == Frame(seq, verb, tuple(a))
    assert decode_frame(line[:-1] + b"\r") == Frame(seq, verb, tuple(a))


def _decoded(stream: bytes) -> list[Frame]:
    out = []
    for line in LineSplitter().feed(stream):
        try:
            out.append(decode_frame(line))
        except FrameError:
            pass
    return out


@given(seqs, verbs, args, st.data())
def test_no_single_byte_fault_yields_a_frame(seq, verb, a, data):
    """A frame with one byte dropped, duplicated, bit-flipped or replaced never decodes (except a
    duplicated newline, which leaves the frame intact and adds an empty line)."""
    line = encode_frame(seq, verb, a)
    i = data.draw(st.integers(0, len(line) - 1), label="position")
    kind = data.draw(st.sampled_from(["drop", "duplicate", "flip", "replace"]), label="fault")
    b = line[i]
    if kind == "drop":
        bad = line[:i] + line[i + 1:]
    elif kind == "duplicate":
        bad = line[:i + 1] + line[i:]
    elif kind == "flip":
        bad = line[:i] + bytes([b ^ (1 << data.draw(st.integers(0, 7), label="bit"))]) + line[i + 1:]
    else:
        bad = line[:i] + bytes([data.draw(st.integers(0, 255).filter(lambda x: x != b), label="byte")]) + line[i + 1:]
    if kind == "duplicate" and b == ord("\n"):
        assert _decoded(bad) == [Frame(seq, verb, tuple(a))]
    else:
        assert _decoded(bad) == []


@pytest.mark.parametrize("line, code", [
    (b"7 STATUS", NAK_MALFORMED),                          # no CRC
    (b"7 STATUS*1234", NAK_MALFORMED),                     # short CRC
    (b"7 STATUS*00000000", NAK_BAD_CRC),
    (b"7 STA\x00TUS*00000000", NAK_MALFORMED),             # non-printable byte
    (b"7 " + b"X" * MAX_LINE + b"*00000000", NAK_TOO_LONG),
])
def test_bad_lines_get_the_documented_nak_code(line, code):
    with pytest.raises(FrameError) as e:
        decode_frame(line)
    assert e.value.code == code


@pytest.mark.parametrize("body", [b"07 STATUS", b"7 status", b"7  STATUS", b"STATUS", b"x7 STATUS",
                                  b"99999999999 STATUS", b"7 STATUS *"])
def test_well_checksummed_but_malformed_frames_are_refused(body):
    with pytest.raises(FrameError) as e:
        decode_frame(body + b"*%08X" % crc32(body))
    assert e.value.code == NAK_MALFORMED


@given(st.lists(st.tuples(seqs, verbs, args), min_size=1, max_size=5), st.data())
def test_line_splitter_is_indifferent_to_how_the_stream_is_cut(frames, data):
    stream = b"".join(encode_frame(*f) for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10), label="cuts"))
    sp = LineSplitter()
    lines = []
    for lo, hi in zip([0, *cuts], [*cuts, len(stream)]):
        lines += sp.feed(stream[lo:hi])
    assert [decode_frame(x) for x in lines] == [Frame(s, v, tuple(a)) for s, v, a in frames]


def test_an_overlong_line_is_reported_and_the_next_frame_survives():
    sp = LineSplitter()
    lines = sp.feed(b"9" * 5000) + sp.feed(b"\n" + encode_frame(3, "HOME"))
    assert len(lines) == 2 and len(lines[0]) == MAX_LINE + 1
    with pytest.raises(FrameError) as e:
        decode_frame(lines[0])
    assert e.value.code == NAK_TOO_LONG
    assert decode_frame(lines[1]) == Frame(3, "HOME")


finite = dict(allow_nan=False, allow_infinity=False)


@given(st.floats(0, 360, **finite), st.floats(0, 60, **finite), st.floats(0.1, 4.5, **finite),
       st.floats(-0.02, 0.02, **finite), st.floats(-0.02, 0.02, **finite),
       st.floats(0, 1.2, **finite), st.floats(0, 2.3, **finite))
def test_shot_command_rounds_to_the_wire_resolution_and_round_trips(phi, theta, V, a, b, x, y):
    cmd = ShotCommand.from_params(ShotParams(phi, theta, V, a, b), (x, y))
    for (name, d, k, _), got, want in zip(SHOT_WIRE, cmd.values(), (phi, theta, V, a, b, x, y)):
        assert abs(got - want) * k <= 0.5 * 10.0 ** -d + 1e-9, name
    # the robot parses the same strings into the same floats
    assert ShotCommand.from_args(cmd.args()) == cmd
    # a and b travel in millimetres
    assert float(cmd.args()[3]) == pytest.approx(a * 1000, abs=0.005 + 1e-9)


@pytest.mark.parametrize("bad", ["1e3", "nan", "inf", "+1.0", "0x10", "1.", ".5", "", "1,5"])
def test_shot_arguments_must_be_plain_decimals(bad):
    good = ["10.000", "5.000", "2.000", "0.00", "0.00", "500.0", "600.0"]
    with pytest.raises(ValueError, match="V must be a decimal number of m/s"):
        ShotCommand.from_args(good[:2] + [bad] + good[3:])
    with pytest.raises(ValueError, match="takes 7 numbers"):
        ShotCommand.from_args(good[:6])


def test_limit_violations_name_the_field_value_and_limit():
    lim = RobotLimits(Range(0, 360), Range(0, 60), Range(0.1, 4.5), Range(-0.015, 0.015),
                      Range(-0.015, 0.015), Range(0, 1.1176), Range(0, 2.2352))
    cmd = ShotCommand.from_params(ShotParams(10, 5, 6.2, 0.0, 0.02), (1.5, 1.0))
    why = lim.violations(cmd)
    assert why == ["V=6.200 m/s outside the robot's limit 0.100..4.500 m/s",
                   "b=20.00 mm outside the robot's limit -15.00..15.00 mm",
                   "x=1500.0 mm outside the robot's workspace 0.0..1117.6 mm"]
    assert lim.violations(ShotCommand.from_params(ShotParams(10, 5, 4.5, 0.0, 0.015), (1.0, 1.0))) == []


def test_hello_round_trips_through_its_frame():
    lim = RobotLimits(Range(0, 360), Range(0, 60), Range(0.1, 4.5), Range(-0.015, 0.015),
                      Range(-0.015, 0.015), Range(0, 1.1176), Range(0, 2.2352))
    st_ = Status("READY", True, 41, "DONE", 41, 42)
    hello = Hello(1, "fw-1.2", lim, 1.25, st_)
    line = encode_frame(42, "HELLO", hello.args())
    back = Hello.parse(decode_frame(line[:-1]))
    assert (back.version, back.firmware, back.tmax, back.status) == (1, "fw-1.2", 1.25, st_)
    for name, *_ in SHOT_WIRE:
        assert getattr(back.limits, name).lo == pytest.approx(getattr(lim, name).lo, abs=1e-12)
        assert getattr(back.limits, name).hi == pytest.approx(getattr(lim, name).hi, abs=1e-12)
    with pytest.raises(FrameError, match="tmax"):
        Hello.parse(Frame(42, "HELLO", tuple(a for a in hello.args() if not a.startswith("tmax="))))


# ---- docs/protocol.md is the spec: its examples must be what the code does ------------------

SPEC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
FRAME_LINE = re.compile(r"^(\d+ [A-Z]{1,8}( \S+)*)\*([0-9A-F]{8})$")


def _spec_code_lines() -> list[str]:
    blocks = re.findall(r"```[a-z]*\n(.*?)```", SPEC.read_text(), re.S)
    return [line for b in blocks for line in b.splitlines()]


def test_every_frame_in_the_spec_carries_its_correct_crc():
    lines = _spec_code_lines()
    frames = [m for m in map(FRAME_LINE.match, lines) if m]
    assert len(frames) > 60  # the worked session and the examples of every section
    for m in frames:
        if m.group(3) == "00000000":   # the worked session's deliberately wrong CRC, and its NAK
            assert lines[lines.index(m.group(0)) + 1].startswith("0 NAK 1 BAD_CRC*")
            continue
        assert decode_frame(m.group(0).encode()) is not None, m.group(0)
    verbs = {m.group(1).split(" ")[1] for m in frames}
    assert verbs == {"HELLO", "STATUS", "HOME", "SHOT", "ESTOP", "RESET", "FIRE", "ACK", "DONE", "ERR", "NAK"}


def test_the_frame_log_example_gives_the_decoders_own_errors():
    records = [json.loads(x) for x in _spec_code_lines() if x.startswith('{"t"')]
    errors = [r for r in records if "error" in r]
    assert len(errors) == 2
    for r in errors:
        line = r["frame"].encode().decode("unicode_escape").encode("latin-1")
        with pytest.raises(FrameError) as e:
            decode_frame(line)
        assert str(e.value) == r["error"]


def test_the_spec_hello_example_is_what_hello_args_writes():
    (example,) = [x for x in _spec_code_lines() if x.startswith("1 HELLO v=1")][:1]
    hello = Hello.parse(decode_frame(example.encode()))
    assert encode_frame(1, "HELLO", hello.args()).decode().rstrip("\n") == example
    assert [a.partition("=")[0] for a in hello.args()] == list(HELLO_KEYS)


def test_the_reference_firmwares_nibble_table_computes_crc32():
    text = SPEC.read_text()
    table = [int(x, 16) for x in re.findall(r"0x[0-9A-F]{8}", text[text.index("T = ["):text.index("]", text.index("T = ["))])]
    assert len(table) == 16

    def step(crc, b):
        crc = (crc >> 4) ^ table[(crc ^ b) & 0xF]
        return (crc >> 4) ^ table[(crc ^ (b >> 4)) & 0xF]

    for data in (b"123456789", b"116 SHOT 31.757 19.757 0.606 -8.97 11.41 917.9 1849.8"):
        crc = 0xFFFFFFFF
        for b in data:
            crc = step(crc, b)
        assert crc ^ 0xFFFFFFFF == crc32(data)


def test_the_longest_hello_fits_in_a_frame():
    """Every field at its longest: 10-digit seqs, 8-character range bounds, a 24-character fw id."""
    r3, r2, r1 = Range(-999.999, 999.999), Range(-9.99999, 9.99999), Range(-99.9999, 99.9999)
    hello = Hello(1, "f" * FIRMWARE_ID_MAX, RobotLimits(r3, r3, r3, r2, r2, r1, r1), TMAX_MAX,
                  Status("STRIKING", False, SEQ_MAX, "ABORTED", SEQ_MAX, SEQ_MAX))
    line = encode_frame(SEQ_MAX, "HELLO", hello.args())
    assert len(line) - 1 <= MAX_LINE
    assert max(len(a.partition("=")[2].split(":")[0]) for a in hello.args()[2:9]) == HELLO_NUMBER_MAX


@pytest.mark.parametrize("fw, lim_hi, tmax, what", [
    ("f" * (FIRMWARE_ID_MAX + 1), 360.0, 1.0, "firmware id must be 1-24"),
    ("fw 1", 360.0, 1.0, "firmware id must be"),
    ("fw", 10000.0, 1.0, "phi range 0.000:10000.000 deg has a bound longer than 8"),
    ("fw", 360.0, 1000.0, "tmax must be in"),
])
def test_hello_refuses_what_it_cannot_declare(fw, lim_hi, tmax, what):
    r = Range(0.0, 1.0)
    hello = Hello(1, fw, RobotLimits(Range(0.0, lim_hi), r, r, Range(0, 0.01), Range(0, 0.01), r, r), tmax,
                  Status("READY", True, 0, "NONE", 0, 0))
    with pytest.raises(ValueError, match=what):
        hello.args()
