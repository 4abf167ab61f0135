import random

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.curve import (
    B2, G1_GENERATOR as G, G2_GENERATOR as H, fq2_add, fq2_mul, fq2_sqrt, g1_is_on_curve,
    g2_is_on_curve, get_backend,
)
from zkbluff.curve import codec
from zkbluff.errors import BackendUnavailable, MalformedInput
from zkbluff.field import p, r
from sample_circuits import non_subgroup_g2

scalars = st.integers(min_value=0, max_value=r - 1)


@settings(max_examples=15)
@given(scalars, scalars)
def test_backends_agree_on_g1(mcl, pyecc, a, b):
    Pa, Pb = mcl.g1_mul(G, a), pyecc.g1_mul(G, a)
    assert Pa == Pb
    Q = pyecc.g1_mul(G, b)
    assert mcl.g1_add(Pa, Q) == pyecc.g1_add(Pb, Q) == pyecc.g1_mul(G, (a + b) % r)
    assert mcl.g1_neg(Pa) == pyecc.g1_neg(Pa)
    assert codec.g1_to_bytes(Pa) == codec.g1_to_bytes(Pb)


@settings(max_examples=8)
@given(scalars)
def test_backends_agree_on_g2(mcl, pyecc, a):
    Qa = mcl.g2_mul(H, a)
    assert Qa == pyecc.g2_mul(H, a)
    assert codec.g2_to_bytes(Qa) == codec.g2_to_bytes(pyecc.g2_mul(H, a))
    assert mcl.g2_add(Qa, H) == pyecc.g2_add(Qa, H)
    assert mcl.g2_neg(Qa) == pyecc.g2_neg(Qa)


def test_identity_edges(backend):
    assert backend.g1_mul(G, 0) is None
    assert backend.g1_mul(G, r) is None
    assert backend.g1_add(G, backend.g1_neg(G)) is None
    assert backend.g1_add(None, G) == G
    assert backend.g2_mul(H, r) is None
    assert backend.g2_mul(H, 1) == H


@settings(max_examples=5)
@given(st.lists(scalars, min_size=0, max_size=12))
def test_msm_matches_naive_sum(mcl, pyecc, ks):
    rng = random.Random(len(ks))
    pts = [mcl.g1_mul(G, rng.randrange(r)) for _ in ks]
    if pts:
        pts[0] = None  # infinity in a query vector is allowed
    naive = None
    for P, k in zip(pts, ks):
        naive = mcl.g1_add(naive, mcl.g1_mul(P, k))
    assert mcl.g1_msm(pts, ks) == naive
    assert pyecc.g1_msm(pts, ks) == naive
    prepared = mcl.g1_prepare(pts)
    assert mcl.g1_msm(prepared, ks) == naive


def test_g2_msm(mcl, pyecc):
    qs = [mcl.g2_mul(H, k) for k in (3, 5, 7)]
    assert mcl.g2_msm(qs, [1, 2, 3]) == pyecc.g2_msm(qs, [1, 2, 3]) == mcl.g2_mul(H, 3 + 10 + 21)
    with pytest.raises(MalformedInput):
        mcl.g2_msm(qs, [1, 2])


@settings(max_examples=3)
@given(scalars.filter(bool), scalars.filter(bool))
def test_pairing_bilinearity(backend, a, b):
    # e(aP, bQ) * e(-abP, Q) == 1, and a wrong exponent is rejected
    aP, bQ = backend.g1_mul(G, a), backend.g2_mul(H, b)
    assert backend.pairing_product_is_one([(aP, bQ), (backend.g1_neg(backend.g1_mul(G, a * b)), H)])
    assert not backend.pairing_product_is_one([(aP, bQ), (backend.g1_neg(backend.g1_mul(G, a * b + 1)), H)])


def test_four_pair_product(mcl):
    a, b, c = 11, 13, 17
    pairs = [(mcl.g1_mul(G, a), mcl.g2_mul(H, b)), (mcl.g1_mul(G, c), H),
             (mcl.g1_neg(G), mcl.g2_mul(H, a * b)), (mcl.g1_neg(mcl.g1_mul(G, c)), H)]
    assert mcl.pairing_product_is_one(pairs)
    pairs[3] = (mcl.g1_neg(mcl.g1_mul(G, c + 1)), H)
    assert not mcl.pairing_product_is_one(pairs)


