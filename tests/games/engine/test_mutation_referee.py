"""The engine referee's checks, each alone (issue 21): a stacked deal (a deal proof made
from entropies other than the recorded ones, or for another round or board), the starting
rank against the entropy commitments, each seat's entropy line, an ``end`` before the rules
end the match, a closing line before the end (then ``complete`` for an unfinished match),
and lines that carry what their kind never carries.

Each test builds the line that one check must refuse, with every other part honest (a real
proof under the pinned keys, the right party's signature), and asserts the message of that
check: deleting the check makes the line pass or fail elsewhere with another message."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar, Mapping

import pytest

from engine_toy_game import CountRules, CountSpec, Go, Tick, apply_all, count_match, rechain, write
from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, TranscriptError
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat
from zkbluff.games.engine.proven_deal import starting_draw
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine import registry
from zkbluff.games.engine.rules import NO_SEAT, Action
from zkbluff.games.engine.spec import Role
from zkbluff.games.engine.table import Table
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.proof_or_bluff.rules import N_RANKS, ClassicDeal, FiveUpDeal
from zkbluff.games.registry import spec_for
from zkbluff.protocol.entropy import EntropySecret
from zkbluff.protocol.signing import InvalidSignature, SigningKey, sign_line
from zkbluff.protocol.transcript import TranscriptWriter, canonical, line_hash

CLASSIC, FIVE_UP = "proof-or-bluff", "five-up-two-down"


class HeldDealer(Dealer):
    """Writes its entropy line, then deals nothing: the table stops before the deal."""

    def act(self):
        return None


def paused_table(game, keys=None, hold=()):
    """A table stopped right before the first deal (or, with ``hold``, before those seats'
    entropy lines)."""
    spec = spec_for(game, {"mode": "casual", "deal": "dealer"})  # the house's deal in proof (not the oblivious default)
    seats = [Seat(spec, i, f"s{i}", Prover(keys)) for i in range(2)]
    for i in hold:
        seats[i].sends_deal_lines = False
    tab = Table(RefereeParty(spec, prover=Prover(keys)), HeldDealer(spec, Prover(keys)), seats, TranscriptWriter(None))
    tab.start()
    return tab


def replay(tab, verify_now=True):
    """A fresh referee that has accepted every line the table wrote."""
    events = [json.loads(canonical(e)) for e in tab.writer.events]
    ref = Referee(events[0], verify_now=verify_now)
    for e in events[1:]:
        ref.apply(e)
    return ref


def deal_line(tab, inputs=None, action=None):
    """The dealer's signed deal line for round 1 with a real proof: the honest inputs
    with ``inputs`` changed, and the honest action or ``action``."""
    d = tab.dealer
    spec = tab.spec
    move = spec.dealer_move(d.state, d.view.rules, d.view.ledger, d.view.match_id, d.view.next_line)
    env = d.prover.prove(spec.deal.statement_id, {**move.proofs[0], **(inputs or {})}, d.view.match_id,
                         d.view.next_line, d.view.head, None)
    return d._line(NO_SEAT, "deal", (action or move.action).to_data(), [env])


@pytest.fixture(scope="module")
def classic_paused(match_keys):
    tab = paused_table(CLASSIC, match_keys)
    assert [e["action"] for e in tab.writer.events] == ["header", "entropy.dealer", "entropy.seat", "entropy.seat",
                                                         "entropy.open", "entropy.open"]  # commit, then open
    return tab


@pytest.fixture(scope="module")
def five_up_paused(match_keys):
    return paused_table(FIVE_UP, match_keys)


# ---------------------------------------------------------------- a stacked deal

def test_the_honest_deal_line_is_accepted(classic_paused):
    ref = replay(classic_paused)
    action, publics = ref.apply(deal_line(classic_paused))
    assert isinstance(action, ClassicDeal) and ref.ledger.hands[0] == publics[0]["hand0_commitment"]


def test_a_deal_from_an_entropy_the_dealer_chose_for_the_seat_is_refused(classic_paused):
    """The dealer proves a deal from its own entropy and one it picked in the seat's place
    (so it knows every hand it stacks): the proof is valid, only the referee's pin of the
    seat's recorded commitment refuses it (before the seat ever opens its hand)."""
    chosen = EntropySecret.fresh()
    line = deal_line(classic_paused, {"entropy1": chosen.entropy, "entropy1_salt": chosen.salt})
    ref = replay(classic_paused)
    with pytest.raises(IllegalMove, match="public input entropy1_commitment is not what the table holds"):
        ref.apply(line)
    assert ref.next_line == len(classic_paused.writer.events) + 1  # nothing changed
    ref.apply(deal_line(classic_paused))


def test_a_deal_from_another_dealer_entropy_is_refused(classic_paused):
    chosen = EntropySecret.fresh()
    line = deal_line(classic_paused, {"entropy0": chosen.entropy, "entropy0_salt": chosen.salt})
    with pytest.raises(IllegalMove, match="public input entropy0_commitment is not what the table holds"):
        replay(classic_paused).apply(line)


def test_a_deal_proved_for_another_round_is_refused(classic_paused):
    """The proof of round 2's deal (other hands, from the same entropies) on round 1's line."""
    line = deal_line(classic_paused, {"round": 2})
    with pytest.raises(IllegalMove, match="public input round is not what the table holds"):
        replay(classic_paused).apply(line)


