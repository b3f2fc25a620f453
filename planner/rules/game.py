"""The state of an 8-ball game between shots, and the call a shooter makes before a shot.

Rules: docs/rules.md (WPA World Standardized Rules, eight ball). Ball ids as in planner.state:
0 cue, 1-7 solids, 8 the eight, 9-15 stripes. Ball positions are not part of the game state.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property

from planner.state import EIGHT, SOLIDS, STRIPES, ball_class

OBJECT_BALLS = frozenset(range(1, 16))
GROUPS = ("solid", "stripe")


class InHand(enum.Enum):
    """Where the next shooter may place the cue ball (WPA 1.5)."""
    NONE = "none"                              # the cue ball is played from where it lies
    ANYWHERE = "anywhere"                      # anywhere on the playing surface
    BEHIND_HEAD_STRING = "behind_head_string"  # in the kitchen, y < head_string_y


@dataclass(frozen=True)
class GameState:
    """One rack of 8-ball between shots.

    object_balls: the numbered balls (1-15) still in play. The cue ball is always in play: on
        the table, or in hand when ``in_hand`` is not NONE.
    shooter: the player (0 or 1) to shoot next.
    groups: None while the table is open; else (group of player 0, group of player 1), one
        'solid' and one 'stripe'.
    is_break: the next shot is the opening break.
    in_hand: where the shooter may place the cue ball before the next shot.
    winner: None while the rack is being played; else the player (0 or 1) who won it.
    shot_number: shots played in this rack so far.
    """
    object_balls: frozenset[int]
    shooter: int
    groups: tuple[str, str] | None = None
    is_break: bool = False
    in_hand: InHand = InHand.NONE
    winner: int | None = None
    shot_number: int = 0

    def __post_init__(self):
        balls = frozenset(int(b) for b in self.object_balls)
        if not balls <= OBJECT_BALLS:
            raise ValueError(f"GameState: object_balls must be ids 1-15, got {sorted(balls)}")
        object.__setattr__(self, "object_balls", balls)
        if self.shooter not in (0, 1):
            raise ValueError(f"GameState: shooter must be 0 or 1, got {self.shooter!r}")
        if self.groups is not None and tuple(sorted(self.groups)) != GROUPS:
            raise ValueError(f"GameState: groups must be None or one 'solid' and one 'stripe', "
                             f"got {self.groups!r}")
        if self.winner not in (None, 0, 1):
            raise ValueError(f"GameState: winner must be None, 0 or 1, got {self.winner!r}")
        if not isinstance(self.in_hand, InHand):
            raise ValueError(f"GameState: in_hand must be an InHand, got {self.in_hand!r}")

    @classmethod
    def new_rack(cls, breaker: int) -> "GameState":
        """All fifteen balls racked; ``breaker`` breaks with the cue ball in the kitchen (WPA 3.3a)."""
        return cls(OBJECT_BALLS, breaker, None, True, InHand.BEHIND_HEAD_STRING)

    @property
    def is_open(self) -> bool:
        """Groups not yet chosen (WPA 3.4)."""
        return self.groups is None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def group_of(self, player: int) -> str | None:
        return None if self.groups is None else self.groups[player]

    def legal_targets(self) -> frozenset[int]:
        """The balls the shooter may hit first and may call (WPA 3.4, 3.6, 6.2).

        Open table: any object ball except the 8. Group chosen: the shooter's group balls still
        in play, or the 8 once that group is cleared. Empty on the break (no call, any first
        contact) and once the rack is over.
        """
        return self._legal_targets

    @cached_property
    def _legal_targets(self) -> frozenset[int]:
        if self.is_break or self.is_over:
            return frozenset()
        if self.groups is None:
            candidates = frozenset(b for b in self.object_balls if b != EIGHT)
        else:
            group = self.groups[self.shooter]
            candidates = frozenset(b for b in self.object_balls if ball_class(b) == group)
        if candidates:
            return candidates
        return frozenset({EIGHT}) & self.object_balls


@dataclass(frozen=True)
class CalledShot:
    """The shooter's call before a non-break shot (WPA 1.6, 3.6).

    Either a ball and the pocket id it is to drop in ('lb', 'lc', 'lt', 'rb', 'rc', 'rt'), or a
    called safety (``safety=True``, no ball, no pocket): play passes at the end of the shot and
    object balls pocketed on it stay down. The break takes no call (pass None).
    """
    ball: int | None = None
    pocket: str | None = None
    safety: bool = False

    def __post_init__(self):
        if self.safety:
            if self.ball is not None or self.pocket is not None:
                raise ValueError(f"CalledShot: a safety names no ball or pocket, got "
                                 f"ball={self.ball!r}, pocket={self.pocket!r}")
        elif self.ball is None or self.pocket is None:
            raise ValueError(f"CalledShot: a call needs a ball and a pocket (or safety=True), "
                             f"got ball={self.ball!r}, pocket={self.pocket!r}")

    @classmethod
    def shot(cls, ball: int, pocket: str) -> "CalledShot":
        return cls(int(ball), str(pocket))

    @classmethod
    def safe(cls) -> "CalledShot":
        return cls(safety=True)


def balls_to_win(game: GameState, player: int) -> int:
    """Balls ``player`` must still pocket to win, the 8 included (>= 1). On an open table: the
    smaller group's count plus the 8."""
    balls = game.object_balls
    solids, stripes = len(balls & set(SOLIDS)), len(balls & set(STRIPES))
    if game.groups is None:
        left = min(solids, stripes)
    else:
        left = solids if game.groups[player] == "solid" else stripes
    return left + (1 if EIGHT in balls else 0) or 1
