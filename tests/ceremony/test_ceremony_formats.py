"""The ceremony files, both ways with snarkjs: .ptau (phase 1) and .zkey (phase 2),
every tamper rejected by both verifiers, bad input rejected before anything else."""
from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from zkbluff.ceremony.blake2b import Blake2b
from zkbluff.ceremony.phase2 import (
    read_zkey, write_zkey_file, zkey_beacon, zkey_contribute, zkey_from_file_bytes, zkey_new, zkey_verify,
    zkey_verify_fast,
)
from zkbluff.ceremony.ptau import (
    ptau_beacon, ptau_contribute, ptau_from_bytes, ptau_new, ptau_prepare, ptau_to_bytes, ptau_verify, read_ptau,
    write_ptau,
)
from zkbluff.ceremony.rng import ChaCha, hash_to_g2
from zkbluff.circuit import build
from zkbluff.circuit.formats import read_r1cs, write_r1cs
from zkbluff.curve import G1_GENERATOR, get_backend
from zkbluff.errors import InvalidCeremony, MalformedInput
from zkbluff.groth16 import prove, verify

from nodetools import node_eval, run
from sample_circuits import cube

BEACON = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"


# ------------------------------------------------------------------ BLAKE2b with a saved state
@given(st.binary(max_size=600), st.integers(0, 600), st.binary(max_size=300))
def test_blake2b_matches_hashlib_and_resumes(data, cut, tail):
    cut = min(cut, len(data))
    h = Blake2b().update(data[:cut]).update(data[cut:])
    assert h.digest() == hashlib.blake2b(data).digest()
    resumed = Blake2b.resume(h.partial()).update(tail)
    assert resumed.digest() == hashlib.blake2b(data + tail).digest()
    assert resumed.digest() != hashlib.blake2b(data + tail + b"x").digest()


@given(st.binary(max_size=1200), st.integers(0, 1200))
def test_blake2b_native_blocks_equal_the_python_reference(data, cut):
    """The C compression (whole blocks) and the pure-Python _compress give the same saved
    states and digests; the Python path is what runs when the extension is not built."""
    import zkbluff.ceremony.blake2b as b2

    if b2._native() is None:
        pytest.skip("the C extension is not built")
    cut = min(cut, len(data))
    native = Blake2b().update(data[:cut]).update(data[cut:])
    real = b2._native
    b2._native = lambda: None
    try:
        python = Blake2b().update(data[:cut]).update(data[cut:])
    finally:
        b2._native = real
    assert native.partial() == python.partial() and native.digest() == python.digest()
    # a state after other data is another state
    assert Blake2b().update(data + b"!").partial() != native.partial()


def test_partial_hash_layout_is_checked():
    with pytest.raises(MalformedInput):
        Blake2b.resume(bytes(215))
    bad = bytearray(Blake2b().update(b"abc").partial())
    bad[128 + 72: 128 + 76] = struct.pack("<I", 129)  # buffer position past a block
    with pytest.raises(MalformedInput):
        Blake2b.resume(bytes(bad))


def test_chacha_known_answer():
    """ffjavascript's ChaCha with the all-zero seed is RFC 7539's block function with a
    zero key and nonce: its first word is the RFC's 0xade0b876 (keystream ``76 b8 e0 ad``)."""
    rng = ChaCha([0] * 8)
    assert rng.u32() == 0xADE0B876
    assert rng.u32() == 0x903DF1A0


# ------------------------------------------------------------------ fixtures
def snark_ok(snarkjs, *args) -> bool:
    return run(snarkjs + list(args), check=False).returncode == 0


_VERIFY_MANY = """
import * as snarkjs from "snarkjs";
import { readFileSync } from "fs";
const out = [];
for (const f of JSON.parse(readFileSync("files.json", "utf8"))) {
  let ok;
  try {
    ok = f.length === 1 ? await snarkjs.powersOfTau.verify(f[0])
                        : await snarkjs.zKey.verifyFromR1cs(f[0], f[1], f[2]);
  } catch (e) { ok = false; }
  out.push(ok === true);
}
console.log(JSON.stringify(out));
process.exit(0);
"""


