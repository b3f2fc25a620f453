"""Table registration from the rail markers (detected) and from the diamonds (clicked)."""
from __future__ import annotations

import numpy as np

from planner.state import TableState
from vision.camera import CameraModel, table_to_pixels
from vision.registration import detect_markers, register_from_markers, register_from_points
from vision.scene import diamond_points


def _angle_deg(r1, r2) -> float:
    import cv2
    R = cv2.Rodrigues(r1)[0] @ cv2.Rodrigues(r2)[0].T
    return float(np.degrees(np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))))


def test_markers_register_the_camera(synthetic_camera):
    sc, lm = synthetic_camera
    frame = sc.render(TableState(np.zeros(0), np.zeros((0, 2))), np.random.default_rng(3))
    assert sorted(detect_markers(frame.image, lm.dictionary)) == sorted(lm.markers)
    bare = CameraModel(sc.cam.size, sc.cam.K, sc.cam.dist)
    reg = register_from_markers(frame.image, bare, lm)
    posed = bare.with_pose(reg.rvec, reg.tvec)
    assert reg.rms_px < 1.0                      # ArUco corners of 30 px markers: a few tenths of a pixel
    assert np.linalg.norm(posed.centre - sc.cam.centre) < 0.003
    assert _angle_deg(reg.rvec, sc.cam.rvec) < 0.05
    t = sc.table
    corners = np.array([[0, 0, 0], [t.width, 0, 0], [0, t.length, 0], [t.width, t.length, 0.0]])
    assert np.max(np.abs(table_to_pixels(posed, corners) - table_to_pixels(sc.cam, corners))) < 0.5


def test_clicked_diamonds_register_the_camera(synthetic_camera):
    sc, lm = synthetic_camera
    world = diamond_points(sc.table, lm.rail)
    clicks = table_to_pixels(sc.cam, world) + np.random.default_rng(4).normal(0, 0.3, (len(world), 2))
    reg = register_from_points(CameraModel(sc.cam.size, sc.cam.K, sc.cam.dist), world, clicks)
    posed = sc.cam.with_pose(reg.rvec, reg.tvec)
    assert np.linalg.norm(posed.centre - sc.cam.centre) < 0.01
    assert 0.1 < reg.rms_px < 0.6


def test_too_few_markers_is_a_clear_error(synthetic_camera):
    import pytest
    sc, lm = synthetic_camera
    blank = np.full((sc.cam.size[1], sc.cam.size[0], 3), 90, np.uint8)
    with pytest.raises(ValueError, match="rail markers"):
        register_from_markers(blank, sc.cam, lm)
