"""Faster forms of per-frame computations equal the plain numpy expressions they replace, to the bit,
on random input (the detector's results must not move with its speed)."""
import cv2
import numpy as np

from planner.state import ball_class
from vision.camera import silhouette_circles
from vision.cloth import ClothModel
from vision.detect import added_light, outline_normals
from vision.edges import block_contrast
from vision.identify import COLOUR_NAMES, BallFeatures, _colour_cost, _colour_prototypes, _costs, id_costs


def _outlines(rng, m, n):
    c = rng.uniform(0, 1000, (m, 1, 2))
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = rng.uniform(5, 30, (m, 1, 1)) * np.stack([np.cos(t), np.sin(t)], axis=-1)[None]
    return c + ring + rng.normal(0, 0.3, (m, n, 2))


def test_outline_normals_equal_the_rolled_difference():
    rng = np.random.default_rng(0)
    for m, n in ((1, 16), (5, 48), (16, 48)):
        for outline in (_outlines(rng, m, n), _outlines(rng, m, n)[:, ::-1], rng.uniform(0, 500, (m, n, 2))):
            t = np.roll(outline, -1, axis=1) - np.roll(outline, 1, axis=1)
            nrm = np.stack([t[..., 1], -t[..., 0]], axis=-1)
            nrm /= np.linalg.norm(nrm, axis=-1, keepdims=True)
            flip = np.sum(nrm * (outline - outline.mean(axis=1, keepdims=True)), axis=-1, keepdims=True) < 0
            assert np.array_equal(outline_normals(outline), np.where(flip, -nrm, nrm))


def test_block_contrast_equals_the_ratio_of_mean_steps():
    rng = np.random.default_rng(1)
    noisy = rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    smooth = cv2.GaussianBlur(noisy, (0, 0), 3.0)
    jpeg = cv2.imdecode(cv2.imencode(".jpg", smooth, [cv2.IMWRITE_JPEG_QUALITY, 60])[1], cv2.IMREAD_COLOR)
    for image in (noisy, smooth, jpeg, np.zeros((64, 80, 3), np.uint8)):
        d = np.abs(np.diff(image[::8, :, 1].astype(np.float64), axis=1))
        on = np.zeros(d.shape[1], bool)
        on[7::8] = True
        assert block_contrast(image) == float(d[:, on].mean() / max(d[:, ~on].mean(), 1e-9))


def test_added_light_is_the_least_squares_white_of_each_cloth_model():
    rng = np.random.default_rng(2)
    models = []
    for _ in range(3):
        chroma = rng.uniform(0.1, 1, 3)
        chroma /= np.linalg.norm(chroma)
        light = np.ones(3) - chroma.sum() * chroma
        light /= np.linalg.norm(light)
        models.append(ClothModel(chroma=chroma, coef=np.zeros(6), scale=1.0, level=float(rng.uniform(60, 200)),
                                 light=light, lit=(float(rng.uniform(-0.2, 0)), 0.3)))
    local = rng.uniform(0, 1, (3, 7, 3))
    for model in models + models[::-1]:        # (each model's own row, whatever was asked before)
        d = (np.clip(model.level * (model.chroma + model.lit[0] * model.light), 0, 255) / 255.0)
        d = np.where(d <= 0.04045, d / 12.92, ((d + 0.055) / 1.055) ** 2.4)
        A = np.stack([d / np.linalg.norm(d), np.ones(3)], axis=1)
        assert np.array_equal(added_light(local, model), np.maximum(local @ np.linalg.pinv(A)[1], 0.0))


