"""Many servers, one lobby: the room directory over a real Redis (tests/services.py).
Codes unique across servers, a room created on server A joined and watched through server
B (the clients follow B's redirect), the directory rebuilt after Redis restarts empty, an
entry that lapses when its server stops refreshing, a room's pub/sub channel."""
from __future__ import annotations

import asyncio
import json
import time

import pytest

from serving import serving
from zkbluff.errors import MalformedInput, StorageError
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.protocol import sign_auth

try:
    from zkbluff.server.directory import RoomDirectory, check_server_url
except ImportError:  # every test here asks for redis_url, which skips without it (and fails under CI)
    pass

STEP = 120  # seconds any one wait may take on a loaded 2-core machine
A, B = "ws://127.0.0.1:1", "ws://127.0.0.1:2"


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, STEP))


def test_a_code_held_by_one_server_cannot_be_claimed_by_another(redis_url):
    async def go():
        a, b = RoomDirectory(redis_url, A), RoomDirectory(redis_url, B)
        try:
            assert await a.claim("ABCDEFGH") is True
            assert await b.claim("ABCDEFGH") is False  # codes are unique across servers
            assert await a.claim("ABCDEFGH") is True  # the holder's refresh
            assert await b.locate("ABCDEFGH") == A and await b.locate("HGFEDCBA") is None
            assert await b.refresh(["ABCDEFGH", "JKMNPQRS"]) == ["ABCDEFGH"]  # one is A's: B is told
            assert await a.locate("JKMNPQRS") == B
        finally:
            await a.close()
            await b.close()
    run(go())


def test_the_directory_is_rebuilt_after_redis_restarts_empty(redis_server, redis_url):
    async def go():
        a = RoomDirectory(redis_url, A, timeout=1.0)
        try:
            assert await a.claim("ABCDEFGH")
            redis_server.stop()
            with pytest.raises(StorageError, match="unreachable"):
                await a.locate("ABCDEFGH")
            redis_server.start()  # no persistence: back empty
            assert await a.locate("ABCDEFGH") is None
            await a.refresh(["ABCDEFGH"])  # what the keeper does every ttl / 3
            assert await a.locate("ABCDEFGH") == A
        finally:
            await a.close()
    run(go())


def test_a_room_entry_lapses_when_its_server_stops_refreshing(redis_url):
    async def go():
        a, b = RoomDirectory(redis_url, A, ttl=1.0), RoomDirectory(redis_url, B)
        try:
            keeper = asyncio.ensure_future(a.keep(lambda: ["ABCDEFGH"]))
            await asyncio.sleep(2.5)  # two and a half lifetimes: the keeper keeps it listed
            assert await b.locate("ABCDEFGH") == A
            keeper.cancel()  # A dies
            deadline = time.monotonic() + 30
            while await b.locate("ABCDEFGH") is not None:
                assert time.monotonic() < deadline, "the entry of a dead server did not lapse"
                await asyncio.sleep(0.1)
            assert await b.claim("ABCDEFGH") is True  # another server may take the room over
        finally:
            await a.close()
            await b.close()
    run(go())


def test_a_rooms_channel_carries_its_public_lines_to_other_servers(redis_url):
    async def go():
        a, b = RoomDirectory(redis_url, A), RoomDirectory(redis_url, B)
        try:
            got: list = []

            async def follow():
                async for msg in b.subscribe("ABCDEFGH"):
                    got.append(msg)
                    if len(got) == 2:
                        return
            task = asyncio.ensure_future(follow())
            while not (await a.redis.pubsub_numsub("zkbluff:room:ABCDEFGH:lines"))[0][1]:
                await asyncio.sleep(0.02)  # subscribed
            await a.publish("HGFEDCBA", {"type": "line", "n": 0})  # another room's: not delivered
            await a.publish("ABCDEFGH", {"type": "line", "n": 1})
            await a.publish("ABCDEFGH", {"type": "result"})
            await asyncio.wait_for(task, STEP)
            assert got == [{"type": "line", "n": 1}, {"type": "result"}]
        finally:
            await a.close()
            await b.close()
    run(go())


