"""Commit, then open, for the deal entropies at 3-6 seats (issue 26, item 2).

The attack: a house with one planted seat that sends last. If a seat's opening (sealed to the
dealer) goes out before every commitment is on the transcript, the dealer opens the honest
seats' entropies as they arrive, hands them to the planted seat, and the planted seat re-draws
its own entropy (a few hundred tries of the native deal, well inside the entropy window) until
it is dealt a hand it chose: here all four aces at a three-seat Cheat table (fair chance
under 1%). With commit-then-open no opening exists when the planted seat commits, and an
opening sent before the last commitment is refused live (``EarlyOpening``, nothing written)
and offline (``deal.open-early``). Real proofs under the pinned keys; secrets seeded."""
from __future__ import annotations

import random
from typing import Any, Optional

import pytest

from zkbluff.errors import EarlyOpening, LateEntropy, TranscriptError
from zkbluff.games.bluffers.moves import Proceed as BluffersProceed
from zkbluff.games.cheat.moves import Proceed
from zkbluff.games.cheat.rules import deal_order
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat
from zkbluff.games.engine.table import Table
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.registry import spec_for
from zkbluff.protocol.entropy import EntropySecret
from zkbluff.protocol.transcript import TranscriptWriter, canonical
from zkbluff.statements.deal import deal_native

OPTIONS = {"players": "3", "window": "1"}
PLANTED = 2  # the last seat: the table asks the seats for their deal lines in seat order
ACES = sum(1 << c for c in (12, 25, 38, 51))  # rank 12 (A) of every suit
TRIES = 5000


