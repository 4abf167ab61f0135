"""Groth16: the QAP algebra on a dummy engine, then the real curve on both backends."""
import json

import pytest

from zkbluff.circuit import build
from zkbluff.curve.codec import g1_to_json
from zkbluff.errors import InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.field import p, r
from zkbluff.gadgets import poseidon
from zkbluff.gadgets.native import poseidon as native_poseidon
from zkbluff.groth16 import (
    Proof, VerifyingKey, batch_verify, prove, public_from_json, setup, setup_insecure_seeded_for_tests, verify,
)
from zkbluff.groth16.setup import _setup, _Toxic
from zkbluff.groth16.zkey import proving_key_from_bytes, proving_key_to_bytes, zkey_from_bytes, zkey_to_bytes
from sample_circuits import cube, hash_preimage


class DlogBackend:
    """bellman's dummy engine: a group element is its discrete log, so the pairing
    e(aG, bH) is just a*b. The whole protocol reduces to field arithmetic."""

    name = "dlog"

    def g1_mul_many(self, base, ks):
        return [k % r for k in ks]

    g2_mul_many = g1_mul_many

    def g1_prepare(self, pts):
        from zkbluff.curve import Prepared
        return Prepared(list(pts))

    g2_prepare = g1_prepare

    def g1_msm(self, pts, ks):
        data = pts.data if hasattr(pts, "data") else pts
        return sum((p_ or 0) * k for p_, k in zip(data, ks)) % r

    g2_msm = g1_msm

    def g1_neg(self, a):
        return (-a) % r

    def pairing_sum(self, pairs):
        return sum(a * b for a, b in pairs) % r


def test_qap_algebra_by_hand():
    system, witness = build(cube, {"x": 3, "out": 35})
    toxic = _Toxic(tau=7, alpha=2, beta=3, gamma=5, delta=11)
    be = DlogBackend()
    pk = _setup(system, toxic, be, None)
    # By hand: A_i(tau) etc. must reproduce alpha*beta + vk_x*gamma + C*delta = A*B
    proof = prove(pk, witness, backend=be)
    vk = pk.vk
    vk_x = be.g1_msm(list(vk.ic), [1, 35])
    lhs = proof.a * proof.b % r
    rhs = (vk.alpha_g1 * vk.beta_g2 + vk_x * vk.gamma_g2 + proof.c * vk.delta_g2) % r
    assert lhs == rhs
    # negative twin: another public input breaks the equation
    vk_x_bad = be.g1_msm(list(vk.ic), [1, 36])
    assert lhs != (vk.alpha_g1 * vk.beta_g2 + vk_x_bad * vk.gamma_g2 + proof.c * vk.delta_g2) % r
    # the public-input rows snarkjs adds make IC depend on (beta A_i + alpha B_i + C_i)/gamma
    assert len(vk.ic) == 2 and pk.domain_size == 8  # 3 constraints + 1 public + 1 -> 8


def test_qap_rejects_forged_h():
    system, witness = build(cube, {"x": 3, "out": 35})
    be = DlogBackend()
    pk = _setup(system, _Toxic(7, 2, 3, 5, 11), be, None)
    proof = prove(pk, witness, backend=be)
    forged = Proof(proof.a, proof.b, (proof.c + 1) % r)
    vk_x = be.g1_msm(list(pk.vk.ic), [1, 35])
    assert forged.a * forged.b % r != (pk.vk.alpha_g1 * pk.vk.beta_g2 + vk_x * pk.vk.gamma_g2
                                       + forged.c * pk.vk.delta_g2) % r


@pytest.fixture(scope="module")
def cube_keys():
    system, witness = build(cube, {"x": 3, "out": 35})
    return system, witness, setup_insecure_seeded_for_tests(system, "cube")


def test_prove_verify_both_backends(backend, cube_keys):
    system, witness, pk = cube_keys
    proof = prove(pk, witness, backend=backend)
    verify(pk.vk, [35], proof, backend=backend)
    with pytest.raises(InvalidProof):
        verify(pk.vk, [36], proof, backend=backend)


