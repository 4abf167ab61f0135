"""Every input guard of groth16/verify.py, each with a test that fails without it.

Found by mutation testing (issue 21, ``make mutate``): each test names the mutant it kills.
A malformed proof must be refused with :class:`MalformedInput` before any pairing, on
both backends; a well-formed wrong proof with :class:`InvalidProof`.
"""
import importlib

import pytest

from zkbluff.circuit import build
from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.field import p, r
from zkbluff.groth16 import Proof, batch_verify, prove, setup_insecure_seeded_for_tests, verify
from backend_spies import FirstPairingFails

verify_module = importlib.import_module("zkbluff.groth16.verify")  # the module (the package exports the function)


def two_publics(cs, inputs):
    """``out = x^3 + x + 5`` and ``k`` bound by ``x * k``: two public inputs, 3 constraints."""
    out = cs.public("out", inputs and inputs["out"])
    k = cs.public("k", inputs and inputs["k"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    x3 = cs.mul(cs.mul(x, x, "x2"), x, "x3")
    cs.enforce_equal(x3 + x + 5, out, "result")
    cs.mul(x, k, "bind_k")


@pytest.fixture(scope="module")
def keys(mcl):
    system, witness = build(two_publics, {"x": 3, "out": 35, "k": 7})
    pk = setup_insecure_seeded_for_tests(system, "verify-guards", mcl)
    proof = prove(pk, witness, mcl)
    verify(pk.vk, [35, 7], proof, mcl)  # the positive twin of every rejection below
    return pk.vk, [35, 7], proof


@pytest.fixture(params=["mcl", "pyecc"])
def be(request, mcl, pyecc):
    return {"mcl": mcl, "pyecc": pyecc}[request.param]


# ---- G1 points: coordinates must be reduced (kills `all` -> `any`, `< p` -> `<= p`) ----------

@pytest.mark.parametrize("which", ["a", "c"])
@pytest.mark.parametrize("shift", ["y+p", "x+p", "y-p", "x-p"])
def test_unreduced_g1_coordinate_rejected(keys, be, which, shift):
    """(x, y + p) is the same point mod p: accepting it makes proofs malleable."""
    vk, public, proof = keys
    x, y = getattr(proof, which)
    P = {"y+p": (x, y + p), "x+p": (x + p, y), "y-p": (x, y - p), "x-p": (x - p, y)}[shift]
    forged = Proof(P, proof.b, proof.c) if which == "a" else Proof(proof.a, proof.b, P)
    with pytest.raises(MalformedInput, match=f"pi_{which}: not a point on the curve"):
        verify(vk, public, forged, be)


@pytest.mark.parametrize("which", ["a", "c"])
def test_g1_coordinate_minus_one_rejected(keys, be, which):
    """(p - 1, s) is on the curve; (-1, s) is the same point unreduced and must be refused."""
    vk, public, proof = keys
    s = pow(2, (p + 1) // 4, p)
    assert s * s % p == 2 and (s * s - (p - 1) ** 3 - 3) % p == 0  # (p - 1, s) is a point of G1
    bad = (-1, s)
    forged = Proof(bad, proof.b, proof.c) if which == "a" else Proof(proof.a, proof.b, bad)
    with pytest.raises(MalformedInput, match=f"pi_{which}: not a point on the curve"):
        verify(vk, public, forged, be)
    # the reduced twin is well formed: refused by the pairing, not by the input check
    reduced = Proof((p - 1, s), proof.b, proof.c) if which == "a" else Proof(proof.a, proof.b, (p - 1, s))
    with pytest.raises(InvalidProof):
        verify(vk, public, reduced, be)


@pytest.mark.parametrize("bad", [[1, 2], (1, 2, 3), (1.0, 2), ("1", "2")])
def test_g1_point_of_wrong_shape_rejected(keys, be, bad):
    vk, public, proof = keys
    if isinstance(bad, list):
        bad = list(proof.a)  # the right point as a list, not a tuple
    with pytest.raises(MalformedInput, match="pi_a: not a point on the curve"):
        verify(vk, public, Proof(bad, proof.b, proof.c), be)


def test_g1_at_infinity_rejected(keys, be):
    vk, public, proof = keys
    with pytest.raises(MalformedInput, match="pi_a: got the point at infinity"):
        verify(vk, public, Proof(None, proof.b, proof.c), be)
    with pytest.raises(MalformedInput, match="pi_c: got the point at infinity"):
        verify(vk, public, Proof(proof.a, proof.b, None), be)


# ---- the G2 point B --------------------------------------------------------------------------

def test_pi_b_at_infinity_rejected(keys, be):
    vk, public, proof = keys
    with pytest.raises(MalformedInput, match="pi_b: got the point at infinity"):
        verify(vk, public, Proof(proof.a, None, proof.c), be)


@pytest.mark.parametrize("where", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_g2_coordinate_exactly_p_rejected(keys, be, where):
    """A coordinate equal to p (not p + something: the boundary of ``v < p``)."""
    vk, public, proof = keys
    b = [list(c) for c in proof.b]
    b[where[0]][where[1]] = p
    with pytest.raises(MalformedInput, match="pi_b: not a point with coordinates in Fq2"):
        verify(vk, public, Proof(proof.a, tuple(tuple(c) for c in b), proof.c), be)


@pytest.mark.parametrize("where", [(0, 0), (1, 1)])
def test_g2_coordinate_unreduced_or_negative_rejected(keys, be, where):
    vk, public, proof = keys
    for delta in (p, -p):
        b = [list(c) for c in proof.b]
        b[where[0]][where[1]] += delta
        with pytest.raises(MalformedInput, match="pi_b: not a point with coordinates in Fq2"):
            verify(vk, public, Proof(proof.a, tuple(tuple(c) for c in b), proof.c), be)


@pytest.mark.parametrize("shape", ["list", "three", "inner-list", "inner-three", "str"])
def test_g2_point_of_wrong_shape_rejected(keys, be, shape):
    vk, public, proof = keys
    (x0, x1), (y0, y1) = proof.b
    bad = {"list": [(x0, x1), (y0, y1)], "three": ((x0, x1), (y0, y1), (1, 0)),
           "inner-list": ([x0, x1], (y0, y1)), "inner-three": ((x0, x1, 0), (y0, y1)),
           "str": ((str(x0), x1), (y0, y1))}[shape]
    with pytest.raises(MalformedInput, match="pi_b: not a point with coordinates in Fq2"):
        verify(vk, public, Proof(proof.a, bad, proof.c), be)


# ---- the proof object and the public inputs ------------------------------------------------

@pytest.mark.parametrize("thing", ["tuple", "dict", "none"])
def test_non_proof_argument_rejected(keys, be, thing):
    vk, public, proof = keys
    bad = {"tuple": (proof.a, proof.b, proof.c), "dict": proof.to_json(), "none": None}[thing]
    with pytest.raises(MalformedInput, match=f"proof: expected a Proof, got {type(bad).__name__}"):
        verify(vk, public, bad, be)
    with pytest.raises(MalformedInput, match="item 0: proof: expected a Proof"):
        batch_verify(vk, [(public, bad)], be)


@pytest.mark.parametrize("bad, what", [(True, "True"), (-1, "-1"), (r, str(r)), (35.0, "35.0"), ("35", "'35'")])
def test_public_input_out_of_range_or_type_rejected(keys, be, bad, what):
    vk, public, proof = keys
    with pytest.raises(MalformedInput, match=f"public input 1: expected 0 <= x < r, got {what}"):
        verify(vk, [public[0], bad], proof, be)


def test_public_input_r_minus_one_is_in_range(keys, mcl):
    """The upper boundary: r - 1 is a field element (a wrong one here: InvalidProof, not MalformedInput)."""
    vk, public, proof = keys
    with pytest.raises(InvalidProof):
        verify(vk, [public[0], r - 1], proof, mcl)
    with pytest.raises(InvalidProof):
        verify(vk, [0, public[1]], proof, mcl)  # and 0 the lower one


@pytest.mark.parametrize("n", [1, 3])
def test_wrong_number_of_public_inputs(keys, be, n):
    vk, public, proof = keys
    with pytest.raises(MalformedInput, match=f"wrong number of public inputs, got {n}, expected 2"):
        verify(vk, [5] * n, proof, be)


def test_each_public_input_and_point_matters(keys, mcl):
    vk, public, proof = keys
    for bad in ([public[0] + 1, public[1]], [public[0], public[1] + 1], [public[1], public[0]]):
        with pytest.raises(InvalidProof, match="does not verify for these public inputs"):
            verify(vk, bad, proof, mcl)
    with pytest.raises(InvalidProof):
        verify(vk, public, Proof(proof.c, proof.b, proof.a), mcl)


# ---- batch verification --------------------------------------------------------------------

def test_batch_weight_is_never_zero(keys, mcl, monkeypatch):
    """Weights are ``randbits(128) | 1``: odd, so never 0. With ``& 1`` an even draw gives a
    bad proof weight 0 and the batch passes; force the even draws that expose it."""
    vk, public, proof = keys
    for even in (0, 2, 1 << 127):
        monkeypatch.setattr(verify_module.secrets, "randbits", lambda n, even=even: even)
        with pytest.raises(InvalidProof, match="item 1") as exc:
            batch_verify(vk, [(public, proof), ([public[0], public[1] + 1], proof), (public, proof)], mcl)
        assert exc.value.index == 1
        batch_verify(vk, [(public, proof), (public, proof)], mcl)  # the positive twin under the same draws


def test_batch_weights_have_128_bits(keys, mcl, monkeypatch):
    """The batch's soundness error is 2^-128 per bad proof: each weight draws 128 bits."""
    vk, public, proof = keys
    asked = []
    real = verify_module.secrets.randbits
    monkeypatch.setattr(verify_module.secrets, "randbits", lambda n: asked.append(n) or real(n))
    batch_verify(vk, [(public, proof)] * 3, mcl)
    assert len(asked) == 3 and min(asked) >= 128  # one draw per proof, at least 128 bits each


def test_batch_weights_differ_per_proof(keys, mcl):
    """Two bad proofs whose errors cancel when weighted equally must still fail the batch
    (weights drawn per proof): A + D and A - D for the same B sum to 2A."""
    vk, public, proof = keys
    D = mcl.g1_mul(proof.a, 5)
    plus, minus = mcl.g1_add(proof.a, D), mcl.g1_add(proof.a, mcl.g1_neg(D))
    items = [(public, Proof(plus, proof.b, proof.c)), (public, Proof(minus, proof.b, proof.c))]
    with pytest.raises(InvalidProof, match="item 0"):
        batch_verify(vk, items, mcl)


def test_batch_verify_each_public_input_weighted(keys, mcl):
    vk, public, proof = keys
    for k in range(2):
        bad = list(public)
        bad[k] += 1
        with pytest.raises(InvalidProof, match="item 2") as exc:
            batch_verify(vk, [(public, proof), (public, proof), (bad, proof)], mcl)
        assert exc.value.index == 2


def test_batch_verify_empty_and_single(keys, mcl):
    vk, public, proof = keys
    assert batch_verify(vk, [], mcl) is None
    assert batch_verify(vk, [(public, proof)], mcl) is None
    with pytest.raises(InvalidProof, match="item 0"):
        batch_verify(vk, [(public, Proof(proof.c, proof.b, proof.a))], mcl)


def test_batch_verify_validates_every_item_first(keys, mcl):
    vk, public, proof = keys
    with pytest.raises(MalformedInput, match="item 1: pi_a: not a point on the curve"):
        batch_verify(vk, [(public, proof), (public, Proof((proof.a[0], proof.a[1] + p), proof.b, proof.c))], mcl)
    with pytest.raises(MalformedInput, match="item 2: wrong number of public inputs"):
        batch_verify(vk, [(public, proof), (public, proof), (public[:1], proof)], mcl)


def test_batch_fails_closed_when_no_single_proof_is_to_blame(keys, mcl):
    """If the combined check fails but every proof verifies alone (it cannot, short of a fault),
    the batch is still refused: never accepted by default."""
    vk, public, proof = keys
    be = FirstPairingFails(mcl)
    with pytest.raises(InvalidProof, match="^the batch does not verify$"):
        batch_verify(vk, [(public, proof), (public, proof)], be)
    assert be.pairings == 3  # the batch, then each proof alone
