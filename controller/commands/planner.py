"""CLI commands for the planner area (see controller/cli.py for the registry contract):
``cuerobot match``, ``cuerobot match-report``, ``cuerobot difficulty build`` and
``cuerobot bench planner``."""
from __future__ import annotations

import json
import math

from config.service import NOISE_PRESETS, PLANNERS
from controller.commands.args import UserError, count, existing_file, grid_points, output_file, seed


def _bar(desc: str, quiet: bool):
    from tqdm import tqdm

    return lambda it, total: tqdm(it, total=total, desc=desc, disable=quiet)


def _match(args) -> int:
    from planner.match import run_match

    # opened (for appending: earlier games stay) before the first game, so a bad path fails at once
    records = open(args.records, "a", encoding="utf-8") if args.records else None

    def save(rec) -> None:          # one JSON line per game, flushed as it finishes
        records.write(json.dumps(rec.to_json(), allow_nan=False) + "\n")
        records.flush()

    try:
        r = run_match(args.a, args.b, args.games, args.noise, args.seed, args.workers,
                      progress=_bar("games", args.json), on_game=save if records else None)
    finally:
        if records:
            records.close()
    # a player who never had to decide (the other ran every rack) has no median decision time
    decision = {k: (v if math.isfinite(v) else None) for k, v in r["decision_s"].items()}
    if args.json:
        notes = {f"decision_s.{k}": "no decisions: this player took no shot" for k, v in decision.items()
                 if v is None}
        print(json.dumps({k: r[k] for k in ("wins", "sis", "ss")} | {"decision_s": decision, "notes": notes},
                         allow_nan=False))
        return 0

    def frac(x):
        return f"{x[0]}/{x[1]} ({100 * x[0] / x[1]:.0f}%)" if x[1] else "0/0"

    print(f"{'player':<8} {'wins':>5} {'SIS':>16} {'SS':>14} {'median decision':>16}")
    for label, name in (("A", args.a), ("B", args.b)):
        d = decision[label]
        print(f"{name:<8} {r['wins'][label]:>5} {frac(r['sis'][label]):>16} {frac(r['ss'][label]):>14} "
              + (f"{d:>14.3f} s" if d is not None else f"{'no shots':>16}"))
    if r["wins"]["none"]:
        n = r["wins"]["none"]
        print(f"{n} {'game' if n == 1 else 'games'} abandoned at the shot cap")
    return 0


def _match_report(args) -> int:
    from planner.match_report import format_paired, format_report, load_records, paired, report

    try:
        games = load_records(args.records)
        rep = report(games)
        name = args.name or next(iter(rep), None)
        pair = paired(games, load_records(args.vs), name) if args.vs and name else None
    except ValueError as e:         # names the file and the line
        raise UserError(str(e)) from e
    if args.json:
        print(json.dumps({"report": rep, "paired": pair and {"name": name, "other": str(args.vs), **pair}},
                         allow_nan=False))
        return 0
    print(format_report(rep))
    if pair:
        print(format_paired(pair, name, args.vs))
    return 0


def _difficulty_build(args) -> int:
    from config.planner import load_planner_settings
    from config.table import load_table_settings
    from planner.difficulty import GridSpec, build_difficulty, difficulty_dir
    from planner.shot import PRESETS

    tcfg, pcfg = load_table_settings(), load_planner_settings()
    grid = GridSpec(args.resolution, args.samples, pcfg.grid.speed_increment)
    dg = build_difficulty(tcfg.table, tcfg.physics, PRESETS[args.noise], grid, workers=args.workers,
                          progress=_bar("cell chunks", False))
    path = dg.save(difficulty_dir(), args.noise)
    print(f"wrote {path} ({grid.resolution}^4 cells x 2 pocket kinds, {grid.samples} samples each; "
          f"hash {dg.meta['hash'][:12]})")
    if (grid.resolution, grid.samples) != (pcfg.grid.resolution, pcfg.grid.samples):
        print(f"note: config/planner.yaml asks for resolution {pcfg.grid.resolution}, samples "
              f"{pcfg.grid.samples}; the planner will treat this grid as stale until they match")
    return 0


def _bench(args) -> int:
    from planner.bench import run_planner_bench

    return run_planner_bench(args.states, args.json, args.noise)


def register(sub) -> None:
    m = sub.add_parser("match", help="play 8-ball games between two planners (PickPocket's Table 1)")
    m.add_argument("a", choices=PLANNERS, help="planner A (breaks the even games)")
    m.add_argument("b", choices=PLANNERS, help="planner B")
    m.add_argument("--games", type=count, default=10, help="games to play")
    m.add_argument("--noise", choices=NOISE_PRESETS, default="high", help="the robot's error model (a preset)")
    m.add_argument("--seed", type=seed, default=0, help="seed of the first game (game g: seed + 1000 g)")
    m.add_argument("--workers", type=count, default=1, help="processes playing games in parallel")
    m.add_argument("--records", metavar="FILE", type=output_file,
                   help="append each finished game (every shot, ruling and decision time) to FILE as a JSON line")
    m.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    m.set_defaults(func=_match)
    r = sub.add_parser("match-report", help="where a match was won and lost, from its --records file")
    r.add_argument("records", metavar="FILE", type=existing_file, help="a file written by `cuerobot match --records`")
    r.add_argument("--vs", metavar="OTHER", type=existing_file,
                   help="records of the same racks (same --seed) to compare with")
    r.add_argument("--name", help="the planner compared with --vs, as FILE names it (default: the first in FILE)")
    r.add_argument("--json", action="store_true", help="print the report as one JSON object")
    r.set_defaults(func=_match_report)
    d = sub.add_parser("difficulty", help="shot-difficulty grids")
    dsub = d.add_subparsers(dest="difficulty_command", metavar="ACTION", required=True)
    b = dsub.add_parser("build", help="build and store the shot-difficulty grid for an error model")
    b.add_argument("--resolution", type=grid_points, default=5, help="grid points per feature")
    b.add_argument("--samples", type=count, default=48, help="noisy simulations per cell")
    b.add_argument("--workers", type=count, default=1, help="processes")
    b.add_argument("--noise", choices=NOISE_PRESETS, default="high", help="the error model (a preset)")
    b.set_defaults(func=_difficulty_build)


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser("planner", help="MC decision time over mid-game states (baseline: greedy)")
    p.add_argument("--states", type=count, default=10, help="mid-game states timed")
    p.add_argument("--noise", choices=NOISE_PRESETS, default="high", help="the error model (a preset)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=_bench)
