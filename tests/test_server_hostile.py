"""A hostile client at a networked table (real proofs, loopback, one process): another
seat's move, a forged signature, a replayed line, a replayed sign-in, garbage bytes and a
10 MB message are each refused and change nothing; the match goes on and finishes, the
hostile seat comes back after the server cut it off, and every transcript verifies."""
import asyncio
import json

import pytest

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from zkbluff.games.engine.parties import Prover, Seat
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey, sign_line
from zkbluff.server.app import Server, serve
from zkbluff.server.client import SeatClient, bot_policy
from zkbluff.server.protocol import sign_auth

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual"}
STEP = 60  # seconds any single wait may take (a loaded 2-core machine proves slowly)


async def start_server(server):
    port = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(server, "127.0.0.1", 0, lambda p, n: port.set_result(p)))
    return task, f"ws://127.0.0.1:{await asyncio.wait_for(port, STEP)}"


class Mallory:
    """A hand-driven client: a real seat of its own (key, secrets, prover), and a socket
    it can abuse."""

    def __init__(self, url, code, key_folder):
        self.url, self.code, self.key_folder = url, code, key_folder
        self.key = SigningKey.generate()
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
            self.seat = Seat(spec, msg["seat"], "mallory", Prover(self.key_folder), self.key)
            self.bot = spec.house_bot(5)
            await self.send({"type": "seat-join", "join": self.seat.join(), "toDealer": self.seat.to_dealer()})
        elif msg["type"] == "line" and msg["line"]["n"] == self.lines + 1:
            self.seat.receive(msg["line"])  # verified on this side too
            self.lines += 1
            due = self.seat.deal_line()  # its own entropy, once the dealer's commitment is written
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


def test_a_dropped_seat_is_timed_out_by_the_referee_and_gets_the_result_when_back(match_keys, tmp_path):
    asyncio.run(asyncio.wait_for(_dropped(match_keys, tmp_path), 300))


async def _dropped(match_keys, tmp_path):
    from zkbluff.games.engine.parties import TimeLimits

    server = Server(tmp_path / "data", key_folder=match_keys, limits=TimeLimits(proof=1.0, idle=1.0), tick=0.05)
    task, url = await start_server(server)
    m = Mallory(url, None, match_keys)
    await m.connect()
    await m.send(sign_auth(m.key, {"type": "create", "game": GAME, "options": OPTIONS, "name": "mallory"},
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
    for _ in range(400):
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
