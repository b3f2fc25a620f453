"""``cuerobot hil replay|import|record`` and ``cuerobot bench hil`` (thin: parse, call hil/)."""
from __future__ import annotations

import argparse
import json
import os
import sys

from config.reader import ConfigError
from controller.commands.args import (
    UserError,
    count,
    existing_dir,
    existing_file,
    existing_path,
    output_dir,
    output_file,
    positive_float,
)


def register(subparsers) -> None:
    p = subparsers.add_parser("hil", help="hardware-in-the-loop: replay recordings as regression tests")
    sub = p.add_subparsers(dest="hil_command", metavar="ACTION", required=True)

    r = sub.add_parser("replay", help="replay recordings through today's vision, rest detector, referee and planner, "
                                      "against their truth")
    r.add_argument("recordings", nargs="*", metavar="REC", type=existing_dir, help="run directories (docs/recording.md)")
    r.add_argument("--suite", type=existing_file, help="a suite file (hil/suites/*.yaml): its recordings and thresholds")
    r.add_argument("--thresholds", type=existing_file, help="thresholds YAML (hil/thresholds.py); replaces the suite's")
    r.add_argument("--report", metavar="OUT.html", type=output_file, help="write the HTML report (worst frames drawn)")
    r.add_argument("--json", action="store_true", help="print the summary figures as JSON")
    r.add_argument("--camera", type=existing_file, help="replay with this camera YAML instead of each recording's")
    r.add_argument("--service", type=existing_file, metavar="SERVICE.yaml",
                   help="replay with this service YAML's rest detector (camera.rest_frames, rest_tolerance) "
                        "instead of each recording's")
    r.add_argument("--workers", type=count, default=os.cpu_count() or 1, help="detection processes (default: CPUs)")
    r.set_defaults(func=_replay)

    i = sub.add_parser("import", help="turn annotated frames (images or a video) into a recording")
    i.add_argument("frames", metavar="FRAMES_DIR_OR_VIDEO", type=existing_path,
                   help="a directory of images (sorted by name) or a video file (frame k annotated as k or frame_%%06d)")
    i.add_argument("--truth", required=True, type=existing_file,
                   help="CSV image,x_px,y_px[,label], COCO JSON or rendered truth")
    i.add_argument("--camera", required=True, type=existing_file, help="camera YAML (intrinsics and pose) of the frames")
    i.add_argument("--table", type=existing_file, help="table YAML (default config/table.yaml)")
    i.add_argument("--fps", type=positive_float, default=30.0,
                   help="frame rate for a directory's frame times (default 30; a video keeps its own)")
    i.add_argument("--out", required=True, type=output_dir, help="the recording to write (a new directory)")
    i.set_defaults(func=_import)

    c = sub.add_parser("record", help="record footage alone (no game) from a camera, URL or file")
    c.add_argument("--camera", required=True, metavar="DEV|URL|FILE", help="device index, stream URL or video file")
    c.add_argument("--config", type=existing_file, help="camera YAML of that camera (default config/camera.yaml)")
    c.add_argument("--out", required=True, type=output_dir, help="the recording to write")
    c.add_argument("--seconds", type=positive_float, help="stop after this much camera time (default: until the source ends)")
    c.set_defaults(func=_record)


def register_bench(bench_subparsers) -> None:
    b = bench_subparsers.add_parser("hil", help="1280x720 frames/s through detection as replay runs it, vs one process")
    b.add_argument("--frames", type=count, default=24, help="rendered layouts")
    b.add_argument("--passes", type=count, default=4, help="timed passes over them")
    b.add_argument("--workers", type=count, help="worker processes (default: CPUs)")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(func=_bench)


def _replay(args: argparse.Namespace) -> int:
    from hil.frames import VisionSpec
    from hil.replay import format_summary, replay
    from hil.rest import RestSpec
    from hil.suites import load_suite
    from hil.thresholds import ThresholdError, load_thresholds, violations
    try:
        recordings, thresholds, tolerance = list(args.recordings), {}, {}
        if args.suite:
            suite = load_suite(args.suite)
            recordings += suite.recordings
            thresholds, tolerance = suite.thresholds, suite.tolerance
        if args.thresholds:
            thresholds, tolerance = load_thresholds(args.thresholds)
        if not recordings:
            raise UserError("give recordings (REC ...) or --suite")
        result = replay(recordings, VisionSpec(camera=args.camera), workers=args.workers, tolerance=tolerance,
                        rest=RestSpec(service=None if args.service is None else str(args.service)))
    except (ConfigError, ThresholdError, FileNotFoundError, ValueError) as e:
        raise UserError(str(e)) from e
    bad = violations(result.summary, thresholds)
    if args.json:
        print(json.dumps({**result.summary, "violations": bad}, allow_nan=False))
    else:
        print(format_summary(result.summary))
    if args.report:
        from hil.report import write_report
        write_report(result, bad, args.report)
    for v in bad:
        print(f"threshold violated: {v}", file=sys.stderr)
    return 1 if bad else 0


def _import(args: argparse.Namespace) -> int:
    from controller.camera import CameraError
    from hil.footage import import_frames
    try:
        out = import_frames(args.frames, args.truth, args.camera, args.out, args.table, args.fps)
    except (ConfigError, ValueError, OSError, CameraError) as e:
        raise UserError(str(e)) from e
    print(f"wrote {out}")
    return 0


def _record(args: argparse.Namespace) -> int:
    from config.reader import default_path
    from controller.camera import CameraError
    from hil.footage import record_footage
    source = int(args.camera) if args.camera.isdigit() else args.camera
    try:
        n = record_footage(source, args.config or default_path("camera.yaml"), args.out, args.seconds)
    except (ConfigError, CameraError, OSError) as e:
        raise UserError(str(e)) from e
    print(f"wrote {n} frames to {args.out}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from hil.bench import report, run_hil_bench
    res = run_hil_bench(args.frames, args.passes, args.workers)
    print(json.dumps(res, allow_nan=False) if args.json else report(res))
    return 0
