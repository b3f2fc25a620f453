"""A learned ball classifier trained only on frames the project renders (issue 21: is a learned
component worth it? docs/vision.md, "A learned component?").

Per ball, ``ball_vectors`` describes the pixels ``vision.identify`` reads (the same lattice within
SAMPLE_SHARE of the outline radius, the same added-light correction and white / black / colour
split): identify's eight features (hue as its cosine and sine) plus a histogram of the coloured
pixels' hue (HUE_BINS bins, as shares of the lattice), the 10th / 50th / 90th percentiles of the
value over the lit cloth's and of the saturation, the white share inside and outside INNER_SHARE
of the sampled radius, the black share inside it, and the added light. ``BallClassifier`` is a
small multilayer perceptron (OpenCV ``cv2.ml.ANN_MLP``: D inputs standardised by the training
set, HIDDEN symmetric-sigmoid units, one output per class; back-propagation from a start drawn
from the seeded OpenCV RNG); a softmax of its outputs times OUTPUT_GAIN gives class
probabilities. Pool ids are assigned jointly over a frame's balls (``assign_ids``: each id at
most once, Hungarian method on -log p, as ``vision.identify`` does with its costs); a snooker
ball's colour is its most probable class. A hybrid (``hybrid_ids``) keeps identify's costs and
adds a learned class term: -2 log p of the id's class (cue, eight, solid, stripe; a classifier
of the same vectors with CLASSES as its classes) times CLASS_WEIGHT, so the colour stays
hand-made and only the white pattern's reading is learned.

``generated_samples`` makes the training data: domains of ``vision.render_domain`` drawn from
a seeded stream (``sample_domain`` in turn as drawn, with the HARD options and with the GENTLE
ones), a rack and two random layouts rendered in each, the registered detector run on every frame
and each found ball labelled with the true id (pool) or colour class (snooker) of the ball it
lies on (within one ball radius). No weights are downloaded or shipped: a model exists only as
trained by this code from a seed.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from planner.state import ball_class
from vision.balls import SNOOKER_NAMES, linear_to_srgb, srgb_to_linear
from vision.evaluate import match
from vision.identify import (
    _GRID,
    BLACK_MAX_VAL,
    GREY_REL,
    SAMPLE_SHARE,
    WHITE_MAX_SAT,
    BallFeatures,
    _twins_by_white,
    ball_features,
    id_costs,
)
from vision.layouts import rack, random_layout
from vision.render_domain import GENTLE, HARD, DomainRenderer, sample_domain

HUE_BINS = 12             # hue histogram bins over OpenCV's 0-180
INNER_SHARE = 0.55        # of the sampled radius: the inner disc of the radial white / black shares
N_FEATURES = 9 + HUE_BINS + 3 + 3 + 3 + 1   # identify's 8 (hue as cos, sin), histogram, V and S percentiles,
                                            # radial shares, added light
HIDDEN = 32               # hidden units of the perceptron
EPOCHS = 2000             # back-propagation iterations at most
LEARNING_RATE = 0.05      # back-propagation step and momentum (cv2.ml.ANN_MLP_BACKPROP)
MOMENTUM = 0.1
OUTPUT_GAIN = 4.0         # softmax of the outputs (-1..1) times this: the class probabilities
FRAMES_PER_DOMAIN = 3     # a rack and two random layouts in each training domain
TRAIN_STREAM = 2101       # first entry of the training domains' seed sequence (disjoint from
                          # ``condition_frames``' integer seeds: no held-out frame is trained on)
SNOOKER_CLASSES = ("white", "yellow", "green", "brown", "blue", "pink", "black", "red")
POOL_CLASSES = 16         # ids 0..15
CLASSES = ("cue", "eight", "solid", "stripe")
CLASS_OF_ID = np.array([CLASSES.index(ball_class(i)) for i in range(POOL_CLASSES)])
CLASS_WEIGHT = 1.0        # of the learned class term in ``hybrid_ids``
MODES = ("drawn", "hard", "gentle")
"""How the training domains are drawn in turn: ``sample_domain`` as drawn, with HARD, with GENTLE."""


def ball_vectors(image: np.ndarray, px: np.ndarray, r_px: np.ndarray, cloth_v: np.ndarray,
                 added: np.ndarray | None = None) -> np.ndarray:
    """(M, D) float32 feature vectors (see the module notes) of balls at pixel centres px (M, 2)
    with outline radii r_px (M,) in a BGR uint8 image; cloth_v: (M,) the lit cloth's HSV value
    beside each ball; added: None or (M,) white light added about each ball (linear units), as
    ``vision.identify.ball_features`` takes them."""
    M = px.shape[0]
    if M == 0:
        return np.zeros((0, N_FEATURES), np.float32)
    f = ball_features(image, px, r_px, cloth_v, added)
    h, w = image.shape[:2]
    pts = px[:, None, :] + _GRID[None] * (SAMPLE_SHARE * r_px)[:, None, None]
    x = np.clip(np.rint(pts[..., 0]).astype(np.intp), 0, w - 1)
    y = np.clip(np.rint(pts[..., 1]).astype(np.intp), 0, h - 1)
    pix = image[y, x]
    if added is not None and np.any(added > 0):
        pix = np.rint(linear_to_srgb(srgb_to_linear(pix) - added[:, None, None])).astype(np.uint8)
    hsv = cv2.cvtColor(pix, cv2.COLOR_BGR2HSV).astype(np.float64)
    cv = np.maximum(cloth_v, 1.0)[:, None]
    black = (hsv[..., 2] < BLACK_MAX_VAL) | ((hsv[..., 1] < WHITE_MAX_SAT) & (hsv[..., 2] < GREY_REL * cv))
    white = ~black & (hsv[..., 1] < WHITE_MAX_SAT)
    col = ~black & ~white
    G = hsv.shape[1]
    bins = np.minimum((hsv[..., 0] * (HUE_BINS / 180.0)).astype(np.intp), HUE_BINS - 1)
    hist = np.stack([((bins == k) & col).sum(1) / G for k in range(HUE_BINS)], axis=1)
    ang = hsv[..., 0] * (np.pi / 90.0)
    n_col = np.maximum(col.sum(1), 1)
    inner = np.linalg.norm(_GRID, axis=1) <= INNER_SHARE
    X = np.column_stack([
        f.white, f.black, f.colour, (np.cos(ang) * col).sum(1) / n_col, (np.sin(ang) * col).sum(1) / n_col,
        np.nan_to_num(f.rel_v, nan=0.0), np.nan_to_num(f.spread, nan=0.0), f.sat / 255.0, np.minimum(f.v_med, 4.0),
        hist, np.percentile(hsv[..., 2] / cv, [10, 50, 90], axis=1).T.clip(0.0, 4.0),
        np.percentile(hsv[..., 1] / 255.0, [10, 50, 90], axis=1).T,
        white[:, inner].mean(1), white[:, ~inner].mean(1), black[:, inner].mean(1),
        np.zeros(M) if added is None else added])
    return X.astype(np.float32)


def class_of(ids: np.ndarray, ball_set: str) -> np.ndarray:
    """(N,) class index of true ball ids: the id itself for 'pool', the index in SNOOKER_CLASSES of
    the ball's colour for 'snooker'. Raises ValueError for another ball_set."""
    if ball_set == "pool":
        return np.asarray(ids, dtype=np.int32)
    if ball_set == "snooker":
        return np.array([SNOOKER_CLASSES.index(SNOOKER_NAMES[int(i)]) for i in ids], dtype=np.int32)
    raise ValueError(f"ball_set must be 'pool' or 'snooker', got {ball_set!r}")


