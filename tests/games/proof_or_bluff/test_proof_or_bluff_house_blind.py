"""Proof or Bluff, both tables, at a house-blind table (``--deal house-blind``,
games/engine/house_blind_deal.py) with real proofs: each round's deal is the two seats'
(keys, shuffles, shares, hand bindings), the house only starts the round; 5 Up 2 Down's board
is opened to everyone by both seats' shares; whole matches verify offline."""
from __future__ import annotations

import random

import pytest

from match_harness import StepClock, bots_for, step
from zkbluff.errors import IllegalMove
from zkbluff.games.engine import house_blind_deal as hbd
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.proof_or_bluff.rules import DECK, FIVE_UP_BOARD


def kinds(tab):
    return [e["action"] for e in tab.writer.events]


@pytest.mark.parametrize("game,mode,hand", [("proof-or-bluff", "casual", 5), ("five-up-two-down", "standard", 2)])
def test_a_whole_match_at_a_house_blind_table_verifies_offline(game, mode, hand, tmp_path):
    path = tmp_path / f"{game}.jsonl"
    clock = StepClock()
    tab = open_match(game, {"deal": "house-blind", "mode": mode}, transcript=path, clock=clock, overwrite=True)
    header = tab.writer.events[0]["data"]
    assert header["trust"] == hbd.TRUST and header["deal"]["statements"] == [hbd.binding_key_id(DECK.size, hand)]
    assert kinds(tab)[1:10] == [hbd.KEY] * 2 + [hbd.SHUFFLE] * 2 + [hbd.SHARES] * 2 + [hbd.HAND] * 2 + ["deal"]
    bots = bots_for(tab, 5)
    rng = random.Random(5)
    boards = []
    while not tab.over:
        before = len(tab.writer.events)
        step(tab, clock, bots, rng)
        for e in tab.writer.events[before:]:
            if e["action"] == "deal" and game == "five-up-two-down":
                boards.append(e["data"]["board"])
    for seat in tab.seats:  # every seat holds the cards its own binding committed to
        assert bin(seat.private["hand"]).count("1") <= hand
    if game == "five-up-two-down":
        assert boards and all(bin(b).count("1") == FIVE_UP_BOARD for b in boards)
    said = [tab.spec.text.describe(e, ["ann", "house"]) for e in tab.writer.events]
    assert said[3].startswith("ann shuffles")
    report = verify_transcript(path)
    assert report["complete"] and report["proofs"] >= 2 * kinds(tab).count("deal")


def test_the_board_is_the_one_the_shares_open_not_the_houses_choice(tmp_path):
    clock = StepClock()
    tab = open_match("five-up-two-down", {"deal": "house-blind"}, clock=clock, overwrite=True)
    x = tab.view.ledger.deal.current
    opened = tab.spec.deal.board_mask(x)
    assert bin(opened).count("1") == FIVE_UP_BOARD
    assert tab.rules.public_state().board == opened  # the round started on the opened board
    hands = tab.seats[0].private["hand"] | tab.seats[1].private["hand"]
    assert hands & opened == 0
    other = next(c for c in range(DECK.size) if not (opened | hands) >> c & 1)
    lower = min(c for c in range(DECK.size) if opened >> c & 1)
    with pytest.raises(IllegalMove):
        tab.spec.deal.demand(tab.view.ledger, 1, opened & ~(1 << lower) | 1 << other, ())
    tab.spec.deal.demand(tab.view.ledger, 1, opened, ())  # its twin: the opened board passes
