"""The rules of Bluffers (seed 003) as a public state machine for 2-4 seats.

The state holds only what every seat may see: hand sizes, the table card, how many cards
lie face down in the middle, the last play's seat and count, each revolver's chamber
index, who is still standing, the settled places. Which cards a seat holds lives in the
seat; randomness and hidden values enter as actions:

- ``Deal`` (the dealer): a new round is dealt and the table card drawn (fairness is the
  deal proof's business; here only its public outcome, the table card);
- ``Reveal`` (the seat whose play was called): the opened cards, from which the rules
  work out which match the table card (jokers always do);
- ``Share`` (every standing seat, once per pull): the seat's proven share of the pull's
  randomness (``revolver.share.v1``). The rules add the shares and decide click or bang
  (:func:`pull_fires`); nobody knows the outcome before the last share is in, nobody
  can steer it (see :mod:`zkbluff.statements.revolver` and docs/bluffers.md);
- ``AutoMove`` (the clock or a dropped seat's agent): one card played for the seat,
  chosen by the seat's own proven randomness, or the forced call;
- ``Forfeit`` (the referee's clock, on the proven table): a seat that owes a line only it
  can make (its automatic move's proof, a seed, a reveal, a share) and lets the time for
  it run out is out of the match with no points; the round in progress is void.

Every illegal action raises :class:`IllegalMove` saying why and leaves the state
unchanged (``check`` never mutates). :func:`check_invariants` checks a snapshot.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, Optional

from zkbluff.errors import IllegalMove
from zkbluff.games.decks import BLUFFERS_20
from zkbluff.games.engine.rules import NO_SEAT, Action, EndCode, Result, Role, Rules

DECK = BLUFFERS_20
KING, QUEEN, ACE = 0, 1, 2
TABLE_CARDS = (KING, QUEEN, ACE)
JOKERS = (18, 19)
HAND_SIZE = 5
MAX_PLAY = 3
CHAMBERS = 6
MIN_SEATS, MAX_SEATS = 2, 4
#: points by place (index 0 = 1st) for each table size
POINTS = {2: (5, 1), 3: (8, 4, 1), 4: (10, 6, 3, 1)}
AUTO_REASONS = ("timeout", "dropped")


class End(EndCode):
    """Why a match of Bluffers ended: the end line's reason code under rules ``bluffers/1``."""

    LAST_STANDING = "last_standing"  # every other seat was knocked out, left the table or forfeited


#: the game's end codes (``GameSpec.end_codes``): one table, the words beside them in :data:`END_TEXT`
END_CODES = End
#: the words of each end and of its additions (``str.format`` fields): for people, never checked
END_TEXT: dict[End, str] = {End.LAST_STANDING: "seat {winner} is the last one standing"}
LEFT_TEXT = "; {seats} left the table (no points)"
FORFEITED_TEXT = "; {seats} forfeited (time ran out on a line only it could make; no points)"


def end_text(code: End, winner: int, left: tuple[int, ...] = (), forfeited: tuple[int, ...] = ()) -> str:
    """The words of the end ``code`` (the end line's ``reason``): who stands, who left, who forfeited."""
    reason = END_TEXT[code].format(winner=winner)
    if left:
        reason += LEFT_TEXT.format(seats=", ".join(f"seat {i}" for i in left))
    if forfeited:
        reason += FORFEITED_TEXT.format(seats=", ".join(f"seat {i}" for i in forfeited))
    return reason
#: BN254's scalar field order r: commitments and shares are below it (the rules import no
#: crypto; tests/games/bluffers/test_bluffers_engine.py checks this equals zkbluff.field.r)
FIELD_MODULUS = 21888242871839275222246405745257275088548364400416034343698204186575808495617


class Phase(str, Enum):
    COMMIT = "commit"   # each seat, in seat order, commits its revolver seed
    DEAL = "deal"       # the dealer deals a round and draws the table card
    TURN = "turn"       # the seat to move plays 1-3 cards or calls bluff
    REVEAL = "reveal"   # the called seat opens its last play
    PULL = "pull"       # every standing seat gives its share of the pull, puller first
    OVER = "over"


def counts_as_table_card(card: int, table_card: int) -> bool:
    """A card matches the table card if it has that rank or is a Joker."""
    return DECK.counts_as(card, table_card)


def pull_fires(shares: tuple[int, ...] | list[int], chamber: int) -> bool:
    """Whether a pull at ``chamber`` (0-based: the revolver's pulls so far) fires, given
    every standing seat's share. With ``m = CHAMBERS - chamber`` chambers left, the pull
    fires iff ``sum(share mod m) mod m == 0``: if any one share is uniform and unknown to
    the others, that is probability exactly ``1/m`` (up to ``m/r``, below 2^-250), so the
    bullet sits in each of the 6 chambers with probability 1/6, and the 6th pull always
    fires (``m = 1``)."""
    if not 0 <= chamber < CHAMBERS:
        raise ValueError(f"chamber must be 0..{CHAMBERS - 1}, got {chamber}")
    m = CHAMBERS - chamber
    return sum(s % m for s in shares) % m == 0


def bullet_chamber(share_rows: list[list[int]]) -> int:
    """The chamber the bullet sits in, given the shares of all six possible pulls
    (``share_rows[k]`` for pull k): the first pull that fires. Only a party holding every
    seat's seed could compute this; the tests use it to measure the distribution."""
    for k in range(CHAMBERS):
        if pull_fires(share_rows[k], k):
            return k
    raise AssertionError("the last chamber always fires")


# ---------------------------------------------------------------- actions

@dataclass(frozen=True)
class CommitSeed(Action):
    """A seat commits its revolver seed (``Poseidon(seed, salt)``), in seat order, before
    the first deal. Every pull's share is proven against it."""
    kind: ClassVar[str] = "commit_seed"
    role: ClassVar[Role] = Role.SEAT
    commitment: int


