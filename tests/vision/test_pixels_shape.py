"""Pixel-only mode (``vision.detect_pixels``) on rendered lit_sheen frames: balls that only their shape shows (the
registered mode's shape candidates, ``shape_starts``, fitted to their darker limb)."""
from vision.detect_pixels import detect_in_pixels
from vision.evaluate import match
from vision.render_domain import condition_frames

BENCH_RADIUS_PX = 12.8156   # the balls' outline radius as ``cuerobot bench vision`` gives it [px]


def _found(frame) -> tuple[list[int], int]:
    """(the truth ids of the balls found within a radius of their projected centres, false balls)."""
    det = detect_in_pixels(frame.image, BENCH_RADIUS_PX)
    rows, cols = match(frame.truth.centre_px, det.px, BENCH_RADIUS_PX)
    return sorted(int(i) for i in frame.truth.ids[rows]), len(det) - len(cols)


def test_a_black_ball_washed_grey_on_a_grey_cloth_is_found_from_its_shape(synthetic_camera):
    """The lit_sheen condition's seed 41 frame 13 (``condition_frames`` seed 44, second frame): the black 8 on a grey
    cloth under a projector's light, washed to the cloth's colour (1.3 degrees off it) at 0.59 of its lit level,
    above DARK_FRACTION: no foreground about it (0.02 of the 7 x 7 half-resolution square), no candidate. The
    registered mode's shape candidate there, fitted to its darker limb, finds it; the purple 4 of the frame (4.7
    degrees off the cloth, as bright: no candidate, and its shape candidate has no limb) stays lost, and no false
    ball."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "lit_sheen", 2, 44)[1]
    ids, false = _found(frame)
    assert ids == sorted(int(i) for i in frame.truth.ids if i != 4) and false == 0


def test_a_green_ball_on_a_green_cloth_is_found_from_its_darker_limb(synthetic_camera):
    """The lit_sheen condition's seed 41 frame 14 (``condition_frames`` seed 44, third frame): a green 6 on a green
    cloth under a projector's light (0.7 degrees from the cloth's colour, 0.85 of its level: no candidate). Its
    shape candidate, fitted to its darker limb as a refused candidate is (``_with_limb_fits``), finds it: every
    ball found, no false ball."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "lit_sheen", 3, 44)[2]
    ids, false = _found(frame)
    assert ids == sorted(int(i) for i in frame.truth.ids) and false == 0
