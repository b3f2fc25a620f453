"""``vision.white_balance``: a known drift of a camera's white balance undone by the cloth's colour, by
construction; and on rendered frames under ``--perturb white=...``, both modes name every ball as on the frame as
rendered once given the cloth's colour as calibrated, which they do not without it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from config.camera import load_camera_settings
from config.reader import ConfigError
from config.table import load_table_settings
from vision.balls import CLOTH_SRGB
from vision.cloth import ClothModel
from vision.evaluate import match
from vision.layouts import random_layout
from vision.perturb import parse_perturbation
from vision.pipeline import TableVision, observe_pixels
from vision.render_domain import Domain, DomainRenderer, condition_frames
from vision.white_balance import (
    CLIPPED,
    DEADBAND_DEG,
    GAIN_LIMIT,
    balanced,
    brought_back,
    cloth_gains,
    drift_deg,
    measured_srgb,
    unit_bgr,
)

WARM, COOL = parse_perturbation("white=0.8,1.2"), parse_perturbation("white=1.2,0.8")


def _unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def test_the_gains_undo_a_diagonal_cast_and_keep_green():
    """30 cloth colours and casts (each channel x0.8-1.25): the gains bring the cast colour back to the reference's
    direction, are the cast's inverse with green's held at 1, and so undo a cast on blue and red alone exactly."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        ref = _unit(rng.uniform(20, 200, 3))
        cast = rng.uniform(0.8, 1.25, 3)
        now = _unit(ref * cast)
        if drift_deg(ref, now) < DEADBAND_DEG:
            continue
        g = cloth_gains(ref, now)
        assert g is not None and g[1] == 1.0
        assert drift_deg(g * now, ref) < 1e-6
        assert np.allclose(g * cast / cast[1], 1.0, atol=1e-12)


def test_no_gains_within_the_deadband_nor_for_another_cloth():
    ref = unit_bgr(CLOTH_SRGB)
    assert cloth_gains(ref, ref) is None
    assert cloth_gains(ref, _unit(ref * [1.02, 1.0, 0.98])) is None             # 1 % each way: within 2 degrees
    assert cloth_gains(ref, _unit(ref * [1.2, 1.0, 0.8])) is not None
    blue = unit_bgr((25, 85, 150))                                             # a blue cloth is no drift of green
    assert cloth_gains(ref, blue) is None
    g = cloth_gains(ref, _unit(ref * [1.3, 1.0, 0.77]))
    assert g is not None and g.max() < GAIN_LIMIT
    assert cloth_gains(ref, _unit(ref * [GAIN_LIMIT ** 2, 1.0, GAIN_LIMIT ** -2])) is None


def test_balanced_scales_each_channel_and_leaves_clipped_values_clipped():
    """Each channel times its gain, rounded and clipped at 255; a value at CLIPPED (254) or above stays 255 even under
    a gain below 1 (the sensor clipped it: its true value is unknown)."""
    img = np.array([[[100, 100, 100], [200, 250, 10], [255, 254, 253], [253, 253, 200]]], np.uint8)
    out = balanced(img, np.array([0.8, 0.9, 1.3]))
    assert out.dtype == np.uint8 and out.shape == img.shape and CLIPPED == 254
    assert out[0].tolist() == [[80, 90, 130], [160, 225, 13], [255, 255, 255], [202, 228, 255]]
    noise = np.random.default_rng(2).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    gains = np.array([1.1, 0.7, 1.45])
    plain = np.where(noise >= CLIPPED, 255, np.clip(np.rint(noise * gains), 0, 255)).astype(np.uint8)
    assert np.array_equal(balanced(noise, gains), plain)


def test_unit_bgr_and_measured_srgb():
    assert np.allclose(unit_bgr((30, 120, 82)), _unit([82, 120, 30]))
    for bad in ((0, 120, 82), (30, 120), (30, 120, 300), (np.nan, 1, 1)):
        with pytest.raises(ValueError, match="R, G, B"):
            unit_bgr(bad)
    model = ClothModel(chroma=_unit([82, 120, 30]), coef=np.zeros(6), scale=1.0, level=150.0,
                       light=_unit([1, 0, -1]), lit=(0.0, 0.0))
    assert measured_srgb(model) == tuple(int(v) for v in np.rint(_unit([82, 120, 30]) * 150)[::-1])
    lit = ClothModel(chroma=model.chroma, coef=model.coef, scale=1.0, level=150.0, light=model.light, lit=(-0.3, 0.0))
    assert measured_srgb(lit) is None
    ref = unit_bgr((30, 120, 82))
    assert brought_back(ref, model) and not brought_back(ref, lit)
    off = ClothModel(chroma=_unit(model.chroma * [1.1, 1.0, 0.9]), coef=model.coef, scale=1.0, level=150.0,
                     light=model.light, lit=(0.0, 0.0))
    assert drift_deg(ref, off.chroma) > DEADBAND_DEG and not brought_back(ref, off)


