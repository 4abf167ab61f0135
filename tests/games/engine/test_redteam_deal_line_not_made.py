"""Red team of issue 26 item 5: ``Seat.check_own`` refused a *move* in a hosted seat's name
that the seat did not make, but skipped the deal's own lines. The attack: an
``entropy.seat`` line in the seat's name, signed with its key (the key used elsewhere),
carrying other commitments (Cheat: another pile key) was written, and every party took it;
the seat's own commitment never went on the transcript, and its opening could then never
open. A hosted seat now refuses a deal line in its name that it did not sign there, before
anything is written."""
from __future__ import annotations

import pytest

from zkbluff.errors import CommitmentMismatch
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat
from zkbluff.games.engine.table import Table
from zkbluff.games.registry import spec_for
from zkbluff.protocol.transcript import TranscriptWriter

LATE = 2


class Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def _table(keys, path):
    spec = spec_for("cheat", {"players": "3", "window": "1"})
    clock = Clock()
    seats = [Seat(spec, i, f"s{i}", Prover(keys), clock=clock) for i in range(3)]
    seats[LATE].sends_deal_lines = False
    tab = Table(RefereeParty(spec, prover=Prover(keys), clock=clock), Dealer(spec, Prover(keys), clock=clock),
                seats, TranscriptWriter(path))
    tab.start()
    return tab


def _forged_commitment(tab):
    """Seat LATE's entropy.seat from other deal secrets, signed with its key."""
    seat = tab.seats[LATE]
    other = tab.spec.deal.seat_secrets()
    due = tab.spec.deal.seat_line_in(other, LATE, seat.view, seat.prover, seat.clock)
    assert due is not None and due[0] == "entropy.seat"
    return seat._line(LATE, due[0], due[1], at=due[2])


def test_attack_a_deal_line_in_the_seats_name_it_did_not_make_is_not_written(match_keys, seed_secrets, tmp_path):
    seed_secrets(2604)
    path = tmp_path / "m.jsonl"
    tab = _table(match_keys, path)
    before = path.read_text()
    forged = _forged_commitment(tab)
    with pytest.raises(CommitmentMismatch, match="did not make"):
        tab.submit(forged)
    assert path.read_text() == before
    assert LATE not in tab.referee.view.ledger.deal.seats


def test_the_deal_line_the_seat_made_is_written(match_keys, seed_secrets, tmp_path):
    seed_secrets(2605)
    path = tmp_path / "m.jsonl"
    tab = _table(match_keys, path)
    tab.seats[LATE].sends_deal_lines = True
    tab.advance()
    assert LATE in tab.referee.view.ledger.deal.seats
    assert "deal" in [e["action"] for e in tab.writer.events]
