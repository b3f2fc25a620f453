"""A lamp's highlight inside a circle (``vision.glints``) and a rack's spot told from its gap by it
(``vision.detect.highlight_over_body``), on images whose values are set by hand."""
from __future__ import annotations

import numpy as np
import pytest

from vision.balls import srgb_to_linear
from vision.detect import SPOT_GLINT, highlight_over_body
from vision.glints import glints


def _disc(body: int, cloth: int = 100, highlight: int | None = None) -> np.ndarray:
    """A 60x60 BGR frame of grey cloth with a grey disc of radius 10 px about (30, 30) and, where given, a 2x2
    highlight of that value by its centre."""
    image = np.full((60, 60, 3), cloth, np.uint8)
    yy, xx = np.mgrid[:60, :60]
    image[(xx - 30) ** 2 + (yy - 30) ** 2 < 100] = body
    if highlight is not None:
        image[28:30, 31:33] = highlight
    return image


def test_glints_reads_the_brightest_share_off_other_circles():
    """The brightest GLINT_TOP share of a disc is its 2x2 highlight (4 of the 177 pixels within 0.75 of its
    radius); brighter pixels inside another circle are left out; top=0.5 reads the median, the body."""
    image = _disc(60, highlight=250)
    image[29:31, 24:26] = 255                            # inside the other circle below
    c, r = np.array([[30.0, 30.0]]), np.array([10.0])
    other_c, other_r = np.array([[20.0, 30.0]]), np.array([5.5])
    strongest, mean = glints(image, c, r, other_c, other_r)[0]
    assert strongest == mean == 250
    assert glints(image, c, r, np.zeros((0, 2)), np.zeros(0))[0, 1] == 255
    assert glints(image, c, r, other_c, other_r, top=0.5)[0, 1] == 60


@pytest.mark.parametrize("body", [60, 100, 120])
def test_a_matte_disc_shows_no_highlight_over_its_body(body):
    """A matte disc's brightest pixels are its body: over the dimmer of its body and the cloth, 1 for a dark body
    and for the cloth itself, and a brighter body's own level over the cloth's (1.47 at 120 levels on 100) --
    under SPOT_GLINT. With a white highlight it is far over it."""
    cloth_lin = srgb_to_linear(100.0)
    level = np.array([srgb_to_linear(float(body)) / cloth_lin])
    local = np.full((1, 3), cloth_lin)
    c, r = np.array([[30.0, 30.0]]), np.array([10.0])
    none = np.zeros((0, 2)), np.zeros(0)
    matte = highlight_over_body(_disc(body), c, r, *none, local, level)[0]
    assert matte == pytest.approx(max(level[0], 1.0), rel=1e-9)
    assert matte < SPOT_GLINT
    glossy = highlight_over_body(_disc(body, highlight=255), c, r, *none, local, level)[0]
    assert glossy == pytest.approx(1.0 / cloth_lin / min(level[0], 1.0), rel=1e-9)
    assert glossy > SPOT_GLINT