def snark_verify_many(node_modules, workdir, entries: list[list]) -> list[bool]:
    """snarkjs's own verifiers (``powersOfTau.verify``, ``zKey.verifyFromR1cs``, what the
    CLI calls) over many files in one node process."""
    import json

    (workdir / "files.json").write_text(json.dumps([[str(x) for x in e] for e in entries]))
    return json.loads(node_eval(node_modules, _VERIFY_MANY, workdir).strip().splitlines()[-1])


@pytest.fixture(scope="module")
def sj(snarkjs, tmp_path_factory):
    """A snarkjs phase 1 (2^4: two contributions, a beacon, prepared) and phase 2 for
    the cube circuit (two contributions and a beacon)."""
    d = tmp_path_factory.mktemp("sj")
    S = snarkjs
    system, witness = build(cube, {"x": 3, "out": 35})
    write_r1cs(d / "cube.r1cs", system)
    run(S + ["powersoftau", "new", "bn128", "4", str(d / "p0.ptau")])
    run(S + ["powersoftau", "contribute", str(d / "p0.ptau"), str(d / "p1.ptau"), "--name=one", "-e=a"])
    run(S + ["powersoftau", "contribute", str(d / "p1.ptau"), str(d / "p2.ptau"), "--name=two", "-e=b"])
    run(S + ["powersoftau", "beacon", str(d / "p2.ptau"), str(d / "p3.ptau"), BEACON, "10", "-n=final"])
    run(S + ["powersoftau", "prepare", "phase2", str(d / "p3.ptau"), str(d / "final.ptau")])
    run(S + ["zkey", "new", str(d / "cube.r1cs"), str(d / "final.ptau"), str(d / "z0.zkey")])
    run(S + ["zkey", "contribute", str(d / "z0.zkey"), str(d / "z1.zkey"), "--name=one", "-e=c"])
    run(S + ["zkey", "contribute", str(d / "z1.zkey"), str(d / "z2.zkey"), "--name=two", "-e=d"])
    run(S + ["zkey", "beacon", str(d / "z2.zkey"), str(d / "z3.zkey"), BEACON, "10", "-n=final"])
    return d, system, witness


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    """Our own phase 1 (2^4) and phase 2 for the cube circuit."""
    d = tmp_path_factory.mktemp("ours")
    system, witness = build(cube, {"x": 3, "out": 35})
    write_r1cs(d / "cube.r1cs", system)
    pt = ptau_contribute(ptau_new(4), "alice")
    pt = ptau_contribute(pt, "bob")
    write_ptau(d / "p2.ptau", pt)
    pt = ptau_prepare(ptau_beacon(pt, bytes.fromhex(BEACON), 10, "final"))
    write_ptau(d / "final.ptau", pt)
    zk = zkey_contribute(zkey_new(system, pt), "alice")
    zk = zkey_contribute(zk, "bob")
    write_zkey_file(d / "z2.zkey", zk)
    zk = zkey_beacon(zk, bytes.fromhex(BEACON), 10, "final")
    write_zkey_file(d / "z3.zkey", zk)
    return d, system, witness, pt, zk


# ------------------------------------------------------------------ phase 1 both ways
@pytest.mark.interop
def test_snarkjs_accepts_our_ptau(snarkjs, ours):
    d, *_ = ours
    assert snark_ok(snarkjs, "powersoftau", "verify", str(d / "p2.ptau"))
    assert snark_ok(snarkjs, "powersoftau", "verify", str(d / "final.ptau"))


@pytest.mark.interop
def test_we_verify_snarkjs_ptau(sj):
    d, *_ = sj
    for name, n in (("p1", 1), ("p2", 2), ("p3", 3), ("final", 3)):
        reports = ptau_verify(read_ptau(d / f"{name}.ptau"))
        assert len(reports) == n
    assert [c.beacon for c in ptau_verify(read_ptau(d / "final.ptau"))] == [False, False, True]
    with pytest.raises(InvalidCeremony, match="no contribution"):
        ptau_verify(read_ptau(d / "p0.ptau"))


