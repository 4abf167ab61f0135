"""Cheat at a proven table: :class:`CheatRules` wrapped with the lines a table with hidden
cards needs around them (still pure rules: public state only, no crypto).

What the wrapper adds, in order:

1. ``entropy_dealer`` (the dealer, ``NO_SEAT``): the dealer's entropy commitment and its
   X25519 public key, first, before any seat's entropy (protocol/entropy.py's order: the
   dealer is bound before it can see anything).
2. ``entropy`` (each seat, in seat order): its entropy commitment, the commitment of its
   hand key, its X25519 public key and its opening sealed to the dealer.
3. ``deal`` carries each seat's hand sealed to it (:class:`SealedDeal`).
4. ``reveal`` carries the play's salt with its cards, so everyone opens the commitment.
5. After a reveal, every seat that made an earlier play of the pile (but the picker)
   hands the picker the openings of those plays, sealed to it (:class:`HandOver`), in
   turn order from the picker; then the picker takes the pile in ``ceil(plays / 4)``
   ``pick_up`` lines (:class:`PickUpPart`), each proving four plays absorbed.
6. ``forfeit`` in the entropy phase ends the table: the silent seat scores the whole deck
   for every hand, everyone else 0 (no card was dealt).

Every play is numbered (the rules' ``play_no``); the wrapper lists the play numbers in
the pile (:attr:`TablePublic.pile_plays`) so the table finds each play's commitment.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar, Optional

from zkbluff.errors import IllegalMove
from zkbluff.games.cheat.rules import (
    DECK, Call, CheatRules, CheatState, CloseWindow, Deal, Forfeit, Pass, Phase, PickUp, Play, Reveal,
)
from zkbluff.games.engine.rules import NO_SEAT, Action, Result, Rules

#: plays absorbed per pick-up line (the slots of card.absorb_many.v1)
PICKUP_SLOTS = 4


class Stage(str, Enum):
    DEALER_ENTROPY = "dealer_entropy"
    SEAT_ENTROPY = "seat_entropy"
    RULES = "rules"            # the game's own phases (CheatRules)
    HAND_OVER = "hand_over"    # earlier plays' openings to the picker
    ABSORB = "absorb"          # the picker's pick-up lines
    ABANDONED = "abandoned"    # a seat sent no entropy


@dataclass(frozen=True)
class DealerEntropy(Action):
    kind: ClassVar[str] = "entropy_dealer"
    commitment: str
    x25519: str


@dataclass(frozen=True)
class SeatEntropy(Action):
    """A seat's entropy line. ``x25519`` keys its channel to the dealer (the sealed opening
    of its entropy and its hand key); ``pile_x25519`` is a second key, only for the piles'
    openings between seats, so a dispute that shows it shows nothing of the deal."""

    kind: ClassVar[str] = "entropy"
    commitment: str
    hand_key_commitment: str
    x25519: str
    pile_x25519: str
    sealed: str


@dataclass(frozen=True)
class SealedDeal(Action):
    """The deal: every seat's hand size and its hand sealed to it (seat order)."""

    kind: ClassVar[str] = "deal"
    hand_sizes: tuple[int, ...]
    sealed: tuple[str, ...]


@dataclass(frozen=True)
class OpenedReveal(Action):
    """The called play turned over: its cards and the salt of its commitment."""

    kind: ClassVar[str] = "reveal"
    cards: tuple[int, ...]
    salt: str


@dataclass(frozen=True)
class HandOver(Action):
    """The openings of this seat's earlier plays in the pile, sealed to the picker."""

    kind: ClassVar[str] = "hand_over"
    sealed: str


@dataclass(frozen=True)
class PickUpPart(Action):
    """Part ``part`` of the pick-up of a pile of ``count`` cards (plays
    ``4 * part .. 4 * part + 3`` of the pile absorbed in one proof)."""

    kind: ClassVar[str] = "pick_up"
    count: int
    part: int


@dataclass(frozen=True)
class Dispute(Action):
    """The picker shows that ``sender``'s hand-over does not open to that seat's plays in the
    pile: it reveals its pile key of this match (``x25519_secret``, the one of
    ``pile_x25519``, never its dealer channel's), so anyone opens the sealed openings and
    checks them. Founded, ``sender`` forfeits the hand; unfounded,
    the line is refused."""

    kind: ClassVar[str] = "dispute"
    sender: int
    x25519_secret: str


