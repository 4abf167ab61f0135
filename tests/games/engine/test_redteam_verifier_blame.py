"""Red team against the offline verifier's batched signatures: a transcript that stops
early (not over: it would pass as unfinished) or ends in a truncated line still has every
signature checked, and a bad one is named before the truncation, as one by one did."""
from __future__ import annotations

import json

import pytest

from repo_root import REPO_ROOT
from zkbluff.errors import MalformedInput, TranscriptError
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey, sign_line
from zkbluff.protocol.transcript import canonical

BASE = REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"
PARTIES = json.loads((REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.parties.json").read_text())


def _events() -> list[dict]:
    return [json.loads(line) for line in BASE.read_text().splitlines()]


def _other_seat_signs(events: list[dict], line: int) -> None:
    e = events[line - 1]
    assert e["seat"] in (0, 1)
    events[line - 1] = sign_line(SigningKey.from_secret_hex(PARTIES["seats"][1 - e["seat"]]["key"]), e)


def _write(tmp_path, events: list[dict], tail: str = ""):
    path = tmp_path / "house.jsonl"
    path.write_text("".join(canonical(e) + "\n" for e in events) + tail)
    return path


def test_redteam_an_unfinished_transcript_still_has_its_signatures_checked(tmp_path):
    events = _events()[:12]
    report = verify_transcript(_write(tmp_path, events))  # the twin: unfinished, valid
    assert report["complete"] is False and report["lines"] == 12
    _other_seat_signs(events, 8)
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_write(tmp_path, events))
    assert (exc.value.line, exc.value.code) == (8, "line.signature")


def test_redteam_a_bad_signature_is_named_before_a_truncated_line(tmp_path):
    events = _events()
    cut = canonical(events[12])[:40]  # line 13 cut off mid-way (no newline)
    with pytest.raises(MalformedInput) as exc:  # the twin: every signature good, the cut refused
        verify_transcript(_write(tmp_path, events[:12], cut))
    assert exc.value.line == 13
    _other_seat_signs(events, 8)
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_write(tmp_path, events[:12], cut))
    assert (exc.value.line, exc.value.code) == (8, "line.signature")


def test_redteam_the_last_lines_signature_is_checked_before_the_cut_after_it(tmp_path):
    events = _events()[:12]
    _other_seat_signs(events, 12)  # the last whole line's signature bad, then a cut line
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_write(tmp_path, events, "{\"n\":13,"))
    assert (exc.value.line, exc.value.code) == (12, "line.signature")
