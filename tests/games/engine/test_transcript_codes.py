"""Stable reason codes: each structural failure of a transcript names its line and its code
(the chain, the fields, a leaked secret), the typed errors carry their defaults and a raise
site's finer code, and ``transcript verify`` prints the code (text and ``--json``) with the
exit status unchanged. The game-level codes are pinned by the transcript vectors
(tests/repo/test_transcript_vectors.py)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import (
    TRANSCRIPT_CODES, CommitmentMismatch, DealerAtFault, EarlyOpening, EarlyTimeout, IllegalMove, InvalidProof,
    LateEntropy, MalformedInput, OutOfOrder, TranscriptError, UnfoundedComplaint, UntrustedKey,
)
from zkbluff.protocol.signing import InvalidSignature
from zkbluff.protocol.transcript import GENESIS, canonical, line_hash, parse_chain, secret_fields


def chain(n=3):
    lines, prev = [], GENESIS
    for i in range(1, n + 1):
        lines.append(canonical({"n": i, "prev": prev, "seat": None, "action": "x", "data": {}}))
        prev = line_hash(lines[-1])
    return lines


def refusal(lines):
    with pytest.raises((TranscriptError, MalformedInput)) as exc:
        list(parse_chain(lines))
    return exc.value.line, exc.value.code


def test_a_good_chain_parses_and_each_structural_fault_names_its_line_and_code():
    assert [e["n"] for e in parse_chain(chain())] == [1, 2, 3]
    good = chain()
    e2 = json.loads(good[1])
    assert refusal([good[0], "{nope", good[2]]) == (2, "line.json")
    assert refusal([good[0], "[1, 2]", good[2]]) == (2, "line.json")
    assert refusal([good[0], canonical({**e2, "note": 1}), good[2]]) == (2, "line.fields")
    assert refusal([good[0], canonical({k: v for k, v in e2.items() if k != "data"}), good[2]]) == (2, "line.fields")
    assert refusal([good[0], canonical({**e2, "salt": "12"}), good[2]]) == (2, "secret.leaked")
    assert refusal([good[0], good[1].replace(",", ", ", 1), good[2]]) == (2, "line.canonical")
    assert refusal([good[0], good[2]]) == (2, "line.number")
    assert refusal([good[0], good[2], good[1]]) == (2, "line.number")
    assert refusal([good[0], canonical({**e2, "n": 2.0}), good[2]]) == (2, "line.number")  # 2.0 == 2 in Python
    assert refusal([canonical({**json.loads(good[0]), "n": True})] + good[1:]) == (1, "line.number")
    assert refusal([good[0], canonical({**e2, "prev": "0" * 64}), good[2]]) == (2, "line.chain")
    assert refusal([good[0], canonical({**e2, "data": {"x": 1}}), good[2]]) == (3, "line.chain")


def test_secret_names_are_the_protocols_and_the_statements_private_inputs():
    assert secret_fields({"salt", "entropy", "hand", "handKey", "play_salt", "hand0_salt", "note", "count"}) == [
        "entropy", "hand", "hand0_salt", "handKey", "play_salt", "salt"]
    assert secret_fields({"old_hand", "count", "note"}, extra=("old_hand", "old_salt")) == ["old_hand"]
    assert secret_fields({"count", "rank", "verdict", "sealed_hands", "commitment"}) == []


def test_the_typed_errors_carry_a_default_code_and_a_raise_site_may_name_a_finer_one():
    defaults = {IllegalMove: "rules.illegal", CommitmentMismatch: "commitment.mismatch", OutOfOrder: "deal.order",
                LateEntropy: "deal.late", EarlyOpening: "deal.open-early", EarlyTimeout: "timeout.early", UnfoundedComplaint: "deal.complaint",
                InvalidProof: "proof.invalid", InvalidSignature: "line.signature", DealerAtFault: "deal.fault"}
    for cls, code in defaults.items():
        assert cls("x").code == code and code in TRANSCRIPT_CODES
    assert UntrustedKey("x").code == "header.key"
    assert IllegalMove("x", code="line.party").code == "line.party"
    assert IllegalMove("x").code == "rules.illegal"  # a finer code on one raise leaves the class alone
    err = TranscriptError("does not chain", line=4, code="line.chain")
    assert (err.line, err.code, str(err), err.reason) == (4, "line.chain", "line 4: does not chain", "does not chain")
    assert MalformedInput("x", line=3, code="line.json").line == 3 and MalformedInput("x").code == "malformed"


def test_transcript_verify_prints_the_code_and_keeps_the_exit_status(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{nope\n")
    runner = CliRunner()
    res = runner.invoke(main, ["transcript", "verify", str(bad)])
    assert res.exit_code == 2 and res.output.strip().splitlines()[-1].startswith("error: transcript line 1")
    assert res.output.strip().endswith("[line.json]")
    res = runner.invoke(main, ["transcript", "verify", "--json", str(bad)])
    assert res.exit_code == 2
    assert {k: v for k, v in json.loads(res.stdout).items() if k != "message"} == {
        "valid": False, "line": 1, "code": "line.json"}
    res = runner.invoke(main, ["transcript", "verify", "--json", str(empty)])
    assert res.exit_code == 2 and json.loads(res.stdout)["code"] == "transcript.empty"
    assert json.loads(res.stdout)["line"] is None
    not_utf8 = tmp_path / "latin1.jsonl"
    not_utf8.write_bytes(b"\xff\xfe\n")
    res = runner.invoke(main, ["transcript", "verify", "--json", str(not_utf8)])
    assert res.exit_code == 2 and json.loads(res.stdout)["code"] == "transcript.unreadable"


def test_a_header_that_is_not_one_is_header_malformed(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text(chain(1)[0] + "\n")
    res = CliRunner().invoke(main, ["transcript", "verify", "--json", str(path)])
    assert res.exit_code == 2 and json.loads(res.stdout)["code"] == "header.malformed"
    assert json.loads(res.stdout)["line"] == 1


def test_a_signature_has_one_spelling():
    """The same signature bytes in upper-case hex are refused (a line cannot be re-spelled
    into another valid line); the lowercase twin verifies."""
    from zkbluff.protocol.signing import SigningKey, check_line_signature, sign_line

    key = SigningKey.generate()
    line = sign_line(key, {"n": 2, "prev": "0" * 64, "seat": 0, "action": "x", "data": {}})
    check_line_signature(line, key.public_hex, "seat 0")
    with pytest.raises(MalformedInput) as exc:
        check_line_signature({**line, "sig": line["sig"].upper()}, key.public_hex, "seat 0")
    assert exc.value.code == "line.signature"
    with pytest.raises(InvalidSignature):
        check_line_signature({**line, "data": {"y": 1}}, key.public_hex, "seat 0")
