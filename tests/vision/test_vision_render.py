"""The synthetic camera: reproducible frames whose pixels agree with the exact geometry."""
from __future__ import annotations

import numpy as np
from matplotlib.path import Path

from planner.state import TableState
from vision.balls import CLOTH_SRGB, LINEAR_LUT, srgb_to_linear
from vision.camera import sphere_silhouettes, table_to_pixels
from vision.detect import BRIGHT_LINEAR, DARK_LINEAR, EDGE_CHROMA_DEG
from vision.edges import ballness
from vision.render import SyntheticCamera


def test_same_seed_same_frame(synthetic_camera):
    sc, _ = synthetic_camera
    state = TableState.from_dict({0: (0.4, 0.6), 9: (0.7, 1.9)})
    a = sc.render(state, np.random.default_rng(11)).image
    b = sc.render(state, np.random.default_rng(11)).image
    c = sc.render(state, np.random.default_rng(12)).image
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_ball_pixels_follow_the_exact_outline(synthetic_camera):
    """Noise- and blur-free: every pixel a pixel or more inside a red ball's exact outline shows
    ball colour, every pixel a pixel or more outside shows cloth colour (lit or in shadow) where the
    empty table shows cloth."""
    sc0, lm = synthetic_camera
    sc = SyntheticCamera(sc0.cam, sc0.table, sc0.R, lm, noise_sigma=0.0, blur_sigma=0.0)
    sc.__dict__["empty_linear"] = sc0.empty_linear                  # the same empty table, rendered once
    for pos in [(0.05, 0.05), (0.56, 1.1), (1.05, 2.17)]:           # a distorted corner, the middle, a corner
        state = TableState.from_dict({3: pos})
        frame = sc.render(state, np.random.default_rng(0))
        P = np.array([[pos[0], pos[1], sc.R]])
        outline = sphere_silhouettes(sc.cam, P, sc.R, 720)[0]
        c = table_to_pixels(sc.cam, P)[0]
        x0, y0 = np.floor(outline.min(axis=0)).astype(int) - 4
        x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + 5
        yy, xx = np.mgrid[y0:y1, x0:x1]
        pix = np.stack([xx.ravel(), yy.ravel()], axis=1).astype(float)
        path = Path(outline)
        inside = path.contains_points(pix, radius=-2.0) & Path(c + (outline - c) * 0.92).contains_points(pix)
        outside = ~Path(c + (outline - c) * 1.0).contains_points(pix, radius=2.0) & \
            ~path.contains_points(pix, radius=2.2)
        lin = LINEAR_LUT[frame.image[yy.ravel(), xx.ravel()]]
        cloth = srgb_to_linear(CLOTH_SRGB)[::-1]
        tan = np.tan(np.radians(EDGE_CHROMA_DEG))
        z = ballness(lin.astype(np.float64), cloth, tan, DARK_LINEAR, BRIGHT_LINEAR)
        empty = ballness(sc.empty_linear[yy.ravel(), xx.ravel()][:, ::-1].astype(np.float64), cloth, tan,
                         DARK_LINEAR, BRIGHT_LINEAR) < 0.5                                          # clean cloth there
        outside &= empty
        assert inside.sum() > 100 and outside.sum() > 100
        assert np.all(z[inside] >= 1.0)
        assert np.all(z[outside] < 1.0)


def test_truth_pixels_are_projected_centres(synthetic_camera):
    sc, _ = synthetic_camera
    state = TableState.from_dict({0: (0.2, 0.3), 5: (1.0, 2.0)})
    frame = sc.render(state, np.random.default_rng(1))
    P = np.concatenate([state.pos, np.full((2, 1), sc.R)], axis=1)
    assert np.allclose(frame.truth.centre_px, table_to_pixels(sc.cam, P))
    assert np.array_equal(frame.truth.ids, state.ids) and np.allclose(frame.truth.pos, state.pos)
