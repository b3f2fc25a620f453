"""A person's hand and forearm over the table, for the wider rendered domain (issue 21: a hand is
not a ball).

A ``Hand`` is drawn from the table frame (docs/frame.md) into the image: the forearm reaches in
from ``heading_deg`` (the direction from the palm towards the elbow) and runs out of the frame;
an open hand has four fingers and a thumb spread from the palm, a fist only the palm and a row of
knuckles. Sizes are an adult's (palm 0.085 x 0.095 m, fingers 18 mm wide, forearm 65 mm), each part
at its height above the cloth, projected by the camera model. ``hand_layer`` returns the coverage
(anti-aliased), the shading across each part (darker towards the outline, as a cylinder lit from
above) and a soft shadow cast on the cloth beside it; ``vision.render_domain.DomainRenderer``
composites them in linear light. ``touches`` tells whether a hand covers any part of a ball (a
measured condition keeps its hands off the balls: a ball in a hand is not at rest on the table).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.balls import srgb_to_linear
from vision.camera import CameraModel, table_to_pixels

SKIN_SRGB = ((233, 190, 160), (205, 150, 115), (160, 105, 75), (100, 65, 45))
"""sRGB skin tones, light to dark."""
SUPERSAMPLE = 4
"""The parts are drawn at this multiple of the image resolution, then averaged (anti-aliasing)."""


@dataclass(frozen=True)
class Hand:
    """A hand over the table: palm centre (x, y) [m, table frame]; heading_deg: direction from the
    palm towards the elbow (0 = +x); fist: closed (no fingers out); skin: index into SKIN_SRGB."""
    x: float
    y: float
    heading_deg: float = 0.0
    fist: bool = False
    skin: int = 1

    def __post_init__(self):
        if not 0 <= self.skin < len(SKIN_SRGB):
            raise ValueError(f"skin must be 0..{len(SKIN_SRGB) - 1} (an index into SKIN_SRGB), got {self.skin}")


def _parts(hand: Hand) -> list[tuple[np.ndarray, float, float]]:
    """The hand as capsules: (polyline (n, 2) [m, table frame], width [m], height above the cloth [m])."""
    a = np.radians(hand.heading_deg)
    back = np.array([np.cos(a), np.sin(a)])             # towards the elbow
    side = np.array([-back[1], back[0]])
    p = np.array([hand.x, hand.y])
    parts = [(np.array([p + 0.06 * back, p + 3.0 * back]), 0.065, 0.07),         # forearm, out of the frame
             (np.array([p + 0.02 * back, p - 0.02 * back]), 0.085, 0.035)]       # palm
    if hand.fist:
        parts.append((np.array([p - 0.04 * back + 0.03 * side, p - 0.04 * back - 0.03 * side]), 0.035, 0.04))
        return parts
    for k, (spread, length) in enumerate(((-12, 0.07), (-4, 0.085), (4, 0.08), (12, 0.065))):
        d = -np.cos(np.radians(spread)) * back + np.sin(np.radians(spread)) * side
        base = p - 0.045 * back + (k - 1.5) * 0.021 * side
        parts.append((np.array([base, base + length * d]), 0.018, 0.02))
    d = -np.cos(np.radians(55)) * back - np.sin(np.radians(55)) * side
    base = p - 0.005 * back - 0.04 * side
    parts.append((np.array([base, base + 0.06 * d]), 0.022, 0.025))              # thumb
    return parts


def hand_layer(cam: CameraModel, hand: Hand) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(coverage (H, W) 0..1, colour (H, W, 3) linear BGR under the table-centre light, shadow
    (H, W) 0..1 share of the light the hand takes off the cloth beside it) of ``hand`` seen by
    ``cam``."""
    w, h = cam.size
    s = SUPERSAMPLE
    cover = np.zeros((h * s, w * s), np.uint8)
    fx = float(cam.K[0, 0])
    for line, width, z in _parts(hand):
        px = table_to_pixels(cam, np.column_stack([line, np.full(len(line), z)])) * s + (s - 1) / 2
        thick = max(1, int(round(fx * width / (float(cam.centre[2]) - z) * s)))
        cv2.polylines(cover, [np.rint(px).astype(np.int32)], False, 255, thick, cv2.LINE_8)
    cover = cv2.resize(cover, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    inside = cv2.distanceTransform((cover > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.45 + 0.55 * np.sqrt(np.clip(inside / 5.0, 0.0, 1.0))          # a cylinder lit from above
    colour = shade[..., None] * srgb_to_linear(np.array(SKIN_SRGB[hand.skin][::-1], float)).astype(np.float32)
    shadow = 0.45 * cv2.GaussianBlur(np.roll(cover, (4, 3), axis=(0, 1)), (0, 0), 5.0)
    return cover, colour.astype(np.float32), shadow.astype(np.float32)


def touches(cam: CameraModel, hand: Hand, pos: np.ndarray, R: float) -> bool:
    """Whether ``hand`` covers any pixel within 1.2 outline radii of a ball centred at ``pos``
    (K, 2) [m, table frame]."""
    if not len(pos):
        return False
    cover = hand_layer(cam, hand)[0] > 0.02
    P = np.column_stack([pos, np.full(len(pos), R)])
    px = table_to_pixels(cam, P)
    r = 1.2 * float(cam.K[0, 0]) * R / np.linalg.norm(P - cam.centre, axis=1)
    h, w = cover.shape
    for (u, v), rr in zip(px, r):
        u0, u1, v0, v1 = max(0, int(u - rr)), min(w, int(u + rr) + 2), max(0, int(v - rr)), min(h, int(v + rr) + 2)
        vv, uu = np.mgrid[v0:v1, u0:u1]
        if np.any(cover[v0:v1, u0:u1] & ((uu - u) ** 2 + (vv - v) ** 2 <= rr * rr)):
            return True
    return False
