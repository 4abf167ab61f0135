"""A toy game on the match engine, for the referee's and the verifier's own checks without
proofs: two seats say ``go`` in turn and three steps end it (seat 0 wins); the referee may
``tick``; the dealer commits a secret in the header and reveals it after the end (the
closing line). Registered per test with ``count_match(monkeypatch, tmp_path)``."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.games.engine import registry
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.rules import NO_SEAT, Action, Result, Rules
from zkbluff.games.engine.spec import DealScheme, GameSpec, Move, ProofDemand, Role
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.table import open_match
from zkbluff.protocol.commit_reveal import commit_entropy
from zkbluff.protocol.signing import sign_line, sign_receipt
from zkbluff.protocol.transcript import canonical, line_hash


@dataclass(frozen=True)
class Go(Action):
    kind: ClassVar[str] = "go"
    role: ClassVar[Role] = Role.SEAT
    step: int


@dataclass(frozen=True)
class Tick(Action):
    kind: ClassVar[str] = "tick"
    role: ClassVar[Role] = Role.REFEREE


@dataclass
class CountState:
    total: int = 0
    to_move: Optional[int] = 0


class CountRules(Rules):
    """Two seats say ``go`` in turn; three steps end it (seat 0 wins). The referee may
    ``tick`` (an action of the referee's) at any time."""

    n_seats = 2

    def __init__(self) -> None:
        self.s = CountState()

    @property
    def over(self) -> bool:
        return self.s.total >= 3

    @property
    def to_move(self) -> Optional[int]:
        return None if self.over else self.s.to_move

    def legal_actions(self, seat):
        return [Go(self.s.total + 1)] if seat == self.to_move else []

    def check(self, seat, action):
        if isinstance(action, Tick):
            if seat is not NO_SEAT or self.over:
                raise IllegalMove("tick: the referee's, before the end")
            return
        self._expect_turn(seat, "go")
        if not isinstance(action, Go) or action.step != self.s.total + 1:
            raise IllegalMove(f"go: step {self.s.total + 1} expected")

    def _apply(self, seat, action):
        if isinstance(action, Go):
            self.s.total += 1
            self.s.to_move = 1 - self.s.to_move  # type: ignore[operator]

    def public_state(self):
        return CountState(self.s.total, self.to_move)

    def result(self):
        return Result((1, 2), (self.s.total, 0), "three steps") if self.over else None


class RevealDeal(DealScheme):
    """The dealer commits a secret in the header (SHA-256) and reveals it after the end."""

    closing: ClassVar[Optional[str]] = "reveal"
    trust: ClassVar[str] = "test only"

    def seat_secrets(self):
        return {}

    def seat_public(self, secrets):
        return {}

    def seat_to_dealer(self, seat, secrets):
        return {}

    def dealer_start(self, match_id, seat_public, seat_messages):
        return {"secret": "ab" * 32}

    def header(self, dealer, seat_public):
        return {"commitment": commit_entropy(dealer["secret"])}

    def check_header(self, deal, n_seats):
        if not isinstance(deal, dict) or set(deal) != {"commitment"}:
            raise MalformedInput("count: deal must be {commitment}")

    def closing_data(self, dealer):
        return {"secret": dealer["secret"]}

    def check_closing(self, header, data, ledger):
        if not isinstance(data, dict) or set(data) != {"secret"} or not isinstance(data["secret"], str):
            raise MalformedInput(f"reveal: data must be {{secret}}, got {data!r:.60}")
        if commit_entropy(data["secret"]) != header["deal"]["commitment"]:
            raise CommitmentMismatch("reveal: the secret does not open the header's commitment")


class _Text:
    RULES = "count to three"

    @staticmethod
    def describe(line, names):
        return line["action"]


class _Bot:
    def __init__(self, seed):
        pass

    def act(self, obs):
        return Go(obs.total + 1)


class CountSpec(GameSpec):
    game = "count-to-three"
    title = "Count to three"
    actions = (Go, Tick)
    n_seats = 2
    house_bot = _Bot
    random_bot = _Bot
    text = _Text

    def __init__(self, options=None):
        super().__init__(options)
        self.deal = RevealDeal()

    def statements(self):
        return []

    def new_rules(self):
        return CountRules()

    def new_ledger(self, header):
        return None

    def demand(self, rules, ledger, seat, action) -> list[ProofDemand]:
        return []

    def record(self, ledger, seat, action, publics):
        pass

    def new_private(self):
        return {}

    def seat_move(self, private, rules, seat, intent) -> Move:
        return Move(intent)

    def seat_receive(self, private, deal_secrets, seat, match_id, event, action, publics):
        return dict(private)

    def observation(self, rules, private, seat):
        return rules.public_state()

    def dealer_move(self, dealer, rules, ledger, match_id, line):
        return None

    def timeout(self, rules) -> Optional[tuple[Action, Any]]:
        return None


def count_match(monkeypatch, tmp_path):
    """The toy game registered for this test, and one whole match of it played: the table,
    its lines (without stamps, so they can be reused anywhere), the transcript's path."""
    monkeypatch.setitem(registry._GAMES, CountSpec.game, CountSpec)
    path = tmp_path / "count.jsonl"
    tab = open_match(CountSpec.game, None, ["a", "b"], transcript=path)
    while not tab.over:
        s = tab.to_move
        tab.move(s, Go(tab.view.rules.s.total + 1))
    events = [json.loads(x) for x in path.read_text().splitlines()]
    assert [e["action"] for e in events] == ["header", "go", "go", "go", "end", "reveal"]
    # one stamp for every line (every line carries one; these lines get reused anywhere, so none goes back)
    events = [{**{k: v for k, v in e.items() if k not in ("at", "received")}, "at": 0.0} for e in events]
    return tab, events, path


def key_of(tab, e):
    if e.get("seat") is not None:
        return tab.seats[e["seat"]].key
    return tab.dealer.key if e["action"] == "reveal" else tab.referee.key


def rechain(tab, events):
    out, prev = [], "0" * 64
    for i, e in enumerate(events, start=1):
        e = {"at": 0.0, **{k: v for k, v in e.items() if k != "sig"}}  # every line carries a stamp: the toy's, if none
        e = sign_line(key_of(tab, e), {**e, "n": i, "prev": prev})
        if "received" in e:  # the referee's receipt, signed again over the line as re-signed
            e = sign_receipt(tab.referee.key, e, e["received"]["at"])
        out.append(canonical(e))
        prev = line_hash(out[-1])
    return out


def write(tmp_path, lines, name="f.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + ("\n" if lines else ""))
    return p


def apply_all(tab, events):
    """Replay ``events`` (re-chained and re-signed) through a fresh referee; return it and
    the error of the first refused line (None if all pass)."""
    lines = rechain(tab, events)
    ref = Referee(json.loads(lines[0]), verify_now=True)
    for x in lines[1:]:
        try:
            ref.apply(json.loads(x))
        except Exception as exc:  # noqa: BLE001 - the caller asserts the type
            return ref, exc
    return ref, None


class Clock:
    """A settable clock: ``clock()`` reads ``clock.now``."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class TimedCountSpec(CountSpec):
    """Count to three, and the referee ticks (its timeout) when the seat to move idles."""

    game = "count-timed"

    def timeout(self, rules: Any) -> Optional[tuple[Action, Any]]:
        assert isinstance(rules, CountRules)
        return None if rules.over else (Tick(), "idle")


def timed_table(monkeypatch, tmp_path, referee_clock: Clock, idle: float = 20.0):
    """A toy table on ``referee_clock`` (every party's clock until a test gives a seat its own)."""
    monkeypatch.setitem(registry._GAMES, TimedCountSpec.game, TimedCountSpec)
    return open_match(TimedCountSpec.game, None, ["a", "b"], transcript=tmp_path / "timed.jsonl",
                      clock=referee_clock, limits=TimeLimits(idle=idle))
