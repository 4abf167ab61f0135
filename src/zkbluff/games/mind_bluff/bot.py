"""Mind Bluff bots: policies that see only their seat's view (the public state, their own
choices this game, their legal moves), never the count or the opponent's choices.

* :class:`RandomBot` picks uniformly among its legal moves (and eats 1..3 uniformly).
* :class:`HouseBot` keeps a belief over the remaining count, built from the start (30,
  or uniform over 29..31 in game 3), its own eats, the opponent's claims weighted by how
  honest it thinks they are, the TRUE/BLUFF verdicts and the "survived" verdicts; it
  calls All done when exactly one is likely, eats to leave the opponent a losing count
  (1 more than a multiple of 4, from 5), wary of eating the last, lies now and then, and
  doubts claims that are unlikely.

A :class:`Persona` is data — a display name, tendencies (honesty, doubting, nerve for All
done) and tone (short lines) — never rules or access: it only tunes the same policy.
Names and dialogue are untrusted text: at most 100 characters, no control characters.
"""
from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, field
from typing import Optional, TypeVar

from zkbluff.errors import MalformedInput
from zkbluff.games.mind_bluff.rules import (
    GAME3_STARTS, MAX_CLAIM, MAX_EAT, MIN_CLAIM, MIN_EAT, AllDone, Believe, Claim, Doubt, Eat, Event,
    EventKind, MindBluffState, Phase,
)
from zkbluff.games.engine.rules import Action

#: a belief's outcome: a count, or a (count, choice) pair
K = TypeVar("K")
MAX_TEXT = 100


