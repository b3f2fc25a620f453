"""Ball detection on rendered frames with exact truth (config/camera.yaml's simulated camera)."""
from __future__ import annotations

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from planner.state import TableState
from vision import detect as detect_module
from vision.balls import linear_to_srgb, srgb_to_linear
from vision.camera import sphere_silhouettes, table_to_pixels
from vision.detect import (
    BLOCKY_CHROMA_DEG,
    BLOCKY_CHROMA_SHARE,
    BLOCKY_CONTRAST,
    BRIGHT_LINEAR,
    DARK_LINEAR,
    EDGE_CHROMA_DEG,
    EDGE_MIN_DEG,
    EDGE_MIN_SHARE,
    EDGE_STEP,
    LUMA_MIN,
    LUMA_REACH,
    LUMA_SIDE,
    OUTLINE_LIT,
    REFINE_REACH,
    body_colour,
    edge_chroma_deg,
    hue_angle,
    jpeg_frame,
    luma_of,
    outline_normals,
    outline_points,
    white_at_limb,
)
from vision.detect_pixels import detect_in_pixels
from vision.edges import ballness, block_contrast, half_colour, luma_points
from vision.evaluate import match
from vision.layouts import rack
from vision.render_domain import Domain, DomainRenderer, condition_frames


def test_sweep_finds_every_ball_to_half_a_millimetre(sweep):
    """Random layouts across the whole table (distorted corners, clusters, balls on cushions and
    in jaws, a full rack, chalk marks): every ball, nothing else, centre RMS <= 0.5 mm."""
    frames, _, score = sweep
    assert score.balls > 200
    assert score.recall == 1.0
    assert score.false == 0
    assert score.rms_mm <= 0.5
    assert score.max_mm < 3.0


def test_hard_places(synthetic_camera, vision):
    """Balls frozen on cushions, in every corner of the image, in pocket jaws and in a touching
    cluster are found within a millimetre; the three chalk marks are not balls."""
    sc, _ = synthetic_camera
    t, R = sc.table, sc.R
    e = 1e-6
    balls = {
        0: (R + e, R + 0.10),                     # frozen on the head-left cushion near the corner
        1: (t.width - R - e, t.length - 0.2),      # frozen on the right cushion, far corner of the image
        2: (0.35, t.length - R - e),               # frozen on the foot cushion
        8: (0.06, 0.075),                          # in the lb pocket's jaws
        9: (R + e, t.length / 2 + 0.095),          # beside the lc side pocket
        3: (0.6, 1.2), 4: (0.6 + 2 * R + e, 1.2),  # a touching cluster of three
        5: (0.6 + R, 1.2 + np.sqrt(3) * R + e),
        14: (t.width - 0.05, 0.06),                # in the rb pocket's jaws
    }
    state = TableState.from_dict(balls)
    frame = sc.render(state, np.random.default_rng(5), chalk=[[0.3, 0.5], [0.8, 1.6], [0.2, 2.0]])
    det, _ = vision.detect(frame.image)
    d = np.linalg.norm(state.pos[:, None] - det.xy[None], axis=-1)
    r, c = linear_sum_assignment(d)
    assert len(det) == len(balls)
    assert np.max(d[r, c]) < 0.001


def test_a_black_ball_over_a_pocket_hole_is_found(synthetic_camera, vision):
    """A black 8 in a corner pocket's mouth, its centre 2-3 mm outside the pocket's circle and over half its
    square on the hole, where black cannot be told from the hole (the default condition's seeds 30 and 600),
    and a 12 touching it: the foreground share of a candidate's square, and of a short arc's (the 8's rays run
    into the hole and the 12), counts the bed's pixels only, so the 8 is a candidate, kept, and found, as are the
    balls away from it: within a millimetre in a clean frame, 1.5 mm through JPEG q60 (a short arc through JPEG's
    half-resolution colour; measured 0.2-1.3 mm)."""
    sc, _ = synthetic_camera
    balls = {8: (1.0992, 2.2214), 12: (1.0882, 2.1649), 1: (0.5, 1.0), 2: (0.3, 0.4), 3: (0.8, 1.8)}
    state = TableState.from_dict(balls)
    for domain, tol in ((Domain(), 0.001), (Domain(jpeg_quality=60), 0.0015)):
        for seed in (0, 1, 2):
            frame = DomainRenderer(sc, domain, seed=seed).render(state, np.random.default_rng(seed))
            det, _ = vision.detect(frame.image)
            d = np.linalg.norm(state.pos[:, None] - det.xy[None], axis=-1)
            assert len(det) == len(balls), (domain.jpeg_quality, seed)
            assert np.max(d.min(axis=1)) < tol, (domain.jpeg_quality, seed, d.min(axis=1))


def test_pixel_only_mode_finds_outline_centres(synthetic_camera, sweep):
    """Without a camera model the centres are the outlines' centres (not the balls'). Measured
    against the centroid of the exact outline: 73 of 76 balls outside the rack found, median 0.08 px,
    75th percentile 0.26 px, 95th 2.5 px: the misses and the largest errors are dark-green balls on
    the green cloth, whose shadow outweighs their own low-contrast outline (docs/vision.md, Limits)."""
    sc, _ = synthetic_camera
    frames, _, _ = sweep
    found = total = 0
    errs = []
    for f in frames[1:8]:
        det = detect_in_pixels(f.image, 13.0)
        P = np.concatenate([f.truth.pos, np.full((len(f.truth.ids), 1), sc.R)], axis=1)
        centroid = sphere_silhouettes(sc.cam, P, sc.R, 180).mean(axis=1)
        d = np.linalg.norm(centroid[:, None] - det.px[None], axis=-1)
        r, c = linear_sum_assignment(d)
        ok = d[r, c] < 6
        found += ok.sum()
        total += len(P)
        errs += list(d[r, c][ok])
        assert len(det) == ok.sum()                      # no false balls
    assert found >= 0.95 * total
    assert np.median(errs) < 0.15 and np.percentile(errs, 75) < 0.5


def test_centre_pixel_is_the_projected_sphere_centre(synthetic_camera, sweep):
    sc, _ = synthetic_camera
    frames, results, _ = sweep
    det, _ = results[3]
    P = np.concatenate([det.xy, np.full((len(det), 1), sc.R)], axis=1)
    assert np.allclose(det.px, table_to_pixels(sc.cam, P))


def test_added_light_is_the_white_added_to_the_cloth():
    """A projector's white light w added (in linear light) to a cloth of any brightness k is read
    back as w from the cloth's local colour; the cloth itself reads 0."""
    from vision.balls import srgb_to_linear
    from vision.cloth import ClothModel
    from vision.detect import added_light

    srgb = np.array([82.0, 120.0, 30.0])                     # BGR
    chroma = srgb / np.linalg.norm(srgb)
    white = np.ones(3) / np.sqrt(3.0)
    light = white - (white @ chroma) * chroma
    model = ClothModel(chroma=chroma, coef=np.array([120.0, 0, 0, 0, 0, 0]), scale=1.0, level=float(np.linalg.norm(srgb)),
                       light=light / np.linalg.norm(light), lit=(0.0, 0.0))
    unlit = srgb_to_linear(srgb)
    k = np.array([0.5, 1.0, 1.4, 0.8])
    w = np.array([0.0, 0.05, 0.15, 0.3])
    np.testing.assert_allclose(added_light(k[:, None] * unlit + w[:, None], model), w, atol=1e-9)


def test_rho_prior_steadies_a_partial_outline(synthetic_camera):
    """Rays tangent to a ball seen on only a third of its outline, with 0.3 mm of noise: the radius
    trades off against the centre, so the free fit's centre wanders; held near the known rho (as the
    frame's whole balls give it) the centre is found about twice as close (median 0.15 vs 0.32 mm).
    A huge prior weight returns the prior's rho."""
    from vision.camera import pixel_rays, silhouette_circles, table_to_pixels
    from vision.fits import fit_spheres

    sc, _ = synthetic_camera
    cam, R = sc.cam, sc.R
    rng = np.random.default_rng(3)
    err = {False: [], True: []}
    for _ in range(40):
        xy = rng.uniform([0.3, 0.4], [0.9, 2.0])
        P = np.array([[*xy, R]])
        pts = silhouette_circles(cam, P, np.array([R]), 48)[0][:16]
        pts = pts + rng.normal(0, 0.0003, pts.shape) * np.array([1, 1, 0])
        rays = pixel_rays(cam, table_to_pixels(cam, pts))[None]
        px_per_m = np.array([cam.K[0, 0] / np.linalg.norm(P[0] - cam.centre)])
        start = xy[None] + rng.normal(0, 0.003, (1, 2))
        for prior in (False, True):
            out, rho, _, _ = fit_spheres(cam.centre, rays, np.ones((1, 16), bool), start, R, R, px_per_m,
                                         rho_prior=R if prior else None, prior_weight=8.0)
            err[prior].append(np.linalg.norm(out[0] - xy))
    assert np.median(err[True]) < 0.6 * np.median(err[False])
    _, rho, _, _ = fit_spheres(cam.centre, rays, np.ones((1, 16), bool), start, R, R, px_per_m,
                               rho_prior=1.02 * R, prior_weight=1e9)
    assert abs(rho[0] - 1.02 * R) < 1e-6