@dataclass(frozen=True)
class Deal(Action):
    """The dealer (``NO_SEAT``) deals a round (5 cards to each standing seat) and draws the
    table card (0 King, 1 Queen, 2 Ace)."""
    kind: ClassVar[str] = "deal"
    role: ClassVar[Role] = Role.DEALER
    table_card: int


@dataclass(frozen=True)
class Play(Action):
    """The seat to move plays ``count`` (1-3) cards face down, claiming each is the table
    card (accepting the last play, if any)."""
    kind: ClassVar[str] = "play"
    role: ClassVar[Role] = Role.SEAT
    count: int


@dataclass(frozen=True)
class CallBluff(Action):
    """The seat to move calls bluff on the last play."""
    kind: ClassVar[str] = "call_bluff"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class AutoMove(Action):
    """A move made for the seat to move: ``reason="timeout"`` (its 30 seconds ran out) or
    ``"dropped"`` (its connection is down or it left the table). One card of its hand,
    picked by the seat's own proven randomness, is played; if the seat must call bluff,
    the automatic move is the call."""
    kind: ClassVar[str] = "auto_move"
    role: ClassVar[Role] = Role.SEAT
    reason: str


@dataclass(frozen=True)
class Reveal(Action):
    """The called seat opens its last play: the card ids (0-19) it played."""
    kind: ClassVar[str] = "reveal"
    role: ClassVar[Role] = Role.SEAT
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Share(Action):
    """A standing seat's proven share (a field element) of the current pull."""
    kind: ClassVar[str] = "share"
    role: ClassVar[Role] = Role.SEAT
    value: int


@dataclass(frozen=True)
class Disconnect(Action):
    """The table (``NO_SEAT``) marks ``seat``'s connection as dropped."""
    kind: ClassVar[str] = "disconnect"
    role: ClassVar[Role] = Role.REFEREE
    seat: int


@dataclass(frozen=True)
class Reconnect(Action):
    """The table (``NO_SEAT``) marks ``seat`` as back: it rejoins where it left off."""
    kind: ClassVar[str] = "reconnect"
    role: ClassVar[Role] = Role.REFEREE
    seat: int


@dataclass(frozen=True)
class LeaveTable(Action):
    """The seat leaves: it scores no points from this match; its seat is played
    automatically to the end (it never rejoins)."""
    kind: ClassVar[str] = "leave_table"
    role: ClassVar[Role] = Role.SEAT


ACTIONS: dict[str, type[Action]] = {a.kind: a for a in (
    CommitSeed, Deal, Play, CallBluff, AutoMove, Reveal, Share, Disconnect, Reconnect, LeaveTable)}


# ---------------------------------------------------------------- public state

@dataclass(frozen=True)
class LastPlay:
    seat: int
    count: int
    auto: bool  # played by the clock or for a dropped seat


@dataclass(frozen=True)
class PullOutcome:
    seat: int
    chamber: int  # the chamber index that was pulled (0-based)
    fired: bool


@dataclass(frozen=True)
class Snapshot:
    """Everything every seat may see, frozen."""
    n_seats: int
    phase: Phase
    to_move: Optional[int]
    round: int
    table_card: Optional[int]
    hand_sizes: tuple[int, ...]
    pile: int                      # cards face down in the middle this round
    undealt: int                   # cards not dealt this round (the 20 are conserved)
    last_play: Optional[LastPlay]
    caller: Optional[int]
    revealed: tuple[int, ...]      # the cards of the last reveal (this round)
    matched: tuple[bool, ...]      # which of them match the table card
    puller: Optional[int]
    contributors: tuple[int, ...]  # the seats whose shares the current pull needs, in order
    shares: tuple[int, ...]        # the shares given so far
    chambers: tuple[int, ...]      # each revolver's pulls so far
    fired: tuple[bool, ...]        # each revolver has fired (its seat is out)
    alive: tuple[bool, ...]
    dropped: tuple[bool, ...]
    left: tuple[bool, ...]
    seed_commitments: tuple[Optional[int], ...]
    knocked_out: tuple[int, ...]   # seats in the order they were knocked out (a forfeit too)
    places: tuple[Optional[int], ...]
    starter: Optional[int]         # who starts the next (or current) round
    last_pull: Optional[PullOutcome]
    forfeited: tuple[bool, ...] = ()  # out by the clock (Forfeit): no points
    #: the (revolver, pull) slot whose ``revolver.share.v1`` shares the current pull takes:
    #: the puller's revolver at its chamber, or in a re-run the withholder's (:meth:`TableRules._forfeit`)
    share_slot: Optional[tuple[int, int]] = None
    attempt: int = 0               # the current pull's re-runs so far (0: its first attempt)


