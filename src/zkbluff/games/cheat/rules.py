"""The rules of Cheat (seed 004, Boombala's bluff) as a public state machine.

The state holds only what every seat may see: hand sizes, the plays in the pile (who
played how many), the claimed rank, the count of cards set aside, whose move it is, the
penalties. Which cards a seat holds lives in the seat. Everything random or timed comes
in as an action: the deal (:class:`Deal`, from the dealer), the close of a calling window
(:class:`CloseWindow`, from the table's injected clock), the cards of a called play
(:class:`Reveal`, from the seat that played them; the table checks them against the
play's commitment before it applies the action).

One hand:

1. ``DEAL`` (``NO_SEAT``): the whole deck is dealt; seats from the one next to the
   dealer onwards get one card more when the deck does not divide evenly. The seat next
   to the dealer opens the first round.
2. ``PLAY`` (the seat to move): the opener names any rank and plays 1..4 cards; later
   seats play 1..4 claiming the same rank, or pass. When every other seat has passed in
   a row since the last play, the pile is set aside face down (out of the hand, secret
   forever) and the last seat to play opens a new round.
3. ``WINDOW`` (after every play): every other seat may :class:`Call`; the first call
   counts. The table's clock ends the window with :class:`CloseWindow` (``NO_SEAT``);
   a call after that is refused. Both name the play (its number at the table), so a
   late call on one play can never land on the next play's window. If nobody called and the play emptied the player's
   hand, the hand is over.
4. ``TURNOVER`` (the seat that made the called play): :class:`Reveal` its cards. If
   every card is the claimed rank the caller was wrong; otherwise the lie is caught.
5. ``PICKUP`` (the loser of the call): :class:`PickUp` the whole pile. Whoever was
   right opens the next round. If the called play emptied its player's hand and the
   call was wrong, the hand is over once the caller has picked up; if the lie was
   caught, the liar picked up and the hand goes on.

A hand scores 0 for the seat that emptied its hand and 1 per card held for every other
seat; a table plays 3, 5 or 7 hands, the deal moving one seat each hand; the lowest total
wins and ties share a place.

A seat that withholds what the table needs (an opening, a pick-up proof) is dealt with
by the referee's :class:`Forfeit`: the hand ends at once, the forfeiting seat scores the
whole deck as its penalty for the hand and every other seat scores 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Optional

from zkbluff.errors import IllegalMove
from zkbluff.games.decks import STANDARD_52, Deck
from zkbluff.games.engine.rules import NO_SEAT, Action, EndCode, Result, Role, Rules

DECK: Deck = STANDARD_52


class End(EndCode):
    """How the last hand of a match of Cheat ended (the match ends with it): the end line's
    reason code under rules ``cheat/1``, e.g. ``cheat.emptied_hand``."""

    EMPTIED_HAND = "emptied_hand"            # a seat played its last cards and nobody called in time
    EMPTIED_HAND_WRONG_CALL = "emptied_hand_wrong_call"  # a seat's last cards were called, and they were true
    FORFEIT = "forfeit"                      # the referee ended the hand on a seat's forfeit


#: the game's end codes (``GameSpec.end_codes``): one table, the words beside them in :data:`END_TEXT`
END_CODES = End
#: the words of each end (``str.format`` fields from :func:`end_text`'s facts): for people, never checked
END_TEXT: dict[End, str] = {
    End.EMPTIED_HAND: "seat {seat} played their last cards and nobody called in time",
    End.EMPTIED_HAND_WRONG_CALL: "seat {seat} played their last cards and the call was wrong",
    End.FORFEIT: "seat {seat} forfeited the hand: {why}",
}
#: the words added when the hand was the match's last
MATCH_OVER_TEXT = "{reason}; {hands} hands played, the lowest total penalty wins"


def end_text(code: End, hands: Optional[int] = None, **facts: Any) -> str:
    """The words of a hand's end ``code``; with ``hands``, of the match's (the end line's ``reason``)."""
    reason = END_TEXT[code].format(**facts)
    return reason if hands is None else MATCH_OVER_TEXT.format(reason=reason, hands=hands)
N_RANKS = len(DECK.rank_names)
#: how many cards count as each rank (four in the standard deck)
PER_RANK = tuple(bin(DECK.rank_mask(rank)).count("1") for rank in range(N_RANKS))
MIN_PLAY, MAX_PLAY = 1, 4
MIN_SEATS, MAX_SEATS = 3, 6
HAND_COUNTS = (3, 5, 7)
WINDOW_SECONDS = (1, 3, 5, 7)


def rank_of(card: int) -> int:
    """The rank a card of the deck counts as."""
    for rank in range(N_RANKS):
        if DECK.counts_as(card, rank):
            return rank
    raise ValueError(f"card {card} counts as no rank of {DECK.name}")


def deal_order(n_seats: int, dealer: int) -> tuple[int, ...]:
    """The seats in the order the cards are dealt: from the one next to the dealer round
    to the dealer. Their hand sizes in this order never increase, so one deal statement
    (hand slots sized, say, 18-17-17) serves every dealer when slot i is seat
    ``deal_order(n, dealer)[i]``."""
    return tuple((dealer + 1 + i) % n_seats for i in range(n_seats))


def deal_sizes(n_seats: int, dealer: int) -> tuple[int, ...]:
    """The hand sizes of a full deal: the deck split as evenly as it goes, the extra
    cards to the seats from the one next to the dealer onwards (dealt one at a time)."""
    base, extra = divmod(DECK.size, n_seats)
    sizes = [base] * n_seats
    for seat in deal_order(n_seats, dealer)[:extra]:
        sizes[seat] += 1
    return tuple(sizes)


class Phase(str, Enum):
    DEAL = "deal"
    PLAY = "play"
    WINDOW = "window"
    TURNOVER = "turnover"
    PICKUP = "pickup"
    OVER = "over"


# ---------------------------------------------------------------- actions

@dataclass(frozen=True)
class Deal(Action):
    """The dealer's deal (``NO_SEAT``): every seat's hand size. Must be :func:`deal_sizes`
    for this hand's dealer; the cards themselves are committed and proven by the table."""

    kind: ClassVar[str] = "deal"
    role: ClassVar[Role] = Role.DEALER
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True)
class Play(Action):
    """Cards face down with the claim "``count`` × ``rank``". The opener names any rank;
    a follower's rank must be the round's."""

    kind: ClassVar[str] = "play"
    role: ClassVar[Role] = Role.SEAT
    rank: int
    count: int


