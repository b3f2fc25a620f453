"""Faster forms of per-frame computations equal the plain numpy expressions they replace on random input,
to the bit, or to rounding where they sum in another order or solve in closed form (the detector's results
must not move with its speed)."""
import dataclasses
import math

import cv2
import numpy as np

from planner.state import ball_class
from vision.area_resize import resize_area
from vision.balls import LINEAR_LUT, SRGB_LUT
from vision.camera import (
    _UNDISTORT_CRITERIA,
    CameraModel,
    pixel_rays,
    pixels_to_normalised,
    silhouette_circles,
    table_to_pixels,
)
from vision.candidates import _box_count, _peaks, distinct, fill_at, judged_fg, known_sums
from vision.cloth import (
    CHROMA_TAN,
    LIGHT_COARSE,
    LIGHT_SUPPORT,
    UNLIKE_BRIGHT,
    UNLIKE_CHROMA_DEG,
    UNLIKE_DARK,
    ClothModel,
    _above_share,
    _cell_means,
    _fullest_cell,
    _least_median,
    _lit_run,
    _local_linear,
    _local_linear_shifted,
    _moments,
    _near_mean,
    _normal_equations,
    _whole_cells,
    unlike_cloth,
    unlike_shares,
)
from vision.detect import (
    BLOCKY_CHROMA_DEG,
    BLOCKY_CHROMA_SHARE,
    BRIGHT_LINEAR,
    CONTACT_MIN,
    CONTACT_SEEK,
    CONTACT_SEEK_MIN,
    CONTACT_SWEEPS,
    DARK_LINEAR,
    EDGE_CHROMA_DEG,
    EDGE_MIN_DEG,
    EDGE_OWN_SHARE,
    EDGE_STEP,
    LIMB_CLOTH,
    LIMB_DEPTH,
    LIMB_INNER,
    LIMB_NEAR_SHARE,
    LOW_CONTRAST_DEG,
    LOW_LEVEL,
    SEARCH_WIDTHS,
    _inside_others,
    _least_added,
    _search_rules,
    _touching_solve,
    added_light,
    copy_disc,
    halved,
    hue_angle,
    inside_circles,
    near_neighbours,
    near_points,
    outline_normals,
    outline_points,
    place_by_contacts,
    small_median,
    used_rays,
)
from vision.detect_pixels import (
    _alive,
    _any_in_disc,
    _choose,
    _discs,
    _jaw_share,
    _offsets,
    _on_rings,
    _search_pass,
    at_pocket,
    on_circle,
)
from vision.edges import (
    HALF_COLOUR_ROWS,
    HALF_COLOUR_STEP,
    _ballness,
    _sample,
    _towards_white,
    block_contrast,
    half_colour,
)
from vision.fits import CIRCLE_ITERS, WELL_POSED, _gauss_newton_step, _robust_scale, _solve_normal3, fit_circles
from vision.halo_rings import (
    RING_ANGLES,
    RING_GAIN,
    RING_HALF_WIDTH,
    RING_INNER,
    RING_OUTER,
    RING_REACH,
    RING_STEP,
    _best_rings,
    ring_pixels,
)
from vision.identify import (
    COLOUR_NAMES,
    REL_V_MAX_OFF,
    BallFeatures,
    _brightness_gain,
    _colour_cost,
    _colour_prototypes,
    _costs,
    _take_off_white,
    _white_spread,
    id_costs,
)
from vision.intruders import _pieces
from vision.limbs import limb_circles, limb_points
from vision.play_area import (
    EDGE_COVER,
    EDGE_IN,
    EDGE_MOVE,
    EDGE_OUT,
    LINE_ITERS,
    MIN_SIDE_POINTS,
    RUN_WIDTH,
    SIDE_TOL_DEG,
    TANGENT_SPAN,
    _edge_lines,
    _first_cloth,
    _robust_line,
    _tangent_keys,
    row_ends,
)
from vision.runs import row_runs
from vision.shape_candidates import DIM, SEED_HUE_DEG, SHAPE_VOTES, _dim, _local_peaks
from vision.steps import N_RAYS, ray_directions, step_points
from vision.thin_lines import (
    ALONG_SHARE,
    GO_ON,
    MIN_GAIN,
    SAME_SHARE,
    _brightest,
    _sample_offsets,
    _unline,
    _unline_blocks,
)


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


def test_half_colour_sums_the_third_differences_of_cb_cr_by_phase():
    rng = np.random.default_rng(2)
    smooth = cv2.GaussianBlur(rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8), (0, 0), 2.0)
    jpeg = cv2.imdecode(cv2.imencode(".jpg", smooth, [cv2.IMWRITE_JPEG_QUALITY, 100])[1], cv2.IMREAD_COLOR)
    for image in (smooth, jpeg, np.zeros((64, 80, 3), np.uint8)):
        b, g, r = np.moveaxis(image[::HALF_COLOUR_ROWS].astype(np.int64), -1, 0)
        sums = np.zeros(2, np.int64)          # centred inside / between the column pairs 2k, 2k+1
        for c in (128 * b - 43 * r - 85 * g, 128 * r - 107 * g - 21 * b):
            d3 = np.abs(c[:, :-3] - 3 * c[:, 1:-2] + 3 * c[:, 2:-1] - c[:, 3:])
            d3 = d3 * (np.abs(c[:, 3:] - c[:, :-3]) >= 256 * HALF_COLOUR_STEP)
            sums += d3[:, 1::2].sum(), d3[:, 0::2].sum()
        assert half_colour(image) == sums[0] / max(sums[1], 1)


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
    difference is that of their colour terms taken one prototype at a time (``_colour_cost``, the reading's
    rel_v over the frame's gain, ``_brightness_gain``, counted at most REL_V_MAX_OFF off)."""
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
    read = dataclasses.replace(own, rel_v=own.rel_v / _brightness_gain(own))
    assert _brightness_gain(own) != 1.0                # (the gain is taken off here: a test of its use)
    for bid in range(16):
        assert np.array_equal(cost[:, bid], _costs(f if bid == 0 else own, [bid])[:, 0]), bid
    for a, b in ((1, 2), (3, 7), (9, 14), (10, 15)):
        assert ball_class(a) == ball_class(b)
        colour = [_colour_cost(read, *protos[COLOUR_NAMES[k if k < 8 else k - 8]], REL_V_MAX_OFF) for k in (a, b)]
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
        for k in range(3):                # (one reach for all, then one each)
            centres = np.concatenate([rng.uniform(-10, [w + 10, h + 10], (20, 2)),
                                      rng.uniform(0, 1, (6, 2)) * 3 + rng.uniform(0, [w, h])])
            out = smooth.about(centres, reach * rng.uniform(0.8, 1.2, centres.shape[0]) if k else reach)
            done = np.zeros((h, w), bool)
            for x0, y0, x1, y1 in smooth.squares:
                done[y0:y1, x0:x1] = True
            assert np.array_equal(out[done], full[done])


def test_gathered_windows_equal_cv2_bordered_windows():
    """``vision.steps._gather_windows`` lays out each square's window as the window cut to the image and
    filled out by cv2.copyMakeBorder (BORDER_REFLECT_101) would be: windows inside, across one edge or
    corner, and wider than the image (folded more than once); ``_scatter_squares`` puts each square back."""
    from vision.steps import _gather_windows, _scatter_squares
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (9, 12, 3), dtype=np.uint8)
    h, w = img.shape[:2]
    pad, hh, ww = 5, 13, 14
    squares = np.array([[5, 3, 9, 6], [0, 0, 3, 2], [9, 7, 12, 9], [-3, -4, 16, 13], [11, 8, 12, 9], [6, 0, 7, 1]])
    strip = np.empty((hh, ww * len(squares), 3), np.uint8)
    _gather_windows(img.reshape(h, -1), 3, squares, pad, hh, ww, strip.reshape(hh, -1))
    for k, (x0, y0, x1, y1) in enumerate(squares):
        top, left = y0 - pad, x0 - pad
        window = img[max(0, top):min(h, top + hh), max(0, left):min(w, left + ww)]
        cut = (max(0, -top), max(0, top + hh - h), max(0, -left), max(0, left + ww - w))
        assert np.array_equal(strip[:, k * ww:(k + 1) * ww], cv2.copyMakeBorder(window, *cut, cv2.BORDER_REFLECT_101))
    inside = squares[[0, 1, 2, 5]]                   # (squares do not overlap; their windows do)
    out = np.zeros_like(img)
    _gather_windows(img.reshape(h, -1), 3, inside, pad, hh, ww, strip.reshape(hh, -1))
    _scatter_squares(strip.reshape(hh, -1), 3, inside, pad, ww, out.reshape(h, -1))
    for x0, y0, x1, y1 in inside:
        assert np.array_equal(out[y0:y1, x0:x1], img[y0:y1, x0:x1])


def test_step_points_equal_the_plain_numpy_search():
    """``vision.steps.steps_along`` (compiled, the image read as unsigned byte offsets) equals the search it
    describes in numpy: clipped bilinear samples every STEP px, neighbours' squared colour differences less
    the shade's part along the cloth, the parabola vertex about the strongest; lines running off the image."""
    from vision.steps import STEP, steps_along
    rng = np.random.default_rng(11)
    image = cv2.GaussianBlur(rng.integers(0, 256, (60, 80, 3), dtype=np.uint8), (0, 0), 1.5)
    outline = rng.uniform(-5, [85, 65], (5, 16, 2))
    t = rng.uniform(0, 2 * np.pi, (5, 16))
    normals = np.stack([np.cos(t), np.sin(t)], axis=-1)
    cloth, along, hw = np.array([0.3, 0.8, 0.4]), 0.5, 4.0
    pts, strength = steps_along(image, outline, normals, hw, cloth, along)
    off = np.arange(-hw, hw + 1e-9, STEP)
    h, w = image.shape[:2]
    x = np.clip(outline[..., None, 0] + off * normals[..., None, 0], 0.0, w - 1.001)
    y = np.clip(outline[..., None, 1] + off * normals[..., None, 1], 0.0, h - 1.001)
    x0, y0 = x.astype(np.intp), y.astype(np.intp)
    fx, fy = (x - x0)[..., None], (y - y0)[..., None]
    i00, i01 = image[y0, x0].astype(float), image[y0, x0 + 1].astype(float)
    i10, i11 = image[y0 + 1, x0].astype(float), image[y0 + 1, x0 + 1].astype(float)
    a = i00 + (i01 - i00) * fx
    prof = a + (i10 + (i11 - i10) * fx - a) * fy
    d = np.diff(prof, axis=-2)
    u = cloth / np.linalg.norm(cloth)
    full = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
    shade = d[..., 0] * u[0] + d[..., 1] * u[1] + d[..., 2] * u[2]
    e = full - (1.0 - along * along) * shade * shade
    kb = np.clip(e.argmax(axis=-1), 1, off.size - 3)[..., None]
    e0, e1, e2 = (np.take_along_axis(e, kb + j, axis=-1)[..., 0] for j in (-1, 0, 1))
    den = e0 - 2.0 * e1 + e2
    with np.errstate(divide="ignore", invalid="ignore"):
        sub = np.where(den < 0, np.clip(0.5 * (e0 - e2) / den, -0.5, 0.5), 0.0)
    pos = off[0] + (kb[..., 0] + 0.5 + sub) * STEP
    assert np.array_equal(pts, outline + pos[..., None] * normals)
    assert np.array_equal(strength, np.sqrt(np.take_along_axis(full, kb, axis=-1)[..., 0]))


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


def test_classify_kernel_equals_the_plain_numpy_bits():
    """``vision.cloth._classify`` (a pixel at a time from each row's bytes) gives every
    pixel the bits of the plain numpy expression of ``classify``'s rule, with and without pocket holes
    and a brightness limit, for cloth models with and without a lit wedge."""
    from vision.cloth import (
        CHROMA_TAN,
        CLOTH,
        DARK_FRACTION,
        FOREGROUND,
        HOLE_DARK,
        HOLE_DARK_SHARE,
        HOLE_LIT,
        classify,
    )
    rng = np.random.default_rng(7)
    h, w = 61, 97
    half = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    half[::3] = (np.array([60, 140, 40]) * rng.uniform(0.3, 1.6, (w, 1))).clip(0, 255).astype(np.uint8)
    bright = rng.uniform(40, 220, (h, w)).astype(np.float32)
    hole = rng.random((h, w)) < 0.2
    for chroma, light, lit in ((np.array([0.4, 0.85, 0.35]), np.array([0.3, -0.5, 0.8]), (-0.1, 0.3)),
                               (np.array([0.6, 0.6, 0.53]), np.zeros(3), (0.0, 0.0))):
        chroma = chroma / np.linalg.norm(chroma)
        model = ClothModel(chroma=chroma, coef=np.zeros(6), scale=1.0, level=100.0, light=light, lit=lit)
        f = half.astype(np.float64)
        b, g, r = f[..., 0], f[..., 1], f[..., 2]
        a = b * chroma[0] + g * chroma[1] + r * chroma[2]
        q = b * light[0] + g * light[1] + r * light[2]
        e = q - np.minimum(np.maximum(q, lit[0] * a), lit[1] * a)
        off2 = np.maximum(b * b + g * g + r * r - a * a - q * q, 0.0) + e * e
        lit_b = bright.astype(np.float64)
        tan2 = CHROMA_TAN ** 2
        for where, brighter in ((None, np.inf), (hole, np.inf), (hole, 1.7), (None, 1.7)):
            in_hole = np.zeros((h, w), bool) if where is None else where
            a_floor = np.maximum(a, 0.25 * lit_b)
            off = (off2 > tan2 * a_floor * a_floor) & (~in_hole | (a > HOLE_LIT * lit_b))
            dark = ((a < DARK_FRACTION * lit_b) | (a > brighter * lit_b)) & ~in_hole
            want = (CLOTH * ((off2 <= tan2 * a * a) & (a > DARK_FRACTION * lit_b)) + FOREGROUND * (off | dark)
                    + HOLE_DARK * (a < HOLE_DARK_SHARE * lit_b)).astype(np.uint8)
            assert np.array_equal(classify(half, model, bright, where, brighter), want)


