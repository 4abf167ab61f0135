"""The pinned keys' A, B1, B2 queries shipped precomputed (``<stem>.query``, issue 31):
what an install proves with is byte for byte what ``ceremony verify --full`` rebuilds from
phase 1, a query file or a cached key that is not the pinned one is refused, and a registry
that ships no queries still works (rebuilding them)."""
from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace

import pytest

from zkbluff.ceremony.project import (
    KEYS_DIR, file_stem, pinned_keys, project_key, read_queries, run_project_ceremony, verify_project, zkey_digest,
)
from zkbluff.ceremony.binfile import read_binfile, write_binfile
from zkbluff.ceremony.queries import SUFFIX, query_bytes, query_digest, query_from_bytes
from zkbluff.circuit import build
from zkbluff.curve import G1_GENERATOR, get_backend
from zkbluff.errors import InvalidCeremony, InvalidProof, MalformedInput
from zkbluff.gadgets.native import poseidon
from zkbluff.groth16 import prove, verify
from zkbluff.groth16.zkey import proving_key_from_bytes, proving_key_to_bytes, zkey_to_bytes
from zkbluff.statements import get_statement
from zkbluff.statements.keys import load_keys, registry_dir

from sample_circuits import cube, hash_preimage

REGISTRY = registry_dir()


@pytest.fixture(scope="module")
def small_registry(tmp_path_factory):
    """A two-statement ceremony of its own (2^8 phase 1, seconds), with shipped queries."""
    folder = tmp_path_factory.mktemp("reg")
    (folder / "manifest.json").write_text(json.dumps({"statements": []}))
    circuits = {"t.cube.v1": build(cube, None)[0],
                "t.hash.v1": build(hash_preimage, None)[0]}
    run_project_ceremony(circuits, folder, iterations_exp=10)
    return folder, circuits


@pytest.fixture
def registry(small_registry, tmp_path):
    folder, circuits = small_registry
    dst = tmp_path / "reg"
    shutil.copytree(folder, dst)
    return dst, circuits


def _query_path(folder, key_id):
    return folder / KEYS_DIR / f"{file_stem(key_id)}{SUFFIX}"


def _moved_point_queries(folder, key_id, system) -> bytes:
    """The key's shipped queries with A[1] moved by G (still a point on the curve)."""
    a, b1, b2 = read_queries(key_id, system, folder)
    a = list(a)
    a[1] = get_backend().g1_add(a[1], G1_GENERATOR)
    return query_bytes(a, b1, b2)


# ------------------------------------------------------------------ the files the ceremony writes
def test_ceremony_ships_and_pins_the_queries(small_registry):
    folder, circuits = small_registry
    for key_id in circuits:
        pin = pinned_keys(folder)[key_id]
        data = _query_path(folder, key_id).read_bytes()
        assert query_digest(data) == pin["query_sha256"]
        assert zkey_digest(project_key(key_id, circuits[key_id], folder)) == pin["zkey_sha256"]


def test_shipped_key_is_byte_identical_to_the_full_rebuild(small_registry):
    folder, circuits = small_registry
    verify_project(circuits, folder, full=True)  # (compares every .query with the rebuild)
    for key_id, system in circuits.items():
        shipped = project_key(key_id, system, folder)
        rebuilt = project_key(key_id, system, folder, rebuild=True)
        assert zkey_to_bytes(shipped.pk) == zkey_to_bytes(rebuilt.pk)
        assert shipped.to_bytes() == rebuilt.to_bytes()


def test_shipped_key_proves_and_its_twin_with_a_moved_point_does_not(registry):
    folder, circuits = registry
    system, witness = build(cube, {"x": 3, "out": 35})
    zk = project_key("t.cube.v1", system, folder)
    verify(zk.vk, [35], prove(zk.pk, witness))
    moved = query_from_bytes(_moved_point_queries(folder, "t.cube.v1", system), system.n_wires, "q")
    bad = replace(zk.pk, a_query=moved[0])
    with pytest.raises(InvalidProof):
        verify(zk.vk, [35], prove(bad, witness))


