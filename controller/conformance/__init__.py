"""The conformance suite: certifies a robot's firmware against docs/protocol.md over its port.

    clauses.py   the spec's clauses by id ([F1], [E1], ...), as docs/protocol.md numbers them
    host.py      the suite's host: one port, frames in and out, no resends of its own
    check.py     what a check is (name, clause, precondition) and how it fails or is skipped
    shots.py     the only shots the suite sends, computed from the robot's own HELLO
    checks_*.py  the checks, grouped by what they exercise (framing, session, motion, recovery)
    runner.py    runs the checks in order, establishes each one's precondition, asks before motion
    report.py    the results as text, JSON and a self-contained HTML page

``cuerobot robot conformance --port DEV|URL`` (controller/commands/serial.py) is the command.
"""