def test_halo_rings_are_taken_out_before_detection(synthetic_camera, vision):
    """A projector's halo ring round every ball of a rack (vision.render_domain, 6 racks): the frame
    the detector reads has part of the rings' pixels (40+ levels added) back within 15 levels of the
    same frame rendered without rings (12 % measured in a rack, 31 % on a random layout: the rest
    cross or meet another ring or a ball's edge), and more balls are found to a millimetre with fewer
    false balls than on the frame as shot: 53 of 96 and 0 false measured (27 and 3 with the line
    search along four directions and no soft edges taken, 14 and 20 on the frame as shot; the
    issue's target, every ball, is still off for racks ringed all through)."""
    sc, _ = synthetic_camera
    found = false = 0
    for seed in range(6):
        state = rack(sc.table, sc.R, np.random.default_rng(seed))
        ringed = DomainRenderer(sc, Domain(halo=0.6, halo_share=1.0), 0).render(state, np.random.default_rng(4))
        det, clean = vision.detector.detect_unlined(ringed.image)
        d = np.linalg.norm(state.pos[:, None] - det.xy[None], axis=-1)
        found += int((d.min(axis=1) < 0.001).sum())
        false += int((d.min(axis=0) > sc.R).sum())
        if seed == 0:
            plain = DomainRenderer(sc, Domain(), 0).render(state, np.random.default_rng(4)).image.astype(int)
            drawn = np.abs(ringed.image.astype(int) - plain).max(axis=2) >= 40
            back = np.abs(clean.astype(int) - plain).max(axis=2)[drawn]
            assert drawn.sum() > 1000
            assert (back < 15).mean() >= 0.1
    assert found >= 50
    assert false == 0


def test_loose_contacts_place_a_ball_among_rough_neighbours():
    """A hidden ball touched by three balls, each located 5 mm too far out (a JPEG rack's edge
    balls): with 4 mm of slack it is not placed, with 9 mm (8 x a JPEG frame's fit RMS) it is, within
    5 mm of where it is."""
    from vision.detect import place_by_contacts

    R = 0.028575
    hidden = np.array([1.0, 1.0])
    ang = np.radians([90.0, 210.0, 330.0])
    out = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    xy = np.concatenate([hidden + (2 * R + 0.005) * out, [hidden + [0.004, -0.003]]])
    good = np.array([True, True, True, False])
    start = xy.copy()
    _, ok, placed = place_by_contacts(xy, good, start, R, 0.004)
    assert not ok[3] and not placed.any()
    got, ok, placed = place_by_contacts(xy, good, start, R, 0.009)
    assert ok[3] and placed[3] and np.linalg.norm(got[3] - hidden) < 0.005


def test_contacts_with_balls_found_before_place_a_ball_once_each():
    """``place_by_contacts``' fixed: a hidden ball touched by two located balls and by two balls found
    before (the first search's, under halo rings) is placed where it is; where the balls found before are the
    same two balls again (within R of them: a second search's fits of first-search balls) they count once,
    two contacts are too few (CONTACT_MIN) and nothing is placed (hard x20 seed 41 frame 9: a ball placed
    in a side pocket's mouth against a cue ball and an 8, each counted twice)."""
    from vision.detect import place_by_contacts

    R = 0.028575
    hidden = np.array([1.0, 1.0])
    ang = np.radians([0.0, 60.0, 180.0, 240.0])
    nb = hidden + 2 * R * np.stack([np.cos(ang), np.sin(ang)], axis=1)
    xy = np.concatenate([nb[:2], [hidden + [0.003, -0.002]]])
    good = np.array([True, True, False])
    _, ok, placed = place_by_contacts(xy, good, xy.copy(), R, 0.004)
    assert not placed.any()
    got, ok, placed = place_by_contacts(xy, good, xy.copy(), R, 0.004, fixed=nb[2:])
    assert ok[2] and placed[2] and np.linalg.norm(got[2] - hidden) < 0.001
    _, ok, placed = place_by_contacts(xy, good, xy.copy(), R, 0.004, fixed=nb[:2] + [0.002, -0.001])
    assert not placed.any()


def test_touching_centre_solves_the_contacts_and_drops_the_least_touching():
    """``_touching_solve`` (``place_by_contacts``' solve): a hidden ball whose three neighbours touch it is
    placed where it touches all three (to 1e-9 m, from a start 6 mm off); a fourth neighbour 12 mm too far
    out is dropped and the same centre found; with fewer than ``need`` left, none."""
    from vision.detect import _touching_solve

    R = 0.028575
    c = np.array([1.0, 0.5])
    ang = np.radians([90.0, 210.0, 330.0, 30.0])
    nb = c + 2 * R * np.stack([np.cos(ang), np.sin(ang)], axis=1)
    nb[3] += 0.012 * np.array([np.cos(ang[3]), np.sin(ang[3])])
    start = c + [0.004, -0.0045]
    assert np.linalg.norm(_touching_solve(start, nb[:3], 2 * R, 0.004, 3, 10) - c) < 1e-9
    assert np.linalg.norm(_touching_solve(start, nb, 2 * R, 0.004, 3, 10) - c) < 1e-9
    assert np.isnan(_touching_solve(start, nb, 2 * R, 0.004, 4, 10)).all()


def test_placed_balls_are_solved_again_against_balls_placed_after_them():
    """``place_by_contacts``' sweeps: a hidden ball A placed by its three located neighbours (one 2 mm
    too far out) is solved again once its hidden neighbour B is placed too (against three balls on its
    far side and A), and moves towards where it is (1.36 mm off -> under 1.1 mm; B 0.54 -> under 0.45)."""
    from vision.detect import place_by_contacts

    R = 0.028575
    a, b = np.array([1.0, 1.0]), np.array([1.0 + 2 * R, 1.0])

    def ring(c, degrees):
        ang = np.radians(degrees)
        return c + 2 * R * np.stack([np.cos(ang), np.sin(ang)], axis=1)

    na = ring(a, [120.0, 180.0, 240.0])
    na[1] += [-0.002, 0.0]
    xy = np.concatenate([na, ring(b, [0.0, 60.0, 300.0]), [a + 0.001, b + [-0.001, 0.001]]])
    good = np.arange(8) < 6
    once, _, placed = place_by_contacts(xy, good, xy.copy(), R, 0.004, sweeps=0)
    assert placed[6:].all() and np.linalg.norm(once[6] - a) > 0.0013
    got, _, placed = place_by_contacts(xy, good, xy.copy(), R, 0.004)
    assert placed[6:].all()
    assert np.linalg.norm(got[6] - a) < 0.0011 and np.linalg.norm(got[7] - b) < 0.00045


def test_a_placed_ball_lies_on_the_bed(synthetic_camera, vision):
    """``TableDetector.on_bed``: a ball's centre lies at least R, less the slack, inside the cushion noses,
    or near a pocket (in its mouth); hard x20 seed 77 frame 18: a ball placed by three contacts 5 mm past the
    foot cushion's nose line was a false ball."""
    sc, _ = synthetic_camera
    t, R = sc.table, sc.R
    xy = np.array([[0.44, t.length + 0.005], [0.44, t.length - R + 0.002], [0.44, t.length - R - 0.001],
                   [t.width / 2, 1.0], [0.02, 0.02]])
    np.testing.assert_array_equal(vision.detector.on_bed(xy, 0.004), [False, True, True, True, True])
    assert not vision.detector.on_bed(xy[1:2], 0.001)[0]


def test_five_fits_set_a_frames_rougher_limit_with_two_of_them_rough():
    """``frame_limits``: a JPEG frame's 3 smooth fits (0.3 px) and 2 rough ones (0.8, 0.9 px, over the
    fixed 0.7 px: white-bodied stripes on a grey cloth, hard x20 seed 5 frame 14, five balls fitted) raise
    the limit to FRAME_RMS_FACTOR times the smooth fits' 0.3 px, so the rough two pass, and the contact slack
    to CONTACT_RMS_FACTOR times 0.3 px in metres; with one smooth fit fewer (four held) the fixed limits
    stay (the median of four, two rough, would be a rough fit's)."""
    from vision.detect import CONTACT_RMS_FACTOR, CONTACT_SLACK, FRAME_RMS_FACTOR, frame_limits

    R, r_px = 0.028575, 13.0
    fixed = np.full(5, 0.7)
    rms = np.array([0.3, 0.8, 0.3, 0.9, 0.3])
    held = np.ones(5, bool)
    limit, slack = frame_limits(fixed, rms, held, np.full(5, r_px), R)
    np.testing.assert_allclose(limit, FRAME_RMS_FACTOR * 0.3)
    assert np.all(rms < limit)
    assert CONTACT_RMS_FACTOR * 0.3 * R / r_px > CONTACT_SLACK
    np.testing.assert_allclose(slack, CONTACT_RMS_FACTOR * 0.3 * R / r_px)
    held[0] = False
    limit, slack = frame_limits(fixed, rms, held, np.full(5, r_px), R)
    np.testing.assert_array_equal(limit, fixed)
    assert slack == CONTACT_SLACK


def test_a_shape_calls_one_fit_takes_the_limit_of_the_frames_other_fits():
    """``frame_limits`` with ``others``: one rough shape fit (0.68 px, over its fixed 0.67 px) counted with the
    frame's four colour fits held elsewhere (0.2 px) makes five, so the limit rises to FRAME_RMS_FACTOR times
    their median (0.2 px) and the fit passes; alone it is one fit, under FRAME_MIN_FITS, and the fixed limit
    stays."""
    from vision.detect import CONTACT_SLACK, FRAME_RMS_FACTOR, frame_limits

    R, r_px = 0.028575, 12.2
    fixed, rms, held = np.array([0.67]), np.array([0.68]), np.ones(1, bool)
    limit, slack = frame_limits(fixed, rms, held, np.full(1, r_px), R, (np.full(4, 0.2), np.full(4, r_px)))
    np.testing.assert_allclose(limit, max(0.67, FRAME_RMS_FACTOR * 0.2))
    assert rms[0] < limit[0]
    assert slack >= CONTACT_SLACK
    limit, slack = frame_limits(fixed, rms, held, np.full(1, r_px), R)
    np.testing.assert_array_equal(limit, fixed)
    assert slack == CONTACT_SLACK


