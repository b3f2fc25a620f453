"""``cuerobot vision detect|evaluate|cloth|render`` and ``cuerobot bench vision|vision-learned|render`` (thin: parse,
call vision/)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.commands.args import (
    UserError,
    count,
    existing_dir,
    existing_file,
    image_output,
    output_file,
    positive_float,
    seed,
)


def register(subparsers) -> None:
    p = subparsers.add_parser("vision", help="overhead camera: detect balls, score the detector, render frames")
    sub = p.add_subparsers(dest="vision_command", metavar="ACTION", required=True)

    d = sub.add_parser("detect", help="find the balls in an image")
    d.add_argument("image", type=existing_file, help="image file (BGR, e.g. PNG or JPEG)")
    d.add_argument("--camera", type=existing_file, help="camera YAML (default config/camera.yaml)")
    d.add_argument("--table", type=existing_file, help="table YAML (default config/table.yaml)")
    d.add_argument("--radius-px", type=positive_float, help="pixel-only mode: approximate ball radius in pixels "
                   "(any table, any balls); without --camera/--table the configs are not used")
    _ball_set_argument(d)
    _cloth_argument(d)
    d.add_argument("--json", action="store_true", help="print JSON instead of a table")
    d.add_argument("--overlay", metavar="OUT.png", type=image_output, help="write the image with every detection drawn")
    d.set_defaults(func=_detect)

    e = sub.add_parser("evaluate", help="score the detector against annotated frames (docs/vision.md: truth formats)")
    e.add_argument("images", nargs="+", type=existing_file, help="image files (matched to the truth by file name)")
    e.add_argument("--truth", required=True, type=existing_file,
                   help="CSV (image,x_px,y_px[,label]), COCO JSON, or rendered truth JSON")
    e.add_argument("--camera", type=existing_file, help="camera YAML: registered mode, errors also in mm")
    e.add_argument("--table", type=existing_file, help="table YAML (registered mode)")
    e.add_argument("--radius-px", type=positive_float, help="pixel-only mode: approximate ball radius in pixels")
    e.add_argument("--gate-px", type=positive_float, help="a detection within this many px of a ball is that ball "
                   "(default: the ball radius)")
    _ball_set_argument(e)
    _cloth_argument(e)
    e.add_argument("--perturb", action="append", type=_perturbation, metavar="KIND=VALUE",
                   help="perturb each image first, as a drifted camera would (repeatable, applied in order): gain=K, "
                   "gamma=G, white=B,R, jpeg=Q, noise=S, blur=S, shading=K (docs/vision.md)")
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(func=_evaluate)

    c = sub.add_parser("cloth", help="measure the cloth's colour, that frames whose white balance drifts are "
                       "brought back to (camera.yaml's cloth_srgb, or --cloth-srgb)")
    c.add_argument("images", nargs="+", type=existing_file, help="frames of the table as the camera should see it")
    c.add_argument("--camera", type=existing_file, help="camera YAML (default config/camera.yaml)")
    c.add_argument("--table", type=existing_file, help="table YAML (default config/table.yaml)")
    c.add_argument("--radius-px", type=positive_float, help="pixel-only mode: approximate ball radius in pixels")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=_cloth, ball_set=None)

    r = sub.add_parser("render", help="render a synthetic frame of a random layout (or a rack)")
    r.add_argument("out", type=image_output, help="output image file (.png, .jpg, ...)")
    r.add_argument("--seed", type=seed, default=0, help="seed of the layout and the rendering noise")
    r.add_argument("--rack", action="store_true", help="render the 15-ball rack (planner/rack.py's legal order)")
    r.add_argument("--camera", type=existing_file, help="camera YAML (default config/camera.yaml)")
    r.add_argument("--table", type=existing_file, help="table YAML (default config/table.yaml)")
    r.add_argument("--truth", metavar="OUT.json", type=output_file,
                   help="also write the exact ball positions (keys as `vision detect --json`)")
    r.set_defaults(func=_render)


def _ball_set_argument(parser) -> None:
    from vision.identify import BALL_SETS
    parser.add_argument("--ball-set", choices=BALL_SETS, help="pixel-only mode: the colour classes to name "
                        "(pool: 8-ball colours and stripes; snooker: plain white, red, yellow, green, brown, blue, "
                        "pink, black; any: both, the default); the registered mode names pool balls 0-15")


def _cloth_argument(parser) -> None:
    parser.add_argument("--cloth-srgb", type=_rgb, metavar="R,G,B", help="the cloth's colour as calibrated "
                        "(`cuerobot vision cloth`): a frame whose white balance drifted is brought back to it first "
                        "(default: camera.yaml's cloth_srgb in the registered mode, none in the pixel-only mode)")


def _rgb(text: str) -> tuple[float, float, float]:
    """``--cloth-srgb``'s type: three numbers R,G,B each above 0 and at most 255."""
    from vision.white_balance import unit_bgr
    try:
        rgb = tuple(float(v) for v in text.split(","))
        unit_bgr(rgb)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected R,G,B (8-bit sRGB, each above 0 and at most 255), got {text!r}"
                                         ) from None
    return rgb


