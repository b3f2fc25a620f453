"""Draw detections on a frame for people to look at."""
from __future__ import annotations

import cv2
import numpy as np

from vision.pipeline import BallObservation

PANEL_WIDTH = 300      # px, the list of balls beside the image


def draw_observations(image: np.ndarray, balls: list[BallObservation]) -> np.ndarray:
    """The BGR ``image`` with each ball's outline (red), centre (cross) and label drawn on it, and
    beside it a panel listing every ball: label, confidence, and table position when known."""
    out = image.copy()
    font = cv2.FONT_HERSHEY_SIMPLEX
    order = sorted(range(len(balls)), key=lambda i: (balls[i].ball_id is None, balls[i].ball_id or 0,
                                                     balls[i].label))
    for b in balls:
        c = (int(round(b.x_px)), int(round(b.y_px)))
        cv2.circle(out, c, max(1, int(round(b.r_px))), (0, 0, 255), 1, cv2.LINE_AA)
        cv2.drawMarker(out, c, (0, 0, 255), cv2.MARKER_CROSS, 5, 1)
        short = b.label if len(b.label) <= 2 else b.label[:2]
        org = (c[0] - 6, c[1] - int(b.r_px) - 3)
        cv2.putText(out, short, org, font, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, short, org, font, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
    panel = np.full((image.shape[0], PANEL_WIDTH, 3), 32, np.uint8)
    cv2.putText(panel, f"{len(balls)} balls", (10, 22), font, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
    for row, i in enumerate(order):
        b = balls[i]
        where = "" if b.x_m is None else f"  x {b.x_m:.4f}  y {b.y_m:.4f} m"
        cv2.putText(panel, f"{b.label:>6} {b.confidence:.2f}{where}", (10, 46 + 19 * row), font, 0.42,
                    (230, 230, 230), 1, cv2.LINE_AA)
    return np.concatenate([out, panel], axis=1)