def test_the_starting_rank_must_be_the_commitments_draw(classic_paused):
    ref = replay(classic_paused)
    draw = starting_draw(ref.ledger, N_RANKS)
    honest = classic_paused.spec.dealer_move(classic_paused.dealer.state, ref.rules, ref.ledger, ref.match_id,
                                             ref.next_line).action
    assert honest.starting_rank == draw
    for other in ((draw + 1) % N_RANKS, (draw + 12) % N_RANKS):
        line = deal_line(classic_paused, action=ClassicDeal(1, other, honest.sealed_hands))
        with pytest.raises(IllegalMove, match=f"the starting rank is the deal's public draw {draw}, "
                                              f"not {other}"):
            ref.apply(line)
    ref.apply(deal_line(classic_paused))
    assert ref.rules.s.required_rank == draw


def test_a_five_up_deal_with_another_board_than_its_proof_is_refused(five_up_paused):
    ref = replay(five_up_paused)
    honest = five_up_paused.spec.dealer_move(five_up_paused.dealer.state, ref.rules, ref.ledger, ref.match_id,
                                             ref.next_line).action
    cards = [c for c in range(52) if honest.board >> c & 1]
    spare = next(c for c in range(52) if not honest.board >> c & 1)
    other = (honest.board & ~(1 << cards[0])) | (1 << spare)  # five cards still, one swapped
    line = deal_line(five_up_paused, action=FiveUpDeal(1, other, honest.sealed_hands))
    with pytest.raises(IllegalMove, match="public input board is not what the table holds"):
        ref.apply(line)
    ref.apply(deal_line(five_up_paused))
    assert ref.rules.s.board == honest.board


def test_a_deal_with_too_few_sealed_hands_is_malformed(classic_paused):
    honest = deal_line(classic_paused)
    data = {**honest["data"], "sealed_hands": honest["data"]["sealed_hands"][:1]}
    line = classic_paused.dealer._line(NO_SEAT, "deal", data, honest["proofs"])
    with pytest.raises(MalformedInput, match="1 sealed hands, expected one for each of the 2 seats dealt to"):
        replay(classic_paused).apply(line)
    data = {**honest["data"], "sealed_hands": ["XY", honest["data"]["sealed_hands"][1]]}
    line = classic_paused.dealer._line(NO_SEAT, "deal", data, honest["proofs"])
    with pytest.raises(MalformedInput, match="sealed hand 0"):
        replay(classic_paused).apply(line)


# ---------------------------------------------------------------- each seat's entropy line

@pytest.fixture(scope="module")
def entropy_paused(match_keys):
    """Both seats hold back their entropy lines: the table waits after the dealer's."""
    tab = paused_table(CLASSIC, match_keys, hold=(0, 1))
    assert [e["action"] for e in tab.writer.events] == ["header", "entropy.dealer"]
    for s in tab.seats:
        s.sends_deal_lines = True
    return tab


def seat_line(tab, seat, change=None):
    s = tab.seats[seat]
    line = s.deal_line()
    data = dict(line["data"])
    if change:
        change(data)
    return s._line(seat, "entropy.seat", data, at=line["at"])


def test_each_seats_entropy_line_is_checked_on_its_own(entropy_paused):
    tab = entropy_paused
    assert tab.spec.deal.dealer_seat == 1 and tab.spec.deal.entropy_seats == (0,)
    other = str(EntropySecret.fresh().commitment)
    cases = [
        (0, lambda d: d.update(commitment=None), IllegalMove, "seat 0: an entropy commitment is due"),
        (1, lambda d: d.update(commitment=other), IllegalMove, "seat 1: the dealer's seat contributes no entropy"),
        (0, lambda d: d.update(commitment="12x"), MalformedInput, "'commitment' must be a decimal string"),
        (0, lambda d: d.update(handKeyCommitment="ab"), MalformedInput, "'handKeyCommitment' must be 64"),
        (0, lambda d: d.update(channelKey="AB" * 32), MalformedInput, "'channelKey' must be 64 lowercase hex"),
        (0, lambda d: d.update(sealed="ab"), MalformedInput, "entropy.seat: fields"),  # no opening beside it
        (0, lambda d: d.pop("channelKey"), MalformedInput, "entropy.seat: fields"),
    ]
    for seat, change, err, match in cases:
        ref = replay(tab)
        with pytest.raises(err, match=match):
            ref.apply(seat_line(tab, seat, change))
        assert ref.ledger.deal.seats == {}  # nothing recorded
    ref = replay(tab)
    ref.apply(seat_line(tab, 0))
    with pytest.raises(IllegalMove, match=r"seat 0: its entropy is already recorded \(line 3\)"):
        second = tab.seats[0]._line(0, "entropy.seat", seat_line(tab, 0)["data"])
        ref.apply(sign_line(tab.seats[0].key, {**second, "n": 4, "prev": ref.head}))
    ref.apply(sign_line(tab.seats[1].key, {**seat_line(tab, 1), "n": 4, "prev": ref.head}))
    assert sorted(ref.ledger.deal.seats) == [0, 1] and not ref.deal_ready  # committed; the openings are owed


def test_a_seats_entropy_line_in_another_seats_name_is_refused(entropy_paused):
    tab = entropy_paused
    line = seat_line(tab, 0)
    forged = sign_line(tab.seats[1].key, {k: v for k, v in line.items() if k != "sig"})
    with pytest.raises(InvalidSignature, match="not signed by seat 0"):
        replay(tab).apply(forged)


