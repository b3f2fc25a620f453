"""Where a match was won and lost, read from its records (``cuerobot match --records FILE``: one
game per JSON line, ``GameRecord.to_json``): per planner, the breaks, the innings and how often
each ran out the rack, and for every lost rack the shot that handed over the table; and, for two
record files of the same racks (same ``--seed``), the paired comparison of one planner's wins.

An inning is a run of consecutive shots by one player. It starts from the break, with ball in
hand (the shot carries a cue-ball placement) or open (the cue ball where it lay). An inning runs
out the rack when the rack ends with it and its player wins.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Inning:
    """Consecutive shots of ``player`` (0: the breaker); start: 'break', 'in_hand' or 'open';
    ran_out: the rack ended with this inning, won by its player."""
    player: int
    start: str
    shots: tuple[dict, ...]
    ran_out: bool


GAME_KEYS = {"players", "seed", "winner", "shots"}
SHOT_KEYS = {"player", "kind", "cue_pos", "reason", "fouls", "turn_continues"}   # what the report reads


def is_game_record(g) -> bool:
    """A JSON value is a game record: an object with GAME_KEYS whose shots are a non-empty list
    (a rack starts with its break) of objects with SHOT_KEYS."""
    return (isinstance(g, dict) and GAME_KEYS <= g.keys() and isinstance(g["shots"], list)
            and len(g["shots"]) > 0 and all(isinstance(s, dict) and SHOT_KEYS <= s.keys() for s in g["shots"]))


def load_records(path: str | Path) -> list[dict]:
    """The games of a records file (at least one). Raises ValueError naming the file, and the
    line of a line that is not a game record (``is_game_record``); OSError if it cannot be read."""
    games = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a records file (JSON lines; not UTF-8 at byte {exc.start})") from exc
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            g = json.loads(line)
        except json.JSONDecodeError:
            g = None
        if not is_game_record(g):
            raise ValueError(f"{path}:{n}: not a game record (a JSON object with players, seed, winner "
                             f"and a non-empty list of shots, as `cuerobot match --records` writes)")
        games.append(g)
    if not games:
        raise ValueError(f"{path}: no game records (a match writes one line per finished game)")
    return games


def innings(game: dict) -> list[Inning]:
    """The innings of one game, in order."""
    shots, out, i = game["shots"], [], 0
    while i < len(shots):
        j = i
        while j + 1 < len(shots) and shots[j + 1]["player"] == shots[i]["player"]:
            j += 1
        first = shots[i]
        start = "break" if first["kind"] == "break" else ("in_hand" if first["cue_pos"] is not None else "open")
        last = j == len(shots) - 1
        out.append(Inning(first["player"], start, tuple(shots[i:j + 1]),
                          last and game["winner"] == first["player"]))
        i = j + 1
    return out


def loss_cause(game: dict, inns: list[Inning] | None = None) -> str:
    """How the loser of a finished game lost: 'own shot: <reason>' when the rack ended on his
    shot, 'break and run' when the winner ran out from his break, else 'after <kind>' for the
    loser's shot before the winner's last inning (e.g. 'after straight', 'after safety').
    ``inns``: the game's ``innings`` if already computed."""
    inns = inns if inns is not None else innings(game)
    last = inns[-1]
    if last.player != game["winner"]:
        return f"own shot: {last.shots[-1]['reason']}"
    if len(inns) == 1:
        return "break and run"
    return f"after {inns[-2].shots[-1]['kind']}"