def test_contacts_place_a_rack_ball_whose_start_is_far_off():
    """A rack's edge ball touched by four located balls (at 0, 60, 180 and 240 degrees), its candidate's
    start 9 mm off towards two of them (a rack's starts are 5-12 mm off: the neighbours' outlines vote
    too): the other two lie 2R + 8 mm from the start, beyond the 4 mm slack, so two neighbours were too
    few (CONTACT_MIN); sought CONTACT_SEEK R further out it is placed where it is. Three loose balls round
    an empty gap (CONTACT_SEEK_MIN), or a spot a located ball holds, get no ball."""
    from vision.detect import place_by_contacts

    R = 0.028575
    hidden = np.array([1.0, 1.0])
    ang = np.radians([0.0, 60.0, 180.0, 240.0])
    nb = hidden + (2 * R + 0.001) * np.stack([np.cos(ang), np.sin(ang)], axis=1)
    start = hidden + 0.009 * np.array([np.cos(np.radians(30.0)), np.sin(np.radians(30.0))])
    xy = np.concatenate([nb, [start]])
    good = np.array([True] * 4 + [False])
    got, ok, placed = place_by_contacts(xy, good, xy.copy(), R, 0.004)
    assert ok[4] and placed[4] and np.linalg.norm(got[4] - hidden) < 0.001
    gap = nb[[0, 1, 2]] * [1.0, 1.0] + [[0.002, 0.0], [0.0, 0.003], [-0.003, 0.0]]     # three balls, loose
    xy = np.concatenate([gap, [hidden + [0.006, 0.004]]])
    _, ok, placed = place_by_contacts(xy, np.array([True] * 3 + [False]), xy.copy(), R, 0.004)
    assert not placed.any()
    xy = np.concatenate([nb, [hidden], [start]])      # the spot already holds a located ball
    _, ok, placed = place_by_contacts(xy, np.array([True] * 5 + [False]), xy.copy(), R, 0.004)
    assert not placed.any()


def test_a_short_arc_inside_a_ball_is_no_ball():
    """``apart``: a 10-point fit (under FEW_EDGES) 10 mm into a ball fitted to 40 points is no ball; a
    30-point fit as far into it, a short arc touching a ball to within the slack, and a fit not marked
    good are left as they are."""
    from vision.detect import FEW_EDGES, apart

    R = 0.028575
    xy = np.array([[1.0, 1.0], [1.0 + 2 * R - 0.010, 1.0], [1.0 + 4 * R - 0.012, 1.0], [1.0, 1.0 + R],
                   [1.0 + 2 * R, 1.0 + 2 * R - 0.010]])
    n = np.array([FEW_EDGES - 3, 40, FEW_EDGES - 1, 50, 30])
    kept = apart(xy, np.array([True, True, True, False, True]), n, R, 0.004)
    np.testing.assert_array_equal(kept, [False, True, True, False, True])


def _lit_render(sc):
    """(the rendered frame, its renderer) of balls 6 and 3 mid-table under a projector's white light (0.6 of
    the table-centre light)."""
    t = sc.table
    st = TableState([6, 3], [[t.width / 2, t.length / 2], [t.width / 2 + 0.12, t.length / 2 + 0.05]])
    rend = DomainRenderer(sc, Domain(projector=(0.6, 0.5, 0.5, 0.3, 0.3)), seed=0)
    return rend.render(st, np.random.default_rng(4)), rend


def _lit_frame(sc, det):
    """(the half-resolution crop (h, w, 3) of a rendered frame with balls 6 and 3 mid-table under a
    projector's white light (0.6 of the table-centre light), the light the renderer added there
    (h, w) in linear units, the balls' centres (2, 2) [half-resolution px])."""
    frame, rend = _lit_render(sc)
    u0, v0, u1, v1 = det.crop
    half = cv2.resize(frame.image[v0:v1, u0:u1], det.half_size, interpolation=cv2.INTER_AREA)
    true = cv2.resize(rend.light[v0:v1, u0:u1, 1], det.half_size, interpolation=cv2.INTER_AREA)
    return half, true, (frame.truth.centre_px - (u0, v0) - 0.5) / 2


def _cloth_model(det, half):
    """(the cloth model fitted to ``det``'s sample grid of a half-resolution crop, its lit brightness)."""
    from vision.cloth import fit_cloth
    m = fit_cloth(half[det.sample_v, det.sample_u], det.sample_u, det.sample_v, det.scale)
    return m, det._bright(m)


def test_a_projectors_added_light_is_taken_off_and_a_ball_of_the_cloths_hue_shows(synthetic_camera, vision):
    """Registered mode's ``unlit`` stage (vision.cloth): in a rendered frame with a projector's light
    added over the middle of the table (0.6 of the table-centre light, white), the cloth model has a
    lit wedge and the green ball 6 in the light is NOT foreground (its lit colour lies in the wedge:
    the projector misses of issue 21); the fitted light field matches the light the renderer added
    (measured: median error 0.0008 linear over the table, 95 % under 0.012 (the worst where the lit
    ellipse's linear ramp bends), 0.0014 under the balls: a local linear fit fills them), its colour
    is white within 2 deg, and with it taken off the cloth model has one colour again and ball 6 is
    foreground."""
    from vision.cloth import FOREGROUND, added_light_field, classify, take_off_light
    det = vision.detector
    half, true, balls = _lit_frame(synthetic_camera[0], det)
    balls = np.rint(balls).astype(int)
    model, bright = _cloth_model(det, half)
    assert model.lit != (0.0, 0.0)
    ball6 = np.hypot(*(np.mgrid[0:half.shape[0], 0:half.shape[1]][::-1] - balls[0][:, None, None])) < 0.6 * det.r_half
    assert (classify(half, model, bright)[ball6] & FOREGROUND).mean() < 0.5
    table = (det.known > 0) & det.allowed
    found = added_light_field(half, model, bright, table, det.r_half)
    colour = found.colour / np.linalg.norm(found.colour)
    assert colour @ (np.ones(3) / np.sqrt(3)) > np.cos(np.radians(2.0))
    err = np.abs(found.field * np.linalg.norm(found.colour) / np.sqrt(3) - true)
    assert np.median(err[table]) < 0.002 and np.percentile(err[table], 95) < 0.015
    assert err[balls[:, 1], balls[:, 0]].max() < 0.005
    unlit = take_off_light(half, found)
    model, bright = _cloth_model(det, unlit)
    assert model.lit == (0.0, 0.0)
    assert (classify(unlit, model, bright)[ball6] & FOREGROUND).mean() > 0.9


def test_a_projectors_light_is_taken_off_the_frame_only_about_the_balls(synthetic_camera, vision):
    """The registered mode takes a projector's light off the full-resolution frame only within
    UNLIT_REACH (4) ball radii of each candidate (a square about it, ``near_points``): there lie the
    pixels read about a ball (its outline, its cloth rings to 4 outline radii, its identity); further
    out the frame stays as shot (at 5 radii a projector frame paid 0.15 ms more for pixels never
    read). Balls 6 and 3 mid-table in the lit area (``_lit_render``): every pixel at 3.5 radii from
    them on the axes and diagonals has light taken off, none beyond the squares of 4 radii (their
    half-resolution pixels rounded up, a candidate's pixel off the centre) about both (measured: 55.6
    px against 58; at 5 radii 67.6)."""
    from vision.detect import UNLIT_REACH
    sc, _ = synthetic_camera
    det = vision.detector
    frame = _lit_render(sc)[0]
    found, out = det.detect_unlined(frame.image)
    assert len(found) == 2
    changed = (out != frame.image).any(axis=2)
    r = 2 * det.r_half                                          # a ball's radius [full-resolution px]
    ang = np.radians(np.arange(0, 360, 45))
    for c in frame.truth.centre_px:
        ring = np.rint(c + 3.5 * r * np.stack([np.cos(ang), np.sin(ang)], axis=1)).astype(int)
        assert changed[ring[:, 1], ring[:, 0]].all()
    v, u = np.nonzero(changed)
    cheb = np.abs(np.stack([u, v], axis=1)[:, None] - frame.truth.centre_px[None]).max(axis=2).min(axis=1)
    assert cheb.max() <= 2 * (np.ceil(UNLIT_REACH * det.r_half) + 2)      # (half-resolution squares, 2 px blocks)


