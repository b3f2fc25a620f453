"""``vision.perturb`` against each perturbation's definition, and ``cuerobot vision evaluate --perturb``."""
from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.perturb import Perturbation, parse_perturbation


def _flat(bgr, shape=(32, 48)):
    return np.broadcast_to(np.array(bgr, np.uint8), (*shape, 3)).copy()


def test_each_perturbation_follows_its_definition():
    """Levels checked by hand: exposure, response curve, white balance and a cast turning across the frame per
    channel, with clipping; a blur keeps a flat image flat and spreads a step edge as a Gaussian of S px; noise of S
    levels has that spread, zero mean and is the same every time; JPEG at quality 100 stays within 2 levels of the
    image, at quality 10 moves it further than at quality 90."""
    assert parse_perturbation("gain=0.5").apply(_flat((200, 100, 3)))[0, 0].tolist() == [100, 50, 2]
    assert parse_perturbation("gain=2").apply(_flat((200, 100, 3)))[0, 0].tolist() == [255, 200, 6]
    assert parse_perturbation("gamma=0.5").apply(_flat((64, 255, 0)))[0, 0].tolist() == [128, 255, 0]
    assert parse_perturbation("white=0.5,2").apply(_flat((100, 100, 100)))[0, 0].tolist() == [50, 100, 200]
    shaded = parse_perturbation("shading=1").apply(_flat((100, 100, 100), (2, 5)))   # x = -0.5, -0.25 ... 0.5
    assert shaded[1, :, 0].tolist() == [150, 125, 100, 75, 50] and shaded[1, :, 2].tolist() == [50, 75, 100, 125, 150]
    assert (shaded[:, :, 1] == 100).all() and np.array_equal(shaded[0], shaded[1])
    blur = parse_perturbation("blur=2")
    assert np.array_equal(blur.apply(_flat((10, 20, 30))), _flat((10, 20, 30)))
    step = np.zeros((20, 80, 3), np.uint8)
    step[:, 40:] = 200                                          # an edge at x = 39.5 px
    row = blur.apply(step)[10, :, 0].astype(float)
    k = np.arange(36, 44)
    expected = 200 * (1 + np.vectorize(math.erf)((k - 39.5) / (2.0 * math.sqrt(2)))) / 2
    assert np.abs(row[k] - expected).max() <= 1.5                 # (a sampled kernel, whole levels)
    noise = parse_perturbation("noise=6")
    grey = _flat((128, 128, 128), (200, 200))
    d = noise.apply(grey).astype(float) - 128
    assert abs(d.std() - 6) < 0.1 and abs(d.mean()) < 0.1
    assert np.array_equal(noise.apply(grey), noise.apply(grey))
    rng = np.random.default_rng(4)
    image = cv2.GaussianBlur(rng.integers(0, 256, (64, 64, 3)).astype(np.uint8), (0, 0), 2)
    err = {q: np.abs(parse_perturbation(f"jpeg={q}").apply(image).astype(int) - image).mean() for q in (10, 90, 100)}
    assert err[100] < 2 and err[10] > err[90]


@pytest.mark.parametrize("text,match", [
    ("gain", "KIND=VALUE"), ("hue=3", "KIND=VALUE"), ("gain=x", "KIND=VALUE"), ("gain=0", "above 0"),
    ("gamma=-1", "above 0"), ("white=1", "2 finite number"), ("white=1,2,3", "2 finite number"),
    ("jpeg=0", "1-100"), ("jpeg=50.5", "1-100"), ("noise=-1", "at least 0"), ("blur=nan", "finite"),
    ("shading=0", "above 0 and below 2"), ("shading=2", "above 0 and below 2"),
])
def test_a_bad_perturbation_is_refused_with_its_expected_form(text, match):
    with pytest.raises(ValueError, match=match):
        parse_perturbation(text)


def test_a_perturbation_reads_back_as_written():
    assert str(parse_perturbation("white=0.8,1.2")) == "white=0.8,1.2"
    assert parse_perturbation("jpeg=50") == Perturbation("jpeg", (50.0,))


def test_evaluate_with_perturb_scores_the_perturbed_frames(tmp_path, capsys):
    """``--perturb`` (in the order given) scores what the detector makes of the perturbed frame: the same
    summary as the frame perturbed beforehand and evaluated plainly, and not the plain frame's."""
    img, truth, pre = tmp_path / "frame.png", tmp_path / "truth.json", tmp_path / "pre" / "frame.png"
    assert main(["vision", "render", str(img), "--seed", "5", "--truth", str(truth)]) == 0
    pre.parent.mkdir()
    image = cv2.imread(str(img))
    cv2.imwrite(str(pre), parse_perturbation("jpeg=40").apply(parse_perturbation("noise=12").apply(image)))

    def summary(path, *extra):
        capsys.readouterr()
        assert main(["vision", "evaluate", str(path), "--truth", str(truth), "--radius-px", "13", "--json",
                     *extra]) == 0
        s = json.loads(capsys.readouterr().out)
        s.pop("ms_per_frame")
        return s
    perturbed = summary(img, "--perturb", "noise=12", "--perturb", "jpeg=40")
    assert perturbed.pop("perturb") == ["noise=12", "jpeg=40"]
    assert perturbed == summary(pre)
    assert perturbed["centre_error_px"] != summary(img)["centre_error_px"]