ACTIONS: tuple[type[Action], ...] = (DealerEntropy, SeatEntropy, SealedDeal, Play, Pass, Call, CloseWindow,
                                     OpenedReveal, HandOver, PickUpPart, Dispute, Forfeit)


@dataclass(frozen=True)
class TablePublic:
    """The game's public state plus the table's: the stage, the play numbers of the pile
    (oldest first), who still owes the picker openings, the next pick-up part."""

    game: CheatState
    stage: Stage
    to_move: Optional[int]
    pile_plays: tuple[int, ...]
    owing: tuple[int, ...]
    parts: int
    next_part: int
    entropy_from: tuple[int, ...]


class CheatTable(Rules):
    """:class:`CheatRules` plus the table's entropy, sealed openings and pick-up parts."""

    def __init__(self, n_seats: int, hands: int = 3, window: int = 3, first_dealer: int = 0):
        self.game = CheatRules(n_seats, hands, window, first_dealer)
        self.n_seats = n_seats
        self.stage = Stage.DEALER_ENTROPY
        self.entropy_from: list[int] = []
        self.pile_plays: list[int] = []
        self.owing: list[int] = []
        self.handed: list[int] = []
        self.next_part = 0
        self._abandoned: Optional[Result] = None
        #: public events as (seat, action, state before, state after) of the game's rules
        self.history: list[tuple[Optional[int], Action, CheatState, CheatState]] = []

    # ---- the contract
    @property
    def over(self) -> bool:
        return self.stage == Stage.ABANDONED or self.game.over

    @property
    def to_move(self) -> Optional[int]:
        if self.stage == Stage.DEALER_ENTROPY or self.stage == Stage.ABANDONED:
            return NO_SEAT
        if self.stage == Stage.SEAT_ENTROPY:
            return len(self.entropy_from)
        if self.stage == Stage.HAND_OVER:
            return self.owing[0]
        return self.game.to_move

    @property
    def s(self) -> CheatState:
        return self.game.public_state()

    @property
    def parts(self) -> int:
        return -(-len(self.pile_plays) // PICKUP_SLOTS)

    def public_state(self) -> TablePublic:
        return TablePublic(self.game.public_state(), self.stage, self.to_move, tuple(self.pile_plays),
                           tuple(self.owing), self.parts, self.next_part, tuple(self.entropy_from))

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        """The game's legal actions where the game decides (the table's own lines carry
        secrets, so they are not listed)."""
        if self.stage == Stage.RULES and not (self.game.phase == Phase.PICKUP):
            if self.game.phase == Phase.DEAL:
                return []
            return [a for a in self.game.legal_actions(seat) if not isinstance(a, (Deal, Reveal))]
        return []

    def check(self, seat: Optional[int], action: Action) -> None:
        if not isinstance(action, ACTIONS):
            raise IllegalMove(f"cheat: unknown action {action!r}")
        if self.over:
            raise IllegalMove(f"{action.kind}: the table is over")
        if isinstance(action, Forfeit):
            if self.stage == Stage.SEAT_ENTROPY:
                if seat is not NO_SEAT:
                    raise IllegalMove(f"forfeit: only the referee declares a forfeit, not seat {seat}")
                if action.seat != self.to_move:
                    raise IllegalMove(f"forfeit: seat {self.to_move} owes its entropy, not seat {action.seat}")
                return
            if self.stage == Stage.DEALER_ENTROPY:
                raise IllegalMove("forfeit: the dealer has not committed its entropy")
            if self.stage in (Stage.HAND_OVER, Stage.ABSORB) and action.seat != self.to_move:
                raise IllegalMove(f"forfeit: seat {self.to_move} owes the next line, not seat {action.seat}")
            return self.game.check(seat, action)
        if isinstance(action, DealerEntropy):
            if self.stage != Stage.DEALER_ENTROPY or seat is not NO_SEAT:
                raise IllegalMove("entropy_dealer: the dealer commits once, first")
            return None
        if isinstance(action, SeatEntropy):
            if self.stage != Stage.SEAT_ENTROPY:
                raise IllegalMove("entropy: not now (the dealer commits first; each seat sends one)")
            self._expect_turn(seat, "entropy")
            return None
        if self.stage in (Stage.DEALER_ENTROPY, Stage.SEAT_ENTROPY):
            raise IllegalMove(f"{action.kind}: the entropies are not all in")
        if isinstance(action, HandOver):
            if self.stage != Stage.HAND_OVER:
                raise IllegalMove("hand_over: no openings are owed now")
            self._expect_turn(seat, "hand_over")
            return None
        if isinstance(action, Dispute):
            if self.stage != Stage.ABSORB:
                raise IllegalMove("dispute: only about a hand-over, before the pick-up is proven")
            self._expect_turn(seat, "dispute")
            if self.next_part:
                raise IllegalMove("dispute: the pick-up is already under way")
            if action.sender not in self.handed:
                raise IllegalMove(f"dispute: seat {action.sender!r} handed the picker nothing in this pick-up")
            return None
        if isinstance(action, PickUpPart):
            if self.stage != Stage.ABSORB:
                if self.stage == Stage.HAND_OVER:
                    raise IllegalMove(f"pick_up: seat {self.owing[0]} still owes the picker its openings")
                raise IllegalMove(f"pick_up: not allowed now (phase {self.game.phase.value})")
            self._expect_turn(seat, "pick_up")
            if action.count != self.s.pile_size:
                raise IllegalMove(f"pick_up: the pile holds {self.s.pile_size} cards, got {action.count}")
            if action.part != self.next_part:
                raise IllegalMove(f"pick_up: part {self.next_part} of {self.parts} is next, got {action.part!r}")
            return None
        if self.stage != Stage.RULES:
            raise IllegalMove(f"{action.kind}: not allowed now (the pick-up of the pile is under way)")
        inner = self._inner(action)
        if isinstance(action, SealedDeal) and len(action.sealed) != self.n_seats:
            raise IllegalMove(f"deal: {self.n_seats} sealed hands expected, got {len(action.sealed)}")
        return self.game.check(seat, inner)

    @staticmethod
    def _inner(action: Action) -> Action:
        if isinstance(action, SealedDeal):
            return Deal(action.hand_sizes)
        if isinstance(action, OpenedReveal):
            return Reveal(action.cards)
        return action

    def _apply(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, DealerEntropy):
            self.stage = Stage.SEAT_ENTROPY
            return
        if isinstance(action, SeatEntropy):
            self.entropy_from.append(seat)  # type: ignore[arg-type]
            if len(self.entropy_from) == self.n_seats:
                self.stage = Stage.RULES
            return
        if isinstance(action, Forfeit) and self.stage == Stage.SEAT_ENTROPY:
            scores = tuple(DECK.size * self.game.hands if i == action.seat else 0 for i in range(self.n_seats))
            places = tuple(1 + sum(t < mine for t in scores) for mine in scores)
            self._abandoned = Result(places, scores, f"seat {action.seat} sent no entropy: {action.reason}")
            self.stage = Stage.ABANDONED
            return
        if isinstance(action, HandOver):
            self.handed.append(self.owing.pop(0))
            if not self.owing:
                self.stage = Stage.ABSORB
            return
        if isinstance(action, PickUpPart):
            self.next_part += 1
            if self.next_part < self.parts:
                return
            action = PickUp(action.count)
        if isinstance(action, Dispute):
            seat, action = NO_SEAT, Forfeit(action.sender, "handed the picker openings that are not its plays")
        before = self.game.public_state()
        inner = self._inner(action)
        self.game.apply(seat, inner)
        after = self.game.public_state()
        self.history.append((seat, inner, before, after))
        if isinstance(inner, Play):
            self.pile_plays.append(after.play_no)
        elif isinstance(inner, Reveal):
            picker = after.picker
            assert picker is not None
            earlier = {p for p, _ in before.pile[:-1]} - {picker}
            self.owing = [(picker + k) % self.n_seats for k in range(1, self.n_seats)
                          if (picker + k) % self.n_seats in earlier]
            self.next_part, self.handed = 0, []
            self.stage = Stage.HAND_OVER if self.owing else Stage.ABSORB
        elif isinstance(inner, (PickUp, Deal, Forfeit)) or (isinstance(inner, Pass) and not after.pile):
            self.pile_plays = []
            self.owing, self.handed = [], []
            self.next_part = 0
            self.stage = Stage.RULES

    def result(self) -> Optional[Result]:
        if self._abandoned is not None:
            return self._abandoned
        return self.game.result()