def training_domains(n: int, seed: int, ball_set: str):
    """``n`` (Domain, rng) pairs: domain k from ``default_rng([TRAIN_STREAM, seed, k])``, drawn by
    ``sample_domain`` and then taken as drawn, with HARD or with GENTLE in turn (MODES)."""
    for k in range(n):
        rng = np.random.default_rng([TRAIN_STREAM, seed, k])
        d = sample_domain(rng, ball_set)
        mode = MODES[k % len(MODES)]
        yield (dataclasses.replace(d, **HARD) if mode == "hard" else
               dataclasses.replace(d, **GENTLE) if mode == "gentle" else d), rng


def generated_samples(sc, detector, n_domains: int, seed: int, ball_set: str) -> tuple[np.ndarray, np.ndarray]:
    """(X (N, D) float32, y (N,) int32) of every ball the registered ``detector``
    (``vision.detect.TableDetector`` of ``sc``'s camera) finds within one ball radius of a true
    ball in FRAMES_PER_DOMAIN frames of each of ``training_domains(n_domains, seed, ball_set)``."""
    X, y = [], []
    for k, (domain, rng) in enumerate(training_domains(n_domains, seed, ball_set)):
        renderer = DomainRenderer(sc, domain, seed=k)
        for j in range(FRAMES_PER_DOMAIN):
            state = rack(sc.table, sc.R, rng) if j == 0 else random_layout(sc.table, sc.R, rng)
            frame = renderer.render(state, rng)
            det, image = detector.detect_unlined(frame.image)
            r, c = match(frame.truth.pos, det.xy, sc.R)
            if r.size:
                X.append(ball_vectors(image, det.px[c], det.r_px[c], det.cloth_v[c],
                                      None if det.added is None else det.added[c]))
                y.append(class_of(frame.truth.ids[r], ball_set))
    if not X:
        raise ValueError(f"no ball found in {n_domains} training domains")
    return np.concatenate(X), np.concatenate(y)


