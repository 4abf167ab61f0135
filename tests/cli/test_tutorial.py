"""`zkbluff tutorial [GAME]` (cli/tutorial.py): a guided first match against the bots, in
a real pty: the game's introduction, a tip the first time each kind of line appears, what
the prompt asks for before your first move of its kind, and what each kind of proof
disclosed; offered once by `zkbluff play` (a marker in the player's home)."""
from __future__ import annotations


import pytest
from click.testing import CliRunner

from pty_child import run_cli
from zkbluff.cli import main


def _drive(args, home, answers, until, seconds=120):
    """Run the CLI in a pty; answer each prompt from ``answers`` (a function of the output so
    far); stop at ``until(output)``."""
    return run_cli(args, until, seconds, answers, env={"ZKBLUFF_HOME": str(home)})


def _pob_answer(out):
    last = out.rsplit("[", 1)[-1]
    return "c" if "accept" in last.lower() or "challenge" in last.lower() else "1"


@pytest.mark.slow
def test_the_proof_or_bluff_tutorial_explains_between_the_moves(tmp_path):
    out = _drive(["tutorial", "--seed", "2", "--plain", "--out", str(tmp_path / "t.jsonl")], tmp_path / "home",
                 _pob_answer, lambda b: b.count("what the proof disclosed") >= 2 and "tip: a challenge" in b)
    assert out.startswith("Welcome to Proof or Bluff, a guided first match")
    assert "mode casual" in out  # the shortest match
    assert "coach: your turn. Type the cards to play" in out
    assert out.index("coach: your turn") < out.index("Cards to play as")  # said before the prompt it explains
    assert "what the proof disclosed: card.play.v1 by " in out
    assert "tip: a challenge makes the claimant's client prove the claim" in out
    assert out.count("coach: your turn") == 1  # each explanation once
    assert (tmp_path / "home" / "tutorial-offered").exists()
    assert "New to zkbluff?" not in out  # the tutorial is not offered inside itself


@pytest.mark.slow
def test_the_bluffers_tutorial_explains_the_revolver(tmp_path):
    out = _drive(["tutorial", "bluffers", "--seed", "1", "--plain", "--out", str(tmp_path / "b.jsonl")],
                 tmp_path / "home", lambda o: "1", lambda b: "coach: your turn" in b and "tip: a play" in b)
    assert out.startswith("Welcome to Bluffers, a guided first match")
    assert "tip: each player commits to a secret seed for its revolver" in out
    assert out.index("coach: your turn") < out.index("left] ")


def test_play_offers_the_tutorial_once(tmp_path, monkeypatch):
    from zkbluff.cli import tutorial

    monkeypatch.setenv("ZKBLUFF_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    script = CliRunner().invoke(main, ["play", "bluffers", "--seed", "1", "--plain", "--out", "s.jsonl"], input="")
    assert "New to zkbluff?" not in script.output  # a script (no terminal) is not offered it
    assert not (tmp_path / "home" / "tutorial-offered").exists()
    monkeypatch.setattr(tutorial, "_interactive", lambda: True)  # a person at a terminal
    first = CliRunner().invoke(main, ["play", "bluffers", "--seed", "1", "--plain", "--out", "a.jsonl"], input="")
    assert "New to zkbluff? `zkbluff tutorial` plays a guided first match" in first.output, first.output
    assert "bluffers" in first.output.split("New to zkbluff?")[1].splitlines()[0]
    assert (tmp_path / "home" / "tutorial-offered").exists()
    again = CliRunner().invoke(main, ["play", "bluffers", "--seed", "1", "--plain", "--out", "b.jsonl"], input="")
    assert "New to zkbluff?" not in again.output


def test_a_game_without_a_tutorial_is_refused_with_the_list(tmp_path, monkeypatch):
    monkeypatch.setenv("ZKBLUFF_HOME", str(tmp_path / "home"))
    res = CliRunner().invoke(main, ["tutorial", "cheat"])
    assert res.exit_code == 2 and "tutorials: bluffers, proof-or-bluff" in res.output
    assert not (tmp_path / "home").exists()


def _bluffers_answer(out):
    """Play the first card; call when the table says a call is all that is left."""
    last = out.rsplit("left] ", 2)
    return "c" if len(last) == 3 and "must call bluff" in last[1] else "1"


@pytest.mark.slow
def test_a_whole_guided_bluffers_match_ends_with_the_review_offered(tmp_path):
    out = _drive(["tutorial", "bluffers", "--seed", "4", "--plain", "--out", str(tmp_path / "b.jsonl")],
                 tmp_path / "home", _bluffers_answer, lambda b: "shows the match again from your seat" in b,
                 seconds=400)
    assert "coach: that was a whole match with real proofs" in out, out[-2000:]
    assert f"zkbluff review {tmp_path / 'b.jsonl'}" in out
    assert "tip: each standing player gives a proven share of the pull" in out
    assert "what the proof disclosed: revolver.share.v1 by " in out
    from zkbluff.games.engine.review import build_review, load_secrets
    from zkbluff.games.engine.table import secrets_path

    review = build_review(tmp_path / "b.jsonl", 0, load_secrets(secrets_path(tmp_path / "b.jsonl", "seat0")))
    assert review.summary["complete"] and any(s.hand for s in review.steps)
