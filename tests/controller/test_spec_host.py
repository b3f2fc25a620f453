"""A host written from docs/protocol.md alone (no project imports): raw pty I/O, zlib's CRC-32.
It completes the happy path and an exactly-once resend against `cuerobot sim-robot`."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
import tty
import zlib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


class SpecHost:
    def __init__(self, port: str):
        self.fd = os.open(port, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        self.buf, self.seq = b"", 0
        os.write(self.fd, b"\n")                                   # end any partial line (section 2)

    def send(self, verb: str, *args: str, seq: int | None = None) -> int:
        self.seq = seq or self.seq + 1
        body = " ".join([str(self.seq), verb, *args]).encode()
        os.write(self.fd, body + b"*%08X\n" % (zlib.crc32(body) & 0xFFFFFFFF))
        return self.seq

    def reply(self, seq: int, timeout: float = 3.0) -> tuple[str, dict | list]:
        """The next frame carrying ``seq`` (others, e.g. the boot announcement, are passed over)."""
        until = time.monotonic() + timeout
        while True:
            while b"\n" not in self.buf:
                ready, _, _ = select.select([self.fd], [], [], max(0.0, until - time.monotonic()))
                assert ready, f"no frame for seq {seq}"
                self.buf += os.read(self.fd, 4096)
            line, self.buf = self.buf.split(b"\n", 1)
            body, crc = line.rstrip(b"\r").rsplit(b"*", 1)
            assert int(crc, 16) == zlib.crc32(body) & 0xFFFFFFFF, line
            s, verb, *args = body.decode().split(" ")
            if int(s) == seq:
                fields = dict(a.split("=", 1) for a in args) if verb in ("HELLO", "STATUS") else args
                return verb, fields


def test_a_host_written_from_the_spec_shoots_once_per_seq(tmp_path):
    cfg = yaml.safe_load((ROOT / "config" / "sim.yaml").read_text())
    cfg["timing"].update(move_s=0.2, move_jitter_s=0.0, strike_s=0.1, home_s=0.1, boot_s=0.1)
    cfg["world"] = "recording"
    (tmp_path / "sim.yaml").write_text(yaml.safe_dump(cfg))
    strikes = tmp_path / "strikes.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "sim-robot", "--config", str(tmp_path / "sim.yaml"),
                             "--strike-log", str(strikes)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    try:
        assert select.select([proc.stdout], [], [], 30)[0], "sim-robot printed no port"
        host = SpecHost(proc.stdout.readline().strip())
        assert host.reply(0)[0] == "HELLO"                         # booted: the 0 HELLO announcement
        verb, hello = host.reply(host.send("HELLO", "1"))
        assert verb == "HELLO" and hello["v"] == "1"
        host.seq = int(hello["hi"])                                # number above hi (section 6, [H1])
        mid = lambda key: f"{sum(float(v) for v in hello[key].split(':')) / 2:.1f}"  # noqa: E731
        shot = ("90.000", "5.000", hello["V"].split(":")[0], "0.00", "0.00", mid("x"), mid("y"))
        seq = host.send("HOME")
        assert host.reply(seq)[0] == "ACK" and host.reply(seq)[0] == "DONE"
        seq = host.send("SHOT", *shot)
        assert host.reply(seq)[0] == "ACK" and host.reply(seq)[0] == "DONE"
        seq = host.send("SHOT", *shot)
        assert host.reply(seq)[0] == "ACK"
        assert host.reply(host.send("SHOT", *shot, seq=seq))[0] == "ACK"         # resend while moving
        assert host.reply(seq)[0] == "DONE"
        assert host.reply(host.send("SHOT", *shot, seq=seq))[0] == "DONE"        # resend after DONE
        verb, status = host.reply(host.send("STATUS"))
        assert (verb, status["struck"], status["state"]) == ("STATUS", str(seq), "READY")
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert [json.loads(x)["seq"] for x in strikes.read_text().splitlines()] == [seq - 1, seq]
