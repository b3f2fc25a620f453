"""``cuerobot calibrate table`` on a rendered frame of the table seen from a known pose (not the
shipped one): the pose is recovered from the rail markers and from a points file, the error on
the table is in millimetres, the overlay lays the outline on the table's edges, and the cloth's
colour is written beside the pose."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from calibration.table import table_points
from config.camera import load_camera, load_camera_settings
from config.table import load_table_settings
from controller.cli import main
from planner.state import TableState
from vision.balls import CLOTH_SRGB
from vision.camera import look_at_pose, pixels_to_table, table_to_pixels
from vision.render import SyntheticCamera

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    """(true posed camera, table settings, landmarks, frame path, camera YAML without the true pose)."""
    tc = load_table_settings()
    t = tc.table
    cs = load_camera_settings(t)
    eye = [t.width / 2 + 0.25, t.length / 2 - 0.2, 2.7]         # off-centre and turned: not the shipped pose
    cam = cs.camera.with_pose(*look_at_pose(eye, [t.width / 2, t.length / 2, 0.0], right=(0.05, 1.0, 0.0)))
    frame = SyntheticCamera(cam, t, tc.physics.R, cs.landmarks).render(
        TableState(np.zeros(0, int), np.zeros((0, 2))), np.random.default_rng(2))
    d = tmp_path_factory.mktemp("table")
    cv2.imwrite(str(d / "frame.png"), frame.image)
    shutil.copy(REPO / "config" / "camera.yaml", d / "camera.yaml")          # the shipped (wrong) pose
    return cam, tc, cs.landmarks, d / "frame.png", d / "camera.yaml"


def _angle_deg(r1, r2) -> float:
    R = cv2.Rodrigues(np.asarray(r1))[0] @ cv2.Rodrigues(np.asarray(r2))[0].T
    return float(np.degrees(np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))))


def _table_error_mm(true, posed, table, z: float) -> float:
    """Largest error [mm] over the cloth (a 5 cm grid at height z) of pixels mapped back to the table."""
    g = np.stack(np.meshgrid(np.arange(0, table.width, 0.05), np.arange(0, table.length, 0.05)), -1).reshape(-1, 2)
    px = table_to_pixels(true, np.concatenate([g, np.full((len(g), 1), z)], axis=1))
    return float(np.max(np.hypot(*(pixels_to_table(posed, px, z) - g).T)) * 1000)


def test_rail_markers_register_the_table(scene, tmp_path, capsys):
    cam, tc, lm, frame, cam_yaml = scene
    out = tmp_path / "camera.yaml"
    shutil.copy(cam_yaml, out)
    before = yaml.safe_load(out.read_text())
    overlay = tmp_path / "overlay.png"
    assert main(["calibrate", "table", str(frame), "--camera", str(cam_yaml), "--markers", "--json",
                 "--out", str(out), "--overlay", str(overlay)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["method"] == "markers 0, 1, 2, 3, 4, 5, 6, 7" and res["landmarks"] == 32
    assert res["rms_px"] < 1.0 and res["rms_mm"] < 2.5 and res["max_mm"] < 5.0
    posed = load_camera(out)
    # the marker corners come out ~0.5 px inside the rendered squares (light bleeds into dark in
    # sRGB), which a few mm along the view (2.7 m) and a twentieth of a degree absorb; on the table:
    assert np.linalg.norm(posed.centre - cam.centre) < 0.006
    assert _angle_deg(posed.rvec, cam.rvec) < 0.15
    assert _table_error_mm(cam, posed, tc.table, 0.0) < 1.5
    assert _table_error_mm(cam, posed, tc.table, tc.physics.R) < 1.5
    after = yaml.safe_load(out.read_text())
    assert after["cloth_srgb"] == res["cloth_srgb"] and before["cloth_srgb"] is None
    rgb, ref = np.array(res["cloth_srgb"], float), np.array(CLOTH_SRGB, float)       # the rendered cloth, lit
    assert np.degrees(np.arccos(rgb @ ref / np.linalg.norm(rgb) / np.linalg.norm(ref))) < 1.0
    assert after["camera"] == before["camera"] and after["registration"] == before["registration"]
    assert after["source"] == before["source"] and after["pose"]["registered_from"] == res["method"]
    assert "# OpenCV ArUco dictionary of the rail markers" in out.read_text()

    # the overlay's yellow outline lies on the true outer edge of the rails (within 2 px)
    img = cv2.imread(str(overlay))
    t, rail = tc.table, lm.rail
    d = t.cushion_width + rail.width
    edge = np.array([[x, -d, rail.height] for x in np.linspace(0.1, t.width - 0.1, 12)]
                    + [[-d, y, rail.height] for y in np.linspace(0.1, t.length - 0.1, 12)])
    hits = 0
    for u, v in np.round(table_to_pixels(cam, edge)).astype(int):
        patch = img[v - 2:v + 3, u - 2:u + 3].reshape(-1, 3).astype(int)
        hits += bool(np.any((patch[:, 2] > 200) & (patch[:, 1] > 170) & (patch[:, 0] < 80)))
    assert hits == len(edge)


def test_named_points_are_where_the_table_has_them(scene):
    cam, tc, lm, frame, _ = scene
    t, rail = tc.table, lm.rail
    pts = table_points(t, rail)
    assert len(pts) == 24
    off = t.cushion_width + rail.width / 2
    assert np.allclose(pts["head.2"], [t.width / 2, -off, rail.height])
    assert np.allclose(pts["right.7"], [t.width + off, 7 * t.length / 8, rail.height])
    assert np.allclose(pts["lb"][:2], t.pocket_center[t.pocket_index("lb")]) and pts["lb"][2] == 0.0
    # in the rendered frame the diamonds are bright dots and the pockets dark holes
    grey = cv2.cvtColor(cv2.imread(str(frame)), cv2.COLOR_BGR2GRAY)
    for name, p in pts.items():
        u, v = np.round(table_to_pixels(cam, p[None])[0]).astype(int)
        assert (grey[v, u] > 170) if "." in name else (grey[v, u] < 40), name


def test_points_file_registers_the_table(scene, tmp_path, capsys):
    cam, tc, lm, frame, cam_yaml = scene
    pts = table_points(tc.table, lm.rail)
    clicks = table_to_pixels(cam, np.array(list(pts.values()))) + np.random.default_rng(4).normal(0, 0.3, (24, 2))
    points = tmp_path / "points.yaml"
    points.write_text(yaml.safe_dump({"points": {n: [float(u), float(v)] for n, (u, v) in zip(pts, clicks)}}))
    out = tmp_path / "camera.yaml"
    assert main(["calibrate", "table", str(frame), "--camera", str(cam_yaml), "--points", str(points), "--json",
                 "--out", str(out)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["method"] == "points" and res["landmarks"] == 24
    assert 0.1 < res["rms_px"] < 0.6 and res["rms_mm"] < 1.5
    new = yaml.safe_load(out.read_text())
    assert set(new) == {"pose", "cloth_srgb"}          # a new file: only the sections measured
    reg = cam.with_pose(new["pose"]["rvec"], new["pose"]["tvec"])
    assert np.linalg.norm(reg.centre - cam.centre) < 0.01
    assert _table_error_mm(cam, reg, tc.table, tc.physics.R) < 2.0


@pytest.mark.parametrize("points, says", [
    ({"lb": [1, 2], "rb": [3, 4], "lt": [5, 6], "pocket9": [7, 8]}, "points.pocket9 is not a table landmark; "
                                                                     "expected one of lb, lc, lt, rb, rc, rt, head.1"),
    ({"lb": [1, 2], "rb": [3, 4], "lt": [5, 6]}, "points must name at least 4 landmarks, got 3"),
    ({"lb": [1, 2], "rb": [3, 4], "lt": [5, 6], "rt": "7 8"}, "points.rt must be [u, v]: the landmark's pixel"),
])
def test_a_bad_points_file_is_a_clear_error_and_changes_nothing(scene, tmp_path, capsys, points, says):
    _, _, _, frame, cam_yaml = scene
    f = tmp_path / "points.yaml"
    f.write_text(yaml.safe_dump({"points": points}))
    out = tmp_path / "camera.yaml"
    shutil.copy(cam_yaml, out)
    text = out.read_text()
    assert main(["calibrate", "table", str(frame), "--camera", str(cam_yaml), "--points", str(f),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cuerobot calibrate table: {f}: ") and says in err and len(err.splitlines()) == 1
    assert out.read_text() == text


def test_a_frame_without_markers_or_of_another_size_is_refused(scene, tmp_path, capsys):
    cam, _, _, _, cam_yaml = scene
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((cam.size[1], cam.size[0], 3), 90, np.uint8))
    assert main(["calibrate", "table", str(blank), "--camera", str(cam_yaml)]) == 2
    assert "table registration needs >= 3 of the rail markers [0, 1, 2, 3, 4, 5, 6, 7], found []" \
        in capsys.readouterr().err
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.full((100, 200, 3), 90, np.uint8))
    assert main(["calibrate", "table", str(small), "--camera", str(cam_yaml)]) == 2
    assert f"{small} is 200x100 but the camera of {cam_yaml} is 1280x720" in capsys.readouterr().err


def test_a_fisheye_camera_registers(scene, tmp_path, capsys):
    """A fisheye lens in camera.yaml (model: fisheye): the markers seen through it register the
    table as well (the pose is solved on rays undistorted by the fisheye model)."""
    from config.camera import camera_to_dict
    from vision.camera import CameraModel
    _, tc, lm, _, cam_yaml = scene
    t = tc.table
    lens = CameraModel((1280, 720), [[520.0, 0, 638.2], [0, 521.0, 361.7], [0, 0, 1]], [0.04, -0.015, 0.006, -0.001],
                       model="fisheye")
    cam = lens.with_pose(*look_at_pose([t.width / 2 - 0.1, t.length / 2 + 0.15, 1.2], [t.width / 2, t.length / 2, 0]))
    frame = SyntheticCamera(cam, t, tc.physics.R, lm).render(TableState(np.zeros(0, int), np.zeros((0, 2))),
                                                            np.random.default_rng(5))
    cv2.imwrite(str(tmp_path / "fish.png"), frame.image)
    conf = yaml.safe_load(Path(cam_yaml).read_text())
    conf["camera"] = camera_to_dict(lens)["camera"]
    del conf["pose"]
    (tmp_path / "fish.yaml").write_text(yaml.safe_dump(conf))
    assert main(["calibrate", "table", str(tmp_path / "fish.png"), "--camera", str(tmp_path / "fish.yaml"),
                 "--out", str(tmp_path / "fish.yaml"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["landmarks"] == 32
    posed = load_camera(tmp_path / "fish.yaml")
    assert posed.model == "fisheye"
    assert _table_error_mm(cam, posed, t, tc.physics.R) < 2.0
