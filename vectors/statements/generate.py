"""Builds and checks vectors/statements/<statement>.json: one file per registered statement
and parameter set (see README.md in this folder for the format and the flags).

    python vectors/statements/generate.py            # (re)build: prove only what changed
    python vectors/statements/generate.py --check    # regenerate without proving and diff
    python vectors/statements/generate.py --verify   # zkbluff checks every committed vector

What is deterministic (inputs' publics, the witness's hash, every tampered-witness case and
the constraint it breaks, the cases and their order) is a function of the inputs stored in
the file, the statement's code and the committed circuits/; ``--check`` rebuilds it from the
committed files and fails on any difference. Proofs are randomised: a build keeps the
committed ones while the statement's circuit and pinned key are unchanged, and proves
afresh (under the pinned project key) only for a new or changed statement; they are
checked (zkbluff and snarkjs verify them), never regenerated in CI.

Run from the repository root (make vectors). The loader and checks are
tests/repo/test_statement_vectors.py; snarkjs's side is snarkjs_check.cjs beside this file.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional

from zkbluff.circuit.builder import R1CS, check, lc_value
from zkbluff.circuit.formats import wtns_to_bytes
from zkbluff.errors import InvalidProof, MalformedInput, UnsatisfiedConstraint, ZkbluffError
from zkbluff.field import r
from zkbluff.groth16 import Proof, VerifyingKey, public_from_json, public_to_json, verify
from zkbluff.statements import all_statements
from zkbluff.statements.base import Statement
from zkbluff.statements.keys import file_stem

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "vectors" / "statements"
CIRCUITS = ROOT / "circuits"
GENERATOR = "vectors/statements/generate.py"
SCHEMA_VERSION = 1
ALGORITHM = "zkbluff-statement-groth16-bn254"
#: at most this many private inputs get a tampered-witness case
MAX_PRIVATE_CASES = 4
#: the "proof of another statement" case presents a valid proof of a statement of the shared
#: catalog (never one a game folder holds, never chosen by registry order): the one the
#: committed file names while it is still a shared statement, else ANCHOR (ANCHOR's own file:
#: ANCHOR_OTHER). Adding, moving or removing a game's statement rewrites no other file.
ANCHOR = "card.play.v1@deck=52,max_play=4"
ANCHOR_OTHER = "card.claim.v1@deck=52"

HEADER = [
    "Conformance vectors for one zkbluff statement (Groth16 over BN254, snarkjs JSON shapes).",
    "inputs: the native inputs (decimal strings); public: the public inputs the native twin computes",
    "from them, in the order of publicInputs. kind 'proof': verify proof against public under the",
    "verification key named by file and fingerprint (the pinned project key); result is the verdict",
    "(zkbluff and snarkjs groth16 verify agree on every case). kind 'witness': the witness computed",
    "from inputs (its .wtns SHA-256 is witnessSha256), with tamper applied (wire index, set to value);",
    "result is whether it satisfies the committed .r1cs, and failingConstraint the first constraint",
    "it breaks (index as snarkjs wtns check counts, and zkbluff's constraint name).",
]

NOTES = {
    "Valid": "an honest case: the proof verifies / the witness satisfies every constraint",
    "WrongPublicInput": "a valid proof with one public input changed (its low bit flipped)",
    "ProofForAnotherContext": "a valid proof of the same inputs in another context (otherContext), "
                              "presented with this context: a proof cannot be replayed in another turn or match",
    "ProofOfAnotherStatement": "a valid proof of another statement (proofFrom) presented with these public inputs",
    "WitnessRejected": "a witness that is tampered in one wire: the constraint system rejects it "
                       "(failingConstraint), so no proof of it exists",
    "LyingPublic": "the tampered wire is a public input: the witness claims a public value (a verdict, a "
                   "count, a commitment, the context) that the private inputs do not give",
    "PublicNotRead": "the tampered wire is a public input this witness does not read (a commitment at a "
                     "position the hand did not choose): the statement holds for any value of it, so the witness "
                     "is still valid (a proof binds every public input all the same: see WrongPublicInput)",
    "TamperedPrivate": "the tampered wire belongs to a private input (a card bit, a salt, an entropy)",
}


# ----------------------------------------------------------------------------- helpers

def spread(n: int, cap: int) -> list[int]:
    """``range(n)`` when ``n <= cap``, else ``cap`` indices evenly spread, first and last kept."""
    if n <= cap:
        return list(range(n))
    return sorted({round(i * (n - 1) / (cap - 1)) for i in range(cap)})


def chosen_publics(names: list[str]) -> list[int]:
    """The public inputs that get a "changed" proof case and a lying-witness case each:
    every one, except that of a numbered family of more than two (``commitment0`` ..
    ``commitment51``, ``entropy0_commitment`` ..) only the first and the last."""
    families: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        families.setdefault(re.sub(r"[0-9]+", "#", name), []).append(i)
    keep = set()
    for members in families.values():
        keep.update(members if len(members) <= 2 else (members[0], members[-1]))
    return sorted(keep)


def flip(v: int) -> int:
    """A value that differs from ``v`` in its lowest bit (staying below r)."""
    return v ^ 1 if v ^ 1 < r else v - 1


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def vector_path(key_id: str, folder: Path = HERE) -> Path:
    return folder / f"{file_stem(key_id)}.json"


def r1cs_rel(key_id: str) -> str:
    return f"circuits/{file_stem(key_id)}.r1cs"


def vk_rel(key_id: str) -> str:
    return f"circuits/keys/{file_stem(key_id)}.vk.json"


def private_wire(system: R1CS, name: str) -> Optional[int]:
    """The first wire of private input ``name``: the wire of that name, else its first
    bit (``name/...``), else a wire whose path has ``name`` as a segment; None if none."""
    names = system.wire_names
    first = system.n_public + 1
    for pred in (lambda w: w == name, lambda w: w.startswith(name + "/"),
                 lambda w: f"/{name}/" in f"/{w}/"):
        for i in range(first, len(names)):
            if pred(names[i]):
                return i
    return None


_BUILT: dict[tuple[str, str], tuple[R1CS, list[int]]] = {}
_SYSTEMS: dict[str, R1CS] = {}


def built(stmt: Statement, inputs: dict) -> tuple[R1CS, list[int]]:
    """The statement's constraint system and its witness for ``inputs``, made in one
    run of its synthesis and cached (every case of a file shares them)."""
    key = (stmt.key_id, json.dumps(inputs_to_json(inputs), sort_keys=True))
    if key not in _BUILT:
        system, witness = stmt.build(inputs)
        assert witness is not None
        _BUILT[key] = (system, witness)
        _SYSTEMS.setdefault(stmt.key_id, system)
    return _BUILT[key]


def system_of(stmt: Statement) -> R1CS:
    if stmt.key_id not in _SYSTEMS:
        _SYSTEMS[stmt.key_id] = stmt.build()[0]
    return _SYSTEMS[stmt.key_id]


def witness_of(stmt: Statement, inputs: dict) -> list[int]:
    return list(built(stmt, inputs)[1])


def registry_entry(key_id: str) -> dict:
    """The statement's entry in circuits/manifest.json (``zkbluff circuits check``, run by
    ``make test``, holds it equal to the code: its fingerprint need not be recomputed)."""
    manifest = json.loads((CIRCUITS / "manifest.json").read_text())
    for entry in manifest["statements"]:
        if entry["id"] == key_id:
            return entry
    raise MalformedInput(f"{key_id} is not in circuits/manifest.json (run `zkbluff circuits build`)")


def inputs_from_json(obj: dict) -> dict:
    return {k: int(v) for k, v in obj.items()}


def inputs_to_json(inputs: dict) -> dict:
    return {k: str(v) for k, v in inputs.items()}


def first_failing(system: R1CS, witness: list[int], wire: int) -> Optional[int]:
    """The first constraint the witness breaks, when only ``wire`` differs from a
    satisfying witness: the first of the constraints that read that wire to fail
    (None: every constraint still holds)."""
    for j, (a, b, c) in enumerate(system.constraints):
        if wire in a or wire in b or wire in c:
            if lc_value(a, witness) * lc_value(b, witness) % r != lc_value(c, witness):
                return j
    return None


def fresh_inputs(stmt: Statement) -> tuple[dict, int]:
    """Valid inputs for a new statement (tests/statement_inputs.py, seeded by the key id)
    and another context. Only a build for a new or changed statement calls this: a
    committed file keeps its inputs."""
    spec = importlib.util.spec_from_file_location("zkbluff_vector_statement_inputs",
                                                  ROOT / "tests" / "statement_inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(f"zkbluff vectors/statements {stmt.key_id}")
    inputs = module.valid_inputs(stmt, rng)
    other = rng.getrandbits(253)
    if other == inputs.get("context"):
        other = flip(other)
    return inputs, other


# ----------------------------------------------------------------------------- assembly

def assemble(stmt: Statement, inputs: dict, other_context: int, proof_a: dict, proof_b: dict,
             foreign_id: str, foreign_proof: dict) -> dict:
    """The whole vector file of ``stmt`` from its inputs and proofs (deterministic)."""
    if "context" not in stmt.public:
        raise AssertionError(f"{stmt.key_id}: no context public input")
    system, witness = built(stmt, inputs)
    circuit_file = CIRCUITS / f"{file_stem(stmt.key_id)}.r1cs"
    vk_file = ROOT / vk_rel(stmt.key_id)
    vk = VerifyingKey.from_json(json.loads(vk_file.read_text()))
    public_a = stmt.public_values(inputs)
    inputs_b = {**inputs, "context": other_context}
    public_b = stmt.public_values(inputs_b)
    check(system, witness)
    if witness[1:1 + system.n_public] != public_a:
        raise AssertionError(f"{stmt.key_id}: the witness's public wires differ from the native twin's")
    names = list(stmt.public)
    tests: list[dict] = []

    def add(case: dict) -> None:
        tests.append({"tcId": len(tests) + 1, **case})

    pub = public_to_json
    add({"kind": "proof", "comment": "valid proof of the inputs", "flags": ["Valid"], "public": pub(public_a),
         "proof": proof_a, "result": "valid"})
    add({"kind": "proof", "comment": "valid proof of the same inputs in otherContext", "flags": ["Valid"],
         "public": pub(public_b), "proof": proof_b, "result": "valid"})
    for i in chosen_publics(names):
        changed = list(public_a)
        changed[i] = flip(changed[i])
        add({"kind": "proof", "comment": f"public input {i} ({names[i]}) changed", "flags": ["WrongPublicInput"],
             "public": pub(changed), "proof": proof_a, "result": "invalid"})
    add({"kind": "proof", "comment": "the proof made for otherContext, presented in this context",
         "flags": ["ProofForAnotherContext"], "public": pub(public_a), "proof": proof_b, "result": "invalid"})
    add({"kind": "proof", "comment": f"a valid proof of {foreign_id} presented with these public inputs",
         "flags": ["ProofOfAnotherStatement"], "proofFrom": foreign_id, "public": pub(public_a),
         "proof": foreign_proof, "result": "invalid"})
    add({"kind": "witness", "comment": "the witness of the inputs, untampered", "flags": ["Valid"],
         "tamper": None, "result": "valid"})

    def tampered(wire: int, flags: list[str], comment: str) -> None:
        w = list(witness)
        w[wire] = flip(w[wire])
        j = first_failing(system, w, wire)
        if j is None:  # a public value this witness does not read (an unchosen position's commitment)
            if "LyingPublic" not in flags:
                raise AssertionError(f"{stmt.key_id}: private wire {system.wire_names[wire]} changed and every "
                                     "constraint still holds: an under-constrained wire")
            add({"kind": "witness", "comment": f"public input {system.wire_names[wire]} changed: a value this "
                 "witness does not read, the statement holds for it too", "flags": ["PublicNotRead"],
                 "tamper": {"wire": wire, "name": system.wire_names[wire], "value": str(w[wire])},
                 "result": "valid"})
            return
        add({"kind": "witness", "comment": comment, "flags": ["WitnessRejected", *flags],
             "tamper": {"wire": wire, "name": system.wire_names[wire], "value": str(w[wire])},
             "result": "invalid", "failingConstraint": {"index": j, "name": system.constraint_names[j]}})

    for i in chosen_publics(names):
        v = public_a[i]
        tampered(1 + i, ["LyingPublic"], f"the witness claims {names[i]} = {flip(v)}; the inputs give {v}"
                 if v < 1 << 64 else f"the witness claims another {names[i]} (low bit flipped) than the inputs give")
    privates = [(name, private_wire(system, name)) for name in stmt.private]
    privates = [(name, w) for name, w in privates if w is not None]
    for k in spread(len(privates), MAX_PRIVATE_CASES):
        name, wire = privates[k]
        tampered(wire, ["TamperedPrivate"], f"private input {name}: wire {system.wire_names[wire]} changed")
    prefix, version = stmt.name.rsplit(".", 1)
    return {
        "algorithm": ALGORITHM, "schemaVersion": SCHEMA_VERSION, "generator": GENERATOR, "header": HEADER,
        "notes": NOTES, "statement": stmt.key_id, "name": prefix, "version": version,
        "params": {k: (list(v) if isinstance(v, tuple) else v) for k, v in stmt.params},
        "r1cs": {"file": r1cs_rel(stmt.key_id), "fingerprint": registry_entry(stmt.key_id)["fingerprint"],
                 "sha256": sha256_file(circuit_file), "constraints": system.n_constraints,
                 "wires": system.n_wires},
        "verificationKey": {"file": vk_rel(stmt.key_id), "fingerprint": vk.fingerprint(),
                            "sha256": sha256_file(vk_file)},
        "publicInputs": names, "privateInputs": list(stmt.private),
        "inputs": inputs_to_json(inputs), "otherContext": str(other_context), "public": pub(public_a),
        "witnessSha256": hashlib.sha256(wtns_to_bytes(witness)).hexdigest(),
        "numberOfTests": len(tests), "tests": tests,
    }


def valid_proofs(doc: dict) -> tuple[dict, dict]:
    """Proofs A (the inputs) and B (otherContext) of a vector file: its two proof cases
    flagged Valid, in order (found by flag, so a hand-edited result still shows as a diff)."""
    valid = [t["proof"] for t in doc["tests"] if t["kind"] == "proof" and t["flags"] == ["Valid"]]
    if len(valid) != 2:
        raise MalformedInput(f"{doc.get('statement')}: expected 2 proof cases flagged Valid, got {len(valid)}")
    return valid[0], valid[1]


def load_committed(folder: Path = HERE) -> dict[str, dict]:
    """``{statement id: document}`` of the vector files in ``folder``."""
    docs = {}
    for path in sorted(folder.glob("*.json")):
        if path.name == "schema.json":
            continue
        doc = json.loads(path.read_text())
        docs[doc["statement"]] = doc
    return docs


def reusable(stmt: Statement, doc: Optional[dict]) -> bool:
    """Whether ``doc``'s inputs and proofs still fit ``stmt``'s circuit and pinned key."""
    if not doc:
        return False
    vk = VerifyingKey.from_json(json.loads((ROOT / vk_rel(stmt.key_id)).read_text()))
    return (doc.get("r1cs", {}).get("fingerprint") == registry_entry(stmt.key_id)["fingerprint"]
            and doc.get("verificationKey", {}).get("fingerprint") == vk.fingerprint())


def build_all(committed: dict[str, dict], prove_missing: bool, say: Callable[[str], None] = print,
              only: Optional[list[str]] = None) -> tuple[dict[str, dict], list[str]]:
    """Every registered statement's document (or those in ``only``); reuses the committed
    inputs and proofs where they fit. Without ``prove_missing`` a statement that would
    need new proofs is reported instead of proved."""
    problems: list[str] = []
    material: dict[str, tuple[dict, int, dict, dict]] = {}
    for key_id, stmt in all_statements().items():
        doc = committed.get(key_id)
        if reusable(stmt, doc):
            assert doc is not None
            a, b = valid_proofs(doc)
            material[key_id] = (inputs_from_json(doc["inputs"]), int(doc["otherContext"]), a, b)
        elif not prove_missing:
            problems.append(f"{key_id}: {'no vector file' if not doc else 'circuit or pinned key changed'} "
                            f"(run `make vectors`)")
        else:
            material[key_id] = prove_fresh(stmt, say, doc)
    docs = {}
    for key_id in material:
        if only is not None and key_id not in only:
            continue
        foreign = foreign_statement(key_id, committed.get(key_id), material)
        inputs, other, a, b = material[key_id]
        docs[key_id] = assemble(all_statements()[key_id], inputs, other, a, b, foreign, material[foreign][2])
    for key_id in committed:
        if key_id not in all_statements():
            problems.append(f"{key_id}: a vector file for a statement no longer registered")
    return docs, problems


def foreign_statement(key_id: str, doc: Optional[dict], material: dict) -> str:
    """Whose valid proof ``key_id``'s "proof of another statement" case presents (see
    :data:`ANCHOR`): a function of the statement and its committed file only."""
    stmts = all_statements()
    named = [t.get("proofFrom") for t in (doc or {}).get("tests", []) if "ProofOfAnotherStatement" in t["flags"]]
    kept = named[0] if len(named) == 1 else None
    if kept and kept != key_id and kept in stmts and stmts[kept].owner is None and kept in material:
        return kept
    anchor = ANCHOR if key_id != ANCHOR else ANCHOR_OTHER
    if anchor not in material:
        raise MalformedInput(f"{key_id}: the anchor statement {anchor} has no vector material")
    return anchor


def scratch_path() -> Path:
    """Where a build keeps the proofs it made until the files are written (an interrupted
    build resumes from it; keyed by circuit and key fingerprints)."""
    return Path(tempfile.gettempdir()) / "zkbluff-statement-vector-proofs.json"


def kept_inputs(stmt: Statement, doc: Optional[dict]) -> Optional[tuple[dict, int]]:
    """A changed statement's (or re-keyed one's) committed inputs, if they still build a
    witness: kept, so that a new key or a reworked circuit changes only what it must."""
    if not doc or "inputs" not in doc:
        return None
    try:
        inputs = inputs_from_json(doc["inputs"])
        built(stmt, inputs)
        return inputs, int(doc["otherContext"])
    except (ZkbluffError, KeyError, ValueError, TypeError):
        return None


def prove_fresh(stmt: Statement, say: Callable[[str], None],
                doc: Optional[dict] = None) -> tuple[dict, int, dict, dict]:
    from zkbluff.groth16 import prove
    from zkbluff.statements.keys import load_keys

    scratch = scratch_path()
    vk = VerifyingKey.from_json(json.loads((ROOT / vk_rel(stmt.key_id)).read_text()))
    tag = f"{stmt.key_id}|{registry_entry(stmt.key_id)['fingerprint']}|{vk.fingerprint()}"
    try:
        saved = json.loads(scratch.read_text())
    except (OSError, ValueError):
        saved = {}
    inputs, other = kept_inputs(stmt, doc) or fresh_inputs(stmt)
    if tag in saved and saved[tag]["inputs"] == inputs_to_json(inputs):
        a, b = saved[tag]["proofs"]
        return inputs, other, a, b
    say(f"proving {stmt.key_id} under its pinned key")
    pk = load_keys(stmt.key_id)
    proofs = []
    for inp in (inputs, {**inputs, "context": other}):
        proof = prove(pk, stmt.witness(inp))
        verify(pk.vk, stmt.public_values(inp), proof)
        proofs.append(proof.to_json())
    saved[tag] = {"inputs": inputs_to_json(inputs), "proofs": proofs}
    scratch.write_text(json.dumps(saved))
    return inputs, other, proofs[0], proofs[1]


def dumps(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def diff(committed: dict[str, dict], rebuilt: dict[str, dict]) -> list[str]:
    """What differs between committed and regenerated documents (empty when equal)."""
    out = []
    for key_id, doc in rebuilt.items():
        old = committed.get(key_id)
        if old is None:
            out.append(f"{key_id}: no committed vector file")
            continue
        if dumps(old) != dumps(doc):
            keys = [k for k in doc if old.get(k) != doc[k]] + [k for k in old if k not in doc]
            detail = ", ".join(keys)
            if "tests" in keys and len(old.get("tests", [])) == len(doc["tests"]):
                ids = [t["tcId"] for t, u in zip(doc["tests"], old["tests"]) if t != u]
                detail += f" (tcId {', '.join(map(str, ids))})"
            out.append(f"{key_id}: the committed file differs from the regenerated one in {detail}")
    return out


# ----------------------------------------------------------------------------- zkbluff's check

def proof_verdict(vk: VerifyingKey, case: dict) -> str:
    try:
        verify(vk, public_from_json(case["public"]), Proof.from_json(case["proof"]))
        return "valid"
    except (InvalidProof, MalformedInput):
        return "invalid"


def tampered_witness(stmt: Statement, doc: dict, case: dict) -> list[int]:
    """The witness of a witness case: computed from the document's inputs, tamper applied."""
    w = witness_of(stmt, inputs_from_json(doc["inputs"]))
    if case["tamper"] is not None:
        w[case["tamper"]["wire"]] = int(case["tamper"]["value"])
    return w


