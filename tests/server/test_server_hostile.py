"""A hostile client at a networked table (real proofs, loopback, one process): another
seat's move, a forged signature, a replayed line, a replayed sign-in, garbage bytes and a
10 MB message are each refused and change nothing; the match goes on and finishes, the
hostile seat comes back after the server cut it off, and every transcript verifies."""
import asyncio
import json

import pytest

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from serving import serving
from zkbluff.games.engine.parties import Prover, Seat
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey, sign_line
from zkbluff.server.app import Server
from zkbluff.server.client import SeatClient, bot_policy
from zkbluff.server.protocol import sign_auth

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual"}
DEALER_DEAL = {**OPTIONS, "deal": "dealer"}  # the house's deal in proof: the seats' entropy lines come first
STEP = 180  # seconds any single wait may take (a loaded 2-core machine proves slowly; the first use of a
#            statement's pinned keys builds them into the key cache)


async def start_server(server):
    return await serving(server)


class Mallory:
    """A hand-driven client: a real seat of its own (key, secrets, prover), and a socket
    it can abuse."""

    def __init__(self, url, code, key_folder, key=None, hold_deal_lines=False):
        self.url, self.code, self.key_folder = url, code, key_folder
        self.key = key or SigningKey.generate()
        self.hold_deal_lines = hold_deal_lines
        self.name = "mallory"
        self.seat = None
        self.bot = None
        self.lines = 0
        self.result = None

    async def connect(self):
        self.ws = await connect(self.url, max_size=4 << 20)
        hello = json.loads(await self.ws.recv())
        self.challenge = hello["challenge"]
        self.signed_join = sign_auth(self.key, {"type": "join", "code": self.code, "name": "mallory",
                                                "have": self.lines}, self.challenge)

    async def send(self, msg):
        await self.ws.send(json.dumps(msg))

    async def recv(self):
        return json.loads(await asyncio.wait_for(self.ws.recv(), STEP))

    async def error(self):
        """The next error reply (lines and room updates that come first are followed)."""
        while True:
            msg = await self.recv()
            if msg["type"] == "error":
                return msg
            await self.handle(msg)

    async def handle(self, msg):
        if msg["type"] == "seat" and self.seat is None:
            spec = spec_for(msg["game"], msg["options"])
            self.seat = Seat(spec, msg["seat"], self.name, Prover(self.key_folder), self.key)
            self.bot = spec.house_bot(5)
            await self.send({"type": "seat-join", "join": self.seat.join(), "toDealer": self.seat.to_dealer()})
        elif msg["type"] == "line" and msg["line"]["n"] == self.lines + 1:
            self.seat.receive(msg["line"])  # verified on this side too
            self.lines += 1
            due = None if self.hold_deal_lines else self.seat.deal_line()  # its own entropy, once due
            if due is not None:
                await self.send({"type": "line", "line": due})
        elif msg["type"] == "result":
            self.result = msg

    def my_turn(self):
        v = self.seat.view if self.seat else None
        return v is not None and not v.rules.over and v.rules.to_move == self.seat.seat

    async def until_my_turn(self):
        while not self.my_turn():
            await self.handle(await self.recv())
            if self.result:
                return False
        return True

    def make_move(self):
        return self.seat.move(self.bot.act(self.seat.observation()))

    async def move(self, line):
        """Send a line and follow the table until it is written."""
        await self.send({"type": "line", "line": line})
        while self.lines < line["n"] and self.result is None:
            await self.handle(await self.recv())


def test_hostile_messages_are_refused_and_the_match_finishes(match_keys, tmp_path):
    asyncio.run(asyncio.wait_for(_hostile(match_keys, tmp_path), 600))


