"""Proof or Bluff's idle limit in the terminal: the rules page states it, the prompt shows
the time left, and a match resumed after the limit passed says at once that you forfeited
(the timeout and the end), instead of "not allowed: the match is over" at the next move.
The table's idle limit is shortened to the floor (20 s) for the test: the referee reads
its :class:`TimeLimits` where it is made, in this process."""
from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.games.engine import parties

IDLE = 21.0  # the floor (LIMIT_FLOORS["idle"] = 20 s), and a little


def test_the_rules_page_states_the_idle_limit():
    res = CliRunner().invoke(main, ["rules", "proof-or-bluff"])
    assert res.exit_code == 0
    assert "TIME LIMITS" in res.output and "10 minutes" in res.output and "you forfeit the match" in res.output
    assert "-o mode" not in res.output  # `play` takes --mode, not -o
    from zkbluff.games.proof_or_bluff import text

    limits = parties.TimeLimits()  # the words are the table's defaults
    assert (text.IDLE_SECONDS, text.PROOF_SECONDS) == (limits.idle, limits.proof)


@pytest.fixture
def short_idle(monkeypatch):
    real = parties.TimeLimits
    monkeypatch.setattr(parties, "TimeLimits", lambda: real(idle=IDLE))


@pytest.mark.slow
def test_resume_past_the_idle_limit_says_you_forfeited(tmp_path, short_idle):
    out = tmp_path / "m.jsonl"
    first = CliRunner().invoke(main, ["play", "--mode", "casual", "--seed", "1", "--out", str(out), "--plain"],
                               input="")
    assert first.exit_code == 2 and "stopped" in first.output, first.output
    assert "s left]" in first.output  # the prompt shows the clock
    time.sleep(IDLE + 1)
    again = CliRunner().invoke(main, ["play", "--resume", str(out), "--plain"], input="1\n")
    assert again.exit_code == 0, again.output
    text = again.output
    assert "while the match was stopped:" in text
    assert "you ran out of time (idle)" in text
    assert "you forfeit the match: no move in 21 s (the idle limit)" in text
    assert "house wins" in text
    assert "not allowed" not in text and "Your hand" not in text


@pytest.mark.slow
def test_resume_within_the_limit_warns_how_long_is_left(tmp_path, short_idle):
    out = tmp_path / "m.jsonl"
    CliRunner().invoke(main, ["play", "--mode", "casual", "--seed", "1", "--out", str(out), "--plain"], input="")
    time.sleep(IDLE / 2 + 1)  # more than half the limit gone: the consequence is said
    again = CliRunner().invoke(main, ["play", "--resume", str(out), "--plain"], input="")
    assert "left for this move; then you forfeit the match" in again.output, again.output
    assert "forfeit the match: no move" not in again.output
