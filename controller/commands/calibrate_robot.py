"""``cuerobot calibrate robot`` (the robot's error model from its own shots) and ``cuerobot bench
calibration`` (its speed). See controller/commands/calibrate.py and controller/cli.py for the
registry contract.

On ``--backend sim`` the simulated robot, table and camera run in a child process
(calibration/robot_rig.py) that alone reads the sim config (``--sim-config``, default
config/sim.yaml) and its true sigmas and biases; this process drives the robot through the real
driver on its pty and sees only camera frames. On ``--backend serial`` the hardware robot and camera
are used the same way and an operator places the balls (calibration/robot_operator.py): the
prompts go to stderr (between the progress bar's updates) and to the dashboard.
"""
from __future__ import annotations

import datetime
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from controller.commands.args import count, existing_file, output_file, positive_float, seed

PROG = "cuerobot calibrate robot"
FIT_BUDGET_S = 1.0          # issue 22: the fit of one shot
RUN_BUDGET_S = 600.0        # issue 22: a 100-shot calibration on sim
PLACE_TIMEOUT_S = 120.0     # serial: the operator's time to place one shot's balls [s]


@dataclass
class CalibrationRun:
    """A calibration and its wall time [s]."""
    calibration: object
    wall_s: float


@dataclass
class _Rig:
    """What both backends calibrate with: the config directory's settings, the planner-side
    models (vision, engine, the replay's renderer) and the designed shots."""
    robot: object
    camera: object
    R: float
    vision: object
    simulator: object
    previous: object
    replay: object
    shots: list


def _rig(config_dir: Path, shots: int, seed_: int) -> _Rig:
    import numpy as np

    from calibration.robot_design import design
    from calibration.robot_replay import Replay
    from config.camera import load_camera_settings
    from config.robot import load_robot_settings
    from config.table import load_table_settings
    from planner.physics.engine import Simulator
    from planner.shot import PRESETS
    from vision.pipeline import TableVision
    from vision.render import SyntheticCamera

    tc = load_table_settings(config_dir / "table.yaml")
    robot = load_robot_settings(config_dir / "robot.yaml")
    cam = load_camera_settings(tc.table, config_dir / "camera.yaml")
    R = tc.physics.R
    vision = TableVision(cam.camera, tc.table, R, cam.landmarks, cam.cloth_srgb)
    simulator = Simulator(tc.table, tc.physics)
    replay = Replay(SyntheticCamera(cam.camera, tc.table, R, cam.landmarks).fast_renderer(seed=seed_),
                    vision, simulator, np.random.default_rng(seed_))
    previous = robot.error_sigmas if robot.error_sigmas is not None else PRESETS["high"]
    return _Rig(robot, cam, R, vision, simulator, previous, replay, design(shots, tc.table, R))


def run_sim_calibration(shots: int, seed_: int, sim_config: Path, config_dir: Path, progress=None) -> CalibrationRun:
    """Calibrate the simulated robot with the first ``shots`` designed shots. The robot's true
    error comes from ``sim_config``, read only by the rig's process. Raises ConfigError,
    RigError, ActuatorError."""
    from calibration.robot import calibrate_robot
    from calibration.robot_rig import SimRig
    from controller.driver.actuator import Actuator

    p = _rig(config_dir, shots, seed_)
    t_start = time.perf_counter()
    rig = SimRig.start(config_dir, sim_config, seed_)
    try:
        with Actuator(replace(p.robot.driver, port=rig.port, frame_log=None)) as act:
            cal = calibrate_robot(p.shots, rig, lambda shot, xy: act.shot(shot, xy).command.params, rig, p.vision,
                                  p.simulator, p.previous, p.robot.biases, p.replay, progress)
    finally:
        rig.close()
    return CalibrationRun(cal, time.perf_counter() - t_start)


