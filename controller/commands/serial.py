"""``cuerobot sim-robot`` (the simulated robot on a pseudo-terminal), ``cuerobot robot conformance``
(certify any robot's firmware against docs/protocol.md) and ``cuerobot bench serial`` (the fault
soak of the serial link). See controller/cli.py for the registry contract."""
from __future__ import annotations

import json
import logging
import signal
import sys

from controller.commands.args import UserError, count, existing_file, new_path, output_file, positive_float, seed


def _sim_robot(args) -> int:
    from config.robot import load_robot_settings
    from config.sim import load_sim_settings
    from controller.sim.quirks import QUIRKS
    from controller.sim.robot import SimRobot
    from controller.sim.world import PhysicsWorld, RecordingWorld

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="sim-robot: %(message)s")
    cfg = load_sim_settings(args.config)
    limits = load_robot_settings(args.robot).limits
    if cfg.world == "physics":
        import numpy as np

        from config.table import load_table_settings
        from planner.physics.engine import Simulator
        from planner.rack import rack_8ball

        logging.info("world: the physics engine on a fresh rack (compiling it on a first run takes a while)")
        tc = load_table_settings()
        state = rack_8ball(tc.table, tc.physics.R, np.random.default_rng(cfg.seed))
        world = PhysicsWorld(Simulator(tc.table, tc.physics), state, args.strike_log)
    else:
        world = RecordingWorld(args.strike_log)
    try:
        robot = SimRobot(cfg, limits, world, args.link, quirks=args.quirk)
    except ValueError as e:   # an unknown quirk (named, with the known ones), or limits a HELLO cannot declare
        world.close()
        raise UserError(str(e)) from e
    for name in args.quirk:
        logging.info("quirk %s: breaks [%s], %s", name, QUIRKS[name].clause, QUIRKS[name].what)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: robot.request_stop())
    try:
        print(robot.open(), flush=True)
        robot.serve()
    finally:
        robot.stop()
        world.close()
    return 0


def _conformance(args) -> int:
    import serial

    from config.atomic import write_atomic
    from config.robot import load_robot_settings
    from controller.conformance.report import as_html, as_json, as_text, result_line, summary_line
    from controller.conformance.runner import run_suite

    driver = load_robot_settings(args.robot).driver
    baud = args.baudrate or driver.baudrate
    timeout = args.reply_timeout or driver.reply_timeout_s
    progress = None if args.json else (lambda r: print(result_line(r), flush=True))
    try:
        report = run_suite(args.port, baud, timeout, confirm=_operator(args.yes), only=args.check,
                           progress=progress)
    except (serial.SerialException, OSError, ValueError) as e:
        raise UserError(f"cannot open {args.port}: {e}") from e
    if args.report:
        write_atomic(args.report, as_html(report))
    if args.json:
        print(json.dumps(as_json(report), allow_nan=False))
    else:
        print(summary_line(report) if progress else as_text(report))
    return 0 if report.ok else 1


def _operator(yes: bool):
    """The confirmation before the first motion: always yes with --yes; otherwise ask on the
    terminal (no terminal: no motion)."""
    def confirm(plan: str) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            print(f"{plan}\nNot a terminal: moving checks skipped (run with --yes to allow them).", file=sys.stderr)
            return False
        return input(f"{plan}\nGo ahead? [y/N] ").strip().lower() in ("y", "yes")
    return confirm


def _bench(args) -> int:
    from tqdm import tqdm

    from config.sim import load_soak_settings
    from controller.serial_bench import format_report, run_soak

    setup = load_soak_settings(args.config, args.robot)
    bar = None if args.json else (lambda xs: tqdm(xs, desc="soak", unit="shot"))
    r = run_soak(args.shots, setup, seed=args.seed, progress=bar, frame_log=args.frame_log)
    print(json.dumps(r.summary(), allow_nan=False) if args.json else format_report(r))
    return 0 if r.ok else 1


def register(sub) -> None:
    p = sub.add_parser("sim-robot", help="run the simulated robot on a pseudo-terminal; prints its port")
    p.add_argument("--config", type=existing_file, help="simulator YAML (default config/sim.yaml)")
    p.add_argument("--robot", type=existing_file,
                   help="robot YAML with the limits to declare (default config/robot.yaml)")
    p.add_argument("--link", type=new_path,
                   help="path of the stable symlink to the pty, created by the robot and removed when it stops; "
                        "nothing may exist there yet (default: in a new temp dir)")
    p.add_argument("--strike-log", type=output_file, help="append every executed strike to this JSON-lines file")
    p.add_argument("--quirk", action="append", default=[], metavar="NAME",
                   help="break one clause of docs/protocol.md on purpose (repeatable; controller/sim/quirks.py "
                        "lists them, an unknown name prints the known ones)")
    p.set_defaults(func=_sim_robot)

    robot = sub.add_parser("robot", help="tools for the physical robot")
    robot_sub = robot.add_subparsers(dest="robot_command", metavar="TOOL", required=True)
    c = robot_sub.add_parser("conformance", help="certify a robot's firmware against docs/protocol.md")
    c.add_argument("--port", required=True, help="device path or pyserial URL of the robot")
    c.add_argument("--json", action="store_true", help="print the results as one JSON object")
    c.add_argument("--report", metavar="OUT.html", type=output_file,
                   help="write an HTML report with every check's transcript")
    c.add_argument("--yes", action="store_true", help="allow motion without asking (within the declared limits)")
    c.add_argument("--check", action="append", metavar="NAME", help="run only this check (repeatable)")
    c.add_argument("--robot", type=existing_file,
                   help="robot YAML for the default baud rate and reply timeout (default config/robot.yaml)")
    c.add_argument("--baudrate", type=count, help="override the baud rate (default: the robot YAML's)")
    c.add_argument("--reply-timeout", type=positive_float, metavar="S",
                   help="override the reply timeout [s] (default: the robot YAML's)")
    c.set_defaults(func=_conformance)


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser("serial", help="fault soak: shots executed exactly once under line faults")
    p.add_argument("--shots", type=count, default=2000, help="number of planned shots")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object (times in ms)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the planned shots")
    p.add_argument("--config", type=existing_file, help="simulator YAML with a soak profile (default config/sim.yaml)")
    p.add_argument("--robot", type=existing_file, help="robot YAML (default config/robot.yaml)")
    p.add_argument("--frame-log", type=output_file, help="write the driver's frame log here")
    p.set_defaults(func=_bench)
