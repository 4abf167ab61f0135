"""Red team against ProofBatch (every proof of a transcript in one multi-pairing): the
house takes the real proofs of the casual vector (the referee collects them offline) and
tries two proofs whose errors cancel in an unweighted sum, a proof replayed on another
line, public inputs swapped between lines. Each fails, naming the first bad line; the
untouched batch passes. The weights are fresh; no assertion depends on their values (a
bad batch passes only with probability 2^-128)."""
import importlib
import json
from dataclasses import replace

import pytest

from repo_root import REPO_ROOT
from zkbluff.curve import G1_GENERATOR, get_backend
from zkbluff.errors import TranscriptError
from zkbluff.games.engine.referee import Referee
from zkbluff.protocol.envelope import ProofBatch

groth16_verify = importlib.import_module("zkbluff.groth16.verify")
VECTOR = REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"


@pytest.fixture(scope="module")
def collected():
    """{statement: (vk, [(public, proof, line), ...])} of every proof the vector carries."""
    events = [json.loads(line) for line in VECTOR.read_text().splitlines()]
    ref = Referee(events[0], verify_now=False)
    for e in events[1:]:
        ref.apply(e)
    return {st: (vk, list(items)) for vk, st, items in ref.batch._items.values()}


def _batch(collected, edit=None) -> ProofBatch:
    batch = ProofBatch()
    for st, (vk, items) in collected.items():
        for i, (public, proof, line) in enumerate(items):
            if edit is not None:
                public, proof, line = edit(st, i, public, proof, line)
            batch.add_proof(vk, st, public, proof, line)
    return batch


def _named(batch: ProofBatch) -> tuple:
    with pytest.raises(TranscriptError) as exc:
        batch.verify()
    return exc.value.line, exc.value.code


PLAY = "card.play.v1@deck=52,max_play=4"


def test_redteam_the_untouched_proofs_pass_together(collected):
    assert sorted(line for _, items in collected.values() for *_, line in items)[:3] == [2, 4, 5]
    _batch(collected).verify()


def _cancelling(collected):
    be = get_backend()
    E = be.g1_mul(G1_GENERATOR, 5)

    def edit(st, i, public, proof, line):
        if st == PLAY and i in (0, 1):  # lines 7 and 9: C + E and C - E under one delta
            shift = E if i == 0 else be.g1_neg(E)
            proof = replace(proof, c=be.g1_add(proof.c, shift))
        return public, proof, line
    return edit


def test_redteam_two_bad_proofs_whose_errors_cancel_unweighted_fail_on_the_first(collected, monkeypatch):
    lines = [line for *_, line in collected[PLAY][1][:2]]
    assert lines == [7, 9]
    assert _named(_batch(collected, _cancelling(collected))) == (7, "proof.invalid")
    # the premise: with one weight for all, the two errors do cancel (the attack is real)
    monkeypatch.setattr(groth16_verify.secrets, "randbits", lambda k: 1)
    _batch(collected, _cancelling(collected)).verify()


def test_redteam_a_proof_replayed_on_another_line_fails_there(collected):
    first_public, first_proof, _ = collected[PLAY][1][0]

    def edit(st, i, public, proof, line):
        return (public, first_proof if st == PLAY and i == 2 else proof, line)  # line 12 carries line 7's proof
    assert collected[PLAY][1][2][2] == 12
    assert _named(_batch(collected, edit)) == (12, "proof.invalid")


def test_redteam_public_inputs_swapped_between_lines_name_the_first(collected):
    items = collected[PLAY][1]
    assert items[3][0] != items[5][0]

    def edit(st, i, public, proof, line):
        if st == PLAY and i in (3, 5):
            public = items[8 - i][0]
        return public, proof, line
    assert _named(_batch(collected, edit)) == (items[3][2], "proof.invalid")


def test_redteam_a_deal_hand_proof_with_the_other_hands_public_inputs_is_named(collected):
    # the dealer's hand proof (line 4) checked against the chooser's public inputs (line 5):
    # one key, both deferred from the oblivious deal
    hand = "card.chosen_hand.v1@deck=52,hand=5"
    items = collected[hand][1]
    assert [line for *_, line in items[:2]] == [4, 5]

    def edit(st, i, public, proof, line):
        if st == hand and i == 0:
            public = items[1][0]
        return public, proof, line
    assert _named(_batch(collected, edit)) == (4, "proof.invalid")
