"""The G1 keys behind Cheat's hand-overs (zkbluff.protocol.dleq): a sender's proof of knowing
its ephemeral key, a holder's proof that a disclosed point is its key times that ephemeral.
Every honest proof verifies; each changed in one named place is refused."""
import pytest

from zkbluff.errors import CommitmentMismatch, MalformedInput
from zkbluff.field import r
from zkbluff.protocol import dleq

CTX = "cheat-hand-over:7:play 3:seat 2 to seat 0"


def flip(proof: str) -> str:
    return proof[:-1] + ("0" if proof[-1] != "0" else "1")


def test_a_published_key_is_a_finite_g1_point_in_128_hex_digits():
    secret = "11" * 32
    pub = dleq.public_hex(secret)
    assert dleq.check_public_hex(pub, "key") == pub and dleq.point_of(pub, "key") == dleq.public_of(dleq.scalar_of(secret))
    for bad, why in (("ab" * 32, "128 lowercase hex"), (pub.upper(), "128 lowercase hex"), (7, "128 lowercase hex"),
                     ("00" * 63 + "05", "not on the curve"), ("00" * 64, "infinity"), ("ff" * 64, "not below p")):
        with pytest.raises(MalformedInput, match=why):
            dleq.check_public_hex(bad, "key")


def test_the_proof_of_knowing_an_ephemeral_verifies_only_for_its_point_and_context():
    k = dleq.fresh_scalar()
    R, proof = dleq.public_of(k), dleq.prove_dlog(k, CTX)
    assert dleq.check_dlog(R, proof, CTX, "hand_over") is None
    other = dleq.public_of(k + 1)
    for point, pf, ctx in ((other, proof, CTX), (R, proof, CTX + "x"), (R, flip(proof), CTX),
                           (dleq.mul(R, 2), proof, CTX)):  # a multiple of another's ephemeral: no proof
        with pytest.raises(CommitmentMismatch, match="does not verify"):
            dleq.check_dlog(point, pf, ctx, "hand_over")
    for bad in ("", "zz" * 64, "00" * 63, (r).to_bytes(32, "big").hex() + "00" * 32):
        with pytest.raises(MalformedInput):
            dleq.check_dlog(R, bad, CTX, "hand_over")


def test_a_disclosed_point_verifies_only_as_the_holders_key_times_the_ephemeral():
    x, k = dleq.scalar_of("22" * 32), dleq.fresh_scalar()
    P, R = dleq.public_of(x), dleq.public_of(k)
    S, proof = dleq.prove_dleq(x, R, CTX)
    assert S == dleq.mul(P, k)  # the sender's side of the same point
    assert dleq.check_dleq(P, R, S, proof, CTX, "dispute") is None
    y = dleq.scalar_of("33" * 32)
    S_other, proof_other = dleq.prove_dleq(y, R, CTX)  # another key's point, with its own valid proof
    wrong = dleq.mul(R, x + 1)
    assert wrong is not None
    for p_, s_, pf, ctx in ((P, S_other, proof_other, CTX), (P, wrong, proof, CTX), (P, S, flip(proof), CTX),
                            (P, S, proof, CTX + "x"), (dleq.public_of(y), S, proof, CTX)):
        with pytest.raises(CommitmentMismatch, match="does not verify"):
            dleq.check_dleq(p_, R, s_, pf, ctx, "dispute")