async def _hostile(match_keys, tmp_path):
    server = Server(tmp_path / "data", key_folder=match_keys)
    task, url = await start_server(server)
    quiet = lambda m: None  # noqa: E731
    owner = SeatClient(url, tmp_path / "ann", "ann", bot_policy(3), quiet, key_folder=match_keys)
    owner_task = asyncio.ensure_future(owner.host(GAME, OPTIONS))
    for _ in range(STEP * 10):
        if owner.code:
            break
        await asyncio.sleep(0.1)
    m = Mallory(url, owner.code, match_keys)
    await m.connect()
    await m.send(m.signed_join)
    host = server.rooms[owner.code]

    def written():
        return len(host.table.writer.events)

    # first turn: an honest move, kept for the replay below
    assert await m.until_my_turn()
    first = m.make_move()
    await m.move(first)
    assert await m.until_my_turn()
    before = written()
    transcript_before = host.transcript.read_text()

    honest = m.make_move()
    # another seat's move: a line in seat 0's name
    await m.send({"type": "line", "line": sign_line(m.key, {**honest, "seat": 1 - m.seat.seat})})
    err = await m.error()
    assert err["error"] == "IllegalMove" and "cannot act for seat" in err["message"]
    # the same, with the other seat's number but also a forged signature
    await m.send({"type": "line", "line": {**honest, "sig": "11" * 64}})
    err = await m.error()
    assert err["error"] == "InvalidSignature", err
    # a replay of a line already written
    await m.send({"type": "line", "line": first})
    err = await m.error()
    assert err["error"] == "IllegalMove" and "does not follow" in err["message"]
    # garbage: binary bytes, text that is not JSON, JSON that is not an object, an unknown type
    for junk in (b"\x00\xff\xfe garbage", "{not json", "[1, 2, 3]", json.dumps({"type": "teleport"})):
        await m.ws.send(junk)
        err = await m.error()
        assert err["error"] == "MalformedInput"
    # the lobby is the owner's: a seated guest cannot start, add bots or begin again
    for msg in ({"type": "add-bot", "name": "x"}, {"type": "again"}):
        await m.send(msg)
        assert (await m.error())["error"] == "IllegalMove"
    assert written() == before and host.transcript.read_text() == transcript_before
    # the honest line is still good: nothing above changed the table
    await m.move(honest)
    assert written() > before

    # a 10 MB message: refused by the transport before it is read, the connection cut
    assert await m.until_my_turn()  # the table waits for mallory: nothing is written meanwhile
    before = written()
    with pytest.raises(ConnectionClosed) as closed:
        await m.ws.send("x" * (10 * 1024 * 1024))
        for _ in range(100):
            await m.recv()
    assert closed.value.rcvd is None or closed.value.rcvd.code == 1009
    assert written() == before
    # a replayed sign-in (signed for the old connection's challenge) is refused on a new one
    old_join = m.signed_join
    await m.connect()
    await m.send(old_join)
    assert (await m.error())["error"] == "InvalidSignature"
    # the real sign-in brings mallory back to its seat where it left off
    await m.send(m.signed_join)
    while m.result is None:
        if await m.until_my_turn():
            await m.move(m.make_move())
    report = await asyncio.wait_for(owner_task, STEP * 5)

    # every copy verifies offline, and the server's points went to both players
    assert report["verified"]["complete"]
    server_report = verify_transcript(host.transcript)
    assert server_report["lines"] == report["verified"]["lines"] == m.lines
    assert m.result["points"] == report["result"]["points"]
    board = server.store.leaderboard()
    assert sorted(r.name for r in board) == ["ann", "mallory"]
    assert sorted(r.points for r in board) == sorted(m.result["points"])
    # the server never held a seat's signing key
    everything = "".join(p.read_text(errors="replace") for p in (tmp_path / "data").rglob("*") if p.is_file()
                         and p.suffix != ".sqlite")
    assert m.key.secret_hex() not in everything and owner.key.secret_hex() not in everything
    task.cancel()


def test_a_dropped_seat_is_timed_out_by_the_referee_and_gets_the_result_when_back(match_keys, tmp_path,
                                                                                 real_clock_floors):
    asyncio.run(asyncio.wait_for(_dropped(match_keys, tmp_path), 300))