def check_display_text(text: object, what: str = "text") -> str:
    """Untrusted display text (a name, a line of dialogue): a string of at most 100
    characters with no control characters; else :class:`MalformedInput`."""
    if not isinstance(text, str):
        raise MalformedInput(f"{what}: expected a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise MalformedInput(f"{what}: at most {MAX_TEXT} characters, got {len(text)}")
    bad = [c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
    if bad:
        raise MalformedInput(f"{what}: control characters are not allowed, got {bad[0]!r}")
    return text


@dataclass(frozen=True)
class Persona:
    """Tendencies and tone. ``honesty``: how often a free claim is true; ``doubt``: how
    readily it doubts; ``nerve``: how sure it must be that exactly one remains before All
    done (lower = bolder). ``lines`` maps an event kind's value to a line of dialogue."""

    name: str = "House Bot"
    honesty: float = 0.65
    doubt: float = 0.5
    nerve: float = 0.55
    lines: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        check_display_text(self.name, "persona name")
        for key, line in self.lines:
            check_display_text(key, "persona line key")
            check_display_text(line, f"persona line {key!r}")
        for attr in ("honesty", "doubt", "nerve"):
            v = getattr(self, attr)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise MalformedInput(f"persona {attr}: expected a number in 0..1, got {v!r}")

    def line(self, kind: str) -> Optional[str]:
        return dict(self.lines).get(kind)

    @classmethod
    def from_data(cls, obj: object) -> "Persona":
        """A persona from untrusted JSON data: ``name`` (text), optional ``honesty``,
        ``doubt``, ``nerve`` (numbers in 0..1) and ``lines`` (event kind -> text); any other
        key, or a value of another type, is refused (:class:`MalformedInput`). A persona
        file can tune tendencies and tone, nothing else."""
        allowed = {"name", "honesty", "doubt", "nerve", "lines"}
        if not isinstance(obj, dict) or "name" not in obj or not set(obj) <= allowed:
            raise MalformedInput(f"persona: expected an object with name and optionally "
                                 f"{sorted(allowed - {'name'})}, got {sorted(obj) if isinstance(obj, dict) else obj!r:.60}")
        lines = obj.get("lines", {})
        if not isinstance(lines, dict) or len(lines) > 32:
            raise MalformedInput("persona lines: expected an object of at most 32 entries")
        default = cls()
        return cls(obj["name"], obj.get("honesty", default.honesty), obj.get("doubt", default.doubt),
                   obj.get("nerve", default.nerve), tuple(sorted(lines.items())))


PERSONAS = {
    "house": Persona(),
    "honest-hana": Persona("Honest Hana", honesty=0.9, doubt=0.35, nerve=0.6,
                           lines=(("won", "Thank you for the meal!"), ("doubted", "I only ever tell the truth."))),
    "sly-jiro": Persona("Sly Jiro", honesty=0.45, doubt=0.65, nerve=0.5,
                        lines=(("won", "Too easy."), ("doubted", "Prove it, then."))),
}


@dataclass(frozen=True)
class SeatView:
    """What a seat may see: the public state, its own choices this game (in order), and its
    legal moves (with its own choice known: in debt, only the honest claim)."""

    seat: int
    state: MindBluffState
    my_choices: tuple[int, ...]
    legal: tuple[Action, ...]


@dataclass(frozen=True)
class Move:
    """A decision: the action, and for ``Eat`` the secret choice 1..3."""

    action: Action
    choice: Optional[int] = None


def seat_legal(state_legal: list[Action], state: MindBluffState, seat: int, my_choices: tuple[int, ...]) -> tuple[Action, ...]:
    """The rules' legal actions narrowed by what the seat knows: in debt, the one claim
    it can prove (its own last choice)."""
    if state.phase == Phase.CLAIM and state.debts[seat] > 0:
        return tuple(a for a in state_legal if isinstance(a, Claim) and a.amount == my_choices[-1])
    return tuple(state_legal)


class RandomBot:
    """A uniformly random legal player."""

    persona = Persona("Random", 0.5, 0.5, 0.5)

    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def act(self, view: SeatView) -> Move:
        a = self.rng.choice(view.legal)
        return Move(a, self.rng.randint(MIN_EAT, MAX_EAT) if isinstance(a, Eat) else None)


# ------------------------------------------------------------------ the house bot

def _losing_for_mover(n: int) -> bool:
    """With full information, the player to move at ``n`` loses iff n ≡ 1 (mod 4), n ≥ 5
    (every eat leaves 2..4, from which the next player leaves exactly 1)."""
    return n >= 5 and n % 4 == 1


def _leave_value(n: int) -> float:
    """How good it is to leave the opponent ``n`` dango: a full-information heuristic,
    softened because the opponent does not know the count either."""
    if n == 1:
        return 0.35      # they may call All done
    if n <= 4:
        return 0.4       # they can leave us exactly one
    return 0.75 if _losing_for_mover(n) else 0.5


RISK_AVERSION = 0.3  # eating the last loses for sure; an estimate of a position does not


@dataclass
class Belief:
    """A distribution over the remaining count, and while an opponent's eat is unresolved,
    a joint distribution over (count before their eat, their choice)."""

    dist: dict[int, float] = field(default_factory=dict)
    joint: Optional[dict[tuple[int, int], float]] = None

    @staticmethod
    def _norm(d: dict[K, float]) -> dict[K, float]:
        s = sum(d.values())
        return {k: v / s for k, v in d.items() if v > 0} if s > 0 else d

    def settle(self) -> None:
        if self.joint is not None:
            out: dict[int, float] = {}
            for (r, x), p in self.joint.items():
                out[r - x] = out.get(r - x, 0.0) + p
            self.dist = self._norm(out)
            self.joint = None


class HouseBot:
    """The house's policy (see the module docstring); deterministic for a given seed."""

    def __init__(self, seed: Optional[int] = None, persona: Persona = PERSONAS["house"]):
        self.rng = random.Random(seed)
        self.persona = persona
        self._opp_honesty = 0.6  # prior on how often the opponent's free claims are true
        self._opp_true = 1.0
        self._opp_seen = 1.6
        self._counted: set[tuple[int, int]] = set()  # verdicts already learnt from

    # belief from the public events and my own choices
    def belief(self, view: SeatView) -> Belief:
        s = view.state
        b = Belief({s.start: 1.0} if s.start is not None else {g: 1 / 3 for g in GAME3_STARTS})
        mine = iter(view.my_choices)
        eater: Optional[int] = None
        h = self._opp_true / self._opp_seen
        for ev in s.events:
            if ev.kind == EventKind.ATE:
                b.settle()
                eater = ev.seat
                if ev.seat == view.seat:
                    x = next(mine)
                    b.joint = {(r, x): p for r, p in b.dist.items()}
                else:
                    b.joint = {(r, x): p / 3 for r, p in b.dist.items() for x in range(MIN_EAT, MAX_EAT + 1)}
            elif ev.kind == EventKind.SURVIVED and b.joint is not None:
                b.joint = Belief._norm({(r, x): p for (r, x), p in b.joint.items() if x < r})
            elif ev.kind == EventKind.CLAIMED and b.joint is not None and eater != view.seat:
                c = ev.amount
                if ev.forced_honest:
                    b.joint = Belief._norm({k: p for k, p in b.joint.items() if k[1] == c})
                else:
                    b.joint = Belief._norm({(r, x): p * (h if x == c else (1 - h) / 2)
                                            for (r, x), p in b.joint.items()})
            elif ev.kind == EventKind.VERDICT and b.joint is not None and eater != view.seat:
                said, upheld = ev.amount, bool(ev.outcome)
                b.joint = Belief._norm({k: p for k, p in b.joint.items() if (k[1] == said) == upheld})
        b.settle()
        return b

    def _learn(self, view: SeatView) -> None:
        """Track the opponent's observed honesty (doubted verdicts), across games."""
        for ev in view.state.events:
            if ev.kind == EventKind.VERDICT and ev.seat != view.seat and not ev.forced_honest:
                key = (ev.game, ev.turn)
                if key not in self._counted:
                    self._counted.add(key)
                    self._opp_seen += 1
                    self._opp_true += 1 if ev.outcome else 0

    def act(self, view: SeatView) -> Move:
        legal = view.legal
        phase = view.state.phase
        if len(legal) == 1 and phase not in (Phase.TURN,):
            return Move(legal[0])
        self._learn(view)
        if phase == Phase.TURN:
            return self._turn(view)
        if phase == Phase.CLAIM:
            return Move(self._claim(view))
        if phase == Phase.RESPOND:
            return Move(self._respond(view))
        return Move(legal[0])

    def _turn(self, view: SeatView) -> Move:
        b = self.belief(view).dist
        p_one = b.get(1, 0.0)
        if p_one >= self.persona.nerve + self.rng.uniform(-0.05, 0.05):
            return Move(AllDone())
        best, best_v = 1, -1.0
        for x in range(MIN_EAT, MAX_EAT + 1):
            v = sum(p * (-RISK_AVERSION if x >= r else _leave_value(r - x)) for r, p in b.items())
            v += self.rng.uniform(0, 0.03)
            if v > best_v:
                best, best_v = x, v
        return Move(Eat(), best)

    def _claim(self, view: SeatView) -> Action:
        mine = view.my_choices[-1]
        if view.state.debts[view.seat] > 0:
            return Claim(mine, True)
        if self.rng.random() < self.persona.honesty:
            return Claim(mine, False)
        return Claim(self.rng.choice([c for c in range(MIN_CLAIM, MAX_CLAIM + 1) if c != mine]), False)

    def _respond(self, view: SeatView) -> Action:
        s = view.state
        claim = s.claim
        assert claim is not None
        if claim.forced_honest:
            return Believe()  # doubting a proven claim only costs a debt
        h = self._opp_true / self._opp_seen
        # posterior that the claim is true: counts before the eat, a uniform eat that
        # survived (x < r), and my model of how often this opponent's free claims are true
        before = self._before_claim(view)
        w_true = w_all = 0.0
        for r, p in before.items():
            for x in range(MIN_EAT, min(MAX_EAT, r - 1) + 1):
                w = p * (h if x == claim.amount else (1 - h) / 2)
                w_all += w
                w_true += w if x == claim.amount else 0.0
        p_lie = 1.0 - (w_true / w_all if w_all > 0 else 0.0)
        after = self.belief(view).dist
        small = min(after) if after else 30
        urgency = 0.25 if small <= 8 else 0.0  # near the end, the truth is worth more
        debt_cost = 0.15 * (1 + s.debts[view.seat])
        score = p_lie + urgency - debt_cost + (self.persona.doubt - 0.5) * 0.4 + self.rng.uniform(-0.1, 0.1)
        return Doubt() if score > 0.5 else Believe()

    def _before_claim(self, view: SeatView) -> dict[int, float]:
        """My belief over the count before the opponent's current eat."""
        s = view.state
        cut = max(i for i, ev in enumerate(s.events) if ev.kind == EventKind.ATE)
        trimmed = SeatView(view.seat, _with_events(s, s.events[:cut]), view.my_choices, ())
        return self.belief(trimmed).dist


def _with_events(s: MindBluffState, events: tuple[Event, ...]) -> MindBluffState:
    from dataclasses import replace

    return replace(s, events=events)

