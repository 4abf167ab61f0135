"""The rules of Proof or Bluff as public state machines (seed 000): the classic table and
5 Up 2 Down, each a :class:`~zkbluff.games.engine.rules.Rules` over typed actions.

The state holds only what every seat may see: scores, hand sizes, the required rank, the
pile size, the claim on the table, whose move it is. Which cards a seat holds lives in
the seat, never here; a challenged claim is settled by the verdict (classic) or the lie
count (5 Up 2 Down) that the challenged seat's proof discloses, entering as that seat's
``prove`` action. The live table and the offline verifier drive the same machine.

Every illegal action raises :class:`IllegalMove` and leaves the state unchanged (a
transition runs on a copy that replaces the state only when it succeeds).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Optional, Union

from zkbluff.errors import IllegalMove
from zkbluff.games.decks import STANDARD_52
from zkbluff.games.engine.rules import NO_SEAT, Action, EndCode, Result, Role, Rules



class End(EndCode):
    """Why a match of Proof or Bluff (or 5 Up 2 Down) ended: the end line's reason code under
    rules ``proof-or-bluff/1`` (``five-up-two-down/1``), e.g. ``proof-or-bluff.went_out``."""

    ABANDONED = "abandoned"                      # a seat let an idle turn run out: the other wins
    WENT_OUT = "went_out"                        # classic: a seat's last play was accepted
    WENT_OUT_CHALLENGED = "went_out_challenged"  # classic: a seat's challenged last play was true
    REACHED_TARGET = "reached_target"            # classic: the challenger reached the target
    NO_WINNER = "no_winner"                      # classic: the last round caught at the door, a draw
    REACHED_TARGET_AT_ROUND_END = "reached_target_at_round_end"  # 5 Up 2 Down: the race checked at a round's end
    TIE = "tie"                                  # 5 Up 2 Down: level after the last round
    HIGHER_SCORE = "higher_score"                # 5 Up 2 Down: the higher score after the last round


#: the game's end codes (``GameSpec.end_codes``): one table, the words beside them in :data:`END_TEXT`
END_CODES = End
#: the words of each end (``str.format`` fields from :func:`end_text`'s facts): for people, never checked
END_TEXT: dict[End, str] = {
    End.ABANDONED: "seat {seat} abandoned an idle turn",
    End.WENT_OUT: "went out: the last play was accepted",
    End.WENT_OUT_CHALLENGED: "went out: the challenged last play was true",
    End.REACHED_TARGET: "reached {target} points",
    End.NO_WINNER: "{rounds} completed rounds with no winner",
    End.REACHED_TARGET_AT_ROUND_END: "reached {target} points (checked at the end of the round)",
    End.TIE: "a tie after {rounds} rounds",
    End.HIGHER_SCORE: "the higher score after {rounds} rounds",
}


def end_text(code: End, **facts: Any) -> str:
    """The words of the end ``code`` (the end line's ``reason``)."""
    return END_TEXT[code].format(**facts)


DECK = STANDARD_52
N_RANKS = DECK.n_ranks
SHORT_RANKS = DECK.short_ranks
RANK_NAMES = DECK.rank_names
card_name = DECK.card_name


def rank_name(rank: int) -> str:
    return RANK_NAMES[rank]


def rank_mask(rank: int) -> int:
    """The card ids that count as ``rank`` (all four suits): the claim statement's mask."""
    return DECK.rank_mask(rank)


def next_rank(rank: int) -> int:
    """2 → 3 → … → King → Ace → 2."""
    return (rank + 1) % N_RANKS


@dataclass(frozen=True)
class Mode:
    name: str
    hand_size: int
    target: int


MODES = {
    "casual": Mode("casual", 5, 10),
    "standard": Mode("standard", 7, 15),
    "casino": Mode("casino", 7, 20),
}
MAX_PLAY = 4
CLASSIC_MAX_ROUNDS = 6
FIVE_UP_MAX_ROUNDS = 10
FIVE_UP_TARGETS = {"casual": 10, "standard": 20, "casino": 20}
FIVE_UP_HAND = 2
FIVE_UP_BOARD = 5
MAX_NAMES = 2


class Phase(str, Enum):
    """What the table waits for. A ``str`` enum: ``state.phase == "play"`` holds."""

    DEAL = "deal"
    PLAY = "play"
    RESPOND = "respond"
    PROVE = "prove"
    CLAIM = "claim"
    OVER = "over"


DEAL, PLAY, RESPOND, PROVE, CLAIM, OVER = (Phase.DEAL, Phase.PLAY, Phase.RESPOND, Phase.PROVE, Phase.CLAIM,
                                           Phase.OVER)


class TimeLimit(str, Enum):
    PROOF = "proof"  # the challenged seat never proved: treated as caught
    IDLE = "idle"    # the seat to move abandoned its turn: it forfeits


# ---------------------------------------------------------------- actions (the transcript's events)

@dataclass(frozen=True)
class ClassicDeal(Action):
    """The dealer starts a round; round 1 also fixes the starting rank from the seed.
    ``sealed_hands[i]`` is seat i's hand sealed to it (opaque to the rules)."""

    kind: ClassVar[str] = "deal"
    role: ClassVar[Role] = Role.DEALER
    round: int
    starting_rank: Optional[int]
    sealed_hands: tuple[str, ...]


@dataclass(frozen=True)
class Play(Action):
    """Place ``count`` cards face down, claiming "count × rank" (rank = the required rank)."""

    kind: ClassVar[str] = "play"
    role: ClassVar[Role] = Role.SEAT
    count: int
    rank: int


@dataclass(frozen=True)
class Accept(Action):
    kind: ClassVar[str] = "accept"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class Challenge(Action):
    """"Proof or Bluff!": demand the proof of the claim on the table."""

    kind: ClassVar[str] = "challenge"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class ProveVerdict(Action):
    """The challenged seat's claim proof discloses one bit: was every played card the rank?"""

    kind: ClassVar[str] = "prove"
    role: ClassVar[Role] = Role.SEAT
    verdict: bool


@dataclass(frozen=True)
class FiveUpDeal(Action):
    kind: ClassVar[str] = "deal"
    role: ClassVar[Role] = Role.DEALER
    round: int
    board: int
    sealed_hands: tuple[str, ...]


@dataclass(frozen=True)
class Claim(Action):
    """Name none, one or two board ranks that your two hidden cards match."""

    kind: ClassVar[str] = "claim"
    role: ClassVar[Role] = Role.SEAT
    names: tuple[int, ...]


@dataclass(frozen=True)
class ProveLies(Action):
    """The challenged seat's match proof discloses the number of named ranks it lied about."""

    kind: ClassVar[str] = "prove"
    role: ClassVar[Role] = Role.SEAT
    lies: int


@dataclass(frozen=True)
class Timeout(Action):
    """The referee's line: ``seat`` let its ``limit`` ("proof" or "idle") run out."""

    kind: ClassVar[str] = "timeout"
    role: ClassVar[Role] = Role.REFEREE
    seat: int
    limit: str


def _floor(x: int) -> int:
    return max(0, x)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# ---------------------------------------------------------------- shared by both tables

_State = Union["ClassicState", "FiveUpState"]


class _ProofOrBluffRules(Rules):
    """What both tables share: turn checks, challenges, timeouts, the end and the result."""

    n_seats = 2
    s: "ClassicState | FiveUpState"
    IDLE_PHASES: ClassVar[tuple[Phase, ...]] = ()

    @property
    def over(self) -> bool:
        return self.s.phase == OVER

    @property
    def to_move(self) -> Optional[int]:
        if self.s.phase == DEAL:
            return NO_SEAT
        return self.s.to_move

    def check(self, seat: Optional[int], action: Action) -> None:
        self._transition(copy.deepcopy(self.s), seat, action)

    def _apply(self, seat: Optional[int], action: Action) -> None:
        new = copy.deepcopy(self.s)
        self._transition(new, seat, action)
        self.s = new

    def apply(self, seat: Optional[int], action: Action) -> None:
        self._apply(seat, action)  # one transition on a copy: checked and applied at once

    def _transition(self, s: Any, seat: Optional[int], a: Action) -> None:
        raise NotImplementedError

    def _expect(self, s: _State, seat: Optional[int], phase: Phase, what: str, by_dealer: bool = False) -> None:
        if s.phase == OVER:
            raise IllegalMove(f"{what}: the match is over")
        if s.phase != phase:
            raise IllegalMove(f"{what}: not allowed now (the table is waiting for: {s.phase.value}"
                              + ("" if s.phase == DEAL else f" by seat {s.to_move}") + ")")
        if by_dealer:
            if seat is not NO_SEAT:
                raise IllegalMove(f"{what}: only the dealer deals, not seat {seat}")
        elif seat is NO_SEAT:
            raise IllegalMove(f"{what}: a seat's move; the dealer or referee (seat null) may not make it")
        elif seat != s.to_move:
            raise IllegalMove(f"{what}: out of turn (seat {seat} moved, seat {s.to_move} is to move)")

    def _timeout(self, s: _State, seat: Optional[int], a: Timeout) -> None:
        if seat is not NO_SEAT:
            raise IllegalMove(f"timeout: only the referee times a seat out, not seat {seat}")
        if s.phase == OVER:
            raise IllegalMove("timeout: the match is over")
        if s.phase == DEAL or a.seat != s.to_move:
            raise IllegalMove(f"timeout: seat {a.seat} is not the seat to move")
        if a.limit == TimeLimit.PROOF.value:
            self._expect(s, a.seat, PROVE, "proof timeout")
            self._caught_by_timeout(s)
        elif a.limit == TimeLimit.IDLE.value:
            if s.phase not in self.IDLE_PHASES:
                raise IllegalMove(f"idle timeout: not allowed in phase {s.phase.value}")
            self._end(s, 1 - a.seat, End.ABANDONED, seat=a.seat)
        else:
            raise IllegalMove(f"timeout: unknown limit {a.limit!r} (expected 'proof' or 'idle')")

    def _challenge(self, s: _State, seat: Optional[int]) -> None:
        self._expect(s, seat, RESPOND, "challenge")
        assert s.claim is not None
        s.to_move = s.claim[0]
        s.phase = PROVE

    def _caught_by_timeout(self, s: Any) -> None:
        raise NotImplementedError

    @staticmethod
    def _end(s: _State, winner: Optional[int], code: End, **facts: Any) -> None:
        s.phase = OVER
        s.winner = winner
        s.draw = winner is None
        s.end_code = code.value
        s.end_reason = end_text(code, **facts)

    def result(self) -> Optional[Result]:
        s = self.s
        if not self.over:
            return None
        placements = (1, 1) if s.winner is None else tuple(1 if i == s.winner else 2 for i in range(2))
        return Result(placements, tuple(s.scores), s.end_reason, code=s.end_code)

    def standing_places(self) -> Optional[tuple[int, ...]]:
        """By the points so far (higher is better; level points share place 1)."""
        scores = self.s.scores
        return tuple(1 + sum(t > mine for t in scores) for mine in scores)

    # ---- the method API (tests and the arena): each is one typed action
    def accept(self, seat: int) -> None:
        self.apply(seat, Accept())

    def challenge(self, seat: int) -> None:
        self.apply(seat, Challenge())

    def timeout(self, seat: int, limit: str) -> None:
        self.apply(NO_SEAT, Timeout(seat, limit))


# ---------------------------------------------------------------- classic

@dataclass
class ClassicState:
    mode: Mode
    required_rank: int
    scores: list[int] = field(default_factory=lambda: [0, 0])
    hand_sizes: list[int] = field(default_factory=lambda: [0, 0])
    phase: Phase = DEAL
    to_move: int = 0
    pile: int = 0
    claim: Optional[tuple[int, int, int]] = None  # (seat, count, rank)
    round: int = 0
    completed_rounds: int = 0
    winner: Optional[int] = None
    draw: bool = False
    end_reason: str = ""
    end_code: str = ""


@dataclass(frozen=True)
class ClassicPublic:
    """A frozen snapshot of the classic table's public state."""

    target: int
    required_rank: int
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    phase: Phase
    to_move: Optional[int]
    pile: int
    claim: Optional[tuple[int, int, int]]
    round: int
    completed_rounds: int


class ClassicRules(_ProofOrBluffRules):
    """The classic table. Actions: :class:`ClassicDeal` (dealer), :class:`Play`,
    :class:`Accept`, :class:`Challenge`, :class:`ProveVerdict` (seats), :class:`Timeout`
    (referee)."""

    IDLE_PHASES = (PLAY, RESPOND)
    s: ClassicState

    def __init__(self, mode: Mode, starting_rank: Optional[int] = None):
        if starting_rank is not None and (not _is_int(starting_rank) or not 0 <= starting_rank < N_RANKS):
            raise IllegalMove(f"starting rank must be 0..{N_RANKS - 1}, got {starting_rank}")
        self.s = ClassicState(mode, starting_rank if starting_rank is not None else 0)
        self._start = starting_rank

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        s = self.s
        if s.phase in (OVER, DEAL) or seat != s.to_move:
            return []
        if s.phase == PLAY:
            return [Play(k, s.required_rank) for k in range(1, min(MAX_PLAY, s.hand_sizes[seat]) + 1)]
        if s.phase == RESPOND:
            return [Accept(), Challenge()]
        return [ProveVerdict(True), ProveVerdict(False)]

    def public_state(self) -> ClassicPublic:
        s = self.s
        return ClassicPublic(s.mode.target, s.required_rank, tuple(s.scores), tuple(s.hand_sizes), s.phase,
                             self.to_move, s.pile, s.claim, s.round, s.completed_rounds)

    def _transition(self, s: ClassicState, seat: Optional[int], a: Action) -> None:
        if isinstance(a, ClassicDeal):
            self._deal(s, seat, a)
        elif isinstance(a, Play):
            self._play(s, seat, a)
        elif isinstance(a, Accept):
            self._accept(s, seat)
        elif isinstance(a, Challenge):
            self._challenge(s, seat)
        elif isinstance(a, ProveVerdict):
            self._expect(s, seat, PROVE, "prove")
            if not isinstance(a.verdict, bool):
                raise IllegalMove(f"prove: the verdict is true or false, got {a.verdict!r}")
            self._settle(s, a.verdict)
        elif isinstance(a, Timeout):
            self._timeout(s, seat, a)
        else:
            raise IllegalMove(f"{a.kind or type(a).__name__}: not an action of the classic table")

    def _deal(self, s: ClassicState, seat: Optional[int], a: ClassicDeal) -> None:
        """Start a round: both hands full. Round 1 starts with seat 0 (player one) at the
        seed's starting rank; after a catch at the door the challenger plays first."""
        self._expect(s, seat, DEAL, "deal", by_dealer=True)
        if a.round != s.round + 1:
            raise IllegalMove(f"deal: round {a.round}, expected {s.round + 1}")
        if s.round == 0:
            if not _is_int(a.starting_rank) or not 0 <= a.starting_rank < N_RANKS:  # type: ignore[operator]
                raise IllegalMove(f"deal: the first deal names a starting rank 0..{N_RANKS - 1}, "
                                  f"got {a.starting_rank!r}")
            s.required_rank = a.starting_rank  # type: ignore[assignment]
        elif a.starting_rank is not None:
            raise IllegalMove("deal: only the first deal names a starting rank")
        s.round += 1
        s.hand_sizes = [s.mode.hand_size, s.mode.hand_size]
        s.pile = 0
        s.claim = None
        s.phase = PLAY

    def _play(self, s: ClassicState, seat: Optional[int], a: Play) -> None:
        self._expect(s, seat, PLAY, "play")
        assert seat is not None
        most = min(MAX_PLAY, s.hand_sizes[seat])
        if not _is_int(a.count) or not 1 <= a.count <= most:
            raise IllegalMove(f"play: count must be 1..{most}, got {a.count!r}")
        if a.rank != s.required_rank:
            raise IllegalMove(f"play: the claimed rank must be the required rank {rank_name(s.required_rank)}, "
                              f"got {a.rank!r}")
        s.hand_sizes[seat] -= a.count
        s.pile += a.count
        s.claim = (seat, a.count, s.required_rank)
        s.to_move = 1 - seat
        s.phase = RESPOND

    def _accept(self, s: ClassicState, seat: Optional[int]) -> None:
        self._expect(s, seat, RESPOND, "accept")
        claimant = s.claim[0]  # type: ignore[index]
        s.required_rank = next_rank(s.required_rank)
        if s.hand_sizes[claimant] == 0:
            return self._end(s, claimant, End.WENT_OUT)
        s.claim = None
        s.phase = PLAY  # the responder plays next

    def _caught_by_timeout(self, s: ClassicState) -> None:
        self._settle(s, False)  # +3 to the challenger, as for a caught bluff

    def _settle(self, s: ClassicState, verdict: bool) -> None:
        claimant = s.claim[0]  # type: ignore[index]
        challenger = 1 - claimant
        if verdict:
            s.scores[challenger] = _floor(s.scores[challenger] - 1)
        else:
            s.scores[challenger] += 3
        s.pile = 0  # the pile is discarded whatever the outcome
        s.required_rank = next_rank(s.required_rank)
        s.claim = None
        s.to_move = challenger
        if s.scores[challenger] >= s.mode.target:
            return self._end(s, challenger, End.REACHED_TARGET, target=s.mode.target)
        if s.hand_sizes[claimant] == 0:
            if verdict:
                return self._end(s, claimant, End.WENT_OUT_CHALLENGED)
            s.completed_rounds += 1  # caught at the door: the round ends, both re-deal
            if s.completed_rounds >= CLASSIC_MAX_ROUNDS:
                return self._end(s, None, End.NO_WINNER, rounds=CLASSIC_MAX_ROUNDS)
            s.phase = DEAL
            return None
        s.phase = PLAY

    # ---- the method API
    def deal(self) -> None:
        first = self.s.round == 0
        self.apply(NO_SEAT, ClassicDeal(self.s.round + 1, self.s.required_rank if first else None, ()))

    def check_play(self, seat: int, count: int) -> None:
        self.check(seat, Play(count, self.s.required_rank))

    def play(self, seat: int, count: int) -> None:
        self.apply(seat, Play(count, self.s.required_rank))

    def resolve(self, verdict: bool) -> None:
        """Settle the challenge with the verdict the claim proof disclosed (the challenged
        seat's ``prove`` action)."""
        self.apply(self.s.to_move, ProveVerdict(verdict))


# ---------------------------------------------------------------- 5 Up 2 Down

@dataclass
class FiveUpState:
    target: int
    scores: list[int] = field(default_factory=lambda: [0, 0])
    board: int = 0
    phase: Phase = DEAL
    to_move: int = 0
    round: int = 0
    first_claimer: int = 0
    claims_done: int = 0
    claim: Optional[tuple[int, tuple[int, ...]]] = None  # (seat, named ranks)
    winner: Optional[int] = None
    draw: bool = False
    end_reason: str = ""
    end_code: str = ""


@dataclass(frozen=True)
class FiveUpPublic:
    target: int
    scores: tuple[int, ...]
    board: int
    phase: Phase
    to_move: Optional[int]
    round: int
    first_claimer: int
    claim: Optional[tuple[int, tuple[int, ...]]]


def board_ranks(board: int) -> set[int]:
    return {DECK.rank_of(c) for c in DECK.cards(board)}


class FiveUpRules(_ProofOrBluffRules):
    """5 Up 2 Down. Actions: :class:`FiveUpDeal` (dealer), :class:`Claim`, :class:`Accept`,
    :class:`Challenge`, :class:`ProveLies` (seats), :class:`Timeout` (referee)."""

    IDLE_PHASES = (CLAIM, RESPOND)
    s: FiveUpState

    def __init__(self, mode: str = "standard"):
        if mode not in FIVE_UP_TARGETS:
            raise IllegalMove(f"unknown mode {mode!r}")
        self.s = FiveUpState(FIVE_UP_TARGETS[mode])

    def legal_claims(self) -> list[tuple[int, ...]]:
        ranks = sorted(board_ranks(self.s.board))
        out: list[tuple[int, ...]] = [()]
        out += [(a,) for a in ranks]
        out += [(a, b) for i, a in enumerate(ranks) for b in ranks[i:]]
        return out

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        s = self.s
        if s.phase in (OVER, DEAL) or seat != s.to_move:
            return []
        if s.phase == CLAIM:
            return [Claim(c) for c in self.legal_claims()]
        if s.phase == RESPOND:
            return [Accept(), Challenge()]
        names = s.claim[1] if s.claim else ()
        return [ProveLies(k) for k in range(len(names) + 1)]

    def public_state(self) -> FiveUpPublic:
        s = self.s
        return FiveUpPublic(s.target, tuple(s.scores), s.board, s.phase, self.to_move, s.round, s.first_claimer,
                            s.claim)

    def _transition(self, s: FiveUpState, seat: Optional[int], a: Action) -> None:
        if isinstance(a, FiveUpDeal):
            self._deal(s, seat, a)
        elif isinstance(a, Claim):
            self._claim(s, seat, a)
        elif isinstance(a, Accept):
            self._expect(s, seat, RESPOND, "accept")
            claimant, names = s.claim  # type: ignore[misc]
            s.scores[claimant] += 1 if len(names) == 1 else 3
            self._claim_done(s)
        elif isinstance(a, Challenge):
            self._challenge(s, seat)
        elif isinstance(a, ProveLies):
            self._expect(s, seat, PROVE, "prove")
            self._settle(s, a.lies)
        elif isinstance(a, Timeout):
            self._timeout(s, seat, a)
        else:
            raise IllegalMove(f"{a.kind or type(a).__name__}: not an action of 5 Up 2 Down")

    def _deal(self, s: FiveUpState, seat: Optional[int], a: FiveUpDeal) -> None:
        """A new round: a board of five face-up cards; who claims first alternates."""
        self._expect(s, seat, DEAL, "deal", by_dealer=True)
        if a.round != s.round + 1:
            raise IllegalMove(f"deal: round {a.round}, expected {s.round + 1}")
        if not _is_int(a.board) or a.board < 0 or a.board & ~DECK.full_mask or \
                len(DECK.cards(a.board)) != FIVE_UP_BOARD:
            raise IllegalMove(f"deal: the board must be {FIVE_UP_BOARD} cards of the deck")
        s.round += 1
        s.board = a.board
        s.first_claimer = (s.round - 1) % 2
        s.to_move = s.first_claimer
        s.claims_done = 0
        s.phase = CLAIM

    def _claim(self, s: FiveUpState, seat: Optional[int], a: Claim) -> None:
        """Name none, one or two board ranks (a rank may be named twice: two Kings in
        hand against one King on the board are two matches)."""
        self._expect(s, seat, CLAIM, "claim")
        assert seat is not None
        names = tuple(sorted(a.names)) if all(_is_int(n) for n in a.names) else a.names
        if len(names) > MAX_NAMES or any(not _is_int(n) or n not in board_ranks(s.board) for n in names):
            raise IllegalMove(f"claim: name none, one or two ranks of the board, got {a.names!r}")
        s.claim = (seat, names)
        if not names:  # a claim of none scores 0 and cannot be challenged
            return self._claim_done(s)
        s.to_move = 1 - seat
        s.phase = RESPOND

    def _settle(self, s: FiveUpState, lies: int) -> None:
        """Settle a challenge with the number of lies the match proof disclosed."""
        claimant, names = s.claim  # type: ignore[misc]
        if not _is_int(lies) or not 0 <= lies <= len(names):
            raise IllegalMove(f"prove: lies must be an integer 0..{len(names)}, got {lies!r}")
        if lies == 0:
            s.scores[claimant] += 2 if len(names) == 1 else 4
        else:  # a claim with any lie is void; the liar loses, the challenger gains, per lie
            s.scores[claimant] = _floor(s.scores[claimant] - lies)
            s.scores[1 - claimant] += lies
        self._claim_done(s)

    def _caught_by_timeout(self, s: FiveUpState) -> None:
        self._settle(s, len(s.claim[1]))  # type: ignore[index]  # every named card counts as a lie

    def _claim_done(self, s: FiveUpState) -> None:
        s.claim = None
        s.claims_done += 1
        if s.claims_done < 2:
            s.to_move = 1 - s.first_claimer
            s.phase = CLAIM
            return
        # end of round: the race is checked now
        hi = max(s.scores)
        if hi >= s.target and s.scores[0] != s.scores[1]:
            return self._end(s, s.scores.index(hi), End.REACHED_TARGET_AT_ROUND_END, target=s.target)
        if s.round >= FIVE_UP_MAX_ROUNDS:
            if s.scores[0] == s.scores[1]:
                return self._end(s, None, End.TIE, rounds=FIVE_UP_MAX_ROUNDS)
            return self._end(s, s.scores.index(hi), End.HIGHER_SCORE, rounds=FIVE_UP_MAX_ROUNDS)
        s.phase = DEAL

    # ---- the method API
    def deal(self, board: int) -> None:
        self.apply(NO_SEAT, FiveUpDeal(self.s.round + 1, board, ()))

    def claim(self, seat: int, names: tuple[int, ...]) -> None:
        self.apply(seat, Claim(tuple(names)))

    def resolve(self, lies: int) -> None:
        self.apply(self.s.to_move, ProveLies(lies))


AnyRules = Union[ClassicRules, FiveUpRules]
