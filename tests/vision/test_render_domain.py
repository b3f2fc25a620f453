"""The wider rendered domain (vision.render_domain): the renderer does what its options say, and
both detector modes are scored across the domain against the rendered truth.

The thresholds are the figures reached, NOT issue 21's targets (recall 100 %, RMS <= 0.5 mm,
identity >= 99 %); each test's comment gives the figure measured and what it was before the stage
that raised it. docs/vision.md ("Limits") has the per-condition figures."""
from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
from cloth_stages import half_cloth

from planner.state import TableState
from vision import detect
from vision.balls import SNOOKER_NAMES, srgb_to_linear
from vision.bench import Score
from vision.cloth import FOREGROUND
from vision.detect_pixels import detect_in_pixels
from vision.identify import ball_features, colour_names
from vision.layouts import rack, random_layout
from vision.pipeline import TableVision
from vision.render_domain import (
    CLOTH_COLOURS,
    CONDITIONS,
    GENTLE,
    HARD,
    LIT_JPEG,
    LIT_SHEEN,
    SET_SIZE,
    Domain,
    DomainRenderer,
    condition_frames,
    oblique_camera,
    sample_domain,
)
from vision.scene import CLOTH


def _frames(sc, domains, seed):
    rng = np.random.default_rng(seed)
    out = []
    for k, d in enumerate(domains):
        st = rack(sc.table, sc.R, rng) if k == 0 else random_layout(sc.table, sc.R, rng)
        out.append(DomainRenderer(sc, d, seed=k).render(st, rng))
    return out


def _hard_frames(sc):
    """The hard options' 3 frames (a rack first): random cloth, light and colour balance, with a
    projector's lit area and halo rings, sheen, rail glints and JPEG at quality 80."""
    rng = np.random.default_rng(22)
    return _frames(sc, [Domain(**{**sample_domain(rng).__dict__, **HARD}) for _ in range(3)], 8)


def _score(sc, vision, frames):
    s = Score()
    for f in frames:
        det, obs = vision.detect(f.image)
        ids = np.array([o.ball_id if o.ball_id is not None else -1 for o in obs])
        s.add(f.truth.ids, f.truth.pos, det.xy, ids, sc.R)
    return s


def test_default_domain_is_the_default_render(synthetic_camera):
    """Domain() changes nothing but the 8-bit round trip through linear light: within 1 level of
    the fast path's frame (same rng: same orientations and noise offset)."""
    sc, _ = synthetic_camera
    st = random_layout(sc.table, sc.R, np.random.default_rng(3))
    a = sc.fast_renderer(0).render(st, np.random.default_rng(4)).image.astype(int)
    b = DomainRenderer(sc, Domain(), 0).render(st, np.random.default_rng(4)).image.astype(int)
    assert np.abs(a - b).max() <= 1


def test_cloth_colour_is_the_asked_colour(synthetic_camera):
    """An empty-table cloth pixel scales by the ratio of the new to the old linear albedo."""
    sc, _ = synthetic_camera
    new = (25, 85, 150)
    dr = DomainRenderer(sc, Domain(cloth_srgb=new), 0)
    cloth = (sc.gbuffer.kind == CLOTH) & (sc.gbuffer.edge < 0)
    ratio = dr.fast.bg[cloth] / sc.empty_linear[cloth]
    np.testing.assert_allclose(np.median(ratio, axis=0), srgb_to_linear(new) / sc.cloth, rtol=1e-5)


