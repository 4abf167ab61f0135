"""A person who never answers the prompt: the seat's client must keep following the table
(the referee's clock runs out, the seat owes its automatic move, the match ends) instead of
sitting in the prompt. The terminal is injected (a ``read_line`` that never returns); the
server's and the client's clock is one shared clock the test moves past a limit once the
prompt is on screen (no sleeping past real limits, no race on wall time)."""
import asyncio
import queue
import threading
import time

import pytest

from serving import serving
from zkbluff.server.app import Server
from zkbluff.server.client import SeatClient, prompt_policy
from zkbluff.server.terminal import PromptCancelled, Terminal, in_thread

STEP = 180


def wait_for(condition, seconds=10.0):
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.01)


class Keyboard:
    """A terminal's input that the test types into (``type``) or never does."""

    def __init__(self):
        self.keys = queue.Queue()

    def read_line(self):
        return self.keys.get()

    def type(self, text):
        self.keys.put(text + "\n")


def asking(terminal, text):
    """``terminal.ask(text)`` in a thread; a box with its answer or its exception."""
    box = {}

    def run():
        try:
            box["answer"] = terminal.ask(text)
        except BaseException as exc:  # noqa: BLE001
            box["error"] = exc
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


# ---------------------------------------------------------------- the terminal

def test_a_prompt_gets_the_next_line_typed():
    keyboard, shown = Keyboard(), []
    terminal = Terminal(keyboard.read_line, shown.append)
    thread, box = asking(terminal, "cards to play")
    wait_for(lambda: terminal.asked == 1)
    keyboard.type("1 3")
    thread.join(10)
    assert box == {"answer": "1 3"} and shown == ["cards to play"]


def test_a_prompt_called_off_raises_and_its_late_answer_is_not_the_next_prompts():
    keyboard = Keyboard()
    terminal = Terminal(keyboard.read_line, lambda t: None)
    thread, box = asking(terminal, "first")
    wait_for(lambda: terminal.asked == 1)
    terminal.cancel()  # the table moved on
    thread.join(10)
    assert isinstance(box.get("error"), PromptCancelled) and terminal.cancelled == 1
    # an answer typed for the prompt called off (read before the next prompt) is dropped
    keyboard.type("for the first")
    wait_for(lambda: terminal._lines.qsize() == 1)
    terminal.cancel()
    thread, box = asking(terminal, "second")
    wait_for(lambda: terminal.asked == 2)
    keyboard.type("for the second")
    thread.join(10)
    assert box == {"answer": "for the second"}


def test_the_end_of_input_ends_every_prompt():
    keyboard = Keyboard()
    terminal = Terminal(keyboard.read_line, lambda t: None)
    keyboard.keys.put("")  # end of input
    for _ in range(2):
        thread, box = asking(terminal, "x")
        thread.join(10)
        assert isinstance(box.get("error"), EOFError)


def test_in_thread_hands_back_the_result_or_the_error_and_never_holds_the_loop_at_exit():
    async def run():
        assert await in_thread(lambda a, b: a + b, 2, 3) == 5
        with pytest.raises(ZeroDivisionError):
            await in_thread(lambda: 1 / 0)
        in_thread(threading.Event().wait)  # a prompt nobody answers: the loop still ends at once

    t = time.monotonic()
    asyncio.run(run())
    assert time.monotonic() - t < 5


# ---------------------------------------------------------------- at a networked table

class SharedClock:
    """The server's and the client's clock: wall time plus what the test added."""

    def __init__(self):
        self.ahead = 0.0

    def __call__(self):
        return time.time() + self.ahead


async def _never_answers(tmp_path, game, options, match_keys, until, answer=None, seals=True):
    """Host ``game`` with a house bot; the person's prompt never gets a line (or, with
    ``answer``, gets ``answer(prompt text)`` typed). Each time a new prompt is on screen
    unanswered the clock is moved past the game's limit for it (``until.seconds``). Returns
    the client, its task, the terminal and what was said, once ``until(client)`` holds.
    ``seals=False``: the client leaves no sealed automatic move with the referee (Bluffers)."""
    clock = SharedClock()
    server = Server(tmp_path / "data", key_folder=match_keys, clock=clock, tick=0.05)
    task, url = await serving(server)
    nobody = threading.Event()  # never set: the person never types anything
    keyboard = Keyboard()
    said = []
    if answer is None:
        policy = prompt_policy(read_line=lambda: nobody.wait() or "", say=said.append)
    else:
        policy = prompt_policy(read_line=keyboard.read_line, say=said.append,
                               show=lambda text: keyboard.type(answer(text)))
    client = SeatClient(url, tmp_path / "ann", "ann", policy, said.append, key_folder=match_keys,
                        add_bots=("robo",), clock=clock)
    if not seals:
        async def no_seal(conn):
            return None
        client._seal = no_seal
    playing = asyncio.ensure_future(client.host(game, options))
    moved = 0

    def sealed():
        """Bluffers: the client proves its chain of sealed moves in the background while the
        prompt is on screen (a second or so; the person has 30): the clock moves once the
        referee holds it."""
        if not seals or game != "bluffers":
            return True
        host = server.rooms.get(client.code) if client.code is not None else None
        table = host.table if host is not None else None
        return table is None or client.seat is None or \
            bool(table.referee.private.get("seals", {}).get(str(client.seat.seat)))

    try:
        while not until(client) and not playing.done():
            if answer is None and policy.terminal.asked > moved and sealed():  # a prompt unanswered: time runs out
                moved = policy.terminal.asked
                clock.ahead += until.seconds + 1.0
            await asyncio.sleep(0.05)
        return client, playing, policy.terminal, said
    finally:
        if not playing.done():
            playing.cancel()
        task.cancel()
        server.close()