def check_doc(doc: dict, folder: Path = ROOT) -> list[str]:
    """zkbluff's verdict on every case of a vector document against the committed
    circuits/ files; each disagreement is a line (an empty list: all agree).

    Proof cases: :func:`zkbluff.groth16.verify` under the named verification key.
    Witness cases: the untampered witness is checked with :func:`zkbluff.circuit.check`
    (every constraint) against the statement's constraint system, which is the committed
    ``.r1cs`` (the file's SHA-256 is the one recorded, and ``zkbluff circuits check`` holds
    the file equal to the code; snarkjs reads the file itself); a witness that differs from it in one
    wire can only break the constraints that read that wire, so the first of those to
    fail is its first failing constraint."""
    problems: list[str] = []
    key_id = doc.get("statement")
    stmts = all_statements()
    if key_id not in stmts:
        return [f"{key_id}: not a registered statement"]
    stmt = stmts[key_id]
    r1cs_path = folder / doc["r1cs"]["file"]
    if sha256_file(r1cs_path) != doc["r1cs"]["sha256"]:
        problems.append(f"{key_id}: {doc['r1cs']['file']} is not the file the vectors were made for (SHA-256)")
    vk = VerifyingKey.from_json(json.loads((folder / doc["verificationKey"]["file"]).read_text()))
    if vk.fingerprint() != doc["verificationKey"]["fingerprint"]:
        problems.append(f"{key_id}: {doc['verificationKey']['file']} has fingerprint {vk.fingerprint()}, "
                        f"the vectors expect {doc['verificationKey']['fingerprint']}")
    inputs = inputs_from_json(doc["inputs"])
    if public_to_json(stmt.public_values(inputs)) != doc["public"]:
        problems.append(f"{key_id}: the native twin computes other public inputs than 'public'")
    circuit, witness = built(stmt, inputs)
    if hashlib.sha256(wtns_to_bytes(witness)).hexdigest() != doc["witnessSha256"]:
        problems.append(f"{key_id}: the witness of the inputs has another SHA-256 than witnessSha256")
    try:
        check(circuit, witness)
        honest_ok = True
    except (UnsatisfiedConstraint, MalformedInput) as exc:
        honest_ok = False
        problems.append(f"{key_id}: the witness of the inputs does not satisfy {doc['r1cs']['file']}: {exc}")
    for case in doc["tests"]:
        where = f"{key_id} tcId {case['tcId']} ({case['comment']})"
        if case["kind"] == "proof":
            ours = proof_verdict(vk, case)
            if ours != case["result"]:
                problems.append(f"{where}: zkbluff says {ours}, the vector says {case['result']}")
            continue
        if not honest_ok:
            continue
        failing: Optional[dict] = None
        tamper = case["tamper"]
        if tamper is not None:
            w = tampered_witness(stmt, doc, case)
            if not (isinstance(tamper["wire"], int) and 0 < tamper["wire"] < len(w) and 0 <= w[tamper["wire"]] < r):
                problems.append(f"{where}: malformed tamper {tamper}")
                continue
            j = first_failing(circuit, w, tamper["wire"])
            if j is not None:
                failing = {"index": j, "name": stmt_constraint_name(stmt, j)}
        ours = "valid" if failing is None else "invalid"
        if ours != case["result"]:
            problems.append(f"{where}: zkbluff says {ours}, the vector says {case['result']}")
        elif failing != case.get("failingConstraint"):
            problems.append(f"{where}: zkbluff finds the first failing constraint {failing}, "
                            f"the vector says {case.get('failingConstraint')}")
    return problems


