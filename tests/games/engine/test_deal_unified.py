"""Cheat and Bluffers deal through the engine's ``ProvenDeal``, as Proof or Bluff does: every
seat's entropy line before any card, each hand dealt in a ``card.deal.v2`` proof, and a wrong
sealed hand answered by the seat's ``complaint`` line, which any verifier adjudicates. With
real proofs under the pinned keys; each test is named after the attack it defeats, with its
honest twin."""
from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from deal_helpers import GrindingDealer
from zkbluff.cli import main
from zkbluff.errors import (
    DealerAtFault, InvalidProof, MalformedInput, TranscriptError, UnfoundedComplaint, UnsatisfiedConstraint,
    ZkbluffError,
)
from zkbluff.gadgets.native import commit
from zkbluff.games.bluffers.moves import Proceed as BluffersProceed
from zkbluff.games.bluffers.spec import DRAW, round_deal
from zkbluff.games.cheat.moves import Proceed as CheatProceed
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat
from zkbluff.games.engine.table import Table
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.registry import spec_for
from zkbluff.protocol.entropy import seal_hand
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import TranscriptWriter, canonical
from zkbluff.statements import get_statement

GAMES = [("cheat", {"players": "3", "window": "1"}), ("bluffers", {"players": "2"})]
OPTIONS = dict(GAMES)
PROCEED = {"cheat": CheatProceed(), "bluffers": BluffersProceed()}
VICTIM = 0
#: the hand a cheating dealer would rather seal to the victim: cards 0, 1, 2
CHOSEN = 0b111


def make_table(keys: Any, game: str, options: dict[str, str], dealer_cls: type = Dealer, path: Any = None) -> Table:
    """A table with the given dealer class, run up to its first deal line (Bluffers' seats
    commit their revolver seeds first)."""
    spec = spec_for(game, options)
    seats = [Seat(spec, i, f"s{i}", Prover(keys)) for i in range(spec.n_seats)]
    tab = Table(RefereeParty(spec, prover=Prover(keys)), dealer_cls(spec, Prover(keys)), seats,
                TranscriptWriter(path))
    tab.start()
    while not any(e["action"] == "deal" for e in tab.writer.events) and not tab.over:
        tab.move(tab.to_move, PROCEED[game])
    return tab


def kinds(tab: Table) -> list[str]:
    return [e["action"] for e in tab.writer.events]


def slot_of(data: dict[str, Any], seat: int) -> int:
    """Which hand of a deal line is ``seat``'s (its ``seats`` field; Cheat deals from the
    seat next to the hand's dealer)."""
    return list(data["seats"]).index(seat)


def write(path: Any, events: list[dict[str, Any]]) -> Any:
    path.write_text("".join(canonical(e) + "\n" for e in events))
    return path


@pytest.fixture(scope="module", params=GAMES, ids=[g for g, _ in GAMES])
def honest(request, match_keys, tmp_path_factory):
    game, options = request.param
    path = tmp_path_factory.mktemp(game) / "honest.jsonl"
    return make_table(match_keys, game, options, path=path), path


# ---------------------------------------------------------------- the entropy lines

def test_every_seat_sends_its_entropy_before_any_card_and_the_deal_pins_them(honest):
    tab, path = honest
    n = tab.spec.n_seats
    ks = kinds(tab)
    assert ks[1:2 + n] == ["entropy.dealer"] + ["entropy.seat"] * n  # the dealer first, then every seat
    assert ks.index("deal") > 1 + n
    deal = tab.writer.events[-1]
    stmt = get_statement(deal["proofs"][0]["statement"])
    pub = dict(zip(stmt.public, map(int, deal["proofs"][0]["public"])))
    entropy_lines = tab.writer.events[1:2 + n]
    assert [pub[f"entropy{k}_commitment"] for k in range(n + 1)] == [int(e["data"]["commitment"]) for e in entropy_lines]
    for seat in tab.seats:  # each seat's hand opens the proof's commitment of its hand
        k = slot_of(deal["data"], seat.seat)
        assert commit(seat.private["hand"], seat.private["salt" if tab.spec.game == "cheat" else "handSalt"]) == \
            pub[f"hand{k}_commitment"]
    assert verify_transcript(path)["lines"] == len(tab.writer.events)


