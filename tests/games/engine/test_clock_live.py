"""Issue 26, "Time with evidence": what the first receipts left open. Each attack is written
as it succeeded on main, and must now fail for the attacker:

- a house that back-dates its own stamp (never before the line before) on the line that
  starts a seat's wait, then times the seat out "on time": each seat took a stamp behind
  its clock as a late delivery, live or not;
- the deal phase's forfeits and timeouts (``entropy.forfeit``, ``deal.timeout``,
  ``oblivious.timeout``) were checked by each seat for skew only, never against its own
  receive time of the line that began the wait;
- the dealer's lines carried no receipt: the entropy window ran from the dealer's own stamp.

The toy game (``engine_toy_game``, no proofs) gets a timeout here; the deal-phase tables
stop before any proof is made.
"""
from __future__ import annotations

from typing import Optional

import pytest

from engine_toy_game import Clock, Go, timed_table
from zkbluff.errors import ClockDispute, IllegalMove
from zkbluff.games.engine import registry
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat, TimeLimits
from zkbluff.games.engine.referee import STAMP_TOLERANCE, Referee
from zkbluff.games.engine.table import Table
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.registry import spec_for
from zkbluff.protocol.signing import sign_line, sign_receipt
from zkbluff.protocol.transcript import TranscriptWriter


# ---------------------------------------------------------------- a house that back-dates its own line

