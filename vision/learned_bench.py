"""``cuerobot bench vision-learned``: the learned ball classifier (``vision.learned_identity``)
against the hand-made one (``vision.identify``), head to head (issue 21, docs/vision.md: "A learned
component?").

All read the same detections of the registered detector. Rendered frames: 8-ball identity of the
found balls in conditions of ``vision.render_domain`` (``condition_frames``, whose seeds the
training never uses): hand = ``identify(ball_features(...))``, learned = ``assign_ids`` of the
pool classifier's probabilities, hybrid = ``hybrid_ids`` (identify's costs and a learned class
term); and the ms per frame the hand-made and the learned take on one core (features and
decision, the detector not counted; the hybrid costs about their sum). Real crops (optional):
the colour class of per-colour crops of snooker balls, hand = ``colour_names(..., 'snooker')``,
learned = the snooker classifier's most probable class.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.bench import Score
from vision.detect import TableDetector
from vision.identify import ball_features, colour_names, identify
from vision.image_files import IMAGE_SUFFIXES, read_image
from vision.learned_identity import (
    CLASS_OF_ID,
    CLASSES,
    POOL_CLASSES,
    SNOOKER_CLASSES,
    BallClassifier,
    assign_ids,
    ball_vectors,
    generated_samples,
    hybrid_ids,
)
from vision.render_domain import condition_frames

TIMED_REPS = 3            # timed passes of each classifier per frame (the median of all is reported)
CLOTH_RING = (1.3, 1.7)   # of the ball radius: the ring of a crop whose median HSV value is the lit cloth's


@dataclass(frozen=True)
class ConditionResult:
    """One condition: the hand-made, learned and hybrid identity scores over the same detections,
    and the median ms per frame of the first two (features + decision, one core)."""
    condition: str
    frames: int
    hand: Score
    learned: Score
    hybrid: Score
    hand_ms: float
    learned_ms: float


@dataclass(frozen=True)
class CropResult:
    """Colour class on real crops: how many, and how many each classifier named right."""
    crops: int
    hand_right: int
    learned_right: int


@dataclass(frozen=True)
class LearnedBenchResult:
    """Training set sizes (balls), the per-condition results and the crops' (None without crops)."""
    train_domains: int
    pool_balls: int
    snooker_balls: int
    conditions: list[ConditionResult]
    crops: CropResult | None


def read_crops(roots: list[Path]) -> list[tuple[np.ndarray, int]]:
    """(BGR image, class index in SNOOKER_CLASSES) of every image file under the folders ``roots``
    whose own folder is named after a snooker colour (any case: RED/, red/), sorted by path within
    each root. Raises ValueError when a root holds none."""
    out = []
    for root in roots:
        found = [(read_image(p), SNOOKER_CLASSES.index(p.parent.name.lower())) for p in sorted(Path(root).rglob("*"))
                 if p.suffix.lower() in IMAGE_SUFFIXES and p.parent.name.lower() in SNOOKER_CLASSES]
        if not found:
            raise ValueError(f"{root}: no crops in folders named after a snooker colour ({', '.join(SNOOKER_CLASSES)})")
        out += found
    return out


