"""A wider rendered domain on purpose: randomised cloth, light, optics and ball sets (issue 21).

Real frames differ from the default render in ways a detector must survive. A ``Domain`` holds
one draw of them (``sample_domain``); ``DomainRenderer`` renders frames in it with the fast path
(``vision.render_fast``) and the exact truth of the default render (positions and centre pixels
are unchanged by every option below). Each option and how it is made:

* cloth colour and texture: the cloth's albedo (cloth, cushion tops and faces) is replaced in the
  camera's G-buffer by the new colour times a texture (low-frequency blotches + fine felt grain,
  relative standard deviation ``texture``); the empty table's linear image is scaled by the same
  ratio (exact for the Lambertian cloth; edge pixels by their share of cloth sub-samples);
* ball set: 'pool' (``vision.balls.BALL_SRGB``, stripes and number discs) or 'snooker'
  (``vision.balls.SNOOKER_SRGB``, plain balls);
* a slightly oblique camera: ``oblique_camera`` moves the camera on a sphere about the table
  centre by ``tilt_deg`` and looks back at the centre (a new camera, so a new G-buffer: seconds);
* in linear light, after the render: a lighting gradient (gain linear across the image), a
  projector's lit area (additive, coloured, soft-edged ellipse) and halo rings around some balls
  (additive, as a projector draws them), specular highlights (soft sheen on the cloth, streaks on
  the rail caps), exposure and white balance (per-channel gains); a person's hand and forearm
  reaching over the table, with its shadow (``vision.render_hand``; under the lights above);
* then sRGB, the sensor noise of the camera, and JPEG compression at ``jpeg_quality``.

``CONDITIONS`` names the conditions the detector is measured in (one option at a time, a random
draw with the harsh options off, everything at once, and everything but the halo rings: a
projector's lit area seen through a USB camera's MJPG stream); ``condition_frames`` renders a
reproducible set of frames in one of them (``cuerobot bench vision --domain``).

Nothing here is used by the default render: ``SyntheticCamera.render`` and
``FastRenderer`` with default options are unchanged.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from planner.state import TableState
from planner.table import Table
from vision.balls import CLOTH_SRGB, LINEAR_LUT, SNOOKER_SRGB, linear_to_srgb, srgb_to_linear
from vision.camera import look_at_pose, table_to_pixels
from vision.layouts import rack, random_layout
from vision.render import RenderedFrame, SyntheticCamera, Truth
from vision.render_fast import FastRenderer
from vision.render_hand import SKIN_SRGB, Hand, hand_layer, touches
from vision.scene import CLOTH, CUSHION, NOSE_FACE, RAIL

BALL_SETS = ("pool", "snooker")
CLOTH_COLOURS = ((30, 120, 82), (20, 110, 50), (60, 130, 60), (25, 85, 150), (40, 110, 120), (105, 40, 45),
                 (95, 100, 105))      # sRGB: tournament green, green, olive, blue, teal, burgundy, grey
_SRGB_OUT = linear_to_srgb(np.linspace(0.0, 1.0, 16385)).astype(np.float32)


@dataclass(frozen=True)
class Domain:
    """One draw of the wider domain. Colours sRGB 0..255; gains linear; positions in the image are
    fractions of its width / height.

    cloth_srgb: cloth colour; texture: relative std of the cloth albedo; ball_set: 'pool' or
    'snooker'; tilt_deg, azimuth_deg: camera tilt from vertical about the table centre and its
    direction (0 = towards +x); gradient: (gu, gv) gain change across the image width / height;
    projector: (strength, u, v, half-width, half-height) of the projector's lit ellipse (strength
    in units of the table-centre irradiance, 0 = off); projector_rgb: its colour gains;
    halo: strength of rings around balls (0 = off), halo_share: the share of balls that get one;
    sheen: strength of the cloth sheen; rail_glints: strength of the rail-cap streaks;
    exposure: overall gain; white_balance: (r, g, b) gains; jpeg_quality: 1..100 or 0 for none;
    hand: a person's hand and forearm over the table (``vision.render_hand``) or None.
    """
    cloth_srgb: tuple = CLOTH_SRGB
    texture: float = 0.0
    ball_set: str = "pool"
    tilt_deg: float = 0.0
    azimuth_deg: float = 0.0
    gradient: tuple = (0.0, 0.0)
    projector: tuple = (0.0, 0.5, 0.5, 0.3, 0.3)
    projector_rgb: tuple = (1.0, 1.0, 1.0)
    halo: float = 0.0
    halo_share: float = 0.0
    sheen: float = 0.0
    rail_glints: float = 0.0
    exposure: float = 1.0
    white_balance: tuple = (1.0, 1.0, 1.0)
    jpeg_quality: int = 0
    hand: Hand | None = None

    def __post_init__(self):
        if self.ball_set not in BALL_SETS:
            raise ValueError(f"ball_set must be one of {BALL_SETS}, got {self.ball_set!r}")
        if not 0 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must be 0 (none) or 1..100, got {self.jpeg_quality}")


def sample_domain(rng: np.random.Generator, ball_set: str = "pool", tilt_deg: float = 0.0) -> Domain:
    """A random Domain from ``rng``: every option drawn from the ranges real overhead frames show
    (cloth from CLOTH_COLOURS jittered by +-10 levels; gradient up to +-30 % across the image;
    a projector on half the draws; exposure 0.75..1.3; white balance +-12 %; JPEG 60..95 on two
    draws in three). The camera tilt is the caller's (an oblique camera costs a new G-buffer)."""
    c = np.clip(np.array(CLOTH_COLOURS[rng.integers(len(CLOTH_COLOURS))]) + rng.integers(-10, 11, 3), 0, 255)
    proj = rng.random() < 0.5
    return Domain(
        cloth_srgb=tuple(int(v) for v in c), texture=float(rng.uniform(0.0, 0.08)), ball_set=ball_set,
        tilt_deg=float(tilt_deg), azimuth_deg=float(rng.uniform(0, 360)),
        gradient=tuple(float(v) for v in rng.uniform(-0.3, 0.3, 2)),
        projector=(float(rng.uniform(0.3, 0.8)) if proj else 0.0, float(rng.uniform(0.3, 0.7)),
                   float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.2, 0.4)), float(rng.uniform(0.2, 0.4))),
        projector_rgb=tuple(float(v) for v in rng.uniform(0.8, 1.0, 3)),
        halo=float(rng.uniform(0.3, 0.8)) if proj else 0.0, halo_share=float(rng.uniform(0.2, 0.6)),
        sheen=float(rng.uniform(0.0, 0.3)), rail_glints=float(rng.uniform(0.0, 1.5)),
        exposure=float(rng.uniform(0.75, 1.3)), white_balance=tuple(float(v) for v in rng.uniform(0.88, 1.12, 3)),
        jpeg_quality=int(rng.integers(60, 96)) if rng.random() < 2 / 3 else 0)