def stmt_constraint_name(stmt: Statement, index: int) -> str:
    """The name of constraint ``index`` (the committed .r1cs carries no names: the code's)."""
    return system_of(stmt).constraint_names[index]


# ----------------------------------------------------------------------------- snarkjs's check

def snarkjs_job(docs: dict[str, dict], workdir: Path, folder: Path = ROOT,
                keep: Callable[[dict, dict], bool] = lambda doc, case: True) -> dict:
    """The batch for snarkjs_check.cjs: every proof case (that ``keep(doc, case)``) to
    verify, every witness case written as a .wtns to check against its committed .r1cs.
    Ids are ``statement#tcId``."""
    from zkbluff.circuit.formats import write_wtns

    verify_jobs, wtns_jobs = [], []
    for key_id, doc in docs.items():
        stmt = all_statements()[key_id]
        vk_path = str(folder / doc["verificationKey"]["file"])
        for case in doc["tests"]:
            if not keep(doc, case):
                continue
            cid = f"{key_id}#{case['tcId']}"
            if case["kind"] == "proof":
                verify_jobs.append({"id": cid, "vk": vk_path, "public": case["public"], "proof": case["proof"]})
            else:
                path = workdir / f"{file_stem(key_id)}.{case['tcId']}.wtns"
                write_wtns(path, tampered_witness(stmt, doc, case))
                wtns_jobs.append({"id": cid, "r1cs": str(folder / doc["r1cs"]["file"]), "wtns": str(path)})
    return {"verify": verify_jobs, "wtns": wtns_jobs}


