"""The domain bench's contact sheet (vision.domain_sheet): a missed ball drawn where the score put it
(the sheet's grid: tests/vision/test_vision_cli.py)."""
from __future__ import annotations

import numpy as np

from vision.bench import Score, render_layouts
from vision.domain_sheet import TILE_WIDTH, ScoredFrame, frame_tile, tile_view, worse
from vision.overlay import CAPTION_HEIGHT


def _red(pixels: np.ndarray) -> np.ndarray:
    b, g, r = (pixels[..., k].astype(int) for k in range(3))
    return (r > 180) & (g < 90) & (b < 90)


def test_a_missed_ball_is_a_red_outline_at_its_true_position(synthetic_camera, vision):
    """One detection taken away: the score reports that ball missed, the frame is the worse one,
    and its tile shows red all round the ball's true centre (every ray from the projected centre
    crosses a red pixel at 0.5-1.5 outline radii), where the tile with every detection has none;
    the two tiles differ nowhere else (but in their captions) than round that ball."""
    sc, _ = synthetic_camera
    f = render_layouts(sc, 1, seed=3, rack_every=0, chalk_every=0)[0]
    det, obs = vision.detect(f.image)
    ids = np.array([-1 if o.ball_id is None else o.ball_id for o in obs], dtype=np.int64)
    gone = int(np.argmin(np.linalg.norm(det.xy - f.truth.pos[0], axis=1)))     # the detection of truth ball 0
    keep = np.arange(len(obs)) != gone

    def scored(index, k):
        return ScoredFrame(index, f, det.xy[k], [o.label for o, kk in zip(obs, k) if kk], ids[k],
                           *Score().add(f.truth.ids, f.truth.pos, det.xy[k], ids[k], sc.R))
    whole, cut = scored(0, np.ones(len(obs), bool)), scored(1, keep)
    assert whole.missed.size == 0 and cut.missed.tolist() == [0] and cut.false.size == 0
    assert worse(whole, cut) is cut and worse(cut, whole) is cut
    view = tile_view(sc)
    tiles = [frame_tile(sc, s, "default", view) for s in (whole, cut)]
    assert tiles[1].shape == (view.size[1] + CAPTION_HEIGHT, TILE_WIDTH, 3)
    c, r = view.to_tile(f.truth.centre_px[0]), float(det.r_px[gone]) * view.scale
    a = np.radians(np.arange(0, 360, 30))[:, None]
    t = np.linspace(0.5 * r, 1.5 * r, 12)[None, :]
    u, v = np.rint(c[0] + t * np.cos(a)).astype(int), np.rint(c[1] + t * np.sin(a)).astype(int)
    assert _red(tiles[1][v, u]).any(axis=1).all() and not _red(tiles[0][v, u]).any()
    yy, xx = np.nonzero(np.any(tiles[0][:view.size[1]] != tiles[1][:view.size[1]], axis=-1))
    assert yy.size and np.hypot(xx - c[0], yy - c[1]).max() < 3 * r       # its outline and its label above it