def _pixel_only(args: argparse.Namespace) -> bool:
    """True for the pixel-only mode (--radius-px without --camera/--table). Raises UserError for a
    --ball-set in the registered mode."""
    pixel = args.radius_px is not None and args.camera is None and args.table is None
    if args.ball_set is not None and not pixel:
        raise UserError(f"--ball-set {args.ball_set} is for the pixel-only mode (--radius-px without --camera "
                        "and --table); the registered mode names pool balls 0-15")
    return pixel


def register_bench(bench_subparsers) -> None:
    b = bench_subparsers.add_parser("vision", help="ms per 1280x720 frame on one core, and accuracy")
    b.add_argument("--layouts", type=count, help="rendered layouts (default 30; with --domain, per condition: 20)")
    b.add_argument("--seed", type=seed, default=0, help="seed of the layouts")
    b.add_argument("--domain", nargs="*", metavar="CONDITION", type=_condition,
                   help="score the registered mode in these conditions of the wider rendered domain instead, "
                        "against the targets (all when none is named: default gentle projector halo sheen jpeg "
                        "hard hand lit_jpeg lit_sheen, as vision.render_domain.CONDITIONS names them)")
    b.add_argument("--reps", type=count, default=3, help="timed passes over every frame")
    b.add_argument("--overlay", metavar="OUT.png", type=image_output,
                   help="write one annotated frame; with --domain, a contact sheet: each condition's worst frame "
                        "with found balls green, missed balls red, false balls magenta (docs/vision.md: Figures)")
    b.add_argument("--images", nargs="+", type=existing_file, metavar="IMG",
                   help="real frames to time the pixel-only mode on too (with --radius-px)")
    b.add_argument("--radius-px", type=positive_float, help="ball radius in pixels in --images")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(func=_bench)

    lb = bench_subparsers.add_parser("vision-learned", help="a small classifier trained on generated frames vs the "
                                     "hand-made identity, head to head (docs/vision.md: A learned component?)")
    lb.add_argument("--train-domains", type=count, default=150,
                    help="generated training domains per ball set (pool, snooker), 3 frames each")
    lb.add_argument("--layouts", type=count, default=20, help="rendered frames per condition")
    lb.add_argument("--seed", type=seed, default=0, help="seed of the training domains and the scored frames")
    lb.add_argument("--domain", nargs="+", metavar="CONDITION", type=_condition, default=["gentle", "hard"],
                    help="conditions of vision.render_domain.CONDITIONS to score (default: gentle hard)")
    lb.add_argument("--crops", nargs="+", type=existing_dir, metavar="DIR",
                    help="also score the colour class of real crops: image files under these folders, in folders "
                         "named after a snooker colour (RED/, white/, ...), one ball centred in each")
    lb.add_argument("--radius-px", type=positive_float, default=15.6, help="ball radius in pixels in --crops")
    lb.add_argument("--json", action="store_true", help="print JSON")
    lb.set_defaults(func=_bench_learned)

    r = bench_subparsers.add_parser("render", help="ms per frame of the synthetic camera's fast path vs the "
                                    "full render, through shots, and a game's estimate")
    r.add_argument("--layouts", type=count, default=12, help="16-ball layouts rendered from scratch")
    r.add_argument("--full", type=count, default=3, help="of them rendered by the full render too (<= --layouts)")
    r.add_argument("--shots", type=count, default=8, help="shots rendered frame by frame")
    r.add_argument("--fps", type=positive_float, default=30.0, help="frame rate through the shots")
    r.add_argument("--seed", type=seed, default=0, help="seed of the layouts and shots")
    r.add_argument("--json", action="store_true", help="print JSON")
    r.set_defaults(func=_bench_render)