def run_serial_calibration(shots: int, seed_: int, config_dir: Path, place_timeout_s: float, say,
                           dashboard: bool, progress=None) -> CalibrationRun:
    """Calibrate the hardware robot (robot.yaml's ``driver.port``) as the hardware camera
    (camera.yaml's ``source``) sees it; the operator places the balls of each shot where
    ``say(line)`` (and the dashboard, unless ``dashboard`` is False; its address goes to stderr)
    says, within ``place_timeout_s`` [s] of camera time.
    Raises ConfigError, CameraError, ActuatorError, CalibrationStopped (e-stop), ApiServerError."""
    from calibration.robot import calibrate_robot
    from calibration.robot_operator import CalibrationDesk, OperatorPlacer, ShownCamera
    from config.reader import ConfigError
    from config.service import load_service_settings
    from controller.camera import BufferedCamera, VideoCamera
    from controller.driver.actuator import Actuator

    p = _rig(config_dir, shots, seed_)
    if p.camera.source is None:
        raise ConfigError(f"{p.camera.path}: no camera source (an OpenCV device index, file or URL) for the hardware camera")
    api = load_service_settings(config_dir / "service.yaml").api if dashboard else None
    t_start = time.perf_counter()
    with Actuator(p.robot.driver) as act:
        video = VideoCamera(p.camera.source)
        camera = BufferedCamera(video) if video.live else video
        server = None
        try:
            desk = CalibrationDesk(p.camera.camera, p.R, act.estop)
            if api is not None:
                from controller.api import start_dashboard
                server = start_dashboard(desk, api, out=sys.stderr)
            placer = OperatorPlacer(camera.discard if video.live else _nothing, say, desk, place_timeout_s, shots)
            cal = calibrate_robot(p.shots, placer, desk.guard(lambda shot, xy: act.shot(shot, xy).command.params),
                                  ShownCamera(camera, desk), p.vision, p.simulator, p.previous, p.robot.biases,
                                  p.replay, progress)
        finally:
            if server is not None:
                server.stop()
            camera.close()
    return CalibrationRun(cal, time.perf_counter() - t_start)


def _nothing() -> None:
    """A video file holds no frames from before: nothing to drop."""