@pytest.mark.slow
def test_committed_keys_shipped_equal_rebuilt():
    """Two committed statements (what a fresh install proves with) against their rebuild
    from the committed phase 1, and against the pinned digests."""
    for key_id in ("value.choice.v1", "card.claim.v1@deck=52"):
        system = get_statement(key_id).system()
        shipped = project_key(key_id, system)
        rebuilt = project_key(key_id, system, rebuild=True)
        assert zkey_to_bytes(shipped.pk) == zkey_to_bytes(rebuilt.pk)
        assert zkey_digest(shipped) == pinned_keys()[key_id]["zkey_sha256"]


# ------------------------------------------------------------------ a query file that is not the pinned one
def test_query_file_with_a_moved_point_is_refused(registry):
    folder, circuits = registry
    key_id = "t.cube.v1"
    _query_path(folder, key_id).write_bytes(_moved_point_queries(folder, key_id, circuits[key_id]))
    with pytest.raises(InvalidCeremony, match="not the pinned queries"):
        project_key(key_id, circuits[key_id], folder)
    with pytest.raises(InvalidCeremony, match="not the pinned queries"):
        verify_project(circuits, folder)


def test_query_file_and_its_pin_changed_together_fail_full_verify(registry):
    """A house that rewrites a query file and its digest pin: the keys load (the pin is the
    trust root an install has) but `ceremony verify --full` rebuilds and refuses them."""
    folder, circuits = registry
    key_id = "t.cube.v1"
    data = _moved_point_queries(folder, key_id, circuits[key_id])
    _query_path(folder, key_id).write_bytes(data)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["keys"][key_id]["query_sha256"] = query_digest(data)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    verify_project(circuits, folder)  # the quick check compares digests only
    with pytest.raises(InvalidCeremony, match="not the A, B1, B2 queries rebuilt"):
        verify_project(circuits, folder, full=True)


def test_query_file_for_another_circuit_size_is_refused(registry):
    folder, circuits = registry
    data = _query_path(folder, "t.cube.v1").read_bytes()
    with pytest.raises(MalformedInput, match="wires"):
        query_from_bytes(data, circuits["t.cube.v1"].n_wires + 1, "q")
    sections = read_binfile(data, b"zkbq", (1,), "q")
    sections[5] = sections[5][:-32]  # one coordinate short of the points its bitmap lists
    with pytest.raises(MalformedInput, match="bytes do not hold"):
        query_from_bytes(write_binfile(b"zkbq", 1, sorted(sections.items())), circuits["t.cube.v1"].n_wires, "q")


def test_registry_without_shipped_queries_rebuilds_them(registry):
    folder, circuits = registry
    key_id = "t.hash.v1"
    expected = zkey_to_bytes(project_key(key_id, circuits[key_id], folder).pk)
    _query_path(folder, key_id).unlink()
    assert read_queries(key_id, circuits[key_id], folder) is None
    assert zkey_to_bytes(project_key(key_id, circuits[key_id], folder).pk) == expected
    with pytest.raises(InvalidCeremony, match="missing"):  # but its pin says it ships them
        verify_project(circuits, folder, full=True)


# ------------------------------------------------------------------ loading: shipped, else cached
@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    from zkbluff.statements import keys as keys_mod

    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "cache"))
    keys_mod._LOADED.clear()
    yield tmp_path / "cache"
    keys_mod._LOADED.clear()


def test_shipped_key_loads_without_phase1_and_writes_nothing(fresh_cache, monkeypatch):
    from zkbluff.ceremony import project as project_mod

    def no_phase1(*_a, **_k):
        raise AssertionError("phase 1 was read although the queries are shipped")

    monkeypatch.setattr(project_mod, "project_ptau", no_phase1)
    pk = load_keys("value.choice.v1")
    assert hashlib.sha256(zkey_to_bytes(pk)).hexdigest() == pinned_keys()["value.choice.v1"]["zkey_sha256"]
    assert not fresh_cache.exists()


