"""Pixel-only mode (``vision.detect_pixels``) on rendered frames against the renderer's truth: a
projector's light over most of the cloth taken off, a white ball on a grey cloth, and a rack's
inner ball whose outline shows only between its neighbours (under halo rings too)."""
import numpy as np

from vision.detect_pixels import EDGE_TOL, detect_in_pixels, on_a_line
from vision.evaluate import match
from vision.layouts import rack, random_layout
from vision.render_domain import CONDITIONS, Domain, DomainRenderer
from vision.steps import N_RAYS

RADIUS_PX = 12.8     # the balls' median outline radius on the configured camera [px]
BENCH_RADIUS_PX = 12.8156   # ... as ``cuerobot bench vision`` gives it (the middle of its range of radii) [px]


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


def test_a_racks_ball_under_halo_rings_is_found_on_most_of_its_free_lines(synthetic_camera):
    """The bench's halo rack (seed 5, frame 8): the 15 touches five balls, halo rings cross its outline
    where it is free, and its last pass keeps 11 points on its 16 free search lines (0.69; RMS 0.15 px,
    0.6 px from its centre), short of MIN_POINTS and of the 3/4 the hemmed rule asked (the rack's 16
    balls less the 15 found before). With HEMMED_SHARE 0.6 every ball is found and nothing else."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(7)
    domain = CONDITIONS["halo"](rng, sc.table)
    frame = DomainRenderer(sc, domain, seed=0).render(rack(sc.table, sc.R, rng), rng)
    det = detect_in_pixels(frame.image, BENCH_RADIUS_PX)
    rows, cols = match(frame.truth.centre_px, det.px, RADIUS_PX)
    assert sorted(frame.truth.ids[rows]) == sorted(frame.truth.ids) and len(det) == len(cols)


def test_a_circle_on_a_rails_straight_edge_at_a_corner_pocket_is_no_ball(synthetic_camera):
    """On a grey cloth under a white balance towards green (the cloth-light-colour condition), where the
    wooden rail's straight edge meets a corner pocket's rim a circle half on the rail fitted the edge and
    the rim (0.83 radii, RMS 0.7 px; its lit edge passed the highlight tests): a false ball at the top
    left corner pocket. On the bench's frame (seed 5, frame 8) 12 of its 15 outline points lie on one
    line, which no round outline allows. Every ball is found and nothing else."""
    sc, _ = synthetic_camera
    domain = Domain(cloth_srgb=(98, 104, 113), texture=0.018, azimuth_deg=108.0, gradient=(0.22, -0.3),
                    exposure=1.19, white_balance=(1.03, 1.12, 0.93))
    rng = np.random.default_rng(2)
    frame = DomainRenderer(sc, domain, seed=0).render(random_layout(sc.table, sc.R, rng), rng)
    ids, false = _found(frame)
    assert sorted(ids) == sorted(frame.truth.ids) and false == 0


def test_a_round_outline_has_few_points_on_one_line():
    """``on_a_line``: of 48 points on a circle of 10.6 px (a ball's outline at 0.83 radii) no more than
    N_RAYS * acos(1 - 2 * 0.6 / r) / pi + 1 lie within 0.6 px of one line; of a chord's 12 points and 3 of
    the circle off it, 12 do and 13 do not; on random point sets it says what counting every pair's
    line in numpy says."""
    t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    circle = 10.6 * np.stack([np.cos(t), np.sin(t)], axis=1)
    bound = N_RAYS * np.arccos(1 - 2 * EDGE_TOL / 10.6) / np.pi + 1
    assert not on_a_line(circle, EDGE_TOL, np.floor(bound) + 1)
    edge = np.concatenate([np.stack([np.linspace(-8, 8, 12), np.full(12, 3.0)], axis=1), circle[12:15]])
    assert on_a_line(edge, EDGE_TOL, 12.0) and not on_a_line(edge, EDGE_TOL, 13.0)
    rng = np.random.default_rng(3)
    for _ in range(20):
        p = np.concatenate([rng.uniform(-10, 10, (30, 2)), np.stack([np.linspace(-9, 9, 10), rng.uniform(-0.5, 0.5, 10)], 1)])
        d = p[None, :] - p[:, None]                                   # (a, b, 2)
        length = np.hypot(d[..., 0], d[..., 1])
        e = p[None, None, :] - p[:, None, None]                       # (a, b, k, 2)
        on = np.abs(e[..., 1] * d[..., None, 0] - e[..., 0] * d[..., None, 1]) < EDGE_TOL * length[..., None]
        most = np.where(length > 2 * EDGE_TOL, on.sum(-1), 1).max()
        assert on_a_line(p, EDGE_TOL, float(most)) and not on_a_line(p, EDGE_TOL, most + 0.5)
