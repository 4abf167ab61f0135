"""Issue 18, a newcomer's first hour: each test reproduces one defect a new user met (and
fails on the code before its fix), with a twin showing the right input still works."""
from __future__ import annotations

import json
import random
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import MalformedInput
from zkbluff.games.proof_or_bluff import text
from zkbluff.games.proof_or_bluff.bot import FiveUpHouseBot
from zkbluff.games.proof_or_bluff.moves import FiveUpObservation
from zkbluff.games.proof_or_bluff.rules import RESPOND, Accept, Challenge, FiveUpPublic, DECK
from zkbluff.games.proof_or_bluff.text import ClassicText, FiveUpText
from zkbluff.statements import get_statement
from statement_inputs import valid_inputs
from repo_root import REPO_ROOT

ROOT = REPO_ROOT


def run(args, **kw):
    return CliRunner().invoke(main, args, **kw)


def one_line_error(res, code):
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output and res.exception is None or isinstance(res.exception, SystemExit)
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("error: "), res.output
    return lines[-1]


# ---------------------------------------------------------------- library and CLI items

def test_unknown_backend_is_one_line_exit_2(monkeypatch):
    monkeypatch.setenv("ZKBLUFF_BACKEND", "bogus")
    line = one_line_error(run(["backends"]), 2)
    assert "bogus" in line
    monkeypatch.delenv("ZKBLUFF_BACKEND")
    res = run(["backends"])
    assert res.exit_code == 0 and res.output.startswith("default: ")


@pytest.mark.parametrize("args", [["-h"], ["circuits", "-h"], ["play", "-h"], ["fair", "verify-card", "-h"]])
def test_h_is_help(args):
    res = run(args)
    assert res.exit_code == 0, res.output
    assert "Usage:" in res.output and "Show this message and exit" in res.output
    assert run(args[:-1] + ["-q"]).exit_code == 2  # an unknown short option is still refused


def test_witness_requires_context(tmp_path):
    stmt = get_statement("card.claim.v1@deck=52")
    inputs = valid_inputs(stmt, random.Random(18))
    given = tmp_path / "with.json"
    given.write_text(json.dumps(inputs))
    res = run(["witness", stmt.key_id, str(given), str(tmp_path / "w.wtns")])
    assert res.exit_code == 0, res.output
    assert f"context={inputs['context']}" in res.output
    missing = tmp_path / "without.json"
    missing.write_text(json.dumps({k: v for k, v in inputs.items() if k != "context"}))
    for cmd in (["witness", stmt.key_id, str(missing), str(tmp_path / "x.wtns")],
                ["prove", stmt.key_id, str(missing), str(tmp_path / "p.json"), str(tmp_path / "pub.json")]):
        line = one_line_error(run(cmd), 2)
        assert "'context'" in line
    assert not (tmp_path / "x.wtns").exists() and not (tmp_path / "p.json").exists()


def test_prove_export_and_groth16_prove_say_what_they_wrote(tmp_path):
    stmt = get_statement("card.claim.v1@deck=52")
    inp = tmp_path / "in.json"
    inp.write_text(json.dumps(valid_inputs(stmt, random.Random(5))))
    proof, public = tmp_path / "proof.json", tmp_path / "public.json"
    res = run(["prove", stmt.key_id, str(inp), str(proof), str(public)])
    assert res.exit_code == 0, res.output
    assert f"wrote the proof to {proof}" in res.output and proof.exists()
    vk = tmp_path / "vk.json"
    res = run(["circuits", "export", "card.claim.v1", str(vk)])
    assert res.exit_code == 0, res.output
    assert f"to {vk}" in res.output and json.loads(vk.read_text())["protocol"] == "groth16"
    assert run(["verify", stmt.key_id, str(public), str(proof)]).exit_code == 0
    # groth16 prove with a key of our own format
    from zkbluff.circuit.formats import write_r1cs, write_wtns
    system, w = stmt.build(valid_inputs(stmt, random.Random(6)))
    write_r1cs(tmp_path / "c.r1cs", system)
    write_wtns(tmp_path / "c.wtns", w)
    assert run(["groth16", "setup", str(tmp_path / "c.r1cs"), str(tmp_path / "pk.bin"), str(tmp_path / "v.json")]
               ).exit_code == 0
    res = run(["groth16", "prove", str(tmp_path / "pk.bin"), str(tmp_path / "c.wtns"), str(tmp_path / "p2.json"),
               str(tmp_path / "pub2.json")])
    assert res.exit_code == 0, res.output
    assert "wrote the proof to" in res.output


