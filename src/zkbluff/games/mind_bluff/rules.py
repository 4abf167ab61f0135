"""The rules of Mind Bluff (seed 001) as a public state machine.

Two fixed identities, P1 (seat 0) and P2 (seat 1), play a series: first to two game
wins, at most three games. Each game a bowl of dango is eaten in secret turns; the
remaining count is never public while the game runs (the referee holds it committed),
so this engine holds only what every seat may see: whose turn it is, the claims,
Believe/Doubt, the TRUE/BLUFF verdicts, the honesty debts, the series score.

Everything hidden enters as an action of the party that proves it, carrying only what
its proof disclosed:

* ``StartGame(game, first)`` — the referee opens a game (it has committed the start
  count; game 3's first player is the fair coin its draw proof disclosed);
* ``EatVerdict(ate_last)`` — after a seat's secret ``Eat``, the referee's proof that the
  eat did or did not reach the hidden count;
* ``Claim(amount, proven_equal)`` — ``proven_equal`` says the claim comes with the
  claimant's proof that it equals the committed choice (required exactly while the
  claimant owes honest claims);
* ``DoubtVerdict(truthful)`` — the referee's TRUE/BLUFF proof;
* ``AllDoneVerdict(exactly_one)`` — the referee's proof of whether exactly 1 remains.

The referee's clock enters as ``TimeOut(seat)``: the seat the table waits for (its turn,
its claim, its answer, its draw entropy, its consent) let its time run out, and forfeits
the series (the seed sets no limit; the table's choice, docs/mind-bluff.md "Time limits").

A sealed choice that does not open enters as ``SealComplaint(seat)``: instead of the eat's
verdict, the referee says the eater's sealed choice does not open to its commitment. The
eater answers with ``SealAnswer(key)`` (the spec checks the key opens the box to the
commitment: the referee lied, the series ends on the games won, the referee at fault) or lets its
time run out (``TimeOut``: it forfeits the series). docs/mind-bluff.md "A sealed choice
that does not open".

Nothing here does I/O, cryptography or randomness; illegal actions raise
:class:`IllegalMove` saying why and change nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Optional

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.engine.rules import NO_SEAT, Action, EndCode, Result, Role, Rules

N_SEATS = 2
SEAT_NAMES = ("P1", "P2")


class End(EndCode):
    """Why a Mind Bluff series ended: the end line's reason code under rules ``mind-bluff/1``."""

    WON_SERIES = "won_series"            # a seat won the games the series needs
    TIMEOUT = "timeout"                  # a seat let its time run out: the other wins the series
    SEAL_UNANSWERED = "seal_unanswered"  # a seat did not show its sealed choice opens: the other wins
    REFEREE_FAULT = "referee_fault"      # the referee said a sealed choice does not open, and it opens
    REFEREE_TIMEOUT = "referee_timeout"  # the referee let its time run out (a seat claimed it)


#: the game's end codes (``GameSpec.end_codes``): one table, the words beside them in :data:`END_TEXT`
END_CODES = End
#: the words of each end (``str.format`` fields from :func:`end_text`'s facts): for people, never checked
END_TEXT: dict[End, str] = {
    End.WON_SERIES: "{winner} won the series {score}",
    End.TIMEOUT: "{winner} won the series: {seat} let its time run out (games {score})",
    End.SEAL_UNANSWERED: "{winner} won the series: {seat}'s sealed choice did not open and it did not show that it "
                         "does (games {score})",
    End.REFEREE_FAULT: "the referee is at fault: it said {seat}'s sealed choice does not open, and it opens; the "
                       "series is settled on the games won ({score})",
    End.REFEREE_TIMEOUT: "the referee is at fault: it let its time run out ({seat} claimed it); the series is "
                         "settled on the games won ({score})",
}


def end_text(code: End, **facts: Any) -> str:
    """The words of the end ``code`` (the end line's ``reason``)."""
    return END_TEXT[code].format(**facts)
WINS_NEEDED = 2
MAX_GAMES = 3
OPEN_START = 30                 # games 1 and 2 start with 30 dango, publicly
GAME3_STARTS = (29, 30, 31)     # game 3: uniform, hidden until the game ends
MIN_EAT, MAX_EAT = 1, 3
MIN_CLAIM, MAX_CLAIM = 1, 3


def other(seat: int) -> int:
    return 1 - seat


def fixed_first_player(game: int) -> Optional[int]:
    """Game 1: P1 first; game 2: P2 first; game 3: the fair coin (None here)."""
    return {1: 0, 2: 1}.get(game)


# ------------------------------------------------------------------ pacing (UI data)

