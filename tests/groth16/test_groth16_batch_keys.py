"""``batch_verify_keys``: the proofs of several keys in one multi-pairing, every item
validated first, one random weight per proof; and a key's fingerprint computed once."""
import hashlib
import importlib
import json

import pytest

from zkbluff.circuit import build
from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.field import p
from zkbluff.groth16 import Proof, VerifyingKey, batch_verify_keys, prove, setup_insecure_seeded_for_tests
from backend_spies import PairingSpy

verify_module = importlib.import_module("zkbluff.groth16.verify")


def cube(cs, inputs):
    out = cs.public("out", inputs and inputs["out"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    cs.enforce_equal(cs.mul(cs.mul(x, x, "x2"), x, "x3") + x + 5, out, "result")


def product(cs, inputs):
    a = cs.public("a", inputs and inputs["a"])
    b = cs.public("b", inputs and inputs["b"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    y = cs.private_unchecked("y", inputs and inputs["y"])
    cs.enforce_equal(cs.mul(x, y, "xy"), a, "product")
    cs.enforce_equal(x + y, b, "sum")


@pytest.fixture(scope="module")
def two_keys(mcl):
    out = []
    for circuit, inputs, public in ((cube, {"x": 3, "out": 35}, [35]),
                                    (product, {"x": 6, "y": 7, "a": 42, "b": 13}, [42, 13])):
        system, witness = build(circuit, inputs)
        pk = setup_insecure_seeded_for_tests(system, f"batch-keys-{circuit.__name__}", mcl)
        out.append((pk.vk, public, prove(pk, witness, mcl), prove(pk, witness, mcl)))
    return out


def test_every_key_in_one_pairing(two_keys, mcl):
    spy = PairingSpy(mcl)
    batch_verify_keys([(vk, [(pub, p1), (pub, p2)]) for vk, pub, p1, p2 in two_keys], spy)
    assert spy.pairings == 1
    batch_verify_keys([], spy)
    batch_verify_keys([(two_keys[0][0], [])], spy)
    assert spy.pairings == 1  # nothing to pair: no pairing


@pytest.mark.parametrize("bad_group", [0, 1])
def test_one_bad_proof_under_either_key_fails_the_whole(two_keys, mcl, bad_group):
    groups = []
    for g, (vk, pub, p1, p2) in enumerate(two_keys):
        wrong = [pub[0] + 1, *pub[1:]] if g == bad_group else pub
        groups.append((vk, [(pub, p1), (wrong, p2)]))
    with pytest.raises(InvalidProof):
        batch_verify_keys(groups, mcl)


def test_a_proof_under_the_other_key_fails(two_keys, mcl):
    (vk0, pub0, proof0, _), (vk1, pub1, proof1, _) = two_keys
    with pytest.raises(InvalidProof):
        batch_verify_keys([(vk0, [(pub0, proof1)]), (vk1, [(pub1, proof0)])], mcl)


def test_weights_are_per_proof_across_groups(two_keys, mcl):
    """The same key as two groups, errors +D and -D on A: they cancel under one shared
    weight; with a weight per proof the product fails."""
    vk, pub, proof, _ = two_keys[0]
    D = mcl.g1_mul(proof.a, 5)
    plus = Proof(mcl.g1_add(proof.a, D), proof.b, proof.c)
    minus = Proof(mcl.g1_add(proof.a, mcl.g1_neg(D)), proof.b, proof.c)
    with pytest.raises(InvalidProof):
        batch_verify_keys([(vk, [(pub, plus)]), (vk, [(pub, minus)])], mcl)


def test_every_item_of_every_group_is_validated_before_any_pairing(two_keys, mcl):
    spy = PairingSpy(mcl)
    (vk0, pub0, proof0, _), (vk1, pub1, proof1, _) = two_keys
    off = Proof((proof1.a[0], proof1.a[1] + p), proof1.b, proof1.c)
    with pytest.raises(MalformedInput, match="group 1: item 1: pi_a: not a point on the curve"):
        batch_verify_keys([(vk0, [(pub0, proof0)]), (vk1, [(pub1, proof1), (pub1, off)])], spy)
    with pytest.raises(MalformedInput, match="group 0: item 0: wrong number of public inputs"):
        batch_verify_keys([(vk0, [(pub1, proof0)])], spy)
    assert spy.pairings == 0


def test_one_128_bit_weight_per_proof(two_keys, mcl, monkeypatch):
    asked = []
    real = verify_module.secrets.randbits
    monkeypatch.setattr(verify_module.secrets, "randbits", lambda n: asked.append(n) or real(n))
    batch_verify_keys([(vk, [(pub, p1), (pub, p2)]) for vk, pub, p1, p2 in two_keys], mcl)
    assert len(asked) == 4 and min(asked) >= 128


def test_the_fingerprint_is_the_canonical_jsons_hash_computed_once(two_keys):
    vk = two_keys[0][0]
    expected = hashlib.sha256(json.dumps(vk.to_json(), sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert vk.fingerprint() == expected == vk.fingerprint()
    twin = VerifyingKey.from_json(vk.to_json())
    assert twin == vk and twin.fingerprint() == expected  # the kept value is no field: equality unchanged
    other = VerifyingKey(vk.alpha_g1, vk.beta_g2, vk.gamma_g2, vk.delta_g2, vk.ic[::-1])
    assert other != vk and other.fingerprint() != expected
    assert "_fingerprint" not in repr(vk)
