"""Interop with circom, circomlibjs and snarkjs (node tools installed by the Makefile)."""
import json
import random

import pytest

from zkbluff import gadgets as g
from zkbluff.circuit import build, check
from zkbluff.circuit.formats import read_r1cs, read_wtns, r1cs_to_bytes, write_r1cs, write_wtns, wtns_to_bytes
from zkbluff.errors import UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets import native

from nodetools import circom_witness, compile_circom, node_eval, run
from sample_circuits import CIRCOM_SOURCE

pytestmark = pytest.mark.interop


def test_poseidon_matches_circomlibjs(node_modules, tmp_path):
    rng = random.Random(2026)
    cases = []
    for n in range(1, 17):
        cases.append([0] * n)
        cases.append([r - 1] * n)
        for _ in range(6):
            cases.append([rng.randrange(r) for _ in range(n)])
    (tmp_path / "cases.json").write_text(json.dumps([[str(x) for x in c] for c in cases]))
    out = node_eval(node_modules, """
import { buildPoseidon } from "circomlibjs";
import fs from "fs";
const p = await buildPoseidon();
const cases = JSON.parse(fs.readFileSync("cases.json"));
console.log(JSON.stringify(cases.map(c => p.F.toString(p(c.map(BigInt))))));
""", tmp_path)
    theirs = [int(x) for x in json.loads(out)]
    ours = [native.poseidon(c) for c in cases]
    assert ours == theirs
    assert len(ours) == 16 * 8


def poseidon_statement(cs, inputs):
    h = cs.public("h", inputs and inputs["h"])
    a = cs.private_unchecked("a", inputs and inputs["a"])
    b = cs.private_unchecked("b", inputs and inputs["b"])
    cs.enforce_equal(g.poseidon(cs, [a, b]), h, "hash")


def test_snarkjs_reads_our_r1cs_and_wtns(snarkjs, tmp_path):
    a, b = 3, 11
    system, witness = build(poseidon_statement, {"a": a, "b": b, "h": native.poseidon([a, b])})
    write_r1cs(tmp_path / "c.r1cs", system)
    write_wtns(tmp_path / "c.wtns", witness)
    info = run(snarkjs + ["r1cs", "info", str(tmp_path / "c.r1cs")]).stdout
    assert f"# of Constraints: {system.n_constraints}" in info
    assert f"# of Wires: {system.n_wires}" in info
    assert "# of Public Inputs: 1" in info
    ok = run(snarkjs + ["wtns", "check", str(tmp_path / "c.r1cs"), str(tmp_path / "c.wtns")], check=False)
    assert ok.returncode == 0 and "WITNESS IS CORRECT" in ok.stdout
    # negative twin: one changed witness value and snarkjs refuses it too
    bad = list(witness)
    bad[5] = (bad[5] + 1) % r
    write_wtns(tmp_path / "bad.wtns", bad)
    res = run(snarkjs + ["wtns", "check", str(tmp_path / "c.r1cs"), str(tmp_path / "bad.wtns")], check=False)
    assert "WITNESS IS CORRECT" not in res.stdout


@pytest.fixture(scope="module")
def circom_build(node_modules, tmp_path_factory):
    work = tmp_path_factory.mktemp("circom")
    compile_circom(node_modules, work, "t", CIRCOM_SOURCE)
    wtns = circom_witness(work, "t", {"a": 3, "b": 11})
    return work, read_r1cs(work / "t.r1cs"), read_wtns(wtns)


def test_we_read_what_circom_writes(circom_build):
    work, system, witness = circom_build
    assert system.n_public == 3  # two outputs and one public input
    check(system, witness)
    assert witness[1] == native.poseidon([3, 11])  # outputs come first, as in circom
    assert witness[2] == 33
    assert witness[3] == 3
    bad = list(witness)
    bad[2] = 34
    with pytest.raises(UnsatisfiedConstraint):
        check(system, bad)


def _sections_in_order(data: bytes) -> bytes:
    """The same binfile with its sections sorted by type (circom writes 2, 1, 3)."""
    import struct
    n = struct.unpack("<I", data[8:12])[0]
    pos, secs = 12, []
    for _ in range(n):
        kind, size = struct.unpack("<IQ", data[pos:pos + 12])
        secs.append((kind, data[pos:pos + 12 + size]))
        pos += 12 + size
    return data[:12] + b"".join(body for _, body in sorted(secs))


def test_binary_files_byte_exact(circom_build):
    work, system, witness = circom_build
    assert wtns_to_bytes(witness) == (work / "t.wtns").read_bytes()
    # the .r1cs we write holds the very bytes circom wrote, sections in type order
    assert r1cs_to_bytes(system) == _sections_in_order((work / "t.r1cs").read_bytes())
