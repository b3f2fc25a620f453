"""Accuracy and speed of the vision pipeline on rendered frames with exact truth.

``score`` compares what a detector reports with the truth of a rendered frame; ``naive_centres``
is the baseline a first attempt would write (undistort the whole frame with maps computed on
every call, HoughCircles on the whole grey frame, centres mapped onto the cloth plane), and
``naive_pixel_centres`` its pixel-only form (HoughCircles for one radius); ``run_bench`` renders
layouts and measures the registered and the pixel-only modes and the baselines, one core;
``time_images`` times the pixel-only mode and its baseline on image files (real frames);
``run_domain_bench`` scores the registered mode and the baseline in each condition of the wider
rendered domain (``vision.render_domain.CONDITIONS``) against issue 21's targets, and keeps each
condition's worst frame for its contact sheet (``vision.domain_sheet``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np
from tqdm import tqdm

from planner.table import Table
from vision.camera import CameraModel, pixels_to_table, sphere_silhouettes, table_to_pixels
from vision.detect_pixels import detect_in_pixels
from vision.domain_sheet import ScoredFrame, worse
from vision.evaluate import Evaluation, match
from vision.layouts import rack, random_layout
from vision.pipeline import TableVision
from vision.render import RenderedFrame, SyntheticCamera
from vision.render_domain import condition_frames
from vision.truth_formats import FrameTruth

TARGET_RECALL = 1.0
TARGET_RMS_MM = 0.5
TARGET_IDENTITY = 0.99
"""The registered mode's targets in every condition of the wider domain (issue 21)."""


@dataclass
class Score:
    """Accumulated accuracy over frames: balls in truth, found, false, centre errors [m], ids right."""
    balls: int = 0
    found: int = 0
    false: int = 0
    errors: list[float] = field(default_factory=list)
    ids_right: int = 0

    def add(self, truth_ids: np.ndarray, truth_xy: np.ndarray, xy: np.ndarray, ids: np.ndarray | None,
            gate: float) -> tuple[np.ndarray, np.ndarray]:
        """Match detections (xy (M, 2), ids (M,) or None) to the truth one-to-one within ``gate`` [m].
        Returns the pairs (truth indices, detection indices) (``vision.evaluate.match``)."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        self.balls += truth_xy.shape[0]
        r, c = match(truth_xy, xy, gate)
        self.found += r.size
        self.false += xy.shape[0] - c.size
        self.errors += list(np.linalg.norm(truth_xy[r] - xy[c], axis=1))
        if ids is not None:
            self.ids_right += int(np.sum(np.asarray(ids)[c] == truth_ids[r]))
        return r, c

    @property
    def recall(self) -> float:
        return self.found / max(self.balls, 1)

    @property
    def rms_mm(self) -> float:
        return float(np.sqrt(np.mean(np.square(self.errors))) * 1000) if self.errors else float("nan")

    @property
    def max_mm(self) -> float:
        return float(np.max(self.errors) * 1000) if self.errors else float("nan")

    @property
    def identity(self) -> float:
        return self.ids_right / max(self.found, 1)


def render_layouts(sc: SyntheticCamera, n: int, seed: int, rack_every: int = 10, chalk_every: int = 3,
                   progress: bool = False) -> list[RenderedFrame]:
    """``n`` rendered frames of random layouts (every ``rack_every``-th a full rack; every
    ``chalk_every``-th with three chalk marks on the cloth), reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    t = sc.table
    frames = []
    for i in tqdm(range(n), desc="rendering layouts", disable=not progress):
        state = rack(t, sc.R, rng) if rack_every and i % rack_every == 0 else random_layout(t, sc.R, rng)
        chalk = (rng.uniform([0.05, 0.05], [t.width - 0.05, t.length - 0.05], size=(3, 2))
                 if chalk_every and i % chalk_every == 0 else None)
        frames.append(sc.render(state, rng, chalk=chalk))
    return frames


def naive_centres(image: np.ndarray, cam: CameraModel, table: Table, R: float) -> np.ndarray:
    """Baseline: undistort the whole frame (maps recomputed), HoughCircles on the whole grey frame,
    circle centres onto the cloth plane z = 0. Returns (K, 2) table positions [m]."""
    und = cv2.undistort(image, cam.K, cam.dist)
    grey = cv2.medianBlur(cv2.cvtColor(und, cv2.COLOR_BGR2GRAY), 3)
    r_lo, r_hi = _radius_range(cam, table, R)
    circles = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=1.6 * r_lo, param1=80, param2=14,
                               minRadius=int(np.floor(r_lo)), maxRadius=int(np.ceil(r_hi)))
    if circles is None:
        return np.zeros((0, 2))
    ideal = CameraModel(size=cam.size, K=cam.K, dist=np.zeros(5), rvec=cam.rvec, tvec=cam.tvec)
    return pixels_to_table(ideal, circles[0, :, :2], 0.0)


