"""The clauses of docs/protocol.md that the conformance suite checks, by id.

The spec marks each clause with its id in brackets (``[E1]``); every check names one of them.
"""
from __future__ import annotations

CLAUSES = {
    "F1": "lines: printable ASCII, one frame per line, empty lines ignored, at most MAX_LINE bytes",
    "F2": "CRC-32/ISO-HDLC as 8 upper-case hex digits, most significant first; either case accepted",
    "F3": "numbers: -?d{1,7}(.d{1,6})?, nothing else",
    "N1": "a line with a bad CRC gets 0 NAK 1 BAD_CRC",
    "N2": "a malformed line (grammar, non-printable byte, seq 0 from the host) gets 0 NAK 2 MALFORMED",
    "N3": "a line longer than MAX_LINE gets 0 NAK 3 TOO_LONG, and the next frame is read",
    "X1": "HELLO: the reply's fields, their order, decimals and bounds",
    "X2": "a motion command accepted is answered ACK at once and DONE when complete",
    "X3": "STATUS: the reply's fields and their order",
    "X4": "every valid frame gets exactly one immediate reply, carrying its seq",
    "H1": "HELLO raises hi to its seq if that is higher",
    "H2": "a motion command that passes E1-E3 uses up its seq, accepted or refused",
    "H3": "STATUS, ESTOP and RESET never change hi",
    "E1": "a repeat of the last accepted motion is answered with its phase and never moves; "
          "other arguments (as text) get ERR 16",
    "E2": "a motion command without a session gets ERR 18",
    "E3": "a motion command whose seq is not above hi gets ERR 17",
    "ERR10": "an unknown verb gets ERR 10",
    "ERR11": "wrong arguments get ERR 11",
    "ERR12": "a SHOT outside the declared limits or workspace gets ERR 12",
    "ERR13": "a SHOT before HOME (not emergency-stopped) gets ERR 13",
    "ERR14": "a SHOT while emergency-stopped gets ERR 14 (before ERR 13)",
    "ERR15": "a motion command during a motion gets ERR 15",
    "ERR19": "HELLO with another protocol version gets ERR 19",
    "S1": "ESTOP is acknowledged in every state, whatever its arguments, and latches",
    "S2": "a motion stopped by ESTOP ends with its own final reply after the ACK: "
          "ERR 14 if not struck, DONE if struck",
    "R1": "RESET and power-up: RAM lost, 0 HELLO within ROBOT_BOOT_S, hi = struck",
    "R2": "the struck seq is written to NVM just before the strike",
    "R3": "the emergency-stop latch survives a reset",
    "T1": "DONE comes within the declared tmax of ACK",
    "T2": "immediate replies come within ROBOT_REPLY_S",
}
