"""Issue 30: when a server dies another takes its rooms over from the rooms folder they
share (``--rooms``), with nothing lost. A room is taken only when its lease in the
directory has lapsed *and* its folder's flock is free, so two servers never play one room;
clients whose server vanished go on to another server of the lobby (named in ``hello``),
which holds the room by then or sends them to the one that does. Real Redis, PostgreSQL
and proofs (tests/services.py)."""
from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from serving import serving
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.protocol import sign_auth

try:
    from zkbluff.server.directory import RoomDirectory, room_key
except ImportError:  # every test here asks for redis_url, which skips without it (and fails under CI)
    pass

STEP = 120


async def _until(done, what, step=STEP):
    deadline = time.monotonic() + step
    while not done():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def _served(server):
    from zkbluff.server.app import serve

    return await serving(server)


async def _create(url):
    from websockets.asyncio.client import connect

    ws = await connect(url)
    hello = json.loads(await ws.recv())
    await ws.send(json.dumps(sign_auth(SigningKey.generate(), {"type": "create", "game": "bluffers", "name": "ann"},
                                       hello["challenge"])))
    room = json.loads(await asyncio.wait_for(ws.recv(), STEP))
    assert room["type"] == "room", room
    return ws, room["code"], hello


def test_a_room_is_taken_over_only_when_its_lease_lapsed_and_its_folder_lock_is_free(tmp_path, redis_url):
    """Either guard alone holds: a live lease (another server's room), a held flock (its
    server still runs, though its entry lapsed while Redis was away)."""
    from zkbluff.server.app import Server

    async def go():
        a = Server(tmp_path / "a", directory=RoomDirectory(redis_url, ttl=30), rooms=tmp_path / "rooms")
        b = Server(tmp_path / "b", directory=RoomDirectory(redis_url, ttl=30), rooms=tmp_path / "rooms")
        task_a, url_a = await _served(a)
        task_b, url_b = await _served(b)
        owner, code, _ = await _create(url_a)
        try:
            assert (tmp_path / "rooms" / code / "room.json").exists()
            leased = await b.adopt(code)  # A's lease stands
            await a.directory.redis.delete(room_key(code))  # A's entry lapsed (Redis was away), A still runs
            locked = await b.adopt(code)
            assert await b.adopt_orphans() == []
            a.rooms[code].room_lock.release()  # what the kernel does when A's process dies
            taken = await b.adopt(code)
            return leased, locked, taken, code, b, url_b
        finally:
            await owner.close()
            for t in (task_a, task_b):
                t.cancel()
            await asyncio.gather(task_a, task_b, return_exceptions=True)

    leased, locked, taken, code, b, url_b = asyncio.run(asyncio.wait_for(go(), STEP))
    assert leased is None and locked is None
    assert taken is b.rooms[code] and taken.room.members[0].name == "ann"


def test_a_server_lists_the_lobbys_servers_in_its_hello(tmp_path, redis_url):
    from zkbluff.server.app import Server
    from zkbluff.server.client import lobby_servers, next_server

    async def go():
        a = Server(tmp_path / "a", directory=RoomDirectory(redis_url), rooms=tmp_path / "rooms")
        b = Server(tmp_path / "b", directory=RoomDirectory(redis_url), rooms=tmp_path / "rooms")
        task_a, url_a = await _served(a)
        task_b, url_b = await _served(b)
        try:
            await a.adopt_orphans()  # (its turn, every ttl / 3)
            owner, _, hello = await _create(url_a)
            await owner.close()
            return hello, url_a, url_b
        finally:
            for t in (task_a, task_b):
                t.cancel()
            await asyncio.gather(task_a, task_b, return_exceptions=True)

    hello, url_a, url_b = asyncio.run(asyncio.wait_for(go(), STEP))
    assert sorted(hello["servers"]) == sorted([url_a, url_b])
    assert next_server(url_a, hello["servers"]) == url_b and next_server(url_b, [url_b]) == url_b
    assert lobby_servers(["http://evil", 3, url_a]) == [url_a] and lobby_servers("ws://x") == []


def _serve_a(tmp_path, redis_url, postgres_url):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    log = open(tmp_path / "a.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "zkbluff", "serve", "--port", "0", "--data", str(tmp_path / "a"),
                             "--rooms", str(tmp_path / "rooms"), "--directory", redis_url, "--lease", "1",
                             "--results", postgres_url], stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    line = proc.stdout.readline()
    assert "listening on ws://" in line, (tmp_path / "a.log").read_text()
    return proc, "ws://127.0.0.1:" + re.search(r"ws://127\.0\.0\.1:(\d+)", line).group(1)