GENTLE = dict(projector=(0.0, 0.5, 0.5, 0.3, 0.3), halo=0.0, sheen=0.0, rail_glints=0.0, jpeg_quality=0)
"""Options that turn a random draw gentle: cloth, texture, gradient, exposure and white balance only."""
HARD = dict(projector=(0.6, 0.5, 0.5, 0.3, 0.3), halo=0.6, halo_share=0.5, sheen=0.2, rail_glints=1.0, jpeg_quality=80)
"""Options that turn a random draw hard: a projector's lit area, halo rings, sheen, glints and JPEG q80."""
LIT_JPEG = HARD | dict(halo=0.0)
"""HARD without the halo rings: a projector's lit area, sheen, glints and JPEG q80 (a projector seen through a
USB camera's MJPG stream; the real development frames are a projector without rings, but PNG)."""
LIT_SHEEN = LIT_JPEG | dict(jpeg_quality=0)
"""LIT_JPEG without JPEG: a projector's lit area, sheen and glints seen by a camera sending uncompressed frames."""

CONDITIONS: dict[str, Callable[[np.random.Generator, Table], Domain]] = {
    "default": lambda rng, table: Domain(),
    "gentle": lambda rng, table: dataclasses.replace(sample_domain(rng), **GENTLE),
    "projector": lambda rng, table: Domain(projector=(0.6, 0.5, 0.5, 0.3, 0.3)),
    "halo": lambda rng, table: Domain(halo=0.6, halo_share=0.5),
    "sheen": lambda rng, table: Domain(sheen=0.2, rail_glints=1.0),
    "jpeg": lambda rng, table: Domain(jpeg_quality=60),
    "hard": lambda rng, table: dataclasses.replace(sample_domain(rng), **HARD),
    "hand": lambda rng, table: Domain(hand=sample_hand(rng, table)),
    "lit_jpeg": lambda rng, table: dataclasses.replace(sample_domain(rng), **LIT_JPEG),
    "lit_sheen": lambda rng, table: dataclasses.replace(sample_domain(rng), **LIT_SHEEN),
}
"""Each measured condition's Domain, drawn from an rng for a table: the default render; ``gentle``; a projector's
lit area at 0.6; halo rings 0.6 around half the balls; sheen 0.2 and rail glints 1.0; JPEG at
quality 60; ``hard``, every option at once; ``hand``, a person's hand over the table; ``lit_jpeg``, ``hard``
without the halo rings (``LIT_JPEG``); ``lit_sheen``, that without JPEG (``LIT_SHEEN``)."""
SET_SIZE = 4
"""Frames per set in ``condition_frames``: a full rack, then random layouts."""