def test_shifted_windows_follow_a_lit_areas_soft_edge():
    """The light field's local linear fit bends across a kink in the light (a lit area's soft edge:
    flat unlit cloth, then a ramp), overshooting on both sides; taking at each pixel the best-fitting
    of nine windows about it (``_local_linear_shifted``) follows each side more closely (measured:
    max error 0.0024 -> 0.0014 at sigma 3 px, about half at one sigma off the kink), and both give a
    plane back exactly."""
    from vision.cloth import _local_linear, _local_linear_shifted
    h, w, sigma = 48, 96, 3.0
    yy, xx = np.mgrid[0:h, 0:w].astype(float)
    every = np.ones((h, w), bool)
    inner = (slice(8, -8), slice(8, -8))
    plane = 0.05 + 0.001 * xx - 0.0005 * yy
    for fit in (_local_linear, _local_linear_shifted):
        assert np.abs(fit(plane, every, sigma) - plane)[inner].max() < 1e-4
    kink = 0.002 * np.maximum(0.0, xx - 48)
    centred = np.abs(_local_linear(kink, every, sigma) - kink)[inner]
    shifted = np.abs(_local_linear_shifted(kink, every, sigma) - kink)[inner]
    assert centred.max() > 0.002                # the premise: the centred plane bends across the kink
    assert shifted.max() < 0.65 * centred.max()
    off = (np.abs(xx - 48)[inner] >= sigma) & (np.abs(xx - 48)[inner] <= 2 * sigma)
    assert shifted[off].mean() < 0.6 * centred[off].mean()


def test_arc_span_is_the_share_of_the_circle_the_used_rays_cover():
    """``arc_span``: every ray -> the whole turn; k rays in a row (also across the end) -> k / N; two
    opposite rays -> the 2 + 23 rays of one half; no ray -> 0."""
    from vision.detect import arc_span
    used = np.zeros((5, 48), bool)
    used[0] = True
    used[1, 10:22] = True
    used[2, [0, 1, 46, 47]] = True
    used[3, [0, 24]] = True
    np.testing.assert_allclose(arc_span(used), [1.0, 12 / 48, 4 / 48, 25 / 48, 0.0])


def _detected_with_cloth(vision, image: np.ndarray):
    """(the registered mode's detections in ``image`` (h, w, 3) BGR, the cloth model of its crop at half
    resolution, tinted: what ``TableDetector.added_kept`` takes)."""
    from vision.cloth import fit_cloth
    d = vision.detector
    both, _ = vision.detect(image)
    u0, v0, u1, v1 = d.crop
    half = cv2.resize(image[v0:v1, u0:u1], d.half_size, interpolation=cv2.INTER_AREA)
    return both, fit_cloth(half[d.sample_v, d.sample_u], d.sample_u, d.sample_v, d.scale, True)


def _two_balls_detected(sc, vision):
    """(frame, first ball, second ball, cloth model): a clean frame of a 3 and an 11 on open cloth, rendered by
    ``sc`` (SyntheticCamera) and detected by the registered mode, each ball as a one-ball Detections."""
    frame = sc.render(TableState([3, 11], [[0.4, 0.9], [0.9, 1.7]]), np.random.default_rng(2))
    both, model = _detected_with_cloth(vision, frame.image)
    assert len(both) == 2
    return frame, both.take(np.array([0])), both.take(np.array([1])), model


def test_a_second_searchs_ball_is_added_only_with_an_outline_and_a_body_of_its_own(synthetic_camera, vision):
    """``TableDetector.added_kept`` (the second search under halo rings): of two balls found in a clean
    frame, the second is added to a first search that found only the first; the same ball is
    refused when it was placed by its contacts (RMS NaN: a NaN must fail the RMS test, it passed
    ``not rms > limit`` before) with its square not full, when its outline points span only a quarter
    of its circle and its square is not full, when it sits on bare cloth (its body is cloth), and when
    it overlaps the first search's ball; placed with a full square of a ball's colour, it is added (a
    rack's inner ball, hard x20 seeds 5 and 30)."""
    from vision.detect import SHORT_FILL, SHORT_SPAN
    sc, _ = synthetic_camera
    d = vision.detector
    frame, first, second, model = _two_balls_detected(sc, vision)
    assert second.span[0] >= SHORT_SPAN and np.isfinite(second.rms_px[0])      # premise: a whole outline

    def kept(ball):
        return bool(d.added_kept(first, ball, frame.image, model)[0])
    assert kept(second)
    placed = second.take(np.array([0]))           # placed by contacts: RMS NaN, no outline points
    placed.rms_px[:] = np.nan
    placed.span[:] = 0.0
    placed.fill[:] = SHORT_FILL - 0.1
    assert not kept(placed)
    placed.fill[:] = 1.0
    assert kept(placed)
    arc = second.take(np.array([0]))
    arc.span[:] = 0.25
    arc.fill[:] = SHORT_FILL - 0.1          # a short arc whose square is not full, by a found ball: a ring's arc
    assert not bool(d.added_kept(_with_ball_at(first, arc.xy[0] + (3 * sc.R, 0.0)), arc, frame.image, model)[0])
    bare = second.take(np.array([0]))             # the same fit moved 0.3 m along the table: cloth inside
    bare.xy[:] += (0.0, -0.3)
    bare.px[:] = table_to_pixels(sc.cam, np.array([[*bare.xy[0], sc.R]]))
    assert not kept(bare)
    over = second.take(np.array([0]))
    over.xy[:] = first.xy + (2 * sc.R - 0.006, 0.0)
    assert not kept(over)


def _with_ball_at(det, xy: np.ndarray):
    """``det`` (Detections) with a copy of its first ball moved to the table position xy (2,) [m] added
    (``added_kept`` reads only the first search's positions)."""
    ball = det.take(np.array([0]))
    ball.xy[:] = xy
    return det.joined(ball)


def test_a_short_arc_far_from_every_ball_found_is_added(synthetic_camera, vision):
    """``added_kept`` (SHORT_FAR): a second search's ball whose outline points span only a quarter of its
    circle on a square that is not full is added where it lies 4 R or more from every ball found (a halo
    ring's arc lies at most a ring radius, 2.2 R, from its ball, a circle fitted on it within R more: hard x20
    seed 77 frame 9, a blue 10 fitted 0.2 mm off on 16 points spanning 0.35, 11 ball diameters from the
    nearest ball); the same arc with a found ball 3 R or 3.9 R from it is refused, as before."""
    from vision.detect import SHORT_FAR, SHORT_FILL, SHORT_SPAN
    sc, _ = synthetic_camera
    d = vision.detector
    frame, first, arc, model = _two_balls_detected(sc, vision)
    arc.span[:] = 0.25
    arc.fill[:] = SHORT_FILL - 0.1
    assert arc.span[0] < SHORT_SPAN and np.linalg.norm(first.xy[0] - arc.xy[0]) > 10 * sc.R     # the premise
    assert d.added_kept(first, arc, frame.image, model)[0]
    assert d.added_kept(_with_ball_at(first, arc.xy[0] + (SHORT_FAR * sc.R + 0.001, 0.0)), arc, frame.image,
                        model)[0]
    for gap in (3.0, 3.9):
        near = _with_ball_at(first, arc.xy[0] + (gap * sc.R, 0.0))
        assert not d.added_kept(near, arc, frame.image, model)[0]


def test_a_second_searchs_rough_fit_is_held_to_the_frames_limit_on_a_full_square(synthetic_camera, vision):
    """``added_kept``: a second search's ball fitted rougher than a clean frame's limit (RMS_MAX_SHARE of its
    radius) but under FRAME_RMS_FACTOR times the median of the search's five own fits (JPEG roughens every
    outline of a frame alike; hard x20 seed 77 frames 10 and 17, 0.83-0.97 px, 1.4-1.5 mm off) is added
    where its square is at least FEW_FILL foreground; refused where it is not (a ring's arc encloses
    cloth: a rack gap's false arc, 0.70), or where the search has only four own fits. Its points spanning
    REMOTE_SPAN of its circle (the ball lies 33 R from the first search's), it is added whatever its fill."""
    from vision.detect import FEW_FILL, FRAME_RMS_FACTOR, REMOTE_SPAN, RMS_MAX_SHARE
    sc, _ = synthetic_camera
    d = vision.detector
    frame, first, ball, model = _two_balls_detected(sc, vision)
    ball.rms_px[:] = 1.4 * RMS_MAX_SHARE * ball.r_px
    smooth = first.take(np.zeros(4, int))        # four smooth fits on the first search's ball (refused: overlap)
    smooth.rms_px[:] = 1.2 * ball.rms_px[0] / FRAME_RMS_FACTOR     # the frame limit: 1.2 times the ball's RMS

    def kept(others, fill):
        ball.fill[:] = fill
        return bool(d.added_kept(first, others.joined(ball), frame.image, model)[-1])
    ball.span[:] = REMOTE_SPAN - 0.05          # an arc, not round all about
    assert kept(smooth, FEW_FILL + 0.05)
    assert not kept(smooth, FEW_FILL - 0.05)
    ball.span[:] = REMOTE_SPAN
    assert kept(smooth, FEW_FILL - 0.05)
    assert not kept(smooth.take(np.arange(3)), 1.0)


def test_a_short_arc_on_a_full_square_of_a_balls_colour_is_added(synthetic_camera, vision):
    """``added_kept``: a second search's ball whose outline points span only a quarter of its circle (its
    other rays ran into neighbours or a ring's remnant) is added where its square is full of foreground
    (SHORT_FILL) and its body is a ball's colour (ball 11, red, on green: far beyond EDGE_CHROMA_DEG
    from the cloth); the same arc on bare cloth is refused (its body is the cloth's)."""
    from vision.detect import SHORT_FILL, SHORT_SPAN
    sc, _ = synthetic_camera
    d = vision.detector
    frame, first, arc, model = _two_balls_detected(sc, vision)
    arc.span[:] = 0.25
    arc.fill[:] = 1.0
    assert arc.span[0] < SHORT_SPAN and arc.fill[0] >= SHORT_FILL
    assert d.added_kept(first, arc, frame.image, model)[0]
    arc.xy[:] += (0.0, -0.3)                   # the same fit 0.3 m along the table: cloth inside
    arc.px[:] = table_to_pixels(sc.cam, np.array([[*arc.xy[0], sc.R]]))
    assert not d.added_kept(first, arc, frame.image, model)[0]


