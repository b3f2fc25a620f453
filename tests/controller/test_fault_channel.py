"""Byte faults of the simulated line: they happen at the configured rates and a line never
reorders bytes."""
from __future__ import annotations

import numpy as np

from config.sim import Faults
from controller.sim.faults import FaultChannel

N = 20000


def _data(n=N, seed=1) -> bytes:
    return np.random.default_rng(seed).integers(0x20, 0x7F, n, dtype=np.uint8).tobytes()


def _within_binomial(count: int, n: int, p: float) -> bool:
    return abs(count - n * p) <= 5 * np.sqrt(n * p * (1 - p))


def test_a_clean_line_passes_bytes_unchanged_and_at_once():
    ch = FaultChannel(Faults(), np.random.default_rng(0))
    data = _data()
    ch.push(data[:100], 1.0)
    ch.push(data[100:], 1.5)
    assert ch.pop_ready(1.0) == data[:100]
    assert ch.pop_ready(2.0) == data[100:]
    assert ch.next_release() is None and not ch.counts


def test_drops_happen_at_the_rate_and_leave_the_rest_in_order():
    ch = FaultChannel(Faults(drop=0.05), np.random.default_rng(0))
    data = bytes(range(256)) * 80  # distinct bytes in each run, so order is checkable
    ch.push(data, 0.0)
    out = ch.pop_ready(0.0)
    assert len(out) == len(data) - ch.counts["drop"]
    assert _within_binomial(ch.counts["drop"], len(data), 0.05)
    it = iter(data)
    assert all(b in it for b in out)  # out is a subsequence of data


def test_each_corruption_flips_exactly_one_bit():
    ch = FaultChannel(Faults(corrupt=0.02), np.random.default_rng(0))
    data = _data()
    ch.push(data, 0.0)
    out = ch.pop_ready(0.0)
    diff = np.frombuffer(out, np.uint8) ^ np.frombuffer(data, np.uint8)
    changed = diff[diff != 0]
    assert len(changed) == ch.counts["corrupt"]
    assert _within_binomial(len(changed), N, 0.02)
    assert all(bin(int(x)).count("1") == 1 for x in changed)


def test_duplicates_add_a_copy_right_after_the_byte():
    ch = FaultChannel(Faults(duplicate=0.03), np.random.default_rng(0))
    data = bytes(range(256)) * 80
    ch.push(data, 0.0)
    out = ch.pop_ready(0.0)
    assert len(out) == len(data) + ch.counts["duplicate"]
    assert _within_binomial(ch.counts["duplicate"], len(data), 0.03)
    dedup = bytes(b for i, b in enumerate(out) if i == 0 or b != out[i - 1])
    assert dedup == data  # consecutive bytes of data always differ


def test_a_delay_stalls_the_byte_and_everything_behind_it():
    ch = FaultChannel(Faults(delay=1.0, delay_s=0.1), np.random.default_rng(0))
    ch.push(b"abc", 0.0)          # every byte stalls: released at 0.1, 0.2, 0.3
    ch.push(b"d", 0.05)           # behind the stall, and stalls itself: 0.4
    got = []
    for t in (0.0, 0.15, 0.25, 0.35, 0.45):
        got.append(ch.pop_ready(t))
    assert got == [b"", b"a", b"b", b"c", b"d"]
    assert ch.counts["delay"] == 4


def test_clear_loses_what_is_in_flight():
    ch = FaultChannel(Faults(delay=1.0, delay_s=0.1), np.random.default_rng(0))
    ch.push(b"abc", 0.0)
    ch.clear()
    assert ch.pop_ready(10.0) == b"" and ch.next_release() is None
