"""``vision.colour_drift``: a known drift of the cloth's colour recovered and evened out, by construction; and in
pixel-only mode a rendered frame whose colour cast turns across it, its balls lost before, found and named as on
the frame as rendered."""
from __future__ import annotations

import numpy as np
import pytest

from vision.colour_drift import GAIN_LIMIT, colour_field, evened, field_at
from vision.detect_pixels import _cloth_ground, detect_with_frame
from vision.evaluate import match
from vision.perturb import parse_perturbation
from vision.pipeline import observe_pixels
from vision.render_domain import condition_frames

CLOTH = np.array([0.58, 0.64, 0.50]) / np.linalg.norm([0.58, 0.64, 0.50])   # a real cloth's BGR direction


def _drifting(u, v):
    """(N, 3) a cloth colour direction turning across the frame: blue up and red down to the left, as a
    quadratic of u, v (N,) in 0-1 (about 6 degrees from one side to the other)."""
    tint = np.stack([1 + 0.2 * (0.5 - u), np.ones_like(u), 1 - 0.2 * (0.5 - u) + 0.05 * (v - 0.5) ** 2], axis=1)
    colour = CLOTH * tint
    return colour / np.linalg.norm(colour, axis=1, keepdims=True)


def _angles_deg(a, b):
    return np.degrees(np.arccos(np.clip(np.sum(a * b, axis=-1), -1.0, 1.0)))


def test_the_field_is_the_cloths_own_colour_where_balls_and_rails_lie_among_it():
    """A grid of 1600 samples, the cloth at levels 60-200 along a known drifting direction, with 15 % of them a
    rail's red wood, 5 % white (balls, highlights: 8 degrees from the cloth's colour) and 2 % darker than 20 levels:
    the field found lies within 0.05 degrees of the drift everywhere, 6 degrees across, and none is found where too
    few samples are near the cloth's colour."""
    rng = np.random.default_rng(3)
    u, v = (a.ravel() for a in np.meshgrid(np.linspace(0, 1, 40), np.linspace(0, 1, 40)))
    true = _drifting(u, v)
    samples = true * rng.uniform(60, 200, u.size)[:, None]
    other = rng.random(u.size) < 0.15
    samples[other] = rng.uniform((0, 0, 100), (60, 60, 255), (other.sum(), 3))
    samples[(rng.random(u.size) < 0.05) & ~other] = rng.uniform(200, 255)
    samples[(rng.random(u.size) < 0.02) & ~other] = 5.0
    coef = colour_field(samples, u, v, CLOTH)
    assert _angles_deg(field_at(coef, u, v), true).max() < 0.05
    assert _angles_deg(true[np.argmin(u)], true[np.argmax(u)]) > 5.5
    assert colour_field(samples[other], u[other], v[other], CLOTH) is None


def test_an_evened_frame_has_one_cloth_colour_and_no_channel_lowered():
    """A 90 x 160 frame of cloth along the drift (levels 120), a clipped white disc and a dark ball on it: evened by
    the drift's own field, every cloth pixel lies within 0.6 degrees of the cloth's colour (whole levels), no
    channel of any pixel is lower than it was (the white stays white), and no gain exceeds GAIN_LIMIT."""
    h, w = 90, 160
    vv, uu = np.mgrid[0:h, 0:w]
    u, v = (uu + 0.5) / w, (vv + 0.5) / h
    image = np.rint(_drifting(u.ravel(), v.ravel()).reshape(h, w, 3) * 120).astype(np.uint8)
    white = (uu - 40) ** 2 + (vv - 45) ** 2 < 100
    dark = (uu - 120) ** 2 + (vv - 45) ** 2 < 100
    image[white], image[dark] = 255, (20, 30, 90)
    gu, gv = np.meshgrid((np.arange(0, w, 8) + 4) / w, (np.arange(0, h, 8) + 4) / h)
    su, sv = u[::4, ::4].ravel(), v[::4, ::4].ravel()
    coef = colour_field(image[::4, ::4].reshape(-1, 3), su, sv, CLOTH)
    out = evened(image, coef, CLOTH, gu, gv)
    cloth = ~(white | dark)
    assert _angles_deg(out[cloth] / np.linalg.norm(out[cloth], axis=1, keepdims=True), CLOTH).max() < 0.6
    assert _angles_deg(image[cloth] / np.linalg.norm(image[cloth], axis=1, keepdims=True), CLOTH).max() > 2.5
    assert (out >= image).all() and (out[white] == 255).all()
    assert (out.astype(float) <= GAIN_LIMIT * image + 1).all()


def test_a_field_that_runs_to_no_colour_at_the_corners_gains_no_more_than_the_limit():
    """A field whose blue falls through 0 across the frame (a quadratic carried beyond its samples), and one with no
    direction at all (every coefficient 0): every gain stays between 1 and GAIN_LIMIT, so no channel is lowered
    and none is raised more than that (signed gains set such channels to 0)."""
    image = np.full((40, 80, 3), 100, np.uint8)
    gu, gv = np.meshgrid((np.arange(0, 80, 8) + 4) / 80, (np.arange(0, 40, 8) + 4) / 40)
    falling = np.zeros((6, 3))
    falling[0], falling[1, 0] = CLOTH, -1.5                # blue 0.58 - 1.5 u: below 0 from u = 0.39 on
    assert (field_at(falling, gu, gv)[..., 0] < 0).any()
    for coef in (falling, np.zeros((6, 3))):
        out = evened(image, coef, CLOTH, gu, gv).astype(float)
        assert (out >= 100).all() and (out <= GAIN_LIMIT * 100).all()


@pytest.fixture(scope="module")
def cast_frame(synthetic_camera):
    """The default condition's frame (``condition_frames`` seed 1 frame 4: 16 balls) and a copy under a colour cast
    that turns across it (``--perturb shading=0.8``: blue times 1.4 at the left edge and 0.6 at the right)."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "default", 5, 1)[4]
    return frame, parse_perturbation("shading=0.8").apply(frame.image)


def test_pixel_only_a_frame_whose_colour_turns_across_it_is_evened_and_every_ball_found(cast_frame, radius_px):
    """As cast, the cloth's far side leaves the cloth's colour and the play area falls back to the cloth region's
    hull (before stop 58 the search found 2 of the 16 balls); the frame searched is the evened one, and all 16 are
    found, with none that is not a ball."""
    frame, cast = cast_frame
    assert len(_cloth_ground(cast, radius_px / 2).poly) != 4             # (the case: no four-sided play area)
    det, searched = detect_with_frame(cast, radius_px)
    assert searched is not cast
    rows, cols = match(frame.truth.centre_px, det.px, radius_px / 2)
    assert len(rows) == len(frame.truth.ids) == 16 and len(cols) == len(det.px)


def test_pixel_only_colours_are_read_off_the_evened_frame(cast_frame, radius_px):
    """The same frames: ``observe_pixels`` names each ball of the cast frame as it names it on the frame as rendered
    (its colours read off the evened frame the balls were found on)."""
    frame, cast = cast_frame
    taken = observe_pixels(frame.image, radius_px, "pool")
    evened_out = observe_pixels(cast, radius_px, "pool")
    centres = [np.array([(o.x_px, o.y_px) for o in obs]) for obs in (taken, evened_out)]
    rows, cols = match(*centres, radius_px / 4)
    assert len(rows) == len(taken) == len(evened_out) == 16
    assert [taken[i].label for i in rows] == [evened_out[j].label for j in cols]
