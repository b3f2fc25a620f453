"""``cuerobot vision detect|evaluate|render|calibrate`` and ``cuerobot bench vision|render`` (thin: parse, call vision/)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from config.reader import ConfigError


def register(subparsers) -> None:
    p = subparsers.add_parser("vision", help="overhead camera: detect balls, render frames, calibrate")
    sub = p.add_subparsers(dest="vision_command", metavar="ACTION", required=True)

    d = sub.add_parser("detect", help="find the balls in an image")
    d.add_argument("image", help="image file (BGR, e.g. PNG or JPEG)")
    d.add_argument("--camera", help="camera YAML (default config/camera.yaml)")
    d.add_argument("--table", help="table YAML (default config/table.yaml)")
    d.add_argument("--radius-px", type=float, help="pixel-only mode: approximate ball radius in pixels "
                   "(any table, any balls); without --camera/--table the configs are not used")
    d.add_argument("--json", action="store_true", help="print JSON instead of a table")
    d.add_argument("--overlay", metavar="OUT.png", help="write the image with every detection drawn")
    d.set_defaults(func=_detect)

    e = sub.add_parser("evaluate", help="score the detector against annotated frames (docs/vision.md: truth formats)")
    e.add_argument("images", nargs="+", help="image files (matched to the truth by file name)")
    e.add_argument("--truth", required=True, help="CSV (image,x_px,y_px[,label]), COCO JSON, or rendered truth JSON")
    e.add_argument("--camera", help="camera YAML: registered mode, errors also in mm")
    e.add_argument("--table", help="table YAML (registered mode)")
    e.add_argument("--radius-px", type=float, help="pixel-only mode: approximate ball radius in pixels")
    e.add_argument("--gate-px", type=float, help="a detection within this many px of a ball is that ball "
                   "(default: the ball radius)")
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(func=_evaluate)

    r = sub.add_parser("render", help="render a synthetic frame of a random layout (or a rack)")
    r.add_argument("out", help="output image file")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--rack", action="store_true", help="render the 15-ball rack")
    r.add_argument("--camera", help="camera YAML (default config/camera.yaml)")
    r.add_argument("--table", help="table YAML (default config/table.yaml)")
    r.add_argument("--truth", metavar="OUT.json", help="also write the exact ball positions")
    r.set_defaults(func=_render)

    c = sub.add_parser("calibrate", help="camera intrinsics from photos of a ChArUco board")
    c.add_argument("images", nargs="+", help="board photographs")
    c.add_argument("--chessboard", nargs=2, type=int, metavar=("COLS", "ROWS"),
                   help="a plain chessboard with this many inner corners instead of ChArUco")
    c.add_argument("--rational", action="store_true", help="8-coefficient rational lens model")
    c.add_argument("--out", help="write the camera section to this YAML file")
    c.set_defaults(func=_calibrate)


def register_bench(bench_subparsers) -> None:
    b = bench_subparsers.add_parser("vision", help="ms per 1280x720 frame on one core, and accuracy")
    b.add_argument("--layouts", type=int, default=30, help="rendered layouts (default 30)")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--reps", type=int, default=3, help="timed passes over every frame")
    b.add_argument("--overlay", metavar="OUT.png", help="write one annotated frame")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(func=_bench)

    r = bench_subparsers.add_parser("render", help="ms per frame of the synthetic camera's fast path vs the "
                                    "full render, through shots, and a game's estimate")
    r.add_argument("--layouts", type=int, default=12, help="16-ball layouts rendered from scratch (default 12)")
    r.add_argument("--full", type=int, default=3, help="of them rendered by the full render too (default 3)")
    r.add_argument("--shots", type=int, default=8, help="shots rendered frame by frame (default 8)")
    r.add_argument("--fps", type=float, default=30.0, help="frame rate through the shots (default 30)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--json", action="store_true", help="print JSON")
    r.set_defaults(func=_bench_render)


def _fail(msg: str) -> int:
    print(f"cuerobot vision: {msg}", file=sys.stderr)
    return 2


def _read_image(path: str):
    import cv2
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{path}: cannot read image")
    return image


def _detect(args: argparse.Namespace) -> int:
    import cv2

    from vision.overlay import draw_observations
    from vision.pipeline import TableVision, observe_pixels, timed
    try:
        image = _read_image(args.image)
        if args.radius_px is not None and args.camera is None and args.table is None:
            balls, ms = timed(observe_pixels, image, args.radius_px)
        else:
            from config.camera import load_camera_settings
            from config.table import load_table_settings
            tc = load_table_settings(args.table)
            cs = load_camera_settings(tc.table, args.camera)
            cam = cs.camera
            w, h = cam.size
            if image.shape[:2] != (h, w):
                raise ValueError(f"{args.image} is {image.shape[1]}x{image.shape[0]} but the camera "
                                 f"({args.camera or 'config/camera.yaml'}) is {w}x{h}")
            vision = TableVision(cam, tc.table, tc.physics.R, cs.landmarks)
            balls, ms = timed(vision.observe, image)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps({"balls": [b.to_json() for b in balls], "ms": round(ms, 2)}))
    else:
        for b in balls:
            where = "" if b.x_m is None else f"  x={b.x_m:.4f} m  y={b.y_m:.4f} m"
            print(f"{b.label:>12}  conf {b.confidence:.2f}  px=({b.x_px:.2f}, {b.y_px:.2f})  r={b.r_px:.2f} px{where}")
        print(f"{len(balls)} balls in {ms:.1f} ms")
    if args.overlay:
        cv2.imwrite(args.overlay, draw_observations(image, balls))
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from vision.evaluate import evaluate_images, report
    from vision.pipeline import TableVision, observe_pixels
    from vision.truth_formats import load_truth
    try:
        truth = load_truth(args.truth)
        to_table = None
        if args.radius_px is not None and args.camera is None and args.table is None:
            def detector(image):
                return observe_pixels(image, args.radius_px)
            gate = args.gate_px or args.radius_px
        else:
            from config.camera import load_camera_settings
            from config.table import load_table_settings
            from vision.camera import pixels_to_table
            tc = load_table_settings(args.table)
            cs = load_camera_settings(tc.table, args.camera)
            vision = TableVision(cs.camera, tc.table, tc.physics.R, cs.landmarks)
            detector = vision.observe
            gate = args.gate_px or float(vision.detector.r_map.mean() * 2)
            def to_table(px):
                return pixels_to_table(cs.camera, px, tc.physics.R)
        ev = evaluate_images(args.images, truth, detector, gate, to_table)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    print(json.dumps(ev.summary()) if args.json else report(ev.summary()))
    return 0


def _render(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.layouts import rack, random_layout
    from vision.render import synthetic_camera_from_config
    try:
        sc, _ = synthetic_camera_from_config(args.camera, args.table)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    rng = np.random.default_rng(args.seed)
    state = rack(sc.table, sc.R, rng) if args.rack else random_layout(sc.table, sc.R, rng)
    frame = sc.render(state, rng)
    cv2.imwrite(args.out, frame.image)
    if args.truth:
        Path(args.truth).write_text(json.dumps({"image": Path(args.out).name, "balls": [
            {"id": int(i), "x_m": float(p[0]), "y_m": float(p[1]), "x_px": float(q[0]), "y_px": float(q[1])}
            for i, p, q in zip(frame.truth.ids, frame.truth.pos, frame.truth.centre_px)]}, indent=1))
    print(f"wrote {args.out} ({len(state.ids)} balls)")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    import numpy as np

    from calibration.camera import calibrate_images
    from config.camera import save_camera
    try:
        cal = calibrate_images(args.images, chessboard=tuple(args.chessboard) if args.chessboard else None,
                               rational=args.rational)
    except ValueError as exc:
        return _fail(str(exc))
    K = cal.camera.K
    print(f"{len(cal.views)} views, RMS reprojection error {cal.rms_px:.3f} px "
          f"(per view {np.array2string(cal.per_view_rms, precision=2)})")
    print(f"fx={K[0, 0]:.2f} fy={K[1, 1]:.2f} cx={K[0, 2]:.2f} cy={K[1, 2]:.2f} "
          f"distortion={np.array2string(cal.camera.dist, precision=5)}")
    if args.out:
        save_camera(cal.camera, args.out)
        print(f"wrote {args.out}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    import cv2

    from vision.bench import report, run_bench
    from vision.overlay import draw_observations
    from vision.pipeline import TableVision
    from vision.render import synthetic_camera_from_config
    sc, lm = synthetic_camera_from_config()
    from vision.bench import to_json
    res = run_bench(sc, lm, n=args.layouts, seed=args.seed, reps=args.reps, progress=not args.json)
    print(json.dumps(to_json(res)) if args.json else report(res))
    if args.overlay:
        from vision.bench import render_layouts
        frame = render_layouts(sc, 1, args.seed)[0]
        cv2.imwrite(args.overlay, draw_observations(frame.image, TableVision(sc.cam, sc.table, sc.R, lm)
                                                    .observe(frame.image)))
        print(f"wrote {args.overlay}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _bench_render(args: argparse.Namespace) -> int:
    from config.table import load_table_settings
    from planner.physics.engine import Simulator
    from vision.render import synthetic_camera_from_config
    from vision.render_bench import report, run_render_bench, to_json
    if args.layouts < 1 or not 1 <= args.full <= args.layouts or args.shots < 1 or not args.fps > 0:
        return _fail("bench render: need --layouts >= 1, 1 <= --full <= --layouts, --shots >= 1 and --fps > 0")
    try:
        sc, lm = synthetic_camera_from_config()
        tc = load_table_settings()
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    res = run_render_bench(sc, lm, Simulator(tc.table, tc.physics), layouts=args.layouts, full_layouts=args.full,
                           shots=args.shots, fps=args.fps, seed=args.seed, progress=not args.json)
    print(json.dumps(to_json(res)) if args.json else report(res))
    return 0
