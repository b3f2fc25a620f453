"""Table registration: the camera's pose in the table frame from landmarks with known 3-D positions.

Landmarks are ArUco markers lying flat on the rail caps (detected automatically) or any points
with known table-frame positions, e.g. the diamonds (clicked once). The rail caps are above the
cloth (``RailGeometry.height``), so a cloth-plane homography would be wrong; the pose is solved in
3-D (PnP, ``vision.camera.solve_pose``), after which pixels map to the table at any height.

Marker convention: a marker's corners are listed as ArUco returns them (its top-left, top-right,
bottom-right, bottom-left); lying flat with yaw 0 its top edge faces +y and its left edge -x,
so the corners are (x -/+ s/2, y +/- s/2) in that order, at z = rail height.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from planner.table import Table
from vision.camera import CameraModel, solve_pose
from vision.scene import RailGeometry


@dataclass(frozen=True)
class Landmarks:
    """Registration landmarks: the rail caps and the ArUco markers on them.

    markers: id -> (x, y) marker centre on the rail cap [m]; marker_size: side of the black
    square [m]; dictionary: an OpenCV predefined ArUco dictionary name, e.g. "DICT_4X4_50".
    """
    rail: RailGeometry = field(default_factory=RailGeometry)
    dictionary: str = "DICT_4X4_50"
    marker_size: float = 0.07
    markers: dict[int, tuple[float, float]] = field(default_factory=dict)

    def marker_corners(self) -> dict[int, np.ndarray]:
        """id -> (4, 3) corner positions in the table frame [m] (ArUco corner order)."""
        h = self.marker_size / 2
        offs = np.array([[-h, h], [h, h], [h, -h], [-h, -h]])
        return {i: np.concatenate([np.asarray(c) + offs, np.full((4, 1), self.rail.height)], axis=1)
                for i, c in self.markers.items()}


@dataclass(frozen=True)
class Registration:
    """A solved pose: rvec, tvec (table -> camera), reprojection RMS [px], marker ids used, and the
    landmarks it was solved from: world (N, 3) table-frame positions [m] and their pixels px (N, 2)."""
    rvec: np.ndarray
    tvec: np.ndarray
    rms_px: float
    ids: tuple[int, ...]
    world: np.ndarray
    px: np.ndarray


def default_markers(table: Table, rail: RailGeometry) -> dict[int, tuple[float, float]]:
    """Eight marker centres on the rail caps' centre lines, between the diamonds."""
    w, l = table.width, table.length
    off = table.cushion_width + rail.width / 2
    return {0: (3 * w / 8, -off), 1: (5 * w / 8, -off), 2: (3 * w / 8, l + off), 3: (5 * w / 8, l + off),
            4: (-off, 5 * l / 16), 5: (-off, 11 * l / 16), 6: (w + off, 5 * l / 16), 7: (w + off, 11 * l / 16)}


def aruco_dictionary(name: str):
    code = getattr(cv2.aruco, name, None)
    if not name.startswith("DICT_") or code is None:
        raise ValueError(f"unknown ArUco dictionary {name!r}; expected e.g. DICT_4X4_50")
    return cv2.aruco.getPredefinedDictionary(code)


def detect_markers(image: np.ndarray, dictionary: str) -> dict[int, np.ndarray]:
    """ArUco markers in a BGR or grey image: id -> (4, 2) corner pixels, sub-pixel refined."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = det.detectMarkers(grey)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners)}


def register_from_markers(image: np.ndarray, cam: CameraModel, landmarks: Landmarks,
                          min_markers: int = 3) -> Registration:
    """Detect the rail markers in ``image`` and solve the camera pose from their corners.

    Raises ValueError naming the markers found if fewer than ``min_markers`` known ones are seen.
    """
    found = detect_markers(image, landmarks.dictionary)
    known = landmarks.marker_corners()
    ids = tuple(sorted(i for i in found if i in known))
    if len(ids) < min_markers:
        raise ValueError(f"table registration needs >= {min_markers} of the rail markers "
                         f"{sorted(known)}, found {sorted(found)}")
    world = np.concatenate([known[i] for i in ids])
    px = np.concatenate([found[i] for i in ids])
    rvec, tvec, rms = solve_pose(cam, world, px)
    return Registration(rvec, tvec, rms, ids, world, px)


def register_from_points(cam: CameraModel, world, px) -> Registration:
    """Pose from clicked landmarks, e.g. diamonds (``diamond_points``) and their pixels."""
    world = np.asarray(world, dtype=np.float64).reshape(-1, 3)
    px = np.asarray(px, dtype=np.float64).reshape(-1, 2)
    rvec, tvec, rms = solve_pose(cam, world, px)
    return Registration(rvec, tvec, rms, (), world, px)
