"""How pool balls and the cloth look: the one place for their colours and markings.

Colours are sRGB (0..255, R, G, B) reflectances of a standard 8-ball set (cue white, 1 yellow,
2 blue, 3 red, 4 purple, 5 orange, 6 green, 7 maroon, 8 black; 9-15 are 1-7 as stripes) and a
tournament-green cloth. The renderer uses them as albedos; the identifier compares what it sees
with them. Ball 6 on this cloth is the hardest pair (a darker, yellower green than the cloth).

Markings, in the ball's own frame (unit sphere, axes x, y, z):
* stripes (9-15): the colour band is |z| < STRIPE_HALF_WIDTH, the caps are white;
* every numbered ball carries two number discs (white, with black digits) centred on +x and -x,
  each of angular radius NUMBER_DISC_ANGLE.
"""
from __future__ import annotations

import numpy as np

from planner.state import ball_class

BALL_SRGB = {
    0: (242, 240, 230),
    1: (250, 190, 10),
    2: (25, 60, 175),
    3: (215, 30, 35),
    4: (90, 40, 125),
    5: (245, 105, 25),
    6: (20, 105, 45),
    7: (125, 30, 30),
    8: (22, 22, 24),
}
for _i in range(9, 16):
    BALL_SRGB[_i] = BALL_SRGB[_i - 8]
WHITE_SRGB = BALL_SRGB[0]
CLOTH_SRGB = (30, 120, 82)
COLOUR_NAMES = {0: "white", 1: "yellow", 2: "blue", 3: "red", 4: "purple", 5: "orange", 6: "green",
                7: "maroon", 8: "black"}

# A snooker set, for the wider rendered domain (vision.render_domain) and colour naming: plain
# balls (no stripes, no numbers). Ball ids stay 0..15 (docs/frame.md): 0 the cue (white),
# 1 yellow, 2 green, 3 brown, 4 blue, 5 pink, 6 black, 7..15 reds.
SNOOKER_COLOURS = {"white": (240, 238, 226), "yellow": (245, 200, 20), "green": (10, 110, 60),
                   "brown": (110, 55, 25), "blue": (20, 60, 170), "pink": (240, 120, 150),
                   "black": (20, 20, 22), "red": (200, 20, 25)}
SNOOKER_NAMES = {i: n for i, n in enumerate(("white", "yellow", "green", "brown", "blue", "pink", "black"))}
SNOOKER_NAMES.update({i: "red" for i in range(7, 16)})
SNOOKER_SRGB = {i: SNOOKER_COLOURS[n] for i, n in SNOOKER_NAMES.items()}

STRIPE_HALF_WIDTH = 0.55              # band |z| < this (unit sphere)
NUMBER_DISC_ANGLE = np.radians(24.0)  # angular radius of a number disc


def srgb_to_linear(c) -> np.ndarray:
    """sRGB 0..255 -> linear 0..1 (IEC 61966-2-1)."""
    c = np.asarray(c, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(x) -> np.ndarray:
    """linear 0..1 -> sRGB 0..255 (float, unclipped above 1 is clipped to 255)."""
    x = np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0)
    return 255.0 * np.where(x <= 0.0031308, 12.92 * x, 1.055 * x ** (1 / 2.4) - 0.055)


LINEAR_LUT = srgb_to_linear(np.arange(256)).astype(np.float32)                      # 8-bit sRGB -> linear
SRGB_LUT = np.rint(linear_to_srgb(np.linspace(0.0, 1.0, 16385))).astype(np.uint8)    # linear (16384 steps) -> 8-bit
CODES_LUT = np.arange(256, dtype=np.float64)                                        # an 8-bit value as itself


def is_stripe(ball_id: int) -> bool:
    return ball_class(ball_id) == "stripe"

