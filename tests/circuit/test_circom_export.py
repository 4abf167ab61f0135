"""`zkbluff circuits export circom`: every registered statement as circom 2 source whose R1CS,
compiled by circom2 with --O0, is zkbluff's (in circom's normal form, wires through the
exported map), and whose wasm witness generator computes zkbluff's witness for the
statement vectors' inputs; a tampered public input fails in both."""
from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from zkbluff.circuit import ConstraintSystem
from zkbluff.circuit.circom import export, from_circom, normal_form, witness_from_circom
from zkbluff.circuit.formats import read_r1cs, read_wtns, wtns_to_bytes
from zkbluff.errors import MalformedInput, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.statements import all_statements, get_statement
from zkbluff.statements.circom import circom_inputs, circom_stem, export_statement
from zkbluff.statements.keys import file_stem

ROOT = Path(__file__).resolve().parents[2]
SMALL = 1000  # statements above this many constraints compile for long: marked slow

KEYS = [pytest.param(k, marks=[pytest.mark.slow] if s.system().n_constraints > SMALL else [], id=k)
        for k, s in all_statements().items()]


def _vector(key: str) -> dict:
    return json.loads((ROOT / "vectors" / "statements" / (file_stem(key) + ".json")).read_text())


def _vector_inputs(key: str) -> dict:
    return {k: int(v) for k, v in _vector(key)["inputs"].items()}


@pytest.fixture(scope="session")
def compiled(node_modules, tmp_path_factory):
    """key -> (folder, stem, exported circuit), compiled once per session."""
    cache: dict = {}

    def get(key: str):
        if key not in cache:
            stmt = get_statement(key)
            circuit = export_statement(stmt)
            folder = tmp_path_factory.mktemp("circom")
            stem = circom_stem(stmt)
            (folder / f"{stem}.circom").write_text(circuit.source)
            proc = subprocess.run(["node", str(node_modules / "circom2" / "cli.js"), f"{stem}.circom", "--r1cs",
                                   "--wasm", "--O0", "-o", "."], cwd=folder, capture_output=True, text=True,
                                  timeout=3600)
            assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
            cache[key] = (folder, stem, circuit)
        return cache[key]

    return get


