"""The next match from a result (``again``): only the room's owner, only once the match is
finished; it seats everyone again in a new match (new match id, new transcript, new
secrets) while the finished one stays recorded once, with its points. Real parties on
loopback; the first match ends fast by the deal's own rule (a seat that sends no entropy
forfeits before any card is dealt), so no move is proved. The clock is injected: the
entropy window is long, and passes when the test moves the clock past it (never because
a loaded machine was slow to send an entropy line)."""
import asyncio
import json
import time

from websockets.asyncio.client import connect

from serving import serving
from zkbluff.games.engine.parties import Prover, Seat, TimeLimits
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.app import Server
from zkbluff.server.protocol import sign_auth

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual", "deal": "dealer"}  # the seats' entropy lines come first
STEP = 180  # a bound on any one wait (the first use of a statement's keys builds them into the cache)
WINDOW = 60.0  # the seats' entropy window: the clock passes it only when the test moves it on


class Clock:
    """The server's and every seat's clock: the real time, plus what the test moved it on by."""

    def __init__(self):
        self.skipped = 0.0

    def __call__(self):
        return time.time() + self.skipped


class Player:
    """A person's client driven by hand: its own seat per match (key, secrets, prover)."""

    def __init__(self, url, name, clock, sends_entropy=True):
        self.url, self.name, self.clock, self.sends_entropy = url, name, clock, sends_entropy
        self.key = SigningKey.generate()
        self.seat = None
        self.match_id = None
        self.results = []
        self.errors = []

    async def open(self):
        self.ws = await connect(self.url)
        self.challenge = json.loads(await self.ws.recv())["challenge"]
        return self

    async def send(self, msg, auth=False):
        if auth:
            msg = sign_auth(self.key, msg, self.challenge)
        await self.ws.send(json.dumps(msg))

    async def step(self):
        msg = json.loads(await asyncio.wait_for(self.ws.recv(), STEP))
        if msg["type"] == "seat" and msg["matchId"] != self.match_id:
            self.match_id = msg["matchId"]
            spec = spec_for(msg["game"], msg["options"])
            self.seat = Seat(spec, msg["seat"], self.name, Prover(), self.key, clock=self.clock)
            self.seat.sends_deal_lines = self.sends_entropy
            await self.send({"type": "seat-join", "join": self.seat.join(), "toDealer": self.seat.to_dealer()})
        elif msg["type"] == "line" and msg["matchId"] == self.match_id:
            self.seat.receive(msg["line"])  # checked on this side too
            due = self.seat.deal_line()
            if due is not None:
                await self.send({"type": "line", "line": due})
        elif msg["type"] == "result":
            self.results.append(msg)
        elif msg["type"] == "error":
            self.errors.append(msg)
        return msg

    async def until(self, done):
        while not done():
            await self.step()

    async def error(self):
        n = len(self.errors)
        await self.until(lambda: len(self.errors) > n)
        return self.errors[-1]


async def _two_seat_room(tmp_path):
    """A server on the injected clock and a Proof or Bluff room of ann (who will send no
    entropy) and bob, seated and not yet started."""
    clock = Clock()
    server = Server(tmp_path / "data", limits=TimeLimits(entropy=WINDOW), clock=clock, tick=0.05)
    task, url = await serving(server)
    ann = await Player(url, "ann", clock, sends_entropy=False).open()
    bob = await Player(url, "bob", clock).open()
    await ann.send({"type": "create", "game": GAME, "options": OPTIONS, "name": "ann"}, auth=True)
    code = (await ann.step())["code"]
    await bob.send({"type": "join", "code": code, "name": "bob"}, auth=True)
    await bob.step()
    return clock, server, task, url, ann, bob, code


