"""The network's edges as a person meets them (issue 32, item 6): a web address is refused
with the ws:// one to try (not a traceback); a missing server is said at once ("cannot
connect to …", exit 2), not after a minute of silence or eight "connection lost;
reconnecting…" for a connection that never was; a seat coming back says once how long it
keeps trying; a server that never says hello is given up on; Ctrl-C in `join` says how to
come back to the seat; a room's "[away]" news never writes over an open prompt."""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
from click.testing import CliRunner

from repo_root import REPO_ROOT
from zkbluff.cli import main
from zkbluff.errors import MalformedInput


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("command", ["join", "watch"])
def test_a_web_address_is_refused_in_words(tmp_path, command):
    args = [command, "http://127.0.0.1:1", "ABCD2345"] + (["--home", str(tmp_path)] if command == "join" else [])
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and isinstance(res.exception, SystemExit)
    assert "web address" in res.output and "try ws://127.0.0.1:1" in res.output


@pytest.mark.parametrize("command", ["join", "watch"])
def test_a_missing_server_is_said_at_once(tmp_path, command):
    url = f"ws://127.0.0.1:{_free_port()}"
    args = [command, url, "ABCD2345"] + (["--home", str(tmp_path)] if command == "join" else [])
    t0 = time.monotonic()
    res = CliRunner().invoke(main, args)
    took = time.monotonic() - t0
    assert res.exit_code == 2, res.output
    assert f"cannot connect to {url}: connection refused" in res.output
    assert "reconnecting" not in res.output and "connection lost" not in res.output  # it never connected
    assert took < 15, took  # (before: watch was silent for 61 s)


def test_a_seat_coming_back_says_once_how_long_it_tries(tmp_path):
    from zkbluff.server.client import SeatClient, bot_policy, run

    code = "ABCD2345"
    (tmp_path / "tables" / code).mkdir(parents=True)
    (tmp_path / "tables" / code / "seat.json").write_text("{}")
    said: list[str] = []
    url = f"ws://127.0.0.1:{_free_port()}"
    client = SeatClient(url, tmp_path, "ann", bot_policy(1), said.append, reconnect_for=6.0)
    with pytest.raises(MalformedInput, match=f"cannot connect to {url}"):
        run(client.join(code))
    trying = [s for s in said if "trying again for up to" in s]
    assert len(trying) == 1 and said == trying, said


async def _silent_server(port: int, stop: asyncio.Event, hello: bool) -> None:
    from websockets.asyncio.server import serve

    async def handler(ws):
        if hello:
            await ws.send('{"type": "hello", "challenge": "00"}')
        await stop.wait()

    async with serve(handler, "127.0.0.1", port):
        await stop.wait()


class _Server:
    """A WebSocket server on a thread of its own that (``hello``) greets and then never
    says anything more, or never even greets."""

    def __init__(self, hello: bool):
        self.port = _free_port()
        self.loop = asyncio.new_event_loop()
        self.stop = asyncio.Event()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.call_soon(ready.set)
            self.loop.run_until_complete(_silent_server(self.port, self.stop, hello))

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait(5)
        time.sleep(0.3)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(5)


def test_a_server_that_never_says_hello_is_given_up_on(tmp_path, monkeypatch):
    from zkbluff.server import client as client_module
    from zkbluff.server.client import SeatClient, bot_policy, run

    monkeypatch.setattr(client_module, "HELLO_SECONDS", 1.0)
    server = _Server(hello=False)
    try:
        said: list[str] = []
        client = SeatClient(f"ws://127.0.0.1:{server.port}", tmp_path, "ann", bot_policy(1), said.append)
        with pytest.raises(MalformedInput, match="cannot connect to .*: no answer"):
            run(client.join("ABCD2345"))
        assert not any("reconnecting" in s for s in said), said
    finally:
        server.close()


def test_ctrl_c_in_join_says_how_to_come_back(tmp_path):
    """Before: "Aborted!" (exit 1). The seat's own folder decides the words: a seat kept
    there is come back to (test_server_reconnect plays that), else the join is tried again."""
    server = _Server(hello=True)
    url = f"ws://127.0.0.1:{server.port}"
    try:
        proc = subprocess.Popen([sys.executable, "-m", "zkbluff", "join", url, "ABCD2345", "--home", str(tmp_path)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")})
        time.sleep(3.0)  # (connected, the join sent, the server silent)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 2, out
        assert f"stopped before you had a seat; `zkbluff join {url} ABCD2345 --home {tmp_path}` tries again" in out, out
        assert "Aborted!" not in out and "Traceback" not in out
    finally:
        server.close()


def test_room_news_is_not_written_over_an_open_prompt(tmp_path):
    """Before: "[10 min left] positions to play: room X: playing; 2/2 seats: ann, bob [away]"."""
    import queue as _queue

    from zkbluff.server.client import SeatClient, prompt_policy

    lines: "_queue.Queue[str]" = _queue.Queue()
    out: list[str] = []
    policy = prompt_policy(read_line=lines.get, say=out.append, show=lambda t: out.append(f"{t}: <no newline>"))
    client = SeatClient("ws://127.0.0.1:1", tmp_path, "ann", policy, out.append)
    client.code = "ABCD2345"
    answer: list[str] = []
    asking = threading.Thread(target=lambda: answer.append(policy.terminal.ask("positions to play")))
    asking.start()
    for _ in range(100):
        if policy.terminal.waiting:
            break
        time.sleep(0.01)
    client._on_room({"code": "ABCD2345", "state": "playing", "seats": 2,
                     "members": [{"name": "ann", "bot": False, "connected": True},
                                 {"name": "bob", "bot": False, "connected": False}]})
    lines.put("1\n")
    asking.join(5)
    assert answer == ["1"]
    at = next(i for i, s in enumerate(out) if "[away]" in s)
    assert out[at - 1] == "" and out[at - 2].endswith("<no newline>")  # the prompt's line ended first
    assert out[at + 1] == "positions to play: <no newline>"  # and the prompt is shown again
    client._on_room({"code": "ABCD2345", "state": "playing", "seats": 2, "members": []})
    assert out[-1].startswith("room ABCD2345") and out[-2] != ""  # (no prompt open: said as it is)


def test_ctrl_c_while_a_kept_seat_tries_to_come_back(tmp_path):
    code = "ABCD2345"
    (tmp_path / "tables" / code).mkdir(parents=True)
    (tmp_path / "tables" / code / "seat.json").write_text("{}")
    url = f"ws://127.0.0.1:{_free_port()}"
    proc = subprocess.Popen([sys.executable, "-m", "zkbluff", "join", url, code, "--home", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")})
    time.sleep(3.0)  # (trying again: a seat coming back keeps trying for its window)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 2, out
    assert "trying again for up to 2 min" in out
    assert "Your seat is kept" in out and f"`zkbluff join {url} {code} --home {tmp_path}` comes back to it" in out
