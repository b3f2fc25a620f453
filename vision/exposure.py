"""A camera's exposure read off its brightest pixels, and an underexposed frame brought up to it (pixel-only mode).

The lamps' highlights on the balls, the cue ball and white markings are the brightest things over a
table, and a camera exposed as the detector expects brings them to or near its top level: every real
frame of the development sets clips them at 255, and in 1000 rendered domain frames (ten conditions,
five seeds) the HIGHLIGHT_RANK-th brightest channel value is at least 205 (gentle lighting). The
pixel-only detector's outline search takes colour steps in 8-bit levels (``MIN_STEP``, ``WEAK_STEP``),
so a darker exposure loses the weaker outlines: at ``--perturb gain=0.6`` 1-9 % of the real sets'
balls. A frame whose highlights lie below EXPOSED_LEVEL is taken as underexposed and scaled so that
they reach 255; every other frame is passed on as it is (the same array). docs/vision.md, "Exposure".
"""
from __future__ import annotations

import cv2
import numpy as np

HIGHLIGHT_RANK = 100   # the highlights' level: this many channel values of the frame at or above it
EXPOSED_LEVEL = 195    # ... below this level the frame is underexposed (rendered frames: at least 205)


def highlight_level(image: np.ndarray) -> int:
    """The HIGHLIGHT_RANK-th brightest channel value (0-255) of a BGR uint8 image (h, w, 3) (0 if the
    image holds fewer values)."""
    hist = cv2.calcHist([image.reshape(image.shape[0], -1)], [0], None, [256], [0, 256]).ravel()
    above = np.cumsum(hist[::-1])                       # above[k]: values >= 255 - k
    k = np.searchsorted(above, HIGHLIGHT_RANK)
    return int(255 - k) if k < 256 else 0


def exposed(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR uint8 (h, w, 3)) itself when at least HIGHLIGHT_RANK of its channel values reach
    EXPOSED_LEVEL (about 0.3 ms for 1280x720 on one core); otherwise a copy scaled by 255 / its
    ``highlight_level`` (rounded, clipped at 255), or the image itself if that level is 0 (black)."""
    flat = image.reshape(image.shape[0], -1)
    if cv2.countNonZero(cv2.threshold(flat, EXPOSED_LEVEL - 1, 255, cv2.THRESH_BINARY)[1]) >= HIGHLIGHT_RANK:
        return image
    level = highlight_level(image)
    return image if level == 0 else cv2.convertScaleAbs(image, alpha=255.0 / level)
