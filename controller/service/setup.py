"""A service built from the configuration: the backend, the planners, the opponent, the recorder.

    game = build_game(load_settings(), seed=7, run_dir=new_run_dir("runs"))
    winner = game.service.run()
    game.close()

Used by ``cuerobot run``, ``cuerobot bench controller`` and the tests, so that they all drive the
same assembly. Resuming: ``resume_state(read_run(run_dir))`` gives what the game log says (game
state, shots played, balls to spot, the last strike's seq); the simulated world is put back on
the table it had after the last recorded shot (``controller.sim.backend.truth_state_at``).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from config.reader import ConfigError, config_dir
from config.settings import Settings
from controller.service.gamelog import game_from_json
from controller.service.hub import Hub
from controller.service.opponent import PersonHands, PersonOpponent, SimOpponent
from controller.service.service import Parts, Service
from hil.recording import FrameLog, RunRecording, RunWriter
from planner.decision import make_planner
from planner.rules.game import GameState
from planner.shot import PRESETS, ShotLimits, error_model_for

log = logging.getLogger(__name__)

CONFIG_FILES = ("table.yaml", "planner.yaml", "robot.yaml", "sim.yaml", "camera.yaml", "service.yaml")


@dataclass(frozen=True)
class Resumed:
    """What a game log says about a game to continue: the game state, the shots recorded, the
    balls still to be spotted, the last seq the robot struck, the game's seed, and the records."""
    game: GameState
    shots: int
    pending_spot: tuple[int, ...]
    last_seq: int
    seed: int
    records: tuple = ()


def resume_state(rec: RunRecording) -> Resumed:
    """The game to continue from a run directory's log. Raises ValueError if the game is over
    or the log holds no start record."""
    if rec.end is not None:
        raise ValueError(f"{rec.root}: the game is over ({rec.end.get('winner_name')} won); nothing to resume")
    start = next((r for r in rec.records if r.get("type") == "start"), None)
    if start is None:
        raise ValueError(f"{rec.root}: the game log has no start record")
    shots = rec.shots
    if not shots:
        return Resumed(game_from_json(start["game"]), 0, (), 0, int(start["seed"]), tuple(rec.records))
    last = shots[-1]
    seqs = [s["sent"]["seq"] for s in shots if s.get("sent") and s["sent"].get("seq")]
    return Resumed(game_from_json(last["game_after"]), len(shots), tuple(last["ruling"]["spotted"]),
                   max(seqs, default=0), int(start["seed"]), tuple(rec.records))


def hello_limits(hello) -> tuple[ShotLimits, str]:
    lim = hello.limits
    return ShotLimits.from_ranges(lim.theta, lim.V, lim.a, lim.b), f"the robot's HELLO (firmware {hello.firmware})"


@dataclass
class Game:
    """A built game: the service and what to close after it. truth: the simulator's truth
    (SimTruth) on the sim backend, for harnesses only."""
    service: Service
    backend: object
    writer: RunWriter | None
    truth: object | None = None
    frame_log: FrameLog | None = None
    closers: list = field(default_factory=list)

    def close(self) -> None:
        for c in (self.backend.close, *(self.closers)):
            try:
                c()
            except Exception as e:       # close everything even if one part fails
                log.warning("closing: %s", e)
        if self.frame_log is not None:
            self.frame_log.close()
        if self.writer is not None:
            self.writer.close()