def test_no_game_action_before_the_entropy_phase_is_complete(entropy_paused):
    tab = entropy_paused
    ref = replay(tab)
    line = sign_line(tab.dealer.key, {"n": ref.next_line, "prev": ref.head, "seat": None, "action": "deal",
                                      "data": {"round": 1, "starting_rank": 0, "sealed_hands": ["ab", "cd"]},
                                      "at": ref.head_at})
    with pytest.raises(IllegalMove, match="deal: the deal's entropy phase is not complete"):
        ref.apply(line)


# ---------------------------------------------------------------- end and closing, on a toy game

@pytest.fixture
def count_game(monkeypatch, tmp_path):
    return count_match(monkeypatch, tmp_path)


def test_the_toy_match_verifies_complete_only_with_its_closing_line(count_game, tmp_path):
    tab, events, path = count_game
    report = verify_transcript(path)
    assert report["complete"] and report["over"] and report["winner"] == 0
    ref, err = apply_all(tab, events)
    assert err is None and ref.complete and ref.closed and ref.ended
    ref, err = apply_all(tab, events[:-1])
    assert err is None and ref.ended and not ref.closed and not ref.complete and ref.over
    with pytest.raises(TranscriptError, match="but the reveal line is missing"):
        verify_transcript(write(tmp_path, rechain(tab, events[:-1])))
    with pytest.raises(TranscriptError, match="but the end and reveal lines are missing"):
        verify_transcript(write(tmp_path, rechain(tab, events[:-2])))


def test_an_unfinished_match_is_not_complete(count_game, tmp_path):
    tab, events, _ = count_game
    report = verify_transcript(write(tmp_path, rechain(tab, events[:3])))
    assert report["complete"] is False and report["over"] is False and report["result"] is None


def test_an_end_before_the_rules_end_the_match_is_refused(count_game):
    tab, events, _ = count_game
    for cut in (1, 2, 3):  # after the header, after one go, after two
        end = {**events[4], "data": {"placements": [1, 2], "scores": [cut - 1, 0], "reason": "three steps"}}
        ref, err = apply_all(tab, events[:cut] + [end])
        assert isinstance(err, IllegalMove) and "end: the match is not over by the rules" in str(err)
        assert not ref.ended and not ref.complete


def test_a_reveal_before_the_end_is_refused_and_never_makes_the_match_complete(count_game, tmp_path):
    tab, events, _ = count_game
    for cut in (1, 3, 4):  # after the header, mid-match, after the last go (over, no end yet)
        ref, err = apply_all(tab, events[:cut] + [events[5]])
        assert isinstance(err, IllegalMove) and "reveal: before the end" in str(err)
        assert not ref.closed and not ref.complete
        with pytest.raises(TranscriptError, match="reveal: before the end"):
            verify_transcript(write(tmp_path, rechain(tab, events[:cut] + [events[5]])))


def test_end_and_closing_lines_are_checked_each_on_its_own(count_game):
    tab, events, _ = count_game
    end, reveal = events[4], events[5]
    cases = [
        ([end, end], IllegalMove, "end: a second end"),
        ([{**end, "data": {**end["data"], "reason": "other"}}], IllegalMove, "end: recorded"),
        ([{**end, "data": {**end["data"], "placements": [2, 1]}}], IllegalMove, "the rules give"),
        ([{**end, "proofs": []}], IllegalMove, "end: an unexpected proof"),
        ([{**end, "clock": {"since": 4}}], IllegalMove, "end: an unexpected clock"),
        ([end, {**reveal, "proofs": []}], IllegalMove, "reveal: an unexpected proof"),
        ([end, {**reveal, "clock": {}}], IllegalMove, "reveal: an unexpected clock"),
        ([end, {**reveal, "data": {"secret": "cd" * 32}}], CommitmentMismatch, "does not open"),
        ([end, {**reveal, "data": []}], MalformedInput, "reveal: data must be"),
        ([end, reveal, reveal], IllegalMove, "nothing may follow the closing line"),
        ([end, reveal, end], IllegalMove, "nothing may follow the closing line"),
        ([end, {**events[3], "seat": 1}], IllegalMove, "go: the match is over"),
        ([end, {"seat": None, "action": "tick", "data": {}}], IllegalMove, "tick: the match is over"),
        ([{"seat": None, "action": "tick", "data": {}}], IllegalMove, "tick: the match is over"),
    ]
    for tail, err_type, match in cases:
        ref, err = apply_all(tab, events[:4] + tail)
        assert isinstance(err, err_type) and match in str(err), (match, err)
    ref, err = apply_all(tab, events[:4] + [end, reveal])
    assert err is None and ref.complete


def test_end_and_closing_lines_are_made_by_their_parties(count_game):
    tab, events, _ = count_game
    lines = rechain(tab, events)
    ref = Referee(json.loads(lines[0]))
    for x in lines[1:4]:
        ref.apply(json.loads(x))
    end = json.loads(lines[4])
    by_dealer = sign_line(tab.dealer.key, {k: v for k, v in end.items() if k != "sig"})
    with pytest.raises(InvalidSignature, match="not signed by the referee"):
        ref.apply(by_dealer)
    with pytest.raises(IllegalMove, match="the referee's line, but it names seat 0"):
        ref.apply(sign_line(tab.seats[0].key, {**{k: v for k, v in end.items() if k != "sig"}, "seat": 0}))
    ref.apply(end)
    reveal = json.loads(lines[5])
    by_referee = sign_line(tab.referee.key, {k: v for k, v in reveal.items() if k != "sig"})
    with pytest.raises(InvalidSignature, match="not signed by the dealer"):
        ref.apply(by_referee)
    ref.apply(reveal)
    assert ref.complete