def test_symmetry_votes_kernel_equals_the_float_sobel_votes():
    """``vision.candidates._votes`` takes the Sobel sums in whole numbers: its votes equal those of
    cv2's float Sobel of each channel (the strongest channel's gradient, first channel on a tie), each
    voter's two points one radius along it rounded half to even, counted with numpy."""
    from vision.candidates import MIN_GRAD, _votes
    rng = np.random.default_rng(8)
    img = cv2.GaussianBlur(rng.integers(0, 256, (70, 90, 3), dtype=np.uint8), (0, 0), 1.2)
    img[20:40, 30:50] = (20, 200, 240)
    voters = rng.random(img.shape[:2]) < 0.6
    gx = np.stack([cv2.Sobel(img[..., c], cv2.CV_64F, 1, 0, ksize=3) for c in range(3)], axis=-1)
    gy = np.stack([cv2.Sobel(img[..., c], cv2.CV_64F, 0, 1, ksize=3) for c in range(3)], axis=-1)
    m = gx * gx + gy * gy
    best = np.argmax(m, axis=-1)[..., None]
    bx, by, bm = (np.take_along_axis(x, best, axis=-1)[..., 0] for x in (gx, gy, m))
    inner = np.zeros(voters.shape, bool)
    inner[1:-1, 1:-1] = True
    for radius in (np.full((1, 1), 9.5, np.float32), rng.uniform(4, 12, img.shape[:2]).astype(np.float32)):
        rad = np.broadcast_to(radius, voters.shape).astype(np.float64)
        y, x = np.nonzero(voters & inner & (bm >= MIN_GRAD * MIN_GRAD))
        mag = np.sqrt(bm[y, x])
        want = np.zeros(voters.shape, np.float32)
        for sign in (1.0, -1.0):
            px = np.rint(x + sign * (bx[y, x] / mag * rad[y, x])).astype(np.intp)
            py = np.rint(y + sign * (by[y, x] / mag * rad[y, x])).astype(np.intp)
            on = (px >= 0) & (px < img.shape[1]) & (py >= 0) & (py < img.shape[0])
            np.add.at(want, (py[on], px[on]), 1.0)
        assert np.array_equal(_votes(img, voters, radius, MIN_GRAD), want)


def test_new_squares_equal_the_plain_loop():
    """``vision.steps._new_squares`` (compiled) picks the same squares as the plain loop over the centres
    that ``SmoothedNear.about`` describes: a centre's square (of its own reach), cut to the image, inside a
    square picked before (in an earlier call or this one) is skipped."""
    from vision.steps import SmoothedNear, _new_squares
    rng = np.random.default_rng(9)
    slack = SmoothedNear.SLACK
    for (h, w), reach in (((720, 1280), 21.5), ((50, 60), 30.0), ((90, 130), 4.0)):
        done = np.zeros((0, 4), np.int64)
        for _ in range(4):
            centres = np.concatenate([rng.uniform(0, [w - 1, h - 1], (25, 2)),
                                      rng.uniform(0, 1, (6, 2)) * 3 + rng.uniform(0, [w - 4, h - 4])])
            reaches = reach * rng.uniform(0.8, 1.2, centres.shape[0])
            picked = [tuple(s) for s in done.tolist()]
            want = []
            for (u, v), d in zip(centres.tolist(), reaches.tolist()):
                xa, xb = max(0, int(u - d)), min(w, int(u + d) + 2)
                ya, yb = max(0, int(v - d)), min(h, int(v + d) + 2)
                if any(x0 <= xa and y0 <= ya and xb <= x1 and yb <= y1 for x0, y0, x1, y1 in picked):
                    continue
                square = (max(0, xa - slack), max(0, ya - slack), min(w, xb + slack), min(h, yb + slack))
                picked.append(square)
                want.append(square)
            got = _new_squares(centres, reaches, done, slack, h, w)
            assert got.tolist() == [list(s) for s in want]
            done = np.concatenate([done, got])


def test_quantile_by_counting_equals_the_sorted_rows():
    """``vision.identify._quantile`` finds each row's order statistics by counting its 8-bit codes:
    equal to the q-quantile of the looked-up values sorted (masked points last), for the linear-light
    table (float32) and the codes themselves, at every q, for rows of any share of points."""
    from vision.balls import CODES_LUT, LINEAR_LUT
    from vision.identify import _order_stats, _quantile
    rng = np.random.default_rng(10)
    for trial in range(60):
        M, G = int(rng.integers(1, 12)), int(rng.integers(1, 400))
        codes = rng.integers(0, int(rng.integers(1, 257)), (M, G)).astype(np.uint8)
        mask = (rng.random((M, G)) < rng.uniform(0.01, 1)) | (trial % 3 == 0)
        mask[np.arange(M), rng.integers(0, G, M)] = True
        for lut in (LINEAR_LUT, CODES_LUT):
            v = np.sort(np.where(mask, lut[codes], np.inf), axis=1)
            for q in (0.0, 0.05, 0.5, 0.75, 1.0):
                pos = q * (mask.sum(axis=1) - 1)
                lo = np.floor(pos).astype(np.intp)
                a, b = v[np.arange(M), lo], v[np.arange(M), np.minimum(lo + 1, G - 1)]
                want = a + (pos - lo) * np.where(np.isfinite(b), b - a, 0.0)
                got = _quantile(codes, lut, mask, q)
                assert got.dtype == want.dtype and np.array_equal(got, want)
                assert np.array_equal(lut[_order_stats(codes, mask, lo, lo)[0]], a)


def test_row_sums_of_three_equal_numpy_reductions():
    """``vision.cloth._sum3`` adds a row's three values as numpy's reductions along the row do: the same
    sums as x.sum(axis=1), and its root of squares the same norms as np.linalg.norm(x, axis=1)."""
    from vision.cloth import _sum3
    rng = np.random.default_rng(11)
    for n in (1, 5, 16, 1244, 2840, 100000):
        x = rng.integers(0, 256, (n, 3)) * rng.uniform(0.5, 1.5, (n, 3))
        u = x / np.linalg.norm(x, axis=1, keepdims=True)
        assert np.array_equal(_sum3(u), u.sum(axis=1))
        assert np.array_equal(np.sqrt(_sum3(x * x)), np.linalg.norm(x, axis=1))


def test_normal_3x3_solve_equals_lapack():
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 5, 12, 48) * 30:
        j = rng.normal(0, 1, (n, 3))
        a = j.T @ (j * rng.uniform(0, 1, n)[:, None]) + 1e-9 * np.eye(3)
        a = (a + a.T) / 2
        a[1, 0] = np.nextafter(a[0, 1], np.inf)        # (the lower twin of a01 may round otherwise)
        b = rng.normal(0, 1, 3)
        x = _solve_normal3(a[0, 0], a[0, 1], a[1, 0], a[0, 2], a[1, 1], a[1, 2], a[2, 2], *b)
        if np.linalg.det(a) > WELL_POSED * np.prod(np.diag(a)):
            assert np.allclose(x, np.linalg.solve(a, b), rtol=1e-11, atol=0)
        else:                                          # (near singular: LAPACK's own rounding)
            assert np.array_equal(x, np.linalg.solve(a, b))


def test_gauss_newton_step_equals_the_normal_equations():
    rng = np.random.default_rng(6)
    for n, wp, rp in ((48, 0.0, 0.0), (48, 4.0, 0.3), (7, 0.0, 0.0), (20, 1.0, -2.0)):
        jac = rng.normal(0, 1, (n, 2))
        r, tw = rng.normal(0, 1, n), rng.uniform(0, 1, n) * (rng.random(n) > 0.2)
        J = np.c_[jac, -np.ones(n)]
        A = J.T @ (tw[:, None] * J) + 1e-9 * np.eye(3) + np.diag([0, 0, wp])
        b = J.T @ (tw * r) + np.array([0, 0, wp * rp])
        assert np.allclose(_gauss_newton_step(jac, r, tw, wp, rp), np.linalg.solve(A, b), rtol=1e-9, atol=1e-12)