def _back_dated_wait(monkeypatch, tmp_path, connected_at: Optional[float]):
    """Seat 0 moves at 1000; seat 1 idles, and the house writes its (due) first tick at 1040.1
    by seat 1's clock, stamped 1020.1 (20 s back, still after line 2), then a second tick
    0.1 s later "on time" for a wait from that stamp: seat 1 had 0.1 s, not 20."""
    ref = Clock(1000.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    mine = Clock(1000.0)
    victim = tab.seats[1]
    victim.clock, victim.connected_at = mine, connected_at
    tab.move(0, Go(1))
    ref.now, mine.now = 1020.1, 1040.1  # the house's clock, back-dated by 20 s
    first = tab.poll()
    ref.now = mine.now = 1040.2
    return tab, victim, first


def test_attack_a_house_back_dates_the_line_that_starts_a_wait_and_the_live_seat_refuses_it(monkeypatch,
                                                                                           tmp_path):
    """The line came live (seat 1 has been connected all along): its stamp 20 s behind seat 1's
    clock is the house's, not the network's. On main seat 1 took it and then the second tick
    (15.1 s from the stamp plus the tolerance: "on time"), and every copy verified."""
    ref = Clock(1000.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    mine = Clock(1000.0)
    victim = tab.seats[1]
    victim.clock = mine
    tab.move(0, Go(1))
    ref.now, mine.now = 1020.1, 1040.1
    with pytest.raises(ClockDispute) as refused:
        tab.poll()
    assert refused.value.code == "clock.skew"
    assert victim.view.next_line == 3  # its copy did not take the back-dated line
    [complaint] = victim.disputes
    assert complaint["code"] == "clock.skew" and complaint["line"] == 3 and complaint["live"] is True
    assert complaint["refereeAt"] == 1020.1 and complaint["receivedAt"] == 1040.1
    assert victim.received_at[2] == 1000.0  # when the line that began its wait really came


def test_a_late_stamp_in_a_catch_up_is_still_a_late_delivery(monkeypatch, tmp_path):
    """The twin: seat 1 (re)connected at 1040.0, after the first tick's stamp: the line may
    have been written while it was away and comes in its catch-up: taken. Its second tick
    then runs from that stamp plus the tolerance (15.1 s by its clock: taken too): the price
    of a catch-up, docs/timeouts-and-complaints.md."""
    tab, victim, first = _back_dated_wait(monkeypatch, tmp_path, connected_at=1040.0)
    assert first["action"] == "tick" and victim.view.next_line == 4 and victim.disputes == []
    assert tab.poll()["action"] == "tick" and victim.disputes == []


def test_a_line_stamped_after_the_connection_is_live_whatever_the_seat_was_told(monkeypatch, tmp_path):
    """A connection that began before the back-dated stamp: the line was written while the
    seat was connected, so it came live: refused as on the in-process table."""
    with pytest.raises(ClockDispute) as refused:
        _back_dated_wait(monkeypatch, tmp_path, connected_at=1000.0)
    assert refused.value.code == "clock.skew"


def test_a_seat_takes_the_arrival_time_it_was_given_not_its_clock_when_it_gets_to_the_line(monkeypatch,
                                                                                          tmp_path):
    """A client busy proving reads the line's arrival on its connection and gives it: a
    line that waited in its inbox is not a back-dated one."""
    ref = Clock(1000.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    view = Referee(tab.writer.events[0])
    seat = Seat(tab.spec, 1, "b", Prover(), tab.seats[1].key, tab.seats[1].deal_secrets, clock=Clock(1030.0))
    seat.receive(tab.writer.events[0], arrived=1000.2)
    line = tab.move(0, Go(1))
    seat.receive(line, arrived=1000.4)
    assert seat.received_at == {1: 1000.2, 2: 1000.4} and seat.disputes == []
    view.apply(line)


# ---------------------------------------------------------------- the deal phase's forfeits and timeouts

def _deal_table(tmp_path, ref: Clock, mine: Clock, hold: tuple[int, ...] = (), dealer_cls: type = Dealer,
                deal: str = "dealer", victim: int = 1, limits: Optional[TimeLimits] = None) -> Table:
    """A Proof or Bluff table (the dealer's deal, or the oblivious one) whose seat ``victim``
    reads its own clock ``mine``; seats in ``hold`` hold back their deal lines."""
    spec = spec_for("proof-or-bluff", {"mode": "casual", "deal": deal})
    seats = [Seat(spec, i, f"s{i}", Prover(), clock=mine if i == victim else ref) for i in range(2)]
    for i in hold:
        seats[i].sends_deal_lines = False
    tab = Table(RefereeParty(spec, prover=Prover(), clock=ref, limits=limits), dealer_cls(spec, Prover(), clock=ref),
                seats, TranscriptWriter(tmp_path / "deal.jsonl"))
    tab.start()
    return tab


class SilentDealer(Dealer):
    def act(self) -> None:
        return None


@pytest.mark.parametrize("case", ["entropy.forfeit", "deal.timeout", "oblivious.timeout"])
def test_attack_a_deal_phase_forfeit_its_seat_clock_contradicts_is_refused(tmp_path, case):
    """Every stamp within the tolerance of seat 1's clock (it reads 4 s ahead of the house's),
    yet the wait ran 52 s by its clock, not 60: on main seat 1 took the forfeit (or the
    timeout); now ``timeout.contradicted``, its complaint saved."""
    ref, mine = Clock(1000.0), Clock(1004.0)
    if case == "entropy.forfeit":  # seat 1 never sends its entropy: forfeited 60 s after the dealer's line
        tab = _deal_table(tmp_path, ref, mine, hold=(1,))
    elif case == "deal.timeout":  # the entropy phase completes; the dealer deals nothing
        tab = _deal_table(tmp_path, ref, mine, dealer_cls=SilentDealer)
    else:  # the oblivious deal: the chooser (seat 0) holds back its choice
        tab = _deal_table(tmp_path, ref, mine, hold=(0,), deal="oblivious", limits=TimeLimits(deal=60.0))
    ref.now, mine.now = 1060.1, 1056.0
    victim = tab.seats[1]
    with pytest.raises(ClockDispute) as refused:
        tab.poll()
    assert refused.value.code == "timeout.contradicted"
    assert tab.writer.events[-1]["action"] == case
    since = tab.writer.events[-1]["data"]["since"]
    [complaint] = victim.disputes
    assert complaint["code"] == "timeout.contradicted" and complaint["since"] == since
    assert complaint["sinceReceivedAt"] == 1004.0 and complaint["receivedAt"] == 1056.0
    assert complaint["seconds"] == pytest.approx(60.0)
    assert victim.view.next_line == tab.writer.events[-1]["n"]  # its copy did not take it


@pytest.mark.parametrize("case", ["entropy.forfeit", "deal.timeout", "oblivious.timeout"])
def test_an_honest_deal_phase_forfeit_is_taken(tmp_path, case):
    """The twin: the same tables, the wait run out on both clocks."""
    ref, mine = Clock(1000.0), Clock(1004.0)
    if case == "entropy.forfeit":
        tab = _deal_table(tmp_path, ref, mine, hold=(1,))
    elif case == "deal.timeout":
        tab = _deal_table(tmp_path, ref, mine, dealer_cls=SilentDealer)
    else:
        tab = _deal_table(tmp_path, ref, mine, hold=(0,), deal="oblivious", limits=TimeLimits(deal=60.0))
    ref.now, mine.now = 1060.1, 1063.0
    assert tab.poll()["action"] == case
    assert tab.seats[1].disputes == [] and tab.seats[1].view.over


# ---------------------------------------------------------------- the dealer's lines carry the referee's receipt

def _dealer_behind(tmp_path, behind: float) -> tuple[Table, Clock]:
    """A Proof or Bluff table (the dealer's deal) whose dealer's clock runs ``behind`` s behind
    the referee's; both seats hold back their entropy until the test lets them go."""
    ref = Clock(1000.0)
    spec = spec_for("proof-or-bluff", {"mode": "casual", "deal": "dealer"})
    seats = [Seat(spec, i, f"s{i}", Prover(), clock=ref) for i in range(2)]
    for s in seats:
        s.sends_deal_lines = False
    dealer = Dealer(spec, Prover(), clock=lambda: ref.now - behind)
    tab = Table(RefereeParty(spec, prover=Prover(), clock=ref), dealer, seats, TranscriptWriter(tmp_path / "d.jsonl"))
    advance = tab.advance
    tab.advance = lambda: None  # type: ignore[method-assign]  # the header at 1000, the dealer's line at 1010
    tab.start()
    tab.advance = advance  # type: ignore[method-assign]
    ref.now = 1010.0
    tab.advance()
    return tab, ref


def test_attack_a_dealer_clock_behind_the_referee_no_longer_shortens_the_entropy_window(tmp_path):
    """On main the entropy window ran from the dealer's own stamp: a dealer 4.9 s behind the
    referee (inside the tolerance) cut the seats' 60 s to 55.1 s, and a seat's entropy 59 s
    after the referee took the dealer's line was refused as late (``deal.late``). Now the
    dealer's line carries the referee's receipt and the window runs from it."""
    tab, ref = _dealer_behind(tmp_path, STAMP_TOLERANCE - 0.1)
    ref.now = 1069.0
    for s in tab.seats:
        s.sends_deal_lines = True
    tab.advance()  # main: LateEntropy ("entropy stamped 1069.0, after the deadline 1065.1")
    assert [e["action"] for e in tab.writer.events[2:4]] == ["entropy.seat", "entropy.seat"]
    commit = tab.writer.events[1]
    assert commit["action"] == "entropy.dealer"
    assert commit["received"]["at"] == 1010.0 and commit["at"] == pytest.approx(1005.1)
    assert commit["data"]["deadline"] == pytest.approx(1005.1 + 60.0)  # as the dealer signed it
    assert tab.view.ledger.deal.dealer["deadline"] == pytest.approx(1070.0)  # the window, from the receipt
    verify_transcript(tmp_path / "d.jsonl")  # offline: the same window, from the same receipt


def _dealer_line(tmp_path):
    tab, _ = _dealer_behind(tmp_path, 0.0)
    header, commit = tab.writer.events[0], tab.writer.events[1]
    return tab, header, commit, {k: v for k, v in commit.items() if k != "received"}


def test_a_dealer_receipt_beyond_the_tolerance_or_not_the_referees_is_refused_offline(tmp_path):
    tab, header, commit, bare = _dealer_line(tmp_path)
    for shift in (STAMP_TOLERANCE + 0.1, -(STAMP_TOLERANCE + 0.1)):
        with pytest.raises(IllegalMove) as refused:
            Referee(header, verify_now=False).apply(sign_receipt(tab.referee.key, bare, bare["at"] + shift))
        assert refused.value.code == "line.stamp"
    with pytest.raises(Exception) as refused:  # a receipt the dealer signed itself
        Referee(header).apply(sign_receipt(tab.dealer.key, bare, bare["at"]))
    assert getattr(refused.value, "code", None) == "line.signature"
    Referee(header).apply(commit)  # the twin: the receipt as the referee wrote it


def test_a_dealer_line_from_before_dealer_receipts_still_verifies(tmp_path):
    """A transcript from before the dealer's receipts: its line without one is taken on its own
    stamp, and the window runs from it."""
    tab, header, commit, bare = _dealer_line(tmp_path)
    view = Referee(header)
    view.apply(bare)
    assert view.ledger.deal.dealer["deadline"] == bare["data"]["deadline"]


def test_a_dealer_cannot_bring_its_own_receipt_and_the_referee_lines_carry_none(tmp_path):
    tab, header, commit, bare = _dealer_line(tmp_path)
    with pytest.raises(IllegalMove) as refused:
        tab.referee.admit(sign_receipt(tab.dealer.key, sign_line(tab.dealer.key, {**bare, "n": 3,
                                                                                  "prev": tab.view.head}), 1000.0))
    assert refused.value.code == "line.malformed"
    assert "received" not in header
