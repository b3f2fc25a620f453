"""A sheen left on the cloth where a projector's light is taken off (``TableDetector.refine``, ``unlit``)."""
from __future__ import annotations

from vision.evaluate import match
from vision.render_domain import condition_frames


def test_ball_of_cloth_hue_in_a_sheen_found_once_the_light_is_off(synthetic_camera, counted):
    """The lit_sheen condition's seed 5 frame 14 (``condition_frames`` seed 8, third frame): a red 3 on a burgundy
    cloth (7.7 deg from the cloth's colour once the light is off, its limb 1.6-2.5 times the cloth: neither colour
    nor brightness tells it) inside a sheen's blob, which the light's model does not hold: the cloth about the ball,
    darkened by its shadow under the sheen's white, reads 10-25 deg from the cloth's colour, so no search line's outer
    end was cloth (15 of 48 points, then 6: dropped). With the sheen's white allowed on the cloth (OUTLINE_LIT) the
    3 is measured within 1 mm (0.55), every other ball is found, and no false ball."""
    sc, _ = synthetic_camera
    c = counted(condition_frames(sc, "lit_sheen", 3, 8)[2], 3)
    assert c.matched == c.balls == c.detected
    assert c.off < 0.001


def test_an_empty_gap_among_loose_balls_is_no_ball(synthetic_camera, vision):
    """The lit_sheen condition's seed 77 frame 5 (``condition_frames`` seed 78, second frame): a green 14 on a green
    cloth beside a gap among the 7, the 6 and the 5. A candidate there was placed by its contacts with them into the
    gap, whose body is the cloth itself (1.6 degrees from its colour, level 1.02): a false ball that took the 6's
    id (the 6 then the 14's). A ball placed by its contacts shows its body, not its cloth (``cloth_body``): no false
    ball, every ball found (the 14 too, since the gap's outline-less fit hides none of its lines: HOLLOW_SHARE), and
    each named by its number. Seed 400 frame 0's rack (``condition_frames`` seed 400, first
    frame) on a burgundy cloth keeps its maroon 7, placed by its contacts (its median body 2.7 degrees from the
    cloth, but its shaded side 9.8): every ball found."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "lit_sheen", 2, 78)[1]
    det, obs = vision.detect(frame.image)
    rows, cols = match(frame.truth.pos, det.xy, sc.R)
    assert len(cols) == len(det) == len(frame.truth.ids)
    assert [obs[c].ball_id for c in cols] == [int(frame.truth.ids[r]) for r in rows]
    frame = condition_frames(sc, "lit_sheen", 1, 400)[0]
    det, _ = vision.detect(frame.image)
    rows, cols = match(frame.truth.pos, det.xy, sc.R)
    assert len(cols) == len(det) == len(frame.truth.ids)


def test_a_sheens_edge_on_open_cloth_is_no_ball_from_shape(synthetic_camera, vision):
    """The lit_sheen condition's seed 400 frame 13 (``condition_frames`` seed 403, second frame): a shape candidate on
    open cloth at a sheen's edge fitted a circle to 20 limb points all on one side (span 0.42 of a circle whose whole
    outline may vote). A ball of the cloth's hue is a sphere shaded all round, its darker limb spanning SHAPE_SPAN of
    what may vote: no false ball, every ball found still found."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "lit_sheen", 2, 403)[1]
    det, _ = vision.detect(frame.image)
    rows, cols = match(frame.truth.pos, det.xy, sc.R)
    assert len(cols) == len(det) == len(frame.truth.ids)


def test_a_sheens_streak_beside_a_ball_hides_none_of_its_outline(synthetic_camera, counted):
    """The lit_sheen condition's seed 5 frame 13 (``condition_frames`` seed 8, second frame): a green 6 between the 4
    and the 11 inside a sheen's streak on a blue cloth. Four candidates on the streak about it (its cloth's hue
    within 3.2-8.6 degrees, at 1.05-1.21 of its level) found 0-2 outline points on 22-37 search lines clear of
    neighbours, yet their circles ended 35 of the 6's 48 search lines: 7, 8, then 13 points, 0.88 px rough, dropped.
    A fit with no outline and a body of its cloth lit brighter hides no neighbour's lines in the next pass
    (HOLLOW_SHARE): the 6 is found (26 points; 3.3 mm off, its lower arc on its shadow under the streak), every
    other ball is found, and no false ball."""
    sc, _ = synthetic_camera
    c = counted(condition_frames(sc, "lit_sheen", 2, 8)[1], 6)
    assert c.matched == c.balls == c.detected
    assert c.off < 0.004


def test_a_gap_among_balls_in_their_shade_hides_none_of_their_outlines(synthetic_camera, counted):
    """The lit_sheen condition's seed 77 frame 5 (``condition_frames`` seed 78, second frame): a green 14 on a green
    cloth beside a gap among the 7, the 6 and the 5. A fit in the gap found no outline point on 12-15 search lines
    clear of its neighbours, its body the cloth's hue (2.4 degrees) in their shade (0.94 of its level, under the
    1.0 floor of a sheen's streak), and its circle hid the 14's lines: the 14 lost. A fit with no outline point at
    all and a body of its cloth's hue at SPOT_DARK or more of its level hides none (HOLLOW_SHARE): the 14 is found
    within 1 mm (0.47), every other ball found, no false ball. Seed 30 frame 14 (``condition_frames`` seed 33, third
    frame) keeps its white-bodied 10 by a cushion, whose neighbours on the sheen (0.97-1.02 of their cloth's level)
    found 2-3 points each: a floor of SPOT_DARK for them too let the 10's lines run onto the sheen (1.08 px: lost)."""
    sc, _ = synthetic_camera
    c = counted(condition_frames(sc, "lit_sheen", 2, 78)[1], 14)
    assert c.matched == c.balls == c.detected
    assert c.off < 0.001
    c = counted(condition_frames(sc, "lit_sheen", 3, 33)[2], 10)
    assert c.matched == c.balls == c.detected
    assert c.off < 0.001