def _radius_range(cam: CameraModel, table: Table, R: float) -> tuple[float, float]:
    gx, gy = np.meshgrid(np.linspace(R, table.width - R, 5), np.linspace(R, table.length - R, 9))
    P = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, R)], axis=1)
    r = np.linalg.norm(sphere_silhouettes(cam, P, R, 16) - table_to_pixels(cam, P)[:, None], axis=-1)
    return float(r.min()) * 0.9, float(r.max()) * 1.1


def naive_pixel_centres(image: np.ndarray, radius_px: float) -> np.ndarray:
    """Baseline of the pixel-only mode: HoughCircles on the whole grey frame for radii within 20 %
    of ``radius_px``. Returns (K, 2) circle centres [px]."""
    grey = cv2.medianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), 3)
    circles = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=1.6 * radius_px, param1=80, param2=14,
                               minRadius=int(0.8 * radius_px), maxRadius=int(np.ceil(1.2 * radius_px)))
    return np.zeros((0, 2)) if circles is None else circles[0, :, :2].astype(np.float64)


@dataclass(frozen=True)
class BenchResult:
    """Median ms per frame of each mode and baseline, and the scores on the rendered frames
    (pixel-only scores in pixels against the projected centres, gate: the outline radius)."""
    frames: int
    ms: float
    baseline_ms: float
    ours: Score
    baseline: Score
    pixels_ms: float
    pixels_baseline_ms: float
    pixels: Score
    radius_px: float


def run_bench(sc: SyntheticCamera, landmarks, n: int = 30, seed: int = 0, reps: int = 3,
              progress: bool = True) -> BenchResult:
    """Render ``n`` layouts, score both modes and their baselines, and time them on one core
    (median over ``reps`` passes of every frame, after a warm-up call). The pixel-only mode is
    given the median outline radius of a ball on this camera."""
    cv2.setNumThreads(1)
    frames = render_layouts(sc, n, seed, progress=progress)
    vision = TableVision(sc.cam, sc.table, sc.R, landmarks)
    radius_px = float(np.median(_radius_range(sc.cam, sc.table, sc.R)))
    ours, base, pixels = Score(), Score(), Score()
    times, base_times, pix_times, pix_base_times = [], [], [], []
    for f in tqdm(frames, desc="detecting", disable=not progress):
        det, obs = vision.detect(f.image)          # warm-up and scoring
        ids = np.array([o.ball_id if o.ball_id is not None else -1 for o in obs])
        ours.add(f.truth.ids, f.truth.pos, det.xy, ids, sc.R)
        base.add(f.truth.ids, f.truth.pos, naive_centres(f.image, sc.cam, sc.table, sc.R), None, sc.R)
        pixels.add(f.truth.ids, f.truth.centre_px, detect_in_pixels(f.image, radius_px).px, None, radius_px)
        for _ in range(reps):
            times.append(_timed(vision.detect, f.image))
            base_times.append(_timed(naive_centres, f.image, sc.cam, sc.table, sc.R))
            pix_times.append(_timed(detect_in_pixels, f.image, radius_px))
            pix_base_times.append(_timed(naive_pixel_centres, f.image, radius_px))
    return BenchResult(len(frames), _median_ms(times), _median_ms(base_times), ours, base,
                       _median_ms(pix_times), _median_ms(pix_base_times), pixels, radius_px)


@dataclass(frozen=True)
class DomainResult:
    """One condition of the wider domain: the pipeline's and the baseline's scores over ``frames``
    frames, and the median ms per frame of each (one core, after a warm-up pass); ``pixels``: the
    pixel-only mode's score on the same frames (centre errors in px against the projected centres,
    matched within ``radius_px``, the frames' median ball radius [px]), scored, not held to the targets;
    ``worst``: the pipeline's worst frame (``vision.domain_sheet``), None for no frames."""
    condition: str
    frames: int
    ours: Score
    baseline: Score
    ms: float
    baseline_ms: float
    pixels: Evaluation
    radius_px: float
    worst: ScoredFrame | None = None

    @property
    def short_of(self) -> list[str]:
        """The targets this condition misses: any of 'recall', 'rms', 'identity', 'false balls'."""
        o = self.ours
        return [name for name, miss in (("recall", o.recall < TARGET_RECALL), ("false balls", o.false > 0),
                                        ("rms", not o.rms_mm <= TARGET_RMS_MM),
                                        ("identity", o.identity < TARGET_IDENTITY)) if miss]