def test_detector_holds_on_cloth_light_and_colour_balance(synthetic_camera, vision):
    """Random cloth colour and texture, lighting gradient, exposure and white balance (no projector,
    glints or JPEG): no false ball; recall, identity and RMS at the figures reached (module notes).
    On such layouts (a rack, clusters, jaws) the default render itself gives 0.55-0.7 mm RMS."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(21)
    doms = [Domain(**{**sample_domain(rng).__dict__, **GENTLE}) for _ in range(4)]
    s = _score(sc, vision, _frames(sc, doms, 7))
    assert s.false == 0
    assert s.recall >= 0.97         # 41/42 (40/42 before the low-contrast outline search: a blue solid on blue cloth)
    assert s.identity >= 0.99       # 100 % (97.5 % with value relative to the cloth, not the white balls)
    assert s.rms_mm <= 0.3          # 0.20 mm (0.49 mm before the rho prior and the third outline pass)


def test_balls_of_the_cloths_own_hue_are_found(synthetic_camera, vision):
    """A grey cloth (the gentle domain's grey, with texture and a lighting gradient): the cue and the
    white of stripes and number discs have the cloth's hue. The outline search takes a colour much
    brighter than the cloth for ball (edges.py, BRIGHT_LINEAR), and a rack's black 8 is placed by its
    contacts though its white disc is no foreground (CONTACT_FILL): 37/37, no false ball, identity
    100 %, 0.53 mm RMS with the rack (31/37 before: the cue in every frame, stripes 12 and 14, the 8)."""
    sc, _ = synthetic_camera
    d = Domain(cloth_srgb=(95, 100, 105), texture=0.05, gradient=(0.2, -0.15))
    s = _score(sc, vision, _frames(sc, [d] * 3, 31))
    assert s.false == 0
    assert s.recall == 1.0
    assert s.identity >= 0.99
    assert s.rms_mm <= 0.55


def test_detector_holds_on_an_oblique_camera(synthetic_camera):
    """A camera tilted 4 degrees from the vertical (registered with its own pose): every ball, no
    false ball, identity >= 99 %; RMS <= 0.3 mm (0.23 mm measured; 0.33 mm with two outline passes
    and no rho prior)."""
    sc0, lm = synthetic_camera
    sc = oblique_camera(sc0, 4.0, 30.0)
    s = _score(sc, TableVision(sc.cam, sc.table, sc.R, lm), _frames(sc, [Domain(tilt_deg=4.0)] * 3, 10))
    assert s.recall == 1.0 and s.false == 0
    assert s.identity >= 0.99
    assert s.rms_mm <= 0.3


def test_detector_on_projector_halo_glints_and_jpeg(synthetic_camera, vision):
    """The hard options: no false balls; recall is the figure reached (issue 21 target: 100 %), and
    the balls found are named (the projector's and sheen's added light taken off each ball first:
    66.7 % named without)."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, _hard_frames(sc))
    assert s.false == 0
    assert s.recall >= 0.81         # 27/33 = 81.8 % measured (78.8 % before a second search with the light taken
                                    # off under the halo rings, 75.8 % before the outline search took whiter cloth
                                    # for cloth, JPEG's colour steps were refined wide and a single whole ball
                                    # set the rho prior, 69.7 % before the rings' arcs and soft edges were
                                    # taken out, 63.6 % before the rings were, 48.5 % before the wedge)
    assert s.identity >= 0.95       # 26/27 = 96.3 % measured (66.7 % before the added light was taken off)


@pytest.mark.parametrize("name, parent, changed, options", [
    ("lit_jpeg", "hard", "halo", LIT_JPEG),           # a projector's lit area, sheen, glints and JPEG q80, no rings
    ("lit_sheen", "lit_jpeg", "jpeg_quality", LIT_SHEEN),     # ... and no JPEG: frames sent uncompressed
])
def test_a_lit_condition_is_its_parents_draw_with_one_option_off(synthetic_camera, name, parent, changed, options):
    """``lit_jpeg`` draws what ``hard`` draws from the same rng (cloth, light, colour balance) with the halo rings
    off, and ``lit_sheen`` what ``lit_jpeg`` draws with JPEG off: the one option off (on in the parent), every
    other the parent's, and the condition's own options (``LIT_JPEG``, ``LIT_SHEEN``) as given."""
    sc, _ = synthetic_camera
    drawn = CONDITIONS[name](np.random.default_rng(3), sc.table)
    base = CONDITIONS[parent](np.random.default_rng(3), sc.table)
    assert getattr(drawn, changed) == 0 and getattr(base, changed) > 0
    assert drawn == Domain(**{**base.__dict__, changed: 0})
    assert all(getattr(drawn, k) == v for k, v in options.items())


def test_a_lit_jpeg_frame_is_searched_twice(synthetic_camera, vision):
    """The ``lit_jpeg`` condition's second set (``condition_frames`` seed 6: a rack and 3 random layouts; a
    projector's lit area with a sheen over it, JPEG q80, no rings). Taken off before the first search, the
    fitted light left the sheen on the cloth and JPEG's blocks made its remnant foreground: 3 false balls on
    plain cloth (2 in frame 1, 1 in frame 2), RMS 1.25 mm, 97.9 % named. Searched twice as under halo rings
    (first with the light on, then with it taken off, the balls only the second search finds held to
    ``added_kept``): every ball (48), none false, 1.29 mm and every ball named, measured."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, condition_frames(sc, "lit_jpeg", SET_SIZE, 6))
    assert s.false == 0
    assert s.recall == 1.0
    assert s.rms_mm <= 1.35
    assert s.identity >= 0.99


def test_a_sheens_remnant_is_no_ball_where_the_second_search_found_one(synthetic_camera, vision, monkeypatch):
    """The bench's lit_jpeg seed 400 frame 12 (``condition_frames`` seed 403, frame 0: a rack): the second search
    (the projector's light taken off) fits an arc on the sheen's JPEG blocks whose body, in the frame as given,
    is the lit cloth with white light added. ``added_kept`` refuses it (``white_added``): every ball of the
    renderer's truth found, none false; without that test the false ball is kept (on the bench's lit_jpeg seeds
    77 and 400 one each)."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "lit_jpeg", 1, 403)[0]
    s = _score(sc, vision, [frame])
    assert s.false == 0
    assert s.recall == 1.0
    monkeypatch.setattr(detect, "white_added", lambda image, c, r, local, level: np.zeros(len(c), bool))
    assert _score(sc, vision, [frame]).false == 1


def test_a_sheens_remnant_is_no_ball_in_a_frame_searched_once(synthetic_camera, vision):
    """The ``lit_sheen`` condition's second set (``condition_frames`` seed 6, the bench's seed 5 frames 4-7: a
    projector's lit area with a sheen over it, no JPEG, no rings). The frame is searched once with the fitted
    light taken off; the sheen's white light stays on the cloth, and its remnant fitted two short arcs (9 and
    12 outline points, frames 5 and 6) while outlines were sought against the cloth without it. Sought against
    the cloth with that white on it (``refine``, ``unlit``): every ball (48) found, none false, 0.30 mm and
    every ball named, measured."""
    sc, _ = synthetic_camera
    frames = condition_frames(sc, "lit_sheen", SET_SIZE, 6)
    s = _score(sc, vision, frames)
    assert s.false == 0
    assert s.recall == 1.0
    assert s.rms_mm <= 0.32         # 0.300 mm measured
    assert s.identity >= 0.99


def test_a_lit_jpeg_frames_second_search_starts_from_the_first_searchs_work(synthetic_camera, vision, monkeypatch):
    """A lit JPEG frame's second search reads the frame the first did (the bench's lit_jpeg seed 5 frame 2):
    its start (``TableDetector._start``: the halving, the line removal, the cloth model) is made once for
    both searches, and that search finds what it finds from a start of its own, to the bit."""
    sc, _ = synthetic_camera
    image = condition_frames(sc, "lit_jpeg", 3, 5)[2].image
    tdet = vision.detector
    calls = []
    start = detect.TableDetector._start
    monkeypatch.setattr(detect.TableDetector, "_start", lambda self, frame: calls.append(frame) or start(self, frame))
    memo = {}
    first, _, _, again = tdet._detect(image, True, memo=memo)
    assert again is image                     # (a lit JPEG frame: searched again with the light taken off)
    shared = tdet._detect(again, False, first.xy, memo)[0]
    assert len(calls) == 1 and calls[0] is image
    own = tdet._detect(again, False, first.xy)[0]
    assert len(calls) == 2 and len(shared) > 0
    for name in ("px", "r_px", "xy", "rms_px", "n_edges", "fill", "cloth_v", "added", "span", "anchored"):
        assert getattr(shared, name).tobytes() == getattr(own, name).tobytes(), name


def test_the_second_search_adds_no_false_ball_where_it_once_did(synthetic_camera, vision):
    """The hard condition's frames where the second search under halo rings added false balls before
    its balls were held to ``TableDetector.added_kept``'s rule (the bench's seed 5 frame 7: a ball
    placed by its contacts beside a halo ring, RMS NaN; seed 30 frame 7: a 13-point arc on the lit
    area's soft edge 280 mm from any ball, and an 11-point arc beside a ball): no false ball, and the
    ball the second search adds there is still found (7/7 and 12/12 measured since a ball of the cloth's
    hue under rings takes its darker limb's points, stop 42; 6/7 and 12/12 before; 6/7 and 11/12 without
    the second search)."""
    sc, _ = synthetic_camera
    frames = [condition_frames(sc, "hard", SET_SIZE, seed)[SET_SIZE - 1] for seed in (6, 31)]
    s = _score(sc, vision, frames)
    assert s.false == 0
    assert s.found == 19


def _rack_frame(sc, seed, leave_out=None, condition="hard"):
    """The bench's rack frame of ``condition`` (hard unless given) and set ``seed`` (``condition_frames(sc,
    condition, n, seed - k)``'s frame 4 k), with the ball of id ``leave_out`` taken out (its gap left empty)
    where one is given."""
    rng = np.random.default_rng(seed)
    d = CONDITIONS[condition](rng, sc.table)
    st = rack(sc.table, sc.R, rng)
    keep = st.ids != leave_out
    return DomainRenderer(sc, d, seed=0).render(TableState(st.ids[keep], st.pos[keep]), rng)


def test_a_ringed_racks_inner_balls_are_placed_against_the_first_searchs_balls(synthetic_camera, vision):
    """The second search under halo rings places a rack's inner balls by their contacts with the first
    search's balls too (``refine``'s fixed): the bench's hard seed 77 frame 4 (a maroon cloth's rack: a red 3,
    maroon 7 and 15, blue 10 and orange 13 inside it, which the second search's own fits of their neighbours
    left without three contacts) 15 of 16 found, measured (11 before). The same rack of seed 5 frame 0 with
    its 1 taken out: its gap, crossed by its neighbours' rings, is refused (a body unlike the cloth in its
    dimmest samples, ``added_kept``); judged on all its samples it was a false ball 1 mm from the gap."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, [_rack_frame(sc, 78)])
    assert s.false == 0
    assert s.found == 15
    assert _score(sc, vision, [_rack_frame(sc, 5, leave_out=1)]).false == 0


def test_a_grey_cloths_ringed_racks_ball_with_no_candidate_is_placed_at_its_spot(synthetic_camera, vision):
    """Under halo rings on a grey cloth a rack's white-bodied or washed balls are of the cloth's hue and give no
    candidate; they are placed at the spot where they touch two touching balls found (``spot_balls``): the bench's
    hard seed 5 frame 8 (its green-striped 14 at the rack's edge, placed 0.4 mm off) 15 of 16 found, measured (14
    before). The same rack with its 8 taken out: a spot lies on the gap, refused by its body (the cloth in its
    neighbours' shadow and the rings' remnants, 1.4 degrees from the cloth in its dimmest samples)."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, [_rack_frame(sc, 7)])
    assert s.false == 0
    assert s.found == 15
    assert _score(sc, vision, [_rack_frame(sc, 7, leave_out=8)]).false == 0


def test_a_grey_cloths_racked_black_8_under_white_light_is_placed_at_its_spot(synthetic_camera, vision):
    """Under a projector's white light (no rings) on a grey cloth the racked black 8 is lifted to the cloth's hue
    and gives no candidate; it is placed at the spot where it touches two touching balls found (``spot_balls``)
    and kept by the lamp's highlight on it, 5.87 times its body (0.52 of its cloth; ``highlight_over_body``): the
    bench's lit_sheen seed 5 frame 8 16 of 16 found, measured (15 before), no false ball. The same rack with its
    8 taken out: the gap, the matte cloth in its neighbours' shadow, is refused (1.08)."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, [_rack_frame(sc, 7, condition="lit_sheen")])
    assert s.false == 0
    assert s.found == 16
    assert _score(sc, vision, [_rack_frame(sc, 7, leave_out=8, condition="lit_sheen")]).false == 0


def test_a_grey_cloths_racked_white_bodied_stripe_in_the_sheen_is_placed_at_its_spot(synthetic_camera, vision,
                                                                                      counted):
    """Without rings a rack's spot is kept where it shows a lamp's highlight (``spot_balls``): the bench's lit_sheen
    seed 30 frame 8, a green-stripe 14 mostly white on a grey-green cloth, of the cloth's hue and no foreground (no
    candidate; its body 2.62 of the cloth's level, its highlight 4.21 times the cloth's), touching four balls
    found: placed within 1 mm of its true centre (missed before), every ball found, none false. The same rack with
    the 14 taken out: its gap, cloth in its neighbours' shade, is refused (1.07)."""
    sc, _ = synthetic_camera
    c = counted(_rack_frame(sc, 32, condition="lit_sheen"), 14)
    assert c.off < 1e-3
    assert c.detected == c.matched == c.balls
    assert _score(sc, vision, [_rack_frame(sc, 32, leave_out=14, condition="lit_sheen")]).false == 0