def _body_against_cloth(image, ball, model):
    """(the body's hue angle from its local cloth [deg], its level over the cloth's) of the one ball ``ball``."""
    from vision.detect import body_colour, hue_angle, local_cloth
    b = body_colour(image, ball.px, ball.r_px)
    local = local_cloth(image, ball.px, ball.r_px, model)[0]
    return hue_angle(b, local)[0], float(np.linalg.norm(b) / np.linalg.norm(local))


def _disc_scaled(image, ball, factor):
    """A copy of ``image`` with the one ball's disc (its radius + 1 px) ``factor`` times brighter in linear light."""
    out = image.copy()
    yy, xx = np.mgrid[:out.shape[0], :out.shape[1]]
    disc = np.hypot(xx - ball.px[0, 0], yy - ball.px[0, 1]) < ball.r_px[0] + 1
    out[disc] = np.rint(linear_to_srgb(srgb_to_linear(out[disc]) * factor)).astype(np.uint8)
    return out


def test_a_ball_of_the_cloths_hue_dimmer_than_its_cloth_is_added_on_a_full_square(synthetic_camera, vision):
    """``added_kept``: a green 6 on a green cloth 5 degrees from its colour (under EDGE_CHROMA_DEG) and 0.7
    of its level, placed by its contacts or fitted to a short arc on a full square (hard x20: a rack's 6
    of seed 41, a 6 in a pocket's mouth of seed 5), is added (SHORT_DIM: a ring's remnant is the cloth
    with light added, never dimmer); the same ball brightened to 1.2 times its level (its hue kept) is
    refused, as before, and so is the dim ball on a square that is not full (with a found ball 3 R from it,
    whose ring's arc it could be: SHORT_FAR)."""
    from vision.detect import EDGE_CHROMA_DEG, SHORT_DIM, SHORT_FILL
    sc, _ = synthetic_camera
    d = vision.detector
    frame = DomainRenderer(sc, Domain(cloth_srgb=(25, 120, 65)), seed=0).render(
        TableState([3, 6], [[0.4, 0.9], [0.9, 1.7]]), np.random.default_rng(2))
    both, model = _detected_with_cloth(vision, frame.image)
    assert len(both) == 2
    six = both.take(np.array([1]))
    first = _with_ball_at(both.take(np.array([0])), six.xy[0] + (3 * sc.R, 0.0))
    ang, level = _body_against_cloth(frame.image, six, model)
    assert 3.0 < ang < EDGE_CHROMA_DEG and level < SHORT_DIM      # the premise: of the cloth's hue, dimmer
    placed = six.take(np.array([0]))
    placed.rms_px[:], placed.span[:], placed.fill[:] = np.nan, 0.0, 1.0
    arc = six.take(np.array([0]))
    arc.span[:], arc.fill[:] = 0.25, 1.0
    for ball in (placed, arc):
        assert ball.fill[0] >= SHORT_FILL
        assert d.added_kept(first, ball, frame.image, model)[0]
    brighter = _disc_scaled(frame.image, six, 1.2 / level)      # the 6's disc at 1.2 times the cloth's level
    assert _body_against_cloth(brighter, six, model)[1] > SHORT_DIM
    for ball in (placed, arc):
        assert not d.added_kept(first, ball, brighter, model)[0]
    arc.fill[:] = SHORT_FILL - 0.1
    assert not d.added_kept(first, arc, frame.image, model)[0]


def test_a_short_arc_of_a_ball_coloured_body_dimmer_than_its_cloth_is_added_on_any_square(synthetic_camera, vision):
    """``added_kept`` (SHORT_DIMMER): a second search's ball fitted to its own short arc (a quarter of its circle)
    on a square that is not full (0.69: a green 6 on a green cloth is little foreground; hard x20 seed 41 frame 2,
    1.1 mm off on 13 points spanning 0.48), 3 R from a found ball (whose ring's arc it could be), is added where
    its body is EDGE_CHROMA_DEG or more from the cloth's colour AND dimmer than the cloth: a ring's remnant is
    the cloth's colour with white added, neither. The same arc refused with its disc 1.2 times the cloth's level
    (the hue kept: a body brighter than its cloth), and placed by its contacts (no outline of its own)."""
    from vision.detect import EDGE_CHROMA_DEG, SHORT_DIMMER, SHORT_FILL, SHORT_SPAN
    sc, _ = synthetic_camera
    d = vision.detector
    frame = sc.render(TableState([3, 6], [[0.4, 0.9], [0.9, 1.7]]), np.random.default_rng(2))
    both, model = _detected_with_cloth(vision, frame.image)
    assert len(both) == 2
    six = both.take(np.array([1]))
    first = _with_ball_at(both.take(np.array([0])), six.xy[0] + (3 * sc.R, 0.0))
    ang, level = _body_against_cloth(frame.image, six, model)
    assert ang >= EDGE_CHROMA_DEG and level < SHORT_DIMMER        # the premise: a ball's colour, dimmer than cloth
    arc = six.take(np.array([0]))
    arc.span[:], arc.fill[:] = 0.25, 0.69
    assert arc.span[0] < SHORT_SPAN and arc.fill[0] < SHORT_FILL
    assert d.added_kept(first, arc, frame.image, model)[0]
    brighter = _disc_scaled(frame.image, six, 1.2 / level)      # the 6's disc at 1.2 times the cloth's level
    ang_b, level_b = _body_against_cloth(brighter, six, model)
    assert ang_b >= EDGE_CHROMA_DEG and level_b > SHORT_DIMMER
    assert not d.added_kept(first, arc, brighter, model)[0]
    placed = arc.take(np.array([0]))
    placed.rms_px[:], placed.span[:] = np.nan, 0.0
    assert not d.added_kept(first, placed, frame.image, model)[0]

def test_a_projectors_soft_edge_is_taken_off_the_cloth_exactly(synthetic_camera, vision):
    """Where the renderer's lit ellipse fades out (its light falls linearly, so it bends at the
    ramp's foot and top), a plane fitted over 1.5 ball radii cuts the bends: 0.012-0.02 linear too
    much light at the foot, where a green cloth's red is about that, and the cloth there turned
    foreground after the light was taken off (12 % of the cloth away from the balls; on the
    projector condition's seed 41 such a band joined three balls by a cushion, placed a false ball
    among them and hid a real one as a hand). A pixel that shows cloth (near the fit, in the
    plane of the unlit cloth and the light: ``LIGHT_PLANE_DEG``) has its own light taken off.
    Against the light the renderer added: the cloth away from the balls 95 % within 0.006 (0.0044
    measured; 0.0119 with the plane alone), its foreground share under 2 % (0.6 %; 12.3 % before)
    and ball 6 (green, in the light) still all foreground."""
    det = vision.detector
    half, true, balls = _lit_frame(synthetic_camera[0], det)
    yy, xx = np.mgrid[0:half.shape[0], 0:half.shape[1]]
    table = (det.known > 0) & det.allowed
    cloth = table & np.all([np.hypot(xx - u, yy - v) > 2 * det.r_half for u, v in balls], axis=0)
    ball6 = np.hypot(xx - balls[0, 0], yy - balls[0, 1]) < 0.6 * det.r_half
    err, classes = _light_error_and_foreground(det, half, true, table)
    assert np.percentile(err[cloth], 95) < 0.006
    assert classes[cloth].astype(bool).mean() < 0.02
    assert classes[ball6].astype(bool).mean() > 0.9


def _light_error_and_foreground(det, half, true, table):
    """(h, w) the light fitted on the half-resolution crop ``half`` over ``table`` (``added_light_field``) less
    the light ``true`` the renderer added, and the crop's FOREGROUND bits once the fitted light is taken off."""
    from vision.cloth import FOREGROUND, added_light_field, classify, take_off_light
    model, bright = _cloth_model(det, half)
    found = added_light_field(half, model, bright, table, det.r_half)
    err = np.abs(found.field * np.linalg.norm(found.colour) / np.sqrt(3) - true)
    unlit = take_off_light(half, found)
    model, bright = _cloth_model(det, unlit)
    return err, classify(unlit, model, bright) & FOREGROUND


def test_the_cloth_among_balls_at_a_lit_areas_foot_keeps_its_own_light(synthetic_camera, vision):
    """Three balls (1, 9, 0) at the foot of a projector's lit ellipse (its light falls to 0 there), as in
    the projector condition's seed 400: the plane fitted over 1.5 ball radii, with the cells on the balls
    left out, overshoots the light in the gaps among them by 0.02-0.03 (more than LIGHT_ROBUST), while
    those cloth pixels' own light is about 0. A pixel that shows cloth whose own light is BELOW the fit
    keeps its own however far below (a colour in the plane of the unlit cloth and the light is k u + w l
    for one w: more taken off would leave no cloth colour). Against the light the renderer added: in the
    gaps (1.1-2 ball radii from a centre) 95 % within 0.006 (0.0032 measured; 0.0265 before), and under
    3 % foreground once it is taken off (1.3 %; 17.4 % before, the false ball of that seed lay there)."""
    from vision.camera import pixels_to_table
    sc, det = synthetic_camera[0], vision.detector
    xy = pixels_to_table(sc.cam, np.array([[873.7, 556.3], [848.1, 591.5], [826.2, 579.1]]), sc.R)
    rend = DomainRenderer(sc, Domain(projector=(0.6, 0.5, 0.5, 0.3, 0.3)), seed=0)
    frame = rend.render(TableState([1, 9, 0], xy.tolist()), np.random.default_rng(4))
    u0, v0, u1, v1 = det.crop
    half = cv2.resize(frame.image[v0:v1, u0:u1], det.half_size, interpolation=cv2.INTER_AREA)
    true = cv2.resize(rend.light[v0:v1, u0:u1, 1], det.half_size, interpolation=cv2.INTER_AREA)
    yy, xx = np.mgrid[0:half.shape[0], 0:half.shape[1]]
    table = (det.known > 0) & det.allowed
    d = np.min([np.hypot(xx - u, yy - v) for u, v in (frame.truth.centre_px - (u0, v0) - 0.5) / 2], axis=0)
    gaps = table & (d > 1.1 * det.r_half) & (d < 2.0 * det.r_half)
    err, classes = _light_error_and_foreground(det, half, true, table)
    assert np.percentile(err[gaps], 95) < 0.006
    assert classes[gaps].astype(bool).mean() < 0.03


