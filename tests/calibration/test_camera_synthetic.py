"""Camera calibration on rendered board photographs through a known lens (tests/calibration/camera_views.py):
the standard and the fisheye lens are recovered, and the held-out check tells a wrong model."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from camera_views import BOARD, render_views, view_poses

from calibration.camera import (
    board_lines,
    calibrate_views,
    detect_views,
    holdout_check,
    line_straightness,
    undistorted_pixels,
)
from config.camera import load_camera
from controller.cli import main
from vision.camera import CameraModel, normalised_to_pixels, pixels_to_normalised

STANDARD = CameraModel((1280, 720), [[1150.0, 0, 641.3], [0, 1150.0, 358.2], [0, 0, 1]],
                       [-0.28, 0.12, 0.0005, -0.0003, -0.02])           # config/camera.yaml's lens
FISHEYE = CameraModel((800, 600), [[300.0, 0, 403.5], [0, 301.0, 297.2], [0, 0, 1]],
                      [0.05, -0.02, 0.01, -0.003], model="fisheye")    # about 150 degrees across


def _write(tmp_path, images) -> list[str]:
    paths = []
    for i, img in enumerate(images):
        paths.append(str(tmp_path / f"view{i:02d}.png"))
        cv2.imwrite(paths[-1], img)
    return paths


@pytest.fixture(scope="module")
def fisheye_views(tmp_path_factory):
    rng = np.random.default_rng(7)
    poses = view_poses(FISHEYE, 12, (0.25, 0.4), rng)
    return _write(tmp_path_factory.mktemp("fisheye"), render_views(FISHEYE, poses, rng))


@pytest.fixture(scope="module")
def standard_views(tmp_path_factory):
    rng = np.random.default_rng(8)
    poses = view_poses(STANDARD, 10, (0.7, 1.1), rng)
    return _write(tmp_path_factory.mktemp("standard"), render_views(STANDARD, poses, rng))


def _rays(cam: CameraModel, px: np.ndarray) -> np.ndarray:
    d = np.concatenate([pixels_to_normalised(cam, px), np.ones((len(px), 1))], axis=1)
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def _mapping_error_px(true: CameraModel, fitted: CameraModel, px: np.ndarray) -> np.ndarray:
    """(N,) distances [px] between ``px`` and where the fitted lens images the true rays of ``px``.

    A small turn of the camera frame trades off against the principal point (every view's pose
    absorbs it), so the true rays are first turned onto the fitted ones (Kabsch rotation)."""
    a, b = _rays(true, px), _rays(fitted, px)
    u, _, vt = np.linalg.svd(a.T @ b)
    rot = (u @ np.diag([1.0, 1.0, np.linalg.det(u @ vt)]) @ vt).T        # b ~ rot @ a
    turned = a @ rot.T
    return np.hypot(*(normalised_to_pixels(fitted, turned[:, :2] / turned[:, 2:]) - px).T)


def _covered(views) -> np.ndarray:
    """Pixels on a 20 px grid inside the convex hull of all the views' corners."""
    hull = cv2.convexHull(np.concatenate([v.pixels for v in views]).astype(np.float32))
    w, h = 1 + int(max(v.pixels[:, 0].max() for v in views)), 1 + int(max(v.pixels[:, 1].max() for v in views))
    grid = np.stack(np.meshgrid(np.arange(0, w, 20.0), np.arange(0, h, 20.0)), axis=-1).reshape(-1, 2)
    return grid[[cv2.pointPolygonTest(hull, (float(u), float(v)), False) >= 0 for u, v in grid]]


def test_fisheye_lens_is_recovered(fisheye_views):
    det = detect_views(fisheye_views, BOARD)
    assert len(det.views) >= 8
    cal = calibrate_views(det.views, det.size, "fisheye")
    assert cal.camera.model == "fisheye"
    assert cal.rms_px < 0.3                       # corner detection noise on the rendered views
    K = cal.camera.K
    assert K[0, 0] == pytest.approx(300.0, rel=0.005) and K[1, 1] == pytest.approx(301.0, rel=0.005)
    assert np.hypot(K[0, 2] - 403.5, K[1, 2] - 297.2) < 1.5
    # 90 % of the covered image within 1 px: the rendered corners at the strongly distorted edge
    # are found 0.3-0.5 px off (the corner refinement assumes straight edges), which the fit inherits
    assert np.percentile(_mapping_error_px(FISHEYE, cal.camera, _covered(det.views)), 90) < 1.0


