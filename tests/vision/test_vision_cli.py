"""``cuerobot vision render|detect`` end to end (in-process, real files)."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from controller.cli import main


def test_render_then_detect_json(tmp_path, capsys):
    img, truth = tmp_path / "frame.png", tmp_path / "truth.json"
    assert main(["vision", "render", str(img), "--seed", "3", "--truth", str(truth)]) == 0
    capsys.readouterr()
    assert main(["vision", "detect", str(img), "--json", "--overlay", str(tmp_path / "ov.png")]) == 0
    out = json.loads(capsys.readouterr().out)
    balls = {b["label"]: b for b in out["balls"]}
    expected = json.loads(truth.read_text())["balls"]
    assert len(out["balls"]) == len(expected) and out["ms"] > 0 and out["first_call_ms"] > 0
    for t in expected:
        b = balls[t["label"]]
        assert abs(b["x_m"] - t["x_m"]) < 0.002 and abs(b["y_m"] - t["y_m"]) < 0.002
        assert abs(b["x_px"] - t["x_px"]) < 1.0 and set(b) >= {"r_px", "confidence"}
    ov, im = cv2.imread(str(tmp_path / "ov.png")), cv2.imread(str(img))
    assert ov.shape[0] == im.shape[0] and ov.shape[1] > im.shape[1]
    assert np.array_equal(ov[:5, :5], im[:5, :5])             # the frame itself, drawn on only near balls


def test_detect_pixels_only(tmp_path, capsys):
    img = tmp_path / "frame.png"
    main(["vision", "render", str(img), "--seed", "4"])
    capsys.readouterr()
    assert main(["vision", "detect", str(img), "--radius-px", "13", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["balls"] and all("x_m" not in b for b in out["balls"])
    assert all(isinstance(b["label"], str) for b in out["balls"])


def test_detect_with_a_malformed_camera_file(tmp_path, capsys):
    img, cam = tmp_path / "frame.png", tmp_path / "camera.yaml"
    cv2.imwrite(str(img), np.zeros((720, 1280, 3), np.uint8))
    cam.write_text("camera: {image_size: [1280, 720], fx: 1000, fy: 1000, cx: 640, cy: 360, distortion: oops}\n")
    assert main(["vision", "detect", str(img), "--camera", str(cam)]) == 2
    err = capsys.readouterr().err
    assert str(cam) in err and "camera.distortion" in err


def test_bench_vision_times_real_frames_in_the_same_run(tmp_path, capsys):
    frames = [tmp_path / f"{k}.png" for k in range(2)]
    for k, f in enumerate(frames):
        assert main(["vision", "render", str(f), "--seed", str(k)]) == 0
    capsys.readouterr()
    assert main(["bench", "vision", "--layouts", "1", "--reps", "1", "--json",
                 "--images", *map(str, frames), "--radius-px", "12.8"]) == 0
    out = json.loads(capsys.readouterr().out)
    real = out["real_frames"]
    assert real["frames"] == 2 and real["radius_px"] == 12.8
    assert real["ms_per_frame"] > 0 and real["speedup"] == real["baseline_ms_per_frame"] / real["ms_per_frame"]
    # one without the other is refused before any work
    assert main(["bench", "vision", "--images", str(frames[0])]) == 2
    assert "--images and --radius-px go together" in capsys.readouterr().err


def test_bench_vision_domain_scores_each_condition_against_the_targets(tmp_path, capsys):
    """``bench vision --domain``: one row per condition named, scored on the frames
    ``condition_frames`` renders (ball counts from their truth); on the default render the pipeline
    meets the targets, which the HoughCircles baseline does not; ``--overlay`` writes the contact
    sheet, a row of one tile per condition (vision.domain_sheet)."""
    from vision.domain_sheet import TILE_WIDTH, tile_view
    from vision.overlay import CAPTION_HEIGHT
    from vision.render import synthetic_camera_from_config
    from vision.render_domain import CONDITIONS, condition_frames
    sheet = tmp_path / "sheet.png"
    assert main(["bench", "vision", "--domain", "default", "jpeg", "--layouts", "2", "--seed", "1", "--json",
                 "--overlay", str(sheet)]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert f"wrote {sheet}" in captured.err
    view = tile_view(synthetic_camera_from_config()[0])
    assert cv2.imread(str(sheet)).shape == (view.size[1] + CAPTION_HEIGHT, 2 * TILE_WIDTH, 3)
    assert list(out["conditions"]) == ["default", "jpeg"] and out["seed"] == 1
    sc, _ = synthetic_camera_from_config()
    balls = sum(len(f.truth.ids) for f in condition_frames(sc, "default", 2, 1))
    d = out["conditions"]["default"]
    assert d["frames"] == 2 and d["pipeline"]["balls"] == d["baseline"]["balls"] == balls
    assert d["pipeline"]["recall"] == 1.0 and d["pipeline"]["rms_mm"] <= 0.5 and d["short_of"] == []
    assert d["baseline"]["recall"] < 1.0 or d["baseline"]["rms_mm"] > 0.5
    assert d["speedup"] == d["baseline_ms_per_frame"] / d["ms_per_frame"]
    # the pixel-only mode scored on the same frames, at the frames' ball size
    p = d["pixel_only"]
    assert p["balls"] == balls and p["recall"] == p["found"] / balls >= 0.9 and p["false_balls"] == 0
    assert p["centre_error_px"]["median"] < 0.5
    # the help names every condition; an unknown one is refused with the list
    with pytest.raises(SystemExit) as e:
        main(["bench", "vision", "--domain", "carom"])
    assert e.value.code == 2 and "unknown condition 'carom'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "vision", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(c in help_text for c in CONDITIONS)


def _angle_deg(rgb, ref) -> float:
    a, b = np.asarray(rgb, float), np.asarray(ref, float)
    return float(np.degrees(np.arccos(min(1.0, a @ b / np.linalg.norm(a) / np.linalg.norm(b)))))


def test_cloth_measures_the_colour_that_detect_brings_a_drifted_frame_back_to(tmp_path, capsys):
    """``vision cloth`` reads the rendered cloth (CLOTH_SRGB, lit) in both modes; ``vision detect --cloth-srgb``
    with it names every ball of the frame under a warm white-balance drift as rendered (the drift alone names
    some wrong)."""
    from vision.balls import CLOTH_SRGB
    from vision.perturb import parse_perturbation
    img, truth, warm = tmp_path / "frame.png", tmp_path / "truth.json", tmp_path / "warm.png"
    assert main(["vision", "render", str(img), "--seed", "3", "--truth", str(truth)]) == 0
    cv2.imwrite(str(warm), parse_perturbation("white=0.8,1.2").apply(cv2.imread(str(img))))
    capsys.readouterr()
    measured = []
    for mode in ([], ["--radius-px", "13"]):
        assert main(["vision", "cloth", str(img), *mode, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["frames"] == {str(img): out["cloth_srgb"]} and _angle_deg(out["cloth_srgb"], CLOTH_SRGB) < 1.0
        measured.append(out["cloth_srgb"])
    expected = {b["label"] for b in json.loads(truth.read_text())["balls"]}
    for extra, right in (([], False), (["--cloth-srgb", ",".join(map(str, measured[0]))], True)):
        assert main(["vision", "detect", str(warm), "--json", *extra]) == 0
        labels = {b["label"] for b in json.loads(capsys.readouterr().out)["balls"]}
        assert (labels == expected) is right


def test_cloth_is_not_measured_under_a_projectors_light(tmp_path, capsys):
    """A frame with a projector's lit area over most of the cloth (the cloth model's lit wedge) gives no cloth colour:
    `vision cloth` on it alone is a one-line error (exit 2) that says why; beside a frame without one, the colour is
    that frame's, and the lit one is listed as not measured."""
    from vision.layouts import random_layout
    from vision.render import synthetic_camera_from_config
    from vision.render_domain import Domain, DomainRenderer
    sc, _ = synthetic_camera_from_config()
    state = random_layout(sc.table, sc.R, np.random.default_rng(3))
    lit, plain = tmp_path / "lit.png", tmp_path / "plain.png"
    for path, domain in ((lit, Domain(projector=(0.6, 0.5, 0.5, 0.3, 0.3))), (plain, Domain())):
        cv2.imwrite(str(path), DomainRenderer(sc, domain, seed=0).render(state, np.random.default_rng(4)).image)
    assert main(["vision", "cloth", str(lit)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "lit wedge" in err[0] and "projector off" in err[0]
    assert main(["vision", "cloth", str(lit), str(plain), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["frames"][str(lit)] is None and out["cloth_srgb"] == out["frames"][str(plain)]