def compare_snarkjs(docs: dict[str, dict], results: dict[str, Any]) -> list[str]:
    """Where snarkjs's verdicts (``{id: {"ok": bool, "constraint": int | None}}``) differ
    from the documents' results and failing constraints."""
    problems = []
    for key_id, doc in docs.items():
        for case in doc["tests"]:
            cid = f"{key_id}#{case['tcId']}"
            got = results.get(cid)
            if got is None:
                problems.append(f"{cid}: snarkjs gave no verdict")
                continue
            theirs = "valid" if got["ok"] else "invalid"
            if theirs != case["result"]:
                problems.append(f"{cid} ({case['comment']}): snarkjs says {theirs}, the vector says {case['result']}")
            elif case["kind"] == "witness" and case["result"] == "invalid":
                want = (case.get("failingConstraint") or {}).get("index")
                if got.get("constraint") != want:
                    problems.append(f"{cid}: snarkjs wtns check stops at constraint {got.get('constraint')}, "
                                    f"the vector says {want}")
    return problems


# ----------------------------------------------------------------------------- command

def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="regenerate without proving and diff with the files")
    ap.add_argument("--verify", action="store_true", help="zkbluff checks every case of the committed files")
    args = ap.parse_args(argv)
    committed = load_committed()
    if args.verify:
        problems = [p for doc in committed.values() for p in check_doc(doc)]
        print("\n".join(problems) or f"zkbluff agrees with every case of {len(committed)} files")
        return 1 if problems else 0
    if args.check:
        docs, problems = build_all(committed, prove_missing=False)
        problems += diff(committed, docs)
        print("\n".join(problems) or f"{len(docs)} vector files regenerate identically")
        return 1 if problems else 0
    docs, problems = build_all(committed, prove_missing=True)
    for key_id, doc in docs.items():
        path = vector_path(key_id)
        text = dumps(doc)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    for key_id in committed:
        if key_id not in all_statements():
            vector_path(key_id).unlink()
            print(f"removed {vector_path(key_id).relative_to(ROOT)} (no longer registered)")
    cases = sum(d["numberOfTests"] for d in docs.values())
    print(f"{len(docs)} files, {cases} cases")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ZkbluffError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