def test_server_addresses_in_the_directory_are_websocket_urls():
    for bad in ("http://x", "ws://a b", "", None, "ws://" + "x" * 400, "javascript:alert(1)"):
        with pytest.raises(MalformedInput):
            check_server_url(bad)
    assert check_server_url("wss://play.example/zk") == "wss://play.example/zk"


# ---- two servers, one lobby

async def _two_servers(tmp_path, redis_url, directory=True):
    from zkbluff.server.app import Server, serve

    servers, tasks, urls = [], [], []
    for name in ("a", "b"):
        server = Server(tmp_path / name, directory=RoomDirectory(redis_url) if directory else None)
        port = asyncio.get_running_loop().create_future()
        tasks.append(asyncio.ensure_future(serve(server, "127.0.0.1", 0, lambda p, n, port=port: port.set_result(p))))
        urls.append(f"ws://127.0.0.1:{await asyncio.wait_for(port, STEP)}")
        servers.append(server)
    return servers, tasks, urls


async def _ask(url, msg, key=None):
    """One message to a server: its first answer."""
    from websockets.asyncio.client import connect

    async with connect(url) as ws:
        challenge = json.loads(await ws.recv())["challenge"]
        await ws.send(json.dumps(sign_auth(key, msg, challenge) if key else msg))
        return json.loads(await asyncio.wait_for(ws.recv(), STEP)), ws


async def _created_on(url):
    from websockets.asyncio.client import connect

    ws = await connect(url)
    challenge = json.loads(await ws.recv())["challenge"]
    await ws.send(json.dumps(sign_auth(SigningKey.generate(), {"type": "create", "game": "bluffers",
                                                               "name": "ann"}, challenge)))
    room = json.loads(await asyncio.wait_for(ws.recv(), STEP))
    assert room["type"] == "room", room
    return ws, room["code"]


async def _until(done, what):
    deadline = time.monotonic() + STEP
    while not done():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


def test_a_room_created_on_server_a_is_joined_and_watched_through_server_b(tmp_path, redis_url):
    from zkbluff.server.client import SeatClient, Spectator, bot_policy

    async def go():
        (a, b), tasks, (url_a, url_b) = await _two_servers(tmp_path, redis_url)
        owner, code = await _created_on(url_a)
        try:
            assert code not in b.rooms and await b.directory.locate(code) == url_a
            answer, _ = await _ask(url_b, {"type": "join", "code": code, "name": "bob"}, SigningKey.generate())
            assert answer == {"type": "redirect", "code": code, "url": url_a}
            said: list[str] = []
            bob = SeatClient(url_b, tmp_path / "bob", "bob", bot_policy(1), said.append)
            joining = asyncio.ensure_future(bob.join(code))
            await _until(lambda: len(a.rooms[code].room.members) == 2, "bob did not reach server A")
            assert bob.url == url_a and any(f"held by {url_a}" in s for s in said)
            assert a.rooms[code].room.members[1].name == "bob" and not b.rooms
            watcher = Spectator(url_b, said.append)
            watching = asyncio.ensure_future(watcher.watch(code, until_result=False))
            await _until(lambda: a.rooms[code].spectators, "the spectator did not reach server A")
            assert watcher.url == url_a
            for t in (joining, watching):
                t.cancel()
            unknown, _ = await _ask(url_b, {"type": "join", "code": "ZZZZZZZZ", "name": "cy"}, SigningKey.generate())
            assert unknown["type"] == "error" and "no room with this code" in unknown["message"]
            assert await b.directory.claim("YYYYYYYY")  # a stale entry of B's own, no room behind it
            itself, _ = await _ask(url_b, {"type": "join", "code": "YYYYYYYY", "name": "cy"}, SigningKey.generate())
            assert itself["type"] == "error" and "no room with this code" in itself["message"]  # not sent to itself
        finally:
            await owner.close()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    run(go())


