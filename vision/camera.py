"""The overhead camera: intrinsics, lens distortion and pose relative to the table frame.

Conventions
-----------
* Pixels: (u, v) with u to the right and v down, the centre of the top-left pixel at (0, 0)
  (OpenCV's convention). Images are BGR uint8 arrays of shape (height, width, 3).
* Normalised image coordinates: (x, y) = (X_c / Z_c, Y_c / Z_c) in the camera frame, i.e. the
  undistorted pinhole image at focal length 1.
* Pose: ``X_cam = R(rvec) @ X_table + tvec`` (metres; rvec is a Rodrigues vector in radians).
  The table frame is the one of docs/frame.md (cloth at z = 0, a ball centre at z = R).
* Lens models: ``pinhole`` is OpenCV's standard model (k1 k2 p1 p2 [k3 [k4 k5 k6 [s1..s4]]]),
  ``fisheye`` is OpenCV's equidistant fisheye model (k1..k4).

Every pixel -> ray conversion inverts the distortion iteratively to 1e-12 (``cv2.undistortPointsIter``);
OpenCV's default five-step inversion is off by ~0.02 px at the corners of a wide-angle lens,
which would be most of the sub-pixel error budget of the ball detector. For a pinhole lens of up to 12
coefficients the projection and that inversion run as numba kernels of OpenCV's own arithmetic, equal to
its results to the bit (``_project_pinhole``, ``_undistort_pinhole``): the detector projects a few dozen
small point sets a frame, and cv2's set-up per call was most of their cost.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from planner.jit import njit

LENS_MODELS = ("pinhole", "fisheye")
PINHOLE_NDIST = (4, 5, 8, 12, 14)
_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)


@dataclass(frozen=True, eq=False)
class CameraModel:
    """Intrinsics, distortion and (optionally) the pose of the camera in the table frame.

    size: (width, height) in pixels. K: (3, 3) camera matrix. dist: distortion coefficients
    (pinhole: 4, 5, 8, 12 or 14 values; fisheye: 4). rvec, tvec: (3,) pose, table -> camera
    (None until the table is registered). rms_px: the calibration's reprojection RMS (information).
    """
    size: tuple[int, int]
    K: np.ndarray
    dist: np.ndarray
    model: str = "pinhole"
    rvec: np.ndarray | None = None
    tvec: np.ndarray | None = None
    rms_px: float = float("nan")

    def __post_init__(self):
        K = np.asarray(self.K, dtype=np.float64).reshape(3, 3)
        dist = np.asarray(self.dist, dtype=np.float64).reshape(-1)
        if self.model not in LENS_MODELS:
            raise ValueError(f"lens model must be one of {LENS_MODELS}, got {self.model!r}")
        allowed = (4,) if self.model == "fisheye" else PINHOLE_NDIST
        if dist.size not in allowed:
            raise ValueError(f"{self.model} lens needs {' or '.join(map(str, allowed))} distortion "
                             f"coefficients, got {dist.size}")
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "dist", dist)
        object.__setattr__(self, "size", (int(self.size[0]), int(self.size[1])))
        for key in ("rvec", "tvec"):
            v = getattr(self, key)
            if v is not None:
                object.__setattr__(self, key, np.asarray(v, dtype=np.float64).reshape(3))

    # ---- pose -------------------------------------------------------------------------------
    @property
    def has_pose(self) -> bool:
        return self.rvec is not None and self.tvec is not None

    def _need_pose(self) -> None:
        if not self.has_pose:
            raise ValueError("camera has no pose relative to the table: register the table first "
                             "(vision.registration) or give pose.rvec/pose.tvec in camera.yaml")

    @functools.cached_property
    def R(self) -> np.ndarray:
        """(3, 3) rotation table -> camera."""
        self._need_pose()
        return cv2.Rodrigues(self.rvec)[0]

    @functools.cached_property
    def lens(self) -> np.ndarray | None:
        """(14,) the pinhole lens's distortion coefficients, zeros past its own, for ``_project_pinhole`` and
        ``_undistort_pinhole``; None where those do not apply (fisheye; a lens with a tilted sensor's 14
        coefficients: OpenCV's tilt matrices round otherwise)."""
        if self.model != "pinhole" or self.dist.size > 12:
            return None
        k = np.zeros(14)
        k[:self.dist.size] = self.dist
        return k

    @functools.cached_property
    def centre(self) -> np.ndarray:
        """(3,) the camera's optical centre in the table frame [m]."""
        return -self.R.T @ self.tvec

    def with_pose(self, rvec, tvec) -> "CameraModel":
        return replace(self, rvec=np.asarray(rvec, float).reshape(3), tvec=np.asarray(tvec, float).reshape(3))

    # ---- undistortion maps (computed once per camera) ----------------------------------------
    @functools.cached_property
    def undistort_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """Fixed-point maps for ``cv2.remap`` giving the undistorted image with the same K."""
        if self.model == "fisheye":
            return cv2.fisheye.initUndistortRectifyMap(self.K, self.dist, np.eye(3), self.K, self.size,
                                                       cv2.CV_16SC2)
        return cv2.initUndistortRectifyMap(self.K, self.dist, None, self.K, self.size, cv2.CV_16SC2)

    def undistort_image(self, image: np.ndarray) -> np.ndarray:
        """The image as an ideal pinhole camera with matrix K would see it (bilinear resampling)."""
        m1, m2 = self.undistort_maps
        return cv2.remap(image, m1, m2, cv2.INTER_LINEAR)

    def scaled(self, factor: float) -> "CameraModel":
        """The same lens on an image resized by ``factor`` (e.g. 2/3 for 1920x1080 -> 1280x720)."""
        K = self.K.copy()
        K[0, 0] *= factor
        K[1, 1] *= factor
        K[0, 2] = (K[0, 2] + 0.5) * factor - 0.5
        K[1, 2] = (K[1, 2] + 0.5) * factor - 0.5
        size = (round(self.size[0] * factor), round(self.size[1] * factor))
        return replace(self, K=K, size=size)


# ---- points ---------------------------------------------------------------------------------
def pixels_to_normalised(cam: CameraModel, px) -> np.ndarray:
    """(N, 2) distorted pixels -> (N, 2) normalised image coordinates (distortion removed)."""
    px = np.ascontiguousarray(np.asarray(px, dtype=np.float64).reshape(-1, 1, 2))
    if px.shape[0] == 0:
        return np.zeros((0, 2))
    if cam.lens is not None:
        _, count, eps = _UNDISTORT_CRITERIA
        return _undistort_pinhole(px.reshape(-1, 2), cam.lens, cam.K, count, eps)
    if cam.model == "fisheye":
        out = cv2.fisheye.undistortPoints(px, cam.K, cam.dist, criteria=_UNDISTORT_CRITERIA)
    else:
        out = cv2.undistortPointsIter(px, cam.K, cam.dist, None, None, _UNDISTORT_CRITERIA)
    return out.reshape(-1, 2)


def normalised_to_pixels(cam: CameraModel, xy) -> np.ndarray:
    """(N, 2) normalised image coordinates -> (N, 2) distorted pixels."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    pts = np.concatenate([xy, np.ones((xy.shape[0], 1))], axis=1)
    return _project_cam(cam, pts, np.zeros(3), np.zeros(3))


def _project_cam(cam: CameraModel, pts: np.ndarray, rvec, tvec) -> np.ndarray:
    if pts.shape[0] == 0:
        return np.zeros((0, 2))
    if cam.lens is not None:
        R = cam.R if rvec is cam.rvec else cv2.Rodrigues(np.asarray(rvec, np.float64))[0]
        return _project_pinhole(np.ascontiguousarray(pts, np.float64).reshape(-1, 3), R,
                                np.asarray(tvec, np.float64).reshape(3), cam.lens, cam.K)
    if cam.model == "fisheye":
        out, _ = cv2.fisheye.projectPoints(pts.reshape(-1, 1, 3), rvec, tvec, cam.K, cam.dist)
    else:
        out, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), rvec, tvec, cam.K, cam.dist)
    return out.reshape(-1, 2)


@njit(cache=True)
def _distorted(x, y, k):
    """(x, y) normalised -> distorted normalised coordinates of the pinhole lens k (14,) (no tilt), as
    OpenCV's ``projectPoints`` computes them (the same operations in the same order)."""
    r2 = x * x + y * y
    r4 = r2 * r2
    r6 = r4 * r2
    a1 = 2 * x * y
    a2 = r2 + 2 * x * x
    a3 = r2 + 2 * y * y
    cdist = 1 + k[0] * r2 + k[1] * r4 + k[4] * r6
    icdist2 = 1.0 / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6)
    return (x * cdist * icdist2 + k[2] * a1 + k[3] * a2 + k[8] * r2 + k[9] * r4,
            y * cdist * icdist2 + k[2] * a3 + k[3] * a1 + k[10] * r2 + k[11] * r4)