# ---------------------------------------------------------------- a stacked deal

class StackingDealer(Dealer):
    """Proves the seed's deal but states a hand commitment of its choosing for hand 0."""

    def _line(self, seat, kind, data, proofs=None, at=None, clock=None):
        if kind == "deal":
            proofs = json.loads(json.dumps(proofs))
            stmt = get_statement(proofs[0]["statement"])
            proofs[0]["public"][stmt.public.index("hand0_commitment")] = str(commit(CHOSEN, 5))
        return super()._line(seat, kind, data, proofs, at, clock)


def test_a_stacked_deal_is_refused_by_the_prover_the_table_and_the_verifier(match_keys, tmp_path, honest):
    tab, path = honest
    game, options = tab.spec.game, OPTIONS[tab.spec.game]
    with pytest.raises(InvalidProof):  # the table: a hand commitment the proof does not prove
        make_table(match_keys, game, options, dealer_cls=StackingDealer)
    with pytest.raises(ZkbluffError, match="entropy0_commitment"):  # the referee pins the recorded commitment
        make_table(match_keys, game, options, dealer_cls=GrindingDealer)
    deal = tab.writer.events[-1]
    stmt = get_statement(deal["proofs"][0]["statement"])
    ents = tab.spec.deal.contributors(tab.dealer.state)
    inp: dict[str, int] = {"round": int(deal["proofs"][0]["public"][stmt.public.index("round")]), "context": 7}
    for k, (e, s) in enumerate(ents):
        inp[f"entropy{k}"], inp[f"entropy{k}_salt"] = e, s
    for k in range(len(deal["data"]["sealed_hands"])):
        inp[f"hand{k}_salt"] = 5 + k
    stmt.build(inp)  # the seed's deal proves
    with pytest.raises(UnsatisfiedConstraint, match="hand0/opens"):  # the prover refuses a chosen hand
        stmt.build({**inp, "hand0_commitment": commit(CHOSEN, 5)})
    # offline: the honest deal line with a chosen hand commitment, re-signed by the dealer
    forged = json.loads(json.dumps(deal))
    forged["proofs"][0]["public"][stmt.public.index("hand0_commitment")] = str(commit(CHOSEN, 5))
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp_path / "stacked.jsonl", tab.writer.events[:-1] + [sign_line(tab.dealer.key, forged)]))
    assert exc.value.line == deal["n"]
    verify_transcript(path)  # the twin: the honest transcript verifies


# ---------------------------------------------------------------- a wrong sealed hand

class WrongHandDealer(Dealer):
    """Seals the victim a hand of its choosing instead of its proven one."""

    def _line(self, seat, kind, data, proofs=None, at=None, clock=None):
        if kind == "deal":
            key = bytes.fromhex(self.state["seats"][str(VICTIM)]["handKey"])
            sealed = list(data["sealed_hands"])
            sealed[slot_of(data, VICTIM)] = seal_hand(key, self.view.match_id, self.view.next_line, CHOSEN, 99)
            data = {**data, "sealed_hands": sealed}
        return super()._line(seat, kind, data, proofs, at, clock)


@pytest.mark.parametrize("game, options", GAMES, ids=[g for g, _ in GAMES])
def test_a_wrong_sealed_hand_leads_to_a_verified_complaint(match_keys, tmp_path, game, options):
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, game, options, dealer_cls=WrongHandDealer, path=path)
    assert kinds(tab)[-3:] == ["deal", "complaint", "end"] and tab.over
    deal, complaint, end = tab.writer.events[-3:]
    assert complaint["seat"] == VICTIM and complaint["data"]["line"] == deal["n"]
    assert complaint["data"]["sealed"] == deal["data"]["sealed_hands"][slot_of(deal["data"], VICTIM)]
    assert "the dealer is at fault" in end["data"]["reason"]
    # the dealer holds no seat: the match is settled on the standing at the fault (nobody has
    # scored before the first deal, so no seat loses)
    assert end["data"]["placements"] == [1] * tab.spec.n_seats
    with pytest.raises(DealerAtFault) as exc:
        verify_transcript(path)
    assert exc.value.line == complaint["n"]
    fault = end["data"]["reason"].removeprefix("the dealer is at fault: ").removesuffix(
        "; settled on the standing at the fault")
    assert str(exc.value) == f"line {complaint['n']}: the dealer is at fault (complaint upheld): {fault}"
    res = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert res.exit_code == 1 and f"line {complaint['n']}" in res.output and "dealer is at fault" in res.output
    assert "complains" in tab.spec.text.describe(complaint, tab.header["seats"])


