"""The engine is game-agnostic and N-seat: a toy three-seat game written only against the
documented interfaces (rules, spec, deal scheme, text, bot), registered with one line,
runs through the same table, parties, signatures, verifier and CLI — nothing in the
engine changes for it."""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import IllegalMove, MalformedInput, TranscriptError
from zkbluff.games.engine import registry
from zkbluff.games.engine.rules import NO_SEAT, Action, Result, Rules
from zkbluff.games.engine.spec import DealScheme, GameSpec, Move, ProofDemand, Role
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey, sign_line
from zkbluff.protocol.transcript import canonical, line_hash

TARGET = 10


@dataclass(frozen=True)
class Start(Action):
    kind: ClassVar[str] = "start"
    role: ClassVar[Role] = Role.DEALER
    first: int


@dataclass(frozen=True)
class Add(Action):
    kind: ClassVar[str] = "add"
    role: ClassVar[Role] = Role.SEAT
    amount: int


@dataclass
class RaceState:
    total: int = 0
    to_move: Optional[int] = None
    winner: Optional[int] = None


class RaceRules(Rules):
    """Seats add 1 or 2 in turn; who reaches the target wins."""

    n_seats = 3

    def __init__(self) -> None:
        self.s = RaceState()

    @property
    def over(self) -> bool:
        return self.s.winner is not None

    @property
    def to_move(self) -> Optional[int]:
        return self.s.to_move

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        return [Add(1), Add(2)] if not self.over and seat == self.s.to_move else []

    def check(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, Start):
            if seat is not NO_SEAT or self.s.to_move is not None or self.over:
                raise IllegalMove("start: once, by the dealer")
            if not 0 <= action.first < self.n_seats:
                raise IllegalMove("start: first must be a seat")
            return
        if not isinstance(action, Add):
            raise IllegalMove(f"{action.kind}: not an action of the race")
        self._expect_turn(seat, "add")
        if action.amount not in (1, 2):
            raise IllegalMove(f"add: 1 or 2, got {action.amount}")

    def _apply(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, Start):
            self.s.to_move = action.first
            return
        assert isinstance(action, Add) and seat is not None
        self.s.total += action.amount
        if self.s.total >= TARGET:
            self.s.winner = seat
        else:
            self.s.to_move = (seat + 1) % self.n_seats

    def public_state(self) -> RaceState:
        return RaceState(self.s.total, self.s.to_move, self.s.winner)

    def result(self) -> Optional[Result]:
        if not self.over:
            return None
        return Result(tuple(1 if i == self.s.winner else 2 for i in range(3)), (self.s.total,) * 3, "reached 10")


class NoDeal(DealScheme):
    trust: ClassVar[str] = "nothing hidden"

    def seat_secrets(self) -> dict[str, Any]:
        return {}

    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {"first": 1}

    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        return {"scheme": "none"}

    def check_header(self, deal: Any, n_seats: int) -> None:
        if deal != {"scheme": "none"}:
            raise MalformedInput("race: the deal is none")


class RaceText:
    RULES = "Race to ten: add one or two in turn."

    @staticmethod
    def describe(line: Mapping[str, Any], names: list[str]) -> str:
        return f"{line['action']} {line['data']}"


class RaceBot:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def act(self, obs: Any) -> Add:
        return Add(self.rng.choice((1, 2)))


class RaceSpec(GameSpec):
    game = "race-to-ten"
    title = "Race to ten"
    actions = (Start, Add)
    n_seats = 3
    house_bot = RaceBot
    random_bot = RaceBot
    text = RaceText

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.deal = NoDeal()

    def statements(self) -> list[str]:
        return []

    def new_rules(self) -> RaceRules:
        return RaceRules()

    def new_ledger(self, header: Mapping[str, Any]) -> None:
        return None

    def demand(self, rules: Rules, ledger: Any, seat: Optional[int], action: Action) -> list[ProofDemand]:
        return []

    def record(self, ledger: Any, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        pass

    def new_private(self) -> dict[str, Any]:
        return {}

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        if not isinstance(intent, Add):
            raise MalformedInput("race: add 1 or 2")
        return Move(intent)

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        return dict(private)

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> Any:
        return rules.public_state()

    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str,
                    line: int) -> Optional[Move]:
        return Move(Start(dealer["first"]))

    def timeout(self, rules: Rules) -> Optional[tuple[Action, str]]:
        return None


