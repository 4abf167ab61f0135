"""The house calls a seat's line stale and asks again: over the network the client sends
the same move again, re-stamped, never a second move for one line. (The engine's seat
refuses the second move itself: tests/games/engine/test_seat_equivocation.py.)"""
from __future__ import annotations

import asyncio

import pytest

from zkbluff.errors import Equivocation
from zkbluff.games.engine.table import open_match
from zkbluff.games.mind_bluff.bot import Move
from zkbluff.games.mind_bluff.rules import Eat
from zkbluff.protocol.transcript import TranscriptWriter
from zkbluff.server.client import SeatClient, _Closed


class Clock:
    def __init__(self, t: float = 7000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


class HouseThatCallsItStale:
    """A server that answers the seat's line with 'stale' once, then records what comes."""

    def __init__(self):
        self.inbox = [{"type": "error", "about": "line", "error": "IllegalMove",
                       "message": "line 3 is stamped 7000.0; the referee's clock reads 7030.0"}]
        self.sent = []
        self.challenge = ""

    async def recv(self):
        if not self.inbox:
            raise _Closed("the house hangs up")
        return self.inbox.pop(0)

    async def recv_timed(self):
        return await self.recv(), None

    def stop(self):
        pass

    async def send(self, msg):
        self.sent.append(msg)


def _move_of(line):
    return {k: v for k, v in line.items() if k not in ("at", "sig", "received")}


def test_a_client_answers_stale_with_the_same_move_restamped_never_a_second_move(tmp_path):
    clock = Clock()
    tab = open_match("mind-bluff", {"humans": "none"}, ["ann", "bob"], transcript=tmp_path / "m.jsonl",
                     match_id="client-stale", clock=clock)
    asked = []

    def policy(spec, obs, names):  # would eat 3 this time, if the client asked it again
        asked.append(obs)
        return Move(Eat(), 3)

    client = SeatClient("ws://127.0.0.1:9", tmp_path / "home", "ann", policy, say=lambda m: None)
    client.code, client.match_id, client.seat = "ABCDEFGH", tab.match_id, tab.seats[0]
    client.folder.mkdir(parents=True)
    client.writer = TranscriptWriter(client.transcript_path(tab.match_id), events=list(tab.writer.events))
    first = tab.seats[0].move(Move(Eat(), 1))   # sent, and held back by the house
    client._last_line = first
    clock.t += 30
    house = HouseThatCallsItStale()
    with pytest.raises(_Closed):
        asyncio.run(client._loop(house))
    lines = [m["line"] for m in house.sent if m.get("type") == "line"]
    assert len(lines) == 1 and not asked                      # the policy was not asked for another move
    assert _move_of(lines[0]) == _move_of(first) and lines[0]["at"] == clock.t != first["at"]
    assert client._last_line == lines[0]
    saved = client._load_saved(tab.match_id)
    assert saved["seat"]["signed"] == lines[0]                # on disk before it left
    with pytest.raises(Equivocation):
        client.seat.move(Move(Eat(), 3))                      # and the seat itself refuses a second move
    tab.submit(lines[0])                                      # the same move stands at its line
    assert _move_of(tab.writer.events[first["n"] - 1]) == _move_of(first)


def test_a_house_bot_that_signed_before_a_restart_sends_the_same_move(tmp_path):
    """The server saves a bot's secrets (its signed line with them) before it writes the
    line; killed in between, the restored bot must not make another move for that line
    (it would be refused: Equivocation) but send the one it signed, re-stamped."""
    from types import SimpleNamespace

    from zkbluff.games.mind_bluff.bot import HouseBot
    from zkbluff.server.app import RoomHost

    clock = Clock()
    tab = open_match("mind-bluff", {"humans": "none"}, ["house", "bob"], transcript=tmp_path / "m.jsonl",
                     match_id="bot-restart", clock=clock)
    signed = tab.seats[0].move(Move(Eat(), 1))  # saved, then the server was killed
    clock.t += 30
    host = RoomHost.__new__(RoomHost)
    host.table, host.bot_seats, host.bots = tab, {0: tab.seats[0]}, {0: HouseBot(3)}
    host.persist, host.room = (lambda table: None), SimpleNamespace(code="ABCDEFGH")
    assert host._bot_move(0, None)
    written = tab.writer.events[signed["n"] - 1]
    assert _move_of(written) == _move_of(signed) and written["at"] == clock.t


def _client_at(tmp_path, match_id):
    """A Mind Bluff table on the injected clock and ann's client at it, its policy (never asked
    in the first test) answering Eat 3, as a move already chosen (``_intent``)."""
    clock = Clock()
    tab = open_match("mind-bluff", {"humans": "none"}, ["ann", "bob"], transcript=tmp_path / "m.jsonl",
                     match_id=match_id, clock=clock)
    client = SeatClient("ws://127.0.0.1:9", tmp_path / "home", "ann", lambda *a: Move(Eat(), 3),
                        say=lambda m: None)
    client.code, client.match_id, client.seat = "ABCDEFGH", tab.match_id, tab.seats[0]
    client.folder.mkdir(parents=True)
    client.writer = TranscriptWriter(client.transcript_path(tab.match_id), events=list(tab.writer.events))
    client._intent = Move(Eat(), 3)
    return clock, tab, client


def _sent_lines(client):
    house = HouseThatCallsItStale()
    asyncio.run(client._move(house))
    return [m["line"] for m in house.sent if m.get("type") == "line"]


def test_a_client_whose_seat_signed_here_already_sends_that_line_not_the_policys(tmp_path):
    """The client's own files say its seat signed line n (its pending line lost with a break):
    at its turn it sends that line re-stamped; asking the policy would make Seat.move refuse
    every answer (Equivocation) and a bot would ask forever."""
    clock, tab, client = _client_at(tmp_path, "client-signed-here")
    first = tab.seats[0].move(Move(Eat(), 1))
    clock.t += 30
    lines = _sent_lines(client)
    assert len(lines) == 1 and _move_of(lines[0]) == _move_of(first) and lines[0]["at"] == clock.t
    assert client._last_line == lines[0] and client._load_saved(tab.match_id)["seat"]["signed"] == lines[0]


def test_a_client_whose_seat_signed_nothing_here_proves_the_policys_move(tmp_path):
    clock, tab, client = _client_at(tmp_path, "client-fresh")
    lines = _sent_lines(client)
    assert len(lines) == 1 and lines[0]["n"] == tab.view.next_line and client.moves == 1
    assert tab.seats[0].signed_here() == lines[0]
