"""The synthetic camera's fast path: the empty table once per camera, then only the pixels near balls.

``FastRenderer`` gives what ``SyntheticCamera.render`` gives (the same ray casting and shading
model, ``vision.render``) at a cost that follows the pixels the balls change:

* once per camera (``StaticGBuffer``, cached as ``SyntheticCamera.gbuffer``, a few seconds):
  every pixel's ray (the normalised image coordinates of its centre), the empty-table surface its
  centre ray hits (kind, point, albedo, label, distance, each lamp's unshadowed irradiance) and,
  where the surface changes within a pixel's 3 x 3 neighbourhood, the same for its S x S
  sub-pixel rays. The empty table's linear image (``SyntheticCamera.empty_linear``) is the
  background.
* per frame (``vision.render_kernels.render_pixels``, shading by ``vision.render_shading``;
  numba, one core): only the pixels in the
  boxes of the balls that moved since the last frame, old and new places (a ball's box,
  ``SyntheticCamera.ball_boxes``, holds its silhouette, its shadows and its room-light darkening:
  outside it the ball changes nothing), and the silhouettes of still balls a moved ball can
  shadow. Each such pixel is rendered as the full render does: its centre ray, then S x S rays
  where a ball is hit or the 3 x 3 labels differ.
* then optical blur, sRGB and 8 bits only over those boxes (+ the blur's reach), written into the
  previous frame's image.

It differs from the full render in ways that change no figure we measure (tested in
``tests/vision/test_render_fast.py``: mean absolute difference ~0.001 levels per pixel, detected
centres within 0.05 px): sub-pixel rays are interpolated from the cached pixel-centre rays
(1.6e-4 px off at the distorted corners) instead of inverting the distortion per ray; the rays of
a pixel inside a ball share the lamp directions, shadow shares and room-light occluders of the
first of them (not near a shadow's edge or a contact, nor at the outline; normal, albedo and
highlight are per ray), within 1-2 % of the light; pixels no ball can shade keep the background.
Sensor noise is a rounded Gaussian field (sigma ``noise_sigma``) drawn once per seed and added at
a random offset per frame (cheap and reproducible from the rng), after rounding rather than
before. No chalk marks, no motion blur.

A frame in which nothing moved costs a copy of the image. A FastRenderer is not thread-safe: use
one per thread.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
from scipy.spatial.transform import Rotation

from planner.state import TableState
from vision import render_kernels as rk
from vision import render_shading as sh
from vision.balls import (
    BALL_SRGB,
    NUMBER_DISC_ANGLE,
    STRIPE_HALF_WIDTH,
    WHITE_SRGB,
    is_stripe,
    linear_to_srgb,
    srgb_to_linear,
)
from vision.camera import normalised_rays, pixels_to_normalised, table_to_pixels
from vision.render import POCKET_LINEAR, SKY_HIDDEN_REACH, RenderedFrame, Truth, digit_textures
from vision.scene import CLOTH, CUSHION, FLOOR, FLOOR_Z, POCKET, RAIL

if TYPE_CHECKING:
    from vision.render import SyntheticCamera

MARKED_LABEL = -100         # the label of rail points on or around a marking (as in the full render)
SRGB_LUT_SIZE = 4097
NOISE_MARGIN = 32           # the noise field is this many pixels larger on each side than the image
BLUR_REACH = 2              # pixels a Gaussian of sigma <= 0.5 px reaches (OpenCV's 5-tap kernel)


@dataclass(frozen=True)
class StaticGBuffer:
    """What each pixel's rays hit of the empty table, for one camera and lighting. H, W: image size.

    xy (H, W, 2) float64: normalised image coordinates of each pixel centre (distortion removed).
    kind (H, W) int8: surface code of the centre ray's hit (vision.scene); hit (H, W, 3) float32:
    the hit point [m]; alb (H, W, 3) float32: its linear albedo; label (H, W) int32: -1 - kind,
    or MARKED_LABEL on a rail marking; t (H, W) float32: the distance from the camera to the hit
    [m]; e0 (H, W, L) float32: on the cloth, each lamp's irradiance cos(i) / d^2 [1/m^2] at the
    hit without balls (0 elsewhere). edge (H, W) int32: for pixels whose 3 x 3 labels differ,
    the index e of their S x S sub-pixel hits ``ekind/ehit/ealb/et[e * S * S + s]`` (s: row-major
    over ``offsets`` (S * S, 2) [px]); -1 elsewhere.
    """
    xy: np.ndarray
    kind: np.ndarray
    hit: np.ndarray
    alb: np.ndarray
    label: np.ndarray
    t: np.ndarray
    e0: np.ndarray
    edge: np.ndarray
    ekind: np.ndarray
    ehit: np.ndarray
    ealb: np.ndarray
    et: np.ndarray
    offsets: np.ndarray


def subpixel_offsets(ss: int) -> np.ndarray:
    """(ss * ss, 2) sub-pixel offsets (du, dv) [px] of an ss x ss grid, row-major over dv, as the
    full render samples them."""
    offs = (np.arange(ss) + 0.5) / ss - 0.5
    ox, oy = np.meshgrid(offs, offs)
    return np.stack([ox.ravel(), oy.ravel()], axis=1)


def _trace_static(sc: SyntheticCamera, pix: np.ndarray):
    """(kind (N,), hit (N, 3), albedo (N, 3), marked (N,)) of the empty table for the rays through
    the pixels ``pix`` (N, 2), exactly as the full render traces them."""
    n = pix.shape[0]
    kind, hit = np.empty(n, np.int8), np.empty((n, 3))
    alb, marked = np.empty((n, 3)), np.empty(n, bool)
    step = 1 << 17
    for s in range(0, n, step):
        dirs = normalised_rays(sc.cam, pixels_to_normalised(sc.cam, pix[s:s + step]))
        k, h, _ = sc.scene.trace(sc.cam.centre, dirs)
        kind[s:s + step], hit[s:s + step] = k, h
        alb[s:s + step], marked[s:s + step] = sc.static_albedo(k, h)
    return kind, hit, alb, marked


def build_gbuffer(sc: SyntheticCamera) -> StaticGBuffer:
    """Trace the empty table once for every pixel centre of ``sc``'s camera, and S x S times
    (S = max(2, sc.supersample)) for pixels where the surface changes. A few seconds."""
    w, h = sc.cam.size
    vv, uu = np.mgrid[0:h, 0:w]
    pix = np.stack([uu.ravel(), vv.ravel()], axis=1).astype(np.float64)
    xy = pixels_to_normalised(sc.cam, pix).reshape(h, w, 2)
    kind, hit, alb, marked = _trace_static(sc, pix)
    label = np.where(marked, MARKED_LABEL, -1 - kind.astype(np.int32)).astype(np.int32).reshape(h, w)
    lab = label.astype(np.float32)
    k3 = np.ones((3, 3), np.uint8)
    ev, eu = np.nonzero(cv2.dilate(lab, k3) != cv2.erode(lab, k3))
    edge = np.full((h, w), -1, np.int32)
    edge[ev, eu] = np.arange(ev.size, dtype=np.int32)
    offs = subpixel_offsets(max(2, sc.supersample))
    sub = (np.stack([eu, ev], axis=1).astype(np.float64)[:, None, :] + offs[None]).reshape(-1, 2)
    ekind, ehit, ealb, _ = _trace_static(sc, sub)
    o = sc.cam.centre
    u = sc.lamps[None, :, :] - hit[:, None, :]                                  # (N, L, 3)
    du = np.linalg.norm(u, axis=2)
    e0 = np.where((kind == CLOTH)[:, None], np.clip(u[:, :, 2] / du, 0, None) / du ** 2, 0.0)
    f32 = np.float32
    return StaticGBuffer(xy=xy, kind=kind.reshape(h, w), hit=hit.reshape(h, w, 3).astype(f32),
                         alb=alb.reshape(h, w, 3).astype(f32), label=label,
                         t=np.linalg.norm(hit - o, axis=1).reshape(h, w).astype(f32),
                         e0=e0.reshape(h, w, -1).astype(f32), edge=edge, ekind=ekind, ehit=ehit.astype(f32),
                         ealb=ealb.astype(f32), et=np.linalg.norm(ehit - o, axis=1).astype(f32), offsets=offs)


def shading_params(sc: SyntheticCamera) -> np.ndarray:
    """The kernels' shading constants (15,) of ``sc`` in the order of ``render_shading.P_*``."""
    lt, t = sc.lighting, sc.table
    return np.array([sc.lamp_power, lt.ambient, lt.specular, lt.shininess, lt.lamp_radius, sc.R, t.width / 2,
                     t.length / 2, t.width, t.length, POCKET_LINEAR, SKY_HIDDEN_REACH ** -2.0,
                     np.cos(NUMBER_DISC_ANGLE), np.tan(NUMBER_DISC_ANGLE), STRIPE_HALF_WIDTH])