def run_domain_bench(sc: SyntheticCamera, landmarks, conditions: list[str], n: int = 20, seed: int = 0,
                     progress: bool = True) -> list[DomainResult]:
    """Score the registered mode (detect + identify), the baseline (``naive_centres``) and the
    pixel-only mode (``detect_in_pixels`` at the median ball radius) on ``n`` frames of each
    condition (``condition_frames(sc, condition, n, seed)``), and time one more pass of the first
    two on one core. Returns one DomainResult per condition, in the order given, with its worst frame."""
    cv2.setNumThreads(1)
    vision = TableVision(sc.cam, sc.table, sc.R, landmarks)
    radius_px = float(np.median(_radius_range(sc.cam, sc.table, sc.R)))
    out = []
    with tqdm(total=2 * n * len(conditions), desc="domain", disable=not progress) as bar:
        for cond in conditions:
            bar.set_postfix_str(f"rendering {cond}")
            frames = condition_frames(sc, cond, n, seed)
            bar.update(n)
            bar.set_postfix_str(f"detecting {cond}")
            ours, base, pixels, times, base_times, worst = Score(), Score(), Evaluation(), [], [], None
            for i, f in enumerate(frames):
                det, obs = vision.detect(f.image)
                ids = np.array([o.ball_id if o.ball_id is not None else -1 for o in obs], dtype=np.int64)
                pairs = ours.add(f.truth.ids, f.truth.pos, det.xy, ids, sc.R)
                worst = worse(worst, ScoredFrame(i, f, det.xy, [o.label for o in obs], ids, *pairs))
                base.add(f.truth.ids, f.truth.pos, naive_centres(f.image, sc.cam, sc.table, sc.R), None, sc.R)
                pixels.add(FrameTruth(f.truth.centre_px), detect_in_pixels(f.image, radius_px).px, [], radius_px)
                times.append(_timed(vision.detect, f.image))
                base_times.append(_timed(naive_centres, f.image, sc.cam, sc.table, sc.R))
                bar.update(1)
            out.append(DomainResult(cond, len(frames), ours, base, _median_ms(times), _median_ms(base_times),
                                    pixels, radius_px, worst))
    return out


def time_images(images: list[np.ndarray], radius_px: float, reps: int = 3) -> tuple[float, float]:
    """(ms, baseline ms): median time per frame of the pixel-only mode and of its baseline
    (``naive_pixel_centres``) on BGR images (real frames), one core, after a warm-up call each."""
    cv2.setNumThreads(1)
    times, base_times = [], []
    for image in images:
        detect_in_pixels(image, radius_px)
        naive_pixel_centres(image, radius_px)
        for _ in range(reps):
            times.append(_timed(detect_in_pixels, image, radius_px))
            base_times.append(_timed(naive_pixel_centres, image, radius_px))
    return _median_ms(times), _median_ms(base_times)