@pytest.fixture(scope="module")
def unshipped_copy(tmp_path_factory):
    """The committed registry without value.choice.v1's shipped queries (an install that
    dropped the .query files); one copy for the module, so phase 1 is read once."""
    src = registry_dir()
    dst = tmp_path_factory.mktemp("unshipped") / "circuits"
    (dst / KEYS_DIR).mkdir(parents=True)
    shutil.copy2(src / "manifest.json", dst / "manifest.json")
    stem = file_stem("value.choice.v1")
    for name in ("phase1.ptau", f"{stem}.phase2", f"{stem}.vk.json"):
        shutil.copy2(src / KEYS_DIR / name, dst / KEYS_DIR / name)
    return dst


@pytest.fixture
def unshipped_registry(unshipped_copy, monkeypatch):
    """:func:`unshipped_copy`, made the registry this package trusts."""
    from zkbluff.ceremony import project as project_mod

    monkeypatch.setattr(project_mod, "registry_dir", lambda: unshipped_copy)
    yield unshipped_copy
    _query_path(unshipped_copy, "value.choice.v1").unlink(missing_ok=True)


def _cached_file(cache):
    (path,) = cache.glob("*.project-*.pk")
    return path


def test_unshipped_key_is_rebuilt_once_then_read_from_the_cache(unshipped_registry, fresh_cache, monkeypatch):
    from zkbluff.statements import keys as keys_mod

    key_id = "value.choice.v1"
    good = load_keys(key_id)
    assert hashlib.sha256(zkey_to_bytes(good)).hexdigest() == pinned_keys()[key_id]["zkey_sha256"]
    keys_mod._LOADED.clear()

    def no_rebuild(*_a, **_k):
        raise AssertionError("an intact cached key was rebuilt")

    monkeypatch.setattr(keys_mod, "project_key", no_rebuild)
    assert zkey_to_bytes(load_keys(key_id)) == zkey_to_bytes(good)


def test_cached_key_with_a_moved_point_is_refused_and_rebuilt(unshipped_registry, fresh_cache):
    """A cached key whose A query holds another point on the curve (its verifying key
    untouched, so the fingerprint check alone accepts it) is refused and rebuilt."""
    from zkbluff.statements import keys as keys_mod

    key_id = "value.choice.v1"
    good = load_keys(key_id)
    path = _cached_file(fresh_cache)
    original = path.read_bytes()
    a = list(good.a_query)
    a[2] = get_backend().g1_add(a[2], G1_GENERATOR)
    path.write_bytes(proving_key_to_bytes(replace(good, a_query=tuple(a))))
    keys_mod._LOADED.clear()
    again = load_keys(key_id)
    assert again.a_query == good.a_query
    assert path.read_bytes() == original  # rewritten with the pinned key


def test_corrupted_shipped_query_file_is_refused_and_the_key_rebuilt(unshipped_registry, fresh_cache, capsys):
    from zkbluff.statements import keys as keys_mod

    key_id = "value.choice.v1"
    system = get_statement(key_id).system()
    good = project_key(key_id, system, unshipped_registry, rebuild=True)
    _query_path(unshipped_registry, key_id).write_bytes(_moved_point_queries(REGISTRY, key_id, system))
    keys_mod._LOADED.clear()
    pk = load_keys(key_id)
    assert zkey_to_bytes(pk) == zkey_to_bytes(good.pk)
    assert "not the pinned queries" in capsys.readouterr().err


def test_cache_digest_check_refuses_another_key(unshipped_registry, fresh_cache):
    load_keys("value.choice.v1")
    data = _cached_file(fresh_cache).read_bytes()
    pin = pinned_keys()["value.choice.v1"]
    assert proving_key_from_bytes(data, "k", zkey_sha256=pin["zkey_sha256"]).n_wires > 0
    with pytest.raises(MalformedInput, match="not the pinned one"):
        proving_key_from_bytes(data, "k", zkey_sha256="00" * 32)


def test_hash_preimage_key_from_shipped_queries_proves(registry):
    folder, circuits = registry
    system, witness = build(hash_preimage, {"h": poseidon([3, 4]), "k": 9, "a": 3, "b": 4})
    zk = project_key("t.hash.v1", system, folder)
    verify(zk.vk, witness[1: 1 + system.n_public], prove(zk.pk, witness))
