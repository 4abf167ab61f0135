"""Red team of issue 26 items 3 and 5 as a cheating seat: an ``entropy.open`` line whose
sealed opening does not open (the referee cannot read a box sealed to the dealer, so it
accepts the line). The attack: the table wrote the line, then the dealer's opening raised
``CommitmentMismatch``: the other seats never received the line, the table was wedged (its
next timeout was refused by a seat one line behind), and the only fault the transcript could
show was the dealer's own ``deal.timeout``: the cheater was not blamed and, before any card,
every seat would place 1. A withheld opening forfeits; a box that does not open was the
cheaper way to withhold. Now the table asks the dealer before it writes (refused means
unchanged), and the seat, having sent no opening, forfeits at the open deadline like any
withholder. Real proofs, a fake clock."""
from __future__ import annotations

from typing import Any, Optional

import pytest

from zkbluff.errors import CommitmentMismatch
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat
from zkbluff.games.engine.table import Table
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.registry import spec_for
from zkbluff.protocol.transcript import TranscriptWriter

CHEATER = 2


class Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


class BadBoxSeat(Seat):
    """Commits honestly, then signs an opening whose sealed box does not open."""

    def deal_line(self) -> Optional[dict[str, Any]]:
        line = super().deal_line()
        if line is None or line["action"] != "entropy.open":
            return line
        data = dict(line["data"])
        s = data["sealed"]
        data["sealed"] = s[:-4] + ("0000" if s[-4:] != "0000" else "1111")
        return self._remember(self._line(self.seat, line["action"], data, at=line.get("at")))


def _table(keys, path, clock):
    spec = spec_for("cheat", {"players": "3", "window": "1"})
    seats = [Seat(spec, i, f"s{i}", Prover(keys), clock=clock) for i in range(CHEATER)]
    seats.append(BadBoxSeat(spec, CHEATER, "cheater", Prover(keys), clock=clock))
    return Table(RefereeParty(spec, prover=Prover(keys), clock=clock), Dealer(spec, Prover(keys), clock=clock),
                 seats, TranscriptWriter(path))


def _views(tab):
    return [v.next_line for v in [tab.referee.view, tab.dealer.view] + [s.view for s in tab.seats]]


def test_attack_an_opening_that_does_not_open_is_refused_with_nothing_written(match_keys, seed_secrets, tmp_path):
    seed_secrets(2601)
    path = tmp_path / "bad.jsonl"
    tab = _table(match_keys, path, Clock())
    with pytest.raises(CommitmentMismatch):
        tab.start()  # the honest seats open, then the cheater's box is refused
    kinds = [e["action"] for e in tab.writer.events]
    assert kinds == ["header", "entropy.dealer"] + ["entropy.seat"] * 3 + ["entropy.open"] * 2
    assert len(path.read_text().splitlines()) == len(kinds)
    assert _views(tab) == [len(kinds) + 1] * 5, "every party holds the same lines"


def test_attack_the_seat_with_a_bad_opening_forfeits_as_a_withholder_and_the_match_verifies(match_keys, seed_secrets,
                                                                                            tmp_path):
    seed_secrets(2602)
    clock = Clock()
    path = tmp_path / "bad.jsonl"
    tab = _table(match_keys, path, clock)
    with pytest.raises(CommitmentMismatch):
        tab.start()
    tab.seats[CHEATER].sends_deal_lines = False  # it has nothing else to send
    clock.t += 10_000
    tab.poll()
    kinds = [e["action"] for e in tab.writer.events]
    assert "entropy.forfeit" in kinds and "deal.timeout" not in kinds
    assert tab.over
    end = tab.writer.events[-1]
    assert end["action"] == "end" and end["data"]["placements"] == [1, 1, 2]  # the cheater last
    verify_transcript(path)


def test_honest_twin_three_good_openings_are_written_and_dealt(match_keys, seed_secrets, tmp_path):
    seed_secrets(2603)
    spec = spec_for("cheat", {"players": "3", "window": "1"})
    clock = Clock()
    seats = [Seat(spec, i, f"s{i}", Prover(match_keys), clock=clock) for i in range(3)]
    tab = Table(RefereeParty(spec, prover=Prover(match_keys), clock=clock),
                Dealer(spec, Prover(match_keys), clock=clock), seats, TranscriptWriter(tmp_path / "ok.jsonl"))
    tab.start()
    kinds = [e["action"] for e in tab.writer.events]
    assert kinds.count("entropy.open") == 3 and "deal" in kinds
