"""Liar's Dice (Perudo) as pure rules over public state: no I/O, no crypto.

Seats ``0..n-1`` start with five dice each (the ``dice`` option). A round: the dealer's
``roll`` line starts it once every seat still in has proven its roll (the deal scheme's own
lines, ``roll.py``); seats bid in turn, each ``(quantity, face)`` higher than the last
(a higher quantity, or the same quantity and a higher face); the seat to move may instead
call ``dudo`` on the last bid. Then every seat still in discloses its count of the bid face
(``count``, proven against its committed dice; ones count too when they are wild and the
face is not one). The total decides: at least the quantity, the caller loses a die; fewer,
the bidder does. A seat with no dice is out; the last seat with dice wins. The loser of a
round starts the next (the next seat still in, if the loser is out). A seat the referee's
clock times out is out at once, the round is void and the dice are rolled again.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import ClassVar, Optional

from zkbluff.errors import IllegalMove
from zkbluff.games.engine.rules import NO_SEAT, Action, EndCode, Result, Role, Rules

FACES = 6
START_DICE = 5


class End(EndCode):
    """Why a match of Liar's Dice ended: the end line's reason code under rules ``liars-dice/1``."""

    LAST_WITH_DICE = "last_with_dice"  # every other seat lost its last die or timed out
    NO_DICE = "no_dice"                # no seat holds a die (every seat still in timed out)


#: the game's end codes (``GameSpec.end_codes``): one table, the words beside them in :data:`END_TEXT`
END_CODES = End
#: the words of each end (``str.format`` fields from :func:`end_text`'s facts): for people, never checked
END_TEXT: dict[End, str] = {End.LAST_WITH_DICE: "the last seat with dice", End.NO_DICE: "no seat has dice"}
TIMED_OUT_TEXT = " (seat(s) {seats} timed out)"


def end_text(code: End, timed_out: tuple[int, ...] = ()) -> str:
    """The words of the end ``code`` (the end line's ``reason``), with the seats timed out."""
    words = END_TEXT[code]
    if timed_out and code is End.LAST_WITH_DICE:
        words += TIMED_OUT_TEXT.format(seats=", ".join(map(str, timed_out)))
    return words


class Phase(str, Enum):
    ROLL = "roll"    # the dice are being rolled (the deal's lines); the dealer starts the round
    BID = "bid"      # the seat to move bids or calls dudo
    COUNT = "count"  # after a dudo: every seat still in proves its count, in seat order
    OVER = "over"


@dataclass(frozen=True)
class Roll(Action):
    """The dealer's line that starts round ``round`` once every seat's roll is proven."""
    kind = "roll"
    role: ClassVar[Role] = Role.DEALER
    round: int


@dataclass(frozen=True)
class Bid(Action):
    kind = "bid"
    role: ClassVar[Role] = Role.SEAT
    quantity: int
    face: int


@dataclass(frozen=True)
class Dudo(Action):
    """The seat to move doubts the last bid."""
    kind = "dudo"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class Count(Action):
    """A seat's proven count of the bid face among its own dice."""
    kind = "count"
    role: ClassVar[Role] = Role.SEAT
    count: int


@dataclass(frozen=True)
class Timeout(Action):
    """The referee's line: ``seat`` let its time run out and is out of the match."""
    kind = "timeout"
    role: ClassVar[Role] = Role.REFEREE
    seat: int


@dataclass(frozen=True)
class RoundEnd:
    """How the last round ended (for the words and the bots): the bid, who called, the
    total, who lost a die; ``void`` for a round a timeout ended."""
    quantity: int
    face: int
    bidder: int
    caller: int
    total: int
    loser: int
    void: bool = False


@dataclass(frozen=True)
class State:
    n_seats: int
    wild: bool
    dice: tuple[int, ...]
    phase: Phase
    round: int = 0
    to_move: Optional[int] = NO_SEAT
    bid: Optional[tuple[int, int, int]] = None  # (quantity, face, bidder)
    caller: Optional[int] = None
    counts: tuple[Optional[int], ...] = ()
    starter: int = 0
    out: tuple[int, ...] = ()  # seats out, in the order they went out
    last: Optional[RoundEnd] = None
    timed_out: tuple[int, ...] = ()

    @property
    def in_play(self) -> int:
        return sum(self.dice)

    @property
    def standing(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.n_seats) if self.dice[s] > 0)


