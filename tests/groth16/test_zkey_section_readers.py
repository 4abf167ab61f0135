"""The .zkey point sections read in one loop (issue 31: a 2^16 key holds 327,680 G1 and
65,536 G2 points) give what reading them point by point gave (``_g1_in`` / ``_g2_in``):
the same points, and the same first error on a coordinate not below q, a point off its
curve or a truncated section; the C decoder (zkbluff._msm_native.decode_points) the same
points, or None where the Python reader raises; the coefficients section likewise."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit.formats import BinReader
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, get_backend
from zkbluff.errors import MalformedInput
from zkbluff.field import p
from zkbluff.curve.codec import decode_zkey_points
from zkbluff.groth16.zkey import _g1_in, _g1_out, _g1_section, _g2_in, _g2_out, _g2_section

MCL = get_backend("mcl")
G1S = [MCL.g1_mul(G1_GENERATOR, k) for k in range(1, 9)] + [None]
G2S = [MCL.g2_mul(G2_GENERATOR, k) for k in range(1, 9)] + [None]
NATIVE = decode_zkey_points(b"", 0, False, True) is not None


def one_by_one(reader, data: bytes, count: int, what: str, checked: bool):
    rd = BinReader(data, what)
    try:
        return [reader(rd, f"{what}[{i}]", checked) for i in range(count)]
    except MalformedInput as e:
        return str(e)


def in_one_loop(section, data: bytes, count: int, what: str, checked: bool):
    try:
        return section(data, count, what, checked)
    except MalformedInput as e:
        return str(e)


def spoil(data: bytes, rng: random.Random, kind: str, size: int) -> bytes:
    b = bytearray(data)
    if not b:
        return bytes(b)
    at = rng.randrange(len(b) // size) * size
    coord = at + 32 * rng.randrange(size // 32)
    if kind == "above q":
        b[coord:coord + 32] = (p + rng.randrange(1000)).to_bytes(32, "little")
    elif kind == "off curve":
        b[coord] ^= 1 + rng.randrange(255)
    elif kind == "truncated":
        del b[rng.randrange(len(b)):]
    elif kind == "zero coordinate":
        b[coord:coord + 32] = bytes(32)
    return bytes(b)


@settings(max_examples=150, deadline=None)
@given(group=st.sampled_from(["G1", "G2"]), picks=st.lists(st.integers(0, 8), max_size=12),
       kind=st.sampled_from(["none", "above q", "off curve", "truncated", "zero coordinate"]),
       seed=st.integers(0, 2**32), checked=st.booleans(), extra=st.integers(0, 2))
def test_a_section_in_one_loop_reads_as_point_by_point(group, picks, kind, seed, checked, extra):
    pts, out, size = (G1S, _g1_out, 64) if group == "G1" else (G2S, _g2_out, 128)
    reader, section = (_g1_in, _g1_section) if group == "G1" else (_g2_in, _g2_section)
    data = spoil(b"".join(out(pts[i]) for i in picks), random.Random(seed), kind, size)
    count = len(picks) + extra  # more points asked for than the section holds: truncated
    expected = one_by_one(reader, data, count, "k.zkey A", checked)
    assert in_one_loop(section, data, count, "k.zkey A", checked) == expected
    if NATIVE:  # the C decoder: the same points, or None (the Python reader then names the fault)
        fast = decode_zkey_points(data, count, group == "G2", checked)
        assert fast == (None if isinstance(expected, str) else expected)
        if extra == 0 and kind == "none":
            assert fast is not None


def test_the_c_decoder_is_there_under_ci():
    import os

    if os.environ.get("CI") == "true":
        assert NATIVE


def test_the_readers_refuse_what_they_refused():
    good = _g1_out(G1S[2])
    with pytest.raises(MalformedInput, match=r"A\[1\]: point not on the curve"):
        _g1_section(good + good[:63] + bytes([good[63] ^ 1]), 2, "A")
    with pytest.raises(MalformedInput, match=r"B2\[0\]: coordinate not below q"):
        _g2_section(p.to_bytes(32, "little") + bytes(96), 1, "B2")
    with pytest.raises(MalformedInput, match="B2: truncated at byte 128, wanted 128 more"):
        _g2_section(_g2_out(G2S[0]), 2, "B2")


@pytest.mark.parametrize("cut", [1, 12, 30, 44])
def test_a_truncated_coefficients_section_says_where_as_before(cut):
    """Whole records are read in one unpack; a cut one is read record by record, so the error
    names the byte where the old reader stopped."""
    import struct

    from zkbluff.circuit import build
    from zkbluff.circuit.formats import read_binfile
    from zkbluff.groth16 import setup
    from zkbluff.groth16.zkey import zkey_sections_to_key, zkey_to_bytes

    def square(cs, inputs):
        x = cs.public("x", None)
        y = cs.private_unchecked("y", None)
        cs.enforce_equal(cs.mul(y, y, "square"), x, "x is y squared")

    system = build(square)[0]
    pk = setup(system, MCL)
    sections = read_binfile(zkey_to_bytes(pk), b"zkey", (1,), "k.zkey")
    assert zkey_sections_to_key(sections, "k.zkey").coefficients == pk.coefficients
    n = struct.unpack("<I", sections[4][:4])[0]
    sections[4] = sections[4][:len(sections[4]) - cut]
    whole, part = divmod(44 * n - cut, 44)
    at = 4 + 44 * whole + (12 if part >= 12 else 0)
    wanted = 32 if part >= 12 else 12
    with pytest.raises(MalformedInput, match=f"k.zkey coefficients: truncated at byte {at}, wanted {wanted} more"):
        zkey_sections_to_key(sections, "k.zkey")
