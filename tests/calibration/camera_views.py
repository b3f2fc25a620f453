"""Rendered photographs of a ChArUco board through a known lens, for the camera-calibration tests.

Every pixel's ray (the lens model's own inverse, ``vision.camera.pixels_to_normalised``, standard
or fisheye) is intersected with the board's plane and the board's printed image is sampled there
(bilinear, prefiltered to the pixel's footprint), on a white sheet; then Gaussian sensor noise.
The true corners are the board's corners projected by the same camera.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration.boards import CharucoBoard
from vision.camera import CameraModel, pixels_to_normalised, table_to_pixels

BOARD = CharucoBoard((6, 8), 0.034, 0.027, "DICT_4X4_50")
TEXTURE_PPM = 3000.0        # printed board resolution [px per metre]


def board_texture(board: CharucoBoard = BOARD, ppm: float = TEXTURE_PPM) -> np.ndarray:
    """The printed board: a grey image where pixel (i, j) covers board point ((j + 0.5), (i + 0.5)) / ppm."""
    w, h = (round(n * board.square * ppm) for n in board.squares)
    return board.cv_board.generateImage((w, h), marginSize=0, borderBits=1)


def view_poses(cam: CameraModel, n: int, depth: tuple[float, float], rng: np.random.Generator,
               board: CharucoBoard = BOARD, tilt_deg: float = 35.0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n`` board poses (rvec, tvec: board -> camera) with the board's centre on rays through a
    spread of image points (corners and edges first), at depths in ``depth`` [m], tilted up to
    ``tilt_deg`` about random axes in the board plane and turned about its normal."""
    w, h = cam.size
    grid = [(0.5, 0.5), (0.2, 0.2), (0.8, 0.2), (0.2, 0.8), (0.8, 0.8), (0.5, 0.2), (0.5, 0.8), (0.2, 0.5),
            (0.8, 0.5), (0.35, 0.35), (0.65, 0.65), (0.35, 0.65), (0.65, 0.35)]
    centre_local = np.array([board.squares[0] * board.square / 2, board.squares[1] * board.square / 2, 0.0])
    poses = []
    for k in range(n):
        fu, fv = grid[k % len(grid)]
        ray = np.append(pixels_to_normalised(cam, [[fu * w, fv * h]])[0], 1.0)
        centre = ray / np.linalg.norm(ray) * rng.uniform(*depth)
        axis = rng.normal(size=2)
        tilt = np.radians(rng.uniform(10.0, tilt_deg)) * np.append(axis / np.linalg.norm(axis), 0.0)
        R = cv2.Rodrigues(tilt)[0] @ cv2.Rodrigues(np.array([0.0, 0.0, rng.uniform(-0.4, 0.4)]))[0]
        poses.append((cv2.Rodrigues(R)[0].ravel(), centre - R @ centre_local))
    return poses


def render_views(cam: CameraModel, poses, rng: np.random.Generator, board: CharucoBoard = BOARD,
                 noise: float = 2.0) -> list[np.ndarray]:
    """Grey uint8 images of the board seen by ``cam`` (lens only) at each pose (board -> camera)."""
    tex = board_texture(board).astype(np.float32)
    w, h = cam.size
    vv, uu = np.mgrid[0:h, 0:w]
    xy = pixels_to_normalised(cam, np.stack([uu.ravel(), vv.ravel()], axis=1).astype(np.float64))
    rays = np.concatenate([xy, np.ones((len(xy), 1))], axis=1)
    images = []
    for rvec, tvec in poses:
        R = cv2.Rodrigues(np.asarray(rvec, float))[0]
        normal = R[:, 2]
        s = (normal @ tvec) / (rays @ normal)
        local = (rays * s[:, None] - tvec) @ R          # rows: R.T @ (X_cam - t)
        # the pixel's footprint on the board, in texture pixels: prefilter the texture to it
        foot = float(np.median(s)) / cam.K[0, 0] * TEXTURE_PPM
        src = cv2.GaussianBlur(tex, (0, 0), max(0.5, 0.5 * foot))
        mx = (local[:, 0] * TEXTURE_PPM - 0.5).reshape(h, w).astype(np.float32)
        my = (local[:, 1] * TEXTURE_PPM - 0.5).reshape(h, w).astype(np.float32)
        behind = (s <= 0).reshape(h, w)
        mx[behind] = my[behind] = -1e6
        img = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=235.0)
        img = img * 0.8 + 20.0 + rng.normal(0.0, noise, img.shape)
        images.append(np.clip(np.round(img), 0, 255).astype(np.uint8))
    return images


def true_corners(cam: CameraModel, rvec, tvec, board: CharucoBoard = BOARD) -> np.ndarray:
    """(N, 2) pixels of all the board's ChArUco corners at this pose."""
    return table_to_pixels(cam.with_pose(rvec, tvec), board.cv_board.getChessboardCorners())