def bid_above(quantity: int, face: int, last: Optional[tuple[int, int, int]]) -> bool:
    """Whether ``(quantity, face)`` is higher than the last bid (quantity first, then face)."""
    return last is None or (quantity, face) > (last[0], last[1])


class LiarsDiceRules(Rules):
    def __init__(self, n_seats: int, wild: bool = True, dice: int = START_DICE):
        if not 2 <= n_seats <= 6:
            raise ValueError(f"liar's dice: 2..6 seats, got {n_seats}")
        self.n_seats = n_seats
        self.s = State(n_seats, wild, (dice,) * n_seats, Phase.ROLL)

    # ---- the contract
    @property
    def over(self) -> bool:
        return self.s.phase is Phase.OVER

    @property
    def to_move(self) -> Optional[int]:
        return self.s.to_move

    def public_state(self) -> State:
        return self.s

    def _next_in(self, seat: int) -> int:
        """The next seat after ``seat`` (in seat order) that still has dice."""
        for k in range(1, self.n_seats + 1):
            s = (seat + k) % self.n_seats
            if self.s.dice[s] > 0:
                return s
        return seat

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        s = self.s
        if self.over:
            return []
        if s.phase is Phase.ROLL:
            return [Roll(s.round + 1)] if seat is NO_SEAT else []
        if seat is NO_SEAT or seat != s.to_move:
            return []
        if s.phase is Phase.COUNT:
            return [Count(c) for c in range(s.dice[seat] + 1)]
        out: list[Action] = [Dudo()] if s.bid is not None else []
        out += [Bid(q, f) for q in range(1, s.in_play + 1) for f in range(1, FACES + 1) if bid_above(q, f, s.bid)]
        return out

    def check(self, seat: Optional[int], action: Action) -> None:
        s = self.s
        if isinstance(action, Timeout):
            if seat is not NO_SEAT:
                raise IllegalMove("timeout: the referee's line, not a seat's")
            if self.over or s.to_move is NO_SEAT or action.seat != s.to_move:
                raise IllegalMove(f"timeout: seat {action.seat} is not the seat to move")
            return
        if isinstance(action, Roll):
            if seat is not NO_SEAT:
                raise IllegalMove("roll: the dealer's line, not a seat's")
            if s.phase is not Phase.ROLL:
                raise IllegalMove(f"roll: the table is not waiting for a roll ({s.phase.value})")
            if action.round != s.round + 1:
                raise IllegalMove(f"roll: round {action.round}, the next round is {s.round + 1}")
            return
        if seat is NO_SEAT:
            raise IllegalMove(f"{action.kind}: a seat's action; the dealer and the referee never act for a seat")
        self._expect_turn(seat, action.kind)
        if isinstance(action, Count):
            if s.phase is not Phase.COUNT:
                raise IllegalMove("count: no dudo was called")
            if not 0 <= action.count <= s.dice[seat]:
                raise IllegalMove(f"count: {action.count} of {s.dice[seat]} dice")
            return
        if s.phase is not Phase.BID:
            raise IllegalMove(f"{action.kind}: not while the table is in its {s.phase.value} phase")
        if isinstance(action, Dudo):
            if s.bid is None:
                raise IllegalMove("dudo: there is no bid to doubt yet")
            return
        if isinstance(action, Bid):
            if not 1 <= action.face <= FACES:
                raise IllegalMove(f"bid: a face is 1..{FACES}, got {action.face}")
            if not 1 <= action.quantity <= s.in_play:
                raise IllegalMove(f"bid: a quantity is 1..{s.in_play} (the dice in play), got {action.quantity}")
            if not bid_above(action.quantity, action.face, s.bid):
                assert s.bid is not None
                raise IllegalMove(f"bid: {action.quantity} x {action.face} is not above the last bid "
                                  f"{s.bid[0]} x {s.bid[1]}")
            return
        raise IllegalMove(f"{action.kind}: not an action of this game")

    def _apply(self, seat: Optional[int], action: Action) -> None:
        s = self.s
        if isinstance(action, Roll):
            starter = s.starter if s.dice[s.starter] > 0 else self._next_in(s.starter)
            self.s = replace(s, phase=Phase.BID, round=action.round, to_move=starter, bid=None, caller=None,
                             counts=(None,) * self.n_seats, starter=starter)
        elif isinstance(action, Bid):
            assert seat is not None
            self.s = replace(s, bid=(action.quantity, action.face, seat), to_move=self._next_in(seat))
        elif isinstance(action, Dudo):
            assert seat is not None
            self.s = replace(s, phase=Phase.COUNT, caller=seat, to_move=self._first_to_count())
        elif isinstance(action, Count):
            assert seat is not None
            counts = tuple(action.count if i == seat else c for i, c in enumerate(s.counts))
            self.s = replace(s, counts=counts)
            nxt = self._first_to_count()
            if nxt is None:
                self._settle()
            else:
                self.s = replace(self.s, to_move=nxt)
        elif isinstance(action, Timeout):
            self._time_out(action.seat)

    def _first_to_count(self) -> Optional[int]:
        s = self.s
        for i in range(self.n_seats):
            if s.dice[i] > 0 and (not s.counts or s.counts[i] is None):
                return i
        return None

    def _lose_die(self, loser: int) -> None:
        s = self.s
        dice = tuple(d - 1 if i == loser else d for i, d in enumerate(s.dice))
        out = s.out + ((loser,) if dice[loser] == 0 else ())
        self.s = replace(s, dice=dice, out=out)

    def _settle(self) -> None:
        s = self.s
        assert s.bid is not None and s.caller is not None
        quantity, face, bidder = s.bid
        total = sum(c or 0 for c in s.counts)
        loser = s.caller if total >= quantity else bidder
        self._lose_die(loser)
        self.s = replace(self.s, last=RoundEnd(quantity, face, bidder, s.caller, total, loser), starter=loser)
        self._next_round()

    def _next_round(self) -> None:
        s = self.s
        if len(s.standing) <= 1:
            self.s = replace(s, phase=Phase.OVER, to_move=NO_SEAT)
            return
        starter = s.starter if s.dice[s.starter] > 0 else self._next_in(s.starter)
        self.s = replace(s, phase=Phase.ROLL, to_move=NO_SEAT, bid=None, caller=None, counts=(), starter=starter)

    def _time_out(self, seat: int) -> None:
        s = self.s
        dice = tuple(0 if i == seat else d for i, d in enumerate(s.dice))
        bid = s.bid or (0, 0, seat)
        self.s = replace(s, dice=dice, out=s.out + (seat,), timed_out=s.timed_out + (seat,), starter=seat,
                         last=RoundEnd(bid[0], bid[1], bid[2], seat if s.caller is None else s.caller, 0, seat,
                                       void=True))
        self._next_round()

    # ---- the result
    def places(self) -> tuple[int, ...]:
        """Places now: seats still in share first place when more than one is; seats out
        place by how long they lasted (the first out last)."""
        s = self.s
        n_in = len(s.standing)
        places = [1] * self.n_seats
        for k, seat in enumerate(reversed(s.out)):
            places[seat] = n_in + 1 + k
        return tuple(places)

    def standing_places(self) -> Optional[tuple[int, ...]]:
        """Settled on the dice held: more dice, a better place (ties share it)."""
        s = self.s
        return tuple(1 + sum(1 for d in s.dice if d > s.dice[i]) for i in range(self.n_seats))

    def result(self) -> Optional[Result]:
        if not self.over:
            return None
        s = self.s
        code = End.LAST_WITH_DICE if s.standing else End.NO_DICE
        return Result(self.places(), s.dice, end_text(code, tuple(s.timed_out)), code=code.value)