@dataclass(frozen=True)
class Pacing:
    """The seed's pauses, in seconds. Two are rules, held by the table (``MindBluffSpec.pause``:
    no seat's line inside them, ``move.paused``): the doubt's 4.5 s and game 3's 10-second
    coin animation. The others only cover a result already final (presentation, a UI's
    data). The rules themselves never wait; each event's ``hold_s`` names its pause."""

    doubt_hold_s: float = 4.5          # Doubt pauses all manual and automatic play
    doubt_voice_s: float = 1.25        # the claimant's voice after "Doubt!"
    coin_animation_s: float = 10.0     # game 3's coin/number animation (count shown "??")
    all_done_suspense_s: float = 3.6   # All done: the result is withheld this long
    all_done_close_s: float = 8.0      # the All-done presentation closes
    end_voice_s: float = 0.7           # one seat's end-of-game voice


PACING = Pacing()


# ------------------------------------------------------------------ phases and actions

class Phase(str, Enum):
    START = "start"                        # the referee: StartGame
    TURN = "turn"                          # the seat to move: Eat or AllDone
    EAT_VERDICT = "eat_verdict"            # the referee: EatVerdict
    CLAIM = "claim"                        # the eater (who survived): Claim
    RESPOND = "respond"                    # the other seat: Believe or Doubt
    DOUBT_VERDICT = "doubt_verdict"        # the referee: DoubtVerdict
    ALL_DONE_VERDICT = "all_done_verdict"  # the referee: AllDoneVerdict
    REVEAL = "reveal"                      # the referee: Reveal (the ended game's truth)
    NEXT_GAME = "next_game"                # every human seat: Consent
    DRAW = "draw"                          # before game 3: each seat reveals its draw entropy
    SERIES_OVER = "series_over"            # the series is decided (Consent: a new series)
    SEAL_ANSWER = "seal_answer"            # the eater: SealAnswer (its sealed choice opens) or its time runs out


@dataclass(frozen=True)
class StartGame(Action):
    """The referee opens game ``game`` with ``first`` to move. Games 1 and 2: the fixed
    order; game 3: the fair coin (the draw proof discloses it with the start committed).
    Game 1's line also publishes the referee's draw commitment and the public key of its
    sealed channel (fields the rules do not read; empty in games 2 and 3)."""

    kind: ClassVar[str] = "start_game"
    role: ClassVar[Role] = Role.REFEREE
    game: int
    first: int
    draw_commitment: str = ""
    channel: str = ""


@dataclass(frozen=True)
class Eat(Action):
    """Eat 1, 2 or 3 dango in secret: the amount is in the seat's committed choice, not here;
    ``sealed`` carries the choice's opening sealed to the referee (the rules do not read it)."""

    kind: ClassVar[str] = "eat"
    role: ClassVar[Role] = Role.SEAT
    sealed: str = ""


@dataclass(frozen=True)
class AllDone(Action):
    """All done (Gochisousama): eat nothing; win iff exactly one dango remains."""

    kind: ClassVar[str] = "all_done"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class EatVerdict(Action):
    """The referee's proven verdict on the last eat: ``ate_last`` (the choice reached the
    remaining count: the eater loses) or survived."""

    kind: ClassVar[str] = "eat_verdict"
    role: ClassVar[Role] = Role.REFEREE
    ate_last: bool


@dataclass(frozen=True)
class Claim(Action):
    """Claim to have eaten ``amount`` (1..3). ``proven_equal``: the claim carries the
    claimant's proof that it equals the committed choice — required exactly while the
    claimant owes honest claims (the claim is then marked forced honest)."""

    kind: ClassVar[str] = "claim"
    role: ClassVar[Role] = Role.SEAT
    amount: int
    proven_equal: bool


@dataclass(frozen=True)
class Believe(Action):
    kind: ClassVar[str] = "believe"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class Doubt(Action):
    kind: ClassVar[str] = "doubt"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class DoubtVerdict(Action):
    """The referee's proven verdict on a doubted claim: TRUE (``truthful``) or BLUFF."""

    kind: ClassVar[str] = "doubt_verdict"
    role: ClassVar[Role] = Role.REFEREE
    truthful: bool


@dataclass(frozen=True)
class AllDoneVerdict(Action):
    """The referee's proven verdict on All done: exactly one dango remains (or 2+)."""

    kind: ClassVar[str] = "all_done_verdict"
    role: ClassVar[Role] = Role.REFEREE
    exactly_one: bool


