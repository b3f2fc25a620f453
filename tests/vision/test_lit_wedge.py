"""The cloth model's lit wedge under a faint projector (``vision.cloth._lit_range``, LIT_MODE_SHARE)."""
import numpy as np

from vision.balls import LINEAR_LUT, linear_to_srgb, srgb_to_linear
from vision.cloth import CHROMA_TAN, CLOTH, FOREGROUND, classify, fit_cloth

H, W = 90, 240
CLOTH_SRGB = (40, 110, 45)          # a green cloth (R, G, B), as the hard domain's seed-41 frame 18


def _frame(strength: float, seed: int = 3):
    """(BGR uint8 image, unlit (H, W) bool, ball (H, W) bool): the green cloth with white light of
    ``strength`` (linear units) added over 60 % of its width (a 40 px linear ramp, as the renderer's
    projector), a purple ball (sRGB (80, 20, 120)) in the unlit part and 1 level of noise."""
    rng = np.random.default_rng(seed)
    lin = np.empty((H, W, 3))
    lin[:] = LINEAR_LUT[list(CLOTH_SRGB[::-1])]
    ramp = np.clip((np.arange(W) - 56) / 40.0, 0.0, 1.0)
    lin += strength * ramp[None, :, None]
    yy, xx = np.mgrid[0:H, 0:W]
    ball = (xx - 22) ** 2 + (yy - 45) ** 2 < 7 ** 2
    lin[ball] = LINEAR_LUT[[120, 20, 80]]
    img = np.clip(np.rint(linear_to_srgb(lin) + rng.normal(0, 1.0, lin.shape)), 0, 255).astype(np.uint8)
    return img, (ramp == 0.0)[None, :].repeat(H, 0), ball


def _angle_deg(strength: float) -> float:
    """The angle between the unlit and the lit cloth's 8-bit colours (what the foreground test reads)."""
    unlit = np.asarray(CLOTH_SRGB, float)
    lit = linear_to_srgb(srgb_to_linear(unlit) + strength)
    return float(np.degrees(np.arccos(unlit @ lit / np.linalg.norm(unlit) / np.linalg.norm(lit))))


def test_a_light_moving_the_cloth_less_than_twice_the_foreground_angle_is_a_lit_wedge():
    """White light that moves the cloth's colour about 8 degrees (past the foreground's 5, short of 10) over
    most of the cloth: its lit colour is the model's, so without a lit wedge the unlit cloth is
    foreground. The model spans both; nothing of the cloth is foreground, the purple ball is."""
    strength = 0.025
    assert np.degrees(np.arctan(CHROMA_TAN)) < _angle_deg(strength) < 2 * np.degrees(np.arctan(CHROMA_TAN))
    img, unlit, ball = _frame(strength)
    v, u = np.mgrid[2:H:4, 2:W:4].reshape(2, -1)
    model = fit_cloth(img[v, u], u, v, 1.0 / W, True)
    classes = classify(img, model, np.full((H, W), model.level, np.float32))
    cloth = ~ball
    assert model.lit != (0.0, 0.0)
    assert (classes[cloth & unlit] & FOREGROUND).astype(bool).mean() < 0.01
    assert (classes[cloth] & CLOTH).astype(bool).mean() > 0.99
    assert (classes[ball] & FOREGROUND).astype(bool).mean() > 0.95


def test_a_plain_cloth_keeps_one_colour():
    """No light: one colour, no wedge (a real cloth's noise stays within the foreground angle)."""
    img, _, _ = _frame(0.0)
    v, u = np.mgrid[2:H:4, 2:W:4].reshape(2, -1)
    assert fit_cloth(img[v, u], u, v, 1.0 / W, True).lit == (0.0, 0.0)
