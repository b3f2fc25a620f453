"""Calibration boards: the ``--board`` spec, and the board's corners found in one photograph.

Spec strings (docs/calibration.md):

* ``charuco:COLS:ROWS:SQUARE_M:MARKER_M:DICT``: a ChArUco board of COLS x ROWS *squares*, square
  and marker sides in metres, an OpenCV ArUco dictionary name (OpenCV's ``CharucoBoard`` order
  and its current, non-legacy pattern), e.g. ``charuco:6:8:0.034:0.027:DICT_4X4_50``;
* ``chessboard:COLS:ROWS:SQUARE_M``: a plain chessboard of COLS x ROWS *inner corners* (OpenCV's
  ``findChessboardCorners`` pattern size), square side in metres, e.g. ``chessboard:8:5:0.025``.

The square side sets only the scale of the views' poses; the intrinsics do not depend on it.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.registration import aruco_dictionary

CHARUCO_FORM = "charuco:COLS:ROWS:SQUARE_M:MARKER_M:DICT (e.g. charuco:6:8:0.034:0.027:DICT_4X4_50)"
CHESSBOARD_FORM = "chessboard:COLS:ROWS:SQUARE_M (inner corners, e.g. chessboard:8:5:0.025)"
_SUBPIX = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 200, 1e-10)


@dataclass(frozen=True)
class View:
    """One photograph's board corners: pixels (N, 2), board positions (N, 3) [m, z = 0] and each
    corner's (row, column) on the board's corner grid (N, 2). N may be 0 (board not found)."""
    name: str
    pixels: np.ndarray
    board: np.ndarray
    grid: np.ndarray


@dataclass(frozen=True)
class CharucoBoard:
    """A ChArUco board: squares (columns, rows), square and marker sides [m], ArUco dictionary."""
    squares: tuple[int, int] = (6, 8)
    square: float = 0.034
    marker: float = 0.027
    dictionary: str = "DICT_4X4_50"

    def __post_init__(self):
        if min(self.squares) < 2 or not 0 < self.marker < self.square:
            raise ValueError(f"ChArUco board needs >= 2 x 2 squares and 0 < marker < square side, "
                             f"got {self.squares} squares, square {self.square} m, marker {self.marker} m")
        aruco_dictionary(self.dictionary)

    @property
    def cv_board(self):
        return cv2.aruco.CharucoBoard(self.squares, self.square, self.marker, aruco_dictionary(self.dictionary))

    @property
    def corner_count(self) -> int:
        return (self.squares[0] - 1) * (self.squares[1] - 1)

    def spec(self) -> str:
        return f"charuco:{self.squares[0]}:{self.squares[1]}:{self.square:g}:{self.marker:g}:{self.dictionary}"

    def detect(self, image: np.ndarray, name: str = "") -> View:
        """The ChArUco corners found in a BGR or grey image (any number, possibly none)."""
        board = self.cv_board
        corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(_grey(image))
        if ids is None or len(ids) == 0:
            return _empty(name)
        obj, img = board.matchImagePoints(corners, ids)
        ids = ids.ravel()
        per_row = self.squares[0] - 1
        grid = np.stack([ids // per_row, ids % per_row], axis=1)
        return View(name, img.reshape(-1, 2).astype(np.float64), obj.reshape(-1, 3).astype(np.float64), grid)


@dataclass(frozen=True)
class Chessboard:
    """A plain chessboard: inner corners (columns, rows) and the square side [m]."""
    corners: tuple[int, int] = (8, 5)
    square: float = 0.025

    def __post_init__(self):
        if min(self.corners) < 2 or not self.square > 0:
            raise ValueError(f"chessboard needs >= 2 x 2 inner corners and a square side > 0, "
                             f"got {self.corners} corners, square {self.square} m")

    @property
    def corner_count(self) -> int:
        return self.corners[0] * self.corners[1]

    def spec(self) -> str:
        return f"chessboard:{self.corners[0]}:{self.corners[1]}:{self.square:g}"

    def detect(self, image: np.ndarray, name: str = "") -> View:
        """All inner corners in a BGR or grey image, sub-pixel refined, or none (OpenCV finds the
        whole pattern or nothing)."""
        grey = _grey(image)
        ok, found = cv2.findChessboardCorners(grey, self.corners)
        if not ok:
            return _empty(name)
        px = cv2.cornerSubPix(grey, found, (5, 5), (-1, -1), _SUBPIX).reshape(-1, 2)
        cols, rows = self.corners
        grid = np.stack(np.divmod(np.arange(cols * rows), cols), axis=1)
        board = np.concatenate([grid[:, ::-1] * self.square, np.zeros((cols * rows, 1))], axis=1)
        return View(name, px.astype(np.float64), board.astype(np.float64), grid)


Board = CharucoBoard | Chessboard


def _grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _empty(name: str) -> View:
    return View(name, np.zeros((0, 2)), np.zeros((0, 3)), np.zeros((0, 2), dtype=int))


def parse_board(text: str) -> Board:
    """A board from its spec string. Raises ValueError naming the expected form."""
    kind, _, rest = text.partition(":")
    fields = rest.split(":") if rest else []
    if kind == "charuco":
        form, n = CHARUCO_FORM, 5
    elif kind == "chessboard":
        form, n = CHESSBOARD_FORM, 3
    else:
        raise ValueError(f"board {text!r}: expected {CHARUCO_FORM} or {CHESSBOARD_FORM}")
    if len(fields) != n:
        raise ValueError(f"board {text!r}: expected {form}")
    try:
        cols, rows = int(fields[0]), int(fields[1])
        sizes = [float(f) for f in fields[2:n if kind == "chessboard" else 4]]
    except ValueError:
        raise ValueError(f"board {text!r}: expected {form}") from None
    if not all(np.isfinite(s) and s > 0 for s in sizes):
        raise ValueError(f"board {text!r}: sizes must be positive numbers of metres; expected {form}")
    try:
        if kind == "charuco":
            return CharucoBoard((cols, rows), sizes[0], sizes[1], fields[4])
        return Chessboard((cols, rows), sizes[0])
    except ValueError as exc:
        raise ValueError(f"board {text!r}: {exc}") from None