def _grey_rack_frame(sc, k: int, leave_out=None):
    """A rack on a grey cloth (CLOTH_COLOURS' last) in a LIT_JPEG draw from ``default_rng(9100 + k)``, rendered with
    noise seed k, with the ball of id ``leave_out`` taken out (its gap left empty) where one is given."""
    rng = np.random.default_rng(9100 + k)
    d = dataclasses.replace(dataclasses.replace(sample_domain(rng), **LIT_JPEG), cloth_srgb=CLOTH_COLOURS[-1])
    st = rack(sc.table, sc.R, rng)
    keep = st.ids != leave_out
    return DomainRenderer(sc, d, seed=k).render(TableState(st.ids[keep], st.pos[keep]), rng)


def test_a_grey_cloths_lit_jpeg_racks_balls_with_no_candidate_are_kept_by_their_highlight(synthetic_camera, vision):
    """JPEG smears a rack's narrow gaps: on a grey cloth under a projector's light its lifted black 8 and coloured
    balls give no candidate. Placed at their spots (``spot_balls``), they are kept by a lamp's highlight 2.95-6.83
    times the dimmer of their body and their cloth (``highlight_over_body``): the bench's lit_jpeg seed 30 frame 8
    16 of 16 found and named, measured (14 before: its 8 and 14, when JPEG frames had no spots), and the rack of
    ``_grey_rack_frame`` 20 16 of 16 (13 before: its 6, 8 and 12). With one of those balls taken out, no false ball:
    the gaps read 1.06-1.14; the 12's, beside the 8 and darkened by JPEG to 0.62 of its cloth, was a false ball when
    a spot of the cloth's hue under SPOT_DARK of it was kept."""
    sc, _ = synthetic_camera
    for frame in (_rack_frame(sc, 32, condition="lit_jpeg"), _grey_rack_frame(sc, 20)):
        s = _score(sc, vision, [frame])
        assert (s.found, s.false, s.ids_right) == (16, 0, 16)
    gaps = [_rack_frame(sc, 32, leave_out=i, condition="lit_jpeg") for i in (8, 14)]
    gaps += [_grey_rack_frame(sc, 20, leave_out=i) for i in (6, 8, 12)]
    assert _score(sc, vision, gaps).false == 0


