"""snarkjs's binary Groth16 proving key (``.zkey``), read and written, and zkbluff's
own proving-key file, which is a ``.zkey`` plus the circuit's ``.r1cs``.

``.zkey`` sections: 1 protocol (1 = Groth16); 2 header (n8q, q, n8r, r, nVars,
nPublic, domainSize, alpha1, beta1, beta2, gamma2, delta1, delta2); 3 IC; 4 the A and B
coefficients (u32 matrix, constraint, signal, then the value times R^2 mod r); 5 A;
6 B in G1; 7 B in G2; 8 C (the private wires' L query); 9 H; 10 contributions. Points
are affine with coordinates in Montgomery form (times 2^256 mod q), little-endian;
the point at infinity is all zeros.
"""
from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path
from typing import Union

from zkbluff.circuit.formats import (
    BinReader, binfile_section, r1cs_from_bytes, r1cs_to_bytes, read_binfile,
)
from zkbluff.curve import B1, B2, G1Affine, G2Affine, g1_is_on_curve, g2_is_on_curve
from zkbluff.curve.codec import decode_zkey_points, g2_check
from zkbluff.errors import MalformedInput, UnsupportedScheme
from zkbluff.field import p, r
from zkbluff.groth16.keys import ProvingKey, VerifyingKey

_RQ = (1 << 256) % p
_RQ_INV = pow(_RQ, -1, p)
_RR2 = pow(1 << 256, 2, r)
_RR2_INV = pow(_RR2, -1, r)
ZKBLUFF_KEY_MAGIC = b"zkbk"


def _fq_out(x: int) -> bytes:
    return (x * _RQ % p).to_bytes(32, "little")


def _g1_out(P: G1Affine) -> bytes:
    return bytes(64) if P is None else _fq_out(P[0]) + _fq_out(P[1])


def _g2_out(Q: G2Affine) -> bytes:
    if Q is None:
        return bytes(128)
    (x0, x1), (y0, y1) = Q
    return _fq_out(x0) + _fq_out(x1) + _fq_out(y0) + _fq_out(y1)


def _fq_in(b: bytes, what: str) -> int:
    v = int.from_bytes(b, "little")
    if v >= p:
        raise MalformedInput(f"{what}: coordinate not below q")
    return v * _RQ_INV % p


def _g1_in(rd: BinReader, what: str, checked: bool = True) -> G1Affine:
    raw = rd.take(64)
    if raw == bytes(64):
        return None
    P = (_fq_in(raw[:32], what), _fq_in(raw[32:], what))
    if checked and not g1_is_on_curve(P):
        raise MalformedInput(f"{what}: point not on the curve")
    return P


def _g2_in(rd: BinReader, what: str, checked: bool = True) -> G2Affine:
    raw = rd.take(128)
    if raw == bytes(128):
        return None
    c = [_fq_in(raw[32 * i: 32 * i + 32], what) for i in range(4)]
    Q = ((c[0], c[1]), (c[2], c[3]))
    if checked and not g2_is_on_curve(Q):
        raise MalformedInput(f"{what}: point not on the twist")
    return Q


