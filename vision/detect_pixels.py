"""Balls in any overhead image, given only their approximate radius in pixels (no camera model).

The stages are the calibrated detector's (``vision.detect``), with what the table model gave found
in the image instead (the reason for each is in docs/vision.md):

0. ``remove_thin_lines`` (``vision.thin_lines``): thin lines of added light (a projector's halo
   rings) give way to the surface under them, at half resolution for the stages 1-4 and, round
   the pixels changed there inside the play area, at full resolution for the outline points;
1. ``fit_cloth`` on a sparse grid of the whole image (the cloth is the dominant colour), and
   ``classify`` every half-resolution pixel: cloth, foreground, dark; where the cloth's colour is given as
   calibrated and the frame's has drifted from it, the frame brought back to it first (``vision.white_balance``);
2. the play area (``vision.play_area``): the quadrilateral of the four rail lines, fitted to the
   outline of the largest cloth-coloured region and squared up (it takes in the jaws and the
   balls in them, and leaves out the rails with their diamonds and markers); where a tinted
   projector's lit area is the commonest colour and the unlit cloth round it is foreground (``_two_tone``: many
   samples near the cloth's colour off its wedge, or a play area without a pocket at every corner), the lit
   wedge turned towards the unlit cloth's colour holds it too, and the play area is found again; where it has no
   four sides with a pocket at each corner and no lit wedge, the frame evened out to one cloth colour
   (``_evened_ground``, ``vision.colour_drift``: a camera's colour shading took a strip of the cloth past the
   foreground's angle) is searched from stage 0 instead where its play area has them;
3. ``hole_mask``: dark regions at least a ball wide (pocket holes), where no centre can be (on a
   frame with halo rings, a ring's line across a hole bridged first); a side of the play area that lies
   out beyond its rail (a rail lit into the cloth's colour) is moved onto its corner pockets
   (``within_pockets``);
   on a frame without halo rings (fewer than RINGED line pixels in the play area): where the
   commonest cloth colour is a projector's lit one (its lit wedge runs away from white), the
   light is fitted over the play area and taken off (``vision.cloth.added_light_field``, as in
   the registered mode) before stage 1's classes are made again, and off the full frame about
   the candidates; on a grey cloth (no lit wedge) pixels over GREY_BRIGHTER times its lit surface
   (``vision.cloth.lit_surface``) are foreground too (a white ball has a grey cloth's colour), and so
   under a projector's light with halo rings, off the rings' lines and the play area's edge
   (``_off_rings_and_sides``);
4. ``candidates`` (``vision.candidates``): radial-symmetry peaks in foreground (one radius); by the
   pockets, where the play area's side lies on a shaded cushion's nose, also in the jaws beyond it
   (``jaw_candidates``: a ball there has its centre outside the play area), fitted after stage 5's
   fits about them and their neighbours (``_with_jaw_fits``, where their inside is unlike cloth);
5. ``outline_fits``: outline points at the strongest colour step along 48 normals
   (``vision.steps``), three passes narrowing the band (SEARCH_WIDTHS), a robust circle fit
   after each (``fit_circles``); only fits still taken for balls stop their neighbours' normals;
   the narrower passes about a fitted circle take weaker steps (WEAK_STEP: the low-contrast
   outline of a ball of the cloth's hue, a green ball on green cloth); on a frame with halo rings
   the rings are found as circles (``vision.halo_rings.line_rings``) and, from the second pass,
   the points on their arcs about other centres are left out (``_on_rings``) and a fit mostly on
   them is dropped; a fit smaller than a ball and white inside (a stripe's cap, a number disc) is
   fitted again to the steps outside it (``_outside_markings``);
6. acceptance: enough consistent outline points (or, for a ball hemmed in by balls, most of
   the search lines they left it: HEMMED_SHARE), a small residual (smaller, WEAK_RMS, when fewer
   than MIN_POINTS of them are steps of MIN_STEP), a radius near the expected one,
   an inside that is mostly not cloth (``unlike_cloth``; less of it for a very round fit, a ball
   of the cloth's hue; with a pocket's rim and liner, RIM radii
   about its hole, counted as cloth: no circle on a cushion's shadow line, a liner or a rim; for a
   very round fit, or one whose inside off that rim is all unlike cloth, the share of its inside off
   that rim: a black ball in a pocket's mouth), and
   no overlap with a better-supported ball (but two fits leaned into each other from candidates
   nearly two radii apart: touching balls); the candidates refused that lie apart from every fit
   are fitted to their darker limb (``vision.limbs``, the registered mode's search for a ball of
   the cloth's hue: a dark green ball on green cloth, whose inside passes for cloth); a candidate
   the fits hem in (a rack's inner ball) is placed where it touches them (``_with_contact_balls``,
   the registered mode's ``place_by_contacts``); where four or more fits touch (a rack), the spots
   touching two touching fits are searched too (``_with_lattice_balls``: a rack's ball with no candidate);
   and a lamp's highlight (``lit_by_lamps``: a ball's
   shadow and a pocket's lit back wall seen between the jaws are matte; ``in_a_pack``: less of one for a ball
   among balls, whose highlight may be hidden; none, off the pockets, for a fit round all the way, WHOLE_POINTS:
   a shadow shows part of a circle; ``lit_fits``: a ball dropped
   for overlapping a fit without one is taken again; where stage 3 took a projector's light off, a brighter
   one, UNLIT_GLINT: a sheen's white light, left on, lights pockets and rails to about the unlit cloth); no fit
   at a pocket mostly on a straight edge (``on_straight_edges``) and none reaching over a side with part of its
   inside cloth (``over_the_rails``); where stage 3 took the light off, none whose body is its cloth with white
   light added (``vision.detect.white_added``: a sheen's remnant) nor its cloth's colour with a dull
   highlight (``sheen_bodied``: one too faint for that);
7. ``clear_of_intruders`` (``vision.intruders``, as in the registered mode): no fit on a hand or
   an arm, the foreground (off the pockets and their rims) that reaches in over the play area's
   edge with an arm's core;
8. on a frame with halo rings and a projector's light over most of its cloth (its lit wedge runs away from
   white), as in the registered mode: the light under the rings (``vision.detect.light_under_rings``) taken
   off the frame and stages 0-7 run again on it; the balls only that search finds are added where
   ``added_kept`` holds them to be balls (the black and dark balls the light washed into the lit cloth's
   colour).

Centres are the outline circles' centres (with perspective, the outline's centre, not the ball's).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from planner.jit import njit
from vision.balls import LINEAR_LUT
from vision.candidates import Votes, _apart, candidate_peaks, candidate_votes, distinct, known_sums
from vision.cloth import (
    CLOTH,
    FOREGROUND,
    AddedLight,
    ClothModel,
    classify,
    fit_cloth,
    grey_cloth,
    hole_mask,
    light_taken_off,
    lit_surface,
    take_off_light,
    unlike_shares,
    unlit_light,
    unlit_samples,
)
from vision.colour_drift import colour_field, evened
from vision.detect import (
    BRIGHTER,
    CONTACT_MIN,
    CONTACT_SEEK,
    DARK_LINEAR,
    EDGE_CHROMA_DEG,
    EDGE_MIN_DEG,
    EDGE_STEP,
    GREY_BRIGHTER,
    LIMB_CLOTH,
    LIMB_DEPTH,
    LIMB_INNER,
    MIN_EDGES_PIXELS,
    OUTLINE_RINGS,
    RMS_MAX_PX,
    RMS_MAX_SHARE,
    SHAPE_GAP,
    SHORT_FILL,
    Detections,
    _empty,
    _inside_others,
    body_against_cloth,
    dark_body_alike,
    dim_body_unlike,
    halved,
    light_under_rings,
    local_cloth,
    near_neighbours,
    near_points,
    place_by_contacts,
    white_added,
)
from vision.detect import SEARCH_WIDTHS as LIMB_WIDTHS
from vision.exposure import exposed
from vision.fits import CIRCLE_ITERS, _fit_circles, fit_circles
from vision.glints import glints
from vision.halo_rings import line_rings
from vision.intruders import clear_of_intruders, reach_in_band
from vision.jaws import JAW_NEAR, jaw_candidates
from vision.limbs import limb_circles
from vision.play_area import area_mask, area_polygon, cloth_region, corner_pockets, within_pockets
from vision.steps import N_RAYS, STEP, SmoothedNear, _step_points, ray_directions, step_points
from vision.thin_lines import remove_thin_lines
from vision.white_balance import bring_back, unit_bgr

SEARCH_WIDTHS = (6.0, 3.0, 2.0)   # px either side of the circle, per pass
SMOOTH_SIGMA = 1.0                 # px, Gaussian smoothing before the colour derivative
SHADE_WEIGHT = 0.5                 # a step along the cloth's colour (shade) weighs this much of a colour change
MIN_STEP = 8.0                     # weakest colour step accepted in the first pass (8-bit units per half pixel)
WEAK_STEP = 5.0                    # ... and in the narrower passes about a fitted circle (a ball of the cloth's hue)
WEAK_RMS = 0.85                    # px, residual RMS limit of a ball with fewer than MIN_POINTS points of MIN_STEP
RADIUS_TOLERANCE = 0.3             # a fitted radius within this share of the given one
SPARE_SIZE = 0.15                  # ... and a fit taken again after the one that beat it went, this share (the
                                   # real dark ball 0.02; a circle on a rendered rail's glint bar 0.20)
MIN_POINTS = 12                    # consistent outline points a ball needs (of 48)
MIN_ALIVE = 6                      # ... and a fit needs after each pass to stay a candidate
HEMMED_SHARE = 0.6                 # ... or, with at least MIN_ALIVE, this share of its search lines that no ball
                                   # taken stopped (rendered rack balls: 0.65-1.0 of 7-17 free lines; fits off
                                   # balls at most 0.39 of 23-48; real fits none from 0.44 to 0.79)
APART = 1.5                        # accepted balls' centres at least this many radii apart (no overlap) ...
START_APART = 1.8                  # ... unless their candidates were this many radii apart and the fit dropped
PULLED_SUPPORT = N_RAYS / 2        # has this support (points times the share unlike cloth): two touching balls'
                                   # fits leaned into each other (rendered rack balls lost: candidates 1.91-1.96
                                   # radii apart, support 24.5-30; real spares off balls: at most 21 from 1.8)
RIM = 0.5                          # a pocket's rim and liner: within this many radii of its hole
RMS_MAX = 1.25                     # px, circle-fit residual RMS of a ball
UNLIKE_SHARE = 0.4                 # at least this share of a ball's inside is unlike cloth (``unlike_cloth``)
ROUND_RMS = 0.5                    # px: a fit this round needs only ...
ROUND_SHARE = 0.25                 # ... this share unlike cloth (a green ball on green cloth)
GRID_CELLS = 40                    # cloth samples along the image's shorter side
LINE_REACH = 0.35                  # ball radii: thin lines of added light (halo rings) this far across go
RINGED = 80                        # half-resolution pixels on thin lines inside the play area: a frame with halo
                                   # rings (without: rendered <= 42, real dev frames <= 29; with: rendered >= 117,
                                   # the real halo frames 1399-1469)
LIMB_GAP = SHAPE_GAP               # a candidate searched for its darker limb (a ball of the cloth's hue) lies this many
                                   # radii from every fit (as the registered mode's candidates from shape)
LIMB_TOUCHING = 2                  # a limb fit touching at least this many fits (TOUCHING), on a frame without halo
                                   # rings, needs only MIN_ALIVE points (a ball at a rack's edge: its neighbours end its
                                   # limb search; rendered such fits 6-21 points, all on balls; halo rings' arcs between
                                   # two real ringed balls passed too)
JAW_SEEN = 1 / 3                   # a very round fit's inside may be judged on its samples off a pocket's rim, over
                                   # at least this share of them (a black ball in a pocket's mouth; 0.02: one false
                                   # ball more under the hard options, seed 5) ...
JAW_FULL = 0.9                     # ... and so may a fit below RMS_MAX whose samples off the rim are at least this
                                   # share unlike cloth (the black 8 in a pocket's mouth, its fit on the liner's edge
                                   # too: all of them; a circle on a drawn-over real pocket 0.48)
AT_POCKET = 1.25                   # ball radii from a pocket hole's nearest pixel to a centre at a pocket (the real
                                   # back walls' fits 0.6-0.9)
GLINT = 1.0                        # a ball at a pocket: its highlight at least this many times the lit cloth's
                                   # brightness, each pixel's strongest channel (balls at a pocket: real >= 1.58,
                                   # rendered >= 1.20; the back walls 0.74-0.91) ...
WHITE_GLINT = 0.87                 # ... and every ball: this many times, the mean of the channels (a lamp's white
                                   # mirror image; real balls >= 0.92, rendered >= 1.32 on seeds 5 and 41; balls'
                                   # shadows 0.70-0.75, where a red ball's body passes the strongest channel) ...
UNLIT_GLINT = 1.35                 # ... where stage 3 took a projector's light off, this many (rendered lit_jpeg:
                                   # balls >= 1.44, projector >= 2.09; circles on pockets and rails a sheen lit
                                   # 0.91-1.28 times the unlit cloth, seeds 5 and 41) ...
SHEEN_GLINT = 1.7                  # ... and there a fit whose body is its cloth (``sheen_bodied``) this many (rendered
                                   # lit_sheen, lit_jpeg, projector, seeds 5 and 41: such balls >= 2.06; a sheen's
                                   # remnant on plain cloth 1.39; seed 400's, the fresh check, 1.42) ...
SHEEN_LEVEL = 0.8                  # ... from this share of its cloth's level up (the remnants 0.98-1.15; balls
                                   # whose body is within 20 degrees of their cloth's at 0.8-2 times its level:
                                   # highlights >= 2.06); a highlight: ``vision.glints``
PACK_GLINT = 0.7                   # a fit in a pack (touching PACK_TOUCHING fits that hold a highlight, no halo rings,
                                   # its inside at least LATTICE_SHARE unlike cloth) needs this share of that highlight:
                                   # a ball whose highlight is hidden (the 8 balls of the cleaned projector-off frames
                                   # whose highlight the drawing covered: 0.79-0.90; of the fits the test refused
                                   # that touch 2 fits it passed, rendered: a pocket's hole 0.32, a ring's arc 0.99
                                   # (under rings); real: none) ...
PACK_TOUCHING = 2
WHOLE_POINTS = 42                  # ... and off the pockets a fit round all the way (this many of N_RAYS points, ...
WHOLE_RMS = 0.6                    # ... RMS below this [px]) needs none: a shadow shows the part of a circle its ball
                                   # leaves, a pocket's back wall the part between the jaws (the fits the test refused
                                   # that are no ball, real and rendered: at most 36 points; real balls under a 1-px
                                   # blur whose highlights no longer pass: 48 points, RMS 0.34-0.48 px)
EDGE_TOL = 0.6                     # px: outline points this near one straight line lie on a straight edge ...
STRAIGHT_SHARE = 0.65              # ... and a fit at a pocket with at least this share of its points there is on the
                                   # rail's straight edge where it meets the pocket's rim, no ball (rendered: those
                                   # circles 0.69-0.80; balls at most 0.62, a rack's ball, real balls at most 0.53)
LATTICE_ROUNDS = 3                 # rounds of ``_with_lattice_balls``: each round's balls propose the next's spots
LATTICE_MIN = 4                    # touching fits in a cluster whose lattice spots are searched (a rack)
LATTICE_SHARE = 0.7                # ... a ball found there needs this share of its inside unlike cloth (circles where
                                   # halo rings' arcs cross beside a rack: 0.47-0.67; rendered rack balls 0.76-1.0,
                                   # two of 0.47-0.49 lost)
LATTICE_NEAR = 3.0                 # ball radii: fits about a lattice spot searched with it (they stop its lines)
TOUCHING = 0.15                    # two fits whose centres are within this share of two radii of 2 radii apart touch
MARKED = 0.88                      # a fit under this share of the ball's radius, white inside, lies on a marking inside
                                   # its ball (a stripe's white cap, a number disc: rendered such fits 0.75-0.86), and
                                   # is searched again outside it; the new fit within 1 - MARKED of the radius
CONTACT_SLACK_SHARE = 0.14         # outline radii: balls this near touching touch (the registered mode's CONTACT_SLACK,
                                   # 4 mm of a pool ball's 28.6 mm radius)
UNLIT_REACH = 3.0                  # ball radii about each candidate where a projector's light is taken off the frame
                                   # (a fit moves at most a radius; its band reaches 1.3 radii + 6 px beyond)
RING_BAND = 0.3                    # ball radii: an outline point this near a halo ring's circle lies on its arc ...
RING_ALIGN = 0.7                   # ... where the ring runs along the fit's circle (cos of the angle between their radii) ...
OWN_RING = 0.5                     # ... and the ring's centre lies more than this many radii from the fit's (not its own)
RING_SHARE = 2 / 3                 # a fit with more than this share of its points on rings' arcs is no ball
HOLE_LINES = 4                     # a circle with at least this many search lines into a pocket hole that read no
                                   # step of the pass's minimum has an outline with no step against the hole (a dark
                                   # ball in a pocket's mouth) ...
HOLE_INWARD = 3.0                  # ... and the steps on its lines into the hole more than this many px inside its
                                   # circle are left out (its highlight's edge; 1.5 px lost a rendered black 8 in a
                                   # corner pocket's mouth, seed 5, whose outline there holds its fit)
RINGED_FILL = 0.78                 # on a frame with halo rings, not lit all over, a ragged fit (RMS over RINGED_RMS)
RINGED_RMS = 0.6                   # from a candidate whose square is less full of foreground than this lies where
                                   # the rings' arcs cross on the cloth (rendered halo: squares 0.60-0.74, RMS 0.7-1.1;
                                   # balls' >= 0.96; real halo balls' 0.74 at RMS 0.43-0.52)
RING_PEAK = 0.5                    # ball radii about such a candidate's peak left out when the peaks it hid are sought
RINGED_POINTS = 30                 # ... and is kept after the search again only with this many outline points
                                   # (seeds 5 and 41, halo and hard: balls 35-48; circles off balls 21-27, 32-47)
OFF_AREA = 0.25                    # a fit with more than this share of its circle beyond the play area's sides ...
OFF_AREA_UNLIKE = 0.7              # ... needs this share of its inside unlike cloth (real balls there: 54 of the
                                   # real sets, 0.78 and 0.92-1.0; rendered, seeds 5 and 41: 1, 0.82; a circle on a
                                   # registration marker over a corner pocket's rail: 0.57-0.59)
BRIGHT_LINE_CLEAR = 0.6            # under a projector's light and halo rings, ball radii about a thin line's pixel
                                   # where GREY_BRIGHTER is not taken (the rings' remnants; rendered hard, seeds 5 + 41:
                                   # 0.3 found 4 balls more and a false ball, one pixel 11 more and 9 false against 8)
BRIGHT_SIDE_CLEAR = 1.4            # ... and ball radii inside the play area's sides (a lit cushion: 0.9 one false
                                   # ball more, 1.9 one ball fewer)
RINGED_GREY_TAN = np.tan(np.radians(4.5))   # ... also on a cloth this near grey under halo rings (rendered hard:
                                   # 0.6-4.2 deg; the second real halo set's 4 frames that are grey by CHROMA_TAN, 4.7-4.8
                                   # deg, gained nothing and paid 2.4 ms)
TWO_TONE_SHARE = 0.2               # samples off the cloth's wedge near its colour: a cloth of two tones (a tinted
                                   # projector's lit area the commonest colour; rendered hard, the lit area taken for
                                   # the play area: 0.29-0.55; real frames <= 0.14, other rendered conditions <= 0.25)
TWO_TONE_BAND = 3.0                # ball radii about the play area: the unlit cloth's samples (the rails lie beyond)
TWO_TONE_GROW = 1.15               # the play area of both tones at least this many times that of the commonest
TWO_TONE_CORNERS = 3               # ... and, under TWO_TONE_SHARE, where the commonest's play area lacks a pocket at a
                                   # corner, a pocket at this many of its corners and more than there (rendered
                                   # lit_sheen, lit_jpeg, hard: 10 lit areas taken for the play area, 0-3 pockets at
                                   # their corners, the cloth of both tones 3-4; a ball in a jaw hides a pocket; real
                                   # development frame 4: the rails taken in, no pocket at a corner)


def detect_in_pixels(image: np.ndarray, radius_px: float, cloth_srgb=None) -> Detections:
    """Balls of roughly ``radius_px`` (outline radius [px]) in a BGR uint8 image of any table.

    An underexposed frame is searched brought up (``vision.exposure.exposed``), one whose cloth's colour drifted from
    ``cloth_srgb`` (None, or the cloth's colour as calibrated, (R, G, B) 8-bit sRGB) brought back to it
    (``vision.white_balance``), and one whose cloth's colour drifts across it so far that its play area has no four
    sides, evened out (``_evened_ground``). Returns Detections with px
    the outline circles' centres [px], r_px their radii, xy NaN, rms_px the circle fits' residuals, n_edges
    the outline points used.
    Raises ValueError for an image that is not BGR, a radius below 3 px, a malformed cloth_srgb, or no cloth in view.
    One core: about 7-8.5 ms for a rendered 1280x720 frame, 11-13.5 ms for a real one, about 13.5-14 ms
    under bright halo rings (``cuerobot bench vision``; docs/vision.md, stage 7's Speed); a frame searched
    twice (stage 8) about twice that; a frame evened about 10 ms more.
    """
    return detect_with_frame(image, radius_px, cloth_srgb)[0]


def detect_with_frame(image: np.ndarray, radius_px: float, cloth_srgb=None) -> tuple[Detections, np.ndarray]:
    """(``detect_in_pixels``' balls, the frame searched: ``image`` itself, or a copy brought up where underexposed
    (``vision.exposure.exposed``), brought back to ``cloth_srgb`` where its cloth's colour drifted from it
    (``_balanced_ground``) and evened where its cloth's colour drifts across it (``_evened_ground``)), for reading
    the balls off the frame they were found on. Raises ValueError as ``detect_in_pixels``."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected a BGR image, got shape {image.shape}")
    if not radius_px >= 3:
        raise ValueError(f"--radius-px must be at least 3 pixels, got {radius_px}")
    reference = None if cloth_srgb is None else unit_bgr(cloth_srgb)
    det, first = _search(exposed(image), radius_px, True, reference)   # (an underexposed camera's frame brought up)
    image = first.frame                                      # (evened out where the cloth's colour drifts)
    if first.light is None:                                  # (most frames)
        return det, image
    again = _search(take_off_light(image, first.light, (0, 0), 2), radius_px, False)[0]
    return det.joined(again.take(added_kept(det, again, first, radius_px))), image


@dataclass
class FirstSearch:
    """What the first search of a frame leaves: frame, the BGR uint8 frame it searched (``_balanced_ground``,
    ``_evened_ground``); where the frame has halo rings and a projector's light over most of its cloth, what the
    second search needs: light, the light under the rings (``vision.cloth.AddedLight``; None: no second search);
    clean, the BGR uint8 frame its outline search read (the rings' lines taken out); model, its cloth model;
    inside, (h/2, w/2) bool its play area."""
    frame: np.ndarray
    light: AddedLight | None
    clean: np.ndarray | None = None
    model: ClothModel | None = None
    inside: np.ndarray | None = None


def _search(image: np.ndarray, radius_px: float, first: bool,
            reference: np.ndarray | None = None) -> tuple[Detections, FirstSearch]:
    """(``detect_in_pixels``' balls of one search of a BGR uint8 image, and where ``first`` and the frame has
    halo rings and a projector's light over most of its cloth, what a second search needs (``FirstSearch``;
    its light None otherwise)). reference: None, or the calibrated cloth's unit BGR colour, that the first search
    brings a drifted frame back to (``_balanced_ground``) before it evens it (``_evened_ground``)."""
    r_half = radius_px / 2
    image, (half, lined, model, bright, classes, poly, hole) = (
        _evened_ground(*_balanced_ground(image, r_half, reference), r_half) if first
        else (image, _cloth_ground(image, r_half)))
    region = area_mask(poly, classes.shape)
    two = _two_tone(half, model, bright, classes, poly, region, hole, r_half)
    if two is not None:
        classes, poly, region = two
    inside = region > 0
    lined &= inside                                          # (lines off the play area: no halo rings)
    ringed = np.count_nonzero(lined) >= RINGED
    if ringed or two is not None:
        hole = hole_mask(classes, r_half, ringed)           # (halo rings drawn across a hole bridged)
    moved = within_pockets(poly, hole, r_half)               # a side out beyond its rail: onto its pockets
    if moved is not poly:
        region = area_mask(moved, classes.shape)
        inside = region > 0
        lined &= inside
    light = ring_light = None
    if first and ringed and model.lit[0] < 0:               # ... under halo rings: for a second search
        ring_light = light_under_rings(half, model, bright, inside & ~hole, lined, r_half)
    if model.lit[0] < 0 and not ringed:                      # a projector's light over most of the cloth: off
        unlit = _unlit(half, inside & ~hole, r_half)
        if unlit is not None:
            half, model, bright, light = unlit
            classes = classify(half, model, bright)
            hole = hole_mask(classes, r_half)
    grey = grey_cloth(model) and model.lit == (0.0, 0.0)
    # a grey cloth, or under halo rings a projector's light over most of it or a greyer cloth: a white ball is
    # brighter than the lit cloth (under rings not by the rings' remnants, nor by the sides)
    if (grey and not ringed) or (ringed and (model.lit[0] < 0 or (grey and grey_cloth(model, RINGED_GREY_TAN)))):
        bright = lit_surface(half, model, bright, inside & ~hole, r_half)
        brighter = classify(half, model, bright, brighter=GREY_BRIGHTER)
        classes = np.where(_off_rings_and_sides(lined, inside, r_half), brighter, classes) if ringed else brighter
        hole = hole_mask(classes, r_half, ringed)
    allowed = inside & ~hole
    fg = (classes & FOREGROUND) * region * np.uint8(255 // FOREGROUND)
    box = max(3, int(round(1.25 * r_half)) | 1)
    votes, sums = candidate_votes(half, fg, region, r_half), known_sums(region, box)
    cand, fill = candidate_peaks(votes, sums, allowed, r_half, box)
    # by a pocket, in a jaw beyond the play area's side where that lies on a shaded cushion's nose
    jaw, jaw_fill = jaw_candidates(half, classes, region, hole, r_half, box)
    if cand.shape[0] + jaw.shape[0] == 0:
        return _empty(), FirstSearch(image, None)
    c0 = c = _full_resolution(cand)
    if light is not None:                                    # ... and off the frame about the candidates
        image = take_off_light(image, light, (0, 0), 2, near_points(half.shape, np.concatenate([cand, jaw]),
                                                                    UNLIT_REACH * r_half))
    clean = remove_thin_lines(image, max(1, int(round(LINE_REACH * radius_px))), lined)[0] if lined.any() else image
    k = 2 * int(round(RIM * r_half)) + 1
    rim = cv2.dilate(hole.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    # the halo rings as circles about the candidates (at full resolution): no ball on their arcs
    rings = line_rings(lined, cand, r_half) * 2.0 + [0.5, 0.5, 0.0] if ringed else np.zeros((0, 3))
    def unlike(c, r, rms):                   # the share of each circle's inside unlike cloth
        return ball_share(image, model, c, r, rim, rms)
    smooth = SmoothedNear(clean, SMOOTH_SIGMA)               # (one for every search of the frame: each square once)
    # (not in the search with the light under the rings off: there a rack ball's fit lost to a candidate added)
    hidden = functools.partial(_hidden_peaks, votes, sums, allowed, r_half, box, cand, fill) if first else None
    (idx, c, r, rms, n), spare, c0, fill = _ringed_fits(smooth, c, fill, float(radius_px), unlike, model.chroma,
                                                        rings, ringed and not model.lit[0] < 0, hole, hidden)
    c, r, rms, n = _outside_markings(clean, (c, r, rms, n), float(radius_px), model)
    idx, c, r, rms, n = _with_jaw_fits(smooth, _full_resolution(jaw), c0.shape[0], (idx, c, r, rms, n),
                                       float(radius_px), unlike, model.chroma, rings, hole)
    fill = np.concatenate([fill, jaw_fill])
    idx, c, r, rms, n = _with_limb_fits(clean, model, c0, (idx, c, r, rms, n), float(radius_px), rim, ringed)
    idx, c, r, rms, n = _with_contact_balls(c0, (idx, c, r, rms, n), unlike)
    # on a grey cloth without rings a rack's black 8 lit to the cloth's hue is a ball where its body is far darker
    spot_unlike = functools.partial(_dark_as_unlike, unlike, image, model) if grey and not ringed else unlike
    (idx, c, r, rms, n), fill = _with_lattice_balls(clean, (idx, c, r, rms, n), fill, allowed, float(radius_px),
                                                    spot_unlike, model.chroma, rings, hole)
    # a fit with no lamp's highlight is a ball's shadow, or a pocket's lit back wall seen between the jaws;
    # a ball dropped for overlapping such a fit is taken again
    idx, c, r, rms, n = lit_fits((idx, c, r, rms, n), spare, image, hole, model, unlike, float(radius_px), rings,
                                 WHITE_GLINT if light is None else UNLIT_GLINT)
    # a fit at a pocket whose outline is mostly one straight line: the rail's edge meeting the pocket's rim
    keep = ~on_straight_edges(smooth, hole, c, r, model.chroma, float(radius_px))
    # a fit reaching well over a side that is part cloth: a circle riding the rail's edge, no ball
    keep &= ~over_the_rails(inside, c, r, rms, float(radius_px), unlike)
    if light is not None and c.shape[0]:     # a sheen's remnant the light's take-off left: cloth with white added,
        angle, level, local = body_against_cloth(image, c, r, model)   # or its cloth with a dull highlight
        keep &= ~white_added(image, c, r, local, level)
        keep &= ~sheen_bodied(image, model, c, r, angle, level)
    idx, c, r, rms, n = idx[keep], c[keep], r[keep], rms[keep], n[keep]
    cloth_v = model.brightness((c[:, 0] - 0.5) / 2, (c[:, 1] - 0.5) / 2) * model.chroma.max()
    det = Detections(px=c, r_px=r, xy=np.full_like(c, np.nan), rms_px=rms, n_edges=n, fill=fill[idx],
                     cloth_v=cloth_v)
    # no fit on a hand or an arm: foreground off the pockets and their rims that came in over the rail
    det = det.take(clear_of_intruders((fg > 0) & ~rim, lambda: reach_in_band(inside, hole, r_half),
                                      (c - 0.5) / 2, r / 2, n / N_RAYS, rms))
    return det, FirstSearch(image, ring_light, clean, model, inside)


class ClothGround(NamedTuple):
    """A frame's cloth stages (``_cloth_ground``): half, its half-resolution copy (h/2, w/2, 3) with thin lines of
    added light taken out, and lined, those lines' mask (``remove_thin_lines``); model and bright, its cloth model
    and lit brightness (``_cloth_model``); classes, its pixels' bits (``classify``); poly, its play area's polygon
    (``area_polygon``: four corners, or the cloth region's convex hull) [half-resolution px]; hole, its pocket
    holes (``hole_mask``)."""
    half: np.ndarray
    lined: np.ndarray
    model: ClothModel
    bright: np.ndarray
    classes: np.ndarray
    poly: np.ndarray
    hole: np.ndarray


def cloth_model(image: np.ndarray, radius_px: float) -> ClothModel:
    """The cloth model (``fit_cloth``) of a BGR uint8 frame of any table with balls of about ``radius_px`` [px], as
    the first search fits it."""
    return _cloth_ground(exposed(image), radius_px / 2).model


def _cloth_ground(image: np.ndarray, r_half: float) -> ClothGround:
    """The ``ClothGround`` of a BGR uint8 frame (h, w, 3); r_half: the balls' radius at half resolution [px]."""
    half = halved(np.ascontiguousarray(image), 0, 0, image.shape[1] // 2, image.shape[0] // 2)
    half, lined = remove_thin_lines(half, max(1, int(round(LINE_REACH * r_half))))
    model, bright = _cloth_model(half)
    classes = classify(half, model, bright)
    return ClothGround(half, lined, model, bright, classes, area_polygon(classes), hole_mask(classes, r_half))


def _balanced_ground(image: np.ndarray, r_half: float,
                     reference: np.ndarray | None) -> tuple[np.ndarray, ClothGround]:
    """(the frame to search, its ``_cloth_ground``) for a BGR uint8 frame: where its cloth's colour drifted from
    ``reference`` (None, or the calibrated cloth's unit BGR colour), the frame brought back to it where it then shows
    that cloth (``vision.white_balance.bring_back``); else the frame itself. r_half: the balls' radius at half
    resolution [px]."""
    ground = _cloth_ground(image, r_half)
    if reference is None:
        return image, ground
    return bring_back(image, reference, ground, lambda frame: _cloth_ground(frame, r_half), lambda g: g.model)


def _evened_ground(image: np.ndarray, ground: ClothGround, r_half: float) -> tuple[np.ndarray, ClothGround]:
    """(the frame to search, its ``_cloth_ground``) for a BGR uint8 frame and its ``ground``: the frame itself where
    its play area has four sides and a pocket hole at each corner (``_whole_table``: most frames), or its cloth model
    a lit wedge; where it has neither, and the frame evened out to one cloth colour (``vision.colour_drift``: the
    cloth's colour drifting across the frame cut a strip off its region, and the play area fell back to the region's
    convex hull or a side leaned off its pockets) has both and no lit wedge, the evened frame. r_half: the balls'
    radius at half resolution [px]."""
    if ground.model.lit != (0.0, 0.0) or _whole_table(ground, r_half):  # (a projector's light turns the colour too)
        return image, ground
    half, model = ground.half, ground.model
    su, sv, cu, cv_ = _model_grids(*half.shape[:2])
    coef = colour_field(half[sv, su], su * model.scale, sv * model.scale, model.chroma)
    if coef is None:
        return image, ground
    flat = evened(image, coef, model.chroma, cu * model.scale, cv_ * model.scale)
    even = _cloth_ground(flat, r_half)
    return (flat, even) if _whole_table(even, r_half) and even.model.lit == (0.0, 0.0) else (image, ground)


def _whole_table(ground: ClothGround, r_half: float) -> bool:
    """Whether a ``ClothGround``'s play area has four sides and a pocket hole at each corner."""
    return len(ground.poly) == 4 and corner_pockets(ground.poly, ground.hole, r_half) == 4


def added_kept(det: Detections, again: Detections, first: FirstSearch, radius_px: float) -> np.ndarray:
    """(len(again),) bool: which balls of the second search (``detect_in_pixels``: the light under halo rings
    taken off) are added to the first search's ``det`` (``first``: what that search read), as the registered
    mode's ``TableDetector.added_kept`` in pixels. Such a ball must
    - have its centre on the first search's play area (``first.inside``; the second search's own, with the
      light off, may reach over a rail: a circle on a rail's registration marker);
    - overlap no ball of ``det``, nor one added before it (most outline points first): centres at least
      2 (1 - CONTACT_SLACK_SHARE) ``radius_px`` apart;
    - with its own outline fitted within RMS_MAX_SHARE of its radius, have a body unlike the cloth about it
      in the frame the first search read (``body_against_cloth``): at least EDGE_MIN_DEG
      from its colour, or brighter than BRIGHTER times it, or darker than DARK_LINEAR of it;
    - else (a rougher fit, or a ball placed by its contacts: RMS NaN) have its square at least SHORT_FILL
      foreground and its dimmest body samples unlike the cloth (``dim_body_unlike``): where halo rings' arcs
      cross beside a ringed rack their remnants read as a bright body and a circle fits them loosely.
    """
    if not len(again):
        return np.zeros(0, bool)
    held = again.rms_px <= RMS_MAX_SHARE * again.r_px          # (False for NaN: placed)
    angle, level, local = body_against_cloth(first.clean, again.px, again.r_px, first.model)
    ok = (angle >= EDGE_MIN_DEG) | (level > BRIGHTER) | (level < DARK_LINEAR)
    loose = ~held & (np.nan_to_num(again.fill) >= SHORT_FILL)
    ok[~held] = False
    if loose.any():
        ok[loose] = dim_body_unlike(first.clean, again.px[loose], again.r_px[loose], local[loose], level[loose])
    ok &= on_circle(first.inside, again.px, 0.0) > 0           # (a circle of radius 0: the centre's pixel)
    kept = np.zeros(len(again), bool)
    gaps = np.linalg.norm(again.px[:, None] - det.px[None], axis=2).min(axis=1, initial=np.inf)
    pair = np.linalg.norm(again.px[:, None] - again.px[None], axis=2)
    for i in np.argsort(-again.n_edges, kind="stable"):
        if ok[i] and gaps[i] >= 2 * (1 - CONTACT_SLACK_SHARE) * radius_px:
            kept[i] = True
            gaps = np.minimum(gaps, pair[i])
    return kept


def _ringed_fits(image: np.ndarray | SmoothedNear, c: np.ndarray, fill: np.ndarray, radius_px: float, unlike,
                 cloth: np.ndarray, rings: np.ndarray, again: bool, hole: np.ndarray,
                 hidden: Callable[[], tuple[np.ndarray, np.ndarray]] | None) -> tuple:
    """``outline_fits(image, c, radius_px, unlike, cloth, rings, hole)`` about the candidates c (M, 2) [px] (idx
    into c), searched again where ``again`` (a frame with halo rings, not lit all over) and a ragged fit
    (RMS over RINGED_RMS) came from a candidate whose square is less than RINGED_FILL foreground (``fill``
    (M,)): a circle where halo rings' arcs cross on the cloth beside a rack, which beats the ball it
    overlaps. The second search leaves out the candidates of such squares but those whose fits were round;
    a ragged fit of the first that lies APART radii from every fit of the second is kept (its own ball:
    under JPEG and a projector's light a ball's square is as empty and its fit as ragged) where it has at least
    RINGED_POINTS outline points. The second search takes in too the candidates ``hidden()`` ((K, 2) [px], (K,)
    fill: ``_hidden_peaks``; None: none) that such squares' peaks hid, appended to c and fill.
    Returns (fits, spare, c, fill)."""
    fits, spare = outline_fits(image, c, radius_px, unlike, cloth, rings, hole)
    idx, rms = fits[0], fits[3]
    few = fill[idx] < RINGED_FILL
    ragged = few & (rms > RINGED_RMS)
    if not again or not ragged.any():     # (most frames)
        return fits, spare, c, fill
    if hidden is not None:
        more, more_fill = hidden()
        c, fill = np.concatenate([c, more]), np.concatenate([fill, more_fill])
    searched = np.union1d(np.flatnonzero(fill >= RINGED_FILL), idx[few & ~ragged])
    second, spare = outline_fits(image, c[searched], radius_px, unlike, cloth, rings, hole)
    back = ragged & (fits[4] >= RINGED_POINTS) & (np.linalg.norm(fits[1][:, None] - second[1][None], axis=-1)
                                                   .min(axis=1, initial=np.inf) >= APART * radius_px)
    return ((np.concatenate([searched[second[0]], idx[back]]),)
            + tuple(np.concatenate([a, b[back]]) for a, b in zip(second[1:], fits[1:])),
            (searched[spare[0]],) + spare[1:], c, fill)


def _hidden_peaks(votes: Votes, sums: np.ndarray, allowed: np.ndarray, r_half: float, box: int, cand: np.ndarray,
                  fill: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(centres (K, 2) [full-resolution px], fill (K,)): the candidates (``candidate_peaks`` of the half-resolution
    frame's ``votes``, ``sums``, ``allowed``, ``box``) found again with the pixels within RING_PEAK radii
    ``r_half`` of each candidate of ``cand`` (M, 2) [half-resolution px] whose square is less than RINGED_FILL
    foreground (``fill`` (M,)) left out, a radius from every candidate of ``cand`` and with their squares at
    least RINGED_FILL foreground: a circle where halo rings' arcs cross beside a rack has a peak that, stronger,
    hides a rack ball's (non-maximum suppression at 1.3 radii)."""
    off = _discs(allowed.shape, cand[fill < RINGED_FILL], RING_PEAK * r_half)
    more, more_fill = candidate_peaks(votes, sums, allowed & ~off, r_half, box)
    new = ((np.linalg.norm(more[:, None] - cand[None], axis=-1).min(axis=1, initial=np.inf) >= r_half)
           & (more_fill >= RINGED_FILL))
    return _full_resolution(more[new]), more_fill[new]


def _full_resolution(p: np.ndarray) -> np.ndarray:
    """(M, 2) [px]: the half-resolution positions p (M, 2) [px] in the full frame (pixel centres: 2 p + 0.5)."""
    return 2 * p + 0.5


def _discs(shape: tuple, c: np.ndarray, reach: float) -> np.ndarray:
    """(h, w) bool of ``shape``: the pixels (integer x, y) within ``reach`` [px] of any centre c (M, 2) [px, x y],
    each disc set in its own window."""
    out = np.zeros(shape, bool)
    for u, v in c:
        x0, x1 = max(int(np.floor(u - reach)), 0), min(int(np.ceil(u + reach)) + 1, shape[1])
        y0, y1 = max(int(np.floor(v - reach)), 0), min(int(np.ceil(v + reach)) + 1, shape[0])
        if x0 < x1 and y0 < y1:
            xx, yy = np.arange(x0, x1), np.arange(y0, y1)[:, None]
            out[y0:y1, x0:x1] |= (xx - u) ** 2 + (yy - v) ** 2 <= reach ** 2
    return out


def _with_jaw_fits(image: np.ndarray | SmoothedNear, jaw: np.ndarray, offset: int, fits: tuple, radius_px: float,
                   unlike, cloth: np.ndarray, rings: np.ndarray, hole: np.ndarray) -> tuple:
    """``fits`` (``outline_fits``' idx, centres, radii, RMS, points) with the balls about the jaw candidates
    jaw (M, 2) [px] (``jaw_candidates``, outside the play area): ``outline_fits`` (the same ``unlike``,
    ``cloth``, ``rings``, ``hole``) about them and the fits within JAW_NEAR radii, and each ball it takes within a
    radius of a jaw candidate replaces the fits closer than APART radii to it (a fit of the same ball
    pulled off it: started from inside the play area, its first band missed the ball's outer outline).
    Their idx: offset + the jaw candidate's index, or the replaced fit's where its own start won."""
    idx, c, r, rms, n = fits
    k = np.arange(jaw.shape[0])
    if k.size:                            # (on the cushion's strip or a pocket's rim: none there)
        k = k[unlike(jaw, np.full(k.size, radius_px), np.full(k.size, np.nan)) >= UNLIKE_SHARE]
    if k.size == 0:                       # (most frames)
        return fits
    jaw = jaw[k]
    near = np.flatnonzero(np.linalg.norm(c[:, None] - jaw[None], axis=-1).min(axis=1, initial=np.inf)
                          < JAW_NEAR * radius_px)
    (ji, jc, jr, jrms, jn), _ = outline_fits(image, np.concatenate([c[near], jaw]), radius_px, unlike, cloth, rings,
                                             hole)
    new = np.linalg.norm(jc[:, None] - jaw[None], axis=-1).min(axis=1) < radius_px
    if not new.any():
        return fits
    ji, jc, jr, jrms, jn = ji[new], jc[new], jr[new], jrms[new], jn[new]
    ji = np.concatenate([idx[near], offset + k])[ji]   # the starts' candidates
    keep = np.linalg.norm(c[:, None] - jc[None], axis=-1).min(axis=1) >= APART * radius_px
    return (np.concatenate([idx[keep], ji]), np.concatenate([c[keep], jc]), np.concatenate([r[keep], jr]),
            np.concatenate([rms[keep], jrms]), np.concatenate([n[keep], jn]))


def ball_share(image: np.ndarray, model, c: np.ndarray, r: np.ndarray, rim: np.ndarray,
               rms: np.ndarray) -> np.ndarray:
    """(M,) the share of the inside of each circle (centres c (M, 2), radii r (M,) [px]) unlike cloth
    (``unlike_cloth``, with ``rim`` (h/2, w/2) bool, a pocket's rim and liner, counted as cloth); for a very
    round fit (RMS rms (M,) [px] below ROUND_RMS), or one below RMS_MAX whose samples off the rim are at
    least JAW_FULL unlike cloth (its fit takes in the liner's edge), the share of its samples off the rim
    when that is more, over at least JAW_SEEN of all its samples (a black ball in a pocket's mouth: most
    of it in the rim, where its outline against the hole is not seen). A NaN RMS (no fit): neither."""
    return _jaw_share(unlike_shares(image, model, c, r, rim), np.asarray(rms, np.float64))


@njit(cache=True)
def _jaw_share(shares, rms):
    """``ball_share`` of the shares (M, 2) unlike cloth and seen (off the rim) and the RMS (M,) [px] (numba, not
    eight numpy steps: five calls a frame)."""
    out = np.empty(shares.shape[0])
    for m in range(shares.shape[0]):
        unlike, seen = shares[m, 0], shares[m, 1]
        jaw = rms[m] < ROUND_RMS or (rms[m] < RMS_MAX and unlike >= JAW_FULL * seen)
        out[m] = max(unlike, unlike / max(seen, JAW_SEEN)) if jaw else unlike
    return out


def _with_limb_fits(image: np.ndarray, model, cand: np.ndarray, fits: tuple, radius_px: float,
                    rim: np.ndarray, ringed: bool) -> tuple:
    """``fits`` (``outline_fits``' idx into cand, centres, radii, RMS, points) with the balls that show a
    darker limb (a ball of the cloth's hue) among the candidates cand (M, 2) [px] it refused added: those
    LIMB_GAP radii from every fit, fitted to their limb (``limb_fits``) with at least MIN_EDGES_PIXELS
    points (MIN_ALIVE where it touches LIMB_TOUCHING fits and the frame is not ``ringed``: no halo rings),
    an RMS below RMS_MAX_PX where the circle APART radii about it reaches ``rim`` (h/2, w/2) bool
    (a circle fits a jaw's corner loosely) and below RMS_MAX_SHARE of the radius elsewhere (the registered
    mode's limits), a radius within RADIUS_TOLERANCE, moved less than a radius, APART radii from every fit
    (a ball may touch a neighbour's fit, under LIMB_GAP radii), and of two closer than APART radii the one
    with more points."""
    idx, c, r, rms, n = fits
    far = np.linalg.norm(cand[:, None] - c[None], axis=-1).min(axis=1, initial=np.inf) >= LIMB_GAP * radius_px
    k = np.flatnonzero(far)
    if k.size == 0:
        return fits
    local = local_cloth(image, cand[k], np.full(k.size, radius_px), model, OUTLINE_RINGS)[0]
    lc, lr, lrms, ln = limb_fits(image, cand[k], radius_px, local, c, r)
    touching = (np.abs(np.linalg.norm(lc[:, None] - c[None], axis=-1) / (2 * radius_px) - 1) < TOUCHING).sum(axis=1)
    enough = (ln >= MIN_EDGES_PIXELS) | ((ln >= MIN_ALIVE) & (touching >= LIMB_TOUCHING) & (not ringed))
    ok = (enough & (np.abs(lr / radius_px - 1) < RADIUS_TOLERANCE)
          & (np.linalg.norm(lc - cand[k], axis=1) < radius_px))
    if not ok.any():                      # (most frames: the rest of this costs more than the limb search)
        return fits
    ok[ok] = lrms[ok] < np.where(_reaches(rim, lc[ok], APART * radius_px), RMS_MAX_PX, RMS_MAX_SHARE * radius_px)
    ok[ok] &= np.linalg.norm(lc[ok][:, None] - c[None], axis=-1).min(axis=1, initial=np.inf) >= APART * radius_px
    k, lc, lr, lrms, ln = k[ok], lc[ok], lr[ok], lrms[ok], ln[ok]
    keep = distinct(lc, ln, APART * radius_px)
    return (np.concatenate([idx, k[keep]]), np.concatenate([c, lc[keep]]), np.concatenate([r, lr[keep]]),
            np.concatenate([rms, lrms[keep]]), np.concatenate([n, ln[keep]]))


def _with_contact_balls(cand: np.ndarray, fits: tuple, unlike) -> tuple:
    """``fits`` (idx into cand, centres, radii, RMS, points) with the candidates cand (M, 2) [px] that the
    fits hem in (a rack's inner ball, whose outline shows only in the narrow gaps) placed where they touch
    at least CONTACT_MIN fits: the registered mode's ``place_by_contacts`` in pixels, half the distance
    between touching fits as every ball's radius (``_touching_radius``), CONTACT_SLACK_SHARE of it as the
    slack; kept where the touching fits surround it (``_hemmed``: not a shadow on a cushion beside a row
    of balls) and, as every fit, at least UNLIKE_SHARE of its inside is unlike cloth (``unlike(centres,
    radii, rms)`` (K,): a gap among balls shows cloth and their shadows). Placed balls have RMS NaN and
    no points."""
    idx, c, r, rms, n = fits
    if c.shape[0] < CONTACT_MIN:
        return fits
    R = _touching_radius(c, float(np.median(r)))
    slack = CONTACT_SLACK_SHARE * R
    d = np.linalg.norm(cand[:, None] - c[None], axis=-1)
    near = ((d.min(axis=1) > R) & ((d < 2 * R + slack + CONTACT_SEEK * R).sum(axis=1) >= CONTACT_MIN))
    if not near.any():                    # (most frames: nothing hemmed in)
        return fits
    k = np.flatnonzero(near)
    xy = np.concatenate([c, cand[k]])
    good = np.arange(xy.shape[0]) < c.shape[0]
    xy, good, placed = place_by_contacts(xy, good, xy.copy(), R, slack, sweeps=0)     # (sweeps: 1 ball lost)
    new = np.flatnonzero(placed)
    new = new[[_hemmed(xy[i], c, 2 * R + slack) for i in new]]
    if new.size:
        new = new[unlike(xy[new], np.full(new.size, R), np.full(new.size, np.nan)) >= UNLIKE_SHARE]
    if new.size == 0:
        return fits
    return (np.concatenate([idx, k[new - c.shape[0]]]), np.concatenate([c, xy[new]]),
            np.concatenate([r, np.full(new.size, R)]), np.concatenate([rms, np.full(new.size, np.nan)]),
            np.concatenate([n, np.zeros(new.size, n.dtype)]))


def _with_lattice_balls(image: np.ndarray, fits: tuple, fill: np.ndarray, allowed: np.ndarray, radius_px: float,
                        unlike, cloth: np.ndarray, rings: np.ndarray, hole: np.ndarray) -> tuple:
    """(``fits`` (``outline_fits``' idx into ``fill``, centres, radii, RMS, points) with the balls found at
    the spots where a ball would touch two touching fits of a rack (``lattice_spots``: its hexagonal packing),
    and ``fill`` (M,) with NaN appended for each such ball, which has no candidate). The spots on ``allowed``
    ((h/2, w/2) bool: the play area off the holes), APART radii ``radius_px`` from every fit, one within a
    radius of another left out, and at least UNLIKE_SHARE unlike cloth (``unlike(centres, radii, rms)``
    (K,)) are searched (``outline_fits`` with ``cloth``, ``rings`` and ``hole``, about them and the fits within
    LATTICE_NEAR radii, whose search lines they stop); a ball it takes from a spot is kept within a radius
    of the spot, APART radii from every fit, touching (TOUCHING) at least two of them and with at least
    LATTICE_SHARE of its inside unlike cloth (not where halo rings' arcs cross beside a rack); the balls
    kept propose again, for at most LATTICE_ROUNDS rounds. A rack's ball of the cloth's hue or washed grey
    by a projector gives no candidate (its square is not foreground) but its outline between its
    neighbours' fits."""
    for _ in range(LATTICE_ROUNDS):
        idx, c, r, rms, n = fits
        p = lattice_spots(c, radius_px, allowed)
        if p.shape[0]:
            p = p[distinct(p, np.zeros(p.shape[0]), radius_px)]
            p = p[unlike(p, np.full(p.shape[0], radius_px), np.full(p.shape[0], np.nan)) >= UNLIKE_SHARE]
        if p.shape[0] == 0:               # (most frames: no rack, or every spot a ball or cloth)
            break
        near = np.flatnonzero(np.linalg.norm(c[:, None] - p[None], axis=-1).min(axis=1) < LATTICE_NEAR * radius_px)
        (ji, jc, jr, jrms, jn), _ = outline_fits(image, np.concatenate([c[near], p]), radius_px, unlike, cloth,
                                                  rings, hole)
        own = ji >= near.size
        ji, jc, jr, jrms, jn = ji[own] - near.size, jc[own], jr[own], jrms[own], jn[own]
        d = np.linalg.norm(jc[:, None] - c[None], axis=-1)
        new = ((np.linalg.norm(jc - p[ji], axis=1) < radius_px) & (d.min(axis=1) >= APART * radius_px)
               & ((np.abs(d / (2 * radius_px) - 1) < TOUCHING).sum(axis=1) >= 2))
        if new.any():
            new[new] = unlike(jc[new], jr[new], jrms[new]) >= LATTICE_SHARE
        if not new.any():
            break
        fits = (np.concatenate([idx, fill.size + np.arange(np.count_nonzero(new))]), np.concatenate([c, jc[new]]),
                np.concatenate([r, jr[new]]), np.concatenate([rms, jrms[new]]), np.concatenate([n, jn[new]]))
        fill = np.concatenate([fill, np.full(np.count_nonzero(new), np.nan)])
    return fits, fill


def _dark_as_unlike(unlike, image: np.ndarray, model, c: np.ndarray, r: np.ndarray, rms: np.ndarray) -> np.ndarray:
    """(M,) the share of each circle's inside unlike cloth (``unlike(c, r, rms)``, centres c (M, 2), radii r (M,),
    fit RMS rms (M,) [px]), 1 for a body far darker than the cloth about it and of its hue (``dark_body_alike``
    in the BGR uint8 ``image`` over its cloth ``model``: the registered mode's test of a rack's spot). On a grey
    cloth a projector's white light lifts a black 8 to the cloth's hue at about half its level, which ``unlike``
    reads as cloth (the bench's lit_sheen seed-5 frame 8, a rack: its 8 0.06 of its inside unlike, at 0.52 of the
    level); the other spots about that rack, cloth in the balls' shade, read 0.84-1.16."""
    _, level, local = body_against_cloth(image, c, r, model)
    return np.where(dark_body_alike(image, c, r, local, level), 1.0, unlike(c, r, rms))


def lattice_spots(c: np.ndarray, radius_px: float, allowed: np.ndarray) -> np.ndarray:
    """(P, 2) [px]: for each two centres c (K, 2) [px] that touch (within TOUCHING of two radii ``radius_px``
    apart) in a cluster of at least LATTICE_MIN touching centres (a rack), the two points as far from both
    as they are from each other (the third ball of a triangle of touching balls: a rack's hexagonal packing),
    those on ``allowed`` ((h/2, w/2) bool) and APART radii from every centre."""
    return _lattice_spots(np.ascontiguousarray(c, np.float64).reshape(-1, 2), 2 * radius_px * (1 - TOUCHING),
                          2 * radius_px * (1 + TOUCHING), LATTICE_MIN, allowed, APART * radius_px)


@njit(cache=True)
def _lattice_spots(c, lo, hi, min_size, allowed, apart):
    """``lattice_spots`` (numba; numpy's steps took 0.4-0.5 ms for a real frame's 22 fits): pairs lo to hi [px]
    apart touch; clusters by union-find."""
    k = c.shape[0]
    root = np.arange(k)
    pairs = np.empty((k * (k - 1) // 2, 2), np.int64)
    m = 0
    for i in range(k):
        for j in range(i + 1, k):
            d = math.hypot(c[i, 0] - c[j, 0], c[i, 1] - c[j, 1])
            if lo < d < hi:
                pairs[m, 0], pairs[m, 1] = i, j
                m += 1
                a, b = i, j
                while root[a] != a:
                    a = root[a]
                while root[b] != b:
                    b = root[b]
                root[max(a, b)] = min(a, b)
    size = np.zeros(k, np.int64)
    for i in range(k):
        while root[root[i]] != root[i]:
            root[i] = root[root[i]]
        size[root[i]] += 1
    out = np.empty((2 * m, 2))
    n = 0
    s = math.sqrt(3) / 2
    for q in range(m):
        i, j = pairs[q, 0], pairs[q, 1]
        if size[root[i]] < min_size:
            continue
        mx, my = (c[i, 0] + c[j, 0]) / 2, (c[i, 1] + c[j, 1]) / 2
        ax, ay = -(c[j, 1] - c[i, 1]) * s, (c[j, 0] - c[i, 0]) * s
        for side in (1.0, -1.0):
            x, y = mx + side * ax, my + side * ay
            u, v = round((x - 0.5) / 2), round((y - 0.5) / 2)
            ok = 0 <= u < allowed.shape[1] and 0 <= v < allowed.shape[0] and allowed[int(v), int(u)]
            for t in range(k):
                ok = ok and math.hypot(x - c[t, 0], y - c[t, 1]) >= apart
            if ok:
                out[n, 0], out[n, 1] = x, y
                n += 1
    return out[:n]


def _outside_markings(image: np.ndarray, fits: tuple, radius_px: float, model) -> tuple:
    """``fits`` (centres (K, 2), radii (K,), RMS (K,) [px], points (K,)) with each fit smaller than MARKED
    ``radius_px`` and white inside (``_white_insides``: a pocket's dark hole is not) fitted again to the
    strongest steps outside it (BGR uint8 ``image``, the cloth ``model``'s colour weighed as in
    ``outline_fits``): such a fit is a marking inside its ball (a stripe's white cap, a number disc), and
    the ball holds its marking, so along each search line from the marking's centre the outline lies
    between the marking's circle (1.5 px out) and 2 ``radius_px`` less the marking's radius (the ball
    shifted as far as the marking lets it). Taken where the new fit is within 1 - MARKED of the ball's
    size, holds the marking's circle and passes ``outline_fits``' tests of points and RMS (the pixel-only
    counterpart of the registered mode's ``_shrunk_again``)."""
    c, r, rms, n = fits
    small = np.flatnonzero(r < MARKED * radius_px)
    if small.size:
        small = small[_white_insides(image, model, c, r, small)]
    if small.size == 0:                   # (most frames)
        return fits
    cs, inner, outer = c[small], r[small] + 1.5, 2 * radius_px - r[small] + 1.0
    mid, half = (inner + outer) / 2, float(np.max(outer - inner)) / 2
    pts, strength = step_points(SmoothedNear(image, SMOOTH_SIGMA).about(cs, mid.max() + half), cs, mid, half,
                                model.chroma, SHADE_WEIGHT)
    d = np.linalg.norm(pts - cs[:, None], axis=-1)
    others = np.delete(np.arange(c.shape[0]), small)
    dirs = ray_directions()[None]
    free = ~near_neighbours(cs[:, None, :] + mid[:, None, None] * dirs, np.concatenate([cs, c[others]]),
                            np.concatenate([r[small], r[others]]), 1.0, dirs)
    valid = (strength >= WEAK_STEP) & free & (d >= inner[:, None]) & (d <= outer[:, None])
    c2, r2, rms2, tw = fit_circles(pts, valid, cs, np.full(small.size, radius_px))
    n2 = (tw > 0.5).sum(axis=1)
    ok = ((np.abs(r2 / radius_px - 1) < 1 - MARKED) & (n2 >= MIN_POINTS) & (rms2 < RMS_MAX)
          & (np.linalg.norm(c2 - cs, axis=1) + r[small] <= r2 + 1.0))
    k = small[ok]
    c, r, rms, n = c.copy(), r.copy(), rms.copy(), n.copy()
    c[k], r[k], rms[k], n[k] = c2[ok], r2[ok], rms2[ok], n2[ok]
    return c, r, rms, n


def _white_insides(image: np.ndarray, model, c: np.ndarray, r: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(len(k),) bool: which circles k of c (M, 2), r (M,) [px] (off the others) in the BGR uint8 ``image`` have
    the median of their channels' mean (``glints``) at least the cloth ``model``'s lit cloth there."""
    lit = model.brightness((c[k, 0] - 0.5) / 2, (c[k, 1] - 0.5) / 2) * np.mean(model.chroma)
    return glints(image, c[k], r[k], c, r, top=0.5)[:, 1] >= lit


def _touching_radius(c: np.ndarray, r: float) -> float:
    """Half the median distance [px] between touching fits (centres c (K, 2) [px]: each fit's nearest
    other within TOUCHING of 2 r, the fits' radius [px]), or r with fewer than CONTACT_MIN of them: the
    outline radius a fit finds is blurred wider than where two balls' outlines meet."""
    if c.shape[0] < 2:
        return r
    d = np.linalg.norm(c[:, None] - c[None], axis=-1)
    np.fill_diagonal(d, np.inf)
    nn = d.min(axis=1)
    touch = nn[np.abs(nn / (2 * r) - 1) < TOUCHING]
    return float(np.median(touch)) / 2 if touch.size >= CONTACT_MIN else r


def _hemmed(p: np.ndarray, c: np.ndarray, reach: float) -> bool:
    """Whether the centres c (K, 2) [px] within ``reach`` of the point p (2,) surround it: no gap of
    half a turn or more between their directions from it."""
    v = c[np.linalg.norm(c - p, axis=1) < reach] - p
    if v.shape[0] < 2:
        return False
    a = np.sort(np.arctan2(v[:, 1], v[:, 0]))
    return bool(np.diff(np.append(a, a[0] + 2 * np.pi)).max() < np.pi)


def _reaches(mask: np.ndarray, c: np.ndarray, radius: float) -> np.ndarray:
    """(M,) whether the circle of ``radius`` [px] about each full-resolution centre c (M, 2) [px] crosses the
    half-resolution bool mask (h, w) (``on_circle``)."""
    return on_circle(mask, c, radius) > 0


def on_circle(mask: np.ndarray, c: np.ndarray, radius: float) -> np.ndarray:
    """(M,) the share of the points of the circle of ``radius`` [px] about each full-resolution centre c (M, 2)
    [px], at its N_RAYS ray directions, that lie on the half-resolution bool mask (h, w) (points past its
    edges: not on it)."""
    return _on_circle(mask, np.ascontiguousarray(c, np.float64).reshape(-1, 2), float(radius), ray_directions())


@njit(cache=True)
def _on_circle(mask, c, radius, dirs):
    """``on_circle`` (numba; numpy's array steps took 0.16-0.20 ms for a real frame's fits)."""
    h, w = mask.shape[0], mask.shape[1]
    out = np.zeros(c.shape[0])
    for m in range(c.shape[0]):
        k = 0
        for n in range(dirs.shape[0]):
            u = np.rint(((c[m, 0] + radius * dirs[n, 0]) - 0.5) / 2)
            v = np.rint(((c[m, 1] + radius * dirs[n, 1]) - 0.5) / 2)
            if 0 <= u < w and 0 <= v < h and mask[int(v), int(u)]:
                k += 1
        out[m] = k / dirs.shape[0]
    return out


def over_the_rails(inside: np.ndarray, c: np.ndarray, r: np.ndarray, rms: np.ndarray, radius_px: float,
                   unlike) -> np.ndarray:
    """(M,) bool: which fits (centres c (M, 2), radii r (M,), RMS rms (M,) [px]) have more than OFF_AREA of
    their circle of ``radius_px`` beyond the play area (``inside``, (h/2, w/2) bool; or the frame) and less than
    OFF_AREA_UNLIKE of their inside unlike cloth (``unlike(centres, radii, rms)`` (K,), radii held within
    RADIUS_TOLERANCE). A ball whose outline reaches over a side (in a pocket's jaw, or frozen on a cushion
    whose side was found on its nose) is ball through and through; a circle riding the rail's edge takes
    its outline from what stands on the rail (a registration marker) and the cushion's cloth below it."""
    out = on_circle(inside, c, radius_px) < 1 - OFF_AREA
    if out.any():                         # (most fits lie within the sides)
        k = np.flatnonzero(out)
        rr = np.clip(r[k], (1 - RADIUS_TOLERANCE) * radius_px, (1 + RADIUS_TOLERANCE) * radius_px)
        out[k] = unlike(c[k], rr, rms[k]) < OFF_AREA_UNLIKE
    return out


def limb_fits(image: np.ndarray, c: np.ndarray, radius_px: float, local: np.ndarray, others: np.ndarray,
              others_r: np.ndarray) -> tuple:
    """Circles fitted to the darker limb (``vision.limbs``, the registered mode's search for a ball of the
    cloth's hue) about centres c (M, 2) [px] in a BGR uint8 image, with the linear BGR cloth colour about
    each (M, 3): the registered mode's SEARCH_WIDTHS passes, each a robust circle fit (``fit_circles``),
    search lines reaching into the circles others (K, 2), others_r (K,) [px] dropped.
    Returns (centres (M, 2), radii (M,), RMS (M,) [px], points used (M,))."""
    c, r, rms, n = limb_circles(image, LINEAR_LUT, np.ascontiguousarray(c, np.float64), np.full(c.shape[0], radius_px),
                                ray_directions(), np.asarray(LIMB_WIDTHS, np.float64), EDGE_STEP,
                                np.ascontiguousarray(local, np.float64), LIMB_DEPTH, *LIMB_CLOTH, LIMB_INNER,
                                np.ascontiguousarray(others, np.float64).reshape(-1, 2),
                                np.asarray(others_r, np.float64), (1 - RADIUS_TOLERANCE) * radius_px,
                                (1 + RADIUS_TOLERANCE) * radius_px, CIRCLE_ITERS)
    return c, r, rms, n


def lit_by_lamps(image: np.ndarray, hole: np.ndarray, model, c: np.ndarray, r: np.ndarray, radius_px: float,
                 rings: np.ndarray = np.zeros((0, 3)), white_glint: float = WHITE_GLINT) -> np.ndarray:
    """(M,) bool: which circles (centres c (M, 2), radii r (M,) [px] in the BGR uint8 ``image``) hold a
    lamp's highlight (``glints``, off the other circles and off the bands of the halo ``rings`` (K, 3: centre
    u, v, radius [px])) against the cloth ``model``'s lit cloth there: at
    least ``white_glint`` (WHITE_GLINT; UNLIT_GLINT where a projector's light was taken off) in the mean of
    the channels, and, for a centre within AT_POCKET radii ``radius_px``
    of the ``hole`` mask ((h/2, w/2) bool), at least GLINT in the strongest channel."""
    lit = model.brightness((c[:, 0] - 0.5) / 2, (c[:, 1] - 0.5) / 2)
    strongest, white = glints(image, c, r, c, r, rings, RING_BAND * radius_px).T
    out = white >= white_glint * lit * np.mean(model.chroma)
    weak = out & (strongest < GLINT * lit * np.max(model.chroma))
    out[weak] = ~at_pocket(hole, c[weak], radius_px)
    return out


def at_pocket(hole: np.ndarray, c: np.ndarray, radius_px: float) -> np.ndarray:
    """(M,) bool: which full-resolution centres c (M, 2) [px] lie within AT_POCKET radii ``radius_px`` of a pixel
    of the half-resolution ``hole`` mask (h, w) bool (one kernel call, not one a centre)."""
    return _in_discs(hole, np.ascontiguousarray(c, np.float64).reshape(-1, 2), AT_POCKET * radius_px / 2)


@njit(cache=True)
def _in_discs(mask, c, reach):
    """``at_pocket`` (numba): ``_any_in_disc`` about each centre c (M, 2) [px] taken to the mask's half
    resolution, reach [px] there."""
    out = np.empty(c.shape[0], np.bool_)
    for m in range(c.shape[0]):
        out[m] = _any_in_disc(mask, (c[m, 0] - 0.5) / 2, (c[m, 1] - 0.5) / 2, reach)
    return out


def on_straight_edges(image: np.ndarray | SmoothedNear, hole: np.ndarray, c: np.ndarray, r: np.ndarray,
                      cloth: np.ndarray, radius_px: float) -> np.ndarray:
    """(M,) bool: which circles (centres c (M, 2), radii r (M,) [px] in the BGR uint8 ``image``, or its
    ``SmoothedNear``: ``_smoothed``) with a centre within AT_POCKET radii ``radius_px`` of the ``hole`` mask
    ((h/2, w/2) bool) have at least STRAIGHT_SHARE of
    their outline points (the narrowest pass of ``outline_fits`` about the circle, no neighbour's lines
    stopped; unit BGR ``cloth``) within EDGE_TOL of one straight line (``on_a_line``). A round outline
    puts at most N_RAYS * acos(1 - 2 * EDGE_TOL / r) / pi of its points there (6-7 of 48 for a ball), a
    straight edge most of them."""
    out = np.zeros(c.shape[0], bool)
    at = np.flatnonzero(at_pocket(hole, c, radius_px))
    if not at.size:                       # (most fits)
        return out
    half_width = SEARCH_WIDTHS[-1]
    ca, ra = c[at], r[at]
    pts, strength = step_points(_smoothed(image).about(ca, ra + half_width), ca, ra,
                                half_width, cloth, SHADE_WEIGHT)
    tw = fit_circles(pts, strength >= WEAK_STEP, ca, ra)[3] > 0.5
    for k, i in enumerate(at):
        p = np.ascontiguousarray(pts[k][tw[k]], np.float64)
        out[i] = p.shape[0] >= MIN_ALIVE and on_a_line(p, EDGE_TOL, STRAIGHT_SHARE * p.shape[0])
    return out


@njit(cache=True)
def on_a_line(p, tol, need):
    """Whether at least ``need`` (float) of the points p (N, 2) float64 [px] lie within ``tol`` [px] of one straight
    line through two of them at least 2 ``tol`` apart (numba; a line's count stops once the points left
    cannot reach ``need``: the fits at pockets of a development frame 0.18 -> 0.13 ms against counting
    every line whole; numpy's pairs at once took 0.33 ms for one fit's 45 points)."""
    n = p.shape[0]
    if need <= 1:
        return n >= need
    for a in range(n):
        for b in range(a + 1, n):
            dx, dy = p[b, 0] - p[a, 0], p[b, 1] - p[a, 1]
            length = np.hypot(dx, dy)
            if length <= 2 * tol:
                continue
            count = 0
            for k in range(n):
                if abs((p[k, 1] - p[a, 1]) * dx - (p[k, 0] - p[a, 0]) * dy) < tol * length:
                    count += 1
                    if count >= need:
                        return True
                elif count + n - 1 - k < need:
                    break
    return False


@njit(cache=True)
def _any_in_disc(mask, px, py, reach):
    """Whether any pixel of the bool mask (h, w) at integer coordinates lies nearer than ``reach`` [px] to
    the point (px, py) [px] (pixel by pixel, stopping at the first)."""
    h, w = mask.shape
    x0, y0 = max(0, int(np.floor(px - reach))), max(0, int(np.floor(py - reach)))
    x1, y1 = min(w, int(np.ceil(px + reach)) + 1), min(h, int(np.ceil(py + reach)) + 1)
    for y in range(y0, y1):
        dy = y - py
        for x in range(x0, x1):
            dx = x - px
            if mask[y, x] and dx * dx + dy * dy < reach * reach:
                return True
    return False


def _unlit(half: np.ndarray, table: np.ndarray, r_half: float):
    """(the half-resolution BGR frame (h, w, 3) with the light a projector adds across the cloth taken
    off, its cloth model and lit brightness (h, w), fitted to its samples on ``table``, and the light
    taken off, ``vision.cloth.AddedLight``), or None where too little cloth is seen. The light is
    fitted (``light_taken_off``) to the cloth cells of ``table`` (h, w) bool (the play area off the
    pocket holes) under a cloth model of those samples (its lit wedge may then take a tinted
    light's direction from them); r_half: the ball radius [px]."""
    try:
        half, light = light_taken_off(half, *_cloth_model(half, table), table, r_half)
        return (half, *_cloth_model(half, table), light)
    except ValueError:
        return None


def _off_rings_and_sides(lined: np.ndarray, inside: np.ndarray, r_half: float) -> np.ndarray:
    """(h, w) bool: the pixels of the play area ``inside`` (h, w) bool at least BRIGHT_SIDE_CLEAR ball radii
    (``r_half`` [px], square windows) inside its edge (a lit cushion) and further than BRIGHT_LINE_CLEAR radii
    from a thin line's pixel (``lined`` (h, w) bool: the halo rings' remnants are brighter than the lit cloth
    too), where a pixel over GREY_BRIGHTER times the lit cloth's surface is foreground under a projector's
    light and halo rings (a white ball has the lit cloth's colour there)."""
    def square(radii):
        k = 2 * max(1, int(round(radii * r_half))) + 1
        return np.ones((k, k), np.uint8)
    return ((cv2.erode(inside.astype(np.uint8), square(BRIGHT_SIDE_CLEAR)) > 0)
            & (cv2.dilate(lined.astype(np.uint8), square(BRIGHT_LINE_CLEAR)) == 0))


def _two_tone(half: np.ndarray, model, bright: np.ndarray, classes: np.ndarray, poly: np.ndarray, region: np.ndarray,
              hole: np.ndarray, r_half: float):
    """(classes, poly, region): ``classify``'s bits (h, w) uint8 and the play area (``area_polygon`` and its
    mask (h, w) uint8) of a cloth of two tones, or None where the half-resolution BGR frame ``half`` (h, w, 3)
    shows none. A tinted projector that lights most of the cloth makes its lit colour the commonest: the
    cloth ``model`` (lit brightness ``bright`` (h, w)) then holds only the lit area, the unlit cloth round it
    is foreground (``classes`` its bits) and the play area ``poly`` (its mask ``region``) is the lit area's.
    Where TWO_TONE_SHARE of the sparse grid's samples lie off the model's lit wedge near its colour
    (``vision.cloth.unlit_samples``), and as many of those within TWO_TONE_BAND ball radii (``r_half`` [px]) of
    ``region`` (the unlit cloth beside the lit area, not the rails beyond), or else where a corner of ``poly``
    has no pocket of ``hole`` (h, w) bool near it (``vision.play_area.corner_pockets``: a lit area is no
    table), the wedge is turned towards the commonest colour of those samples by the play area
    (``unlit_light``); off the lit area (``cloth_region``) a pixel is cloth under either wedge and foreground
    under both, and the play area is found again, kept where it is at least TWO_TONE_GROW times the first and,
    in the second case, has a pocket at TWO_TONE_CORNERS of its corners and at more of them than ``poly``."""
    hh, hw = half.shape[:2]
    su, sv = _model_grids(hh, hw)[:2]
    near, ok = unlit_samples(half, bright, su, sv, model)
    k = 2 * int(round(TWO_TONE_BAND * r_half)) + 1
    band = cv2.dilate(region, np.ones((k, k), np.uint8))[sv, su] > 0
    shared = (np.count_nonzero(near) >= TWO_TONE_SHARE * np.count_nonzero(ok)
              and np.count_nonzero(near & band) >= TWO_TONE_SHARE * np.count_nonzero(ok & band))
    if not shared:
        at = corner_pockets(poly, hole, r_half)
        if at == 4:                                          # (most frames: the play area is the table's)
            return None
    near, ok = near & band, ok & band
    tinted = unlit_light(half[sv[ok], su[ok]], half[sv[near], su[near]], model)
    if tinted is None or tinted.lit == (0.0, 0.0):
        return None
    other = classify(half, tinted, bright)
    both = ((classes | other) & CLOTH) | (classes & other & ~np.uint8(CLOTH))
    both = np.where(cloth_region(classes) > 0, classes, both)
    poly = area_polygon(both)
    grown = area_mask(poly, both.shape)
    if np.count_nonzero(grown) < TWO_TONE_GROW * np.count_nonzero(region):
        return None
    if not shared and corner_pockets(poly, hole, r_half) < max(TWO_TONE_CORNERS, at + 1):
        return None
    return both, poly, grown


def _cloth_model(half: np.ndarray, table: np.ndarray | None = None):
    """(the cloth model, its lit brightness (h, w) float32) of a half-resolution BGR frame (h, w, 3)
    from a sparse grid of its pixels, those on ``table`` (h, w) bool only where given (then a
    tinted light's lit wedge may be taken from the samples, ``fit_cloth``). Raises ValueError
    (``fit_cloth``) where no cloth colour is found."""
    hh, hw = half.shape[:2]
    su, sv, cu, cv_ = _model_grids(hh, hw)
    if table is not None:
        on = table[sv, su]
        su, sv = su[on], sv[on]
    model = fit_cloth(half[sv, su], su, sv, 1.0 / max(hw, hh), table is not None)
    return model, cv2.resize(model.brightness(cu, cv_).astype(np.float32), (hw, hh), interpolation=cv2.INTER_LINEAR)


@functools.lru_cache(maxsize=4)
def _model_grids(hh: int, hw: int) -> tuple:
    """(su, sv, cu, cv), read-only, of ``_cloth_model`` for a half-resolution frame of hh x hw px: the
    sparse grid's columns and rows (GRID_CELLS along the shorter side), and the centres of the 8 px
    cells that the lit brightness is evaluated at before it is resized to the frame."""
    step = max(2, int(min(hw, hh) / GRID_CELLS))
    sv, su = np.mgrid[step // 2:hh:step, step // 2:hw:step]
    cu, cv_ = np.meshgrid(np.arange(0, hw, 8) + 3.5, np.arange(0, hh, 8) + 3.5)
    out = (su.ravel(), sv.ravel(), cu, cv_)
    for a in out:
        a.setflags(write=False)
    return out


@njit(cache=True)
def _on_rings(pts, c, rings, own, band, align):
    """(M, N) whether outline points pts (M, N, 2) [px] found about centres c (M, 2) lie on an arc of a
    halo ring (K, 3: centre u, v, radius [px]) about another centre (more than ``own`` [px], OWN_RING radii,
    from theirs): within ``band`` [px] (RING_BAND radii) of its circle, and with the ring running along
    their own circle there (its radius through the point within acos ``align`` (RING_ALIGN) of their search
    line's direction; a ring that crosses a ball's outline crosses it steeply)."""
    M, N = pts.shape[0], pts.shape[1]
    out = np.zeros((M, N), np.bool_)
    for m in range(M):
        reach = 0.0                                  # the farthest point from its centre
        for n in range(N):
            reach = max(reach, math.hypot(pts[m, n, 0] - c[m, 0], pts[m, n, 1] - c[m, 1]))
        for k in range(rings.shape[0]):
            u, v, rho = rings[k, 0], rings[k, 1], rings[k, 2]
            dc = math.hypot(c[m, 0] - u, c[m, 1] - v)
            if dc <= own or abs(dc - rho) > reach + band:   # its own ring, or one out of reach
                continue
            for n in range(N):
                dx, dy = pts[m, n, 0] - u, pts[m, n, 1] - v
                d = math.hypot(dx, dy)
                if abs(d - rho) > band:
                    continue
                rx, ry = pts[m, n, 0] - c[m, 0], pts[m, n, 1] - c[m, 1]
                if rx * dx + ry * dy >= align * d * math.hypot(rx, ry):
                    out[m, n] = True
    return out


def sheen_bodied(image: np.ndarray, model, c: np.ndarray, r: np.ndarray, angle: np.ndarray,
                 level: np.ndarray) -> np.ndarray:
    """(M,) bool: which circles (centres c (M, 2), radii r (M,) [px] in the BGR uint8 ``image``, its cloth ``model``
    with a projector's light taken off) are a sheen's remnant: a body of its cloth's colour (``angle`` (M,), its
    colour from the local cloth's, under EDGE_CHROMA_DEG [deg]) at SHEEN_LEVEL of its level or brighter, under
    BRIGHTER (``level`` (M,)), with a highlight (``glints``, mean of the channels) under SHEEN_GLINT times the lit
    cloth. A sheen left over plain cloth lifts its level a little and fits short arcs; a ball of the cloth's colour
    mirrors the lamps as every ball does."""
    lit = model.brightness((c[:, 0] - 0.5) / 2, (c[:, 1] - 0.5) / 2)
    white = glints(image, c, r, c, r)[:, 1]
    return ((angle < EDGE_CHROMA_DEG) & (level >= SHEEN_LEVEL) & (level < BRIGHTER)
            & (white < SHEEN_GLINT * lit * np.mean(model.chroma)))


def lit_fits(fits: tuple, spare: tuple, image: np.ndarray, hole: np.ndarray, model, unlike, radius_px: float,
             rings: np.ndarray = np.zeros((0, 3)), white_glint: float = WHITE_GLINT) -> tuple:
    """Of ``fits`` (idx, centres (K, 2), radii (K,), RMS (K,) [px], points (K,): the balls taken) those with a
    lamp's highlight (``lit_by_lamps``, with the ``hole`` mask (h/2, w/2) bool, the cloth ``model`` of
    the BGR uint8 ``image``, its halo ``rings`` (L, 3) [px] and ``white_glint``; ``radius_px`` the ball radius)
    or inside a pack of them (``in_a_pack``, with ``unlike(centres, radii, rms)`` (K,) the share of each
    circle's inside unlike cloth) or, off the pockets (``at_pocket``), round all the way (WHOLE_POINTS points or
    more, RMS below WHOLE_RMS), and the
    ``spare`` fits (``outline_fits``: dropped for a better-supported overlapping fit; the same arrays and
    their support (S,)) that then lie
    APART radii from every fit kept (the fit that beat one was no ball: a dark ball's projected shadow
    beside it), with a radius within SPARE_SIZE of ``radius_px``, of two closer than APART radii the better
    supported, each with a lamp's highlight off the circles of the rest."""
    on = lit_by_lamps(image, hole, model, fits[1], fits[2], radius_px, rings, white_glint)
    on |= in_a_pack(fits, on, image, hole, model, unlike, radius_px, rings, white_glint)
    whole = ~on & (fits[4] >= WHOLE_POINTS) & (fits[3] < WHOLE_RMS)
    whole[whole] = ~at_pocket(hole, fits[1][whole], radius_px)      # (a pocket's back wall may be drawn round)
    on |= whole
    fits = tuple(a[on] for a in fits)
    idx, c, r, rms, n = fits
    sc = spare[1]
    far = np.linalg.norm(sc[:, None] - c[None], axis=-1).min(axis=1, initial=np.inf) >= APART * radius_px
    k = np.flatnonzero(far & (np.abs(spare[2] / radius_px - 1) < SPARE_SIZE))
    if k.size == 0:                       # (most frames: every spare still beside a ball taken)
        return fits
    k = k[distinct(sc[k], spare[5][k], APART * radius_px)]
    k = k[lit_by_lamps(image, hole, model, np.concatenate([c, sc[k]]), np.concatenate([r, spare[2][k]]),
                       radius_px, rings, white_glint)[c.shape[0]:]]
    return tuple(np.concatenate([a, b[k]]) for a, b in zip(fits, spare))


def in_a_pack(fits: tuple, lit: np.ndarray, image: np.ndarray, hole: np.ndarray, model, unlike, radius_px: float,
              rings: np.ndarray = np.zeros((0, 3)), white_glint: float = WHITE_GLINT) -> np.ndarray:
    """(K,) bool: which of ``fits`` (idx, centres (K, 2), radii (K,), RMS (K,) [px], points (K,)) that hold no
    lamp's highlight (``lit`` (K,) bool False: ``lit_by_lamps`` with ``white_glint``) are balls of a pack: on a
    frame without halo ``rings`` ((L, 3) [px]: an arc's remnant between two balls reads as a dull highlight
    over a body unlike cloth), touching (TOUCHING of two radii ``radius_px``) at least PACK_TOUCHING of the fits
    that hold one, holding one of PACK_GLINT ``white_glint`` themselves (``lit_by_lamps`` with the ``hole``
    mask (h/2, w/2) bool and the cloth ``model`` of the BGR uint8 ``image``) and with at least LATTICE_SHARE of
    their inside unlike cloth (``unlike(centres, radii, rms)`` (M,)), as a rack's ball found at its lattice
    spot. A ball whose lamps' highlight is hidden (under a line drawn or projected across it) is still a ball
    where it sits among balls; a ball's shadow or a pocket's back wall lies beside the balls."""
    _, c, r, rms, _ = fits
    out = np.zeros(c.shape[0], bool)
    if lit.all() or not lit.any() or rings.shape[0]:        # (most frames)
        return out
    d = np.linalg.norm(c[:, None] - c[lit][None], axis=-1)
    k = np.flatnonzero(~lit & ((np.abs(d / (2 * radius_px) - 1) < TOUCHING).sum(axis=1) >= PACK_TOUCHING))
    if k.size:
        k = k[lit_by_lamps(image, hole, model, c, r, radius_px, rings, PACK_GLINT * white_glint)[k]]
    if k.size:
        k = k[unlike(c[k], r[k], rms[k]) >= LATTICE_SHARE]
    out[k] = True
    return out


@njit(cache=True)
def _alive(c, start, n, arcs, min_alive, radius, first):
    """((M,) bool the fits (centres c (M, 2) [px], points n (M,), ``arcs`` (M,) bool: on halo rings' arcs, no
    ball) that stay candidates after a pass of ``outline_fits``: at least min_alive points, on no arcs, within
    ``radius`` [px] of where they started (start (M, 2) [px]); (M,) bool those of them whose inside is judged
    (after the ``first`` pass only those within ``radius`` of another fit still a candidate: the fits a
    choice between overlapping fits weighs))."""
    M = c.shape[0]
    alive = np.empty(M, np.bool_)
    for m in range(M):
        dx, dy = c[m, 0] - start[m, 0], c[m, 1] - start[m, 1]
        alive[m] = n[m] >= min_alive and math.sqrt(dx * dx + dy * dy) < radius and not arcs[m]
    judged = alive.copy()
    if first:
        for m in range(M):
            near = 0
            for j in range(M):
                dx, dy = c[m, 0] - c[j, 0], c[m, 1] - c[j, 1]
                near += alive[j] and math.sqrt(dx * dx + dy * dy) < radius
            judged[m] = alive[m] and near > 1                # (an alive centre is near itself)
    return alive, judged


@njit(cache=True)
def _choose(c, r, rms, n, n_free, share, alive, first, radius, r_lo, r_hi):
    """The choice at the end of a pass of ``outline_fits`` among its fits (centres c (M, 2), radii r (M,), RMS
    rms (M,) [px], points n (M,), free lines n_free (M,), ``share`` (M,) of the inside unlike cloth, ``alive``
    (M,) bool, ``first`` pass or not; radius, r_lo, r_hi [px]): after the first pass a candidate's share is
    at least UNLIKE_SHARE (ROUND_SHARE below ROUND_RMS); of those within ``radius`` of each other, the one of
    a ball's size (r_lo to r_hi; a halo ring is not), then the most outline points (first pass) or most of
    its free lines with a point (later: a ball among balls has few), each times its share (``distinct``).
    Returns (the indices kept (K,), sorted; (M,) bool of a ball's size, (M,) support: points times the share,
    (M,) the next pass's radii: a fit too big for a ball (a halo ring) held at r_hi, so it claims no
    neighbour's edges, one too small (a number disc's edge on a ball of the cloth's colour) started again at
    ``radius``, so the next, narrower band lies on the outline)."""
    M = c.shape[0]
    sized = (r > r_lo) & (r < r_hi)
    support = n * share
    score = np.empty(M)
    for m in range(M):
        if not first:
            alive[m] = alive[m] and share[m] >= (ROUND_SHARE if rms[m] < ROUND_RMS else UNLIKE_SHARE)
        found = n[m] / max(n_free[m], 1) if not first else n[m]
        score[m] = found * share[m] + (N_RAYS if sized[m] else 0)
    cand = np.flatnonzero(alive)
    kept = _apart(c[cand], np.argsort(-score[cand], kind="mergesort"), radius * radius)
    r_next = np.where(r < r_lo, radius, np.minimum(r, r_hi))
    return cand[kept], sized, support, r_next


def _pulled_together(c: np.ndarray, start: np.ndarray, support: np.ndarray, taken: np.ndarray,
                     radius_px: float) -> np.ndarray:
    """(M,) bool: ``taken`` (M,) bool (the fits kept of those with centres c (M, 2) [px]) with the fits it
    dropped for overlapping a kept one taken back, the better supported first, where every kept fit closer
    than APART radii ``radius_px`` started from a candidate (``start`` (M, 2) [px]) at least START_APART
    radii from theirs and their support (``support`` (M,): points times the share of the inside unlike
    cloth) is at least PULLED_SUPPORT: two touching balls of a rack, each its own candidate, whose fits
    leaned into each other (a stripe's fit drawn onto its white cap)."""
    out = taken.copy()
    dropped = np.flatnonzero(~taken & (support >= PULLED_SUPPORT))
    for a in dropped[np.argsort(-support[dropped], kind="stable")]:
        k = np.flatnonzero(out)
        near = k[np.linalg.norm(c[k] - c[a], axis=1) < APART * radius_px]
        out[a] = (np.linalg.norm(start[near] - start[a], axis=1) >= START_APART * radius_px).all()
    return out


def _smoothed(image) -> SmoothedNear:
    """``image``, a BGR uint8 frame (h, w, 3) or its ``SmoothedNear`` by SMOOTH_SIGMA, as the latter: the searches of a
    frame share one, each square smoothed once (a real ringed frame's second search and the straight-edge test
    smoothed their squares again)."""
    return image if isinstance(image, SmoothedNear) else SmoothedNear(image, SMOOTH_SIGMA)


@functools.lru_cache(maxsize=8)
def _offsets(half_width: float) -> np.ndarray:
    """(K,) read-only: a search line's sample offsets [px] from its circle, STEP apart, half_width either side
    (as ``vision.steps.steps_along`` takes them)."""
    out = np.arange(-half_width, half_width + 1e-9, STEP)
    out.setflags(write=False)
    return out


@njit(cache=True)
def _search_pass(smooth, c, r, dirs, off, cloth, shade, min_step, strong, rings, own, band, align, ring_share,
                 iters, hole):
    """One pass of ``outline_fits`` about the circles c (M, 2), r (M,) [px] in the smoothed BGR uint8 image
    (h, w, 3), in one kernel (with the rest of the pass in numpy, glue took 0.6-1 ms of a real projected-text
    frame's 3 ms outline search): the strongest colour step (``vision.steps._step_points``: sample offsets
    ``off`` (K,) [px] along the ray directions dirs (N, 2), the unit cloth colour ``cloth`` (3,), ``shade`` its
    differences' weight off) on each search line whose point 1 px beyond the circle lies inside no other
    circle (free; only those are sampled: the others weigh nothing in the fit nor in the arcs' count), taken where
    its strength is at least min_step and it lies on no arc of the halo ``rings`` (J, 3) about other centres
    (``_on_rings`` with own, band, align) nor deep inside a circle on its lines into the pocket ``hole``
    ((h/2, w/2) bool; ``_off_hole``), and a robust circle fit (``_fit_circles``, iters steps) to those.
    Returns (centres (M, 2), radii (M,), RMS (M,) [px], points used (M,), those of them that are steps of
    at least ``strong`` (M,), free lines (M,), and (M,) bool: more than ring_share of its points on arcs)."""
    M, N = c.shape[0], dirs.shape[0]
    outline = np.empty((M, N, 2))
    normals = np.empty((M, N, 2))
    outer = np.empty((M, N, 2))
    for m in range(M):
        for k in range(N):
            for j in range(2):
                outline[m, k, j] = c[m, j] + r[m] * dirs[k, j]
                normals[m, k, j] = dirs[k, j]
                outer[m, k, j] = outline[m, k, j] + dirs[k, j]
    free = ~_inside_others(outer, c, r) if M >= 2 else np.ones((M, N), np.bool_)
    pts, strength = _step_points(smooth, outline, normals, off, cloth, shade, free)   # (a line not free: unused)
    valid = (strength >= min_step) & free
    arcs = np.zeros(M, np.bool_)
    if rings.shape[0]:
        on = _on_rings(pts, c, rings, own, band, align) & valid
        for m in range(M):
            arcs[m] = on[m].sum() > ring_share * valid[m].sum()
        valid &= ~on
    if hole.shape[0]:
        _off_hole(pts, strength, outline, outer, dirs, hole, min_step, free, valid)
    x, rms, tw = _fit_circles(pts, valid, c, r, iters)
    used = tw > 0.5
    n, n_strong, n_free = np.empty(M, np.int64), np.empty(M, np.int64), np.empty(M, np.int64)
    for m in range(M):
        n[m], n_strong[m], n_free[m] = used[m].sum(), (used[m] & (strength[m] >= strong)).sum(), free[m].sum()
    return x[:, :2].copy(), x[:, 2].copy(), rms, n, n_strong, n_free, arcs


@njit(cache=True)
def _off_hole(pts, strength, outline, outer, dirs, hole, min_step, free, valid):
    """In place, for each circle (outline points pts (M, N, 2) [px] of step strength (M, N), found on the search
    lines through outline (M, N, 2) along dirs (N, 2)) with at least HOLE_LINES free lines whose point 1 px beyond
    the circle (outer (M, N, 2)) lies in the pocket ``hole`` ((h/2, w/2) bool) and whose step is under min_step (its
    outline has no step against the hole: a dark ball in a pocket's mouth): its lines into the hole are not free
    (``free`` (M, N) bool: it is judged on its other lines) and their points more than HOLE_INWARD px inside the
    circle are not ``valid`` (M, N) bool (its highlight's edge, the strongest step on such a line, pulled the
    drawn dark balls' fits 4-7 px away from the hole). (The lines' ends 3 or 6 px beyond the circle in the hole
    took a green ball beside a side pocket, its weak outline on cloth, 5 px off: rendered seed 5, sheen.)"""
    M, N = pts.shape[0], pts.shape[1]
    hh, hw = hole.shape[0], hole.shape[1]
    into = np.empty(N, np.bool_)
    for m in range(M):
        weak = 0
        for k in range(N):
            ix = int(math.floor((outer[m, k, 0] - 0.5) / 2 + 0.5))      # (its half-resolution pixel)
            iy = int(math.floor((outer[m, k, 1] - 0.5) / 2 + 0.5))
            into[k] = 0 <= ix < hw and 0 <= iy < hh and hole[iy, ix]
            weak += into[k] and free[m, k] and strength[m, k] < min_step
        if weak < HOLE_LINES:
            continue
        for k in range(N):
            if into[k]:
                free[m, k] = False
                depth = ((pts[m, k, 0] - outline[m, k, 0]) * dirs[k, 0]
                         + (pts[m, k, 1] - outline[m, k, 1]) * dirs[k, 1])
                if depth < -HOLE_INWARD:
                    valid[m, k] = False


def outline_fits(image: np.ndarray | SmoothedNear, c: np.ndarray, radius_px: float, unlike, cloth: np.ndarray,
                 rings: np.ndarray = np.zeros((0, 3)), hole: np.ndarray = np.zeros((0, 0), np.bool_)):
    """Circles fitted to the outline points at the strongest colour step about candidate centres
    c (M, 2) [px] in a BGR uint8 image, smoothed by SMOOTH_SIGMA where the search lines run
    (``vision.steps.SmoothedNear``; ``image`` may be one, shared: ``_smoothed``): SEARCH_WIDTHS passes, each a
    robust circle fit
    to the steps of at least MIN_STEP (the first pass) or WEAK_STEP (the narrower ones). Steps
    along the cloth's colour (unit BGR direction ``cloth``: shadows, lighting, a halo) weigh
    SHADE_WEIGHT of a change of colour. After each pass a fit stays a candidate with at least
    MIN_ALIVE consistent points, within a radius of where it started, ``unlike(centres, radii, rms)``
    ((K,) the share of its inside unlike cloth, from the second pass) at least UNLIKE_SHARE (at
    least ROUND_SHARE for a fit with a residual RMS below ROUND_RMS), and no better fit within a
    radius of it (ball-sized fits first, then, each times the share of its inside unlike cloth, more
    points in the first pass, a larger share of its free search lines with a point after it); only
    those stop their neighbours' search lines (the point 1 px beyond the circle inside another
    circle). The next pass searches about each fit's circle, a fit smaller than a ball restarting at
    radius_px and a larger one held at the largest ball size.
    Returns the balls (idx (K,) the candidates accepted, their centres (K, 2), radii (K,), fit RMS (K,)
    [px], points used (K,)) and the spares (the same arrays of the fits dropped for overlapping a better
    one, and their support (S,): points times the share of the inside unlike cloth): at least
    MIN_POINTS points, RMS below RMS_MAX (below WEAK_RMS unless MIN_POINTS of the points are steps of MIN_STEP: a ragged weak outline is no ball), where a fit's
    neighbours stopped most of its search lines (a rack's inner ball) HEMMED_SHARE of its free lines
    (at least MIN_ALIVE) in place of MIN_POINTS in both, radius within
    RADIUS_TOLERANCE of radius_px, and of two closer than APART radii (balls do not overlap: a
    circle on a projector's halo ring beside a ball) the one with more points (both where their
    candidates lay nearly two radii apart, ``_pulled_together``). From the second pass,
    outline points on the arcs of ``rings`` (K, 3: centre u, v, radius [px], default none) about other
    centres (``_on_rings``) are left out of the fit, and a fit with more than RING_SHARE of its points
    there is no candidate (a circle on halo rings' arcs, or a ball's fit pulled onto them: another
    candidate of the ball can then stay). A circle whose outline has no step against a pocket ``hole``
    ((h/2, w/2) bool, default none) is fitted without the steps deep inside it on its lines into the hole,
    and judged on its other lines (``_off_hole``)."""
    r_lo, r_hi = (1 - RADIUS_TOLERANCE) * radius_px, (1 + RADIUS_TOLERANCE) * radius_px
    idx = np.arange(c.shape[0])
    smooth = _smoothed(image)
    unit = np.asarray(cloth, np.float64) / np.linalg.norm(cloth)
    rings = np.ascontiguousarray(rings, np.float64).reshape(-1, 3)
    start = c = np.ascontiguousarray(c, np.float64)
    r = np.full(c.shape[0], radius_px)
    for i, half_width in enumerate(SEARCH_WIDTHS):
        # (from the second pass, no point on a halo ring's arc: the first pass's circles may still be off their
        # balls; a fit on those arcs is no ball, a ball's fit takes its own outline without the arcs across it)
        c, r, rms, n, n_strong, n_free, arcs = _search_pass(
            smooth.about(c, r + half_width), c, r, ray_directions(), _offsets(half_width), unit,
            1.0 - SHADE_WEIGHT ** 2, WEAK_STEP if i else MIN_STEP, MIN_STEP, rings if i else rings[:0],
            OWN_RING * radius_px, RING_BAND * radius_px, RING_ALIGN, RING_SHARE, CIRCLE_ITERS, hole)
        alive, judged = _alive(c, start, n, arcs, MIN_ALIVE, radius_px, i == 0)
        share = np.ones(c.shape[0])
        share[judged] = unlike(c[judged], np.clip(r[judged], r_lo, r_hi), rms[judged])
        keep, sized, support, r_next = _choose(c, r, rms, n, n_free, share, alive, i == 0, radius_px, r_lo, r_hi)
        idx, c, r, rms, n, start, sized = idx[keep], c[keep], r_next[keep], rms[keep], n[keep], start[keep], sized[keep]
        n_strong, support, n_free = n_strong[keep], support[keep], n_free[keep]
    # a ball hemmed in by balls (a rack's inner ball) shows its outline only between them: most of its free lines
    def enough(k):
        return (k >= MIN_POINTS) | ((k >= MIN_ALIVE) & (k >= HEMMED_SHARE * n_free))
    good = np.flatnonzero(sized & enough(n) & (rms < np.where(enough(n_strong), RMS_MAX, WEAK_RMS)))
    taken = np.zeros(good.size, bool)
    taken[distinct(c[good], support[good], APART * radius_px)] = True   # balls do not overlap
    taken = _pulled_together(c[good], start[good], support[good], taken, radius_px)
    arrays = (idx, c, r, rms, n, support)
    return tuple(a[good[taken]] for a in arrays[:5]), tuple(a[good[~taken]] for a in arrays)