@pytest.fixture
def race(monkeypatch):
    monkeypatch.setitem(registry._GAMES, RaceSpec.game, RaceSpec)  # the one registry line, for this test
    return RaceSpec.game


def play_race(path):
    tab = open_match("race-to-ten", None, ["ann", "bo", "cy"], transcript=path)
    bots = [RaceBot(i) for i in range(3)]
    while not tab.over:
        seat = tab.to_move
        tab.move(seat, bots[seat].act(tab.observation(seat)))
    return tab


def test_a_three_seat_game_runs_on_the_unchanged_engine(race, tmp_path):
    path = tmp_path / "race.jsonl"
    tab = play_race(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[1]["action"] == "start" and lines[1]["seat"] is None
    assert {e["seat"] for e in lines if e["action"] == "add"} == {0, 1, 2}
    assert len(lines[0]["data"]["parties"]["seats"]) == 3
    report = verify_transcript(path)
    assert report["game"] == "race-to-ten" and report["complete"] and report["proofs"] == 0
    assert report["winner"] == tab.view.rules.s.winner and lines[-1]["action"] == "end"
    res = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert res.exit_code == 0 and "race-to-ten" in res.output


def test_the_three_seat_game_refuses_what_every_game_refuses(race, tmp_path):
    path = tmp_path / "race.jsonl"
    tab = play_race(path)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    i = next(k for k, e in enumerate(events) if e["action"] == "add" and e["seat"] == 2)

    def rewrite(change, key_of):
        forged = json.loads(json.dumps(events))
        change(forged[i])
        out = [canonical(e) for e in forged[:i]]
        prev = line_hash(out[-1])
        for n, e in enumerate(forged[i:], start=i + 1):  # lines the referee never received (no receipts)
            e = sign_line(key_of(e), {**{k: v for k, v in e.items() if k != "received"}, "n": n, "prev": prev})
            out.append(canonical(e))
            prev = line_hash(out[-1])
        p = tmp_path / "forged.jsonl"
        p.write_text("\n".join(out) + "\n")
        return p

    def house(e):
        if e["seat"] is None:
            return tab.referee.key if e["action"] == "end" else tab.dealer.key
        return SigningKey.generate()

    def honest(e):
        return tab.seats[e["seat"]].key if e["seat"] is not None else house(e)

    with pytest.raises(TranscriptError, match="seat 2"):  # another's signature on seat 2's line
        verify_transcript(rewrite(lambda e: None, house))
    with pytest.raises(TranscriptError, match="seat null"):  # the dealer adding for a seat
        verify_transcript(rewrite(lambda e: e.update(seat=None), lambda e: tab.dealer.key))
    verify_transcript(rewrite(lambda e: None, honest))  # the twin: the seat's own key verifies
    with pytest.raises(TranscriptError, match="1 or 2"):
        verify_transcript(rewrite(lambda e: e["data"].update(amount=3), honest))


def test_an_unregistered_game_is_malformed(tmp_path):
    with pytest.raises(MalformedInput, match="unknown game 'race-to-ten'"):
        open_match("race-to-ten", None, ["a", "b", "c"])


# ---------------------------------------------------------------- several proofs on one line; the referee acts

CLAIM = "card.claim.v1@deck=52"
ACE_MASK = sum(1 << (12 + 13 * s) for s in range(4))


@dataclass(frozen=True)
class Tick(Action):
    """The referee's own line when no seat is to move (after every third add)."""

    kind: ClassVar[str] = "tick"

    role: ClassVar[Role] = Role.REFEREE
    total: int


class TickRules(RaceRules):
    def __init__(self) -> None:
        super().__init__()
        self.tick_due = False

    @property
    def to_move(self) -> Optional[int]:
        return NO_SEAT if self.tick_due else self.s.to_move

    def check(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, Tick):
            if seat is not NO_SEAT or not self.tick_due or action.total != self.s.total:
                raise IllegalMove("tick: the referee's, when due, with the total")
            return
        if self.tick_due:
            raise IllegalMove(f"{action.kind}: the referee ticks first")
        super().check(seat, action)

    def _apply(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, Tick):
            self.tick_due = False
            return
        super()._apply(seat, action)
        if isinstance(action, Add) and not self.over and self.s.total % 3 == 0:
            self.tick_due = True


class ReceiptSpec(RaceSpec):
    """Each Add owes ``amount`` claim proofs ("my committed play is all Aces"), one per unit."""

    game = "race-with-receipts"
    actions = (Start, Add, Tick)

    def statements(self) -> list[str]:
        return [CLAIM]

    def new_rules(self) -> TickRules:
        return TickRules()

    def new_private(self) -> dict[str, Any]:
        return {"play": 1 << 12, "salt": 5}

    def new_ledger(self, header: Mapping[str, Any]) -> dict[str, int]:
        return {"receipts": 0}

    def demand(self, rules: Rules, ledger: Any, seat: Optional[int], action: Action) -> list[ProofDemand]:
        if not isinstance(action, Add):
            return []
        return [ProofDemand(CLAIM, {"rank_mask": ACE_MASK, "verdict": 1})] * action.amount

    def record(self, ledger: Any, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        ledger["receipts"] += len(publics)

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        inputs = {"play": private["play"], "play_salt": private["salt"], "rank_mask": ACE_MASK}
        return Move(intent, (inputs,) * intent.amount)

    def referee_move(self, referee: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str,
                     line: int) -> Optional[Move]:
        return Move(Tick(rules.public_state().total))

    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str,
                    line: int) -> Optional[Move]:
        return Move(Start(dealer["first"])) if rules.public_state().to_move is None else None


def test_lines_with_several_proofs_and_referee_moves(monkeypatch, tmp_path, match_keys):
    monkeypatch.setitem(registry._GAMES, ReceiptSpec.game, ReceiptSpec)
    path = tmp_path / "receipts.jsonl"
    tab = open_match(ReceiptSpec.game, None, ["ann", "bo", "cy"], transcript=path, key_folder=match_keys)
    for amount in (2, 1, 2, 1, 1, 2, 1):
        if tab.over:
            break
        tab.move(tab.to_move, Add(amount))
    assert tab.over
    events = [json.loads(line) for line in path.read_text().splitlines()]
    adds = [e for e in events if e["action"] == "add"]
    assert [len(e["proofs"]) for e in adds] == [e["data"]["amount"] for e in adds]
    ticks = [e for e in events if e["action"] == "tick"]
    assert ticks and all(e["seat"] is None for e in ticks)
    report = verify_transcript(path)
    assert report["proofs"] == sum(e["data"]["amount"] for e in adds) == tab.view.ledger["receipts"]
    # one proof too few, or the second proof swapped for another line's: refused
    i = next(k for k, e in enumerate(events) if e["action"] == "add" and e["data"]["amount"] == 2)
    seat_key = tab.seats[events[i]["seat"]].key

    def forged(change):
        lines = [canonical(e) for e in events[:i]]
        e = json.loads(json.dumps(events[i]))
        change(e)
        e.pop("received", None)  # a line the referee never received as changed
        lines.append(canonical(sign_line(seat_key, e)))
        p = tmp_path / "forged.jsonl"
        p.write_text("\n".join(lines) + "\n")
        return p

    with pytest.raises(MalformedInput, match="list of 2"):
        verify_transcript(forged(lambda e: e["proofs"].pop()))
    donor = next(e for e in adds if e["n"] != events[i]["n"] and e["seat"] == events[i]["seat"])["proofs"][0]
    with pytest.raises(TranscriptError, match="another turn"):
        verify_transcript(forged(lambda e: e["proofs"].__setitem__(1, donor)))
    other = next(e for e in adds if e["seat"] != events[i]["seat"])["proofs"][0]
    with pytest.raises(TranscriptError, match="signer"):
        verify_transcript(forged(lambda e: e["proofs"].__setitem__(1, other)))
    with pytest.raises(TranscriptError, match="proof is missing"):
        verify_transcript(forged(lambda e: e.pop("proofs")))
    verify_transcript(forged(lambda e: None))  # the twin: re-signed unchanged, it verifies


def test_the_cli_runs_any_registered_game(race, tmp_path):
    """demo, rules and transcript verify need no change for a new game (three house bots here)."""
    out = tmp_path / "demo.jsonl"
    res = CliRunner().invoke(main, ["demo", "race-to-ten", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "all 3 seats" in res.output and "transcript verified offline" in res.output
    assert verify_transcript(out)["game"] == "race-to-ten"
    assert CliRunner().invoke(main, ["rules", "race-to-ten"]).output.startswith(RaceText.RULES)
    res = CliRunner().invoke(main, ["demo", "race-to-ten", "--mode", "fast", "--out", str(out)])
    assert res.exit_code == 2 and "unknown option" in res.output