def _g1_section(data: bytes, count: int, what: str, checked: bool = True) -> list[G1Affine]:
    """``count`` points read by :func:`_g1_in` one after another from ``data`` (named
    ``what``): the same points and the same first error, in one loop (a 2^16 key's four G1
    sections hold 262,144 points)."""
    whole = min(count, len(data) // 64)
    out: list[G1Affine] = []
    q, inv, b1, fb = p, _RQ_INV, B1, int.from_bytes
    for i in range(whole):
        o = 64 * i
        x, y = fb(data[o:o + 32], "little"), fb(data[o + 32:o + 64], "little")
        if not (x or y):
            out.append(None)
            continue
        if x >= q or y >= q:
            raise MalformedInput(f"{what}[{i}]: coordinate not below q")
        x, y = x * inv % q, y * inv % q
        if checked and (y * y - x * x * x - b1) % q:
            raise MalformedInput(f"{what}[{i}]: point not on the curve")
        out.append((x, y))
    if whole < count:
        raise MalformedInput(f"{what}: truncated at byte {64 * whole}, wanted 64 more")
    return out


def _g2_section(data: bytes, count: int, what: str, checked: bool = True) -> list[G2Affine]:
    """:func:`_g1_section` for G2 points (:func:`_g2_in`): y^2 = x^3 + B2 over Fq2 with u^2 = -1,
    the products written out."""
    whole = min(count, len(data) // 128)
    out: list[G2Affine] = []
    q, inv, fb = p, _RQ_INV, int.from_bytes
    b0, b1 = B2
    for i in range(whole):
        o = 128 * i
        x0, x1 = fb(data[o:o + 32], "little"), fb(data[o + 32:o + 64], "little")
        y0, y1 = fb(data[o + 64:o + 96], "little"), fb(data[o + 96:o + 128], "little")
        if not (x0 or x1 or y0 or y1):
            out.append(None)
            continue
        if x0 >= q or x1 >= q or y0 >= q or y1 >= q:
            raise MalformedInput(f"{what}[{i}]: coordinate not below q")
        x0, x1, y0, y1 = x0 * inv % q, x1 * inv % q, y0 * inv % q, y1 * inv % q
        if checked:
            s0, s1 = (x0 * x0 - x1 * x1) % q, 2 * x0 * x1 % q           # x^2
            c0, c1 = s0 * x0 - s1 * x1, s0 * x1 + s1 * x0                # x^3
            if (y0 * y0 - y1 * y1 - c0 - b0) % q or (2 * y0 * y1 - c1 - b1) % q:
                raise MalformedInput(f"{what}[{i}]: point not on the twist")
        out.append(((x0, x1), (y0, y1)))
    if whole < count:
        raise MalformedInput(f"{what}: truncated at byte {128 * whole}, wanted 128 more")
    return out


def zkey_to_bytes(pk: ProvingKey, contributions: bytes | None = None) -> bytes:
    """The ``.zkey`` bytes; ``contributions`` is section 10 (the circuit hash and the
    phase-2 contribution records, see :mod:`zkbluff.ceremony.phase2`), by default an
    empty record (a key made by :func:`zkbluff.groth16.setup.setup`, outside a ceremony)."""
    vk = pk.vk
    n_public = vk.n_public
    header = (struct.pack("<I", 32) + p.to_bytes(32, "little") + struct.pack("<I", 32) + r.to_bytes(32, "little")
              + struct.pack("<III", pk.n_wires, n_public, pk.domain_size)
              + _g1_out(vk.alpha_g1) + _g1_out(pk.beta_g1) + _g2_out(vk.beta_g2) + _g2_out(vk.gamma_g2)
              + _g1_out(pk.delta_g1) + _g2_out(vk.delta_g2))
    coefs = [struct.pack("<I", len(pk.coefficients))]
    for m, c, s, v in pk.coefficients:
        coefs.append(struct.pack("<III", m, c, s) + (v * _RR2 % r).to_bytes(32, "little"))
    sections = [
        binfile_section(1, struct.pack("<I", 1)),
        binfile_section(2, header),
        binfile_section(3, b"".join(map(_g1_out, vk.ic))),
        binfile_section(4, b"".join(coefs)),
        binfile_section(5, b"".join(map(_g1_out, pk.a_query))),
        binfile_section(6, b"".join(map(_g1_out, pk.b_g1_query))),
        binfile_section(7, b"".join(map(_g2_out, pk.b_g2_query))),
        binfile_section(8, b"".join(map(_g1_out, pk.l_query))),
        binfile_section(9, b"".join(map(_g1_out, pk.h_query))),
        binfile_section(10, bytes(64) + struct.pack("<I", 0) if contributions is None else contributions),
    ]
    return b"zkey" + struct.pack("<II", 1, len(sections)) + b"".join(sections)


def zkey_from_bytes(data: bytes, what: str = ".zkey", system=None) -> ProvingKey:
    return zkey_sections_to_key(read_binfile(data, b"zkey", (1,), what), what, system)


def zkey_sections_to_key(sections: dict[int, bytes], what: str = ".zkey", system=None,
                         checked: bool = True) -> ProvingKey:
    """The proving key in a ``.zkey``'s sections 1..9 (every point checked on its curve,
    unless ``checked`` is False: only for bytes whose digest the caller compared with a pin)."""
    for k in range(1, 10):
        if k not in sections:
            raise MalformedInput(f"{what}: section {k} is missing")
    proto = struct.unpack("<I", sections[1][:4])[0]
    if proto != 1:
        raise UnsupportedScheme(f"{what}: protocol id {proto} is not Groth16 (1)")
    h = BinReader(sections[2], what + " header")
    n8q = h.u32()
    q = int.from_bytes(h.take(n8q), "little")
    n8r = h.u32()
    rr = int.from_bytes(h.take(n8r), "little")
    if (n8q, q, n8r, rr) != (32, p, 32, r):
        raise MalformedInput(f"{what}: not a BN254 key (q = {q}, r = {rr})")
    n_vars, n_public, domain_size = h.u32(), h.u32(), h.u32()
    if domain_size & (domain_size - 1) or not n_public < n_vars:
        raise MalformedInput(f"{what}: bad sizes (nVars {n_vars}, nPublic {n_public}, domain {domain_size})")
    alpha1, beta1 = _g1_in(h, "vk_alpha_1"), _g1_in(h, "vk_beta_1")
    beta2, gamma2 = _g2_in(h, "vk_beta_2"), _g2_in(h, "vk_gamma_2")
    delta1, delta2 = _g1_in(h, "vk_delta_1"), _g2_in(h, "vk_delta_2")
    for name, Q in (("vk_beta_2", beta2), ("vk_gamma_2", gamma2), ("vk_delta_2", delta2)):
        g2_check(Q, f"{what} {name}", False, None)

    def points(kind: int, count: int, reader, label: str) -> tuple:
        data = sections[kind]
        size = 64 if reader is _g1_in else 128
        section = _g1_section if reader is _g1_in else _g2_section
        fast = decode_zkey_points(data, count, reader is _g2_in, checked)  # None: Python names the fault
        out = tuple(fast if fast is not None else section(data, count, f"{what} {label}", checked))
        if len(data) != size * count:
            raise MalformedInput(f"{what}: section {kind} ({label}) has {len(data) - size * count} extra bytes")
        return out

    ic = points(3, n_public + 1, _g1_in, "IC")
    crd = BinReader(sections[4], what + " coefficients")
    coefficients = []
    n_coefficients = crd.u32()
    if len(crd.data) - crd.pos >= 44 * n_coefficients:  # whole records: one unpack for all
        records = struct.iter_unpack("<III32s", crd.data[crd.pos:crd.pos + 44 * n_coefficients])
    else:  # truncated: read one by one, so the error says where, as ever
        records = ((*struct.unpack("<III", crd.take(12)), crd.take(32)) for _ in range(n_coefficients))
    fb, rinv = int.from_bytes, _RR2_INV
    for m, c, s, vb in records:
        v = fb(vb, "little")
        if m > 1 or c >= domain_size or s >= n_vars or v >= r:
            raise MalformedInput(f"{what}: coefficient ({m}, {c}, {s}) out of range")
        coefficients.append((m, c, s, v * rinv % r))
    vk = VerifyingKey(alpha1, beta2, gamma2, delta2, ic)
    return ProvingKey(
        vk, beta1, delta1,
        a_query=points(5, n_vars, _g1_in, "A"),
        b_g1_query=points(6, n_vars, _g1_in, "B1"),
        b_g2_query=points(7, n_vars, _g2_in, "B2"),
        l_query=points(8, n_vars - n_public - 1, _g1_in, "C"),
        h_query=points(9, domain_size, _g1_in, "H"),
        domain_size=domain_size, coefficients=tuple(coefficients), system=system)


def proving_key_to_bytes(pk: ProvingKey) -> bytes:
    """zkbluff's proving-key file: the ``.zkey`` and, when known, the ``.r1cs``."""
    secs = [binfile_section(1, zkey_to_bytes(pk))]
    if pk.system is not None:
        secs.append(binfile_section(2, r1cs_to_bytes(pk.system)))
        names = {"constraints": pk.system.constraint_names, "wires": pk.system.wire_names,
                 "public": pk.system.public_names}
        secs.append(binfile_section(3, json.dumps(names, separators=(",", ":")).encode()))
    return ZKBLUFF_KEY_MAGIC + struct.pack("<II", 1, len(secs)) + b"".join(secs)


def proving_key_from_bytes(data: bytes, what: str = "proving key", zkey_sha256: str | None = None) -> ProvingKey:
    """Read either file kind, told apart by the magic bytes (``zkey`` or ``zkbk``). With
    ``zkey_sha256`` (a pinned digest), a zkbluff key whose ``.zkey`` section has another
    SHA-256 is refused, and one that has it is decoded without checking each point."""
    if data[:4] == b"zkey" and zkey_sha256 is None:
        return zkey_from_bytes(data, what)
    if data[:4] != ZKBLUFF_KEY_MAGIC:
        raise MalformedInput(f"{what}: expected a snarkjs .zkey or a zkbluff key, got magic {data[:4]!r}")
    sections = read_binfile(data, ZKBLUFF_KEY_MAGIC, (1,), what)
    if 1 not in sections:
        raise MalformedInput(f"{what}: the key section is missing")
    system = r1cs_from_bytes(sections[2], what + " circuit") if 2 in sections else None
    if system is not None and 3 in sections:
        try:
            names = json.loads(sections[3])
            if (len(names["constraints"]) == system.n_constraints and len(names["wires"]) == system.n_wires
                    and len(names["public"]) == system.n_public):
                system.constraint_names = list(names["constraints"])
                system.wire_names = list(names["wires"])
                system.public_names = list(names["public"])
        except (ValueError, KeyError, TypeError):
            raise MalformedInput(f"{what}: the names section is not valid JSON") from None
    if zkey_sha256 is None:
        pk = zkey_from_bytes(sections[1], what, system)
    elif hashlib.sha256(sections[1]).hexdigest() != zkey_sha256:
        raise MalformedInput(f"{what}: its key is not the pinned one (SHA-256 of its .zkey section is not "
                             f"{zkey_sha256[:16]})")
    else:
        pk = zkey_sections_to_key(read_binfile(sections[1], b"zkey", (1,), what), what, system, checked=False)
    if system is not None and (system.n_wires != pk.n_wires or system.n_public != pk.n_public):
        raise MalformedInput(f"{what}: the circuit does not match the key")
    return pk


PathLike = Union[str, Path]


def write_proving_key(path: PathLike, pk: ProvingKey) -> None:
    Path(path).write_bytes(proving_key_to_bytes(pk))


def read_proving_key(path: PathLike) -> ProvingKey:
    return proving_key_from_bytes(Path(path).read_bytes(), str(path))


def write_zkey(path: PathLike, pk: ProvingKey) -> None:
    Path(path).write_bytes(zkey_to_bytes(pk))
