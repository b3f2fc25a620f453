"""``cuerobot calibrate camera IMAGES... --board SPEC``: lens intrinsics from board photographs
(thin: parse, call calibration/; docs/calibration.md)."""
from __future__ import annotations

import argparse
import json
import sys

from controller.commands.args import UserError, count, existing_file, non_negative_int, output_file

HOLDOUT_NOTE = 3.0      # a view whose held-out error exceeds this many times the fitted RMS is named


def _board(text: str):
    from calibration.boards import parse_board
    try:
        return parse_board(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register_calibrate(targets) -> None:
    from calibration.camera import MODELS
    c = targets.add_parser("camera", help="lens intrinsics from photographs of a ChArUco board or chessboard")
    c.add_argument("images", nargs="+", type=existing_file, help="board photographs (one camera, one size)")
    c.add_argument("--board", required=True, type=_board, metavar="SPEC",
                   help="charuco:COLS:ROWS:SQUARE_M:MARKER_M:DICT (squares) or chessboard:COLS:ROWS:SQUARE_M "
                        "(inner corners)")
    c.add_argument("--model", choices=MODELS, default="standard",
                   help="lens model: standard (5 coefficients), rational (8) or fisheye (default standard)")
    c.add_argument("--min-corners", type=count, default=12,
                   help="reject a view with fewer board corners found (default 12)")
    c.add_argument("--holdout", type=non_negative_int, default=1, metavar="K",
                   help="held-out check: calibrate without K views at a time, report the error on them "
                        "(default 1; 0 = skip)")
    c.add_argument("--out", type=output_file, help="write the camera section into this camera YAML "
                   "(its other sections are kept)")
    c.add_argument("--report", type=output_file, metavar="PNG", help="write the report figure")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=_calibrate_camera)


def _calibrate_camera(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from calibration.camera import calibrate_views, detect_views, holdout_check
    from calibration.camera_report import camera_section, summary, write_report
    from calibration.yaml_update import update_yaml_sections
    if args.report:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UserError("--report needs matplotlib (pip install matplotlib)") from None
    log = sys.stderr if args.json else sys.stdout
    try:
        det = detect_views(args.images, args.board, args.min_corners)
        for reason in det.rejected:
            print(f"rejected {reason}", file=sys.stderr)
        cal = calibrate_views(det.views, det.size, args.model)
    except (ValueError, cv2.error) as exc:
        raise UserError(str(exc).strip().splitlines()[-1]) from exc
    holdout = None
    if args.holdout:
        try:
            holdout = holdout_check(det.views, det.size, args.model, args.holdout)
        except (ValueError, cv2.error) as exc:
            print(f"held-out check skipped: {str(exc).strip().splitlines()[-1]}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary(cal, det.rejected, holdout), allow_nan=False))
    else:
        print(f"board {args.board.spec()}, {args.model} model: {len(cal.views)} views used, "
              f"{len(det.rejected)} rejected")
        print(f"{'view':>4}  {'corners':>7}  {'fitted px':>9}  {'held out px':>11}  file")
        for i, (v, e) in enumerate(zip(cal.views, cal.per_view_px)):
            ho = "" if holdout is None else f"{holdout.per_view_px[i]:.3f}"
            print(f"{i:>4}  {len(v.pixels):>7}  {e:>9.3f}  {ho:>11}  {v.name}")
        K = cal.camera.K
        print(f"RMS reprojection error {cal.rms_px:.3f} px"
              + ("" if holdout is None else f"; held out ({holdout.k} at a time) {holdout.rms_px:.3f} px"))
        print(f"fx={K[0, 0]:.2f} fy={K[1, 1]:.2f} cx={K[0, 2]:.2f} cy={K[1, 2]:.2f} "
              f"distortion={np.array2string(cal.camera.dist, precision=5)}")
    if holdout is not None:
        for i in np.flatnonzero(holdout.per_view_px > HOLDOUT_NOTE * cal.rms_px):
            print(f"note: view {i} ({cal.views[i].name}) is {holdout.per_view_px[i]:.1f} px off when held out: "
                  "no other view covers its part of the image, or the lens model does not extrapolate there "
                  "(add views there, or try another --model)", file=sys.stderr)
    try:
        if args.out:
            had_pose = _has_pose(args.out)
            update_yaml_sections(args.out, {"camera": camera_section(cal, args.board, det.rejected, holdout)})
            print(f"wrote the camera section of {args.out}", file=log)
            if had_pose:
                print(f"note: the pose in {args.out} was registered with the previous lens: run "
                      "`cuerobot calibrate table` again", file=sys.stderr)
        if args.report:
            write_report(cal, holdout, args.report)
            print(f"wrote {args.report}", file=log)
    except OSError as exc:
        raise UserError(str(exc)) from exc
    return 0


def _has_pose(path) -> bool:
    import yaml
    try:
        data = yaml.safe_load(path.read_text()) if path.exists() else None
    except yaml.YAMLError:
        return False
    return isinstance(data, dict) and "pose" in data