def test_a_false_complaint_against_an_honest_dealer_is_refused(honest, tmp_path):
    tab, path = honest
    deal = tab.writer.events[-1]
    seat = tab.seats[VICTIM]
    sealed = deal["data"]["sealed_hands"][slot_of(deal["data"], VICTIM)]
    at = tab.view.next_line
    honest_hand = seat._line(VICTIM, "complaint", {"line": deal["n"], "sealed": sealed,
                                                   "handKey": seat.deal_secrets["handKey"]})
    with pytest.raises(UnfoundedComplaint, match="opens its commitment"):
        tab.publish(honest_hand)
    other_key = seat._line(VICTIM, "complaint", {"line": deal["n"], "sealed": sealed, "handKey": "ab" * 32})
    with pytest.raises(UnfoundedComplaint, match="not the hand key"):
        tab.publish(other_key)
    not_a_deal = next(e for e in tab.writer.events if e["action"] in ("entropy.seat", "draw"))
    with pytest.raises(MalformedInput, match="not a deal line"):  # Bluffers' public draw seals no hand
        tab.publish(seat._line(VICTIM, "complaint", {"line": not_a_deal["n"], "sealed": sealed,
                                                     "handKey": seat.deal_secrets["handKey"]}))
    assert tab.view.next_line == at and not tab.over  # nothing written
    with pytest.raises(TranscriptError, match="opens its commitment"):  # offline, slipped into the transcript
        verify_transcript(write(tmp_path / "false.jsonl", tab.writer.events + [honest_hand]))


def test_a_deal_line_names_each_seat_once_and_a_public_draw_seals_nothing(honest):
    tab, _ = honest
    deal, ledger, n = tab.writer.events[-1], tab.view.ledger, tab.spec.n_seats
    sealed, seats = tuple(deal["data"]["sealed_hands"]), tuple(deal["data"]["seats"])
    shape = tab.spec.deal.shape if tab.spec.game == "cheat" else round_deal(n)
    assert tab.spec.deal.demand(ledger, 1, 0, sealed, shape, seats).statement == deal["proofs"][0]["statement"]
    for bad in ((seats[0],) * n, seats[:-1], seats[:-1] + (n,), seats[:-1] + (True,)):
        with pytest.raises(MalformedInput, match="distinct seats"):
            tab.spec.deal.demand(ledger, 1, 0, sealed, shape, bad)
    with pytest.raises(MalformedInput, match="expected one for each"):
        tab.spec.deal.demand(ledger, 1, 0, sealed[:-1], shape, seats)
    with pytest.raises(MalformedInput, match="dealt to no seat"):
        tab.spec.deal.demand(ledger, 1, 1, (), DRAW, seats[:1])
    with pytest.raises(MalformedInput, match="expected one for each of the 0"):
        tab.spec.deal.demand(ledger, 1, 1, sealed[:1], DRAW)
    assert tab.spec.deal.demand(ledger, 1, 1, (), DRAW).statement == tab.spec.deal.key_id(DRAW)  # the twin


def test_extra_seat_keys_are_named_once_and_listed_in_the_header():
    from zkbluff.games.engine.proven_deal import ProvenDeal

    for bad in (("pile", "pile"), ("Pile",), ("pile key",), ("",)):
        with pytest.raises(ValueError, match="seat key names"):
            ProvenDeal("g", 2, (5, 5), seat_keys=bad)
    deal = ProvenDeal("g", 2, (5, 5), seat_keys=("pile",))
    assert deal.header({}, [])["seatKeys"] == ["pile"] and "seatKeys" not in ProvenDeal("g", 2, (5, 5)).header({}, [])
    assert set(deal.seat_secrets()) >= {"x25519", "pileSecret"}
    with pytest.raises(MalformedInput, match="deal must be"):  # another game's header deal is refused
        deal.check_header(ProvenDeal("g", 2, (5, 5)).header({}, []), 2)
