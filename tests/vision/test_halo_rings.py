"""Halo rings drawn round the balls (``vision.halo_rings``) and left out of identification."""
import cv2
import numpy as np
import pytest

from planner.state import TableState
from vision.balls import LINEAR_LUT, SRGB_LUT
from vision.halo_rings import halo_rings, ring_pixels
from vision.identify import ball_features

R_PX = 13.0      # outline radius of a ball on the default camera [px] (about 12.4-13.3)


def _with_rings(image: np.ndarray, rings, strength: float = 0.6) -> np.ndarray:
    """``image`` with white rings (u, v, radius [px]) 2 px wide added in linear light, drawn as the
    domain renderer draws a projector's halo (anti-aliased at 1/8 px, blurred 0.7 px)."""
    h, w = image.shape[:2]
    light = np.zeros((h, w), np.float32)
    for u, v, rho in rings:
        cv2.circle(light, (int(round(u * 8)), int(round(v * 8))), int(round(rho * 8)), strength, 2, cv2.LINE_AA, 3)
    lin = np.clip(LINEAR_LUT[image] + cv2.GaussianBlur(light, (0, 0), 0.7)[..., None], 0.0, 1.0)
    return SRGB_LUT[np.rint(lin * (SRGB_LUT.size - 1)).astype(np.intp)]


@pytest.fixture(scope="module")
def frame(synthetic_camera):
    """A rendered frame of a tight triangle of balls: the 3, the 11 beside it and the 6 below."""
    sc, _ = synthetic_camera
    d = 2 * sc.R + 0.002
    state = TableState.from_dict({3: (0.6, 1.0), 11: (0.6 + d, 1.0), 6: (0.6 + d / 2, 1.0 + d * np.sqrt(0.75))})
    return sc.render(state, np.random.default_rng(3))


def test_rings_are_found_about_the_balls_where_they_are_drawn(frame):
    """Rings of 1.6, 1.9 and 2.2 radii about the three balls (each crossing its neighbours): each is found
    about its ball, its radius within 0.75 px of the drawn one; the frame without them shows none."""
    px = frame.truth.centre_px
    r = np.full(len(px), R_PX)
    assert halo_rings(frame.image, px, r).shape == (0, 3)
    drawn = np.array([(u, v, k * R_PX) for (u, v), k in zip(px, (1.6, 1.9, 2.2))])
    found = halo_rings(_with_rings(frame.image, drawn), px, r)
    assert found.shape == (3, 3)
    assert np.allclose(found[:, :2], drawn[:, :2])
    assert np.all(np.abs(found[:, 2] - drawn[:, 2]) < 0.75)


def test_a_ring_across_a_solid_is_not_read_as_white(frame):
    """The 3's and 11's rings cross the 6 (a solid: white only on its number disc, under 0.15 of
    it): read with the found rings left out, its white share stays under 0.15, as without rings,
    where the rings read in make it a stripe's (over 0.2)."""
    px = frame.truth.centre_px
    r = np.full(len(px), R_PX)
    six = list(frame.truth.ids).index(6)
    cloth_v = np.full(len(px), 120.0)
    plain = ball_features(frame.image, px, r, cloth_v).white[six]
    drawn = np.array([(px[0, 0], px[0, 1], 1.9 * R_PX), (px[1, 0], px[1, 1], 1.7 * R_PX)])
    ringed = _with_rings(frame.image, drawn)
    rings = halo_rings(ringed, px, r)
    assert ring_pixels(px[six], rings) == np.False_
    assert plain < 0.15
    assert ball_features(ringed, px, r, cloth_v).white[six] > 0.2
    assert ball_features(ringed, px, r, cloth_v, rings=rings).white[six] < 0.15
