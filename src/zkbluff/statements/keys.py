"""The circuits/ registry files, the pinned project keys and the proving-key cache.

``circuits/`` holds one ``.r1cs`` per registered statement and ``manifest.json`` with each
one's name, version, parameters, counts, public inputs and fingerprint; ``build_registry``
writes them and ``check_registry`` fails when the code and the files differ, or when a
statement's pinned key (``manifest.json`` ``keys``, files in ``circuits/keys/``) was made
for another version of its circuit.

``load_keys(key_id)`` returns the *pinned project key* (made by the project ceremony,
see :mod:`zkbluff.ceremony.project`; every install proves with the same keys). The
full proving key is rebuilt from the compact committed file once and cached in
``$ZKBLUFF_KEY_DIR`` (else ``~/.cache/zkbluff/keys``). Keys are never made silently:
``load_keys(key_id, folder)`` reads a *private* key set from ``folder`` and makes one
there only when asked (``create=True``), saying loudly that it is private.
"""
from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Callable, Optional

from zkbluff.ceremony.project import (
    COMMAND as CEREMONY_COMMAND, file_stem, pinned_keys, pinned_vk, project_key, read_queries, registry_dir,
    run_project_ceremony, verify_project,
)
from zkbluff.circuit.builder import R1CS
from zkbluff.circuit.formats import r1cs_to_bytes, read_r1cs
from zkbluff.errors import InvalidCeremony, MalformedInput
from zkbluff.groth16.keys import ProvingKey, VerifyingKey
from zkbluff.statements.base import Statement
from zkbluff.statements.registry import all_statements, get_statement


__all__ = ["registry_dir", "file_stem", "build_registry", "check_registry", "load_keys", "verifying_key",
           "key_dir", "registry_circuits", "run_ceremony", "verify_ceremony"]


def manifest_entry(stmt: Statement) -> dict:
    system, _ = stmt.build()
    name, version = stmt.name.rsplit(".", 1)
    return {
        "id": stmt.key_id, "name": name, "version": version,
        "params": {k: (list(v) if isinstance(v, tuple) else v) for k, v in stmt.params},
        "constraints": system.n_constraints, "wires": system.n_wires, "public_inputs": list(stmt.public),
        "private_inputs": list(stmt.private), "fingerprint": system.fingerprint(),
        "file": file_stem(stmt.key_id) + ".r1cs",
    }


