"""The transcript vectors (vectors/transcripts/): every case checked by ``verify_transcript``
(result, first failing line, reason code, exit status) and a few by the CLI's ``--json``;
the folder's schema; the bases unchanged; vectors.json regenerated from the stored bases
and compared (the deterministic part); and a hand-edited vector caught."""
from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from jsonschema_lite import errors as schema_errors
from zkbluff.cli import main
from zkbluff.errors import TRANSCRIPT_CODES, ZkbluffError
from zkbluff.games.engine.verifier import verify_transcript
from repo_root import REPO_ROOT

ROOT = REPO_ROOT
FOLDER = ROOT / "vectors" / "transcripts"
VECTORS = json.loads((FOLDER / "vectors.json").read_text(encoding="utf-8"))
SCHEMA = json.loads((FOLDER / "schema.json").read_text(encoding="utf-8"))
CASES = [(g, t) for g in VECTORS["testGroups"] for t in g["tests"]]


def base_lines(group: dict[str, Any]) -> list[str]:
    return (FOLDER / group["transcript"]).read_text(encoding="utf-8").splitlines()


def assemble(group: dict[str, Any], case: dict[str, Any]) -> str:
    """The case's transcript: base line ``k`` for ``k``, base lines ``a..b`` for ``[a, b]``,
    a string as it is."""
    base = base_lines(group)
    out: list[str] = []
    for x in case["lines"]:
        if isinstance(x, int):
            out.append(base[x - 1])
        elif isinstance(x, list):
            out.extend(base[x[0] - 1:x[1]])
        else:
            out.append(x)
    return "".join(line + "\n" for line in out)


def verdict(path: Path, case: dict[str, Any]) -> dict[str, Any]:
    """What zkbluff says of the transcript at ``path``: result, line, code, exit status."""
    seat_keys = {int(k): v for k, v in case.get("seatKeys", {}).items()}
    try:
        verify_transcript(path, seat_keys=seat_keys)
    except ZkbluffError as exc:
        return {"result": "invalid", "line": getattr(exc, "line", None), "code": exc.code, "exit": exc.exit_code}
    return {"result": "valid", "line": None, "code": None, "exit": 0}


def problems(group: dict[str, Any], case: dict[str, Any], tmp_path: Path) -> list[str]:
    """Where zkbluff's verdict differs from the vector's (empty: they agree)."""
    path = tmp_path / f"tc{case['tcId']}.jsonl"
    path.write_text(assemble(group, case), encoding="utf-8")
    got = verdict(path, case)
    return [f"tc{case['tcId']} ({case['comment']}): {k} expected {case[k]!r}, zkbluff gives {got[k]!r}"
            for k in ("result", "line", "code", "exit") if got[k] != case[k]]


@pytest.mark.parametrize("group,case", CASES, ids=[f"{g['transcript'][:-6]}-tc{t['tcId']}" for g, t in CASES])
def test_transcript_vector(group, case, tmp_path):
    assert problems(group, case, tmp_path) == []


def test_a_hand_edited_vector_fails_the_check(tmp_path):
    """A vector with its expected result flipped (or its line or code changed) is caught by
    the same check the vectors run through, and by the regeneration diff."""
    group, case = next((g, t) for g, t in CASES if t["result"] == "invalid" and t["code"] == "proof.replayed")
    flipped = {**case, "result": "valid", "line": None, "code": None, "exit": 0}
    assert problems(group, flipped, tmp_path)
    assert problems(group, {**case, "line": case["line"] + 1}, tmp_path)
    assert problems(group, {**case, "code": "line.signature"}, tmp_path)
    assert problems(group, case, tmp_path) == []  # the twin: the vector as stored agrees
    valid = next(t for g, t in CASES if g is group and t["result"] == "valid")
    assert problems(group, {**valid, "result": "invalid", "line": 2, "code": "line.chain", "exit": 1}, tmp_path)
    edited = copy.deepcopy(VECTORS)
    edited["testGroups"][0]["tests"][0]["result"] = "invalid"
    assert generator().dump(edited) != (FOLDER / "vectors.json").read_text(encoding="utf-8")