async def _dropped(match_keys, tmp_path):
    from zkbluff.games.engine.parties import TimeLimits

    server = Server(tmp_path / "data", key_folder=match_keys, limits=TimeLimits(proof=1.0, idle=1.0), tick=0.05)
    task, url = await start_server(server)
    m = Mallory(url, None, match_keys)
    await m.connect()
    await m.send(sign_auth(m.key, {"type": "create", "game": GAME, "options": DEALER_DEAL, "name": "mallory"},
                           m.challenge))
    room = await m.recv()
    m.code = room["code"]
    await m.send({"type": "add-bot", "name": "robo"})
    assert len((await m.recv())["members"]) == 2
    await m.send({"type": "start"})
    while not (m.seat and m.seat.view and m.seat.view.deal_ready):  # seated, its entropy written, dealt
        await m.handle(await m.recv())
    await m.ws.close()  # gone, with nothing said
    host = server.rooms[m.code]
    for _ in range(STEP * 20):  # (the house bot's moves are real proofs: slow on a loaded machine)
        if host.match_id in host.recorded:  # written to the results database once complete
            break
        await asyncio.sleep(0.05)
    events = host.table.writer.events
    timeouts = [e for e in events if e["action"] == "timeout"]
    assert timeouts and all(e["data"]["seat"] == m.seat.seat and e["seat"] is None for e in timeouts)
    assert host.table.view.complete
    # back with the same key: the missed lines (each checked here) and the result
    await m.connect()
    await m.send(m.signed_join)
    while m.result is None:
        await m.handle(await m.recv())
    assert m.lines == len(events) and m.seat.view.complete
    assert m.result["placements"][m.seat.seat] == 2
    assert server.store.local_total(f"key:{m.key.public_hex}") == 1 and server.store.leaderboard() == []
    task.cancel()


async def _start_room(url, owner_name):
    """A two-seat room whose owner is a well-behaved hand-driven client (its entropy sent
    when due); returns the owner once it has created the room."""
    owner = Mallory(url, None, None)
    owner.name = owner_name
    await owner.connect()
    await owner.send(sign_auth(owner.key, {"type": "create", "game": GAME, "options": DEALER_DEAL,
                                           "name": owner_name}, owner.challenge))
    owner.code = (await owner.recv())["code"]
    return owner


async def _pump(*clients):
    """Follow every client's socket until each has nothing more for a moment."""
    for c in clients:
        while True:
            try:
                msg = json.loads(await asyncio.wait_for(c.ws.recv(), 0.2))
            except asyncio.TimeoutError:
                break
            await c.handle(msg)