def build_game(settings: Settings, *, seed: int, backend: str | None = None, players: tuple[str, str] | None = None,
               noise: str = "high", run_dir: str | Path | None = None, resume: Resumed | None = None,
               out=None, sim_timing=None, sim_faults=None, driver_overrides=None, vision=None,
               synthetic_camera=None, meta: dict | None = None, config_source: str | Path | None = None) -> Game:
    """Assemble a game. backend: "sim" or "serial" (default service.yaml's); players: the robot's
    and the opponent's planners (default service.yaml's; the opponent plays only on sim);
    noise: the preset the robot's planner samples with when robot.yaml has no measured
    ``error_sigmas``; run_dir: where to record (None: nothing written); resume: continue that
    game. sim_timing, sim_faults, driver_overrides: the simulated robot's timing and faults and
    the driver's settings, replacing the configured ones (tests). Raises ConfigError when the
    planner asks the robot for more than its HELLO declares."""
    svc = settings.service
    backend = backend or svc.backend
    robot_name, opp_name = players or (svc.players.robot, svc.players.opponent)
    from controller.sim.backend import SimTruth, derive_seeds, open_sim_backend, truth_state_at

    seeds = derive_seeds(seed, resume.shots if resume else 0)
    writer = RunWriter(run_dir, resume=resume is not None) if run_dir is not None else None
    if writer is not None and resume is None:
        src = Path(config_source) if config_source is not None else config_dir()
        writer.snapshot_config({n: src / n for n in CONFIG_FILES if (src / n).exists()},
                               {"seed": seed, "seeds": seeds, "backend": backend, "players": [robot_name, opp_name],
                                "noise": noise, "started": time.time(), **(meta or {})})
    flog = FrameLog(writer.serial_log_path) if writer is not None else None
    tc = settings.table
    try:
        if backend == "sim":
            state = truth_state_at(run_dir, resume.shots) if resume and resume.shots else None
            hw = open_sim_backend(settings, seeds, frame_log=flog, state=state, timing=sim_timing, faults=sim_faults,
                                  driver_overrides=driver_overrides, synthetic_camera=synthetic_camera)
        else:
            hw = open_serial_backend(settings, flog)
    except BaseException:
        if flog is not None:
            flog.close()
        if writer is not None:
            writer.close()
        raise
    game = Game(None, hw, writer, frame_log=flog)
    try:
        limits, source = hello_limits(hw.actuator.hello)
        error, label = error_model_for(settings.robot.error_sigmas, noise)
        planner = make_planner(robot_name, error, seeds["robot_planner"], tcfg=tc, pcfg=settings.planner, limits=limits,
                               limits_source=source)
        model = error_model_meta(settings.robot, error, label, noise)
        (out or log.info)(f"error model {label}: sigmas {model['sigmas']} from {model['source']}; "
                          f"biases {model['biases']}; difficulty table {model['difficulty_table']}")
        if backend == "sim":
            opp_error = PRESETS[svc.players.opponent_noise]
            opp_planner = make_planner(opp_name, svc.players.opponent_noise, seeds["opponent_planner"], tcfg=tc,
                                       pcfg=settings.planner,
                                       limits=limits, limits_source=source)
            opponent = SimOpponent(opp_planner, opp_error, np.random.default_rng(seeds["opponent"]),
                                   hw.world.play, tc.physics.R)
            hands = hw.hands
            game.truth = SimTruth(hw.world, run_dir, tc.table.pocket_ids)
            hw.record_frame_truth(writer)
        else:
            opponent, hands = PersonOpponent(), PersonHands()
        if vision is None:
            from vision.pipeline import TableVision
            vision = TableVision(settings.camera.camera, tc.table, tc.physics.R, settings.camera.landmarks,
                                 settings.camera.cloth_srgb)
        parts = Parts(camera=hw.camera, clock=hw.clock, actuator=hw.actuator, vision=vision, planner=planner,
                      opponent=opponent, hands=hands, table=tc.table, R=tc.physics.R, backend=backend)
        names = (f"{robot_name} (robot)", f"{opponent.name} (opponent)")
        hub = Hub(settings.camera.camera, tc.physics.R)
        for r in (resume.records if resume else ()):
            hub.add_record(r)                  # the dashboard's log holds the whole game
        game.service = Service(parts, svc, writer=writer, game=resume.game if resume else None,
                               shots_done=resume.shots if resume else 0,
                               pending_spot=resume.pending_spot if resume else (), names=names,
                               on_record=game.truth.on_record if game.truth is not None else None, out=out,
                               hub=hub,
                               last_seq=resume.last_seq if resume else 0,
                               meta={"seed": seed, "noise": label, "error_model": model})
    except BaseException:
        game.close()
        raise
    return game


def error_model_meta(robot, error, label: str, preset: str) -> dict:
    """What the run log's start record says of the robot planner's error model: its label,
    sigmas and source (robot.yaml's calibration record, or the preset used for want of one), the
    biases the driver corrects, and the difficulty table file it plans with (docs/frame.md units)."""
    from planner.difficulty import difficulty_dir
    from planner.shot import SHOT_FIELDS

    source = robot.error_source() if robot.error_sigmas is not None else \
        f"the {preset!r} preset (robot.yaml has no error_sigmas)"
    return {"label": label, "sigmas": dict(zip(SHOT_FIELDS, error.sigmas().tolist())), "source": source,
            "biases": dict(zip(SHOT_FIELDS, robot.biases.as_array().tolist())),
            "difficulty_table": str(difficulty_dir() / f"difficulty_{label}.npz")}


@dataclass
class SerialBackend:
    """The hardware: the robot on robot.yaml's port, the camera of camera.yaml, the system clock."""
    actuator: object
    camera: object
    clock: object

    def close(self) -> None:
        try:
            self.actuator.close()
        finally:
            self.camera.close()


class MonotonicClock:
    """The service clock on hardware: ``time.monotonic`` [s]."""

    def now(self) -> float:
        return time.monotonic()


def open_serial_backend(settings: Settings, frame_log) -> SerialBackend:
    """The robot (config/robot.yaml driver.port) and the camera (config/camera.yaml source,
    ``controller.camera.VideoCamera``). Raises ConfigError when camera.yaml names no source."""
    from controller.driver.actuator import Actuator

    try:
        from controller.camera import VideoCamera
    except ImportError as e:
        raise ConfigError("the hardware camera (controller.camera.VideoCamera) is not available in this build") from e
    source = getattr(settings.camera, "source", None)
    if source is None:
        raise ConfigError(f"{settings.camera.path}: no camera source (an OpenCV device index, file or URL)")
    act = Actuator(settings.robot.driver, frame_log)
    act.connect()
    try:
        cam = VideoCamera(source)
    except BaseException:
        act.close()
        raise
    return SerialBackend(act, cam, MonotonicClock())
