"""The terminal's input in a real pty (issue 32, item 4): a card typed by name, an empty
Enter refused (5 Up 2 Down's included: "none" is typed), and type-ahead discarded across a
proof: keys pressed while the client proves (or the other seats move) must not answer the
next prompt. In a real pty:
the local terminal (`zkbluff play`) and a networked seat's terminal
(:class:`~zkbluff.server.terminal.Terminal`, what `join` and `host` ask through) flush the
terminal's pending input before every prompt; input from a pipe (a script) is kept."""
from __future__ import annotations

import os
import sys
import textwrap
import time

import pytest

from pty_child import Pty
from repo_root import REPO_ROOT


CHILD = textwrap.dedent("""
    import sys, time
    from zkbluff.server.terminal import Terminal, discard_typeahead
    mode = sys.argv[1]
    if mode == "local":
        print("busy", flush=True); time.sleep(1.0)   # (a proof)
        discard_typeahead()
        print("got", repr(input("prompt> ")), flush=True)
    else:
        t = Terminal()
        print("first", repr(t.ask("first> ")), flush=True)
        print("busy", flush=True); time.sleep(1.0)
        print("second", repr(t.ask("second> ")), flush=True)
""")


def test_keys_typed_during_a_proof_do_not_answer_the_next_prompt():
    child = Pty(["-c", CHILD, "local"])
    try:
        child.expect(b"busy")
        child.type("junk\n")
        child.expect(b"prompt> ")
        child.type("real\n")
        child.expect(b"got ")
        child.expect(b"\n", after=child.buf.find(b"got "))
        assert "got 'real'" in child.text(), child.text()
    finally:
        child.close()


def test_a_networked_seats_terminal_drops_what_was_typed_before_its_prompt():
    child = Pty(["-c", CHILD, "network"])
    try:
        child.expect(b"first> ")
        child.type("one\n")
        child.expect(b"busy")
        child.type("junk\n")
        child.expect(b"second> ")
        time.sleep(0.2)
        child.type("real\n")
        child.expect(b"second '")
        child.expect(b"\n", after=child.buf.find(b"second '"))
        out = child.text()
        assert "first 'one'" in out and "second 'real'" in out, out
    finally:
        child.close()


def test_a_pipe_keeps_its_lines():
    """The twin: a script's lines are not type-ahead (nothing is dropped from a pipe)."""
    import subprocess

    res = subprocess.run([sys.executable, "-c", CHILD, "network"], input="one\ntwo\n", capture_output=True,
                         text=True, timeout=30, env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")})
    assert "first 'one'" in res.stdout and "second 'two'" in res.stdout, res.stdout + res.stderr


@pytest.mark.slow  # (a whole `zkbluff play` start-up: about 10 s on a loaded machine)
def test_play_drops_keys_typed_while_the_move_is_proved(tmp_path):
    """`zkbluff play` in a pty: "1" and, at once, a stray "zz" line while the move is proved
    and the house answers; the next prompt is not answered by it (before: "not allowed:
    'zz': no card of your hand is called that")."""
    child = Pty(["-m", "zkbluff", "play", "--mode", "casual", "--seed", "1", "--out", str(tmp_path / "m.jsonl"),
                 "--plain"])
    try:
        child.expect(b"Cards to play", seconds=90)
        child.type("1\n")
        child.type("zz\n")
        at = child.expect(b"you play 1 card")
        child.expect(b"left] ", after=at)  # the next prompt is up
        child.drain(2.0)
        out = child.text()
        assert "not allowed" not in out and "answer a (accept)" not in out, out[-2000:]
    finally:
        child.close()


@pytest.mark.slow  # (a whole `zkbluff play` start-up: about 10 s on a loaded machine)
def test_play_takes_a_card_by_name_in_upper_case_and_refuses_an_empty_enter(tmp_path):
    import re

    child = Pty(["-m", "zkbluff", "play", "--mode", "casual", "--seed", "1", "--out", str(tmp_path / "m.jsonl"),
                 "--plain"])
    try:
        at = child.expect(b"Cards to play", seconds=90)
        hand = re.search(r"Your hand: 1:(\S+)", child.text()).group(1)
        child.type("\n")
        child.expect(b"not allowed: name at least one card", after=at)
        child.expect(b"Cards to play", after=child.buf.find(b"not allowed"))
        child.type(hand.upper() + "\n")
        child.expect(b"you play 1 card face down")
    finally:
        child.close()


@pytest.mark.slow  # (a whole `zkbluff play` start-up: about 10 s on a loaded machine)
def test_five_up_two_down_needs_none_typed(tmp_path):
    child = Pty(["-m", "zkbluff", "play", "five-up-two-down", "--mode", "casual", "--seed", "1", "--out",
                 str(tmp_path / "m.jsonl"), "--plain"])
    try:
        child.expect(b"'K K', or 'none')", seconds=90)  # (seed 1: you claim first)
        child.type("\n")  # before: an empty Enter claimed "none"
        at = child.expect(b"not allowed: name the board ranks you match, or type 'none' to claim no match")
        child.expect(b"'K K', or 'none')", after=at)  # asked again (what is typed before it is type-ahead)
        child.type("none\n")
        child.expect(b"you claim no match")
    finally:
        child.close()
