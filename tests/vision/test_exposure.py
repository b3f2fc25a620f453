"""``vision.exposure``: the highlights' level and an underexposed frame brought up, by hand; and in pixel-only mode
the balls of an underexposed rendered frame, lost before, found and named as on the frame as rendered."""
from __future__ import annotations

import numpy as np

from vision.detect_pixels import detect_in_pixels
from vision.evaluate import match
from vision.exposure import EXPOSED_LEVEL, HIGHLIGHT_RANK, exposed, highlight_level
from vision.perturb import parse_perturbation
from vision.pipeline import observe_pixels
from vision.render_domain import condition_frames

DARKER = parse_perturbation("gain=0.6")      # an exposure 0.6 of the frame's (``--perturb gain=0.6``)


def _with_values(values, fill=60, shape=(20, 30, 3)):
    """A BGR uint8 image of ``fill`` whose first channel values (in memory order) are ``values``."""
    image = np.full(shape, fill, np.uint8)
    image.reshape(-1)[:len(values)] = values
    return image


def _centres(observations) -> np.ndarray:
    return np.array([(o.x_px, o.y_px) for o in observations])


def test_the_highlight_level_is_the_rank_th_brightest_channel_value():
    assert highlight_level(_with_values([250] * (HIGHLIGHT_RANK - 1) + [240])) == 240
    assert highlight_level(_with_values([250] * HIGHLIGHT_RANK + [240])) == 250
    assert highlight_level(_with_values([], fill=17)) == 17
    assert highlight_level(np.zeros((3, 3, 3), np.uint8)) == 0          # 27 values: fewer than the rank


def test_an_exposed_frame_is_passed_on_and_an_underexposed_one_scaled_to_reach_255():
    lit = _with_values([EXPOSED_LEVEL] * HIGHLIGHT_RANK)
    assert exposed(lit) is lit
    dark = _with_values([EXPOSED_LEVEL] * (HIGHLIGHT_RANK - 1) + [150] * 5)
    up = exposed(dark)
    # level 150: every value times 255 / 150 = 1.7, rounded and clipped: 60 -> 102, 150 -> 255, 195 -> 255
    expected = np.clip(np.rint(dark.astype(np.float64) * 1.7), 0, 255).astype(np.uint8)
    assert up is not dark and np.array_equal(up, expected)
    assert highlight_level(up) == 255 and exposed(up) is up          # brought up once: exposed from then on
    black = np.zeros((20, 30, 3), np.uint8)
    assert exposed(black) is black


def test_pixel_only_an_underexposed_frame_is_brought_up_and_every_ball_found(synthetic_camera, radius_px):
    """Gentle light (``condition_frames`` seed 8 frame 2: the bench's seed 5 frame 14), its highlights at 0.6 of
    their level, 255 -> 153 (below EXPOSED_LEVEL): as it was, the search found 13 of its 14 balls and 3 circles
    that are none; brought up, all 14 and none."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "gentle", 3, 8)[2]
    dark = DARKER.apply(frame.image)
    assert highlight_level(dark) < EXPOSED_LEVEL <= highlight_level(frame.image)
    det = detect_in_pixels(dark, radius_px)
    rows, cols = match(frame.truth.centre_px, det.px, radius_px / 2)
    assert len(rows) == len(frame.truth.ids) == 14 and len(cols) == len(det.px)


def test_pixel_only_colours_are_read_off_the_frame_brought_up(synthetic_camera, radius_px):
    """The same frame: ``observe_pixels`` names each ball of the darkened frame as it names it on the frame as taken
    (its colours read off the frame the balls were found on; read off the dark frame against the cloth's level of the
    frame brought up, red, orange and the orange stripe came out maroon)."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "gentle", 3, 8)[2]
    taken = observe_pixels(frame.image, radius_px, "pool")
    dark = observe_pixels(DARKER.apply(frame.image), radius_px, "pool")
    rows, cols = match(_centres(taken), _centres(dark), radius_px / 4)
    assert len(rows) == len(taken) == len(dark) == 14
    assert [taken[i].label for i in rows] == [dark[j].label for j in cols]
