"""The proof envelope: made and checked in one place; batch verification names the line."""
import copy

import pytest

from zkbluff.errors import IllegalMove, InvalidProof, MalformedInput, TranscriptError
from zkbluff.field import r as R
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


def test_each_refusal_names_its_reason_code(claim):
    """The stable codes (docs/writing-your-own-verifier.md) on each refusal, before pairing."""
    stmt, pk, other = claim
    good = proof_at(stmt, pk, 4)
    cases = [
        (dict(env=good, line=5), "proof.replayed"),
        (dict(env=good, pinned={"rank_mask": MASK, "verdict": 0}), "proof.public"),
        (dict(env=good, signer=None), "proof.signer"),
        (dict(env=good, pk=other), "proof.key"),
        (dict(env={**good, "statement": "card.play.v1@deck=52,max_play=4"}), "proof.statement"),
        (dict(env={**good, "public": good["public"][:3]}), "proof.malformed"),
        (dict(env={**good, "public": [str(int(good["public"][0]) + R)] + good["public"][1:]}), "proof.malformed"),
        (dict(env={k: v for k, v in good.items() if k != "signer"}), "proof.malformed"),
    ]
    for kw, code in cases:
        env = kw.pop("env")
        key = kw.pop("pk", pk)
        with pytest.raises((IllegalMove, MalformedInput)) as exc:
            check(stmt, key, env, **kw)
        assert exc.value.code == code, (code, str(exc.value))
    check(stmt, pk, good)  # the twin: the untouched envelope passes


def test_the_context_is_compared_first_so_a_replayed_proof_is_named_as_one(claim):
    """A proof from another line whose pinned publics also differ is reported as replayed;
    with the right context, the same pinned difference is a public mismatch."""
    stmt, pk, _ = claim
    other_line = proof_at(stmt, pk, 7)
    with pytest.raises(IllegalMove) as exc:
        check(stmt, pk, other_line, line=4, pinned={"rank_mask": MASK, "verdict": 0})
    assert exc.value.code == "proof.replayed"
    with pytest.raises(IllegalMove) as exc:
        check(stmt, pk, other_line, line=7, pinned={"rank_mask": MASK, "verdict": 0})
    assert exc.value.code == "proof.public"


def test_a_failing_batch_names_the_earliest_bad_line_whatever_its_key(claim):
    """Two batches fail: the one made first fails on line 6, the other on line 4: line 4 is
    the first bad line (a verifier reports the first failing line)."""
    stmt, pk, other = claim
    bad_pk = proof_at(stmt, pk, 6, play=1 << 6)
    bad_pk = {**bad_pk, "public": bad_pk["public"][:2] + ["1"] + bad_pk["public"][3:]}
    bad_other = proof_at(stmt, other, 4, play=1 << 6)
    bad_other = {**bad_other, "public": bad_other["public"][:2] + ["1"] + bad_other["public"][3:]}
    batch = ProofBatch()
    batch.add(pk.vk, Envelope.from_json(proof_at(stmt, pk, 2)), 2)
    batch.add(pk.vk, Envelope.from_json(bad_pk), 6)
    batch.add(other.vk, Envelope.from_json(bad_other), 4)
    with pytest.raises(TranscriptError) as exc:
        batch.verify()
    assert exc.value.line == 4 and exc.value.code == "proof.invalid"
    twin = ProofBatch()  # only the first batch bad: its line is named
    twin.add(pk.vk, Envelope.from_json(bad_pk), 6)
    twin.add(other.vk, Envelope.from_json(proof_at(stmt, other, 4)), 4)
    with pytest.raises(TranscriptError) as exc:
        twin.verify()
    assert exc.value.line == 6


@pytest.mark.parametrize("field", ["protocol", "curve"])
def test_attack_an_envelope_whose_proof_lacks_protocol_or_curve_is_malformed(claim, field):
    """Issue 26.6: a proof with no ``protocol`` field was read as groth16. Every field of the
    proof is required before any point is decoded: typed MalformedInput, proof.malformed."""
    stmt, pk, _ = claim
    obj = copy.deepcopy(proof_at(stmt, pk, 4))
    del obj["proof"][field]
    with pytest.raises(MalformedInput, match=f"proof: fields .*expected") as err:
        Envelope.from_json(obj)
    assert err.value.code == "proof.malformed"
    with pytest.raises(MalformedInput):
        check(stmt, pk, obj)


@pytest.mark.parametrize("field,value", [("protocol", "plonk"), ("curve", "bls12381"), ("protocol", None)])
def test_an_envelope_with_another_protocol_or_curve_is_malformed(claim, field, value):
    stmt, pk, _ = claim
    obj = copy.deepcopy(proof_at(stmt, pk, 4))
    obj["proof"][field] = value
    with pytest.raises(MalformedInput, match=f"expected {field}") as err:
        Envelope.from_json(obj)
    assert err.value.code == "proof.malformed"


def test_an_envelope_with_an_extra_proof_field_is_malformed_and_the_complete_one_reads(claim):
    """The negative twin: the complete proof (protocol groth16, curve bn128) reads back and
    checks; one unknown field more is refused."""
    stmt, pk, _ = claim
    obj = copy.deepcopy(proof_at(stmt, pk, 4))
    assert obj["proof"]["protocol"] == "groth16" and obj["proof"]["curve"] == "bn128"
    assert Envelope.from_json(obj).to_json() == obj
    check(stmt, pk, obj)
    obj["proof"]["pi_z"] = obj["proof"]["pi_a"]
    with pytest.raises(MalformedInput, match="proof: fields"):
        Envelope.from_json(obj)