@dataclass(frozen=True)
class BallClassifier:
    """A trained perceptron (see the module notes): mean, std (D,) of the training vectors,
    n_classes, and the OpenCV model. Build with ``fit``."""
    mean: np.ndarray
    std: np.ndarray
    n_classes: int
    model: cv2.ml.ANN_MLP

    @classmethod
    def fit(cls, X: np.ndarray, y: np.ndarray, n_classes: int, seed: int = 0) -> BallClassifier:
        """Train on vectors X (N, D) with classes y (N,) in 0..n_classes-1; the start weights come
        from OpenCV's RNG seeded with ``seed`` (the same data and seed give the same model).
        Raises ValueError for empty data or a class out of range."""
        X = np.asarray(X, np.float32)
        y = np.asarray(y)
        if X.ndim != 2 or X.shape[0] == 0 or y.shape != (X.shape[0],):
            raise ValueError(f"expected X (N, D) and y (N,) with N > 0, got {X.shape} and {y.shape}")
        if y.min() < 0 or y.max() >= n_classes:
            raise ValueError(f"classes must be in 0..{n_classes - 1}, got {y.min()}..{y.max()}")
        mean, std = X.mean(0), X.std(0) + 1e-6
        model = cv2.ml.ANN_MLP_create()
        model.setLayerSizes(np.array([X.shape[1], HIDDEN, n_classes]))
        model.setActivationFunction(cv2.ml.ANN_MLP_SIGMOID_SYM, 1.0, 1.0)
        model.setTrainMethod(cv2.ml.ANN_MLP_BACKPROP, LEARNING_RATE, MOMENTUM)
        model.setTermCriteria((cv2.TERM_CRITERIA_MAX_ITER + cv2.TERM_CRITERIA_EPS, EPOCHS, 1e-5))
        target = np.full((y.size, n_classes), -1.0, np.float32)
        target[np.arange(y.size), y] = 1.0
        cv2.setRNGSeed(int(seed))
        model.train(((X - mean) / std).astype(np.float32), cv2.ml.ROW_SAMPLE, target)
        return cls(mean, std, n_classes, model)

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """(M, n_classes) class probabilities (rows sum to 1) of vectors X (M, D)."""
        if len(X) == 0:
            return np.zeros((0, self.n_classes))
        out = self.model.predict(((np.asarray(X, np.float32) - self.mean) / self.std).astype(np.float32))[1]
        z = OUTPUT_GAIN * out.astype(np.float64)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


def assign_ids(p: np.ndarray) -> np.ndarray:
    """(M,) ids for balls with id probabilities p (M, C): each id at most once, the assignment of
    least summed -log p (Hungarian method); -1 for balls beyond C."""
    ids = np.full(p.shape[0], -1)
    if p.shape[0]:
        rows, cols = linear_sum_assignment(-np.log(np.maximum(p, 1e-9)))
        ids[rows] = cols
    return ids


def hybrid_ids(f: BallFeatures, p_class: np.ndarray) -> np.ndarray:
    """(M,) ids of balls with features ``f`` and learned class probabilities p_class (M, 4) over
    CLASSES: identify's costs (``vision.identify.id_costs``) plus CLASS_WEIGHT times -2 log p of
    each id's class, assigned jointly (each id at most once) and a colour's solid and stripe then
    ordered by their white (``vision.identify._twins_by_white``)."""
    cost = id_costs(f) + CLASS_WEIGHT * -2.0 * np.log(np.maximum(p_class, 1e-9))[:, CLASS_OF_ID]
    ids = np.full(cost.shape[0], -1)
    if cost.shape[0]:
        rows, cols = linear_sum_assignment(cost)
        ids[rows] = cols
        _twins_by_white(ids, f.white)
    return ids