class PlantedSeat(Seat):
    """The house's planted seat: before it commits, it takes from its accomplice (the dealer)
    every entropy the dealer has opened, and if it has all the honest seats' it re-draws its
    own (deterministically) until the first deal gives it all four aces. ``hold``: it sends
    no deal line at all (so the honest seats' lines can be seen while it waits)."""

    def __init__(self, *args: Any, accomplice: Dealer, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.accomplice, self.hold, self.ground_with = accomplice, False, None  # type: Optional[list[int]]
        self.withhold_opening = False
        self.known_when_committing: Optional[dict[str, Any]] = None

    def deal_line(self) -> Optional[dict[str, Any]]:
        if self.hold or self.view is None:
            return None
        pub = self.view.ledger.deal
        if self.withhold_opening and self.seat in pub.seats:
            return None  # committed; it sends no opening
        if pub.dealer is not None and self.seat not in pub.seats and self.known_when_committing is None:
            known = {s: o for s, o in (self.accomplice.state or {}).get("seats", {}).items() if "entropy" in o}
            self.known_when_committing = dict(known)
            others = [s for s in self.spec.deal.entropy_seats if s != self.seat]
            if all(str(s) in known for s in others) and self.spec.game == "cheat":
                self._grind(known)
        return super().deal_line()

    def _grind(self, known: dict[str, Any]) -> None:
        deal = self.spec.deal
        rules = self.view.rules
        order = deal_order(self.spec.n_seats, rules.s.dealer)
        slot = order.index(self.seat)
        rng = random.Random(26)
        for _ in range(TRIES):
            mine = EntropySecret(rng.randrange(1, 2**250), rng.randrange(1, 2**250))
            ents = [int(self.accomplice.state["entropy"])] + [
                mine.entropy if s == self.seat else int(known[str(s)]["entropy"]) for s in deal.entropy_seats]
            masks, _ = deal_native(ents, rules.s.hand_no + 1, deal.shape.hands, deal.shape.board, deal.shape.deck)
            if masks[slot] & ACES == ACES:
                self.deal_secrets = {**self.deal_secrets, "entropy": str(mine.entropy), "salt": str(mine.salt)}
                self.ground_with = ents
                return


class Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def planted_table(keys: Any, path: Any = None, clock: Any = None, game: str = "cheat",
                  options: Optional[dict[str, str]] = None) -> tuple[Table, PlantedSeat]:
    spec = spec_for(game, options or OPTIONS)
    dealer = Dealer(spec, Prover(keys), clock=clock)
    seats = [Seat(spec, i, f"s{i}", Prover(keys), clock=clock) for i in range(PLANTED)]
    planted = PlantedSeat(spec, PLANTED, f"s{PLANTED}", Prover(keys), clock=clock, accomplice=dealer)
    referee = RefereeParty(spec, prover=Prover(keys), **({} if clock is None else {"clock": clock}))
    tab = Table(referee, dealer, [*seats, planted], TranscriptWriter(path))
    return tab, planted


def test_planted_seat_that_sends_last_cannot_regrind_its_entropy_to_choose_its_hand(match_keys, seed_secrets,
                                                                                    tmp_path):
    """The attack, played to the first deal and verified offline. On the old line format
    (opening on the ``entropy.seat`` line) the dealer held both honest entropies when the
    planted seat committed, the grind found the four aces, and ``transcript verify`` said OK."""
    seed_secrets(2026)
    path = tmp_path / "planted.jsonl"
    tab, planted = planted_table(match_keys, path)
    tab.start()
    while not any(e["action"] == "deal" for e in tab.writer.events) and not tab.over:
        tab.move(tab.to_move, Proceed())
    assert any(e["action"] == "deal" for e in tab.writer.events)
    verify_transcript(path)  # an honest-looking match either way
    # commit, then open: the accomplice had opened nothing when the planted seat committed ...
    assert planted.known_when_committing == {}
    assert planted.ground_with is None
    # ... so it was dealt what the committed entropies give, not the hand it wanted
    assert planted.private["hand"] & ACES != ACES
    kinds = [e["action"] for e in tab.writer.events]
    last_commit = max(i for i, k in enumerate(kinds) if k == "entropy.seat")
    assert min(i for i, k in enumerate(kinds) if k == "entropy.open") > last_commit
    assert kinds.count("entropy.open") == kinds.count("entropy.seat") == 3


def test_honest_twin_every_seat_opens_after_the_last_commitment_and_the_deal_uses_the_openings(match_keys,
                                                                                              seed_secrets):
    seed_secrets(2027)
    tab, planted = planted_table(match_keys)
    planted.hold = True
    tab.start()
    kinds = [e["action"] for e in tab.writer.events]
    assert kinds == ["header", "entropy.dealer", "entropy.seat", "entropy.seat"]  # no opening while one is owed
    assert all(s.deal_line() is None for s in tab.seats[:PLANTED])
    planted.hold = False
    tab.advance()
    kinds = [e["action"] for e in tab.writer.events]
    assert kinds[:8] == ["header", "entropy.dealer"] + ["entropy.seat"] * 3 + ["entropy.open"] * 3
    assert kinds[8] == "deal"
    # the dealer opened every seat's entropy from its opening line
    assert sorted(tab.dealer.state["seats"]) == ["0", "1", "2"]


def _early_opening(tab: Table, seat: int) -> dict[str, Any]:
    """Seat ``seat``'s own opening, signed now (before the planted seat's commitment)."""
    s = tab.seats[seat]
    pub = s.view.ledger.deal
    full = pub.__class__(**{**pub.__dict__, "seats": {**pub.seats, PLANTED: pub.seats[seat]}})
    ledger = type("L", (), {"deal": full})()
    kind, data = tab.spec.deal.seat_line(s.deal_secrets, seat, ledger, s.view.match_id, s.clock())
    assert kind == "entropy.open"
    return s._line(seat, kind, data)


def test_an_opening_before_the_last_commitment_is_refused_live_and_nothing_is_written(match_keys, seed_secrets):
    seed_secrets(2028)
    tab, planted = planted_table(match_keys)
    planted.hold = True
    tab.start()
    before = list(tab.writer.events)
    line = _early_opening(tab, 0)
    with pytest.raises(EarlyOpening) as err:
        tab.submit(line)
    assert err.value.code == "deal.open-early"
    assert tab.writer.events == before
    assert "0" not in (tab.dealer.state or {}).get("seats", {})  # the dealer opened nothing


def test_an_opening_before_the_last_commitment_is_refused_offline_with_its_reason_code(match_keys, seed_secrets,
                                                                                     tmp_path):
    seed_secrets(2029)
    tab, planted = planted_table(match_keys)
    planted.hold = True
    tab.start()
    line = _early_opening(tab, 1)
    path = tmp_path / "early.jsonl"
    path.write_text("".join(canonical(e) + "\n" for e in [*tab.writer.events, line]))
    with pytest.raises(TranscriptError) as err:
        verify_transcript(path)
    assert err.value.code == "deal.open-early"
    assert err.value.line == line["n"]
    # twin: the same prefix without the early opening verifies (a match not yet finished)
    path.write_text("".join(canonical(e) + "\n" for e in tab.writer.events))
    verify_transcript(path)


def test_a_seat_that_commits_and_withholds_its_opening_forfeits_after_the_open_deadline(match_keys, seed_secrets,
                                                                                      tmp_path):
    """The open deadline runs from the last commitment's stamp for the header's entropy window:
    the withholding seat forfeits before any card (it places last), and verify agrees."""
    seed_secrets(2030)
    clock = Clock()
    path = tmp_path / "withheld.jsonl"
    tab, planted = planted_table(match_keys, path, clock)
    planted.withhold_opening = True
    tab.start()
    kinds = [e["action"] for e in tab.writer.events]
    assert kinds == ["header", "entropy.dealer"] + ["entropy.seat"] * 3 + ["entropy.open"] * 2
    last_commit = tab.writer.events[4]
    window = tab.view.header["limits"]["entropy"]
    clock.t = last_commit["at"] + window
    assert tab.poll() is None  # not before the open deadline
    clock.t += 0.5
    line = tab.poll()
    assert line["action"] == "entropy.forfeit"
    assert line["data"] == {"seats": [PLANTED], "since": last_commit["n"], "deadline": last_commit["at"] + window}
    assert tab.over and "deal" not in [e["action"] for e in tab.writer.events]
    report = verify_transcript(path)
    assert report["result"].placements == (1, 1, 2)


def test_an_opening_after_the_open_deadline_is_refused(match_keys, seed_secrets):
    seed_secrets(2031)
    clock = Clock()
    tab, planted = planted_table(match_keys, clock=clock)
    planted.withhold_opening = True
    tab.start()
    last_commit = tab.writer.events[4]
    clock.t = last_commit["at"] + tab.view.header["limits"]["entropy"] + 1
    planted.withhold_opening = False
    late = planted.deal_line()
    assert late["action"] == "entropy.open"
    before = list(tab.writer.events)
    with pytest.raises(LateEntropy, match="after the deadline"):
        tab.referee.receive(late)
    assert tab.writer.events == before


def test_bluffers_table_card_is_fixed_before_the_dealer_knows_any_seats_entropy(match_keys, seed_secrets):
    """Bluffers at three seats: the table card of every round comes from the same entropies
    (``card.deal.v2@deck=3,board=1``); the planted last seat's accomplice knew none of them
    when it committed (on the old format it knew both honest seats'), and the first ``draw``
    line comes after every opening."""
    seed_secrets(2032)
    tab, planted = planted_table(match_keys, game="bluffers", options={"players": "3"})
    tab.start()
    while not any(e["action"] == "draw" for e in tab.writer.events) and not tab.over:
        tab.move(tab.to_move, BluffersProceed())
    assert planted.known_when_committing == {}
    kinds = [e["action"] for e in tab.writer.events]
    assert kinds[:8] == ["header", "entropy.dealer"] + ["entropy.seat"] * 3 + ["entropy.open"] * 3
    assert kinds.index("draw") > 7
