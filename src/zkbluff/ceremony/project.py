"""The project's pinned keys: one ceremony for every statement of the registry.

Files under ``circuits/keys/`` (committed):

* ``phase1.ptau`` - Powers of Tau at the smallest power that fits every statement,
  with at least two contributions and a final beacon, prepared for phase 2 (a
  standard snarkjs file: ``snarkjs powersoftau verify`` checks it);
* per statement ``<stem>.phase2`` - the *compact* phase-2 key (a ``.zkey`` holding
  only what the ceremony made: header, IC, C, H and the contribution record; the rest
  is rebuilt from the ``.r1cs`` and the ``.ptau``; ``zkbluff ceremony export`` writes
  the full ``.zkey``), and ``<stem>.vk.json`` (snarkjs's verification key);
* ``ceremony.json`` - the record: who contributed, every hash, the beacon's value,
  its source and its iteration exponent, how long it took.

``circuits/manifest.json`` pins, under ``keys``, each verifying key's fingerprint and
the fingerprint of the circuit it was made for.

This module takes the circuits as ``{key id: R1CS}`` (the statements layer passes
its registry); it knows nothing of the statements themselves.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Optional

from zkbluff.circuit.builder import R1CS
from zkbluff.curve import Backend, get_backend
from zkbluff.errors import InvalidCeremony, MalformedInput
from zkbluff.groth16.keys import VerifyingKey

if TYPE_CHECKING:
    from zkbluff.ceremony.phase2 import Zkey
    from zkbluff.ceremony.ptau import Ptau

# phase2 and ptau are imported where they are used: a verifier reading the pins and the
# verifying keys (the common case) needs neither (~100 ms of imports)

Say = Optional[Callable[[str], None]]
KEYS_DIR = "keys"
PTAU_NAME = "phase1.ptau"
RECORD_NAME = "ceremony.json"
DEFAULT_CONTRIBUTIONS = 2
DEFAULT_ITERATIONS_EXP = 12
COMMAND = "zkbluff ceremony project"


def registry_dir() -> Path:
    """The registry whose manifest pins the keys every party trusts and proves with: the one
    that belongs to *this* package, never a folder found where the command runs (a house
    that ships a ``circuits/`` beside its transcript does not choose the trust root). It is
    the source checkout's ``circuits/`` when the package is imported from a checkout
    (``<checkout>/src/zkbluff``), else the copy an install carries inside the package
    (``zkbluff/registry/``, setup.py). Another registry is trusted only when passed
    explicitly (``folder=``, ``--keys DIR``, ``--dir``)."""
    package = Path(__file__).resolve().parents[1]
    if package.parent.name == "src":
        checkout = package.parents[1] / "circuits"
        if (checkout / "manifest.json").exists():
            return checkout
    return package / "registry"


def working_registry_dir() -> Path:
    """The registry ``zkbluff circuits build``/``check`` write and compare (a lock-file check,
    never a trust root): ``./circuits`` when the current folder is a checkout that has one,
    else :func:`registry_dir`. Nothing that verifies or proves reads it."""
    here = Path.cwd() / "circuits"
    if (here / "manifest.json").exists():
        return here
    return registry_dir()


def file_stem(key_id: str) -> str:
    return key_id.replace("@", "__").replace(",", "_").replace("=", "-")


def _keys(folder: Path) -> Path:
    return folder / KEYS_DIR


def read_manifest(folder: Path) -> dict:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise MalformedInput(f"{folder}/manifest.json cannot be read: {exc}") from None


def pinned_keys(folder: Optional[Path] = None) -> dict[str, dict]:
    """``{key id: {"vk_fingerprint", "r1cs_fingerprint"[, "query_sha256", "zkey_sha256"]}}``
    from the manifest (the digests of the shipped queries and of the full key, see
    :mod:`zkbluff.ceremony.queries`)."""
    pins = read_manifest(folder or registry_dir()).get("keys", {})
    if not isinstance(pins, dict):
        raise MalformedInput("manifest.json: 'keys' must be an object")
    return pins


def resolve_pinned_id(name: str, folder: Optional[Path] = None) -> str:
    """The registry id ``name`` stands for, from the manifest alone (no circuit is built or
    imported): itself when registered, else a bare statement name's first registered
    parameter set (as :func:`zkbluff.statements.get_statement` resolves it; the manifest
    lists the statements in the registry's order, ``zkbluff circuits check`` keeps it so)."""
    manifest = read_manifest(folder or registry_dir())
    try:
        ids = [e["id"] for e in manifest["statements"]]
    except (KeyError, TypeError):
        raise MalformedInput("manifest.json: 'statements' must list objects with an 'id'") from None
    if name in ids:
        return name
    for key_id in ids:
        if key_id.split("@")[0] == name:
            return key_id
    from zkbluff.errors import unknown_statement

    raise MalformedInput(unknown_statement(name, ids))


def pinned_vk(key_id: str, folder: Optional[Path] = None) -> VerifyingKey:
    """The pinned verifying key of ``key_id`` (its file checked against the manifest's pin)."""
    folder = folder or registry_dir()
    pins = pinned_keys(folder)
    if key_id not in pins:
        raise MalformedInput(f"no pinned key for {key_id} in {folder}/manifest.json: run `{COMMAND}`")
    path = _keys(folder) / f"{file_stem(key_id)}.vk.json"
    try:
        vk = VerifyingKey.from_json(json.loads(path.read_text()))
    except (OSError, ValueError) as exc:
        raise MalformedInput(f"{path}: {exc}") from None
    if vk.fingerprint() != pins[key_id]["vk_fingerprint"]:
        raise InvalidCeremony(f"{path}: fingerprint {vk.fingerprint()[:16]} is not the pinned "
                              f"{pins[key_id]['vk_fingerprint'][:16]}")
    return vk


_PTAU_CACHE: dict[tuple[str, float], "Ptau"] = {}


def project_ptau(folder: Optional[Path] = None) -> Ptau:
    from zkbluff.ceremony.ptau import read_ptau

    path = _keys(folder or registry_dir()) / PTAU_NAME
    try:
        stamp = (str(path), path.stat().st_mtime)
    except OSError:
        raise MalformedInput(f"{path} is missing: run `{COMMAND}`") from None
    if stamp not in _PTAU_CACHE:
        _PTAU_CACHE.clear()
        _PTAU_CACHE[stamp] = read_ptau(path)
    return _PTAU_CACHE[stamp]


def read_compact(key_id: str, system: R1CS, folder: Optional[Path] = None) -> Zkey:
    from zkbluff.ceremony.phase2 import compact_from_bytes

    path = _keys(folder or registry_dir()) / f"{file_stem(key_id)}.phase2"
    try:
        data = path.read_bytes()
    except OSError:
        raise MalformedInput(f"{path} is missing: run `{COMMAND}`") from None
    return compact_from_bytes(data, str(path), system)


def read_queries(key_id: str, system: R1CS, folder: Optional[Path] = None):
    """The pinned key's shipped A, B1, B2 queries (:mod:`zkbluff.ceremony.queries`), or
    None when the manifest pins none for it or the file is missing; a file that is not
    the pinned one is refused (:class:`InvalidCeremony`), never decoded."""
    from zkbluff.ceremony.queries import SUFFIX, query_from_bytes

    folder = folder or registry_dir()
    digest = pinned_keys(folder).get(key_id, {}).get("query_sha256")
    path = _keys(folder) / f"{file_stem(key_id)}{SUFFIX}"
    if not digest or not path.exists():
        return None
    try:
        return query_from_bytes(path.read_bytes(), system.n_wires, str(path), digest)
    except (OSError, MalformedInput) as exc:
        raise InvalidCeremony(f"{path}: not the pinned queries of {key_id} ({exc}): reinstall, or run "
                              f"`{COMMAND}`") from None


def project_key(key_id: str, system: R1CS, folder: Optional[Path] = None, backend: Optional[Backend] = None,
                rebuild: bool = False, queries=None) -> Zkey:
    """The full pinned key of ``key_id`` for ``system``: the compact file over the shipped
    queries (no phase 1 read, no MSM; ``queries`` when the caller read them already), or
    with ``rebuild`` (or no shipped queries) over the A, B1, B2 rebuilt from the circuit
    and phase 1; refuses a circuit whose fingerprint is not the pinned one."""
    from zkbluff.ceremony.phase2 import expand_compact, expand_with_queries

    folder = folder or registry_dir()
    pins = pinned_keys(folder)
    if key_id not in pins:
        raise MalformedInput(f"no pinned key for {key_id}: run `{COMMAND}`")
    if pins[key_id]["r1cs_fingerprint"] != system.fingerprint():
        raise InvalidCeremony(f"the pinned key for {key_id} was made for another version of its circuit: "
                              f"run `{COMMAND}`")
    compact = read_compact(key_id, system, folder)
    if queries is None and not rebuild:
        queries = read_queries(key_id, system, folder)
    if queries is not None:
        zk = expand_with_queries(compact, system, queries)
    else:
        zk = expand_compact(compact, system, project_ptau(folder), backend)
    if zk.vk.fingerprint() != pins[key_id]["vk_fingerprint"]:
        raise InvalidCeremony(f"the pinned key file for {key_id} does not give the pinned fingerprint")
    return zk


def zkey_digest(zk: Zkey) -> str:
    """SHA-256 of the proving key's ``.zkey`` bytes without the ceremony record (section 1
    of zkbluff's proving-key file, the cache :func:`zkbluff.statements.keys.load_keys` keeps)."""
    from zkbluff.groth16.zkey import zkey_to_bytes

    return hashlib.sha256(zkey_to_bytes(zk.pk)).hexdigest()


def ship_queries(key_id: str, zk: Zkey, folder: Path) -> dict[str, str]:
    """Write ``zk``'s A, B1, B2 queries to ``folder/keys/<stem>.query``; returns the pins
    to add (``query_sha256`` and ``zkey_sha256``)."""
    from zkbluff.ceremony.queries import SUFFIX, query_bytes, query_digest

    data = query_bytes(zk.pk.a_query, zk.pk.b_g1_query, zk.pk.b_g2_query)
    path = _keys(folder) / f"{file_stem(key_id)}{SUFFIX}"
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return {"query_sha256": query_digest(data), "zkey_sha256": zkey_digest(zk)}


def pin_shipped_queries(circuits: Mapping[str, R1CS], folder: Path, backend: Optional[Backend] = None,
                        say: Say = None) -> list[str]:
    """For every pinned key without shipped queries (or whose file is not its pin): rebuild
    its A, B1, B2 from phase 1, write the ``.query`` file and pin its digests. The keys
    themselves (and their verifying keys) do not change. Returns the ids it wrote."""
    say = say or (lambda _m: None)
    written = []
    for key_id in sorted(circuits):
        try:
            if read_queries(key_id, circuits[key_id], folder) is not None:
                continue
        except InvalidCeremony:
            pass
        say(f"queries: {key_id}")
        zk = project_key(key_id, circuits[key_id], folder, backend, rebuild=True)
        manifest = read_manifest(folder)  # re-read: pins of one key at a time, each written at once
        manifest["keys"][key_id].update(ship_queries(key_id, zk, folder))
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        written.append(key_id)
    return written


# ------------------------------------------------------------------ running the ceremony
def _vk_file_fingerprint(path: Path) -> Optional[str]:
    try:
        return VerifyingKey.from_json(json.loads(path.read_text())).fingerprint()
    except (OSError, ValueError):
        return None


def default_beacon(circuits: Mapping[str, R1CS], challenge: bytes) -> tuple[bytes, str]:
    """A beacon value nobody chose: SHA-256 of the circuits' fingerprints and the last
    phase-1 challenge (so it is fixed only after the contributions). Returns the value
    and how it was made, for the record."""
    h = hashlib.sha256(b"zkbluff project beacon v1\n")
    for key_id in sorted(circuits):
        h.update(f"{key_id} {circuits[key_id].fingerprint()}\n".encode())
    h.update(challenge)
    return h.digest(), ("sha256('zkbluff project beacon v1\\n' + one line 'id fingerprint' per statement, "
                        "sorted + the phase-1 challenge before the beacon)")


@dataclass
class CeremonyResult:
    power: int
    phase1_reused: bool
    made: list[str]
    kept: list[str]
    seconds: float


def run_project_ceremony(circuits: Mapping[str, R1CS], folder: Path, contributions: int = DEFAULT_CONTRIBUTIONS,
                         beacon: Optional[bytes] = None, iterations_exp: int = DEFAULT_ITERATIONS_EXP,
                         fresh: bool = False, redo_all: bool = False, names: Optional[list[str]] = None,
                         backend: Optional[Backend] = None, say: Say = None) -> CeremonyResult:
    """Make (or bring up to date) the pinned keys under ``folder/keys``.

    Phase 1 is kept when it exists, verifies and is large enough (unless ``fresh``);
    else a new one is made at the smallest power that fits every circuit: ``contributions``
    contributions (secrets from the OS, dropped), a beacon, phase-2 preparation. Each
    statement's key is kept when its circuit and phase 1 are unchanged (unless
    ``redo_all``), else made anew the same way. Keys of unchanged statements stay the
    same, so old transcripts keep verifying. Writes the files, then the manifest pins."""
    from zkbluff.ceremony.phase2 import circuit_power, compact_bytes, zkey_beacon, zkey_contribute, zkey_new
    from zkbluff.ceremony.ptau import (
        ptau_beacon, ptau_contribute, ptau_new, ptau_prepare, ptau_verify, read_ptau, write_ptau,
    )

    t0 = time.perf_counter()
    be = backend or get_backend()
    say = say or (lambda _m: None)
    if contributions < 2:
        raise MalformedInput(f"the project ceremony needs at least two contributions, got {contributions}")
    names = names or [f"zkbluff project contribution {i + 1}" for i in range(contributions)]
    if len(names) != contributions:
        raise MalformedInput(f"got {len(names)} contributor names for {contributions} contributions")
    kdir = _keys(folder)
    kdir.mkdir(parents=True, exist_ok=True)
    need = max((circuit_power(s) for s in circuits.values()), default=1)
    manifest = read_manifest(folder)
    old_pins = manifest.get("keys", {}) if not redo_all else {}
    old_record = {}
    try:
        old_record = json.loads((kdir / RECORD_NAME).read_text())
    except (OSError, ValueError):
        pass
    pt: Optional[Ptau] = None
    reused = False
    if not fresh and (kdir / PTAU_NAME).exists():
        try:
            cand = read_ptau(kdir / PTAU_NAME)
            if cand.power >= need and cand.prepared:
                say(f"phase 1: verifying the existing 2^{cand.power}")
                ptau_verify(cand, be)
                pt, reused = cand, True
        except (MalformedInput, InvalidCeremony) as exc:
            say(f"phase 1: the existing file is unusable ({exc}); making a new one")
    phase1_beacon = old_record.get("phase1", {}).get("beacon") if reused else None
    if pt is None:
        say(f"phase 1: new at 2^{need}")
        pt = ptau_new(need)
        for name in names:
            say(f"phase 1: contribution '{name}'")
            pt = ptau_contribute(pt, name, be)
        value, source = (beacon, "given on the command line") if beacon else default_beacon(circuits,
                                                                                           pt.challenge_hash())
        say(f"phase 1: beacon {value.hex()} (2^{iterations_exp} SHA-256 iterations)")
        pt = ptau_beacon(pt, value, iterations_exp, "zkbluff project beacon", be)
        say("phase 1: preparing phase 2")
        pt = ptau_prepare(pt, be)
        write_ptau(kdir / PTAU_NAME, pt)
        phase1_beacon = {"value": value.hex(), "iterations_exp": iterations_exp, "source": source}
        old_pins = {}  # every key depends on phase 1
    ptau_hash = pt.contributions[-1].next_challenge.hex()
    pins, made, kept, statements = {}, [], [], {}
    for key_id in sorted(circuits):
        system = circuits[key_id]
        stem = file_stem(key_id)
        old = old_pins.get(key_id)
        prev = old_record.get("statements", {}).get(key_id, {})
        if (old and old.get("r1cs_fingerprint") == system.fingerprint() and prev.get("phase1") == ptau_hash
                and (kdir / f"{stem}.phase2").exists() and _vk_file_fingerprint(kdir / f"{stem}.vk.json")
                == old.get("vk_fingerprint")):  # (an interrupted run may have rewritten the files)
            pins[key_id] = old
            statements[key_id] = prev
            kept.append(key_id)
            continue
        say(f"phase 2: {key_id}")
        zk = zkey_new(system, pt, be)
        for name in names:
            zk = zkey_contribute(zk, name, be)
        value, source = (beacon, "given on the command line") if beacon else default_beacon(
            {key_id: system}, zk.contributions[-1].transcript)
        zk = zkey_beacon(zk, value, iterations_exp, "zkbluff project beacon", be)
        (kdir / f"{stem}.phase2").write_bytes(compact_bytes(zk))
        (kdir / f"{stem}.vk.json").write_text(json.dumps(zk.vk.to_json(), indent=1) + "\n")
        pins[key_id] = {"vk_fingerprint": zk.vk.fingerprint(), "r1cs_fingerprint": system.fingerprint(),
                        **ship_queries(key_id, zk, folder)}
        statements[key_id] = {
            "phase1": ptau_hash, "circuit_hash": zk.cs_hash.hex(),
            "contributions": [{"name": c.name, "beacon": c.params.type == 1, "hash": c.contribution_hash.hex()}
                              for c in zk.contributions],
            "beacon": {"value": value.hex(), "iterations_exp": iterations_exp, "source": source},
        }
        made.append(key_id)
    for key_id in set(old_record.get("statements", {})) - set(circuits):
        for suffix in (".phase2", ".vk.json", ".query"):
            (kdir / f"{file_stem(key_id)}{suffix}").unlink(missing_ok=True)
    seconds = time.perf_counter() - t0
    record = {
        "command": COMMAND,
        "power": pt.power,
        "phase1": {
            "file": PTAU_NAME, "sha256": hashlib.sha256((kdir / PTAU_NAME).read_bytes()).hexdigest(),
            "challenge": ptau_hash, "beacon": phase1_beacon,
            "contributions": [{"name": c.name, "beacon": c.params.type == 1, "response_hash": c.response_hash.hex(),
                               "next_challenge": c.next_challenge.hex()} for c in pt.contributions],
        },
        "statements": statements,
        "last_run": {"made": made, "kept": kept, "seconds": round(seconds, 1)},
    }
    (kdir / RECORD_NAME).write_text(json.dumps(record, indent=1) + "\n")
    manifest = read_manifest(folder)
    manifest["keys"] = pins
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    pin_shipped_queries(circuits, folder, be, say)  # kept keys made before the queries were shipped
    return CeremonyResult(pt.power, reused, made, kept, seconds)


# ------------------------------------------------------------------ verifying it
@dataclass
class ProjectReport:
    power: int
    phase1_contributions: list[str]
    keys: dict[str, str]
    seconds: float


def verify_project(circuits: Mapping[str, R1CS], folder: Optional[Path] = None, full: bool = False,
                   backend: Optional[Backend] = None, say: Say = None) -> ProjectReport:
    """Re-check the whole ceremony: phase 1 (chain, points, Lagrange sections, at least
    two contributions and a beacon last), then every statement's key against its
    circuit (random linear combinations; ``full`` also rebuilds each key and its
    circuit hash as snarkjs does), its record, its ``.vk.json`` and the manifest's pin.
    Raises :class:`InvalidCeremony` naming the first problem."""
    from zkbluff.ceremony.phase2 import expand_compact, zkey_new, zkey_verify, zkey_verify_fast
    from zkbluff.ceremony.ptau import ptau_verify

    t0 = time.perf_counter()
    folder = folder or registry_dir()
    be = backend or get_backend()
    say = say or (lambda _m: None)
    pt = project_ptau(folder)
    say(f"phase 1: 2^{pt.power}, {len(pt.contributions)} contributions")
    ptau_verify(pt, be)
    _require_ceremony_shape([c.params.type for c in pt.contributions], "phase 1")
    if not pt.prepared:
        raise InvalidCeremony("phase 1 is not prepared for phase 2")
    pins = pinned_keys(folder)
    keys = {}
    for key_id in sorted(circuits):
        system = circuits[key_id]
        if key_id not in pins:
            raise InvalidCeremony(f"{key_id}: no pinned key (run `{COMMAND}`)")
        if pins[key_id].get("r1cs_fingerprint") != system.fingerprint():
            raise InvalidCeremony(f"{key_id}: the circuit changed since its key was made (run `{COMMAND}`)")
        say(f"phase 2: {key_id}")
        zk = read_compact(key_id, system, folder)
        zkey_verify_fast(zk, system, pt, be)
        _require_ceremony_shape([c.params.type for c in zk.contributions], key_id)
        if full:
            init = zkey_new(system, pt, be)
            full_key = expand_compact(zk, system, pt, be, init)
            zkey_verify(full_key, system, pt, be, init=init)
            _require_shipped_queries(key_id, full_key, pins[key_id], folder)
        else:
            read_queries(key_id, system, folder)  # (its digest against the pin)
        vk = pinned_vk(key_id, folder)
        if vk != zk.vk:
            raise InvalidCeremony(f"{key_id}: the .vk.json is not the key's verifying key")
        keys[key_id] = vk.fingerprint()
    extra = set(pins) - set(circuits)
    if extra:
        raise InvalidCeremony(f"pinned keys for statements that no longer exist: {', '.join(sorted(extra))}")
    return ProjectReport(pt.power, [c.name or "" for c in pt.contributions], keys, time.perf_counter() - t0)


def _require_shipped_queries(key_id: str, full_key: Zkey, pin: dict, folder: Path) -> None:
    """The shipped ``.query`` file is byte for byte the queries rebuilt from phase 1, and the
    pinned ``zkey_sha256`` is the rebuilt key's (a registry that ships none passes)."""
    from zkbluff.ceremony.queries import SUFFIX, query_bytes

    path = _keys(folder) / f"{file_stem(key_id)}{SUFFIX}"
    if not pin.get("query_sha256") and not path.exists():
        return
    rebuilt = query_bytes(full_key.pk.a_query, full_key.pk.b_g1_query, full_key.pk.b_g2_query)
    try:
        shipped = path.read_bytes()
    except OSError:
        raise InvalidCeremony(f"{key_id}: its queries are pinned but {path.name} is missing") from None
    if shipped != rebuilt:
        raise InvalidCeremony(f"{key_id}: {path.name} is not the A, B1, B2 queries rebuilt from phase 1")
    if hashlib.sha256(rebuilt).hexdigest() != pin.get("query_sha256"):
        raise InvalidCeremony(f"{key_id}: the manifest's query_sha256 is not its rebuilt queries' digest")
    if zkey_digest(full_key) != pin.get("zkey_sha256"):
        raise InvalidCeremony(f"{key_id}: the manifest's zkey_sha256 is not the rebuilt key's digest")


def _require_ceremony_shape(types: list[int], what: str) -> None:
    if types.count(0) < 2 or not types or types[-1] != 1:
        raise InvalidCeremony(f"{what}: expected at least two contributions and a beacon last, got "
                              f"{['beacon' if t else 'random' for t in types]}")

