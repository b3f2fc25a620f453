"""A second search's ball fitted to a short arc far smoother than the frame's own fits is added
(``TableDetector.added_kept``, ``smoother_than_frame``): a JPEG frame roughens every outline alike, and the short arcs
the arc test refuses (a halo ring's remnant, the soft step a lit area's edge leaves where the light is taken off) are as
rough as the frame's balls."""
from __future__ import annotations

import numpy as np

from vision.detect import SMOOTH_SHARE, smoother_than_frame
from vision.render_domain import condition_frames


def test_smooth_short_arc_ball_added(synthetic_camera, counted):
    """The lit_jpeg condition's seed 41 frame 2 (``condition_frames`` seed 41, third frame; a projector's lit area,
    JPEG): a maroon-striped 15 on a maroon cloth between two balls. The first search leaves it (its shape fit keeps
    2 points); the second search (the light taken off) fits it 0.2 mm off on 18 points spanning 0.42 of its circle at
    0.08 px, a quarter of the median of that search's 13 own fits, but its span is under SHORT_SPAN, its square 0.78
    foreground (under SHORT_FILL) and it lies 3 R from the nearest ball found (under SHORT_FAR): it was refused. Now
    every ball is found, no false ball, the 15 within 1 mm of its true centre."""
    sc, _ = synthetic_camera
    c = counted(condition_frames(sc, "lit_jpeg", 3, 41)[2], 15)
    assert c.matched == c.balls == c.detected
    assert c.off < 0.001


def test_smoother_than_frame_needs_the_frames_fits():
    """Under SMOOTH_SHARE (0.5) of the own fits' median (0.45 px here) only, and only where FRAME_MIN_FITS (5) fits
    are own; a fit without its own outline is never smoother."""
    assert SMOOTH_SHARE == 0.5
    rms = np.array([0.1, 0.4, 0.5, 0.6, 0.5, 0.4, 0.05])
    own = np.array([True, True, True, True, True, True, False])
    assert smoother_than_frame(rms, own).tolist() == [True] + [False] * 6
    assert not smoother_than_frame(rms[:4], own[:4]).any()