def _merge(rects: list[list[int]]) -> list[list[int]]:
    """Rectangles [u0, v0, u1, v1) merged into their bounding boxes until none overlap."""
    rects = [list(r) for r in rects if r[2] > r[0] and r[3] > r[1]]
    i = 0
    while i < len(rects):
        a = rects[i]
        for j in range(i + 1, len(rects)):
            b = rects[j]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                rects[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                del rects[j]
                i = -1
                break
        i += 1
    return rects


@dataclass(frozen=True)
class _Ball:
    """A ball as last rendered: centre (3,) [m], rotation (3, 3) ball -> table, its box and its
    silhouette's box (4,) [u0, v0, u1, v1) px."""
    centre: np.ndarray
    rot: np.ndarray
    box: np.ndarray
    sil: np.ndarray


class FastRenderer:
    """Frames of one SyntheticCamera, re-rendering only what changed since its last frame.

    sc: the camera (its noise_sigma, blur_sigma, supersample and lighting are used); seed: of the
    sensor-noise field. ``render`` returns what ``sc.render`` returns for balls at rest.

    For a wider rendered domain (``vision.render_domain``), all optional (None: the camera's own):
    gbuffer: a StaticGBuffer of ``sc``'s camera with other surface albedos (same geometry);
    background: (H, W, 3) linear RGB of the empty table to match it; ball_srgb: id -> sRGB colour
    (0..15, every id); markings: False for balls without stripes and number discs (snooker).
    """

    def __init__(self, sc: SyntheticCamera, seed: int = 0, gbuffer: StaticGBuffer | None = None,
                 background: np.ndarray | None = None, ball_srgb: dict | None = None, markings: bool = True):
        if sc.lamps.shape[0] != 3:
            raise ValueError(f"the fast path shades three lamps, the lighting has {sc.lamps.shape[0]}")
        self.sc = sc
        self.g = sc.gbuffer if gbuffer is None else gbuffer
        w, h = sc.cam.size
        self.size = (w, h)
        self.bg = np.ascontiguousarray(sc.empty_linear if background is None else background, dtype=np.float32)
        if self.bg.shape != (h, w, 3):
            raise ValueError(f"background must be ({h}, {w}, 3) linear RGB, got {self.bg.shape}")
        self.work = self.bg.copy()                  # linear RGB of the last frame
        self.lab = self.g.label.copy()              # its centre-ray labels
        self.amap = np.zeros((h, w), np.int8)       # and on balls, the marking they hit
        self.out = np.empty((h, w, 3), np.uint8)    # its noise-free 8-bit BGR image
        self._stamp = np.zeros((h, w), np.int32)
        self._frame = 0
        self._lut = linear_to_srgb(np.linspace(0.0, 1.0, SRGB_LUT_SIZE))
        self._encode_rect(0, 0, w, h)
        self._balls: dict[int, _Ball] = {}
        self._near: dict[int, set[int]] = {}        # per ball id: the ids that can shadow or darken it
        self._prm = shading_params(sc)
        if not markings:
            self._prm[sh.P_COS_DISC] = 2.0          # no number disc: |q . x| never exceeds it
        self._kind_z = np.full(7, sh.NO_PLANE)
        self._kind_z[[CLOTH, CUSHION, RAIL, POCKET, FLOOR]] = [0.0, sc.table.cushion_height,
                                                               sc.landmarks.rail.height, 0.0, FLOOR_Z]
        self._tex = np.ascontiguousarray(digit_textures())
        colours = BALL_SRGB if ball_srgb is None else ball_srgb
        self._base = np.array([srgb_to_linear(colours[i]) for i in range(16)])
        self._white = srgb_to_linear(WHITE_SRGB)
        self._stripe = np.array([markings and is_stripe(i) for i in range(16)])
        self._Rm = np.ascontiguousarray(sc.cam.R)
        self._o = np.ascontiguousarray(sc.cam.centre)
        self._seed = int(seed)
        self._noise = None

    # ---- public -----------------------------------------------------------------------------
    def render(self, state: TableState, rng: np.random.Generator | None = None, orientations=None,
               noise: bool = True) -> RenderedFrame:
        """One frame of ``state``, balls at rest (centres at z = R): image (H, W, 3) uint8 BGR and
        the exact truth. orientations: (K, 3, 3) rotations ball frame -> table frame (random from
        ``rng`` if None, as ``SyntheticCamera.render``). noise: add the sensor noise (sigma
        ``sc.noise_sigma`` [8-bit levels]; its offset drawn from ``rng``). The image is the
        caller's (a copy)."""
        rng = np.random.default_rng() if rng is None else rng
        ids, pos = state.ids, state.pos
        K = ids.shape[0]
        rot = (Rotation.random(K, random_state=rng).as_matrix() if orientations is None
               else np.asarray(orientations, dtype=np.float64).reshape(K, 3, 3))
        centres = np.concatenate([pos, np.full((K, 1), self.sc.R)], axis=1)
        img = self.update(ids, centres, rot).copy()
        if noise:
            self.add_noise(img, rng)
        truth = Truth(ids=ids.copy(), pos=pos.copy(), centre_px=table_to_pixels(self.sc.cam, centres))
        return RenderedFrame(img, truth)

    def update(self, ids, centres, rot) -> np.ndarray:
        """Bring the noise-free image to balls ``ids`` (K,) centred at ``centres`` (K, 3) [m] with
        orientations ``rot`` (K, 3, 3), and return it: (H, W, 3) uint8 BGR, the renderer's own
        buffer (copy it to keep it past the next update)."""
        ids = [int(i) for i in ids]
        if any(not 0 <= i <= 15 for i in ids):
            raise ValueError(f"ball ids must be 0..15 (docs/frame.md), got {ids}")
        centres = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
        rot = np.asarray(rot, dtype=np.float64).reshape(-1, 3, 3)
        old, new = self._balls, {}
        changed = set(old) - set(ids)
        moved = []
        for n, i in enumerate(ids):
            b = old.get(i)
            if b is not None and np.array_equal(b.centre, centres[n]) and np.array_equal(b.rot, rot[n]):
                new[i] = b
            else:
                changed.add(i)
                moved.append(n)
        if not changed:
            return self.out
        if moved:
            boxes, sils = self.sc.ball_boxes(centres[moved], silhouettes=True)
            for n, box, sil in zip(moved, boxes, sils):
                new[ids[n]] = _Ball(centres[n].copy(), rot[n].copy(), box, sil)
        R, rl = self.sc.R, self.sc.lighting.lamp_radius
        occ, nocc, sky, nsky = sh.neighbours(centres, self.sc.lamps, R, rl, SKY_HIDDEN_REACH)
        near = {i: {ids[k] for k in sky[j, :nsky[j]]} | {ids[k] for m in range(nocc.shape[1])
                                                         for k in occ[j, m, :nocc[j, m]]}
                for j, i in enumerate(ids)}
        rects = [old[i].box for i in changed if i in old] + [new[ids[n]].box for n in moved]
        for i in ids:               # a still ball a moved one can shadow or darken: its silhouette
            if i not in changed and (near[i] | self._near.get(i, set())) & changed:
                rects.append(new[i].sil)
        self._balls, self._near = new, near
        self._frame += 1
        rects = np.array(rects, dtype=np.int64).reshape(-1, 4)
        pu, pv, pr = rk.collect(rects, self._stamp, self._frame)
        boxes = np.array([new[i].box for i in ids], dtype=np.int64).reshape(-1, 4)
        sils = np.array([new[i].sil for i in ids], dtype=np.int64).reshape(-1, 4)
        index_of = np.full(16, -1, np.int64)
        index_of[ids] = np.arange(len(ids))
        g = self.g
        rk.render_pixels(pu, pv, pr, rk.rect_balls(rects, boxes), self.work, self.lab, self.amap, self.bg, g.xy, self._Rm,
                         self._o, g.kind, g.hit, g.alb, g.t, g.e0, g.label, g.edge, g.ekind, g.ehit, g.ealb, g.et,
                         g.offsets, self._kind_z, centres, rot, np.array(ids, dtype=np.int64), boxes, sils, occ, nocc,
                         sky, nsky, sh.shadow_discs(centres, self.sc.lamps, R, rl), self.sc.lamps, self._prm,
                         self._tex, self._base, self._white, self._stripe, index_of, *_workspace(pu.size, len(ids)))
        w, h = self.size
        m = BLUR_REACH
        for u0, v0, u1, v1 in _merge([[max(r[0] - m, 0), max(r[1] - m, 0), min(r[2] + m, w), min(r[3] + m, h)]
                                      for r in rects]):
            self._encode_rect(u0, v0, u1, v1)
        return self.out

    def add_noise(self, img: np.ndarray, rng: np.random.Generator) -> None:
        """Add the sensor noise to ``img`` (H, W, 3) uint8 in place: the renderer's field of
        rounded Gaussian values (sigma sc.noise_sigma) at an offset drawn from ``rng``. Nothing
        if sigma is 0."""
        if self.sc.noise_sigma <= 0:
            return
        w, h = self.size
        if self._noise is None:
            self._noise = noise_field(w, h, self.sc.noise_sigma, self._seed)
        dy, dx = (int(d) for d in rng.integers(0, 2 * NOISE_MARGIN + 1, 2))
        up, down = (a[dy:dy + h, dx:dx + w] for a in self._noise)
        cv2.add(img, up, dst=img)
        cv2.subtract(img, down, dst=img)

    # ---- helpers ----------------------------------------------------------------------------
    def _encode_rect(self, u0: int, v0: int, u1: int, v1: int) -> None:
        """Blur, encode and write the output pixels [u0, u1) x [v0, v1) from the linear image."""
        w, h = self.size
        m = 2 * BLUR_REACH
        e0, f0, e1, f1 = max(u0 - m, 0), max(v0 - m, 0), min(u1 + m, w), min(v1 + m, h)
        patch = self.work[f0:f1, e0:e1]
        if self.sc.blur_sigma > 0:
            patch = cv2.GaussianBlur(patch, (0, 0), self.sc.blur_sigma)
        rk.encode(np.ascontiguousarray(patch), v0 - f0, u0 - e0, v1 - v0, u1 - u0, self.out, v0, u0,
                  float(self.sc.lighting.exposure), self._lut)


@functools.lru_cache(maxsize=4)
def noise_field(w: int, h: int, sigma: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Sensor noise for (w, h) images: rounded N(0, sigma^2) [8-bit levels] over a field NOISE_MARGIN
    px larger on each side, as its positive and negative parts ((h + 2m, w + 2m, 3) uint8 each),
    from ``seed``. Shared by the renderers that ask for the same field (read-only)."""
    n = np.rint(np.random.default_rng(seed).normal(0.0, sigma, (h + 2 * NOISE_MARGIN, w + 2 * NOISE_MARGIN, 3)))
    up, down = np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)
    up.flags.writeable = down.flags.writeable = False
    return up, down


def _workspace(P: int, K: int) -> tuple:
    """The scratch arrays of ``render_kernels.render_pixels`` for P pixels and K balls."""
    k = max(K, 1)
    return (np.empty((P, 3)), np.zeros(P, np.int8), np.empty(k, np.int64), np.empty(k, np.int64),
            np.empty((k, sh.CTX_SKY + 4 * k)), np.full(k, -1, np.int64), np.zeros(k, np.bool_), np.empty((3, 3)))
