"""Point codecs with full validation.

* snarkjs JSON: decimal strings in projective form with ``z = "1"``:
  G1 ``[x, y, "1"]``, G2 ``[[x0, x1], [y0, y1], ["1", "0"]]``; infinity is
  ``["0", "1", "0"]`` / ``[["0","0"], ["1","0"], ["0","0"]]``.
* Ethereum precompile layout: G1 64 bytes ``x || y``, G2 128 bytes
  ``x1 || x0 || y1 || y0`` (imaginary part first), big-endian; infinity is all zeros.

Decoding rejects coordinates >= p, points off the curve, G2 points outside the
r-torsion subgroup (BN254's G2 has a cofactor), and infinity unless allowed, each with
:class:`MalformedInput` saying what was got and what was expected.
"""
from __future__ import annotations

from typing import Any

from zkbluff.curve import (
    Backend,
    G1Affine,
    G2Affine,
    g1_is_on_curve,
    g2_is_on_curve,
    get_backend,
)
from zkbluff.errors import MalformedInput
from zkbluff.field import p


def parse_decimal(s: Any, what: str, modulus: int | None = None) -> int:
    """A non-negative decimal string (or int) below ``modulus``."""
    if isinstance(s, bool):
        raise MalformedInput(f"{what}: expected a decimal string, got {s!r}")
    if isinstance(s, int):
        v = s
    elif isinstance(s, str) and s.isascii() and s.isdigit() and len(s) <= 100:
        v = int(s)
    else:
        raise MalformedInput(f"{what}: expected a decimal string, got {s!r:.80}")
    if v < 0 or (modulus is not None and v >= modulus):
        raise MalformedInput(f"{what}: expected a value below {'p' if modulus == p else 'r'}, got {v}")
    return v


def _list(obj: Any, n: int, what: str) -> list:
    if not isinstance(obj, (list, tuple)) or len(obj) != n:
        raise MalformedInput(f"{what}: expected a list of {n}, got {obj!r:.80}")
    return list(obj)


def g1_from_json(obj: Any, what: str = "G1 point", allow_infinity: bool = False) -> G1Affine:
    x, y, z = (parse_decimal(v, f"{what} coordinate", p) for v in _list(obj, 3, what))
    if z == 0:
        if (x, y) != (0, 1):
            raise MalformedInput(f"{what}: z = 0 but (x, y) = ({x}, {y}), expected the infinity form (0, 1, 0)")
        if not allow_infinity:
            raise MalformedInput(f"{what}: got the point at infinity, expected a finite point")
        return None
    if z != 1:
        raise MalformedInput(f"{what}: expected affine form with z = 1, got z = {z}")
    P = (x, y)
    if not g1_is_on_curve(P):
        raise MalformedInput(f"{what}: ({x}, {y}) is not on the curve y^2 = x^3 + 3")
    return P


def g1_to_json(P: G1Affine) -> list[str]:
    if P is None:
        return ["0", "1", "0"]
    return [str(P[0]), str(P[1]), "1"]


def _fq2(obj: Any, what: str) -> tuple[int, int]:
    a, b = (parse_decimal(v, f"{what} coordinate", p) for v in _list(obj, 2, what))
    return (a, b)


#: G2 points found on the twist and in G2 by :func:`g2_check` in this process. Whether a
#: point is in G2 never changes, so a point checked again (a proof's B is checked when its
#: JSON is decoded and again before it is paired; a key's points in every process that
#: loads the key twice) is not handed to the backend again. Only points that passed are
#: kept; at most :data:`G2_CHECKED_MAX` (then it starts afresh).
_G2_CHECKED: set[tuple[tuple[int, int], tuple[int, int]]] = set()
G2_CHECKED_MAX = 4096


def g2_check(Q: G2Affine, what: str, allow_infinity: bool, backend: Backend | None) -> G2Affine:
    """``Q`` if it is a point of G2 (on the twist and in the order-r subgroup), or the point
    at infinity where allowed; else :class:`MalformedInput`. A point that passed before in
    this process passes without asking the backend again."""
    if Q is None:
        if not allow_infinity:
            raise MalformedInput(f"{what}: got the point at infinity, expected a finite point")
        return None
    if Q in _G2_CHECKED:
        return Q
    if not g2_is_on_curve(Q):
        raise MalformedInput(f"{what}: not on the twist y^2 = x^3 + 3/(9+u)")
    if not (backend or get_backend()).g2_in_subgroup(Q):
        raise MalformedInput(f"{what}: on the twist but not in the order-r subgroup G2")
    if len(_G2_CHECKED) >= G2_CHECKED_MAX:
        _G2_CHECKED.clear()
    _G2_CHECKED.add(Q)
    return Q