@pytest.mark.interop
def test_prepare_and_beacon_are_snarkjs_byte_for_byte(sj):
    d, *_ = sj
    p2, p3 = read_ptau(d / "p2.ptau"), read_ptau(d / "p3.ptau")
    assert ptau_to_bytes(ptau_prepare(p3)) == (d / "final.ptau").read_bytes()
    ours = ptau_beacon(p2, bytes.fromhex(BEACON), 10, "final")
    theirs = p3.contributions[-1]
    mine = ours.contributions[-1]
    assert (mine.key, mine.next_challenge, mine.response_hash) == (theirs.key, theirs.next_challenge,
                                                                   theirs.response_hash)
    assert ours.tau_g1 == p3.tau_g1 and ours.beta_g2 == p3.beta_g2
    other = ptau_beacon(p2, bytes.fromhex(BEACON[:-2] + "21"), 10, "final")
    assert other.contributions[-1].key != theirs.key


def _tampered_ptaus(pt):
    """(label, tampered .ptau) - a point, a hash, a skipped link, a forged beacon."""
    be = get_backend()
    c = list(pt.contributions)
    out = []
    moved = list(pt.tau_g1)
    moved[3] = be.g1_add(moved[3], G1_GENERATOR)
    out.append(("a power of tau", replace(pt, tau_g1=tuple(moved), lagrange=None)))
    out.append(("the last next-challenge hash",
                replace(pt, contributions=tuple(c[:-1] + [replace(c[-1], next_challenge=bytes(64))]), lagrange=None)))
    out.append(("an earlier next-challenge hash",
                replace(pt, contributions=tuple([replace(c[0], next_challenge=os.urandom(64))] + c[1:]),
                        lagrange=None)))
    out.append(("a skipped link", replace(pt, contributions=tuple([c[0]] + c[2:]), lagrange=None)))
    key = c[0].key
    forged = replace(key, tau=replace(key.tau, g1_sx=be.g1_add(key.tau.g1_sx, G1_GENERATOR)))
    out.append(("a proof of knowledge", replace(pt, contributions=tuple([replace(c[0], key=forged)] + c[1:]),
                                                lagrange=None)))
    beacon = c[-1]
    out.append(("the beacon's value", replace(pt, contributions=tuple(
        c[:-1] + [replace(beacon, params=replace(beacon.params, beacon=b"\x02" + beacon.params.beacon[1:]))]),
        lagrange=None)))
    return out


@pytest.mark.interop
@pytest.mark.parametrize("source", ["ours", "snarkjs"])
def test_ptau_tampers_rejected_by_both(source, ours, sj, node_modules, tmp_path):
    pt = ours[3] if source == "ours" else read_ptau(sj[0] / "final.ptau")
    files, labels = [], []
    for i, (label, bad) in enumerate(_tampered_ptaus(pt)):
        with pytest.raises(InvalidCeremony):
            ptau_verify(bad)
        write_ptau(tmp_path / f"bad{i}.ptau", bad)
        files.append([tmp_path / f"bad{i}.ptau"])
        labels.append(label)
    write_ptau(tmp_path / "good.ptau", replace(pt, lagrange=None))
    verdicts = snark_verify_many(node_modules, tmp_path, files + [[tmp_path / "good.ptau"]])
    assert verdicts[-1] is True  # the untampered twin passes snarkjs...
    assert [label for label, ok in zip(labels, verdicts) if ok] == []  # ...and every tamper fails it
    ptau_verify(pt)  # and ours


@pytest.mark.interop
def test_tampered_lagrange_section_rejected_by_both(ours, snarkjs, tmp_path):
    pt = ours[3]
    lag = dict(pt.lagrange)
    pts = list(lag[14])
    pts[5] = get_backend().g1_add(pts[5], G1_GENERATOR)
    lag[14] = tuple(pts)
    bad = replace(pt, lagrange=lag)
    with pytest.raises(InvalidCeremony, match="Lagrange"):
        ptau_verify(bad)
    write_ptau(tmp_path / "bad.ptau", bad)
    assert not snark_ok(snarkjs, "powersoftau", "verify", str(tmp_path / "bad.ptau"))