@dataclass
class _State:
    n: int
    phase: Phase = Phase.COMMIT
    to_move: Optional[int] = 0
    round: int = 0
    table_card: Optional[int] = None
    hand_sizes: list[int] = field(default_factory=list)
    pile: int = 0
    last_play: Optional[LastPlay] = None
    caller: Optional[int] = None
    revealed: tuple[int, ...] = ()
    matched: tuple[bool, ...] = ()
    puller: Optional[int] = None
    contributors: tuple[int, ...] = ()
    shares: list[int] = field(default_factory=list)
    chambers: list[int] = field(default_factory=list)
    fired: list[bool] = field(default_factory=list)
    alive: list[bool] = field(default_factory=list)
    dropped: list[bool] = field(default_factory=list)
    left: list[bool] = field(default_factory=list)
    seed_commitments: list[Optional[int]] = field(default_factory=list)
    knocked_out: list[int] = field(default_factory=list)
    places: list[Optional[int]] = field(default_factory=list)
    starter: Optional[int] = 0
    last_pull: Optional[PullOutcome] = None
    forfeited: list[bool] = field(default_factory=list)
    share_slot: Optional[tuple[int, int]] = None
    attempt: int = 0


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class BluffersRules(Rules):
    """Bluffers for ``n_seats`` (2-4). The match starts in ``Phase.COMMIT`` (each seat
    commits its revolver seed), then rounds of DEAL → TURN … → REVEAL → PULL until one
    seat is left standing. Seat 0 starts the first round."""

    def __init__(self, n_seats: int):
        if not _is_int(n_seats) or not MIN_SEATS <= n_seats <= MAX_SEATS:
            raise IllegalMove(f"Bluffers seats 2-4 players, got {n_seats!r}")
        self.n_seats = n_seats
        n = n_seats
        self.s = _State(n, hand_sizes=[0] * n, chambers=[0] * n, fired=[False] * n, alive=[True] * n,
                        dropped=[False] * n, left=[False] * n, seed_commitments=[None] * n, places=[None] * n,
                        forfeited=[False] * n)

    # ---- contract
    @property
    def over(self) -> bool:
        return self.s.phase == Phase.OVER

    @property
    def to_move(self) -> Optional[int]:
        return None if self.over else self.s.to_move

    def public_state(self) -> Snapshot:
        s = self.s
        in_round = s.phase in (Phase.TURN, Phase.REVEAL) or (s.phase == Phase.PULL and not s.attempt)
        return Snapshot(
            n_seats=s.n, phase=s.phase, to_move=self.to_move, round=s.round, table_card=s.table_card,
            hand_sizes=tuple(s.hand_sizes), pile=s.pile,
            undealt=DECK.size - HAND_SIZE * sum(s.alive) if in_round else DECK.size,
            last_play=s.last_play, caller=s.caller, revealed=s.revealed, matched=s.matched, puller=s.puller,
            contributors=s.contributors, shares=tuple(s.shares), chambers=tuple(s.chambers), fired=tuple(s.fired),
            alive=tuple(s.alive), dropped=tuple(s.dropped), left=tuple(s.left),
            seed_commitments=tuple(s.seed_commitments), knocked_out=tuple(s.knocked_out), places=tuple(s.places),
            starter=s.starter, last_pull=s.last_pull, forfeited=tuple(s.forfeited), share_slot=s.share_slot,
            attempt=s.attempt)

    def result(self) -> Optional[Result]:
        s = self.s
        if not self.over:
            return None
        places = tuple(p for p in s.places if p is not None)
        assert len(places) == s.n
        scores = tuple(0 if s.left[i] or s.forfeited[i] else POINTS[s.n][s.places[i] - 1]  # type: ignore[operator]
                       for i in range(s.n))
        winner = s.places.index(1)
        reason = end_text(End.LAST_STANDING, winner, tuple(i for i in range(s.n) if s.left[i]),
                          tuple(i for i in range(s.n) if s.forfeited[i]))
        return Result(placements=places, scores=scores, reason=reason,
                      no_points=tuple(bool(s.left[i] or s.forfeited[i]) for i in range(s.n)),
                      code=End.LAST_STANDING.value)

    # ---- helpers every party may use
    def standing_places(self) -> Optional[tuple[int, ...]]:
        """A knocked-out (or forfeited) seat keeps its settled place; every seat still
        standing shares place 1."""
        return tuple(1 if p is None else p for p in self.s.places)

    def standing(self) -> list[int]:
        return [i for i in range(self.s.n) if self.s.alive[i]]

    def must_call(self, seat: int) -> bool:
        """The seat to move is the only standing seat with cards: it must call bluff."""
        s = self.s
        return s.hand_sizes[seat] > 0 and all(s.hand_sizes[i] == 0 for i in range(s.n) if i != seat and s.alive[i])

    def plays_automatically(self, seat: int) -> bool:
        return self.s.dropped[seat] or self.s.left[seat]

    def _next_with_cards(self, after: int) -> Optional[int]:
        s = self.s
        for k in range(1, s.n + 1):
            i = (after + k) % s.n
            if s.alive[i] and s.hand_sizes[i] > 0:
                return i
        return None

    def _next_alive(self, after: int) -> int:
        s = self.s
        for k in range(1, s.n + 1):
            i = (after + k) % s.n
            if s.alive[i]:
                return i
        raise AssertionError("nobody standing")

    # ---- legal actions
    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        """Every action ``seat`` may take now. The clock's ``AutoMove("timeout")`` and the
        table's ``Disconnect``/``Reconnect`` and a seat's ``LeaveTable`` are always possible
        and are not listed; a dropped seat's only listed action is ``AutoMove("dropped")``."""
        s = self.s
        if self.over or seat != s.to_move:
            return []
        if s.phase == Phase.COMMIT:
            return []  # a commitment is any field element; not enumerable
        if s.phase == Phase.DEAL:
            return [Deal(t) for t in TABLE_CARDS]
        if s.phase == Phase.TURN:
            assert seat is not None
            if self.plays_automatically(seat):
                return [AutoMove("dropped")]
            out: list[Action] = []
            if not self.must_call(seat):
                out += [Play(k) for k in range(1, min(MAX_PLAY, s.hand_sizes[seat]) + 1)]
            if s.last_play is not None:
                out.append(CallBluff())
            return out
        return []  # REVEAL and PULL: a value only the seat can give (its cards, its share)

    # ---- checks (never mutate)
    def check(self, seat: Optional[int], action: Action) -> None:
        if not isinstance(action, Action) or type(action) not in ACTIONS.values():
            raise IllegalMove(f"not a Bluffers action: {action!r}")
        s = self.s
        what = action.kind
        if isinstance(action, (Disconnect, Reconnect)):
            return self._check_connection(seat, action)
        if isinstance(action, LeaveTable):
            if self.over:
                raise IllegalMove("leave_table: the match is over")
            if not _is_int(seat) or not 0 <= seat < s.n:  # type: ignore[operator]
                raise IllegalMove(f"leave_table: must be made by a seat 0..{s.n - 1}, got {seat!r}")
            if s.left[seat]:  # type: ignore[index]
                raise IllegalMove(f"leave_table: seat {seat} has already left")
            return None
        self._expect_turn(seat, what)
        expected = {CommitSeed: Phase.COMMIT, Deal: Phase.DEAL, Play: Phase.TURN, CallBluff: Phase.TURN,
                    AutoMove: Phase.TURN, Reveal: Phase.REVEAL, Share: Phase.PULL}[type(action)]
        if s.phase != expected:
            raise IllegalMove(f"{what}: not allowed in phase {s.phase.value} (expected phase {expected.value})")
        if isinstance(action, CommitSeed):
            if not _is_int(action.commitment) or not 0 <= action.commitment < FIELD_MODULUS:
                raise IllegalMove(f"commit_seed: the commitment must be a field element, got {action.commitment!r}")
            if action.commitment in s.seed_commitments:
                raise IllegalMove(f"commit_seed: seat {s.seed_commitments.index(action.commitment)} already made this "
                                  f"commitment (a copied commitment cannot be opened)")
        elif isinstance(action, Deal):
            if not _is_int(action.table_card) or action.table_card not in TABLE_CARDS:
                raise IllegalMove(f"deal: the table card must be 0 (King), 1 (Queen) or 2 (Ace), "
                                  f"got {action.table_card!r}")
        elif isinstance(action, (Play, CallBluff)):
            assert seat is not None
            if self.plays_automatically(seat):
                raise IllegalMove(f"{what}: seat {seat} is {'gone' if s.left[seat] else 'disconnected'}; "
                                  f"its move is played automatically (auto_move)")
            if isinstance(action, Play):
                top = min(MAX_PLAY, s.hand_sizes[seat])
                if not _is_int(action.count) or not 1 <= action.count <= top:
                    raise IllegalMove(f"play: count must be 1..{top} (seat {seat} holds {s.hand_sizes[seat]}), "
                                      f"got {action.count!r}")
                if self.must_call(seat):
                    raise IllegalMove(f"play: seat {seat} is the only player with cards and must call bluff")
            elif s.last_play is None:
                raise IllegalMove("call_bluff: no cards have been played this round")
        elif isinstance(action, AutoMove):
            assert seat is not None
            if action.reason not in AUTO_REASONS:
                raise IllegalMove(f"auto_move: reason must be one of {AUTO_REASONS}, got {action.reason!r}")
            if action.reason == "dropped" and not self.plays_automatically(seat):
                raise IllegalMove(f"auto_move: seat {seat} is connected; only the clock (timeout) may move for it")
            if action.reason == "timeout" and self.plays_automatically(seat):
                raise IllegalMove(f"auto_move: seat {seat} is not connected; its move is reason 'dropped'")
        elif isinstance(action, Reveal):
            self._check_reveal(action)
        elif isinstance(action, Share):
            if not _is_int(action.value) or not 0 <= action.value < FIELD_MODULUS:
                raise IllegalMove(f"share: must be a field element 0 <= x < r, got {action.value!r}")
        return None

    def _check_connection(self, seat: Optional[int], action: "Disconnect | Reconnect") -> None:
        s = self.s
        if self.over:
            raise IllegalMove(f"{action.kind}: the match is over")
        if seat is not NO_SEAT:
            raise IllegalMove(f"{action.kind}: made by the table, not by seat {seat}")
        if not _is_int(action.seat) or not 0 <= action.seat < s.n:
            raise IllegalMove(f"{action.kind}: seat must be 0..{s.n - 1}, got {action.seat!r}")
        if s.left[action.seat]:
            raise IllegalMove(f"{action.kind}: seat {action.seat} has left the table for good")
        if isinstance(action, Disconnect) and s.dropped[action.seat]:
            raise IllegalMove(f"disconnect: seat {action.seat} is already disconnected")
        if isinstance(action, Reconnect) and not s.dropped[action.seat]:
            raise IllegalMove(f"reconnect: seat {action.seat} is not disconnected")

    def _check_reveal(self, action: Reveal) -> None:
        s = self.s
        assert s.last_play is not None
        cards = action.cards
        if not isinstance(cards, tuple) or any(not _is_int(c) for c in cards):
            raise IllegalMove(f"reveal: cards must be a tuple of card ids, got {cards!r}")
        if len(cards) != s.last_play.count:
            raise IllegalMove(f"reveal: seat {s.last_play.seat} played {s.last_play.count} card(s), "
                              f"the reveal shows {len(cards)}")
        bad = [c for c in cards if not 0 <= c < DECK.size]
        if bad:
            raise IllegalMove(f"reveal: card id(s) {bad} are not in the {DECK.size}-card deck "
                              f"(0-17 Kings/Queens/Aces, jokers {JOKERS[0]} and {JOKERS[1]})")
        if len(set(cards)) != len(cards):
            raise IllegalMove(f"reveal: a card appears twice in {list(cards)} (each card, jokers included, "
                              f"exists once)")

    # ---- state changes
    def _apply(self, seat: Optional[int], action: Action) -> None:
        s = self.s
        if isinstance(action, Disconnect):
            s.dropped[action.seat] = True
        elif isinstance(action, Reconnect):
            s.dropped[action.seat] = False
        elif isinstance(action, LeaveTable):
            s.left[seat] = True  # type: ignore[index]
        elif isinstance(action, CommitSeed):
            s.seed_commitments[seat] = action.commitment  # type: ignore[index]
            if seat == s.n - 1:
                s.phase, s.to_move = Phase.DEAL, NO_SEAT
            else:
                s.to_move = seat + 1  # type: ignore[operator]
        elif isinstance(action, Deal):
            s.round += 1
            s.table_card = action.table_card
            s.hand_sizes = [HAND_SIZE if a else 0 for a in s.alive]
            s.pile = 0
            s.last_play = None
            s.caller, s.revealed, s.matched = None, (), ()
            s.puller, s.contributors, s.shares = None, (), []
            s.share_slot, s.attempt = None, 0
            s.phase, s.to_move = Phase.TURN, s.starter
        elif isinstance(action, Play):
            self._play(seat, action.count, auto=False)  # type: ignore[arg-type]
        elif isinstance(action, CallBluff):
            self._call(seat)  # type: ignore[arg-type]
        elif isinstance(action, AutoMove):
            if self.must_call(seat):  # type: ignore[arg-type]
                self._call(seat)  # type: ignore[arg-type]
            else:
                self._play(seat, 1, auto=True)  # type: ignore[arg-type]
        elif isinstance(action, Reveal):
            assert s.last_play is not None and s.caller is not None and s.table_card is not None
            s.revealed = action.cards
            s.matched = tuple(counts_as_table_card(c, s.table_card) for c in action.cards)
            s.puller = s.caller if all(s.matched) else s.last_play.seat
            s.contributors = tuple(i for k in range(s.n) for i in [(s.puller + k) % s.n] if s.alive[i])
            s.shares = []
            s.share_slot, s.attempt = (s.puller, s.chambers[s.puller]), 0
            s.phase, s.to_move = Phase.PULL, s.puller
        elif isinstance(action, Share):
            s.shares.append(action.value)
            if len(s.shares) < len(s.contributors):
                s.to_move = s.contributors[len(s.shares)]
            else:
                self._pull()
        else:  # pragma: no cover - check() refused it
            raise IllegalMove(f"unknown action {action!r}")

    def _play(self, seat: int, count: int, auto: bool) -> None:
        s = self.s
        s.hand_sizes[seat] -= count
        s.pile += count
        s.last_play = LastPlay(seat, count, auto)
        nxt = self._next_with_cards(seat)
        assert nxt is not None and nxt != seat, "a play always leaves another player with cards"
        s.to_move = nxt

    def _call(self, seat: int) -> None:
        s = self.s
        assert s.last_play is not None
        s.caller = seat
        s.phase, s.to_move = Phase.REVEAL, s.last_play.seat

    def _pull(self) -> None:
        s = self.s
        puller = s.puller
        assert puller is not None
        chamber = s.chambers[puller]
        fired = pull_fires(s.shares, chamber)
        s.chambers[puller] = chamber + 1
        s.last_pull = PullOutcome(puller, chamber, fired)
        s.share_slot, s.attempt = None, 0
        if fired:
            s.fired[puller] = True
            s.alive[puller] = False
            s.places[puller] = sum(s.alive) + 1
            s.knocked_out.append(puller)
        # the round ends: cards collected
        s.hand_sizes = [0] * s.n
        s.pile = 0
        s.table_card = None
        if sum(s.alive) == 1:
            winner = self.standing()[0]
            s.places[winner] = 1
            s.phase, s.to_move, s.starter = Phase.OVER, None, None
            return
        s.starter = puller if s.alive[puller] else self._next_alive(puller)
        s.phase, s.to_move = Phase.DEAL, NO_SEAT


