"""Camera intrinsics from photographs of a calibration board (``calibration.boards``).

Models (``MODELS``): ``standard`` is OpenCV's pinhole with 5 distortion coefficients (k1 k2 p1
p2 k3), ``rational`` the same with k4 k5 k6 (8 coefficients), ``fisheye`` OpenCV's equidistant
fisheye model (k1..k4, ``cv2.fisheye``).

Zhang's planar calibration (Zhang 2000, "A flexible new technique for camera calibration", IEEE
TPAMI 22(11); ``cv2.calibrateCamera``), started in two stages: first with k3 fixed at 0, then every
coefficient free from that start. Started cold, OpenCV's closed-form initialisation can settle in
a wrong minimum on strongly distorted wide-angle views (on the shared ``charuco_wide_angle`` set:
6.3 px RMS instead of 0.89 px). The fisheye model starts from the stage-one pinhole matrix.

Errors are reprojection errors in pixels: the RMS over all corners, and per view. The held-out
check (``holdout_check``) calibrates without some views, solves only their poses (PnP with the
intrinsics fixed) and reports the reprojection error on them: what the lens model does on views
it was not fitted to.

Straightness of board lines is the check that undistortion is right: the corners of one board
row lie on a straight line in the world, so after undistortion they must lie on a straight line
in the image (``line_straightness``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.boards import Board, View
from vision.camera import CameraModel, pixels_to_normalised, solve_pose, table_to_pixels

MODELS = ("standard", "rational", "fisheye")
MIN_VIEWS = 3
DEFAULT_MIN_CORNERS = 12
_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 200, 1e-10)


@dataclass(frozen=True)
class Calibration:
    """A calibrated lens (no pose) and how well it fits its views.

    model: one of MODELS. rms_px: reprojection RMS over all corners [px]. per_view_px: (N,) RMS
    of each view [px]. residuals: per view, (n, 2) reprojected minus detected pixels.
    """
    camera: CameraModel
    model: str
    rms_px: float
    per_view_px: np.ndarray
    views: list[View]
    residuals: list[np.ndarray]


@dataclass(frozen=True)
class HoldOut:
    """The held-out check: each view's reprojection RMS [px] when calibrated without its fold
    (``k`` views left out at a time), and the RMS over all held-out corners."""
    k: int
    per_view_px: np.ndarray
    rms_px: float


@dataclass(frozen=True)
class Detection:
    """Board views read from image files: the usable ones, and one reason per rejected file."""
    views: list[View]
    rejected: list[str]
    size: tuple[int, int]


def _rms(r: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.sum(r ** 2, axis=1)))) if r.size else float("nan")


def _fit_pinhole(views: Sequence[View], size: tuple[int, int], rational: bool):
    obj = [v.board.astype(np.float32) for v in views]
    img = [v.pixels.astype(np.float32) for v in views]
    _, K, dist, _, _ = cv2.calibrateCamera(obj, img, size, None, None, flags=cv2.CALIB_FIX_K3, criteria=_CRITERIA)
    flags = cv2.CALIB_USE_INTRINSIC_GUESS | (cv2.CALIB_RATIONAL_MODEL if rational else 0)
    dist0 = np.zeros(8 if rational else 5)
    dist0[:5] = dist.ravel()[:5]
    _, K, dist, rvecs, tvecs = cv2.calibrateCamera(obj, img, size, K, dist0, flags=flags, criteria=_CRITERIA)
    return CameraModel(size=size, K=K, dist=dist.ravel()[: 8 if rational else 5]), rvecs, tvecs


def _fit_fisheye(views: Sequence[View], size: tuple[int, int]):
    start, _, _ = _fit_pinhole(views, size, rational=False)
    obj = [v.board.reshape(-1, 1, 3) for v in views]
    img = [v.pixels.reshape(-1, 1, 2) for v in views]
    flags = (cv2.fisheye.CALIB_USE_INTRINSIC_GUESS | cv2.fisheye.CALIB_RECOMPUTE_EXTRINSIC
             | cv2.fisheye.CALIB_FIX_SKEW)
    _, K, D, rvecs, tvecs = cv2.fisheye.calibrate(obj, img, size, start.K.copy(), np.zeros((4, 1)),
                                                  flags=flags, criteria=_CRITERIA)
    return CameraModel(size=size, K=K, dist=D.ravel(), model="fisheye"), rvecs, tvecs


def calibrate_views(views: Sequence[View], size: tuple[int, int], model: str = "standard") -> Calibration:
    """Intrinsics of ``model`` from >= 3 views (image ``size`` (width, height) px).

    Raises ValueError for fewer than 3 views or an unknown model; cv2.error if OpenCV's solver fails.
    """
    if model not in MODELS:
        raise ValueError(f"lens model must be one of {', '.join(MODELS)}, got {model!r}")
    if len(views) < MIN_VIEWS:
        raise ValueError(f"camera calibration needs at least {MIN_VIEWS} views of the board, got {len(views)}")
    if model == "fisheye":
        cam, rvecs, tvecs = _fit_fisheye(views, size)
    else:
        cam, rvecs, tvecs = _fit_pinhole(views, size, rational=model == "rational")
    residuals = [table_to_pixels(cam.with_pose(r, t), v.board) - v.pixels for v, r, t in zip(views, rvecs, tvecs)]
    rms = _rms(np.concatenate(residuals))
    cam = CameraModel(size=cam.size, K=cam.K, dist=cam.dist, model=cam.model, rms_px=rms)
    return Calibration(cam, model, rms, np.array([_rms(r) for r in residuals]), list(views), residuals)


def holdout_check(views: Sequence[View], size: tuple[int, int], model: str = "standard", k: int = 1) -> HoldOut:
    """Calibrate without ``k`` views at a time (view i is in fold i mod ceil(N / k), so every view
    is held out once), solve each held-out view's pose with those intrinsics, and measure its
    reprojection error. Raises ValueError if fewer than 3 views would remain to calibrate."""
    n = len(views)
    if k < 1 or n - k < MIN_VIEWS:
        raise ValueError(f"held-out check with {k} views out needs at least {k + MIN_VIEWS} usable views, got {n}")
    folds = -(-n // k)
    per_view = np.zeros(n)
    residuals = []
    for f in range(folds):
        out = [i for i in range(n) if i % folds == f]
        cal = calibrate_views([v for i, v in enumerate(views) if i % folds != f], size, model)
        for i in out:
            rvec, tvec, _ = solve_pose(cal.camera, views[i].board, views[i].pixels)
            r = table_to_pixels(cal.camera.with_pose(rvec, tvec), views[i].board) - views[i].pixels
            per_view[i] = _rms(r)
            residuals.append(r)
    return HoldOut(k, per_view, _rms(np.concatenate(residuals)))


def detect_views(paths: Sequence[str | Path], board: Board, min_corners: int = DEFAULT_MIN_CORNERS) -> Detection:
    """The board in each image file; a view with fewer than ``min_corners`` corners is rejected
    with a reason naming the file. Raises ValueError if an image cannot be read or sizes differ."""
    views, rejected, size = [], [], None
    need = min(min_corners, board.corner_count)
    for p in paths:
        grey = cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)
        if grey is None:
            raise ValueError(f"{p}: cannot read image")
        if size is not None and grey.shape[::-1] != size:
            raise ValueError(f"{p}: image size {grey.shape[1]}x{grey.shape[0]} differs from the first "
                             f"image's {size[0]}x{size[1]}")
        size = grey.shape[::-1]
        v = board.detect(grey, Path(p).name)
        if len(v.pixels) < need:
            rejected.append(f"{Path(p).name}: {len(v.pixels)} of the board's {board.corner_count} corners "
                            f"found, need >= {need}")
        else:
            views.append(v)
    if size is None:
        raise ValueError("no images given")
    return Detection(views, rejected, size)


def board_lines(view: View, pixels: np.ndarray | None = None, min_points: int = 3) -> list[np.ndarray]:
    """The view's corners grouped into board rows and columns (each a straight line on the board):
    a list of (n, 2) pixel arrays (``pixels`` replaces the view's own, e.g. undistorted)."""
    px = view.pixels if pixels is None else pixels
    lines = []
    for axis in (0, 1):
        for k in np.unique(view.grid[:, axis]):
            sel = view.grid[:, axis] == k
            if sel.sum() >= min_points:
                lines.append(px[sel])
    return lines


def line_straightness(lines: Sequence[np.ndarray]) -> float:
    """RMS distance [px] of points from the total-least-squares line through each group."""
    res = []
    for pts in lines:
        c = pts - pts.mean(axis=0)
        normal = np.linalg.svd(c, full_matrices=False)[2][-1]
        res.append(c @ normal)
    r = np.concatenate(res) if res else np.zeros(0)
    return float(np.sqrt(np.mean(r ** 2))) if r.size else float("nan")


def undistorted_pixels(cam: CameraModel, px: np.ndarray) -> np.ndarray:
    """Pixels (N, 2) as the ideal pinhole camera with the same K would see them."""
    xy = pixels_to_normalised(cam, px)
    return xy @ cam.K[:2, :2].T + cam.K[:2, 2]