@dataclass(frozen=True)
class Pass(Action):
    """Decline to play in a round (never the opener)."""

    kind: ClassVar[str] = "pass"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class Call(Action):
    """"Bluff!" on play number ``play`` (see :attr:`CheatState.play_no`), by any seat but
    its player, while its window is open. The number makes a late call on an earlier
    play fail instead of landing on the next one."""

    kind: ClassVar[str] = "call"
    role: ClassVar[Role] = Role.SEAT
    play: int


@dataclass(frozen=True)
class CloseWindow(Action):
    """The table's clock ends the calling window of play number ``play`` (``NO_SEAT``)."""

    kind: ClassVar[str] = "close_window"
    role: ClassVar[Role] = Role.REFEREE
    play: int


@dataclass(frozen=True)
class Reveal(Action):
    """The called play turned over: its card ids, by the seat that played it (the table
    checks them against the play's commitment)."""

    kind: ClassVar[str] = "reveal"
    role: ClassVar[Role] = Role.SEAT
    cards: tuple[int, ...]


@dataclass(frozen=True)
class PickUp(Action):
    """The loser of a call takes the whole pile: ``count`` is the pile's size."""

    kind: ClassVar[str] = "pick_up"
    role: ClassVar[Role] = Role.SEAT
    count: int


@dataclass(frozen=True)
class Forfeit(Action):
    """The referee (``NO_SEAT``) ends the hand against a seat that withheld a required
    message (an opening, a proof) or let its turn time out."""

    kind: ClassVar[str] = "forfeit"
    role: ClassVar[Role] = Role.REFEREE
    seat: int
    reason: str


ACTIONS: tuple[type[Action], ...] = (Deal, Play, Pass, Call, CloseWindow, Reveal, PickUp, Forfeit)
#: the action class of each transcript ``action`` string
ACTION_BY_KIND: dict[str, type[Action]] = {a.kind: a for a in ACTIONS}


