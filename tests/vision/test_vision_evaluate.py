"""``cuerobot vision evaluate`` and the truth formats it reads, on a rendered frame with exact truth."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from config.reader import default_path
from controller.cli import main
from vision.balls import SNOOKER_NAMES
from vision.evaluate import Evaluation, match
from vision.layouts import random_layout
from vision.render_domain import GENTLE, Domain, DomainRenderer, sample_domain
from vision.truth_formats import FrameTruth, TruthFormatError, load_truth


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A rendered frame and its truth file, written by ``cuerobot vision render``."""
    d = tmp_path_factory.mktemp("eval")
    img, truth = d / "frame.png", d / "truth.json"
    assert main(["vision", "render", str(img), "--seed", "3", "--truth", str(truth)]) == 0
    return img, truth, json.loads(truth.read_text())["balls"]


def test_match_is_one_to_one_within_the_gate():
    truth = np.array([[0.0, 0.0], [10.0, 0.0], [50.0, 50.0]])
    found = np.array([[1.0, 0.0], [9.0, 0.0], [0.5, 0.0], [80.0, 80.0]])
    r, c = match(truth, found, gate=3.0)
    assert sorted(zip(r.tolist(), c.tolist())) == [(0, 2), (1, 1)]


def test_match_keeps_near_pairs_when_a_ball_is_missed_and_a_false_one_found():
    # the least summed distance over all pairs would be 0->-3, 10->0.5, 100->10.5 (102 < 104): no pair in the gate
    truth = np.array([[0.0, 0.0], [10.0, 0.0], [100.0, 0.0]])
    found = np.array([[0.5, 0.0], [10.5, 0.0], [-3.0, 0.0]])
    r, c = match(truth, found, gate=2.0)
    assert sorted(zip(r.tolist(), c.tolist())) == [(0, 0), (1, 1)]


def test_evaluation_counts_and_errors():
    ev = Evaluation()
    ev.add(FrameTruth(np.array([[0.0, 0.0], [20.0, 0.0]]), ["red", "white"]),
           np.array([[0.0, 3.0], [20.0, 0.0], [100.0, 100.0]]), ["Red", "yellow", "red"], gate_px=5.0)
    s = ev.summary()
    assert (s["balls"], s["found"], s["false_balls"]) == (2, 2, 1)
    assert s["centre_error_px"]["max"] == pytest.approx(3.0) and s["centre_error_px"]["median"] == pytest.approx(1.5)
    assert s["label_accuracy"] == pytest.approx(0.5)


def test_the_three_formats_read_the_same_centres(rendered, tmp_path):
    img, truth_file, balls = rendered
    px = np.array([(b["x_px"], b["y_px"]) for b in balls])
    ids = [b["label"] for b in balls]
    csv_file = tmp_path / "t.csv"
    csv_file.write_text("image,x_px,y_px,label\n" + "".join(
        f"{img.name},{float(x)!r},{float(y)!r},{i}\n" for (x, y), i in zip(px, ids)))
    coco = {"images": [{"id": 7, "file_name": f"some/dir/{img.name}", "width": 1280, "height": 720}],
            "categories": [{"id": k, "name": i} for k, i in enumerate(ids)],
            "annotations": []}
    for k, (x, y) in enumerate(px):     # COCO is continuous: the pixel centre (x, y) is at x + 0.5
        ann = {"id": k, "image_id": 7, "category_id": k}
        if k % 2:
            ann["keypoints"] = [x + 0.5, y + 0.5, 2]
        else:
            ann["bbox"] = [x + 0.5 - 6.0, y + 0.5 - 6.0, 12.0, 12.0]
        coco["annotations"].append(ann)
    coco_file = tmp_path / "t.json"
    coco_file.write_text(json.dumps(coco))
    for f in (truth_file, csv_file, coco_file):
        t = load_truth(f)[img.name]
        assert np.allclose(t.px, px, atol=1e-9) and t.labels == ids
    assert load_truth(truth_file)[img.name].xy.shape == (len(balls), 2)