# ------------------------------------------------------------------ phase 2 both ways
@pytest.mark.interop
def test_snarkjs_accepts_our_zkey(snarkjs, ours):
    d, *_ = ours
    for z in ("z2", "z3"):
        assert snark_ok(snarkjs, "zkey", "verify", str(d / "cube.r1cs"), str(d / "final.ptau"), str(d / f"{z}.zkey"))


@pytest.mark.interop
def test_we_verify_snarkjs_zkey_and_prove_with_it(sj):
    d, system, witness = sj
    pt = read_ptau(d / "final.ptau")
    init = zkey_new(system, pt)
    assert init.to_bytes() == read_zkey(d / "z0.zkey").to_bytes()  # same initial key, same circuit hash
    zk = read_zkey(d / "z3.zkey")
    reports = zkey_verify(zk, system, pt, init=init)
    assert [(x.name, x.beacon) for x in reports] == [("one", False), ("two", False), ("final", True)]
    verify(zk.vk, [35], prove(zk.pk, witness))


def test_our_zkey_proves_and_beacon_is_reproducible(ours):
    d, system, witness, pt, zk = ours
    assert len(zkey_verify(zk, system, pt)) == 3
    verify(zk.vk, [35], prove(zk.pk, witness))
    z2 = read_zkey(d / "z2.zkey")
    again = zkey_beacon(z2, bytes.fromhex(BEACON), 10, "final")
    assert again.to_bytes() == zk.to_bytes()


def _tampered_zkeys(zk):
    be = get_backend()
    c = list(zk.contributions)
    l_q = list(zk.pk.l_query)
    l_q[0] = be.g1_add(l_q[0], G1_GENERATOR)
    h_q = list(zk.pk.h_query)
    h_q[1] = be.g1_add(h_q[1], G1_GENERATOR)
    a_q = list(zk.pk.a_query)
    a_q[1] = be.g1_add(a_q[1], G1_GENERATOR)
    return [
        ("an L point", replace(zk, pk=replace(zk.pk, l_query=tuple(l_q)))),
        ("an H point", replace(zk, pk=replace(zk.pk, h_query=tuple(h_q)))),
        ("an A point", replace(zk, pk=replace(zk.pk, a_query=tuple(a_q)))),
        ("a transcript hash", replace(zk, contributions=tuple([replace(c[0], transcript=os.urandom(64))] + c[1:]))),
        ("a skipped link", replace(zk, contributions=tuple([c[0]] + c[2:]))),
        ("the circuit hash", replace(zk, cs_hash=os.urandom(64))),
        ("delta without its record", replace(zk, contributions=tuple(c[:-1]))),
    ]


@pytest.mark.interop
@pytest.mark.parametrize("source", ["ours", "snarkjs"])
def test_zkey_tampers_rejected_by_both(source, ours, sj, node_modules, tmp_path):
    d = ours[0] if source == "ours" else sj[0]
    system = read_r1cs(d / "cube.r1cs")
    pt = read_ptau(d / "final.ptau")
    zk = read_zkey(d / "z3.zkey")
    init = zkey_new(system, pt)
    files, labels = [], []
    for i, (label, bad) in enumerate(_tampered_zkeys(zk)):
        with pytest.raises(InvalidCeremony):
            zkey_verify(bad, system, pt, init=init)
        if label != "the circuit hash":  # the fast check leaves the circuit hash to the full one
            with pytest.raises(InvalidCeremony):
                zkey_verify_fast(bad, system, pt)
        write_zkey_file(tmp_path / f"bad{i}.zkey", bad)
        files.append([d / "cube.r1cs", d / "final.ptau", tmp_path / f"bad{i}.zkey"])
        labels.append(label)
    verdicts = snark_verify_many(node_modules, tmp_path, files + [[d / "cube.r1cs", d / "final.ptau", d / "z3.zkey"]])
    assert verdicts[-1] is True
    assert [label for label, ok in zip(labels, verdicts) if ok] == []
    zkey_verify(zk, system, pt, init=init)
    assert len(zkey_verify_fast(zk, system, pt)) == 3


