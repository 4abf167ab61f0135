"""Issue 27 item 7: what one address may hold on a server (RoomLimits): rooms created,
unused rooms kept, connections that never sign in, connections at once; and a finished
room watched again is not rebuilt each time. Clocks injected: no sleeps but the release
the server schedules itself."""
from __future__ import annotations

import asyncio
import json

import pytest

from zkbluff.errors import MalformedInput
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.app import Conn, RoomHost, Server
from zkbluff.server.protocol import sign_auth
from zkbluff.server.rooms import RoomLimits, RoomState


class FakeWS:
    def __init__(self):
        self.sent, self.closed = [], None

    async def send(self, raw):
        self.sent.append(json.loads(raw))

    async def close(self, code=1000, reason=""):
        self.closed = (code, reason)


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


def _server(tmp_path, **limits):
    clock = Clock()
    return Server(tmp_path / "d", clock=clock, room_limits=RoomLimits(**limits) if limits else None), clock


def _conn(server, address="10.0.0.1"):
    conn = Conn(FakeWS(), f"c{server._next_conn}", address)
    server._next_conn += 1
    return conn


def _ask(server, conn, msg, key=None):
    if key is not None:
        msg = sign_auth(key, msg, conn.challenge)
    n = len(conn.ws.sent)
    asyncio.run(server.on_message(conn, json.dumps(msg)))
    return conn.ws.sent[n:]


def _create(server, address="10.0.0.1", game="bluffers"):
    conn = _conn(server, address)
    assert server.admit(conn)
    return conn, _ask(server, conn, {"type": "create", "game": game, "name": "ann"}, SigningKey.generate())[-1]


# ---------------------------------------------------------------- rooms created per address

def test_attack_one_address_creates_rooms_without_limit(tmp_path):
    """The old server let one address create 300 rooms in 8.4 s (folders kept forever)."""
    server, clock = _server(tmp_path, max_connections=100)
    replies = [_create(server)[1] for _ in range(30)]
    made = [r for r in replies if r["type"] == "room"]
    assert len(made) == RoomLimits().create_burst and len(server.rooms) == len(made)
    refused = [r for r in replies if r["type"] == "error"]
    assert refused and all(r["error"] == "MalformedInput" and "too many rooms" in r["message"] for r in refused)
    assert len(list((tmp_path / "d" / "rooms").iterdir())) == len(made)  # a refusal leaves no folder
    server.close()


def test_twin_another_address_and_time_passing_may_create(tmp_path):
    server, clock = _server(tmp_path, create_burst=1, create_rate=0.1)
    assert _create(server)[1]["type"] == "room"
    assert _create(server)[1]["type"] == "error"
    assert _create(server, "10.0.0.2")[1]["type"] == "room"  # its own bucket
    clock.now += 10.0
    assert _create(server)[1]["type"] == "room"
    server.close()


# ---------------------------------------------------------------- unused rooms expire

def _leave(server, conn):
    server.detach(conn)


def test_attack_an_unused_room_is_kept_forever(tmp_path):
    server, clock = _server(tmp_path, room_expiry=60.0)
    conn, room = _create(server)
    folder = tmp_path / "d" / "rooms" / room["code"]
    asyncio.run(_detach_and_sweep(server, conn, clock, 61.0))
    assert room["code"] not in server.rooms and not folder.exists()
    server.close()


async def _detach_and_sweep(server, conn, clock, later):
    server.detach(conn)
    await asyncio.sleep(0)  # (the state broadcast detach scheduled)
    clock.now += later
    await server.sweep()


def test_twin_a_room_within_its_expiry_or_with_someone_in_it_or_started_stays(tmp_path):
    server, clock = _server(tmp_path, room_expiry=60.0)
    waiting, room1 = _create(server)          # the owner is still connected
    left, room2 = _create(server)             # left, but only 59 s ago
    asyncio.run(_detach_and_sweep(server, left, clock, 59.0))
    assert {room1["code"], room2["code"]} <= set(server.rooms)
    clock.now += 3600.0
    asyncio.run(server.sweep())
    assert room1["code"] in server.rooms and room2["code"] not in server.rooms
    # a started room is a match: never expired
    host = server.rooms[room1["code"]]
    host.room.state = RoomState.PLAYING
    asyncio.run(_detach_and_sweep(server, waiting, clock, 10 * 3600.0))
    assert room1["code"] in server.rooms and host.folder.exists()
    server.close()


def test_a_loaded_lobby_room_expires_from_the_restart(tmp_path):
    server, clock = _server(tmp_path, room_expiry=60.0)
    conn, room = _create(server)
    server.close()
    again = Server(tmp_path / "d", clock=clock, room_limits=RoomLimits(room_expiry=60.0))
    again.load()
    asyncio.run(again.sweep())
    assert room["code"] in again.rooms  # the clock starts at the load
    clock.now += 61.0
    asyncio.run(again.sweep())
    assert room["code"] not in again.rooms
    again.close()


# ---------------------------------------------------------------- the sign-in deadline

