"""``cuerobot calibrate camera|table|robot``: one command per thing that is calibrated.

Each target's module (``CALIBRATE_MODULES``) defines ``register_calibrate(subparsers)``, adding
its subcommand under ``cuerobot calibrate``.
"""
from __future__ import annotations

import importlib

CALIBRATE_MODULES: tuple[str, ...] = ("controller.commands.calibrate_camera", "controller.commands.calibrate_table",
                                      "controller.commands.calibrate_robot")


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="calibrate the camera, the table pose or the robot's error model")
    targets = p.add_subparsers(dest="calibrate_target", metavar="TARGET", required=True)
    for name in CALIBRATE_MODULES:
        importlib.import_module(name).register_calibrate(targets)


def register_bench(bench) -> None:
    """Each target module's ``register_bench(bench_subparsers)``, where it has one."""
    for name in CALIBRATE_MODULES:
        mod = importlib.import_module(name)
        if hasattr(mod, "register_bench"):
            mod.register_bench(bench)
