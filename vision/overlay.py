"""Draw detections on a frame for people to look at: ``draw_observations`` (a frame and its list of
balls), and the pieces of the domain bench's contact sheet (``vision.domain_sheet``): outlines in the
scoring colours, a caption line, a grid of tiles."""
from __future__ import annotations

import cv2
import numpy as np

from vision.pipeline import BallObservation

PANEL_WIDTH = 300      # px, the list of balls beside the image
DETECTION_BGR = (0, 0, 255)     # draw_observations: every detection (nothing is scored there)
FOUND_BGR = (0, 220, 0)         # scored: a detection matched to a ball
WRONG_ID_BGR = (0, 230, 255)    # scored: the label of a matched detection whose id is not the ball's
MISSED_BGR = (0, 0, 255)        # scored: a ball no detection matched (its true outline)
FALSE_BGR = (255, 0, 255)       # scored: a detection that matched no ball
CAPTION_HEIGHT = 26             # px, the caption line under a tile
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def draw_observations(image: np.ndarray, balls: list[BallObservation]) -> np.ndarray:
    """The BGR ``image`` with each ball's outline (red), centre (cross) and label drawn on it, and
    beside it a panel listing every ball: label, confidence, and table position when known."""
    out = image.copy()
    order = sorted(range(len(balls)), key=lambda i: (balls[i].ball_id is None, balls[i].ball_id or 0,
                                                     balls[i].label))
    for b in balls:
        c = (int(round(b.x_px)), int(round(b.y_px)))
        cv2.circle(out, c, max(1, int(round(b.r_px))), DETECTION_BGR, 1, cv2.LINE_AA)
        cv2.drawMarker(out, c, DETECTION_BGR, cv2.MARKER_CROSS, 5, 1)
        short = b.label if len(b.label) <= 2 else b.label[:2]
        org = (c[0] - 6, c[1] - int(b.r_px) - 3)
        cv2.putText(out, short, org, _FONT, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, short, org, _FONT, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
    panel = np.full((image.shape[0], PANEL_WIDTH, 3), 32, np.uint8)
    cv2.putText(panel, f"{len(balls)} balls", (10, 22), _FONT, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
    for row, i in enumerate(order):
        b = balls[i]
        where = "" if b.x_m is None else f"  x {b.x_m:.4f}  y {b.y_m:.4f} m"
        cv2.putText(panel, f"{b.label:>6} {b.confidence:.2f}{where}", (10, 46 + 19 * row), _FONT, 0.42,
                    (230, 230, 230), 1, cv2.LINE_AA)
    return np.concatenate([out, panel], axis=1)


def draw_outlines(image: np.ndarray, outlines: np.ndarray, colour: tuple[int, int, int],
                  labels: list[str] | None = None, label_colours: list | None = None, thickness: int = 1) -> None:
    """Draw closed outlines (K, P, 2) [px, sub-pixel] on the BGR ``image`` in place in ``colour``,
    and each one's label (if given) above it, white on black, or in ``label_colours[k]`` where that
    is not None."""
    shift = 4
    for k, pts in enumerate(np.asarray(outlines, float)):
        cv2.polylines(image, [np.rint(pts * (1 << shift)).astype(np.int32)], True, colour, thickness,
                      cv2.LINE_AA, shift)
        if labels is not None:
            colour_k = (label_colours[k] if label_colours else None) or (255, 255, 255)
            org = (int(pts[:, 0].mean()) - 5, int(pts[:, 1].min()) - 2)
            cv2.putText(image, labels[k][:2], org, _FONT, 0.38, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(image, labels[k][:2], org, _FONT, 0.38, colour_k, 1, cv2.LINE_AA)


def caption(width: int, text: str) -> np.ndarray:
    """A dark line ``width`` px wide, CAPTION_HEIGHT high, with ``text`` in white (BGR uint8)."""
    bar = np.full((CAPTION_HEIGHT, width, 3), 32, np.uint8)
    cv2.putText(bar, text, (6, CAPTION_HEIGHT - 8), _FONT, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
    return bar


def grid(tiles: list[np.ndarray], columns: int) -> np.ndarray:
    """Tiles of one size (BGR) laid out ``columns`` to a row, left to right then top to bottom; the
    last row is padded with black tiles."""
    blank = np.zeros_like(tiles[0])
    cells = tiles + [blank] * (-len(tiles) % columns)
    return np.concatenate([np.concatenate(cells[i:i + columns], axis=1) for i in range(0, len(cells), columns)],
                          axis=0)
