"""The project's pinned keys: the committed ceremony verifies, keys load the same on
every install, a changed circuit fails `circuits check`, re-running is one call that
keeps what is still valid."""
from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from zkbluff.ceremony.phase2 import compact_bytes, compact_from_bytes
from zkbluff.ceremony.project import (
    KEYS_DIR, PTAU_NAME, file_stem, pinned_keys, pinned_vk, project_key, run_project_ceremony, verify_project,
)
from zkbluff.circuit import build
from zkbluff.curve import G1_GENERATOR, get_backend
from zkbluff.errors import InvalidCeremony, MalformedInput
from zkbluff.gadgets.native import poseidon
from zkbluff.groth16 import prove, verify
from zkbluff.statements import all_statements, get_statement
from zkbluff.statements.keys import check_registry, load_keys, registry_circuits, registry_dir

from sample_circuits import cube, hash_preimage
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


# ------------------------------------------------------------------ the committed ceremony
def test_committed_ceremony_verifies():
    """`zkbluff ceremony verify` on the committed keys (what `make test` runs)."""
    from click.testing import CliRunner
    from zkbluff.cli import main

    res = CliRunner().invoke(main, ["ceremony", "verify"])
    assert res.exit_code == 0 and "OK: the project ceremony" in res.output, res.output
    assert all(key_id in res.output for key_id in all_statements())
    assert check_registry(registry_dir()) == []


def test_every_pin_has_its_files_and_record():
    folder = registry_dir()
    record = json.loads((folder / KEYS_DIR / "ceremony.json").read_text())
    assert record["phase1"]["beacon"]["value"] and record["phase1"]["beacon"]["iterations_exp"] >= 10
    assert [c["beacon"] for c in record["phase1"]["contributions"]][-1] is True
    for key_id, pin in pinned_keys(folder).items():
        assert pinned_vk(key_id, folder).fingerprint() == pin["vk_fingerprint"]
        assert record["statements"][key_id]["contributions"][-1]["beacon"] is True
        assert sum(not c["beacon"] for c in record["statements"][key_id]["contributions"]) >= 2


@pytest.fixture
def registry_copy(tmp_path):
    dst = tmp_path / "circuits"
    shutil.copytree(registry_dir(), dst)
    return dst


def test_changed_circuit_fails_check(registry_copy):
    manifest = json.loads((registry_copy / "manifest.json").read_text())
    key_id = "card.claim.v1@deck=52"
    manifest["keys"][key_id]["r1cs_fingerprint"] = "00" * 32
    (registry_copy / "manifest.json").write_text(json.dumps(manifest))
    problems = check_registry(registry_copy)
    assert any(key_id in p and "ceremony project" in p for p in problems)
    with pytest.raises(InvalidCeremony, match="circuit changed"):
        verify_project(registry_circuits(), registry_copy)
    del manifest["keys"][key_id]
    (registry_copy / "manifest.json").write_text(json.dumps(manifest))
    assert any(key_id in p and "no pinned key" in p for p in check_registry(registry_copy))
    del manifest["keys"]  # a scratch registry without a ceremony is not checked for keys...
    (registry_copy / "manifest.json").write_text(json.dumps(manifest))
    assert check_registry(registry_copy) == []
    with pytest.raises(InvalidCeremony):  # ...but the ceremony check needs every key
        verify_project(registry_circuits(), registry_copy)


def test_tampered_project_key_is_rejected(registry_copy):
    key_id = "value.choice.v1"
    system = get_statement(key_id).build()[0]
    path = registry_copy / KEYS_DIR / f"{file_stem(key_id)}.phase2"
    zk = compact_from_bytes(path.read_bytes(), str(path), system)
    h = list(zk.pk.h_query)
    h[2] = get_backend().g1_add(h[2], G1_GENERATOR)
    path.write_bytes(compact_bytes(replace(zk, pk=replace(zk.pk, h_query=tuple(h)))))
    with pytest.raises(InvalidCeremony, match="H section"):
        verify_project({key_id: system}, registry_copy)


def test_vk_file_not_matching_its_pin_is_rejected(registry_copy):
    key_id = "value.choice.v1"
    f = registry_copy / KEYS_DIR / f"{file_stem(key_id)}.vk.json"
    vk = json.loads(f.read_text())
    vk["IC"][1], vk["IC"][2] = vk["IC"][2], vk["IC"][1]
    f.write_text(json.dumps(vk))
    with pytest.raises(InvalidCeremony, match="not the pinned"):
        pinned_vk(key_id, registry_copy)


# ------------------------------------------------------------------ same keys on every install
def test_fresh_install_proves_and_verifies_with_the_same_keys(tmp_path, monkeypatch):
    """Prove on 'machine A' (its own key cache), verify on 'machine B' (an empty one)
    with the pinned verifying key: the same key, nothing made on first use."""
    from zkbluff.statements import keys as keys_mod
    stmt = get_statement("value.choice.v1")
    import random

    from statement_inputs import valid_inputs
    system, witness = stmt.build(valid_inputs(stmt, random.Random(1)))
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "machine-a"))
    keys_mod._LOADED.clear()
    pk = load_keys(stmt.key_id)
    proof = prove(pk, witness)
    assert not (tmp_path / "machine-a").exists()  # assembled from the shipped queries: nothing written
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "machine-b"))
    keys_mod._LOADED.clear()
    vk = pinned_vk(stmt.key_id)
    assert vk.fingerprint() == pk.vk.fingerprint() == pinned_keys()[stmt.key_id]["vk_fingerprint"]
    verify(vk, witness[1: 1 + system.n_public], proof)
    assert not (tmp_path / "machine-b").exists()  # verifying made no keys