# ------------------------------------------------------------------ bad input
def test_truncated_files_are_malformed(ours):
    d, *_ = ours
    for name, parse in (("final.ptau", ptau_from_bytes), ("z3.zkey", zkey_from_file_bytes)):
        data = (d / name).read_bytes()
        for cut in (3, 11, len(data) // 2, len(data) - 1):
            with pytest.raises(MalformedInput):
                parse(data[:cut])
        parse(data)


def test_point_off_curve_is_malformed(ours):
    d, *_ = ours
    data = bytearray((d / "p2.ptau").read_bytes())
    # section 2 starts after the 12-byte file header and section 1 (12 + 44 bytes): change tauG1[1].y
    off = 12 + 12 + 44 + 12 + 64 + 32
    data[off] ^= 1
    with pytest.raises(MalformedInput, match="not on the curve"):
        ptau_from_bytes(bytes(data))


def _twist_point_outside_g2():
    rng = ChaCha([7] * 8)
    from zkbluff.curve import B2, fq2_add, fq2_mul, fq2_sqrt
    while True:
        x = (rng.fq(), rng.fq())
        y = fq2_sqrt(fq2_add(fq2_mul(fq2_mul(x, x), x), B2))
        if y is not None:
            return (x, y)


def test_g2_point_outside_subgroup_is_malformed(ours):
    d, *_ = ours
    pt = read_ptau(d / "p2.ptau")
    Q = _twist_point_outside_g2()
    assert not get_backend().g2_in_subgroup(Q)
    bad = list(pt.tau_g2)
    bad[2] = Q
    with pytest.raises(MalformedInput, match="subgroup"):
        ptau_from_bytes(ptau_to_bytes(replace(pt, tau_g2=tuple(bad))))
    ptau_from_bytes(ptau_to_bytes(pt))


def test_hash_to_g2_lands_in_g2():
    Q = hash_to_g2(bytes(range(64)))
    assert get_backend().g2_in_subgroup(Q) and Q != hash_to_g2(bytes(range(1, 65)))


def test_wrong_power_and_wrong_circuit(ours):
    d, system, witness, pt, zk = ours
    big, _ = build(lambda cs, i: [cs.mul(cs.private_unchecked(f"x{k}", None), cs.private_unchecked(f"y{k}", None),
                                         f"m{k}") for k in range(40)], None)
    with pytest.raises(MalformedInput, match="needs a domain"):
        zkey_new(big, pt)
    other, _ = build(lambda cs, i: cs.enforce_equal(cs.mul(cs.public("a", None), cs.public("b", None), "ab"),
                                                   cs.private_unchecked("c", None), "eq"), None)
    with pytest.raises(InvalidCeremony):
        zkey_verify(zk, other, pt)
    with pytest.raises(InvalidCeremony):
        zkey_verify_fast(zk, other, pt)
    with pytest.raises(MalformedInput):
        ptau_new(0)
    with pytest.raises(MalformedInput):
        ptau_beacon(pt, b"\x01", 9)


@pytest.mark.interop
def test_lagrange_from_an_unprepared_file_equals_snarkjs_prepared(sj):
    """What zkey new computes when the .ptau is not prepared: snarkjs's sections, exactly."""
    from zkbluff.ceremony.ptau import h_points, lagrange_points

    d, *_ = sj
    raw, prepared = read_ptau(d / "p3.ptau"), read_ptau(d / "final.ptau")
    for log in range(5):
        assert h_points(raw, log) == lagrange_points(prepared, 12, log + 1)[1::2]
        for section in (12, 13, 14, 15):
            assert lagrange_points(raw, section, log) == lagrange_points(prepared, section, log)
    assert lagrange_points(raw, 12, 5) == lagrange_points(prepared, 12, 5)
    with pytest.raises(MalformedInput):
        lagrange_points(raw, 13, 5)
