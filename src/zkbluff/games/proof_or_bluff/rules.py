"""The rules of Proof or Bluff as public state machines (seed 000).

The state holds only what every seat may see: scores, hand sizes, the required rank, the
pile size, the claim on the table, whose move it is. Which cards a seat holds lives in
the seat, never here; a challenged claim is settled by the verdict the claim proof
discloses. The table and the offline transcript verifier drive the same machine, so a
transcript is checked against exactly the rules that produced it.

Every illegal action raises :class:`IllegalMove` and leaves the state unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from zkbluff.errors import IllegalMove
from zkbluff.fair.cards import RANKS as SHORT_RANKS, card_name  # noqa: F401  (re-exported for the games)
from zkbluff.games.decks import STANDARD_52

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King", "Ace")


def rank_name(rank: int) -> str:
    return RANK_NAMES[rank]


def rank_mask(rank: int) -> int:
    """The card ids that count as ``rank`` (all four suits): the claim statement's mask."""
    return STANDARD_52.rank_mask(rank)


def next_rank(rank: int) -> int:
    """2 → 3 → … → King → Ace → 2."""
    return (rank + 1) % 13


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

# phases
DEAL, PLAY, RESPOND, PROVE, CLAIM, OVER = "deal", "play", "respond", "prove", "claim", "over"


def _floor(x: int) -> int:
    return max(0, x)


class _TwoSeatRules:
    """What both tables share: turn checks, challenges, timeouts and the end."""

    s: "ClassicState | FiveUpState"
    IDLE_PHASES: tuple[str, ...] = ()

    @property
    def over(self) -> bool:
        return self.s.phase == OVER

    def _expect(self, seat: Optional[int], phase: str, what: str) -> None:
        s = self.s
        if s.phase == OVER:
            raise IllegalMove(f"{what}: the match is over")
        if s.phase != phase:
            raise IllegalMove(f"{what}: not allowed now (the table is waiting for: {s.phase} by seat {s.to_move})")
        if seat is not None and seat != s.to_move:
            raise IllegalMove(f"{what}: out of turn (seat {seat} moved, seat {s.to_move} is to move)")

    def challenge(self, seat: int) -> None:
        """Demand the proof of the claim on the table ("Proof or Bluff!")."""
        self._expect(seat, RESPOND, "challenge")
        s = self.s
        s.to_move = s.claim[0]  # type: ignore[index]
        s.phase = PROVE

    def timeout(self, seat: int, kind: str) -> None:
        """``kind="proof"``: the challenged seat never proved: treated as caught.
        ``kind="idle"``: the seat to move abandoned its turn and forfeits."""
        s = self.s
        if s.phase == OVER:
            raise IllegalMove("timeout: the match is over")
        if seat != s.to_move:
            raise IllegalMove(f"timeout: seat {seat} is not the seat to move ({s.to_move})")
        if kind == "proof":
            self._expect(seat, PROVE, "proof timeout")
            self._caught_by_timeout()
        elif kind == "idle":
            if s.phase not in self.IDLE_PHASES:
                raise IllegalMove(f"idle timeout: not allowed in phase {s.phase}")
            self._end(1 - seat, f"seat {seat} abandoned an idle turn")
        else:
            raise IllegalMove(f"timeout: unknown kind {kind!r}")

    def _caught_by_timeout(self) -> None:
        raise NotImplementedError

    def _end(self, winner: Optional[int], reason: str) -> None:
        s = self.s
        s.phase = OVER
        s.winner = winner
        s.draw = winner is None
        s.end_reason = reason


@dataclass
class ClassicState:
    mode: Mode
    required_rank: int
    scores: list[int] = field(default_factory=lambda: [0, 0])
    hand_sizes: list[int] = field(default_factory=lambda: [0, 0])
    phase: str = DEAL
    to_move: int = 0
    pile: int = 0
    claim: Optional[tuple[int, int, int]] = None  # (seat, count, rank)
    round: int = 0
    completed_rounds: int = 0
    winner: Optional[int] = None
    draw: bool = False
    end_reason: str = ""