def test_attack_a_connection_that_never_signs_in_is_held_open(tmp_path):
    server, clock = _server(tmp_path, signin_timeout=30.0)
    idle = _conn(server)
    assert server.admit(idle)
    clock.now += 31.0
    asyncio.run(server.sweep())
    assert idle.ws.closed == (1008, "sign-in deadline")
    assert idle.ws.sent[-1]["error"] == "MalformedInput" and "sign-in deadline" in idle.ws.sent[-1]["message"]
    server.close()


def test_twin_a_connection_that_signed_in_or_is_within_the_deadline_stays(tmp_path):
    server, clock = _server(tmp_path, signin_timeout=30.0)
    seated, _ = _create(server)
    fresh = _conn(server)
    clock.now += 29.0
    assert server.admit(fresh)
    clock.now += 2.0
    asyncio.run(server.sweep())
    assert seated.ws.closed is None and fresh.ws.closed is None
    server.close()


# ---------------------------------------------------------------- connections per address

def test_attack_one_address_holds_unlimited_sockets(tmp_path):
    """The old server kept 400 idle sockets from one address."""
    server, clock = _server(tmp_path, max_connections=3)
    conns = [_conn(server) for _ in range(5)]
    assert [server.admit(c) for c in conns] == [True, True, True, False, False]
    assert server.admit(_conn(server, "10.0.0.2"))  # another address has its own count
    server.detach(conns[0])
    server.detach(conns[0])  # (twice: counted once)
    assert server.admit(_conn(server)) and not server.admit(_conn(server))
    server.close()


def test_the_handler_refuses_a_connection_over_the_cap_before_its_hello(tmp_path):
    server, clock = _server(tmp_path, max_connections=1)

    class WS(FakeWS):
        remote_address = ("10.0.0.9", 5)

        def __aiter__(self):
            return self

        async def __anext__(self):
            raise StopAsyncIteration

    held = _conn(server, "10.0.0.9")
    assert server.admit(held)
    ws = WS()
    asyncio.run(server.handler(ws))
    assert ws.closed == (1013, "too many connections from this address")
    assert [m["type"] for m in ws.sent] == ["error"]
    assert server.per_address == {"10.0.0.9": 1}  # the refused one took nothing
    server.close()


@pytest.mark.parametrize("bad", [{"create_rate": 0}, {"create_burst": 0}, {"room_expiry": -1},
                                 {"signin_timeout": "30"}, {"max_connections": 1.5}, {"max_connections": True}])
def test_room_limits_refuse_what_is_not_a_limit(bad):
    with pytest.raises(MalformedInput):
        RoomLimits(**bad)


# ---------------------------------------------------------------- a finished room watched again

def test_attack_each_watch_of_a_finished_room_rebuilds_the_match(tmp_path, monkeypatch):
    """The old server rebuilt a released finished match from its transcript at every
    watch (~350 ms of server CPU each). Now once: the lines and result are kept."""
    asyncio.run(asyncio.wait_for(_watched(tmp_path, monkeypatch), 300))


async def _watched(tmp_path, monkeypatch):
    from websockets.asyncio.client import connect

    from test_server_next_match import STEP, WINDOW, _two_seat_room

    rebuilt = []
    original = RoomHost.restore

    def counting(self):
        rebuilt.append(self.room.code)
        return original(self)

    monkeypatch.setattr(RoomHost, "restore", counting)
    clock, server, task, url, ann, bob, code = await _two_seat_room(tmp_path)
    host = server.rooms[code]
    await ann.send({"type": "start"})
    await asyncio.gather(ann.until(lambda: ann.seat and ann.seat.view), bob.until(lambda: bob.seat and bob.seat.view))
    await bob.until(lambda: 1 in bob.seat.view.ledger.deal.seats)
    clock.skipped += WINDOW + 1.0
    await asyncio.gather(ann.until(lambda: ann.results), bob.until(lambda: bob.results))
    lines = len(host.table.writer.events)
    for p in (ann, bob):
        await p.ws.close()
    while host.conns or host.table is not None:  # the release the server's detach scheduled
        await asyncio.sleep(0.02)

    async def watch():
        ws = await connect(url)
        await ws.recv()  # hello
        await ws.send(json.dumps({"type": "watch", "code": code}))
        got = []
        while not got or got[-1]["type"] != "result":
            got.append(json.loads(await asyncio.wait_for(ws.recv(), STEP)))
        await ws.close()
        return got

    seen = [await watch() for _ in range(3)]
    for got in seen:
        assert [m["line"]["n"] for m in got if m["type"] == "line"] == list(range(1, lines + 1))
        assert got[-1]["placements"] == [2, 1] and got[-1]["points"] == [1, 5]
    assert rebuilt == [code]  # once, not once per watch
    task.cancel()


def test_serve_refuses_a_room_limit_that_is_not_one_before_it_listens(tmp_path):
    from click.testing import CliRunner

    from zkbluff.cli import main

    r = CliRunner().invoke(main, ["serve", "--data", str(tmp_path / "d"), "--port", "0", "--room-expiry", "-1"])
    assert r.exit_code == MalformedInput.exit_code and "room_expiry" in r.output
    assert not (tmp_path / "d").exists()