@dataclass(frozen=True)
class Reveal(Action):
    """The referee's line after a game ends (never before): the game's truth — the start,
    every count commitment's salt, every choice's opening, in game 3 the referee's draw
    entropy — and ``review``, the game's review as canonical JSON. The rules read only
    ``game``; the spec checks the rest against every commitment and verdict."""

    kind: ClassVar[str] = "reveal"
    role: ClassVar[Role] = Role.REFEREE
    game: int
    start: int
    count_salts: tuple[str, ...]
    choices: tuple[int, ...]
    choice_salts: tuple[str, ...]
    referee_entropy: str
    referee_salt: str
    review: str


@dataclass(frozen=True)
class RevealEntropy(Action):
    """Before game 3, a seat reveals the draw entropy it committed before the series (its
    commitment is in the header); the spec checks it opens that commitment."""

    kind: ClassVar[str] = "reveal_entropy"
    role: ClassVar[Role] = Role.SEAT
    entropy: str


@dataclass(frozen=True)
class Consent(Action):
    """A human seat agrees to the next game (or, after the series, to a new series)."""

    kind: ClassVar[str] = "consent"
    role: ClassVar[Role] = Role.SEAT


@dataclass(frozen=True)
class SealComplaint(Action):
    """The referee, instead of the eat's verdict: ``seat``'s sealed choice (on its last eat
    line) does not open under the referee's channel key to the choice it committed. The
    eater answers (:class:`SealAnswer`) within the table's ``proof`` limit, or forfeits."""

    kind: ClassVar[str] = "seal_complaint"
    role: ClassVar[Role] = Role.REFEREE
    seat: int


@dataclass(frozen=True)
class SealAnswer(Action):
    """The accused eater shows its sealed choice opens: ``key``, the X25519 private key (64
    hex digits) of the ephemeral key on its eat line, from which anyone derives the channel
    key, opens the box and checks the opening against the committed choice (the spec's
    check; a key that does not is refused). Accepted, the referee's complaint was false:
    the series ends on the games won (:meth:`MindBluffRules.standing_places`), the referee at fault (the game in progress is abandoned)."""

    kind: ClassVar[str] = "seal_answer"
    role: ClassVar[Role] = Role.SEAT
    key: str


@dataclass(frozen=True)
class TimeOut(Action):
    """The referee's clock: ``seat``, the seat the table waits for, let its time run out.
    It forfeits the series: the other seat wins it at once (the game in progress is
    abandoned, never revealed). Legal exactly while ``seat`` is :attr:`MindBluffRules.to_move`
    in a phase a seat acts in (the deadline itself is the referee's ``clock`` check)."""

    kind: ClassVar[str] = "timeout"
    role: ClassVar[Role] = Role.REFEREE
    seat: int


@dataclass(frozen=True)
class RefereeTimeOut(Action):
    """A seat's claim that the referee let its time run out: the table waited on it (a
    verdict, the reveal, the next game's start) past the header's ``proof`` limit from the
    last line's stamp (the engine checks the claim's own stamp against it:
    ``GameSpec.claimed_wait``). The series ends on the games won, the referee at fault, nobody's
    standing worsened (the game in progress is abandoned). Legal exactly while the table
    waits on the referee in a phase it must answer in (:data:`REFEREE_WAITS`)."""

    kind: ClassVar[str] = "referee_timeout"
    role: ClassVar[Role] = Role.SEAT


ACTIONS: dict[str, type[Action]] = {a.kind: a for a in (
    StartGame, Eat, AllDone, EatVerdict, Claim, Believe, Doubt, DoubtVerdict, AllDoneVerdict, Reveal,
    RevealEntropy, Consent, TimeOut, SealComplaint, SealAnswer, RefereeTimeOut)}

#: which actions the referee (NO_SEAT) takes; all others are a seat's
#: the phases in which the table waits on a seat (a ``TimeOut`` may end the wait)
SEAT_PHASES = frozenset({Phase.TURN, Phase.CLAIM, Phase.RESPOND, Phase.DRAW, Phase.NEXT_GAME, Phase.SEAL_ANSWER})
#: the phases in which the table waits on the referee and a seat may claim its time ran out
#: (:class:`RefereeTimeOut`); START too while a human seat plays (with none, the room owner
#: starts games 1 and 2 when it likes, through the referee), and game 3's START at every
#: table: once both seats revealed their draw entropies the referee knows the draw and owes
#: its line (docs/fairness-draws.md, "Mind Bluff's start draw and coin")
REFEREE_WAITS = frozenset({Phase.EAT_VERDICT, Phase.DOUBT_VERDICT, Phase.ALL_DONE_VERDICT, Phase.REVEAL})


def action_from_data(kind: str, data: object) -> Action:
    """The typed action of a transcript's ``action``/``data`` (MalformedInput if unknown)."""
    if kind not in ACTIONS:
        raise MalformedInput(f"unknown Mind Bluff action {kind!r}; expected one of {sorted(ACTIONS)}")
    return ACTIONS[kind].from_data(data)


