"""Red team: a dispute discloses only what the disputed hand-over needs. Bo picks up a pile
of three plays; Ali seals him the opening of her play honestly, Ayşe a wrong one; Bo
disputes Ayşe's. Whoever reads the transcript afterwards must be able to check the dispute,
and must learn nothing of Ali's play, which nobody called (a successful bluff stays secret
forever)."""
from __future__ import annotations

import json

import pytest

from cheat_engine_helpers import forge, new_table, transcript_with
from zkbluff.errors import CommitmentMismatch, TranscriptError
from zkbluff.games.cheat.match import HandOver, Stage
from zkbluff.games.cheat.moves import CallBluff, PlayCards, Proceed
from zkbluff.games.cheat.rules import DECK
from zkbluff.games.cheat.spec import open_hand_over, seal_hand_over
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol import dleq

BO, ALI, AYSE = 0, 1, 2


def handed_over_by_ali(path):
    """Ali (1) and Ayşe (2) each play one card nobody calls, Bo (0) lies and is called; Ali has
    sealed Bo the opening of her play; Ayşe's hand-over is due."""
    tab, clock = new_table(3, path=path)
    hands = [DECK.cards(s.private["hand"]) for s in tab.seats]
    rank = DECK.rank_of(hands[ALI][0])
    lie = next(c for c in hands[BO] if DECK.rank_of(c) != rank)
    tab.move(ALI, PlayCards(rank, (hands[ALI][0],)))  # play 1: nobody calls it
    clock.now = tab.referee.deadline + 0.01
    tab.poll()
    tab.move(AYSE, PlayCards(rank, (hands[AYSE][0],)))  # play 2: nobody calls it
    clock.now = tab.referee.deadline + 0.01
    tab.poll()
    tab.move(BO, PlayCards(rank, (lie,)))  # play 3: called, Bo lied and picks up
    tab.move(ALI, CallBluff(tab.rules.s.play_no))
    tab.move(BO, Proceed())
    assert tab.rules.stage == Stage.HAND_OVER and tab.rules.owing == [ALI, AYSE]
    tab.move(ALI, Proceed())  # Ali's honest hand-over: the opening of play 1, sealed to Bo
    assert tab.rules.owing == [AYSE]
    return tab, hands


@pytest.fixture(scope="module")
def disputed(tmp_path_factory):
    path = tmp_path_factory.mktemp("dispute") / "disputed.jsonl"
    tab, hands = handed_over_by_ali(path)
    ayse = tab.seats[AYSE].private
    _, salt = ayse["plays"]["2"]
    other = next(c for c in hands[AYSE] if c != hands[AYSE][0])  # "my play was this other card"
    wrong = seal_hand_over(ayse["peers"][str(BO)], ayse["dealerCommitment"], 3, AYSE, BO,
                           {"plays": {"2": [1 << other, salt]}})
    line = forge(tab, AYSE, "hand_over", wrong.to_data())
    tab.seats[AYSE]._pending = (line["n"], {})  # Ayşe's client, changed to send it
    tab.publish(line)
    dispute = tab.move(BO, Proceed())  # Bo's client disputes Ayşe's hand-over
    assert dispute["action"] == "dispute" and dispute["data"]["sender"] == AYSE
    return {"tab": tab, "path": path, "ali_card": hands[ALI][0]}


def public_lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def opened_by_the_disclosure(lines, sender):
    """What the dispute line discloses (the key point of one hand-over), used on ``sender``'s
    hand-over of the same pile under every binding (play, sender, picker) an attacker might
    try: its openings, or None when they stay sealed (the attacker reads only the transcript).
    Before issue 26's change the dispute disclosed the picker's pile key of the whole match,
    and this opened Ali's hand-over (the attack, run then, recovered her card)."""
    dispute = next(e for e in lines if e["action"] == "dispute")
    dealer = next(e for e in lines if e["action"] == "entropy.dealer")["data"]["commitment"]
    hand_over = HandOver.from_data(next(e for e in lines if e["action"] == "hand_over" and e["seat"] == sender)["data"])
    shared = dleq.point_of(dispute["data"]["shared"], "shared")
    plays = sum(e["action"] == "play" for e in lines)
    for play_no in range(1, plays + 1):
        for s in range(3):
            for picker in range(3):
                try:
                    return open_hand_over(shared, hand_over, dealer, play_no, s, picker)["plays"]
                except CommitmentMismatch:
                    continue
    return None


def test_the_founded_dispute_verifies_from_the_transcript(disputed):
    assert verify_transcript(disputed["path"])["lines"] == len(disputed["tab"].writer.events)
    assert opened_by_the_disclosure(public_lines(disputed["path"]), AYSE) is not None  # the disputed one opens


def test_attack_the_dispute_does_not_open_an_uncalled_play_of_another_seat(disputed):
    got = opened_by_the_disclosure(public_lines(disputed["path"]), ALI)
    assert got is None, f"Ali's uncalled play 1 was {DECK.cards(got['1'][0])} (card {disputed['ali_card']})"


def test_attack_a_hand_over_on_a_multiple_of_anothers_ephemeral_is_refused(tmp_path):
    """Without the sender's proof of knowing its ephemeral key, Ayşe could hand Bo garbage on
    ``R = 2 R_Ali``: Bo's honest client disputes it, discloses ``x R`` with a valid proof,
    and anyone halves it into the key of Ali's hand-over. The table refuses such a line
    before it is written, and so does a verifier."""
    tab, _ = handed_over_by_ali(tmp_path / "reuse.jsonl")
    ali = next(e for e in tab.writer.events if e["action"] == "hand_over")["data"]
    doubled = dleq.point_hex(dleq.mul(dleq.point_of(ali["ephemeral"], "R"), 2))
    at = tab.view.next_line
    for name, proof in (("Ali's proof", ali["proof"]), ("a proof of another key", dleq.prove_dlog(5, "x"))):
        line = forge(tab, AYSE, "hand_over", {"sealed": ali["sealed"], "ephemeral": doubled, "proof": proof})
        with pytest.raises(CommitmentMismatch, match="does not verify"):
            tab.publish(line)
        assert tab.view.next_line == at and len(tab.writer.events) == at - 1, name  # nothing written
        with pytest.raises(TranscriptError, match=f"line {at}"):
            verify_transcript(transcript_with(tab, line, tmp_path / "reuse-verify.jsonl"))
    tab.move(AYSE, Proceed())  # the twin: Ayşe's own hand-over, on a fresh ephemeral with its proof
    assert tab.rules.stage == Stage.ABSORB