def test_unreadable_truth_says_why(tmp_path):
    bad = tmp_path / "t.csv"
    bad.write_text("image,x,y\na.png,1,2\n")
    with pytest.raises(TruthFormatError, match="image,x_px,y_px"):
        load_truth(bad)
    bad.write_text("image,x_px,y_px\na.png,one,2\n")
    with pytest.raises(TruthFormatError, match=r"t.csv:2: x_px and y_px must be numbers"):
        load_truth(bad)


def test_evaluate_command_on_a_rendered_frame(rendered, capsys):
    """Registered mode against the exact truth: every ball, none false, mm errors within the
    pipeline's stated accuracy, every id right."""
    img, truth, balls = rendered
    capsys.readouterr()
    assert main(["vision", "evaluate", str(img), "--truth", str(truth), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["balls"] == len(balls) and s["found"] == len(balls) and s["false_balls"] == 0
    assert s["centre_error_mm"]["rms"] <= 0.5 and s["centre_error_px"]["max"] < 1.0
    assert s["label_accuracy"] == 1.0 and s["ms_per_frame"] > 0


def test_evaluate_pixel_only_and_text_report(rendered, capsys):
    img, truth, balls = rendered
    capsys.readouterr()
    assert main(["vision", "evaluate", str(img), "--truth", str(truth), "--radius-px", "13"]) == 0
    out = capsys.readouterr().out
    assert f"1 frames, {len(balls)} balls" in out and "centre error: median" in out


def test_detect_pixels_only_json_writes_the_overlay(rendered, tmp_path, capsys):
    """--overlay is honoured together with --json in pixel-only mode too."""
    img, _, _ = rendered
    ov = tmp_path / "ov.png"
    capsys.readouterr()
    assert main(["vision", "detect", str(img), "--radius-px", "13", "--json", "--overlay", str(ov)]) == 0
    n = len(json.loads(capsys.readouterr().out)["balls"])
    drawn, im = cv2.imread(str(ov)), cv2.imread(str(img))
    assert n > 0 and drawn.shape[0] == im.shape[0] and drawn.shape[1] > im.shape[1]
    assert not np.array_equal(drawn[:, :im.shape[1]], im)        # circles were drawn on the frame


def test_evaluate_names_a_snooker_set_by_its_colours(synthetic_camera, tmp_path, capsys):
    """Pixel-only mode with --ball-set snooker: a rendered snooker set (plain balls, random cloth)
    scored against its rendered colour names; the registered mode refuses the option."""
    sc, _ = synthetic_camera
    rng = np.random.default_rng(31)
    dom = Domain(**{**sample_domain(rng, "snooker").__dict__, **GENTLE})
    f = DomainRenderer(sc, dom, seed=1).render(random_layout(sc.table, sc.R, rng), rng)
    img, truth = tmp_path / "snooker.png", tmp_path / "snooker.csv"
    cv2.imwrite(str(img), f.image)
    truth.write_text("image,x_px,y_px,label\n" + "".join(
        f"snooker.png,{x},{y},{SNOOKER_NAMES[int(i)]}\n" for i, (x, y) in zip(f.truth.ids, f.truth.centre_px)))
    capsys.readouterr()
    assert main(["vision", "evaluate", str(img), "--truth", str(truth), "--radius-px", "13",
                 "--ball-set", "snooker", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["found"] >= s["balls"] - 1 and s["false_balls"] == 0
    assert s["labelled"] == s["found"] and s["label_accuracy"] >= 0.95
    assert main(["vision", "evaluate", str(img), "--truth", str(truth), "--camera", str(default_path("camera.yaml")),
                 "--ball-set", "snooker"]) == 2
    assert "--ball-set snooker is for the pixel-only mode" in capsys.readouterr().err