# ---------------------------------------------------------------- public state

@dataclass(frozen=True)
class CheatState:
    """A snapshot of everything public. ``pile`` lists the current round's plays as
    ``(seat, count)``, oldest first; ``set_aside`` counts the cards put aside this hand;
    ``penalties`` are the running totals, ``hand_penalties`` each finished hand's."""

    n_seats: int
    hands: int
    window: int
    phase: Phase
    to_move: Optional[int]
    hand_no: int  # hands dealt so far (1 during the first hand)
    play_no: int  # plays made at this table so far: the number of the last play
    dealer: int
    hand_sizes: tuple[int, ...]
    pile: tuple[tuple[int, int], ...]
    set_aside: int
    rank: Optional[int]  # the round's claimed rank (None before the opener plays)
    passes: int  # passes in a row since the last play
    caller: Optional[int]
    revealed: tuple[int, ...]  # the called play's cards, once turned over
    picker: Optional[int]
    penalties: tuple[int, ...]
    hand_penalties: tuple[tuple[int, ...], ...]
    emptied: Optional[int]  # who emptied their hand in the last finished hand
    end_reason: str

    @property
    def pile_size(self) -> int:
        return sum(count for _, count in self.pile)

    @property
    def last_play(self) -> Optional[tuple[int, int]]:
        return self.pile[-1] if self.pile else None

    @property
    def in_hand(self) -> bool:
        """Cards are out (between a deal and the end of its hand)."""
        return self.phase not in (Phase.DEAL, Phase.OVER)


def check_conservation(s: CheatState) -> None:
    """The invariants every event keeps (tests call it after every action): from the
    first deal on, the hands, the pile and the set-aside cards are the whole deck (between
    hands and at the end, with the last hand's counts); no count is
    negative; the pile is the round's plays of 1..4 cards; the phase and the seat to
    move agree. Raises AssertionError naming the broken one."""
    assert len(s.hand_sizes) == s.n_seats and len(s.penalties) == s.n_seats, "one entry per seat"
    assert all(n >= 0 for n in s.hand_sizes) and s.set_aside >= 0, f"negative count: {s}"
    assert all(MIN_PLAY <= c <= MAX_PLAY and 0 <= p < s.n_seats for p, c in s.pile), f"bad pile {s.pile}"
    if s.hand_no > 0:  # from the first deal on (between hands and at the end: the last hand's counts)
        total = sum(s.hand_sizes) + s.pile_size + s.set_aside
        assert total == DECK.size, f"conservation: hands {s.hand_sizes} + pile {s.pile_size} + set aside " \
                                   f"{s.set_aside} = {total}, not {DECK.size}"
    assert sum(s.penalties) == sum(map(sum, s.hand_penalties)), "penalties are the sum of the hands'"
    if s.phase == Phase.PLAY:
        assert s.to_move is not None and all(n > 0 for n in s.hand_sizes), "everyone holds cards in play"
        assert (s.rank is None) == (not s.pile), "a rank is named exactly when the round has plays"
        assert s.passes < s.n_seats - 1
    if s.phase in (Phase.WINDOW, Phase.TURNOVER, Phase.PICKUP):
        assert s.pile and s.rank is not None, "a window, turn-over or pick-up needs a play"
    if s.phase == Phase.TURNOVER:
        assert s.caller is not None and s.to_move == s.pile[-1][0]
    if s.phase == Phase.PICKUP:
        assert s.picker is not None and s.to_move == s.picker and len(s.revealed) == s.pile[-1][1]
    if s.phase in (Phase.DEAL, Phase.WINDOW, Phase.OVER):
        assert s.to_move is NO_SEAT


# ---------------------------------------------------------------- the rules

