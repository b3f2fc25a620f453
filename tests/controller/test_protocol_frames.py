"""The framing and the fields of the serial protocol, without a port (docs/protocol.md)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.protocol import (
    MAX_LINE,
    NAK_BAD_CRC,
    NAK_MALFORMED,
    NAK_TOO_LONG,
    SHOT_WIRE,
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
