"""Keys on BN254's G1 whose one use can be disclosed and checked without disclosing the key.

A holder's key is a scalar ``x`` with public key ``P = x G`` (G the G1 generator; G1 has
prime order r and no cofactor). A sender who wants to reach it picks a fresh ``k``,
publishes ``R = k G`` with a Schnorr proof that it knows ``k`` (:func:`prove_dlog`, bound
to a context), and both sides hold ``S = k P = x R``. To show a third party what was sent,
the holder discloses ``S`` with a Chaum–Pedersen proof that ``log_G P = log_R S``
(:func:`prove_dleq`): ``S`` is then the only point it could have shown, and it opens
nothing but what was keyed from this ``R``. The sender's proof of knowing ``k`` is what
keeps that true: without it a sender could publish ``R = a R'`` for someone else's
``R'``, have the holder disclose ``x R``, and divide by ``a``.

Points cross as hex of the 64-byte ``x || y`` form (:func:`point_hex`, :func:`point_of`,
which refuses a point off the curve or at infinity); a proof is the hex of the challenge
and the response, 32 bytes each. Checks raise :class:`~zkbluff.errors.MalformedInput`
for a malformed point or proof and :class:`~zkbluff.errors.CommitmentMismatch` for one
that does not verify; they return nothing.
"""
from __future__ import annotations

import hashlib
import secrets
from typing import Any, Tuple

from zkbluff.curve import G1_GENERATOR, G1Affine, get_backend
from zkbluff.curve.codec import g1_from_bytes, g1_to_bytes
from zkbluff.errors import CommitmentMismatch, MalformedInput
from zkbluff.field import r

Point = Tuple[int, int]
PROOF_BYTES = 64


def scalar_of(secret_hex: str) -> int:
    """The key scalar of a 32-byte secret (hex): SHA-512 of it, reduced mod r (never 0)."""
    x = int.from_bytes(hashlib.sha512(b"zkbluff:g1-key:v1:" + bytes.fromhex(secret_hex)).digest(), "big") % r
    return x or 1


def fresh_scalar() -> int:
    """A uniform scalar in 1..r-1 from the ``secrets`` module."""
    return secrets.randbelow(r - 1) + 1


def mul(point: G1Affine, k: int) -> G1Affine:
    """``k point`` (the point at infinity, None, for ``k = 0 mod r``)."""
    return get_backend().g1_mul(point, k % r) if point is not None and k % r else None


def public_of(x: int) -> Point:
    """``x G`` for a scalar ``x`` in 1..r-1."""
    out = mul(G1_GENERATOR, x)
    assert out is not None, "a key scalar is never 0 mod r"
    return out


def point_hex(point: G1Affine) -> str:
    return g1_to_bytes(point).hex()


def point_of(value: Any, what: str) -> Point:
    """A published point: 128 hex digits of a finite G1 point, else :class:`MalformedInput`."""
    if not isinstance(value, str) or len(value) != 128 or any(c not in "0123456789abcdef" for c in value):
        raise MalformedInput(f"{what}: a G1 point, 128 lowercase hex digits, got {value!r:.40}")
    point = g1_from_bytes(bytes.fromhex(value), what)
    assert point is not None
    return point


def public_hex(secret_hex: str) -> str:
    """The published key of a 32-byte secret (hex)."""
    return point_hex(public_of(scalar_of(secret_hex)))


def check_public_hex(value: Any, what: str) -> str:
    """A published key checked (:func:`point_of`) and returned as given."""
    point_of(value, what)
    return str(value)


def _challenge(context: str, *points: G1Affine) -> int:
    h = hashlib.sha256(b"zkbluff:dleq:v1:" + context.encode() + b"".join(g1_to_bytes(P) for P in points))
    return int.from_bytes(h.digest(), "big") % r


def _proof_hex(c: int, z: int) -> str:
    return (c.to_bytes(32, "big") + z.to_bytes(32, "big")).hex()


def _proof_of(proof: Any, what: str) -> tuple[int, int]:
    if not isinstance(proof, str) or len(proof) != 2 * PROOF_BYTES or any(c not in "0123456789abcdef" for c in proof):
        raise MalformedInput(f"{what}: a proof of {2 * PROOF_BYTES} lowercase hex digits, got {proof!r:.40}")
    c, z = int(proof[:64], 16), int(proof[64:], 16)
    if c >= r or z >= r:
        raise MalformedInput(f"{what}: the proof's challenge and response must be below r")
    return c, z


def _sub(a: G1Affine, b: G1Affine) -> G1Affine:
    be = get_backend()
    return be.g1_add(a, be.g1_neg(b))


def prove_dlog(k: int, context: str) -> str:
    """A Schnorr proof that the prover knows ``k`` with ``R = k G``, bound to ``context``."""
    R, t = public_of(k), fresh_scalar()
    T = public_of(t)
    c = _challenge(context, G1_GENERATOR, R, T)
    return _proof_hex(c, (t + c * k) % r)


def check_dlog(R: Point, proof: Any, context: str, what: str) -> None:
    """``proof`` (:func:`prove_dlog`) shows knowledge of ``log_G R`` for ``context``."""
    c, z = _proof_of(proof, what)
    if _challenge(context, G1_GENERATOR, R, _sub(mul(G1_GENERATOR, z), mul(R, c))) != c:
        raise CommitmentMismatch(f"{what}: the proof of knowing the ephemeral key does not verify")


def prove_dleq(x: int, R: Point, context: str) -> tuple[Point, str]:
    """``S = x R`` and a Chaum–Pedersen proof that ``log_G (x G) = log_R S``, bound to ``context``."""
    P, S, t = public_of(x), mul(R, x), fresh_scalar()
    assert S is not None
    c = _challenge(context, G1_GENERATOR, P, R, S, public_of(t), mul(R, t))
    return S, _proof_hex(c, (t + c * x) % r)


def check_dleq(P: Point, R: Point, S: Point, proof: Any, context: str, what: str) -> None:
    """``proof`` (:func:`prove_dleq`) shows ``S = x R`` for the ``x`` of ``P = x G``."""
    c, z = _proof_of(proof, what)
    T1, T2 = _sub(mul(G1_GENERATOR, z), mul(P, c)), _sub(mul(R, z), mul(S, c))
    if _challenge(context, G1_GENERATOR, P, R, S, T1, T2) != c:
        raise CommitmentMismatch(f"{what}: the proof that the disclosed point is the key's does not verify")