def test_circuits_check_bad_folder_or_manifest_is_exit_2(tmp_path):
    line = one_line_error(run(["circuits", "check", "--dir", str(tmp_path / "nope")]), 2)
    assert "nope" in line
    (tmp_path / "manifest.json").write_text("{")
    assert "not JSON" in one_line_error(run(["circuits", "check", "--dir", str(tmp_path)]), 2)
    (tmp_path / "manifest.json").write_text('{"statements": 3}')
    one_line_error(run(["circuits", "check", "--dir", str(tmp_path)]), 2)


def test_circuits_check_manifest_only_copy(tmp_path):
    """An install carries the manifest without the .r1cs files: check what it can, say so."""
    shutil.copy(ROOT / "circuits" / "manifest.json", tmp_path / "manifest.json")
    res = run(["circuits", "check", "--dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "not compared" in res.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["statements"][0]["constraints"] += 1
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    res = run(["circuits", "check", "--dir", str(tmp_path)])
    assert res.exit_code == 1 and "constraints" in res.output


def test_circuits_build_refuses_the_installed_copy(tmp_path, monkeypatch):
    import zkbluff
    from zkbluff.cli import circuits

    installed = Path(zkbluff.__file__).resolve().parent / "registry-test-only"
    monkeypatch.setattr(circuits, "_circuits_folder", lambda: installed)
    line = one_line_error(run(["circuits", "build"]), 2)
    assert "--dir" in line
    assert not installed.exists()


def test_setup_py_carries_the_manifest(tmp_path, monkeypatch):
    """build_py copies circuits/manifest.json into the package as zkbluff/registry/ (the
    installed check runs in a fresh venv by hand: see the issue-18 report)."""
    import runpy

    import setuptools
    from setuptools.command.build_py import build_py

    captured = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kw: captured.update(kw))
    monkeypatch.setattr(build_py, "run", lambda self: None)  # the package's own files: not this test's
    runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    cls = captured["cmdclass"]["build_py"]
    step = cls.__new__(cls)
    step.build_lib = str(tmp_path)
    step.run()
    carried = tmp_path / "zkbluff" / "registry" / "manifest.json"
    assert carried.read_bytes() == (ROOT / "circuits" / "manifest.json").read_bytes()
    assert not list((tmp_path / "zkbluff" / "registry").glob("*.r1cs"))


def test_fair_readme_links_only_files_a_clone_has():
    import re
    readme = ROOT / "vectors" / "fair" / "README.md"
    body = readme.read_text()
    for ref in re.findall(r"`(\.\./[^`]+)`|\]\(([^)]+)\)", body):
        target = next(r for r in ref if r)
        assert (readme.parent / target).exists(), target


# ---------------------------------------------------------------- the terminal text

def test_grammar_for_you():
    names = ["you", "house"]
    line = {"seat": 0, "action": "play", "data": {"count": 2, "rank": 3}}
    assert ClassicText.describe(line, names).startswith("you play 2 cards")
    assert ClassicText.describe({**line, "seat": 1}, names).startswith("house plays 2 cards")
    for action, word in (("accept", "you accept"), ("challenge", "you challenge")):
        assert ClassicText.describe({"seat": 0, "action": action, "data": {}}, names).startswith(word)
    assert ClassicText.describe({"seat": 0, "action": "prove", "data": {"verdict": 1}}, names).startswith(
        "your client proves")
    end = {"seat": None, "action": "end", "data": {"placements": [1, 2], "scores": [10, 4],
                                                     "reason": "reached 10 points (checked at the end of the round)"}}
    said = FiveUpText.describe(end, names)
    assert said.startswith("you win:") and "))" not in said and "final scores: you 10, house 4" in said
    assert FiveUpText.describe({**end, "data": {**end["data"], "placements": [2, 1]}}, names).startswith("house wins")


@pytest.mark.parametrize("typed,card", [("4h", 28), ("4H", 28), ("10h", 34), ("Th", 34), ("th", 34), ("4♥", 28),
                                        ("2", 34)])
def test_cards_by_name_or_index(typed, card):
    hand = [28, 34, 0]
    assert text.parse_card(typed, hand) == card


@pytest.mark.parametrize("typed", ["4s", "9", "0", "1x", "", "11h", "zz"])
def test_cards_not_in_hand_or_not_cards(typed):
    with pytest.raises(MalformedInput):
        text.parse_card(typed, [28, 34, 0])


def test_cards_are_shown_as_typed_and_sorted_by_rank():
    text.Style.symbols = text.Style.colour = False
    hand = [34, 8, 21, 47]  # 10h 10c 10d 10s (id = 13 * suit + rank)
    assert [text.card_label(c) for c in text.by_rank(hand)] == ["10c", "10d", "10h", "10s"]
    assert text.by_rank([12, 0, 13]) == [0, 13, 12]  # 2c 2d Ac: by rank, not by suit
    ClassicText.configure(symbols=True, colour=True)
    try:
        assert text.card_label(34) == "\x1b[31m10♥\x1b[0m" and text.card_label(47) == "10♠"
        ClassicText.configure(symbols=True, colour=False)
        assert text.card_label(34) == "10♥"
    finally:
        ClassicText.configure(symbols=False, colour=False)


@pytest.mark.parametrize("typed,intent", [("A", Accept), (" a ", Accept), ("accept", Accept), ("C", Challenge),
                                          ("challenge", Challenge), (" Bluff ", Challenge)])
def test_forgiving_answers(typed, intent):
    assert isinstance(text._respond(lambda _q: typed), intent)


@pytest.mark.parametrize("typed", ["x", "", "ac"])
def test_unclear_answers_are_refused(typed):
    with pytest.raises(MalformedInput, match="answer a"):
        text._respond(lambda _q: typed)


def _five_up_obs(board_cards, hand, claim_names, phase=RESPOND):
    board = DECK.mask(board_cards)
    pub = FiveUpPublic(10, (0, 0), board, phase, 1, 1, 0, (0, tuple(claim_names)) if phase == RESPOND else None)
    return FiveUpObservation(1, pub, tuple(hand), (Accept(), Challenge()))


def test_five_up_rank_not_on_board_is_said_in_words():
    from zkbluff.games.proof_or_bluff.rules import CLAIM
    obs = _five_up_obs([0, 1, 2, 3, 4], [20, 30], [], CLAIM)  # board 2c 3c 4c 5c 6c
    with pytest.raises(MalformedInput) as err:
        FiveUpText.prompt(obs, lambda _q: "K", lambda _m: None, ["you", "house"])
    msg = str(err.value)
    assert "King is not on the board" in msg and "(10,)" not in msg
    claim = FiveUpText.prompt(obs, lambda _q: "4 6", lambda _m: None, ["you", "house"])
    assert claim.names == (2, 4)


def test_outcomes_in_words():
    from zkbluff.games.proof_or_bluff.rules import ClassicState, MODES
    names = ["you", "house"]
    before = ClassicState(MODES["casual"], 3, scores=[0, 2], pile=4, claim=(1, 2, 3))
    after = ClassicState(MODES["casual"], 4, scores=[0, 2], pile=0)
    said = ClassicText.outcome({"seat": 1, "action": "prove", "data": {"verdict": 1}}, before, after, names)
    assert said[0] == "your challenge failed: you lose 1 point (you had 0, so it stays 0: a score never goes below 0)"
    assert "pile of 4 cards is discarded" in said[1] and "you play next" in said[1]
    caught = ClassicState(MODES["casual"], 4, scores=[3, 2], pile=0)
    said = ClassicText.outcome({"seat": 1, "action": "prove", "data": {"verdict": 0}}, before, caught, names)
    assert said[0] == "house was caught bluffing: you gain 3 points (now 3)"
    said = ClassicText.outcome({"seat": 0, "action": "prove", "data": {"verdict": 0}},
                               ClassicState(MODES["casual"], 3, scores=[1, 1], pile=1, claim=(0, 1, 3)),
                               ClassicState(MODES["casual"], 4, scores=[1, 4], pile=0), names)
    assert said[0] == "you were caught bluffing: house gains 3 points (now 4)"


# ---------------------------------------------------------------- the house bot

def test_five_up_bot_varies_its_challenges():
    # board 2c 5d 9h Js Kc; the bot holds 3c 4d; the claimer names one board rank
    board = [0, 13 + 3, 26 + 7, 39 + 9, 11]
    plausible = [(0,), (3,), (7,), (9,), (11,), (0,), (3,), (7,)]
    fractions = []
    for seed in range(20):
        bot = FiveUpHouseBot(seed)
        answers = [bot.act(_five_up_obs(board, [1, 15], names)) for names in plausible]
        bot._pending = None
        fractions.append(sum(isinstance(a, Challenge) for a in answers) / len(answers))
    assert 0.2 < sum(fractions) / len(fractions) < 0.9, fractions
    assert min(fractions) < 1.0
    # a claim it can see is impossible (it holds the other three 2s) is always challenged
    for seed in range(20):
        bot = FiveUpHouseBot(seed)
        assert isinstance(bot.act(_five_up_obs(board, [13, 26], (0, 0))), Challenge)


# ---------------------------------------------------------------- playing in the terminal

def _play(tmp_path, name, args, script):
    out = tmp_path / f"{name}.jsonl"
    res = run(["play", "--mode", "casual", "--out", str(out), "--plain"] + args, input=script)
    return out, res


def _hands(output):
    return [ln for ln in output.splitlines() if "Your hand" in ln]


def test_seed_replays_a_match_and_says_it_is_practice(tmp_path):
    script = "1\na\n1\na\n1\n"
    _, first = _play(tmp_path, "a", ["--seed", "7"], script)
    _, again = _play(tmp_path, "b", ["--seed", "7"], script)
    _, other = _play(tmp_path, "c", ["--seed", "8"], script)
    assert "practice" in first.output and "not a fair match" in first.output
    assert _hands(first.output) and _hands(first.output) == _hands(again.output)
    assert _hands(first.output) != _hands(other.output)
    assert first.exit_code == again.exit_code and first.output == again.output.replace(
        str(tmp_path / "b.jsonl"), str(tmp_path / "a.jsonl"))  # the whole session replays
    assert first.exit_code == 0 or first.output.rstrip().splitlines()[-1].startswith("stopped.")


def test_eof_exits_2_and_secrets_are_private(tmp_path):
    out, res = _play(tmp_path, "eof", ["--seed", "1"], "")
    assert res.exit_code == 2, res.output
    assert "stopped" in res.output and "--resume" in res.output
    for f in tmp_path.glob("eof.jsonl.*.secrets.json"):
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    assert len(list(tmp_path.glob("eof.jsonl.*.secrets.json"))) == 4
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # the transcript is public


def test_resume_refuses_wrong_or_foreign_secrets(tmp_path):
    a, _ = _play(tmp_path, "a", ["--seed", "1"], "")
    b, _ = _play(tmp_path, "b", ["--seed", "2"], "")
    ok = run(["play", "--resume", str(a), "--plain"], input="")
    assert ok.exit_code == 2 and "Your hand" in ok.output  # it resumes (then stdin ends)
    mine = Path(f"{a}.seat0.secrets.json")
    saved = mine.read_text()
    shutil.copy(f"{b}.seat0.secrets.json", mine)
    res = run(["play", "--resume", str(a)], input="1\n")
    assert "another match" in one_line_error(res, 2) and "Your hand" not in res.output
    mine.write_text('"just a string"')
    assert "not a secrets file" in one_line_error(run(["play", "--resume", str(a)], input=""), 2)
    mine.write_text(saved)
    assert "--table" in one_line_error(run(["play", "--resume", str(a), "--table", "five-up"]), 2)


def test_resume_a_finished_match_says_who_won(tmp_path):
    script = "1\nc\n" * 200
    out, res = _play(tmp_path, "done", ["--seed", "4"], script)
    assert res.exit_code == 0, res.output
    again = run(["play", "--resume", str(out)], input="")
    assert again.exit_code == 0, again.output
    assert "this match is over" in again.output and ("wins" in again.output or "win:" in again.output
                                                     or "draw" in again.output)


def test_rules_cover_both_tables_modes_and_scoring():
    res = run(["rules", "proof-or-bluff"])
    assert res.exit_code == 0
    for needed in ("CLASSIC", "5 UP 2 DOWN", "casual", "standard", "casino", "3 points", "1 point",
                   "secrets.json"):
        assert needed in res.output, needed
    page = (ROOT / "docs" / "rules" / "proof-or-bluff.md").read_text()
    for needed in ("Classic", "5 Up 2 Down", "casual", "standard", "casino", "zkbluff rules"):
        assert needed in page, needed


def test_working_shows_elapsed_time_on_a_terminal_only(monkeypatch):
    import io
    import re
    import sys
    import time

    from zkbluff.cli.common import working

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    t0 = time.perf_counter()
    with working("proving", after=0.2):
        # a block that runs until the line shows (within a generous bound), not a fixed sleep
        # that a loaded machine's late thread could outlast
        while "proving" not in tty.getvalue() and time.perf_counter() - t0 < 60:
            time.sleep(0.01)
    took = time.perf_counter() - t0
    first = re.match(r"\rproving … (\d+) s", tty.getvalue())
    assert first and int(first.group(1)) <= took + 0.5, tty.getvalue()  # the seconds elapsed when it showed
    assert tty.getvalue().endswith("\r")  # and the line is cleared at the end
    quick = Tty()
    monkeypatch.setattr(sys, "stderr", quick)
    with working("proving", after=60.0):
        pass
    assert quick.getvalue() == ""  # done before the threshold: nothing shown
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    with working("proving", after=0.0):
        time.sleep(0.2)
    assert piped.getvalue() == ""


def test_play_prompt_messages_have_no_internal_prefix(tmp_path):
    _, res = _play(tmp_path, "many", ["--seed", "7"], "1 2 3 4 5\n")
    refused = [ln for ln in res.output.splitlines() if "not allowed" in ln]
    assert refused and "play 1 to 4 cards" in refused[0] and "play:" not in refused[0]
    _, ok = _play(tmp_path, "one", ["--seed", "7"], "1\n")
    assert "you play 1 card face down" in ok.output and "not allowed" not in ok.output
