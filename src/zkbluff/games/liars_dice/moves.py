"""What a Liar's Dice seat decides (intents) and what it sees (its observation)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from zkbluff.games.engine.rules import Action
from zkbluff.games.liars_dice.rules import State


@dataclass(frozen=True)
class BidIntent:
    quantity: int
    face: int


@dataclass(frozen=True)
class DudoIntent:
    """Doubt the last bid."""


@dataclass(frozen=True)
class CountIntent:
    """Prove my count of the bid face (the seat's client makes it by itself)."""


Intent = Union[BidIntent, DudoIntent, CountIntent]


@dataclass(frozen=True)
class Observation:
    """What ``seat`` sees: the public state, its own dice of the round (faces 1..6; empty
    before its roll), its legal actions."""
    seat: int
    state: State
    dice: tuple[int, ...]
    legal: tuple[Action, ...]