def events_of(client):
    return client.writer.events if client.writer is not None else []


def test_a_person_who_never_answers_is_timed_out_and_the_client_sees_the_end(tmp_path, match_keys):
    """Proof or Bluff: the person's idle turn runs out (the header's ``idle`` limit); the
    client, not stuck in the prompt, follows the timeout and the end, calls off the prompt,
    and verifies its copy."""
    def until(client):
        return False  # to the end: the client's own report
    until.seconds = 600.0  # the idle limit

    client, playing, terminal, said = asyncio.run(asyncio.wait_for(
        _never_answers(tmp_path, "proof-or-bluff", {"mode": "casual", "deal": "dealer"}, match_keys, until),
        STEP * 2))
    report = playing.result()
    assert report["verified"]["complete"] and report["result"] is not None
    lines = events_of(client)
    timeouts = [e for e in lines if e["action"] == "timeout"]
    assert timeouts and timeouts[0]["data"]["seat"] == client.seat.seat and lines[-1]["action"] == "end"
    assert terminal.asked >= 1 and terminal.cancelled >= 1
    # the clock was in view before the prompt, and its outcome is said when it passed
    assert any(x.startswith("  clock: 10 min left for this move; then you forfeit the match") for x in said), said
    assert "  (time is up: your prompt was withdrawn)" in said
    assert any("forfeits the match: no move in 10 minutes (the idle limit)" in x for x in said)
    # every line of this seat's in its copy is one it noted before sending, signed by its key
    import json as _json

    sent = [_json.loads(x) for x in client.sent_path(client.match_id).read_text().splitlines()]
    mine = [{k: v for k, v in e.items() if k != "received"} for e in lines  # as sent: before the referee's receipt
            if e["seat"] == client.seat.seat]
    assert mine and all(e in [s["line"] for s in sent] for e in mine)
    assert all(s["line"]["seat"] == client.seat.seat and isinstance(s["sentAt"], float) for s in sent)


def test_a_bluffers_seat_that_never_answers_has_its_card_played_by_its_own_client(tmp_path, match_keys):
    """Bluffers: the 30-second move timer runs out while the prompt waits; the referee writes
    ``timeout``, and the seat's own client proves and sends the automatic move (the card its
    seed picks): the seat plays on, it is not forfeited. (A client that left its sealed
    automatic move with the referee has it played by the referee instead, the next test; this
    is the client's own fallback, for a seat that left none.)"""
    def until(client):
        lines = events_of(client)
        out = [i for i, e in enumerate(lines) if e["action"] == "timeout"]
        return bool(out) and any(e["action"] == "auto_move" and e["seat"] == client.seat.seat
                                 for e in lines[out[0]:])
    until.seconds = 30.0  # Bluffers' move timer

    client, playing, terminal, said = asyncio.run(asyncio.wait_for(
        _never_answers(tmp_path, "bluffers", {"players": "2"}, match_keys, until, seals=False), STEP * 2))
    lines = events_of(client)
    first = next(i for i, e in enumerate(lines) if e["action"] == "timeout")
    auto = next(e for e in lines[first:] if e["action"] == "auto_move")
    assert auto["seat"] == client.seat.seat and auto["data"]["reason"] == "timeout"
    assert auto["sig"] and client.moves >= 1  # made and proven on this client
    assert not any(e["action"] in ("forfeit", "sealed_move") for e in lines)
    assert terminal.asked >= 1 and "  (time is up: your prompt was withdrawn)" in said
    assert any(x.startswith("  clock: 30 s left for this move; then one card your own committed seed picks is "
                            "played for you") for x in said), said
    assert any("(time ran out): one card, picked by the seat's own committed seed, is played" in x
               for x in said) and not any("calls bluff" in x for x in said)


def test_a_bluffers_seat_that_never_answers_has_its_sealed_card_played_by_the_referee(tmp_path, match_keys):
    """Bluffers, the client as it runs: it left its sealed automatic move for the turn with
    the referee, so when the 30 seconds run out the referee plays it (``sealed_move``, the
    seat's own proofs) right after the ``timeout``; the seat plays on, it is not forfeited."""
    def until(client):
        lines = events_of(client)
        return any(e["action"] == "sealed_move" for e in lines)
    until.seconds = 30.0

    client, playing, terminal, said = asyncio.run(asyncio.wait_for(
        _never_answers(tmp_path, "bluffers", {"players": "2"}, match_keys, until), STEP * 2))
    lines = events_of(client)
    k = next(i for i, e in enumerate(lines) if e["action"] == "sealed_move")
    assert lines[k - 1]["action"] == "timeout" and lines[k - 1]["data"]["seat"] == client.seat.seat
    assert lines[k]["data"]["seat"] == client.seat.seat and lines[k]["seat"] is None
    assert not any(e["action"] == "forfeit" for e in lines)


def test_a_typo_at_the_prompt_asks_again(tmp_path, match_keys):
    """The person's first answer is not a move ("zz"): the client says why and asks again;
    the next answer is proven and written."""
    answers = iter(["zz"])

    def answer(text):
        first = next(answers, None)
        if first is not None:
            return first
        return "a" if text.startswith("[a]ccept") else "1"

    def until(client):
        return any(e["seat"] == client.seat.seat and e["action"] in ("play", "accept", "challenge")
                   for e in events_of(client))
    until.seconds = 0.0

    client, playing, terminal, said = asyncio.run(asyncio.wait_for(
        _never_answers(tmp_path, "proof-or-bluff", {"mode": "casual", "deal": "dealer"}, match_keys, until,
                       answer), STEP * 2))
    assert any(x.startswith("  not allowed: ") for x in said) and terminal.asked >= 2
    assert client.moves >= 1 and not any("called off" in x for x in said)  # refused, not called off