def _calibrate(args) -> int:
    from calibration.robot_config import write_calibration
    from calibration.robot_operator import CalibrationStopped
    from calibration.robot_report import write_report
    from calibration.robot_rig import RigError
    from config.reader import ConfigError, config_dir
    from controller.api import ApiServerError
    from controller.camera import CameraError
    from controller.driver.errors import ActuatorError

    cdir = config_dir()
    out = args.out or cdir / "robot.yaml"
    bar = _progress_bar(args.shots)
    try:
        with bar:
            if args.backend == "serial":
                run = run_serial_calibration(args.shots, args.seed, cdir, args.place_timeout,
                                             lambda line: bar.write(line, file=sys.stderr),
                                             not args.no_dashboard, progress=lambda r: bar.update(1))
            else:
                sim_config = args.sim_config or cdir / "sim.yaml"
                run = run_sim_calibration(args.shots, args.seed, Path(sim_config), cdir,
                                          progress=lambda r: bar.update(1))
    except (ConfigError, RigError, ActuatorError, CameraError, ApiServerError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except CalibrationStopped as e:
        print(f"{PROG}: stopped ({e}); {out} is unchanged", file=sys.stderr)
        return 1
    cal = run.calibration
    if cal.measured == 0:
        print(f"{PROG}: no shot could be measured; {out} is unchanged", file=sys.stderr)
        return 1
    date = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    try:
        write_calibration(out, cal.sigmas(), cal.biases(), date, cal.measured)
    except ConfigError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    if args.report:
        write_report(cal, args.report)
    if args.json:
        print(json.dumps(cal.to_json()))
    else:
        _print_summary(cal, out, run)
    return 0


def _progress_bar(total: int):
    from tqdm import tqdm

    return tqdm(total=total, desc="calibration shots", unit="shot", file=sys.stderr, leave=False)


def _print_summary(cal, out, run: CalibrationRun) -> None:
    from calibration.robot_report import SHOWN_UNITS
    from planner.shot import SHOT_FIELDS

    print(f"{cal.measured} of {len(cal.shots)} shots measured in {run.wall_s:.0f} s; wrote {out}")
    for k in SHOT_FIELDS:
        unit, scale = SHOWN_UNITS[k]
        st = cal.stats[k]
        if st.identifiable:
            print(f"  {k:5s} sigma {st.sigma * scale:.4g} {unit} (95% CI {st.ci95[0] * scale:.4g}..{st.ci95[1] * scale:.4g})"
                  f"  bias {st.bias * scale:+.4g} {unit}  ({st.n} shots)")
        else:
            kept = getattr(cal.sigmas(), k) * scale
            print(f"  {k:5s} unidentifiable ({st.n} shots measured it, fit sd {st.meas_sd * scale:.3g} {unit}); "
                  f"kept sigma {kept:.4g} {unit}")
    for i, r in enumerate(cal.shots):
        if r.problem:
            print(f"  shot {i} ({r.designed.kind.name}) not used: {r.problem}")


def _bench(args) -> int:
    """Time a calibration on sim and the fit of one shot; the fit's baseline is the same least
    squares with scipy's own finite-difference Jacobian over every frame at once (no
    continuation, no stages), on the same observed shots."""
    import numpy as np

    from calibration.robot_bench import naive_fit_time
    from config.reader import config_dir

    cdir = config_dir()
    with _progress_bar(args.shots) as bar:
        run = run_sim_calibration(args.shots, args.seed, cdir / "sim.yaml", cdir, progress=lambda r: bar.update(1))
    fits = np.array([r.fit_s for r in run.calibration.shots if r.fit is not None])
    print(f"calibration on sim, {args.shots} shots: {run.wall_s:.1f} s wall "
          f"({run.wall_s / args.shots:.2f} s/shot; budget {RUN_BUDGET_S:.0f} s for 100 shots: "
          f"{run.wall_s / args.shots * 100:.0f} s projected, x{RUN_BUDGET_S / (run.wall_s / args.shots * 100):.1f} headroom)")
    base = naive_fit_time(run.calibration, cdir)
    print(f"one-shot fit: mean {fits.mean():.3f} s, max {fits.max():.3f} s (budget {FIT_BUDGET_S:.0f} s, "
          f"x{FIT_BUDGET_S / fits.max():.1f} headroom at the max)  "
          f"(baseline: plain least squares, 2-point Jacobian, all six unknowns at once: mean {base:.3f} s, "
          f"x{base / fits.mean():.2f})")
    return 0


def register_calibrate(targets) -> None:
    p = targets.add_parser("robot", help="measure the robot's error sigmas and biases from its own shots",
                           description="Measure the robot's error sigmas and biases from its own shots, as the camera sees them.")
    p.add_argument("--backend", choices=("sim", "serial"), default="sim",
                   help="sim: the simulated robot, table and camera; serial: the hardware robot on robot.yaml's "
                        "driver.port and the camera of camera.yaml's source, an operator placing the balls")
    p.add_argument("--sim-config", type=existing_file, default=None,
                   help="the simulated robot's config with its true sigmas and biases (default config/sim.yaml)")
    p.add_argument("--shots", type=count, required=True, help="calibration shots to play (100 for a full run)")
    p.add_argument("--out", type=output_file, default=None, help="robot.yaml to update (default config/robot.yaml)")
    p.add_argument("--report", type=output_file, default=None, help="write the report figure (PNG) here")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of the simulated robot's noise and of the camera model that measures the observation's error")
    p.add_argument("--place-timeout", type=positive_float, default=PLACE_TIMEOUT_S,
                   help="serial: seconds the operator has to place each shot's balls before the shot is skipped")
    p.add_argument("--no-dashboard", action="store_true",
                   help="serial: do not serve the dashboard (the prompts are on stderr either way)")
    p.set_defaults(func=_calibrate)


def register_bench(bench) -> None:
    p = bench.add_parser("calibration", help="the robot calibration on sim: wall time and one-shot fit time")
    p.add_argument("--shots", type=count, default=100, help="calibration shots (default 100)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the simulated robot and its shots")
    p.set_defaults(func=_bench)