def test_proofs_are_randomised(mcl, cube_keys):
    _, witness, pk = cube_keys
    p1, p2 = prove(pk, witness, backend=mcl), prove(pk, witness, backend=mcl)
    assert p1 != p2
    verify(pk.vk, [35], p1, backend=mcl)
    verify(pk.vk, [35], p2, backend=mcl)


def test_prover_refuses_unsatisfied_witness(cube_keys):
    system, witness, pk = cube_keys
    bad = list(witness)
    bad[3] += 1  # x2
    with pytest.raises(UnsatisfiedConstraint, match="x2"):
        prove(pk, bad)
    with pytest.raises(MalformedInput, match="witness size"):
        prove(pk, witness[:-1])


def test_prover_threads_are_kept_and_free_after_a_refusal(cube_keys, mcl):
    """The MSM threads are started once; a refused witness lets go of the key (its MSMs
    waited for), so the next prove with that key, and proves from several threads at
    once, still give proofs that verify."""
    import importlib
    from concurrent.futures import ThreadPoolExecutor

    prove_mod = importlib.import_module("zkbluff.groth16.prove")  # (the package's `prove` is the function)

    system, witness, pk = cube_keys
    prove(pk, witness, backend=mcl)
    pool = prove_mod._pool()
    bad = list(witness)
    bad[3] += 1
    with pytest.raises(UnsatisfiedConstraint):
        prove(pk, bad, backend=mcl)
    verify(pk.vk, [35], prove(pk, witness, backend=mcl), backend=mcl)
    with ThreadPoolExecutor(max_workers=3) as callers:
        proofs = list(callers.map(lambda _: prove(pk, witness, backend=mcl), range(6)))
    for proof in proofs:
        verify(pk.vk, [35], proof, backend=mcl)
    with pytest.raises(InvalidProof):
        verify(pk.vk, [36], proofs[0], backend=mcl)
    assert prove_mod._pool() is pool


def test_bare_zkey_prover_refuses_unsatisfied_witness(cube_keys):
    system, witness, pk = cube_keys
    bare = zkey_from_bytes(zkey_to_bytes(pk))
    assert bare.system is None
    verify(pk.vk, [35], prove(bare, witness))
    bad = list(witness)
    bad[4] += 1
    with pytest.raises(UnsatisfiedConstraint, match="own check"):
        prove(bare, bad)


@pytest.fixture(scope="module")
def hash_keys():
    a, b = 12, 34
    h = native_poseidon([a, b])
    system, witness = build(hash_preimage, {"a": a, "b": b, "h": h, "k": 5})
    return system, witness, setup(system), [h, 5]


def test_mutated_proofs_rejected(mcl, hash_keys):
    system, witness, pk, public = hash_keys
    proof = prove(pk, witness)
    verify(pk.vk, public, proof)
    other = prove(pk, build(hash_preimage, {"a": 1, "b": 2, "h": native_poseidon([1, 2]), "k": 5})[1])
    # a point of the other witness's proof, swapped in
    for forged in (Proof(other.a, proof.b, proof.c), Proof(proof.a, other.b, proof.c),
                   Proof(proof.a, proof.b, other.c), Proof(proof.c, proof.b, proof.a)):
        with pytest.raises(InvalidProof):
            verify(pk.vk, public, forged)
    with pytest.raises(InvalidProof):
        verify(pk.vk, list(reversed(public)), proof)  # swapped public inputs
    with pytest.raises(InvalidProof):
        verify(pk.vk, [native_poseidon([1, 2]), 5], proof)  # another witness's publics


