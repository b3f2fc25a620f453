"""Candidate ball centres from shape alone, where the colour foreground found none (registered mode).

A ball of (nearly) the cloth's own hue -- a green ball on green cloth, a blue one on blue,
brought onto the cloth's hue by white balance or a coloured light -- is no foreground (the
foreground test asks 5 degrees of hue), so ``vision.candidates`` gives it no candidate. Its
outline still steps in brightness all round (a sphere is shaded: under light from above its
limb faces sideways and is darker than the cloth, and its shadow lies beside it), so its edges
vote for its centre like any ball's: the same radial-symmetry votes (Loy & Zelinsky 2003, IEEE
PAMI 25(8), Sec. 2; ``symmetry_votes``), at the expected radius from the camera model, from the
edges of the judged cloth that are not the empty table's own (pocket rims, cushion lines), not in
a pocket and not of a ball already found from colour, and only near ball-sized clusters of pixels
dimmer than the lit cloth (a limb and a shadow; a frame without such a cluster away from the
balls found casts no vote, which keeps the cost down), or on a grey cloth of pixels a little off its
colour (a pale ball, washed out by a sheen, no darker than the cloth and under the foreground's 5 degrees).
On the rendered conditions (20 frames each, seeds 5-9) the peaks at balls with no candidate from colour
had 3.1-12.8 smoothed votes and every other peak (cloth texture, halo-ring remnants, gaps in a rack) at most
2.9-3.2, so a peak needs SHAPE_VOTES, times the share of its outline whose edges may vote (a ball frozen
on a cushion or in a pocket's jaw loses the votes of the part on the table's own edges). Each candidate is
only a starting point: ``vision.detect`` fits it beside the balls found (its outline on its darker limb,
``vision.limbs``) and keeps it only with SHAPE_MIN_EDGES outline points (pro rata over its search lines clear of
its neighbours), so that no edge of the table becomes a ball.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from planner.jit import njit
from vision.candidates import distinct, symmetry_votes

SHAPE_VOTES = 3.5       # smoothed symmetry votes at a shape candidate (module notes: balls 3.1+, else <= 3.2;
                        # 2.5: no false ball either, one ball more in the test's hard set, one fewer in hard x20)
EXPLAINED = 1.5         # ball radii about a ball found from colour: no new candidate there ...
OWN_EDGES = 1.2         # ... and its own edges (its outline and blur) do not vote
DIM = 0.92              # the edges that vote lie within DIM_REACH ball radii of a ball-sized square holding
DIM_REACH = 1.5         # DIM_COUNT radii of pixels dimmer than DIM times the lit cloth (8-bit units along its
DIM_COUNT = 2.0         # colour; a limb at half the cloth's linear level: 0.73; 0.85 lost 2 balls of hard x20)
SEED_HUE_DEG = 3.0      # ... or of colour further than this from the cloth's (8-bit BGR; a pale ball brighter than its
                        # grey cloth casts no dim limb: a sheen-washed 4 at 4-5.7 deg, that cloth at most 2.3)
VOTING_FLOOR = 0.3      # a peak needs SHAPE_VOTES times the share of its outline on pixels that may vote, at least
RING_SAMPLES = 64       # this share (a ball frozen on a cushion or in a pocket's jaw: 0.3-0.6); the share read at
                        # this many points of the circle of the expected radius


@njit(cache=True)
def _dim(img, voters, near, chroma, bright, share, tan2):
    """(h, w) uint8 1 where ``voters`` and ``near`` (h, w) uint8 is 0 (no ball found near) and the brightness
    along the cloth's colour (chroma (3,) unit, 8-bit BGR units) is below share x the lit cloth's ``bright`` (h, w),
    or the colour's squared distance off that direction exceeds tan2 times its squared component along it (the
    masks read here, not combined over the frame first). A row's colours are copied out as float64 first and
    every pixel is tested without branches, which the compiler vectorises."""
    h, w = voters.shape
    out = np.empty((h, w), np.uint8)
    c0, c1, c2 = chroma[0], chroma[1], chroma[2]
    b, g, r = np.empty(w), np.empty(w), np.empty(w)
    for y in range(h):
        for x in range(w):
            b[x], g[x], r[x] = img[y, x, 0], img[y, x, 1], img[y, x, 2]
        for x in range(w):
            a = b[x] * c0 + g[x] * c1 + r[x] * c2
            off = b[x] * b[x] + g[x] * g[x] + r[x] * r[x] - a * a
            out[y, x] = voters[y, x] & (near[y, x] == 0) & ((a < share * bright[y, x]) | (off > tan2 * a * a))
    return out


@njit(cache=True)
def _local_peaks(votes, allowed, near, min_votes):
    """(rows, columns) (K,) int64, in row order: the pixels of ``votes`` (h, w) float32 with at least
    ``min_votes``, ``allowed`` (h, w) bool and ``near`` (h, w) uint8 0 where no neighbour of its 3 x 3 square
    inside the array has more votes: ``np.nonzero((votes >= min_votes) & (cv2.dilate(votes, np.ones((3, 3),
    np.uint8)) == votes) & allowed & (near == 0))`` in one pass (five passes over a hard frame's window:
    0.46 -> 0.1 ms)."""
    h, w = votes.shape
    ys, xs = np.empty(h * w, np.int64), np.empty(h * w, np.int64)
    k = 0
    for y in range(h):
        for x in range(w):
            v = votes[y, x]
            if not (v >= min_votes and allowed[y, x] and near[y, x] == 0):
                continue
            peak = True
            for yy in range(max(y - 1, 0), min(y + 2, h)):
                for xx in range(max(x - 1, 0), min(x + 2, w)):
                    if votes[yy, xx] > v:
                        peak = False
            if peak:
                ys[k], xs[k] = y, x
                k += 1
    return ys[:k], xs[:k]


def shape_candidates(img: np.ndarray, voters: np.ndarray, allowed: np.ndarray, radius: np.ndarray,
                     taken: np.ndarray, chroma: np.ndarray, bright: np.ndarray,
                     r_range: tuple[float, float] | None = None, grey: bool = False) -> np.ndarray:
    """Candidate centres (K, 2) as (u, v) half-resolution pixels of balls that only their shape shows.

    img: (h, w, 3) BGR uint8 (the half-resolution crop); voters: (h, w) bool, pixels whose edges may
    vote (the judged cloth without the empty table's own edges); allowed: (h, w) bool where a centre
    may be; radius: (h, w) float32 expected ball radius [px]; taken: (M, 2) the balls found from
    colour (u, v); chroma: (3,) the cloth's colour direction, bright: (h, w) its lit brightness along it
    (``vision.cloth.ClothModel``, 8-bit units); r_range: None, or (the least, the largest) of ``radius`` (the
    detector's, found once per camera: two passes over the map a frame fewer); grey: the cloth is grey
    (``vision.cloth.grey_cloth``): pixels more than SEED_HUE_DEG off its colour count as dim ones do. Edges
    within OWN_EDGES radii of a ball found do not vote, nor edges away from dim pixels (module notes), and no
    candidate is within EXPLAINED radii of a ball found. Peaks are 3 x 3 local maxima of the votes with at least
    SHAPE_VOTES times the share of their outline on ``voters`` (``voting_share``, at least VOTING_FLOOR), kept at
    least 1.3 radii apart (stronger first)."""
    h, w = voters.shape
    near = np.zeros((h, w), np.uint8)           # 2: its own edges, 1: too near it for another ball
    at = np.rint(taken).astype(np.intp).reshape(-1, 2)
    rs = radius[np.clip(at[:, 1], 0, h - 1), np.clip(at[:, 0], 0, w - 1)]
    for value, reach in ((1, EXPLAINED), (2, OWN_EDGES)):       # (the own edges drawn over the rest)
        for (u, v), r in zip(at.tolist(), np.ceil(reach * rs).astype(int).tolist()):
            cv2.circle(near, (u, v), r, value, -1)
    # only about shading: a ball's limb and shadow are dimmer than the lit cloth (the cost is the votes')
    tan2 = math.tan(math.radians(SEED_HUE_DEG)) ** 2 if grey else np.inf
    dim = _dim(img, voters, near, chroma.astype(np.float64), bright, DIM, tan2)
    r_min, r = (float(np.min(radius)), float(np.max(radius))) if r_range is None else r_range
    b = 2 * int(np.ceil(r)) + 1      # (a whole-number count reaches DIM_COUNT r where it reaches its ceiling)
    seed = cv2.compare(cv2.boxFilter(dim, cv2.CV_16U, (b, b), normalize=False), math.ceil(DIM_COUNT * r), cv2.CMP_GE)
    if not seed.any():           # no ball-sized cluster of dim pixels: nothing to vote for
        return np.zeros((0, 2))
    k = 2 * int(np.ceil(DIM_REACH * r)) + 1
    vote = voters & (near < 2) & (cv2.dilate(seed, np.ones((k, k), np.uint8)) > 0)
    bx, by, bw, bh = cv2.boundingRect(vote.view(np.uint8))
    if bw == 0:
        return np.zeros((0, 2))
    m = int(np.ceil(r)) + 4            # the votes land within r of their edges: a window round them will do
    y0, x0 = max(by - m, 0), max(bx - m, 0)
    win = (slice(y0, min(by + bh + m, h)), slice(x0, min(bx + bw + m, w)))
    votes = symmetry_votes(img[win], vote[win], radius[win])
    ys, xs = _local_peaks(votes, allowed[win], near[win], VOTING_FLOOR * SHAPE_VOTES)
    pts = np.stack([xs + x0, ys + y0], axis=1).astype(np.float64)
    share = voting_share(voters, pts, radius)
    strong = votes[ys, xs] >= SHAPE_VOTES * np.maximum(share, VOTING_FLOOR)
    if not strong.any():
        return np.zeros((0, 2))
    pts = pts[strong]
    keep = distinct(pts, votes[ys, xs][strong], 1.3 * r_min)
    return pts[keep]


def voting_share(voters: np.ndarray, pts: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """(K,) the share of the circle of the expected radius about each point (K, 2) (u, v) [px] that lies on
    ``voters`` (h, w) bool (read at RING_SAMPLES points, rounded to pixels; outside the array counts as not
    voting): the share of a ball's outline whose edges may vote for it (a cushion's line and a pocket's
    rim do not). radius: (h, w) the expected ball radius [px]."""
    h, w = voters.shape
    if pts.shape[0] == 0:
        return np.zeros(0)
    a = np.linspace(0.0, 2 * np.pi, RING_SAMPLES, endpoint=False)
    c = np.rint(pts).astype(np.intp)
    r = radius[np.clip(c[:, 1], 0, h - 1), np.clip(c[:, 0], 0, w - 1)][:, None]
    u = np.rint(pts[:, :1] + r * np.cos(a)).astype(np.intp)
    v = np.rint(pts[:, 1:] + r * np.sin(a)).astype(np.intp)
    inside = (u >= 0) & (u < w) & (v >= 0) & (v < h)
    return (inside & voters[np.clip(v, 0, h - 1), np.clip(u, 0, w - 1)]).mean(axis=1)
