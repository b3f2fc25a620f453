"""``cuerobot physics check-reference FILE``, ``cuerobot physics fuzz`` and ``cuerobot bench physics``."""
from __future__ import annotations

import json

from controller.commands.args import UserError, count, existing_file, output_file, seed


def _check_reference(args) -> int:
    from tqdm import tqdm

    from planner.physics.reference import BREAK_FLOOR, ReferenceFormatError, check_reference

    bar = (lambda xs: tqdm(xs, desc="reference cases", unit="case")) if not args.json else None
    try:
        r = check_reference(args.file, progress=bar)
    except ReferenceFormatError as e:
        raise UserError(str(e)) from e
    if args.json:
        print(json.dumps({k: r[k] for k in ("cases", "passed", "failed", "per_category", "break_statistics")},
                         allow_nan=False))
    else:
        for cat, c in sorted(r["per_category"].items()):
            print(f"{cat}: {c['passed']}/{c['cases']} passed")
        for name, s in r["break_statistics"].items():
            print(f"  breaks, mean {name}: ours {s['ours']:.3f}, reference {s['reference']:.3f}, difference "
                  f"{s['difference']:+.3f} (allowed +-{s['allowed']:.3g}: two standard errors of the {s['n']} "
                  f"paired breaks' differences, at least {BREAK_FLOOR[name]:g}) {'ok' if s['ok'] else 'FAIL'}")
        for cid, why in r["failures"].items():
            print(f"FAIL {cid}: " + "; ".join(why))
        print(f"{r['passed']}/{r['cases']} cases passed")
    return 0 if not r["failed"] else 1


def _fuzz(args) -> int:
    from tqdm import tqdm

    from config.atomic import write_atomic
    from config.table import load_table_settings
    from planner.physics.engine import Simulator
    from planner.physics.fuzz import fuzz

    tc = load_table_settings()
    with tqdm(total=args.shots, desc="random shots", unit="shot") as bar:
        bad = fuzz(Simulator(tc.table, tc.physics), args.shots, args.seed, progress=bar.update)
    for case in bad:
        print(f"BAD {case['what']}")
    print(f"{bar.n} shots, seed {args.seed}: {len(bad)} final states the engine refuses")
    if args.out and bad:
        write_atomic(args.out, json.dumps({"cases": bad}, indent=1, allow_nan=False))
        print(f"cases written to {args.out}")
    return 0 if not bad else 1


def _bench(args) -> int:
    from planner.physics.bench import run_physics_bench

    return run_physics_bench(as_json=args.json, racks=args.racks)


def register(sub) -> None:
    phys = sub.add_parser("physics", help="physics engine tools")
    psub = phys.add_subparsers(dest="physics_command", metavar="ACTION", required=True)
    p = psub.add_parser("check-reference", help="compare the engine with a reference cases file")
    p.add_argument("file", type=existing_file, help="reference JSON, e.g. ../shared/reference/physics_cases.json")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=_check_reference)
    p = psub.add_parser("fuzz", help="random shots; report final states the engine would refuse")
    p.add_argument("--shots", type=count, default=100_000, help="number of random shots")
    p.add_argument("--seed", type=seed, default=0, help="seed of the random states and shots")
    p.add_argument("--out", type=output_file, help="write the failing cases (start state, shot) to this JSON file")
    p.set_defaults(func=_fuzz)


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser("physics", help="shots per second and break times of the engine, against targets")
    p.add_argument("--json", action="store_true", help="print the figures and targets as one JSON object")
    p.add_argument("--racks", type=count, default=100, help="number of breaks to time")
    p.set_defaults(func=_bench)