@njit(cache=True)
def _project_pinhole(pts, R, t, k, K):
    """(N, 2) pixels of points pts (N, 3) posed by R (3, 3), t (3,) through the pinhole lens k (14,) (no tilt)
    and camera matrix K: ``cv2.projectPoints``' arithmetic (cvProjectPoints2Internal), equal to its results
    to the bit (tests/vision/test_kernel_equivalence.py) without its per-call set-up (0.18 -> 0.015 ms for
    1000 points; a hard frame projects about 15 outline sets)."""
    out = np.empty((pts.shape[0], 2))
    for i in range(pts.shape[0]):
        X, Y, Z = pts[i, 0], pts[i, 1], pts[i, 2]
        x = R[0, 0] * X + R[0, 1] * Y + R[0, 2] * Z + t[0]
        y = R[1, 0] * X + R[1, 1] * Y + R[1, 2] * Z + t[1]
        z = R[2, 0] * X + R[2, 1] * Y + R[2, 2] * Z + t[2]
        z = 1.0 / z if z != 0 else 1.0
        xd, yd = _distorted(x * z, y * z, k)
        out[i, 0] = xd * K[0, 0] + K[0, 2]
        out[i, 1] = yd * K[1, 1] + K[1, 2]
    return out


@njit(cache=True)
def _undistort_pinhole(px, k, K, max_count, eps):
    """(N, 2) normalised coordinates of distorted pixels px (N, 2) of the pinhole lens k (14,) (no tilt) and
    camera matrix K: ``cv2.undistortPointsIter``'s fixed-point iteration (cvUndistortPointsInternal), at most
    max_count steps, until the point reprojects within eps px; equal to its results to the bit (0.33 -> 0.25 ms
    for 1000 points)."""
    fx, fy, cx, cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    ifx, ify = 1.0 / fx, 1.0 / fy
    out = np.empty((px.shape[0], 2))
    for i in range(px.shape[0]):
        u, v = px[i, 0], px[i, 1]
        x0, y0 = (u - cx) * ifx, (v - cy) * ify
        x, y = x0, y0
        error = np.inf
        for _ in range(max_count):
            if error < eps:
                break
            r2 = x * x + y * y
            icdist = (1 + ((k[7] * r2 + k[6]) * r2 + k[5]) * r2) / (1 + ((k[4] * r2 + k[1]) * r2 + k[0]) * r2)
            if icdist < 0:
                x, y = x0, y0
                break
            delta_x = 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x) + k[8] * r2 + k[9] * r2 * r2
            delta_y = k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y + k[10] * r2 + k[11] * r2 * r2
            x = (x0 - delta_x) * icdist
            y = (y0 - delta_y) * icdist
            xd, yd = _distorted(x, y, k)
            error = math.sqrt((xd * fx + cx - u) ** 2 + (yd * fy + cy - v) ** 2)
        out[i, 0], out[i, 1] = x, y
    return out


