"""Words a player or a developer reads (issue 32, item 5): counts that agree in number
("1 match", "1 point", "1 pull", "1 honest claim"), what each proof count counts, an
option reported as it was typed (`host -o colour=red`, not `--colour`), a mistyped name
answered with "did you mean", and cancelling All done is no refusal."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import MalformedInput


def test_a_mistyped_statement_name_gets_a_did_you_mean():
    from zkbluff.statements import get_statement

    with pytest.raises(MalformedInput, match=r"did you mean 'card\.play\.v1'") as err:
        get_statement("card.paly.v1")
    assert "known: " in str(err.value)  # (and every id after it)
    with pytest.raises(MalformedInput) as err:
        get_statement("zzzz")
    assert "did you mean" not in str(err.value)  # the twin: nothing close, nothing guessed


def test_the_pinned_keys_name_lookup_too():
    from zkbluff.ceremony.project import resolve_pinned_id

    with pytest.raises(MalformedInput, match="did you mean 'card.play.v1'"):
        resolve_pinned_id("card.ply.v1")


def test_host_reports_an_option_as_typed(tmp_path):
    """Before: "unknown option '--colour' (its options: --mode, --deal)" for `-o colour=red`."""
    res = CliRunner().invoke(main, ["host", "proof-or-bluff", "-o", "colour=red", "--home", str(tmp_path / "h")])
    assert res.exit_code == 2
    assert "unknown option '-o colour=red'" in res.output and "--colour" not in res.output
    assert "-o mode" in res.output and "-o deal" in res.output
    assert not (tmp_path / "h").exists()  # refused before the client made its key
    near = CliRunner().invoke(main, ["host", "proof-or-bluff", "-o", "deel=oblivious", "--home", str(tmp_path)])
    assert "did you mean -o deal?" in near.output
    play = CliRunner().invoke(main, ["play", "cheat", "--player", "3"])
    assert play.exit_code == 2 and "unknown option '--player' (did you mean --players?" in play.output


def test_the_leaderboard_counts_in_words(tmp_path):
    from zkbluff.server.storage import SeatResult, open_result_store

    store = open_result_store(None, tmp_path)
    store.record("m1", "bluffers", datetime(2026, 1, 5, tzinfo=timezone.utc),
                 [SeatResult("key:ana", "Ana", False, 1, 1), SeatResult("key:bo", "Bo", False, 2, 0)])
    store.close()
    res = CliRunner().invoke(main, ["leaderboard", "--data", str(tmp_path), "--season", "all"])
    assert res.exit_code == 0, res.output
    ana = next(ln for ln in res.output.splitlines() if "Ana" in ln)
    assert re.search(r"\b1 point\b", ana) and re.search(r"\b1 match\b", ana), ana
    assert "1 pts" not in res.output and "1 matches" not in res.output


def test_the_resumed_end_is_said_to_you(tmp_path):
    """`play --resume` of a finished match said the end line without the narration's
    second person ("you wins")."""
    from zkbluff.games.engine.narration import second_person
    from zkbluff.games.proof_or_bluff.text import ClassicText

    end = {"seat": None, "action": "end", "data": {"placements": [1, 2], "scores": [10, 4], "reason": "went out"}}
    assert second_person(ClassicText.describe(end, ["you", "house"])).startswith("you win:")


@pytest.mark.slow
def test_the_demo_says_what_each_proof_count_counts(tmp_path):
    """Before: "match: 15 proofs" and then "21 proofs" verified, with nothing to say the
    deal's proofs were the difference."""
    res = CliRunner().invoke(main, ["demo", "--mode", "casual", "--out", str(tmp_path / "m.jsonl")])
    assert res.exit_code == 0, res.output
    moves = int(re.search(r"match: (\d+) move proofs? made at the seats' moves", res.output).group(1))
    total, deal, again = map(int, re.search(r"(\d+) proofs in all \(the deal's (\d+) and the moves' (\d+)\)",
                                            res.output).groups())
    assert again == moves and deal + moves == total and deal > 0


def test_every_vector_line_said_to_you_is_in_the_second_person():
    """Every seat of every transcript vector named "you" (as local play names the person):
    no "you commits", "you moves first", "you has emptied their hand", "you's"."""
    import glob
    import json

    from repo_root import REPO_ROOT
    from zkbluff.games.engine.narration import Narrator
    from zkbluff.games.engine.registry import spec_for

    wrong = []
    for path in sorted(glob.glob(str(REPO_ROOT / "vectors" / "transcripts" / "*.jsonl"))):
        lines = [json.loads(ln) for ln in open(path, encoding="utf-8")]
        header = lines[0]["data"]
        for seat in range(len(header["seats"])):
            names = list(header["seats"])
            names[seat] = "you"
            narrator = Narrator(spec_for(header["game"], header["options"]), names, viewer=seat)
            for line in lines:
                for said in narrator.lines(line):
                    for m in re.finditer(r"\b[Yy]ou (\w+)", said):
                        verb = m.group(1)
                        if verb in ("was", "has", "is") or (verb.endswith("s") and not verb.endswith("ss")):
                            wrong.append(said)
                    if re.search(r"\b[Yy]ou's\b|\b[Yy]ou \w+( \w+)? (its|their)\b", said):
                        wrong.append(said)
    assert not wrong, sorted(set(wrong))[:10]
