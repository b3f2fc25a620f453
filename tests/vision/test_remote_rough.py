"""A second search's ball fitted rough (within the frame's limit, ``frame_limits``) far from every ball found, its
points spanning REMOTE_SPAN of its circle, is added whatever its square's fill (``TableDetector.added_kept``):
FEW_FILL guards against a halo ring's arc, and a ring's arc lies within SHORT_FAR R of the ball it is drawn round."""
from __future__ import annotations

from vision.render_domain import condition_frames


def test_remote_rough_ball_added(synthetic_camera, counted):
    """The hard condition's seed 30 frame 1 (``condition_frames`` seed 30, second frame; a projector's light, JPEG): a
    blue 2 alone on a blue cloth, 10 R from every other ball. The first search finds no colour candidate on it and its
    shape fit keeps 14 points, under SHAPE_MIN_EDGES; the second search (the light taken off) fits it on 26 points
    spanning 0.83 of its circle at 0.82 px: over the clean limit (0.055 of its 13.3 px radius, 0.73 px), within the
    frame's (1.22 px), but its square is only 0.62 foreground (under FEW_FILL 0.75; a ball of its cloth's hue) and it
    was refused. Now every ball is found, no false ball, the 2 within 2 mm of its true centre (1.8)."""
    sc, _ = synthetic_camera
    c = counted(condition_frames(sc, "hard", 2, 30)[1], 2)
    assert c.matched == c.balls == c.detected
    assert c.off < 0.002