def generator():
    spec = importlib.util.spec_from_file_location("transcript_vectors_generate", FOLDER / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vectors_regenerate_from_the_stored_bases():
    """The mutations are deterministic (derived from the stored bases, re-signed with the
    stored keys): vectors.json is exactly what the generator gives now."""
    gen = generator()
    assert gen.dump(gen.build()) == (FOLDER / "vectors.json").read_text(encoding="utf-8"), \
        "vectors.json is stale: run python vectors/transcripts/generate.py"


def test_the_schema_accepts_the_vectors_and_refuses_a_broken_one():
    assert schema_errors(VECTORS, SCHEMA) == []
    broken = copy.deepcopy(VECTORS)
    broken["testGroups"][0]["tests"][0]["result"] = "maybe"
    del broken["testGroups"][0]["tests"][1]["code"]
    broken["testGroups"][0]["sha256"] = "xyz"
    found = schema_errors(broken, SCHEMA)
    assert len(found) == 3 and any("maybe" in e for e in found) and any("'code'" in e for e in found)


def test_every_base_is_the_file_the_vectors_name_and_every_game_has_one():
    from zkbluff.games.registry import games

    for group in VECTORS["testGroups"]:
        text = (FOLDER / group["transcript"]).read_text(encoding="utf-8")
        assert hashlib.sha256(text.encode()).hexdigest() == group["sha256"], group["transcript"]
        assert len(text.splitlines()) == group["lines"]
    assert {g["game"] for g in VECTORS["testGroups"]} == set(games())
    assert VECTORS["numberOfTests"] == len(CASES) == len({t["tcId"] for _, t in CASES})


def test_every_code_is_documented_and_the_vectors_use_the_catalogue():
    doc = (ROOT / "docs" / "writing-your-own-verifier.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z]+(?:\.[a-z-]+)+)` \|", doc, re.M))
    assert documented == set(TRANSCRIPT_CODES)
    assert VECTORS["codes"] == TRANSCRIPT_CODES
    used = {t["code"] for _, t in CASES if t["code"]}
    assert used <= set(TRANSCRIPT_CODES)
    # every kind of mutation the issue names is there for every game (a legacy base, from before
    # receipts, has only the cases that show it still verifies)
    for group in VECTORS["testGroups"]:
        flags = {f for t in group["tests"] for f in t["flags"]}
        if group["transcript"].startswith("legacy-"):
            assert {"Valid", "Legacy", "Receipt"} <= flags and all("Legacy" in t["flags"] for t in group["tests"])
            continue
        assert {"LineChanged", "LineRemoved", "LinesSwapped", "WrongSigner", "ReChained", "ProofReplayed",
                "SecretLeaked", "Valid"} <= flags, group["transcript"]
    assert {"valid", "invalid"} == {t["result"] for _, t in CASES}


@pytest.mark.parametrize("which", ["valid", "proof.replayed", "secret.leaked"])
def test_the_cli_reports_the_vectors_line_and_code_in_json_and_text(which, tmp_path):
    group, case = next((g, t) for g, t in CASES if (t["result"] == which if which == "valid" else t["code"] == which))
    path = tmp_path / "t.jsonl"
    path.write_text(assemble(group, case), encoding="utf-8")
    res = CliRunner().invoke(main, ["transcript", "verify", "--json", str(path)])
    assert res.exit_code == case["exit"], res.output
    out = json.loads(res.stdout)
    assert {k: out[k] for k in ("line", "code")} == {"line": case["line"], "code": case["code"]}
    assert out["valid"] is (case["result"] == "valid") and out["message"]
    text = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert text.exit_code == case["exit"]
    if case["code"]:
        assert text.output.strip().splitlines()[-1].endswith(f"[{case['code']}]")
        assert f"line {case['line']}" in text.output
    else:
        assert text.output.startswith("OK: ")


def test_a_missing_end_line_is_named_as_such(tmp_path):
    """The message names what is missing: a game with no closing line lacks only its end line
    (not "end and closing lines"), reported one past the last line."""
    for g, case in CASES:
        if case["code"] == "end.missing" and g["transcript"].startswith("proof-or-bluff"):
            path = tmp_path / "cut.jsonl"
            path.write_text(assemble(g, case), encoding="utf-8")
            with pytest.raises(ZkbluffError, match=r"^line \d+: the rules end the match here, but the end line is missing$"):
                verify_transcript(path)
            return
    raise AssertionError("no end.missing vector for Proof or Bluff")
