"""The circuits/ registry files and the proving-key cache.

``circuits/`` holds one ``.r1cs`` per registered statement and ``manifest.json`` with each
one's name, version, parameters, counts, public inputs and fingerprint; ``build_registry``
writes them and ``check_registry`` fails when the code and the files differ.

Keys live in a cache folder: ``$ZKBLUFF_KEY_DIR`` if set, else ``~/.cache/zkbluff/keys``.
``load_keys`` makes missing keys on first use (secrets from the OS) and says so once.
"""
from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Callable, Optional

from zkbluff.circuit.formats import r1cs_to_bytes, read_r1cs
from zkbluff.errors import MalformedInput
from zkbluff.groth16.keys import ProvingKey, VerifyingKey
from zkbluff.statements.base import Statement
from zkbluff.statements.registry import all_statements, get_statement


def registry_dir() -> Path:
    """The committed registry (``.r1cs`` files, manifest, pinned keys): ``./circuits`` when
    the current folder is a checkout that has one, else the source checkout's
    ``circuits/``, else the copy an install carries inside the package
    (``zkbluff/registry/``). Everything that reads the registry finds it here."""
    here = Path.cwd() / "circuits"
    if (here / "manifest.json").exists():
        return here
    package = Path(__file__).resolve().parents[1]
    checkout = package.parents[1] / "circuits"
    if (checkout / "manifest.json").exists():
        return checkout
    return package / "registry"


def file_stem(key_id: str) -> str:
    return key_id.replace("@", "__").replace(",", "_").replace("=", "-")


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
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for stmt in all_statements().values():
        entry = manifest_entry(stmt)
        (folder / entry["file"]).write_bytes(r1cs_to_bytes(stmt.build()[0]))
        entries.append(entry)
    (folder / "manifest.json").write_text(json.dumps({"statements": entries}, indent=1) + "\n")
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
    return problems


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


def load_keys(key_id: str, folder: Optional[Path] = None,
              say: Optional[Callable[[str], None]] = None, create: bool = True) -> ProvingKey:
    """The proving key of a registered statement, from the cache; made (and saved) if
    missing and ``create`` (else :class:`MalformedInput`). Keys in memory are shared."""
    from zkbluff.groth16.setup import setup
    from zkbluff.groth16.zkey import proving_key_from_bytes, proving_key_to_bytes

    stmt = get_statement(key_id)
    folder = folder or key_dir()
    cache_key = (str(folder), stmt.key_id)
    with _LOCK:
        if cache_key in _LOADED:
            return _LOADED[cache_key]
        system, _ = stmt.build()
        path = folder / (file_stem(stmt.key_id) + f".{system.fingerprint()[:16]}.pk")
        if path.exists():
            pk = proving_key_from_bytes(path.read_bytes(), str(path))
        elif not create:
            raise MalformedInput(f"no keys for {stmt.key_id} in {folder}: run `zkbluff circuits setup`")
        else:
            _announce(f"zkbluff: making proving keys in {folder} (once per statement; set ZKBLUFF_KEY_DIR to move)",
                      say)
            pk = setup(system)
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(proving_key_to_bytes(pk))
            tmp.replace(path)
            (folder / (file_stem(stmt.key_id) + ".vk.json")).write_text(json.dumps(pk.vk.to_json(), indent=1))
        _LOADED[cache_key] = pk
        return pk


def verifying_key(key_id: str, folder: Optional[Path] = None, create: bool = True) -> VerifyingKey:
    return load_keys(key_id, folder, create=create).vk
