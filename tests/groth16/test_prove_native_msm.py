"""A Groth16 proof whose MSMs are large enough for the native MSM (zkbluff._msm_native,
G1 and G2) is the same proof, byte for byte under the same blinding, as with MCL's own
mulVec, and it verifies; another blinding gives another proof that verifies too."""
import pytest

from zkbluff.circuit import build
from zkbluff.errors import InvalidProof
from zkbluff.groth16 import prove, setup, verify

mb = pytest.importorskip("zkbluff.curve.mcl_backend")

N = 1500  # constraints: every MSM of the prove has 1024+ live terms


def chain(cs, inputs):
    out = cs.public("out", inputs and inputs["out"])
    x = cs.private_unchecked("x", inputs and 3)
    for i in range(N - 1):
        x = cs.mul(x, x + i, f"m{i}")
    cs.enforce_equal(x, out, "out")


def chain_output() -> int:
    from zkbluff.field import r

    x = 3
    for i in range(N - 1):
        x = x * (x + i) % r
    return x


@pytest.fixture(scope="module")
def chain_keys(mcl):
    system, witness = build(chain, {"out": chain_output()})
    return setup(system, backend=mcl), witness


def test_native_msms_give_the_same_proof_as_mcl_mulvec(mcl, chain_keys, seed_secrets, monkeypatch):
    native = mb._native_msm()
    if native is None:
        pytest.skip("the native MSM is not built here")
    pk, witness = chain_keys
    assert len(pk.a_query) >= mb.NATIVE_MSM_MIN and len(pk.b_g2_query) >= mb.NATIVE_G2_MSM_MIN
    calls = []
    for name in ("g1_msm", "g2_msm"):
        real = getattr(native, name)
        monkeypatch.setattr(native, name, lambda *a, real=real, name=name: calls.append(name) or real(*a))
    seed_secrets(7)
    ours = prove(pk, witness, backend=mcl)
    assert {"g1_msm", "g2_msm"} <= set(calls)  # both groups went through it
    monkeypatch.setattr(mb, "_NATIVE_MSM", None)
    seed_secrets(7)
    theirs = prove(pk, witness, backend=mcl)
    assert ours == theirs
    verify(pk.vk, [witness[1]], ours, mcl)
    with pytest.raises(InvalidProof):
        verify(pk.vk, [witness[1] + 1], ours, mcl)
    monkeypatch.setattr(mb, "_NATIVE_MSM", native)
    seed_secrets(8)
    other = prove(pk, witness, backend=mcl)
    assert other != ours
    verify(pk.vk, [witness[1]], other, mcl)