def crop_inputs(image: np.ndarray, radius_px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(px (1, 2), r_px (1,), cloth_v (1,)) of a crop centred on one ball of ``radius_px``: the
    centre pixel ((w - 1) / 2, (h - 1) / 2) and the median HSV value in CLOTH_RING of the radius."""
    h, w = image.shape[:2]
    c = ((w - 1) / 2.0, (h - 1) / 2.0)
    yy, xx = np.mgrid[0:h, 0:w]
    d = np.hypot(xx - c[0], yy - c[1])
    ring = (d > CLOTH_RING[0] * radius_px) & (d < CLOTH_RING[1] * radius_px)
    v = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)[..., 2]
    cloth_v = float(np.median(v[ring])) if ring.any() else float(np.median(v))
    return np.array([c]), np.array([radius_px]), np.array([cloth_v])


def score_crops(crops: list[tuple[np.ndarray, int]], radius_px: float, snooker: BallClassifier) -> CropResult:
    """Colour class of each crop by both classifiers (see the module notes)."""
    hand = learned = 0
    for image, k in crops:
        px, r, cv = crop_inputs(image, radius_px)
        names, _ = colour_names(ball_features(image, px, r, cv), "snooker")
        hand += names[0] == SNOOKER_CLASSES[k]
        learned += int(np.argmax(snooker.probabilities(ball_vectors(image, px, r, cv))[0])) == k
    return CropResult(len(crops), hand, learned)


def run_learned_bench(sc, landmarks, conditions: list[str], n: int = 20, seed: int = 0, train_domains: int = 150,
                      crops: list[tuple[np.ndarray, int]] | None = None, radius_px: float = 15.6,
                      progress: bool = True) -> LearnedBenchResult:
    """Train the pool and snooker classifiers on ``train_domains`` generated domains each (seed
    ``seed``), then score both classifiers on ``n`` frames of each condition
    (``condition_frames(sc, condition, n, seed)``) and on ``crops`` (balls of ``radius_px``)."""
    cv2.setNumThreads(1)
    detector = TableDetector(sc.cam, sc.table, sc.R, landmarks.rail)
    if progress:
        print(f"training on {train_domains} generated domains per ball set ...", flush=True)
    Xp, yp = generated_samples(sc, detector, train_domains, seed, "pool")
    Xs, ys = generated_samples(sc, detector, train_domains, seed, "snooker")
    pool = BallClassifier.fit(Xp, yp, POOL_CLASSES, seed)
    classes = BallClassifier.fit(Xp, CLASS_OF_ID[yp], len(CLASSES), seed)
    snooker = BallClassifier.fit(Xs, ys, len(SNOOKER_CLASSES), seed)
    out = []
    for cond in tqdm(conditions, desc="conditions", disable=not progress):
        hand, learned, hybrid, hand_t, learned_t = Score(), Score(), Score(), [], []
        frames = condition_frames(sc, cond, n, seed)
        for f in frames:
            det, image = detector.detect_unlined(f.image)
            args = (image, det.px, det.r_px, det.cloth_v, det.added)
            for _ in range(TIMED_REPS):
                t0 = time.perf_counter()
                ids_hand = identify(ball_features(*args)).ids
                t1 = time.perf_counter()
                ids_learned = assign_ids(pool.probabilities(ball_vectors(*args)))
                hand_t.append(t1 - t0)
                learned_t.append(time.perf_counter() - t1)
            hand.add(f.truth.ids, f.truth.pos, det.xy, ids_hand, sc.R)
            learned.add(f.truth.ids, f.truth.pos, det.xy, ids_learned, sc.R)
            ids_hybrid = hybrid_ids(ball_features(*args), classes.probabilities(ball_vectors(*args)))
            hybrid.add(f.truth.ids, f.truth.pos, det.xy, ids_hybrid, sc.R)
        out.append(ConditionResult(cond, len(frames), hand, learned, hybrid, float(np.median(hand_t)) * 1000,
                                   float(np.median(learned_t)) * 1000))
    return LearnedBenchResult(train_domains, len(yp), len(ys), out,
                              score_crops(crops, radius_px, snooker) if crops else None)


def to_json(res: LearnedBenchResult, seed: int) -> dict:
    """The bench's figures as a JSON-ready dict (identity and colour class as fractions, ms per frame)."""
    d = {"seed": seed, "train_domains": res.train_domains,
         "train_balls": {"pool": res.pool_balls, "snooker": res.snooker_balls},
         "conditions": {r.condition: {"frames": r.frames, "found": r.hand.found, "hand_identity": r.hand.identity,
                                      "learned_identity": r.learned.identity,
                                      "hybrid_identity": r.hybrid.identity, "hand_ms_per_frame": r.hand_ms,
                                      "learned_ms_per_frame": r.learned_ms} for r in res.conditions}}
    if res.crops:
        c = res.crops
        d["real_crops"] = {"crops": c.crops, "hand_colour": c.hand_right / c.crops,
                           "learned_colour": c.learned_right / c.crops}
    return d


def report(res: LearnedBenchResult, seed: int) -> str:
    """The bench as a table: a row per condition, then the crops' line."""
    lines = [f"learned (MLP on generated frames: {res.train_domains} domains per set, {res.pool_balls} pool and "
             f"{res.snooker_balls} snooker balls; seed {seed}) vs hand-made identify, same detections, one core",
             f"{'condition':10s} {'frames':>6s} {'found':>5s} {'hand id':>8s} {'learned id':>10s} {'hybrid id':>9s} "
             f"{'hand ms':>7s} {'learned ms':>10s}"]
    for r in res.conditions:
        lines.append(f"{r.condition:10s} {r.frames:6d} {r.hand.found:5d} {100 * r.hand.identity:7.1f}% "
                     f"{100 * r.learned.identity:9.1f}% {100 * r.hybrid.identity:8.1f}% {r.hand_ms:7.2f} "
                     f"{r.learned_ms:10.2f}")
    if res.crops:
        c = res.crops
        lines.append(f"real crops ({c.crops}, snooker colour class): hand {100 * c.hand_right / c.crops:.1f} %, "
                     f"learned {100 * c.learned_right / c.crops:.1f} % (target >= 98 %)")
    return "\n".join(lines)
