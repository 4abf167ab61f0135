"""Groth16 interchange with snarkjs, both ways (snarkjs from npm, installed by the Makefile)."""
import copy
import json

import pytest

from zkbluff.circuit import build
from zkbluff.circuit.formats import read_r1cs, read_wtns, write_r1cs, write_wtns
from zkbluff.errors import InvalidProof, MalformedInput
from zkbluff.field import r
from zkbluff.groth16 import Proof, VerifyingKey, prove, public_from_json, setup, verify
from zkbluff.groth16.zkey import read_proving_key, write_zkey

from pathlib import Path

from nodetools import circom_witness, compile_circom, run
from sample_circuits import CIRCOM_SOURCE, hash_preimage
from zkbluff.gadgets.native import poseidon
from repo_root import REPO_ROOT

pytestmark = pytest.mark.interop


@pytest.fixture(scope="module")
def ptau(snarkjs, tmp_path_factory):
    """A local powers of tau (2^11), made here with snarkjs: no download."""
    d = tmp_path_factory.mktemp("ptau")
    run(snarkjs + ["powersoftau", "new", "bn128", "11", str(d / "p0.ptau")])
    run(snarkjs + ["powersoftau", "contribute", str(d / "p0.ptau"), str(d / "p1.ptau"), "--name=t", "-e=zkbluff"])
    run(snarkjs + ["powersoftau", "prepare", "phase2", str(d / "p1.ptau"), str(d / "pot.ptau")])
    return d / "pot.ptau"


def snark_verify(snarkjs, tmp, vk_json, public, proof_json) -> bool:
    (tmp / "vk.json").write_text(json.dumps(vk_json))
    (tmp / "public.json").write_text(json.dumps(public))
    (tmp / "proof.json").write_text(json.dumps(proof_json))
    res = run(snarkjs + ["groth16", "verify", str(tmp / "vk.json"), str(tmp / "public.json"), str(tmp / "proof.json")],
              check=False)
    return res.returncode == 0 and "OK" in res.stdout


def tampered(proof_json, public, other_proof_json):
    """(name, proof JSON, public) triples that every verifier must reject."""
    out = []
    p = copy.deepcopy(proof_json)
    p["pi_a"][0] = str((int(p["pi_a"][0]) + 1))
    out.append(("flipped coordinate", p, public))
    out.append(("swapped public inputs", proof_json, list(reversed(public))))
    out.append(("another witness's proof", other_proof_json, public))
    out.append(("c + r", proof_json, [str(int(public[0]) + r)] + public[1:]))
    p = copy.deepcopy(proof_json)
    p["pi_c"] = ["1", "3", "1"]
    out.append(("point off the curve", p, public))
    p = copy.deepcopy(proof_json)
    p["pi_b"] = [list(reversed(p["pi_b"][0])), list(reversed(p["pi_b"][1])), p["pi_b"][2]]
    out.append(("G2 coordinates in the wrong order", p, public))
    return out


def zkbluff_rejects(vk, proof_json, public_json) -> bool:
    try:
        verify(vk, public_from_json(public_json), Proof.from_json(proof_json))
    except (InvalidProof, MalformedInput):
        return True
    return False


def test_snarkjs_verifies_our_proofs(snarkjs, tmp_path):
    a, b = 5, 6
    system, witness = build(hash_preimage, {"a": a, "b": b, "h": poseidon([a, b]), "k": 9})
    _, witness2 = build(hash_preimage, {"a": 1, "b": 2, "h": poseidon([1, 2]), "k": 9})
    pk = setup(system)
    proof = prove(pk, witness).to_json()
    other = prove(pk, witness2).to_json()
    public = [str(x) for x in witness[1:3]]
    assert snark_verify(snarkjs, tmp_path, pk.vk.to_json(), public, proof)
    for name, bad_proof, bad_public in tampered(proof, public, other):
        assert not snark_verify(snarkjs, tmp_path, pk.vk.to_json(), bad_public, bad_proof), name
        assert zkbluff_rejects(pk.vk, bad_proof, bad_public), name


@pytest.fixture(scope="module")
def snark_circuit(snarkjs, node_modules, ptau, tmp_path_factory):
    """circom circuit, witness, snarkjs keys (with one contribution) and a snarkjs proof."""
    d = tmp_path_factory.mktemp("snark")
    compile_circom(node_modules, d, "t", CIRCOM_SOURCE)
    circom_witness(d, "t", {"a": 3, "b": 11})
    run(snarkjs + ["groth16", "setup", str(d / "t.r1cs"), str(ptau), str(d / "t0.zkey")])
    run(snarkjs + ["zkey", "contribute", str(d / "t0.zkey"), str(d / "t.zkey"), "--name=c", "-e=entropy"])
    run(snarkjs + ["zkey", "export", "verificationkey", str(d / "t.zkey"), str(d / "vk.json")])
    run(snarkjs + ["groth16", "prove", str(d / "t.zkey"), str(d / "t.wtns"), str(d / "proof.json"), str(d / "public.json")])
    circom_witness(d, "t", {"a": 4, "b": 11})
    run(snarkjs + ["groth16", "prove", str(d / "t.zkey"), str(d / "t.wtns"), str(d / "proof2.json"), str(d / "public2.json")])
    circom_witness(d, "t", {"a": 3, "b": 11})
    return d


