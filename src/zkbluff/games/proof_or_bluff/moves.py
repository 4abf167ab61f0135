"""What a seat decides and what it sees, typed: the intents a player or bot expresses
(which cards to play is private, so it is an intent the seat turns into a public
:class:`Play` and its proof) and each table's observation (public state, the seat's own
cards, the legal actions)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from zkbluff.games.engine.rules import Action
from zkbluff.games.proof_or_bluff.rules import Accept, Challenge, Claim, ClassicPublic, FiveUpPublic


@dataclass(frozen=True)
class PlayCards:
    """Play these cards of my hand, claiming "that many × the required rank"."""

    cards: tuple[int, ...]


@dataclass(frozen=True)
class ProveClaim:
    """I was challenged: prove my claim (the proof decides what it discloses)."""


ClassicIntent = Union[PlayCards, Accept, Challenge, ProveClaim]
FiveUpIntent = Union[Claim, Accept, Challenge, ProveClaim]


@dataclass(frozen=True)
class ClassicObservation:
    seat: int
    state: ClassicPublic
    hand: tuple[int, ...]
    legal: tuple[Action, ...]


@dataclass(frozen=True)
class FiveUpObservation:
    seat: int
    state: FiveUpPublic
    hand: tuple[int, ...]
    legal: tuple[Action, ...]