def test_a_far_darker_ball_by_a_pocket_takes_the_closer_of_its_step_down_and_its_limb(synthetic_camera, vision):
    """By a pocket a shape candidate far darker than its cloth (``DARK_BODY``) is searched both for the step down to
    its body and for its darker limb, and the fit of smaller RMS is kept (``TableDetector._from_shape``): the bench's
    lit_sheen seed 77 frame 3 (``condition_frames`` seed 77, fourth frame), a black 8 lifted to 0.27 of a grey
    cloth's level, frozen on a cushion by a pocket, measured 0.6 mm off (its limb's fit was dropped: 12 points,
    rho 0.74 R); hard seed 5 frame 18 (seed 9, third frame), an 8 by a corner pocket whose step down finds 16
    points, keeps its limb's fit (0.7 mm). Both within 1 mm of their true centres, every ball matched once."""
    sc, _ = synthetic_camera
    for frame in (condition_frames(sc, "lit_sheen", 4, 77)[3], condition_frames(sc, "hard", 3, 9)[2]):
        det, _ = vision.detect(frame.image)
        eight = frame.truth.pos[list(frame.truth.ids).index(8)]
        off = np.linalg.norm(det.xy - eight, axis=1)
        assert (off < sc.R).sum() == 1 and off.min() < 0.001