def test_robust_scale_is_the_median_of_the_used_residuals():
    rng = np.random.default_rng(7)
    buf = np.empty(48)
    for n_used in (0, 1, 2, 7, 30, 48):
        r = rng.normal(0, 2, 48)
        mask = np.zeros(48, bool)
        mask[rng.permutation(48)[:n_used]] = True
        used = np.abs(r[mask]) * 3.0
        lower = _robust_scale(r, mask, 3.0, buf, True)
        mean = _robust_scale(r, mask, 3.0, buf, False)
        if n_used == 0:
            assert lower == mean == -1.0
        else:
            assert lower == np.sort(used)[(n_used - 1) // 2]
            assert mean == np.median(used)


def test_robust_scale_selects_the_sorted_middle_with_ties():
    """``_robust_scale`` selects its middle values in place (``_kth_smallest``), not by sorting: the same
    values as the sorted residuals' middle for every count 1..48, with many equal residuals and with
    none, and every residual value stays in the scratch."""
    rng = np.random.default_rng(8)
    for n in range(1, 49):
        for r in (rng.integers(-3, 4, 48).astype(np.float64), rng.normal(0, 1, 48)):
            mask = np.zeros(48, bool)
            mask[rng.permutation(48)[:n]] = True
            used = np.sort(np.abs(r[mask]))
            buf = np.empty(48)
            assert _robust_scale(r, mask, 1.0, buf, True) == used[(n - 1) // 2]
            assert np.array_equal(np.sort(buf[:n]), used)
            assert _robust_scale(r, mask, 1.0, buf, False) == 0.5 * (used[(n - 1) // 2] + used[n // 2])


def test_unlike_cloth_equals_the_sampled_numpy_expression():
    rng = np.random.default_rng(8)
    image = cv2.GaussianBlur(rng.integers(0, 256, (180, 240, 3), dtype=np.uint8), (0, 0), 2.0)
    image[40:90, 50:120] = (60, 140, 40)
    hole = np.zeros((90, 120), bool)
    hole[10:30, 60:90] = True
    chroma = np.array([60.0, 140.0, 40.0]) / np.linalg.norm([60.0, 140.0, 40.0])
    model = ClothModel(chroma=chroma, coef=np.array([150.0, 20.0, -10.0, 5.0, 3.0, -4.0]), scale=1 / 120, level=150.0,
                       light=np.zeros(3), lit=(0.0, 0.0))
    centres = np.r_[rng.uniform(-10, 250, (40, 2)), [[80.0, 60.0], [150.0, 40.0]]]
    radii = rng.uniform(4, 30, 42)
    t = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
    ring = np.stack([np.cos(t), np.sin(t)], axis=1)
    offs = np.concatenate([np.zeros((1, 2))] + [f * ring for f in (0.3, 0.55, 0.8)])
    p = centres[:, None, :] + radii[:, None, None] * offs[None]
    u = np.clip(np.rint(p[..., 0]).astype(np.intp), 0, image.shape[1] - 1)
    v = np.clip(np.rint(p[..., 1]).astype(np.intp), 0, image.shape[0] - 1)
    f = image[v, u].astype(np.float64)
    a = f @ model.chroma
    perp = np.sqrt(np.maximum(np.einsum("mkc,mkc->mk", f, f) - a * a, 0.0))
    lit = model.brightness((p[..., 0] - 0.5) / 2, (p[..., 1] - 0.5) / 2)
    unlike = (perp > np.tan(np.radians(UNLIKE_CHROMA_DEG)) * np.maximum(a, 1.0)) | (a > UNLIKE_BRIGHT * lit) \
        | (a < UNLIKE_DARK * lit)
    in_hole = hole[np.minimum(v // 2, hole.shape[0] - 1), np.minimum(u // 2, hole.shape[1] - 1)]
    expected = (unlike & ~in_hole).mean(axis=1)
    got = unlike_cloth(image, model, centres, radii, hole)
    assert expected.min() < 0.5 < expected.max()           # (cloth and not cloth both sampled)
    assert np.array_equal(got, expected)
    assert np.array_equal(unlike_shares(image, model, centres, radii, hole), np.stack([expected, (~in_hole).mean(axis=1)], 1))


def test_white_spread_equals_the_principal_axis_numpy_expression():
    rng = np.random.default_rng(9)
    M, G = 12, 385
    white = rng.random((M, G)) < rng.uniform(0, 0.5, (M, 1))
    white[0] = False
    white[1, :] = False
    white[1, :2] = True                                  # (fewer than 3: no spread)
    off, r_px = rng.normal(0, 6, (M, G, 2)), rng.uniform(8, 20, M)
    want = np.full(M, np.nan)
    for m in range(M):
        o = off[m][white[m]]
        if o.shape[0] >= 3:
            d = o - o.mean(axis=0)
            cov = d.T @ d / o.shape[0]
            want[m] = np.sqrt(max(np.linalg.eigvalsh(cov)[0], 0.0)) / r_px[m]
    got = _white_spread(white, off, r_px)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.isnan(want).sum() == 2
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_take_off_white_equals_the_float32_look_ups():
    rng = np.random.default_rng(10)
    pix = rng.integers(0, 256, (9, 385, 3), dtype=np.uint8)
    added = np.r_[0.0, rng.uniform(0, 0.5, 7), 2.0].astype(np.float32)
    lin = np.clip(LINEAR_LUT[pix] - added[:, None, None], 0.0, 1.0)
    assert lin.dtype == np.float32
    want = SRGB_LUT[np.rint(lin * (SRGB_LUT.size - 1)).astype(np.intp)]
    assert np.array_equal(_take_off_white(pix, added, LINEAR_LUT, SRGB_LUT), want)


def _taken_off(img, a):
    """The plain float32 look-ups of ``vision.cloth.take_off_light``: img (h, w, 3) uint8 with a (h, w) float32 of
    the light colour ``_OFF_COLOUR`` taken off, at most what leaves each channel at LIGHT_FLOOR."""
    from vision.cloth import LIGHT_FLOOR
    lin = LINEAR_LUT[img]
    with np.errstate(divide="ignore"):
        inv = np.where(_OFF_COLOUR > 0, (1.0 / _OFF_COLOUR.astype(np.float64)).astype(np.float32), np.float32(0))
    cap = ((lin - LINEAR_LUT[LIGHT_FLOOR]) * inv).min(axis=-1)
    a = np.minimum(a, cap)
    assert a.dtype == np.float32
    new = (lin - a[..., None] * _OFF_COLOUR) * np.float32(SRGB_LUT.size - 1)
    idx = (new.astype(np.float64) + 0.5).astype(np.intp)         # (numba adds 0.5 in float64)
    return np.where((a > 0)[..., None], SRGB_LUT[np.where((a > 0)[..., None], idx, 0)], img)


_OFF_COLOUR = np.array([0.9, 1.05, 0.0], np.float32)     # (a tinted light, one channel without light)


def test_take_off_light_equals_the_float32_look_ups():
    """``take_off_light`` (a pixel at a time, the light's least against its three caps) takes each pixel's block
    of the field off as the plain float32 look-ups do: at half resolution and at full resolution (blocks of 2 x 2
    from an origin, the field reaching past the image's edge), everywhere or only near given pixels."""
    from vision.cloth import AddedLight, take_off_light
    rng = np.random.default_rng(14)
    img = rng.integers(0, 256, (53, 71, 3), dtype=np.uint8)
    img[::5] = rng.integers(0, 4, (71, 3))                                    # (dark pixels: the caps)
    for step, origin, shape in ((1, (0, 0), (53, 71)), (2, (3, 4), (26, 35))):
        field = rng.uniform(-0.1, 0.6, shape).astype(np.float32)
        light = AddedLight(field=field, colour=_OFF_COLOUR)
        near = rng.random(shape) < 0.4
        for mask in (None, near):
            a = np.zeros(img.shape[:2], np.float32)
            on = np.ones(shape, bool) if mask is None else mask
            block = np.kron(np.where(on, field, 0), np.ones((step, step), np.float32))
            u0, v0 = origin
            hh, ww = min(block.shape[0], 53 - v0), min(block.shape[1], 71 - u0)
            a[v0:v0 + hh, u0:u0 + ww] = block[:hh, :ww]
            assert np.array_equal(take_off_light(img, light, origin, step, mask), _taken_off(img, a))


def test_own_light_off_equals_the_numpy_rule_then_the_take_off():
    """``vision.cloth._own_light_off`` (one pass a row) gives each table pixel that shows the cloth (CLOTH of
    ``classify``, its own light below the field or at most LIGHT_ROBUST above it, within LIGHT_PLANE_DEG of the
    plane) its own light, floors the field at 0 and takes it off, as the plain numpy expressions and look-ups do."""
    from vision.cloth import CLOTH, DARK_FRACTION, LIGHT_FLOOR, LIGHT_PLANE_DEG, LIGHT_ROBUST, _own_light_off, classify
    rng = np.random.default_rng(15)
    h, w = 47, 83
    half = (np.array([60, 140, 40]) * rng.uniform(0.3, 1.8, (h, w, 1)) + rng.normal(0, 6, (h, w, 3)))
    half = half.clip(0, 255).astype(np.uint8)
    half[::4] = rng.integers(0, 256, (w, 3))
    bright = rng.uniform(60, 160, (h, w)).astype(np.float32)
    table = rng.random((h, w)) < 0.85
    chroma = np.array([0.4, 0.85, 0.35]) / np.linalg.norm([0.4, 0.85, 0.35])
    light = np.ones(3) - chroma.sum() * chroma
    model = ClothModel(chroma=chroma, coef=np.zeros(6), scale=1.0, level=100.0, light=light / np.linalg.norm(light),
                       lit=(-0.1, 0.4))
    normal = np.cross(LINEAR_LUT[[60, 140, 40]], np.ones(3))          # (the plane of the cloth's colour and white)
    normal, unmix = normal / np.linalg.norm(normal), np.array([-0.3, 0.2, 1.1])
    lin = LINEAR_LUT[half]
    own = (lin[..., 0] * unmix[0] + lin[..., 1] * unmix[1]) + lin[..., 2] * unmix[2]
    field = (own + rng.normal(0, 0.03, (h, w))).astype(np.float32)
    off = (lin[..., 0] * normal[0] + lin[..., 1] * normal[1]) + lin[..., 2] * normal[2]
    sin2 = np.sin(np.radians(LIGHT_PLANE_DEG)) ** 2
    cloth = ((classify(half, model, bright) & CLOTH) > 0) & table
    mine = cloth & (own - field < LIGHT_ROBUST) & (off * off < sin2 * (lin * lin).sum(axis=-1, dtype=np.float32))
    assert 0.1 < mine.mean() < 0.9
    want = np.maximum(np.where(mine, own.astype(np.float32), field), np.float32(0))
    got = field.copy()
    out = _own_light_off(half, table, got, LINEAR_LUT, SRGB_LUT, unmix, normal, model.chroma, model.light, -0.1, 0.4,
                         bright, CHROMA_TAN ** 2, DARK_FRACTION, LIGHT_ROBUST, sin2, _OFF_COLOUR,
                         LINEAR_LUT[LIGHT_FLOOR])
    assert np.array_equal(got, want) and np.array_equal(out, _taken_off(half, want))


def test_hue_angle_equals_the_numpy_expression():
    rng = np.random.default_rng(12)
    body, cloth = rng.uniform(0, 1, (2000, 3)), rng.uniform(0, 1, (2000, 3))
    cloth[:5] = body[:5]                                 # (the same colour: 0 deg)
    body[5] = 0.0                                        # (no colour at all)
    cos = np.sum(body * cloth, axis=1) / np.maximum(np.linalg.norm(body, axis=1) * np.linalg.norm(cloth, axis=1), 1e-12)
    np.testing.assert_allclose(hue_angle(body, cloth), np.degrees(np.arccos(np.clip(cos, -1, 1))), rtol=0, atol=1e-12)


def test_limb_circles_equal_the_numpy_passes():
    rng = np.random.default_rng(9)
    cloth = np.array([40.0, 140.0, 60.0])
    yy, xx = np.mgrid[0:200, 0:300]
    level = np.ones((200, 300))
    centres = np.array([[60.0, 60.0], [150.0, 100.0], [240.0, 140.0], [95.0, 150.0]])
    for cx, cy in centres:
        d = np.hypot(xx - cx, yy - cy) - 15.0      # a ball of the cloth's hue: its darker limb, its shadow outside
        dip = np.exp(-d ** 2 / (2 * 1.2 ** 2))
        level = np.minimum(level, np.where(d < 0, 0.75 - 0.25 * dip, 1.0 - 0.5 * dip))
    image = np.clip(level[..., None] * cloth + rng.normal(0, 2.0, (200, 300, 3)), 0, 255).astype(np.uint8)
    c0 = centres + rng.uniform(-3, 3, centres.shape)
    local = np.ascontiguousarray(np.tile(LINEAR_LUT[cloth.astype(np.intp)], (4, 1)))
    others, others_r = np.array([[120.0, 70.0]]), np.array([20.0])     # stops the second ball's lines towards it
    dirs = ray_directions()
    lo, hi = 10.5, 19.5
    c, r = c0.copy(), np.full(4, 15.0)
    for hw in SEARCH_WIDTHS:
        outline = c[:, None, :] + r[:, None, None] * dirs[None]
        normals = np.broadcast_to(dirs[None], outline.shape).copy()
        pts, valid = limb_points(image, LINEAR_LUT, outline, normals, hw, EDGE_STEP, local, LIMB_DEPTH, *LIMB_CLOTH,
                                 LIMB_INNER)
        valid &= ~inside_circles(outline + (hw + 1.0) * normals, others, others_r)
        c, r, rms, tw = fit_circles(pts, valid, c, r)
        r = np.clip(r, lo, hi)
    got = limb_circles(image, LINEAR_LUT, c0, np.full(4, 15.0), dirs, np.asarray(SEARCH_WIDTHS), EDGE_STEP, local,
                       LIMB_DEPTH, *LIMB_CLOTH, LIMB_INNER, others, others_r, lo, hi, CIRCLE_ITERS)
    n = (tw > 0.5).sum(axis=1)
    assert n.min() >= 20 and n[1] < N_RAYS                  # (limbs found; some lines stopped by the other circle)
    for a, b in zip(got, (c, r, rms, n)):
        assert np.array_equal(a, b)


def test_brightest_channel_equals_the_split_maximum():
    rng = np.random.default_rng(10)
    for shape in ((1, 1, 3), (37, 53, 3), (180, 320, 3)):
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        b, g, r = cv2.split(image)
        assert np.array_equal(_brightest(image), cv2.max(cv2.max(b, g), r).reshape(shape[:2]))


def test_line_blocks_equal_the_line_search_over_their_pixels():
    rng = np.random.default_rng(11)
    image = cv2.GaussianBlur(rng.integers(60, 160, (120, 160, 3), dtype=np.uint8), (0, 0), 1.5)
    cv2.circle(image, (80, 60), 40, (230, 230, 230), 1)           # a thin ring of added light
    cv2.line(image, (10, 100), (150, 90), (200, 220, 210), 1)
    near = np.zeros((60, 80), bool)
    near[rng.integers(0, 60, 300), rng.integers(0, 80, 300)] = True
    near[28:33, 18:24] = True                                     # neighbours' blocks overlapping
    near[45, 72:] = True                                          # a run of them to the right edge
    where = np.zeros(image.shape[:2], bool)
    for v, u in np.argwhere(near):                                # each block, 2 px either side
        where[max(2 * v - 2, 0):2 * v + 4, max(2 * u - 2, 0):2 * u + 4] = True
    dirs = np.array([[2, 0], [0, 2], [1, 1], [-1, 1]], np.int64)
    args = (dirs, MIN_GAIN, SAME_SHARE, ALONG_SHARE, GO_ON)
    out_a, changed_a = image.copy(), np.zeros(image.shape[:2], bool)
    _unline(image, out_a, changed_a, where, *args)
    out_b, changed_b = np.zeros_like(image), np.zeros(image.shape[:2], bool)   # (it copies the frame itself)
    _unline_blocks(image, out_b, changed_b, near, 2, *args)
    assert changed_a.sum() > 50
    assert np.array_equal(changed_a, changed_b) and np.array_equal(out_a, out_b)


def test_halved_frame_equals_cv2_area_resize():
    """``vision.detect.halved`` equals cv2.resize's INTER_AREA halving of the whole image (odd sizes: the last
    row, column dropped) and of a crop from an origin (the registered detector's), to the bit."""
    rng = np.random.default_rng(15)
    for shape in ((2, 2, 3), (7, 9, 3), (36, 64, 3), (91, 130, 3)):
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        h, w = shape[0] // 2, shape[1] // 2
        want = cv2.resize(image[:2 * h, :2 * w], (w, h), interpolation=cv2.INTER_AREA)
        assert np.array_equal(halved(image, 0, 0, w, h), want)
        u0, v0 = int(rng.integers(0, shape[1] - 1)), int(rng.integers(0, shape[0] - 1))
        hw, hh = (shape[1] - u0) // 2, (shape[0] - v0) // 2
        want = cv2.resize(image[v0:v0 + 2 * hh, u0:u0 + 2 * hw], (hw, hh), interpolation=cv2.INTER_AREA)
        assert np.array_equal(halved(image, u0, v0, hw, hh), want)


def test_row_runs_equal_the_plain_runs_of_each_row():
    rng = np.random.default_rng(14)
    for shape in ((1, 1), (3, 5), (37, 53), (60, 80)):         # (sizes that are no multiple of eight too)
        for share in (0.0, 0.05, 0.5, 1.0):
            mask = rng.random(shape) < share
            want = []
            for y, row in enumerate(mask):
                step = np.diff(np.concatenate([[0], row.astype(np.int8), [0]]))
                want += [(y, a, b) for a, b in zip(np.flatnonzero(step == 1), np.flatnonzero(step == -1))]
            assert list(zip(*(a.tolist() for a in row_runs(mask)))) == want


def _lined_image(rng):
    """(120, 160, 3) uint8: a blurred random surface with thin lines of added light (a ring, a slanted line)."""
    image = cv2.GaussianBlur(rng.integers(60, 160, (120, 160, 3), dtype=np.uint8), (0, 0), 1.5)
    cv2.circle(image, (80, 60), 40, (230, 230, 230), 1)
    cv2.circle(image, (70, 55), 22, (120, 250, 200), 2)
    cv2.line(image, (10, 100), (150, 80), (200, 220, 210), 1)
    return image


def _plain_unline(image, reach, fine):
    """(out, changed) of the line test of vision.thin_lines in plain float numpy, every pixel at least
    2 reach inside the frame, the directions in order (a later one taken only where it gains more)."""
    img = image.astype(np.float64)
    h, w = img.shape[:2]
    m = 2 * reach
    def at(dy, dx):
        return img[m + dy:h - m + dy, m + dx:w - m + dx]
    def gain(oy, ox, dy, dx):                     # the gains of the pixels (oy, ox) off, across (dy, dx)
        a, b = at(oy + dy, ox + dx), at(oy - dy, ox - dx)
        g = at(oy, ox) - np.maximum(a, b)
        return g.min(axis=2), g.max(axis=2), ((a - b) ** 2).sum(axis=2)
    dirs = _sample_offsets(reach, fine)
    out, changed = image.copy(), np.zeros((h, w), bool)
    best = np.zeros((h - 2 * m, w - 2 * m))
    for k, (dx, dy) in enumerate(dirs):
        px, py = dirs[k ^ 1]
        gmin, gmax, diff2 = gain(0, 0, dy, dx)
        take = ((gmax >= MIN_GAIN) & (gmin >= 0) & (diff2 <= (SAME_SHARE * gmax) ** 2) & (gmax > best)
                & (gain(0, 0, py, px)[1] < ALONG_SHARE * gmax)
                & (gain(py, px, dy, dx)[1] >= GO_ON * gmax) & (gain(-py, -px, dy, dx)[1] >= GO_ON * gmax))
        best[take] = gmax[take]
        changed[m:h - m, m:w - m] |= take
        surface = (at(dy, dx).astype(np.int64) + at(-dy, -dx).astype(np.int64) + 1) // 2
        out[m:h - m, m:w - m][take] = surface[take]
    return out, changed


def test_line_search_equals_the_plain_float_test():
    rng = np.random.default_rng(12)
    image = _lined_image(rng)
    everywhere = np.ones(image.shape[:2], bool)
    for reach, fine in ((2, False), (3, False), (3, True), (5, True)):
        out, changed = image.copy(), np.zeros(image.shape[:2], bool)
        _unline(image, out, changed, everywhere, _sample_offsets(reach, fine), MIN_GAIN, SAME_SHARE, ALONG_SHARE,
                GO_ON)
        want_out, want_changed = _plain_unline(image, reach, fine)
        assert changed.sum() > 100
        assert np.array_equal(changed, want_changed) and np.array_equal(out, want_out)


def test_best_rings_equal_the_plain_ray_profiles():
    rng = np.random.default_rng(13)
    image = cv2.GaussianBlur(rng.integers(40, 200, (160, 200, 3), dtype=np.uint8), (0, 0), 1.0)
    cv2.circle(image, (70, 80), 24, (250, 250, 250), 2)
    cv2.circle(image, (150, 60), 30, (240, 255, 245), 2)
    centres = np.array([[70.3, 79.6], [150.0, 60.4], [190.0, 150.0], [30.0, 30.0]])
    radii = np.array([12.0, 14.5, 13.0, 11.0])
    rho, share = _best_rings(image, centres, radii, RING_INNER, RING_OUTER, RING_STEP, RING_ANGLES, RING_REACH,
                             RING_GAIN)
    off = int(round(RING_REACH / RING_STEP))
    a = 2.0 * np.pi * np.arange(RING_ANGLES) / RING_ANGLES
    for m, ((cu, cv), r) in enumerate(zip(centres, radii)):
        n_rho = int((RING_OUTER - RING_INNER) * r / RING_STEP)
        d = RING_INNER * r - off * RING_STEP + RING_STEP * np.arange(n_rho + 2 * off)
        x = np.clip(np.rint(cu + d[None] * np.cos(a)[:, None]).astype(int), 0, image.shape[1] - 1)
        y = np.clip(np.rint(cv + d[None] * np.sin(a)[:, None]).astype(int), 0, image.shape[0] - 1)
        prof = image[y, x].astype(np.float64)                       # (rays, samples, 3)
        g = prof[:, off:off + n_rho] - np.maximum(prof[:, :n_rho], prof[:, 2 * off:])
        counts = ((g >= 0).all(axis=2) & (g.max(axis=2) >= RING_GAIN)).sum(axis=0).astype(np.float64)
        k = int(np.argmax(counts))
        lo, hi = max(k - 2, 0), min(k + 3, n_rho)
        mid = (np.arange(lo, hi) * counts[lo:hi]).sum() / max(counts[lo:hi].sum(), 1.0) if counts[k] > 0 else k
        assert rho[m] == RING_INNER * r + RING_STEP * mid and share[m] == counts[k] / RING_ANGLES
    assert share[:2].min() > 0.8 and share[2:].max() < 0.3                # (rings found about the first two)


def test_ring_pixels_equal_the_distance_to_every_ring():
    rng = np.random.default_rng(14)
    balls = rng.uniform(20, 180, (9, 1, 2)) + rng.uniform(-10, 10, (9, 60, 2))      # 9 groups of 60 points
    balls[4, 7] = np.nan                                                             # (a group without a bound)
    rings = np.concatenate([rng.uniform(20, 180, (6, 2)), rng.uniform(15, 40, (6, 1))], axis=1)
    rings[5] = [balls[2, 0, 0] + 25.0 + RING_HALF_WIDTH, balls[2, 0, 1], 25.0]       # a point on a band's edge
    for points in (balls, balls[0], balls[:0], balls.reshape(3, 3, 60, 2)):
        want = np.zeros(points.shape[:-1], bool)
        for u, v, rho in rings:
            want |= np.abs(np.hypot(points[..., 0] - u, points[..., 1] - v) - rho) <= RING_HALF_WIDTH
        assert np.array_equal(ring_pixels(points, rings), want)
    assert 20 < ring_pixels(balls, rings).sum() < balls.size // 4 and ring_pixels(balls, rings)[2, 0]


def test_near_points_equal_the_points_dilated_by_a_square():
    """The squares drawn about each point equal the points' mask dilated by a (2 ceil(reach) + 1)-square
    (pixels at the grid's border, points sharing a pixel, no point at all)."""
    rng = np.random.default_rng(12)
    for _ in range(300):
        h, w = rng.integers(5, 90, 2)
        pts = rng.uniform(0, [w, h], (rng.integers(0, 9), 2))
        reach = rng.uniform(0, 30)
        mask = np.zeros((h, w), np.uint8)
        mask[pts[:, 1].astype(np.intp), pts[:, 0].astype(np.intp)] = 1
        k = 2 * int(np.ceil(reach)) + 1
        np.testing.assert_array_equal(near_points((h, w, 3), pts, reach),
                                      cv2.dilate(mask, np.ones((k, k), np.uint8)) > 0)


def test_cloth_edge_equals_the_numpy_samples():
    """``vision.play_area._first_cloth`` (a numba walk inwards at each pixel along a side) equals the
    plain expression: every sample (p + t d) + j n rounded, the first cloth sample from EDGE_OUT px out
    to EDGE_IN px in where it is not the outermost and the outermost is on the image; random masks,
    sides crossing the image's edges, lengths not whole pixels."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        cloth = (rng.random((60, 80)) < rng.uniform(0.2, 0.8)).astype(np.uint8)
        p = rng.uniform(-10, 90, 2)
        a = rng.uniform(0, 2 * np.pi)
        d = np.array([np.cos(a), np.sin(a)])
        n = np.array([-d[1], d[0]])
        length = float(rng.uniform(1, 80))
        t = np.arange(0.0, length)
        j = np.arange(-EDGE_OUT, EDGE_IN + 1, dtype=np.float64)
        xy = p + t[:, None, None] * d + j[None, :, None] * n
        ix, iy = np.rint(xy[..., 0]).astype(np.intp), np.rint(xy[..., 1]).astype(np.intp)
        inside = (ix >= 0) & (ix < 80) & (iy >= 0) & (iy < 60)
        on = np.zeros(ix.shape, bool)
        on[inside] = cloth[iy[inside], ix[inside]] > 0
        first = np.argmax(on, axis=1)
        ok = on.any(axis=1) & (first > 0) & inside[:, 0]
        np.testing.assert_array_equal(_first_cloth(cloth, *p, *d, *n, int(np.ceil(length)), EDGE_OUT, EDGE_IN),
                                      xy[np.flatnonzero(ok), first[ok]])


def test_edge_lines_equal_the_numpy_side_refits():
    """``vision.play_area._edge_lines`` (``to_cloth_edges``' four sides in one kernel) equals, to rounding, the
    numpy steps it replaced: each side's inward normal, its cloth edge points, their robust line, the share of
    each third of the side within RUN_WIDTH / 2 of it and the move of its ends; cloth masks of a tilted
    quadrilateral with ragged edges and holes, corners placed near or off their edges."""
    rng = np.random.default_rng(44)
    refitted = 0
    for _ in range(60):
        h, w = 120, 200
        quad = np.array([[20, 15], [180, 10], [185, 105], [15, 110]], np.float64) + rng.normal(0, 3, (4, 2))
        cloth = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(cloth, np.rint(quad).astype(np.int32), 1)
        cloth[rng.random((h, w)) < rng.uniform(0, 0.3)] = 0
        corners = quad + rng.normal(0, 3, (4, 2))
        want = []
        centre = corners.mean(axis=0)
        for p, q in zip(corners, np.roll(corners, -1, axis=0)):
            length = np.linalg.norm(q - p)
            d = (q - p) / length
            n = np.array([-d[1], d[0]])
            n = n if (centre - p) @ n > 0 else -n
            pts = _first_cloth(cloth, *p, *d, *n, int(np.ceil(length)), EDGE_OUT, EDGE_IN)
            want.append(np.concatenate([p, d]))
            if pts.shape[0] < MIN_SIDE_POINTS:
                continue
            m, e = _robust_line(pts)
            normal = np.array([-e[1], e[0]])
            near = np.abs((pts - m) @ normal) <= RUN_WIDTH / 2
            third = np.minimum(((pts - p) @ d * 3 / length).astype(np.intp), 2)
            cover = np.bincount(third[near], minlength=3) / (length / 3)
            if cover.min() >= EDGE_COVER and max(abs((p - m) @ normal), abs((q - m) @ normal)) > EDGE_MOVE:
                want[-1] = np.concatenate([m, e])
                refitted += 1
        got = _edge_lines(cloth, corners, EDGE_OUT, EDGE_IN, MIN_SIDE_POINTS, LINE_ITERS, RUN_WIDTH / 2, EDGE_COVER,
                          EDGE_MOVE)
        np.testing.assert_allclose(got, np.array(want), rtol=0, atol=1e-9)
    assert refitted > 20                   # (sides refitted and sides kept both tested)


def test_lit_run_equals_the_numpy_bins():
    """``vision.cloth._lit_run`` (the lit wedge's run of t in one kernel) equals the numpy steps it replaced:
    t and the distance off the plane of each colour, the bins of those near it, the run of full bins about
    0 and the shares of the widened run beyond CHROMA_TAN and 2 CHROMA_TAN; random colour clouds about a
    cloth colour with part of them lit towards white, a few to thousands of samples."""
    rng = np.random.default_rng(45)
    tan, t_max, step, min_share, mode_share = CHROMA_TAN, 3.0, 0.05, 0.002, 0.15
    lit_seen = 0
    for _ in range(100):
        chroma = np.array([0.45, 0.8, 0.3]) + rng.normal(0, 0.1, 3)
        chroma /= np.linalg.norm(chroma)
        white = np.ones(3) / np.sqrt(3)
        light = white - (white @ chroma) * chroma
        light /= np.linalg.norm(light)
        n = int(rng.integers(20, 3000))
        s = chroma * rng.uniform(60, 200, (n, 1)) + rng.normal(0, rng.uniform(1, 8), (n, 3))
        s[: int(rng.uniform(0, 0.5) * n)] += rng.uniform(0, 80) * white
        s = np.clip(s, 0, 255).round()
        a, b = s @ chroma, s @ light
        t = b / np.maximum(a, 1e-9)
        perp2 = np.maximum(np.einsum("ij,ij->i", s, s) - a * a - b * b, 0.0)
        inplane = (perp2 <= (tan * a) ** 2) & (np.abs(t) < t_max)
        nb = int(round(t_max / step))
        full = np.bincount(np.floor(t[inplane] / step).astype(np.intp) + nb, minlength=2 * nb) >= max(3, min_share * n)
        lo = hi = nb
        while lo > 0 and full[lo - 1]:
            lo -= 1
        while hi < 2 * nb - 1 and full[hi + 1]:
            hi += 1
        t_lo, t_hi = (lo + 1 - nb) * step, (hi - nb) * step
        run = inplane & (t >= t_lo - step) & (t <= t_hi + step)
        far = np.abs(t) > 2 * tan
        near = (np.abs(t) > tan) & ~far
        lit = max((run & far).sum(), (run & near).sum()) >= mode_share * run.sum()
        assert _lit_run(s, chroma, light, tan, t_max, step, min_share, mode_share) == (t_lo, t_hi, lit)
        lit_seen += lit
    assert 10 < lit_seen < 90                 # (lit and unlit clouds both tested)


def test_known_sums_give_the_box_filters_counts():
    """``known_sums`` read by ``_box_count`` gives cv2.boxFilter's unnormalised box sums of a 0/1 mask
    (its BORDER_REFLECT_101 border included), for boxes from 3 px to wider than the mask."""
    rng = np.random.default_rng(15)
    for _ in range(60):
        h, w = rng.integers(2, 30, 2)
        box = int(rng.integers(1, 12)) * 2 + 1
        known = (rng.random((h, w)) < rng.uniform(0.1, 0.95)).astype(np.uint8)
        want = cv2.boxFilter(known, cv2.CV_32F, (box, box), normalize=False)
        sums = known_sums(known, box)
        got = np.array([[_box_count(sums, y, x, box // 2) for x in range(w)] for y in range(h)])
        np.testing.assert_array_equal(got, want)


def test_peaks_equal_the_plain_local_maxima():
    """``vision.candidates._peaks`` (its second pass over the qualifying pixels it listed) equals the plain
    expression: the pixels ``where`` with enough votes and a full enough square (the judged pixels counted
    by cv2.boxFilter), of those the ones no qualifying 8-neighbour outvotes, in scan order (random votes
    with ties, squares cut by the border)."""
    rng = np.random.default_rng(13)
    for _ in range(40):
        h, w = rng.integers(3, 40, 2)
        votes = rng.integers(0, 6, (h, w)).astype(np.float32)          # whole numbers: ties between neighbours
        where = rng.random((h, w)) < 0.7
        fg = (rng.random((h, w)) < 0.8).astype(np.uint8)
        known = (rng.random((h, w)) < 0.9).astype(np.uint8)
        known_count = cv2.boxFilter(known, cv2.CV_32F, (5, 5), normalize=False)
        ones = cv2.integral(fg)
        fill = np.zeros((h, w))
        for y in range(h):
            for x in range(w):
                y0, y1, x0, x1 = max(y - 2, 0), min(y + 3, h), max(x - 2, 0), min(x + 3, w)
                fill[y, x] = fg[y0:y1, x0:x1].sum() / max(float(known_count[y, x]), 1.0)
        ok = where & (votes >= 1.5) & (fill >= 0.6)
        pad = np.pad(np.where(ok, votes, -np.inf), 1, constant_values=-np.inf)
        higher = np.zeros((h, w), bool)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                higher |= pad[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] > votes
        ys, xs = np.nonzero(ok & ~higher)
        out = _peaks(votes, where, ones, known_sums(known, 5), 2, 0.6, 1.5)
        for got, want in zip(out, (xs, ys, votes[ys, xs], fill[ys, xs].astype(np.float32))):
            np.testing.assert_array_equal(got, want)


def test_shape_peaks_equal_the_dilated_maxima():
    """``vision.shape_candidates._local_peaks`` (one pass) equals the numpy and cv2 expression it replaced: the
    pixels with at least SHAPE_VOTES, allowed and not near a ball found, that equal their 3 x 3 grey dilation
    (cv2 pads with the least value), in scan order; on windows cut out of larger arrays (views, as the
    detector passes them), with ties between neighbours and peaks on the border."""
    rng = np.random.default_rng(45)
    for _ in range(40):
        h, w = rng.integers(1, 40, 2)
        votes = (rng.integers(0, 10, (h + 4, w + 4)) * 0.5).astype(np.float32)[2:2 + h, 1:1 + w]
        allowed = (rng.random((h + 3, w + 5)) < 0.8)[1:1 + h, 3:3 + w]
        near = rng.choice(np.array([0, 0, 0, 1, 2], np.uint8), (h + 2, w + 2))[2:, :w]
        want = np.nonzero((votes >= SHAPE_VOTES) & (cv2.dilate(votes, np.ones((3, 3), np.uint8)) == votes)
                          & allowed & (near == 0))
        for got, exp in zip(_local_peaks(votes, allowed, near, SHAPE_VOTES), want):
            np.testing.assert_array_equal(got, exp)


def test_dim_pixels_equal_the_numpy_expression():
    """``vision.shape_candidates._dim`` (a row's colours copied out, every pixel's test without branches) equals
    the plain numpy expression in float64 (the brightness bound in float64, as numba multiplies a float by a
    float32), with the hue test off (tan2 inf: inf x 0 is NaN, no pixel) and on, on the crop's odd size."""
    rng = np.random.default_rng(46)
    h, w = 331, 597
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    img[:40] = 0                          # black pixels: a = 0 on the hue test
    voters = rng.random((h, w)) < 0.8
    near = rng.choice(np.array([0, 0, 0, 1, 2], np.uint8), (h, w))
    chroma = np.array([0.35, 0.85, 0.4])
    chroma /= np.linalg.norm(chroma)
    bright = (rng.random((h, w)) * 300).astype(np.float32)
    b, g, r = np.moveaxis(img.astype(np.float64), -1, 0)
    a = b * chroma[0] + g * chroma[1] + r * chroma[2]
    for tan2 in (np.inf, math.tan(math.radians(SEED_HUE_DEG)) ** 2):
        with np.errstate(invalid="ignore"):
            off = (b * b + g * g + r * r - a * a) > tan2 * a * a
        want = voters & (near == 0) & ((a < DIM * bright.astype(np.float64)) | off)
        np.testing.assert_array_equal(_dim(img, voters, near, chroma, bright, DIM, tan2), want.astype(np.uint8))


def test_least_median_equals_numpys_percentile_and_median():
    """``vision.cloth._least_median`` (selection) equals numpy's median of the rows at or below t's percentile,
    to the bit: odd and even counts, ties in t, one row, the quantiles 0, 1 and between."""
    rng = np.random.default_rng(46)
    for k in range(300):
        n = int(rng.integers(1, 40)) if k % 2 else int(rng.integers(40, 2000))
        unit = rng.random((n, 3))
        t = rng.normal(size=n) if k % 3 else rng.integers(0, 5, n).astype(np.float64)
        q = (0.1, 0.0, 1.0, 0.5, float(rng.random()))[k % 5]
        want = np.median(unit[t <= np.percentile(t, 100 * q)], axis=0)
        np.testing.assert_array_equal(_least_median(unit, t, q), want)


def test_any_in_disc_equals_the_disc_entries():
    """The pocket test of ``lit_by_lamps`` (a numba scan of the square about the point) equals the plain
    expression, any mask pixel (integer coordinates) nearer than the reach; random masks, points on and off
    the grid, reaches from under a pixel to past the grid."""
    rng = np.random.default_rng(14)
    for _ in range(2000):
        h, w = rng.integers(1, 40, 2)
        mask = rng.random((h, w)) < rng.uniform(0, 0.05)
        p = rng.uniform(-15, [w + 15, h + 15])
        reach = rng.uniform(0.1, 20)
        ys, xs = np.nonzero(mask)
        dx, dy = xs - p[0], ys - p[1]
        want = bool(np.any(dx * dx + dy * dy < reach * reach))
        assert _any_in_disc(mask, p[0], p[1], reach) == want


def test_at_pocket_equals_the_disc_test_of_each_centre():
    """``at_pocket`` (one kernel call for every centre) equals ``_any_in_disc`` about each centre taken to
    half resolution, within AT_POCKET radii."""
    from vision.detect_pixels import AT_POCKET
    rng = np.random.default_rng(15)
    for _ in range(200):
        mask = rng.random((30, 40)) < rng.uniform(0, 0.02)
        c = rng.uniform(-20, [100, 80], (int(rng.integers(0, 8)), 2))
        radius = float(rng.uniform(2, 20))
        want = [_any_in_disc(mask, (u - 0.5) / 2, (v - 0.5) / 2, AT_POCKET * radius / 2) for u, v in c]
        np.testing.assert_array_equal(at_pocket(mask, c, radius), np.array(want, bool))


def test_step_points_skip_the_lines_not_taken():
    """``vision.steps._step_points`` samples only the search lines it is told to take (``_search_pass`` skips
    the lines that reach into another circle, whose points it never uses): those lines' points equal
    ``steps_along``'s to the bit, the others are their outline points with strength 0."""
    from vision.steps import STEP, _step_points, steps_along
    rng = np.random.default_rng(12)
    image = cv2.GaussianBlur(rng.integers(0, 256, (60, 80, 3), dtype=np.uint8), (0, 0), 1.5)
    outline = rng.uniform(-5, [85, 65], (4, 16, 2))
    t = rng.uniform(0, 2 * np.pi, (4, 16))
    normals = np.stack([np.cos(t), np.sin(t)], axis=-1)
    cloth, hw = np.array([0.3, 0.8, 0.4]), 3.0
    take = rng.random((4, 16)) < 0.6
    u = cloth / np.linalg.norm(cloth)
    pts, strength = _step_points(image, outline, normals, np.arange(-hw, hw + 1e-9, STEP), u, 0.75, take)
    want_pts, want_strength = steps_along(image, outline, normals, hw, cloth, 0.5)
    assert np.array_equal(pts[take], want_pts[take]) and np.array_equal(strength[take], want_strength[take])
    assert np.array_equal(pts[~take], outline[~take]) and not strength[~take].any()


def test_search_pass_equals_the_numpy_steps_of_a_pass():
    """One pass of ``outline_fits`` in one kernel (``_search_pass``) equals, to the bit, the steps it replaced:
    ``step_points``, the free lines (``near_neighbours`` 1 px out), the points of at least the least step off
    the rings' arcs (``_on_rings``), ``fit_circles`` and the counts; overlapping circles, lines off the image,
    with and without rings, and a single circle (no pocket hole: ``_off_hole`` not run)."""
    from vision.detect_pixels import OWN_RING, RING_ALIGN, RING_BAND, RING_SHARE, SHADE_WEIGHT
    rng = np.random.default_rng(16)
    image = cv2.GaussianBlur(rng.integers(0, 256, (90, 120, 3), dtype=np.uint8), (0, 0), 2.0)
    dirs, cloth, radius = ray_directions(), np.array([0.3, 0.8, 0.4]), 10.0
    for m, hw, n_rings in ((7, 6.0, 0), (7, 3.0, 4), (1, 2.0, 2), (0, 3.0, 1)):
        c = rng.uniform(-5, [125, 95], (m, 2))
        r = rng.uniform(7, 13, m)
        rings = np.concatenate([rng.uniform(0, [120, 90], (n_rings, 2)), rng.uniform(15, 30, (n_rings, 1))], axis=1)
        got = _search_pass(image, c, r, dirs, _offsets(hw), cloth / np.linalg.norm(cloth), 1.0 - SHADE_WEIGHT ** 2,
                           5.0, 8.0, rings, OWN_RING * radius, RING_BAND * radius, RING_ALIGN, RING_SHARE, CIRCLE_ITERS,
                           np.zeros((0, 0), np.bool_))
        pts, strength = step_points(image, c, r, hw, cloth, SHADE_WEIGHT)
        free = ~near_neighbours(c[:, None, :] + r[:, None, None] * dirs[None], c, r, 1.0, dirs[None])
        valid = (strength >= 5.0) & free
        on = _on_rings(pts, c, rings, OWN_RING * radius, RING_BAND * radius, RING_ALIGN) & valid
        arcs = on.sum(axis=1) > RING_SHARE * valid.sum(axis=1)
        fc, fr, rms, tw = fit_circles(pts, valid & ~on, c, r)
        want = (fc, fr, rms, (tw > 0.5).sum(axis=1), ((tw > 0.5) & (strength >= 8.0)).sum(axis=1), free.sum(axis=1),
                arcs)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_pass_choice_equals_the_numpy_steps():
    """The end of an ``outline_fits`` pass in kernels (``_alive``, ``_choose``) equals the numpy steps they
    replaced, to the bit: the fits alive (points, moved less than a radius, on no arcs), those judged (the
    first pass: only those near another alive one), the share limit after the first pass, and the fits kept
    by ``distinct`` of the sized-first scores; clustered centres with ties in the scores."""
    from vision.detect_pixels import MIN_ALIVE, ROUND_RMS, ROUND_SHARE, UNLIKE_SHARE
    rng = np.random.default_rng(17)
    radius, r_lo, r_hi = 10.0, 7.0, 13.0
    for trial in range(60):
        m, first = int(rng.integers(0, 25)), bool(trial % 2)
        c = rng.uniform(0, 60, (m, 2))
        start = c + rng.normal(0, 6, (m, 2))
        n, n_free = rng.integers(0, 49, m), rng.integers(0, 49, m)
        arcs = rng.random(m) < 0.1
        r, rms = rng.uniform(5, 15, m), rng.uniform(0, 1.5, m)
        share = np.round(rng.uniform(0, 1, m), 1)
        alive, judged = _alive(c, start, n, arcs, MIN_ALIVE, radius, first)
        want = (n >= MIN_ALIVE) & (np.linalg.norm(c - start, axis=1) < radius) & ~arcs
        near = (np.linalg.norm(c[:, None] - c[want][None], axis=-1) < radius).sum(axis=1)
        np.testing.assert_array_equal(alive, want)
        np.testing.assert_array_equal(judged, want & (near > want) if first else want)
        keep, sized, support, r_next = _choose(c, r, rms, n, n_free, share, alive.copy(), first, radius, r_lo, r_hi)
        if not first:
            want[want] = share[want] >= np.where(rms[want] < ROUND_RMS, ROUND_SHARE, UNLIKE_SHARE)
        found = n if first else n / np.maximum(n_free, 1)
        want_sized = (r > r_lo) & (r < r_hi)
        score = found * share + want_sized * N_RAYS
        np.testing.assert_array_equal(keep, np.flatnonzero(want)[distinct(c[want], score[want], radius)])
        np.testing.assert_array_equal(sized, want_sized)
        np.testing.assert_array_equal(support, n * share)
        np.testing.assert_array_equal(r_next, np.where(r < r_lo, radius, np.minimum(r, r_hi)))


def test_jaw_share_equals_the_numpy_expression():
    """``ball_share``'s tail in a kernel (``_jaw_share``) equals the numpy expression it replaced: the share off
    the rim where that is more, for a very round fit or one below RMS_MAX all but unlike cloth off the rim;
    NaN RMS (no fit): neither."""
    from vision.detect_pixels import JAW_FULL, JAW_SEEN, RMS_MAX, ROUND_RMS
    rng = np.random.default_rng(18)
    seen = np.round(rng.uniform(0, 1, 400), 2)
    unlike = np.round(seen * rng.uniform(0, 1, 400), 2)
    rms = np.where(rng.random(400) < 0.1, np.nan, rng.uniform(0, 2, 400))
    jaw = (rms < ROUND_RMS) | ((rms < RMS_MAX) & (unlike >= JAW_FULL * seen))
    want = np.where(jaw, np.maximum(unlike, unlike / np.maximum(seen, JAW_SEEN)), unlike)
    np.testing.assert_array_equal(_jaw_share(np.stack([unlike, seen], axis=1), rms), want)


def test_on_circle_equals_the_numpy_samples():
    """The share of a circle's ray points on a half-resolution mask (``on_circle``, a numba loop: the limb
    fits' rim test and ``over_the_rails``) equals the numpy form it replaced, to the bit: random masks,
    centres on and past the frame, radii from a pixel to past the frame."""
    rng = np.random.default_rng(42)
    dirs = ray_directions()
    for _ in range(300):
        h, w = rng.integers(1, 60, 2)
        mask = rng.random((h, w)) < rng.uniform(0, 1)
        c = rng.uniform(-20, [2 * w + 20, 2 * h + 20], (int(rng.integers(0, 6)), 2))
        radius = float(rng.uniform(1, 80))
        p = ((c[:, None, :] + radius * dirs[None]) - 0.5) / 2
        u, v = np.rint(p[..., 0]).astype(np.intp), np.rint(p[..., 1]).astype(np.intp)
        seen = (u >= 0) & (v >= 0) & (u < w) & (v < h)
        hit = np.zeros(u.shape, bool)
        hit[seen] = mask[v[seen], u[seen]]
        np.testing.assert_array_equal(on_circle(mask, c, radius), hit.mean(axis=1))


def test_integer_hull_equals_the_float_hull():
    """cv2's convex hull of whole-number points (``vision.play_area.area_polygon``'s outline) is the same
    array from int32 as from float32 points."""
    rng = np.random.default_rng(15)
    for _ in range(300):
        blob = np.zeros((80, 120), np.uint8)
        for _ in range(rng.integers(1, 6)):
            cv2.circle(blob, tuple(int(v) for v in rng.integers(10, [110, 70])), int(rng.integers(3, 30)), 1, -1)
        outline = max(cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=cv2.contourArea)
        pts = outline[:, 0, :].astype(np.float64)
        np.testing.assert_array_equal(cv2.convexHull(pts.astype(np.int32)), cv2.convexHull(pts.astype(np.float32)))


def test_hull_of_the_rows_ends_equals_the_hull():
    """``vision.play_area.row_ends`` marks each row's leftmost and rightmost points (a plain loop over
    the rows), and cv2's hull of them is the same array as of all the outline's points."""
    rng = np.random.default_rng(16)
    for _ in range(200):
        blob = np.zeros((80, 120), np.uint8)
        for _ in range(rng.integers(1, 6)):
            centre = tuple(int(v) for v in rng.integers(10, [110, 70]))
            if rng.random() < 0.5:
                cv2.circle(blob, centre, int(rng.integers(3, 30)), 1, -1)
            else:                       # (straight runs along rows and columns)
                cv2.rectangle(blob, centre, tuple(int(v) for v in rng.integers(0, [120, 80])), 1, -1)
        outline = max(cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=cv2.contourArea)
        pts = outline[:, 0, :].astype(np.int32)
        want = np.zeros(len(pts), bool)
        for y in np.unique(pts[:, 1]):
            row = pts[:, 1] == y
            want |= row & ((pts[:, 0] == pts[row, 0].min()) | (pts[:, 0] == pts[row, 0].max()))
        keep = row_ends(pts)
        np.testing.assert_array_equal(keep, want)
        np.testing.assert_array_equal(cv2.convexHull(pts[keep]), cv2.convexHull(pts))


def test_judged_foreground_equals_the_masked_and():
    """``vision.candidates.judged_fg`` equals cv2's masked and of the foreground with itself, for any
    nonzero ``known`` values."""
    rng = np.random.default_rng(17)
    fg = rng.integers(0, 256, (37, 53), dtype=np.uint8)
    known = rng.integers(0, 3, (37, 53), dtype=np.uint8) * rng.integers(0, 256, (37, 53), dtype=np.uint8)
    np.testing.assert_array_equal(judged_fg(fg, known), cv2.bitwise_and(fg, fg, mask=known))


def test_cloth_colour_kernels_equal_the_numpy_expressions():
    """``fit_cloth``'s commonest colour direction (``_fullest_cell``: the colours' norms, the unit colours,
    the fullest chromaticity cell's mean) and its refinement (``_near_mean``: the cosines, the mean of
    the near ones) equal the numpy expressions they replace, to rounding (a sum's order may differ on
    another CPU or numpy build); random colour clouds, black samples among them, a few to thousands."""
    rng = np.random.default_rng(16)
    cos_min = np.cos(np.arctan(2 * CHROMA_TAN))
    for _ in range(100):
        n = int(rng.integers(1, 3000))
        s = np.clip(rng.uniform(0, 255, 3) * rng.uniform(0.05, 1.2, (n, 1)) + rng.normal(0, rng.uniform(1, 60), (n, 3)),
                    0, 255).round()
        norm = np.sqrt(s[:, 0] * s[:, 0] + s[:, 1] * s[:, 1] + s[:, 2] * s[:, 2])
        ok, unit, c = _fullest_cell(s)
        np.testing.assert_array_equal(ok, norm > 20)
        want = s[ok] / norm[ok, None]
        np.testing.assert_allclose(unit, want, rtol=1e-12)
        if not ok.any():
            continue
        chrom = want[:, :2] / (want[:, 0] + want[:, 1] + want[:, 2])[:, None]
        cell = np.clip((chrom * 24).astype(np.intp), 0, 23)
        key = cell[:, 0] * 24 + cell[:, 1]
        mean = want[key == np.argmax(np.bincount(key, minlength=576))].mean(axis=0)
        np.testing.assert_allclose(c, mean, rtol=1e-12)
        d = mean / np.linalg.norm(mean)
        near = np.einsum("ij,j->i", want, d) > cos_min
        count, m = _near_mean(want, d, cos_min)
        assert count == near.sum()
        np.testing.assert_allclose(m, want[near].mean(axis=0) if near.any() else np.zeros(3), rtol=1e-12)


def test_cloth_surface_kernels_equal_the_einsum_expressions():
    """The lit cloth's quadratic surface fit (``_normal_equations``: A^T A and A^T a over chosen rows;
    ``_above_share``: the values above a share of the surface) equals numpy's einsum expressions over the
    (N, 6) term matrix, to rounding; random coordinates and values, a few rows to thousands."""
    rng = np.random.default_rng(17)
    for _ in range(100):
        n = int(rng.integers(1, 3000))
        uu, vv, a = rng.uniform(0, 1, n), rng.uniform(0, 0.6, n), rng.uniform(20, 250, n)
        rows = rng.random(n) < 0.8
        A = np.stack([np.ones_like(uu), uu, vv, uu * uu, uu * vv, vv * vv], axis=1)
        g, rhs = _normal_equations(a, uu, vv, rows)
        np.testing.assert_allclose(g, np.einsum("ki,kj->ij", A[rows], A[rows]), rtol=1e-12)
        np.testing.assert_allclose(rhs, np.einsum("ki,k->i", A[rows], a[rows]), rtol=1e-12)
        coef = rng.normal(100, 30, 6)
        np.testing.assert_array_equal(_above_share(a, uu, vv, coef, 0.85), a > 0.85 * np.einsum("ij,j->i", A, coef))


def test_cell_means_equal_cv2_area_resizes():
    """The lit surface's cells (``_cell_means``) equal cv2.resize's INTER_AREA to the bit: the 8-bit
    colour means (halves of whole numbers among them: rounded to even), whether every pixel of a cell is
    on the table (the float mask's mean above 0.999), and the brightness means, float32 and float64."""
    rng = np.random.default_rng(19)
    q = LIGHT_COARSE
    for k in range(40):
        hs, ws = rng.integers(1, 30, 2)
        size = (int(ws), int(hs))
        half = rng.integers(0, 256, (hs * q, ws * q, 3), dtype=np.uint8)
        if k % 2:
            half = (half // 64 * 64 + 32 * (rng.random(half.shape) < 0.5)).astype(np.uint8)    # means on halves
        table = rng.random((hs * q, ws * q)) < rng.choice([0.99, 0.999, 1.0])
        bright = rng.uniform(0, 300, (hs * q, ws * q)).astype(np.float64 if k % 3 == 0 else np.float32)
        small, whole, lit = _cell_means(half, table, bright)
        np.testing.assert_array_equal(small, cv2.resize(half, size, interpolation=cv2.INTER_AREA))
        np.testing.assert_array_equal(
            whole, cv2.resize(table.astype(np.float32), size, interpolation=cv2.INTER_AREA) > 0.999)
        want = cv2.resize(bright, size, interpolation=cv2.INTER_AREA)
        assert lit.dtype == want.dtype
        np.testing.assert_array_equal(lit, want)


def test_fractional_area_resize_equals_cv2():
    """``vision.area_resize.resize_area`` equals cv2.resize's INTER_AREA to the bit where the factor is not whole
    (OpenCV's generic area path): 8-bit BGR and grey images (means on halves among them: rounded to even),
    float32 ones with negative values and zeros (a sum's sign of zero), 0/1 masks, the registered crop's sizes;
    a whole factor on both axes is refused."""
    rng = np.random.default_rng(53)
    sizes = [(286, 523, 8), (35, 65, 8)] + [(int(h), int(w), int(q)) for h, w, q in
                                            zip(rng.integers(9, 300, 60), rng.integers(9, 500, 60),
                                                rng.integers(2, 9, 60))]
    for k, (h, w, q) in enumerate(sizes):
        size = (max(1, w // q), max(1, h // q))
        if w % size[0] == 0 and h % size[1] == 0:
            w += 1
        images = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8), rng.integers(0, 256, (h, w), dtype=np.uint8),
                  (rng.integers(0, 4, (h, w, 3)) * 64 + 32 * (rng.random((h, w, 3)) < 0.5)).astype(np.uint8),
                  rng.normal(0, 100, (h, w)).astype(np.float32) * (rng.random((h, w)) < 0.7),
                  (rng.random((h, w)) < 0.995).astype(np.float32), -np.zeros((h, w, 3), np.float32)]
        for image in images:
            want = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
            got = resize_area(image, size)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes(), (h, w, size, image.dtype, image.shape)
    with np.testing.assert_raises(ValueError):
        resize_area(np.zeros((16, 24, 3), np.uint8), (3, 2))


def test_whole_cells_are_kept_only_for_tables_that_cannot_change():
    """``vision.cloth._whole_cells`` equals the INTER_AREA mean above 0.999 each call: a read-only table's
    cells are kept (the same array again), a writable table's are found again after it changed."""
    rng = np.random.default_rng(47)
    table = rng.random((93, 171)) < 0.995
    size = (171 // LIGHT_COARSE, 93 // LIGHT_COARSE)

    def want(t):
        return cv2.resize(t.astype(np.float32), size, interpolation=cv2.INTER_AREA) > 0.999
    np.testing.assert_array_equal(_whole_cells(table, size), want(table))
    table[:20] = False
    np.testing.assert_array_equal(_whole_cells(table, size), want(table))
    fixed = table.copy()
    fixed.setflags(write=False)
    first = _whole_cells(fixed, size)
    np.testing.assert_array_equal(first, want(fixed))
    assert _whole_cells(fixed, size) is first


def _plain_moments(values, mask, sigma):
    """The local linear fits' Gaussian-weighted moments as plain float32 numpy expressions."""
    h, w = values.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    yy -= h / 2
    xx -= w / 2
    mk = mask.astype(np.float32)
    values = values.astype(np.float32)

    def g(a):
        return cv2.GaussianBlur(a, (0, 0), sigma)
    s0, gx, gy = g(mk), g(mk * xx), g(mk * yy)
    sxx = g(mk * xx * xx) - 2 * xx * gx + xx * xx * s0
    syy = g(mk * yy * yy) - 2 * yy * gy + yy * yy * s0
    sxy = g(mk * xx * yy) - xx * gy - yy * gx + xx * yy * s0
    mv = mk * values
    b0 = g(mv)
    return s0, gx - xx * s0, gy - yy * s0, sxx, syy, sxy, b0, g(mv * xx) - xx * b0, g(mv * yy) - yy * b0, g(mv * values)


def test_local_linear_kernels_equal_the_numpy_expressions():
    """The local linear fits' moments (``_moments``: the products and their centring in numba kernels,
    the squared values' sum too, as the nine-window fit reads them) and the plane's constant term by
    Cramer's rule (``_local_linear``) equal the plain float32 numpy expressions to the bit. Random values
    and masks, sparse to full, on grids of 12 to 90 cells."""
    rng = np.random.default_rng(20)
    for _ in range(40):
        h, w = rng.integers(12, 90, 2)
        values = rng.uniform(-50, 300, (h, w))
        mask = rng.random((h, w)) < rng.uniform(0.02, 1.0)
        sigma = rng.uniform(0.5, 4.0)
        plain = _plain_moments(values, mask, sigma)
        np.testing.assert_array_equal(_moments(values, mask, sigma, squares=True), np.stack(plain))
        s0, sx, sy, sxx, syy, sxy, b0, bx, by, _ = plain
        det = s0 * (sxx * syy - sxy * sxy) - sx * (sx * syy - sxy * sy) + sy * (sx * sxy - sxx * sy)
        num = b0 * (sxx * syy - sxy * sxy) - sx * (bx * syy - sxy * by) + sy * (bx * sxy - sxx * by)
        ok = (s0 >= LIGHT_SUPPORT) & (np.abs(det) > 1e-9 * np.maximum(s0, 1e-9) ** 3)
        want = np.where(ok, num / np.where(ok, det, 1.0), b0 / np.maximum(s0, 1e-9))
        got = _local_linear(values, mask, sigma)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)


def _plain_shifted(values, mask, sigma):
    """``_local_linear_shifted`` as numpy's stacked float32 solve and shifted selection (its form before the
    numba kernel)."""
    s0, sx, sy, sxx, syy, sxy, b0, bx, by, bvv = _moments(values, mask, sigma, squares=True)
    A = np.stack([np.stack([s0, sx, sy], -1), np.stack([sx, sxx, sxy], -1), np.stack([sy, sxy, syy], -1)], -2)
    B = np.stack([b0, bx, by], -1)
    ok = (s0 >= LIGHT_SUPPORT) & (np.abs(np.linalg.det(A)) > 1e-9 * np.maximum(s0, 1e-9) ** 3)
    A[~ok] = np.eye(3)
    c = np.linalg.solve(A, B[..., None])[..., 0]
    c[~ok] = 0.0
    c[~ok, 0] = (b0 / np.maximum(s0, 1e-9))[~ok]
    res = np.where(ok, (bvv - (c * B).sum(-1)) / np.maximum(s0, 1e-9), np.inf)
    h, w = values.shape
    d = max(1, int(round(sigma)))
    best, best_res = c[..., 0].copy(), res.copy()
    for oy in (-d, 0, d):
        for ox in (-d, 0, d):
            if ox or oy:
                p = (slice(max(0, -oy), h - max(0, oy)), slice(max(0, -ox), w - max(0, ox)))
                q = (slice(max(0, oy), h - max(0, -oy)), slice(max(0, ox), w - max(0, -ox)))
                better = res[q] < best_res[p]
                best[p] = np.where(better, c[q][..., 0] - c[q][..., 1] * ox - c[q][..., 2] * oy, best[p])
                best_res[p] = np.where(better, res[q], best_res[p])
    return best


def test_shifted_planes_equal_numpys_solve_to_rounding():
    """The nine-window local linear fit (``_local_linear_shifted``: planes by Gaussian elimination and the
    window choice in a numba kernel) equals numpy's stacked float32 solve and selection to float32
    rounding (LAPACK sums in another order): a projector's light field (a lit ellipse with soft edges,
    0-0.3) with noise, masks sparse to full, grids of 12 to 90 cells. Over 99 % of the cells within 2e-5;
    where two windows' residuals tie to rounding the other window's plane may be taken (11 cells of these
    frames, up to 0.0015; the field's robust limit LIGHT_ROBUST is 0.02)."""
    rng = np.random.default_rng(31)
    for _ in range(30):
        h, w = rng.integers(12, 90, 2)
        yy, xx = np.mgrid[0:h, 0:w]
        r = np.hypot((xx - rng.uniform(0, w)) / rng.uniform(5, 40), (yy - rng.uniform(0, h)) / rng.uniform(5, 40))
        values = rng.uniform(0.05, 0.3) * np.clip((1.15 - r) / 0.3, 0, 1) + rng.normal(0, 0.005, (h, w))
        mask = rng.random((h, w)) < rng.uniform(0.05, 1.0)
        sigma = rng.uniform(0.8, 4.0)
        got, want = _local_linear_shifted(values, mask, sigma), _plain_shifted(values, mask, sigma)
        assert got.dtype == np.float32
        off = np.abs(got.astype(np.float64) - want)
        assert (off < 2e-5).mean() > 0.99 and off.max() < 0.003


def test_tangent_angles_by_pairs_equal_the_rolled_arctangent():
    """``quadrilateral``'s side test on each outline point's tangent angle, taken once per whole-number
    tangent (``_tangent_keys`` into a table), equals the plain expression over the rolled outline, to the
    bit: contours of random blobs (the play area's case) and random whole-number points of any spacing."""
    rng = np.random.default_rng(18)
    outlines = []
    for _ in range(60):
        blob = np.zeros((120, 160), np.uint8)
        for _ in range(rng.integers(1, 6)):
            cv2.circle(blob, tuple(int(v) for v in rng.integers(10, [150, 110])), int(rng.integers(3, 40)), 1, -1)
        contour = max(cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=cv2.contourArea)
        outlines.append(contour[:, 0, :].astype(np.float64))
        outlines.append(rng.integers(-50, 50, (int(rng.integers(9, 500)), 2)).astype(np.float64))
    for outline in outlines:
        t = rng.uniform(-90, 180)
        tangent = np.roll(outline, -TANGENT_SPAN, axis=0) - np.roll(outline, TANGENT_SPAN, axis=0)
        angle = np.degrees(np.arctan2(tangent[:, 1], tangent[:, 0])) % 180.0
        key, reach = _tangent_keys(outline, TANGENT_SPAN)
        d = np.arange(-reach, reach + 1, dtype=np.float64)
        table = np.degrees(np.arctan2(d[:, None], d[None, :])) % 180.0
        np.testing.assert_array_equal(table.ravel()[key], angle)
        np.testing.assert_array_equal((np.abs((table - t + 90.0) % 180.0 - 90.0) < SIDE_TOL_DEG).ravel()[key],
                                      np.abs((angle - t + 90.0) % 180.0 - 90.0) < SIDE_TOL_DEG)


def test_pieces_equal_the_connected_components():
    """``vision.intruders._pieces`` (the 8-connected pieces among a sparse mask's pixels) groups the pixels
    as cv2.connectedComponents (8-connectivity) does, numbers the pieces in the order of their first pixels,
    and gives each piece's first pixel and bounding box; random sparse masks, pieces touching the edges and
    running diagonally across rows."""
    rng = np.random.default_rng(16)
    for _ in range(300):
        h, w = rng.integers(1, 40, 2)
        mask = (rng.random((h, w)) < rng.uniform(0.02, 0.6)).astype(np.uint8)
        at = np.flatnonzero(mask)
        if not at.size:
            continue
        piece, first, extent = _pieces(at, w)
        labels = cv2.connectedComponents(mask, connectivity=8)[1].ravel()[at]
        _, firsts, inverse = np.unique(labels, return_index=True, return_inverse=True)
        order = np.argsort(firsts)                      # cv2's pieces by their first pixels
        np.testing.assert_array_equal(first, firsts[order])
        np.testing.assert_array_equal(piece, np.argsort(order)[inverse])
        v, u = np.divmod(at, w)
        for k in range(first.size):
            on = piece == k
            np.testing.assert_array_equal(extent[k], [v[on].max() - v[on].min() + 1, u[on].max() - u[on].min() + 1])


def test_inside_others_equals_the_plain_distances():
    """``vision.detect._inside_others`` (circles clear of a ball's points' box skipped) equals the plain
    expression: point n of ball m inside the circle of any other ball; random clusters, points on and a
    rounding off the circles' edges, NaN points."""
    rng = np.random.default_rng(17)
    for _ in range(300):
        M, N = int(rng.integers(1, 12)), 8
        centres = rng.uniform(0, rng.uniform(5, 200), (M, 2))
        radii = rng.uniform(0.5, 20, M)
        points = centres[:, None] + rng.uniform(-25, 25, (M, N, 2))
        j = rng.integers(0, M, (M, N))
        a = rng.uniform(0, 2 * np.pi, (M, N))
        edge = centres[j] + radii[j][..., None] * np.stack([np.cos(a), np.sin(a)], axis=-1) * (1 + rng.choice(
            [-1e-15, 0, 1e-15], (M, N)))[..., None]
        points = np.where(rng.random((M, N, 1)) < 0.3, edge, points)
        points[rng.random((M, N)) < 0.05] = np.nan
        d2 = np.sum((points[:, :, None, :] - centres[None, None]) ** 2, axis=-1)
        inside = d2 < radii ** 2
        inside[np.arange(M), :, np.arange(M)] = False
        np.testing.assert_array_equal(_inside_others(points, centres, radii), inside.any(axis=-1))


def test_outline_points_one_call_equals_a_call_per_ball():
    """``vision.detect.outline_points`` with per-ball cloth colours, brightness limits, colour angles,
    white shares and refine flags in one call equals one call per ball with that ball's scalars (what
    ``TableDetector.refine`` did before): discs of random colours on a textured cloth, with and without
    a pocket mask, JPEG's luma side."""
    rng = np.random.default_rng(23)
    lin = rng.uniform(0.02, 0.9, (8, 3))
    yy, xx = np.mgrid[0:120, 0:200]
    img = np.full((120, 200, 3), (30, 120, 82), np.float64) + rng.normal(0, 4, (120, 200, 3))
    centres = np.array([[30.0 + 20 * k + rng.uniform(-2, 2), 40.0 + 40 * (k % 2)] for k in range(8)])
    for (u, v), c in zip(centres, lin):
        img[np.hypot(xx - u, yy - v) < 8.3] = 255 * c ** (1 / 2.2)
    img = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    ang = np.linspace(0, 2 * np.pi, N_RAYS, endpoint=False)
    outline = centres[:, None] + 8.0 * np.stack([np.cos(ang), np.sin(ang)], axis=-1)[None] + rng.normal(0, 0.5, (8, 1, 2))
    cloth = LINEAR_LUT[[30, 120, 82]] * rng.uniform(0.85, 1.15, (8, 3))     # the cloth, each ball its own
    bright = np.where(rng.random(8) < 0.5, np.inf, rng.uniform(1.5, 3, 8))
    deg = rng.uniform(4, 15, 8)
    lit = np.where(rng.random(8) < 0.5, 0.0, 0.2)
    refine = rng.random(8) < 0.6
    hole = (rng.random((60, 100)) < 0.1, (0, 0), rng.random(8) < 0.5)
    for hw, h, side in ((1.5, None, 1.0), (3.0, hole, 1.0), (3.0, None, 2.0)):
        pts, valid = outline_points(img, outline, hw, cloth, refine, 0.01, h, bright, deg, lit, side)
        for m in range(8):
            hm = None if h is None else (h[0], h[1], h[2][m:m + 1])
            p1, v1 = outline_points(img, outline[m:m + 1], hw, cloth[m], bool(refine[m]), 0.01, hm, bright[m],
                                    deg[m], lit[m], side)
            np.testing.assert_array_equal(pts[m:m + 1], p1)
            np.testing.assert_array_equal(valid[m:m + 1], v1)
        assert valid.any() and not valid.all()


def test_outline_search_read_from_the_outer_end_equals_every_sample_judged():
    """``vision.edges.outline_points``' first step, which judges a search line's samples from its outer end in
    and stops at the outermost three ball samples in a row, equals judging every sample (``_ballness`` of
    ``_sample``) and then searching: the same lines found, at the same points to rounding (the kernel's inlined
    ballness rounds as compiled there; the old kernel, judging every sample, agreed with this reference
    alike), on discs of random colours on a textured cloth, lines of both search widths, outer ends on ball
    and on cloth."""
    rng = np.random.default_rng(31)
    yy, xx = np.mgrid[0:120, 0:200]
    img = np.full((120, 200, 3), (30, 120, 82), np.float64) + rng.normal(0, 4, (120, 200, 3))
    centres = np.array([[30.0 + 20 * k + rng.uniform(-2, 2), 40.0 + 40 * (k % 2)] for k in range(8)])
    for (u, v), c in zip(centres, rng.uniform(0.02, 0.9, (8, 3))):
        img[np.hypot(xx - u, yy - v) < 8.3] = 255 * c ** (1 / 2.2)
    img = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    ang = np.linspace(0, 2 * np.pi, N_RAYS, endpoint=False)
    radius = rng.uniform(5.5, 11.0, (8, 1, 1))           # predicted outlines inside, on and outside the discs
    outline = centres[:, None] + radius * np.stack([np.cos(ang), np.sin(ang)], axis=-1)[None]
    normals = outline_normals(outline)
    cloth = LINEAR_LUT[[30, 120, 82]]
    norm = math.sqrt(cloth[0] ** 2 + cloth[1] ** 2 + cloth[2] ** 2)      # (as the kernel finds them)
    c = cloth / norm
    towards = _towards_white(c)
    tan = np.tan(np.radians(8.0))
    col = np.empty(3)
    for hw in SEARCH_WIDTHS[:2]:
        pts, valid = outline_points(img, outline, hw, cloth, False, 0.0, None, np.inf, 8.0)
        steps = int(round((2 * hw + 2) / EDGE_STEP)) + 1
        s = -hw - 1.0 + EDGE_STEP * np.arange(steps)
        for m in range(8):
            for n in range(N_RAYS):
                z = np.empty(steps)
                for k in range(steps):
                    _sample(img, LINEAR_LUT, outline[m, n, 0] + s[k] * normals[m, n, 0],
                            outline[m, n, 1] + s[k] * normals[m, n, 1], col)
                    z[k] = _ballness(col[0], col[1], col[2], c, norm, tan, DARK_LINEAR, np.inf, False, towards, 0.0)
                ball = [j for j in range(steps - 2, 1, -1) if abs(s[j]) <= hw + 1e-9 and (z[j - 2:j + 1] >= 1).all()]
                found = z[-1] < 1 and z[-2] < 1 and bool(ball)
                if found:
                    j = ball[0]
                    off = s[j] + min(max((z[j] - 1.0) / max(z[j] - z[j + 1], 1e-9), 0.0), 1.0) * EDGE_STEP
                    found = abs(off) <= hw
                assert valid[m, n] == found
                if found:
                    np.testing.assert_allclose(pts[m, n], outline[m, n] + off * normals[m, n], rtol=0, atol=1e-5)
        assert valid.any() and not valid.all()


def test_copy_disc_equals_the_full_frame_mask():
    """``vision.detect.copy_disc`` (a disc's pixels through its bounding box) equals copying through a
    full-frame mask with cv2's filled circle: discs inside, across the edges and corners, and off the frame."""
    rng = np.random.default_rng(29)
    src = rng.integers(0, 256, (90, 160, 3), dtype=np.uint8)
    for _ in range(200):
        u, v, r = int(rng.integers(-30, 190)), int(rng.integers(-30, 120)), int(rng.integers(0, 25))
        out = rng.integers(0, 256, src.shape, dtype=np.uint8)
        want = out.copy()
        mask = np.zeros(src.shape[:2], np.uint8)
        cv2.circle(mask, (u, v), r, 1, -1)
        want[mask > 0] = src[mask > 0]
        copy_disc(out, src, u, v, r)
        np.testing.assert_array_equal(out, want)


def test_fill_at_equals_the_filtered_share():
    """``vision.candidates.fill_at`` equals the whole frame's box-filtered foreground share (cv2's unnormalised
    box filter of the judged foreground over 255 times the known count, float32) read at the pixels, to the
    bit, at the frame's edges too (cv2's reflected border)."""
    rng = np.random.default_rng(43)
    for _ in range(20):
        h, w = (int(v) for v in rng.integers(20, 60, 2))
        box = int(rng.integers(1, 9)) * 2 + 1
        fg = (rng.random((h, w)) < rng.random()).astype(np.uint8) * np.uint8(255)
        known = (rng.random((h, w)) < 0.8).astype(np.uint8)
        count = cv2.boxFilter(known, cv2.CV_32F, (box, box), normalize=False)
        want = cv2.boxFilter(judged_fg(fg, known), cv2.CV_32F, (box, box), normalize=False) / (
            255.0 * np.maximum(count, 1.0))
        i, j = rng.integers(0, h, 200), rng.integers(0, w, 200)
        got = fill_at(fg, known, count, box, i, j)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want[i, j])


def test_small_median_equals_numpys_median():
    """``vision.detect.small_median`` (an insertion sort in place) equals ``np.median`` to the bit, odd and even
    counts, ties (the samples are 8-bit codes looked up) and values past the count left alone."""
    rng = np.random.default_rng(44)
    for _ in range(500):
        n = int(rng.integers(1, 33))
        v = LINEAR_LUT[rng.integers(0, 256, 40) // int(rng.integers(1, 60))].astype(np.float64)
        want, rest = np.median(v[:n]), v[n:].copy()
        assert small_median(v, n) == want
        np.testing.assert_array_equal(v[n:], rest)


def test_used_rays_equal_pixel_rays_where_used(synthetic_camera):
    """``vision.detect.used_rays`` are ``pixel_rays`` of the points used, to the bit, and unit rays elsewhere."""
    rng = np.random.default_rng(45)
    cam = synthetic_camera[0].cam
    pts = rng.uniform([0, 0], cam.size, (7, 48, 2))
    used = rng.random((7, 48)) < 0.7
    rays = used_rays(cam, pts, used)
    np.testing.assert_array_equal(rays[used], pixel_rays(cam, pts.reshape(-1, 2)).reshape(7, 48, 3)[used])
    np.testing.assert_allclose(np.linalg.norm(rays, axis=-1), 1.0)


def test_pinhole_kernels_equal_opencvs_projection_and_undistortion():
    """``table_to_pixels`` and ``pixels_to_normalised`` (``vision.camera``'s pinhole kernels) equal
    ``cv2.projectPoints`` and ``cv2.undistortPointsIter`` to the bit: lenses of 4 to 14 coefficients (the
    rational and thin-prism terms too), random poses, points over the image and beyond its corners; a lens of
    14 (a tilted sensor) is left to OpenCV."""
    rng = np.random.default_rng(47)
    K = np.array([[1150.0, 0, 641.3], [0, 1148.0, 358.2], [0, 0, 1]])
    for n in (4, 5, 8, 12):
        dist = rng.normal(0, [0.2, 0.1, 1e-3, 1e-3, 0.02, 0.05, 0.02, 0.01, 1e-3, 1e-4, 1e-3, 1e-4][:n])
        cam = CameraModel((1280, 720), K, dist, rvec=rng.normal(0, 0.3, 3) + [np.pi, 0, 0], tvec=[-0.6, 1.2, 2.5])
        assert cam.lens is not None
        pts = rng.uniform([-0.5, -0.5, 0], [1.8, 3.0, 0.1], (2000, 3))
        want = cv2.projectPoints(pts.reshape(-1, 1, 3), cam.rvec, cam.tvec, K, cam.dist)[0].reshape(-1, 2)
        np.testing.assert_array_equal(table_to_pixels(cam, pts), want)
        px = rng.uniform([-100, -100], [1380, 820], (2000, 2))
        want = cv2.undistortPointsIter(px.reshape(-1, 1, 2), K, cam.dist, None, None, _UNDISTORT_CRITERIA)
        np.testing.assert_array_equal(pixels_to_normalised(cam, px), want.reshape(-1, 2))
    assert CameraModel((1280, 720), K, np.zeros(14)).lens is None       # (OpenCV's own functions)


def _plain_place(xy, good, start, R, slack, sweeps, iters=10, fixed=None):
    """``place_by_contacts`` as stop 44 wrote it, with stop 45's sweeps: a Python loop over the candidates,
    numpy's distances."""
    def with_fixed(xy, fixed):
        if not fixed.shape[0] or not xy.shape[0]:
            return np.concatenate([xy, fixed])
        far = np.linalg.norm(xy[:, None] - fixed[None], axis=2).min(axis=1) >= R
        return np.concatenate([xy[far], fixed])

    def centre(s, nb, need):
        c = _touching_solve(np.asarray(s, np.float64), np.ascontiguousarray(nb, np.float64), 2 * R, slack, need, iters)
        return None if np.isnan(c[0]) else c

    xy, good = xy.copy(), good.copy()
    fixed = np.zeros((0, 2)) if fixed is None else fixed
    placed = np.zeros(xy.shape[0], dtype=bool)
    for seek in (0.0, CONTACT_SEEK * R):
        reach = 2 * R + slack + seek
        stale = np.zeros(xy.shape[0], dtype=bool)
        changed = True
        while changed:
            changed = False
            located = with_fixed(xy[good], fixed)
            for i in np.flatnonzero(~good & ~stale):
                d = np.linalg.norm(located - start[i], axis=1)
                c = centre(start[i], located[d < 2 * R + slack], CONTACT_MIN)
                if c is None and seek:
                    c = centre(start[i], located[d < 2 * R + slack + seek], CONTACT_SEEK_MIN)
                if (c is not None and np.linalg.norm(c - start[i]) < R
                        and np.all(np.linalg.norm(located - c, axis=1) > 2 * R - slack)):
                    xy[i], good[i], placed[i] = c, True, True
                    changed = True
                    stale &= np.linalg.norm(start - c, axis=1) >= reach
                    located = with_fixed(xy[good], fixed)
                else:
                    stale[i] = True
    for i in np.tile(np.flatnonzero(placed), sweeps):
        others = good.copy()
        others[i] = False
        located = with_fixed(xy[others], fixed)
        c = centre(xy[i], located[np.linalg.norm(located - xy[i], axis=1) < 2 * R + slack], CONTACT_MIN)
        if (c is not None and np.linalg.norm(c - start[i]) < R
                and np.all(np.linalg.norm(located - c, axis=1) > 2 * R - slack)):
            xy[i] = c
    return xy, good, placed


def test_contact_placement_kernel_equals_the_plain_loop():
    """``vision.detect.place_by_contacts`` (one kernel, ``_place_all``) equals its plain loop to the bit: random
    racks (a triangle of 15 balls touching to 0-3 mm) with a third of their balls hidden (starts 1-12 mm off),
    with and without balls found before (some of them the same balls again), rough and clean slack, with and
    without the sweeps."""
    R = 0.028575
    rng = np.random.default_rng(44)
    rows = [(r, k) for r in range(5) for k in range(r + 1)]
    tri = np.array([[2 * R * r * np.cos(np.pi / 6), 2 * R * (k - r / 2)] for r, k in rows])
    placed_any = 0
    for _ in range(60):
        gap = rng.uniform(0, 0.003)
        xy = np.array([1.0, 0.6]) + tri * (1 + gap / (2 * R)) + rng.normal(0, 0.0007, tri.shape)
        good = rng.random(len(xy)) > 0.35
        start = xy + rng.normal(0, 1, xy.shape) * rng.uniform(0.001, 0.012, (len(xy), 1))
        fixed = None
        if rng.random() < 0.5:
            fixed = np.concatenate([xy[~good][:2] + rng.normal(0, 0.002, (min(2, (~good).sum()), 2)),
                                    xy[good][:1] + rng.normal(0, 0.002, (min(1, good.sum()), 2))])
        slack = float(rng.choice([0.004, 0.009]))
        for sweeps in (0, CONTACT_SWEEPS):
            got = place_by_contacts(np.where(good[:, None], xy, start), good, start, R, slack, fixed=fixed,
                                    sweeps=sweeps)
            want = _plain_place(np.where(good[:, None], xy, start), good, start, R, slack, sweeps, fixed=fixed)
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a, b)
        placed_any += int(want[2].sum())
    assert placed_any > 50        # (the loop's placing, its seeking further out and its retries all ran)


def _plain_rules(body, ref, local, near, bright, vivid, blocky, alone):
    """The outline search's colour rules of a refine pass as stop 44 wrote them, in numpy (the angles by
    ``hue_angle``, as there)."""
    hue = hue_angle

    def level(b, c):
        return np.linalg.norm(b, axis=1) / np.maximum(np.linalg.norm(c, axis=1), 1e-12)

    def edge_deg(b, c, br=BRIGHT_LINEAR):
        ang = hue(b, c)
        lo = (ang < LOW_CONTRAST_DEG) & (level(b, c) > LOW_LEVEL) & (level(b, c) < br)
        return np.where(lo, np.clip(EDGE_OWN_SHARE * ang, EDGE_MIN_DEG, EDGE_CHROMA_DEG), EDGE_CHROMA_DEG)

    M = len(body)
    deg, ball_bright = np.full(M, EDGE_CHROMA_DEG), np.full(M, np.inf)
    if np.isfinite(bright):
        deg = edge_deg(body, ref, bright)
        grey = hue(np.ones_like(ref), ref) < LOW_CONTRAST_DEG
        ball_bright[(hue(body, ref) < LOW_CONTRAST_DEG) | grey] = bright
    elif vivid:
        lv = level(body, ref)
        ball_bright = np.where((hue(body, ref) < EDGE_CHROMA_DEG) & (lv > BRIGHT_LINEAR),
                               np.maximum(BRIGHT_LINEAR, 1.0 + EDGE_OWN_SHARE * (lv - 1.0)), np.inf)
    low = deg < EDGE_CHROMA_DEG
    if blocky:
        deg = np.where(low, deg, np.clip(BLOCKY_CHROMA_SHARE * hue(body, ref), EDGE_CHROMA_DEG, BLOCKY_CHROMA_DEG))
    limb = hue(body, local) < LOW_CONTRAST_DEG if alone else np.zeros(M, bool)
    shaded = np.zeros(M, bool)
    if not np.isfinite(bright) and not alone:
        shaded = (edge_deg(body, local) < EDGE_CHROMA_DEG) & (near.mean(axis=1) <= LIMB_NEAR_SHARE)
    return deg, ball_bright, low, limb, shaded


def test_search_rules_equal_the_numpy_rules():
    """``vision.detect._search_rules`` (a refine pass's colour rules in one kernel) equals the numpy rules to the
    bit under every mode (halo rings or not, vivid, JPEG, shape alone): random bodies from the cloth's own colour
    (0-15 degrees off, 0.2-8 times its level) to any colour, grey cloths, near lines 0-40 %."""
    rng = np.random.default_rng(45)
    M = 400
    cloth = rng.uniform(0.02, 0.6, (M, 3))
    cloth[::7] = cloth[::7, :1]                        # grey cloths
    turn = rng.normal(0, 1, (M, 3)) * np.radians(rng.uniform(0, 15, (M, 1))) * np.linalg.norm(cloth, axis=1)[:, None]
    body = np.abs(cloth + turn) * rng.uniform(0.2, 8, (M, 1))
    body[::5] = rng.uniform(0, 1, (M // 5 + (M % 5 > 0), 3))
    local = np.abs(cloth + rng.normal(0, 0.02, (M, 3)))
    near = rng.random((M, 48)) < rng.uniform(0, 0.4, (M, 1))
    hit = np.zeros(5)
    for bright in (BRIGHT_LINEAR, np.inf):
        for vivid in (False, True):
            for blocky in (False, True):
                for alone in (False, True):
                    got = _search_rules(body, cloth, local, near, bright, vivid, blocky, alone)
                    want = _plain_rules(body, cloth, local, near, bright, vivid, blocky, alone)
                    for a, b in zip(got, want):
                        np.testing.assert_array_equal(a, b)
                    hit += [np.sum(want[0] < EDGE_CHROMA_DEG), np.isfinite(want[1]).sum(), want[2].sum(),
                            want[3].sum(), want[4].sum()]
    assert (hit > 20).all()       # every rule took effect on some balls


def test_least_added_ring_equals_numpys_argmin():
    """``vision.detect._least_added`` (``local_cloth``'s choice of ring) equals numpy's argmin and min of the
    added light with inf where a ring found no cloth, and the default where none did, to the bit; ties too."""
    rng = np.random.default_rng(46)
    for K in (1, 2, 3):
        colours = rng.uniform(0, 1, (K, 300, 3))
        found = rng.random((K, 300)) < 0.6
        w = np.round(rng.uniform(0, 0.2, (K, 300)), 2)       # (ties)
        default = rng.uniform(0, 1, 3)
        default.setflags(write=False)                        # (read-only, as ``ClothModel.linear_colour``)
        ww = np.where(found, w, np.inf)
        pick, seen = np.argmin(ww, axis=0), found.any(axis=0)
        local, added = _least_added(colours, found, w, default)
        np.testing.assert_array_equal(local, np.where(seen[:, None], colours[pick, np.arange(300)], default))
        np.testing.assert_array_equal(added, np.where(seen, ww.min(axis=0), 0.0))


def test_holes_near_bounds_equal_np_clip():
    """``TableDetector._holes_near``'s whole-number bounds by np.minimum and np.maximum look up the same
    half-resolution pocket cells as np.clip's, for centres inside the crop, outside it (negative pixels among
    them) and on its corners."""
    from vision.detect import TableDetector
    from vision.render import synthetic_camera_from_config
    sc, lm = synthetic_camera_from_config()
    det = TableDetector(sc.cam, sc.table, sc.R, lm.rail)
    u0, v0 = det.crop[:2]
    hw, hh = det.half_size
    rng = np.random.default_rng(59)
    px = np.concatenate([rng.uniform([-50, -50], [sc.cam.size[0] + 50, sc.cam.size[1] + 50], (4000, 2)),
                         [[u0, v0], [u0 - 0.5, v0 - 0.5], [u0 + 2 * hw, v0 + 2 * hh], [u0 + 2 * hw - 1e-9, 0.0]]])
    j = np.clip(((px[:, 0] - u0) // 2).astype(np.intp), 0, hw - 1)
    i = np.clip(((px[:, 1] - v0) // 2).astype(np.intp), 0, hh - 1)
    hole, corner, rows = det._holes_near(px)
    assert hole is det.hole and corner == (u0, v0)
    np.testing.assert_array_equal(rows, det.near_hole[i, j])
    assert rows.any() and not rows.all()


def test_mean_radii_and_per_sphere_arguments_equal_numpys():
    """``vision.detect.mean_radii`` equals np.linalg.norm's mean outline radius to the bit, and
    ``vision.fits._per_sphere`` equals np.broadcast_to's copy (values, dtype, layout), for numbers, (M,) arrays and
    arrays that broadcast."""
    from vision.detect import mean_radii
    from vision.fits import _per_sphere
    rng = np.random.default_rng(61)
    for M in (0, 1, 5, 16, 31):
        outline = rng.normal(600.0, 300.0, (M, 64, 2))
        centres = rng.normal(600.0, 300.0, (M, 2))
        want = np.linalg.norm(outline - centres[:, None, :], axis=-1).mean(axis=1)
        np.testing.assert_array_equal(mean_radii(outline, centres), want)
        for v in (0.028575, np.float32(0.03), rng.uniform(0.02, 0.03, M), rng.uniform(0.02, 0.03, (1,)),
                  rng.uniform(0.02, 0.03, (2 * M,))[::2]):
            got, ref = _per_sphere(v, M), np.broadcast_to(np.asarray(v, np.float64), (M,)).copy()
            np.testing.assert_array_equal(got, ref)
            assert got.dtype == ref.dtype and got.flags.c_contiguous and got.flags.writeable
            assert not np.shares_memory(got, np.asarray(v))


def test_discs_equal_the_whole_frame_expression():
    """``vision.detect_pixels._discs`` (each disc in its own window) equals the distance test over the whole
    frame's pixel grid: centres inside, on and beyond the edges, no centre, reaches under a pixel to a few."""
    rng = np.random.default_rng(54)
    for _ in range(200):
        h, w = rng.integers(5, 60, 2)
        c = rng.uniform(-10, 70, (rng.integers(0, 6), 2))
        reach = rng.uniform(0.3, 9)
        yy, xx = np.mgrid[:h, :w]
        want = np.zeros((h, w), bool)
        for u, v in c:
            want |= (xx - u) ** 2 + (yy - v) ** 2 <= reach ** 2
        np.testing.assert_array_equal(_discs((h, w), c, reach), want)
