"""Bluffers at a house-blind table (``--deal house-blind``, games/engine/house_blind_deal.py)
with real proofs: each round the seats draw the table card (a 3-card deck shuffled by all, its
top card opened to all) and deal five cards to each standing seat, the rest undealt and hidden
from everyone; whole matches verify offline; a coalition of the house and every seat but one
cannot tell two hands of the honest seat apart."""
from __future__ import annotations

import random

import pytest

from house_blind_helpers import coalition_view, fixed_shuffles, rotation
from match_harness import StepClock, bots_for, seeded_match, step
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


# ---------------------------------------------------------------- faults

def _withholding(monkeypatch, when):
    """Seats withhold every deal line ``when(self, seat, due)`` says (the table then waits)."""
    original = hbd.HouseBlindDeal._seat_line

    def held(self, secrets, seat, view, prover):
        due = self.due(view)
        if due is not None and due[1] == seat and when(seat, due):
            return None
        return original(self, secrets, seat, view, prover)
    monkeypatch.setattr(hbd.HouseBlindDeal, "_seat_line", held)


def test_a_knocked_out_seat_that_withholds_its_key_line_keeps_its_place_and_drops_no_one(monkeypatch, tmp_path):
    """Three seats: the first seat knocked out (place 3) withholds its key line of the next
    round. Timed out, it is at fault — settled on the standing: it stays last (it does not
    rise to 2nd) and the two standing seats keep their shared place 1; offline too."""
    path = tmp_path / "ko_withholds.jsonl"
    out: list[int] = []
    _withholding(monkeypatch, lambda seat, due: bool(out) and seat == out[0] and due[2] < DRAW_ROUND_TAG)
    tab, clock = seeded_match("bluffers", {"players": "3", "deal": "house-blind"}, seed=3, path=path)
    bots, rng = bots_for(tab, 3), random.Random(3)
    while not tab.over:
        ko = tab.rules.public_state().knocked_out
        if ko and not out:
            out.append(ko[0])
        step(tab, clock, bots, rng)
    timeouts = [e["data"] for e in tab.writer.events if e["action"] == hbd.TIMEOUT]
    assert timeouts and timeouts[0]["seat"] == out[0], (out, timeouts)  # the scenario happened
    want = tuple(3 if s == out[0] else 1 for s in range(3))
    assert tab.view.result().placements == want
    report = verify_transcript(path)
    assert report["complete"] and report["result"].placements == want


def test_a_seat_at_fault_places_strictly_last_on_the_standing():
    """The settlement rule itself: every other seat keeps its order on the standing, the
    seat at fault goes below all of them (a worse standing place than everyone's is kept)."""
    from types import SimpleNamespace

    deal = hbd.HouseBlindDeal("bluffers", 4, DECK.size, lambda view: None, [5])
    def placements(seat, standing):
        pub = hbd.HouseBlindPublic(fault="withheld", fault_seat=seat)
        return deal.outcome(SimpleNamespace(deal=pub), (0,) * 4, standing=standing).placements
    assert placements(3, (1, 1, 3, 4)) == (1, 1, 3, 4)  # already last: kept
    assert placements(2, (1, 1, 3, 4)) == (1, 1, 4, 3)  # knocked out later, withholds: below the first out
    assert placements(0, (1, 1, 3, 4)) == (4, 1, 2, 3)  # a standing seat withholds: last; the rest keep order
    assert placements(1, (1, 2, 2, 4)) == (1, 4, 2, 3)
    assert placements(1, None) == (1, 2, 1, 1)  # no standing kept (Cheat): the seat at fault 2, the others 1
    assert deal.outcome(SimpleNamespace(deal=hbd.HouseBlindPublic(fault="silent")), (0,) * 4,
                        standing=(1, 1, 3, 4)).placements == (1, 1, 3, 4)  # the dealer at fault: the standing


def test_a_seat_that_withholds_its_draw_key_line_is_timed_out_not_drawn_past(monkeypatch, tmp_path):
    """The table card's draw binds no hand: its round is complete only once every seat's
    key, shuffle and shares are in, so the dealer never draws on one key line; the seat
    that withholds its key is timed out and placed last; offline too."""
    path = tmp_path / "draw_withheld.jsonl"
    _withholding(monkeypatch, lambda seat, due: seat == 1 and due[2] >= DRAW_ROUND_TAG)
    tab, clock = table(3, path)
    bots, rng = bots_for(tab, 2), random.Random(2)
    for _ in range(60):
        if tab.over:
            break
        step(tab, clock, bots, rng)
    events = tab.writer.events
    assert tab.over and [e["action"] for e in events[-2:]] == [hbd.TIMEOUT, "end"]
    assert not any(e["action"] == "draw" for e in events)
    assert events[-2]["data"]["seat"] == 1 and events[-2]["data"]["line"] == hbd.KEY
    assert tab.view.result().placements == (1, 3, 1)
    report = verify_transcript(path)
    assert report["complete"] and report["result"].placements == (1, 3, 1)