def test_subgroup_check(backend):
    Q = non_subgroup_g2()
    assert g2_is_on_curve(Q)
    assert not backend.g2_in_subgroup(Q)
    assert backend.g2_in_subgroup(H)


def test_unknown_backend():
    with pytest.raises(BackendUnavailable):
        get_backend("gpu")


# ---- codecs: each positive with its negative twins

def test_json_round_trip(backend):
    P, Q = backend.g1_mul(G, 99), backend.g2_mul(H, 99)
    assert codec.g1_from_json(codec.g1_to_json(P)) == P
    assert codec.g2_from_json(codec.g2_to_json(Q), backend=backend) == Q
    assert codec.g1_from_json(codec.g1_to_json(None), allow_infinity=True) is None
    assert codec.g2_from_json(codec.g2_to_json(None), allow_infinity=True) is None


@pytest.mark.parametrize("bad, why", [
    (["1", "3", "1"], "not on the curve"),
    ([str(1 + p), "2", "1"], "below p"),
    (["1", "2"], "list of 3"),
    (["1", "2", "2"], "z = 1"),
    (["0", "1", "0"], "infinity"),
    (["0x1", "2", "1"], "decimal"),
    (["-1", "2", "1"], "decimal"),
    ([1.0, "2", "1"], "decimal"),
])
def test_g1_json_rejects(bad, why):
    with pytest.raises(MalformedInput, match=why):
        codec.g1_from_json(bad)


def test_g2_json_rejects(backend):
    good = codec.g2_to_json(H)
    swapped = [[good[0][1], good[0][0]], [good[1][1], good[1][0]], good[2]]  # c1/c0 in the wrong order
    with pytest.raises(MalformedInput, match="twist"):
        codec.g2_from_json(swapped, backend=backend)
    with pytest.raises(MalformedInput, match="subgroup"):
        codec.g2_from_json(codec.g2_to_json(non_subgroup_g2()), backend=backend)
    with pytest.raises(MalformedInput, match="infinity"):
        codec.g2_from_json(codec.g2_to_json(None), backend=backend)
    bad = [list(good[0]), [good[1][0], str(p)], good[2]]
    with pytest.raises(MalformedInput, match="below p"):
        codec.g2_from_json(bad, backend=backend)


def test_bytes_round_trip_and_rejects(backend):
    P, Q = backend.g1_mul(G, 5), backend.g2_mul(H, 5)
    assert codec.g1_from_bytes(codec.g1_to_bytes(P)) == P
    assert codec.g2_from_bytes(codec.g2_to_bytes(Q), backend=backend) == Q
    assert codec.g1_to_bytes(G) == (1).to_bytes(32, "big") + (2).to_bytes(32, "big")
    # the precompile layout puts the imaginary part first
    assert codec.g2_to_bytes(H)[:32] == H[0][1].to_bytes(32, "big")
    with pytest.raises(MalformedInput, match="64 bytes"):
        codec.g1_from_bytes(codec.g1_to_bytes(P)[:-1])
    with pytest.raises(MalformedInput, match="infinity"):
        codec.g1_from_bytes(bytes(64))
    assert codec.g1_from_bytes(bytes(64), allow_infinity=True) is None
    with pytest.raises(MalformedInput, match="below p"):
        codec.g1_from_bytes(p.to_bytes(32, "big") + (2).to_bytes(32, "big"))
    with pytest.raises(MalformedInput, match="not on the curve"):
        codec.g1_from_bytes((1).to_bytes(32, "big") + (3).to_bytes(32, "big"))
    with pytest.raises(MalformedInput, match="subgroup"):
        codec.g2_from_bytes(codec.g2_to_bytes(non_subgroup_g2()), backend=backend)
    with pytest.raises(MalformedInput, match="128 bytes"):
        codec.g2_from_bytes(bytes(127))


def test_on_curve_helpers():
    assert g1_is_on_curve(G) and not g1_is_on_curve((1, 3))
    assert g2_is_on_curve(H) and not g2_is_on_curve((H[1], H[0]))