def table_to_pixels(cam: CameraModel, pts) -> np.ndarray:
    """(N, 3) table-frame points [m] -> (N, 2) distorted pixels. Raises without a pose."""
    cam._need_pose()
    return _project_cam(cam, np.asarray(pts, dtype=np.float64).reshape(-1, 3), cam.rvec, cam.tvec)


def pixel_rays(cam: CameraModel, px) -> np.ndarray:
    """(N, 2) pixels -> (N, 3) unit ray directions in the table frame (rays start at ``cam.centre``)."""
    xy = pixels_to_normalised(cam, px)
    return normalised_rays(cam, xy)


def normalised_rays(cam: CameraModel, xy) -> np.ndarray:
    """(N, 2) normalised coordinates -> (N, 3) unit directions in the table frame."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    d = np.concatenate([xy, np.ones((xy.shape[0], 1))], axis=1) @ cam.R  # rows: R.T @ d_cam
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def pixels_to_table(cam: CameraModel, px, z: float = 0.0) -> np.ndarray:
    """(N, 2) pixels -> (N, 2) table (x, y) [m] where each pixel's ray meets the plane at height z.

    Use z = R for ball centres (a ball's centre is R above the cloth): intersecting at z = 0
    instead misplaces a ball at horizontal distance d from the camera's foot by d R / (H - R).
    """
    d = pixel_rays(cam, px)
    c = cam.centre
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = (z - c[2]) / d[:, 2]
    return c[:2] + lam[:, None] * d[:, :2]


def silhouette_circles(cam: CameraModel, centres, radius, n: int = 32) -> np.ndarray:
    """Points (M, n, 3) [m, table frame] where the cone of rays from the optical centre touches
    each sphere: the circle whose image is the sphere's outline. radius: scalar or (M,) [m]."""
    P = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
    radius = np.broadcast_to(np.asarray(radius, dtype=np.float64), (P.shape[0],))
    cos, sin = _circle_trig(int(n))
    return _silhouette_circles(P, radius, np.asarray(cam.centre, np.float64), cos.ravel(), sin.ravel())


@njit(cache=True)
def _silhouette_circles(P, radius, centre, cos, sin):
    """``silhouette_circles`` of spheres at P (M, 3) of radii (M,) [m] seen from ``centre`` (3,), at the
    angles of cos, sin (n,): with a the unit direction to each sphere at distance D, e1 = a x z
    (normalised) and e2 = a x e1, the contact circle's centre P - a r^2 / D and radius r sqrt(1 - (r / D)^2)."""
    M, n = P.shape[0], cos.size
    out = np.empty((M, n, 3))
    for m in range(M):
        a0, a1, a2 = P[m, 0] - centre[0], P[m, 1] - centre[1], P[m, 2] - centre[2]
        D = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        a0, a1, a2 = a0 / D, a1 / D, a2 / D
        e = math.sqrt(a1 * a1 + a0 * a0 + 0.0)
        e10, e11, e12 = a1 / e, -a0 / e, 0.0 / e
        e20, e21, e22 = a1 * e12 - a2 * e11, a2 * e10 - a0 * e12, a0 * e11 - a1 * e10
        r = radius[m]
        q = r / D
        rho = r * math.sqrt(1.0 - q * q)
        f = r * r / D
        b0, b1, b2 = P[m, 0] - a0 * f, P[m, 1] - a1 * f, P[m, 2] - a2 * f
        for j in range(n):
            out[m, j, 0] = b0 + rho * (cos[j] * e10 + sin[j] * e20)
            out[m, j, 1] = b1 + rho * (cos[j] * e11 + sin[j] * e21)
            out[m, j, 2] = b2 + rho * (cos[j] * e12 + sin[j] * e22)
    return out


@functools.lru_cache(maxsize=8)
def _circle_trig(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(cos t, sin t), each (1, n, 1) read-only, of n angles t evenly spaced over a turn from 0."""
    t = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    cos, sin = np.cos(t)[None, :, None], np.sin(t)[None, :, None]
    cos.setflags(write=False)
    sin.setflags(write=False)
    return cos, sin


def sphere_silhouettes(cam: CameraModel, centres, radius, n: int = 32) -> np.ndarray:
    """Points on the image outline of spheres: (M, n, 2) distorted pixels.

    The outline of a sphere under perspective is the image of the circle where the cone from the
    optical centre touches it (an ellipse before distortion, elongated away from the image centre).
    centres: (M, 3) table frame [m]; radius: scalar or (M,) [m].
    """
    Q = silhouette_circles(cam, centres, radius, n)
    return table_to_pixels(cam, Q.reshape(-1, 3)).reshape(Q.shape[0], n, 2)


def solve_pose(cam: CameraModel, world, px) -> tuple[np.ndarray, np.ndarray, float]:
    """Camera pose from landmarks with known table-frame positions (PnP, then Levenberg-Marquardt).

    world: (N, 3) [m], N >= 4 (need not be coplanar); px: (N, 2) their distorted pixels.
    Returns (rvec, tvec, rms_px) with rms_px the reprojection RMS in pixels.
    Raises ValueError for fewer than 4 points or a failed solve.
    """
    world = np.asarray(world, dtype=np.float64).reshape(-1, 3)
    px = np.asarray(px, dtype=np.float64).reshape(-1, 2)
    if world.shape[0] < 4 or world.shape[0] != px.shape[0]:
        raise ValueError(f"solve_pose needs >= 4 matching points, got {world.shape[0]} world / {px.shape[0]} image")
    xy = pixels_to_normalised(cam, px)             # undistort first: works for both lens models
    eye = np.eye(3)
    flat = np.ptp(world[:, 2]) < 1e-9
    ok, rvec, tvec = cv2.solvePnP(world, xy, eye, None, flags=cv2.SOLVEPNP_IPPE if flat else cv2.SOLVEPNP_SQPNP)
    if not ok:
        raise ValueError("solvePnP failed: landmarks degenerate or mismatched")
    rvec, tvec = cv2.solvePnPRefineLM(world, xy, eye, None, rvec, tvec,
                                      (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12))
    posed = cam.with_pose(rvec, tvec)
    err = table_to_pixels(posed, world) - px
    return rvec.reshape(3), tvec.reshape(3), float(np.sqrt(np.mean(np.sum(err ** 2, axis=1))))


def look_at_pose(eye, target, right=(0.0, 1.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """Pose (rvec, tvec) of a camera at ``eye`` looking at ``target`` (table frame, metres).

    The image's u axis (to the right) points along ``right`` projected into the image plane, so
    with the default right = +y the table's long axis runs along the image width.
    """
    eye, target, right = (np.asarray(v, dtype=np.float64) for v in (eye, target, right))
    z = target - eye
    z /= np.linalg.norm(z)
    x = right - z * np.dot(right, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.stack([x, y, z])        # rows: camera axes in table coordinates
    rvec = cv2.Rodrigues(R)[0].reshape(3)
    return rvec, -R @ eye