def g2_from_json(obj: Any, what: str = "G2 point", allow_infinity: bool = False,
                 backend: Backend | None = None) -> G2Affine:
    x, y, z = (_fq2(v, what) for v in _list(obj, 3, what))
    if z == (0, 0):
        if (x, y) != ((0, 0), (1, 0)):
            raise MalformedInput(f"{what}: z = 0 but not the infinity form")
        return g2_check(None, what, allow_infinity, backend)
    if z != (1, 0):
        raise MalformedInput(f"{what}: expected affine form with z = [\"1\", \"0\"], got {z}")
    return g2_check((x, y), what, allow_infinity, backend)


def g2_to_json(Q: G2Affine) -> list[list[str]]:
    if Q is None:
        return [["0", "0"], ["1", "0"], ["0", "0"]]
    (x0, x1), (y0, y1) = Q
    return [[str(x0), str(x1)], [str(y0), str(y1)], ["1", "0"]]


def _int_be(b: bytes, what: str) -> int:
    v = int.from_bytes(b, "big")
    if v >= p:
        raise MalformedInput(f"{what}: coordinate {v} is not below p")
    return v


def g1_to_bytes(P: G1Affine) -> bytes:
    if P is None:
        return bytes(64)
    return P[0].to_bytes(32, "big") + P[1].to_bytes(32, "big")


def g1_from_bytes(b: bytes, what: str = "G1 point", allow_infinity: bool = False) -> G1Affine:
    if not isinstance(b, (bytes, bytearray)) or len(b) != 64:
        raise MalformedInput(f"{what}: expected 64 bytes, got {len(b) if hasattr(b, '__len__') else type(b).__name__}")
    x, y = _int_be(b[:32], what), _int_be(b[32:], what)
    if (x, y) == (0, 0):
        if not allow_infinity:
            raise MalformedInput(f"{what}: got the point at infinity, expected a finite point")
        return None
    if not g1_is_on_curve((x, y)):
        raise MalformedInput(f"{what}: ({x}, {y}) is not on the curve y^2 = x^3 + 3")
    return (x, y)


def g2_to_bytes(Q: G2Affine) -> bytes:
    if Q is None:
        return bytes(128)
    (x0, x1), (y0, y1) = Q
    return b"".join(v.to_bytes(32, "big") for v in (x1, x0, y1, y0))


def g2_from_bytes(b: bytes, what: str = "G2 point", allow_infinity: bool = False,
                  backend: Backend | None = None) -> G2Affine:
    if not isinstance(b, (bytes, bytearray)) or len(b) != 128:
        raise MalformedInput(f"{what}: expected 128 bytes, got {len(b) if hasattr(b, '__len__') else type(b).__name__}")
    x1, x0, y1, y0 = (_int_be(b[32 * i: 32 * i + 32], what) for i in range(4))
    Q = None if (x0, x1, y0, y1) == (0, 0, 0, 0) else ((x0, x1), (y0, y1))
    return g2_check(Q, what, allow_infinity, backend)


# ------------------------------------------------------------------ .zkey point sections in C
_R_MONT = (1 << 256) % p
_SECTION_DECODER: Any = None  # the C decoder, False where there is none; None until asked


def decode_zkey_points(data: bytes, count: int, g2: bool, checked: bool) -> list | None:
    """``count`` points of a .zkey section (snarkjs's layout: Montgomery-form little-endian
    coordinates, all zero for infinity) by ``zkbluff._msm_native.decode_points``: the points,
    each coordinate below p and (``checked``) on its curve; or None when one is not, the data
    is short, or the C module is absent: the caller's Python reader then reads the section and
    names what is wrong (tests/groth16/test_zkey_section_readers.py: the two agree)."""
    global _SECTION_DECODER
    if _SECTION_DECODER is None:
        try:
            from zkbluff import _msm_native  # type: ignore[attr-defined]

            _SECTION_DECODER = getattr(_msm_native, "decode_points", False)
        except ImportError:
            _SECTION_DECODER = False
    if not _SECTION_DECODER:
        return None
    from zkbluff.curve import B1, B2

    b = [B1] if not g2 else list(B2)
    b_mont = b"".join((c * _R_MONT % p).to_bytes(32, "little") for c in b)
    return _SECTION_DECODER(data, count, g2, b_mont, checked)
