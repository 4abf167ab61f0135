"""What Bluffers proves and what a verifier checks, apart from any table.

- :class:`SeatSecrets` is one seat's private side: its revolver seed, its hand this round
  and its last play (masks and salts). For each of its actions it gives the action, the
  public data the transcript line carries (new commitments) and the inputs of each proof.
- :class:`ProofLedger` is the verifier's side: the public commitments it tracks (each
  seat's hand commitment, each seat's last play commitment) and, for an action about to
  be applied, the :class:`Obligation` list: which statement and which public inputs
  (all but ``context``) the proofs must have. It also checks a reveal's opening.

The engine's GameSpec wires these to its parties, transcript lines and contexts. The
deal's own proof (deck 20, hands of 5 for each standing seat) belongs to the deal
statement; here a deal gives the ledger the hand commitments it publishes.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.games.bluffers.rules import (
    AutoMove, BluffersRules, CommitSeed, Play, Reveal, Share, Snapshot,
)
from zkbluff.games.engine.rules import Action
from zkbluff.gadgets.native import commit
from zkbluff.statements.revolver import RevolverSeed, picked_card_native

PLAY_ID = "card.play.v1@deck=20,max_play=3"
PICK_ID = "card.pick.v1@deck=20,max_hand=5"
SHARE_ID = "revolver.share.v1@chambers=6"
STATEMENTS = (PLAY_ID, PICK_ID, SHARE_ID)


def fresh_salt() -> int:
    return secrets.randbits(250)


def mask_of(cards: Sequence[int]) -> int:
    return sum(1 << c for c in cards)


def cards_of(mask: int) -> tuple[int, ...]:
    return tuple(c for c in range(mask.bit_length()) if mask >> c & 1)


@dataclass(frozen=True)
class Obligation:
    """A proof an action needs: its statement and the public inputs the table holds (the
    ``context`` is added by the table from the line's number and the previous hash)."""
    statement: str
    publics: dict[str, int]


@dataclass(frozen=True)
class Move:
    """What a seat sends for one action: the action, the line's public data, and for each
    proof its statement and private inputs (with ``context`` to be filled in)."""
    action: Action
    data: dict[str, int]
    proofs: tuple[tuple[str, dict[str, Any]], ...] = ()


@dataclass
class SeatSecrets:
    seat: int
    seed: RevolverSeed = field(default_factory=lambda: RevolverSeed(secrets.randbits(253), fresh_salt()))
    salt: Callable[[], int] = fresh_salt
    hand: int = 0
    hand_salt: int = 0
    play: int = 0
    play_salt: int = 0

    def commit_seed(self) -> Move:
        return Move(CommitSeed(self.seed.commitment), {})

    def receive(self, hand: int, hand_salt: int) -> None:
        """The seat's dealt hand (opened from the sealed deal and checked by the caller)."""
        self.hand, self.hand_salt, self.play, self.play_salt = hand, hand_salt, 0, 0

    def _play_mask(self, play: int, context: int) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
        if play & ~self.hand or not play:
            raise MalformedInput(f"seat {self.seat}: cards {cards_of(play)} are not in its hand {cards_of(self.hand)}")
        new_salt, play_salt = self.salt(), self.salt()
        play_inputs = {"old_hand": self.hand, "old_salt": self.hand_salt, "play": play, "play_salt": play_salt,
                       "new_salt": new_salt, "context": context}
        new_hand = self.hand & ~play
        data = {"new_hand_commitment": commit(new_hand, new_salt), "play_commitment": commit(play, play_salt)}
        proofs = [(PLAY_ID, play_inputs)]
        return data, proofs

    def play_cards(self, cards: Sequence[int], context: int) -> Move:
        play = mask_of(cards)
        data, proofs = self._play_mask(play, context)
        self._commit_play(play, proofs[0][1])
        return Move(Play(len(cards)), data, tuple(proofs))

    def auto_move(self, reason: str, forced: bool, context: int) -> Move:
        """The automatic move: the forced call, or the card the seat's seed picks for this
        turn (``card.play.v1`` with count 1 and ``card.pick.v1`` on the same commitments)."""
        if forced:
            return Move(AutoMove(reason), {})
        card = picked_card_native(self.hand, self.seed.seed, context)
        data, proofs = self._play_mask(1 << card, context)
        play_inputs = proofs[0][1]
        pick_inputs = {"hand": self.hand, "hand_salt": self.hand_salt, "play_salt": play_inputs["play_salt"],
                       "seed": self.seed.seed, "seed_salt": self.seed.salt, "context": context}
        self._commit_play(1 << card, play_inputs)
        return Move(AutoMove(reason), data, (proofs[0], (PICK_ID, pick_inputs)))

    def _commit_play(self, play: int, play_inputs: dict[str, Any]) -> None:
        self.hand &= ~play
        self.hand_salt = play_inputs["new_salt"]
        self.play, self.play_salt = play, play_inputs["play_salt"]

    def reveal(self) -> Move:
        """Open the last play: its cards and the salt of its commitment."""
        return Move(Reveal(cards_of(self.play)), {"play_salt": self.play_salt})

    def share(self, revolver: int, pull: int, context: int) -> Move:
        return Move(Share(self.seed.share(revolver, pull)), {},
                    ((SHARE_ID, self.seed.inputs(revolver, pull, context)),))


class ProofLedger:
    """The verifier's public commitments and the proofs each action owes."""

    def __init__(self, rules: BluffersRules):
        self.rules = rules
        n = rules.n_seats
        self.hand_commitments: list[Optional[int]] = [None] * n
        self.play_commitments: list[Optional[int]] = [None] * n

    def on_deal(self, hand_commitments: list[Optional[int]]) -> None:
        """The deal line's hand commitments (``None`` for seats that are out)."""
        alive = self.rules.public_state().alive
        if len(hand_commitments) != len(alive) or any((c is None) == a for c, a in zip(hand_commitments, alive)):
            raise MalformedInput("deal: one hand commitment for each standing seat, none for the others")
        self.hand_commitments = list(hand_commitments)
        self.play_commitments = [None] * len(alive)

    def obligations(self, seat: Optional[int], action: Action, data: dict[str, Any]) -> list[Obligation]:
        """The proofs ``action`` needs, from the state *before* it is applied."""
        snap: Snapshot = self.rules.public_state()
        auto_play = isinstance(action, AutoMove) and seat is not None and not self.rules.must_call(seat)
        if isinstance(action, Play) or auto_play:
            assert seat is not None
            self._need(data, ("new_hand_commitment", "play_commitment"), action.kind)
            count = action.count if isinstance(action, Play) else 1
            out = [Obligation(PLAY_ID, {
                "old_hand_commitment": _known(self.hand_commitments[seat], "the hand"), "new_hand_commitment": data["new_hand_commitment"],
                "play_commitment": data["play_commitment"], "count": count})]
            if isinstance(action, AutoMove):
                out.append(Obligation(PICK_ID, {
                    "hand_commitment": _known(self.hand_commitments[seat], "the hand"), "play_commitment": data["play_commitment"],
                    "seed_commitment": _known(snap.seed_commitments[seat], "the seed"), "hand_size": snap.hand_sizes[seat]}))
            return out
        if isinstance(action, Share):
            assert seat is not None and snap.share_slot is not None
            revolver, pull = snap.share_slot
            return [Obligation(SHARE_ID, {"seed_commitment": _known(snap.seed_commitments[seat], "the seed"), "revolver": revolver,
                                          "pull": pull, "share": action.value})]
        return []

    def check_reveal(self, seat: int, action: Reveal, data: dict[str, Any]) -> None:
        """The reveal opens the seat's last play commitment."""
        self._need(data, ("play_salt",), "reveal")
        expected = self.play_commitments[seat]
        got = commit(mask_of(action.cards), data["play_salt"])
        if expected is None or got != expected:
            raise CommitmentMismatch(f"reveal: cards {list(action.cards)} with that salt do not open seat {seat}'s "
                                     f"last play commitment")

    def after(self, seat: Optional[int], action: Action, data: dict[str, Any]) -> None:
        """Update the commitments once the action has been applied."""
        if isinstance(action, (Play, AutoMove)) and "play_commitment" in data:
            assert seat is not None
            self.hand_commitments[seat] = data["new_hand_commitment"]
            self.play_commitments[seat] = data["play_commitment"]

    @staticmethod
    def _need(data: dict[str, Any], keys: tuple[str, ...], what: str) -> None:
        missing = [k for k in keys if k not in data]
        if missing:
            raise MalformedInput(f"{what}: data lacks {', '.join(missing)}")


def _known(value: Optional[int], what: str) -> int:
    """A commitment the ledger must hold by now (an action before it is out of order)."""
    if value is None:
        raise IllegalMove(f"{what} is not committed yet")
    return value