def test_pinned_key_refuses_a_changed_circuit():
    other, _ = build(cube, None)
    with pytest.raises(InvalidCeremony, match="another version"):
        project_key("value.choice.v1", other)


# ------------------------------------------------------------------ re-running the ceremony
def test_run_project_ceremony_small(tmp_path):
    folder = tmp_path / "reg"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"statements": []}))
    cube_sys, cube_w = build(cube, {"x": 3, "out": 35})
    hp_sys, hp_w = build(hash_preimage, {"h": poseidon([3, 4]), "k": 9, "a": 3, "b": 4})
    circuits = {"t.cube.v1": cube_sys}
    first = run_project_ceremony(circuits, folder, iterations_exp=10)
    assert (first.power, first.phase1_reused, first.made) == (3, False, ["t.cube.v1"])
    pins = pinned_keys(folder)
    rep = verify_project(circuits, folder)
    assert rep.keys["t.cube.v1"] == pins["t.cube.v1"]["vk_fingerprint"]
    zk = project_key("t.cube.v1", cube_sys, folder)
    verify(zk.vk, [35], prove(zk.pk, cube_w))
    # again with one more statement that does not fit: a new phase 1, every key made anew
    circuits["t.hash.v1"] = hp_sys
    second = run_project_ceremony(circuits, folder, iterations_exp=10)
    assert second.power == 8 and not second.phase1_reused and sorted(second.made) == ["t.cube.v1", "t.hash.v1"]
    # and once more unchanged: phase 1 and both keys kept, same fingerprints
    pins2 = pinned_keys(folder)
    third = run_project_ceremony(circuits, folder, iterations_exp=10)
    assert third.phase1_reused and third.made == [] and sorted(third.kept) == ["t.cube.v1", "t.hash.v1"]
    assert pinned_keys(folder) == pins2
    verify_project(circuits, folder)
    # a run interrupted after rewriting a key's files but before the pins: remade, not kept
    vk_file = folder / KEYS_DIR / "t.hash.v1.vk.json"
    vk_file.write_text(vk_file.read_text().replace('"nPublic": 2', '"nPublic": 2 ', 1))  # same key...
    again = run_project_ceremony(circuits, folder, iterations_exp=10)
    assert "t.hash.v1" in again.kept  # ...is kept
    other = json.loads((folder / KEYS_DIR / "t.cube.v1.vk.json").read_text())
    vk_file.write_text(json.dumps(other))
    again = run_project_ceremony(circuits, folder, iterations_exp=10)
    assert again.made == ["t.hash.v1"] and again.kept == ["t.cube.v1"]
    verify_project(circuits, folder)
    # a removed statement loses its files and pin
    del circuits["t.cube.v1"]
    run_project_ceremony(circuits, folder, iterations_exp=10)
    assert "t.cube.v1" not in pinned_keys(folder)
    assert not (folder / KEYS_DIR / "t.cube.v1.phase2").exists()
    with pytest.raises(MalformedInput):
        run_project_ceremony(circuits, folder, contributions=1)


@pytest.mark.interop
def test_snarkjs_accepts_the_project_ptau_and_an_exported_key(snarkjs, tmp_path):
    from nodetools import run
    from zkbluff.ceremony.phase2 import write_zkey_file
    from zkbluff.circuit.formats import write_r1cs

    folder = registry_dir()
    assert run(snarkjs + ["powersoftau", "verify", str(folder / KEYS_DIR / PTAU_NAME)], check=False).returncode == 0
    key_id = "value.choice.v1"
    system = get_statement(key_id).build()[0]
    write_zkey_file(tmp_path / "k.zkey", project_key(key_id, system))
    write_r1cs(tmp_path / "k.r1cs", system)
    res = run(snarkjs + ["zkey", "verify", str(tmp_path / "k.r1cs"), str(folder / KEYS_DIR / PTAU_NAME),
                         str(tmp_path / "k.zkey")], check=False)
    assert res.returncode == 0, res.stdout


@pytest.mark.slow
def test_transcript_from_one_install_verifies_on_another(tmp_path, monkeypatch):
    """A whole match played on 'machine A' with the default (pinned) keys verifies on
    'machine B' with an empty key cache, and every key in its header is a pinned one."""
    from zkbluff.ceremony.trust import PROJECT, TrustContext, check_key
    from zkbluff.games.engine.table import open_match
    from zkbluff.games.engine.verifier import verify_transcript
    from zkbluff.games.registry import spec_class
    from zkbluff.groth16 import VerifyingKey
    from zkbluff.statements import keys as keys_mod

    path = tmp_path / "match.jsonl"
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "machine-a"))
    keys_mod._LOADED.clear()
    tab = open_match("five-up-two-down", {"mode": "casual", "deal": "dealer"}, ["ann", "house"], transcript=path)
    cls = spec_class("five-up-two-down")
    bots = [cls.house_bot(11), cls.house_bot(12)]
    while not tab.over:
        s = tab.to_move
        tab.move(s, bots[s].act(tab.observation(s)))
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "machine-b"))
    keys_mod._LOADED.clear()
    report = verify_transcript(path)
    assert report["proofs"] > 0
    header = json.loads(path.read_text().split("\n")[0])
    ctx = TrustContext.default()
    for key_id, vk_json in header["data"]["keys"].items():
        assert check_key(key_id, VerifyingKey.from_json(vk_json), ctx).source == PROJECT
    assert not (tmp_path / "machine-b").exists()