def test_silhouette_circles_equal_the_formula_at_every_count():
    from vision.render import synthetic_camera_from_config
    cam = synthetic_camera_from_config()[0].cam
    rng = np.random.default_rng(3)
    P = np.concatenate([rng.uniform([0, 0], [1.2, 2.4], (9, 2)), np.full((9, 1), 0.028)], axis=1)
    for n in (16, 48, 16):
        a = P - cam.centre
        D = np.linalg.norm(a, axis=1, keepdims=True)
        a = a / D
        e1 = np.stack([a[:, 1], -a[:, 0], np.zeros(9)], axis=1)
        e1 /= np.linalg.norm(e1, axis=1, keepdims=True)
        e2 = np.cross(a, e1)
        t = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
        rho = 0.028 * np.sqrt(1.0 - (0.028 / D) ** 2)
        want = (P - a * (0.028 ** 2 / D))[:, None, :] + rho[:, :, None] * (
            np.cos(t)[None, :, None] * e1[:, None, :] + np.sin(t)[None, :, None] * e2[:, None, :])
        np.testing.assert_allclose(silhouette_circles(cam, P, 0.028, n), want, rtol=0, atol=1e-15)


def test_id_costs_equal_the_cost_of_each_id_on_its_own():
    """``id_costs`` computes the white / black terms once per ball class and every colour's term at
    once: each id's column equals that id's cost computed alone, and between two ids of a class the
    difference is that of their colour terms taken one prototype at a time (``_colour_cost``)."""
    rng = np.random.default_rng(4)
    M = 12

    def features():
        f = BallFeatures(*(rng.uniform(0, 1, M) for _ in range(8)))
        f.hue[:] = rng.uniform(0, 180, M)
        f.hue[::5] = np.nan
        f.rel_v[::4] = np.nan
        f.spread[::3] = np.nan
        return f

    f, own = features(), features()
    protos = _colour_prototypes(extra=False)
    cost = id_costs(f, own)
    for bid in range(16):
        assert np.array_equal(cost[:, bid], _costs(f if bid == 0 else own, [bid])[:, 0]), bid
    for a, b in ((1, 2), (3, 7), (9, 14), (10, 15)):
        assert ball_class(a) == ball_class(b)
        colour = [_colour_cost(own, *protos[COLOUR_NAMES[k if k < 8 else k - 8]]) for k in (a, b)]
        np.testing.assert_allclose(cost[:, a] - cost[:, b], colour[0] - colour[1], rtol=0, atol=1e-12)


def test_smoothed_squares_equal_the_whole_frame_smoothed_wherever_asked():
    """``SmoothedNear`` smooths its squares' windows side by side in one strip: every pixel asked for
    (many centres, clustered, on and off the edges, a reach wider than a small frame) equals
    cv2.GaussianBlur of the whole frame."""
    from vision.steps import SmoothedNear
    rng = np.random.default_rng(5)
    for shape, reach in (((720, 1280, 3), 21.5), ((50, 60, 3), 30.0), ((90, 130, 3), 4.0)):
        img = rng.integers(0, 256, shape, dtype=np.uint8)
        full = cv2.GaussianBlur(img, (0, 0), 1.0)
        smooth = SmoothedNear(img, 1.0)
        h, w = shape[:2]
        for _ in range(3):
            centres = np.concatenate([rng.uniform(-10, [w + 10, h + 10], (20, 2)),
                                      rng.uniform(0, 1, (6, 2)) * 3 + rng.uniform(0, [w, h])])
            out = smooth.about(centres, reach)
            assert np.array_equal(out[smooth.done], full[smooth.done])


def test_hue_tables_equal_the_sine_and_cosine_of_every_hue_angle():
    """``vision.identify`` looks the circular hue mean's cosine and sine up per 8-bit hue: the same
    values as np.cos / np.sin of the angles, wherever they lie in an array of any length."""
    from vision.identify import _HUE_COS, _HUE_SIN
    rng = np.random.default_rng(6)
    for n in (1, 7, 390, 12480):
        h = rng.integers(0, 180, n).astype(np.float64)
        ang = h * (np.pi / 90.0)
        assert np.array_equal(_HUE_SIN[h.astype(np.intp)], np.sin(ang))
        assert np.array_equal(_HUE_COS[h.astype(np.intp)], np.cos(ang))
