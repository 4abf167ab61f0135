"""Cheat at a proven table: :class:`CheatRules` wrapped with the lines a table with hidden
cards needs around them (still pure rules: public state only, no crypto).

The deal's own lines come first and are the engine's (``games/engine/proven_deal.py``: the
dealer's entropy commitment, each seat's entropy line, a forfeit of a silent seat, a
complaint about a wrong sealed hand); the rules' actions wait until they are in. What the
wrapper adds, in order:

1. ``deal`` carries each seat's hand sealed to it (:class:`SealedDeal`), hand ``k`` of the
   proof to seat ``seats[k]`` (the deal order from the seat next to the hand's dealer).
2. ``reveal`` carries the play's salt with its cards, so everyone opens the commitment.
3. After a reveal, every seat that made an earlier play of the pile (but the picker)
   hands the picker the openings of those plays, sealed to it (:class:`HandOver`), in
   turn order from the picker; then the picker takes the pile in ``ceil(plays / 4)``
   ``pick_up`` lines (:class:`PickUpPart`), each proving four plays absorbed.

Every play is numbered (the rules' ``play_no``); the wrapper lists the play numbers in
the pile (:attr:`TablePublic.pile_plays`) so the table finds each play's commitment.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar, Optional

from zkbluff.errors import IllegalMove
from zkbluff.games.cheat.rules import (
    Call, CheatRules, CheatState, CloseWindow, Deal, Forfeit, Pass, Phase, PickUp, Play, Reveal, deal_order,
)
from zkbluff.games.engine.rules import NO_SEAT, Action, Result, Role, Rules

#: plays absorbed per pick-up line (the slots of card.absorb_many.v1)
PICKUP_SLOTS = 4


class Stage(str, Enum):
    RULES = "rules"            # the game's own phases (CheatRules)
    HAND_OVER = "hand_over"    # earlier plays' openings to the picker
    ABSORB = "absorb"          # the picker's pick-up lines


@dataclass(frozen=True)
class SealedDeal(Action):
    """The deal: every seat's hand size (seat order), the seats in deal order (hand ``k`` of
    the proof is seat ``seats[k]``'s) and their hands sealed to them (in that order)."""

    kind: ClassVar[str] = "deal"
    role: ClassVar[Role] = Role.DEALER
    hand_sizes: tuple[int, ...]
    seats: tuple[int, ...]
    sealed_hands: tuple[str, ...]


@dataclass(frozen=True)
class OpenedReveal(Action):
    """The called play turned over: its cards and the salt of its commitment."""

    kind: ClassVar[str] = "reveal"
    role: ClassVar[Role] = Role.SEAT
    cards: tuple[int, ...]
    salt: str


@dataclass(frozen=True)
class HandOver(Action):
    """The openings of this seat's earlier plays in the pile, sealed to the picker under a key
    of this hand-over alone: ``ephemeral`` is ``R = k G`` for a fresh ``k`` (G1, hex), ``proof``
    the sender's proof that it knows ``k`` (bound to this hand-over), and ``sealed`` the openings
    under the key of ``k`` times the picker's pile key (:mod:`zkbluff.protocol.dleq`)."""

    kind: ClassVar[str] = "hand_over"
    role: ClassVar[Role] = Role.SEAT
    sealed: str
    ephemeral: str
    proof: str


@dataclass(frozen=True)
class PickUpPart(Action):
    """Part ``part`` of the pick-up of a pile of ``count`` cards (plays
    ``4 * part .. 4 * part + 3`` of the pile absorbed in one proof)."""

    kind: ClassVar[str] = "pick_up"
    role: ClassVar[Role] = Role.SEAT
    count: int
    part: int


@dataclass(frozen=True)
class Dispute(Action):
    """The picker shows that ``sender``'s hand-over does not open to that seat's plays in the
    pile: it discloses the key of that one hand-over (``shared``: its pile key's scalar times
    the hand-over's ephemeral point) with a proof that it is exactly that (``proof``, a
    Chaum–Pedersen proof against the pile key of its ``entropy.seat`` line), so anyone opens
    this hand-over and checks it, and nothing else opens. Founded, ``sender`` forfeits the
    hand; unfounded, the line is refused."""

    kind: ClassVar[str] = "dispute"
    role: ClassVar[Role] = Role.SEAT
    sender: int
    shared: str
    proof: str


ACTIONS: tuple[type[Action], ...] = (SealedDeal, Play, Pass, Call, CloseWindow, OpenedReveal, HandOver, PickUpPart,
                                     Dispute, Forfeit)


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


class CheatTable(Rules):
    """:class:`CheatRules` plus the table's sealed deal, sealed openings and pick-up parts."""

    def __init__(self, n_seats: int, hands: int = 3, window: int = 3, first_dealer: int = 0, sealed: bool = True):
        self.game = CheatRules(n_seats, hands, window, first_dealer)
        self.n_seats = n_seats
        #: whether the deal seals each hand to its seat (the zk dealer's); False: a house-blind
        #: deal, whose seats opened their own hands on the deal's lines (the deal carries none)
        self.sealed = sealed
        self.stage = Stage.RULES
        self.pile_plays: list[int] = []
        self.owing: list[int] = []
        self.handed: list[int] = []
        self.next_part = 0
        #: public events as (seat, action, state before, state after) of the game's rules
        self.history: list[tuple[Optional[int], Action, CheatState, CheatState]] = []

    # ---- the contract
    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def to_move(self) -> Optional[int]:
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
                           tuple(self.owing), self.parts, self.next_part)

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
            if self.stage in (Stage.HAND_OVER, Stage.ABSORB) and action.seat != self.to_move:
                raise IllegalMove(f"forfeit: seat {self.to_move} owes the next line, not seat {action.seat}")
            return self.game.check(seat, action)
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
        self.game.check(seat, inner)
        if isinstance(action, SealedDeal):
            order = deal_order(self.n_seats, self.game.dealer)
            if action.seats != order:
                raise IllegalMove(f"deal: the deal order is seats {list(order)}, got {list(action.seats)!r:.80}")
            want = self.n_seats if self.sealed else 0
            if len(action.sealed_hands) != want:
                raise IllegalMove(f"deal: {want} sealed hands expected, got {len(action.sealed_hands)}")

    @staticmethod
    def _inner(action: Action) -> Action:
        if isinstance(action, SealedDeal):
            return Deal(action.hand_sizes)
        if isinstance(action, OpenedReveal):
            return Reveal(action.cards)
        return action

    def _apply(self, seat: Optional[int], action: Action) -> None:
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

    def standing_places(self) -> Optional[tuple[int, ...]]:
        """By the penalties of the hands played out so far (lower is better)."""
        totals = self.game.penalties
        return tuple(1 + sum(t < mine for t in totals) for mine in totals)

    def result(self) -> Optional[Result]:
        return self.game.result()
