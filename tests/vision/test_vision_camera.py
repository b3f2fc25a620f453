"""The camera model: projection and its inverse, parallax, sphere outlines, pose, YAML."""
from __future__ import annotations

import numpy as np
import pytest

from config.camera import load_camera, save_camera
from config.reader import ConfigError
from vision.camera import (
    CameraModel,
    look_at_pose,
    normalised_to_pixels,
    pixel_rays,
    pixels_to_normalised,
    pixels_to_table,
    silhouette_circles,
    solve_pose,
    sphere_silhouettes,
    table_to_pixels,
)

R = 0.028575


def _cameras():
    rv, tv = look_at_pose([0.55, 1.1, 2.5], [0.56, 1.12, 0.0])
    pin = CameraModel((1280, 720), [[1150, 0, 641.3], [0, 1150, 358.2], [0, 0, 1]],
                      [-0.28, 0.12, 0.0005, -0.0003, -0.02], rvec=rv, tvec=tv)
    fish = CameraModel((1280, 720), [[700, 0, 640], [0, 700, 360], [0, 0, 1]], [0.05, -0.02, 0.004, -0.001],
                       model="fisheye", rvec=rv, tvec=tv)
    return [pin, fish]


@pytest.mark.parametrize("cam", _cameras(), ids=["pinhole", "fisheye"])
def test_undistortion_inverts_distortion_to_the_corners(cam):
    w, h = cam.size
    u, v = np.meshgrid(np.linspace(0, w - 1, 17), np.linspace(0, h - 1, 11))
    px = np.stack([u.ravel(), v.ravel()], axis=1)
    back = normalised_to_pixels(cam, pixels_to_normalised(cam, px))
    assert np.max(np.abs(back - px)) < 1e-6


@pytest.mark.parametrize("cam", _cameras(), ids=["pinhole", "fisheye"])
def test_pixel_to_table_at_any_height_inverts_projection(cam):
    rng = np.random.default_rng(1)
    for z in (0.0, R, 0.042):
        pts = np.concatenate([rng.uniform([0, 0], [1.1, 2.2], (50, 2)), np.full((50, 1), z)], axis=1)
        back = pixels_to_table(cam, table_to_pixels(cam, pts), z)
        assert np.max(np.abs(back - pts[:, :2])) < 1e-9


def test_cloth_plane_mapping_misplaces_a_ball_by_the_parallax():
    """A ball centre (height R) mapped onto the cloth is off by d R / (H - R), d from the camera's foot."""
    H = 2.5
    rv, tv = look_at_pose([0.0, 0.0, H], [0.0, 0.0, 0.0])
    cam = CameraModel((1280, 720), [[1150, 0, 640], [0, 1150, 360], [0, 0, 1]], np.zeros(5), rvec=rv, tvec=tv)
    d = 1.0
    px = table_to_pixels(cam, [[d, 0.0, R]])
    on_cloth = pixels_to_table(cam, px, 0.0)[0]
    assert on_cloth[0] - d == pytest.approx(d * R / (H - R), rel=1e-9)
    assert abs(on_cloth[0] - d) > 0.0115                        # ~12 mm, as the issue says
    assert pixels_to_table(cam, px, R)[0] == pytest.approx([d, 0.0], abs=1e-12)


def test_sphere_outline_rays_are_tangent_and_the_outline_is_longer_away_from_the_centre():
    cam = _cameras()[0]
    P = np.array([[1.05, 2.15, R], [0.56, 1.12, R]])                 # a corner and the middle
    Q = silhouette_circles(cam, P, R, 64)
    rays = pixel_rays(cam, table_to_pixels(cam, Q.reshape(-1, 3))).reshape(2, 64, 3)
    v = P[:, None, :] - cam.centre
    dist = np.linalg.norm(v - np.sum(v * rays, -1, keepdims=True) * rays, axis=-1)
    assert np.max(np.abs(dist - R)) < 1e-12
    # in the ideal (undistorted) image the outline is an ellipse elongated away from the image centre
    out = pixels_to_normalised(cam, sphere_silhouettes(cam, P, R, 360).reshape(-1, 2)).reshape(2, 360, 2)
    centre = np.zeros(2)
    for o, expect_egg in zip(out, (True, False)):
        c = o.mean(axis=0)
        radial = (c - centre) / max(np.linalg.norm(c - centre), 1e-12)
        ext_r = np.ptp(o @ radial)
        ext_t = np.ptp(o @ np.array([-radial[1], radial[0]]))
        if expect_egg:
            assert ext_r > 1.01 * ext_t       # elongated away from the image centre
        else:
            assert abs(ext_r / ext_t - 1) < 0.01


def test_solve_pose_recovers_the_pose_from_rail_height_landmarks():
    cam = _cameras()[0]
    rng = np.random.default_rng(3)
    world = np.concatenate([rng.uniform([-0.2, -0.2], [1.3, 2.4], (12, 2)), np.full((12, 1), 0.042)], axis=1)
    px = table_to_pixels(cam, world)
    bare = CameraModel(cam.size, cam.K, cam.dist)
    rvec, tvec, rms = solve_pose(bare, world, px)
    assert rms < 1e-6
    assert np.allclose(rvec, cam.rvec, atol=1e-8) and np.allclose(tvec, cam.tvec, atol=1e-8)


def test_undistortion_maps_are_computed_once():
    cam = _cameras()[0]
    assert cam.undistort_maps is cam.undistort_maps


def test_yaml_round_trip(tmp_path):
    cam = load_camera()
    path = tmp_path / "camera.yaml"
    save_camera(cam, path)
    again = load_camera(path)
    assert np.allclose(again.K, cam.K) and np.allclose(again.dist, cam.dist)
    assert np.allclose(again.rvec, cam.rvec) and np.allclose(again.tvec, cam.tvec)


@pytest.mark.parametrize("text, key", [
    ("camera: {image_size: [1280, 720], fx: 1000, fy: 1000, cx: 640, cy: 360, distortion: [0.1, 0.2]}",
     "camera.distortion"),
    ("camera: {image_size: [1280, 720], fx: -5, fy: 1000, cx: 640, cy: 360, distortion: [0, 0, 0, 0, 0]}",
     "camera.fx"),
    ("camera: {image_size: [1280, 720], fx: 1000, fy: 1000, cx: 640, cy: 360, distortion: [0, 0, 0, 0, 0]}\n"
     "pose: {rvec: [0, 0], tvec: [0, 0, 2]}", "pose.rvec"),
])
def test_malformed_camera_yaml_names_file_and_key(tmp_path, text, key):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_camera(path)
    assert str(path) in str(err.value) and key in str(err.value)
