"""``cuerobot run``: the main job, end to end on simulated hardware.

Until the controller service exists this is the fullest run there is: rack the balls, break
with the simulated robot's execution noise, and report what the physics engine did.
"""
from __future__ import annotations

import numpy as np


def _run(args) -> int:
    from planner.physics.engine import Simulator
    from planner.rack import rack_8ball
    from planner.shot import PRESETS, ShotParams
    from planner.table_config import load_table_config

    cfg = load_table_config(args.table)
    sim = Simulator(cfg.table, cfg.physics)
    rng = np.random.default_rng(args.seed)
    state = rack_8ball(cfg.table, cfg.physics.R, rng)
    nominal = ShotParams(phi=90.0, theta=0.0, V=7.0)
    shot = ShotParams.from_array(PRESETS[args.noise].perturb(nominal, rng, 1)[0])
    res = sim.simulate(state, shot)
    print(f"break: phi={shot.phi:.3f} deg V={shot.V:.3f} m/s -> {len(res.events)} events, "
          f"{res.t_end:.2f} s of motion")
    for ball, pocket in res.pocketed():
        print(f"  ball {ball} pocketed in {cfg.table.pocket_ids[pocket]}")
    print(f"{len(res.state_after().ids)} balls left on the table")
    return 0


def register(sub) -> None:
    p = sub.add_parser("run", help="the main job: play on the simulated hardware")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    p.add_argument("--noise", choices=("high", "low", "none"), default="high",
                   help="robot execution-error preset")
    p.add_argument("--table", default=None, help="table YAML (default config/table.yaml)")
    p.set_defaults(func=_run)
