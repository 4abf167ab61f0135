"""What a Bluffers seat decides and what it sees at the proven table: the intents
(:class:`PlayCards`, ``CallBluff``, :class:`Proceed` for whatever its own secrets answer:
its commitments, a reveal, a share, an automatic card and its new hand; ``LeaveTable``)
and the observation."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from zkbluff.games.bluffers.rules import Snapshot
from zkbluff.games.engine.rules import Action


@dataclass(frozen=True)
class PlayCards:
    """Play these cards of my hand face down, claiming each is the table card."""

    cards: tuple[int, ...]


@dataclass(frozen=True)
class Proceed:
    """Do what is due that needs no choice: commit, reveal my last play, give my share of a
    pull, play the automatic card (timeout or away) and prove my new hand."""


@dataclass(frozen=True)
class BluffersObservation:
    seat: int
    state: Snapshot
    hand: tuple[int, ...]
    legal: tuple[Action, ...]
    #: what is due from this seat: "commit", "turn" (its choice), "auto", "shed", "reveal",
    #: "share", or None (not its move)
    due: Optional[str]
    played: tuple[int, ...]                  # its own face-down cards this round
    claims: tuple[tuple[int, int], ...]      # (seat, count) of every play this round, in order