def test_a_referee_action_is_refused_from_a_seat_and_a_seat_action_from_the_referee(count_game):
    tab, events, _ = count_game
    tick = {"seat": 0, "action": "tick", "data": {}}
    ref, err = apply_all(tab, events[:2] + [tick])
    assert isinstance(err, IllegalMove) and "tick: the referee's line, but it names seat 0" in str(err)
    ref, err = apply_all(tab, events[:2] + [{"seat": None, "action": "tick", "data": {}}])
    assert err is None and ref.next_line == 4
    ref, err = apply_all(tab, events[:1] + [{**events[1], "seat": None}])
    assert isinstance(err, IllegalMove) and "go: a seat's action; the dealer or referee (seat null)" in str(err)
    for seat in (2, -1, True, "0", 1.5):
        err = _apply_unsigned(tab, events, seat)
        assert isinstance(err, MalformedInput) and "go: seat must be 0..1" in str(err), (seat, err)


def _apply_unsigned(tab, events, seat):
    """A seat value no key can be found for (bool, string): refused before the signature."""
    lines = rechain(tab, events[:1])
    ref = Referee(json.loads(lines[0]))
    try:
        ref.apply({**events[1], "n": 2, "prev": ref.head, "seat": seat})
    except Exception as exc:  # noqa: BLE001
        return exc
    return None


def test_unknown_and_malformed_actions_are_typed(count_game):
    tab, events, _ = count_game
    cases = [
        ({"seat": 0, "action": "jump", "data": {}}, MalformedInput, "count-to-three: unknown action 'jump'"),
        ({"seat": None, "action": "header", "data": {}}, IllegalMove, "a second header"),
        ({"seat": 0, "action": 7, "data": {}}, MalformedInput, "action must be a string, got 7"),
        ({"seat": 0, "action": "go", "data": {"step": "1"}}, MalformedInput, "go: step must be an integer"),
        ({"seat": 0, "action": "go", "data": {"step": 1, "x": 1}}, MalformedInput, "go: data fields"),
        ({"seat": 0, "action": "go", "data": []}, MalformedInput, "go: data must be an object"),
        ({"seat": 0, "action": "go", "data": {"step": 1}, "clock": {}}, IllegalMove, "only a timeout carries a clock"),
        ({"seat": 0, "action": "go", "data": {"step": 1}, "proofs": []}, IllegalMove, "an unexpected proof"),
        ({"seat": 0, "action": "go", "data": {"step": 1}, "at": -1}, MalformedInput, "'at' must be a time"),
        ({"seat": 0, "action": "go", "data": {"step": 1}, "at": True}, MalformedInput, "'at' must be a time"),
        ({"seat": 0, "action": "go", "data": {"step": 1}, "at": None}, MalformedInput, "'at' must be a time"),
        ({"seat": 0, "action": "go", "data": {"step": 1}, "at": "1"}, MalformedInput, "'at' must be a time"),
        ({"seat": 0, "action": "go", "data": {"step": 1}, "at": float("inf")}, MalformedInput, "'at' must be"),
    ]
    for line, err_type, match in cases:
        ref, err = apply_all(tab, events[:1] + [line])
        assert isinstance(err, err_type) and match in str(err), (match, err)
        assert ref.next_line == 2


def test_a_stamp_of_zero_is_a_time_and_the_end_records_the_result(count_game):
    tab, events, _ = count_game
    ref, err = apply_all(tab, events[:1] + [{**events[1], "at": 0}, {**events[2], "at": 0.0}])
    assert err is None and ref.head_at == 0.0
    assert events[4]["data"] == {"placements": [1, 2], "scores": [3, 0], "reason": "three steps"}


def test_limit_seconds():
    from zkbluff.games.engine.referee import limit_seconds

    limits = {"idle": 5, "proof": 2.5}
    assert limit_seconds(limits, "idle") == 5.0 and isinstance(limit_seconds(limits, "idle"), float)
    assert limit_seconds(limits, "proof") == 2.5
    assert limit_seconds(limits, 3) == 3.0 and limit_seconds(limits, 0.5) == 0.5  # a game's own seconds
    assert limit_seconds(limits, "deal") is None and limit_seconds(limits, True) is None
    assert limit_seconds(limits, None) is None and limit_seconds(limits, ["idle"]) is None


def test_a_line_that_does_not_follow_is_refused(count_game):
    tab, events, _ = count_game
    lines = rechain(tab, events)
    ref = Referee(json.loads(lines[0]))
    second = json.loads(lines[1])
    for bad in ({**second, "n": 3}, {**second, "prev": "0" * 64}, {**second, "n": "2"}):
        with pytest.raises(IllegalMove, match="does not follow line 1"):
            ref.apply(bad)
    with pytest.raises(MalformedInput, match="a line must be an object"):
        ref.apply([second])  # type: ignore[arg-type]
    ref.apply(sign_line(tab.seats[0].key, {**{k: v for k, v in second.items() if k != "sig"}, "at": 100.0}))
    later = {k: v for k, v in json.loads(lines[2]).items() if k != "sig"}
    stamped = sign_line(tab.seats[1].key, {**later, "prev": ref.head, "at": 99.5})
    with pytest.raises(IllegalMove, match="before the line it follows"):
        ref.apply(stamped)


