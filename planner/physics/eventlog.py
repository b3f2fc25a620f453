"""Event kinds and the event log a simulation returns.

An event log is four parallel arrays (one entry per event, in time order):
  kind (E,) int    one of the EV_* codes below
  time (E,) float  seconds after the cue strike
  a    (E,) int    the ball id of the (first) ball involved
  b    (E,) int    the other agent: ball id (EV_BALL_BALL), linear-cushion index into
                   Table.lin_ids (EV_LINEAR_CUSHION), circular-cushion index into
                   Table.circ_ids (EV_CIRCULAR_CUSHION), pocket index into Table.pocket_ids
                   (EV_POCKET); -1 otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EV_STICK = 0
EV_BALL_BALL = 1
EV_LINEAR_CUSHION = 2
EV_CIRCULAR_CUSHION = 3
EV_POCKET = 4
EV_SLIDING_ROLLING = 5
EV_ROLLING_SPINNING = 6
EV_ROLLING_STATIONARY = 7
EV_SPINNING_STATIONARY = 8

EVENT_NAMES = ("stick_ball", "ball_ball", "ball_linear_cushion", "ball_circular_cushion",
               "ball_pocket", "sliding_rolling", "rolling_spinning", "rolling_stationary",
               "spinning_stationary")
CUSHION_EVENTS = (EV_LINEAR_CUSHION, EV_CIRCULAR_CUSHION)


@dataclass(frozen=True)
class EventLog:
    kind: np.ndarray
    time: np.ndarray
    a: np.ndarray
    b: np.ndarray

    def __len__(self) -> int:
        return int(self.kind.shape[0])

    @classmethod
    def from_lists(cls, kinds, times, a, b) -> "EventLog":
        return cls(np.asarray(kinds, np.int64), np.asarray(times, np.float64),
                   np.asarray(a, np.int64), np.asarray(b, np.int64))

    def names(self) -> list[str]:
        return [EVENT_NAMES[k] for k in self.kind]
