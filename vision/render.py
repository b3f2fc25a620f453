"""The synthetic overhead camera: renders what the camera should see of a table state, with exact truth.

Every pixel is ray cast (numpy, vectorised): pixel (distorted) -> undistorted ray (the camera
model's own inverse, ``vision.camera``) -> nearest hit among the balls (spheres of radius R, centres
at z = R) and the empty table (``vision.scene``: cloth, cushions, rail caps with diamonds and ArUco
markers, pocket holes, floor). Shading, in linear light:

* lamps: three spherical lamps above the table's long axis; Lambert irradiance E = P cos(i) / d^2,
  with soft shadows from every ball (the fraction of the lamp's disc the ball's disc covers, as
  seen from the shaded point);
* room light: a hemisphere, E = A (1 + n_z) / 2, darkened near balls by the fraction of the sky they
  hide (sin^2 of their angular radius times the sine of their elevation);
* balls: albedo from their colour, stripe band and number discs; plus a Blinn-Phong specular
  highlight of each lamp (glossy resin).

The image is supersampled (S x S rays per pixel, averaged in linear light) wherever a ball or
its shadow can be, so silhouettes are anti-aliased as a real sensor integrates them; the empty
table is rendered once per camera (3 x 3 rays where its surface changes). Then: optical blur
(Gaussian), sRGB encoding, sensor noise (Gaussian, in 8-bit units), 8-bit BGR. Motion blur
averages sub-frames over the exposure.

The truth is the table-frame position of each ball (exact by construction) and the pixel where
its centre projects.

This full render takes about a second per frame. ``fast_renderer()`` (``vision.render_fast``)
renders frames of balls at rest with the same model in milliseconds, re-rendering only what the
balls change; the simulated camera (``controller.sim.camera``) uses it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.spatial.transform import Rotation

from planner.state import TableState
from planner.table import Table
from vision.balls import (
    BALL_SRGB,
    CLOTH_SRGB,
    NUMBER_DISC_ANGLE,
    STRIPE_HALF_WIDTH,
    WHITE_SRGB,
    is_stripe,
    linear_to_srgb,
    srgb_to_linear,
)
from vision.camera import CameraModel, normalised_rays, pixels_to_normalised, sphere_silhouettes, table_to_pixels
from vision.registration import Landmarks, aruco_dictionary
from vision.scene import CLOTH, CUSHION, FLOOR, NOSE_FACE, POCKET, RAIL, RAIL_FACE, TableScene, diamond_points

WOOD_SRGB = (105, 58, 30)
FLOOR_SRGB = (45, 45, 48)
DIAMOND_SRGB = (235, 232, 220)
CHALK_SRGB = (70, 120, 200)
CHALK_RADIUS = 0.008        # [m]
POCKET_LINEAR = 0.004       # the inside of a pocket, linear reflectance-times-light
SKY_HIDDEN_REACH = 2.7      # room-light darkening ends this many radii from a ball's centre


@dataclass(frozen=True)
class Lighting:
    """Three spherical lamps above the table's long axis, plus room light.

    lamp_height: above the cloth [m]; lamp_spacing: between lamp centres along y [m];
    lamp_radius [m]; ambient: the room light's share of the irradiance at the table centre;
    specular, shininess: Blinn-Phong highlight strength and exponent; exposure: linear gain.
    """
    lamp_height: float = 1.0
    lamp_spacing: float = 0.75
    lamp_radius: float = 0.09
    ambient: float = 0.35
    specular: float = 2.5
    shininess: float = 300.0
    exposure: float = 1.0

    def lamps(self, table: Table) -> np.ndarray:
        """(3, 3) lamp centres in the table frame [m]."""
        y0 = table.length / 2
        return np.array([[table.width / 2, y0 + k * self.lamp_spacing, self.lamp_height] for k in (-1, 0, 1)])


@dataclass(frozen=True)
class Truth:
    """Exact ground truth of a rendered frame: ball ids (K,), centres (K, 2) in the table frame [m]
    (at z = R), and the pixels (K, 2) where the centres project (mid-exposure for motion blur)."""
    ids: np.ndarray
    pos: np.ndarray
    centre_px: np.ndarray


@dataclass(frozen=True)
class RenderedFrame:
    """A synthetic camera frame and its exact ground truth."""
    image: np.ndarray   # (H, W, 3) uint8 BGR
    truth: Truth


@functools.lru_cache(maxsize=1)
def digit_textures(size: int = 48) -> np.ndarray:
    """(16, size, size) float32: 1 = white disc, 0 = black digit ink, for ids 0..15 (0 is blank)."""
    tex = np.ones((16, size, size), dtype=np.float32)
    for i in range(1, 16):
        img = np.full((size, size), 255, np.uint8)
        text = str(i)
        scale = 1.05 if i < 10 else 0.85
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
        cv2.putText(img, text, ((size - tw) // 2, (size + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, 0, 2,
                    cv2.LINE_AA)
        tex[i] = img / 255.0
    return tex


def ball_albedo(ball_id: int, q: np.ndarray) -> np.ndarray:
    """Linear albedo (N, 3) RGB at unit points ``q`` (N, 3) of a ball's own frame (markings: vision.balls)."""
    base = srgb_to_linear(BALL_SRGB[ball_id])
    white = srgb_to_linear(WHITE_SRGB)
    alb = np.repeat(base[None, :], q.shape[0], axis=0)
    if is_stripe(ball_id):
        alb[np.abs(q[:, 2]) >= STRIPE_HALF_WIDTH] = white
    if ball_id == 0:
        return alb
    cos_disc = np.cos(NUMBER_DISC_ANGLE)
    tan_disc = np.tan(NUMBER_DISC_ANGLE)
    tex = digit_textures()[ball_id]
    n = tex.shape[0]
    for sign in (1.0, -1.0):
        qa = sign * q[:, 0]
        m = qa > cos_disc
        if not np.any(m):
            continue
        u = sign * q[m, 1] / qa[m] / tan_disc        # tangent-plane coordinates in [-1, 1]
        v = -q[m, 2] / qa[m] / tan_disc
        iu = np.clip(((u + 1) / 2 * n).astype(int), 0, n - 1)
        iv = np.clip(((v + 1) / 2 * n).astype(int), 0, n - 1)
        ink = tex[iv, iu][:, None]
        alb[m] = white * ink + 0.02 * (1 - ink)
    return alb


