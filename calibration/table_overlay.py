"""The registered table drawn over the frame it was registered from, for a person to check.

Drawn through the registered camera (with its lens distortion, so straight table edges bend as
they do in the image): the cushion noses at the cushion height and the rail caps' inner and
outer edges at the rail height (yellow), the pocket holes at cloth height (cyan), and each
landmark: where it was seen (green circle) and where the registered camera puts it (red cross).
A good registration lays the lines on the table's edges and the crosses in the circles.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration.table import TablePose
from planner.table import Table
from vision.camera import table_to_pixels
from vision.scene import RailGeometry

SAMPLES = 64        # points per drawn edge (lens distortion curves them)
YELLOW, CYAN, GREEN, RED = (0, 220, 255), (255, 220, 0), (0, 200, 0), (0, 0, 255)


def _rect(x0: float, y0: float, x1: float, y1: float, z: float) -> np.ndarray:
    t = np.linspace(0.0, 1.0, SAMPLES)[:, None]
    c = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]])
    xy = np.concatenate([c[i] + t * (c[i + 1] - c[i]) for i in range(4)])
    return np.concatenate([xy, np.full((len(xy), 1), z)], axis=1)


def _polyline(img: np.ndarray, pts: np.ndarray, colour, closed: bool = False) -> None:
    cv2.polylines(img, [np.round(pts * 4).astype(np.int32)], closed, colour, 1, cv2.LINE_AA, shift=2)


def draw_table_pose(image: np.ndarray, pose: TablePose, table: Table, rail: RailGeometry) -> np.ndarray:
    """A copy of the BGR ``image`` with the registered table and the landmarks drawn on it."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    cam = pose.camera
    t = np.linspace(0.0, 1.0, SAMPLES)[:, None]
    for p1, p2 in zip(table.lin_p1, table.lin_p2):
        seg = p1 + t * (p2 - p1)
        _polyline(out, table_to_pixels(cam, np.concatenate([seg, np.full((SAMPLES, 1), table.cushion_height)], 1)),
                  YELLOW)
    for d in (table.cushion_width, table.cushion_width + rail.width):
        _polyline(out, table_to_pixels(cam, _rect(-d, -d, table.width + d, table.length + d, rail.height)), YELLOW)
    a = np.linspace(0.0, 2 * np.pi, SAMPLES, endpoint=False)
    for c, r in zip(table.pocket_center, table.pocket_radius):
        ring = np.stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a), np.zeros(SAMPLES)], axis=1)
        _polyline(out, table_to_pixels(cam, ring), CYAN, closed=True)
    for seen, put in zip(pose.px, table_to_pixels(cam, pose.world)):
        cv2.circle(out, tuple(np.round(seen * 4).astype(int)), 6 * 4, GREEN, 1, cv2.LINE_AA, shift=2)
        cv2.drawMarker(out, tuple(np.round(put).astype(int)), RED, cv2.MARKER_CROSS, 9, 1)
    text = (f"{pose.method}: {len(pose.names)} landmarks, {pose.rms_px:.2f} px RMS, "
            f"on the table {pose.rms_mm:.2f} mm RMS, {pose.max_mm:.2f} mm max")
    for colour, width in (((0, 0, 0), 3), ((255, 255, 255), 1)):
        cv2.putText(out, text, (10, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, width, cv2.LINE_AA)
    return out
