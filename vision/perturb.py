"""Photometric perturbations of a camera frame, for measuring how a detector holds when a camera's exposure,
response, white balance, compression, noise or focus drifts from the frames it was tuned on
(``cuerobot vision evaluate --perturb``; docs/vision.md, "Measuring against annotated frames").

Each perturbation maps a BGR uint8 image (h, w, 3) to another of the same shape; values are rounded to the
nearest level and clipped to 0-255. Written ``KIND=VALUE``:

- ``gain=K``: every channel times K (exposure);
- ``gamma=G``: each level v to 255 (v / 255) ** G (the camera's response curve);
- ``white=B,R``: blue times B and red times R, green kept (white balance);
- ``jpeg=Q``: encoded and decoded as JPEG at quality Q (1-100);
- ``noise=S``: Gaussian noise of S levels added (seeded: the same noise for the same image size);
- ``blur=S``: a Gaussian blur of S px (focus);
- ``shading=K``: blue times 1 - K x and red times 1 + K x, x from -0.5 at the left edge to 0.5 at the right (a
  colour cast that turns across the frame: daylight on one side and lamplight on the other, or a lens's colour
  shading; 0 < K < 2).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

KINDS = {"gain": 1, "gamma": 1, "white": 2, "jpeg": 1, "noise": 1, "blur": 1, "shading": 1}   # kind -> number of values
NOISE_SEED = 0                      # the noise perturbation's seed (reproducible on any machine)


@dataclass(frozen=True)
class Perturbation:
    """One perturbation: ``kind`` (a key of KINDS) and its ``values`` (as written, see the module)."""
    kind: str
    values: tuple[float, ...]

    def __str__(self) -> str:
        return f"{self.kind}=" + ",".join(f"{v:g}" for v in self.values)

    def apply(self, image: np.ndarray) -> np.ndarray:
        """The perturbed copy of a BGR uint8 image (h, w, 3)."""
        v = self.values
        if self.kind == "jpeg":
            _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(v[0])])
            return cv2.imdecode(data, cv2.IMREAD_COLOR)
        if self.kind == "blur":
            return cv2.GaussianBlur(image, (0, 0), v[0])
        x = image.astype(np.float64)
        if self.kind == "gain":
            x = x * v[0]
        elif self.kind == "gamma":
            x = 255.0 * (x / 255.0) ** v[0]
        elif self.kind == "white":
            x = x * np.array([v[0], 1.0, v[1]])
        elif self.kind == "shading":
            across = np.linspace(-0.5, 0.5, x.shape[1])[None, :, None]
            x = x * (1.0 + v[0] * across * np.array([-1.0, 0.0, 1.0]))
        else:                                                    # noise
            x = x + np.random.default_rng(NOISE_SEED).normal(0.0, v[0], x.shape)
        return np.clip(np.rint(x), 0, 255).astype(np.uint8)


def parse_perturbation(text: str) -> Perturbation:
    """``KIND=VALUE`` (see the module) -> Perturbation. Raises ValueError naming the expected form for an unknown
    kind, a wrong number of values, or a value out of range (gain, gamma, white and blur above 0; jpeg a whole
    number 1-100; noise at least 0)."""
    form = "KIND=VALUE with KIND one of " + ", ".join(KINDS) + " (white=B,R)"
    kind, sep, rest = text.partition("=")
    if not sep or kind not in KINDS:
        raise ValueError(f"expected {form}, got {text!r}")
    try:
        values = tuple(float(p) for p in rest.split(","))
    except ValueError:
        raise ValueError(f"expected {form}, got {text!r}") from None
    if len(values) != KINDS[kind] or not all(np.isfinite(values)):
        raise ValueError(f"expected {KINDS[kind]} finite number(s) after {kind}=, got {text!r}")
    if kind == "jpeg":
        ok = values[0] == int(values[0]) and 1 <= values[0] <= 100
        expected = "a whole quality 1-100"
    elif kind == "noise":
        ok, expected = values[0] >= 0, "a noise level of at least 0"
    elif kind == "shading":
        ok, expected = 0 < values[0] < 2, "a shading above 0 and below 2"
    else:
        ok, expected = all(x > 0 for x in values), "values above 0"
    if not ok:
        raise ValueError(f"expected {expected} for {kind}, got {text!r}")
    return Perturbation(kind, values)