def _timed(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def _median_ms(times: list[float]) -> float:
    return float(np.median(times)) * 1000


def _score_json(s: Score) -> dict:
    """A score as a JSON-ready dict (errors in mm; strict JSON: an error over no found ball is
    null, with the reason under "note")."""
    d = {"balls": s.balls, "found": s.found, "recall": s.recall, "false_balls": s.false,
         "rms_mm": s.rms_mm if s.errors else None, "max_mm": s.max_mm if s.errors else None}
    return d if s.errors else {**d, "note": "no ball found: no position error to measure"}


def to_json(res: BenchResult) -> dict:
    """The bench's figures as a JSON-ready dict (times in ms, errors in mm, see ``_score_json``)."""
    score = _score_json
    p = res.pixels
    return {"frames": res.frames, "ms_per_frame": res.ms, "baseline_ms_per_frame": res.baseline_ms,
            "speedup": res.baseline_ms / res.ms, "pipeline": {**score(res.ours), "identity": res.ours.identity},
            "baseline": score(res.baseline),
            "pixel_only": {"radius_px": res.radius_px, "ms_per_frame": res.pixels_ms,
                           "baseline_ms_per_frame": res.pixels_baseline_ms,
                           "speedup": res.pixels_baseline_ms / res.pixels_ms, "balls": p.balls, "found": p.found,
                           "recall": p.recall, "false_balls": p.false,
                           "median_px": float(np.median(p.errors)) if p.errors else None}}


def report(res: BenchResult) -> str:
    o, b, p = res.ours, res.baseline, res.pixels
    return "\n".join([
        f"vision pipeline (detect + identify), 1280x720, one core: {res.ms:.1f} ms/frame "
        f"(median of {res.frames} frames; target <= 15 ms)",
        f"  baseline (cv2.undistort without map reuse + HoughCircles on the whole frame, centres on the "
        f"cloth plane): {res.baseline_ms:.1f} ms/frame, x{res.baseline_ms / res.ms:.1f}",
        f"accuracy on {res.frames} rendered layouts ({o.balls} balls, exact truth):",
        f"  pipeline: recall {100 * o.recall:.2f} %, false balls {o.false}, centre RMS {o.rms_mm:.3f} mm "
        f"(max {o.max_mm:.2f} mm), identity {100 * o.identity:.2f} %",
        f"  baseline: recall {100 * b.recall:.2f} %, false balls {b.false}, centre RMS {b.rms_mm:.3f} mm "
        f"(max {b.max_mm:.2f} mm)",
        f"pixel-only mode (--radius-px {res.radius_px:.1f}), same frames, one core: {res.pixels_ms:.1f} ms/frame "
        f"(target <= 15 ms); baseline (HoughCircles, one radius): {res.pixels_baseline_ms:.1f} ms/frame, "
        f"x{res.pixels_baseline_ms / res.pixels_ms:.1f}",
        f"  recall {100 * p.recall:.2f} %, false balls {p.false}, centre error median "
        f"{np.median(p.errors) if p.errors else float('nan'):.2f} px (outline centre vs projected centre)",
    ])


def domain_to_json(results: list[DomainResult], seed: int) -> dict:
    """The domain bench as a JSON-ready dict: the targets, and per condition the pipeline's score
    with identity, the baseline's, ms per frame of each and the targets missed."""
    return {"seed": seed, "targets": {"recall": TARGET_RECALL, "rms_mm": TARGET_RMS_MM, "identity": TARGET_IDENTITY},
            "conditions": {r.condition: {"frames": r.frames, "pipeline": {**_score_json(r.ours), "identity": r.ours.identity},
                                         "baseline": _score_json(r.baseline), "ms_per_frame": r.ms,
                                         "baseline_ms_per_frame": r.baseline_ms, "speedup": r.baseline_ms / r.ms,
                                         "short_of": r.short_of,
                                         "pixel_only": {"radius_px": r.radius_px, **_pixels_json(r.pixels)}}
                           for r in results}}


def _pixels_json(e: Evaluation) -> dict:
    """The pixel-only mode's score: balls, found, recall, false balls, centre error [px]."""
    s = e.summary()
    return {k: s[k] for k in ("balls", "found", "recall", "false_balls", "centre_error_px")}


def domain_report(results: list[DomainResult], seed: int) -> str:
    """The domain bench as a table, a row per condition, with the targets each misses, and the
    pixel-only mode's recall, false balls and median centre error on the same frames."""
    head = (f"wider rendered domain, registered mode (detect + identify), 1280x720, one core; seed {seed}, sets of "
            f"a rack + 3 random layouts; targets: recall {100 * TARGET_RECALL:.0f} %, no false balls, RMS <= "
            f"{TARGET_RMS_MM} mm, identity >= {100 * TARGET_IDENTITY:.0f} %")
    cols = (f"{'condition':10s} {'frames':>6s} {'balls':>5s} {'recall':>8s} {'false':>5s} {'RMS mm':>6s} "
            f"{'max mm':>6s} {'identity':>8s} {'ms':>5s} | baseline: {'recall':>8s} {'RMS mm':>6s} {'ms':>5s} "
            f"{'x':>4s} | short of")
    rows, pix = [], []
    for r in results:
        o, b = r.ours, r.baseline
        rows.append(f"{r.condition:10s} {r.frames:6d} {o.balls:5d} {100 * o.recall:7.1f}% {o.false:5d} "
                    f"{o.rms_mm:6.2f} {o.max_mm:6.1f} {100 * o.identity:7.1f}% {r.ms:5.1f} |           "
                    f"{100 * b.recall:7.1f}% {b.rms_mm:6.2f} {r.baseline_ms:5.1f} {r.baseline_ms / r.ms:4.1f} | "
                    f"{', '.join(r.short_of) or 'met'}")
        p = r.pixels.summary()
        err = p["centre_error_px"]
        pix.append(f"{r.condition:10s} {p['balls']:5d} {100 * p['recall']:7.1f}% {p['false_balls']:5d} "
                   + (f"{err['median']:9.2f} {err['p95']:7.2f}" if err else f"{'-':>9s} {'-':>7s}"))
    radius = f"{results[0].radius_px:.1f}" if results else "-"
    pix_head = (f"pixel-only mode (--radius-px {radius}, no camera model) on the same frames; centre error against "
                f"the projected centres [px]:\n{'condition':10s} {'balls':>5s} {'recall':>8s} {'false':>5s} "
                f"{'median px':>9s} {'p95 px':>7s}")
    return "\n".join([head, cols, *rows, "", pix_head, *pix])
