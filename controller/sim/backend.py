"""The simulated hardware the service drives on the ``sim`` backend, assembled in one place.

    hw = open_sim_backend(settings, seeds)      # SimRobot on its pty + PhysicsWorld + SimCamera
    ...  # Service(Parts(camera=hw.camera, clock=hw.clock, actuator=hw.actuator, hands=hw.hands, ...))
    hw.close()

- ``SimRobot`` (controller/sim/robot.py) on a real pseudo-terminal, striking a ``PhysicsWorld``
  with its true execution error (config/sim.yaml, never told to the controller);
- the real driver (``Actuator``) opened on the robot's pty link, recording its frames;
- ``SimCamera`` rendering the world in simulation time on a ``SimClock``, with fresh sensor
  noise in every frame (``FreshNoise``);
- ``SimHands``: ball in hand and the spotted 8 put straight into the world.

The service sees only the camera and the driver. ``SimTruth`` is for the test and benchmark
harness, never for the service: after every shot it stores the world's true table (so that a
killed run resumes on the table it left, as a real table would stay) and the facts of the
simulator's event log (the referee agreement of ``cuerobot bench controller``).
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from config.settings import Settings
from config.sim import Faults, Timing
from controller.camera import CameraFrame
from controller.driver.actuator import Actuator
from controller.service.gamelog import facts_to_json, table_from_json, table_to_json
from controller.sim.robot import SimRobot
from controller.sim.world import PhysicsWorld
from hil.recording import append_line, read_jsonl
from planner.physics.engine import Simulator
from planner.rack import rack_8ball
from planner.rules.facts import read_shot
from planner.state import CUE, TableState

log = logging.getLogger(__name__)

SEED_STREAMS = ("rack", "robot", "opponent", "robot_planner", "opponent_planner", "camera")


def derive_seeds(seed: int, resumed_at: int = 0) -> dict[str, int]:
    """One independent seed per random stream of a game, from the game's ``--seed``
    (numpy SeedSequence.spawn, the same on every machine): the rack, the simulated robot's
    execution noise and faults (instead of sim.yaml's seed), the opponent's execution noise, the
    two planners' samples, the camera's sensor noise. A game resumed after ``resumed_at`` shots
    draws from SeedSequence([seed, resumed_at]) (the rack is then the recorded table)."""
    entropy = int(seed) if resumed_at == 0 else [int(seed), int(resumed_at)]
    kids = np.random.SeedSequence(entropy).spawn(len(SEED_STREAMS))
    return {name: int(k.generate_state(1)[0]) for name, k in zip(SEED_STREAMS, kids)}


class SimHands:
    """Puts balls into the simulated world at once: the cue ball with ``PhysicsWorld.place_cue``,
    any other ball (the spotted 8) with ``PhysicsWorld.set_state``. Raises ValueError where the
    ball cannot rest (the world's check)."""
    automatic = True

    def __init__(self, world: PhysicsWorld):
        self.world = world

    def place(self, ball: int, xy: tuple[float, float]) -> None:
        if ball == CUE:
            self.world.place_cue(xy)
            return
        balls = self.world.snapshot().state.to_dict()
        balls[int(ball)] = (float(xy[0]), float(xy[1]))
        self.world.set_state(TableState.from_dict(balls))


class FreshNoise:
    """A camera whose every frame gets its own sensor noise (``FastRenderer.add_noise``), as a
    real sensor's do. ``SimCamera`` draws the noise once per world state, so that its rest frames
    are one image; then a re-capture would show vision the same pixels again, and a ball vision
    misses in them would stay missed. Wraps a SimCamera built with ``noise=False``."""

    def __init__(self, camera, renderer, rng: np.random.Generator):
        self.camera, self.renderer, self.rng = camera, renderer, rng
        self.fps = camera.fps

    def truth_at(self, t: float):
        """The simulated camera's truth of the frame of time ``t`` (``SimCamera.truth_at``)."""
        return self.camera.truth_at(t)

    def read(self) -> CameraFrame:
        f = self.camera.read()
        image = np.array(f.image)
        self.renderer.add_noise(image, self.rng)
        return CameraFrame(image, f.t, f.index)

    def close(self) -> None:
        self.camera.close()


@dataclass
class SimBackend:
    """The parts of the simulated hardware. ``close()`` stops the robot and closes the driver."""
    robot: SimRobot
    world: PhysicsWorld
    actuator: Actuator
    camera: object
    clock: object
    hands: SimHands

    def record_frame_truth(self, writer) -> None:
        """Have ``writer`` (a ``hil.recording.RunWriter``, or None: nothing) store each frame's
        exact ball positions beside it (frames/truth.jsonl), from the simulated camera (a camera
        without ``truth_at``, e.g. a test's stand-in, records none)."""
        truth_at = getattr(self.camera, "truth_at", None)
        if writer is not None and truth_at is not None:
            writer.frame_truth = truth_at

    def close(self) -> None:
        try:
            self.actuator.close()
        finally:
            self.camera.close()
            self.robot.stop()
            self.world.close()


def open_sim_backend(settings: Settings, seeds: dict[str, int], *, frame_log=None, state: TableState | None = None,
                     timing: Timing | None = None, faults: Faults | None = None, driver_overrides: dict | None = None,
                     strike_log: str | Path | None = None, synthetic_camera=None) -> SimBackend:
    """Start the simulated robot (sim.yaml, its seed replaced by ``seeds["robot"]``; ``timing`` and
    ``faults`` replace sim.yaml's when given) on a fresh rack (``seeds["rack"]``) or on ``state``,
    open the real driver on its pty (robot.yaml's driver settings with ``driver_overrides``,
    its frames to ``frame_log``, a FrameSink) and the simulated camera (service.yaml's fps,
    camera.yaml's lens; ``synthetic_camera`` to share one already built)."""
    from controller.sim.camera import SimCamera, SimClock
    from vision.render import SyntheticCamera

    tc = settings.table
    sim_cfg = replace(settings.sim, seed=seeds["robot"])
    if timing is not None:
        sim_cfg = replace(sim_cfg, timing=timing)
    if faults is not None:
        sim_cfg = replace(sim_cfg, faults=faults)
    if state is None:
        state = rack_8ball(tc.table, tc.physics.R, np.random.default_rng(seeds["rack"]))
    world = PhysicsWorld(Simulator(tc.table, tc.physics), state, strike_log)
    robot = SimRobot(sim_cfg, settings.robot.limits, world).start()
    try:
        driver = replace(settings.robot.driver, port=str(robot.link), frame_log=None, **(driver_overrides or {}))
        actuator = Actuator(driver, frame_log)
        sc = synthetic_camera or SyntheticCamera(settings.camera.camera, tc.table, tc.physics.R,
                                                 settings.camera.landmarks)
        clock = SimClock()
        rng = np.random.default_rng(seeds["camera"])
        camera = FreshNoise(SimCamera(world, sc, settings.service.camera.fps, clock, rng, noise=False),
                            sc.fast_renderer(seed=int(rng.integers(2 ** 31))), rng)
        actuator.connect()
    except BaseException:
        robot.stop()
        world.close()
        raise
    return SimBackend(robot, world, actuator, camera, clock, SimHands(world))


TRUTH_LOG = "sim_truth.jsonl"


class SimTruth:
    """The simulator's truth beside a run, for the harness only (tests, ``cuerobot bench
    controller``, resuming a simulated game). ``on_record`` (pass it as the service's
    ``on_record``) appends, after each shot record, {"n": shots played, "state": the world's true
    table, "facts": the event log's facts of the shot (None if nothing moved)} to
    ``<run>/sim_truth.jsonl``; ``facts`` keeps the facts (JSON form, as
    ``controller.service.gamelog.facts_to_json``) in memory."""

    def __init__(self, world: PhysicsWorld, run_dir: str | Path | None, pocket_ids: tuple[str, ...]):
        self.world, self.pocket_ids = world, pocket_ids
        self.path = None if run_dir is None else Path(run_dir) / TRUTH_LOG
        self._last = world.last_result
        self.facts: list[dict | None] = []

    def on_record(self, rec: dict) -> None:
        if rec.get("type") != "shot":
            return
        res = self.world.last_result
        facts = None if res is self._last else read_shot(res.events, self.pocket_ids)
        self._last = res
        self.facts.append(None if facts is None else facts_to_json(facts))
        if self.path is not None:
            line = {"n": rec["n"] + 1, "state": table_to_json(self.world.state),
                    "facts": None if facts is None else facts_to_json(facts)}
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                append_line(fd, line)
            finally:
                os.close(fd)


def truth_state_at(run_dir: str | Path, shots: int) -> TableState:
    """The world's true table after ``shots`` shots of a simulated run (``SimTruth``'s log).
    Raises ValueError if it was not stored."""
    for line in reversed(read_jsonl(Path(run_dir) / TRUTH_LOG)):
        if line["n"] == shots:
            return table_from_json(line["state"])
    raise ValueError(f"{run_dir}: the simulated table after shot {shots} was not stored ({TRUTH_LOG}); "
                     f"this run cannot be resumed on the sim backend")


def truth_facts(run_dir: str | Path) -> dict[int, dict | None]:
    """{shot number (0-based): the event log's facts as JSON (None: nothing moved)} of a run."""
    return {line["n"] - 1: line["facts"] for line in read_jsonl(Path(run_dir) / TRUTH_LOG)}
