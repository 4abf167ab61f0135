"""What a Cheat seat decides (intents) and what it sees (its observation)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from zkbluff.games.cheat.match import TablePublic
from zkbluff.games.cheat.rules import CheatState
from zkbluff.games.engine.rules import Action


@dataclass(frozen=True)
class PlayCards:
    """Put these cards of my hand down, claiming ``len(cards)`` × ``rank``."""

    rank: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class PassTurn:
    """Pass in this round."""


@dataclass(frozen=True)
class CallBluff:
    """"Bluff!" on play number ``play`` (the one whose window I saw open)."""

    play: int


@dataclass(frozen=True)
class Proceed:
    """Do what the table needs from my secrets now: send my entropy, turn my called play
    over, hand the picker my openings, prove my pick-up."""


CheatIntent = Union[PlayCards, PassTurn, CallBluff, Proceed]


@dataclass(frozen=True)
class CheatObservation:
    """Public state, this seat's cards, its legal game actions, and the public events so
    far (seat, action, state before, state after) for a bot that keeps track."""

    seat: int
    table: TablePublic
    hand: tuple[int, ...]
    legal: tuple[Action, ...]
    history: tuple[tuple[Optional[int], Action, CheatState, CheatState], ...]

    @property
    def state(self) -> CheatState:
        return self.table.game
