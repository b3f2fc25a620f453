"""Camera intrinsics from photographs of a ChArUco board (or a plain chessboard).

Zhang's planar calibration (``cv2.calibrateCamera``), started in two stages: first with k3 fixed
at 0, then every coefficient free from that start. Started cold, OpenCV's closed-form
initialisation can settle in a wrong minimum on strongly distorted wide-angle views (on the
shared ``charuco_wide_angle`` set: 6.3 px RMS instead of 0.89 px).

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

from vision.camera import CameraModel, pixels_to_normalised

_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 200, 1e-10)


@dataclass(frozen=True)
class CharucoSpec:
    """A ChArUco board: squares (columns, rows), square and marker sides [m], ArUco dictionary."""
    squares: tuple[int, int] = (6, 8)
    square: float = 0.034
    marker: float = 0.027
    dictionary: str = "DICT_4X4_50"

    def board(self):
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard(self.squares, self.square, self.marker, d)

    @property
    def corners_per_row(self) -> int:
        return self.squares[0] - 1


@dataclass(frozen=True)
class View:
    """One photograph's board corners: pixels (N, 2), board positions (N, 3) [m] and each corner's
    (row, column) on the board grid (N, 2)."""
    name: str
    pixels: np.ndarray
    board: np.ndarray
    grid: np.ndarray


@dataclass(frozen=True)
class Calibration:
    """A calibrated camera (no pose), the overall and per-view reprojection RMS [px], the views."""
    camera: CameraModel
    rms_px: float
    per_view_rms: np.ndarray
    views: list[View]


def detect_charuco(image: np.ndarray, spec: CharucoSpec, name: str = "", min_corners: int = 6) -> View | None:
    """ChArUco corners in a BGR or grey image, or None if fewer than ``min_corners`` are found."""
    board = spec.board()
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(grey)
    if ids is None or len(ids) < min_corners:
        return None
    obj, img = board.matchImagePoints(corners, ids)
    ids = ids.ravel()
    grid = np.stack([ids // spec.corners_per_row, ids % spec.corners_per_row], axis=1)
    return View(name, img.reshape(-1, 2).astype(np.float64), obj.reshape(-1, 3).astype(np.float64), grid)


def detect_chessboard(image: np.ndarray, pattern: tuple[int, int], name: str = "") -> View | None:
    """Inner corners (columns, rows) of a plain chessboard, sub-pixel refined; unit squares."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ok, corners = cv2.findChessboardCorners(grey, pattern)
    if not ok:
        return None
    corners = cv2.cornerSubPix(grey, corners, (5, 5), (-1, -1), _CRITERIA).reshape(-1, 2)
    cols, rows = pattern
    grid = np.stack(np.divmod(np.arange(cols * rows), cols), axis=1)
    board = np.concatenate([grid[:, ::-1].astype(np.float64), np.zeros((cols * rows, 1))], axis=1)
    return View(name, corners.astype(np.float64), board, grid)


def calibrate_views(views: Sequence[View], size: tuple[int, int], rational: bool = False) -> Calibration:
    """Intrinsics (pinhole, 5 coefficients or the 8-coefficient rational model) from >= 3 views.

    Raises ValueError with fewer than 3 views.
    """
    if len(views) < 3:
        raise ValueError(f"camera calibration needs at least 3 views of the board, got {len(views)}")
    obj = [v.board.astype(np.float32) for v in views]
    img = [v.pixels.astype(np.float32) for v in views]
    _, K, dist, _, _ = cv2.calibrateCamera(obj, img, size, None, None, flags=cv2.CALIB_FIX_K3, criteria=_CRITERIA)
    flags = cv2.CALIB_USE_INTRINSIC_GUESS | (cv2.CALIB_RATIONAL_MODEL if rational else 0)
    dist0 = np.zeros(8 if rational else 5)
    dist0[:5] = dist.ravel()[:5]
    rms, K, dist, _, _, _, _, per_view = cv2.calibrateCameraExtended(obj, img, size, K, dist0, flags=flags,
                                                                      criteria=_CRITERIA)
    cam = CameraModel(size=size, K=K, dist=dist.ravel()[: 8 if rational else 5], rms_px=float(rms))
    return Calibration(cam, float(rms), per_view.ravel(), list(views))


def calibrate_images(paths: Sequence[str | Path], spec: CharucoSpec | None = None,
                     chessboard: tuple[int, int] | None = None, rational: bool = False) -> Calibration:
    """Calibrate from image files of a ChArUco board (default) or a plain chessboard pattern.

    Raises ValueError if an image cannot be read, sizes differ, or fewer than 3 views show the board.
    """
    views, size = [], None
    for p in paths:
        image = cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)
        if image is None:
            raise ValueError(f"{p}: cannot read image")
        if size is not None and image.shape[::-1] != size:
            raise ValueError(f"{p}: image size {image.shape[::-1]} differs from the others' {size}")
        size = image.shape[::-1]
        v = detect_chessboard(image, chessboard, Path(p).name) if chessboard \
            else detect_charuco(image, spec or CharucoSpec(), Path(p).name)
        if v is not None:
            views.append(v)
    if size is None:
        raise ValueError("no images given")
    return calibrate_views(views, size, rational)


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