def test_held_out_views_tell_the_standard_model_cannot_follow_a_fisheye(fisheye_views):
    det = detect_views(fisheye_views, BOARD)
    fish = holdout_check(det.views, det.size, "fisheye", 2)
    std = holdout_check(det.views, det.size, "standard", 2)
    assert fish.rms_px < 0.3
    assert std.rms_px > 2 * fish.rms_px


def test_standard_lens_is_recovered_and_held_out_views_agree(standard_views):
    det = detect_views(standard_views, BOARD)
    assert len(det.views) == 10 and det.rejected == []
    cal = calibrate_views(det.views, det.size, "standard")
    assert cal.rms_px < 0.15
    K = cal.camera.K
    assert K[0, 0] == pytest.approx(1150.0, rel=0.003) and K[1, 1] == pytest.approx(1150.0, rel=0.003)
    assert np.percentile(_mapping_error_px(STANDARD, cal.camera, _covered(det.views)), 90) < 0.3
    ho = holdout_check(det.views, det.size, "standard", 1)
    assert ho.rms_px < 1.5 * cal.rms_px           # a right model fits views it has not seen as well
    assert len(cal.per_view_px) == 10 and np.all(cal.per_view_px < 0.25)


def test_views_with_too_few_corners_are_rejected_by_name(fisheye_views, tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((600, 800), 128, np.uint8))
    det = detect_views([*fisheye_views, str(blank)], BOARD, min_corners=12)
    counts = {p.rsplit("/", 1)[-1]: len(BOARD.detect(cv2.imread(p), "").pixels) for p in fisheye_views}
    few = sorted(n for n, c in counts.items() if c < 12)
    assert few                                    # the views near the image corners lose the board
    assert sorted(r.split(":")[0] for r in det.rejected) == sorted([*few, "blank.png"])
    assert "blank.png: 0 of the board's 35 corners found, need >= 12" in det.rejected
    assert sorted(v.name for v in det.views) == sorted(n for n, c in counts.items() if c >= 12)


def test_fisheye_cli_writes_a_camera_vision_undistorts_with(fisheye_views, tmp_path, capsys):
    """The written YAML says fisheye; read back (config.camera), vision's undistortion with it
    straightens the board's rows, which the lens bends by pixels."""
    out = tmp_path / "camera.yaml"
    assert main(["calibrate", "camera", *fisheye_views, "--board", BOARD.spec(), "--model", "fisheye",
                 "--holdout", "0", "--json", "--out", str(out)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["holdout_px"] is None and res["views_used"] + len(res["views_rejected"]) == len(fisheye_views)
    cam = load_camera(out)
    assert cam.model == "fisheye" and cam.dist.size == 4
    assert cam.rms_px == pytest.approx(res["rms_px"], abs=1e-4)
    views = detect_views(fisheye_views, BOARD).views
    before = line_straightness([ln for v in views for ln in board_lines(v)])
    after = line_straightness([ln for v in views for ln in board_lines(v, undistorted_pixels(cam, v.pixels))])
    assert after < 0.3 and after < before / 4


def test_fisheye_undistorted_image_shows_straight_board_lines(fisheye_views):
    """vision's whole-image undistortion (CameraModel.undistort_image, the fisheye remap) with the
    calibrated fisheye lens: the board found again in the undistorted image has straight rows."""
    det = detect_views(fisheye_views, BOARD)
    cam = calibrate_views(det.views, det.size, "fisheye").camera
    raw, flat = [], []
    for p in fisheye_views:
        image = cv2.imread(p)
        v, u = BOARD.detect(image), BOARD.detect(cam.undistort_image(image))
        if len(v.pixels) >= 20 and len(u.pixels) >= 20:
            raw.append(line_straightness(board_lines(v)))
            flat.append(line_straightness(board_lines(u)))
    assert len(flat) >= 5
    assert np.median(flat) < 0.25 and np.median(flat) < np.median(raw) / 3
