"""Telling the balls apart on rendered frames."""
from __future__ import annotations

import numpy as np

from planner.state import TableState
from vision.identify import ball_features, colour_names


def test_sweep_identity_at_least_99_percent(sweep):
    _, _, score = sweep
    assert score.found > 200
    assert score.identity >= 0.99


def test_uncertain_numbers_are_labelled_with_their_class(sweep):
    _, results, _ = sweep
    for _, obs in results:
        for o in obs:
            if o.label in ("solid", "stripe"):
                assert o.confidence < 0.6
            elif o.ball_id is not None:
                assert o.label == str(o.ball_id)


def test_colour_names_for_any_balls(synthetic_camera):
    sc, _ = synthetic_camera
    state = TableState.from_dict({0: (0.3, 0.5), 8: (0.6, 0.5), 3: (0.9, 0.5), 2: (0.3, 1.2), 1: (0.6, 1.2),
                                  6: (0.9, 1.2)})
    frame = sc.render(state, np.random.default_rng(7))
    px = frame.truth.centre_px
    r = np.full(len(px), 13.0)
    names, conf = colour_names(ball_features(frame.image, px, r, np.full(len(px), 120.0)))
    assert names == ["white", "yellow", "blue", "red", "green", "black"]   # ids in order 0, 1, 2, 3, 6, 8


def test_snooker_colours_by_the_median_pixel():
    """Plain discs of a snooker set's colours (sRGB, a crimson red and an orange brown either side
    of pure red, a pale pink) on green cloth, brightened as a camera's exposure would: each named
    by its colour, whatever the exposure."""
    import cv2
    srgb = {"red": (200, 20, 40), "brown": (150, 70, 30), "pink": (250, 170, 190), "white": (240, 240, 235),
            "black": (25, 20, 30), "yellow": (240, 200, 20), "green": (20, 110, 60), "blue": (20, 70, 200)}
    cloth = np.array([40, 140, 60])
    for gain in (0.7, 1.0, 1.2):
        img = np.empty((60, 60 * len(srgb), 3), np.uint8)
        img[:] = np.clip(gain * cloth[::-1], 0, 255)
        px = []
        for k, rgb in enumerate(srgb.values()):
            cv2.circle(img, (30 + 60 * k, 30), 15, tuple(int(c) for c in np.clip(gain * np.array(rgb[::-1]), 0, 255)), -1)
            px.append((30 + 60 * k, 30))
        cloth_v = np.full(len(px), float(np.clip(gain * cloth, 0, 255).max()))
        names, _ = colour_names(ball_features(img, np.array(px, float), np.full(len(px), 15.0), cloth_v),
                                ball_set="snooker")
        assert names == list(srgb), f"exposure x{gain}: {names}"


def _discs(cloth_srgb, balls_srgb, light=0.0):
    """A BGR image of flat discs (radius 15 px) on a cloth, with ``light`` white added in linear light."""
    import cv2

    from vision.balls import linear_to_srgb, srgb_to_linear
    img = np.empty((60, 60 * len(balls_srgb), 3), np.uint8)
    img[:] = cloth_srgb[::-1]
    for k, rgb in enumerate(balls_srgb):
        cv2.circle(img, (30 + 60 * k, 30), 15, tuple(int(c) for c in rgb[::-1]), -1)
    if light:
        img = np.rint(linear_to_srgb(srgb_to_linear(img) + light)).astype(np.uint8)
    return img, np.array([(30.0 + 60 * k, 30.0) for k in range(len(balls_srgb))]), np.full(len(balls_srgb), 15.0)


def test_added_light_is_taken_off_the_ball():
    """White light added over a ball (a projector) washes its colour out; taken off in linear light
    before the features, the ball reads as without it (saturation and hue), where unaided its
    saturation falls by more than a third."""
    cloth = (30, 120, 82)
    balls = [(200, 20, 40), (20, 70, 200), (240, 200, 20)]
    img, px, r = _discs(cloth, balls)
    lit, _, _ = _discs(cloth, balls, light=0.15)
    ref = ball_features(img, px, r, np.full(3, 120.0))
    raw = ball_features(lit, px, r, np.full(3, 120.0))
    back = ball_features(lit, px, r, np.full(3, 120.0), added=np.full(3, 0.15))
    assert np.all(raw.sat < 0.67 * ref.sat)
    np.testing.assert_allclose(back.sat, ref.sat, atol=6)
    np.testing.assert_allclose(back.hue, ref.hue, atol=2)
