"""The proof envelope: made and checked in one place; batch verification names the line."""
import pytest

from zkbluff.errors import IllegalMove, InvalidProof, MalformedInput, TranscriptError
from zkbluff.groth16 import Proof, prove, setup_insecure_seeded_for_tests
from zkbluff.protocol.context import context_value
from zkbluff.protocol.envelope import Envelope, ProofBatch, check_envelope, make_envelope
from zkbluff.statements import get_statement

CLAIM = "card.claim.v1@deck=52"
MASK = sum(1 << (5 + 13 * s) for s in range(4))


@pytest.fixture(scope="module")
def claim():
    stmt = get_statement(CLAIM)
    pk = setup_insecure_seeded_for_tests(stmt.build()[0], "envelope")
    other = setup_insecure_seeded_for_tests(stmt.build()[0], "another key")
    return stmt, pk, other


def proof_at(stmt, pk, line, play=1 << 5, signer=0):
    system, w = stmt.build({"play": play, "play_salt": 9, "rank_mask": MASK,
                            "context": context_value("m", line, "00" * 32)})
    return make_envelope(CLAIM, pk.vk, w[1:1 + system.n_public], prove(pk, w), signer)


def check(stmt, pk, env, line=4, pinned=None, signer=0, verify_now=True):
    return check_envelope(env, statement=CLAIM, vk=pk.vk, names=stmt.public,
                          pinned=pinned if pinned is not None else {"rank_mask": MASK, "verdict": 1},
                          match_id="m", line=line, prev="00" * 32, signer=signer, verify_now=verify_now)


def test_an_envelope_checks_and_names_its_publics(claim):
    stmt, pk, _ = claim
    env, publics = check(stmt, pk, proof_at(stmt, pk, 4))
    assert publics["verdict"] == 1 and publics["rank_mask"] == MASK and isinstance(env, Envelope)
    assert Envelope.from_json(env.to_json()) == env


def test_envelope_refusals_before_pairing(claim):
    stmt, pk, other = claim
    good = proof_at(stmt, pk, 4)
    with pytest.raises(IllegalMove, match="another turn"):
        check(stmt, pk, good, line=5)
    with pytest.raises(IllegalMove, match="verdict"):
        check(stmt, pk, good, pinned={"rank_mask": MASK, "verdict": 0})
    with pytest.raises(IllegalMove, match="signer"):
        check(stmt, pk, good, signer=None)
    with pytest.raises(IllegalMove, match="key"):
        check(stmt, other, good)
    with pytest.raises(IllegalMove, match="expected a proof of"):
        check(stmt, pk, {**good, "statement": "card.play.v1@deck=52,max_play=4"})
    with pytest.raises(MalformedInput, match="public inputs"):
        check(stmt, pk, {**good, "public": good["public"][:3]})
    with pytest.raises(MalformedInput, match="fields"):
        check(stmt, pk, {k: v for k, v in good.items() if k != "signer"})
    with pytest.raises(MalformedInput, match="signer"):
        check(stmt, pk, {**good, "signer": True})


def test_a_lying_public_fails_the_pairing(claim):
    stmt, pk, _ = claim
    env = proof_at(stmt, pk, 4, play=1 << 6)  # a bluff: verdict 0
    lying = {**env, "public": env["public"][:2] + ["1"] + env["public"][3:]}
    with pytest.raises(InvalidProof):
        check(stmt, pk, lying)
    check(stmt, pk, lying, verify_now=False)  # the pinned checks alone cannot see it ...
    batch = ProofBatch()
    for line in (2, 3):
        batch.add(pk.vk, Envelope.from_json(proof_at(stmt, pk, line)), line)
    batch.add(pk.vk, Envelope.from_json(lying), 4)
    assert len(batch) == 3
    with pytest.raises(TranscriptError) as exc:  # ... the batch does, and names the line
        batch.verify()
    assert exc.value.line == 4


def test_a_good_batch_verifies(claim):
    stmt, pk, other = claim
    batch = ProofBatch()
    for line in (2, 3):
        batch.add(pk.vk, Envelope.from_json(proof_at(stmt, pk, line)), line)
    batch.add(other.vk, Envelope.from_json(proof_at(stmt, other, 5)), 5)
    batch.verify()
    assert len(batch) == 0
    assert isinstance(Envelope.from_json(proof_at(stmt, pk, 2)).proof, Proof)
