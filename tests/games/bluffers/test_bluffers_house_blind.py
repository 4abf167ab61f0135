"""Bluffers at a house-blind table (``--deal house-blind``, games/engine/house_blind_deal.py)
with real proofs: each round the seats draw the table card (a 3-card deck shuffled by all, its
top card opened to all) and deal five cards to each standing seat, the rest undealt and hidden
from everyone; whole matches verify offline; a coalition of the house and every seat but one
cannot tell two hands of the honest seat apart."""
from __future__ import annotations

import random

import pytest

from house_blind_helpers import coalition_view, fixed_shuffles, rotation
from match_harness import StepClock, bots_for, step
from zkbluff.games.bluffers.rules import DECK, DRAW_ROUND_TAG
from zkbluff.games.engine import house_blind_deal as hbd
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.house_blind import UNDEALT


def table(n, path=None, match_id=None):
    clock = StepClock()
    tab = open_match("bluffers", {"players": str(n), "deal": "house-blind"}, transcript=path, clock=clock,
                     overwrite=True, match_id=match_id)
    return tab, clock


def until_dealt(tab, clock, seed=1):
    """The bots commit their seeds; the seats draw the table card and deal the first round."""
    bots, rng = bots_for(tab, seed), random.Random(seed)
    while "deal" not in [e["action"] for e in tab.writer.events]:
        step(tab, clock, bots, rng)


@pytest.mark.slow
def test_a_whole_three_seat_match_verifies_offline_and_no_undealt_card_is_ever_shared(tmp_path):
    path = tmp_path / "bluffers3.jsonl"
    tab, clock = table(3, path)
    bots, rng = bots_for(tab, 2), random.Random(2)
    while not tab.over:
        step(tab, clock, bots, rng)
    events = tab.writer.events
    assert events[0]["data"]["trust"] == hbd.TRUST
    assert events[0]["data"]["deal"]["statements"] == [hbd.binding_key_id(DECK.size, 5)]
    draws = [e for e in events if e["action"] == "draw"]
    assert draws and len(draws) == sum(e["action"] == "deal" for e in events)
    bound: dict[int, int] = {}  # round -> seats that bound a hand (the standing seats)
    for e in events:
        if e["action"] == hbd.HAND:
            bound[e["data"]["round"]] = bound.get(e["data"]["round"], 0) + 1
    assert any(k < 3 for r, k in bound.items() if r < DRAW_ROUND_TAG)  # a round after a knock-out
    for e in events:  # a share of a 20-card round names dealt positions only: the undealt stay hidden
        if e["action"] == hbd.SHARES and e["data"]["round"] < DRAW_ROUND_TAG:
            assert e["data"]["shares"] and all(s["card"] < 5 * bound[e["data"]["round"]] for s in e["data"]["shares"])
    assert not any(e["action"] == hbd.HAND and e["data"]["round"] >= DRAW_ROUND_TAG for e in events)  # draws bind none
    report = verify_transcript(path)
    assert report["complete"] and report["proofs"] > 0


def test_a_round_opens_each_hand_to_its_seat_and_no_share_of_an_undealt_card(tmp_path):
    path = tmp_path / "bluffers4.jsonl"
    tab, clock = table(4, path)
    until_dealt(tab, clock)
    x = tab.view.ledger.deal.current
    assert x.round == 1 and x.layout.deck == DECK.size
    undealt = {i for i, o in enumerate(x.layout.owners) if o == UNDEALT}
    assert len(undealt) == DECK.size - 4 * 5 == 0  # four standing seats hold the whole deck
    hands = [tab.seats[i].private["hand"] for i in range(4)]
    assert all(bin(h).count("1") == 5 for h in hands) and sum(hands) == (1 << DECK.size) - 1
    assert verify_transcript(path)["lines"] == len(tab.writer.events)
    said = [tab.spec.text.describe(e, ["a", "b", "c", "d"]) for e in tab.writer.events]
    assert any("complains" not in x and "shuffles and re-encrypts" in x for x in said)


def test_a_coalition_of_the_house_and_every_seat_but_one_sees_the_same_for_two_hands_of_the_honest_seat(
        tmp_path):
    """Three seats: 15 of the 20 cards dealt, 5 undealt. Seats 0 and 2 (and the house, which
    holds no deal secret) pool their keys; the two worlds differ only in honest seat 1's
    permutation, chosen so that one of its cards is swapped with an undealt one (the
    coalition's own hands identical). The coalition's view — every deck decrypted with its
    keys and every share of the honest seat, every link through the honest step — is
    identical in both, and names no card but its own."""
    n = DECK.size
    s2 = rotation(3, n)
    probe, clock = table(3, match_id="probe")
    until_dealt(probe, clock)
    owners = probe.view.ledger.deal.current.layout.owners
    p, q = owners.index(1), owners.index(UNDEALT)
    pi1 = rotation(11, n)
    pi2 = list(pi1)
    pi2[s2[p]], pi2[s2[q]] = pi2[s2[q]], pi2[s2[p]]
    worlds = []
    for pi in (pi1, pi2):
        with fixed_shuffles({0: rotation(7, n), 1: pi, 2: s2}):
            tab, clock = table(3, match_id="coalition")
            until_dealt(tab, clock)
        worlds.append(tab)
    one, two = worlds
    hands = [[t.seats[i].private["hand"] for i in range(3)] for t in worlds]
    assert hands[0][1] != hands[1][1] and bin(hands[0][1] ^ hands[1][1]).count("1") == 2  # one card differs
    assert hands[0][0] == hands[1][0] and hands[0][2] == hands[1][2]
    view_one, view_two = coalition_view(one, (0, 2)), coalition_view(two, (0, 2))
    assert view_one == view_two and view_one[1] == set()
    final = 3
    assert all(card is None for k, i, card in view_one[0] if k == final and owners[i] in (1, UNDEALT))
    assert all(card is None for k, i, card in view_one[0] if 0 < k < final)  # no shuffled deck decrypts
    # the negative twin: with the honest seat's key too, the worlds differ
    assert coalition_view(one, (0, 1, 2)) != coalition_view(two, (0, 1, 2))
