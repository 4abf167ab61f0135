"""Stable transcripts: an end line under rules ``<game>/1`` carries a reason code the verifier
recomputes from the replayed rules, and the game's words, which it does not check; the
header names the rules a transcript verifies under; a header without them is the legacy
``<game>/0``, verified as before (its words compared).

The house's attacks (and the old behaviour they are measured against), on the stored vector
bases (vectors/transcripts/: ``*-rules-1`` under /1, the others from before, /0), re-signed
with the parties' own keys where a line is changed:

- a release rewords a game's end message: a /1 transcript still verifies, a /0 one does not
  (the reason codes exist to end that);
- a re-signed end line with another code (another this game may end with, another game's) is
  refused (``end.result``); with other words it is not;
- a header naming rules the verifier does not know is refused with :class:`UnknownRules`
  (``header.rules``, exit 2), by the library and by the CLI;
- an end line under /1 without its code (or with words that are not a string) is malformed.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from repo_root import REPO_ROOT
from zkbluff.cli import main
from zkbluff.errors import MalformedInput, TranscriptError, UnknownRules
from zkbluff.games.bluffers import rules as bluffers_rules
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.rules import DealEnd, EndCode, Result
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.proof_or_bluff import rules as pob_rules
from zkbluff.games.registry import game_names as registered, spec_class, spec_for
from zkbluff.protocol.signing import SigningKey, sign_line
from zkbluff.protocol.transcript import canonical

VECTORS = REPO_ROOT / "vectors" / "transcripts"
#: (a base under rules /1, a base of the same game from before rules versions, the rules module)
PAIRS = [("proof-or-bluff-rules-1", "proof-or-bluff-casual", pob_rules),
         ("bluffers-rules-1", "bluffers-3", bluffers_rules)]


def game_names() -> list[str]:
    """The project's games (not a test's own toy game registered in this process)."""
    return [n for n in registered() if spec_class(n).__module__.startswith("zkbluff.games.")]


def events(name: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (VECTORS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def referee_key(name: str) -> SigningKey:
    parties = json.loads((VECTORS / f"{name}.parties.json").read_text(encoding="utf-8"))
    return SigningKey.from_secret_hex(parties["referee"])


def write(tmp_path: Path, name: str, evs: list[dict[str, Any]]) -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(canonical(e) + "\n" for e in evs), encoding="utf-8")
    return path


def with_end(name: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    """The base with its end line's data replaced, re-signed by the referee (its own key)."""
    evs = events(name)
    assert evs[-1]["action"] == "end"
    evs[-1] = sign_line(referee_key(name), {k: v for k, v in {**evs[-1], "data": data}.items() if k != "sig"})
    return evs


def with_rules(name: str, rules: Any) -> list[dict[str, Any]]:
    """The base with its header's ``rules`` replaced, re-signed by the referee."""
    evs = events(name)
    header = {k: v for k, v in evs[0].items() if k != "sig"}
    header["data"] = {**header["data"], "rules": rules}
    evs[0] = sign_line(referee_key(name), header)
    return evs


def refusal(path: Path) -> tuple[type, Any, str]:
    with pytest.raises((TranscriptError, MalformedInput)) as caught:
        verify_transcript(path)
    return type(caught.value), caught.value.line, caught.value.code


def reworded(module: Any) -> Any:
    """The rules module's ``end_text`` with every message reworded (a new release's words)."""
    original = module.end_text
    return lambda *args, **kwargs: "in other words: " + original(*args, **kwargs)


# ---------------------------------------------------------------- the bases name their rules

@pytest.mark.parametrize("current,legacy,_module", PAIRS)
def test_the_bases_name_their_rules_and_the_end_line_carries_the_code(current, legacy, _module):
    game = events(current)[0]["data"]["game"]
    assert events(current)[0]["data"]["rules"] == f"{game}/1"
    code = events(current)[-1]["data"]["code"]
    assert re.fullmatch(rf"{re.escape(game)}\.[a-z_]+", code)
    assert "rules" not in events(legacy)[0]["data"] and "code" not in events(legacy)[-1]["data"]


# ---------------------------------------------------------------- attack 1: a reworded message

