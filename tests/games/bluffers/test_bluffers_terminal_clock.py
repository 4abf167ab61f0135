"""Bluffers' 30-second move timer in the terminal (`zkbluff play bluffers` in a real pty,
nobody typing): the prompt shows the seconds left, a warning comes 10 seconds before the
end, the prompt is withdrawn when the time runs out, and the terminal says what the clock
did: an automatic card played (its pick's proof on the line), never "calls bluff"."""
from __future__ import annotations

import os
import select
import sys
import time

import pytest

from repo_root import REPO_ROOT


def _run_silent(out, seconds, until):
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI on this worktree's source, in the pty
        os.environ["PYTHONPATH"] = str(REPO_ROOT / "src")
        os.environ.pop("NO_COLOR", None)
        os.execv(sys.executable, [sys.executable, "-m", "zkbluff", "play", "bluffers", "--seed", "1", "--out",
                                  str(out), "--plain"])
    buf = b""
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < seconds and not until(buf):
            ready, _, _ = select.select([fd], [], [], 1.0)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                buf += data
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)
    return buf.decode(errors="replace").replace("\r", "")


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
