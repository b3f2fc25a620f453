"""Outline points of real, blurred balls: the strongest colour step along each normal.

A ball photographed by a real camera has a soft outline (lens blur, sensor demosaicing, JPEG), a
shadow on one side, a bright halo or highlight on another. The point where the colour changes
fastest along a line crossing the outline is the outline under any blur symmetric across it,
whatever the ball's colour (white, black, red on green cloth alike), and a soft shadow's edge
changes more slowly than the ball's own edge. So each outline point is the sub-pixel maximum of the
squared colour derivative sum_c (dI_c/dt)^2 along the outward normal, within a search band about a
predicted circle.
"""
from __future__ import annotations

import cv2
import numpy as np

N_RAYS = 48            # search lines per ball
STEP = 0.5             # px between samples along a search line


def ray_directions(n: int = N_RAYS) -> np.ndarray:
    """(n, 2) unit outward directions, evenly spaced."""
    t = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    return np.stack([np.cos(t), np.sin(t)], axis=1)


def step_points(image: np.ndarray, centres: np.ndarray, radii: np.ndarray,
                half_width: float) -> tuple[np.ndarray, np.ndarray]:
    """Outline points of circles in an image, by the strongest colour step along each normal.

    image: (h, w, 3) float32 (any colour space, lightly smoothed); centres: (M, 2) [px, pixel
    centres at integers]; radii: (M,) [px]; half_width: how far either side of each circle to
    search [px]. Samples every STEP px (bilinear), differences neighbours, and places each point at
    the parabola vertex through the strongest difference and its two neighbours.
    Returns (points (M, N_RAYS, 2) [px], strength (M, N_RAYS): the root of the strongest squared
    colour difference per STEP, in the image's units).
    """
    dirs = ray_directions()
    off = np.arange(-half_width, half_width + 1e-9, STEP)
    M, N, K = centres.shape[0], dirs.shape[0], off.size
    P = centres[:, None, None, :] + (radii[:, None, None, None] + off[None, None, :, None]) * dirs[None, :, None, :]
    mx = P[..., 0].reshape(M * N, K).astype(np.float32)
    my = P[..., 1].reshape(M * N, K).astype(np.float32)
    prof = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(M, N, K, -1)
    d = np.diff(prof, axis=2)
    e = np.einsum("mnkc,mnkc->mnk", d, d)
    k = np.clip(np.argmax(e, axis=2), 1, K - 3)[..., None]
    e0 = np.take_along_axis(e, k - 1, 2)[..., 0]
    e1 = np.take_along_axis(e, k, 2)[..., 0]
    e2 = np.take_along_axis(e, k + 1, 2)[..., 0]
    den = e0 - 2.0 * e1 + e2
    sub = np.where(den < 0, 0.5 * (e0 - e2) / np.where(den < 0, den, -1.0), 0.0)
    # difference k sits between samples k and k + 1
    pos = off[0] + (k[..., 0] + 0.5 + np.clip(sub, -0.5, 0.5)) * STEP
    pts = centres[:, None, :] + (radii[:, None, None] + pos[..., None]) * dirs[None]
    return pts, np.sqrt(e1)