@pytest.mark.parametrize("current,legacy,module", PAIRS, ids=[p[0] for p in PAIRS])
def test_a_reworded_end_message_leaves_a_rules_1_transcript_valid_and_breaks_a_legacy_one(
        current, legacy, module, monkeypatch, tmp_path):
    cur, old = write(tmp_path, current, events(current)), write(tmp_path, legacy, events(legacy))
    assert verify_transcript(cur)["complete"] and verify_transcript(old)["complete"]  # the twin: as released
    monkeypatch.setattr(module, "end_text", reworded(module))
    replay = Referee(events(current)[0], verify_now=False)
    for e in events(current)[1:-1]:
        replay.apply(e)
    result = replay.result()
    assert result is not None and result.reason.startswith("in other words: ")  # the words did change
    summary = verify_transcript(cur)  # /1: the code is the contract, the words are the game's
    assert summary["complete"] and summary["result"].code == events(current)[-1]["data"]["code"].split(".", 1)[1]
    # /0 (the old behaviour, kept for the transcripts written under it): the words are compared
    assert refusal(old) == (TranscriptError, len(events(legacy)), "end.result")


def test_every_end_of_the_rules_goes_through_its_text_function(monkeypatch):
    """Each game's words come from its ``end_text``, so a test (or a release) that rewords it
    rewords every end: no message is built beside the table."""
    for module in (pob_rules, bluffers_rules):
        assert set(module.END_TEXT) == set(module.END_CODES)
    from zkbluff.games.cheat import rules as cheat_rules
    from zkbluff.games.mind_bluff import rules as mind_rules

    for module in (cheat_rules, mind_rules):
        assert set(module.END_TEXT) == set(module.END_CODES)
    monkeypatch.setattr(cheat_rules, "end_text", lambda code, **facts: f"<{code.value}>")
    rules = cheat_rules.CheatRules(3, 3, 1)
    rules._end_hand(1, cheat_rules.End.EMPTIED_HAND)
    assert rules.end_reason == "<emptied_hand>" and rules.end_code == "emptied_hand"


# ---------------------------------------------------------------- attack 2: another code

@pytest.mark.parametrize("current", [p[0] for p in PAIRS])
def test_a_re_signed_end_line_with_another_code_is_refused_and_other_words_are_not(current, tmp_path):
    end = events(current)[-1]
    game = events(current)[0]["data"]["game"]
    assert verify_transcript(write(tmp_path, "same", with_end(current, end["data"])))["complete"]  # re-signed as is
    words = with_end(current, {**end["data"], "reason": "the same end, said otherwise"})
    assert verify_transcript(write(tmp_path, "words", words))["complete"]
    others = [f"{game}.{c.value}" for c in [*spec_class(game).end_codes, *DealEnd]]
    for code in [c for c in others if c != end["data"]["code"]] + ["cheat.emptied_hand", "", "EndCode.X"]:
        path = write(tmp_path, "code", with_end(current, {**end["data"], "code": code}))
        assert refusal(path) == (TranscriptError, len(events(current)), "end.result"), code
    # the places and scores as JSON: a place `true` is not the place 1 (Python's True == 1)
    places = [True if p == 1 else p for p in end["data"]["placements"]]
    path = write(tmp_path, "true", with_end(current, {**end["data"], "placements": places}))
    assert refusal(path) == (TranscriptError, len(events(current)), "end.result")


def test_a_legacy_end_line_given_a_code_is_refused_as_before(tmp_path):
    """Under /0 the end line is exactly the three legacy fields: a code added is a different line."""
    name = "proof-or-bluff-casual"
    end = events(name)[-1]
    path = write(tmp_path, "legacy", with_end(name, {**end["data"], "code": "proof-or-bluff.reached_target"}))
    assert refusal(path) == (TranscriptError, len(events(name)), "end.result")


# ---------------------------------------------------------------- attack 3: unknown rules

@pytest.mark.parametrize("rules", ["proof-or-bluff/2", "cheat/1", "five-up-two-down/1", "proof-or-bluff",
                                   "proof-or-bluff/01", "proof-or-bluff/1 ", "proof-or-bluff/-1", 1, None])
def test_a_header_naming_unknown_rules_is_refused_with_the_typed_error(rules, tmp_path):
    path = write(tmp_path, "rules", with_rules("proof-or-bluff-rules-1", rules))
    with pytest.raises(UnknownRules) as caught:
        verify_transcript(path)
    assert isinstance(caught.value, MalformedInput) and caught.value.line == 1
    assert caught.value.code == "header.rules" and caught.value.exit_code == 2


def test_the_cli_exits_2_for_unknown_rules_and_names_the_code(tmp_path):
    path = write(tmp_path, "rules", with_rules("proof-or-bluff-rules-1", "proof-or-bluff/2"))
    out = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert out.exit_code == 2 and "header.rules" in out.output
    out = CliRunner().invoke(main, ["transcript", "verify", "--json", str(path)])
    assert out.exit_code == 2
    report = json.loads(out.output)
    assert (report["valid"], report["line"], report["code"]) == (False, 1, "header.rules")
    ok = write(tmp_path, "ok", events("proof-or-bluff-rules-1"))
    assert CliRunner().invoke(main, ["transcript", "verify", str(ok)]).exit_code == 0  # the twin


