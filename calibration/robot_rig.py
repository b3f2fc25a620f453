"""The simulated robot, table and camera of ``cuerobot calibrate robot --backend sim``, in a process
of their own.

    rig = SimRig.start(config_dir, sim_config, seed)   # the child process is up, the robot serving
    actuator = Actuator(replace(driver, port=rig.port)) # the real driver, on the robot's pty
    rig.place({0: (0.56, 0.67)})                         # the world places the balls (a calibration.robot.Placer)
    frame = rig.read()                                   # the next camera frame (CameraFrame)
    rig.close()

The child holds everything that knows the truth: the simulated robot (``SimRobot``, striking with
the true sigmas and biases of the sim config, which only the child reads), the table it strikes
(``PhysicsWorld``) and the camera over it (``SimCamera`` with fresh sensor noise per frame,
``controller.sim.backend.FreshNoise``), at service.yaml's frame rate in simulation time. The
calibrating process gets only what hardware would give it: the robot's serial port and camera
frames. Messages over a ``multiprocessing`` pipe: ("place", {id: (x, y)}) -> ("ok", None) or
("error", why); ("read", k) -> ("frames", [(image, t, index)] * k); ("close", None).
"""
from __future__ import annotations

import multiprocessing
from dataclasses import replace
from pathlib import Path

from calibration.robot import PLACE_TIMEOUT_S
from controller.camera import CameraError, CameraFrame

# Safety caps on a child that is alive and silent (a child that ends closes the pipe, which the
# parent reads at once as EOF). The start (imports, numba's compiles, the engine's first shot) takes
# about 10 s on a quiet core and passed 120 s on a machine at load 8.
READY_TIMEOUT_S = 600.0
REPLY_TIMEOUT_S = 120.0     # any other reply
BATCH = 10                  # frames per message


class RigError(RuntimeError):
    """The simulated rig failed or refused a request; the message says why."""


def serve(conn, config_dir: str, sim_config: str, seed: int) -> None:
    """The child: build the robot, world and camera, report ("ready", port) (or ("error", why)),
    then answer requests until ("close", None) or the pipe closes."""
    import numpy as np

    from config.camera import load_camera_settings
    from config.reader import ConfigError
    from config.robot import load_robot_settings
    from config.service import load_service_settings
    from config.sim import load_sim_settings
    from config.table import load_table_settings
    from controller.sim.backend import FreshNoise
    from controller.sim.camera import SimCamera, SimClock
    from controller.sim.robot import SimRobot
    from controller.sim.world import PhysicsWorld
    from planner.physics.engine import Simulator
    from planner.state import CUE, TableState
    from vision.render import SyntheticCamera

    d = Path(config_dir)
    try:
        tc = load_table_settings(d / "table.yaml")
        limits = load_robot_settings(d / "robot.yaml").limits
        cam = load_camera_settings(tc.table, d / "camera.yaml")
        fps = load_service_settings(d / "service.yaml").camera.fps
        sim = replace(load_sim_settings(sim_config), seed=seed)
    except ConfigError as e:
        conn.send(("error", str(e)))
        return
    t = tc.table
    world = PhysicsWorld(Simulator(t, tc.physics), TableState.from_dict({CUE: (t.width / 2, t.length / 4)}))
    robot = SimRobot(sim, limits, world).start()
    try:
        sc = SyntheticCamera(cam.camera, t, tc.physics.R, cam.landmarks)
        rng = np.random.default_rng(seed)
        camera = FreshNoise(SimCamera(world, sc, fps, SimClock(), rng, noise=False),
                            sc.fast_renderer(seed=int(rng.integers(2 ** 31))), rng)
        conn.send(("ready", str(robot.link)))
        while True:
            try:
                verb, arg = conn.recv()
            except EOFError:
                return
            if verb == "close":
                return
            if verb == "place":
                try:
                    world.set_state(TableState.from_dict({int(k): tuple(v) for k, v in arg.items()}))
                    conn.send(("ok", None))
                except ValueError as e:
                    conn.send(("error", str(e)))
            elif verb == "read":
                frames = [camera.read() for _ in range(int(arg))]
                conn.send(("frames", [(f.image, f.t, f.index) for f in frames]))
            else:
                conn.send(("error", f"unknown request {verb!r}"))
    finally:
        robot.stop()
        world.close()


class SimRig:
    """The parent's handle on the child process (module doc). ``port``: the robot's pty link.
    ``read`` makes it a ``controller.camera.Camera``; frames carry their own times. ``place``,
    ``waiting`` and ``timeout_s`` make it the calibration's ``Placer``."""
    timeout_s = PLACE_TIMEOUT_S

    def __init__(self, process, conn, port: str):
        self._process, self._conn, self.port = process, conn, port
        self._buffer: list[CameraFrame] = []

    @classmethod
    def start(cls, config_dir: str | Path, sim_config: str | Path, seed: int) -> "SimRig":
        """Start the child (spawned: it shares no memory with this process). Raises RigError
        with the child's reason (e.g. a bad sim config) if it does not come up."""
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=serve, args=(child, str(config_dir), str(sim_config), int(seed)),
                           name="cuerobot-sim-rig", daemon=True)
        proc.start()
        child.close()
        rig = cls(proc, parent, "")
        kind, arg = rig._reply(READY_TIMEOUT_S)
        if kind != "ready":
            rig.close()
            raise RigError(arg)
        rig.port = arg
        return rig

    def _reply(self, timeout: float):
        if not self._conn.poll(timeout):
            raise RigError(f"the simulated rig did not answer within {timeout:g} s")
        try:
            return self._conn.recv()
        except EOFError:
            raise RigError("the simulated rig stopped (its process ended)") from None

    def place(self, balls: dict[int, tuple[float, float]]) -> None:
        """Put exactly ``balls`` (id -> (x, y) [m]) on the table; frames read ahead, which show the
        table before, are dropped. Raises RigError if they cannot rest there."""
        self._conn.send(("place", {int(k): (float(v[0]), float(v[1])) for k, v in balls.items()}))
        kind, arg = self._reply(REPLY_TIMEOUT_S)
        if kind != "ok":
            raise RigError(arg)
        self._buffer.clear()

    def waiting(self, problem: str) -> None:
        """The world's placements need no word (the table may still settle from the last shot)."""

    def read(self) -> CameraFrame:
        """The camera's next frame (controller.camera.Camera). Raises CameraError if the rig is gone."""
        if not self._buffer:
            try:
                self._conn.send(("read", BATCH))
                _, frames = self._reply(REPLY_TIMEOUT_S)
            except (RigError, OSError) as e:
                raise CameraError(f"the simulated camera failed: {e}") from e
            self._buffer = [CameraFrame(img, t, i) for img, t, i in frames]
        return self._buffer.pop(0)

    def close(self) -> None:
        """Stop the child. Safe to call twice."""
        try:
            self._conn.send(("close", None))
        except (OSError, ValueError):
            pass
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(timeout=5)
        self._conn.close()