def test_a_shrunk_whole_outline_that_the_rho_test_drops_is_searched_again(synthetic_camera, vision):
    """Under light added or JPEG a whole outline fitted under 1 - RHO_TOLERANCE of R is searched again at the
    frame's radius (``TableDetector._shrunk_again``) before the rho test drops it: the bench's hard seed 5 frame
    18 (``condition_frames`` seed 9, third frame), a purple-striped 12 on a grey cloth inside a halo ring whose
    white cap, of the cloth's hue, was taken for cloth on one side (rho 0.83 R), measured found 1.9 mm off and
    named: 8 of 8 balls (7 before), no false ball."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, [condition_frames(sc, "hard", 3, 9)[2]])
    assert s.false == 0
    assert s.found == 8
    assert s.ids_right == 8

def test_detector_under_a_tinted_projector_over_most_of_the_table(synthetic_camera, vision):
    """The hard options with the projector's light tinted (the hard set's seed 7 and 8 frames 3: rgb
    0.97, 0.86, 0.90 over blue cloth, 0.96, 0.81, 0.85 over green), 2 random layouts each: its lit
    area is the commonest colour, so the cloth model's colour is the lit one, and the unlit cloth
    lies off the plane of that colour and white; the light's direction is then taken from the
    table's colours (``vision.cloth._lit_range``). No false ball; 43/48 = 89.6 % found and 100 %
    named, measured (22/48 = 45.8 % and 72.7 % named with white light only; 44/48 before a JPEG
    frame's outline search started from each ball's own colour, which gained on the hard set)."""
    sc, _ = synthetic_camera
    frames = []
    for cloth, tint in (((22, 81, 149), (0.97, 0.86, 0.90)), ((10, 110, 42), (0.96, 0.81, 0.85))):
        d = Domain(**{**HARD, "cloth_srgb": cloth, "projector_rgb": tint})
        rng = np.random.default_rng(5)
        frames += [DomainRenderer(sc, d, seed=k).render(random_layout(sc.table, sc.R, rng), rng) for k in range(2)]
    s = _score(sc, vision, frames)
    assert s.false == 0
    assert s.recall >= 0.89
    assert s.identity >= 0.99


def test_detector_on_a_grey_cloth_under_a_projector(synthetic_camera, vision):
    """A projector's white light over a grey cloth (sRGB 95, 100, 105: the domain's grey), 4 frames
    (a rack and 3 random layouts): the light keeps the cloth's colour, so the cloth model has no lit
    wedge and only its brightness shows the lit ellipse; white and pale balls are found against a
    brightness surface that follows it (``vision.cloth.lit_surface``). No false ball; 51/55 = 92.7 %
    found, 94.1 % named, measured (35/55 = 63.6 % and 85.7 % named against the quadratic surface)."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, _frames(sc, [Domain(cloth_srgb=(95, 100, 105), projector=(0.6, 0.5, 0.5, 0.3, 0.3))] * 4, 5))
    assert s.false == 0
    assert s.recall >= 0.92
    assert s.identity >= 0.94


def test_detector_under_halo_rings(synthetic_camera, vision):
    """A projector's halo rings (white lines round the balls, across a rack's balls too), 4 frames (a
    rack and 3 random layouts): the rings are taken out before the cloth model and the candidates
    (``TableDetector.unlined``) and arcs of ring left over are no balls (FEW_EDGES). No false ball;
    every ball (43), RMS 0.39 mm, identity 100 %: the issue's targets (93.0 % and 97.5 % named
    without taking the lines' soft edges, 88.4 % searching four directions for lines, not eight;
    81.4 % with the rings left in; 86.0 % with pixel-only mode's narrower line reach)."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, _frames(sc, [Domain(halo=0.6, halo_share=0.5)] * 4, 5))
    assert s.false == 0
    assert s.recall == 1.0
    assert s.rms_mm <= 0.5
    assert s.identity >= 0.99


def _foreground_share(image):
    """(cloth model, foreground share of the middle 70 % of the frame: the cloth and its balls)."""
    model, classes = half_cloth(image)
    fg = classes & FOREGROUND
    hh, hw = fg.shape
    return model, float((fg[int(0.15 * hh):int(0.85 * hh), int(0.15 * hw):int(0.85 * hw)] > 0).mean())


def test_projector_lit_cloth_is_cloth(synthetic_camera, vision):
    """White light added to the middle of the cloth (a projector's soft ellipse): the cloth model
    spans the lit and the unlit cloth, so on the cloth only the balls are foreground (under 5 %;
    a one-colour model makes the unlit part foreground); on the
    default render the model keeps one colour (no lit wedge); and the registered detector finds
    all the balls (100 % measured on these 4 frames since the projector's light is taken off the
    frame first, ``TableDetector.unlit``: the green balls lit into the cloth's colour wedge were
    missed before, 92.7 %; 90.9 % with the nearest ring's cloth colour only, 49.1 % with one cloth
    colour), centres to 0.4 mm RMS (0.37 mm; 0.50 mm before the light was taken off, 0.75 mm
    before each ball's own cloth), and names them (100 %; 82 % before the projector's added light
    was taken off each ball)."""
    sc, _ = synthetic_camera
    frames = _frames(sc, [Domain(projector=(0.6, 0.5, 0.5, 0.3, 0.3))] * 4, 5)
    model, share = _foreground_share(frames[1].image)
    assert model.lit[0] < 0 or model.lit[1] > 0
    assert share < 0.05
    plain, share = _foreground_share(_frames(sc, [Domain()] * 2, 5)[1].image)
    assert plain.lit == (0.0, 0.0) and share < 0.05
    s = _score(sc, vision, frames)
    assert s.false == 0
    assert s.recall == 1.0
    assert s.rms_mm <= 0.4
    assert s.identity >= 0.99


def test_no_ball_where_a_projectors_soft_edge_meets_a_cushion(synthetic_camera, vision):
    """The projector condition's seed-41 frames 12 and 13 (its fourth set: ``condition_frames``
    seed 44): in frame 13 balls 8, 2 and 15 lie by the cushion where the lit ellipse fades out;
    the light fitted there was 0.015 too strong, the cloth turned foreground, a ball was placed
    by contacts in the empty gap among the three (56 mm from any ball) and ball 2 was dropped as
    part of a hand. With each cloth pixel's own light taken off (``LIGHT_PLANE_DEG``): every ball
    (28), none false (1 false, 27 found before)."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, condition_frames(sc, "projector", 2, 44))
    assert s.false == 0
    assert s.recall == 1.0

