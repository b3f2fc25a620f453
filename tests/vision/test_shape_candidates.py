"""Balls of the cloth's own hue: candidates from their shape (vision.shape_candidates) and outline
points on their darker limb (vision.limbs), then the registered detector on a rendered frame."""
from __future__ import annotations

import numpy as np

from vision.balls import LINEAR_LUT, linear_to_srgb, srgb_to_linear
from vision.detect import LIMB_CLOTH, LIMB_DEPTH, LIMB_INNER, outline_normals
from vision.limbs import limb_points
from vision.render_domain import condition_frames
from vision.shape_candidates import VOTING_FLOOR, shape_candidates, voting_share

CLOTH_BGR = (50, 125, 45)        # 8-bit sRGB, BGR


def _lambert_ball(h, w, centre, r, gain, rng, noise=0.0, sub=8):
    """A BGR uint8 image of a cloth of CLOTH_BGR (with Gaussian 8-bit noise) and a ball of the cloth's own
    colour: a Lambertian sphere under a light at the viewer, seen from above (linear level gain * n_z of
    the cloth's, n_z = sqrt(1 - (d / r)^2): darkest at its limb), each pixel the mean of sub x sub samples."""
    cloth = srgb_to_linear(np.array(CLOTH_BGR, np.float64))
    off = (np.arange(sub) + 0.5) / sub - 0.5
    yy = np.arange(h)[:, None, None, None] + off[None, None, :, None]
    xx = np.arange(w)[None, :, None, None] + off[None, None, None, :]
    d2 = ((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / r ** 2
    level = np.where(d2 < 1.0, gain * np.sqrt(np.clip(1.0 - d2, 0.0, 1.0)), 1.0).mean(axis=(2, 3))
    img = linear_to_srgb(level[..., None] * cloth) + rng.normal(0.0, noise, (h, w, 3))
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def test_limb_points_lie_on_the_outline_of_a_ball_of_the_cloths_colour():
    """A Lambertian ball of the cloth's colour (1.3x its level at the centre, dark at the limb): the limb
    points found from an outline predicted 1 px off lie within a pixel of the true outline, and a circle
    through them has the ball's centre to 0.1 px (their offset is the same all round)."""
    rng = np.random.default_rng(3)
    centre, r = np.array([40.3, 38.7]), 12.4
    img = _lambert_ball(80, 80, centre, r, 1.3, rng)
    t = np.linspace(0.0, 2.0 * np.pi, 48, endpoint=False)
    guess = centre + [0.7, -0.7]
    outline = (guess + r * np.stack([np.cos(t), np.sin(t)], axis=1))[None]
    cloth = srgb_to_linear(np.array(CLOTH_BGR, np.float64))[None]
    pts, valid = limb_points(img, LINEAR_LUT, outline, outline_normals(outline), 3.0, 0.5, cloth, LIMB_DEPTH,
                             *LIMB_CLOTH, LIMB_INNER)
    p = pts[0][valid[0]]
    assert valid.sum() >= 44
    dist = np.linalg.norm(p - centre, axis=1)
    assert np.all(np.abs(dist - r) < 1.0)
    A = np.concatenate([2 * p, np.ones((len(p), 1))], axis=1)          # circle: |p|^2 = 2 c.p + k
    c = np.linalg.lstsq(A, np.sum(p * p, axis=1), rcond=None)[0][:2]
    assert np.linalg.norm(c - centre) < 0.1


def test_a_bright_mark_at_the_limb_gives_no_point_out_in_the_cloth():
    """Where a number's disc or a reflection lies on the limb, the lowest level along that line would
    be out in the cloth: no point there (the limb stays darker than the cloth inward)."""
    rng = np.random.default_rng(4)
    centre, r = np.array([40.0, 40.0]), 12.0
    img = _lambert_ball(80, 80, centre, r, 1.3, rng)
    img[50:53, 36:45] = 235                                   # a white mark across the lower limb
    t = np.linspace(0.0, 2.0 * np.pi, 48, endpoint=False)
    outline = (centre + r * np.stack([np.cos(t), np.sin(t)], axis=1))[None]
    cloth = srgb_to_linear(np.array(CLOTH_BGR, np.float64))[None]
    pts, valid = limb_points(img, LINEAR_LUT, outline, outline_normals(outline), 3.0, 0.5, cloth, LIMB_DEPTH,
                             *LIMB_CLOTH, LIMB_INNER)
    under = np.abs(t - np.pi / 2) < 0.25                      # the lines through the mark
    assert not valid[0, under].any()
    assert valid[0, ~under].sum() >= 36


def _cloth_inputs(img):
    h, w = img.shape[:2]
    chroma = np.array(CLOTH_BGR, np.float64) / np.linalg.norm(CLOTH_BGR)
    bright = np.full((h, w), float(np.linalg.norm(CLOTH_BGR)), np.float32)
    return np.ones((h, w), bool), np.ones((h, w), bool), np.full((h, w), 6.4, np.float32), chroma, bright


def test_a_ball_of_the_cloths_colour_gets_a_candidate_from_its_shape():
    """Half resolution (radius 6.4 px), cloth with 8-bit noise of 2 levels: one candidate within 1 px of
    the ball's centre; none on the same cloth without the ball, none where the ball was found already."""
    rng = np.random.default_rng(5)
    centre = np.array([60.4, 35.6])
    img = _lambert_ball(70, 120, centre, 6.4, 1.3, rng, noise=2.0)
    voters, allowed, radius, chroma, bright = _cloth_inputs(img)
    found = shape_candidates(img, voters, allowed, radius, np.zeros((0, 2)), chroma, bright)
    assert found.shape == (1, 2)
    assert np.linalg.norm(found[0] - centre) <= 1.0
    assert shape_candidates(img, voters, allowed, radius, centre[None], chroma, bright).shape[0] == 0
    plain = _lambert_ball(70, 120, centre, 0.01, 1.3, np.random.default_rng(5), noise=2.0)
    assert shape_candidates(plain, voters, allowed, radius, np.zeros((0, 2)), chroma, bright).shape[0] == 0


def test_voting_share_is_the_share_of_the_outline_on_voting_pixels():
    """A circle of radius 6.4 px: all of it on voters, none of it, and half of it beside a straight edge
    through its centre (the share of RING_SAMPLES points, so within two samples of 0.5)."""
    voters = np.ones((70, 120), bool)
    radius = np.full((70, 120), 6.4, np.float32)
    pts = np.array([[60.0, 35.0]])
    assert voting_share(voters, pts, radius)[0] == 1.0
    assert voting_share(~voters, pts, radius)[0] == 0.0
    voters[:, 61:] = False
    assert abs(voting_share(voters, pts, radius)[0] - 0.5) <= 2 / 64
    assert voting_share(voters, np.array([[200.0, 35.0]]), radius)[0] == 0.0     # off the array: no vote


def test_a_ball_against_a_cushion_gets_a_candidate_from_the_outline_that_may_vote():
    """The ball of the test above with a cushion's line over most of its outline (its pixels do not vote:
    0.36 of the outline left, so 3.1 votes where the whole outline gave 8.4, under SHAPE_VOTES): one
    candidate within 1 px of its centre, as a frozen ball's; none with a third of that share (below
    VOTING_FLOOR, 0.23), nor without the ball."""
    rng = np.random.default_rng(5)
    centre = np.array([60.4, 35.6])
    img = _lambert_ball(70, 120, centre, 6.4, 1.3, rng, noise=2.0)
    voters, allowed, radius, chroma, bright = _cloth_inputs(img)
    voters[:, 58:] = False
    assert 0.3 < voting_share(voters, centre[None], radius)[0] < 0.4
    found = shape_candidates(img, voters, allowed, radius, np.zeros((0, 2)), chroma, bright)
    assert found.shape == (1, 2)
    assert np.linalg.norm(found[0] - centre) <= 1.0
    voters[:, 56:] = False
    assert voting_share(voters, centre[None], radius)[0] < VOTING_FLOOR
    assert shape_candidates(img, voters, allowed, radius, np.zeros((0, 2)), chroma, bright).shape[0] == 0
    plain = _lambert_ball(70, 120, centre, 0.01, 1.3, np.random.default_rng(5), noise=2.0)
    voters[:, 56:58] = True
    assert shape_candidates(plain, voters, allowed, radius, np.zeros((0, 2)), chroma, bright).shape[0] == 0


def test_a_rendered_ball_of_the_cloths_hue_is_found(synthetic_camera, vision):
    """The gentle condition's set from seed 5 (a rack, 3 random layouts; `cuerobot bench vision --domain
    gentle --seed 5`): in its last frame a green 6 lies on a cloth that white balance brought onto its hue
    (its pixels 2.2-3.8 degrees from the cloth's, so no foreground and no candidate from colour). Its
    shape gives it one and its darker limb its outline: found 0.45 mm from the truth, every ball of the
    set (51; 50 before, the 6 with no candidate), no false ball, all named."""
    sc, _ = synthetic_camera
    frames = condition_frames(sc, "gentle", 4, 5)
    found = balls = 0
    for k, f in enumerate(frames):
        det, obs = vision.detect(f.image)
        d = np.linalg.norm(f.truth.pos[:, None] - det.xy[None], axis=2)
        assert np.all(d.min(axis=0) <= sc.R)                  # no false ball
        hit = d.min(axis=1) <= sc.R
        found, balls = found + hit.sum(), balls + len(hit)
        for i in np.flatnonzero(hit):
            assert obs[int(d[i].argmin())].ball_id == f.truth.ids[i]
    assert found == balls
    f = frames[3]
    det, _ = vision.detect(f.image)
    six = f.truth.pos[list(f.truth.ids).index(6)]
    assert np.linalg.norm(det.xy - six, axis=1).min() <= 0.0006


def test_a_ball_of_the_cloths_hue_found_from_colour_takes_its_darker_limb(synthetic_camera, vision):
    """The same frame under the lit_sheen condition (a projector's light taken off, sheen): the green 6, touching
    two balls, now gets a candidate from colour (the sheen whitens its rim) and is searched for its own small
    angle from the cloth (``edge_chroma_deg``), unrefined; on one side its body near the limb is under that angle,
    so those points lie ~2 px inside it, and the fit was 4.2 mm off (20 points, 0.61 px). Its darker limb
    (``vision.limbs``) has more points than its colour (30 / 25 / 26 against 24 / 21 / 21 per pass) and replaces
    them: measured 0.49 mm; every other ball of the frame within 2 mm."""
    sc, _ = synthetic_camera
    f = condition_frames(sc, "lit_sheen", 4, 5)[3]
    det, _ = vision.detect(f.image)
    err = np.linalg.norm(det.xy[:, None] - f.truth.pos[None], axis=2).min(axis=0)
    assert err[list(f.truth.ids).index(6)] <= 0.001, err
    assert np.all(err < 0.002), err


def _pale_ball(h, w, centre, r, cloth_bgr, ball_bgr, rng, noise, sub=8):
    """A BGR uint8 image of a flat cloth of cloth_bgr and a flat disc of ball_bgr (8-bit sRGB, each pixel the
    mean of sub x sub samples), with Gaussian 8-bit noise."""
    off = (np.arange(sub) + 0.5) / sub - 0.5
    yy = np.arange(h)[:, None, None, None] + off[None, None, :, None]
    xx = np.arange(w)[None, :, None, None] + off[None, None, None, :]
    inside = ((((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) < r * r).mean(axis=(2, 3)))[..., None]
    img = inside * np.array(ball_bgr, float) + (1 - inside) * np.array(cloth_bgr, float)
    return np.clip(np.rint(img + rng.normal(0.0, noise, (h, w, 3))), 0, 255).astype(np.uint8)


def test_a_pale_ball_brighter_than_a_grey_cloth_gets_a_candidate_from_its_shape():
    """A lilac ball washed pale by a sheen on a grey cloth (the lit_sheen seed-41 4: 4-5.7 degrees from the
    cloth's colour in 8-bit BGR, under the foreground's 5, and a little brighter, so no pixel dimmer than DIM of
    the cloth): its pixels off the cloth's hue by more than SEED_HUE_DEG let its edges vote, one candidate within
    1 px of its centre; none on the same cloth without it (its noise of 2 levels stays under that angle), none
    for a disc of the cloth's colour as bright (no pixel off its hue, none dim)."""
    from vision.shape_candidates import DIM, SEED_HUE_DEG
    cloth, ball = (165, 175, 170), (190, 168, 185)
    ang = np.degrees(np.arccos(np.dot(cloth, ball) / (np.linalg.norm(cloth) * np.linalg.norm(ball))))
    assert SEED_HUE_DEG < ang < 5.0 and np.linalg.norm(ball) > np.linalg.norm(cloth)    # the premise
    centre = np.array([60.4, 35.6])
    img = _pale_ball(70, 120, centre, 6.4, cloth, ball, np.random.default_rng(6), 2.0)
    voters, allowed, radius, _, _ = _cloth_inputs(img)
    chroma = np.array(cloth, np.float64) / np.linalg.norm(cloth)
    bright = np.full(img.shape[:2], float(np.linalg.norm(cloth)), np.float32)
    assert (img.astype(float) @ chroma >= DIM * bright).all()                              # no dim pixel
    found = shape_candidates(img, voters, allowed, radius, np.zeros((0, 2)), chroma, bright, grey=True)
    assert found.shape == (1, 2)
    assert np.linalg.norm(found[0] - centre) <= 1.0
    for other in (cloth, tuple(1.06 * np.array(cloth))):
        plain = _pale_ball(70, 120, centre, 6.4, cloth, other, np.random.default_rng(6), 2.0)
        none = shape_candidates(plain, voters, allowed, radius, np.zeros((0, 2)), chroma, bright, grey=True)
        assert none.shape[0] == 0
    assert shape_candidates(img, voters, allowed, radius, np.zeros((0, 2)), chroma, bright).shape[0] == 0   # not grey


def test_a_pale_ball_on_a_grey_cloth_is_found_from_its_shape_and_colour(synthetic_camera, vision):
    """lit_sheen seed 41 frame 13 (`cuerobot bench vision --domain lit_sheen --seed 41`): a lone purple 4 washed
    pale by the sheen on a grey cloth, 4-5.7 degrees from the cloth's colour in 8-bit BGR (no foreground) and no
    dimmer than it (no dim seed), had no candidate. Its pixels off the grey cloth's hue seed its shape's votes (7.9,
    SHAPE_VOTES 3.5); its body is not darker at its limb (the limb search finds 0 points, its colour 47), so its
    colour's points are kept: found 1.07 mm from the truth (its outline found a little inside), named 4, every
    ball of the frame found and no false ball."""
    sc, _ = synthetic_camera
    f = condition_frames(sc, "lit_sheen", 14, 41)[13]
    det, obs = vision.detect(f.image)
    d = np.linalg.norm(f.truth.pos[:, None] - det.xy[None], axis=2)
    assert np.all(d.min(axis=0) <= sc.R) and np.all(d.min(axis=1) <= sc.R)
    four = d[list(f.truth.ids).index(4)]
    assert four.min() <= 0.0015
    assert obs[int(four.argmin())].ball_id == 4