def _read(path):
    from vision.image_files import read_image
    try:
        return read_image(path)
    except ValueError as exc:          # OpenCV cannot decode it
        raise UserError(str(exc)) from exc


def _fits_camera(image, path, cam, camera_arg) -> None:
    """Raises UserError naming the image file ``path`` and the camera YAML unless ``image`` is the camera's size."""
    w, h = cam.size
    if image.shape[:2] != (h, w):
        raise UserError(f"{path} is {image.shape[1]}x{image.shape[0]} but the camera "
                        f"({camera_arg or 'config/camera.yaml'}) is {w}x{h}")


def _detect(args: argparse.Namespace) -> int:
    from vision.image_files import write_image
    from vision.overlay import draw_observations
    from vision.pipeline import TableVision, observe_pixels, timed
    image = _read(args.image)
    if _pixel_only(args):
        def detect():
            return observe_pixels(image, args.radius_px, args.ball_set or "any", args.cloth_srgb)
    else:
        from config.camera import load_camera_settings
        from config.table import load_table_settings
        tc = load_table_settings(args.table)
        cs = load_camera_settings(tc.table, args.camera)
        _fits_camera(image, args.image, cs.camera, args.camera)
        vision = TableVision(cs.camera, tc.table, tc.physics.R, cs.landmarks, args.cloth_srgb or cs.cloth_srgb)

        def detect():
            return vision.observe(image)
    balls, first_ms = timed(detect)     # loads the compiled kernels
    balls, ms = timed(detect)           # warm: what a running service spends on a frame
    if args.json:
        print(json.dumps({"balls": [b.to_json() for b in balls], "ms": round(ms, 2),
                          "first_call_ms": round(first_ms, 2)}, allow_nan=False))
    else:
        for b in balls:
            where = "" if b.x_m is None else f"  x={b.x_m:.4f} m  y={b.y_m:.4f} m"
            print(f"{b.label:>12}  conf {b.confidence:.2f}  px=({b.x_px:.2f}, {b.y_px:.2f})  r={b.r_px:.2f} px{where}")
        print(f"{len(balls)} {'ball' if len(balls) == 1 else 'balls'} in {ms:.1f} ms "
              f"(the first call, which loads the compiled kernels: {first_ms:.0f} ms)")
    if args.overlay:
        write_image(args.overlay, draw_observations(image, balls))
        print(f"wrote {args.overlay}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from vision.evaluate import evaluate_images, report
    from vision.pipeline import TableVision, observe_pixels
    from vision.truth_formats import load_truth
    try:
        truth = load_truth(args.truth)
        to_table = None
        if _pixel_only(args):
            def detector(image):
                return observe_pixels(image, args.radius_px, args.ball_set or "any", args.cloth_srgb)
            gate = args.gate_px or args.radius_px
        else:
            from config.camera import load_camera_settings
            from config.table import load_table_settings
            from vision.camera import pixels_to_table
            tc = load_table_settings(args.table)
            cs = load_camera_settings(tc.table, args.camera)
            vision = TableVision(cs.camera, tc.table, tc.physics.R, cs.landmarks, args.cloth_srgb or cs.cloth_srgb)
            detector = vision.observe
            gate = args.gate_px or float(vision.detector.r_map.mean() * 2)
            def to_table(px):
                return pixels_to_table(cs.camera, px, tc.physics.R)
        perturbs = args.perturb or []
        def transform(image):
            for p in perturbs:
                image = p.apply(image)
            return image
        ev = evaluate_images(args.images, truth, detector, gate, to_table, transform if perturbs else None)
    except ValueError as exc:           # a config's, a truth file's or an image's content (named in the message)
        raise UserError(str(exc)) from exc
    summary = ev.summary()
    if perturbs:
        summary["perturb"] = [str(p) for p in perturbs]
    text = report(summary) + ("\n  perturbed: " + " then ".join(summary["perturb"]) if perturbs else "")
    print(json.dumps(summary, allow_nan=False) if args.json else text)
    return 0


def _cloth(args: argparse.Namespace) -> int:
    import numpy as np

    from vision.white_balance import measured_srgb
    if _pixel_only(args):
        from vision.detect_pixels import cloth_model

        def model(image, path):
            return cloth_model(image, args.radius_px)
    else:
        from config.camera import load_camera_settings
        from config.table import load_table_settings
        from vision.detect import TableDetector
        tc = load_table_settings(args.table)
        cs = load_camera_settings(tc.table, args.camera)
        detector = TableDetector(cs.camera, tc.table, tc.physics.R, cs.landmarks.rail)

        def model(image, path):
            _fits_camera(image, path, cs.camera, args.camera)
            return detector.cloth_model(image)
    frames = {str(p): measured_srgb(model(_read(p), p)) for p in args.images}
    seen = [c for c in frames.values() if c is not None]
    if not seen:
        raise UserError("no frame shows the cloth without a projector's light over part of it (a lit wedge): "
                        "measure it on frames with the projector off")
    rgb = [int(v) for v in np.median(np.array(seen), axis=0).round()]
    if args.json:
        print(json.dumps({"cloth_srgb": rgb, "frames": frames}))
    else:
        for p, c in frames.items():
            print(f"{p}: " + ("a lit wedge (a projector's light over part of the cloth): not measured" if c is None
                              else f"R,G,B {c[0]},{c[1]},{c[2]}"))
        print(f"cloth_srgb: [{rgb[0]}, {rgb[1]}, {rgb[2]}]   (the median of {len(seen)} of {len(frames)} frames; "
              f"camera.yaml's cloth_srgb, or --cloth-srgb {rgb[0]},{rgb[1]},{rgb[2]} in the pixel-only mode)")
    return 0


def _perturbation(text: str):
    """``--perturb``'s type: ``vision.perturb.parse_perturbation``, its ValueError as argparse's error."""
    from vision.perturb import parse_perturbation
    try:
        return parse_perturbation(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _render(args: argparse.Namespace) -> int:
    import numpy as np

    from config.atomic import write_atomic
    from vision.image_files import write_image
    from vision.layouts import rack, random_layout
    from vision.render import synthetic_camera_from_config
    sc, _ = synthetic_camera_from_config(args.camera, args.table)
    rng = np.random.default_rng(args.seed)
    state = rack(sc.table, sc.R, rng) if args.rack else random_layout(sc.table, sc.R, rng)
    frame = sc.render(state, rng)
    write_image(args.out, frame.image)
    if args.truth:      # the keys of `vision detect --json`: a ball's label is a string ('0' is the cue ball)
        write_atomic(args.truth, json.dumps({"image": Path(args.out).name, "balls": [
            {"label": str(int(i)), "x_m": float(p[0]), "y_m": float(p[1]), "x_px": float(q[0]), "y_px": float(q[1])}
            for i, p, q in zip(frame.truth.ids, frame.truth.pos, frame.truth.centre_px)]}, indent=1, allow_nan=False))
    print(f"wrote {args.out} ({len(state.ids)} balls)" + (f" and {args.truth}" if args.truth else ""))
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.domain is not None:
        return _bench_domain(args)
    from vision.bench import report, run_bench, time_images, to_json
    from vision.image_files import read_image, write_image
    from vision.overlay import draw_observations
    from vision.pipeline import TableVision
    from vision.render import synthetic_camera_from_config
    if bool(args.images) != bool(args.radius_px):
        raise UserError("--images and --radius-px go together (the radius of the balls in those frames)")
    real = [read_image(p) for p in args.images or ()]
    sc, lm = synthetic_camera_from_config()
    res = run_bench(sc, lm, n=args.layouts or 30, seed=args.seed, reps=args.reps, progress=not args.json)
    out = to_json(res)
    text = report(res)
    if real:
        ms, base_ms = time_images(real, args.radius_px, args.reps)
        out["real_frames"] = {"frames": len(real), "radius_px": args.radius_px, "ms_per_frame": ms,
                              "baseline_ms_per_frame": base_ms, "speedup": base_ms / ms}
        text += (f"\nreal frames ({len(real)}, pixel-only, --radius-px {args.radius_px:g}), one core: {ms:.1f} ms/frame "
                 f"(target <= 15 ms); baseline (HoughCircles, one radius): {base_ms:.1f} ms/frame, x{base_ms / ms:.1f}")
    print(json.dumps(out, allow_nan=False) if args.json else text)
    if args.overlay:
        from vision.bench import render_layouts
        frame = render_layouts(sc, 1, args.seed)[0]
        write_image(args.overlay, draw_observations(frame.image, TableVision(sc.cam, sc.table, sc.R, lm)
                                                    .observe(frame.image)))
        print(f"wrote {args.overlay}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _condition(text: str) -> str:
    """argparse type of --domain: a name in vision.render_domain.CONDITIONS (imported only when given)."""
    from vision.render_domain import CONDITIONS
    if text not in CONDITIONS:
        raise argparse.ArgumentTypeError(f"unknown condition {text!r} (expected any of {', '.join(CONDITIONS)})")
    return text


def _bench_domain(args: argparse.Namespace) -> int:
    from vision.bench import domain_report, domain_to_json, run_domain_bench
    from vision.render import synthetic_camera_from_config
    from vision.render_domain import CONDITIONS
    if args.images or args.radius_px:
        raise UserError("--domain scores rendered frames only: --images and --radius-px go without it")
    sc, lm = synthetic_camera_from_config()
    res = run_domain_bench(sc, lm, args.domain or list(CONDITIONS), n=args.layouts or 20, seed=args.seed,
                           progress=not args.json)
    print(json.dumps(domain_to_json(res, args.seed), allow_nan=False) if args.json else domain_report(res, args.seed))
    if args.overlay:
        from vision.domain_sheet import domain_sheet
        from vision.image_files import write_image
        write_image(args.overlay, domain_sheet(sc, [(r.condition, r.worst) for r in res]))
        print(f"wrote {args.overlay}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _bench_learned(args: argparse.Namespace) -> int:
    from vision.learned_bench import read_crops, report, run_learned_bench, to_json
    from vision.render import synthetic_camera_from_config
    try:
        crops = read_crops(args.crops) if args.crops else None
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    sc, lm = synthetic_camera_from_config()
    res = run_learned_bench(sc, lm, args.domain, n=args.layouts, seed=args.seed, train_domains=args.train_domains,
                            crops=crops, radius_px=args.radius_px, progress=not args.json)
    print(json.dumps(to_json(res, args.seed), allow_nan=False) if args.json else report(res, args.seed))
    return 0


def _bench_render(args: argparse.Namespace) -> int:
    from config.table import load_table_settings
    from planner.physics.engine import Simulator
    from vision.render import synthetic_camera_from_config
    from vision.render_bench import report, run_render_bench, to_json
    if args.full > args.layouts:
        raise UserError(f"--full {args.full}: expected at most --layouts ({args.layouts})")
    sc, lm = synthetic_camera_from_config()
    tc = load_table_settings()
    res = run_render_bench(sc, lm, Simulator(tc.table, tc.physics), layouts=args.layouts, full_layouts=args.full,
                           shots=args.shots, fps=args.fps, seed=args.seed, progress=not args.json)
    print(json.dumps(to_json(res), allow_nan=False) if args.json else report(res))
    return 0