def build_registry(folder: Path) -> list[dict]:
    """Write the ``.r1cs`` files and the manifest (keeping its key pins: a circuit that
    changed then fails ``check_registry`` until the ceremony is re-run)."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for stmt in all_statements().values():
        entry = manifest_entry(stmt)
        (folder / entry["file"]).write_bytes(r1cs_to_bytes(stmt.build()[0]))
        entries.append(entry)
    manifest: dict = {"statements": entries}
    try:
        old = json.loads((folder / "manifest.json").read_text())
        if isinstance(old, dict) and "keys" in old:
            manifest["keys"] = old["keys"]
    except (OSError, ValueError):
        pass
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return entries


def check_registry(folder: Path) -> list[str]:
    """Differences between the code and ``folder`` (empty when they agree)."""
    problems = []
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
        recorded = {e["id"]: e for e in manifest["statements"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f"{folder}/manifest.json cannot be read: {exc}"]
    for key_id, stmt in all_statements().items():
        entry = manifest_entry(stmt)
        if key_id not in recorded:
            problems.append(f"{key_id}: not in the manifest (run `zkbluff circuits build`)")
            continue
        if recorded[key_id] != entry:
            diff = [k for k in entry if recorded[key_id].get(k) != entry[k]]
            problems.append(f"{key_id}: the manifest differs in {', '.join(diff)}")
        path = folder / entry["file"]
        try:
            if read_r1cs(path).fingerprint() != entry["fingerprint"]:
                problems.append(f"{key_id}: {path.name} differs from the code")
        except (OSError, MalformedInput) as exc:
            problems.append(f"{key_id}: {path.name}: {exc}")
    for key_id in recorded:
        if key_id not in all_statements():
            problems.append(f"{key_id}: in the manifest but no longer in the code")
    # a registry with a ceremony (the committed one) must have a matching key per statement;
    # a scratch registry (``circuits build --dir``) has no "keys" and is not checked for them
    pins = manifest.get("keys") if isinstance(manifest, dict) else None
    for key_id, stmt in (all_statements().items() if pins is not None else ()):
        pin = pins.get(key_id) if isinstance(pins, dict) else None
        if not pin:
            problems.append(f"{key_id}: no pinned key (run `{CEREMONY_COMMAND}`)")
        elif pin.get("r1cs_fingerprint") != manifest_entry(stmt)["fingerprint"]:
            problems.append(f"{key_id}: its pinned key was made for another version of the circuit "
                            f"(run `{CEREMONY_COMMAND}`)")
    return problems


def registry_circuits() -> dict[str, R1CS]:
    """``{key id: constraint system}`` of every registered statement, built from the code."""
    return {key_id: stmt.build()[0] for key_id, stmt in all_statements().items()}


def run_ceremony(folder: Optional[Path] = None, **kwargs):
    """The project ceremony over every registered statement (see
    :func:`zkbluff.ceremony.project.run_project_ceremony`); rebuilds the registry first."""
    folder = folder or registry_dir()
    build_registry(folder)
    return run_project_ceremony(registry_circuits(), folder, **kwargs)


def committed_circuits(folder: Path) -> dict[str, R1CS]:
    """``{key id: constraint system}`` read from the registry's ``.r1cs`` files (the
    manifest names them; ``check_registry`` compares them with the code)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
        entries = [(e["id"], e["file"]) for e in manifest["statements"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MalformedInput(f"{folder}/manifest.json cannot be read: {exc}") from None
    return {key_id: read_r1cs(folder / name) for key_id, name in entries}


def verify_ceremony(folder: Optional[Path] = None, full: bool = False, say=None):
    """Re-check the project ceremony against the committed ``.r1cs`` files."""
    folder = folder or registry_dir()
    return verify_project(committed_circuits(folder), folder, full=full, say=say)


def key_dir() -> Path:
    return Path(os.environ.get("ZKBLUFF_KEY_DIR") or Path.home() / ".cache" / "zkbluff" / "keys")


_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str], ProvingKey] = {}
_ANNOUNCED = False


def _announce(message: str, say: Optional[Callable[[str], None]]) -> None:
    global _ANNOUNCED
    if not _ANNOUNCED:
        _ANNOUNCED = True
        (say or (lambda m: print(m, file=sys.stderr)))(message)


def _project_cache_path(key_id: str, vk_fingerprint: str) -> Path:
    return key_dir() / f"{file_stem(key_id)}.project-{vk_fingerprint[:16]}.pk"


def _read_cached_project_key(path: Path, pin: dict) -> Optional[ProvingKey]:
    """The cached pinned key at ``path``, or None (then it is rebuilt) when it is missing or
    not the pinned key: its ``.zkey`` section must have the pinned SHA-256 (``zkey_sha256``;
    its points are then decoded unchecked), its circuit the pinned fingerprint and its
    verifying key the pinned one. A registry that pins no digest gets every point checked."""
    from zkbluff.groth16.zkey import proving_key_from_bytes

    try:
        pk = proving_key_from_bytes(path.read_bytes(), str(path), zkey_sha256=pin.get("zkey_sha256"))
    except (OSError, MalformedInput):
        return None
    if pk.vk.fingerprint() != pin["vk_fingerprint"] or pk.system is None:
        return None
    if pin.get("zkey_sha256") and pk.system.fingerprint() != pin["r1cs_fingerprint"]:
        return None
    return pk


def _write_cached_project_key(path: Path, pk: ProvingKey, pin: dict) -> None:
    """Cache the rebuilt pinned key (only when it is the pinned one, byte for byte)."""
    import hashlib

    from zkbluff.circuit.formats import read_binfile
    from zkbluff.groth16.zkey import ZKBLUFF_KEY_MAGIC, proving_key_to_bytes

    data = proving_key_to_bytes(pk)
    zkey_section = read_binfile(data, ZKBLUFF_KEY_MAGIC, (1,), str(path))[1]
    if pin.get("zkey_sha256") and hashlib.sha256(zkey_section).hexdigest() != pin["zkey_sha256"]:
        raise InvalidCeremony(f"the rebuilt key of {path.name} is not the pinned one (zkey_sha256)")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _shipped_queries(stmt: Statement, system: R1CS, say: Optional[Callable[[str], None]]):
    """The registry's shipped A, B1, B2 queries of ``stmt``, or None: none shipped, or a
    file that is not its pin (refused, said on stderr; the key is then rebuilt)."""
    try:
        return read_queries(stmt.key_id, system)
    except InvalidCeremony as exc:
        (say or (lambda m: print(m, file=sys.stderr)))(f"zkbluff: {exc}; rebuilding {stmt.key_id} from phase 1")
        return None