# ------------------------------------------------------------------ public history

class EventKind(str, Enum):
    GAME_STARTED = "game_started"      # seat: the first player; start: 30 or None (hidden)
    ATE = "ate"                        # seat ate in secret
    SURVIVED = "survived"
    ATE_LAST = "ate_last"              # the eater took the last dango and loses
    CLAIMED = "claimed"                # amount; forced_honest
    BELIEVED = "believed"
    DOUBTED = "doubted"
    VERDICT = "verdict"                # outcome True = TRUE, False = BLUFF (seat: the claimant)
    ALL_DONE = "all_done"
    ALL_DONE_RESULT = "all_done_result"  # outcome True = exactly one remained (a win)
    GAME_ENDED = "game_ended"          # seat: the winner
    TIMED_OUT = "timed_out"            # seat let its time run out: it forfeits the series
    REFEREE_TIMED_OUT = "referee_timed_out"  # seat claimed the referee's time ran out: the series ends on the games won
    SEAL_COMPLAINT = "seal_complaint"  # the referee: seat's sealed choice does not open
    SEAL_ANSWERED = "seal_answered"    # seat showed its sealed choice opens: the referee is at fault


class EndReason(str, Enum):
    ATE_LAST = "ate_last"              # the loser's eat reached the remaining count
    ALL_DONE_WON = "all_done_won"      # All done with exactly one left: the caller wins
    ALL_DONE_LOST = "all_done_lost"    # All done with two or more left: the caller loses


@dataclass(frozen=True)
class Event:
    """One public event of a game. ``debts`` are both seats' honesty debts after it;
    ``hold_s`` the presentation pause a UI should hold after it (see :data:`PACING`)."""

    game: int
    turn: int
    kind: EventKind
    seat: Optional[int]
    debts: tuple[int, int]
    amount: Optional[int] = None          # CLAIMED
    forced_honest: bool = False           # CLAIMED, and the VERDICT of a forced-honest claim
    outcome: Optional[bool] = None        # VERDICT, ALL_DONE_RESULT
    reason: Optional[EndReason] = None    # GAME_ENDED
    start: Optional[int] = None           # GAME_STARTED: 30, or None while hidden (game 3)
    hold_s: float = 0.0


@dataclass(frozen=True)
class GameRecord:
    """A finished game: its number, first player, winner, reason, and public events."""

    game: int
    first: int
    winner: int
    reason: EndReason
    events: tuple[Event, ...]


@dataclass(frozen=True)
class PendingClaim:
    seat: int
    amount: int
    forced_honest: bool


@dataclass(frozen=True)
class MindBluffState:
    """The public snapshot every seat and spectator may see."""

    phase: Phase
    to_move: Optional[int]
    game: int                      # 1..3 (0 before the first StartGame)
    first: Optional[int]           # who moved first this game
    start: Optional[int]           # the public start count, None while hidden (game 3)
    turn: int                      # eats and All-dones so far this game
    wins: tuple[int, int]
    debts: tuple[int, int]
    claim: Optional[PendingClaim]  # the claim on the table (CLAIM answered, RESPOND/DOUBT_VERDICT)
    events: tuple[Event, ...]      # this game's public history
    games: tuple[GameRecord, ...]  # finished games of the series
    consents: tuple[int, ...]      # human seats that consented in NEXT_GAME / SERIES_OVER
    humans: tuple[bool, bool]
    series_winner: Optional[int]
    timed_out: Optional[int] = None  # the seat whose time ran out (it forfeited the series)
    referee_fault: Optional[int] = None  # the seat the referee falsely accused (the series ends on the games won)
    referee_timed_out: Optional[int] = None  # the seat that claimed the referee's time ran out (settled on the games won)


# ------------------------------------------------------------------ the engine