def test_without_the_directory_server_b_knows_nothing_of_a_room_on_a(tmp_path, redis_url):
    """The negative twin: the redirect comes from the directory alone."""
    async def go():
        (a, b), tasks, (url_a, url_b) = await _two_servers(tmp_path, redis_url, directory=False)
        owner, code = await _created_on(url_a)
        try:
            answer, _ = await _ask(url_b, {"type": "join", "code": code, "name": "bob"}, SigningKey.generate())
            assert answer["type"] == "error" and "no room with this code" in answer["message"]
        finally:
            await owner.close()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    run(go())


def test_a_redirect_elsewhere_than_this_room_or_round_and_round_is_refused():
    from zkbluff.server.client import MAX_REDIRECTS, follow_redirect

    said: list[str] = []
    assert follow_redirect({"code": "ABCDEFGH", "url": A}, "ABCDEFGH", said.append, 0) == A
    with pytest.raises(MalformedInput, match="not this room"):
        follow_redirect({"code": "HGFEDCBA", "url": A}, "ABCDEFGH", said.append, 0)
    with pytest.raises(MalformedInput, match="server address"):
        follow_redirect({"code": "ABCDEFGH", "url": "http://evil"}, "ABCDEFGH", said.append, 0)
    with pytest.raises(MalformedInput, match="more than"):
        follow_redirect({"code": "ABCDEFGH", "url": A}, "ABCDEFGH", said.append, MAX_REDIRECTS)


def test_a_code_another_server_holds_is_never_given_to_a_new_room(tmp_path, redis_url, monkeypatch):
    """Server B draws the very code A's room has: B draws again (without the claim, two
    servers would each hold a room of that code)."""
    import zkbluff.server.app as app

    async def go():
        (a, b), tasks, (url_a, url_b) = await _two_servers(tmp_path, redis_url)
        draws = iter(["ABCDEFGH", "ABCDEFGH", "JKMNPQRS"])
        monkeypatch.setattr(app, "new_room_code", lambda taken: next(draws))
        first, code_a = await _created_on(url_a)
        second, code_b = await _created_on(url_b)
        try:
            assert (code_a, code_b) == ("ABCDEFGH", "JKMNPQRS")
            assert await a.directory.locate("ABCDEFGH") == url_a and await a.directory.locate("JKMNPQRS") == url_b
        finally:
            for ws in (first, second):
                await ws.close()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    run(go())


def test_a_server_lists_its_rooms_again_after_redis_restarts_and_plays_on_meanwhile(tmp_path, redis_server,
                                                                                     redis_url):
    async def go():
        from zkbluff.server.app import Server, serve

        server = Server(tmp_path / "a", directory=RoomDirectory(redis_url, ttl=0.6, timeout=0.5))
        task, url = await serving(server)
        other = RoomDirectory(redis_url)
        owner, code = await _created_on(url)
        try:
            redis_server.stop()
            await asyncio.sleep(0.5)  # the keeper meets a Redis that is away, and goes on
            assert not task.done()
            await owner.send(json.dumps({"type": "add-bot", "name": "Bot"}))  # the room still answers
            room = json.loads(await asyncio.wait_for(owner.recv(), STEP))
            assert [m["name"] for m in room["members"]] == ["ann", "Bot"]
            refused, _ = await _ask(url, {"type": "create", "game": "bluffers", "name": "cy"}, SigningKey.generate())
            assert refused["type"] == "error" and "unreachable" in refused["message"]  # no claim, no room
            assert list(server.rooms) == [code]
            redis_server.start()  # empty
            deadline = time.monotonic() + STEP
            while await other.locate(code) != url:
                assert time.monotonic() < deadline, "the directory was not rebuilt"
                await asyncio.sleep(0.05)
        finally:
            await owner.close()
            await other.close()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    run(go())