def _wasm_witness(folder: Path, stem: str, inputs: dict) -> subprocess.CompletedProcess:
    (folder / "input.json").write_text(json.dumps(inputs))
    return subprocess.run(["node", f"{stem}_js/generate_witness.js", f"{stem}_js/{stem}.wasm", "input.json",
                           "out.wtns"], cwd=folder, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("key", KEYS)
def test_circom_r1cs_is_zkbluffs(key, compiled):
    folder, stem, circuit = compiled(key)
    ours = get_statement(key).system()
    theirs = read_r1cs(folder / f"{stem}.r1cs")
    assert (theirs.n_constraints, theirs.n_wires, theirs.n_public) == \
        (ours.n_constraints, circuit.n_circom_wires, ours.n_public)
    assert from_circom(theirs, circuit.wire_map).fingerprint() == normal_form(ours).fingerprint()


@pytest.mark.parametrize("key", KEYS)
def test_circom_witness_is_zkbluffs_and_tamper_fails_in_both(key, compiled):
    folder, stem, circuit = compiled(key)
    stmt = get_statement(key)
    inputs = _vector_inputs(key)
    proc = _wasm_witness(folder, stem, circom_inputs(stmt, inputs))
    assert proc.returncode == 0, proc.stderr[-2000:]
    witness = witness_from_circom(read_wtns(folder / "out.wtns"), circuit.wire_map)
    assert witness == stmt.witness(inputs)
    assert hashlib.sha256(wtns_to_bytes(witness)).hexdigest() == _vector(key)["witnessSha256"]
    # a commitment the statement opens, changed (not a position commitment, which a chosen hand
    # may not open; not a round, which a 3-card deal may map to the same deal): the builder
    # names the broken constraint, circom's asserts fail
    tampered = stmt.complete(inputs)
    name = next((n for n in stmt.public if n.endswith("_commitment")), stmt.public[0])
    tampered[name] = (tampered[name] + 1) % (1 << 250)
    with pytest.raises(UnsatisfiedConstraint):
        stmt.witness(tampered)
    proc = _wasm_witness(folder, stem, circom_inputs(stmt, tampered))
    assert proc.returncode != 0 and "Assert Failed" in proc.stderr + proc.stdout


def test_circom_wires_are_not_zkbluffs_without_the_map(compiled):
    """The negative twin of the map: circom puts the private inputs before the context's
    square, so read as they stand its wires are not zkbluff's."""
    folder, stem, circuit = compiled("value.choice.v1")
    ours = get_statement("value.choice.v1").system()
    assert circuit.wire_map != list(range(ours.n_wires))
    identity = from_circom(read_r1cs(folder / f"{stem}.r1cs"), list(range(ours.n_wires)))
    assert identity.fingerprint() != normal_form(ours).fingerprint()


def test_circom_mask_input_above_its_width_fails(compiled):
    """A mask input with a bit past the deck: the builder refuses it, so does circom's assert."""
    key = "card.claim.v1@deck=20"
    folder, stem, _ = compiled(key)
    stmt = get_statement(key)
    inputs = _vector_inputs(key)
    full = circom_inputs(stmt, inputs)
    full["play"] = str(int(full["play"]) | 1 << 20)
    with pytest.raises(MalformedInput):
        stmt.witness({**inputs, "play": int(full["play"])})
    proc = _wasm_witness(folder, stem, full)
    assert proc.returncode != 0 and "Assert Failed" in proc.stderr + proc.stdout


def test_normal_form_writes_linear_rows_as_circom_does():
    cs = ConstraintSystem()
    a, b = cs.public("a"), cs.public("b")
    x = cs.private_unchecked("x")
    cs.enforce_equal(x - a, b * 2, "lin")       # (x - a - 2b) * 1 = 0
    cs.enforce(3, a + x, b, "const_a")          # 3 * (a + x) = b
    cs.enforce(x + a, x, b, "quad")
    nf = normal_form(cs.system()).constraints
    items = [tuple(list(t.items()) for t in row) for row in nf]  # the order enters the fingerprint
    assert items[0] == ([], [], [(1, 1), (2, 2), (3, r - 1)])
    assert items[1] == ([], [], [(1, r - 3), (2, 1), (3, r - 3)])
    assert items[2] == ([(1, 1), (3, 1)], [(3, 1)], [(2, 1)])


def test_export_refuses_a_wire_no_gadget_described():
    def synth(cs, inp):
        a = cs.public("a")
        y = cs.private_unchecked("mystery")  # a hint with no circom description
        cs.enforce(a, a, y, "sq")

    with pytest.raises(MalformedInput, match="mystery"):
        export(synth, ["a"], [], "T")


def test_cli_export_circom_writes_source_and_map(tmp_path):
    from click.testing import CliRunner

    from zkbluff.cli import main

    res = CliRunner().invoke(main, ["circuits", "export", "circom", "value.choice.v1", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    stmt = get_statement("value.choice.v1")
    stem = circom_stem(stmt)
    meta = json.loads((tmp_path / "out" / f"{stem}.wires.json").read_text())
    circuit = export_statement(stmt)
    assert (tmp_path / "out" / f"{stem}.circom").read_text() == circuit.source
    assert meta["wire_map"] == circuit.wire_map and meta["fingerprint"] == stmt.system().fingerprint()
    assert meta["circom_fingerprint"] == normal_form(stmt.system()).fingerprint()


@pytest.mark.parametrize("key", ["value.choice.v1", "card.play.v1@deck=20,max_play=3"])
def test_snarkjs_proves_the_circom_witness_under_the_pinned_key(key, compiled, snarkjs, tmp_path):
    """The circom runtime end to end: the exported wasm computes the witness, read through the
    wire map it is zkbluff's, snarkjs proves it with the pinned `.zkey`, and `zkbluff verify`
    accepts the proof; the same proof with a public input changed is rejected."""
    from click.testing import CliRunner

    from zkbluff.circuit.formats import write_wtns
    from zkbluff.cli import main

    folder, stem, circuit = compiled(key)
    stmt = get_statement(key)
    inputs = _vector_inputs(key)
    proc = _wasm_witness(folder, stem, circom_inputs(stmt, inputs))
    assert proc.returncode == 0, proc.stderr[-2000:]
    write_wtns(tmp_path / "w.wtns", witness_from_circom(read_wtns(folder / "out.wtns"), circuit.wire_map))
    res = CliRunner().invoke(main, ["ceremony", "zkey", "export", key, str(tmp_path / "k.zkey")])
    assert res.exit_code == 0, res.output
    subprocess.run(snarkjs + ["groth16", "prove", str(tmp_path / "k.zkey"), str(tmp_path / "w.wtns"),
                              str(tmp_path / "proof.json"), str(tmp_path / "public.json")], check=True,
                   capture_output=True, timeout=600)
    assert json.loads((tmp_path / "public.json").read_text()) == [str(v) for v in stmt.public_values(inputs)]
    res = CliRunner().invoke(main, ["verify", key, str(tmp_path / "public.json"), str(tmp_path / "proof.json")])
    assert res.exit_code == 0, res.output
    public = json.loads((tmp_path / "public.json").read_text())
    public[0] = str((int(public[0]) + 1) % r)
    (tmp_path / "public.json").write_text(json.dumps(public))
    res = CliRunner().invoke(main, ["verify", key, str(tmp_path / "public.json"), str(tmp_path / "proof.json")])
    assert res.exit_code != 0