def test_a_white_ball_on_a_cloth_of_its_own_hue_is_foreground_by_its_brightness():
    """Registered mode's foreground also takes what is brighter than BRIGHTER times the lit cloth: on
    a grey cloth (the gentle domain's (95, 100, 105)) a white ball has the cloth's own hue, so the
    colour test alone leaves it cloth (the gentle misses of issue 21); with BRIGHTER it is
    foreground, while the cloth under a sheen 50 % brighter stays cloth."""
    from vision.cloth import FOREGROUND, classify, fit_cloth
    from vision.detect import BRIGHTER
    rng = np.random.default_rng(2)
    h, w = 80, 120
    img = np.empty((h, w, 3))
    img[:] = (105, 100, 95)
    img[:, 80:] *= 1.5                                        # a sheen over a third of the cloth
    yy, xx = np.mgrid[0:h, 0:w]
    ball = (xx - 40) ** 2 + (yy - 40) ** 2 < 8 ** 2
    img[ball] = (228, 238, 240)                               # the cue ball (BGR), the cloth's hue within 5 deg
    img = np.clip(np.rint(img + rng.normal(0, 1.0, img.shape)), 0, 255).astype(np.uint8)
    v, u = np.mgrid[2:h:5, 2:w:5].reshape(2, -1)
    model = fit_cloth(img[v, u], u, v, 1.0 / w)
    bright = np.full((h, w), model.level, np.float32)
    assert (classify(img, model, bright)[ball] & FOREGROUND).mean() < 0.1
    fg = classify(img, model, bright, brighter=BRIGHTER) & FOREGROUND
    assert fg[ball].mean() > 0.95
    assert fg[:, 84:][~ball[:, 84:]].mean() < 0.01


def _turned(colour: np.ndarray, deg: float) -> np.ndarray:
    """colour (3,) turned by deg degrees about an axis orthogonal to it, same length."""
    u = colour / np.linalg.norm(colour)
    p = np.cross(u, [1.0, 0.0, 0.0])
    p /= np.linalg.norm(p)
    t = np.radians(deg)
    return np.linalg.norm(colour) * (np.cos(t) * u + np.sin(t) * p)


def _angle_level(body: np.ndarray, cloth: np.ndarray) -> tuple[float, float]:
    """(the angle [deg] of a body colour (3,) from a cloth colour (3,), its level: |body| / |cloth|)."""
    return float(hue_angle(body[None], cloth[None])[0]), float(np.linalg.norm(body) / np.linalg.norm(cloth))


def test_a_ball_of_the_cloths_own_colour_is_searched_half_way_to_it():
    """edge_chroma_deg: a ball 7 degrees off the cloth at the cloth's level -> 3.5 degrees; 4 degrees
    off -> the floor EDGE_MIN_DEG; 20 degrees off, or white on a grey cloth (5x as bright), or
    near black (0.2x) -> the usual EDGE_CHROMA_DEG."""
    cloth = np.array([0.02, 0.03, 0.15])
    grey = np.array([0.12, 0.12, 0.12])
    body = np.array([_turned(cloth, 7.0), _turned(cloth, 4.0), _turned(cloth, 20.0), 5.0 * grey, 0.2 * cloth])
    clothes = [cloth, cloth, cloth, grey, cloth]
    deg = [edge_chroma_deg(*_angle_level(b, c), BRIGHT_LINEAR) for b, c in zip(body, clothes)]
    np.testing.assert_allclose(deg, [3.5, EDGE_MIN_DEG, EDGE_CHROMA_DEG, EDGE_CHROMA_DEG, EDGE_CHROMA_DEG], atol=1e-9)


def test_a_far_brighter_ball_of_the_cloths_hue_is_searched_half_way_to_its_brightness():
    """vivid_bright: a body 6 degrees off the cloth at 6x its level -> 3.5 (half-way in level); at 3x
    -> BRIGHT_LINEAR (half-way would be 2); at 2x (a ring's remnant is up to 1.75x) or 20 degrees off
    (the colour step finds it) -> inf."""
    from vision.detect import vivid_bright
    cloth = np.array([0.016, 0.014, 0.133])
    body = np.array([f * _turned(cloth, deg) for f, deg in ((6.0, 6.0), (3.0, 6.0), (2.0, 6.0), (4.0, 20.0))])
    got = [vivid_bright(*_angle_level(b, cloth)) for b in body]
    np.testing.assert_allclose(got, [3.5, BRIGHT_LINEAR, np.inf, np.inf])


def test_a_red_and_an_orange_ball_on_a_maroon_cloth_are_found_under_halo_rings(synthetic_camera, vision):
    """Under halo rings the outline search takes no brightness for ball (the rings' remnants are bright),
    and a red 3 and an orange 5 in the unlit part of a maroon cloth under a tinted projector (JPEG 80: the
    hard condition's frame of seed 5 that lost them) are 6-7 degrees from its colour, under
    EDGE_CHROMA_DEG: no outline point. Searched by their brightness (4-5 times the cloth's,
    ``vivid_bright``), both are found to 1.5 mm, with the yellow 1 and the striped 11, and no false ball."""
    sc, _ = synthetic_camera
    domain = Domain(cloth_srgb=(111, 38, 35), white_balance=(1.06, 0.926, 1.099), gradient=(0.156, 0.296),
                    projector=(0.6, 0.5, 0.5, 0.3, 0.3), projector_rgb=(0.82, 0.82, 1.0), halo=0.6, halo_share=1.0,
                    jpeg_quality=80)
    st = TableState([3, 5, 1, 11], [[1.057, 0.481], [1.022, 0.366], [0.5, 1.8], [0.3, 1.0]])
    frame = DomainRenderer(sc, domain, 0).render(st, np.random.default_rng(4))
    det, _ = vision.detect(frame.image)
    r, c = match(frame.truth.pos, det.xy, sc.R)
    assert sorted(frame.truth.ids[r]) == [1, 3, 5, 11] and len(det) == 4
    assert np.max(np.linalg.norm(frame.truth.pos[r] - det.xy[c], axis=1)) < 0.0015


def test_a_ball_of_the_cloths_hue_under_halo_rings_is_fitted_to_its_darker_limb(synthetic_camera, vision):
    """Under halo rings the outline search takes 8 degrees from the cloth for ball (no low-contrast angle,
    no brightness), so a green 6 on a green cloth (hard seed 5 frame 1's cloth and light, JPEG 80) shows a
    short colour arc by the lamp's highlight, inside its outline: fitted 7.3 mm off before. Clear of its
    neighbours (LIMB_NEAR_SHARE), its darker limb's points (``vision.limbs``, 13 or more) replace that arc:
    found to 3 mm, with the cue ball, and no false ball."""
    sc, _ = synthetic_camera
    domain = Domain(cloth_srgb=(40, 121, 82), gradient=(-0.006, 0.059), projector=(0.6, 0.5, 0.5, 0.3, 0.3),
                    projector_rgb=(0.923, 0.85, 0.911), halo=0.6, halo_share=0.5, sheen=0.2, rail_glints=1.0,
                    exposure=1.16, white_balance=(1.109, 0.951, 0.986), jpeg_quality=80)
    frame = DomainRenderer(sc, domain, 1).render(
        TableState([6, 1], [[0.32, 1.092], [0.8, 1.5]]), np.random.default_rng(1))
    det, _ = vision.detect(frame.image)
    r, c = match(frame.truth.pos, det.xy, sc.R)
    assert sorted(frame.truth.ids[r]) == [1, 6] and len(det) == 2
    assert np.max(np.linalg.norm(frame.truth.pos[r] - det.xy[c], axis=1)) < 0.003


def test_a_colour_much_brighter_than_the_cloth_is_ball():
    """edges.ballness on a grey cloth: its own colour at 0.5-2x is cloth (< 1), at 1.1 BRIGHT_LINEAR
    times it is ball (the cue on a grey cloth has the cloth's hue), as are darker than DARK_LINEAR
    and a colour EDGE_CHROMA_DEG + 1 off."""
    grey = np.array([0.12, 0.12, 0.12])
    tan = np.tan(np.radians(EDGE_CHROMA_DEG))
    lin = np.array([0.5 * grey, 2.0 * grey, 1.1 * BRIGHT_LINEAR * grey, 0.9 * DARK_LINEAR * grey,
                    _turned(grey, EDGE_CHROMA_DEG + 1.0)])
    z = ballness(lin, grey, tan, DARK_LINEAR, BRIGHT_LINEAR)
    assert np.all(z[:2] < 1.0) and np.all(z[2:] >= 1.0)