def test_serve_with_a_directory_lists_its_rooms_there_and_refuses_a_bad_one(tmp_path, redis_url):
    import os
    import re
    import signal
    import subprocess
    import sys

    zk = [sys.executable, "-m", "zkbluff", "serve", "--port", "0"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    bad = subprocess.run(zk + ["--data", tmp_path / "a", "--directory", "http://x"], capture_output=True, text=True,
                         timeout=120, env=env)
    assert bad.returncode == 2 and "--directory" in bad.stderr
    from services import free_port
    away = subprocess.run(zk + ["--data", tmp_path / "c", "--directory", f"redis://127.0.0.1:{free_port()}/0"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert away.returncode == 3 and "unreachable" in away.stderr and "Traceback" not in away.stderr
    with open(tmp_path / "serve.log", "w") as log:
        proc = subprocess.Popen(zk + ["--data", tmp_path / "b", "--directory", redis_url,
                                      "--public-url", "wss://play.example/b"], stdout=subprocess.PIPE, stderr=log,
                                text=True, env=env)

    async def create_and_locate(url):
        ws, code = await _created_on(url)
        directory = RoomDirectory(redis_url)
        try:
            return await directory.locate(code)
        finally:
            await ws.close()
            await directory.close()
    try:
        line = proc.stdout.readline()
        assert "listening on ws://" in line, (tmp_path / "serve.log").read_text()
        port = re.search(r"ws://127\.0\.0\.1:(\d+)", line).group(1)
        assert run(create_and_locate(f"ws://127.0.0.1:{port}")) == "wss://play.example/b"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0


@pytest.mark.slow
def test_a_whole_match_hosted_on_a_and_joined_through_b_is_recorded_once_in_postgresql(tmp_path, redis_url,
                                                                                       postgres_url, match_keys):
    """Real seats and proofs: bob's client is sent from B to A and plays there; both copies
    verify, and the result lands once in the PostgreSQL both servers share."""
    from zkbluff.games.engine.verifier import verify_transcript
    from zkbluff.server.app import Server, serve
    from zkbluff.server.client import SeatClient, bot_policy
    from zkbluff.server.postgres import PostgresResultStore

    async def go():
        servers, tasks, urls = [], [], []
        for name in ("a", "b"):
            server = Server(tmp_path / name, key_folder=match_keys, directory=RoomDirectory(redis_url),
                            store=PostgresResultStore(postgres_url))
            port = asyncio.get_running_loop().create_future()
            tasks.append(asyncio.ensure_future(serve(server, "127.0.0.1", 0,
                                                     lambda p, n, port=port: port.set_result(p))))
            urls.append(f"ws://127.0.0.1:{await asyncio.wait_for(port, STEP)}")
            servers.append(server)
        ann = SeatClient(urls[0], tmp_path / "ann", "ann", bot_policy(1), lambda m: None, key_folder=match_keys)
        bob = SeatClient(urls[1], tmp_path / "bob", "bob", bot_policy(2), lambda m: None, key_folder=match_keys)
        try:
            hosting = asyncio.ensure_future(ann.host("proof-or-bluff", {"mode": "casual", "deal": "dealer"}))
            await _until(lambda: ann.code is not None, "ann's room was not created")
            reports = await asyncio.gather(hosting, bob.join(ann.code))
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return servers, urls, reports, bob

    (a, b), urls, (ann_report, bob_report), bob = asyncio.run(asyncio.wait_for(go(), 600))
    assert bob.url == urls[0] and not b.rooms
    for report in (ann_report, bob_report):
        assert report["verified"]["complete"] and report["result"]["online"]
    host = a.rooms[ann_report["code"]]
    assert verify_transcript(host.transcript)["complete"]
    store = PostgresResultStore(postgres_url)
    try:
        board = store.leaderboard(season=None)
        assert sorted(r.matches for r in board) == [1, 1] and {r.name for r in board} == {"ann", "bob"}
        assert sorted(r.points for r in board) == sorted(ann_report["result"]["points"])
    finally:
        store.close()
