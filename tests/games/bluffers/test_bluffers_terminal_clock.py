"""Bluffers' 30-second move timer in the terminal (`zkbluff play bluffers` in a real pty,
nobody typing): the prompt shows the seconds left, a warning comes 10 seconds before the
end, the prompt is withdrawn when the time runs out, and the terminal says what the clock
did: an automatic card played (its pick's proof on the line), never "calls bluff"."""
from __future__ import annotations


import pytest

from pty_child import run_cli


def _run_silent(out, seconds, until):
    """`zkbluff play bluffers` in a pty with nobody typing, until ``until(output)``."""
    args = ["play", "bluffers", "--seed", "1", "--out", str(out), "--plain"]
    return run_cli(args, lambda text: until(text.encode()), seconds, unset=["NO_COLOR"])


@pytest.mark.slow
def test_the_move_timer_counts_down_warns_and_says_the_automatic_card(tmp_path):
    out = _run_silent(tmp_path / "b.jsonl", 150, lambda b: b"house to move" in b.split(b"time is up")[-1]
                      if b"time is up" in b else False)
    assert "clock: 30 s left for this move; then one card your own committed seed picks is played for you" in out
    assert "[30 s left] positions to play" in out
    assert "10 s left!" in out and "[10 s left] positions to play" in out
    after = out.split("time is up: one card your own committed seed picks is played for you", 1)
    assert len(after) == 2, out[-2000:]
    rest = after[1]
    assert "your 30 seconds ran out." in rest
    assert "you (time ran out): one card, picked by the seat's own committed seed, is played face down." in rest
    assert "calls bluff" not in rest.split("house to move")[0]
    assert "clock: 10 min" not in rest  # the automatic card is the client's to make, not a prompt
