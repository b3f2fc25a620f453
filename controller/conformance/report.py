"""The conformance results as text (terminal), a JSON object and a self-contained HTML page."""
from __future__ import annotations

import html
import time

from controller.conformance.clauses import CLAUSES
from controller.conformance.runner import FAIL, PASS, SKIP, Result, SuiteReport
from controller.protocol import SHOT_WIRE

COLOURS = {PASS: "#1a7f37", FAIL: "#cf222e", SKIP: "#9a6700"}


def summary_line(r: SuiteReport) -> str:
    """``PASS  38 checks: 38 passed, 0 failed, 0 skipped in 6.1 s`` (FAIL if any failed)."""
    head = "PASS" if r.ok else "FAIL"
    return (f"{head}  {len(r.results)} checks: {r.count(PASS)} passed, {r.count(FAIL)} failed, "
            f"{r.count(SKIP)} skipped in {r.seconds:.1f} s")


def result_line(res: Result) -> str:
    """One check as a terminal line: verdict, name, clause, and what was seen."""
    return f"{res.verdict.upper():4}  {res.check.name:22} [{res.check.clause}]  {res.detail}"


def as_text(r: SuiteReport) -> str:
    fw = r.hello.firmware if r.hello else "no HELLO"
    return "\n".join([f"robot on {r.port}: {fw}", *map(result_line, r.results), summary_line(r)])


def as_json(r: SuiteReport) -> dict:
    """``{"port", "firmware", "ok", "passed", "failed", "skipped", "seconds", "motion_allowed",
    "checks": [{"name", "clause", "verdict", "detail", "seconds"}, ...]}``."""
    return {"port": r.port, "firmware": r.hello.firmware if r.hello else None, "ok": r.ok,
            "passed": r.count(PASS), "failed": r.count(FAIL), "skipped": r.count(SKIP),
            "seconds": round(r.seconds, 3), "motion_allowed": r.motion_allowed,
            "checks": [{"name": x.check.name, "clause": x.check.clause, "verdict": x.verdict,
                        "detail": x.detail, "seconds": round(x.seconds, 3)} for x in r.results]}


def _limits(r: SuiteReport) -> str:
    if r.hello is None:
        return "<p>The robot never answered HELLO.</p>"
    rows = "".join(
        f"<tr><td>{name}</td><td>{getattr(r.hello.limits, name).lo * k:.{d}f} .. "
        f"{getattr(r.hello.limits, name).hi * k:.{d}f} {unit}</td></tr>" for name, d, k, unit in SHOT_WIRE)
    return f"<table class=lim><tr><th>field</th><th>declared range</th></tr>{rows}" \
           f"<tr><td>tmax</td><td>{r.hello.tmax:.3f} s</td></tr></table>"


def _row(x: Result) -> str:
    e = html.escape
    lines = "\n".join(f"{t:9.3f}  {d:4}  {text}" for t, d, text in x.transcript)
    return (f"<tr><td style='color:{COLOURS[x.verdict]};font-weight:bold'>{x.verdict.upper()}</td>"
            f"<td>{e(x.check.name)}</td><td title='{e(CLAUSES[x.check.clause])}'>[{e(x.check.clause)}]</td>"
            f"<td>{e(x.check.doc)}<details><summary>{e(x.detail)}</summary><pre>{e(lines)}</pre></details></td>"
            f"<td>{x.seconds:.2f} s</td></tr>")


def as_html(r: SuiteReport) -> str:
    """A page with the verdict, the robot's declared limits and one row per check, each with its
    transcript (times in seconds from the start of the suite) folded under its detail."""
    e = html.escape
    fw = e(r.hello.firmware) if r.hello else "no HELLO"
    colour = COLOURS[PASS if r.ok else FAIL]
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Conformance: {fw}</title>
<style>body{{font-family:sans-serif;margin:2em}} td,th{{padding:4px 8px;vertical-align:top;text-align:left}}
table{{border-collapse:collapse}} tr{{border-bottom:1px solid #ddd}} pre{{font-size:12px;background:#f6f8fa;padding:6px}}
.lim td{{font-family:monospace}}</style></head><body>
<h1>Conformance of {fw} to docs/protocol.md</h1>
<p style="color:{colour};font-size:1.3em;font-weight:bold">{e(summary_line(r))}</p>
<p>Port {e(r.port)}, {time.strftime('%Y-%m-%d %H:%M:%S')}; motion {'allowed' if r.motion_allowed else 'not allowed'}.
Each check names the clause of docs/protocol.md it tests.</p>
{_limits(r)}
<h2>Checks</h2>
<table><tr><th>verdict</th><th>check</th><th>clause</th><th>what it checks / what it saw</th><th>time</th></tr>
{''.join(map(_row, r.results))}
</table></body></html>
"""