@pytest.mark.parametrize("change, err_type, match", [
    (lambda h: h.update(n=2), MalformedInput, "the first line must be the header"),
    (lambda h: h.update(prev="1" * 64), MalformedInput, "the first line must be the header"),
    (lambda h: h.update(action="go"), MalformedInput, "the first line must be the header"),
    (lambda h: h.update(seat=0), MalformedInput, "the first line must be the header"),
    (lambda h: h.update(data=[]), MalformedInput, "header: fields list"),
    (lambda h: h["data"].pop("trust"), MalformedInput, "header: fields"),
    (lambda h: h["data"].update(extra=1), MalformedInput, "header: fields"),
    (lambda h: h["data"].update(limits={"idle": 0}), MalformedInput, "limits must map names to positive seconds"),
    (lambda h: h["data"].update(limits={"idle": True}), MalformedInput, "limits must map"),
    (lambda h: h["data"].update(limits={"idle": float("inf")}), MalformedInput, "limits must map"),
    (lambda h: h["data"].update(limits=[1]), MalformedInput, "limits must map"),
    (lambda h: h["data"].update(game="nope"), MalformedInput, "unknown game 'nope'"),
    (lambda h: h["data"].update(options=[]), MalformedInput, "options must be an object"),
    (lambda h: h["data"].update(matchId=""), MalformedInput, "matchId must be a non-empty string"),
    (lambda h: h["data"].update(matchId=5), MalformedInput, "matchId must be a non-empty string"),
    (lambda h: h["data"].update(seats=["a"]), MalformedInput, "seats must be 2 names"),
    (lambda h: h["data"].update(seats=["a", 2]), MalformedInput, "seats must be 2 names"),
    (lambda h: h["data"].update(seats="ab"), MalformedInput, "seats must be 2 names"),
    (lambda h: h["data"]["parties"].pop("dealer"), MalformedInput, "parties must list"),
    (lambda h: h["data"]["parties"].update(seats=["00" * 32]), MalformedInput, "parties must list"),
    (lambda h: h["data"]["parties"].update(seats="x"), MalformedInput, "parties must list"),
    (lambda h: h["data"].update(parties=[]), MalformedInput, "parties must list"),
    (lambda h: h["data"]["parties"].update(dealer="zz"), MalformedInput, "the dealer's public key"),
    (lambda h: h["data"].update(keys={"x": {}}), MalformedInput, "header: expected keys for"),
    (lambda h: h["data"].update(keys=[]), MalformedInput, "header: expected keys for"),
    (lambda h: h["data"].update(deal={}), MalformedInput, "count: deal must be"),
])
def test_every_header_field_is_checked(count_game, change, err_type, match):
    tab, events, _ = count_game
    header = json.loads(json.dumps(events[0]))
    header.pop("sig")
    change(header)
    signed = sign_line(tab.referee.key, header)
    with pytest.raises(err_type, match=match):
        Referee(signed)


def test_the_header_is_signed_by_the_referee_it_names(count_game):
    tab, events, _ = count_game
    header = {k: v for k, v in events[0].items() if k != "sig"}
    with pytest.raises(InvalidSignature, match="not signed by the referee"):
        Referee(sign_line(SigningKey.generate(), header))
    Referee(sign_line(tab.referee.key, header))


# ---------------------------------------------------------------- any line: a typed error from an explicit check

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**70) | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)
KINDS = st.sampled_from(["go", "tick", "end", "reveal", "header", "deal", "entropy.seat"]) | JSON
LINES = st.fixed_dictionaries(
    {"seat": st.sampled_from([None, 0, 1, 2, -1, True]) | JSON, "action": KINDS, "data": JSON},
    optional={"proofs": JSON, "clock": JSON, "at": JSON})


