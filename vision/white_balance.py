"""A camera whose white balance drifts: its frames brought back to the colours it was calibrated with, by the cloth.

A change of the light's colour, or of the gains a camera's white balance puts on its channels, scales each channel
by its own factor: von Kries' adaptation, a diagonal transform, which suffices in practice (Finlayson, Drew & Funt,
"Diagonal transforms suffice for color constancy", ICCV 1993, sec. 2). The cloth covers most of the frame and keeps
its colour, so its colour as calibrated (``cloth_srgb`` in camera.yaml: ``cuerobot calibrate table`` writes it,
``cuerobot vision cloth`` measures it for the pixel-only mode) against its colour in a frame gives the factors: per
channel, the reference's colour over the frame's, green's held at 1 (``cloth_gains``): a camera's white balance sets
red and blue against green, and green carries most of the brightness (exposure is the stages' own business). They
are put on the 8-bit values: sRGB is close to a power law, under which a factor on linear light is a factor on the
encoded values.

A channel at CLIPPED or above was clipped by the sensor: its true value is unknown, and a camera's gains before the
clip leave it clipped, so it stays at 255 (``balanced``). A clipped white cue ball stays white; scaling it down
with the rest would tint it, and scaling everything up instead (no channel lowered) pushes a pale ball's colour
into the clip: on the real snooker sets under ``--perturb white=1.2,0.8`` that named 9-12 pinks white.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.jit import njit
from vision.cloth import ClothModel, colour_angle

DEADBAND_DEG = 2.0     # a cloth within this angle of its reference colour is left as it is: the frames of each real
                       # set lie within 1.02 deg of their set's median cloth, and identity holds through the rendered
                       # domain's +-12 % white balance; a drift of 0.8 / 1.2 on blue and red moves it 5.7-8.9 deg
GAIN_LIMIT = 1.6       # gains beyond 1 / GAIN_LIMIT .. GAIN_LIMIT: another cloth than the one calibrated, not a drift
CLIPPED = 254          # an 8-bit value at or above this was clipped by the sensor


def unit_bgr(cloth_srgb) -> np.ndarray:
    """(3,) the unit BGR direction of an sRGB colour given as (R, G, B) 8-bit values (the order of camera.yaml's
    ``cloth_srgb``). Raises ValueError unless it is three numbers 0-255 with every channel above 0."""
    c = np.asarray(cloth_srgb, np.float64)
    if c.shape != (3,) or not np.all(np.isfinite(c)) or c.min() <= 0 or c.max() > 255:
        raise ValueError(f"a cloth colour is [R, G, B], each above 0 and at most 255, got {cloth_srgb!r}")
    bgr = c[::-1]
    return bgr / np.linalg.norm(bgr)


def measured_srgb(model: ClothModel) -> tuple[int, int, int] | None:
    """The cloth's colour that a frame's cloth model reads, (R, G, B) 8-bit sRGB (its colour at its median
    brightness), for camera.yaml's ``cloth_srgb``; None where the model has a lit wedge (a projector's light over
    part of the cloth: its colour is the light's as much as the cloth's)."""
    if model.lit != (0.0, 0.0):
        return None
    bgr = np.clip(np.rint(np.asarray(model.chroma) * model.level), 1, 255)
    return int(bgr[2]), int(bgr[1]), int(bgr[0])


def drift_deg(reference: np.ndarray, chroma: np.ndarray) -> float:
    """The angle [deg] between two BGR colours (3,) (any length): ``vision.cloth.colour_angle``."""
    return float(colour_angle(*np.asarray(reference, np.float64), *np.asarray(chroma, np.float64)))


def cloth_gains(reference: np.ndarray, chroma: np.ndarray) -> np.ndarray | None:
    """(3,) BGR gains, green's 1, that bring a frame whose cloth's colour is ``chroma`` (3,) BGR back to the colour
    ``reference`` (3,) BGR (``unit_bgr``; directions: any lengths), or None where it needs none (within DEADBAND_DEG)
    or they would pass GAIN_LIMIT (another cloth: a camera's drift is not corrected into it)."""
    ref, now = np.asarray(reference, np.float64), np.asarray(chroma, np.float64)
    if drift_deg(ref, now) < DEADBAND_DEG or now.min() <= 0:
        return None
    gains = (ref / ref[1]) / (now / now[1])
    return gains if gains.max() <= GAIN_LIMIT and gains.min() >= 1.0 / GAIN_LIMIT else None


def brought_back(reference: np.ndarray, model: ClothModel) -> bool:
    """Whether a frame brought back by ``cloth_gains`` shows the calibrated cloth: its cloth model (refitted) has no
    lit wedge and lies within DEADBAND_DEG of ``reference``. A drift can make the cloth model see a lit wedge (a
    bluer cast spreads the cloth's colours: the real snooker sets under ``--perturb white=1.1,0.9``), so a frame is
    brought back whatever its model, and kept so only where this holds: a projector's light over part of the cloth
    turns the colour the gains are read from, and the frame brought back by them still shows a wedge."""
    return model.lit == (0.0, 0.0) and drift_deg(reference, model.chroma) < DEADBAND_DEG


def bring_back(image: np.ndarray, reference: np.ndarray, fitted, fit: Callable, model_of: Callable):
    """(the frame to search, its fit): a BGR uint8 ``image`` whose fit ``fitted`` (``fit(image)``; ``model_of(fit)``
    its ClothModel) reads a cloth drifted from ``reference`` (3,) BGR (``cloth_gains``), brought back to it
    (``balanced``) with its own fit where that then shows the calibrated cloth (``brought_back``); else ``image``
    and ``fitted``. Both detectors' first step, each with its own fit."""
    gains = cloth_gains(reference, model_of(fitted).chroma)
    if gains is None:
        return image, fitted
    back = balanced(image, gains)
    again = fit(back)
    return (back, again) if brought_back(reference, model_of(again)) else (image, fitted)


def balanced(image: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """A new BGR uint8 image (h, w, 3): each channel of ``image`` times its gain (3,) BGR, rounded and clipped at
    255; a value at CLIPPED or above becomes 255 (module notes)."""
    levels = np.arange(256, dtype=np.float64)[None, :]
    lut = np.clip(np.rint(np.asarray(gains, np.float64)[:, None] * levels), 0, 255).astype(np.uint8)
    lut[:, CLIPPED:] = 255
    return _looked_up(np.ascontiguousarray(image, np.uint8), lut)


@njit(cache=True)
def _looked_up(image, lut):
    """out[y, x, c] = lut[c, image[y, x, c]] for a (h, w, 3) uint8 image and a (3, 256) uint8 table (1.6 ms a
    1280x720 frame on one core; cv2.LUT with a three-channel table 3.7 ms)."""
    h, w = image.shape[0], image.shape[1]
    out = np.empty_like(image)
    l0, l1, l2 = lut[0], lut[1], lut[2]
    for y in range(h):
        for x in range(w):
            out[y, x, 0] = l0[image[y, x, 0]]
            out[y, x, 1] = l1[image[y, x, 1]]
            out[y, x, 2] = l2[image[y, x, 2]]
    return out
