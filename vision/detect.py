"""Find every ball in a frame and locate its centre to a fraction of a pixel.

Two modes share one pipeline:

* calibrated (``TableDetector``): with a posed camera and the table geometry, the work is
  restricted to the table, the expected ball size is known everywhere, the empty table's own
  pockets and edges are known, and each centre is solved in 3-D on the plane z = R;
* pixels only (``vision.detect_pixels.detect_in_pixels``): any table, any balls, given their
  approximate radius in pixels; it reuses the candidates here and finds the cloth in the image.

Stages, each a function over arrays (first, where the camera's cloth colour is calibrated and a frame's cloth has
drifted from it, the frame is brought back to it: ``TableDetector.white_balanced``, ``vision.white_balance``):

0. ``TableDetector.unlined`` (``vision.thin_lines``): thin lines of added light (a projector's halo
   rings, which cross a rack's balls and vote for false centres) are replaced by the surface under
   them, in the half-resolution crop and then near them in the frame; identification reads that frame.
1. ``fit_cloth`` (``vision.cloth``): the cloth's colour direction (a shadow scales the colour and keeps it) and its
   lit brightness over the image (a quadratic surface), from a sparse grid of pixels, per frame.
   Where the model has a lit wedge (a projector's light) and step 0 found no halo rings, that light is
   fitted over the cloth and taken off (``TableDetector.unlit``; a ball lit into the cloth's colour
   shows again), and the cloth refitted; in a JPEG frame (``jpeg_frame``) only in a second search
   (a sheen over the lit area is more light than the fit and stays on, and JPEG's blocks make its
   remnant solid foreground whose edges fit arcs); in a frame searched once so, outlines are sought against a
   cloth with that sheen's white on it (``refine``, ``unlit``). Where it found rings too, the light fitted beside
   them (``light_under_rings``) is taken off the whole frame and steps 0-7 run again on it. The balls that a
   second search adds are kept where they hold up as balls (``TableDetector.added_kept``).
2. ``foreground`` (half resolution): pixels off the cloth's colour, or darker than any shadow, or
   brighter than BRIGHTER times the lit cloth (a white ball on a cloth of its hue). On a grey cloth
   (white light keeps its colour) the lit brightness follows a lit area (``lit_surface``) and
   GREY_BRIGHTER is used.
3. ``candidates`` (``vision.candidates``): peaks of radial-symmetry votes inside blobs of foreground
   that fill a ball-sized square; touching balls vote for their own centres, chalk marks and
   specks are too small. After steps 4-6 for those, ``shape_candidates`` (``vision.shape_candidates``):
   peaks of the same votes away from the balls found, near dim pixels (a ball of the cloth's own hue
   is no foreground; its darker limb and shadow show it), each fitted on its own (its outline on its
   darker limb, ``vision.limbs``) and kept with SHAPE_MIN_EDGES outline points of 48 (counted over the
   search lines clear of its neighbours; one kept on fewer gives way to a second search's ball in its place),
   spanning SHAPE_SPAN of the part of its circle on open cloth (``voting_share``: a sphere's limb is dark all
   round, a sheen's edge on one side); by a pocket, a far darker one is searched for its step down and its limb.
4. Outline points along the normals of each ball's predicted outline (``silhouette_circles``):
   where the profile leaves the cloth, then to sub-pixel where a pixel is half ball, half
   background in linear light (``outline_points``; kernels in ``vision.edges``; in a JPEG frame a
   step mostly in colour, smeared at half resolution, is first read REFINE_SIDE px either side). Lines running
   into another ball are dropped. Where a projector or sheen changes the cloth's colour, "the
   cloth" is the ball's own (``local_cloth``), with white light added up to OUTLINE_LIT of the way
   to white (the cloth beside a ball can be whiter than where its colour was read). Where no halo
   rings were taken out, or on a grey cloth, a colour much brighter than the cloth is ball too (a white ball on a grey
   cloth; under rings only about a ball of the cloth's hue far brighter than it, ``vivid_bright``), and a
   ball of about the cloth's colour is searched for half its own angle from it, unrefined (``edge_chroma_deg``;
   its darker limb's points, ``vision.limbs``, where there are more of them). In a JPEG frame, whose colour is
   smeared ~2 px out over the cloth, every other ball is searched for BLOCKY_CHROMA_SHARE of its own angle from
   the cloth (EDGE_CHROMA_DEG to BLOCKY_CHROMA_DEG), so that the refine reaches its outline.
5. ``fit_spheres`` (``vision.fits``): the sphere centre (x, y, R) and an effective radius rho for which every outline
   ray is tangent to the sphere (distance from the centre to each ray = rho), robust Gauss-Newton.
   This is exact under perspective: the centre of the ellipse a ball projects to is not the image
   of its centre, and a cloth-plane mapping misplaces it by the parallax d R / (H - R). rho takes
   up an offset of the edge finder that is the same all round; in the last of three passes it is
   held near the frame's own (a partial outline cannot tell it from the centre); in a JPEG frame with
   no light added to the cloth its points then move LUMA_BLEND of the way to the luma's own step
   (``vision.edges.luma_points``, about the fitted outline) for a final fit, without the points
   beside a white number disc at the limb (``white_at_limb``). A fit's residual
   limit is the larger of a fixed one and twice the frame's median residual (JPEG).
6. A ball hidden inside a rack shows too little outline; where it touches at least CONTACT_MIN
   located balls (touching to CONTACT_SLACK, or more in a frame of rough outlines), it is placed by
   those contacts (``place_by_contacts``; sought CONTACT_SEEK R further out where its start is far off,
   at least CONTACT_SEEK_MIN of them; a fit that left its start by R, onto a neighbour, is put back
   there for this). On a grey cloth a rack's ball with no candidate (washed or of the cloth's hue under rings or a
   projector's white light, or its gaps smeared by JPEG) is placed at the spot where it touches at least
   CONTACT_SEEK_MIN balls found, and kept where its body (under rings) or a lamp's highlight (without) shows a
   ball (``spot_balls``). Each
   placed ball is then solved again against every ball located by then (CONTACT_SWEEPS times), and kept only
   where its body is not its cloth (``cloth_body``: an empty gap among loose balls touches three too). Balls
   cannot overlap (``separate_overlaps``), nor overhang a cushion: a held fit's centre is moved onto the bed (R
   inside the cushion noses; not by a pocket) before the short-arc, overlap and contact rules use it
   (``onto_bed``). A fit to fewer than FEW_EDGES outline
   points (a short arc, such as what is left of a halo ring) is a ball only where its square is full
   of foreground, and none where it overlaps a fit with more points (``apart``).
7. ``without_intruders`` (``vision.intruders``): no fit on a hand or an arm, foreground that came
   in over the rail, unless its outline is a ball's.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields

import cv2
import numpy as np

from planner.jit import njit
from planner.table import Table
from vision import edges as _edges
from vision.balls import LINEAR_LUT, SRGB_LUT, linear_to_srgb, srgb_to_linear
from vision.camera import (
    CameraModel,
    pixel_rays,
    pixels_to_table,
    silhouette_circles,
    sphere_silhouettes,
    table_to_pixels,
)
from vision.candidates import candidates, distinct, fill_at, known_sums
from vision.cloth import (
    CHROMA_TAN,
    ClothModel,
    _off_cloth,
    added_light_field,
    colour_angle,
    fit_cloth,
    foreground,
    grey_cloth,
    light_taken_off,
    lit_surface,
    take_off_light,
)
from vision.fits import fit_spheres
from vision.glints import glints
from vision.intruders import clear_of_intruders, reach_in_band
from vision.limbs import limb_points
from vision.scene import CLOTH, CUSHION, NOSE_FACE, POCKET, RailGeometry, TableScene
from vision.shape_candidates import shape_candidates, voting_share
from vision.thin_lines import remove_thin_lines, take_line_edges
from vision.white_balance import bring_back, unit_bgr

LINE_REACH = 0.5                       # ball radii: thin lines of added light (halo rings) this far across
                                       # are taken out first (pixel-only mode's 0.35: halo x20 92.5 %; 0.5: 95.0 %;
                                       # 0.65: false balls) ...
LINE_MIN = 100                         # ... where at least this many half-resolution pixels lie on lines (rendered:
                                       # clean frames 13-67, stripes' edges and highlights; halo rings 130-765)
BRIGHTER = 2.0                         # foreground too: brighter than this many times the lit cloth (a white ball on a
                                       # grey cloth of its own hue; gentle x20 95.4 -> 97.1 %; 1.5 / 1.8 cost balls or
                                       # names under all hard options, 2.0-2.2 moved nothing else)
GREY_BRIGHTER = 1.5                    # ... on a grey cloth, against its lit surface (``lit_surface``: the cloth within
                                       # 1.06 of it at p99 under a projector; hard x20 1.4-1.5: 80.5 %, 1.6: 79.5 %,
                                       # 1.8: 76.8 %)
UNLIT_REACH = 4.0                      # ball radii about each candidate where the frame's projector light is taken
                                       # off (its outline search, cloth rings to 4 outline radii, identification;
                                       # 5 -> 4: every frame result equal to the bit, a projector frame's take-off
                                       # 1.15 -> 1.00 ms; 3 and 3.5 the same scores, but the widest ring's far side
                                       # left lit)
# outline points (full resolution, linear light)
N_RAYS = 48                            # search lines per ball
SEARCH_WIDTHS = (3.0, 1.5, 1.5)        # px either side of the predicted outline, per pass (the third: a JPEG-blurred
                                       # outline is found further out, and the second fit starts nearer)
EDGE_STEP = 0.5                        # px between samples along a search line
EDGE_CHROMA_DEG = 8.0                  # colour further than this from the cloth's: ball
DARK_LINEAR = 0.2                      # darker than this share of the lit cloth: ball (the 8)
DARK_BODY = 0.6                        # a shape candidate of its cloth's hue with a body darker than this share of
                                       # its cloth is searched for the step down to it (the 8 lit to a grey cloth's
                                       # hue: 0.27-0.505 of it, the lamp's highlight band on it), ...
SUNK_STEP = 0.25                       # ... taken where the level is this share of the way up from the body's to the
                                       # cloth's in log brightness (half-way: 1.06-1.11 R, its shadow read as ball)
BRIGHT_LINEAR = 2.5                    # brighter than this many times the lit cloth: ball (of the cloth's hue)
EDGE_MIN_SHARE = 0.1                   # weakest step accepted, as a share of the lit cloth
LOW_CONTRAST_DEG = 10.0                # a ball whose body colour is this close to the cloth's colour (a maroon ball on a
LOW_LEVEL = 0.4                        # red cloth, a green one on green) and between this share of the cloth's level and
                                       # BRIGHT_LINEAR times it is searched with EDGE_OWN_SHARE of that angle, and its
                                       # points are not refined (its darker rim makes the half-way point ambiguous) ...
EDGE_OWN_SHARE = 0.5
EDGE_MIN_DEG = 3.0                     # ... but at least this (a cloth's texture: ~1 degree)
REFINE_REACH = 1.0                     # px a refined outline point may move
BLOCKY_CONTRAST = 1.2                  # a frame stepping this many times more across JPEG's 8x8 block columns than
                                       # elsewhere (``block_contrast``: raw 1.00-1.04, JPEG q95-q60 1.35-1.7), or
HALF_COLOUR = 0.6                      # whose colour is half-resolution this exactly (``half_colour``: raw, 4:4:4
                                       # 0.83-1.14; 4:2:0 q60-q100 0.23-0.43, where q100's blocks hardly step) ...
REFINE_SIDE = 2.0                      # ... refines an outline point whose step is mostly in colour (luma share
LUMA_SHARE = 0.85                      # below this: JPEG keeps colour at half resolution) between the colours this
                                       # many px either side first, then 1 px (x20 q60: 1.91 -> 1.33 mm; side 2.5 /
                                       # 3: same RMS, fewer balls in the hard set; every step wide: the white cue
                                       # ball's MJPG track moves)
# acceptance
LOCAL_RINGS = (2.0, 3.0, 4.0)          # a ball's local cloth colour is read on rings this many outline radii out ...
LOCAL_WHITE = 0.85                     # ... as the cloth's colour with white light added up to this share of the way to white ...
LOCAL_MIN = 4                          # ... from at least this many of 16 cloth-coloured samples
OUTLINE_RINGS = (2.0, 3.0)             # ... of these rings for its outline search (the widest reaches a less lit part)
OUTLINE_LIT = 0.2                      # ... taking its colour with white light added up to this share of the way to
                                       # white for cloth (hard x20 67.3 -> 71.4 %, 2.01 -> 1.58 mm; 0.5 lost sheen
                                       # balls); so is the frame's cloth where a projector's light is taken off
                                       # (a sheen)
LOCAL_OWN_DEG = 3.0                    # a ball whose local cloth is this far from the frame's uses its own
RMS_MAX_PX = 0.6                       # a ball's outline fits its sphere (circle) to this RMS [px] near a pocket ...
RMS_MAX_SHARE = 0.055                  # ... and to this share of its outline radius elsewhere (JPEG blocks
                                       # roughen an outline: 0.7 px at 12.8 px; 0.07 let a mis-fitted ball
                                       # through on the wide-angle lens test)
RHO_TOLERANCE = 0.15                   # a ball's fitted radius is within this share of R
FRAME_RMS_FACTOR = 4.0                 # ... or to this many times the frame's median fit RMS (its own outline
FRAME_MIN_FITS = 5                     # noise: JPEG q60 ~0.5 px, clean ~0.08 px) where this many balls were fitted
                                       # (2.5 dropped q60 cushion balls, a short arc of rough rays: x20 seed 41
                                       # 98.4 -> 99.2 %, seed 77 96.6 -> 99.2 %; the fewest fits whose median is a
                                       # smooth fit's with two of them rough: 6 lost two balls of a 5-ball frame)
WHOLE_SHARE = 0.75                     # a ball showing this share of its outline rays measures rho; with at least
RHO_FRAME_MIN = 3                      # ... this many such balls their median rho (else R) is the prior of the
RHO_PRIOR_RAYS = 8.0                   # ... last fit, held with this many rays' weight
SHRUNK = 0.92                          # a whole outline fitting rho under this share of that prior lies inside its
                                       # ball on one side (a white cap's edge beside a stripe of the cloth's colour):
                                       # sought again (``TableDetector._shrunk_again``). Whole outlines' rho / prior,
                                       # x20: gentle seeds 5 / 41, default, JPEG, sheen >= 0.947; the stripe balls
                                       # of gentle seed 77 0.864 / 0.883 (docs/vision.md, step 5); under halo rings
                                       # or JPEG only a fit the rho test drops (under 1 - RHO_TOLERANCE of R)
ROUGH_SHARE = 0.5                      # under a projector's light taken off, an outline over this share of the rays
                                       # fitted rougher than RMS_MAX_SHARE is sought so too (projector seed 400 frame 3,
                                       # a green 14 on green: 35 rays at 0.82 px, its cap's edge; sought again 0.23 px)
BLOCKY_CHROMA_SHARE = 0.35             # in a JPEG frame a colour is ball from this share of the ball's own angle from
BLOCKY_CHROMA_DEG = 30.0               # the cloth, between EDGE_CHROMA_DEG and this (JPEG smears colour ~2 px out:
                                       # 8 deg is reached 1.7-2.1 px outside the outline, beyond REFINE_REACH;
                                       # q60 x20 1.12 -> 0.81 mm, hard 1.32 -> 1.20 mm)
RHO_FRAME_MIN_BLOCKY = 1               # ... in a JPEG frame one such ball is enough (a rack frame's cue ball tells
                                       # its outward offset; with R the rack's edge balls sat 1.5 mm out: JPEG q60
                                       # x20 1.33 -> 1.12 mm)
LUMA_BLEND = 0.7                       # in a JPEG frame with no light added to the cloth, each outline point moves
                                       # this share of the way to where the luma alone steps half-way (the colour
                                       # is at half resolution and coarsely quantised: with clean colour the same
                                       # frames fit ~3x better) about the last fit's outline
                                       # (``vision.edges.luma_points``; q60 x20 seeds 5 / 41 / 77: 0.83 / 0.96 /
                                       # 0.92 -> 0.78 / 0.91 / 0.84 mm; 0.5: 0.78 / 0.94; 1: 0.80 / 0.91) ...
LUMA_SIDE = 1.0                        # ... between the luma this many px either side ...
LUMA_REACH = 1.5                       # ... at most this far from the last fit's outline ...
LUMA_MIN = 2.0                         # ... where the two differ by at least this (8-bit levels); of those points
WHITE_LIMB = 90.0                      # ... one whose luma just inside is this many 8-bit levels above both the cloth's
WHITE_IN = (1.5, 2.5)                  # just outside and the ball's body (read this many px in, the brighter, and
WHITE_OUT = 2.5                        # this many px out) is dropped: a number disc at the limb, whose dark rim JPEG
                                       # smears away, put it ~0.7 px in (q60 x20 seeds 5 / 41 / 77: 0.77 / 0.91 /
                                       # 0.85 -> 0.73 / 0.87 / 0.81 mm; 60: 0.73 / 0.89, 120: 0.73 / 0.88)
RING_CLEAR = 2                         # half-resolution px: the light under halo rings is fitted on cloth this clear of
                                       # the lines (their remnants bump it over a rack)
FEW_EDGES = 13                         # a ball fitted to fewer outline points than this (a short arc: a halo
FEW_FILL = 0.75                        # ring's left-over) needs its square this full of foreground
SHORT_SPAN = 0.5                       # a second search's ball needs outline points spanning this share of its circle
                                       # (a shorter arc fits a halo ring's arc as well as a ball's outline) ...
SHORT_FILL = 0.95                      # ... unless its square is this full of foreground and its body is EDGE_CHROMA_DEG
                                       # from the cloth (or brighter than BRIGHTER times it, or darker than DARK_LINEAR
                                       # of it): a ring's remnant is the cloth's colour with white added
SHORT_DIM = 0.85                       # ... or its body dimmer than this share of the cloth (a ball of the cloth's hue;
                                       # a remnant or a lit edge's step is the cloth with light added: 0.92 or more)
SHORT_DIMMER = 1.0                     # ... or, fitted to its own outline, a body EDGE_CHROMA_DEG from the cloth and
                                       # dimmer than this share of it, on any square (a remnant is neither)
SHORT_FAR = 4.0                        # ... or, fitted to its own outline, it lies this many R from every ball found (a
                                       # halo ring's arc lies a ring radius, 1.6-2.2 R, from its ball; a circle on it
                                       # within R more)
REMOTE_SPAN = 0.75                     # ... and a rough fit (the frame's limit) SHORT_FAR R from every ball found
                                       # whose points span this share of its circle needs no FEW_FILL (a ball of its
                                       # cloth's hue is little foreground; a lit area's edge or a ring's arc is one
                                       # side of a circle: remote rough arcs 0.42-0.73, balls 0.81-0.83; stop 52)
SMOOTH_SHARE = 0.5                     # ... or its fit's RMS is under this share of the median of the search's own
                                       # fits (JPEG roughens a frame's outlines alike: refused short arcs 0.85-1.9
                                       # of it, the true ball 0.26; lit_jpeg seeds 5 / 41 / 30, hard 5 / 30; stop 53)
WHITE_ADDED_DEG = 20.0                 # a second search's ball is refused where its body (median and dimmest samples)
                                       # is its cloth with light this near white added (``white_added``: the sheen a
                                       # projector's fitted light leaves on; lit_jpeg seeds 5 / 41 / 77: false balls
                                       # 0.5-17.3 degrees, real balls' larger of the two 43-155)
BODY_DIMMEST = 12                      # a second search's ball placed against the first search's balls has a body
                                       # unlike its cloth in its dimmest 12 of 32 samples (an empty gap in a ringed
                                       # rack: the rings' remnants bright, the cloth in the neighbours' shadow dim)
HOLLOW_SHARE = 0.1                     # a fit with fewer outline points than this share of its search lines clear of
                                       # neighbours shows no outline; with a body of its cloth's hue (within
                                       # LOW_CONTRAST_DEG) at 1 to BRIGHTER times its level (a sheen's streak beside a
                                       # ball), or SPOT_DARK to BRIGHTER with no outline point at all (a gap among
                                       # balls, the cloth in their shade), its circle ends no neighbour's search line
                                       # in the next pass (a projector's light taken off, not JPEG; docs/vision.md
                                       # step 6, stop 53)
BODY_TURN_DEG = 30.0                   # a pass's body colour turned this far from the last pass's (that found MIN_EDGES
                                       # outline points or more) ...
BODY_TURN_LEVEL = 2.0                  # ... and this many times brighter is a two-coloured ball's white part read after
                                       # its coloured one: the pass keeps the last colour (``turned_far``; lit_jpeg
                                       # seed 77 frame 11's 10: 39 degrees, 2.2 times; the turns that collapsed a pass
                                       # elsewhere, seeds 5-400: 0.4-29 degrees, or 31-38 but dimmer; stop 53)
MIN_EDGES = 8                          # a ball needs at least this many consistent outline points
SHAPE_MIN_EDGES = 20                   # a ball from shape alone (``vision.shape_candidates``) needs this many of
                                       # N_RAYS, pro rata over its lines clear of neighbours (16 let 4-5 mm fits with
                                       # 17-19 points through under the hard options; a second search's ball replaces
                                       # one kept on fewer, ``Detections.provisional``) ...
SHAPE_SPAN = 0.5                       # ... spans with its points this share of the part of its circle that may vote
                                       # (``voting_share``: not on the table's own edges; rendered shape balls 0.58+
                                       # on open cloth, 0.46 above a pocket; a sheen's edge 0.42 on open cloth) ...
SHAPE_GAP = 1.8                        # ... and lies at least this many R from every ball found from colour; of the
LIMB_DEPTH = 0.15                      # cloth's hue, its outline is where its level (share of its cloth's) is lowest,
LIMB_CLOTH = (0.6, 1.3)                # at least LIMB_DEPTH below the cloth outward, which lies within LIMB_CLOTH of its
LIMB_INNER = 1.5                       # level, and darker than that cloth LIMB_INNER px inward (``vision.limbs``)
MIN_EDGES_PIXELS = 20                  # ... in pixel-only mode, with no table model to vet candidates
LIMB_NEAR_SHARE = 0.2                  # under halo rings a ball of its cloth's hue (``edge_chroma_deg``) whose search lines
                                       # run into neighbours at most this share of them, on a short colour arc (under
                                       # FEW_EDGES points), takes its darker limb's points where FEW_EDGES or more are found
CONTACT_MIN = 3                        # placed by contacts: at least this many touching balls (4: halo x20 95.0 %,
                                       # JPEG 86.2 %; 3: 97.5 %, 87.9 %, no false ball)
CONTACT_SLACK = 0.004                  # [m] neighbours this close to touching are taken to touch
CONTACT_SEEK = 0.5                     # ... sought this many R further out from a candidate's start (inside a rack
                                       # the start is 5-12 mm off the ball: its neighbours' outlines vote too) ...
CONTACT_SEEK_MIN = 4                   # ... and then touching at least this many (a rack's inner and edge balls touch
                                       # 4-6; three loose balls touch an empty gap among them)
CONTACT_SWEEPS = 3                     # placed balls solved again this many times against every ball located by then
                                       # (a fourth to sixth sweep moves them 0.1-0.3 mm more, no better)
CONTACT_RMS_FACTOR = 8.0               # ... or this many times the frame's median fit RMS (JPEG q60: ~8 mm, as its
                                       # rack's edge balls are 2-5 mm off; clean frames keep 4 mm)
CONTACT_FILL = 0.6                     # the square at a placed centre is this full of ball (0.85 lost a black 8 whose
                                       # white disc and neighbours' white on a grey cloth are no foreground: 0.66;
                                       # rendered placed balls otherwise >= 0.89, a false one 0.39)
SPOT_ROUNDS = 3                        # a grey cloth's rack: rounds of balls placed at its spots
                                       # (``spot_balls``: each round's balls are the next one's contacts)
SPOT_GLINT = 2.0                       # ... with no rings, a spot is a ball where it shows a lamp's highlight this many
                                       # times the dimmer of its body and its lit cloth (``highlight_over_body``; grey
                                       # racks with each inner ball taken out in turn, LIT_JPEG and LIT_SHEEN, 1179
                                       # spots: 669 balls >= 2.78, 510 empty spots <= 1.49)
SPOT_DARK = 0.75                       # a body of the cloth's hue darker than this share of the cloth about it is a
                                       # ball's (a racked black 8 lit to the cloth's hue by a projector's white light:
                                       # 0.39-0.77; an empty spot, the cloth in its neighbours' shadow: 0.91-1.24 lit,
                                       # 0.79-1.15 unlit; in a JPEG frame beside a black ball 0.29-0.62)


@dataclass(frozen=True)
class Detections:
    """Balls found in one frame (M of them), all arrays indexed alike.

    px: (M, 2) image position of each centre [px] (calibrated: the projection of the sphere centre,
    not the outline's centre); r_px: (M,) mean outline radius [px]; xy: (M, 2) table position of
    the centre [m] (NaN in pixel-only mode); rms_px: (M,) edge-fit residual RMS [px];
    n_edges: (M,) edge points used (0 for a ball placed by its touching neighbours, see
    ``place_by_contacts``); fill: (M,) foreground share at the candidate; cloth_v: (M,) the
    cloth's 8-bit HSV value beside each ball without any added light (for identification); added:
    None (pixel-only mode) or (M,) the white light a projector or sheen adds to the cloth beside
    each ball in linear units (``local_cloth``); span: None (pixel-only mode) or (M,) the share of its
    outline circle its edge points span (one less the widest angular gap between them over a full turn;
    0 for a ball placed by contacts); anchored: None (pixel-only mode) or (M,) bool: placed by its contacts
    only once balls found before were counted too (``TableDetector.refine``'s fixed); provisional: None
    (pixel-only mode) or (M,) bool: kept from shape alone on fewer than SHAPE_MIN_EDGES outline points (its
    minimum counted over the search lines clear of its neighbours, ``TableDetector.refine``): a second search's
    ball in its place replaces it (``TableDetector.detect_unlined``).
    """
    px: np.ndarray
    r_px: np.ndarray
    xy: np.ndarray
    rms_px: np.ndarray
    n_edges: np.ndarray
    fill: np.ndarray
    cloth_v: np.ndarray
    added: np.ndarray | None = None
    span: np.ndarray | None = None
    anchored: np.ndarray | None = None
    provisional: np.ndarray | None = None

    def joined(self, other: "Detections") -> "Detections":
        """These detections followed by ``other``'s (both of one mode)."""
        if len(self) == 0 or len(other) == 0:
            return other if len(self) == 0 else self

        def cat(a, b):
            return None if a is None or b is None else np.concatenate([a, b])
        return Detections(**{f.name: cat(getattr(self, f.name), getattr(other, f.name)) for f in fields(Detections)})

    def __len__(self) -> int:
        return self.px.shape[0]

    def take(self, keep) -> "Detections":
        return Detections(**{f.name: None if getattr(self, f.name) is None else getattr(self, f.name)[keep]
                             for f in fields(Detections)})


# ---- 4. outline points ----------------------------------------------------------------------
def memoised(memo: dict, what: str, frame: np.ndarray, make):
    """make(frame), made once per ``what`` and frame object in ``memo`` (kept there with the frame, so that its id is
    not reused while the memo lives): what one frame's search reads more than once."""
    hit = memo.get((what, id(frame)))
    if hit is None or hit[0] is not frame:
        hit = memo[(what, id(frame))] = (frame, make(frame))
    return hit[1]


def jpeg_frame(image: np.ndarray) -> bool:
    """Whether step 4's JPEG rules apply to a BGR frame (h, w, 3) uint8: it steps across JPEG's 8x8
    blocks (``block_contrast`` > BLOCKY_CONTRAST) or its colour is JPEG 4:2:0's half-resolution
    colour (``half_colour`` < HALF_COLOUR: at quality 100 the blocks hardly step)."""
    return _edges.block_contrast(image) > BLOCKY_CONTRAST or _edges.half_colour(image) < HALF_COLOUR


def mean_radii(outline: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(M,) the mean distance [px] of each outline's points (M, N, 2) [px] from its centre (M, 2) [px]: the values of
    ``np.linalg.norm(outline - centres[:, None], axis=-1).mean(axis=1)`` (the same products and sums), without
    numpy's reduction over a last axis of two (36 -> 13 us for 16 outlines of 64 points, about 10 calls a frame)."""
    dx = outline[..., 0] - centres[:, None, 0]
    dy = outline[..., 1] - centres[:, None, 1]
    return np.sqrt(dx * dx + dy * dy).mean(axis=1)


def outline_normals(outline: np.ndarray) -> np.ndarray:
    """Unit outward normals (M, N, 2) of closed outlines (M, N, 2) listed in either direction: the
    central difference of the neighbours turned a quarter, pointing away from the outline's mean."""
    return _outline_normals(np.ascontiguousarray(outline, np.float64))


@njit(cache=True)
def _outline_normals(outline):
    """``outline_normals`` of (M, N, 2) float64 outlines."""
    M, N = outline.shape[0], outline.shape[1]
    out = np.empty((M, N, 2))
    for m in range(M):
        cx, cy = 0.0, 0.0
        for j in range(N):
            cx += outline[m, j, 0]
            cy += outline[m, j, 1]
        cx, cy = cx / N, cy / N
        for j in range(N):
            a, b = (j + 1) % N, (j - 1) % N
            nx = outline[m, a, 1] - outline[m, b, 1]
            ny = -(outline[m, a, 0] - outline[m, b, 0])
            d = np.sqrt(nx * nx + ny * ny)
            nx, ny = nx / d, ny / d
            if nx * (outline[m, j, 0] - cx) + ny * (outline[m, j, 1] - cy) < 0:
                nx, ny = -nx, -ny
            out[m, j, 0], out[m, j, 1] = nx, ny
    return out


def outline_points(image: np.ndarray, outline: np.ndarray, half_width: float, cloth_lin: np.ndarray,
                   refine: bool | np.ndarray, min_step: float = 0.0, hole=None, bright: float | np.ndarray = np.inf,
                   chroma_deg: float | np.ndarray = EDGE_CHROMA_DEG, lit_share: float | np.ndarray = 0.0,
                   side: float = 1.0, normals: np.ndarray | None = None,
                   dark: float | np.ndarray = DARK_LINEAR) -> tuple[np.ndarray, np.ndarray]:
    """Outline points (M, N, 2) found along the normals of predicted outlines (M, N, 2) [px] and
    which are valid (M, N) (``vision.edges``): where the profile leaves the cloth (lit cloth colour
    ``cloth_lin``, linear BGR, (3,) or (M, 3) one per ball, with white light added up to ``lit_share``
    of the way to white), then with ``refine`` to where a pixel is half ball, half background.
    hole: None or (half-resolution pocket mask, (u0, v0) its top-left full-resolution pixel, (M,)
    which balls are near a pocket); bright: a colour brighter than this many times the lit cloth is ball
    too (along the cloth's colour, linear light; inf: brightness alone never is); dark: a colour darker than
    this many times it is ball (DARK_LINEAR: the 8; darker by a pocket's hole never is); chroma_deg: the colour
    angle from the cloth beyond which a colour is ball; side: > 1 on a JPEG frame, where a step mostly in
    colour is first refined this many px either side (``vision.edges`` module notes). refine, bright, dark,
    chroma_deg and lit_share: scalars, or (M,) one per ball (one kernel call for balls searched each
    against its own cloth: under halo rings and a lit wedge about 40 calls a frame fewer, 41.2 -> 39.3 ms a
    hard frame on a loaded core). normals: None, or the outlines' ``outline_normals`` where the caller has them."""
    M = outline.shape[0]
    mask, (u0, v0), rows = hole if hole is not None else (np.zeros((1, 1), bool), (0, 0), np.zeros(M, bool))

    def each(v, dtype, shape=(M,)):      # (an array of that shape as it is: np.broadcast_to costs 4 us a call)
        a = np.asarray(v, dtype)
        return np.ascontiguousarray(a if a.shape == shape else np.broadcast_to(a, shape))

    return _edges.outline_points(image, LINEAR_LUT, outline, outline_normals(outline) if normals is None else normals,
                                 float(half_width),
                                 EDGE_STEP, each(cloth_lin, np.float64, (M, 3)),
                                 each(np.tan(np.radians(chroma_deg)), np.float64), each(dark, np.float64),
                                 each(bright, np.float64), mask, float(u0), float(v0), rows, each(refine, np.bool_),
                                 float(min_step), REFINE_REACH, 2, each(lit_share, np.float64), float(side),
                                 LUMA_SHARE, SRGB_LUT)


@functools.lru_cache(maxsize=1)
def _body_ring() -> np.ndarray:
    """(32, 2) read-only: ``body_colour``'s sample offsets in outline radii, 16 angles on circles 0.5 and 0.75
    (made once, not each of the eight calls of a hard frame)."""
    t = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
    ring = np.concatenate([f * np.stack([np.cos(t), np.sin(t)], axis=1) for f in (0.5, 0.75)])
    ring.setflags(write=False)
    return ring


def body_colour(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray, dimmest: int = 32) -> np.ndarray:
    """(M, 3) the median linear BGR colour of 32 samples (nearest pixel) on circles 0.5 and 0.75 outline
    radii about centres (M, 2) with outline radii (M,) [px] in a BGR uint8 image: a ball's body colour;
    of the ``dimmest`` of them (by linear level) where fewer than 32 are asked."""
    return _body_colour(image, LINEAR_LUT, np.asarray(centres_px, np.float64), np.asarray(radii_px, np.float64),
                        _body_ring(), dimmest)


def luma_of(linear: np.ndarray) -> np.ndarray:
    """The luma Y' (BT.601 weights of 8-bit sRGB) [levels] of linear BGR colours (..., 3) -> (...)."""
    return linear_to_srgb(linear) @ np.array([_edges.LUMA_B, _edges.LUMA_G, _edges.LUMA_R])


def white_at_limb(image: np.ndarray, centres: np.ndarray, pts: np.ndarray, body_luma: np.ndarray) -> np.ndarray:
    """(M, N) bool: which outline points pts (M, N, 2) [px] of balls centred at centres (M, 2) [px] with
    body luma body_luma (M,) [8-bit levels] have, along the line from the centre, a luma just inside
    (the brighter at WHITE_IN px) more than WHITE_LIMB above both the body's and the cloth's WHITE_OUT px
    outside (``vision.edges.luma_at`` of a BGR uint8 frame): a white number disc at the limb. Its
    narrow dark rim is smeared away by JPEG (colour at half resolution, luma quantised), so the step
    found there is the disc's, ~0.7 px inside the outline. A stripe's white half, which reaches the
    limb itself (its points lie on the outline), is mostly no brighter than the ball's body and keeps
    its points."""
    u = pts - centres[:, None, :]
    u = u / np.maximum(np.linalg.norm(u, axis=-1, keepdims=True), 1e-9)

    def luma(d):
        return _edges.luma_at(image, np.ascontiguousarray((pts + d * u).reshape(-1, 2))).reshape(pts.shape[:2])
    inside = np.maximum(luma(-WHITE_IN[0]), luma(-WHITE_IN[1]))
    return inside - np.maximum(luma(WHITE_OUT), body_luma[:, None]) > WHITE_LIMB


@njit(cache=True)
def _body_colour(image, lut, centres, radii, ring, dimmest):
    """``body_colour`` over the offsets ``ring`` (K, 2) in outline radii, the ``dimmest`` samples (all: K)."""
    M, K = centres.shape[0], ring.shape[0]
    h, w = image.shape[0], image.shape[1]
    out = np.empty((M, 3))
    vals = np.empty((3, K))
    for m in range(M):
        for k in range(K):
            x = min(max(int(np.rint(centres[m, 0] + radii[m] * ring[k, 0])), 0), w - 1)
            y = min(max(int(np.rint(centres[m, 1] + radii[m] * ring[k, 1])), 0), h - 1)
            for c in range(3):
                vals[c, k] = lut[image[y, x, c]]
        if dimmest >= K:
            for c in range(3):
                out[m, c] = small_median(vals[c], K)
        else:
            order = np.argsort(vals[0] ** 2 + vals[1] ** 2 + vals[2] ** 2)[:dimmest]
            for c in range(3):
                out[m, c] = small_median(vals[c][order], dimmest)
    return out


@njit(cache=True)
def small_median(v, n):
    """np.median of v[:n] (n >= 1; v (>= n,) float64 scratch, its first n values left sorted): an insertion
    sort in place, as the samples are a few dozen per ball (numba's np.median copies them each call:
    ``_ring_cloth`` 0.071 -> 0.057 ms a call on hard frames, ``local_cloth``'s ten calls a frame 2.25 -> 2.04 ms
    on a loaded core). The sort is that of ``planner.physics.roots.first_crossing``'s few roots, kept in each: as
    one shared kernel, even inlined, the physics bench's two-ball shots ran 1-8 % slower in alternated runs."""
    for i in range(1, n):
        x = v[i]
        j = i - 1
        while j >= 0 and v[j] > x:
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = x
    h = n // 2
    return v[h] if n % 2 else (v[h - 1] + v[h]) / 2


def hue_angle(body: np.ndarray, cloth_lin: np.ndarray) -> np.ndarray:
    """(M,) the angle [deg] between each ball's body colour (M, 3) and its cloth's colour (M, 3), linear BGR."""
    return _hue_angle(np.ascontiguousarray(body, np.float64), np.ascontiguousarray(cloth_lin, np.float64))


@njit(cache=True)
def _hue_angle(body, cloth):
    """``hue_angle`` per row (``vision.cloth.colour_angle``)."""
    out = np.empty(body.shape[0])
    for m in range(body.shape[0]):
        out[m] = colour_angle(body[m, 0], body[m, 1], body[m, 2], cloth[m, 0], cloth[m, 1], cloth[m, 2])
    return out


@njit(cache=True)
def _level(b0, b1, b2, c0, c1, c2):
    """|b| / max(|c|, 1e-12) of two colours b, c (the norms summed as numpy's row norms sum them)."""
    return math.sqrt(b0 * b0 + b1 * b1 + b2 * b2) / max(math.sqrt(c0 * c0 + c1 * c1 + c2 * c2), 1e-12)


@njit(cache=True)
def edge_chroma_deg(ang: float, level: float, bright: float) -> float:
    """The colour angle [deg] from the cloth beyond which the outline search takes a colour for ball, for a
    ball whose body colour (``body_colour``) is ang [deg] from its cloth's and level times as bright (linear
    light): EDGE_CHROMA_DEG, but for a ball within LOW_CONTRAST_DEG of its cloth's colour and of about its
    level (LOW_LEVEL to ``bright`` times; brighter or darker the search sees it anyway) EDGE_OWN_SHARE of its
    angle, at least EDGE_MIN_DEG: half-way from the cloth to the ball in colour."""
    if ang < LOW_CONTRAST_DEG and level > LOW_LEVEL and level < bright:
        return min(max(EDGE_OWN_SHARE * ang, EDGE_MIN_DEG), EDGE_CHROMA_DEG)
    return EDGE_CHROMA_DEG


@njit(cache=True)
def vivid_bright(ang: float, level: float) -> float:
    """The brightness (times the cloth) beyond which the outline search takes a colour for ball in a frame with
    halo rings (where brightness is otherwise never ball: a ring's remnant is the cloth with white added,
    0.9-1.75 times it), for a ball whose body colour (``body_colour``) is ang [deg] from its cloth's and level
    times as bright (linear light): for a ball within EDGE_CHROMA_DEG of its cloth's colour (no colour step
    the search takes) and brighter than BRIGHT_LINEAR times it (a red or orange ball on a maroon cloth),
    EDGE_OWN_SHARE of the way from the cloth's level to the ball's, at least BRIGHT_LINEAR (a gap in a rack
    reads its neighbours' white as body: lower, a seed-30 rack lost 5 balls); inf otherwise."""
    if ang < EDGE_CHROMA_DEG and level > BRIGHT_LINEAR:
        return max(BRIGHT_LINEAR, 1.0 + EDGE_OWN_SHARE * (level - 1.0))
    return np.inf


@njit(cache=True)
def _search_rules(body, ref, local, near, bright, vivid, blocky, alone):
    """The outline search's colour rules of one ``TableDetector.refine`` pass, per ball of body colour body (M, 3)
    searched against the cloth colour ref (M, 3) with its local cloth local (M, 3) (linear BGR), near (M, N) its
    search lines into neighbours: (deg (M,) the colour angle [deg] taken for ball, ball_bright (M,) the brightness
    [times the cloth] taken for ball, low (M,) searched for its own angle (unrefined), limb (M,) a shape
    candidate of its cloth's hue (``vision.limbs``), shaded (M,) under halo rings of its cloth's hue and clear of
    its neighbours). bright finite (no halo rings): ``edge_chroma_deg`` against ref, and brightness ``bright``
    where the ball is of its cloth's hue or the cloth grey; inf with ``vivid``: ``vivid_bright``; ``blocky``
    (JPEG): every other ball from BLOCKY_CHROMA_SHARE of its angle; ``alone``: shape candidates. One kernel for
    the pass's twenty-odd numpy calls, each value the numpy expression's to the bit."""
    M, N = body.shape[0], near.shape[1]
    deg = np.full(M, EDGE_CHROMA_DEG)
    ball_bright = np.full(M, np.inf)
    low = np.zeros(M, np.bool_)
    limb = np.zeros(M, np.bool_)
    shaded = np.zeros(M, np.bool_)
    finite = np.isfinite(bright)
    for m in range(M):
        b0, b1, b2, r0, r1, r2 = body[m, 0], body[m, 1], body[m, 2], ref[m, 0], ref[m, 1], ref[m, 2]
        ang = colour_angle(b0, b1, b2, r0, r1, r2)
        if finite:          # brightness only where colour cannot tell: of the cloth's hue, or white on grey
            deg[m] = edge_chroma_deg(ang, _level(b0, b1, b2, r0, r1, r2), bright)
            if ang < LOW_CONTRAST_DEG or colour_angle(1.0, 1.0, 1.0, r0, r1, r2) < LOW_CONTRAST_DEG:
                ball_bright[m] = bright
        elif vivid:
            ball_bright[m] = vivid_bright(ang, _level(b0, b1, b2, r0, r1, r2))
        low[m] = deg[m] < EDGE_CHROMA_DEG
        if blocky and not low[m]:
            deg[m] = min(max(BLOCKY_CHROMA_SHARE * ang, EDGE_CHROMA_DEG), BLOCKY_CHROMA_DEG)
        if alone or not finite:
            l0, l1, l2 = local[m, 0], local[m, 1], local[m, 2]
            own = colour_angle(b0, b1, b2, l0, l1, l2)
            if alone:
                limb[m] = own < LOW_CONTRAST_DEG
            else:
                n = 0
                for k in range(N):
                    n += near[m, k]
                shaded[m] = (edge_chroma_deg(own, _level(b0, b1, b2, l0, l1, l2), BRIGHT_LINEAR) < EDGE_CHROMA_DEG
                             and n / N <= LIMB_NEAR_SHARE)
    return deg, ball_bright, low, limb, shaded


def local_cloth(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray,
                cloth: ClothModel, rings: tuple = LOCAL_RINGS) -> tuple[np.ndarray, np.ndarray]:
    """((M, 3) the cloth's linear BGR colour about each ball, (M,) the white light added to it in
    linear units) for balls at centres (M, 2) with outline radii (M,) [px] in a BGR uint8 image:
    ``least_added_cloth`` of ``ring_colours``."""
    return least_added_cloth(*ring_colours(image, centres_px, radii_px, cloth, rings), cloth)


def ring_colours(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray,
                 cloth: ClothModel, rings: tuple = LOCAL_RINGS) -> tuple[np.ndarray, np.ndarray]:
    """((K, M, 3) linear BGR, (K, M) bool): on each of the K rings ``rings`` outline radii out about balls at
    centres (M, 2) with outline radii (M,) [px] in a BGR uint8 image, the median of the 16 samples that are
    cloth-coloured (``vision.cloth``'s lit wedge, with white light added up to LOCAL_WHITE of the way to white:
    a projector's light and sheen change the cloth's colour across the table), and whether at least
    LOCAL_MIN are (the colour is meaningless where not)."""
    hi = _local_white(float(cloth.lit[1]), np.asarray(cloth.light, np.float64).tobytes(),
                      np.asarray(cloth.chroma, np.float64).tobytes())
    return _ring_cloth(image, LINEAR_LUT, np.asarray(centres_px, np.float64), np.asarray(radii_px, np.float64),
                       np.array(rings, np.float64), cloth.chroma, cloth.light, float(cloth.lit[0]), hi, CHROMA_TAN,
                       LOCAL_MIN)


def least_added_cloth(colours: np.ndarray, found: np.ndarray, cloth: ClothModel) -> tuple[np.ndarray, np.ndarray]:
    """((M, 3) linear BGR, (M,) linear units) of ``ring_colours``' rings (colours (K, M, 3), found (K, M)) the
    one with the least added light (``added_light``: a projector's halo ring round a ball lights one ring, not
    all; inside a rack only the widest may show cloth), and that light; ``cloth.linear_colour`` and no added
    light where no ring shows cloth."""
    return _least_added(colours, found, added_light(colours, cloth), cloth.linear_colour)


def pooled_cloth(colours: np.ndarray, found: np.ndarray, cloth: ClothModel) -> np.ndarray:
    """(M, 3) linear BGR: the median (per channel) of ``ring_colours``' rings that show cloth (colours
    (K, M, 3), found (K, M)), ``cloth.linear_colour`` where none does. For a grey cloth: white light only scales
    its colour, so ``added_light`` is noise there and picks a ring at random, and a white ball's pixels, also
    grey, pass as cloth (on a rack's nearest ring they can be most of its samples)."""
    seen = found.any(axis=0)
    local = np.tile(np.asarray(cloth.linear_colour, np.float64), (seen.size, 1))
    local[seen] = np.nanmedian(np.where(found[:, seen, None], colours[:, seen], np.nan), axis=0)
    return local


@functools.lru_cache(maxsize=16)
def _local_white(lit_hi: float, light: bytes, chroma: bytes) -> float:
    """``local_cloth``'s upper end of the lit wedge (t), per cloth model (its lit[1] and float64 light and chroma
    as bytes): white light up to LOCAL_WHITE of the way to white. Once per model, as ``_white_row``."""
    white = np.ones(3) / np.sqrt(3.0)
    return float(max(lit_hi, LOCAL_WHITE * (white @ np.frombuffer(light)) / (white @ np.frombuffer(chroma))))


@njit(cache=True)
def _least_added(colours, found, w, default):
    """(local (M, 3), added (M,)): per ball m, of the rings k where found[k, m] (colours (K, M, 3), added light w
    (K, M)) the first with the least w, and that w; ``default`` (3,) and 0 where no ring is found (numpy's argmin
    and min of w with inf where not found, in one pass)."""
    K, M = found.shape
    local = np.empty((M, 3))
    added = np.zeros(M)
    for m in range(M):
        pick, best, seen = 0, np.inf, False
        for k in range(K):
            if found[k, m]:
                seen = True
                if w[k, m] < best:
                    pick, best = k, w[k, m]
        if seen:
            local[m] = colours[pick, m]
            added[m] = best
        else:
            local[m] = default
    return local, added


@njit(cache=True)
def _ring_cloth(image, lut, centres, radii, rings, chroma, light, lo, hi, tan_chroma, min_n):
    """(K, M, 3) median linear colour of the cloth-coloured ones of 16 samples on ring k of ball m
    (nearest pixel; ``_off_cloth`` within tan_chroma, t in [lo, hi]) and (K, M) whether >= min_n were."""
    K, M = rings.size, centres.shape[0]
    h, w = image.shape[0], image.shape[1]
    out = np.zeros((K, M, 3))
    found = np.zeros((K, M), np.bool_)
    vals = np.empty((3, 16))
    cos, sin = np.empty(16), np.empty(16)
    for j in range(16):
        ang = 2.0 * np.pi * j / 16
        cos[j], sin[j] = np.cos(ang), np.sin(ang)
    for k in range(K):
        for m in range(M):
            n = 0
            for j in range(16):
                x = min(max(int(np.rint(centres[m, 0] + rings[k] * radii[m] * cos[j])), 0), w - 1)
                y = min(max(int(np.rint(centres[m, 1] + rings[k] * radii[m] * sin[j])), 0), h - 1)
                b, g, r = float(image[y, x, 0]), float(image[y, x, 1]), float(image[y, x, 2])
                a, off2 = _off_cloth(b, g, r, chroma, light, lo, hi)
                if off2 <= (tan_chroma * a) ** 2:
                    vals[0, n], vals[1, n], vals[2, n] = lut[image[y, x, 0]], lut[image[y, x, 1]], lut[image[y, x, 2]]
                    n += 1
            if n >= min_n:
                found[k, m] = True
                for c in range(3):
                    out[k, m, c] = small_median(vals[c], n)
    return out, found


def added_light(local: np.ndarray, cloth: ClothModel) -> np.ndarray:
    """(...,) the white light added to the cloth (a projector, sheen) in linear units, from its local
    linear BGR colours (..., 3) (``local_cloth``): the least-squares w of local = k unlit + w (1, 1, 1),
    k free, with unlit the linear colour direction of the least-lit end of the cloth model's lit
    wedge (t = lit[0]: the fitted chroma may be the lit cloth's); w >= 0."""
    row = _white_row(float(cloth.level), np.asarray(cloth.chroma, np.float64).tobytes(), float(cloth.lit[0]),
                     np.asarray(cloth.light, np.float64).tobytes())
    return np.maximum(local @ row, 0.0)


@functools.lru_cache(maxsize=16)
def _white_row(level: float, chroma: bytes, lit_lo: float, light: bytes) -> np.ndarray:
    """(3,) ``added_light``'s least-squares row for w, per cloth model (its float64 chroma and light as
    bytes): computed once per model, as refine reads the local cloth several times a frame."""
    chroma, light = np.frombuffer(chroma), np.frombuffer(light)
    d = srgb_to_linear(np.clip(level * (chroma + lit_lo * light), 0, 255))
    A = np.stack([d / np.linalg.norm(d), np.ones(3)], axis=1)                  # (3, 2)
    return np.linalg.pinv(A)[1]


def near_points(shape: tuple, pts: np.ndarray, reach: float) -> np.ndarray:
    """(h, w) bool: the pixels of a grid of ``shape`` (h, w, ...) within ``reach`` px (a square, rounded
    up) of the points pts (K, 2) [px, (u, v)] (each taken at its pixel, the floor of u and v): the
    points' mask dilated by that square."""
    near = np.zeros(shape[:2], bool)
    r = int(np.ceil(reach))
    for u, v in zip(pts[:, 0].astype(np.intp), pts[:, 1].astype(np.intp)):
        near[max(0, v - r):v + r + 1, max(0, u - r):u + r + 1] = True
    return near


def near_neighbours(outline: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray,
                    reach: float, normals: np.ndarray | None = None) -> np.ndarray:
    """(M, N) search lines that would reach another ball: the point ``reach`` px outward from the
    outline (M, N, 2) along its unit outward normals (M, N, 2; default ``outline_normals``) lies
    inside another ball's outline (approximated by a circle about its centre)."""
    if outline.shape[0] < 2:
        return np.zeros(outline.shape[:2], dtype=bool)
    outer = outline + reach * (outline_normals(outline) if normals is None else normals)
    return _inside_others(np.ascontiguousarray(outer, np.float64), np.asarray(centres_px, np.float64),
                          np.asarray(radii_px, np.float64))


def inside_circles(points: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """(M, N) whether each point (M, N, 2) lies inside any of the circles (K centres (K, 2), radii (K,)) [px]."""
    d2 = np.sum((points[:, :, None, :] - centres[None, None]) ** 2, axis=-1)
    return np.any(d2 < radii ** 2, axis=-1)


@njit(cache=True)
def _inside_others(points, centres, radii):
    """(M, N) whether point n of ball m (points (M, N, 2)) lies inside the circle of any other ball. A
    circle more than a pixel clear of the box about ball m's points is skipped (it holds none of them;
    the pixel covers any rounding): most balls' neighbours are far (0.11 -> 0.03 ms a real frame)."""
    M, N = points.shape[0], points.shape[1]
    out = np.zeros((M, N), dtype=np.bool_)
    for m in range(M):
        x0, y0, x1, y1 = np.inf, np.inf, -np.inf, -np.inf
        for n in range(N):                # (a NaN point is in no box, as it is inside no circle)
            px, py = points[m, n, 0], points[m, n, 1]
            x0 = px if px < x0 else x0
            x1 = px if px > x1 else x1
            y0 = py if py < y0 else y0
            y1 = py if py > y1 else y1
        for j in range(M):
            if j == m:
                continue
            reach = radii[j] + 1.0
            if (centres[j, 0] + reach < x0 or centres[j, 0] - reach > x1 or centres[j, 1] + reach < y0
                    or centres[j, 1] - reach > y1):
                continue
            r2 = radii[j] * radii[j]
            for n in range(N):
                dx, dy = points[m, n, 0] - centres[j, 0], points[m, n, 1] - centres[j, 1]
                if dx * dx + dy * dy < r2:
                    out[m, n] = True
    return out


# ---- the calibrated detector ------------------------------------------------------------------
class TableDetector:
    """Ball detection for one posed camera over one table (precomputes everything per camera).

    cam: posed CameraModel; table: Table; R: ball radius [m]; rail: the rail caps (so that their
    pixels are not judged as cloth); cloth_srgb: None, or the cloth's colour as calibrated, (R, G, B) 8-bit sRGB: a
    frame whose cloth has drifted from it is brought back first (``white_balanced``). Raises ValueError for a camera
    without a pose or a malformed colour (``vision.white_balance.unit_bgr``).
    """

    def __init__(self, cam: CameraModel, table: Table, R: float, rail: RailGeometry, cloth_srgb=None):
        if not cam.has_pose:
            raise ValueError("TableDetector needs a camera registered to the table (a pose)")
        self.cam, self.table, self.R = cam, table, float(R)
        self.cloth_reference = None if cloth_srgb is None else unit_bgr(cloth_srgb)
        scene = TableScene(table, rail)
        w, h = cam.size
        # region of interest: where a ball's image can be (rays at z = R inside the cushion backs)
        cw = table.cushion_width
        corners = np.array([[-cw, -cw], [table.width + cw, -cw], [table.width + cw, table.length + cw],
                            [-cw, table.length + cw]])
        ring = _rectangle_outline(corners, 64)
        px = table_to_pixels(cam, np.concatenate([ring, np.full((ring.shape[0], 1), 0.0)], axis=1))
        px2 = table_to_pixels(cam, np.concatenate([ring, np.full((ring.shape[0], 1), 2 * R)], axis=1))
        allpx = np.concatenate([px, px2])
        u0 = max(0, int(np.floor(allpx[:, 0].min())) - 4) & ~1
        v0 = max(0, int(np.floor(allpx[:, 1].min())) - 4) & ~1
        u1 = min(w, int(np.ceil(allpx[:, 0].max())) + 4)
        v1 = min(h, int(np.ceil(allpx[:, 1].max())) + 4)
        self.crop = (u0, v0, u1 - (u1 - u0) % 2, v1 - (v1 - v0) % 2)
        u0, v0, u1, v1 = self.crop
        self.half_size = ((u1 - u0) // 2, (v1 - v0) // 2)
        hw, hh = self.half_size
        jj, ii = np.meshgrid(np.arange(hw), np.arange(hh))
        full = np.stack([2 * jj.ravel() + 0.5 + u0, 2 * ii.ravel() + 0.5 + v0], axis=1)
        rays = pixel_rays(cam, full)
        c = cam.centre
        at_R = c[:2] + ((R - c[2]) / rays[:, 2])[:, None] * rays[:, :2]
        roi = ((at_R[:, 0] > -cw) & (at_R[:, 0] < table.width + cw) & (at_R[:, 1] > -cw)
               & (at_R[:, 1] < table.length + cw)).reshape(hh, hw)
        kind, _, _ = scene.trace(c, rays)
        kmap = kind.reshape(hh, hw).astype(np.float32)
        k3 = np.ones((3, 3), np.uint8)
        # the empty table's own edges (pocket rims, cushion lines) must not vote for ball centres
        self.static_edges = cv2.dilate((cv2.dilate(kmap, k3) != cv2.erode(kmap, k3)).astype(np.uint8), k3) > 0
        cloth_like = np.isin(kind, (CLOTH, CUSHION, NOSE_FACE)).reshape(hh, hw)
        self.hole = (kind == POCKET).reshape(hh, hw)
        reach = 2 * int(np.ceil(np.max(np.linalg.norm(table_to_pixels(cam, [[0, 0, R], [2 * R, 0, R]])[1]
                                                    - table_to_pixels(cam, [[0, 0, R]])[0])))) + 6
        self.near_hole = cv2.dilate(self.hole.astype(np.uint8), np.ones((reach, reach), np.uint8)) > 0
        known = roi & cv2.erode((cloth_like | self.hole).astype(np.uint8), k3).astype(bool)
        self.known = known.astype(np.uint8)
        self.allowed = (scene.in_play(at_R[:, 0], at_R[:, 1]) & ~scene.in_pocket(at_R[:, 0], at_R[:, 1])
                        ).reshape(hh, hw)
        # (h, w) bool: where colour can be judged (``known``), and of those where a ball's centre can be (the
        # table's cells the projector's light is fitted to): once per camera, not per frame
        self.judged, self.in_play = known.copy(), known & self.allowed
        self.judged.setflags(write=False)
        self.in_play.setflags(write=False)
        # expected ball radius in half-resolution pixels at each pixel (a ball centred there)
        g = at_R.reshape(hh, hw, 2)[4::8, 4::8].reshape(-1, 2)
        grid = np.concatenate([g, np.full((g.shape[0], 1), R)], axis=1)
        rad = np.linalg.norm(sphere_silhouettes(cam, grid, R, 16) - table_to_pixels(cam, grid)[:, None, :],
                             axis=-1).mean(axis=1) / 2
        coarse_shape = at_R.reshape(hh, hw, 2)[4::8, 4::8].shape[:2]
        self.r_map = cv2.resize(rad.reshape(coarse_shape).astype(np.float32), (hw, hh),
                                interpolation=cv2.INTER_LINEAR)
        r_lo, r_hi = float(self.r_map[self.allowed].min()), float(self.r_map[self.allowed].max())
        self.r_map = np.clip(self.r_map, r_lo, r_hi)       # off the table: as on its edge
        self.r_range = (r_lo, r_hi)                        # its least and largest (not found again each frame)
        self.box = max(3, int(round(1.25 * r_lo)) | 1)
        self.r_half = float(np.median(self.r_map[self.allowed]))       # a ball's usual half-resolution radius
        self.reach_in = known & reach_in_band(roi & (cloth_like | self.hole), self.hole, self.r_half)
        # the candidates' square share counts the bed only (a pocket's hole, where a black ball cannot be told from
        # it, left out): its pixels and their box sums
        self.bed_known = (known & ~self.hole).astype(np.uint8)
        self.bed_sums = known_sums(self.bed_known, self.box)
        self.bed_count = cv2.boxFilter(self.bed_known, cv2.CV_32F, (self.box, self.box), normalize=False)
        self.shape_voters = known & ~self.static_edges & ~self.hole      # edges that may vote for shape candidates
        # sparse grid of cloth samples for the cloth model
        step = 10
        sm = np.zeros_like(known)
        sm[::step, ::step] = True
        sm &= known & ~self.hole & self.allowed
        self.sample_v, self.sample_u = np.nonzero(sm)
        self.coarse = 8
        cu = np.arange(0, hw, self.coarse) + (self.coarse - 1) / 2
        cv_ = np.arange(0, hh, self.coarse) + (self.coarse - 1) / 2
        self.coarse_uv = np.meshgrid(cu, cv_)
        self.scale = 1.0 / max(hw, hh)

    def unlined(self, image: np.ndarray, half: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the frame, its half-resolution crop, the crop's (h, w) bool pixels found on lines) with thin
        lines of added light (a projector's halo rings) replaced by the surface under them
        (``vision.thin_lines``), where there are at least LINE_MIN such half-resolution pixels (else
        both as given). The half-resolution search looks along eight directions (``fine``: the rings'
        arcs between four directions are found too), then takes the lines' soft edges out too
        (``take_line_edges``)."""
        r_half = self.r_half
        clean, lined = remove_thin_lines(half, max(1, int(round(LINE_REACH * r_half))), fine=True)
        if lined.sum() < LINE_MIN:       # a stripe's edge or a highlight here and there: no halo
            return image, half, lined
        clean, edged = take_line_edges(half, clean, lined)
        u0, v0 = self.crop[:2]
        near = np.zeros((image.shape[0] // 2, image.shape[1] // 2), bool)
        near[v0 // 2:v0 // 2 + edged.shape[0], u0 // 2:u0 // 2 + edged.shape[1]] = edged
        return remove_thin_lines(image, max(1, int(round(2 * LINE_REACH * r_half))), near)[0], clean, lined

    def _fill_at(self, fill_map, xy: np.ndarray) -> np.ndarray:
        """(K,) the foreground share ``fill_map(i, j)`` (half-resolution rows and columns (K,)) at table
        positions xy (K, 2) [m]."""
        if not len(xy):
            return np.zeros(0, np.float32)
        px = table_to_pixels(self.cam, np.concatenate([xy, np.full((xy.shape[0], 1), self.R)], axis=1))
        u0, v0 = self.crop[:2]
        hw, hh = self.half_size
        j = np.clip(np.rint((px[:, 0] - u0 - 0.5) / 2).astype(int), 0, hw - 1)
        i = np.clip(np.rint((px[:, 1] - v0 - 0.5) / 2).astype(int), 0, hh - 1)
        return fill_map(i, j)

    def on_bed(self, xy: np.ndarray, slack: float) -> np.ndarray:
        """(K,) bool: where a ball may lie at table positions xy (K, 2) [m]: its centre at least R - slack [m]
        inside the cushion noses, or near a pocket (in its mouth a ball reaches past the noses' lines)."""
        inside = (onto_rectangle(xy, self.table.width, self.table.length, self.R - slack) == xy).all(axis=1)
        px = table_to_pixels(self.cam, np.concatenate([xy, np.full((xy.shape[0], 1), self.R)], axis=1))
        return inside | self._holes_near(px)[2]

    def onto_bed(self, xy: np.ndarray, which: np.ndarray, by_pocket: np.ndarray) -> np.ndarray:
        """(K, 2) [m] the table positions xy (K, 2) [m] with the rows ``which`` (K,) bool moved onto the bed
        (``onto_rectangle``: a ball's centre lies at least R inside the cushion noses), but those ``by_pocket``
        (K,) bool, whose centre's image is near a pocket (``_holes_near``: in its mouth a ball reaches past the
        noses' lines; ``on_bed``)."""
        move = which & ~by_pocket
        return np.where(move[:, None], onto_rectangle(xy, self.table.width, self.table.length, self.R), xy)

    def _holes_near(self, px: np.ndarray):
        """The pocket mask for ``outline_points``, looked up for the balls (centres px (M, 2)) near
        a pocket."""
        u0, v0 = self.crop[:2]
        hw, hh = self.half_size
        # (whole numbers bounded by np.minimum and np.maximum: np.clip's checks cost 13 us a call, these 6 us)
        j = np.minimum(np.maximum(((px[:, 0] - u0) // 2).astype(np.intp), 0), hw - 1)
        i = np.minimum(np.maximum(((px[:, 1] - v0) // 2).astype(np.intp), 0), hh - 1)
        return self.hole, (u0, v0), self.near_hole[i, j]

    def detect(self, image: np.ndarray) -> Detections:
        """All balls in a BGR uint8 frame of the camera's size."""
        return self.detect_unlined(image)[0]

    def _bright(self, model: ClothModel) -> np.ndarray:
        """(h, w) float32 the cloth model's lit brightness at each half-resolution pixel."""
        return cv2.resize(model.brightness(*self.coarse_uv).astype(np.float32), self.half_size,
                          interpolation=cv2.INTER_LINEAR)

    def unlit(self, half: np.ndarray, model: ClothModel, bright: np.ndarray):
        """(the half-resolution crop, its cloth model and lit brightness, the light taken off) with the
        light a projector adds across the cloth taken off (``vision.cloth.light_taken_off``, from the
        crop's cloth-coloured table cells); as given, and None, where too little cloth is seen."""
        try:
            half, light = light_taken_off(half, model, bright, self.in_play, self.r_half)
        except ValueError:
            return half, model, bright, None
        model = fit_cloth(half[self.sample_v, self.sample_u], self.sample_u, self.sample_v, self.scale, True)
        return half, model, self._bright(model), light

    def detect_unlined(self, image: np.ndarray) -> tuple[Detections, np.ndarray]:
        """(all balls in a BGR uint8 frame of the camera's size, the frame with its thin lines of added
        light taken out (``unlined``; the frame itself where it has none) and a projector's light taken
        off the cloth (``unlit``; where the cloth model has a lit wedge and no halo rings were found):
        what identification reads). A frame whose cloth's colour drifted from the calibrated one is brought back to
        it first (``white_balanced``).

        Where halo rings AND a projector's light were found, the light (``light_under_rings``) is taken off
        the frame before a second search; in a JPEG frame (``jpeg_frame``) with a projector's light and
        no rings, the first search keeps the light on and the second takes it off (``unlit``). The balls
        only the second search finds are added where ``added_kept`` holds them to be balls, with the
        second frame in their discs. The first search's provisional balls (``Detections.provisional``) are not
        among the balls the second search and ``added_kept`` know of, and one that an added ball overlaps by more
        than CONTACT_SLACK gives way to it (its fit held on a short outline; the light's take-off shows it
        otherwise)."""
        memo = {}
        image = self.white_balanced(image, memo)
        det, out, model, again = self._detect(image, True, memo=memo)
        if again is None:
            return det, out
        soft = np.zeros(len(det), bool) if det.provisional is None else det.provisional    # (None: no ball)
        firm = det.take(~soft)
        det2, out2, _, _ = self._detect(again, False, firm.xy, memo)
        det2 = det2.take(self.added_kept(firm, det2, out, model))
        if not len(det2):
            return det, out
        gap = np.linalg.norm(det.xy[:, None] - det2.xy[None], axis=2).min(axis=1)
        det = det.take(~soft | (gap >= 2 * self.R - CONTACT_SLACK))
        out = out.copy() if out is image else out        # (the caller's frame stays as given)
        for (u, v), r in zip(det2.px, det2.r_px):
            copy_disc(out, out2, int(round(u)), int(round(v)), int(np.ceil(r)))
        return det.joined(det2), out

    def cloth_model(self, image: np.ndarray) -> ClothModel:
        """The cloth model (``fit_cloth``) of a BGR uint8 frame of the camera's size, as a search fits it."""
        return self._start(np.ascontiguousarray(image))[3]

    def white_balanced(self, image: np.ndarray, memo: dict) -> np.ndarray:
        """``image`` brought back to the calibrated cloth colour (``vision.white_balance``: where its cloth's colour
        drifted DEADBAND_DEG or more from ``cloth_srgb``, and the frame brought back shows it, ``brought_back``);
        else ``image`` itself (also with no reference, or another size: ``_detect`` refuses it). The start
        (``_start``) of the frame returned is kept in ``memo`` (``_detect``'s), not fitted twice."""
        w, h = self.cam.size
        if self.cloth_reference is None or image.shape != (h, w, 3):
            return image
        given = np.ascontiguousarray(image)

        def start(frame):
            return memoised(memo, "start", frame, self._start)
        return bring_back(given, self.cloth_reference, start(given), start, lambda s: s[3])[0]

    def added_kept(self, det: Detections, det2: Detections, image: np.ndarray, cloth: ClothModel) -> np.ndarray:
        """(len(det2),) bool: which balls of the second search (``detect_unlined``) are added to the first
        search's ``det``, found in ``image`` (the frame the first search read) over ``cloth``. Such a ball
        must
        - overlap no ball of ``det``, nor one added before it (most outline points first), by more than
          CONTACT_SLACK (balls cannot overlap; what is left of a halo ring round a ball lies about one
          ring radius from it, inside two ball radii);
        - have its own outline, fitted within RMS_MAX_SHARE of its radius (a clean frame's limit), or
          within the frame's rougher limit (``frame_limits`` of ``det2``'s own fits: JPEG roughens every
          outline alike) with its square at least FEW_FILL foreground (a ring's arc encloses cloth), or with
          points spanning REMOTE_SPAN of its circle at least SHORT_FAR R from every ball found and added (no
          ring's arc reaches there, and a lit area's edge is one side of a circle); a ball placed by its
          contacts (RMS NaN) only where its square is at least SHORT_FILL foreground (then its span, 0, asks
          the body below);
        - have outline points spanning at least SHORT_SPAN of its circle (``Detections.span``): a
          shorter arc fits a halo ring's arc beside a ball as well as a ball's outline; unless its
          square is at least SHORT_FILL foreground (``Detections.fill``) and its body (below) is at
          least EDGE_CHROMA_DEG from the cloth's colour or brighter or darker as below, or dimmer than
          SHORT_DIM of it (a ring's remnant is the cloth's colour with white added, never dimmer than the
          cloth; a ball's arc is short where its other rays ran into its neighbours), or it has an
          outline of its own and lies at least SHORT_FAR R from every ball found and added (a ring's arc
          lies about one ring radius from the ball it is drawn round), or its fit is under SMOOTH_SHARE of the
          median RMS of ``det2``'s own fits (``smoother_than_frame``: a frame's outlines are rough alike);
        - have a body unlike the cloth about it in ``image`` (``body_colour`` against ``local_cloth``):
          at least EDGE_MIN_DEG from its colour (more than the cloth's texture), or brighter than
          BRIGHTER times it, or darker than DARK_LINEAR of it. Taking the light off leaves soft steps
          at the lit area's edge and beside halo rings; a circle fitted there is cloth in ``image``. A ball
          placed against the first search's balls (``Detections.anchored``) shows that colour or brightness
          in its dimmest BODY_DIMMEST samples (an empty gap in a ringed rack is crossed by its neighbours'
          rings: their remnants read as a bright body);
        - have a body that is not its cloth with white light added (``white_added``): a sheen over a projector's
          lit area stays on where the light is taken off, and JPEG's 8x8 blocks make its remnant's edges arcs.
        """
        if not len(det2):
            return np.zeros(0, bool)
        placed = np.isnan(det2.rms_px)
        own = ~placed & (det2.n_edges >= MIN_EDGES)
        limit = RMS_MAX_SHARE * det2.r_px
        rough = det2.rms_px <= frame_limits(limit, det2.rms_px, own, det2.r_px, self.R)[0]
        fitted = (det2.rms_px <= limit) | (rough & (det2.fill >= FEW_FILL)) | (placed & (det2.fill >= SHORT_FILL))
        ang, level, local = body_against_cloth(image, det2.px, det2.r_px, cloth)
        far = (level > BRIGHTER) | (level < DARK_LINEAR)
        unlike = (ang >= EDGE_MIN_DEG) | far
        body_ok = (ang >= EDGE_CHROMA_DEG) | far
        unlike &= ~white_added(image, det2.px, det2.r_px, local, level)
        if det2.anchored.any():     # a gap among ringed balls: the rings' remnants bright, the cloth dim
            a = det2.anchored
            body_ok[a] = dim_body_unlike(image, det2.px[a], det2.r_px[a], local[a], level[a])
        arc = ((det2.span >= SHORT_SPAN) | ((det2.fill >= SHORT_FILL) & (body_ok | (level < SHORT_DIM)))
               | (~placed & (ang >= EDGE_CHROMA_DEG) & (level < SHORT_DIMMER))
               | smoother_than_frame(det2.rms_px, own))
        kept = np.zeros(len(det2), bool)
        # each ball's distance [m] to the nearest ball found or added so far (the row norms once, not a norm a pair)
        gaps = np.linalg.norm(det2.xy[:, None] - det.xy[None], axis=2).min(axis=1, initial=np.inf)
        pair = np.linalg.norm(det2.xy[:, None] - det2.xy[None], axis=2)
        for i in np.argsort(-det2.n_edges, kind="stable"):
            gap = gaps[i]
            remote = gap >= SHORT_FAR * self.R and not placed[i]     # no found ball's ring reaches it
            # (a rough fit far from every ring, round all about (REMOTE_SPAN): no arc, whatever its square's fill)
            held = fitted[i] or (remote and rough[i] and det2.span[i] >= REMOTE_SPAN)
            if held and (arc[i] or remote) and unlike[i] and gap >= 2 * self.R - CONTACT_SLACK:
                kept[i] = True
                gaps = np.minimum(gaps, pair[i])
        return kept

    def _detect(self, image: np.ndarray, first: bool, fixed: np.ndarray | None = None,
                memo: dict | None = None) -> tuple[Detections, np.ndarray, ClothModel, object]:
        """(the balls, the frame identification reads, the cloth model fitted to it, and the frame a second
        search reads, or None: where ``first`` and the cloth model has a lit wedge, under halo rings the frame
        with the projector's light under them (``light_under_rings``) taken off, in a JPEG frame without rings the
        frame as given (that search takes the light off, ``unlit``)). fixed: None, or the table
        positions (K, 2) [m] of balls found before (the first search's, for the second: ``refine``). memo: None,
        or a dict that the searches of one frame share (``detect_unlined``): what is a function of a frame alone
        (``_start``, ``jpeg_frame``) is found once per frame (a lit JPEG frame's second search reads the frame the
        first did; the light's take-off makes a new one)."""
        w, h = self.cam.size
        if image.shape[:2] != (h, w) or image.ndim != 3:
            raise ValueError(f"expected a {w}x{h} BGR image, got shape {image.shape}")
        u0, v0 = self.crop[:2]
        memo = {} if memo is None else memo

        def blocky(frame: np.ndarray) -> bool:
            return memoised(memo, "jpeg", frame, jpeg_frame)

        given = np.ascontiguousarray(image)
        image, half, lined, model, bright = memoised(memo, "start", given, self._start)
        ringed = image is not given
        light = again = None

        plain = not ringed and model.lit == (0.0, 0.0)      # no light added to the cloth
        if model.lit != (0.0, 0.0) and first and not ringed and blocky(given):
            again = given      # JPEG: the light taken off in a second search
        elif model.lit != (0.0, 0.0) and not ringed:      # light added across the cloth (no halo rings)
            half, model, bright, light = self.unlit(half, model, bright)
        elif model.lit != (0.0, 0.0) and first:         # ... under halo rings: for a second search
            ring_light = light_under_rings(half, model, bright, self.in_play, lined, self.r_half)
            again = None if ring_light is None else take_off_light(given, ring_light, (u0, v0), 2)
        grey = grey_cloth(model)
        if grey:     # white light only brightens a grey cloth: a surface that follows its lit area
            bright = lit_surface(half, model, bright, self.in_play, self.r_half)
        fg = foreground(half, model, bright, self.hole, GREY_BRIGHTER if grey else BRIGHTER)
        cand, fill = candidates(half, fg, self.known, self.bed_sums, self.allowed, self.r_map, self.box,
                                self.static_edges, self.r_range[0], self.bed_known)
        unlit = np.zeros(half.shape[:2], bool)
        if light is not None and cand.shape[0]:     # the frame about the candidates (outlines, rings, identity)
            image, unlit = self._unlit_near(image, light, cand, unlit)
        fill_map = functools.partial(fill_at, fg, self.bed_known, self.bed_count, self.box)
        lit = bright
        # a halo ring's remnant is bright too; on a grey cloth only brightness tells a white ball from it
        bright = np.inf if ringed and not grey else BRIGHT_LINEAR
        det = _empty()
        if cand.shape[0]:
            px0 = np.stack([2 * cand[:, 0] + 0.5 + u0, 2 * cand[:, 1] + 0.5 + v0], axis=1)
            det = self.refine(image, pixels_to_table(self.cam, px0, self.R), fill, model, fill_map, blocky(image),
                              bright, plain=plain, vivid=first, fixed=fixed, unlit=light is not None)
        if grey and len(det):     # a grey cloth's rack: balls with no candidate
            det = det.joined(self.spot_balls(image, det, model, fill_map, ringed))
        # balls of the cloth's own hue (vision.shape_candidates): where no ball was found from colour
        shaped = shape_candidates(half, self.shape_voters, self.allowed, self.r_map,
                                  (det.px - [u0 + 0.5, v0 + 0.5]) / 2, model.chroma, lit, self.r_range, grey)
        if shaped.shape[0]:
            if light is not None:
                image, unlit = self._unlit_near(image, light, shaped, unlit)
            px0 = np.stack([2 * shaped[:, 0] + 0.5 + u0, 2 * shaped[:, 1] + 0.5 + v0], axis=1)
            more = self._from_shape(image, px0, model, fill_map, blocky(image), bright, det)
            if len(det) and len(more):       # no overlap with a ball found from colour
                gap = np.linalg.norm(more.xy[:, None] - det.xy[None], axis=2).min(axis=1)
                more = more.take(gap > SHAPE_GAP * self.R)
            det = det.joined(more)
        det = self.without_intruders(det, fg)
        return det, image, model, again

    def _from_shape(self, image: np.ndarray, px0: np.ndarray, model: ClothModel, fill_map, blocky: bool,
                    bright: float, found: Detections) -> Detections:
        """The balls fitted from shape candidates (``vision.shape_candidates``) at full-resolution pixels px0 (K, 2)
        beside the balls ``found`` from colour (``refine`` with found; model, fill_map, blocky and bright as there).
        A sphere is shaded all round, so a fit's points span SHAPE_SPAN of the part of its outline on open cloth
        (``voting_share``: a sheen's edge shows a limb on one side only). By a pocket a far darker ball's step down
        and the pocket's rim look alike: such a candidate is fitted both for its darker limb and for its step down
        (``sunk_by_pocket``), and the fit of smaller RMS is kept (``_dedupe``)."""
        u0, v0 = self.crop[:2]

        def shaded_round(d: Detections) -> Detections:
            at = (d.px - [u0 + 0.5, v0 + 0.5]) / 2
            return d.take(d.span >= SHAPE_SPAN * voting_share(self.shape_voters, at, self.r_map))
        xy0 = pixels_to_table(self.cam, px0, self.R)
        more = shaded_round(self.refine(image, xy0, np.zeros(len(xy0)), model, fill_map, blocky, bright, found))
        by_pocket = self._holes_near(px0)[2]
        if by_pocket.any():
            more = more.joined(shaded_round(self.refine(image, xy0[by_pocket], np.zeros(int(by_pocket.sum())), model,
                                                        fill_map, blocky, bright, found, sunk_by_pocket=True)))
            more = _dedupe(more, more.xy, self.R)
        return more

    def _start(self, image: np.ndarray):
        """(the frame with its thin lines taken out (``unlined``), its half-resolution crop, the crop's (h, w)
        bool pixels on lines, the crop's cloth model and lit brightness (h, w)): where a search (``_detect``)
        of a C-contiguous BGR uint8 frame starts, a function of the frame alone."""
        u0, v0 = self.crop[:2]
        image, half, lined = self.unlined(image, halved(image, u0, v0, *self.half_size))
        model = fit_cloth(half[self.sample_v, self.sample_u], self.sample_u, self.sample_v, self.scale, True)
        return image, half, lined, model, self._bright(model)

    def _unlit_near(self, image: np.ndarray, light, pts: np.ndarray, done: np.ndarray):
        """(the frame with a projector's ``light`` (``vision.cloth.AddedLight``) taken off within UNLIT_REACH
        ball radii of the half-resolution points pts (K, 2) where it is not off yet (``done``, (h, w) bool at
        half resolution), done with those pixels added)."""
        near = near_points(done.shape, pts, UNLIT_REACH * self.r_half)
        return take_off_light(image, light, self.crop[:2], 2, near & ~done), near | done

    def without_intruders(self, det: Detections, fg: np.ndarray) -> Detections:
        """``det`` without the fits whose disc is mostly foreground that came in over the rail (a
        hand, an arm: ``vision.intruders``). fg: the half-resolution foreground."""
        u0, v0 = self.crop[:2]
        return det.take(clear_of_intruders((fg > 0) & self.judged, self.reach_in,
                                           (det.px - [u0 + 0.5, v0 + 0.5]) / 2, det.r_px / 2,
                                           det.n_edges / N_RAYS, np.nan_to_num(det.rms_px)))

    def _outlines(self, xy: np.ndarray, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """((M, N_RAYS, 2) [px] the predicted outlines of spheres of effective radii rho (M,) [m] centred at
        table positions xy (M, 2) [m], at height R; (M, 2) [px] their centres' images), projected in one call."""
        M = xy.shape[0]
        P = np.concatenate([xy, np.full((M, 1), self.R)], axis=1)
        circles = silhouette_circles(self.cam, P, rho, N_RAYS)
        px = table_to_pixels(self.cam, np.concatenate([circles.reshape(-1, 3), P]))
        return px[:M * N_RAYS].reshape(M, N_RAYS, 2), px[M * N_RAYS:]

    def _shrunk_again(self, image: np.ndarray, xy: np.ndarray, rho: np.ndarray, rms: np.ndarray, tw: np.ndarray,
                      prior: float, cloth: ClothModel, min_step: float, under: float, rough: bool,
                      blocky: bool) -> None:
        """Search again, in place, the fits (xy (M, 2) [m], rho (M,) [m], rms (M,) [px], tw (M, N_RAYS) ray
        weights) whose outline lies inside their ball on one side: a stripe of about the cloth's colour is
        read as cloth, so on that side the outline found is the white cap's edge. Those are a whole outline
        (WHOLE_SHARE of the rays) fitting rho under ``under`` [m] (``refine`` asks SHRUNK times the frame's
        ``prior`` on frames not JPEG with no light added or a projector's light taken off, and elsewhere
        only of fits the rho test would drop, under 1 - RHO_TOLERANCE of R as well: shrunk fits within it
        are other failures under halo rings or JPEG), and where ``rough`` (a projector's light taken off the
        frame: no halo rings, not JPEG) an outline of at least ROUGH_SHARE of the rays fitted rougher than
        RMS_MAX_SHARE of its radius, whose new fit is kept only where it is smoother. Their outline is sought at
        the prior radius about the fit, SEARCH_WIDTHS[0] either side, a colour EDGE_MIN_DEG from the local cloth
        taken for ball (as for a ball of the cloth's hue), and on a grey cloth (``grey_cloth``: a white cap has
        its hue) a colour BRIGHT_LINEAR times brighter than the local cloth too; where ``blocky`` (JPEG: chroma
        smeared across the stripe) a ray that search misses takes its darker limb's point (``vision.limbs``); the
        sphere is refitted with the prior."""
        rays = (tw > 0.5).sum(axis=1)
        shrunk = (rays >= WHOLE_SHARE * N_RAYS) & (rho < under)
        if not (rough or shrunk.any()):
            return
        cam, R = self.cam, self.R
        outline, cpx = self._outlines(xy, np.full(xy.shape[0], prior))
        rpx = mean_radii(outline, cpx)
        m = np.flatnonzero(shrunk | (rough & (rays >= ROUGH_SHARE * N_RAYS) & (rms > RMS_MAX_SHARE * rpx)))
        if not m.size:
            return
        near = near_neighbours(outline, cpx, rpx, SEARCH_WIDTHS[0] + 1.0)[m]
        mask, corner, rows = self._holes_near(cpx[m])
        local, _ = local_cloth(image, cpx[m], rpx[m], cloth, OUTLINE_RINGS)
        pts, valid = outline_points(image, outline[m], SEARCH_WIDTHS[0], local, True, min_step, (mask, corner, rows),
                                    BRIGHT_LINEAR if grey_cloth(cloth) else np.inf, EDGE_MIN_DEG)
        if blocky:       # JPEG: its chroma smeared across a stripe of the cloth's colour, a ray the colour misses
            lp, lv = darker_limb(image, outline[m], outline_normals(outline[m]), SEARCH_WIDTHS[0], local)
            add = lv & ~valid       # ... takes its darker limb's point (vision.limbs)
            pts[add], valid[add] = lp[add], True
        used = valid & ~near
        px_per_m = cam.K[0, 0] / np.linalg.norm(np.concatenate([xy[m], np.full((m.size, 1), R)], axis=1)
                                                - cam.centre, axis=1)
        fit = fit_spheres(cam.centre, used_rays(cam, pts, used), used, xy[m], R, prior, px_per_m, iters=6,
                          rho_prior=prior, prior_weight=RHO_PRIOR_RAYS)
        take = shrunk[m] | (fit[2] < rms[m])
        m = m[take]
        xy[m], rho[m], rms[m], tw[m] = (v[take] for v in fit)

    def refine(self, image: np.ndarray, xy: np.ndarray, fill: np.ndarray, cloth: ClothModel,
               fill_map, blocky: bool, bright: float = BRIGHT_LINEAR, found: Detections | None = None,
               plain: bool = False, vivid: bool = False, fixed: np.ndarray | None = None,
               unlit: bool = False, sunk_by_pocket: bool = False) -> Detections:
        """Sub-pixel centres from starting table positions (M, 2) [m]; drops what is not a ball.

        fill: (M,) the candidates' foreground share; fill_map: (i, j) -> (K,) the foreground share at
        half-resolution pixels (rows i, columns j (K,); ``vision.candidates.fill_at``: to vet short arcs and
        balls placed by their contacts); blocky: ``jpeg_frame(image)`` (the caller's, once per frame searched);
        bright: the outline search takes a colour this many times brighter than the lit cloth for ball
        (``outline_points``); found: None, or the balls found from colour when these are candidates from
        shape alone (``vision.shape_candidates``): search lines reaching into those balls are dropped, a
        ball of the cloth's hue is searched for its darker limb (``vision.limbs``; on a grey cloth its colour's
        points kept where the limb finds under FEW_EDGES and the colour SHAPE_MIN_EDGES or more), and a ball needs
        SHAPE_MIN_EDGES outline points of N_RAYS, pro rata over the search lines not run into a neighbour (marked
        ``provisional`` where fewer than SHAPE_MIN_EDGES), and is never placed by its contacts, and their fits are
        held to the frame's limits (``frame_limits``) over them and the fits of ``found`` with an outline (RMS not
        NaN, MIN_EDGES points or more: JPEG roughens a frame's outlines alike; its few shape candidates alone seldom
        reach FRAME_MIN_FITS); plain: no light is
        added to the frame's cloth (no projector's lit area, no halo rings): in a JPEG frame (``jpeg_frame``) the last
        fit's outline points move LUMA_BLEND of the way to the luma's half-way step before a final fit; vivid: where
        ``bright`` is inf (halo rings), a ball far brighter than its cloth and of its hue is searched by its
        brightness (``vivid_bright``; not in the second search under rings, whose cloth is what the take-off of
        the light left). Where ``bright`` is inf, a ball of its cloth's hue (``edge_chroma_deg``) with at most
        LIMB_NEAR_SHARE of its search lines into neighbours and a short colour arc (under FEW_EDGES points)
        takes its darker limb's points instead where FEW_EDGES or more are found (its colour's lie by the
        lamp's highlight, inside its outline); where ``bright`` is finite, such a ball searched for its own angle
        (``low``) whose colour search found FEW_EDGES or more points takes its darker limb's where they are more
        (its body near the limb can be under that angle: the colour's points lie inside). fixed: None, or the
        table positions (K, 2) [m] of balls found before (the first search's, in the second search under halo
        rings): a candidate may be placed by its contacts with them too (``place_by_contacts``), not beyond the bed
        (``on_bed``). unlit: a projector's light was taken off the frame (``unlit``): not JPEG, shrunk fits are
        sought again as on a plain frame, and rough ones as shrunk ones are (``_shrunk_again``), and every outline is
        sought against a cloth with white light up to OUTLINE_LIT of the way to white, as a ball's own local cloth is
        (the light's model holds no sheen, so a sheen's white is left on; in a ball's shadow, where the cloth is dimmer
        and the white is not, it reads 10-25 deg from the cloth's colour: no search line's outer end was cloth).
        sunk_by_pocket: a shape candidate by a pocket far darker than its cloth (DARK_BODY) is searched for the step
        down to its body, as one elsewhere is, not for its darker limb (``_from_shape`` searches such candidates
        both ways and keeps the fit of smaller RMS: a pocket's dark rim is a step down too)."""
        cam, R = self.cam, self.R
        cloth_lin, grey = cloth.linear_colour, grey_cloth(cloth)
        origin = cam.centre
        start = xy.copy()
        alone = found is not None
        rho = np.full(xy.shape[0], R)
        gone = np.zeros(xy.shape[0], bool)      # fits that left their start (a neighbour's outline)
        hollow = np.zeros(xy.shape[0], bool)    # fits with almost no outline on their clear search lines
        min_step = EDGE_MIN_SHARE * np.linalg.norm(cloth_lin)
        side, rho_min = (REFINE_SIDE, RHO_FRAME_MIN_BLOCKY) if blocky else (1.0, RHO_FRAME_MIN)
        luma = blocky and plain and not alone
        held, n_held = None, np.zeros(xy.shape[0], np.int64)     # the last pass's body colours and outline points
        for it, half_width in enumerate(SEARCH_WIDTHS):
            P = np.concatenate([xy, np.full((xy.shape[0], 1), R)], axis=1)
            outline, cpx = self._outlines(xy, rho)
            rpx = mean_radii(outline, cpx)
            normals = outline_normals(outline)
            near = near_neighbours(outline, cpx, np.where(gone | hollow, 0.0, rpx), half_width + 1.0, normals)
            if found is not None and len(found):
                near |= inside_circles(outline + (half_width + 1.0) * normals, found.px, found.r_px)
            mask, corner, rows = self._holes_near(cpx)
            local, _ = local_cloth(image, cpx, rpx, cloth, OUTLINE_RINGS)
            cos = local @ cloth_lin / (np.linalg.norm(local, axis=1) * np.linalg.norm(cloth_lin))
            own = (cloth.lit != (0.0, 0.0)) | (cos < np.cos(np.radians(LOCAL_OWN_DEG)))
            ref = np.where(own[:, None], local, cloth_lin)
            body = body_colour(image, cpx, rpx)
            if held is not None:    # a two-coloured ball's body read from its other part (a stripe's white cap)
                turned = (n_held >= MIN_EDGES) & turned_far(held, body)
                body[turned] = held[turned]
            # no halo rings (their remnants; bright finite): balls of the cloth's own colour, and brightness where
            # colour cannot tell (a ball of the cloth's hue, white on a grey cloth: a moving white ball's blur on
            # green is no ball); halo rings (their remnants are bright), vivid: a far brighter ball of the cloth's
            # hue; JPEG: colour smeared out from the ball, start nearer the ball's own colour; shape alone, of its
            # cloth's hue: its darker limb (vision.limbs); under halo rings: of its cloth's hue, clear of its
            # neighbours (``_search_rules``)
            deg, ball_bright, low, limb, shaded = _search_rules(body, ref, local, near, float(bright), vivid, blocky,
                                                                alone)
            # (a ball searched against the frame's cloth colour has own, low False and ball_bright inf: ref is
            # cloth_lin, lit share 0, refined after the first pass)
            # a shape candidate of its cloth's hue far darker than it (the 8 lit to a grey cloth's hue): its outline is
            # the step down to its body, not a limb darker than that body (not by a pocket: its dark rim is a step too)
            level = np.linalg.norm(body, axis=1) / np.maximum(np.linalg.norm(local, axis=1), 1e-12)
            sunk = limb & (level < DARK_BODY) & (sunk_by_pocket | ~rows)
            limb &= ~sunk
            dark_at = np.where(sunk, level ** (1.0 - SUNK_STEP), DARK_LINEAR)
            lit_share = np.where(own | unlit, OUTLINE_LIT, 0.0)       # (light taken off: a sheen's white left on)
            pts, valid = outline_points(image, outline, half_width, ref, (it > 0) & ~low, min_step,
                                        (mask, corner, rows), ball_bright, deg, lit_share,
                                        side, normals, dark_at)
            lowc = low & ~limb & ~sunk & (unlit and not blocky)
            dark = limb | shaded | sunk | lowc
            if dark.any():       # the darker limb's points (vision.limbs): shape alone, or under halo rings where the
                # colour search found a short arc (by the lamp's highlight) and the limb a longer one, or a far darker
                # shape candidate whose step down found a short arc (no tie-break by count: a far darker body's limb fit
                # shrinks, and the next pass's step search about it finds none), or a ball searched for its own
                # angle whose colour arc has FEW_EDGES points or more and its limb more (not a shorter arc: a
                # sheen's remnant on the cloth shows a limb too)
                lp, lv = darker_limb(image, outline[dark], normals[dark], half_width, local[dark])
                n_own, n_limb = (valid[dark] & ~near[dark]).sum(axis=1), (lv & ~near[dark]).sum(axis=1)
                low_d = lowc[dark]
                # (on a grey cloth a shape candidate keeps its colour's points where they alone can hold it: its limb
                # under FEW_EDGES points, its colour SHAPE_MIN_EDGES or more: a pale ball no darker at its limb)
                use = ((limb[dark] & ((n_limb >= FEW_EDGES) | (n_own < SHAPE_MIN_EDGES) | (not grey)))
                       | (~low_d & (n_own < FEW_EDGES) & (n_limb >= FEW_EDGES))
                       | (low_d & (n_own >= FEW_EDGES) & (n_limb > n_own)))
                took = np.flatnonzero(dark)[use]
                pts[took], valid[took] = lp[use], lv[use]
            valid &= ~near
            held, n_held = body, valid.sum(axis=1)
            rays = used_rays(cam, pts, valid)
            px_per_m = cam.K[0, 0] / np.linalg.norm(P - origin, axis=1)
            last = it == len(SEARCH_WIDTHS) - 1
            xy0, rho0 = xy, rho
            seen = (~near).sum(axis=1)      # search lines not run into a neighbour (the last pass's count)
            xy, rho, rms, tw = fit_spheres(origin, rays, valid, xy0, R, rho0, px_per_m, iters=3 if it == 0 else 6)
            if last:         # a partial outline cannot tell rho from the centre: the frame's rho, or R
                prior = frame_rho(rho, (tw > 0.5).sum(axis=1) >= WHOLE_SHARE * N_RAYS, R, rho_min)
                xy, rho, rms, tw = fit_spheres(origin, rays, valid, xy0, R, rho0, px_per_m, iters=6,
                                               rho_prior=prior, prior_weight=RHO_PRIOR_RAYS)
            if last and luma:    # JPEG: the outline points moved towards the luma's (LUMA_BLEND)
                o = self._outlines(xy, rho)[0]
                lp, lv = _edges.luma_points(image, o, outline_normals(o), LUMA_SIDE, LUMA_REACH, EDGE_STEP, LUMA_MIN, 2)
                pts = np.where((valid & lv)[..., None], (1 - LUMA_BLEND) * pts + LUMA_BLEND * lp, pts)
                valid = valid & ~white_at_limb(image, o.mean(axis=1), pts, luma_of(body))
                rays = used_rays(cam, pts, valid)
                xy, rho, rms, tw = fit_spheres(origin, rays, valid, xy0, R, rho0, px_per_m, iters=6,
                                               rho_prior=prior, prior_weight=RHO_PRIOR_RAYS)
            gone |= np.linalg.norm(xy - start, axis=1) >= R      # fitting a neighbour's outline: back to its start
            xy[gone], rho[gone], tw[gone] = start[gone], R, 0.0     # for good (step 6 may place it by its contacts),
            # where it hides no neighbour's outline (it was dropped as that neighbour's duplicate before)
            n = (tw > 0.5).sum(axis=1)
            # no outline where one shows and a body of its cloth's hue, lit brighter (a sheen's streak), or with no
            # outline point at all, in its neighbours' shade (a gap among balls): it hides no neighbour's search line
            # next pass (none after the last)
            hollow = (n < HOLLOW_SHARE * seen) & (unlit and not blocky and not last)
            if hollow.any():
                ang, lev, _ = body_against_cloth(image, cpx[hollow], rpx[hollow], cloth)
                floor = np.where(n[hollow] == 0, SPOT_DARK, 1.0)
                hollow[hollow] = (ang < LOW_CONTRAST_DEG) & (lev >= floor) & (lev < BRIGHTER)
            keep = distinct(xy, np.where(np.abs(rho / R - 1) < RHO_TOLERANCE, n, -1), 0.5 * R)
            xy, rho, rms, tw, start, fill, gone, hollow, seen, held, n_held = (
                v[keep] for v in (xy, rho, rms, tw, start, fill, gone, hollow, seen, held, n_held))
            if not last:     # a fit that is no ball must not hide real balls' edges next time
                rho = np.clip(rho, (1 - RHO_TOLERANCE) * R, (1 + RHO_TOLERANCE) * R)
        # an outline found inside the ball on one side (a stripe of the cloth's colour); under halo rings or JPEG
        # only where the fit would be dropped for its rho; rough too under a projector's light taken off
        under = SHRUNK * prior if (plain or unlit) and not blocky else min(SHRUNK * prior, (1 - RHO_TOLERANCE) * R)
        self._shrunk_again(image, xy, rho, rms, tw, prior, cloth, min_step, under, unlit and not blocky, blocky)
        n_edges = (tw > 0.5).sum(axis=1)
        P = np.concatenate([xy, np.full((xy.shape[0], 1), R)], axis=1)
        r_now = R * cam.K[0, 0] / np.linalg.norm(P - origin, axis=1)      # outline radius [px], about
        by_pocket = self._holes_near(table_to_pixels(cam, P))[2]
        rms_max = np.where(by_pocket, RMS_MAX_PX, RMS_MAX_SHARE * r_now)
        held = (n_edges >= MIN_EDGES) & (np.linalg.norm(xy - start, axis=1) < R)
        others = None
        if alone:       # a frame's roughness is the frame's: a shape call's few fits pooled with the colour search's
            own = ~np.isnan(found.rms_px) & (found.n_edges >= MIN_EDGES)
            others = (found.rms_px[own], found.r_px[own])
        rms_max, slack = frame_limits(rms_max, rms, held, r_now, R, others)
        # shape alone: SHAPE_MIN_EDGES of the N_RAYS search lines' points, counted over the lines clear of neighbours
        need = SHAPE_MIN_EDGES * seen / N_RAYS if alone else 0
        good = (np.abs(rho / R - 1) < RHO_TOLERANCE) & held & (rms < rms_max) & (n_edges >= need)
        xy = self.onto_bed(xy, good, by_pocket)     # no ball overhangs a cushion (an edge inside it, fitted at R)
        few = np.flatnonzero(good & (n_edges < FEW_EDGES))     # a short arc (a halo ring's): a ball only
        good[few] = self._fill_at(fill_map, xy[few]) >= FEW_FILL  # where its square is full of foreground
        good &= apart(xy, good, n_edges, R, slack)     # balls cannot overlap: no short arc inside a ball
        xy, good, placed = place_by_contacts(xy, good, start, R, slack)
        anchored = np.zeros_like(placed)
        if fixed is not None and len(fixed):     # then by contacts with the balls found before too
            xy, good, anchored = place_by_contacts(xy, good, start, R, slack, fixed=fixed)
            placed |= anchored
        if alone:            # shape alone: its own outline or nothing
            good &= ~placed
            placed[:] = False
        if placed.any():     # an empty gap among balls shows cloth: keep only well-filled ones
            weak = np.flatnonzero(placed)[(self._fill_at(fill_map, xy[placed]) < CONTACT_FILL)
                                          | ~self.on_bed(xy[placed], slack)]
            good[weak] = placed[weak] = anchored[weak] = False
        xy = separate_overlaps(xy, good, np.where(placed, 0.0, n_edges), R)
        rms = np.where(placed, np.nan, rms)
        n_edges = np.where(placed, 0, n_edges)
        cpx, rpx, _, added, cloth_v = self._about(image, xy, cloth)
        if placed.any():     # a placed ball whose body is its cloth is an empty gap (``cloth_body``)
            p = np.flatnonzero(placed & good)
            gap = cloth_body(image, cpx[p], rpx[p], cloth)
            good[p[gap]] = placed[p[gap]] = anchored[p[gap]] = False
        det = Detections(px=cpx, r_px=rpx, xy=xy, rms_px=rms, n_edges=n_edges, fill=fill,
                         cloth_v=cloth_v, added=added, span=np.where(placed, 0.0, arc_span(tw > 0.5)),
                         anchored=anchored, provisional=alone & (n_edges < SHAPE_MIN_EDGES))
        det = det.take(good)
        return _dedupe(det, det.xy, R)

    def _about(self, image: np.ndarray, xy: np.ndarray, cloth: ClothModel):
        """(centres (M, 2) [px], outline radii (M,) [px], the local cloth's linear BGR colour (M, 3) and the white
        light added to it (M,) (``local_cloth``; none on a grey cloth, whose colour white light only scales:
        identify reads it off each ball), the cloth's 8-bit value without that light (M,); on a grey cloth that of
        the rings' pooled colour, ``pooled_cloth``) of balls at table positions xy (M, 2) [m] in ``image`` over
        ``cloth``."""
        R = self.R
        P = np.concatenate([xy, np.full((xy.shape[0], 1), R)], axis=1)
        cpx = table_to_pixels(self.cam, P)
        rpx = mean_radii(sphere_silhouettes(self.cam, P, R, 16), cpx)
        rings = ring_colours(image, cpx, rpx, cloth)
        local, added = least_added_cloth(*rings, cloth)          # (a projector or sheen adds light)
        if grey_cloth(cloth):       # the cloth's value for identify pooled over the rings
            return cpx, rpx, local, np.zeros_like(added), linear_to_srgb(pooled_cloth(*rings, cloth)).max(axis=1)
        return cpx, rpx, local, added, linear_to_srgb(local - added[:, None]).max(axis=1)

    def spot_balls(self, image: np.ndarray, det: Detections, cloth: ClothModel, fill_map, ringed: bool) -> Detections:
        """The balls of a rack on a grey cloth that got no candidate (under halo rings or a projector's white light
        a black ball is washed to 0.5-0.7 of the cloth, a white-bodied stripe is of the grey cloth's hue: no
        foreground), at the spots of the balls ``det`` found in ``image`` (``rack_spots``: touching
        at least CONTACT_SEEK_MIN of them, on the bed), placed by those contacts (``place_by_contacts``) and kept
        where their body shows a ball: where the frame is ``ringed``, dimmest body samples unlike ``cloth`` about
        them (``dim_body_unlike``: an empty spot shows the cloth in its neighbours' shadow and the rings'
        remnants), else a lamp's highlight SPOT_GLINT times the dimmer of its body and its cloth
        (``highlight_over_body``: a glossy ball of any colour mirrors the lamps; an empty spot is matte cloth,
        which JPEG darkens beside a black ball and tints beside coloured ones); the balls kept are the next round's
        contacts (at most SPOT_ROUNDS). fill_map: as ``refine``'s (the Detections' fill)."""
        R, out = self.R, _empty()
        for _ in range(SPOT_ROUNDS):
            xy = np.concatenate([det.xy, out.xy])
            p = rack_spots(xy, R, CONTACT_SLACK, CONTACT_SEEK_MIN)
            p = p[self.on_bed(p, CONTACT_SLACK)]
            if not len(p):
                break
            at = np.concatenate([xy, p])
            at, _, placed = place_by_contacts(at, np.arange(len(at)) < len(xy), at, R)
            cpx, rpx, local, added, cloth_v = self._about(image, at[placed], cloth)
            level = (np.linalg.norm(body_colour(image, cpx, rpx), axis=1)
                     / np.maximum(np.linalg.norm(local, axis=1), 1e-12))
            k = int(placed.sum())
            new = Detections(px=cpx, r_px=rpx, xy=at[placed], rms_px=np.full(k, np.nan), n_edges=np.zeros(k, int),
                             fill=self._fill_at(fill_map, at[placed]), cloth_v=cloth_v, added=added,
                             span=np.zeros(k), anchored=np.zeros(k, bool), provisional=np.zeros(k, bool))
            # (under rings their remnants are bright: a highlight there tells nothing)
            others = np.concatenate([det.px, out.px]), np.concatenate([det.r_px, out.r_px])
            kept = (dim_body_unlike(image, cpx, rpx, local, level) if ringed
                    else highlight_over_body(image, cpx, rpx, *others, local, level) >= SPOT_GLINT)
            new = new.take(kept)
            if not len(new):
                break
            out = out.joined(new)
        return out


def rack_spots(xy: np.ndarray, R: float, slack: float, need: int) -> np.ndarray:
    """(P, 2) [m]: where a ball would touch two touching balls of xy (K, 2) [m] (within slack [m] of 2R apart: the
    third corner of their equilateral triangle, on either side; a rack's hexagonal packing), at least 2R - slack
    from every ball of xy and touching at least ``need`` of them, one within R of another left out."""
    if xy.shape[0] < 2:
        return np.zeros((0, 2))
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    i, j = np.nonzero(np.triu(np.abs(d - 2 * R) < slack, 1))
    mid, v = (xy[i] + xy[j]) / 2, xy[j] - xy[i]
    side = np.stack([-v[:, 1], v[:, 0]], axis=1) * (np.sqrt(3.0) / 2)
    p = np.stack([mid + side, mid - side], axis=1).reshape(-1, 2)
    dp = np.linalg.norm(p[:, None] - xy[None], axis=2)
    p = p[(dp.min(axis=1) >= 2 * R - slack) & ((np.abs(dp - 2 * R) < slack).sum(axis=1) >= need)]
    return p[distinct(p, np.zeros(p.shape[0]), R)]


def light_under_rings(half: np.ndarray, model: ClothModel, bright: np.ndarray, table: np.ndarray, lined: np.ndarray,
                      r_half: float):
    """The light a projector adds across the cloth under halo rings (``added_light_field`` with shifted
    windows) in a ring-cleaned half-resolution BGR uint8 image (h, w, 3) with its cloth ``model`` and lit
    brightness ``bright`` (h, w), from the cells of ``table`` (h, w) bool RING_CLEAR px clear of the lines
    ``lined`` (h, w) bool (their remnants bump it over a rack); r_half: the ball radius [px there]. None where
    too little cloth is seen. Both modes' second search of a frame with halo rings and a lit wedge."""
    k = 2 * RING_CLEAR + 1
    clear = cv2.dilate(lined.astype(np.uint8), np.ones((k, k), np.uint8)) == 0
    try:
        return added_light_field(half, model, bright, table & clear, r_half, True)
    except ValueError:
        return None


def body_against_cloth(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray,
                       cloth: ClothModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(angle (M,) [deg] of each disc's body colour (``body_colour``) from the cloth's about it (``local_cloth``),
    level (M,) the body's linear brightness over that cloth's, local (M, 3) that cloth's linear colour) for
    discs of centres (M, 2) [px] and radii (M,) [px] in a BGR uint8 frame over its ``cloth`` model: what tells
    a second search's ball from a soft step the light's take-off left on the cloth."""
    body = body_colour(image, centres_px, radii_px)
    local = local_cloth(image, centres_px, radii_px, cloth)[0]
    level = np.linalg.norm(body, axis=1) / np.maximum(np.linalg.norm(local, axis=1), 1e-12)
    return hue_angle(body, local), level, local


def darker_limb(image: np.ndarray, outline: np.ndarray, normals: np.ndarray, half_width: float,
                local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``vision.limbs.limb_points`` with the detector's constants: each ray's outline point where the ball's limb
    steps down to its cloth (outline (M, N_RAYS, 2) [px], normals alike, half_width [px] either side, local (M, 3)
    linear cloth colours) -> (points (M, N_RAYS, 2) [px], found (M, N_RAYS) bool)."""
    return limb_points(image, LINEAR_LUT, outline, normals, float(half_width), EDGE_STEP, np.ascontiguousarray(local),
                       LIMB_DEPTH, *LIMB_CLOTH, LIMB_INNER)


def white_added(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray, local: np.ndarray,
                level: np.ndarray) -> np.ndarray:
    """(M,) bool: the body about centres (M, 2) with outline radii (M,) [px] in a BGR uint8 image is its local
    cloth's linear colour (M, 3) with white light added: its level over the cloth's (``level`` (M,)) at least 1
    and under BRIGHTER, and the excess over the cloth of its median and of its dimmest BODY_DIMMEST samples
    (``body_colour``) both within WHITE_ADDED_DEG of grey (``hue_angle``). A sheen over a projector's lit area
    adds white light that the fitted projector light leaves on, over all of a remnant; a ball's body differs
    from its cloth by its own colour, a lit ball of the cloth's hue by the cloth's (a white number disc on it
    brightens its median, not its dimmest samples), a white ball by more than BRIGHTER."""
    grey = np.ones_like(local)
    excess = [hue_angle(body_colour(image, centres_px, radii_px, k) - local, grey) for k in (32, BODY_DIMMEST)]
    return (level >= 1.0) & (level < BRIGHTER) & (excess[0] < WHITE_ADDED_DEG) & (excess[1] < WHITE_ADDED_DEG)


def dim_body_unlike(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray, local: np.ndarray,
                    level: np.ndarray) -> np.ndarray:
    """(M,) bool: a ball placed by its contacts among ringed balls shows a body unlike its cloth: the dimmest
    BODY_DIMMEST of its 32 body samples (``body_colour`` about centres (M, 2) with outline radii (M,) [px] in a
    BGR uint8 image) at least EDGE_CHROMA_DEG from the local cloth's linear colour (M, 3) or brighter than
    BRIGHTER times it, or its whole body darker than DARK_LINEAR of it (``level`` (M,): the body's level over
    the cloth's). An empty spot among ringed balls is crossed by their rings, whose remnants read as a bright
    body near the cloth's colour, while its dimmer samples are the cloth in the neighbours' shadow."""
    dim = body_colour(image, centres_px, radii_px, BODY_DIMMEST)
    dim_level = np.linalg.norm(dim, axis=1) / np.maximum(np.linalg.norm(local, axis=1), 1e-12)
    return (hue_angle(dim, local) >= EDGE_CHROMA_DEG) | (dim_level > BRIGHTER) | (level < DARK_LINEAR)


def cloth_body(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray, cloth: ClothModel) -> np.ndarray:
    """(M,) bool: a ball placed by its contacts shows its cloth for a body (``body_against_cloth`` about centres
    (M, 2) with outline radii (M,) [px] in a BGR uint8 frame over its ``cloth`` model): its median within
    EDGE_MIN_DEG of the colour of the cloth about it (its texture is about 1 degree) at SPOT_DARK to BRIGHTER times
    its level, and its dimmest samples no more unlike it (not ``dim_body_unlike``). With no outline of its own only
    its body shows a ball: a hidden rack ball shows its own colour, or, of the cloth's hue, is far darker (the 8) or
    brighter (white caps), or its shaded side is off the cloth's colour (lit_sheen seed 400 frame 0's maroon 7 on a
    burgundy cloth: median 2.7 degrees at 1.55 of the level, dimmest 9.8 degrees); an empty gap among loose balls,
    their contacts read as a rack's, is the cloth all through (lit_sheen seed 77 frame 5: 1.6 and 3.4 degrees)."""
    ang, level, local = body_against_cloth(image, centres_px, radii_px, cloth)
    like = (ang < EDGE_MIN_DEG) & (level >= SPOT_DARK) & (level < BRIGHTER)
    return like & ~dim_body_unlike(image, centres_px, radii_px, local, level)


def highlight_over_body(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray, others_px: np.ndarray,
                        others_r_px: np.ndarray, local: np.ndarray, level: np.ndarray) -> np.ndarray:
    """(M,) a lamp's highlight (``vision.glints.glints``: the brightest pixels' channel mean within its disc, off
    the circles others_px (K, 2), others_r_px (K,) [px]) on each ball of centres (M, 2) with outline radii (M,) [px]
    in a BGR uint8 image, in linear light over the mean of its local cloth's linear colour (M, 3), and that over the
    dimmer of its body and that cloth (``level`` (M,): the body's level over the cloth's). A glossy ball mirrors
    the lamps above it, whatever its colour: well above a dark body, and above the cloth for a bright one."""
    white = srgb_to_linear(glints(image, centres_px, radii_px, others_px, others_r_px)[:, 1])
    return white / np.maximum(local.mean(axis=1), 1e-12) / np.maximum(np.minimum(level, 1.0), 1e-12)


def dark_body_alike(image: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray, local: np.ndarray,
                    level: np.ndarray) -> np.ndarray:
    """(M,) bool: a body of its cloth's hue darker than it (a black 8 that a projector's white light lifts to a grey
    cloth's hue): the dimmest BODY_DIMMEST of its 32 body samples (``body_colour`` about centres (M, 2) with outline
    radii (M,) [px] in a BGR uint8 image) within EDGE_CHROMA_DEG of the local cloth's linear colour (M, 3), and its
    whole body under SPOT_DARK of it (``level`` (M,): the body's level over the cloth's)."""
    dim = body_colour(image, centres_px, radii_px, BODY_DIMMEST)
    return (hue_angle(dim, local) < EDGE_CHROMA_DEG) & (level < SPOT_DARK)


def used_rays(cam: CameraModel, pts: np.ndarray, used: np.ndarray) -> np.ndarray:
    """(M, N, 3) the unit ray directions (``pixel_rays``) of the outline points pts (M, N, 2) [px] that a fit
    uses (``used`` (M, N) bool), straight down elsewhere: ``fit_spheres`` gives those rays no weight (only
    that they are finite matters), and the camera's undistortion of points nothing reads is saved."""
    rays = np.zeros(pts.shape[:2] + (3,))
    rays[..., 2] = -1.0
    rays[used] = pixel_rays(cam, pts[used])
    return rays


@njit(cache=True)
def halved(image, u0, v0, hw, hh):
    """(hh, hw, 3) uint8: each 2 x 2 block's mean of the C-contiguous BGR uint8 image (h, w, 3) from column u0,
    row v0 (2 hw columns and 2 hh rows of it), rounded half up, as cv2.resize's INTER_AREA halves that crop
    (its integer path: (sum + 2) >> 2), read as unsigned byte offsets (a real frame whole 0.45 -> 0.32 ms; the
    registered detector's crop of a rendered frame 0.36 -> 0.22 ms, against cv2.resize, one core)."""
    w = image.shape[1]
    src = image.reshape(-1)
    out = np.empty((hh, hw, 3), np.uint8)
    dst = out.reshape(-1)
    right, down = np.uint64(3), np.uint64(3 * w)
    for y in range(hh):
        top, at = np.uint64(3 * ((v0 + 2 * y) * w + u0)), np.uint64(3 * y * hw)
        for x in range(hw):
            for c in range(3):
                q = top + np.uint64(6 * x + c)
                total = (np.uint32(src[q]) + np.uint32(src[q + right]) + np.uint32(src[q + down])
                         + np.uint32(src[q + down + right]))
                dst[at + np.uint64(3 * x + c)] = (total + np.uint32(2)) >> np.uint32(2)
    return out


def copy_disc(out: np.ndarray, src: np.ndarray, u: int, v: int, r: int) -> None:
    """In place: the pixels of ``out`` (h, w, ...) within cv2's filled circle of radius r [px] about (u, v)
    [px] taken from ``src`` (its shape), through the circle's bounding box (a full-frame mask cost 1.5 ms
    a frame of the hard condition, the same pixels)."""
    h, w = out.shape[:2]
    x0, y0, x1, y1 = max(u - r, 0), max(v - r, 0), min(u + r + 1, w), min(v + r + 1, h)
    if x0 >= x1 or y0 >= y1:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.circle(mask, (u - x0, v - y0), r, 1, -1)
    disc = mask > 0
    out[y0:y1, x0:x1][disc] = src[y0:y1, x0:x1][disc]


def frame_rho(rho: np.ndarray, whole: np.ndarray, R: float, min_count: int) -> float:
    """The prior [m] for the effective radius of a frame's balls (``fit_spheres``' rho_prior): the median
    of the fitted rho (M,) [m] of the balls that show their whole outline (``whole`` (M,) bool) and
    whose rho is within RHO_TOLERANCE of R (a ball that would pass as one: an outline found inside a
    ball, a white ball's shaded limb taken for lit cloth, says nothing of the others'), where at least
    ``min_count`` are; else R."""
    ok = whole & (np.abs(rho / R - 1) < RHO_TOLERANCE)
    return float(np.median(rho[ok])) if ok.sum() >= min_count else float(R)


def frame_limits(rms_max: np.ndarray, rms: np.ndarray, held: np.ndarray, r_px: np.ndarray, R: float,
                 others: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, float]:
    """(the fit RMS limits (M,) [px], the contact slack [m]) of a frame's fits: the fixed limits rms_max (M,)
    [px] and CONTACT_SLACK, where at least FRAME_MIN_FITS fits are ``held`` (M,) bool raised to
    FRAME_RMS_FACTOR times their median RMS (rms (M,) [px]) and CONTACT_RMS_FACTOR times their median RMS
    in metres (outline radii r_px (M,) [px], ball radius R [m]): a JPEG-blocky frame roughens every outline
    alike, and misplaces a rack's edge balls by several mm, so contacts to them are looser. others: None, or
    (RMS (K,) [px], outline radii (K,) [px]) of the frame's fits held elsewhere, counted and pooled with the
    held ones."""
    rms_h, r_h = rms[held], r_px[held]
    if others is not None:
        rms_h, r_h = np.concatenate([rms_h, others[0]]), np.concatenate([r_h, others[1]])
    if rms_h.size < FRAME_MIN_FITS:
        return rms_max, CONTACT_SLACK
    return (np.maximum(rms_max, FRAME_RMS_FACTOR * np.median(rms_h)),
            max(CONTACT_SLACK, CONTACT_RMS_FACTOR * np.median(rms_h * R / r_h)))


def turned_far(held: np.ndarray, body: np.ndarray) -> np.ndarray:
    """(M,) bool: body colours body (M, 3) [linear BGR] turned from the last pass's held (M, 3) at least BODY_TURN_DEG
    in colour and BODY_TURN_LEVEL times brighter: a two-coloured ball's body read from its white part after its
    coloured one (a stripe's cap), not the small drift of a body read about a moving centre."""
    level = np.linalg.norm(body, axis=1) / np.maximum(np.linalg.norm(held, axis=1), 1e-12)
    return (hue_angle(body, held) >= BODY_TURN_DEG) & (level >= BODY_TURN_LEVEL)


def smoother_than_frame(rms: np.ndarray, own: np.ndarray) -> np.ndarray:
    """(M,) bool: the ``own`` (M,) bool fits (an outline of their own, MIN_EDGES points or more) whose RMS rms (M,)
    [px] is under SMOOTH_SHARE of the own fits' median, where FRAME_MIN_FITS or more are own (all False otherwise, as
    ``frame_limits``): a JPEG frame roughens every outline alike, so a fit far smoother than its frame's is a clean
    outline, not a soft step the light's take-off left."""
    if own.sum() < FRAME_MIN_FITS:
        return np.zeros(rms.shape, bool)
    return own & (rms < SMOOTH_SHARE * np.median(rms[own]))


def place_by_contacts(xy: np.ndarray, good: np.ndarray, start: np.ndarray, R: float,
                      slack: float = CONTACT_SLACK, iters: int = 10, fixed: np.ndarray | None = None,
                      sweeps: int = CONTACT_SWEEPS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres for candidates that show too little of their outline (a ball inside a rack). The located
    balls (the ``good`` ones, and ``fixed`` (K, 2) [m]: balls found before, which this call does not return)
    within 2R + slack [m] of the candidate's start may touch it; the centre solves |c - c_j| = 2R
    over them in least squares (Gauss-Newton from the start), the one furthest from touching dropped
    and the solve repeated until all touch to within slack (CONTACT_SLACK; more in a frame whose
    outlines are rough, see ``TableDetector.refine``). Where at least CONTACT_MIN are left, the centre
    lies within R of the start and overlaps no located ball by more than slack, the candidate is placed
    there. Once that places no more, a candidate still unplaced may take the balls up to CONTACT_SEEK R
    further out, at least CONTACT_SEEK_MIN of them touching (a rack's start can be 5-12 mm off its ball).
    Then, ``sweeps`` times over, each placed centre is solved again from where it is against every ball
    located by then (the balls placed after it too) within 2R + slack, on the same terms.
    Returns (xy, good, placed) with the placed candidates marked good and placed. One numba kernel
    (``_place_all``): a call per candidate and its numpy distances cost 0.46 ms a hard frame replayed alone.
    """
    fixed = np.zeros((0, 2)) if fixed is None else fixed
    return _place_all(np.array(xy, np.float64), np.array(good, np.bool_), np.ascontiguousarray(start, np.float64),
                      np.ascontiguousarray(fixed, np.float64).reshape(-1, 2), float(R), float(slack),
                      CONTACT_SEEK * R, int(iters), CONTACT_MIN, CONTACT_SEEK_MIN, int(sweeps))


@njit(cache=True)
def _place_all(xy, good, start, fixed, R, slack, seek_far, iters, need, need_far, sweeps):
    """``place_by_contacts`` in place on xy (M, 2) and good (M,) (copies), returning them and placed (M,): the
    nearer neighbours (seek 0) until they place no more, then those seek_far [m] further out, then ``sweeps``
    rounds of the placed ones solved again against all the others (need of them). A candidate that
    failed is not tried again (``stale``) while no ball has been placed within its reach since (its neighbours
    and so its answer are the same). The located balls in numpy's order: the good ones in index order not
    within R of a fixed ball, then the fixed ones (the order the solve sums them in). Distances are the plain
    sums of squares (as numpy's row norms); the placed centre's distance from its start, which numpy's 1-D norm
    sums by BLAS's dot, could differ by an ulp of R: at such a tie only."""
    M = xy.shape[0]
    placed = np.zeros(M, np.bool_)
    for seek in (0.0, seek_far):         # the wider search only once the near one places no more
        reach = 2 * R + slack + seek
        stale = np.zeros(M, np.bool_)
        changed = True
        while changed:                   # a placed ball can anchor the next one
            changed = False
            located = _located(xy, good, fixed, R)
            todo = np.flatnonzero(~good & ~stale)
            for i in todo:
                c = _touching_solve(start[i], _within(located, start[i], 2 * R + slack), 2 * R, slack, need, iters)
                if np.isnan(c[0]) and seek:    # the start far off the ball (inside a rack): neighbours further out
                    c = _touching_solve(start[i], _within(located, start[i], 2 * R + slack + seek), 2 * R, slack,
                                        need_far, iters)
                if not np.isnan(c[0]) and _dist(c, start[i]) < R and _clear(located, c, 2 * R - slack):
                    xy[i, 0], xy[i, 1] = c[0], c[1]
                    good[i] = placed[i] = changed = True
                    for j in range(M):
                        if not _dist(start[j], c) >= reach:
                            stale[j] = False
                    located = _located(xy, good, fixed, R)
                else:
                    stale[i] = True
    for _ in range(sweeps):              # each placed ball against the balls placed after it too
        for i in np.flatnonzero(placed):
            others = good.copy()
            others[i] = False
            located = _located(xy, others, fixed, R)
            c = _touching_solve(xy[i].copy(), _within(located, xy[i], 2 * R + slack), 2 * R, slack, need, iters)
            if not np.isnan(c[0]) and _dist(c, start[i]) < R and _clear(located, c, 2 * R - slack):
                xy[i, 0], xy[i, 1] = c[0], c[1]
    return xy, good, placed


@njit(cache=True)
def _dist(a, b):
    """|a - b| of two points (2,), as numpy's row norm sums it."""
    d0, d1 = a[0] - b[0], a[1] - b[1]
    return math.sqrt(d0 * d0 + d1 * d1)


@njit(cache=True)
def _located(xy, good, fixed, R):
    """(K', 2) [m] the centres ``fixed`` (F, 2) after those of the good rows of xy (M, 2) not within R of any of
    them (the same ball found twice counts once, where it was found first)."""
    keep = np.zeros(xy.shape[0], np.bool_)
    for i in range(xy.shape[0]):
        if good[i]:
            keep[i] = True
            for j in range(fixed.shape[0]):
                if _dist(xy[i], fixed[j]) < R:
                    keep[i] = False
                    break
    out = np.empty((keep.sum() + fixed.shape[0], 2))
    k = 0
    for i in np.flatnonzero(keep):
        out[k] = xy[i]
        k += 1
    out[k:] = fixed
    return out


@njit(cache=True)
def _within(pts, c, reach):
    """(K', 2) the rows of pts (K, 2) closer than reach to c (2,), in order."""
    near = np.zeros(pts.shape[0], np.bool_)
    for k in range(pts.shape[0]):
        near[k] = _dist(pts[k], c) < reach
    return pts[near]


@njit(cache=True)
def _clear(pts, c, gap):
    """Whether every row of pts (K, 2) lies farther than gap from c (2,)."""
    for k in range(pts.shape[0]):
        if not _dist(pts[k], c) > gap:
            return False
    return True


@njit(cache=True)
def _touching_solve(start, nb, two_r, slack, need, iters):
    """(2,) the centre [m] touching at least ``need`` of the centres nb (K, 2) [m] to within slack, solved from
    start (2,) with the least-touching neighbour dropped until the rest touch; NaNs where fewer than ``need`` are
    left (``place_by_contacts``). Gauss-Newton steps of |c - nb_k| = two_r from start over the kept
    neighbours (the 2x2 normal equations, 1e-12 added to the diagonal, solved directly: as numpy's small
    array calls 1.3 ms a solve of six neighbours on a loaded core, about 0.03 ms here)."""
    keep = np.ones(nb.shape[0], np.bool_)
    left = nb.shape[0]
    while left >= need:
        c0, c1 = start[0], start[1]
        for _ in range(iters):
            a00 = a01 = a11 = b0 = b1 = 0.0
            for k in range(nb.shape[0]):
                if keep[k]:
                    v0, v1 = c0 - nb[k, 0], c1 - nb[k, 1]
                    d = math.sqrt(v0 * v0 + v1 * v1)
                    j0, j1 = v0 / d, v1 / d
                    a00 += j0 * j0
                    a01 += j0 * j1
                    a11 += j1 * j1
                    b0 += j0 * (d - two_r)
                    b1 += j1 * (d - two_r)
            a00 += 1e-12
            a11 += 1e-12
            det = a00 * a11 - a01 * a01
            c0, c1 = c0 - (a11 * b0 - a01 * b1) / det, c1 - (a00 * b1 - a01 * b0) / det
        worst, off_max = -1, -1.0
        for k in range(nb.shape[0]):
            if keep[k]:
                off = abs(math.sqrt((c0 - nb[k, 0]) ** 2 + (c1 - nb[k, 1]) ** 2) - two_r)
                if off > off_max:
                    worst, off_max = k, off
        if off_max < slack:
            return np.array([c0, c1])
        keep[worst] = False
        left -= 1
    return np.array([np.nan, np.nan])


def apart(xy: np.ndarray, good: np.ndarray, n_edges: np.ndarray, R: float, slack: float) -> np.ndarray:
    """(M,) bool: the ``good`` fits at table positions xy (M, 2) [m] but those to fewer than FEW_EDGES outline
    points (``n_edges``, (M,)) that overlap a kept fit with more points by more than slack [m] (taken in
    order of points, the stable order on ties): balls cannot overlap, and a short arc that does is no ball
    (what is left of crossing halo rings beside two balls fitted one between them, 26 mm into both)."""
    kept = np.zeros(xy.shape[0], bool)
    for i in np.flatnonzero(good)[np.argsort(-n_edges[good], kind="stable")]:
        kept[i] = n_edges[i] >= FEW_EDGES or not np.any(np.linalg.norm(xy[kept] - xy[i], axis=1) < 2 * R - slack)
    return kept


def onto_rectangle(xy: np.ndarray, width: float, length: float, margin: float) -> np.ndarray:
    """(K, 2) [m] the points xy (K, 2) [m] moved to the nearest point of the rectangle [margin, width - margin] x
    [margin, length - margin] (those inside it as they are). Moving onto a convex set that holds the truth never
    takes a point further from it: a fitted centre beyond the bed comes no further from its ball's true centre."""
    return np.stack([np.clip(xy[:, 0], margin, width - margin), np.clip(xy[:, 1], margin, length - margin)], axis=1)


def separate_overlaps(xy: np.ndarray, good: np.ndarray, weight: np.ndarray, R: float) -> np.ndarray:
    """Balls cannot overlap: push apart any two located centres closer than 2R, each moving in
    proportion to the other's weight (its edge count: the better-seen ball moves less)."""
    xy = xy.copy()
    idx = np.flatnonzero(good)
    d = np.linalg.norm(xy[idx, None] - xy[None, idx], axis=-1)
    for a, b in zip(*np.nonzero(np.triu((d < 2 * R) & (d > 1e-9), 1))):
        i, j = idx[a], idx[b]
        v = xy[j] - xy[i]
        dist = np.linalg.norm(v)
        if dist < 2 * R:
            wi, wj = weight[i] + 1e-9, weight[j] + 1e-9
            push = (2 * R - dist) * v / dist
            xy[i] -= push * wj / (wi + wj)
            xy[j] += push * wi / (wi + wj)
    return xy


def _dedupe(det: Detections, pts: np.ndarray, dmin: float) -> Detections:
    """Drop the worse of two detections whose centres ``pts`` are closer than ``dmin`` (one ball)."""
    return det.take(distinct(pts, -np.nan_to_num(det.rms_px, nan=np.inf), dmin))


def arc_span(used: np.ndarray) -> np.ndarray:
    """(M,) the share of a full turn spanned by each row of ``used`` (M, N) bool, N rays evenly round a
    circle in order: one less the widest gap between used rays (counted in ray steps, round the end)
    over N; 0 for a row with no ray used."""
    n = used.shape[1]
    pos = np.where(np.concatenate([used, used], axis=1), np.arange(2 * n), 2 * n)
    after = np.minimum.accumulate(pos[:, ::-1], axis=1)[:, ::-1][:, 1:n + 1]    # the next used ray after each
    gap = np.where(used, after - np.arange(n), 0).max(axis=1)
    return np.where(used.any(axis=1), 1.0 - (gap - 1) / n, 0.0)


def _empty() -> Detections:
    z2, z1 = np.zeros((0, 2)), np.zeros(0)
    return Detections(z2, z1, z2, z1, np.zeros(0, dtype=int), z1, z1)


def _rectangle_outline(corners: np.ndarray, n: int) -> np.ndarray:
    pts = []
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        t = np.linspace(0, 1, n, endpoint=False)[:, None]
        pts.append(a + t * (b - a))
    return np.concatenate(pts)
