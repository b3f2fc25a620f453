"""``cuerobot run``: the main job, a whole 8-ball game on simulated hardware.

Until the controller service exists this is the fullest run there is: two planners play a rack
on the physics engine, every shot executed with the robot's error model and ruled by the
referee. The shot-by-shot log goes to stdout.
"""
from __future__ import annotations

import numpy as np


def _run(args) -> int:
    from planner.decision import make_planner
    from planner.match import play_game

    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(1 << 31))
    a, b = args.players
    pa = make_planner(a, args.noise, seed)
    pb = make_planner(b, args.noise, seed + 1)
    names = (f"{a} (player 0)", f"{b} (player 1)")
    print(f"8-ball, {names[0]} breaks against {names[1]}; noise {args.noise}, seed {seed}")

    def show(rec, state):
        call = "" if rec.call is None else (" safety" if rec.call == ("safety",)
                                             else f" calls {rec.call[0]} in {rec.call[1]}")
        pots = ", ".join(f"{'cue' if b == 0 else b} in {p}" for b, p in rec.pocketed) or "nothing"
        est = "-" if rec.estimate != rec.estimate else f"{rec.estimate:.2f}"
        fouls = f" FOUL {'+'.join(rec.fouls)}" if rec.fouls else ""
        print(f"  {names[rec.player]:>18}: {rec.kind}{call} (est. {est}, "
              f"{rec.decision_s:.2f} s) -> pocketed {pots}{fouls}; {rec.reason}, "
              f"{len(state.ids)} balls on the table", flush=True)

    rec = play_game(pa, pb, seed, args.noise, on_shot=show)
    if rec.winner is None:
        print(f"game abandoned after {len(rec.shots)} shots")
    else:
        print(f"winner: {names[rec.winner]} after {len(rec.shots)} shots")
    for k in (0, 1):
        st = rec.stats(k)
        print(f"  {names[k]}: straight-in {st['sis'][0]}/{st['sis'][1]}, safeties {st['ss'][0]}/{st['ss'][1]}, "
              f"median decision {np.median(st['decision_s']) if st['decision_s'] else 0:.2f} s")
    return 0


def register(sub) -> None:
    p = sub.add_parser("run", help="the main job: play a whole 8-ball game on the simulated hardware")
    p.add_argument("--players", nargs=2, default=("mc", "greedy"), metavar=("A", "B"),
                   help="planners: greedy, prob or mc (A breaks; default mc greedy)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    p.add_argument("--noise", choices=("high", "low", "none"), default="high",
                   help="robot execution-error preset")
    p.set_defaults(func=_run)
