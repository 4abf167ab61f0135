"""The part of a pinned proving key that phase 2 never touches, shipped precomputed.

A pinned key's A, B1 (G1) and B2 (G2) queries are the same for every ceremony over the
same circuit and phase 1 (``A_i = sum_j A_ji [L_j(tau)]_1``, see
:func:`zkbluff.ceremony.phase2.zkey_new`): rebuilding them is 6.1 M scalar-times-point
terms for the whole registry (195 s of CPU on the project's 2-core machine; 41 s of the
67 s a fresh ``zkbluff demo`` spent on its four keys, 14 s more reading the ``.ptau``). The
ceremony writes them once per statement to ``circuits/keys/<stem>.query`` and pins the
file's SHA-256 in the manifest (``keys[id]["query_sha256"]``), so an install reads them
instead of rebuilding them; ``zkbluff ceremony verify --full`` rebuilds them from the
``.ptau`` and requires the file byte-identical.

Format: a binfile (magic ``zkbq``, version 1). Section 1: u32 the number of wires.
Sections 5 (A), 6 (B1), 7 (B2): a bitmap of the wires whose point is finite (one bit a
wire, least significant first), then those points uncompressed, each coordinate 32
bytes little-endian in plain form (G2: x0, x1, y0, y1). Decoding is ``int.from_bytes``
and nothing else: no point is checked on its curve, because the digest pin already
says the file is the ceremony's (a file that does not match its pin is never decoded).
"""
from __future__ import annotations

import hashlib
import struct
from typing import Optional, Sequence

from zkbluff.ceremony.binfile import BinReader, read_binfile, write_binfile
from zkbluff.curve import G1Affine, G2Affine
from zkbluff.errors import MalformedInput

MAGIC = b"zkbq"
SUFFIX = ".query"
SECTION_A, SECTION_B1, SECTION_B2 = 5, 6, 7

Queries = tuple[tuple[G1Affine, ...], tuple[G1Affine, ...], tuple[G2Affine, ...]]


def _coordinates(P) -> list[int]:
    if isinstance(P[0], tuple):
        (x0, x1), (y0, y1) = P
        return [x0, x1, y0, y1]
    return [P[0], P[1]]


def _section(points: Sequence) -> bytes:
    bitmap = bytearray((len(points) + 7) // 8)
    body: list[bytes] = []
    for i, P in enumerate(points):
        if P is not None:
            bitmap[i >> 3] |= 1 << (i & 7)
            body.extend(c.to_bytes(32, "little") for c in _coordinates(P))
    return bytes(bitmap) + b"".join(body)


def query_bytes(a_query: Sequence[G1Affine], b_g1_query: Sequence[G1Affine],
                b_g2_query: Sequence[G2Affine]) -> bytes:
    n = len(a_query)
    if len(b_g1_query) != n or len(b_g2_query) != n:
        raise ValueError(f"queries of {n}, {len(b_g1_query)} and {len(b_g2_query)} wires")
    return write_binfile(MAGIC, 1, [(1, struct.pack("<I", n)), (SECTION_A, _section(a_query)),
                                    (SECTION_B1, _section(b_g1_query)), (SECTION_B2, _section(b_g2_query))])


def query_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _points(data: bytes, n: int, g2: bool, what: str) -> tuple:
    width = 4 if g2 else 2
    nbytes = (n + 7) // 8
    bitmap = data[:nbytes]
    finite = [i for i in range(n) if bitmap[i >> 3] >> (i & 7) & 1]
    if len(bitmap) != nbytes or len(data) != nbytes + 32 * width * len(finite):
        raise MalformedInput(f"{what}: {len(data)} bytes do not hold the {len(finite)} points its bitmap lists")
    frm = int.from_bytes
    coords = [frm(data[o: o + 32], "little") for o in range(nbytes, len(data), 32)]
    out: list = [None] * n
    if g2:
        for k, i in enumerate(finite):
            x0, x1, y0, y1 = coords[4 * k: 4 * k + 4]
            out[i] = ((x0, x1), (y0, y1))
    else:
        for k, i in enumerate(finite):
            out[i] = (coords[2 * k], coords[2 * k + 1])
    return tuple(out)


def query_from_bytes(data: bytes, n_wires: int, what: str, digest: Optional[str] = None) -> Queries:
    """The three queries of a ``.query`` file for a circuit of ``n_wires`` wires. With
    ``digest``, a file whose SHA-256 is another is refused before anything is decoded."""
    if digest is not None and query_digest(data) != digest:
        raise MalformedInput(f"{what}: its SHA-256 is not the pinned {digest[:16]}")
    sections = read_binfile(data, MAGIC, (1,), what)
    for k in (1, SECTION_A, SECTION_B1, SECTION_B2):
        if k not in sections:
            raise MalformedInput(f"{what}: section {k} is missing")
    n = BinReader(sections[1], what).u32()
    if n != n_wires:
        raise MalformedInput(f"{what}: made for {n} wires, the circuit has {n_wires}")
    return (_points(sections[SECTION_A], n, False, f"{what} A"), _points(sections[SECTION_B1], n, False, f"{what} B1"),
            _points(sections[SECTION_B2], n, True, f"{what} B2"))