LIT_RADIUS, LIT_CENTRE, LIT_TO = 12.0, 40.0, 14.5      # px: the ball's outline, its centre, the lit band's outer edge


def _lit_band_frame(ball_lin: np.ndarray, cloth_lin: np.ndarray, white: float) -> np.ndarray:
    """A BGR uint8 image (80, 80, 3): a flat ball disc (linear BGR ball_lin, 4x4 supersampled edge) on
    cloth_lin, with white light ``white`` (linear) added to the cloth between LIT_RADIUS and LIT_TO."""
    sub = (np.arange(80 * 4) + 0.5) / 4
    r = np.hypot(*np.meshgrid(sub - LIT_CENTRE, sub - LIT_CENTRE))
    lin = np.where((r < LIT_TO)[..., None], cloth_lin + white, cloth_lin)
    lin = np.where((r < LIT_RADIUS)[..., None], ball_lin, lin)
    lin = lin.reshape(80, 4, 80, 4, 3).mean(axis=(1, 3))
    return np.clip(np.rint(linear_to_srgb(lin)), 0, 255).astype(np.uint8)


def _outline_radii(image: np.ndarray, cloth_lin: np.ndarray, lit_share: float) -> np.ndarray:
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    outline = LIT_CENTRE + LIT_RADIUS * np.stack([np.cos(ang), np.sin(ang)], axis=1)[None]
    pts, valid = outline_points(image, outline, 3.0, cloth_lin, True, EDGE_MIN_SHARE * np.linalg.norm(cloth_lin),
                                lit_share=lit_share)
    return np.where(valid[0], np.linalg.norm(pts[0] - LIT_CENTRE, axis=1), np.nan)


def test_outline_found_at_the_ball_not_on_whiter_cloth_beside_it():
    """Blue cloth whitened 18 % of the way to white in a band 2.5 px wide round a red ball (and round
    a white one): compared with the cloth's colour alone the band is ball (> EDGE_CHROMA_DEG off) and
    the outline is found out on it (14.5 px measured); with the cloth's colours reaching OUTLINE_LIT
    (20 %) of the way to white it is found at the ball's edge (median 11.94 px for 12, all within
    0.79 px), and a white ball is still no cloth."""
    cloth = srgb_to_linear(np.array([150.0, 85.0, 25.0]))                 # BGR
    c = cloth / np.linalg.norm(cloth)
    towards = np.ones(3) - c.sum() * c
    towards /= np.linalg.norm(towards)
    t_white = towards.sum() / c.sum()
    white = 0.18 * t_white * np.linalg.norm(cloth) / (towards.sum() - 0.18 * t_white * c.sum())   # t = 0.18 t_white
    lit = cloth + white
    assert np.isclose((lit @ towards) / (lit @ c), 0.18 * t_white)
    tan = np.tan(np.radians(EDGE_CHROMA_DEG))
    assert ballness(lit[None], cloth, tan, DARK_LINEAR, np.inf)[0] >= 1.0   # the band differs from the cloth's colour
    assert OUTLINE_LIT > 0.18
    for ball in (srgb_to_linear(np.array([30.0, 30.0, 200.0])), srgb_to_linear(np.array([235.0, 235.0, 235.0]))):
        image = _lit_band_frame(ball, cloth, white)
        plain, lit_aware = _outline_radii(image, cloth, 0.0), _outline_radii(image, cloth, OUTLINE_LIT)
        assert np.nanmedian(plain) > LIT_RADIUS + 2.0                        # out on the whiter cloth
        assert np.isfinite(lit_aware).mean() >= 0.95
        assert abs(np.nanmedian(lit_aware) - LIT_RADIUS) < 0.25 and np.nanmax(np.abs(lit_aware - LIT_RADIUS)) < 1.0


def _discs(colour_bgr: tuple, seed: int = 0, n: int = 4, r: float = 12.8, cell: int = 40, ss: int = 4):
    """(8-bit BGR image, (n*n, 2) centres [px], radius [px], cloth linear BGR): n x n discs of one
    sRGB colour on a green cloth, area-sampled in linear light (ss x ss per pixel) and blurred
    0.5 px, at random sub-pixel centres."""
    rng = np.random.default_rng(seed)
    cloth, ball = srgb_to_linear(np.array([40, 110, 20])), srgb_to_linear(np.array(colour_bgr))
    h = n * cell
    centres = np.array([(cell * (i + 0.5) + rng.uniform(-3, 3), cell * (j + 0.5) + rng.uniform(-3, 3))
                        for j in range(n) for i in range(n)])
    yy, xx = (np.mgrid[0:h * ss, 0:h * ss] + 0.5) / ss - 0.5
    inside = np.zeros((h * ss, h * ss), bool)
    for cx, cy in centres:
        inside |= (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
    a = cv2.GaussianBlur(inside.reshape(h, ss, h, ss).mean(axis=(1, 3)), (0, 0), 0.5)
    image = np.rint(linear_to_srgb(a[..., None] * ball + (1 - a[..., None]) * cloth)).astype(np.uint8)
    return image, centres, r, cloth


def _jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    return cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


def _outline_offsets(image, centres, r, cloth, side):
    """Refined outline points' distance from the true circle [px] (valid ones), searched 1.5 px
    either side of it (the detector's last pass)."""
    ang = np.linspace(0.0, 2 * np.pi, 48, endpoint=False)
    outline = centres[:, None, :] + r * np.stack([np.cos(ang), np.sin(ang)], axis=-1)[None]
    pts, valid = outline_points(image, outline, 1.5, cloth, True, 0.0, None, side=side)
    return (np.linalg.norm(pts - centres[:, None, :], axis=-1) - r)[valid]


def test_a_jpeg_frame_starts_the_outline_search_from_the_ball_colour():
    """Blue and maroon discs through JPEG q60: colour smeared ~2 px out over the cloth puts the first
    step's crossing at 8 degrees from the cloth beyond the refine's reach (+1.7 / +2.1 px measured);
    from BLOCKY_CHROMA_SHARE of the disc's own colour angle (at most BLOCKY_CHROMA_DEG) it is within
    reach (+0.4 / +0.8 px), with every normal still finding the disc."""
    ang = np.linspace(0.0, 2 * np.pi, 48, endpoint=False)
    for colour in ((30, 20, 110), (140, 40, 20)):
        image, centres, r, cloth = _discs(colour)
        outline = centres[:, None, :] + r * np.stack([np.cos(ang), np.sin(ang)], axis=-1)[None]
        own = hue_angle(srgb_to_linear(np.array(colour, float))[None], cloth[None])
        deg = np.clip(BLOCKY_CHROMA_SHARE * own, EDGE_CHROMA_DEG, BLOCKY_CHROMA_DEG)
        crossing = []
        for chroma in (EDGE_CHROMA_DEG, np.full(len(centres), deg[0])):
            pts, valid = outline_points(_jpeg(image, 60), outline, 3.0, cloth, False, 0.0, None, chroma_deg=chroma)
            assert valid.mean() > 0.95
            crossing.append((np.linalg.norm(pts - centres[:, None, :], axis=-1) - r)[valid].mean())
        assert crossing[0] > REFINE_REACH + 0.5 and 0.0 < crossing[1] < REFINE_REACH


def test_block_contrast_tells_a_jpeg_frame():
    """A frame never compressed steps alike across every column; a JPEG one more across its 8x8
    blocks' boundaries (not where the grid is moved off them)."""
    image = _discs((30, 20, 110))[0]
    assert block_contrast(image) < 1.1
    assert block_contrast(_jpeg(image, 60)) > 1.3          # 1.54 measured
    assert block_contrast(_jpeg(image, 60)[:, 4:]) < 1.1


def test_jpeg_frame_tells_half_resolution_colour():
    """At quality 100 JPEG's blocks hardly step, but with 4:2:0 chroma subsampling its colour is
    still at half resolution: the JPEG rules apply. A frame never compressed or encoded with
    full-resolution colour (4:4:4) keeps them off."""
    image = _discs((30, 20, 110))[0]
    full = [cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444]
    q444 = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 100, *full])[1], cv2.IMREAD_COLOR)
    q420 = _jpeg(image, 100)
    assert block_contrast(q420) < BLOCKY_CONTRAST                   # 1.06 measured
    assert half_colour(q420) < 0.3 and min(half_colour(image), half_colour(q444)) > 0.9   # 0.14 / 1.07, 1.09
    assert jpeg_frame(q420) and not jpeg_frame(image) and not jpeg_frame(q444)


def test_wide_refine_finds_a_jpeg_colour_outline():
    """Maroon and blue discs (a step mostly in colour) through JPEG q60: read 1 px either side the
    outline points stay out in the half-resolution colour ramp (+0.73 / +0.63 px measured); read 2 px
    either side first, +0.31 / +0.29 px; on the frame never compressed both are within 0.2 px. A
    white disc (a step mostly in luma, which JPEG keeps sharp) is refined 1 px either side whatever
    the side: the same points."""
    for colour in ((30, 20, 110), (140, 40, 20)):
        image, centres, r, cloth = _discs(colour)
        narrow = _outline_offsets(_jpeg(image, 60), centres, r, cloth, 1.0)
        wide = _outline_offsets(_jpeg(image, 60), centres, r, cloth, 2.0)
        assert narrow.mean() > 0.55 and wide.mean() < 0.4
        for side in (1.0, 2.0):
            assert abs(_outline_offsets(image, centres, r, cloth, side).mean()) < 0.2
    image, centres, r, cloth = _discs((235, 235, 235))
    for im in (image, _jpeg(image, 60)):
        assert _outline_offsets(im, centres, r, cloth, 1.0).size >= 48
        assert np.array_equal(_outline_offsets(im, centres, r, cloth, 1.0), _outline_offsets(im, centres, r, cloth, 2.0))


