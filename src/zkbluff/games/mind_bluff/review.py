"""The post-game review and Truth Replay, as data.

After a game ends (never before) the referee reveals its start, the salt of every count
commitment and every choice's opening (:class:`GameReveal`). :func:`check_reveal` is a
pure check that the reveal opens every commitment the table saw (:class:`GameCommitments`)
and agrees with every verdict the rules recorded — survived / ate the last, TRUE/BLUFF,
forced-honest claims, the All-done result, game 3's draw and coin. :func:`build_review`
then joins the rules' public events with the revealed truth: one :class:`TurnReview` per
turn (actual choice, claim, response, verdict, debt changes, the count before and after)
and the end reason; :func:`truth_replay` reconstructs the game event by event with the
actual count visible.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, OutcomeMismatch
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.games.mind_bluff.bowl import after_eat, check_start, eat_reaches
from zkbluff.games.mind_bluff.rules import MAX_GAMES, EndReason, Event, EventKind, GameRecord, MindBluffRules
from zkbluff.statements.values import start_draw_native


@dataclass(frozen=True)
class ChoiceOpening:
    """A seat's secret eat and its salt (sealed to the referee; revealed after the game)."""

    choice: int
    salt: int

    @property
    def commitment(self) -> int:
        return commit(self.choice, self.salt)


@dataclass(frozen=True)
class GameReveal:
    """What the referee discloses after a game (never before): the start and every count
    commitment's salt, every choice's opening, and in game 3 its draw entropy."""

    game: int
    start: int
    count_salts: tuple[int, ...]            # start commitment's salt, then one per eat
    openings: tuple[ChoiceOpening, ...]
    referee_entropy: Optional[int] = None
    referee_salt: Optional[int] = None

    def to_json(self) -> dict[str, Any]:
        """Field elements as decimal strings (as snarkjs writes public inputs)."""
        return {"game": self.game, "start": self.start, "countSalts": [str(x) for x in self.count_salts],
                "choices": [{"choice": o.choice, "salt": str(o.salt)} for o in self.openings],
                "refereeEntropy": None if self.referee_entropy is None else str(self.referee_entropy),
                "refereeSalt": None if self.referee_salt is None else str(self.referee_salt)}

    @classmethod
    def from_json(cls, obj: Any) -> "GameReveal":
        """Strict: every field present with its type; MalformedInput otherwise."""
        keys = {"game", "start", "countSalts", "choices", "refereeEntropy", "refereeSalt"}
        if not isinstance(obj, dict) or set(obj) != keys:
            raise MalformedInput(f"reveal: expected an object with {sorted(keys)}")
        choices = obj["choices"]
        if not isinstance(choices, list) or not all(isinstance(c, dict) and set(c) == {"choice", "salt"}
                                                    for c in choices):
            raise MalformedInput("reveal: choices must be a list of {choice, salt}")
        def opt(v: Any, w: str) -> Optional[int]:
            return None if v is None else _field(v, w)

        return cls(_small(obj["game"], "game"), _small(obj["start"], "start"),
                   tuple(_field(x, "count salt") for x in _list(obj["countSalts"], "countSalts")),
                   tuple(ChoiceOpening(_small(c["choice"], "choice"), _field(c["salt"], "choice salt"))
                         for c in choices),
                   opt(obj["refereeEntropy"], "referee entropy"), opt(obj["refereeSalt"], "referee salt"))


