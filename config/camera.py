"""``camera.yaml``: the lens (intrinsics, distortion), the camera's pose in the table frame, the
landmarks that register it and the hardware camera's capture source; read into a CameraModel,
Landmarks and a source, and written back (lens and pose) after a calibration.

Units: pixels for the lens, metres and radians for the pose (docs/frame.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from config.atomic import write_atomic
from config.reader import ConfigError, Section, default_path, load_yaml
from planner.table import Table
from vision.camera import LENS_MODELS, PINHOLE_NDIST, CameraModel
from vision.registration import Landmarks, aruco_dictionary, default_markers
from vision.scene import RailGeometry

M = "a positive number of metres"


@dataclass(frozen=True)
class CameraSettings:
    """camera.yaml, read from ``path``: the camera model (with its pose when the file has one),
    the registration landmarks, and ``source``: where the hardware camera's frames come from
    (``controller.camera.VideoCamera``): an OpenCV VideoCapture device index (int), a video file
    or a URL (str), or None when none is configured; ``cloth_srgb``: the cloth's colour as this camera saw it when
    calibrated, (R, G, B) 8-bit sRGB, that frames whose white balance drifts are brought back to
    (``vision.white_balance``), or None."""
    camera: CameraModel
    landmarks: Landmarks
    path: str
    source: int | str | None = None
    cloth_srgb: tuple[float, float, float] | None = None


SOURCE_FORM = "an OpenCV VideoCapture device index (a whole number >= 0), a video file or a URL, or null"


def parse_source(root: Section) -> int | str | None:
    """The optional top-level ``source``: a device index, a file or URL, or None (missing or null).
    Raises ConfigError naming the file and key."""
    if not root.has("source"):
        return None
    raw = root.data["source"]
    if raw is None:
        return None
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        return raw
    if isinstance(raw, str) and raw.strip():
        return raw.strip()
    raise root.fail("source", SOURCE_FORM, raw)


CLOTH_FORM = "[R, G, B]: the cloth's 8-bit sRGB colour, each channel above 0 and at most 255, or null"


def parse_cloth_srgb(root: Section) -> tuple[float, float, float] | None:
    """The optional top-level ``cloth_srgb`` (missing or null: None). Raises ConfigError naming the file and key."""
    if not root.has("cloth_srgb") or root.data["cloth_srgb"] is None:
        return None
    rgb = root.vector("cloth_srgb", 3, CLOTH_FORM)
    if min(rgb) <= 0 or max(rgb) > 255:
        raise root.fail("cloth_srgb", CLOTH_FORM, list(rgb))
    return rgb


def parse_camera(root: Section) -> CameraModel:
    """CameraModel from the ``camera`` and optional ``pose`` sections; ConfigError names file and key."""
    c = root.section("camera")
    model = c.string("model", "pinhole or fisheye", choices=LENS_MODELS, default="pinhole")
    w, h = c.vector("image_size", 2, "[width, height] in pixels")
    if w < 1 or h < 1 or w != int(w) or h != int(h):
        raise c.fail("image_size", "[width, height] as positive whole numbers of pixels", [w, h])
    px = "a positive number of pixels"
    fx, fy = c.number("fx", px, positive=True), c.number("fy", px, positive=True)
    cx, cy = c.number("cx", "a number of pixels"), c.number("cy", "a number of pixels")
    allowed = (4,) if model == "fisheye" else PINHOLE_NDIST
    form = f"a list of {' or '.join(map(str, allowed))} distortion coefficients for the {model} model"
    raw = c.raw("distortion", form)
    if not isinstance(raw, list) or len(raw) not in allowed:
        raise c.fail("distortion", form, raw)
    dist = c.vector("distortion", len(raw), form)
    K = np.array([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]])
    rvec = tvec = None
    if root.has("pose"):
        p = root.section("pose")
        rvec = np.array(p.vector("rvec", 3, "a Rodrigues vector [r1, r2, r3] in radians"))
        tvec = np.array(p.vector("tvec", 3, "a translation [t1, t2, t3] in metres"))
    rms = c.number("rms_px", "a number of pixels >= 0", nonneg=True, default=float("nan"))
    return CameraModel(size=(int(w), int(h)), K=K, dist=np.array(dist), model=model, rvec=rvec, tvec=tvec,
                       rms_px=rms)


def load_camera(path: str | Path | None = None) -> CameraModel:
    """Read ``config/camera.yaml`` (or ``path``). Raises ConfigError naming the file and key."""
    return parse_camera(load_yaml(path or default_path("camera.yaml")))


def camera_to_dict(cam: CameraModel) -> dict:
    """The ``camera`` (and ``pose``) sections as plain YAML-ready values."""
    out = {"camera": {
        "model": cam.model,
        "image_size": [int(cam.size[0]), int(cam.size[1])],
        "fx": float(cam.K[0, 0]), "fy": float(cam.K[1, 1]),
        "cx": float(cam.K[0, 2]), "cy": float(cam.K[1, 2]),
        "distortion": [float(v) for v in cam.dist],
    }}
    if np.isfinite(cam.rms_px):
        out["camera"]["rms_px"] = float(cam.rms_px)
    if cam.has_pose:
        out["pose"] = {"rvec": [float(v) for v in cam.rvec], "tvec": [float(v) for v in cam.tvec]}
    return out


def save_camera(cam: CameraModel, path: str | Path) -> None:
    """Write the ``camera`` (and ``pose``) sections as YAML."""
    write_atomic(path, yaml.safe_dump(camera_to_dict(cam), sort_keys=False))



def parse_landmarks(root: Section, table: Table) -> Landmarks:
    """Landmarks from the ``registration`` section; anything left out takes the defaults of
    Landmarks and RailGeometry (markers: ``default_markers`` on the rails)."""
    if not root.has("registration"):
        rail = RailGeometry()
        return Landmarks(rail=rail, markers=default_markers(table, rail))
    reg = root.section("registration")
    d = RailGeometry()
    if reg.has("rail"):
        r = reg.section("rail")
        rail = RailGeometry(width=r.number("width", M, positive=True, default=d.width),
                            height=r.number("height", M, positive=True, default=d.height),
                            diamond_radius=r.number("diamond_radius", M, positive=True,
                                                    default=d.diamond_radius))
    else:
        rail = d
    if rail.height < table.cushion_height:
        raise reg.fail("rail.height", f"at least the cushion height {table.cushion_height} m", rail.height)
    base = Landmarks()
    dictionary = reg.string("dictionary", "an ArUco dictionary name such as DICT_4X4_50",
                            default=base.dictionary)
    try:
        aruco_dictionary(dictionary)
    except ValueError:
        raise reg.fail("dictionary", "an ArUco dictionary name such as DICT_4X4_50", dictionary) from None
    size = reg.number("marker_size", M, positive=True, default=base.marker_size)
    markers = default_markers(table, rail)
    if reg.has("markers"):
        ms = reg.section("markers")
        markers = {}
        for key in ms.data:
            if isinstance(key, bool) or not isinstance(key, int) or key < 0:
                raise ConfigError(f"{root.path}: registration.markers keys must be marker ids "
                                  f"(whole numbers >= 0), got {key!r}")
            markers[key] = ms.vector(key, 2, "[x, y] marker centre on the rail cap in metres")
    return Landmarks(rail=rail, dictionary=dictionary, marker_size=size, markers=markers)


def load_camera_settings(table: Table, path: str | Path | None = None) -> CameraSettings:
    """Read camera.yaml (default ``config/camera.yaml``); the landmarks' default markers sit on
    ``table``'s rails. Raises ConfigError naming the file and key."""
    root = load_yaml(path or default_path("camera.yaml"))
    return CameraSettings(parse_camera(root), parse_landmarks(root, table), root.path, parse_source(root),
                          parse_cloth_srgb(root))