@settings(max_examples=150, deadline=None,  # the list replaces the profile's: too_slow kept off here too
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(line=LINES, cut=st.sampled_from([1, 2, 4, 5]))
def test_any_line_is_accepted_or_refused_by_a_named_check(count_game, line, cut):
    """A line of any shape after any prefix of a real match, signed by the key its seat or
    role names: the referee accepts it or raises a ZkbluffError from one of its checks
    (never the catch-all 'malformed line (KeyError ...)'), and a refused line changes nothing."""
    from zkbluff.errors import ZkbluffError

    tab, events, _ = count_game
    lines = rechain(tab, events[:cut])
    ref = Referee(json.loads(lines[0]))
    for x in lines[1:]:
        ref.apply(json.loads(x))
    event = {**line, "n": ref.next_line, "prev": ref.head}
    seat = event["seat"]
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 2:
        key = tab.seats[seat].key
    else:
        key = tab.dealer.key if event["action"] == "reveal" else tab.referee.key
    event = sign_line(key, event)
    state = (ref.next_line, ref.head, ref.ended, ref.closed, ref.rules.public_state())
    try:
        ref.apply(event)
    except ZkbluffError as exc:
        assert "malformed line (" not in str(exc), str(exc)
        assert (ref.next_line, ref.head, ref.ended, ref.closed, ref.rules.public_state()) == state


# ---------------------------------------------------------------- a timeout states its clock

def test_a_timeout_needs_its_stamp_its_clock_and_a_passed_deadline(classic_paused):
    from zkbluff.errors import EarlyTimeout

    tab = classic_paused
    ref = replay(tab)
    ref.apply(deal_line(tab))
    assert ref.rules.to_move == 0 and ref.rules.s.phase == "play"
    idle = tab.view.header["limits"]["idle"]

    def timeout(at=None, clock=None, data=None):
        e = {"n": ref.next_line, "prev": ref.head, "seat": None, "action": "timeout",
             "data": data or {"seat": 0, "limit": "idle"}}
        if at is not None:
            e["at"] = at
        if clock is not None:
            e["clock"] = clock
        return sign_line(tab.referee.key, e)

    with pytest.raises(MalformedInput, match="no time stamp 'at' \\(every line carries its stamp\\)$"):
        ref.apply(timeout())
    deadline = ref.head_at + idle
    with pytest.raises(IllegalMove, match="^timeout: its clock None is not what the transcript gives"):
        ref.apply(timeout(at=deadline + 1))
    due = ref.timeout_clock(0, "idle", deadline + 1)
    assert due == {"since": ref.next_line - 1, "limit": "idle", "seconds": idle, "deadline": deadline,
                   "lastSigned": [5, line_hash(canonical(tab.writer.events[4]))]}  # seat 0's entropy opening
    with pytest.raises(EarlyTimeout, match=f"declared at {deadline}, not after its deadline {deadline}"):
        ref.apply(timeout(at=deadline, clock=due))
    with pytest.raises(IllegalMove, match="seat 1 is not the seat to move"):
        ref.apply(timeout(at=deadline + 1, clock=ref.timeout_clock(1, "idle", deadline + 1),
                          data={"seat": 1, "limit": "idle"}))
    with pytest.raises(IllegalMove, match="proof timeout: not allowed now"):
        ref.apply(timeout(at=deadline + 1, clock=ref.timeout_clock(0, "proof", deadline + 1),
                          data={"seat": 0, "limit": "proof"}))
    ref.apply(timeout(at=deadline + 1, clock=due))
    assert ref.over and ref.result().placements == (2, 1)


# ---------------------------------------------------------------- gaps found by `make mutate` (engine.referee)

def resigned(key, line, **change):
    """``line`` with ``change`` applied (a None value drops the field), signed again by ``key``."""
    e = {k: v for k, v in line.items() if k != "sig"}
    for k, v in change.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return sign_line(key, e)


def test_a_deal_phase_line_carries_no_proof_and_no_clock(entropy_paused):
    """An entropy line is the deal scheme's to check, which looks at its data only: the
    referee itself refuses the fields the scheme never reads (and records nothing)."""
    tab = entropy_paused
    honest = seat_line(tab, 0)
    for change, match in (({"proofs": []}, "^entropy.seat: an unexpected proof$"),
                          ({"clock": {"since": 2}}, "^entropy.seat: unexpected fields$")):
        ref = replay(tab)
        with pytest.raises(IllegalMove, match=match):
            ref.apply(resigned(tab.seats[0].key, honest, **change))
        assert ref.ledger.deal.seats == {} and ref.next_line == 3
    ref = replay(tab)
    ref.apply(honest)  # the twin: the same line without them is recorded
    assert sorted(ref.ledger.deal.seats) == [0]


class _Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_a_game_without_scores_ends_by_its_deal_with_every_score_zero(match_keys, tmp_path):
    """Cheat's public state keeps penalties, not ``scores``: a forfeit before the deal (a
    seat that sent no entropy in time) ends the match with a score of 0 for every seat."""
    from zkbluff.games.engine.parties import TimeLimits

    spec = spec_for("cheat", {"players": "3"})
    clock = _Clock()
    seats = [Seat(spec, i, f"s{i}", Prover(match_keys), clock=clock) for i in range(3)]
    seats[2].sends_deal_lines = False
    path = tmp_path / "cheat.jsonl"
    tab = Table(RefereeParty(spec, prover=Prover(match_keys), limits=TimeLimits(entropy=30), clock=clock),
                Dealer(spec, Prover(match_keys), clock=clock), seats, TranscriptWriter(path))
    tab.start()
    ref = replay(tab)
    assert not ref.over and ref.result() is None
    clock.t += 31
    forfeit = tab.poll()
    assert forfeit["action"] == "entropy.forfeit" and forfeit["data"]["seats"] == [2]
    assert tab.view.over and tab.writer.events[-1]["action"] == "end"
    assert tab.view.result().scores == (0, 0, 0) and tab.view.result().placements == (1, 1, 2)
    assert verify_transcript(path)["scores"] == [0, 0, 0]
    # over by the deal before the end line: no deal-phase line may follow (the late seat's entropy)
    ref = replay(tab)
    ref_before_end = Referee(tab.writer.events[0])
    for e in tab.writer.events[1:-1]:
        ref_before_end.apply(e)
    assert ref_before_end.over and not ref_before_end.ended
    shape = next(e for e in tab.writer.events if e["action"] == "entropy.seat")  # a seat's entropy line, as seat 2
    late = sign_line(seats[2].key, {**{k: v for k, v in shape.items() if k not in ("sig", "received")}, "seat": 2,
                                    "n": ref_before_end.next_line, "prev": ref_before_end.head, "at": clock.t})
    with pytest.raises(IllegalMove, match="^entropy.seat: the match is over$") as exc:
        ref_before_end.apply(late)
    assert exc.value.code == "line.order"  # the referee's own check (the scheme's says rules.illegal)
    assert ref.ended and ref.complete


def test_the_live_referee_takes_a_stamp_within_five_seconds_of_its_clock(count_game):
    """STAMP_TOLERANCE is 5 s either way: a line stamped 5 s from the live referee's clock is
    taken, one stamped a little more is refused (a back-dated entropy or timeout)."""
    from zkbluff.games.engine.parties import RefereeParty
    from zkbluff.games.engine.referee import STAMP_TOLERANCE

    tab, events, _ = count_game
    assert STAMP_TOLERANCE == 5.0
    for at, ok in ((1005.0, True), (995.0, True), (1005.25, False), (994.75, False)):
        lines = rechain(tab, [{**events[0], "at": 1000.0}, {**events[1], "at": at}])
        party = RefereeParty(tab.spec, key=tab.referee.key, clock=lambda: 1000.0)
        party.receive(json.loads(lines[0]))
        if ok:
            party.receive(party.admit(json.loads(lines[1])))  # as the table passes it: with the receipt
            assert party.view.next_line == 3
        else:
            with pytest.raises(IllegalMove, match=f"^line 2 is stamped {at}; the referee's clock reads 1000.0$"):
                party.receive(party.admit(json.loads(lines[1])))
            assert party.view.next_line == 2


@pytest.mark.parametrize("stray", [KeyError("step"), IndexError("hands"), TypeError("unorderable"),
                                   ValueError("bad"), AttributeError("no field")])
def test_a_stray_error_of_a_games_own_code_is_a_malformed_line(count_game, monkeypatch, stray):
    """Data of a shape a game's code did not expect (its check raising a lookup, type, value or
    attribute error) is MalformedInput naming the line's action, never the raw exception,
    and the line changes nothing."""
    tab, events, _ = count_game
    lines = rechain(tab, events[:2])
    ref = Referee(json.loads(lines[0]))

    def check(self, seat, action):
        raise stray

    monkeypatch.setattr(CountRules, "check", check)
    with pytest.raises(MalformedInput, match=f"^'go': malformed line \\({type(stray).__name__}: "):
        ref.apply(json.loads(lines[1]))
    assert ref.next_line == 2 and ref.rules.s.total == 0


def test_a_header_with_only_the_required_fields_is_accepted(count_game):
    """``limits`` and ``ceremony`` are optional: a header without either is a header (the
    twin of the field checks above, which refuse one field short or one too many)."""
    tab, events, _ = count_game
    header = {k: v for k, v in json.loads(json.dumps(events[0])).items() if k != "sig"}
    assert "limits" in header["data"] and "ceremony" not in header["data"]
    header["data"].pop("limits")
    ref = Referee(sign_line(tab.referee.key, header))
    assert ref.header.get("limits") is None and ref.next_line == 2
    # ... and one with both optional fields (the caller checks the ceremony record it names)
    header["data"].update(limits={"idle": 20, "proof": 10.5}, ceremony={"digest": "ab" * 32, "record": "r"})
    ref = Referee(sign_line(tab.referee.key, header))
    assert ref.header["limits"] == {"idle": 20, "proof": 10.5}  # seconds, each at least its floor (an int or not)


def test_a_timeout_clock_needs_a_known_limit_and_a_stamp(count_game):
    tab, events, _ = count_game
    lines = rechain(tab, [{**events[0], "at": 1000.0}, {**events[1], "at": 1001.0}])
    ref = Referee(json.loads(lines[0]))
    ref.apply(json.loads(lines[1]))
    assert ref.timeout_clock(1, "idle", 2000.0)["deadline"] == 1001.0 + ref.header["limits"]["idle"]
    with pytest.raises(MalformedInput, match=r"^timeout: needs the header's limits.nosuch and a stamp on line 2$"):
        ref.timeout_clock(1, "nosuch", 2000.0)
    header = {k: v for k, v in events[0].items() if k not in ("at", "sig")}  # every line carries its stamp
    with pytest.raises(MalformedInput, match=r"^line 1: no time stamp 'at'") as refused:
        Referee(sign_line(tab.referee.key, header))
    assert refused.value.code == "line.stamp"


def test_no_line_data_may_carry_a_secret(count_game):
    """Beyond its action's own fields, a line's data may not carry a field named as a secret
    (``secret.leaked``), whatever the action's own check would say; another stray field is
    the action's to refuse."""
    tab, events, _ = count_game
    go = events[1]
    for data, code in (({"step": 1, "salt": "5"}, "secret.leaked"), ({"step": 1, "hand_salt": "5"}, "secret.leaked"),
                       ({"step": 1, "witness": []}, "secret.leaked"), ({"step": 1, "extra": 1}, "malformed")):
        ref, err = apply_all(tab, events[:1] + [{**go, "data": data}])
        assert isinstance(err, MalformedInput) and err.code == code, (data, err)
        assert ref.next_line == 2
    ref, err = apply_all(tab, events[:1] + [{**go, "data": {"step": 1, "salt": "5"}}])
    assert str(err) == "go: data field(s) ['salt'] named as secrets: no line may carry a secret"
    end = events[4]
    ref, err = apply_all(tab, events[:4] + [{**end, "data": {**end["data"], "secret": "x"}}])
    assert isinstance(err, MalformedInput) and err.code == "secret.leaked"
    # the closing line's data is the scheme's (the dealer's revealed secret is its point)
    ref, err = apply_all(tab, events)
    assert err is None and ref.complete


def test_a_deal_line_may_not_carry_a_secret_beyond_its_fields(entropy_paused):
    tab = entropy_paused
    honest = seat_line(tab, 0)
    ref = replay(tab)
    with pytest.raises(MalformedInput, match=r"^entropy.seat: data field\(s\) \['entropy'\] named as secrets"):
        ref.apply(resigned(tab.seats[0].key, honest, data={**honest["data"], "entropy": "ab" * 32}))
    private = sorted(ref.secret_names)[0]  # a private witness input of one of the match's statements
    with pytest.raises(MalformedInput, match=rf"^entropy.seat: data field\(s\) \['{private}'\] named as secrets"):
        ref.apply(resigned(tab.seats[0].key, honest, data={**honest["data"], private: "1"}))
    assert ref.ledger.deal.seats == {}


@dataclass(frozen=True)
class Idle(Action):
    kind: ClassVar[str] = "idle_timeout"
    role: ClassVar[Role] = Role.REFEREE
    seat: int


class LaxIdleRules(CountRules):
    """The toy game with a timeout whose rules take any seat: only the referee's own check
    (the timeout must be the spec's for the seat to move) stands between it and the table."""

    def check(self, seat, action):
        if isinstance(action, Idle):
            if seat is not NO_SEAT or self.over:
                raise IllegalMove("idle_timeout: the referee's, before the end")
            return
        super().check(seat, action)

    def _apply(self, seat, action):
        if isinstance(action, Idle):
            self.s.total = 3
        else:
            super()._apply(seat, action)


class TimedCountSpec(CountSpec):
    actions = (Go, Tick, Idle)

    def new_rules(self):
        return LaxIdleRules()

    def timeout(self, rules):
        return None if rules.over else (Idle(rules.to_move), "idle")


def test_a_timeout_must_name_the_seat_to_move_even_where_the_rules_would_take_another(count_game, monkeypatch):
    tab, events, _ = count_game
    monkeypatch.setitem(registry._GAMES, CountSpec.game, TimedCountSpec)
    lines = rechain(tab, [{**events[0], "at": 1000.0}, {**events[1], "at": 1001.0}])
    ref = Referee(json.loads(lines[0]))
    ref.apply(json.loads(lines[1]))
    assert ref.rules.to_move == 1
    at = 1001.0 + ref.header["limits"]["idle"] + 1

    def timeout(seat):
        clock = ref.timeout_clock(seat, "idle", at)
        return sign_line(tab.referee.key, {"n": 3, "prev": ref.head, "seat": None, "action": "idle_timeout",
                                           "data": {"seat": seat}, "at": at, "clock": clock})

    with pytest.raises(IllegalMove, match=r"^idle_timeout: the seat to move and its limit give \{'seat': 1\}$"):
        ref.apply(timeout(0))
    assert ref.next_line == 3 and not ref.over
    ref.apply(timeout(1))  # the twin: the seat to move's timeout
    assert ref.over


def test_offline_every_proof_goes_to_the_batch_and_live_none_does(classic_paused):
    """``verify_now=False`` (the offline verifier): a proof is not paired on its line but
    collected, and a bad one fails the batch naming its line; live, it is paired at once and
    nothing is collected."""
    from zkbluff.errors import InvalidProof

    tab = classic_paused
    honest = deal_line(tab)
    bad = json.loads(json.dumps(honest))
    bad["proofs"][0]["proof"]["pi_c"] = bad["proofs"][0]["proof"]["pi_a"]  # a curve point: fails only the pairing
    bad = resigned(tab.dealer.key, bad)
    offline = replay(tab, verify_now=False)
    offline.apply(honest)
    assert len(offline.batch) == 1 and offline.n_proofs == 1
    offline.batch.verify()
    offline = replay(tab, verify_now=False)
    offline.apply(bad)  # taken: only the batch pairs it
    assert len(offline.batch) == 1
    with pytest.raises(TranscriptError) as exc:
        offline.batch.verify()
    assert exc.value.line == honest["n"] and exc.value.code == "proof.invalid"
    live = replay(tab)
    with pytest.raises(InvalidProof):
        live.apply(bad)
    live.apply(honest)
    assert len(live.batch) == 0 and live.n_proofs == 1
    events = [json.loads(canonical(e)) for e in tab.writer.events]
    default = Referee(events[0])  # verifying at once is the default
    for e in events[1:]:
        default.apply(e)
    with pytest.raises(InvalidProof):
        default.apply(bad)


def test_a_malformed_verifying_key_in_the_header_is_a_malformed_header(classic_paused):
    tab = classic_paused
    header = {k: v for k, v in json.loads(json.dumps(tab.writer.events[0])).items() if k != "sig"}
    first = sorted(header["data"]["keys"])[0]
    header["data"]["keys"][first] = {"protocol": "groth16"}
    with pytest.raises(MalformedInput) as exc:
        Referee(sign_line(tab.referee.key, header))
    assert exc.value.code == "header.malformed"


def test_an_accepted_deal_line_is_observed_by_the_deal_scheme(classic_paused):
    """The referee hands every accepted game line to the deal scheme, which records a deal
    line's sealed hands per seat: what a complaint about that deal is checked against."""
    tab = classic_paused
    line = deal_line(tab)
    ref = replay(tab)
    assert ref.ledger.deal.deals == ()
    ref.apply(line)
    (dealt,) = ref.ledger.deal.deals
    assert dealt.line == line["n"] and sorted(dealt.sealed) == sorted(line["data"]["sealed_hands"])
