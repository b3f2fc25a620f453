"""``cuerobot sim-robot`` (the simulated robot on a pseudo-terminal) and ``cuerobot bench serial``
(the fault soak of the serial link). See controller/cli.py for the registry contract."""
from __future__ import annotations

import json
import logging
import signal
import sys


def _sim_robot(args) -> int:
    from config.reader import ConfigError

    try:
        return _serve_sim_robot(args)
    except ConfigError as e:
        print(f"cuerobot sim-robot: {e}", file=sys.stderr)
        return 2


def _serve_sim_robot(args) -> int:
    from config.robot import load_robot_settings
    from config.sim import load_sim_settings
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
    robot = SimRobot(cfg, limits, world, args.link)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: robot.request_stop())
    try:
        print(robot.open(), flush=True)
        robot.serve()
    finally:
        robot.stop()
        world.close()
    return 0


def _bench(args) -> int:
    from tqdm import tqdm

    from config.reader import ConfigError
    from config.sim import load_soak_settings
    from controller.serial_bench import format_report, run_soak

    try:
        setup = load_soak_settings(args.config, args.robot)
    except ConfigError as e:
        print(f"cuerobot bench serial: {e}", file=sys.stderr)
        return 2
    bar = None if args.json else (lambda xs: tqdm(xs, desc="soak", unit="shot"))
    r = run_soak(args.shots, setup, seed=args.seed, progress=bar, frame_log=args.frame_log)
    print(json.dumps(r.summary()) if args.json else format_report(r))
    return 0 if r.ok else 1


def register(sub) -> None:
    p = sub.add_parser("sim-robot", help="run the simulated robot on a pseudo-terminal; prints its port")
    p.add_argument("--config", help="simulator YAML (default config/sim.yaml)")
    p.add_argument("--robot", help="robot YAML with the limits to declare (default config/robot.yaml)")
    p.add_argument("--link", help="path of the stable symlink to the pty (default: in a new temp dir)")
    p.add_argument("--strike-log", help="append every executed strike to this JSON-lines file")
    p.set_defaults(func=_sim_robot)


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser("serial", help="fault soak: shots executed exactly once under line faults")
    p.add_argument("--shots", type=int, default=2000, help="number of planned shots (default 2000)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.add_argument("--seed", type=int, default=0, help="seed of the planned shots")
    p.add_argument("--config", help="simulator YAML with a soak profile (default config/sim.yaml)")
    p.add_argument("--robot", help="robot YAML (default config/robot.yaml)")
    p.add_argument("--frame-log", help="write the driver's frame log here")
    p.set_defaults(func=_bench)