def test_malformed_input_rejected_before_pairing(mcl, hash_keys):
    system, witness, pk, public = hash_keys
    proof = prove(pk, witness)
    with pytest.raises(MalformedInput, match="got 1, expected 2"):
        verify(pk.vk, public[:1], proof)
    with pytest.raises(MalformedInput, match="public input 0"):
        verify(pk.vk, [public[0] + r, public[1]], proof)  # c + r: never reduced
    with pytest.raises(MalformedInput, match="pi_a"):
        verify(pk.vk, public, Proof((1, 3), proof.b, proof.c))  # off the curve
    with pytest.raises(MalformedInput, match="pi_c"):
        verify(pk.vk, public, Proof(proof.a, proof.b, None))
    (x0, x1), (y0, y1) = proof.b
    with pytest.raises(MalformedInput, match="pi_b"):
        verify(pk.vk, public, Proof(proof.a, ((x1, x0), (y1, y0)), proof.c))  # G2 coordinates swapped
    with pytest.raises(MalformedInput, match="Fq2"):
        verify(pk.vk, public, Proof(proof.a, ((x0 + p, x1), (y0, y1)), proof.c))  # a coordinate not reduced
    from sample_circuits import non_subgroup_g2
    with pytest.raises(MalformedInput, match="subgroup"):
        verify(pk.vk, public, Proof(proof.a, non_subgroup_g2(), proof.c))


def test_json_round_trip_and_rejects(mcl, hash_keys):
    system, witness, pk, public = hash_keys
    proof = prove(pk, witness)
    vk2 = VerifyingKey.from_json(json.loads(json.dumps(pk.vk.to_json())))
    proof2 = Proof.from_json(json.loads(json.dumps(proof.to_json())))
    assert vk2 == pk.vk and proof2 == proof
    verify(vk2, public_from_json([str(x) for x in public]), proof2)
    bad = proof.to_json()
    bad["pi_a"] = g1_to_json((1, 3))
    with pytest.raises(MalformedInput):
        Proof.from_json(bad)
    bad = proof.to_json()
    bad["pi_a"][0] = str(int(bad["pi_a"][0]) + p)
    with pytest.raises(MalformedInput, match="below p"):
        Proof.from_json(bad)
    with pytest.raises(MalformedInput):
        Proof.from_json({"pi_a": proof.to_json()["pi_a"]})
    with pytest.raises(MalformedInput):
        public_from_json([str(r)])
    with pytest.raises(MalformedInput):
        public_from_json("1")
    vkj = pk.vk.to_json()
    vkj["nPublic"] = 3
    with pytest.raises(MalformedInput, match="nPublic"):
        VerifyingKey.from_json(vkj)
    assert pk.vk.fingerprint() == vk2.fingerprint()


def test_batch_verify(mcl, hash_keys):
    system, witness, pk, public = hash_keys
    items = [(public, prove(pk, witness)) for _ in range(4)]
    batch_verify(pk.vk, items)
    items[2] = ([public[0], 6], items[2][1])
    with pytest.raises(InvalidProof, match="item 2"):
        batch_verify(pk.vk, items)
    with pytest.raises(MalformedInput, match="item 0"):
        batch_verify(pk.vk, [([r, 5], items[0][1])])


def test_key_files_round_trip(mcl, hash_keys):
    system, witness, pk, public = hash_keys
    pk2 = proving_key_from_bytes(proving_key_to_bytes(pk))
    assert pk2.vk == pk.vk and pk2.system.fingerprint() == system.fingerprint()
    assert pk2.a_query == pk.a_query and pk2.h_query == pk.h_query and pk2.coefficients == pk.coefficients
    verify(pk.vk, public, prove(pk2, witness))
    with pytest.raises(MalformedInput, match="magic"):
        proving_key_from_bytes(b"junk" + proving_key_to_bytes(pk)[4:])
    data = bytearray(zkey_to_bytes(pk))
    with pytest.raises(MalformedInput):
        zkey_from_bytes(bytes(data[:-10]))


def test_pyecc_backend_proves_small_circuit(pyecc, cube_keys):
    system, witness, _ = cube_keys
    pk = setup_insecure_seeded_for_tests(system, "small", backend=pyecc)
    proof = prove(pk, witness, backend=pyecc)
    verify(pk.vk, [35], proof, backend=pyecc)
    with pytest.raises(InvalidProof):
        verify(pk.vk, [34], proof, backend=pyecc)


def test_seeded_setup_is_reproducible(cube_keys):
    system, _, pk = cube_keys
    assert setup_insecure_seeded_for_tests(system, "cube").vk == pk.vk
    assert setup_insecure_seeded_for_tests(system, "other").vk != pk.vk
    assert setup(system).vk != setup(system).vk