class MindBluffRules(Rules):
    """One Mind Bluff series. ``humans[i]`` says whether seat i is human-controlled: only
    human seats consent to the next game (a bot never blocks it); with no human seat the
    room owner advances, which is the referee's ``StartGame``."""

    n_seats = N_SEATS

    def __init__(self, humans: tuple[bool, bool] = (True, True)):
        if (not isinstance(humans, tuple) or len(humans) != N_SEATS
                or not all(isinstance(h, bool) for h in humans)):
            raise MalformedInput(f"humans: expected a pair of booleans, got {humans!r}")
        self.humans = humans
        self.phase = Phase.START
        self._to_move: Optional[int] = NO_SEAT
        self.game = 0
        self.first: Optional[int] = None
        self.start: Optional[int] = None
        self.turn = 0
        self.wins = [0, 0]
        self.debts = [0, 0]
        self.claim: Optional[PendingClaim] = None
        self.events: list[Event] = []
        self.games: list[GameRecord] = []
        self.consents: set[int] = set()
        self.series_winner: Optional[int] = None
        self.revealed_entropy: set[int] = set()   # seats that revealed their draw entropy
        self._after_reveal = Phase.START
        self._actor = 0  # the seat whose eat or All done awaits the referee's verdict
        self.timed_out: Optional[int] = None  # the seat that forfeited the series by the clock
        #: the seat whose sealed choice the referee says does not open (SEAL_ANSWER), and
        #: once it showed it opens, the seat the referee falsely accused (the series ends on the games won)
        self.accused: Optional[int] = None
        self.referee_fault: Optional[int] = None
        #: the seat whose claim that the referee let its time run out stands (the series ends on the games won)
        self.referee_timed_out: Optional[int] = None

    # ---- contract
    @property
    def over(self) -> bool:
        return self.phase == Phase.SERIES_OVER

    @property
    def to_move(self) -> Optional[int]:
        """The seat (or NO_SEAT: the referee) the table waits for. In NEXT_GAME and
        SERIES_OVER any human seat that has not consented may act; this names the lowest."""
        if self.phase in (Phase.NEXT_GAME, Phase.SERIES_OVER):
            pending = self._pending_consents()
            return pending[0] if pending else NO_SEAT
        if self.phase == Phase.DRAW:
            return min(set(range(N_SEATS)) - self.revealed_entropy)
        return self._to_move

    @property
    def actor(self) -> int:
        """The seat whose eat or All done awaits the referee's verdict (or answers its complaint)."""
        return self._actor

    @property
    def next_game_number(self) -> int:
        return self.game + 1

    @property
    def new_series_agreed(self) -> bool:
        """After the series: every human seat consented to a fresh series (a new engine)."""
        return self.phase == Phase.SERIES_OVER and not self._pending_consents()

    def _pending_consents(self) -> list[int]:
        return [i for i in range(N_SEATS) if self.humans[i] and i not in self.consents]

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        out: list[Action] = []
        for a in self._candidates(seat):
            try:
                self.check(seat, a)
            except IllegalMove:
                continue
            out.append(a)
        return out

    def _candidates(self, seat: Optional[int]) -> list[Action]:
        p = self.phase
        if p == Phase.START:
            g = self.game + 1
            firsts = [fixed_first_player(g)] if fixed_first_player(g) is not None else [0, 1]
            return [StartGame(g, f) for f in firsts if f is not None]
        if p == Phase.TURN:
            return [Eat(), AllDone()]
        if p == Phase.EAT_VERDICT:
            return [EatVerdict(False), EatVerdict(True), SealComplaint(self._actor)]
        if p == Phase.SEAL_ANSWER:
            return [SealAnswer("")]
        if p == Phase.CLAIM:
            proven = seat is not None and self.debts[seat] > 0
            return [Claim(k, proven) for k in range(MIN_CLAIM, MAX_CLAIM + 1)]
        if p == Phase.RESPOND:
            return [Believe(), Doubt()]
        if p == Phase.DOUBT_VERDICT:
            return [DoubtVerdict(True), DoubtVerdict(False)]
        if p == Phase.ALL_DONE_VERDICT:
            return [AllDoneVerdict(True), AllDoneVerdict(False)]
        if p == Phase.REVEAL:
            return [Reveal(self.game, 0, (), (), (), "", "", "")]
        if p == Phase.DRAW:
            return [RevealEntropy("")]
        return [Consent()]

    def check(self, seat: Optional[int], action: Action) -> None:
        what = getattr(action, "kind", type(action).__name__)
        if not isinstance(action, tuple(ACTIONS.values())):
            raise IllegalMove(f"{what}: not a Mind Bluff action")
        if isinstance(action, TimeOut):
            return self._check_timeout(seat, action)
        if isinstance(action, RefereeTimeOut):
            return self._check_referee_timeout(seat)
        expected_by_phase: dict[Phase, type | tuple[type, ...]] = {
            Phase.START: StartGame, Phase.TURN: (Eat, AllDone), Phase.EAT_VERDICT: (EatVerdict, SealComplaint),
            Phase.SEAL_ANSWER: SealAnswer,
            Phase.CLAIM: Claim, Phase.RESPOND: (Believe, Doubt), Phase.DOUBT_VERDICT: DoubtVerdict,
            Phase.ALL_DONE_VERDICT: AllDoneVerdict, Phase.NEXT_GAME: Consent, Phase.SERIES_OVER: Consent,
            Phase.REVEAL: Reveal, Phase.DRAW: RevealEntropy,
        }
        expected = expected_by_phase[self.phase]
        if not isinstance(action, expected):
            if isinstance(action, AllDone) and self.phase == Phase.CLAIM:
                raise IllegalMove("all_done: unavailable after eating (claim what you ate)")
            raise IllegalMove(f"{what}: not allowed now (the table waits for {self._waiting()})")
        if isinstance(action, Consent):
            if seat is NO_SEAT or seat not in range(N_SEATS):
                raise IllegalMove(f"consent: only a seat consents, not {_who(seat)}")
            if not self.humans[seat]:
                raise IllegalMove(f"consent: seat {seat} is a bot; only human seats consent")
            if seat in self.consents:
                raise IllegalMove(f"consent: seat {seat} has already consented")
            return
        if seat != self.to_move:
            raise IllegalMove(f"{what}: out of turn ({_who(self.to_move)} is to move, not {_who(seat)})")
        if isinstance(action, StartGame):
            self._check_start(action)
        elif isinstance(action, Reveal) and action.game != self.game:
            raise IllegalMove(f"reveal: game {action.game!r}, expected game {self.game}'s")
        elif isinstance(action, SealComplaint) and (isinstance(action.seat, bool) or action.seat != self._actor):
            raise IllegalMove(f"seal_complaint: seat {action.seat!r} did not make the eat awaiting its verdict "
                              f"({_who(self._actor)} did)")
        elif isinstance(action, SealAnswer) and not isinstance(action.key, str):
            raise IllegalMove(f"seal_answer: the key must be a string, got {action.key!r:.40}")
        elif isinstance(action, RevealEntropy) and not isinstance(action.entropy, str):
            raise IllegalMove(f"reveal_entropy: the entropy must be a string, got {action.entropy!r:.40}")
        elif isinstance(action, Claim):
            assert seat is not None  # a claim is a seat's move (checked above)
            self._check_claim(seat, action)

    def _check_timeout(self, seat: Optional[int], a: TimeOut) -> None:
        if seat is not NO_SEAT:
            raise IllegalMove(f"timeout: only the referee's clock times a seat out, not {_who(seat)}")
        if self.phase not in SEAT_PHASES:
            raise IllegalMove(f"timeout: the table waits for {self._waiting()}, no seat's time runs")
        if isinstance(a.seat, bool) or a.seat != self.to_move:
            raise IllegalMove(f"timeout: seat {a.seat!r} is not the seat the table waits for ({_who(self.to_move)})")

    def referee_waited(self) -> bool:
        """Whether the table waits on the referee in a phase it must answer in: a verdict, a
        reveal, a start while a human seat plays, and game 3's start once the seats have
        revealed their draw entropies (at a table of bot seats too: from the last reveal the
        referee knows game 3's start and coin, and a stall there must be its fault, settled
        on the games won, never a wait with no end)."""
        drawn = self.next_game_number == MAX_GAMES and len(self.revealed_entropy) == N_SEATS
        return not self.over and self.to_move is NO_SEAT and (
            self.phase in REFEREE_WAITS or (self.phase == Phase.START and (any(self.humans) or drawn)))

    def _check_referee_timeout(self, seat: Optional[int]) -> None:
        if seat is NO_SEAT or isinstance(seat, bool) or seat not in range(N_SEATS):
            raise IllegalMove(f"referee_timeout: a seat's claim, not {_who(seat)}'s")
        if not self.referee_waited():
            raise IllegalMove(f"referee_timeout: the table waits for {self._waiting()}, not on the referee")

    def _check_start(self, a: StartGame) -> None:
        g = self.game + 1
        if isinstance(a.game, bool) or not isinstance(a.game, int) or a.game != g:
            raise IllegalMove(f"start_game: game {a.game!r}, expected game {g}")
        if isinstance(a.first, bool) or a.first not in (0, 1):
            raise IllegalMove(f"start_game: first must be seat 0 or 1, got {a.first!r}")
        fixed = fixed_first_player(g)
        if fixed is not None and a.first != fixed:
            raise IllegalMove(f"start_game: game {g} is opened by {SEAT_NAMES[fixed]}, not {SEAT_NAMES[a.first]}")

    def _check_claim(self, seat: int, a: Claim) -> None:
        if isinstance(a.amount, bool) or not isinstance(a.amount, int) or not MIN_CLAIM <= a.amount <= MAX_CLAIM:
            raise IllegalMove(f"claim: the amount must be {MIN_CLAIM}..{MAX_CLAIM}, got {a.amount!r}")
        if not isinstance(a.proven_equal, bool):
            raise IllegalMove(f"claim: proven_equal must be a bool, got {a.proven_equal!r}")
        owes = self.debts[seat]
        if owes > 0 and not a.proven_equal:
            raise IllegalMove(f"claim: {SEAT_NAMES[seat]} owes {owes} honest claim(s): the claim must be "
                              "proven equal to the committed choice")
        if owes == 0 and a.proven_equal:
            raise IllegalMove(f"claim: {SEAT_NAMES[seat]} owes no honest claim; a free claim carries no proof")

    def _waiting(self) -> str:
        return f"{self.phase.value} by {_who(self.to_move)}"

    # ---- transitions
    def _apply(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, StartGame):
            self._start(action)
        elif isinstance(action, Eat):
            self.turn += 1
            self._log(EventKind.ATE, seat)
            self.phase, self._to_move = Phase.EAT_VERDICT, NO_SEAT
            assert seat is not None  # checked: a seat's own move
            self._actor = seat
        elif isinstance(action, EatVerdict):
            eater = self._actor
            if action.ate_last:
                self._log(EventKind.ATE_LAST, eater)
                self._end_game(other(eater), EndReason.ATE_LAST)  # debt is not consumed
            else:
                self._log(EventKind.SURVIVED, eater)
                self.phase, self._to_move = Phase.CLAIM, eater
        elif isinstance(action, Claim):
            assert seat is not None
            forced = self.debts[seat] > 0
            if forced:
                self.debts[seat] -= 1  # an honest claim while in debt pays one
            self.claim = PendingClaim(seat, action.amount, forced)
            self._log(EventKind.CLAIMED, seat, amount=action.amount, forced_honest=forced)
            self.phase, self._to_move = Phase.RESPOND, other(seat)
        elif isinstance(action, Believe):
            self._log(EventKind.BELIEVED, seat)
            self._next_turn(seat)  # type: ignore[arg-type]
        elif isinstance(action, Doubt):
            assert self.claim is not None
            self._log(EventKind.DOUBTED, seat, hold_s=PACING.doubt_hold_s)
            if self.claim.forced_honest:
                # already proven equal at claim time: TRUE without a new proof
                self._verdict(True)
            else:
                self.phase, self._to_move = Phase.DOUBT_VERDICT, NO_SEAT
        elif isinstance(action, DoubtVerdict):
            self._verdict(action.truthful)
        elif isinstance(action, AllDone):
            self.turn += 1
            self._log(EventKind.ALL_DONE, seat)
            assert seat is not None  # checked: a seat's own move
            self._actor = seat
            self.phase, self._to_move = Phase.ALL_DONE_VERDICT, NO_SEAT
        elif isinstance(action, AllDoneVerdict):
            caller = self._actor
            self._log(EventKind.ALL_DONE_RESULT, caller, outcome=action.exactly_one,
                      hold_s=PACING.all_done_suspense_s)
            if action.exactly_one:
                self._end_game(caller, EndReason.ALL_DONE_WON)
            else:
                self._end_game(other(caller), EndReason.ALL_DONE_LOST)
        elif isinstance(action, Reveal):
            self.phase = self._after_reveal
            if self.phase == Phase.START:
                self._open_next()
        elif isinstance(action, RevealEntropy):
            assert seat is not None
            self.revealed_entropy.add(seat)
            if len(self.revealed_entropy) == N_SEATS:
                self.phase, self._to_move = Phase.START, NO_SEAT
        elif isinstance(action, SealComplaint):
            self._log(EventKind.SEAL_COMPLAINT, action.seat)
            self.accused = action.seat
            self.phase, self._to_move = Phase.SEAL_ANSWER, action.seat
        elif isinstance(action, SealAnswer):
            self._log(EventKind.SEAL_ANSWERED, seat)
            self.referee_fault = seat
            self.claim = None
            self.consents = set()
            self._to_move = NO_SEAT
            self.phase = Phase.SERIES_OVER
        elif isinstance(action, RefereeTimeOut):
            self._log(EventKind.REFEREE_TIMED_OUT, seat)
            self.referee_timed_out = seat
            self.claim = None
            self.consents = set()
            self._to_move = NO_SEAT
            self.phase = Phase.SERIES_OVER
        elif isinstance(action, TimeOut):
            self._log(EventKind.TIMED_OUT, action.seat)
            self.timed_out = action.seat
            self.series_winner = other(action.seat)
            self.claim = None
            self.consents = set()
            self._to_move = NO_SEAT
            self.phase = Phase.SERIES_OVER
        elif isinstance(action, Consent):
            assert seat is not None
            self.consents.add(seat)
            if self.phase == Phase.NEXT_GAME and not self._pending_consents():
                self._open_next()

    def _open_next(self) -> None:
        """The next game opens (the referee's StartGame); before game 3, each seat first
        reveals its draw entropy."""
        self._to_move = NO_SEAT
        self.phase = Phase.DRAW if self.next_game_number == MAX_GAMES else Phase.START

    def _start(self, a: StartGame) -> None:
        self.game = a.game
        self.first = a.first
        self.start = OPEN_START if a.game < MAX_GAMES else None
        self.turn = 0
        self.debts = [0, 0]     # debt and history reset per game
        self.events = []
        self.claim = None
        self.consents = set()
        hold = PACING.coin_animation_s if a.game == MAX_GAMES else 0.0
        self._log(EventKind.GAME_STARTED, a.first, start=self.start, hold_s=hold)
        self.phase, self._to_move = Phase.TURN, a.first

    def _verdict(self, truthful: bool) -> None:
        c = self.claim
        assert c is not None
        challenger = other(c.seat)
        if truthful:
            self.debts[challenger] += 1  # TRUE (also: doubting a forced-honest claim)
        else:
            self.debts[c.seat] += 1      # BLUFF
        self._log(EventKind.VERDICT, c.seat, amount=c.amount, forced_honest=c.forced_honest, outcome=truthful)
        self._next_turn(challenger)

    def _next_turn(self, seat: int) -> None:
        self.claim = None
        self.phase, self._to_move = Phase.TURN, seat

    def _end_game(self, winner: int, reason: EndReason) -> None:
        self.wins[winner] += 1
        self._log(EventKind.GAME_ENDED, winner, reason=reason, start=self.start)
        assert self.first is not None
        self.games.append(GameRecord(self.game, self.first, winner, reason, tuple(self.events)))
        self.claim = None
        self.consents = set()
        self._to_move = NO_SEAT
        self.phase = Phase.REVEAL  # the referee reveals the game's truth first (never before the end)
        if self.wins[winner] >= WINS_NEEDED:
            self.series_winner = winner
            self._after_reveal = Phase.SERIES_OVER
        elif self._pending_consents():
            self._after_reveal = Phase.NEXT_GAME
        else:
            self._after_reveal = Phase.START  # no human seat: the room owner (referee) advances

    def _log(self, kind: EventKind, seat: Optional[int], **kw: Any) -> None:
        self.events.append(Event(self.game, self.turn, kind, seat, (self.debts[0], self.debts[1]), **kw))

    # ---- views
    def public_state(self) -> MindBluffState:
        return MindBluffState(
            phase=self.phase, to_move=self.to_move, game=self.game, first=self.first, start=self.start,
            turn=self.turn, wins=(self.wins[0], self.wins[1]), debts=(self.debts[0], self.debts[1]),
            claim=self.claim, events=tuple(self.events), games=tuple(self.games),
            consents=tuple(sorted(self.consents)), humans=self.humans, series_winner=self.series_winner,
            timed_out=self.timed_out, referee_fault=self.referee_fault, referee_timed_out=self.referee_timed_out)

    def standing_places(self) -> tuple[int, int]:
        """The places if the series were settled on the games won now: what a referee at
        fault settles it on (it holds no seat; a void, every seat placed 1, let a referee
        that stalled while its side trailed turn the leader's lead into a draw)."""
        a, b = self.wins
        return (1, 1) if a == b else ((1, 2) if a > b else (2, 1))

    def result(self) -> Optional[Result]:
        wins = (self.wins[0], self.wins[1])
        if self.over and self.referee_fault is not None:  # settled on the games won: nobody gains by the spoil
            return Result(self.standing_places(), wins, end_text(End.REFEREE_FAULT, seat=SEAT_NAMES[
                self.referee_fault], score=f"{wins[0]}–{wins[1]}"), code=End.REFEREE_FAULT.value)
        if self.over and self.referee_timed_out is not None:  # settled on the games won: the referee stalled
            return Result(self.standing_places(), wins, end_text(End.REFEREE_TIMEOUT, seat=SEAT_NAMES[
                self.referee_timed_out], score=f"{wins[0]}–{wins[1]}"), code=End.REFEREE_TIMEOUT.value)
        if not self.over or self.series_winner is None:
            return None
        w = self.series_winner
        placements = tuple(1 if i == w else 2 for i in range(N_SEATS))
        score = f"{self.wins[w]}–{self.wins[other(w)]}"
        code = End.WON_SERIES if self.timed_out is None else \
            End.SEAL_UNANSWERED if self.timed_out == self.accused else End.TIMEOUT
        seat = None if self.timed_out is None else SEAT_NAMES[self.timed_out]
        return Result(placements, wins, end_text(code, winner=SEAT_NAMES[w], seat=seat, score=score),
                      code=code.value)


def _who(seat: Optional[int]) -> str:
    return "the referee" if seat is NO_SEAT else (SEAT_NAMES[seat] if seat in (0, 1) else f"seat {seat!r}")
