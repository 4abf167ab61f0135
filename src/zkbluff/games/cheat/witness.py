"""What a Cheat seat proves, from its own secrets: the inputs of its play and pick-up
statements, and the checks it makes on what it is shown.

A seat holds its hand as a :class:`SeatHand` (card mask and the salt of its public
commitment). Its play is ``card.play.v1`` (:data:`PLAY_KEY`, :meth:`SeatHand.play`);
a called play is turned over by publishing its :class:`PlayOpening`, which everyone
checks against the play's commitment (:meth:`PlayOpening.check`, no proof); the seat
that picks up the pile receives the opening of every play in it (the last one public,
the earlier ones sealed to it by the seats that made them: only they know their
openings), checks each, and proves its new hand with the chain of
``card.absorb_many.v1`` proofs (:meth:`SeatHand.pick_up`). Salts and contexts come in
as arguments: nothing here draws randomness or does I/O.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.gadgets import native as nat
from zkbluff.games.cheat.rules import DECK, MAX_PLAY, MIN_PLAY
from zkbluff.games.cheat.statements import ABSORB_SLOTS, absorb_chain_inputs, open_play

PLAY_KEY = f"card.play.v1@deck={DECK.size},max_play={MAX_PLAY}"
ABSORB_KEY = f"card.absorb_many.v1@deck={DECK.size},plays={ABSORB_SLOTS}"


def _mask(cards: Sequence[int]) -> int:
    return sum(1 << c for c in set(cards))


@dataclass(frozen=True)
class PlayOpening:
    """The opening of a play commitment: the played cards' mask and the play's salt."""

    mask: int
    salt: int

    @property
    def commitment(self) -> int:
        return nat.commit(self.mask, self.salt)

    @property
    def cards(self) -> tuple[int, ...]:
        return tuple(c for c in range(DECK.size) if self.mask >> c & 1)

    def check(self, commitment: int, count: int) -> tuple[int, ...]:
        """The cards, if this opens ``commitment`` as a play of ``count`` cards; else
        :class:`~zkbluff.errors.CommitmentMismatch` or :class:`MalformedInput`."""
        return open_play(commitment, self.mask, self.salt, count, DECK.size)


@dataclass(frozen=True)
class SeatHand:
    """A seat's private hand: which cards, and the salt of its public commitment."""

    mask: int
    salt: int

    @classmethod
    def of(cls, cards: Sequence[int], salt: int) -> "SeatHand":
        if any(not 0 <= c < DECK.size for c in cards):
            raise MalformedInput(f"hand: card ids are 0..{DECK.size - 1}, got {sorted(cards)}")
        return cls(_mask(cards), salt)

    @property
    def commitment(self) -> int:
        return nat.commit(self.mask, self.salt)

    @property
    def cards(self) -> tuple[int, ...]:
        return tuple(c for c in range(DECK.size) if self.mask >> c & 1)

    def play(self, cards: Sequence[int], play_salt: int, new_salt: int,
             context: int) -> tuple[dict[str, int], "SeatHand", PlayOpening]:
        """Put ``cards`` down: the inputs of the play proof, the hand after it, and the
        play's opening (kept until the play is called or picked up). Refuses cards it does
        not hold, repeats, or a count outside 1..4."""
        played = _mask(cards)
        if len(set(cards)) != len(cards) or not MIN_PLAY <= len(cards) <= MAX_PLAY:
            raise IllegalMove(f"play: {MIN_PLAY}..{MAX_PLAY} distinct cards, got {list(cards)}")
        if played & ~self.mask:
            missing = [c for c in cards if not self.mask >> c & 1]
            raise IllegalMove(f"play: card(s) {missing} are not in this hand")
        inputs = {"old_hand": self.mask, "old_salt": self.salt, "play": played, "play_salt": play_salt,
                  "new_salt": new_salt, "context": context}
        return inputs, SeatHand(self.mask & ~played, new_salt), PlayOpening(played, play_salt)

    def pick_up(self, pile: Sequence[tuple[int, int, PlayOpening]], new_salts: Sequence[int],
                contexts: Sequence[int]) -> tuple[list[dict[str, int]], "SeatHand"]:
        """Take the pile: ``pile`` lists each play's public commitment, its public count
        and the opening the picker received, oldest first. Each opening is checked first
        (a bad one raises before anything is proven); then the inputs of the chain of
        pick-up proofs and the hand after it."""
        if not pile:
            raise MalformedInput("pick-up: the pile is empty")
        for commitment, count, opening in pile:
            opening.check(commitment, count)
        plays = [(o.mask, o.salt) for _, _, o in pile]
        inputs = absorb_chain_inputs(self.mask, self.salt, plays, new_salts, contexts)
        union = self.mask
        for mask, _ in plays:
            union |= mask
        return inputs, SeatHand(union, new_salts[-1])