def test_luma_points_find_the_half_way_step_of_the_luma():
    """A step in grey (luma only) symmetric about x0 = 20.5 (pixels 19..22: 55, 80, 120, 145 between 40
    and 160): from x0 the point stays at x0 (the reads 1 px either side are symmetric about it), from
    half a pixel either side it moves towards x0; dark on bright the same; a step under ``min_step`` gives
    no point."""
    x0 = 20.5
    row = np.full(48, 40.0)
    row[19:23] = (55.0, 80.0, 120.0, 145.0)
    row[23:] = 160.0
    for r in (row, 200.0 - row):
        image = np.repeat(np.repeat(r[None, :, None], 3, axis=2), 9, axis=0).astype(np.uint8)
        nrm = np.array([[[1.0, 0.0]]])
        for start in (x0 - 0.5, x0, x0 + 0.5):
            pts, valid = luma_points(image, np.array([[[start, 4.0]]]), nrm, 1.0, 1.5, 0.5, 2.0, 2)
            assert valid[0, 0] and pts[0, 0, 1] == 4.0
            assert abs(pts[0, 0, 0] - x0) < max(abs(start - x0) - 0.1, 1e-9)
        assert not luma_points(image, np.array([[[x0, 4.0]]]), nrm, 1.0, 1.5, 0.5, 200.0, 2)[1][0, 0]


def test_a_jpeg_frames_outline_moves_towards_the_luma(synthetic_camera, vision, monkeypatch):
    """JPEG q60 frames (colour at half resolution, coarsely quantised; luma sharp): with the last fit's
    outline points moved LUMA_BLEND of the way to the luma's step the centres are closer to the
    renderer's truth (4 frames: 0.88 -> 0.80 mm measured) and no ball is lost; a frame never
    compressed is detected to the bit as without the rule."""
    sc, _ = synthetic_camera
    frames = condition_frames(sc, "jpeg", 4, 2)

    def score():
        err, found = [], 0
        for f in frames:
            det = vision.detect(f.image)[0]
            r, c = match(f.truth.pos, det.xy, sc.R)
            err += list(np.linalg.norm(f.truth.pos[r] - det.xy[c], axis=1))
            found += len(r)
        return np.sqrt(np.mean(np.square(err))), found

    rms, found = score()
    monkeypatch.setattr(detect_module, "LUMA_BLEND", 0.0)
    rms0, found0 = score()
    assert rms < 0.95 * rms0 and found >= found0
    clean = condition_frames(sc, "default", 1, 2)[0].image
    without = vision.detect(clean)[0]
    monkeypatch.setattr(detect_module, "LUMA_BLEND", 1.0)
    assert np.array_equal(vision.detect(clean)[0].xy, without.xy)


def _ball_with_disc(body_bgr: tuple, disc: bool, r: float = 12.8, ss: int = 4):
    """(8-bit BGR image, centre [px], radius [px]): one ball of sRGB colour body_bgr on a green cloth
    (area-sampled in linear light, blurred 0.5 px), with a white disc of radius 4 px centred 8 px to
    its right (a number disc at the limb, 0.8 px of body left outside it) or none."""
    c = np.array([32.3, 31.7])
    yy, xx = (np.mgrid[0:64 * ss, 0:64 * ss] + 0.5) / ss - 0.5
    ball = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 < r * r
    white = ((xx - c[0] - 8) ** 2 + (yy - c[1]) ** 2 < 16) if disc else np.zeros_like(ball)

    def cover(mask):
        return cv2.GaussianBlur(mask.reshape(64, ss, 64, ss).mean(axis=(1, 3)), (0, 0), 0.5)[..., None]
    a, w = cover(ball & ~white), cover(white)
    lin = a * srgb_to_linear(np.array(body_bgr, float)) + w * srgb_to_linear(np.array([235.0, 235.0, 235.0])) \
        + (1 - a - w) * srgb_to_linear(np.array([40.0, 110.0, 20.0]))
    return np.rint(linear_to_srgb(lin)).astype(np.uint8), c, r


def test_white_at_limb_marks_the_points_beside_a_number_disc():
    """A maroon ball with a white disc at its right limb: the outline points (on the true circle) whose
    luma 1.5-2.5 px inside is the disc's are those within ~18 degrees of its direction; none on the ball
    without the disc, nor on a white-bodied ball with it (its body is as bright)."""
    ang = np.linspace(0.0, 2 * np.pi, 48, endpoint=False)
    for body, disc, expect in (((20, 25, 120), True, True), ((20, 25, 120), False, False),
                               ((225, 230, 230), True, False)):
        image, c, r = _ball_with_disc(body, disc)
        pts = c + r * np.stack([np.cos(ang), np.sin(ang)], axis=-1)[None]
        body_luma = luma_of(body_colour(image, c[None], np.array([r])))
        flag = white_at_limb(image, c[None], pts, body_luma)[0]
        if expect:
            near = np.abs(np.angle(np.exp(1j * ang))) < np.radians(20)
            assert flag[0] and flag.sum() >= 3 and not flag[~near].any()
        else:
            assert not flag.any()


def test_a_jpeg_frames_luma_steps_beside_a_white_disc_lie_inside_the_outline(synthetic_camera, vision, monkeypatch):
    """The premise of ``white_at_limb`` on rendered JPEG q60 frames (seed 5's first two): about each
    ball's true outline, the luma's half-way points that it marks lie inside it (-0.79 px on average,
    12 points measured: JPEG smears the disc's dark rim away), the others on it (-0.03 / -0.08 px).
    Dropped from the detector's last fit, those frames' centres are closer to the truth (RMS
    0.94 -> 0.92 mm measured), every ball still found."""
    sc, _ = synthetic_camera
    frames = condition_frames(sc, "jpeg", 2, 5)

    def score():
        err = []
        for f in frames:
            xy = vision.detect(f.image)[0].xy
            r, c = match(f.truth.pos, xy, sc.R)
            err += list(np.linalg.norm(f.truth.pos[r] - xy[c], axis=1))
        return np.sqrt(np.mean(np.square(err))), len(err)
    rms, found = score()
    monkeypatch.setattr(detect_module, "WHITE_LIMB", np.inf)
    rms0, found0 = score()
    monkeypatch.undo()
    assert found == found0 == sum(len(f.truth.pos) for f in frames) and rms < 0.985 * rms0
    marked, others = [], []
    for f in frames:
        P = np.c_[f.truth.pos[:, :2], np.full(len(f.truth.pos), sc.R)]
        outline = sphere_silhouettes(sc.cam, P, sc.R, 48)
        centres = table_to_pixels(sc.cam, P)
        nrm = outline_normals(outline)
        lp, lv = luma_points(f.image, outline, nrm, LUMA_SIDE, LUMA_REACH, EDGE_STEP, LUMA_MIN, 2)
        radii = np.linalg.norm(outline - centres[:, None], axis=-1).mean(axis=1)
        flag = white_at_limb(f.image, outline.mean(axis=1), lp, luma_of(body_colour(f.image, centres, radii)))
        offset = np.sum((lp - outline) * nrm, axis=-1)
        marked += list(offset[flag & lv])
        others += list(offset[~flag & lv])
    assert len(marked) >= 8 and np.mean(marked) < -0.5 and abs(np.mean(others)) < 0.15


def test_the_frames_rho_prior_is_read_from_whole_balls_that_pass_as_balls():
    """``frame_rho``: the median rho of the whole balls within RHO_TOLERANCE of R; a whole ball fitted
    further off (its outline found inside it: on the hard set's seed-5 rack frame the cue ball, the one
    whole ball, at 0.81 R held the rack's other balls there, past the tolerance) is left out; with
    fewer than min_count such balls, R."""
    from vision.detect import RHO_TOLERANCE, frame_rho
    R = 0.028575
    rho = R * np.array([0.81, 0.80, 0.82, 1.02, 0.98, 1.01, 0.60])
    whole = np.array([True, True, True, True, True, True, False])
    assert abs(0.80 - 1) > RHO_TOLERANCE                          # premise: those three fail as balls
    assert frame_rho(rho, whole, R, 3) == np.median(R * np.array([1.02, 0.98, 1.01]))
    assert frame_rho(rho, whole, R, 4) == R


def test_rack_spots_are_where_a_ball_would_touch_two_touching_balls():
    """``rack_spots``: a triangle of 6 touching balls (rows of 1, 2, 3) with its middle row's second ball left out
    gives that ball's spot (it touches 4 of the 5 left); the spots outside the triangle touch 2 or 3 and are
    left out, and none lies within 2R of a ball."""
    from vision.detect import rack_spots
    R = 0.028575
    rows = [(i, j) for i in range(3) for j in range(i + 1)]
    full = np.array([[2 * R * (j - i / 2), 2 * R * i * np.sqrt(3) / 2] for i, j in rows])
    xy = np.delete(full, 2, axis=0)
    p = rack_spots(xy, R, 0.004, 4)
    assert p.shape == (1, 2)
    np.testing.assert_allclose(p[0], full[2], atol=1e-9)
    assert rack_spots(full, R, 0.004, 4).shape == (0, 2)
    assert rack_spots(xy[:1], R, 0.004, 4).shape == (0, 2)