def check_invariants(snap: Snapshot) -> None:
    """Raise AssertionError if a snapshot breaks an invariant of the public state: the 20
    cards conserved (hands + pile + undealt), hand sizes in range, chamber indices in
    0..6, each revolver fired at most once and only with its seat out, places settled for
    exactly the seats that are out, revealed cards distinct and in the deck."""
    n = snap.n_seats
    assert MIN_SEATS <= n <= MAX_SEATS
    assert all(0 <= h <= HAND_SIZE for h in snap.hand_sizes), snap.hand_sizes
    assert sum(snap.hand_sizes) + snap.pile + snap.undealt == DECK.size, "the 20 cards are not conserved"
    assert snap.undealt >= 0 and snap.pile >= 0
    if snap.phase in (Phase.TURN, Phase.REVEAL) or (snap.phase == Phase.PULL and not snap.attempt):
        assert snap.undealt == DECK.size - HAND_SIZE * sum(snap.alive)
        assert snap.table_card in TABLE_CARDS
    else:  # between rounds, or a re-run pull (the round's cards were collected at the withholding)
        assert snap.pile == 0 and sum(snap.hand_sizes) == 0
    if snap.phase == Phase.PULL:
        assert snap.puller is not None and snap.share_slot is not None and snap.contributors[0] == snap.puller
        assert all(snap.alive[i] for i in snap.contributors) and len(snap.shares) < len(snap.contributors)
        revolver, pull = snap.share_slot
        assert 0 <= pull < CHAMBERS
        if snap.attempt == 0:
            assert snap.share_slot == (snap.puller, snap.chambers[snap.puller])
        else:  # the withholder's revolver: out, never pulled again
            assert revolver != snap.puller and snap.forfeited[revolver] and snap.knocked_out[-1] == revolver
    else:
        assert snap.share_slot is None and snap.attempt == 0
    for i in range(n):
        assert 0 <= snap.chambers[i] <= CHAMBERS, f"seat {i}: chamber {snap.chambers[i]} out of range"
        if snap.chambers[i] == CHAMBERS:
            assert snap.fired[i], f"seat {i}: six pulls without a bang"
        out = snap.fired[i] or bool(snap.forfeited and snap.forfeited[i])
        assert not (snap.fired[i] and snap.forfeited and snap.forfeited[i]), f"seat {i}: fired and forfeited"
        assert out == (i in snap.knocked_out)
        assert out == (not snap.alive[i])
        if not snap.alive[i]:
            assert snap.hand_sizes[i] == 0
    assert len(set(snap.knocked_out)) == len(snap.knocked_out), "a revolver fired twice"
    assert sum(snap.fired) + sum(snap.forfeited) == len(snap.knocked_out)
    settled = sorted(p for p in snap.places if p is not None)
    if snap.phase == Phase.OVER:
        assert settled == list(range(1, n + 1))
        assert sum(snap.alive) == 1
    else:
        assert settled == list(range(n - len(snap.knocked_out) + 1, n + 1))
        assert sum(snap.alive) >= 2
    for rank, seat in enumerate(reversed(snap.knocked_out)):
        assert snap.places[seat] == n - len(snap.knocked_out) + 1 + rank
    assert len(set(snap.revealed)) == len(snap.revealed)
    assert all(0 <= c < DECK.size for c in snap.revealed)
    if snap.last_play is not None:
        assert 1 <= snap.last_play.count <= MAX_PLAY
    if snap.phase == Phase.TURN and snap.to_move is not None:
        assert snap.alive[snap.to_move] and snap.hand_sizes[snap.to_move] > 0, "a skipped player is to move"


