"""Mind Bluff's start draw and coin, commit then open (issue 26, item 2): the seats' draw
commitments are in the header the referee signs, so each seat checks its own there on
receipt; a seat's entropy may be revealed only after the referee's commitment (game 1's
line), in the draw phase. Attack first, each with its honest twin."""
from __future__ import annotations

from typing import Any, Mapping, Optional

import pytest

from zkbluff.errors import CommitmentMismatch, IllegalMove
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat
from zkbluff.games.engine.table import Table
from zkbluff.games.mind_bluff.rules import RevealEntropy
from zkbluff.games.registry import spec_for
from zkbluff.protocol.commit_reveal import commit_entropy
from zkbluff.protocol.transcript import TranscriptWriter

OPTIONS = {"humans": "none"}
#: the referee's own draw entropy, which it would put in place of seat 1's commitment
PLANTED_ENTROPY = "ab" * 32


class SwappingReferee(RefereeParty):
    """Writes a header whose draw commitment for seat 1 is one the referee chose."""

    def header(self, match_id: str, joins: list[dict[str, Any]], hello: Mapping[str, Any],
               keys: Mapping[str, dict[str, Any]], ceremony: Optional[Mapping[str, str]] = None) -> dict[str, Any]:
        deal = dict(hello["deal"])
        deal["entropyCommitments"] = [deal["entropyCommitments"][0], commit_entropy(PLANTED_ENTROPY)]
        return super().header(match_id, joins, {**hello, "deal": deal}, keys, ceremony)


def mind_bluff_table(keys: Any, referee_cls: type = RefereeParty) -> Table:
    spec = spec_for("mind-bluff", OPTIONS)
    seats = [Seat(spec, i, f"s{i}", Prover(keys)) for i in range(spec.n_seats)]
    return Table(referee_cls(spec, prover=Prover(keys)), Dealer(spec, Prover(keys)), seats, TranscriptWriter(None))


def test_a_referee_that_swaps_a_seats_draw_commitment_in_the_header_is_refused_by_that_seat(match_keys,
                                                                                           seed_secrets):
    """On the old code seat 1 followed the header and only found out in the draw phase, when
    its true entropy did not open the referee's commitment (its reveal refused: it would be
    timed out and lose)."""
    seed_secrets(2601)
    tab = mind_bluff_table(match_keys, SwappingReferee)
    with pytest.raises(CommitmentMismatch, match="seat 1: the header's draw commitment"):
        tab.start()
    assert tab.seats[1].view is None  # the seat follows no match with a header it did not commit to
    assert tab.seats[0].view is not None  # seat 0's own commitment is there


def test_honest_twin_each_seat_finds_its_own_draw_commitment_in_the_header(match_keys, seed_secrets):
    seed_secrets(2602)
    tab = mind_bluff_table(match_keys)
    tab.start()
    coms = tab.header["data"]["deal"]["entropyCommitments"] if "data" in tab.header else \
        tab.view.header["deal"]["entropyCommitments"]
    assert coms == [commit_entropy(s.deal_secrets["entropy"]) for s in tab.seats]
    assert all(s.view is not None for s in tab.seats)


def test_a_seats_entropy_reveal_before_the_draw_phase_is_refused(match_keys, seed_secrets):
    """A reveal before the referee's commitment (or any time before the draw phase) would let
    the referee choose its own draw entropy after seeing the seat's: the rules refuse it."""
    seed_secrets(2603)
    tab = mind_bluff_table(match_keys)
    tab.start()
    rules = tab.rules
    seat = rules.to_move if isinstance(rules.to_move, int) and rules.to_move >= 0 else 0
    with pytest.raises(IllegalMove):
        rules.check(seat, RevealEntropy(tab.seats[seat].deal_secrets["entropy"]))
