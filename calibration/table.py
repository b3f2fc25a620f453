"""Table pose: the camera's pose in the table frame (docs/frame.md) from landmarks with known
3-D positions, and how well it maps pixels back onto the table.

Two kinds of landmarks (the solve itself is ``vision.registration``, which the runtime vision
shares):

* the ArUco markers lying flat on the rail caps, at the rail height (``camera.yaml``'s
  ``registration`` section), found automatically;
* named table points whose pixels a person gives in a points file (docs/calibration.md): the six
  pocket centres at cloth height (``lb`` .. ``rt``) and the eighteen diamonds on the rail caps
  (``head.1..3``, ``foot.1..3``, ``left.1..7``, ``right.1..7`` without ``.4``, the side pockets).

The error that matters is on the table: each landmark's pixel is cast back as a ray of the
registered camera onto the plane at the landmark's own height, and the distance from where it
lands to where the landmark is [mm] is its table error.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from config.reader import ConfigError, load_yaml
from planner.table import Table
from vision.camera import CameraModel, pixels_to_table
from vision.registration import Landmarks, Registration, register_from_markers, register_from_points
from vision.scene import RailGeometry, diamond_points

MIN_POINTS = 4
UV_FORM = "[u, v]: the landmark's pixel (u right, v down, the top-left pixel's centre is [0, 0])"


@dataclass(frozen=True)
class TablePose:
    """A registered camera and its landmarks: names (N,), world (N, 3) [m], px (N, 2), the
    reprojection RMS [px] and each landmark's table error [mm] (module docstring)."""
    camera: CameraModel
    method: str
    names: list[str]
    world: np.ndarray
    px: np.ndarray
    rms_px: float
    error_mm: np.ndarray

    @property
    def rms_mm(self) -> float:
        return float(np.sqrt(np.mean(self.error_mm ** 2)))

    @property
    def max_mm(self) -> float:
        return float(np.max(self.error_mm))


def table_points(table: Table, rail: RailGeometry) -> dict[str, np.ndarray]:
    """Named landmarks -> (3,) table-frame positions [m]: pocket centres at z = 0 and the
    diamonds on the rail caps' centre lines at the rail height."""
    pts = {pid: np.array([c[0], c[1], 0.0]) for pid, c in zip(table.pocket_ids, table.pocket_center)}
    names = [f"{end}.{k}" for k in (1, 2, 3) for end in ("head", "foot")]       # diamond_points' order
    names += [f"{side}.{k}" for k in (1, 2, 3, 5, 6, 7) for side in ("left", "right")]
    pts.update(zip(names, diamond_points(table, rail)))
    return pts


def read_points_file(path: str | Path, known: dict[str, np.ndarray]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(names, world (N, 3), px (N, 2)) from a points file (YAML ``points: {name: [u, v]}``).

    Raises ConfigError naming the file and key: unknown name, malformed pixel, fewer than 4 points.
    """
    root = load_yaml(path)
    sec = root.section("points")
    names = [str(k) for k in sec.data]
    for name in names:
        if name not in known:
            raise ConfigError(f"{root.path}: points.{name} is not a table landmark; expected one of "
                              f"{', '.join(known)}")
    if len(names) < MIN_POINTS:
        raise ConfigError(f"{root.path}: points must name at least {MIN_POINTS} landmarks, got {len(names)}")
    px = np.array([sec.vector(n, 2, UV_FORM) for n in names])
    return names, np.array([known[n] for n in names]), px


def table_error_mm(cam: CameraModel, world: np.ndarray, px: np.ndarray) -> np.ndarray:
    """(N,) distance [mm] between each landmark's (x, y) and where its pixel's ray, from the posed
    ``cam``, meets the plane z = the landmark's height."""
    err = np.empty(len(world))
    for z in np.unique(world[:, 2]):
        sel = world[:, 2] == z
        err[sel] = np.hypot(*(pixels_to_table(cam, px[sel], float(z)) - world[sel, :2]).T) * 1000.0
    return err


def _pose(cam: CameraModel, reg: Registration, method: str, names: list[str]) -> TablePose:
    posed = cam.with_pose(reg.rvec, reg.tvec)
    return TablePose(posed, method, names, reg.world, reg.px, reg.rms_px, table_error_mm(posed, reg.world, reg.px))


def pose_from_markers(image: np.ndarray, cam: CameraModel, landmarks: Landmarks) -> TablePose:
    """The pose from the rail markers seen in ``image`` (BGR or grey); the lens of ``cam`` is used,
    its pose ignored. Raises ValueError naming the markers found if too few known ones are seen."""
    reg = register_from_markers(image, cam, landmarks)
    names = [f"marker {i}.{c}" for i in reg.ids for c in range(4)]
    return _pose(cam, reg, f"markers {', '.join(map(str, reg.ids))}", names)


def pose_from_points(cam: CameraModel, names: list[str], world: np.ndarray, px: np.ndarray) -> TablePose:
    """The pose from named landmarks and their pixels (>= 4, not all on one line).
    Raises ValueError if the solve fails."""
    return _pose(cam, register_from_points(cam, world, px), "points", list(names))


def pose_section(pose: TablePose) -> dict:
    """The ``pose`` section of camera.yaml: rvec, tvec (``config.camera`` reads them) and, as
    information, how the pose was registered."""
    return {"rvec": [float(v) for v in pose.camera.rvec], "tvec": [float(v) for v in pose.camera.tvec],
            "registered_from": pose.method, "landmarks": len(pose.names),
            "rms_px": round(pose.rms_px, 4), "rms_mm": round(pose.rms_mm, 3), "max_mm": round(pose.max_mm, 3)}