def _load_project_key(stmt: Statement, say: Optional[Callable[[str], None]]) -> ProvingKey:
    """The pinned key: from the shipped queries (milliseconds to a second, nothing written),
    else from the cache in :func:`key_dir`, else rebuilt from phase 1 and cached."""
    pin = pinned_keys().get(stmt.key_id)
    if not pin:
        raise MalformedInput(f"no pinned key for {stmt.key_id}: run `{CEREMONY_COMMAND}`")
    system = stmt.system()
    queries = _shipped_queries(stmt, system, say)
    if queries is not None:
        return project_key(stmt.key_id, system, queries=queries).pk
    path = _project_cache_path(stmt.key_id, pin["vk_fingerprint"])
    pk = _read_cached_project_key(path, pin)
    if pk is None:
        pk = project_key(stmt.key_id, system, rebuild=True).pk
        _write_cached_project_key(path, pk, pin)
    return pk


def load_keys(key_id: str, folder: Optional[Path] = None,
              say: Optional[Callable[[str], None]] = None, create: bool = True) -> ProvingKey:
    """The proving key of a registered statement.

    ``folder`` None: the pinned project key, built on first use of *this* statement (only
    what a match needs): the compact key over the shipped A, B1, B2 queries, every file
    checked against the manifest's pins; a registry that ships no queries (or a query file
    that is not its pin) rebuilds them from phase 1 once and caches the key in
    :func:`key_dir` (a cached file that is not the pinned key, byte for byte, is refused
    and rebuilt).
    ``folder`` given: a *private* key set in that folder, made there (secrets from the OS,
    announced loudly) only if missing and ``create``; else :class:`MalformedInput`.
    Keys in memory are shared."""
    from zkbluff.groth16.setup import setup
    from zkbluff.groth16.zkey import proving_key_from_bytes, proving_key_to_bytes

    stmt = get_statement(key_id)
    cache_key = (str(folder), stmt.key_id)
    with _LOCK:
        if cache_key in _LOADED:
            return _LOADED[cache_key]
        if folder is None:
            pk = _load_project_key(stmt, say)
            _LOADED[cache_key] = pk
            return pk
        system = stmt.system()
        path = folder / (file_stem(stmt.key_id) + f".{system.fingerprint()[:16]}.pk")
        if path.exists():
            pk = proving_key_from_bytes(path.read_bytes(), str(path))
        elif not create:
            raise MalformedInput(f"no private keys for {stmt.key_id} in {folder}")
        else:
            _announce(f"zkbluff: making PRIVATE proving keys in {folder} (not the project's pinned keys: "
                      "verifiers accept them only when given this folder with --keys)", say)
            pk = setup(system)
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(proving_key_to_bytes(pk))
            tmp.replace(path)
            (folder / (file_stem(stmt.key_id) + ".vk.json")).write_text(json.dumps(pk.vk.to_json(), indent=1))
        _LOADED[cache_key] = pk
        return pk


def verifying_key(key_id: str, folder: Optional[Path] = None, create: bool = True) -> VerifyingKey:
    """The pinned verifying key (no proving key is rebuilt), or a private one from ``folder``."""
    if folder is None:
        return pinned_vk(get_statement(key_id).key_id)
    vk_file = folder / (file_stem(get_statement(key_id).key_id) + ".vk.json")
    if vk_file.exists():  # the verifying key alone (written beside the proving key when it was made)
        try:
            return VerifyingKey.from_json(json.loads(vk_file.read_text()))
        except (OSError, ValueError) as exc:
            raise MalformedInput(f"{vk_file}: {exc}") from None
    return load_keys(key_id, folder, create=create).vk