async def _another_room(tmp_path):
    from zkbluff.games.engine.parties import TimeLimits

    server = Server(tmp_path / "data", limits=TimeLimits(entropy=120.0))
    task, url = await start_server(server)
    ann, bob = await _start_room(url, "ann"), await _start_room(url, "bob")
    key = SigningKey.generate()  # mallory holds a seat in both rooms under one key
    in_a, in_b = Mallory(url, ann.code, None, key, True), Mallory(url, bob.code, None, key, True)
    for m in (in_a, in_b):
        await m.connect()
        await m.send(m.signed_join)
    for owner in (ann, bob):
        await _pump(owner)
        await owner.send({"type": "start"})
    room_a, room_b = server.rooms[ann.code], server.rooms[bob.code]

    def caught_up():
        """Every client has been sent every line its room has written (the server can write
        a line after a client's socket went quiet for a moment: the wait is for the lines)."""
        return all(r.table is not None and c.lines == len(r.table.writer.events)
                   for r, cs in ((room_a, (ann, in_a)), (room_b, (bob, in_b))) for c in cs)

    for _ in range(STEP * 5):
        await _pump(ann, bob, in_a, in_b)
        if all(r.table is not None and r.table.view.ledger.deal.seats.keys() == {0} for r in (room_a, room_b)) \
                and caught_up():
            break
    # each room waits for mallory's entropy alone
    assert [m.seat.view.next_line for m in (in_a, in_b)] == [4, 4]
    line_a, line_b = in_a.seat.deal_line(), in_b.seat.deal_line()
    assert line_a["seat"] == line_b["seat"] == 1 and line_a["n"] == line_b["n"]
    before_a, before_b = list(room_a.table.writer.events), list(room_b.table.writer.events)
    text_a = room_a.transcript.read_text()
    # room B's line sent on mallory's connection to room A: same seat, same key, same number,
    # but it follows room B's chain, not room A's
    await in_a.send({"type": "line", "line": line_b})
    err = await in_a.error()
    assert err["error"] == "IllegalMove" and "does not follow" in err["message"], err
    assert room_a.table.writer.events == before_a and room_a.transcript.read_text() == text_a
    assert room_b.table.writer.events == before_b
    # each line where it belongs is taken, and each room deals (mallory now sends its opening
    # once every commitment is on its room's transcript: commit, then open)
    in_a.hold_deal_lines = in_b.hold_deal_lines = False
    await in_a.send({"type": "line", "line": line_a})
    await in_b.send({"type": "line", "line": line_b})
    for _ in range(STEP * 5):
        await _pump(ann, bob, in_a, in_b)
        if in_a.seat.view.deal_ready and in_b.seat.view.deal_ready and caught_up():
            break
    def sent(e):  # the line as its seat sent it (the referee's receipt added on writing)
        return {k: v for k, v in e.items() if k != "received"}

    assert sent(room_a.table.writer.events[3]) == line_a and sent(room_b.table.writer.events[3]) == line_b
    assert in_a.seat.view.deal_ready and in_b.seat.view.deal_ready
    task.cancel()


def test_a_line_for_another_room_is_refused_and_both_rooms_go_on(tmp_path):
    asyncio.run(asyncio.wait_for(_another_room(tmp_path), 300))


def _raw_upgrade(port):
    """A WebSocket connection opened by hand (no library to answer pings for it)."""
    import base64
    import os
    import socket

    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    reply = b""
    while b"\r\n\r\n" not in reply:
        reply += sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 101"), reply[:80]
    return sock


def _closed_within(sock, seconds):
    """Read (and drop) whatever the server sends until it closes the connection; the seconds it took."""
    import time

    sock.settimeout(seconds)
    t = time.monotonic()
    while True:
        if not sock.recv(65536):
            return time.monotonic() - t


async def _slow_loris(tmp_path):
    import socket
    import struct

    server = Server(tmp_path / "data", open_timeout=0.5, ping_interval=0.3, ping_timeout=0.5)
    task, url = await start_server(server)
    port = int(url.rsplit(":", 1)[1])
    # 1. a handshake begun and never finished
    stalled = socket.create_connection(("127.0.0.1", port), timeout=10)
    stalled.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    # 2. a connection that starts a 1000-byte frame, sends 10 bytes of it and answers no ping
    trickle = await asyncio.to_thread(_raw_upgrade, port)
    trickle.sendall(bytes([0x81, 0x80 | 126]) + struct.pack("!H", 1000) + b"\0\0\0\0" + b"x" * 10)
    # meanwhile the server serves a real client: a room made, looked up
    ann = Mallory(url, None, None)
    await ann.connect()
    await ann.send(sign_auth(ann.key, {"type": "create", "game": GAME, "options": OPTIONS, "name": "ann"},
                             ann.challenge))
    code = (await ann.recv())["code"]
    assert code in server.rooms
    # and cuts both off by itself, well within a few seconds
    took = await asyncio.gather(asyncio.to_thread(_closed_within, stalled, 10),
                                asyncio.to_thread(_closed_within, trickle, 10))
    assert all(t < 5 for t in took), took
    # the honest client is still served (it answers pings: its library does)
    await asyncio.sleep(1.0)
    await ann.send({"type": "add-bot", "name": "robo"})
    assert len((await ann.recv())["members"]) == 2
    task.cancel()


def test_a_slow_loris_is_cut_off_and_the_server_keeps_serving(tmp_path):
    asyncio.run(asyncio.wait_for(_slow_loris(tmp_path), 120))