class ClassicRules(_TwoSeatRules):
    """The classic table. Actions: ``deal``, ``play(seat, count)``, ``accept(seat)``,
    ``challenge(seat)``, ``resolve(verdict)``, ``timeout(seat, kind)``."""

    IDLE_PHASES = (PLAY, RESPOND)

    def __init__(self, mode: Mode, starting_rank: int):
        if not 0 <= starting_rank < 13:
            raise IllegalMove(f"starting rank must be 0..12, got {starting_rank}")
        self.s = ClassicState(mode, starting_rank)

    def legal_actions(self, seat: int) -> list[tuple]:
        s = self.s
        if s.phase == OVER or seat != s.to_move:
            return []
        if s.phase == PLAY:
            return [("play", k) for k in range(1, min(MAX_PLAY, s.hand_sizes[seat]) + 1)]
        if s.phase == RESPOND:
            return [("accept",), ("challenge",)]
        if s.phase == PROVE:
            return [("prove",)]
        return []

    # ---- actions
    def deal(self) -> None:
        """Start a round: both hands full. Round 1 starts with seat 0 (player one); after
        a catch at the door the challenger plays first, as after any resolved challenge."""
        self._expect(None, DEAL, "deal")
        s = self.s
        s.round += 1
        s.hand_sizes = [s.mode.hand_size, s.mode.hand_size]
        s.pile = 0
        s.claim = None
        s.phase = PLAY

    def check_play(self, seat: int, count: int) -> None:
        """Raise :class:`IllegalMove` (saying why) unless ``play(seat, count)`` is legal."""
        self._expect(seat, PLAY, "play")
        s = self.s
        if isinstance(count, bool) or not isinstance(count, int) or \
                not 1 <= count <= min(MAX_PLAY, s.hand_sizes[seat]):
            raise IllegalMove(f"play: count must be 1..{min(MAX_PLAY, s.hand_sizes[seat])}, got {count!r}")

    def play(self, seat: int, count: int) -> None:
        """Place ``count`` cards with the claim "count × required rank"."""
        self.check_play(seat, count)
        s = self.s
        s.hand_sizes[seat] -= count
        s.pile += count
        s.claim = (seat, count, s.required_rank)
        s.to_move = 1 - seat
        s.phase = RESPOND

    def accept(self, seat: int) -> None:
        self._expect(seat, RESPOND, "accept")
        s = self.s
        claimant = s.claim[0]  # type: ignore[index]
        s.required_rank = next_rank(s.required_rank)
        if s.hand_sizes[claimant] == 0:
            return self._end(claimant, "went out: the last play was accepted")
        s.claim = None
        s.phase = PLAY  # the responder plays next

    def resolve(self, verdict: bool) -> None:
        """Settle the challenge with the verdict the claim proof disclosed."""
        self._expect(None, PROVE, "resolve")
        self._settle(bool(verdict))

    def _caught_by_timeout(self) -> None:
        self._settle(False)  # +3 to the challenger, as for a caught bluff

    def _settle(self, verdict: bool) -> None:
        s = self.s
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
            return self._end(challenger, f"reached {s.mode.target} points")
        if s.hand_sizes[claimant] == 0:
            if verdict:
                return self._end(claimant, "went out: the challenged last play was true")
            s.completed_rounds += 1  # caught at the door: the round ends, both re-deal
            if s.completed_rounds >= CLASSIC_MAX_ROUNDS:
                return self._end(None, f"{CLASSIC_MAX_ROUNDS} completed rounds with no winner")
            s.phase = DEAL
            return None
        s.phase = PLAY


@dataclass
class FiveUpState:
    target: int
    scores: list[int] = field(default_factory=lambda: [0, 0])
    board: int = 0
    phase: str = DEAL
    to_move: int = 0
    round: int = 0
    first_claimer: int = 0
    claims_done: int = 0
    claim: Optional[tuple[int, tuple[int, ...]]] = None  # (seat, named ranks)
    winner: Optional[int] = None
    draw: bool = False
    end_reason: str = ""


