"""``cuerobot run``: the main job, a whole 8-ball game through the controller service, and
``cuerobot bench controller``.

The service (controller/service/) plays the robot's planner against the opponent: on the ``sim``
backend the simulated robot on its pty, driven through the real driver, the simulated camera
rendering the physics world, vision, the observed referee; on ``serial`` the robot of
config/robot.yaml and the camera of config/camera.yaml against a person. One line per shot goes to
stdout, the recording to ``runs/<timestamp>/`` (docs/recording.md), the dashboard to the
address of config/service.yaml.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
from pathlib import Path

import numpy as np

from config.service import NOISE_PRESETS, PLANNERS
from controller.commands.args import UserError, count, existing_dir, seed


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def run_directory(text: str) -> Path:
    """Argument type of --resume: a run directory (one with a game log, docs/recording.md)."""
    from hil.recording import GAME_LOG

    if not (Path(text) / GAME_LOG).is_file():
        why = f"no {GAME_LOG}" if Path(text).is_dir() else "no such directory"
        raise argparse.ArgumentTypeError(f"{text}: not a run directory ({why}); nothing to resume")
    return Path(text)


def _run(args) -> int:
    from config.settings import load_settings
    from hil.recording import new_run_dir, read_run

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    if args.resume:
        from controller.service.setup import resume_state
        try:
            rec = read_run(args.resume)
            resumed = resume_state(rec)
        except ValueError as e:           # a finished game, a log that does not say what to resume
            raise UserError(str(e)) from e      # names the run directory
        except KeyError as e:
            raise UserError(f"{args.resume}: the game log lacks {e}; not a run directory this version wrote") from e
        settings = load_settings(rec.config_dir)
        seed, run_dir, meta = resumed.seed, rec.root, rec.meta
        backend = args.backend or meta.get("backend")
        players = tuple(meta.get("players") or ())
        noise = meta.get("noise", args.noise)
        config_source = rec.config_dir
    else:
        settings = load_settings(args.config)
        resumed = None
        seed = args.seed
        backend = args.backend or settings.service.backend
        players = tuple(args.players) if args.players else (settings.service.players.robot,
                                                            settings.service.players.opponent)
        noise = args.noise
        run_dir = new_run_dir(settings.service.runs_dir)
        config_source = args.config
    opp = f"the simulated opponent ({players[1]})" if backend == "sim" else "a person"
    what = f"resuming after shot {resumed.shots}" if resumed else "a new rack"
    print(f"8-ball on the {backend} backend, {what}: the robot ({players[0]}) against {opp}; "
          f"seed {seed}; recording to {run_dir}", flush=True)
    # the service's parts, imported after the first line is out
    from controller.service.setup import build_game
    game = build_game(settings, seed=seed, backend=backend, players=players, noise=noise, run_dir=run_dir,
                      resume=resumed, out=lambda line: print(line, flush=True), config_source=config_source,
                      meta={"argv": sys.argv[1:]})
    dashboard = None
    try:
        if not args.no_dashboard:
            dashboard = _dashboard(game.service, settings.service.api)
        winner = _serve(game.service, attended=dashboard is not None)
    finally:
        if dashboard is not None:
            dashboard.stop()
        game.close()
    svc = game.service
    lat = [r["latency_s"] for r in svc.game_log() if r.get("type") == "shot" and r.get("latency_s") is not None]
    tail = f"; robot's latency at rest -> SHOT sent: median {np.median(lat):.2f} s" if lat else ""
    if winner is None:
        print(f"stopped after {_plural(svc.n, 'shot')} ({svc.machine.state.value}); continue with: "
              f"cuerobot run --resume {run_dir}{tail}")
        return 1
    print(f"winner: {svc.names[winner]} after {_plural(svc.n, 'shot')}{tail}")
    return 0


def _serve(service, attended: bool) -> int | None:
    """Run the service on a thread so that Ctrl-C stops it between shots (``Service.stop``).
    Unless ``attended`` (a dashboard to resume it from), a pause or fault stops it: it says why on
    stderr. Returns the winner, or None when stopped."""
    from controller.service.states import State
    box: dict = {}

    def target():
        try:
            box["winner"] = service.run()
        except BaseException as e:      # re-raised on the main thread
            box["error"] = e

    th = threading.Thread(target=target, name="cuerobot-service", daemon=True)
    th.start()
    try:
        while th.is_alive():
            th.join(0.2)
            state = service.machine.state
            if not attended and state in (State.PAUSED, State.FAULTED):
                print(f"{state.value}: {service.machine.reason}; with no dashboard nobody can resume the game: "
                      "stopping", file=sys.stderr, flush=True)
                service.stop()
                th.join()
    except KeyboardInterrupt:
        print("stopping (Ctrl-C): the service stops before its next shot", file=sys.stderr, flush=True)
        service.stop()
        th.join()
    if "error" in box:
        raise box["error"]
    return box.get("winner")


def _play_unattended(service) -> str | None:
    """Play a game with nobody at the dashboard: None when it ends; the reason when the service
    pauses or faults (it is then stopped: the game stalled)."""
    from controller.service.states import State

    th = threading.Thread(target=service.run, name="cuerobot-service", daemon=True)
    th.start()
    service.machine.wait_for((State.GAME_OVER, State.PAUSED, State.FAULTED))
    stalled = service.machine.reason if service.machine.state is not State.GAME_OVER else None
    service.stop()
    th.join()
    return stalled


def _dashboard(service, api):
    """Start the dashboard (controller.api) if it is installed and its address is free."""
    try:
        from controller.api import ApiServerError, resolve_token, start_dashboard
    except ImportError as e:
        print(f"dashboard: not available ({e})", flush=True)
        return None
    try:
        server = start_dashboard(service, api)
    except ApiServerError as e:
        print(f"dashboard: not started: {e}", flush=True)
        return None
    source = resolve_token(api.token).source
    if source != "generated":
        where = "service.yaml api.token" if source == "config" else "$CUEROBOT_API_TOKEN"
        print(f"dashboard: control token from {where}", flush=True)
    return server


def _bench(args) -> int:
    from config.settings import load_settings
    from controller.service.bench import BenchResult, add_game, baseline, format_report
    from controller.service.setup import build_game, hello_limits
    from hil.recording import new_run_dir
    from planner.decision import make_planner
    from planner.shot import error_model_for

    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    settings = load_settings(args.config)
    players = tuple(args.players) if args.players else (settings.service.players.robot,
                                                        settings.service.players.opponent)
    res = BenchResult()
    records_all = []
    limits = None
    for g in range(args.games):
        run_dir = new_run_dir(args.runs_dir or settings.service.runs_dir)
        game = build_game(settings, seed=args.seed + g, players=players, run_dir=run_dir,
                          out=None if args.json else (lambda line: print(line, flush=True)),
                          meta={"argv": sys.argv[1:], "bench": True})
        t0 = time.perf_counter()
        try:
            stalled = _play_unattended(game.service)
            wall = time.perf_counter() - t0
            records = game.service.game_log()
            add_game(res, records, game.truth.facts, settings.table.table.pocket_ids, wall,
                     game.service.refused_for_limits, stalled)
            records_all += records
            limits = hello_limits(game.backend.actuator.hello)
        finally:
            game.close()
        if not args.json:
            print(f"game {g + 1}/{args.games}: {wall:.1f} s, {run_dir}" + (f"; STALLED: {stalled}" if stalled else ""),
                  flush=True)
    error, _ = error_model_for(settings.robot.error_sigmas, args.noise)
    planner = make_planner(players[0], error, args.seed, tcfg=settings.table,
                           pcfg=settings.planner,
                           limits=limits[0], limits_source=limits[1])
    res.baseline_s = baseline(planner, records_all)
    s = res.summary()
    print(json.dumps(s, allow_nan=False) if args.json else format_report(s, players, res.disagreements))
    return 0


def register(sub) -> None:
    p = sub.add_parser("run", help="the main job: a whole 8-ball game through the controller service")
    p.add_argument("--players", nargs=2, default=None, metavar=("ROBOT", "OPPONENT"), choices=PLANNERS,
                   help="planners: greedy, prob or mc (default config/service.yaml players: mc greedy)")
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of the whole game (rack, noise, planners): the same seed plays the same game on any "
                        "machine (default 0)")
    p.add_argument("--noise", choices=NOISE_PRESETS, default="high",
                   help="the error model the robot's planner assumes when config/robot.yaml has no error_sigmas")
    p.add_argument("--backend", choices=("sim", "serial"), default=None,
                   help="sim: simulated robot, camera and world; serial: the hardware (default config/service.yaml)")
    p.add_argument("--resume", metavar="RUN_DIR", type=run_directory,
                   help="continue the game recorded in RUN_DIR (e.g. runs/<id>)")
    p.add_argument("--config", metavar="DIR", type=existing_dir,
                   help="configuration directory (default $CUEROBOT_CONFIG_DIR, else config/)")
    p.add_argument("--no-dashboard", action="store_true", help="do not start the dashboard")
    p.set_defaults(func=_run)


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser("controller", help="whole games through the service: latency, referee agreement")
    p.add_argument("--games", type=count, default=1, help="games to play")
    p.add_argument("--seed", type=seed, default=0, help="seed of the first game (game g: seed + g)")
    p.add_argument("--players", nargs=2, default=None, metavar=("ROBOT", "OPPONENT"), choices=PLANNERS,
                   help="planners (default config/service.yaml players)")
    p.add_argument("--noise", choices=NOISE_PRESETS, default="high",
                   help="the robot planner's error model when config/robot.yaml has none")
    p.add_argument("--config", metavar="DIR", type=existing_dir,
                   help="configuration directory (default $CUEROBOT_CONFIG_DIR, else config/)")
    p.add_argument("--runs-dir", type=existing_dir,
                   help="where the games are recorded (default config/service.yaml runs_dir)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=_bench)
