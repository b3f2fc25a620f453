"""The domain bench's contact sheet: each condition's worst frame with its scored detections drawn.

``run_domain_bench`` keeps, per condition, the ``ScoredFrame`` that did worst (most balls missed,
then most false balls, then most wrong identities, then the largest centre RMS) together with the
match its ``Score`` made, so that the picture shows what the table of figures counted and nothing is
scored twice. ``domain_sheet`` draws them (``vision.overlay``'s colours): a tile per condition, the
table cropped from the frame and scaled to ``TILE_WIDTH`` px, the sphere outline of each found ball
at its fitted position with its label, each missed ball's outline at its true position, each false
ball's at its fitted position, and a caption with the condition, the frame and its figures.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.camera import sphere_silhouettes, table_to_pixels
from vision.overlay import FALSE_BGR, FOUND_BGR, MISSED_BGR, WRONG_ID_BGR, caption, draw_outlines, grid
from vision.render import RenderedFrame, SyntheticCamera

TILE_WIDTH = 640            # px, one condition's tile on the sheet
SHEET_COLUMNS = 4           # tiles per row
TABLE_MARGIN_M = 0.12       # shown around the cloth's corners: the pockets and the rail's inner half
OUTLINE_POINTS = 48         # points on each drawn sphere outline


@dataclass(frozen=True)
class ScoredFrame:
    """One frame of a condition as the domain bench scored it.

    index: the frame's place among the condition's frames (``condition_frames`` order); frame: the
    rendered frame and its truth; xy: (M, 2) detected table positions [m]; labels: (M,) their labels;
    ids: (M,) their 8-ball ids (-1: none); rows, cols: the matched pairs (truth indices, detection
    indices) as ``Score.add`` returned them.
    """
    index: int
    frame: RenderedFrame
    xy: np.ndarray
    labels: list[str]
    ids: np.ndarray
    rows: np.ndarray
    cols: np.ndarray

    @property
    def missed(self) -> np.ndarray:
        """Indices of the truth balls no detection matched."""
        return np.setdiff1d(np.arange(len(self.frame.truth.ids)), self.rows)

    @property
    def false(self) -> np.ndarray:
        """Indices of the detections that matched no ball."""
        return np.setdiff1d(np.arange(self.xy.shape[0]), self.cols)

    @property
    def wrong_ids(self) -> np.ndarray:
        """Indices of the matched detections whose id is not the ball's."""
        return self.cols[self.ids[self.cols] != self.frame.truth.ids[self.rows]]

    @property
    def rms_mm(self) -> float:
        """Centre RMS of the matched balls [mm] (0 with none matched)."""
        d = self.frame.truth.pos[self.rows] - self.xy[self.cols]
        return float(np.sqrt(np.mean(np.sum(d * d, axis=1))) * 1000) if self.rows.size else 0.0

    def badness(self) -> tuple[int, int, int, float]:
        """The order in which frames are worse: balls missed, false balls, wrong ids, RMS."""
        return self.missed.size, self.false.size, self.wrong_ids.size, self.rms_mm


def worse(a: ScoredFrame | None, b: ScoredFrame) -> ScoredFrame:
    """The worse of two scored frames (``a`` on a tie; ``b`` when ``a`` is None)."""
    return b if a is None or b.badness() > a.badness() else a


@dataclass(frozen=True)
class TileView:
    """How a frame's pixels map onto its tile: tile = (px - origin) * scale, cropped to ``size`` (w, h)."""
    origin: np.ndarray
    scale: float
    size: tuple[int, int]

    def to_tile(self, px: np.ndarray) -> np.ndarray:
        """(..., 2) frame pixels -> tile pixels."""
        return (np.asarray(px, float) - self.origin) * self.scale


def tile_view(sc: SyntheticCamera, width: int = TILE_WIDTH) -> TileView:
    """The crop of ``sc``'s frames round the table (its cloth corners +- TABLE_MARGIN_M, within the
    frame) scaled to ``width`` px."""
    t, m = sc.table, TABLE_MARGIN_M
    corners = np.array([[x, y, 0.0] for x in (-m, t.width + m) for y in (-m, t.length + m)])
    px = table_to_pixels(sc.cam, corners)
    w, h = sc.cam.size
    lo = np.maximum(np.floor(px.min(axis=0)), 0)
    hi = np.minimum(np.ceil(px.max(axis=0)), [w, h])
    scale = width / float(hi[0] - lo[0])
    return TileView(lo, scale, (width, int(round((hi[1] - lo[1]) * scale))))


def frame_tile(sc: SyntheticCamera, s: ScoredFrame, condition: str, view: TileView) -> np.ndarray:
    """The tile of one scored frame: the cropped, scaled frame with its outlines drawn (found green
    with their labels, wrong labels yellow; missed red; false magenta) above a caption line."""
    x0, y0 = (int(v) for v in view.origin)
    w, h = view.size
    crop = s.frame.image[y0:y0 + int(round(h / view.scale)), x0:x0 + int(round(w / view.scale))]
    tile = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
    truth = s.frame.truth

    def outlines(xy):
        P = np.column_stack([np.asarray(xy, float).reshape(-1, 2), np.full(len(xy), sc.R)])
        return view.to_tile(sphere_silhouettes(sc.cam, P, sc.R, OUTLINE_POINTS))
    found = s.cols
    wrong = set(s.wrong_ids.tolist())
    draw_outlines(tile, outlines(s.xy[found]), FOUND_BGR, [s.labels[i] for i in found],
                  [WRONG_ID_BGR if i in wrong else None for i in found])
    draw_outlines(tile, outlines(truth.pos[s.missed]), MISSED_BGR, thickness=2)
    draw_outlines(tile, outlines(s.xy[s.false]), FALSE_BGR, thickness=2)
    n = len(truth.ids)
    text = (f"{condition}  frame {s.index}: {s.rows.size}/{n} found ({100 * s.rows.size / max(n, 1):.0f} %), "
            f"RMS {s.rms_mm:.2f} mm, {s.false.size} false, {s.wrong_ids.size} wrong id")
    return np.concatenate([tile, caption(w, text)], axis=0)


def domain_sheet(sc: SyntheticCamera, worst: list[tuple[str, ScoredFrame]], columns: int = SHEET_COLUMNS,
                 width: int = TILE_WIDTH) -> np.ndarray:
    """The contact sheet (BGR): the tiles of (condition, worst frame) pairs, ``columns`` per row
    (fewer when there are fewer conditions), each ``width`` px wide."""
    view = tile_view(sc, width)
    return grid([frame_tile(sc, s, cond, view) for cond, s in worst], min(columns, len(worst)))
