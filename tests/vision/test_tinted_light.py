"""The cloth model under a tinted projector's light (``vision.cloth._lit_range``, ``tinted``)."""
import numpy as np

from vision.balls import LINEAR_LUT, linear_to_srgb
from vision.cloth import CLOTH, FOREGROUND, classify, fit_cloth

H, W = 90, 240


def _frame(light_rgb, strength: float = 0.15, seed: int = 3):
    """(BGR uint8 image, unlit (H, W) bool, ball (H, W) bool): a blue cloth (the hard domain's
    (22, 81, 149)) with light of colour ``light_rgb`` added in linear light over 54 % of its width
    (soft-edged: a 60 px linear ramp, as the renderer's projector), a red ball (sRGB (200, 30, 30))
    in the unlit part and 1 level of noise."""
    rng = np.random.default_rng(seed)
    lin = np.empty((H, W, 3))
    lin[:] = LINEAR_LUT[[149, 81, 22]]
    x = np.arange(W)
    ramp = np.clip((x - 50) / 60.0, 0.0, 1.0)                         # unlit left of 50, lit right of 110
    lin += strength * ramp[None, :, None] * np.asarray(light_rgb[::-1], float)
    yy, xx = np.mgrid[0:H, 0:W]
    ball = (xx - 22) ** 2 + (yy - 45) ** 2 < 7 ** 2
    lin[ball] = LINEAR_LUT[[30, 30, 200]]
    img = np.clip(np.rint(linear_to_srgb(lin) + rng.normal(0, 1.0, lin.shape)), 0, 255).astype(np.uint8)
    return img, (ramp == 0.0)[None, :].repeat(H, 0), ball


def _fit(img, tinted):
    v, u = np.mgrid[2:H:4, 2:W:4].reshape(2, -1)
    model = fit_cloth(img[v, u], u, v, 1.0 / W, tinted)
    return model, classify(img, model, np.full((H, W), model.level, np.float32))


def test_a_tinted_projectors_lit_and_unlit_cloth_are_both_cloth():
    """A tinted light (rgb 0.97, 0.86, 0.90: the hard domain's frame hard7 f3) over 60 % of a blue
    cloth: the lit colour is the commonest, so it is the model's colour, and the unlit cloth lies
    off the plane of that colour and white (premise: with white light only the model has no lit
    wedge and the unlit cloth is foreground). With the light's direction from the samples the model
    spans both, nothing of the cloth (lit, unlit, the soft edge) is foreground, the red ball is."""
    img, unlit, ball = _frame((0.97, 0.86, 0.90))
    cloth = ~ball
    white_only, classes = _fit(img, False)
    assert white_only.lit == (0.0, 0.0)
    assert (classes[cloth & unlit] & FOREGROUND).astype(bool).mean() > 0.9
    model, classes = _fit(img, True)
    assert model.lit != (0.0, 0.0)
    assert (classes[cloth] & FOREGROUND).astype(bool).mean() < 0.01
    assert (classes[cloth] & CLOTH).astype(bool).mean() > 0.99
    assert (classes[ball] & FOREGROUND).astype(bool).mean() > 0.95


def test_white_light_and_a_plain_cloth_are_unchanged_by_the_tinted_search():
    """The direction from the samples is only sought where white light finds no lit wedge: under
    white light the model is the same with and without it, and a plain cloth (no light) keeps one
    colour either way."""
    img, _, _ = _frame((1.0, 1.0, 1.0))
    a, ca = _fit(img, False)
    b, cb = _fit(img, True)
    assert a.lit != (0.0, 0.0) and a.lit == b.lit and np.array_equal(a.light, b.light)
    assert np.array_equal(ca, cb)
    plain, _, _ = _frame((1.0, 1.0, 1.0), strength=0.0)
    assert _fit(plain, True)[0].lit == (0.0, 0.0)