def test_the_rules_a_spec_knows():
    spec = spec_for("proof-or-bluff", {"mode": "casual"})
    assert spec.rules_versions == (0, 1) and spec.rules_name() == "proof-or-bluff/1"
    assert spec.parse_rules("proof-or-bluff/0") == 0 and spec.parse_rules("proof-or-bluff/1") == 1
    for name in game_names():
        assert spec_class(name).end_codes is not None, f"{name}: no END_CODES (it would write only /0)"


# ---------------------------------------------------------------- attack 4: a code missing

@pytest.mark.parametrize("current", [p[0] for p in PAIRS])
def test_a_rules_1_end_line_without_its_code_is_malformed(current, tmp_path):
    end = events(current)[-1]["data"]
    n = len(events(current))
    for data in ({k: v for k, v in end.items() if k != "code"}, {**end, "code": 7}, {**end, "reason": None},
                 {**end, "note": "x"}, {k: v for k, v in end.items() if k != "reason"}):
        path = write(tmp_path, "missing", with_end(current, data))
        assert refusal(path) == (MalformedInput, n, "line.malformed"), data
    out = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert out.exit_code == 2


# ---------------------------------------------------------------- the engine's side

def test_the_codes_are_declared_once_and_end_codes_are_checked():
    for name in game_names():
        spec = spec_for(name)
        codes = [c.value for c in spec.end_codes]
        assert len(set(codes) | {c.value for c in DealEnd}) == len(codes) + len(DealEnd), name  # no clash
        assert all(re.fullmatch(r"[a-z][a-z_]*", c) for c in codes), name
        assert spec.end_code(Result((1,) * spec.n_seats, (0,) * spec.n_seats, "x", code=codes[0])) == \
            f"{name}.{codes[0]}"
        with pytest.raises(AssertionError):  # a rules bug that ends with an undeclared code is loud
            spec.end_code(Result((1,) * spec.n_seats, (0,) * spec.n_seats, "x", code="no_such_end"))


def test_a_deal_that_ends_the_match_names_the_engines_code():
    """A forfeit in the entropy phase and the dealer at fault have the engine's codes; the
    deal's ``fault`` decides which (a scheme may say otherwise)."""
    spec = spec_for("bluffers", {"players": "3"})

    class Ledger:
        deal = spec.deal.new_public()

    assert spec.deal.outcome_code(Ledger()) is DealEnd.FORFEIT
    assert isinstance(DealEnd.FAULT, EndCode) and DealEnd.FAULT.value == "deal_fault"


def test_the_docs_name_only_codes_that_exist():
    """docs/transcripts.md lists today's codes; every one it names is a real one (no stale name)."""
    doc = (REPO_ROOT / "docs" / "transcripts.md").read_text(encoding="utf-8")
    section = doc.split("## End lines and reason codes", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    known = {c.value for name in game_names() for c in spec_class(name).end_codes}
    named = {m for row in rows for m in re.findall(r"`([a-z_]+)`", row.split("|")[2])}
    assert named and named <= known, sorted(named - known)


# ---------------------------------------------------------------- new matches write /1

@pytest.mark.parametrize("game,options", [("proof-or-bluff", {"mode": "casual"}), ("cheat", {"players": "3"}),
                                          ("bluffers", {"players": "2"})])
def test_a_new_match_names_rules_1(game, options):
    from zkbluff.games.engine.table import open_match

    tab = open_match(game, options, None)
    assert tab.writer.events[0]["data"]["rules"] == f"{game}/1" and tab.view.rules_version == 1


def test_a_game_without_end_codes_writes_and_verifies_the_legacy_end_line(monkeypatch, tmp_path):
    """A spec that declares no END_CODES (a test's toy game) knows only /0: its header names no
    rules, its end line has no code, and it verifies with its words compared; naming /1 is refused."""
    from engine_toy_game import count_match

    tab, _, path = count_match(monkeypatch, tmp_path)
    evs = [json.loads(x) for x in path.read_text().splitlines()]
    assert "rules" not in evs[0]["data"] and "code" not in evs[-2]["data"] and tab.spec.rules_versions == (0,)
    assert verify_transcript(path)["complete"]
    with pytest.raises(UnknownRules):
        tab.spec.parse_rules(f"{tab.spec.game}/1")