@pytest.fixture(scope="module")
def frame(synthetic_camera):
    """The default condition's frame of ``condition_frames`` seed 1 frame 4 (16 balls, the rendered cloth)."""
    sc, _ = synthetic_camera
    return condition_frames(sc, "default", 5, 1)[4]


@pytest.fixture(scope="module")
def balanced_vision(synthetic_camera):
    sc, lm = synthetic_camera
    return TableVision(sc.cam, sc.table, sc.R, lm, CLOTH_SRGB)


def _ids_right(vision, frame, image, R):
    det, obs = vision.detect(image)
    rows, cols = match(frame.truth.pos, det.xy, R)
    right = sum(obs[j].ball_id == frame.truth.ids[i] for i, j in zip(rows, cols))
    off = np.linalg.norm(det.xy[cols] - frame.truth.pos[rows], axis=1).max()
    return len(rows), right, off


def test_registered_ids_hold_through_a_white_balance_drift(synthetic_camera, vision, balanced_vision, frame):
    """Blue x0.8 and red x1.2 (a warm cast), and the reverse: without the cloth's colour the 8-ball ids go wrong
    (rendered x40 at stop 59: 51.9 % and 62.8 % right); with it every ball is found and named, within 1 mm. The frame
    as rendered (0.3 degrees from CLOTH_SRGB) is searched as it is: the same detections to the bit."""
    sc, _ = synthetic_camera
    for drift in (WARM, COOL):
        image = drift.apply(frame.image)
        found, right, _ = _ids_right(vision, frame, image, sc.R)
        assert right <= 13
        found, right, off = _ids_right(balanced_vision, frame, image, sc.R)
        assert found == right == 16 and off < 1e-3
    a, b = vision.detect(frame.image)[0], balanced_vision.detect(frame.image)[0]
    assert np.array_equal(a.xy, b.xy) and np.array_equal(a.rms_px, b.rms_px, equal_nan=True)


def test_registered_a_projectors_light_is_no_drift(synthetic_camera, vision, balanced_vision):
    """A projector's light at 0.3 over part of the cloth: the cloth model sees a lit wedge and reads its colour 2.2
    degrees from the calibrated cloth; the frame brought back by gains read off it still shows a wedge
    (``brought_back``), so it is searched as it is: the same detections as with no reference, to the bit."""
    sc, _ = synthetic_camera
    state = random_layout(sc.table, sc.R, np.random.default_rng(1))
    frame = DomainRenderer(sc, Domain(projector=(0.3, 0.5, 0.5, 0.3, 0.3)), seed=0).render(
        state, np.random.default_rng(2))
    detector, ref = balanced_vision.detector, unit_bgr(CLOTH_SRGB)
    model = detector.cloth_model(frame.image)
    gains = cloth_gains(ref, model.chroma)
    assert model.lit != (0.0, 0.0) and gains is not None
    assert not brought_back(ref, detector.cloth_model(balanced(frame.image, gains)))
    a, b = vision.detect(frame.image)[0], balanced_vision.detect(frame.image)[0]
    assert len(a) == len(state.ids) and np.array_equal(a.xy, b.xy)


def test_pixel_only_colours_hold_through_a_white_balance_drift(frame, radius_px):
    """The same frame in pixel-only mode: under the warm cast, given the cloth's colour, every ball is named as on
    the frame as rendered; without it, not."""
    taken = observe_pixels(frame.image, radius_px, "pool")
    image = WARM.apply(frame.image)

    def same_names(obs):
        rows, cols = match(np.array([(o.x_px, o.y_px) for o in taken]), np.array([(o.x_px, o.y_px) for o in obs]),
                           radius_px / 4)
        return len(rows) == len(taken) == 16 and [taken[i].label for i in rows] == [obs[j].label for j in cols]
    assert not same_names(observe_pixels(image, radius_px, "pool"))
    assert same_names(observe_pixels(image, radius_px, "pool", CLOTH_SRGB))


def test_camera_yaml_cloth_srgb(tmp_path):
    """camera.yaml's optional cloth_srgb: null (as shipped) is none, three channel values are the colour, anything
    else a ConfigError naming the file and key."""
    table = load_table_settings().table
    shipped = load_camera_settings(table)
    assert shipped.cloth_srgb is None
    text = Path(shipped.path).read_text()
    assert text.count("cloth_srgb: null") == 1
    for value, want in (("[30, 120, 82]", (30.0, 120.0, 82.0)), ("null", None)):
        p = tmp_path / "ok.yaml"
        p.write_text(text.replace("cloth_srgb: null", f"cloth_srgb: {value}"))
        assert load_camera_settings(table, p).cloth_srgb == want
    for value in ("[30, 120]", "[0, 120, 82]", "[30, 120, 300]", "green"):
        p = tmp_path / "bad.yaml"
        p.write_text(text.replace("cloth_srgb: null", f"cloth_srgb: {value}"))
        with pytest.raises(ConfigError, match=f"{p}: cloth_srgb must be \\[R, G, B\\]"):
            load_camera_settings(table, p)