@pytest.mark.slow
def test_server_a_killed_mid_match_and_the_match_finished_on_b_recorded_once(tmp_path, redis_url, postgres_url,
                                                                              match_keys):
    from zkbluff.games.engine.verifier import verify_transcript
    from zkbluff.server.app import Server
    from zkbluff.protocol.transcript import parse_chain, read_lines
    from zkbluff.server.client import SeatClient, Spectator, bot_policy
    from zkbluff.server.postgres import PostgresResultStore

    def slow(seed):  # a person who thinks a little: the match is still on when A dies
        inner = bot_policy(seed)

        def act(spec, obs, names):
            time.sleep(0.3)
            return inner(spec, obs, names)
        return act

    proc, url_a = _serve_a(tmp_path, redis_url, postgres_url)
    timing = {}

    async def go():
        b = Server(tmp_path / "b", key_folder=match_keys, directory=RoomDirectory(redis_url, ttl=1.0),
                   rooms=tmp_path / "rooms", store=PostgresResultStore(postgres_url))
        task_b, url_b = await _served(b)
        await asyncio.sleep(1.0)  # A's next turn notes B among the lobby's servers
        ann = SeatClient(url_a, tmp_path / "ann", "ann", slow(1), lambda m: None, key_folder=match_keys)
        bob = SeatClient(url_b, tmp_path / "bob", "bob", slow(2), lambda m: None, key_folder=match_keys)
        watcher = Spectator(url_a, lambda m: None)
        try:
            hosting = asyncio.ensure_future(ann.host("proof-or-bluff", {"mode": "casual", "deal": "dealer"}))
            await _until(lambda: ann.code is not None, "ann's room was not created")
            joining = asyncio.ensure_future(bob.join(ann.code))
            watching = asyncio.ensure_future(watcher.watch(ann.code))
            await _until(lambda: ann.writer is not None and len(ann.writer.events) >= 4, "the match did not start")
            assert ann.result is None and bob.url == url_a and url_b in ann.servers and url_b in watcher.servers
            proc.send_signal(signal.SIGKILL)  # A dies mid-match: no goodbye, its flocks dropped by the kernel
            proc.wait(30)
            killed = time.monotonic()
            await _until(lambda: ann.code in b.rooms, "B did not take the room over")
            await _until(lambda: len(b.rooms[ann.code].conns) == 2, "the seats did not reach B")
            timing["resumed_s"] = time.monotonic() - killed
            reports = await asyncio.gather(hosting, joining)
            seen = await asyncio.wait_for(watching, STEP)
            return b, url_b, reports, ann, bob, {**seen, "url": watcher.url}
        finally:
            task_b.cancel()
            await asyncio.gather(task_b, return_exceptions=True)

    try:
        b, url_b, reports, ann, bob, seen = asyncio.run(asyncio.wait_for(go(), 600))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert ann.url == bob.url == seen["url"] == url_b
    for report in reports:
        assert report["verified"]["complete"] and report["result"]["online"]
    host = b.rooms[reports[0]["code"]]
    assert host.restores == 1  # resumed once, from A's transcript and secrets
    assert verify_transcript(host.transcript)["complete"]
    assert seen["events"] == list(parse_chain(read_lines(host.transcript)))  # the spectator saw every line
    store = PostgresResultStore(postgres_url)
    try:
        board = store.leaderboard(season=None)
        assert sorted(r.matches for r in board) == [1, 1] and {r.name for r in board} == {"ann", "bob"}
    finally:
        store.close()
    print(f"resumed on B {timing['resumed_s']:.1f} s after A's kill -9")


def test_a_private_rooms_folder_is_never_taken_over_from(tmp_path, redis_url):
    """The negative twin of the shared folder: without --rooms a server adopts nothing,
    even a room folder whose lease is gone and whose lock is free."""
    from zkbluff.server.app import Server

    async def go():
        a = Server(tmp_path / "a", directory=RoomDirectory(redis_url))
        task_a, url_a = await _served(a)
        owner, code, _ = await _create(url_a)
        try:
            await a.directory.redis.delete(room_key(code))
            host = a.rooms.pop(code)
            host.room_lock.release()
            return await a.adopt(code), await a.adopt_orphans(), code, a
        finally:
            await owner.close()
            task_a.cancel()
            await asyncio.gather(task_a, return_exceptions=True)

    adopted, orphans, code, a = asyncio.run(asyncio.wait_for(go(), STEP))
    assert adopted is None and orphans == [] and code not in a.rooms


def test_serve_refuses_a_shared_rooms_folder_without_a_directory(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-m", "zkbluff", "serve", "--port", "0", "--data", str(tmp_path / "a"),
                          "--rooms", str(tmp_path / "rooms")], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 2 and "--rooms" in out.stderr and "Traceback" not in out.stderr


def test_a_server_raises_its_open_files_limit_to_the_hard_one():
    """A room's flock is an open file: the common soft limit of 1024 would stop a server at
    a few hundred rooms."""
    import resource

    from zkbluff.server.files import raise_open_files

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard < 256:
        pytest.skip(f"the hard limit of open files here is {hard}: nothing to raise it to")
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, hard))
        assert raise_open_files() == hard == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_server_starting_on_the_shared_folder_leaves_a_held_room_to_its_holder(tmp_path, redis_url):
    """B starts while A plays: A's room (its flock held) is not loaded by B. C starts once
    A's flock is free but while another server's lease on the code stands: C drops it."""
    from zkbluff.server.app import Server

    async def go():
        a = Server(tmp_path / "a", directory=RoomDirectory(redis_url), rooms=tmp_path / "rooms")
        task_a, url_a = await _served(a)
        owner, code, _ = await _create(url_a)
        tasks = [task_a]
        try:
            b = Server(tmp_path / "b", directory=RoomDirectory(redis_url), rooms=tmp_path / "rooms")
            task_b, _ = await _served(b)
            tasks.append(task_b)
            in_b = code in b.rooms
            a.rooms[code].room_lock.release()  # A's flock gone, its lease (A's entry) still there
            c = Server(tmp_path / "c", directory=RoomDirectory(redis_url), rooms=tmp_path / "rooms")
            task_c, url_c = await _served(c)
            tasks.append(task_c)
            return in_b, code in c.rooms, await c.directory.locate(code) == url_a
        finally:
            await owner.close()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    in_b, in_c, still_a = asyncio.run(asyncio.wait_for(go(), STEP))
    assert not in_b and not in_c and still_a
