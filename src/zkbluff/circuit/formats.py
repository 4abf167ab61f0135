"""circom's binary ``.r1cs`` (version 1) and ``.wtns`` (version 2) files.

Both are "binfiles": 4 magic bytes, a u32 version, a u32 section count, then sections
of ``u32 type, u64 size, bytes``; integers little-endian, field elements as 32-byte
little-endian in standard (not Montgomery) form.

``.r1cs`` sections: 1 header (n8, prime, nWires, nPubOut, nPubIn, nPrvIn, nLabels,
nConstraints), 2 constraints (for each of A, B, C: u32 nTerms, then u32 wire and
the coefficient), 3 wire-to-label map (u64 per wire). ``.wtns``: 1 header (n8, prime,
nWitness), 2 the values.
"""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Sequence, Union

from zkbluff.circuit.builder import R1CS
from zkbluff.errors import MalformedInput
from zkbluff.field import r

N8 = 32
_PRIME = r.to_bytes(N8, "little")


def _lc_bytes(terms: dict[int, int]) -> bytes:
    items = list(terms.items())  # insertion order: files read from circom round-trip byte for byte
    out = [struct.pack("<I", len(items))]
    for w, c in items:
        out.append(struct.pack("<I", w))
        out.append(c.to_bytes(N8, "little"))
    return b"".join(out)


def r1cs_constraint_bytes(constraints) -> bytes:
    return b"".join(_lc_bytes(a) + _lc_bytes(b) + _lc_bytes(c) for a, b, c in constraints)


def binfile_section(kind: int, body: bytes) -> bytes:
    return struct.pack("<IQ", kind, len(body)) + body


def r1cs_to_bytes(system: R1CS) -> bytes:
    labels_list = system.labels if system.labels is not None else list(range(system.n_wires))
    n_labels = max(labels_list) + 1 if labels_list else 0
    header = (struct.pack("<I", N8) + _PRIME
              + struct.pack("<IIIIQI", system.n_wires, system.n_pub_out, system.n_public - system.n_pub_out,
                            system.n_prv_in, n_labels, system.n_constraints))
    labels = b"".join(struct.pack("<Q", i) for i in labels_list)
    return (b"r1cs" + struct.pack("<II", 1, 3) + binfile_section(1, header)
            + binfile_section(2, r1cs_constraint_bytes(system.constraints)) + binfile_section(3, labels))


class BinReader:
    def __init__(self, data: bytes, what: str):
        self.data, self.pos, self.what = data, 0, what

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise MalformedInput(f"{self.what}: truncated at byte {self.pos}, wanted {n} more")
        b = self.data[self.pos: self.pos + n]
        self.pos += n
        return b

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self.take(8))[0]


def read_binfile(data: bytes, magic: bytes, versions: tuple[int, ...], what: str) -> dict[int, bytes]:
    rd = BinReader(data, what)
    got = rd.take(4)
    if got != magic:
        raise MalformedInput(f"{what}: expected magic {magic!r}, got {got!r}")
    version = rd.u32()
    if version not in versions:
        raise MalformedInput(f"{what}: expected version {versions}, got {version}")
    n_sections = rd.u32()
    sections: dict[int, bytes] = {}
    for _ in range(n_sections):
        kind, size = rd.u32(), rd.u64()
        if kind in sections:
            raise MalformedInput(f"{what}: section {kind} appears twice")
        sections[kind] = rd.take(size)
    if rd.pos != len(data):
        raise MalformedInput(f"{what}: {len(data) - rd.pos} trailing bytes after the last section")
    return sections


def _field_header(rd: BinReader, what: str) -> None:
    n8 = rd.u32()
    if n8 != N8:
        raise MalformedInput(f"{what}: expected field size 32 bytes, got {n8}")
    prime = int.from_bytes(rd.take(N8), "little")
    if prime != r:
        raise MalformedInput(f"{what}: prime is {prime}, expected BN254's r")


def _fe(b: bytes, what: str) -> int:
    v = int.from_bytes(b, "little")
    if v >= r:
        raise MalformedInput(f"{what}: field element {v} is not below r")
    return v