def board_ranks(board: int) -> set[int]:
    return {c % 13 for c in range(52) if board >> c & 1}


class FiveUpRules(_TwoSeatRules):
    """5 Up 2 Down. Actions: ``deal(board)``, ``claim(seat, names)``, ``accept(seat)``,
    ``challenge(seat)``, ``resolve(lies)``, ``timeout(seat, kind)``."""

    IDLE_PHASES = (CLAIM, RESPOND)

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

    def legal_actions(self, seat: int) -> list[tuple]:
        s = self.s
        if s.phase == OVER or seat != s.to_move:
            return []
        if s.phase == CLAIM:
            return [("claim", c) for c in self.legal_claims()]
        if s.phase == RESPOND:
            return [("accept",), ("challenge",)]
        if s.phase == PROVE:
            return [("prove",)]
        return []

    def deal(self, board: int) -> None:
        """A new round: a board of five face-up cards; who claims first alternates."""
        self._expect(None, DEAL, "deal")
        if bin(board).count("1") != 5 or board >> 52:
            raise IllegalMove("deal: the board must be five cards of the deck")
        s = self.s
        s.round += 1
        s.board = board
        s.first_claimer = (s.round - 1) % 2
        s.to_move = s.first_claimer
        s.claims_done = 0
        s.phase = CLAIM

    def claim(self, seat: int, names: tuple[int, ...]) -> None:
        """Name none, one or two board ranks (a rank may be named twice: two Kings in
        hand against one King on the board are two matches)."""
        self._expect(seat, CLAIM, "claim")
        names = tuple(sorted(names))
        if len(names) > 2 or any(not isinstance(n, int) or n not in board_ranks(self.s.board) for n in names):
            raise IllegalMove(f"claim: name none, one or two ranks of the board, got {names!r}")
        s = self.s
        s.claim = (seat, names)
        if not names:  # a claim of none scores 0 and cannot be challenged
            return self._claim_done()
        s.to_move = 1 - seat
        s.phase = RESPOND

    def accept(self, seat: int) -> None:
        self._expect(seat, RESPOND, "accept")
        s = self.s
        claimant, names = s.claim  # type: ignore[misc]
        s.scores[claimant] += 1 if len(names) == 1 else 3
        self._claim_done()

    def resolve(self, lies: int) -> None:
        """Settle a challenge with the number of lies the match proof disclosed."""
        self._expect(None, PROVE, "resolve")
        s = self.s
        claimant, names = s.claim  # type: ignore[misc]
        if not isinstance(lies, int) or not 0 <= lies <= len(names):
            raise IllegalMove(f"resolve: lies must be 0..{len(names)}, got {lies!r}")
        if lies == 0:
            s.scores[claimant] += 2 if len(names) == 1 else 4
        else:  # a claim with any lie is void; the liar loses, the challenger gains, per lie
            s.scores[claimant] = _floor(s.scores[claimant] - lies)
            s.scores[1 - claimant] += lies
        self._claim_done()

    def _caught_by_timeout(self) -> None:
        self.resolve(len(self.s.claim[1]))  # type: ignore[index]  # every named card counts as a lie

    def _claim_done(self) -> None:
        s = self.s
        s.claim = None
        s.claims_done += 1
        if s.claims_done < 2:
            s.to_move = 1 - s.first_claimer
            s.phase = CLAIM
            return
        # end of round: the race is checked now
        hi = max(s.scores)
        if hi >= s.target and s.scores[0] != s.scores[1]:
            return self._end(s.scores.index(hi), f"reached {s.target} points (checked at the end of the round)")
        if s.round >= FIVE_UP_MAX_ROUNDS:
            if s.scores[0] == s.scores[1]:
                return self._end(None, f"a tie after {FIVE_UP_MAX_ROUNDS} rounds")
            return self._end(s.scores.index(hi), f"the higher score after {FIVE_UP_MAX_ROUNDS} rounds")
        s.phase = DEAL