# ---------------------------------------------------------------- the proven table's rules

#: the ``round`` of a table card's draw on the deal's stream: far from every deal's round,
#: so the draw and the hands of a round come from independent Poseidon outputs
DRAW_ROUND_TAG = 1 << 64


def _is_hex(x: object, n_chars: Optional[int] = None) -> bool:
    if not isinstance(x, str) or not x or (n_chars is not None and len(x) != n_chars):
        return False
    try:
        bytes.fromhex(x)
    except ValueError:
        return False
    return True


def _field_elem(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < FIELD_MODULUS


@dataclass(frozen=True)
class DrawTableCard(Action):
    """The dealer draws the round's table card (0 King, 1 Queen, 2 Ace) from every party's
    committed entropy, in a proof; it cannot choose it."""
    kind: ClassVar[str] = "draw"
    role: ClassVar[Role] = Role.DEALER
    table_card: int


@dataclass(frozen=True)
class DealHands(Action):
    """The dealer deals the round (``Deal``): the table card just drawn, the standing seats
    dealt to (in seat order: hand k of the proof is ``seats[k]``'s) and each one's hand
    sealed to it."""
    kind: ClassVar[str] = "deal"
    role: ClassVar[Role] = Role.DEALER
    table_card: int
    seats: tuple[int, ...]
    sealed_hands: tuple[str, ...]


@dataclass(frozen=True)
class Timeout(Action):
    """The referee's clock (``NO_SEAT``): ``seat``'s 30 seconds ran out; its next line is
    ``AutoMove("timeout")``."""
    kind: ClassVar[str] = "timeout"
    role: ClassVar[Role] = Role.REFEREE
    seat: int


@dataclass(frozen=True)
class Forfeit(Action):
    """The referee's clock (``NO_SEAT``): ``seat`` owed a line only it can make (the proof
    of its automatic move after a timeout or while away, its seed, its reveal, its share,
    its new hand) and let its limit run out (the spec names it). It is out of the match at once: its
    place is settled as a knock-out's, it scores no points (as if it had left), and the
    round in progress is void (cards collected, no pull); the next standing seat after it
    starts the next round. A seat's automatic move needs that seat's own proof, so a seat
    whose agent is gone cannot be played for: this is how the match goes on without it."""
    kind: ClassVar[str] = "forfeit"
    role: ClassVar[Role] = Role.REFEREE
    seat: int


@dataclass(frozen=True)
class ShedCard(Action):
    """After a one-card ``AutoMove`` (whose proof fixed the card its seed picks), the same
    seat proves its new hand: the old hand less that card."""
    kind: ClassVar[str] = "shed"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class OpenPlay(Action):
    """The called seat opens its last play (``Reveal``): the card ids and the salt of the
    play's commitment."""
    kind: ClassVar[str] = "reveal"
    role: ClassVar[Role] = Role.SEAT
    cards: tuple[int, ...]
    play_salt: int


@dataclass(frozen=True)
class SealedMove(Action):
    """The referee (``NO_SEAT``) plays ``seat``'s sealed automatic move after that seat's
    ``Timeout``: the one-card play the seat itself proved in advance for the hand it holds
    now (``card.pick.v1`` and ``card.play.v1``, both bound to that hand's sealed context and
    carried on this line; ``context`` is that sealed context), its outputs ``play_commitment``
    and ``hand_commitment`` (the new hand) and ``sig``, the seat's Ed25519 signature over them
    (hex). The same effect as the
    seat's own ``AutoMove("timeout")`` and ``ShedCard`` together."""
    kind: ClassVar[str] = "sealed_move"
    role: ClassVar[Role] = Role.REFEREE
    seat: int
    context: int
    play_commitment: int
    hand_commitment: int
    sig: str


#: the proven table's action classes (its transcript schema)
TABLE_ACTIONS: tuple[type[Action], ...] = (
    CommitSeed, DrawTableCard, DealHands, Play, CallBluff, Timeout, AutoMove, ShedCard, OpenPlay, Share, Disconnect,
    Reconnect, LeaveTable, Forfeit, SealedMove)


@dataclass(frozen=True)
class TableExtras:
    """What the proven table adds to the :class:`Snapshot` (public too)."""
    drawn: Optional[int]          # the table card drawn for the coming deal
    timed_out: Optional[int]      # the seat whose time ran out (its automatic move is due)
    shed_due: Optional[int]       # the seat that owes the proof of its new hand


class TableRules(BluffersRules):
    """Bluffers as the proven table plays it: :class:`BluffersRules` plus the lines the
    proofs need, each mapped onto the pure rules. (The deal's entropy lines come before any
    of these and are the engine's: ``games/engine/proven_deal.py``.)

    - ``CommitSeed`` in seat order (each seat's revolver seed);
    - each round, ``DrawTableCard`` then ``DealHands`` (= ``Deal`` with that card);
    - ``Timeout`` (the referee's clock) before an ``AutoMove("timeout")``; a one-card
      ``AutoMove`` is followed by the same seat's ``ShedCard`` before anyone else moves;
    - ``OpenPlay`` (= ``Reveal`` with the play's salt).

    ``public_state()`` is the pure rules' snapshot (``to_move`` as they see it: the next
    player even while a ``ShedCard`` is due); :meth:`extras` has the rest.
    """

    def __init__(self, n_seats: int, seats_deal: bool = False):
        super().__init__(n_seats)
        #: a house-blind table: the seats dealt and bound their own hands (the deal seals none)
        self.seats_deal = seats_deal
        self.drawn: Optional[int] = None
        self.timed_out: Optional[int] = None
        self.shed_due: Optional[int] = None

    @property
    def to_move(self) -> Optional[int]:
        if self.over:
            return None
        if self.shed_due is not None:
            return self.shed_due
        return super().to_move

    def base_to_move(self) -> Optional[int]:
        return super().to_move

    def public_state(self) -> Snapshot:
        from dataclasses import replace
        return replace(super().public_state(), to_move=None if self.over else self.s.to_move)

    def extras(self) -> TableExtras:
        return TableExtras(self.drawn, self.timed_out, self.shed_due)

    def overdue(self) -> Optional[Action]:
        """The line the referee's clock writes when the seat to move lets its limit run
        out: ``Timeout`` while the move is the seat's own choice (its 30 seconds; then its
        agent owes the automatic move), ``Forfeit`` for any other line the seat owes (the
        automatic move's proof, a seed, a reveal, a share, a new hand); None while nobody
        is to move."""
        seat = self.to_move
        if self.over or seat is NO_SEAT:
            return None
        if self.shed_due is None and self.s.phase == Phase.TURN and self.timed_out is None \
                and not self.plays_automatically(seat):
            return Timeout(seat)
        return Forfeit(seat)

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        if self.over:
            return []
        if self.shed_due is not None:
            return [ShedCard()] if seat == self.shed_due else []
        if self.s.phase == Phase.DEAL:
            return []  # the draw and the deal are the entropies', not the dealer's choice
        if self.s.phase == Phase.TURN and seat == self.s.to_move and self.timed_out == seat:
            return [AutoMove("timeout")]
        return super().legal_actions(seat)

    def check(self, seat: Optional[int], action: Action) -> None:
        if not isinstance(action, Action) or type(action) not in TABLE_ACTIONS:
            raise IllegalMove(f"not an action of the proven Bluffers table: {action!r}")
        what = action.kind
        if isinstance(action, (Disconnect, Reconnect, LeaveTable)):
            return super().check(seat, action)
        if isinstance(action, Forfeit):
            if seat is not NO_SEAT:
                raise IllegalMove(f"forfeit: the referee's clock, not seat {seat}")
            due = self.overdue()
            if not isinstance(due, Forfeit) or not _is_int(action.seat) or action.seat != due.seat:
                now = "none" if due is None else f"{due.kind} {due.to_data()}"
                raise IllegalMove(f"forfeit: seat {action.seat!r} owes no line only it can make now "
                                  f"(the clock's line now: {now})")
            return
        if self.shed_due is not None:
            if not isinstance(action, ShedCard) or seat != self.shed_due:
                raise IllegalMove(f"{what}: seat {self.shed_due} owes the proof of its new hand (shed) first")
            return
        if isinstance(action, ShedCard):
            raise IllegalMove("shed: no automatic card is waiting for its new hand")
        if isinstance(action, SealedMove):
            return self._check_sealed(seat, action)
        if isinstance(action, DrawTableCard):
            self._expect_turn(seat, what)
            if self.s.phase != Phase.DEAL or self.drawn is not None:
                raise IllegalMove(f"draw: not now (phase {self.s.phase.value}, drawn {self.drawn})")
            if not _is_int(action.table_card) or action.table_card not in TABLE_CARDS:
                raise IllegalMove(f"draw: the table card must be 0, 1 or 2, got {action.table_card!r}")
            return
        if isinstance(action, DealHands):
            self._expect_turn(seat, what)
            if self.drawn is None:
                raise IllegalMove("deal: the table card has not been drawn")
            if action.table_card != self.drawn:
                raise IllegalMove(f"deal: the drawn table card is {self.drawn}, the deal names {action.table_card!r}")
            super().check(seat, Deal(action.table_card))
            standing = tuple(self.standing())
            if action.seats != standing:
                raise IllegalMove(f"deal: the standing seats are {list(standing)}, the deal names {list(action.seats)}")
            if action.sealed_hands == () and self.seats_deal:
                return  # a house-blind deal: every standing seat bound its own hand on the deal's lines
            if len(action.sealed_hands) != len(standing) or not all(_is_hex(h) for h in action.sealed_hands):
                raise IllegalMove(f"deal: one sealed hand (hex) for each of the {len(standing)} standing seats, "
                                  f"got {len(action.sealed_hands)}")
            return
        if isinstance(action, Timeout):
            if seat is not NO_SEAT:
                raise IllegalMove(f"timeout: the referee's clock, not seat {seat}")
            if self.s.phase != Phase.TURN or action.seat != self.s.to_move:
                raise IllegalMove(f"timeout: seat {action.seat!r} is not the seat to play")
            if self.plays_automatically(action.seat) or self.timed_out is not None:
                raise IllegalMove(f"timeout: seat {action.seat}'s move is already automatic")
            return
        if isinstance(action, (Play, CallBluff)) and seat is not None and seat == self.timed_out:
            raise IllegalMove(f"{what}: seat {seat}'s time ran out; its move is the automatic one")
        if isinstance(action, AutoMove) and action.reason == "timeout" and seat != self.timed_out:
            raise IllegalMove(f"auto_move: no timeout was recorded for seat {seat}")
        if isinstance(action, OpenPlay):
            if not _field_elem(action.play_salt):
                raise IllegalMove(f"reveal: play_salt must be a field element, got {action.play_salt!r}")
            return super().check(seat, Reveal(action.cards))
        return super().check(seat, action)

    def _check_sealed(self, seat: Optional[int], action: SealedMove) -> None:
        """A sealed move is opened only by the referee, only for the seat whose 30 seconds ran
        out (its ``Timeout`` on the transcript) and only where that seat's automatic move is a
        card (a forced call needs no seal): opened before the timeout is ``sealed.early``."""
        if seat is not NO_SEAT:
            raise IllegalMove(f"sealed_move: the referee opens a sealed move, not seat {seat}")
        if not _is_int(action.seat) or self.s.phase != Phase.TURN or action.seat != self.s.to_move:
            raise IllegalMove(f"sealed_move: seat {action.seat!r} is not the seat to play", code="sealed.early")
        if self.timed_out != action.seat:
            raise IllegalMove(f"sealed_move: opened before seat {action.seat}'s timeout (its own move is still its "
                              f"choice)", code="sealed.early")
        if self.must_call(action.seat):
            raise IllegalMove(f"sealed_move: seat {action.seat} must call; its automatic move is the call",
                              code="sealed.early")
        super().check(action.seat, AutoMove("timeout"))

    def _apply(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, SealedMove):
            super()._apply(action.seat, AutoMove("timeout"))
            self.timed_out = None
            return
        if isinstance(action, DrawTableCard):
            self.drawn = action.table_card
        elif isinstance(action, DealHands):
            super()._apply(seat, Deal(action.table_card))
            self.drawn = None
        elif isinstance(action, Timeout):
            self.timed_out = action.seat
        elif isinstance(action, Forfeit):
            self._forfeit(action.seat)
        elif isinstance(action, ShedCard):
            self.shed_due = None
        elif isinstance(action, OpenPlay):
            super()._apply(seat, Reveal(action.cards))
        elif isinstance(action, AutoMove):
            forced = self.must_call(seat)  # type: ignore[arg-type]
            super()._apply(seat, action)
            self.timed_out = None
            if not forced:
                self.shed_due = seat
        else:
            if isinstance(action, (Disconnect, LeaveTable)):
                gone = action.seat if isinstance(action, Disconnect) else seat
                if self.timed_out == gone:
                    self.timed_out = None  # its move is now the dropped seat's automatic one
            super()._apply(seat, action)

    def _forfeit(self, seat: int) -> None:
        """``seat`` is out by the clock (:class:`Forfeit`): placed as a knock-out, no points;
        before the first deal the other seats go on committing; in a round the round is
        void (the cards collected, no pull) and the next standing seat after it starts the
        next one.

        A share withheld (``seat`` owes its share of a pull that it does not make) is the
        standard restart without the aborter: the withholder is out with no points and the
        pull is **re-run** among the remaining contributors (the puller first, then the
        others in their order), on shares of a slot nobody has opened: the withholder's own
        revolver at its chamber (``share_slot``; the withholder is out, so that revolver is
        never pulled again, and it was standing, so its chamber is 0..5). The shares already
        given for the aborted attempt are void. The withholder knows its own share of that
        slot but no other seat's, so it cannot predict the re-run; and the re-run fires with
        the puller's own chamber's odds, ``1/(6 - chamber)``. The last contributor, who knows
        from the shares on the table whether the pull fires, can so trade an outcome it knows
        for a fresh fair draw, at the price of its whole match: it can neither cancel a bang
        (were the round void, it could: the puller stays, the chamber unchanged) nor force
        one (when the pull fired on a withheld share, a colluder could knock out any puller
        it would have clicked for). With ``w`` such sacrifices in one pull the puller's risk
        is at most ``1 - (1 - 1/m)^(w + 1)`` (``m = 6 - chamber``; one: 11/36 at the first
        chamber, against 1/6 fair; docs/bluffers.md). If only the puller is left standing it
        wins (no pull). The puller withholding its own share (the first of every attempt,
        before any other is seen) is only out with no points, which is below any bang's
        place and points; the round is void."""
        s = self.s
        withheld = s.phase == Phase.PULL and s.puller is not None and seat != s.puller
        s.alive[seat] = False
        s.forfeited[seat] = True
        s.places[seat] = sum(s.alive) + 1
        s.knocked_out.append(seat)
        self.timed_out = self.shed_due = None
        if withheld and sum(s.alive) > 1:  # (the puller alone left standing wins: no pull)
            s.hand_sizes = [0] * s.n       # the round's cards are collected; only its pull is left
            s.pile = 0
            s.contributors = tuple(i for i in s.contributors if s.alive[i])
            s.shares = []
            s.share_slot, s.attempt = (seat, s.chambers[seat]), s.attempt + 1
            s.to_move = s.puller
            return
        committing = s.phase == Phase.COMMIT
        if not committing:
            s.hand_sizes = [0] * s.n
            s.pile = 0
            s.table_card, s.last_play = None, None
            s.caller, s.revealed, s.matched = None, (), ()
            s.puller, s.contributors, s.shares = None, (), []
            s.share_slot, s.attempt = None, 0
        if sum(s.alive) == 1:
            winner = self.standing()[0]
            s.places[winner] = 1
            s.phase, s.to_move, s.starter = Phase.OVER, None, None
            return
        if s.starter == seat or not committing:
            s.starter = self._next_alive(seat)
        if committing:  # seats commit in seat order: the ones after it have not yet
            if seat == s.n - 1:
                s.phase, s.to_move = Phase.DEAL, NO_SEAT
            else:
                s.to_move = seat + 1
        else:
            s.phase, s.to_move = Phase.DEAL, NO_SEAT