def test_we_verify_snarkjs_proofs(snark_circuit):
    d = snark_circuit
    vk = VerifyingKey.from_json(json.loads((d / "vk.json").read_text()))
    proof = json.loads((d / "proof.json").read_text())
    public = json.loads((d / "public.json").read_text())
    verify(vk, public_from_json(public), Proof.from_json(proof))
    other = json.loads((d / "proof2.json").read_text())
    for name, bad_proof, bad_public in tampered(proof, public, other):
        assert zkbluff_rejects(vk, bad_proof, bad_public), name


def test_we_prove_with_a_snarkjs_zkey(snarkjs, snark_circuit, tmp_path):
    d = snark_circuit
    pk = read_proving_key(d / "t.zkey")
    witness = read_wtns(d / "t.wtns")
    proof = prove(pk, witness)
    vk = VerifyingKey.from_json(json.loads((d / "vk.json").read_text()))
    assert pk.vk == vk
    public = witness[1: 1 + vk.n_public]
    verify(vk, public, proof)
    assert snark_verify(snarkjs, tmp_path, vk.to_json(), [str(x) for x in public], proof.to_json())


def test_snarkjs_proves_with_our_zkey(snarkjs, snark_circuit, tmp_path):
    d = snark_circuit
    system = read_r1cs(d / "t.r1cs")
    pk = setup(system)
    write_zkey(tmp_path / "ours.zkey", pk)
    run(snarkjs + ["groth16", "prove", str(tmp_path / "ours.zkey"), str(d / "t.wtns"), str(tmp_path / "p.json"),
                   str(tmp_path / "pub.json")])
    proof = Proof.from_json(json.loads((tmp_path / "p.json").read_text()))
    verify(pk.vk, public_from_json(json.loads((tmp_path / "pub.json").read_text())), proof)
    # and snarkjs exports the same verification key from our zkey
    run(snarkjs + ["zkey", "export", "verificationkey", str(tmp_path / "ours.zkey"), str(tmp_path / "vk.json")])
    assert VerifyingKey.from_json(json.loads((tmp_path / "vk.json").read_text())) == pk.vk


def test_snarkjs_keys_from_our_r1cs(snarkjs, ptau, tmp_path):
    """snarkjs runs its own setup on an .r1cs we wrote; we prove with that zkey."""
    a, b = 7, 8
    system, witness = build(hash_preimage, {"a": a, "b": b, "h": poseidon([a, b]), "k": 2})
    write_r1cs(tmp_path / "h.r1cs", system)
    write_wtns(tmp_path / "h.wtns", witness)
    run(snarkjs + ["groth16", "setup", str(tmp_path / "h.r1cs"), str(ptau), str(tmp_path / "h.zkey")])
    pk = read_proving_key(tmp_path / "h.zkey")
    proof = prove(pk, witness)
    verify(pk.vk, witness[1:3], proof)
    run(snarkjs + ["groth16", "prove", str(tmp_path / "h.zkey"), str(tmp_path / "h.wtns"), str(tmp_path / "p.json"),
                   str(tmp_path / "pub.json")])
    verify(pk.vk, public_from_json(json.loads((tmp_path / "pub.json").read_text())),
           Proof.from_json(json.loads((tmp_path / "p.json").read_text())))


def test_snarkjs_checks_statement_files_and_proofs(snarkjs, tmp_path, monkeypatch):
    """snarkjs reads a registry .r1cs and our statement witness, and verifies a statement
    proof with the key `zkbluff circuits export` writes."""
    import random

    from click.testing import CliRunner

    from zkbluff.cli import main
    from zkbluff.statements import get_statement
    from zkbluff.statements.keys import file_stem
    from statement_inputs import valid_inputs

    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "keys"))
    stmt = get_statement("card.play.v1@deck=52,max_play=4")
    inputs = valid_inputs(stmt, random.Random(3))
    (tmp_path / "in.json").write_text(json.dumps({k: str(v) for k, v in inputs.items()}))
    t = str(tmp_path)
    run_cli = CliRunner().invoke
    assert run_cli(main, ["witness", stmt.key_id, f"{t}/in.json", f"{t}/w.wtns"]).exit_code == 0
    r1cs_path = REPO_ROOT / "circuits" / (file_stem(stmt.key_id) + ".r1cs")
    res = run(snarkjs + ["wtns", "check", str(r1cs_path), f"{t}/w.wtns"], check=False)
    assert "WITNESS IS CORRECT" in res.stdout
    assert run_cli(main, ["prove", stmt.key_id, f"{t}/in.json", f"{t}/proof.json", f"{t}/pub.json"]).exit_code == 0
    assert run_cli(main, ["circuits", "export", stmt.key_id, f"{t}/vk.json"]).exit_code == 0
    res = run(snarkjs + ["groth16", "verify", f"{t}/vk.json", f"{t}/pub.json", f"{t}/proof.json"], check=False)
    assert res.returncode == 0 and "OK" in res.stdout
    pub = json.loads((tmp_path / "pub.json").read_text())
    pub[3] = str(int(pub[3]) + 1)  # another count
    (tmp_path / "pub.json").write_text(json.dumps(pub))
    res = run(snarkjs + ["groth16", "verify", f"{t}/vk.json", f"{t}/pub.json", f"{t}/proof.json"], check=False)
    assert "OK" not in res.stdout
