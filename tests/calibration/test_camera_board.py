"""The ``--board`` spec: parsed exactly, and a malformed one is a one-line exit-2 error naming the form."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from calibration.boards import CHARUCO_FORM, CHESSBOARD_FORM, CharucoBoard, Chessboard, parse_board


def test_specs_parse_to_the_boards_they_name():
    b = parse_board("charuco:6:8:0.034:0.027:DICT_4X4_50")
    assert b == CharucoBoard((6, 8), 0.034, 0.027, "DICT_4X4_50")
    assert b.corner_count == 35 and parse_board(b.spec()) == b
    c = parse_board("chessboard:8:5:0.025")
    assert c == Chessboard((8, 5), 0.025) and c.corner_count == 40 and parse_board(c.spec()) == c


def test_chessboard_corners_are_scaled_by_the_square_side():
    """Inner corners of a drawn chessboard: found all, on a grid of the stated square side."""
    sq_px = 40
    img = np.full((8 * sq_px, 11 * sq_px), 255, np.uint8)
    for r in range(6):
        for c in range(9):
            if (r + c) % 2 == 0:
                y, x = (r + 1) * sq_px, (c + 1) * sq_px
                img[y:y + sq_px, x:x + sq_px] = 0
    v = Chessboard((8, 5), 0.03).detect(img, "drawn")
    assert len(v.pixels) == 40
    steps = np.linalg.norm(np.diff(v.board[:8, :2], axis=0), axis=1)
    assert np.allclose(steps, 0.03)
    # corners sit where squares meet: pixel edges at multiples of 40, i.e. centres at 40k - 0.5
    assert np.allclose(np.sort(np.unique(np.round(v.pixels[:, 0] + 0.5))), sq_px * np.arange(2, 10), atol=1)


@pytest.mark.parametrize("spec, form", [
    ("charuco:6:8:0.034:0.027", CHARUCO_FORM),                   # dictionary missing
    ("charuco:6:x:0.034:0.027:DICT_4X4_50", CHARUCO_FORM),
    ("chessboard:8:5", CHESSBOARD_FORM),
    ("chessboard:8:5:-0.02", CHESSBOARD_FORM),
])
def test_malformed_specs_name_the_expected_form(spec, form):
    with pytest.raises(ValueError) as e:
        parse_board(spec)
    assert spec in str(e.value) and form in str(e.value)


@pytest.mark.parametrize("spec, says", [
    ("ring:4:4", "expected charuco:"),
    ("charuco:6:8:0.034:0.040:DICT_4X4_50", "0 < marker < square side"),
    ("charuco:6:8:0.034:0.027:DICT_9X9_1", "unknown ArUco dictionary 'DICT_9X9_1'"),
    ("chessboard:1:5:0.02", ">= 2 x 2 inner corners"),
])
def test_impossible_boards_say_why(spec, says):
    with pytest.raises(ValueError, match=says.replace("(", r"\(")):
        parse_board(spec)


def test_cli_rejects_a_malformed_board_with_exit_2(tmp_path):
    img = tmp_path / "a.png"
    img.write_bytes(b"")
    out = subprocess.run([sys.executable, "-m", "controller.cli", "calibrate", "camera", str(img),
                          "--board", "charuco:6:8"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("cuerobot calibrate camera: ")
    assert "argument --board: board 'charuco:6:8': expected charuco:COLS:ROWS:SQUARE_M:MARKER_M:DICT" in last
