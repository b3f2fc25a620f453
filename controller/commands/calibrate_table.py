"""``cuerobot calibrate table IMAGE --camera camera.yaml``: the camera's pose in the table frame
from the rail markers or from clicked table points, and the cloth's colour as the frame shows it (thin: parse,
call calibration/ and vision/; docs/calibration.md)."""
from __future__ import annotations

import argparse
import json
import sys

from controller.commands.args import UserError, existing_file, output_file


def register_calibrate(targets) -> None:
    t = targets.add_parser("table", help="the camera's pose in the table frame from rail markers or table points")
    t.add_argument("image", type=existing_file, help="a frame of the table from the camera (BGR image file)")
    t.add_argument("--camera", required=True, type=existing_file,
                   help="camera YAML with the calibrated lens (and the registration markers)")
    t.add_argument("--table", type=existing_file, help="table YAML (default config/table.yaml)")
    how = t.add_mutually_exclusive_group()
    how.add_argument("--markers", action="store_true",
                     help="find the ArUco markers on the rails (the default)")
    how.add_argument("--points", type=existing_file, metavar="FILE",
                     help="YAML of table landmarks' pixels, e.g. points: {lb: [u, v], head.2: [u, v], ...}")
    t.add_argument("--out", type=output_file, help="write the pose section, and the cloth's colour as the frame "
                   "shows it (cloth_srgb), into this camera YAML (its other sections are kept)")
    t.add_argument("--overlay", type=output_file, metavar="OUT.png", help="write the frame with the registered "
                   "table outline and the landmarks drawn")
    t.add_argument("--json", action="store_true", help="print JSON")
    t.set_defaults(func=_calibrate_table)


def _calibrate_table(args: argparse.Namespace) -> int:
    from calibration.table import pose_from_markers, pose_from_points, pose_section, read_points_file, table_points
    from calibration.table_overlay import draw_table_pose
    from calibration.yaml_update import update_yaml_sections
    from config.camera import load_camera_settings
    from config.table import load_table_settings
    from vision.detect import TableDetector
    from vision.image_files import read_image, write_image
    from vision.white_balance import measured_srgb
    log = sys.stderr if args.json else sys.stdout
    try:
        tc = load_table_settings(args.table)
        cs = load_camera_settings(tc.table, args.camera)
        image = read_image(args.image)
        w, h = cs.camera.size
        if image.shape[:2] != (h, w):
            raise ValueError(f"{args.image} is {image.shape[1]}x{image.shape[0]} but the camera of {args.camera} "
                             f"is {w}x{h}")
        if args.points:
            names, world, px = read_points_file(args.points, table_points(tc.table, cs.landmarks.rail))
            pose = pose_from_points(cs.camera, names, world, px)
        else:
            pose = pose_from_markers(image, cs.camera, cs.landmarks)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    cloth = measured_srgb(TableDetector(pose.camera, tc.table, tc.physics.R, cs.landmarks.rail).cloth_model(image))
    centre = pose.camera.centre
    if args.json:
        print(json.dumps({"method": pose.method, "landmarks": len(pose.names), "rms_px": round(pose.rms_px, 4),
                          "rms_mm": round(pose.rms_mm, 3), "max_mm": round(pose.max_mm, 3),
                          "rvec": [float(v) for v in pose.camera.rvec], "tvec": [float(v) for v in pose.camera.tvec],
                          "camera_centre_m": [round(float(v), 5) for v in centre],
                          "cloth_srgb": None if cloth is None else list(cloth)}, allow_nan=False))
    else:
        print(f"registered from {pose.method}: {len(pose.names)} landmarks")
        print(f"reprojection {pose.rms_px:.3f} px RMS; on the table {pose.rms_mm:.2f} mm RMS, {pose.max_mm:.2f} mm max")
        print(f"camera centre in the table frame: x={centre[0]:.4f} y={centre[1]:.4f} z={centre[2]:.4f} m")
        print("the cloth's colour (R, G, B): " + ("not measured: a projector's light over part of the cloth (a lit "
                                                  "wedge)" if cloth is None else ", ".join(map(str, cloth))))
    try:
        if args.out:
            sections = {"pose": pose_section(pose)} | ({} if cloth is None else {"cloth_srgb": list(cloth)})
            update_yaml_sections(args.out, sections)
            print(f"wrote the {' and '.join(sections)} sections of {args.out}", file=log)
        if args.overlay:
            write_image(args.overlay, draw_table_pose(image, pose, tc.table, cs.landmarks.rail))
            print(f"wrote {args.overlay}", file=log)
    except (OSError, ValueError) as exc:
        raise UserError(str(exc)) from exc
    return 0