class CheatRules(Rules):
    """Cheat for 3..6 seats over ``hands`` hands (3, 5 or 7) with a calling window of
    ``window`` seconds (1, 3, 5 or 7; the table's clock measures it). The first hand is
    dealt by ``first_dealer``."""

    def __init__(self, n_seats: int, hands: int = 3, window: int = 3, first_dealer: int = 0):
        if isinstance(n_seats, bool) or not isinstance(n_seats, int) or not MIN_SEATS <= n_seats <= MAX_SEATS:
            raise IllegalMove(f"cheat: {MIN_SEATS}..{MAX_SEATS} seats, got {n_seats!r}")
        if isinstance(hands, bool) or hands not in HAND_COUNTS:
            raise IllegalMove(f"cheat: a table plays {', '.join(map(str, HAND_COUNTS))} hands, got {hands!r}")
        if isinstance(window, bool) or window not in WINDOW_SECONDS:
            raise IllegalMove(f"cheat: the calling window is {', '.join(map(str, WINDOW_SECONDS))} s, got {window!r}")
        if isinstance(first_dealer, bool) or not isinstance(first_dealer, int) or not 0 <= first_dealer < n_seats:
            raise IllegalMove(f"cheat: the first dealer must be a seat 0..{n_seats - 1}, got {first_dealer!r}")
        self.n_seats = n_seats
        self.hands = hands
        self.window = window
        self.first_dealer = first_dealer
        self.phase = Phase.DEAL
        self._to_move: Optional[int] = NO_SEAT
        self.hand_no = 0
        self.plays = 0
        self.hand_sizes = [0] * n_seats
        self.pile: list[tuple[int, int]] = []
        self.set_aside = 0
        self.rank: Optional[int] = None
        self.passes = 0
        self.caller: Optional[int] = None
        self.revealed: tuple[int, ...] = ()
        self.picker: Optional[int] = None
        self.penalties = [0] * n_seats
        self.hand_penalties: list[tuple[int, ...]] = []
        self.emptied: Optional[int] = None
        self.end_reason = ""
        self.end_code = ""

    # ---- the contract
    @property
    def over(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def to_move(self) -> Optional[int]:
        return self._to_move

    @property
    def dealer(self) -> int:
        """This hand's dealer (the next hand's once a hand is over)."""
        return (self.first_dealer + max(self.hand_no - (self.phase != Phase.DEAL), 0)) % self.n_seats

    def public_state(self) -> CheatState:
        return CheatState(self.n_seats, self.hands, self.window, self.phase, self._to_move, self.hand_no, self.plays,
                          self.dealer, tuple(self.hand_sizes), tuple(self.pile), self.set_aside, self.rank,
                          self.passes, self.caller, self.revealed, self.picker, tuple(self.penalties),
                          tuple(self.hand_penalties), self.emptied, self.end_reason)

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        """Every action ``seat`` may take now. :class:`Reveal` carries the seat's own hidden
        cards and :class:`Forfeit` is the referee's last resort: neither is listed."""
        ph = self.phase
        if ph == Phase.DEAL:
            return [Deal(deal_sizes(self.n_seats, self.dealer))] if seat is NO_SEAT else []
        if ph == Phase.WINDOW:
            if seat is NO_SEAT:
                return [CloseWindow(self.plays)]
            return [Call(self.plays)] if seat != self.pile[-1][0] else []
        if ph == Phase.OVER or seat is NO_SEAT or seat != self._to_move:
            return []
        if ph == Phase.PLAY:
            counts = range(MIN_PLAY, min(MAX_PLAY, self.hand_sizes[seat]) + 1)
            if self.rank is None:
                return [Play(rank, k) for rank in range(N_RANKS) for k in counts]
            return [Play(self.rank, k) for k in counts] + [Pass()]
        if ph == Phase.PICKUP:
            return [PickUp(self._pile_size())]
        return []

    def check(self, seat: Optional[int], action: Action) -> None:
        if not isinstance(action, ACTIONS):
            raise IllegalMove(f"cheat: unknown action {action!r}")
        what = action.kind
        if self.over:
            raise IllegalMove(f"{what}: the table is over")
        if isinstance(action, Forfeit):
            return self._check_forfeit(seat, action)
        if isinstance(action, Call):
            return self._check_call(seat, action)
        if isinstance(action, CloseWindow):
            if seat is not NO_SEAT:
                raise IllegalMove(f"close_window: only the table's clock closes a window, not seat {seat}")
            if self.phase != Phase.WINDOW:
                raise IllegalMove(f"close_window: no calling window is open (phase {self.phase.value})")
            if action.play != self.plays:
                raise IllegalMove(f"close_window: the open window is play {self.plays}'s, got play {action.play!r}")
            return None
        expected = {Deal: Phase.DEAL, Play: Phase.PLAY, Pass: Phase.PLAY, Reveal: Phase.TURNOVER,
                    PickUp: Phase.PICKUP}[type(action)]
        if self.phase != expected:
            raise IllegalMove(f"{what}: not allowed now (the table is in phase {self.phase.value}, "
                              f"waiting for {self._who(self._to_move)})")
        self._expect_turn(seat, what)
        if isinstance(action, Deal):
            want = deal_sizes(self.n_seats, self.dealer)
            if action.hand_sizes != want:
                raise IllegalMove(f"deal: hand sizes {list(action.hand_sizes)}, expected {list(want)} "
                                  f"(the whole deck, dealer seat {self.dealer})")
        elif isinstance(action, Play):
            self._check_play(seat, action)  # type: ignore[arg-type]
        elif isinstance(action, Pass):
            if self.rank is None:
                raise IllegalMove("pass: the opener of a round must play")
        elif isinstance(action, Reveal):
            self._check_reveal(action)
        elif isinstance(action, PickUp):
            if action.count != self._pile_size():
                raise IllegalMove(f"pick_up: the pile holds {self._pile_size()} cards, got {action.count}")
        return None

    def _check_play(self, seat: int, a: Play) -> None:
        if isinstance(a.rank, bool) or not isinstance(a.rank, int) or not 0 <= a.rank < N_RANKS:
            raise IllegalMove(f"play: rank must be 0..{N_RANKS - 1}, got {a.rank!r}")
        if self.rank is not None and a.rank != self.rank:
            raise IllegalMove(f"play: the round's rank is {DECK.rank_names[self.rank]}, "
                              f"got {DECK.rank_names[a.rank]}")
        top = min(MAX_PLAY, self.hand_sizes[seat])
        if isinstance(a.count, bool) or not isinstance(a.count, int) or not MIN_PLAY <= a.count <= top:
            raise IllegalMove(f"play: count must be {MIN_PLAY}..{top} (seat {seat} holds "
                              f"{self.hand_sizes[seat]}), got {a.count!r}")

    def _check_call(self, seat: Optional[int], a: Call) -> None:
        if seat is NO_SEAT or isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n_seats:
            raise IllegalMove(f"call: only a seat 0..{self.n_seats - 1} calls, got {self._who(seat)}")
        if a.play != self.plays or self.phase not in (Phase.WINDOW, Phase.TURNOVER, Phase.PICKUP):
            raise IllegalMove(f"call: the calling window of play {a.play!r} is closed"
                              + (f" (the open one is play {self.plays}'s)" if self.phase == Phase.WINDOW else ""))
        if self.phase != Phase.WINDOW:
            raise IllegalMove(f"call: seat {self.caller} already called play {a.play} (the first call counts)")
        if seat == self.pile[-1][0]:
            raise IllegalMove(f"call: seat {seat} cannot call its own play")

    def _check_reveal(self, a: Reveal) -> None:
        count = self.pile[-1][1]
        if len(a.cards) != count or len(set(a.cards)) != count:
            raise IllegalMove(f"reveal: the play was {count} distinct card(s), got {list(a.cards)}")
        bad = [c for c in a.cards if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < DECK.size]
        if bad:
            raise IllegalMove(f"reveal: card ids are 0..{DECK.size - 1}, got {bad}")

    def _check_forfeit(self, seat: Optional[int], a: Forfeit) -> None:
        if seat is not NO_SEAT:
            raise IllegalMove(f"forfeit: only the referee declares a forfeit, not seat {seat}")
        if isinstance(a.seat, bool) or not isinstance(a.seat, int) or not 0 <= a.seat < self.n_seats:
            raise IllegalMove(f"forfeit: seat must be 0..{self.n_seats - 1}, got {a.seat!r}")
        if self.phase == Phase.DEAL:
            raise IllegalMove("forfeit: no hand is being played")

    # ---- state changes
    def _apply(self, seat: Optional[int], action: Action) -> None:
        getattr(self, "_do_" + action.kind)(seat, action)

    def _do_deal(self, seat: None, a: Deal) -> None:
        opener = (self.dealer + 1) % self.n_seats  # the dealer of the hand being dealt
        self.hand_no += 1
        self.hand_sizes = list(a.hand_sizes)
        self.pile, self.set_aside = [], 0
        self._new_round(opener)
        self.emptied = None

    def _do_play(self, seat: int, a: Play) -> None:
        self.plays += 1
        self.hand_sizes[seat] -= a.count
        self.pile.append((seat, a.count))
        self.rank = a.rank
        self.passes = 0
        self.phase, self._to_move = Phase.WINDOW, NO_SEAT

    def _do_pass(self, seat: int, a: Pass) -> None:
        self.passes += 1
        last_player = self.pile[-1][0]
        if self.passes == self.n_seats - 1:  # everyone after the last play passed
            self.set_aside += self._pile_size()
            self.pile = []
            self._new_round(last_player)
        else:
            self._to_move = (seat + 1) % self.n_seats

    def _do_call(self, seat: int, a: Call) -> None:
        self.caller = seat
        self.phase, self._to_move = Phase.TURNOVER, self.pile[-1][0]

    def _do_close_window(self, seat: None, a: CloseWindow) -> None:
        player = self.pile[-1][0]
        if self.hand_sizes[player] == 0:
            return self._end_hand(player, End.EMPTIED_HAND)
        self.phase, self._to_move = Phase.PLAY, (player + 1) % self.n_seats
        return None

    def _do_reveal(self, seat: int, a: Reveal) -> None:
        self.revealed = tuple(a.cards)
        truthful = all(DECK.counts_as(c, self.rank) for c in a.cards)  # type: ignore[arg-type]
        self.picker = self.caller if truthful else seat
        self.phase, self._to_move = Phase.PICKUP, self.picker

    def _do_pick_up(self, seat: int, a: PickUp) -> None:
        player = self.pile[-1][0]
        right = player if seat == self.caller else self.caller
        self.hand_sizes[seat] += self._pile_size()
        self.pile = []
        if self.hand_sizes[player] == 0:  # the call was wrong on the last cards
            return self._end_hand(player, End.EMPTIED_HAND_WRONG_CALL)
        self._new_round(right)  # type: ignore[arg-type]
        return None

    def _do_forfeit(self, seat: None, a: Forfeit) -> None:
        self._end_hand(None, End.FORFEIT, forfeit=a.seat, why=a.reason)

    # ---- helpers
    def _new_round(self, opener: int) -> None:
        self.rank, self.passes, self.caller, self.revealed, self.picker = None, 0, None, (), None
        self.phase, self._to_move = Phase.PLAY, opener

    def _end_hand(self, emptied: Optional[int], code: End, forfeit: Optional[int] = None, **facts: Any) -> None:
        if forfeit is None:
            scores = tuple(0 if i == emptied else n for i, n in enumerate(self.hand_sizes))
        else:
            scores = tuple(DECK.size if i == forfeit else 0 for i in range(self.n_seats))
        self.hand_penalties.append(scores)
        self.penalties = [p + s for p, s in zip(self.penalties, scores)]
        self.emptied = emptied
        self.rank, self.passes, self.caller, self.picker = None, 0, None, None
        self._to_move = NO_SEAT
        seat = emptied if forfeit is None else forfeit
        self.end_code = code.value
        if self.hand_no >= self.hands:
            self.phase = Phase.OVER
            self.end_reason = end_text(code, hands=self.hands, seat=seat, **facts)
        else:
            self.phase = Phase.DEAL
            self.end_reason = end_text(code, seat=seat, **facts)

    def _pile_size(self) -> int:
        return sum(count for _, count in self.pile)

    @staticmethod
    def _who(seat: Optional[int]) -> str:
        return "the table" if seat is NO_SEAT else f"seat {seat}"

    def result(self) -> Optional[Result]:
        if not self.over:
            return None
        totals = tuple(self.penalties)
        places = tuple(1 + sum(t < mine for t in totals) for mine in totals)
        return Result(places, totals, self.end_reason, code=self.end_code)