def _small(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise MalformedInput(f"reveal: {what} must be an integer, got {v!r:.40}")
    return v


def _list(v: Any, what: str) -> list[Any]:
    if not isinstance(v, list):
        raise MalformedInput(f"reveal: {what} must be a list")
    return v


def _field(v: Any, what: str) -> int:
    if not (isinstance(v, str) and v.isdigit() and len(v) <= 78 and int(v) < r):
        raise MalformedInput(f"reveal: {what} must be a decimal string below r, got {v!r:.40}")
    return int(v)


@dataclass
class GameCommitments:
    """The public commitments of one game as a client saw them: the start commitment, each
    eat's choice commitment and the count commitment after it."""

    game: int
    start_commitment: int = 0
    choice_commitments: list[int] = field(default_factory=list)
    count_commitments: list[int] = field(default_factory=list)   # after each eat
    referee_commitment: Optional[int] = None                     # game 3
    seat_entropies: Optional[tuple[int, int]] = None              # game 3


@dataclass(frozen=True)
class TurnReview:
    """One turn with its truth. ``action`` is "eat" or "all_done"."""

    turn: int
    seat: int
    action: str
    remaining_before: int
    remaining_after: int
    choice: Optional[int] = None
    ate_last: Optional[bool] = None
    claim: Optional[int] = None
    forced_honest: bool = False
    response: Optional[str] = None          # "believe" / "doubt"
    verdict: Optional[str] = None           # "TRUE" / "BLUFF"
    debts_before: tuple[int, int] = (0, 0)
    debts_after: tuple[int, int] = (0, 0)
    all_done_won: Optional[bool] = None


@dataclass(frozen=True)
class GameReview:
    game: int
    first: int
    start: int
    winner: int
    end_reason: EndReason
    turns: tuple[TurnReview, ...]

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["end_reason"] = self.end_reason.value
        for t in out["turns"]:
            t["debts_before"], t["debts_after"] = list(t["debts_before"]), list(t["debts_after"])
        return out


def finished_game(rules: MindBluffRules, game: int) -> GameRecord:
    """The record of a finished game; the review of a running game does not exist."""
    for g in rules.games:
        if g.game == game:
            return g
    raise IllegalMove(f"review: game {game} has not ended; the review is unavailable before the game ends")


def check_reveal(record: GameRecord, commitments: GameCommitments, reveal: GameReveal) -> tuple[int, ...]:
    """Raise :class:`CommitmentMismatch` if the reveal does not open the game's commitments,
    :class:`OutcomeMismatch` if the truth contradicts a recorded verdict; return the count
    before each eat."""
    if not isinstance(reveal, GameReveal) or reveal.game != record.game or commitments.game != record.game:
        raise MalformedInput(f"reveal: expected game {record.game}'s reveal and commitments")
    try:
        check_start(record.game, reveal.start)
    except MalformedInput as exc:
        raise OutcomeMismatch(str(exc)) from None
    eats = [e for e in record.events if e.kind == EventKind.ATE]
    n = len(eats)
    if not (len(reveal.openings) == len(commitments.choice_commitments) == n
            and len(reveal.count_salts) == n + 1 and len(commitments.count_commitments) == n):
        raise MalformedInput(f"reveal: {n} eats need {n} openings and {n + 1} count salts, got "
                             f"{len(reveal.openings)} and {len(reveal.count_salts)}")
    if commit(reveal.start, reveal.count_salts[0]) != commitments.start_commitment:
        raise CommitmentMismatch(f"game {record.game}: the revealed start does not open the start commitment")
    if record.game == MAX_GAMES:
        if reveal.referee_entropy is None or reveal.referee_salt is None or commitments.seat_entropies is None:
            raise MalformedInput("reveal: game 3 needs the referee's entropy and the seats' entropies")
        if commit(reveal.referee_entropy, reveal.referee_salt) != commitments.referee_commitment:
            raise CommitmentMismatch("game 3: the revealed entropy does not open the referee's commitment")
        if start_draw_native(reveal.referee_entropy, commitments.seat_entropies) != (reveal.start, record.first):
            raise OutcomeMismatch("game 3: the draw of the entropies does not give this start and coin")
    for i, (o, c) in enumerate(zip(reveal.openings, commitments.choice_commitments)):
        if o.commitment != c:
            raise CommitmentMismatch(f"eat {i + 1}: the revealed choice does not open its commitment")
    remaining, before, k, choice = reveal.start, [], -1, 0
    for e in record.events:
        if e.kind == EventKind.ATE:
            k += 1
            choice = reveal.openings[k].choice
            before.append(remaining)
            last = eat_reaches(choice, remaining)
            remaining = after_eat(choice, remaining)
            if commit(remaining, reveal.count_salts[k + 1]) != commitments.count_commitments[k]:
                raise CommitmentMismatch(f"eat {k + 1}: the revealed count does not open its commitment")
        elif e.kind in (EventKind.SURVIVED, EventKind.ATE_LAST):
            if (e.kind == EventKind.ATE_LAST) != last:
                raise OutcomeMismatch(f"turn {e.turn}: the verdict {e.kind.value} contradicts the revealed choice "
                                      f"{choice} against {before[-1]} remaining")
        elif e.kind == EventKind.CLAIMED and e.forced_honest and e.amount != choice:
            raise OutcomeMismatch(f"turn {e.turn}: a forced-honest claim of {e.amount}, the choice was {choice}")
        elif e.kind == EventKind.VERDICT and e.outcome != (e.amount == choice):
            raise OutcomeMismatch(f"turn {e.turn}: the verdict {'TRUE' if e.outcome else 'BLUFF'} contradicts "
                                  f"the claim {e.amount} and the choice {choice}")
        elif e.kind == EventKind.ALL_DONE_RESULT and e.outcome != (remaining == 1):
            raise OutcomeMismatch(f"turn {e.turn}: the All-done result contradicts {remaining} remaining")
    return tuple(before)


def _with_truth(record: GameRecord, reveal: GameReveal) -> list[tuple[Event, int, Optional[int]]]:
    """Each public event of a game (its reveal already checked) with the truth after it: the
    actual count, and the actual choice of the turn's eat (None on an All-done turn). The
    review and the Truth Replay are both read off this one walk."""
    remaining, k, choice = reveal.start, -1, None
    out: list[tuple[Event, int, Optional[int]]] = []
    for e in record.events:
        if e.kind == EventKind.ATE:
            k += 1
            choice = reveal.openings[k].choice
            remaining = after_eat(choice, remaining)
        elif e.kind == EventKind.ALL_DONE:
            choice = None
        out.append((e, remaining, choice))
    return out


def build_review(record: GameRecord, commitments: GameCommitments, reveal: GameReveal) -> GameReview:
    """The review of a finished game (checked first: a reveal that does not open the
    commitments or contradicts a verdict raises): one :class:`TurnReview` per turn."""
    check_reveal(record, commitments, reveal)
    turns: list[TurnReview] = []
    cur: dict[str, Any] = {}
    before, debts = reveal.start, (0, 0)

    def close() -> None:
        if cur:
            turns.append(TurnReview(**cur, debts_after=debts))
            cur.clear()

    for e, remaining, choice in _with_truth(record, reveal):
        if e.kind in (EventKind.ATE, EventKind.ALL_DONE):
            close()
            cur.update(turn=e.turn, seat=e.seat, remaining_before=before, debts_before=debts, remaining_after=remaining,
                       action="eat" if e.kind == EventKind.ATE else "all_done")
            if e.kind == EventKind.ATE:
                cur["choice"] = choice
        elif e.kind in (EventKind.SURVIVED, EventKind.ATE_LAST):
            cur["ate_last"] = e.kind == EventKind.ATE_LAST
        elif e.kind == EventKind.CLAIMED:
            cur.update(claim=e.amount, forced_honest=e.forced_honest)
        elif e.kind in (EventKind.BELIEVED, EventKind.DOUBTED):
            cur["response"] = "believe" if e.kind == EventKind.BELIEVED else "doubt"
        elif e.kind == EventKind.VERDICT:
            cur["verdict"] = "TRUE" if e.outcome else "BLUFF"
        elif e.kind == EventKind.ALL_DONE_RESULT:
            cur["all_done_won"] = e.outcome
        debts, before = e.debts, remaining
    close()
    return GameReview(record.game, record.first, reveal.start, record.winner, record.reason, tuple(turns))


@dataclass(frozen=True)
class ReplayFrame:
    """One step of the Truth Replay: the public event and the truth behind it."""

    turn: int
    kind: str
    seat: Optional[int]
    remaining: int            # the actual count after this step
    choice: Optional[int]     # the actual choice of the turn's eat, once eaten
    debts: tuple[int, int]
    text: str


def truth_replay(record: GameRecord, commitments: GameCommitments, reveal: GameReveal,
                 names: tuple[str, str] = ("P1", "P2")) -> tuple[ReplayFrame, ...]:
    """The game event by event with the actual count visible (after the reveal check)."""
    from zkbluff.games.mind_bluff.text import describe

    check_reveal(record, commitments, reveal)
    return tuple(ReplayFrame(e.turn, e.kind.value, e.seat, remaining, choice, e.debts,
                             describe(e, names, truth={"remaining": remaining, "choice": choice, "start": reveal.start}))
                 for e, remaining, choice in _with_truth(record, reveal))


def series_review_json(reviews: list[GameReview], reveals: list[GameReveal], names: tuple[str, str],
                       result_reason: Optional[str]) -> dict[str, Any]:
    """The downloadable review of a series: each finished game's review and reveal (so a
    reader can re-run :func:`check_reveal` against the transcript's commitments), the
    players' display names and the result."""
    if len(reviews) != len(reveals) or any(rv.game != rl.game for rv, rl in zip(reviews, reveals)):
        raise MalformedInput("series review: one reveal per reviewed game, in order")
    return {"game": "mind-bluff", "players": list(names), "result": result_reason,
            "games": [{"review": rv.to_json(), "reveal": rl.to_json()} for rv, rl in zip(reviews, reveals)]}