def test_rack_balls_whose_candidates_start_far_off(synthetic_camera, vision):
    """The racks of the halo condition's seed-41 frames 12 and 16 and the JPEG condition's seed-41 frame 8
    (``condition_frames`` seeds 44, 45 and 43, one frame each). Inside a rack under halo rings or JPEG a
    candidate starts 5-12 mm off its ball (its neighbours' outlines vote too), and its outline search
    drifts onto a neighbour: the ball is now placed by its contacts sought CONTACT_SEEK R further out
    (frame 12's ball 15) and a fit that leaves its start by R goes back to it (frames 16 and 8, ball 14,
    whose fit was dropped as the neighbour's duplicate). Every ball (48), none false, every one named
    (45/48 found and 46/48 named before: a stripe taken for its solid twin beside the missing ones)."""
    sc, _ = synthetic_camera
    frames = [condition_frames(sc, cond, 1, seed)[0] for cond, seed in (("halo", 44), ("halo", 45), ("jpeg", 43))]
    s = _score(sc, vision, frames)
    assert s.false == 0
    assert s.recall == 1.0
    assert s.identity == 1.0


def test_of_two_overlapping_fits_the_shorter_outline_is_no_ball(synthetic_camera, vision):
    """The JPEG condition's seed-5 frame 8 (a rack; ``condition_frames`` seed 7): two of the rack's fits
    overlapped by more than the frame's contact slack and were pushed apart, each moving by the other's
    outline points. Balls cannot overlap: the fit with fewer outline points is dropped (``apart``) and
    placed by its contacts. Every ball (16), none false, the worst 1.26 mm off measured (1.78 mm before;
    the frame's RMS 0.86 -> 0.70 mm)."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, condition_frames(sc, "jpeg", 1, 7))
    assert s.false == 0
    assert s.recall == 1.0
    assert s.max_mm <= 1.4


def test_detector_through_jpeg_and_sheen(synthetic_camera, vision):
    """JPEG q60 (blocky, chroma-smeared outlines: the frame's own residual level sets the fit limit)
    and cloth sheen with rail-cap glints (whitened cloth: each ball's own cloth colour), 4 frames each
    (a rack and 3 random layouts): no false ball; JPEG recall 100 % (55) at 0.854 mm RMS measured
    (1.114 mm before the outline search started from each ball's own colour in a JPEG frame;
    98.2 % at 1.82 mm before colour steps were refined wide and a single whole ball set the rho
    prior, docs/vision.md step 4; 87.3 % before contacts were loosened by the frame's fit RMS; 67.3 %
    before the frame's residual level), sheen 100 % (90.9 % before) at 0.39 mm RMS (0.72 mm before)."""
    sc, _ = synthetic_camera
    s = _score(sc, vision, _frames(sc, [Domain(jpeg_quality=60)] * 4, 5))
    assert s.false == 0 and s.recall == 1.0
    assert s.rms_mm <= 0.86
    s = _score(sc, vision, _frames(sc, [Domain(sheen=0.2, rail_glints=1.0)] * 4, 5))
    assert s.false == 0 and s.recall == 1.0
    assert s.rms_mm <= 0.45 and s.identity >= 0.99


def test_identity_where_per_ball_decisions_swapped(synthetic_camera, vision):
    """Identity on the draws where deciding each ball by its own costs named 9 of 174 balls wrong
    (94.8 %): halo rings whitening a solid (seeds 7, 9: 5/13 and 1/9 swapped), a sheen greying the 8
    beside the cue ball (seed 7: 0/8 swapped), random cloth and colour balance (gentle, draw 22: red
    named orange by its brightness over a dark cloth). 16 frames (racks and random layouts);
    100 % measured with the hue as the sharper colour cue, a bright cue ball and each colour's solid
    and stripe ordered by their white (``vision.identify``)."""
    sc, _ = synthetic_camera
    frames = [f for seed, d in ((7, Domain(halo=0.6, halo_share=0.5)), (9, Domain(halo=0.6, halo_share=0.5)),
                                (7, Domain(sheen=0.2, rail_glints=1.0))) for f in _frames(sc, [d] * 4, seed)]
    rng = np.random.default_rng(22)
    frames += _frames(sc, [Domain(**{**sample_domain(rng).__dict__, **GENTLE}) for _ in range(4)], 22)
    s = _score(sc, vision, frames)
    assert s.found >= 170
    assert s.identity >= 0.99


def test_snooker_set_named_by_colour(synthetic_camera, vision):
    """A rendered snooker set (plain balls) on random cloth: colour names with ball_set='snooker'
    match the rendered colours."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(23)
    doms = [Domain(**{**sample_domain(rng, "snooker").__dict__, **GENTLE}) for _ in range(3)]
    right = total = 0
    for f in _frames(sc, doms, 9):
        det, _ = vision.detect(f.image)
        names, _ = colour_names(ball_features(f.image, det.px, det.r_px, det.cloth_v), ball_set="snooker")
        d = np.linalg.norm(det.xy[:, None] - f.truth.pos[None], axis=2)
        for i, j in enumerate(d.argmin(axis=1)):
            if d[i, j] < sc.R:
                right += names[i] == SNOOKER_NAMES[int(f.truth.ids[j])]
                total += 1
    assert total >= 20
    assert right / total >= 0.99


def test_unknown_ball_set_says_what_is_allowed():
    with pytest.raises(ValueError, match="ball_set must be one of"):
        Domain(ball_set="carom")


def test_pixel_only_mode_on_cloth_light_and_colour_balance(synthetic_camera):
    """Pixel-only mode (no camera model) across random cloth colour and texture, lighting
    gradient, exposure and white balance, on random layouts (no rack): no false ball (a pocket on a dark cloth is a hole, not a
    black ball), recall at the figure reached (48 of 49 measured, 46 before the weak steps of the
    narrower outline passes and the round fits' smaller unlike share took in two green balls on a
    green-ish cloth; the miss: a ball in a jaw whose inside is half within a pocket's rim band),
    centres within a pixel of the projected ones (median; 0.07 px measured)."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(24)
    s = Score()
    for k in range(4):
        d = Domain(**{**sample_domain(rng).__dict__, **GENTLE})
        f = DomainRenderer(sc, d, seed=k).render(random_layout(sc.table, sc.R, rng), rng)
        s.add(f.truth.ids, f.truth.centre_px, detect_in_pixels(f.image, 12.8).px, None, 6.0)
    assert s.false == 0
    assert s.recall >= 0.97
    assert np.median(s.errors) < 1.0


def _pixel_score(frames):
    s = Score()
    for f in frames:
        s.add(f.truth.ids, f.truth.centre_px, detect_in_pixels(f.image, 12.8).px, None, 6.0)
    return s


def test_pixel_only_places_a_racks_inner_ball_where_it_touches_its_neighbours(synthetic_camera):
    """A full rack (the default condition's first frame of seed 6): the 14 inside it, whose outline
    shows only in the narrow gaps, is placed where it touches the balls fitted about it, so every
    ball of the rack is found (15 of 16 without the placing; placed 0.5 px from the projected centre,
    the pixel-only tests' gate 6 px). The first frame of seed 41, taken here before stop 42, now has its
    inner ball fitted on 0.6 of its free search lines (``HEMMED_SHARE``), none placed."""
    sc, _ = synthetic_camera
    f = condition_frames(sc, "default", 1, 6)[0]
    det = detect_in_pixels(f.image, 12.8)
    s = Score()
    s.add(f.truth.ids, f.truth.centre_px, det.px, None, 6.0)
    assert len(f.truth.ids) == 16 and s.found == 16 and s.false == 0
    assert np.isnan(det.rms_px).sum() >= 1                 # (placed balls have no fit residual)


def test_pixel_only_keeps_both_rack_balls_whose_fits_lean_together(synthetic_camera):
    """The gentle and JPEG conditions' rack of seed 5's frame 12 (``condition_frames`` seed 8, first
    frame): a red 3 and a blue 2 each have their own candidate (1.9-2.0 radii from the neighbour's), but
    their fits and a neighbour's leaned into each other (1.34 and 1.50 radii apart, a stripe's fit drawn
    onto its white cap) and the ball with fewer points was dropped as overlapping. Of two such fits the
    dropped one, with START_APART and PULLED_SUPPORT, is a ball too: every ball of both racks (32; 30
    before), none false."""
    sc, _ = synthetic_camera
    s = _pixel_score([condition_frames(sc, cond, 1, 8)[0] for cond in ("gentle", "jpeg")])
    assert s.found == 32 and s.false == 0


def test_pixel_only_mode_under_halo_rings(synthetic_camera):
    """Pixel-only mode with a projector's rings (0.6 of the table-centre light) round half the balls,
    a rack among the frames (rings across its balls): the rings' thin lines of added light are
    taken out (``vision.thin_lines``), so recall is at the figure reached (39/43 = 90.7 %; 76.7 %
    with 7 false balls at the rack's gaps without that stage) with at most 3 false balls (3)."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(5)
    frames = [DomainRenderer(sc, Domain(halo=0.6, halo_share=0.5), seed=k).render(
        rack(sc.table, sc.R, rng) if k == 0 else random_layout(sc.table, sc.R, rng), rng) for k in range(4)]
    s = _pixel_score(frames)
    assert s.recall >= 0.9
    assert s.false <= 3


def test_pixel_only_mode_on_projector_halo_glints_and_jpeg(synthetic_camera):
    """Pixel-only mode on the hard options' frames (those of the registered test above): recall at
    the figure reached (29/33 since the frames with halo rings and a projector's light are searched again
    with the light under the rings taken off, stage 8; 24/33 before; 23/33 since pixels over GREY_BRIGHTER
    times the lit cloth count as foreground under a projector's light and halo rings too: the cue ball of
    the rack and of the third frame and two stripes' white halves; 19/33 before, 42.4 % before the
    thin-line stage) and at most 2 false balls (0; 6 before the play area's sides were squared up: a rail
    lit into the cloth's colour bent them out over its markers and diamonds)."""
    sc, _ = synthetic_camera
    s = _pixel_score(_hard_frames(sc))
    assert s.found >= 29
    assert s.false <= 2


def test_pixel_only_mode_on_a_grey_cloth_under_a_projector_and_halo_rings(synthetic_camera):
    """A projector's white light and halo rings round every ball over a grey cloth (one random layout): the
    white ball and the stripes' white halves have the lit grey cloth's colour, so pixels over GREY_BRIGHTER
    times its lit surface count as foreground here too, off the rings' remnants and the sides
    (``RINGED_GREY_TAN``): 14 of 16 found, the cue ball among them, and 2 false balls (circles on pocket
    holes crossed by rings), measured; 10 of 16 and the same 2 false balls before."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(7)
    d = Domain(cloth_srgb=(95, 100, 105), projector=(0.6, 0.5, 0.5, 0.3, 0.3), halo=0.6, halo_share=1.0)
    f = DomainRenderer(sc, d, seed=0).render(random_layout(sc.table, sc.R, rng), rng)
    s = _pixel_score([f])
    assert s.found >= 14
    assert s.false <= 2


def test_condition_frames_are_the_conditions_sets(synthetic_camera):
    """``condition_frames``: sets of SET_SIZE (a full rack first) drawn from seed + k, so frame
    SET_SIZE starts the next seed's set; the 'jpeg' condition is the default condition's frame through
    JPEG at quality 60 (same draws: Domain() takes none from the rng)."""
    sc, _ = synthetic_camera
    n = SET_SIZE + 1
    frames = condition_frames(sc, "default", n, 3)
    assert len(frames) == n
    assert len(frames[0].truth.ids) == 16 and len(frames[SET_SIZE].truth.ids) == 16
    nxt = condition_frames(sc, "default", 1, 4)[0]
    assert np.array_equal(frames[SET_SIZE].image, nxt.image)
    np.testing.assert_array_equal(frames[SET_SIZE].truth.pos, nxt.truth.pos)
    jpeg = condition_frames(sc, "jpeg", 1, 3)[0]
    ok, buf = cv2.imencode(".jpg", frames[0].image, [cv2.IMWRITE_JPEG_QUALITY, 60])
    assert np.array_equal(jpeg.image, cv2.imdecode(buf, cv2.IMREAD_COLOR))
    with pytest.raises(KeyError):
        condition_frames(sc, "carom", 1, 0)


def test_a_jpeg_frame_keeps_a_cushion_ball_with_a_rough_outline(synthetic_camera, vision):
    """JPEG q60 (the bench's seed 77 frame 9): a blue striped ball frozen on a cushion shows a short
    arc of rays each rough by its colour blocks (fit RMS 0.74 px, the frame's median ~0.3 px); held
    to FRAME_RMS_FACTOR times the median it is kept, 1.5 mm from the truth (lost with 2.5), and no
    false ball comes in."""
    sc, _ = synthetic_camera
    frame = condition_frames(sc, "jpeg", 2, 79)[1]
    s = _score(sc, vision, [frame])
    assert s.false == 0
    assert s.found == s.balls
    assert s.rms_mm < 1.0


def test_pixel_only_mode_searches_again_with_the_light_under_halo_rings_taken_off(synthetic_camera):
    """All hard options (the bench's hard frames 5, 13 and 11 of seed 41): a projector's light over
    most of the cloth with halo rings washes the black 8 and the cue ball into the lit cloth's colour, so they
    passed for cloth. As in the registered mode, the light under the rings is taken off and the frame searched
    again; a ball only that search finds is added where it lies on the first search's play area, apart from every
    ball, with a body unlike the cloth (``added_kept``): the 8, the 8 and the cue ball found (measured 0.6, 0.4
    and 0.1 px from their projected centres; the first search alone 280, 107 and 77 px: missed), every other
    ball of the frames too (12 of 13, 6 of 7, 7 of 7), and no false ball."""
    sc, _ = synthetic_camera
    for seed, j, ball, found in ((42, 1, 8, 12), (44, 1, 8, 6), (43, 3, 0, 7)):
        f = condition_frames(sc, "hard", j + 1, seed)[j]
        px = detect_in_pixels(f.image, 12.8).px
        s = Score()
        s.add(f.truth.ids, f.truth.centre_px, px, None, 6.0)
        centre = f.truth.centre_px[list(f.truth.ids).index(ball)]
        assert np.linalg.norm(px - centre, axis=1).min() < 1.0
        assert s.found >= found
        assert s.false == 0


def test_pixel_only_play_area_reaches_the_pockets_beyond_a_lit_strip(synthetic_camera):
    """The bench's lit_sheen frame 5 of seed 77 (the second frame of seed 78's set): under a projector's light
    and a sheen the left half of the bed is not taken for cloth, and the play area is the convex hull of the
    right half alone. Its left corner pockets lie beyond its left side (``within_pockets``), so that side is moved
    out onto them: all 12 balls are found (5 before, the left half's balls outside the play area), no false ball."""
    sc, _ = synthetic_camera
    f = condition_frames(sc, "lit_sheen", 2, 78)[1]
    s = Score()
    s.add(f.truth.ids, f.truth.centre_px, detect_in_pixels(f.image, 12.8).px, None, 6.0)
    assert s.found == len(f.truth.ids) == 12
    assert s.false == 0