def condition_frames(sc: SyntheticCamera, condition: str, n: int, seed: int) -> list[RenderedFrame]:
    """``n`` frames in ``CONDITIONS[condition]`` seen by ``sc``, in sets of SET_SIZE: set k draws from
    ``default_rng(seed + k)`` a Domain before each frame, and the layouts (a full rack first, then
    random layouts; a hand is drawn again until it touches no ball); frame j of a set is rendered
    with noise seed j. Raises KeyError for an unknown condition."""
    make = CONDITIONS[condition]
    frames: list[RenderedFrame] = []
    for k in range(-(-n // SET_SIZE)):
        rng = np.random.default_rng(seed + k)
        for j in range(min(SET_SIZE, n - len(frames))):
            d = make(rng, sc.table)
            st = rack(sc.table, sc.R, rng) if j == 0 else random_layout(sc.table, sc.R, rng)
            while d.hand is not None and touches(sc.cam, d.hand, np.asarray(st.pos), sc.R):
                d = make(rng, sc.table)             # a hand off the balls (see vision.render_hand)
            frames.append(DomainRenderer(sc, d, seed=j).render(st, rng))
    return frames


def sample_hand(rng: np.random.Generator, table: Table) -> Hand:
    """A random Hand: the palm anywhere on ``table``'s cloth 0.1 m in from the cushions, the forearm
    towards the rail behind it (away from the table centre, +-45 deg), a fist one time in three, any
    skin tone."""
    w, length = table.width, table.length
    x, y = rng.uniform([0.1, 0.1], [w - 0.1, length - 0.1])
    away = np.degrees(np.arctan2(y - length / 2, x - w / 2))
    return Hand(float(x), float(y), float(away + rng.uniform(-45, 45)), bool(rng.random() < 1 / 3),
                int(rng.integers(len(SKIN_SRGB))))


def oblique_camera(sc: SyntheticCamera, tilt_deg: float, azimuth_deg: float = 0.0) -> SyntheticCamera:
    """A copy of ``sc`` whose camera sits at the same distance from the table centre, tilted by
    ``tilt_deg`` from the vertical towards azimuth ``azimuth_deg`` (0 = +x), looking at the centre
    with the table's long axis along the image width. Its G-buffer is new (seconds on first use)."""
    t = sc.table
    target = np.array([t.width / 2, t.length / 2, 0.0])
    d = float(np.linalg.norm(sc.cam.centre - target))
    a, b = np.radians(tilt_deg), np.radians(azimuth_deg)
    eye = target + d * np.array([np.sin(a) * np.cos(b), np.sin(a) * np.sin(b), np.cos(a)])
    cam = sc.cam.with_pose(*look_at_pose(eye, target))
    return SyntheticCamera(cam, t, sc.R, sc.landmarks, lighting=sc.lighting, noise_sigma=sc.noise_sigma,
                           blur_sigma=sc.blur_sigma, supersample=sc.supersample)


def cloth_texture(w: int, h: int, strength: float, rng: np.random.Generator) -> np.ndarray:
    """(h, w) float32 albedo factor, mean ~1, relative std ~``strength``: blotches ~100 px across
    (two thirds of the variance) plus a fine felt grain (one third)."""
    low = cv2.resize(rng.normal(0, 1, (h // 96 + 2, w // 96 + 2)).astype(np.float32), (w, h),
                     interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.8)
    f = np.sqrt(2 / 3) * low / max(float(low.std()), 1e-6) + np.sqrt(1 / 3) * fine / max(float(fine.std()), 1e-6)
    return (1.0 + strength * f).astype(np.float32)


def recoloured_cloth(sc: SyntheticCamera, srgb, texture: np.ndarray):
    """(G-buffer, background) of ``sc`` with the cloth albedo replaced by ``srgb`` times
    ``texture`` (H, W) (see the module notes)."""
    g = sc.gbuffer
    ratio = (srgb_to_linear(srgb) / sc.cloth).astype(np.float32)                  # (3,)
    cloth_kinds = (CLOTH, CUSHION, NOSE_FACE)
    centre = np.isin(g.kind, cloth_kinds)
    alb = g.alb.copy()
    alb[centre] = alb[centre] * ratio * texture[centre][:, None]
    s2 = g.offsets.shape[0]
    ev, eu = np.nonzero(g.edge >= 0)                                               # edge-index order
    sub = np.isin(g.ekind, cloth_kinds)
    ealb = g.ealb.copy()
    etex = np.repeat(texture[ev, eu], s2)
    ealb[sub] = ealb[sub] * ratio * etex[sub][:, None]
    share = centre.astype(np.float32)
    share[ev, eu] = sub.reshape(-1, s2).mean(axis=1)
    scale = 1.0 + share[..., None] * (ratio * texture[..., None] - 1.0)
    bg = (sc.empty_linear * scale).astype(np.float32)
    return dataclasses.replace(g, alb=alb, ealb=ealb), bg


class DomainRenderer:
    """Frames of balls at rest seen by ``sc`` in ``domain`` (``sc`` must already have the domain's
    tilt: see ``oblique_camera``). seed: of the cloth texture, glints and sensor noise.
    ``render(state, rng)`` returns a RenderedFrame: image (H, W, 3) uint8 BGR, exact truth."""

    def __init__(self, sc: SyntheticCamera, domain: Domain, seed: int = 0):
        self.sc, self.domain = sc, domain
        w, h = sc.cam.size
        rng = np.random.default_rng(seed)
        g, bg = recoloured_cloth(sc, domain.cloth_srgb, cloth_texture(w, h, domain.texture, rng))
        snooker = domain.ball_set == "snooker"
        self.fast = FastRenderer(sc, seed, gbuffer=g, background=bg, ball_srgb=SNOOKER_SRGB if snooker else None,
                                 markings=not snooker)
        uu = (np.arange(w, dtype=np.float32) / w - 0.5)[None, :]
        vv = (np.arange(h, dtype=np.float32) / h - 0.5)[:, None]
        gain = np.clip(1.0 + domain.gradient[0] * uu + domain.gradient[1] * vv, 0.3, None)
        self.gain = (gain[..., None] * domain.exposure * np.array(domain.white_balance[::-1], np.float32))
        self.light = (self._projector(w, h, uu, vv) + self._glints(w, h, rng, g.kind == RAIL)).astype(np.float32)
        self.hand = None if domain.hand is None else hand_layer(sc.cam, domain.hand)

    def render(self, state: TableState, rng: np.random.Generator) -> RenderedFrame:
        """One frame of ``state`` in the domain (ball orientations and noise offset from ``rng``)."""
        f = self.fast.render(state, rng, noise=False)
        d = self.domain
        lin = LINEAR_LUT[f.image]
        if self.hand is not None:
            cover, colour, shadow = self.hand
            lin = lin * (1.0 - shadow * (1.0 - cover))[..., None]
            lin = lin * (1.0 - cover[..., None]) + colour * cover[..., None]
        lin = lin * self.gain + self.light * d.exposure
        if d.halo > 0 and len(f.truth.ids):
            lin += self._halos(f.truth.centre_px, rng) * d.exposure
        idx = np.clip(lin * (_SRGB_OUT.size - 1) + 0.5, 0, _SRGB_OUT.size - 1).astype(np.intp)
        img = np.rint(_SRGB_OUT[idx]).astype(np.uint8)
        self.fast.add_noise(img, rng)
        if d.jpeg_quality:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, d.jpeg_quality])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return RenderedFrame(img, self._visible(f.truth))

    def _visible(self, truth: Truth) -> Truth:
        """The truth without the balls the hand hides (its coverage >= 0.5 at their centre pixel)."""
        if self.hand is None or not len(truth.ids):
            return truth
        h, w = self.hand[0].shape
        u = np.clip(np.rint(truth.centre_px[:, 0]).astype(int), 0, w - 1)
        v = np.clip(np.rint(truth.centre_px[:, 1]).astype(int), 0, h - 1)
        seen = self.hand[0][v, u] < 0.5
        return Truth(truth.ids[seen], truth.pos[seen], truth.centre_px[seen])

    # ---- the added light (linear BGR, units of the table-centre irradiance) ----------------
    def _projector(self, w, h, uu, vv) -> np.ndarray:
        s, cu, cv, hw, hh = self.domain.projector
        if s <= 0:
            return np.zeros((h, w, 3), np.float32)
        r = np.sqrt(((uu + 0.5 - cu) / hw) ** 2 + ((vv + 0.5 - cv) / hh) ** 2)
        m = np.clip((1.15 - r) / 0.3, 0, 1)                      # soft-edged ellipse
        return s * 0.25 * m[..., None] * np.array(self.domain.projector_rgb[::-1], np.float32)

    def _glints(self, w, h, rng, on_rail: np.ndarray) -> np.ndarray:
        """Cloth sheen (broad soft blobs) and streaks along the rail caps' centre lines, on the
        caps only (``on_rail``: (h, w) bool; not across the side pockets' cuts)."""
        d, sc = self.domain, self.sc
        out = np.zeros((h, w), np.float32)
        for _ in range(2):
            c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            cv2.ellipse(out, c, (int(rng.integers(60, 200)), int(rng.integers(30, 90))),
                        float(rng.uniform(0, 180)), 0, 360, d.sheen, -1)
        out = cv2.GaussianBlur(out, (0, 0), 25)
        rail = np.zeros((h, w), np.float32)
        t, rw, z = sc.table, sc.landmarks.rail.width, sc.landmarks.rail.height
        for x0, y0, x1, y1 in ((-rw / 2, 0.1, -rw / 2, t.length - 0.1), (t.width + rw / 2, 0.1, t.width + rw / 2,
                                                                           t.length - 0.1)):
            a = rng.uniform(0.1, 0.6)
            ya, yb = y0 + a * (y1 - y0), y0 + (a + rng.uniform(0.1, 0.3)) * (y1 - y0)
            p = table_to_pixels(sc.cam, np.array([[x0, ya, z], [x1, yb, z]]))
            cv2.line(rail, tuple(int(v) for v in p[0]), tuple(int(v) for v in p[1]), d.rail_glints, 3, cv2.LINE_AA)
        out += cv2.GaussianBlur(rail, (0, 0), 1.5) * on_rail
        return np.repeat(out[..., None], 3, axis=2)

    def _halos(self, px: np.ndarray, rng) -> np.ndarray:
        """Rings (radius 1.6-2.2 ball radii, 2 px wide) around a random share of the balls."""
        w, h = self.sc.cam.size
        out = np.zeros((h, w), np.float32)
        r_px = float(self.sc.cam.K[0, 0]) * self.sc.R / float(self.sc.cam.centre[2])
        pick = rng.random(px.shape[0]) < self.domain.halo_share
        for (u, v) in px[pick]:
            cv2.circle(out, (int(round(u * 8)), int(round(v * 8))), int(round(rng.uniform(1.6, 2.2) * r_px * 8)),
                       self.domain.halo, 2, cv2.LINE_AA, 3)
        out = cv2.GaussianBlur(out, (0, 0), 0.7)
        return out[..., None] * np.array(self.domain.projector_rgb[::-1], np.float32)