async def _again(tmp_path):
    clock, server, task, url, ann, bob, code = await _two_seat_room(tmp_path)
    host = server.rooms[code]
    # before the start and while playing, there is no result to start from
    await ann.send({"type": "again"})
    assert "not finished" in (await ann.error())["message"]
    await ann.send({"type": "start"})
    await asyncio.gather(ann.until(lambda: ann.seat and ann.seat.view), bob.until(lambda: bob.seat and bob.seat.view))
    first = ann.match_id
    await ann.send({"type": "again"})
    assert "not finished" in (await ann.error())["message"]
    # ann sends no entropy: once bob's is written and the window has passed, she forfeits,
    # before any card is dealt
    await bob.until(lambda: 1 in bob.seat.view.ledger.deal.seats)
    assert not host.table.over and 0 not in host.table.view.ledger.deal.seats
    clock.skipped += WINDOW + 1.0
    await asyncio.gather(ann.until(lambda: ann.results), bob.until(lambda: bob.results))
    assert ann.results[0]["matchId"] == bob.results[0]["matchId"] == first
    assert ann.results[0]["placements"] == [2, 1] and ann.results[0]["points"] == [1, 5]
    assert ann.results[0]["online"]
    first_transcript = host.transcript
    assert verify_transcript(first_transcript)["complete"]
    board = {r.name: r.points for r in server.store.leaderboard()}
    assert board == {"ann": 1, "bob": 5}

    # the next match is the owner's call
    await bob.send({"type": "again"})
    assert "only the room owner" in (await bob.error())["message"]
    assert host.match_id == first and host.room.state.value == "finished"
    ann.sends_entropy = True
    await ann.send({"type": "again"})
    await asyncio.gather(ann.until(lambda: ann.match_id != first), bob.until(lambda: bob.match_id != first))
    assert ann.match_id == bob.match_id == host.match_id != first
    assert host.room.state.value == "playing"
    # both seats' entropy this time: the deal is written in the new match's own transcript
    await asyncio.gather(ann.until(lambda: ann.seat.view and ann.seat.view.deal_ready),
                         bob.until(lambda: bob.seat.view and bob.seat.view.deal_ready))
    assert host.transcript != first_transcript and host.table.view.deal_ready and not host.table.over
    header = host.table.header
    assert header["matchId"] == ann.match_id and header["parties"]["seats"] == [ann.key.public_hex,
                                                                               bob.key.public_hex]
    # the finished match is still recorded once, and still verifies
    assert verify_transcript(first_transcript)["complete"]
    assert {r.name: r.points for r in server.store.leaderboard()} == board
    assert host.recorded == {first}
    task.cancel()


def test_the_next_match_from_a_result(tmp_path):
    asyncio.run(asyncio.wait_for(_again(tmp_path), 180))


async def _released(tmp_path):
    clock, server, task, url, ann, bob, code = await _two_seat_room(tmp_path)
    host = server.rooms[code]
    await ann.send({"type": "start"})
    # ann sends no entropy: once bob's is written the clock passes the window, she forfeits,
    # and the match is finished
    await asyncio.gather(ann.until(lambda: ann.seat and ann.seat.view), bob.until(lambda: bob.seat and bob.seat.view))
    await bob.until(lambda: 1 in bob.seat.view.ledger.deal.seats)
    clock.skipped += WINDOW + 1.0
    await asyncio.gather(ann.until(lambda: ann.results), bob.until(lambda: bob.results))
    first, lines = ann.match_id, len(host.table.writer.events)

    async def gone(player):
        await player.ws.close()
        while player.key.public_hex in host.conns:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)  # the release the server's detach scheduled has run

    await gone(ann)  # bob is still connected: the finished match stays in memory
    assert host.table is not None and host.table.view.complete
    await gone(bob)  # nobody: it leaves memory, the room and its result stay
    assert host.table is None and host.bot_seats == {} and host.room.state.value == "finished"
    assert host.match_id == first and host.recorded == {first}

    # ann comes back with her key: the match is rebuilt from disk; she is sent every line and the result
    ws = await connect(url)
    challenge = json.loads(await ws.recv())["challenge"]
    await ws.send(json.dumps(sign_auth(ann.key, {"type": "join", "code": code, "name": "ann", "have": 0}, challenge)))
    got = []
    while not got or got[-1]["type"] != "result":
        got.append(json.loads(await asyncio.wait_for(ws.recv(), STEP)))
    assert [m["line"]["n"] for m in got if m["type"] == "line"] == list(range(1, lines + 1))
    assert got[-1]["matchId"] == first and got[-1]["placements"] == [2, 1] and got[-1]["points"] == [1, 5]
    assert host.table is not None and host.table.view.complete
    assert {r.name: r.points for r in server.store.leaderboard()} == {"ann": 1, "bob": 5}  # recorded once
    await ws.close()
    task.cancel()


def test_a_finished_match_nobody_watches_leaves_memory_and_comes_back(tmp_path):
    asyncio.run(asyncio.wait_for(_released(tmp_path), 180))
