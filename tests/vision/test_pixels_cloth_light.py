"""Pixel-only mode (``vision.detect_pixels``) on rendered frames against the renderer's truth: a
projector's light over most of the cloth taken off, a white ball on a grey cloth, and a rack's
inner ball whose outline shows only between its neighbours."""
import numpy as np

from vision.detect_pixels import detect_in_pixels
from vision.evaluate import match
from vision.layouts import rack, random_layout
from vision.render_domain import Domain, DomainRenderer

RADIUS_PX = 12.8     # the balls' median outline radius on the configured camera [px]


def _found(frame) -> tuple[np.ndarray, int]:
    """(the truth ids of the balls found within a radius of their projected centres, false balls)."""
    det = detect_in_pixels(frame.image, RADIUS_PX)
    rows, cols = match(frame.truth.centre_px, det.px, RADIUS_PX)
    return frame.truth.ids[rows], len(det) - len(cols)


def test_a_projectors_light_over_the_cloth_is_taken_off_before_the_cloths_colour_is_judged(synthetic_camera):
    """A rack under a projector's white light (0.6) that covers most of the cloth: the commonest
    cloth colour is the lit one, near grey, and the dark balls under the light (4, 6, 8, 14), washed
    grey by it, passed for cloth (11 of 16 balls found). With the light fitted over the play area and
    taken off, every ball is found and nothing else."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(0)
    frame = DomainRenderer(sc, Domain(projector=(0.6, 0.5, 0.5, 0.3, 0.3)), seed=0).render(
        rack(sc.table, sc.R, rng), rng)
    ids, false = _found(frame)
    assert sorted(ids) == sorted(frame.truth.ids) and false == 0


def test_a_white_ball_on_a_grey_cloth_is_brighter_than_the_cloth(synthetic_camera):
    """On a grey cloth a white ball (and a stripe's white half) has the cloth's colour; only its
    brightness, over 1.5 times the lit cloth's, tells it (10 of 15 balls found without: the cue ball
    and four stripes lost). Every ball is found and nothing else."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(0)
    frame = DomainRenderer(sc, Domain(cloth_srgb=(100, 100, 100)), seed=0).render(
        random_layout(sc.table, sc.R, rng), rng)
    ids, false = _found(frame)
    assert 0 in frame.truth.ids and sorted(ids) == sorted(frame.truth.ids) and false == 0


def test_a_racks_inner_ball_is_found_between_its_neighbours(synthetic_camera):
    """In a full rack the black ball touches six balls; its search lines towards them stop at them
    (so no fit takes a neighbour's outline), leaving it fewer than MIN_POINTS lines (15 of 16 balls
    found without: the black one lost). Most of its free lines on its outline make it a ball: the
    rack's 15 balls and the cue ball found, nothing else."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(7)
    frame = DomainRenderer(sc, Domain(), seed=0).render(rack(sc.table, sc.R, rng), rng)
    ids, false = _found(frame)
    assert sorted(ids) == sorted(frame.truth.ids) and false == 0