def report(games: list[dict]) -> dict:
    """Per planner name: {'racks', 'wins', 'wins_breaking': [won, broke], 'breaks': {'n',
    'continue', 'foul'}, 'innings': {start: [n, ran_out]}, 'losses': {cause: n}}. Games without
    a winner (abandoned) count as racks only. Raises ValueError if both players of a game have
    the same name (the report tells them apart by name)."""
    out: dict = {}
    for g in games:
        if g["players"][0] == g["players"][1]:
            raise ValueError(f"game {g['seed']}: both players are {g['players'][0]!r}; the report needs distinct names")
        inns = innings(g)
        for p, name in enumerate(g["players"]):
            r = out.setdefault(name, {"racks": 0, "wins": 0, "wins_breaking": [0, 0],
                                      "breaks": {"n": 0, "continue": 0, "foul": 0},
                                      "innings": {}, "losses": Counter()})
            r["racks"] += 1
            won = g["winner"] == p
            r["wins"] += won
            if p == 0:
                r["wins_breaking"][0] += won
                r["wins_breaking"][1] += 1
                brk = g["shots"][0]
                r["breaks"]["n"] += 1
                r["breaks"]["continue"] += bool(brk["turn_continues"])
                r["breaks"]["foul"] += bool(brk["fouls"])
            for inn in inns:
                if inn.player == p:
                    tally = r["innings"].setdefault(inn.start, [0, 0])
                    tally[0] += 1
                    tally[1] += inn.ran_out
            if g["winner"] == 1 - p:
                r["losses"][loss_cause(g, inns)] += 1
    for r in out.values():
        r["losses"] = dict(r["losses"].most_common())
    return out


def paired(a: list[dict], b: list[dict], name: str) -> dict:
    """``name``'s wins on the racks (seeds) present in both record lists: {'racks', 'wins':
    [in a, in b], 'breaking': {'racks', 'wins': [a, b]}, 'receiving': {...}} where breaking
    counts the racks ``name`` broke in both lists. Raises ValueError if ``name`` is not a player of
    every common rack or breaks in one list and not the other."""
    by_seed = [{g["seed"]: g for g in games} for games in (a, b)]
    common = sorted(set(by_seed[0]) & set(by_seed[1]))
    out = {"racks": len(common), "wins": [0, 0], "breaking": {"racks": 0, "wins": [0, 0]},
           "receiving": {"racks": 0, "wins": [0, 0]}}
    for seed in common:
        ga, gb = by_seed[0][seed], by_seed[1][seed]
        if name not in ga["players"] or name not in gb["players"]:
            raise ValueError(f"rack {seed}: {name!r} did not play it in both records")
        if ga["players"].index(name) != gb["players"].index(name):
            raise ValueError(f"rack {seed}: {name!r} broke in one record and not in the other")
        side = out["breaking"] if ga["players"][0] == name else out["receiving"]
        side["racks"] += 1
        for k, g in enumerate((ga, gb)):
            won = g["winner"] == g["players"].index(name)
            out["wins"][k] += won
            side["wins"][k] += won
    return out


def format_report(rep: dict) -> str:
    """Plain-text tables of ``report``'s result."""
    lines = []
    for name, r in rep.items():
        b, wb = r["breaks"], r["wins_breaking"]
        lines.append(f"{name}: won {r['wins']}/{r['racks']} racks ({wb[0]}/{wb[1]} of those it broke)")
        if b["n"]:
            lines.append(f"  break: continued {b['continue']}/{b['n']}, fouled {b['foul']}/{b['n']}")
        for start in ("break", "in_hand", "open"):
            if start in r["innings"]:
                n, ran = r["innings"][start]
                lines.append(f"  innings from {start:<8} {n:>4}, ran out {ran:>3} ({100 * ran / n:.0f} %)")
        for cause, n in r["losses"].items():
            lines.append(f"  lost {n:>3}: {cause}")
    return "\n".join(lines)


def format_paired(pair: dict, name: str, other: str) -> str:
    """One line for ``paired``'s result: ``name``'s wins here and in the records ``other``."""
    br, rc = pair["breaking"], pair["receiving"]
    return (f"{name} on the {pair['racks']} racks also in {other}: won {pair['wins'][0]} here, "
            f"{pair['wins'][1]} there (breaking {br['wins'][0]} vs {br['wins'][1]} of {br['racks']}; "
            f"receiving {rc['wins'][0]} vs {rc['wins'][1]} of {rc['racks']})")
