"""vectors/statements/: one conformance file per registered statement, checked by zkbluff
and by snarkjs, regenerated (all but the proofs) and diffed, validated against its schema;
a hand-edited verdict fails."""
from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from zkbluff.statements import all_statements
from zkbluff.statements.keys import file_stem
from repo_root import REPO_ROOT

FOLDER = REPO_ROOT / "vectors" / "statements"
_spec = importlib.util.spec_from_file_location("zkbluff_statement_vectors", FOLDER / "generate.py")
assert _spec is not None and _spec.loader is not None
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

DOCS = gen.load_committed()
SCHEMA = json.loads((FOLDER / "schema.json").read_text())
#: witness cases of circuits up to this size are checked by snarkjs in every run; the rest
#: (the deal, permutation and pick circuits: snarkjs wtns check evaluates ~20k constraints
#: a second) in the slow test
SMALL = 1000


# ----------------------------------------------------------------------------- a small JSON Schema validator

KNOWN = {"$schema", "$id", "title", "$defs", "$ref", "type", "required", "properties", "additionalProperties",
         "items", "minItems", "maxItems", "enum", "const", "pattern", "minimum", "oneOf"}
TYPES = {"object": dict, "array": list, "string": str, "null": type(None), "boolean": bool}


def validate(value, schema: dict, root: dict, where: str = "$") -> list[str]:
    """The errors of ``value`` against the subset of JSON Schema (2020-12) that
    schema.json uses (KNOWN); no dependency is added for it."""
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return validate(value, target, root, where)
    errors: list[str] = []
    t = schema.get("type")
    if t == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            return [f"{where}: expected an integer, got {value!r:.60}"]
    elif t is not None and not isinstance(value, TYPES[t]):
        return [f"{where}: expected {t}, got {type(value).__name__}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: expected {schema['const']!r}, got {value!r:.60}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r:.60} is not one of {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errors.append(f"{where}: {value!r:.60} does not match {schema['pattern']}")
    if "minimum" in schema and isinstance(value, int) and value < schema["minimum"]:
        errors.append(f"{where}: {value} is below {schema['minimum']}")
    if isinstance(value, dict):
        errors += [f"{where}: missing {k!r}" for k in schema.get("required", []) if k not in value]
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                errors += validate(v, props[k], root, f"{where}.{k}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{where}: unexpected {k!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += validate(v, schema["additionalProperties"], root, f"{where}.{k}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            errors.append(f"{where}: {len(value)} items, outside [{schema.get('minItems', 0)}, "
                          f"{schema.get('maxItems', 'any')}]")
        if "items" in schema:
            for i, v in enumerate(value):
                errors += validate(v, schema["items"], root, f"{where}[{i}]")
    if "oneOf" in schema:
        fits = [validate(value, s, root, where) for s in schema["oneOf"]]
        if sum(not f for f in fits) != 1:
            best = min(fits, key=len)
            errors.append(f"{where}: fits {sum(not f for f in fits)} of the oneOf schemas, not 1"
                          + (f" ({best[0]})" if best else ""))
    return errors


def keywords(schema) -> set[str]:
    if isinstance(schema, dict):
        out = set(schema) - {"properties", "$defs"}
        for k, v in schema.items():
            if k in ("properties", "$defs"):
                for sub in v.values():
                    out |= keywords(sub)
            elif isinstance(v, (dict, list)):
                out |= keywords(v)
        return out
    if isinstance(schema, list):
        return set().union(*(keywords(s) for s in schema)) if schema else set()
    return set()


def test_the_schema_uses_only_what_the_validator_knows():
    assert keywords(SCHEMA) <= KNOWN


@pytest.mark.parametrize("key_id", sorted(DOCS))
def test_every_file_matches_the_schema(key_id):
    assert validate(DOCS[key_id], SCHEMA, SCHEMA) == []


def test_the_schema_rejects_broken_files():
    doc = DOCS["card.claim.v1@deck=52"]
    assert validate(doc, SCHEMA, SCHEMA) == []

    def broken(change) -> list[str]:
        d = copy.deepcopy(doc)
        change(d)
        return validate(d, SCHEMA, SCHEMA)

    assert any("missing 'tests'" in e for e in broken(lambda d: d.pop("tests")))
    assert any("'maybe'" in e for e in broken(lambda d: d["tests"][0].update(result="maybe")))
    assert any("unexpected 'extra'" in e for e in broken(lambda d: d.update(extra=1)))
    assert any("does not match" in e for e in broken(lambda d: d["public"].__setitem__(0, "0x12")))
    assert any("expected an integer" in e for e in broken(lambda d: d["tests"][0].update(tcId="1")))
    assert any("oneOf" in e for e in broken(lambda d: d["tests"][0].update(kind="witness")))
    assert any("items" in e for e in broken(lambda d: d["tests"][0]["proof"]["pi_a"].pop()))
    assert any("NoSuchFlag" in e for e in broken(lambda d: d["tests"][0]["flags"].append("NoSuchFlag")))


# ----------------------------------------------------------------------------- what the folder holds

def test_every_registered_statement_has_its_file():
    assert set(DOCS) == set(all_statements())
    for key_id in DOCS:
        assert (FOLDER / f"{file_stem(key_id)}.json").exists()


@pytest.mark.parametrize("key_id", sorted(DOCS))
def test_each_file_has_every_kind_of_case(key_id):
    doc = DOCS[key_id]
    assert doc["numberOfTests"] == len(doc["tests"])
    assert [t["tcId"] for t in doc["tests"]] == list(range(1, len(doc["tests"]) + 1))
    kinds = [(t["kind"], t["result"], t["flags"][-1]) for t in doc["tests"]]
    assert kinds.count(("proof", "valid", "Valid")) == 2
    for flag in ("WrongPublicInput", "ProofForAnotherContext", "ProofOfAnotherStatement"):
        assert ("proof", "invalid", flag) in kinds
    assert ("witness", "valid", "Valid") in kinds
    assert ("witness", "invalid", "LyingPublic") in kinds
    assert ("witness", "invalid", "TamperedPrivate") in kinds
    lies = {t["tamper"]["name"] for t in doc["tests"] if "LyingPublic" in t["flags"]}
    assert "context" in lies  # the context is bound: a witness cannot claim another one
    other = next(t for t in doc["tests"] if "ProofOfAnotherStatement" in t["flags"])
    assert other["proofFrom"] != key_id


def test_a_lying_verdict_or_count_breaks_the_constraint_that_computes_it():
    for key_id, public, constraint in (("card.claim.v1@deck=52", "verdict", "verdict"),
                                       ("card.claim.v1@deck=20", "verdict", "verdict"),
                                       ("card.play.v1@deck=52,max_play=4", "count", "count")):
        case = next(t for t in DOCS[key_id]["tests"] if t["kind"] == "witness" and t["tamper"]
                    and t["tamper"]["name"] == public)
        assert case["result"] == "invalid"
        assert case["failingConstraint"]["name"].startswith(constraint), case


# ----------------------------------------------------------------------------- zkbluff against the files

def test_the_files_regenerate_identically_but_for_the_proofs():
    stale = {"statement": "card.gone.v1"}  # a file left behind by a statement taken out of the registry
    docs, problems = gen.build_all({**DOCS, "card.gone.v1": stale}, prove_missing=False)
    assert problems == ["card.gone.v1: a vector file for a statement no longer registered"]
    assert gen.diff(DOCS, docs) == []


@pytest.mark.parametrize("key_id", sorted(DOCS))
def test_zkbluff_agrees_with_every_case(key_id):
    assert gen.check_doc(DOCS[key_id]) == []


def first(doc: dict, flag: str, result: str | None = None, kind: str | None = None) -> int:
    """The tcId of the first case with ``flag`` (and ``result``, ``kind`` if given)."""
    return next(t["tcId"] for t in doc["tests"] if flag in t["flags"] and result in (None, t["result"])
                and kind in (None, t["kind"]))


def flipped(doc: dict, tc: int) -> dict:
    d = copy.deepcopy(doc)
    case = d["tests"][tc - 1]
    case["result"] = "invalid" if case["result"] == "valid" else "valid"
    return d


def test_a_file_edited_by_hand_fails(tmp_path):
    key_id = "card.claim.v1@deck=52"
    path = tmp_path / "vectors" / "statements" / f"{file_stem(key_id)}.json"
    path.parent.mkdir(parents=True)
    shutil.copy(FOLDER / path.name, path)
    assert gen.check_doc(json.loads(path.read_text())) == []
    doc = json.loads(path.read_text())
    witness_case = first(doc, "LyingPublic", "invalid")
    # a valid proof, a changed public, the honest witness, a lie
    for tc in (1, first(doc, "WrongPublicInput"), first(doc, "Valid", "valid", "witness"), witness_case):
        bad = flipped(doc, tc)
        path.write_text(json.dumps(bad, indent=1))
        problems = gen.check_doc(json.loads(path.read_text()))
        assert len(problems) == 1 and f"tcId {tc} " in problems[0], problems
        assert any(f"tcId {tc}" in p for p in gen.diff({key_id: bad}, {key_id: doc}))
        rebuilt, _ = gen.build_all({**DOCS, key_id: bad}, prove_missing=False, only=[key_id])
        assert gen.diff({key_id: bad}, rebuilt) == gen.diff({key_id: bad}, {key_id: doc})
    moved = copy.deepcopy(doc)
    case = moved["tests"][witness_case - 1]
    case["failingConstraint"]["index"] += 1
    problems = gen.check_doc(moved)
    assert len(problems) == 1 and "first failing constraint" in problems[0]
    lied = copy.deepcopy(doc)
    lied["public"][0] = str(int(lied["public"][0]) ^ 1)
    assert any("native twin" in p for p in gen.check_doc(lied))


def test_a_file_for_another_circuit_or_key_is_refused():
    doc = copy.deepcopy(DOCS["value.choice.v1"])
    doc["r1cs"]["sha256"] = "0" * 64
    doc["verificationKey"]["fingerprint"] = "0" * 64
    problems = gen.check_doc(doc)
    assert any("SHA-256" in p for p in problems) and any("fingerprint" in p for p in problems)


# ----------------------------------------------------------------------------- snarkjs against the files

def run_snarkjs(snarkjs: list[str], docs: dict, tmp: Path, keep) -> dict:
    """snarkjs's verdicts on the cases of ``docs`` that ``keep(doc, case)``, in one node process."""
    job = gen.snarkjs_job(docs, tmp, keep=keep)
    (tmp / "job.json").write_text(json.dumps(job))
    node_modules = Path(snarkjs[1]).parents[2]
    proc = subprocess.run([snarkjs[0], str(FOLDER / "snarkjs_check.cjs"), str(node_modules), str(tmp / "job.json")],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def small(doc: dict, case: dict) -> bool:
    """Every proof case, and the witness cases of the small circuits."""
    return case["kind"] == "proof" or doc["r1cs"]["constraints"] <= SMALL


def only(docs: dict, keep) -> dict:
    return {k: {**d, "tests": [t for t in d["tests"] if keep(d, t)]} for k, d in docs.items()}


@pytest.fixture(scope="module")
def snarkjs_verdicts(snarkjs, tmp_path_factory):
    return run_snarkjs(snarkjs, DOCS, tmp_path_factory.mktemp("snarkjs-vectors"), small)


@pytest.mark.interop
def test_snarkjs_agrees_with_every_proof_case_and_the_small_witnesses(snarkjs_verdicts):
    docs = only(DOCS, small)
    assert sum(len(d["tests"]) for d in docs.values()) == len(snarkjs_verdicts)
    assert gen.compare_snarkjs(docs, snarkjs_verdicts) == []


@pytest.mark.interop
def test_snarkjs_disagrees_with_a_flipped_case(snarkjs_verdicts):
    key_id = "card.claim.v1@deck=52"
    doc = DOCS[key_id]
    lie = first(doc, "LyingPublic", "invalid")
    for tc in (1, first(doc, "ProofForAnotherContext"), lie):
        problems = gen.compare_snarkjs({key_id: flipped(doc, tc)}, snarkjs_verdicts)
        assert len(problems) == 1 and f"#{tc} " in problems[0], problems
    moved = copy.deepcopy(doc)
    moved["tests"][lie - 1]["failingConstraint"]["index"] += 1
    assert "stops at constraint" in " ".join(gen.compare_snarkjs({key_id: moved}, snarkjs_verdicts))


@pytest.mark.interop
@pytest.mark.slow
def test_snarkjs_wtns_check_agrees_with_the_large_witnesses(snarkjs, tmp_path):
    def large(doc, case):
        return not small(doc, case)

    docs = {k: d for k, d in only(DOCS, large).items() if d["tests"]}
    verdicts = run_snarkjs(snarkjs, docs, tmp_path, large)
    assert sum(len(d["tests"]) for d in docs.values()) == len(verdicts) > 0
    assert gen.compare_snarkjs(docs, verdicts) == []


def test_the_cli_computes_the_witness_and_the_verdicts(tmp_path):
    """What the README tells an implementer: `zkbluff witness` gives the .wtns whose hash is
    witnessSha256, `zkbluff verify` reaches each proof case's result."""
    from click.testing import CliRunner

    from zkbluff.cli import main

    run = CliRunner().invoke
    key_id = "card.claim.v1@deck=52"
    doc = DOCS[key_id]
    (tmp_path / "in.json").write_text(json.dumps(doc["inputs"]))
    res = run(main, ["witness", key_id, str(tmp_path / "in.json"), str(tmp_path / "w.wtns")])
    assert res.exit_code == 0, res.output
    assert hashlib.sha256((tmp_path / "w.wtns").read_bytes()).hexdigest() == doc["witnessSha256"]
    for tc in (1, first(doc, "WrongPublicInput"), first(doc, "ProofForAnotherContext")):
        case = doc["tests"][tc - 1]
        (tmp_path / "public.json").write_text(json.dumps(case["public"]))
        (tmp_path / "proof.json").write_text(json.dumps(case["proof"]))
        res = run(main, ["verify", key_id, str(tmp_path / "public.json"), str(tmp_path / "proof.json")])
        assert res.exit_code == (0 if case["result"] == "valid" else 1), (tc, res.output)


# ----------------------------------------------------------------------------- rebuilding

def test_a_rebuild_keeps_inputs_that_still_build_and_only_those():
    stmt = all_statements()["value.choice.v1"]
    doc = DOCS["value.choice.v1"]
    inputs, other = gen.kept_inputs(stmt, doc)
    assert gen.inputs_to_json(inputs) == doc["inputs"] and str(other) == doc["otherContext"]
    gone = copy.deepcopy(doc)
    del gone["inputs"]["choice_salt"]  # the statement's inputs changed under the file
    assert gen.kept_inputs(stmt, gone) is None
    assert gen.kept_inputs(stmt, None) is None


@pytest.mark.slow
def test_a_rekeyed_statement_is_proved_again_from_its_inputs(tmp_path, monkeypatch):
    from zkbluff.groth16 import Proof, public_from_json, verify
    from zkbluff.statements.keys import verifying_key

    monkeypatch.setattr(gen, "scratch_path", lambda: tmp_path / "scratch.json")  # no proofs from earlier builds
    stmt = all_statements()["value.choice.v1"]
    old = copy.deepcopy(DOCS["value.choice.v1"])
    old["verificationKey"]["fingerprint"] = "0" * 64  # as after a new ceremony
    assert not gen.reusable(stmt, old)
    said = []
    inputs, other, a, b = gen.prove_fresh(stmt, said.append, old)
    assert said == ["proving value.choice.v1 under its pinned key"]
    assert gen.inputs_to_json(inputs) == old["inputs"]
    assert a != gen.valid_proofs(old)[0]  # a new proof, for the same public inputs
    vk = verifying_key("value.choice.v1")
    verify(vk, public_from_json(old["public"]), Proof.from_json(a))
    other_public = stmt.public_values({**inputs, "context": other})
    verify(vk, other_public, Proof.from_json(b))
