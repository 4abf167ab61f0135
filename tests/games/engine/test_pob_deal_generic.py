"""``ProvenDeal`` is generic: a toy three-seat game whose dealer is not a seat (four entropy
contributors, Bluffers' 20-card deck, 5 cards each) deals through the unchanged engine
with real card.deal.v2 proofs, exactly as Cheat and Bluffers would switch to it."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Optional

import pytest

from zkbluff.errors import IllegalMove
from zkbluff.games.engine import registry
from zkbluff.games.engine.proven_deal import DealPublic, ProvenDeal
from zkbluff.games.engine.rules import NO_SEAT, Action, Result, Rules
from zkbluff.games.engine.spec import GameSpec, Move, ProofDemand, Role
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript


@dataclass(frozen=True)
class Deal(Action):
    kind: ClassVar[str] = "deal"
    role: ClassVar[Role] = Role.DEALER
    round: int
    sealed_hands: tuple[str, ...]


@dataclass(frozen=True)
class Done(Action):
    kind: ClassVar[str] = "done"
    role: ClassVar[Role] = Role.SEAT


class ShowRules(Rules):
    """One deal, then each seat says done in turn."""

    n_seats = 3

    def __init__(self) -> None:
        self.dealt, self.done = False, 0

    @property
    def over(self) -> bool:
        return self.done == 3

    @property
    def to_move(self) -> Optional[int]:
        return NO_SEAT if not self.dealt else self.done

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        return [Done()] if self.dealt and seat == self.done else []

    def check(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, Deal) and seat is NO_SEAT and not self.dealt and action.round == 1:
            return
        if isinstance(action, Done) and self.dealt and seat == self.done and not self.over:
            return
        raise IllegalMove(f"{action.kind}: not now")

    def _apply(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, Deal):
            self.dealt = True
        else:
            self.done += 1

    def public_state(self) -> Any:
        return (self.dealt, self.done)

    def result(self) -> Optional[Result]:
        return Result((1, 1, 1), (0, 0, 0), "shown") if self.over else None


@dataclass
class ShowLedger:
    hands: list[int] = field(default_factory=list)
    deal: DealPublic = field(default_factory=DealPublic)


class ShowSpec(GameSpec):
    game = "show-three"
    title = "Show (three seats, a separate dealer)"
    actions = (Deal, Done)
    n_seats = 3
    house_bot = random_bot = text = None  # type: ignore[assignment]

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.deal = ProvenDeal(self.game, 3, (5, 5, 5), deck=20, dealer_seat=None)

    def statements(self) -> list[str]:
        return [self.deal.statement_id]

    def new_rules(self) -> ShowRules:
        return ShowRules()

    def new_ledger(self, header: Mapping[str, Any]) -> ShowLedger:
        return ShowLedger()

    def demand(self, rules: Rules, ledger: Any, seat: Optional[int], action: Action) -> list[ProofDemand]:
        return [self.deal.demand(ledger, action.round, 0, action.sealed_hands)] if isinstance(action, Deal) else []

    def record(self, ledger: Any, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        if isinstance(action, Deal):
            ledger.hands = [publics[0][f"hand{i}_commitment"] for i in range(3)]

    def new_private(self) -> dict[str, Any]:
        return {"hand": 0}

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        return Move(Done())

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        if isinstance(action, Deal):
            hand, _ = self.deal.seat_open(deal_secrets, seat, match_id, event["n"], action.sealed_hands[seat],
                                          publics[0])
            return {"hand": hand}
        return dict(private)

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> Any:
        return private["hand"]

    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str, line: int) -> Move:
        _, _, inputs, sealed = self.deal.deal_round(dealer, 1, line)
        return Move(Deal(1, sealed), (inputs,))

    def timeout(self, rules: Rules) -> Optional[tuple[Action, str]]:
        return None


@pytest.fixture
def show(monkeypatch):
    monkeypatch.setattr(registry, "_GAMES", {**registry._GAMES, ShowSpec.game: ShowSpec})


def test_a_three_seat_game_with_a_separate_dealer_deals_in_proof(show, match_keys, tmp_path):
    path = tmp_path / "m.jsonl"
    tab = open_match(ShowSpec.game, transcript=path, key_folder=match_keys)
    events = [json.loads(x) for x in path.read_text().splitlines()]
    assert [e["action"] for e in events][:9] == ["header", "entropy.dealer"] + ["entropy.seat"] * 3 + \
        ["entropy.open"] * 3 + ["deal"]  # commit, then open: every commitment before any opening
    pub = dict(zip(tab.spec.deal.statement.public, map(int, events[8]["proofs"][0]["public"])))
    assert [pub[f"entropy{k}_commitment"] for k in range(4)] == \
        [int(events[1]["data"]["commitment"])] + [int(e["data"]["commitment"]) for e in events[2:5]]
    hands = [s.private["hand"] for s in tab.seats]
    assert all(bin(h).count("1") == 5 for h in hands) and hands[0] & hands[1] == hands[1] & hands[2] == 0
    for seat in range(3):
        tab.move(seat, None)
    report = verify_transcript(path)
    assert report["complete"] and report["proofs"] == 1 and '"reveal"' not in path.read_text()
    # the negative twin: each seat's own check of the proof's entropy input
    with pytest.raises(IllegalMove, match="entropy2_commitment"):
        tab.spec.deal.seat_open(tab.seats[1].deal_secrets, 1, tab.match_id, 9, events[8]["data"]["sealed_hands"][1],
                                {**pub, "entropy2_commitment": pub["entropy2_commitment"] + 1})