class SyntheticCamera:
    """Renders frames of a table seen by a posed camera. The empty table is cached per instance.

    cam: a CameraModel with a pose; table: the table geometry; R: ball radius [m];
    landmarks: rail caps and ArUco markers; noise_sigma: sensor noise [8-bit units];
    blur_sigma: optical blur [px]; supersample: rays per pixel along each axis near balls.
    """

    def __init__(self, cam: CameraModel, table: Table, R: float, landmarks: Landmarks,
                 lighting: Lighting = Lighting(), noise_sigma: float = 1.5, blur_sigma: float = 0.5,
                 supersample: int = 4, cloth_srgb=CLOTH_SRGB):
        if not cam.has_pose:
            raise ValueError("SyntheticCamera needs a posed camera (pose.rvec/tvec)")
        self.cam, self.table, self.R, self.landmarks = cam, table, float(R), landmarks
        self.lighting, self.noise_sigma, self.blur_sigma = lighting, float(noise_sigma), float(blur_sigma)
        self.supersample = int(supersample)
        self.scene = TableScene(table, landmarks.rail)
        self.lamps = lighting.lamps(table)
        self.cloth = srgb_to_linear(cloth_srgb)
        centre = np.array([[table.width / 2, table.length / 2, 0.0]])
        up = np.array([[0.0, 0.0, 1.0]])
        direct = self._lamp_light(centre, up, [], np.zeros(3))[0][0]
        self.lamp_power = (1.0 - lighting.ambient) / direct        # table centre irradiance = 1
        self._marker_bits = {i: aruco_dictionary(landmarks.dictionary).generateImageMarker(i, 6)
                             for i in landmarks.markers}
        self._diamonds = diamond_points(table, landmarks.rail)

    # ---- public ---------------------------------------------------------------------------
    @functools.cached_property
    def empty_linear(self) -> np.ndarray:
        """(H, W, 3) float32 linear RGB of the empty table (3 x 3 supersampled along edges)."""
        w, h = self.cam.size
        vv, uu = np.mgrid[0:h, 0:w]
        pix = np.stack([uu.ravel(), vv.ravel()], axis=1).astype(np.float64)
        return self._render_pixels(pix, (h, w), [], np.zeros((0, 2)), None, 3).reshape(h, w, 3)

    @functools.cached_property
    def gbuffer(self):
        """The empty table's ``vision.render_fast.StaticGBuffer`` for this camera and lighting
        (computed on first use, a few seconds)."""
        from vision.render_fast import build_gbuffer
        return build_gbuffer(self)

    def fast_renderer(self, seed: int = 0):
        """A new ``vision.render_fast.FastRenderer`` of this camera (sharing its cached empty table
        and G-buffer): frames of balls at rest at a few ms each. seed: of its sensor noise field."""
        from vision.render_fast import FastRenderer
        return FastRenderer(self, seed)

    def render(self, state: TableState, rng: np.random.Generator | None = None, orientations=None,
               velocities=None, exposure_s: float = 0.0, subframes: int = 8, chalk=None) -> RenderedFrame:
        """Render one frame of ``state`` (balls at rest unless ``velocities`` (K, 2) [m/s] with an
        exposure time ``exposure_s`` [s] are given: then positions are mid-exposure).

        orientations: (K, 3, 3) rotations ball frame -> table frame (random if None).
        chalk: (N, 2) table positions of chalk marks on the cloth. rng seeds noise and orientations.
        """
        rng = np.random.default_rng() if rng is None else rng
        ids, pos = state.ids, state.pos
        K = ids.shape[0]
        rot = (Rotation.random(K, random_state=rng).as_matrix() if orientations is None
               else np.asarray(orientations, dtype=np.float64).reshape(K, 3, 3))
        chalk = np.zeros((0, 2)) if chalk is None else np.asarray(chalk, dtype=np.float64).reshape(-1, 2)
        if velocities is not None and exposure_s > 0 and K:
            vel = np.asarray(velocities, dtype=np.float64).reshape(K, 2)
            times = (np.arange(subframes) + 0.5) / subframes - 0.5
            poses = [pos + vel * exposure_s * t for t in times]
        else:
            poses = [pos]
        img = self.empty_linear.copy()
        w, h = self.cam.size
        mask = np.zeros((h, w), dtype=bool)
        scenes = []
        for p in poses:
            balls = [(int(i), np.array([x, y, self.R]), r) for i, (x, y), r in zip(ids, p, rot)]
            boxes = self._ball_boxes(balls)
            for (u0, v0, u1, v1) in boxes:
                mask[v0:v1, u0:u1] = True
            scenes.append((balls, boxes))
        for c in chalk:
            u0, v0, u1, v1 = self._box_of(np.array([[c[0], c[1], 0.0]]), pad=CHALK_RADIUS * 1.5)
            mask[v0:v1, u0:u1] = True
        vv, uu = np.nonzero(mask)
        if vv.size:
            pix = np.stack([uu, vv], axis=1).astype(np.float64)
            ss = max(2, self.supersample // (2 if len(poses) > 1 else 1))
            acc = np.zeros((pix.shape[0], 3))
            for balls, boxes in scenes:
                acc += self._render_pixels(pix, (h, w), balls, chalk, boxes, ss)
            img[vv, uu] = (acc / len(scenes)).astype(np.float32)
        if self.blur_sigma > 0:
            img = cv2.GaussianBlur(img, (0, 0), self.blur_sigma)
        srgb = linear_to_srgb(img * self.lighting.exposure)
        if self.noise_sigma > 0:
            srgb = srgb + rng.normal(0.0, self.noise_sigma, srgb.shape)
        bgr = np.clip(np.rint(srgb), 0, 255).astype(np.uint8)[:, :, ::-1].copy()
        centres = np.concatenate([pos, np.full((K, 1), self.R)], axis=1)
        truth = Truth(ids=ids.copy(), pos=pos.copy(), centre_px=table_to_pixels(self.cam, centres))
        return RenderedFrame(bgr, truth)

    # ---- geometry helpers ------------------------------------------------------------------
    def _box_of(self, pts3: np.ndarray, pad: float = 0.0) -> tuple[int, int, int, int]:
        """Pixel box (u0, v0, u1, v1) around table points, padded by ``pad`` metres and 2 px."""
        if pad > 0:
            t = np.linspace(0, 2 * np.pi, 16, endpoint=False)
            ring = np.stack([np.cos(t), np.sin(t), np.zeros_like(t)], axis=1) * pad
            pts3 = (pts3[:, None, :] + ring[None]).reshape(-1, 3)
        px = table_to_pixels(self.cam, pts3)
        w, h = self.cam.size
        u0, v0 = np.floor(px.min(axis=0)).astype(int) - 2
        u1, v1 = np.ceil(px.max(axis=0)).astype(int) + 3
        return max(u0, 0), max(v0, 0), min(u1, w), min(v1, h)

    def _ball_boxes(self, balls) -> list[tuple[int, int, int, int]]:
        """Per ball: a pixel box holding its silhouette, its shadows and its contact darkening."""
        if not balls:
            return []
        return [tuple(int(v) for v in b) for b in self.ball_boxes(np.array([c for _, c, _ in balls]))]

    def ball_boxes(self, centres: np.ndarray, silhouettes: bool = False):
        """(K, 4) int64 pixel boxes (u0, v0, u1, v1), end-exclusive and clipped to the image, of
        balls centred at ``centres`` (K, 3) [m]: each holds the ball's silhouette (+2 px), its lamp
        shadows (penumbra discs on the cloth) and its room-light darkening (SKY_HIDDEN_REACH radii
        + 2 cm). Outside its box a ball changes no pixel. With ``silhouettes``: (boxes, the boxes
        (K, 4) of the silhouettes alone, +2 px)."""
        R, lt = self.R, self.lighting
        w, h = self.cam.size
        C = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
        K = C.shape[0]
        if K == 0:
            empty = np.zeros((0, 4), dtype=np.int64)
            return (empty, empty) if silhouettes else empty
        t = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        ring = np.stack([np.cos(t), np.sin(t), np.zeros_like(t)], axis=1)
        shadow_r = R * (lt.lamp_height + lt.lamp_radius) / (lt.lamp_height - 2 * R)
        L = self.lamps[None, :, :]
        shadows = L + (C[:, None, :] - L) * (L[..., 2:] / (L[..., 2:] - C[:, None, 2:]))    # (K, 3, 3)
        shadow_pts = (shadows[:, :, None, :] + ring[None, None] * shadow_r).reshape(K, -1, 3)
        floor = np.concatenate([C[:, :2], np.zeros((K, 1))], axis=1)
        sky_pts = floor[:, None, :] + ring[None] * (SKY_HIDDEN_REACH * R + 0.02)
        sil = sphere_silhouettes(self.cam, C, R, 24)                                          # (K, 24, 2)
        n_sh, n_sky = shadow_pts.shape[1], sky_pts.shape[1]
        px = table_to_pixels(self.cam, np.concatenate([shadow_pts, sky_pts], axis=1).reshape(-1, 3))
        px = px.reshape(K, n_sh + n_sky, 2)
        lo = np.minimum(np.minimum(np.floor(px[:, :n_sh].min(axis=1)), np.floor(px[:, n_sh:].min(axis=1))),
                        np.floor(sil.min(axis=1))).astype(np.int64) - 2
        hi = np.maximum(np.maximum(np.ceil(px[:, :n_sh].max(axis=1)), np.ceil(px[:, n_sh:].max(axis=1))),
                        np.ceil(sil.max(axis=1))).astype(np.int64) + 3
        boxes = np.stack([np.clip(lo[:, 0], 0, w), np.clip(lo[:, 1], 0, h),
                          np.clip(hi[:, 0], 0, w), np.clip(hi[:, 1], 0, h)], axis=1)
        if not silhouettes:
            return boxes
        slo = np.floor(sil.min(axis=1)).astype(np.int64) - 2
        shi = np.ceil(sil.max(axis=1)).astype(np.int64) + 3
        return boxes, np.stack([np.clip(slo[:, 0], 0, w), np.clip(slo[:, 1], 0, h),
                                np.clip(shi[:, 0], 0, w), np.clip(shi[:, 1], 0, h)], axis=1)

    # ---- shading ---------------------------------------------------------------------------
    def _render_pixels(self, pix, shape, balls, chalk, boxes, ss) -> np.ndarray:
        """Linear RGB (N, 3) of the pixels ``pix`` (N, 2): one ray per pixel, then ss x ss rays
        wherever the surface hit changes within a pixel's 3 x 3 neighbourhood or a ball is hit."""
        col = np.empty((pix.shape[0], 3))
        label = np.empty(pix.shape[0], dtype=np.int32)
        step = 1 << 16
        for s in range(0, pix.shape[0], step):
            col[s:s + step], label[s:s + step] = self._shade_samples(pix[s:s + step], balls, chalk, boxes)
        lab = np.full(shape, -(1 << 20), dtype=np.int32)
        iu, iv = pix[:, 0].astype(int), pix[:, 1].astype(int)
        lab[iv, iu] = label
        hi = cv2.dilate(lab.astype(np.float32), np.ones((3, 3), np.uint8))
        lo = cv2.erode(lab.astype(np.float32), np.ones((3, 3), np.uint8))
        fine = np.flatnonzero((hi[iv, iu] != lo[iv, iu]) | (label >= 0))
        offs = (np.arange(ss) + 0.5) / ss - 0.5
        ox, oy = np.meshgrid(offs, offs)
        offs = np.stack([ox.ravel(), oy.ravel()], axis=1)
        step = max(1, (1 << 16) // (ss * ss))
        for s in range(0, fine.size, step):
            idx = fine[s:s + step]
            sub = (pix[idx, None, :] + offs[None]).reshape(-1, 2)
            c, _ = self._shade_samples(sub, balls, chalk, boxes)
            col[idx] = c.reshape(idx.size, ss * ss, 3).mean(axis=1)
        return col

    def _shade_samples(self, sub, balls, chalk, boxes):
        """Linear RGB (N, 3) and a label (N,) of the rays through sub-pixel points ``sub`` (N, 2).

        label: the index of the ball hit, or -1 - k for the empty-table surface k (rail markings
        get their own k so that their edges are supersampled)."""
        dirs = normalised_rays(self.cam, pixels_to_normalised(self.cam, sub))
        o = self.cam.centre
        kind, hit, t_static = self.scene.trace(o, dirs)
        n = dirs.shape[0]
        near = self._nearby(sub, boxes, len(balls))
        t_ball = np.full(n, np.inf)
        which = np.full(n, -1)
        for j, (_, c, _) in enumerate(balls):
            idx = near[j]
            if idx.size == 0:
                continue
            d = dirs[idx]
            oc = o - c
            b = d @ oc
            disc = b * b - (oc @ oc - self.R ** 2)
            ok = disc > 0
            t = np.where(ok, -b - np.sqrt(np.where(ok, disc, 0.0)), np.inf)
            closer = t < t_ball[idx]
            t_ball[idx[closer]] = t[closer]
            which[idx[closer]] = j
        on_ball = t_ball < t_static
        col = np.zeros((n, 3))
        label = np.where(on_ball, which, -1 - kind.astype(np.int32))
        st = np.flatnonzero(~on_ball)
        if st.size:
            where = np.full(n, -1)
            where[st] = np.arange(st.size)
            subsets = [where[nj][where[nj] >= 0] for nj in near]
            col[st], marked = self._shade_static(kind[st], hit[st], balls, chalk, subsets)
            label[st[marked]] = -100
        for j, (bid, c, rot) in enumerate(balls):
            idx = np.flatnonzero(on_ball & (which == j))
            if idx.size == 0:
                continue
            p = o + t_ball[idx, None] * dirs[idx]
            nrm = (p - c) / self.R
            alb = ball_albedo(bid, nrm @ rot)          # table -> ball frame: q = R^T n
            others = [b for k, b in enumerate(balls) if k != j]
            E, spec = self._lamp_light(p, nrm, others, o)
            amb = self.lighting.ambient * (1 + nrm[:, 2]) / 2 * (1 - self._sky_hidden(p, nrm, others))
            col[idx] = alb * (self.lamp_power * E + amb)[:, None] + \
                (self.lamp_power * self.lighting.specular * spec)[:, None]
        return col, label

    def _nearby(self, sub, boxes, k) -> list[np.ndarray]:
        """Per ball: indices of the rays whose pixel lies in that ball's box (all rays if no boxes)."""
        if boxes is None:
            return [np.arange(sub.shape[0])] * k
        out = []
        for (u0, v0, u1, v1) in boxes:
            m = (sub[:, 0] >= u0 - 1) & (sub[:, 0] < u1 + 1) & (sub[:, 1] >= v0 - 1) & (sub[:, 1] < v1 + 1)
            out.append(np.flatnonzero(m))
        return out

    def static_albedo(self, kind: np.ndarray, p: np.ndarray, chalk=None) -> tuple[np.ndarray, np.ndarray]:
        """Linear albedo (N, 3) of empty-table points of surface ``kind`` (N,) hit at ``p`` (N, 3)
        [m] (cloth, wood, floor, rail markings, chalk marks (M, 2) on the cloth), and which points
        lie on or around a rail marking (N,) bool."""
        n = kind.shape[0]
        alb = np.zeros((n, 3))
        alb[np.isin(kind, (CLOTH, CUSHION, NOSE_FACE))] = self.cloth
        alb[np.isin(kind, (RAIL, RAIL_FACE))] = srgb_to_linear(WOOD_SRGB)
        alb[kind == FLOOR] = srgb_to_linear(FLOOR_SRGB)
        rail = np.flatnonzero(kind == RAIL)
        marked = np.zeros(n, dtype=bool)
        if rail.size:
            alb[rail], marked[rail] = self._rail_markings(p[rail], alb[rail])
        if chalk is not None and len(chalk) and np.any(kind == CLOTH):
            cl = np.flatnonzero(kind == CLOTH)
            d2 = ((p[cl, None, :2] - chalk[None]) ** 2).sum(-1).min(axis=1)
            a = 0.7 * np.clip(1.5 - np.sqrt(d2) / CHALK_RADIUS, 0, 1)
            alb[cl] = alb[cl] * (1 - a[:, None]) + srgb_to_linear(CHALK_SRGB) * a[:, None]
        return alb, marked

    def _shade_static(self, kind, p, balls, chalk, subsets) -> np.ndarray:
        n = kind.shape[0]
        alb, marked = self.static_albedo(kind, p, chalk)
        nrm = np.zeros((n, 3))
        nrm[:, 2] = 1.0
        face = np.isin(kind, (NOSE_FACE, RAIL_FACE))
        if np.any(face):              # vertical faces: facing the table centre, horizontally
            cxy = np.array([self.table.width / 2, self.table.length / 2])
            v = cxy - p[face, :2]
            ax = np.abs(v[:, 0]) * self.table.length > np.abs(v[:, 1]) * self.table.width
            f = np.zeros((face.sum(), 3))
            f[ax, 0] = np.sign(v[ax, 0])
            f[~ax, 1] = np.sign(v[~ax, 1])
            nrm[face] = f
        # per point: only balls whose box holds the point's pixel can shadow it
        E, _ = self._lamp_light(p, nrm, balls, None, subsets)
        hidden = self._sky_hidden(p, nrm, balls, subsets)
        amb = self.lighting.ambient * (1 + nrm[:, 2]) / 2 * (1 - hidden)
        col = alb * (self.lamp_power * E + amb)[:, None]
        col[kind == POCKET] = POCKET_LINEAR
        col[kind == FLOOR] = alb[kind == FLOOR] * 0.3
        return col, marked

    def _rail_markings(self, p, alb):
        """Albedo (N, 3) of rail-cap points with diamonds and markers, and which points are marked."""
        lm = self.landmarks
        alb = alb.copy()
        marked = np.zeros(p.shape[0], dtype=bool)
        for d in self._diamonds:
            m = (p[:, 0] - d[0]) ** 2 + (p[:, 1] - d[1]) ** 2 < (1.5 * lm.rail.diamond_radius) ** 2
            marked |= m
            alb[m & ((p[:, 0] - d[0]) ** 2 + (p[:, 1] - d[1]) ** 2 < lm.rail.diamond_radius ** 2)] = \
                srgb_to_linear(DIAMOND_SRGB)
        s = lm.marker_size
        white, black = srgb_to_linear((240, 240, 240)), srgb_to_linear((15, 15, 15))
        for i, (cx, cy) in lm.markers.items():
            lx, ly = p[:, 0] - cx, p[:, 1] - cy
            quiet = (np.abs(lx) < 0.65 * s) & (np.abs(ly) < 0.65 * s)
            alb[quiet] = white
            marked |= (np.abs(lx) < 0.75 * s) & (np.abs(ly) < 0.75 * s)
            inside = np.flatnonzero((np.abs(lx) < s / 2) & (np.abs(ly) < s / 2))
            bits = self._marker_bits[i]           # (6, 6): row 0 is the marker's top edge (+y)
            col = np.clip(((lx[inside] / s + 0.5) * 6).astype(int), 0, 5)
            row = np.clip(((0.5 - ly[inside] / s) * 6).astype(int), 0, 5)
            on = bits[row, col] > 127
            alb[inside] = np.where(on[:, None], white, black)
        return alb, marked

    def _lamp_light(self, p, nrm, balls, eye, subsets=None):
        """Lamp irradiance (N,) at points p with normals nrm, with soft shadows from ``balls``;
        and, if ``eye`` is given, the Blinn-Phong specular term (N,) towards the eye."""
        lt = self.lighting
        E = np.zeros(p.shape[0])
        spec = np.zeros(p.shape[0])
        for L in self.lamps:
            u = L - p
            du = np.linalg.norm(u, axis=1)
            u /= du[:, None]
            cos_i = np.clip(np.einsum("ij,ij->i", nrm, u), 0.0, None)
            vis = self._visibility(p, u, du, balls, subsets)
            E += cos_i / du ** 2 * vis
            if eye is not None:
                v = eye - p
                v /= np.linalg.norm(v, axis=1, keepdims=True)
                hv = u + v
                hv /= np.linalg.norm(hv, axis=1, keepdims=True)
                nh = np.clip(np.einsum("ij,ij->i", nrm, hv), 0.0, 1.0)
                spec += nh ** lt.shininess * (cos_i > 0) * vis / du ** 2
        return E, spec

    @staticmethod
    def _to_balls(p, balls, subsets):
        """For each ball j with points near it: (indices into p (n,), vectors from those points to
        the ball's centre (n, 3) [m], their lengths (n,) [m]). subsets[j] lists the points near
        ball j; None means every point."""
        for j, (_, c, _) in enumerate(balls):
            idx = np.arange(p.shape[0]) if subsets is None else subsets[j]
            if idx.size:
                v = c - p[idx]
                yield idx, v, np.linalg.norm(v, axis=1)

    def _visibility(self, p, u, du, balls, subsets) -> np.ndarray:
        """Fraction (N,) of a lamp (direction u, distance du) not hidden by the balls."""
        vis = np.ones(p.shape[0])
        beta = np.arcsin(np.clip(self.lighting.lamp_radius / du, 0, 1))
        for idx, v, dv in self._to_balls(p, balls, subsets):
            cos_t = np.einsum("ij,ij->i", v, u[idx]) / dv
            theta = np.arccos(np.clip(cos_t, -1, 1))
            alpha = np.arcsin(np.clip(self.R / dv, 0, 1))
            cover = np.clip((alpha + beta[idx] - theta) / (2 * beta[idx]), 0, 1)
            cover = np.minimum(cover, (alpha / beta[idx]) ** 2)      # a ball smaller than the lamp
            cover[(dv >= du[idx]) | (cos_t <= 0)] = 0.0
            vis[idx] *= 1 - cover
        return vis

    def _sky_hidden(self, p, nrm, balls, subsets=None) -> np.ndarray:
        """Share (N,) of the room's hemisphere light hidden by nearby balls: cosine-weighted,
        sin^2(angular radius) x sin(elevation), with sin^2 lowered by its value at SKY_HIDDEN_REACH
        radii so that the darkening ends inside each ball's render box."""
        hid = np.zeros(p.shape[0])
        for idx, v, dv in self._to_balls(p, balls, subsets):
            s2 = np.clip(np.clip(self.R / dv, 0, 1) ** 2 - SKY_HIDDEN_REACH ** -2, 0, None)
            up = np.clip(np.einsum("ij,ij->i", v, nrm[idx]) / dv, 0, 1)
            hid[idx] += s2 * up
        return np.clip(hid, 0, 1)


def synthetic_camera_from_config(camera_path=None, table_path=None, **kwargs) -> tuple[SyntheticCamera, Landmarks]:
    """The simulated camera of ``config/camera.yaml`` over the table of ``config/table.yaml``
    (or the given files). kwargs go to SyntheticCamera. Returns (camera, landmarks)."""
    from config.camera import load_camera_settings
    from config.table import load_table_settings
    tc = load_table_settings(table_path)
    cs = load_camera_settings(tc.table, camera_path)
    return SyntheticCamera(cs.camera, tc.table, tc.physics.R, cs.landmarks, **kwargs), cs.landmarks