def r1cs_from_bytes(data: bytes, what: str = ".r1cs") -> R1CS:
    sections = read_binfile(data, b"r1cs", (1,), what)
    for k in (1, 2):
        if k not in sections:
            raise MalformedInput(f"{what}: section {k} is missing")
    h = BinReader(sections[1], what + " header")
    _field_header(h, what)
    n_wires, n_pub_out, n_pub_in, _n_prv_in = h.u32(), h.u32(), h.u32(), h.u32()
    _n_labels, m = h.u64(), h.u32()
    n_public = n_pub_out + n_pub_in
    if n_public + 1 > n_wires:
        raise MalformedInput(f"{what}: {n_public} public signals but only {n_wires} wires")
    data = sections[2]
    size, pos = len(data), 0
    unpack_u32, from_bytes = struct.Struct("<I").unpack_from, int.from_bytes
    constraints = []
    for j in range(m):  # (offsets by hand: this loop is most of a key's load time)
        lcs = []
        for _ in range(3):
            if pos + 4 > size:
                raise MalformedInput(f"{what} constraints: truncated at byte {pos}, wanted 4 more")
            (k,) = unpack_u32(data, pos)
            pos += 4
            end = pos + (4 + N8) * k
            if end > size:
                raise MalformedInput(f"{what} constraints: truncated at byte {pos}, wanted {end - pos} more")
            terms: dict[int, int] = {}
            for q in range(pos, end, 4 + N8):
                (w,) = unpack_u32(data, q)
                if w >= n_wires:
                    raise MalformedInput(f"{what}: constraint {j} names wire {w}, but there are {n_wires}")
                c = from_bytes(data[q + 4: q + 4 + N8], "little")
                if c >= r:
                    raise MalformedInput(f"{what}: field element {c} is not below r")
                if c:
                    terms[w] = (terms.get(w, 0) + c) % r
            pos = end
            lcs.append(terms)
        constraints.append(tuple(lcs))
    if pos != size:
        raise MalformedInput(f"{what}: constraint section has {size - pos} extra bytes")
    labels = None
    if 3 in sections:
        lab = BinReader(sections[3], what + " wire map")
        if len(sections[3]) != 8 * n_wires:
            raise MalformedInput(f"{what}: wire map holds {len(sections[3]) // 8} labels, expected {n_wires}")
        labels = [lab.u64() for _ in range(n_wires)]
    return R1CS(n_wires, n_public, constraints, [f"constraint_{j}" for j in range(m)],
                ["one"] + [f"wire_{i}" for i in range(1, n_wires)],
                [f"public_{i}" for i in range(1, n_public + 1)],
                n_pub_out=n_pub_out, n_prv_in=_n_prv_in, labels=labels)


def wtns_to_bytes(witness: Sequence[int]) -> bytes:
    header = struct.pack("<I", N8) + _PRIME + struct.pack("<I", len(witness))
    body = b"".join((v % r).to_bytes(N8, "little") for v in witness)
    return b"wtns" + struct.pack("<II", 2, 2) + binfile_section(1, header) + binfile_section(2, body)


def wtns_from_bytes(data: bytes, what: str = ".wtns") -> list[int]:
    sections = read_binfile(data, b"wtns", (2,), what)
    if 1 not in sections or 2 not in sections:
        raise MalformedInput(f"{what}: expected sections 1 and 2")
    h = BinReader(sections[1], what + " header")
    _field_header(h, what)
    n = h.u32()
    body = sections[2]
    if len(body) != n * N8:
        raise MalformedInput(f"{what}: header says {n} values, section holds {len(body) // N8}")
    return [_fe(body[i * N8:(i + 1) * N8], what) for i in range(n)]


PathLike = Union[str, Path]


def write_r1cs(path: PathLike, system: R1CS) -> None:
    Path(path).write_bytes(r1cs_to_bytes(system))


def read_r1cs(path: PathLike) -> R1CS:
    return r1cs_from_bytes(Path(path).read_bytes(), str(path))


def write_wtns(path: PathLike, witness: Sequence[int]) -> None:
    Path(path).write_bytes(wtns_to_bytes(witness))


def read_wtns(path: PathLike) -> list[int]:
    return wtns_from_bytes(Path(path).read_bytes(), str(path))
