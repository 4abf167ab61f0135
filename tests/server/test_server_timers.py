"""The server's clock finishes a networked match nobody plays on: a person's client that
vanishes after its first lines is timed out by the referee (strictly after each deadline),
the house bots play on, and the match is recorded and verifies. Real proofs; loopback.
Every game: Mind Bluff's silent seat forfeits the series (its idle limit); a Bluffers seat
is timed out after its 30 seconds, then forfeits when its own agent's automatic move (a
proof only that agent can make) does not come within the proof limit.

The clock is injected and the limits are long: while the person is there, no wait can run
out however slowly a loaded machine proves; once it has vanished, the test moves the clock
past each deadline the table waits on, and the server's own ticker writes the timeouts."""
import asyncio
import json
import time

import pytest
from websockets.asyncio.client import connect

from zkbluff.games.engine.parties import Prover, Seat, TimeLimits
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.table import may_act
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.app import Server, serve
from zkbluff.server.protocol import sign_auth

STEP = 180  # a bound on any one wait (the first use of a statement's keys builds them into the cache)
LIMIT = float(STEP)  # every limit (each game's own too): it runs out only when the test moves the clock on
#: the games whose waits run on a clock, with options that keep a match short
TIMED = {"cheat": {"players": "3", "window": "1"}, "proof-or-bluff": {"mode": "casual"},
         "five-up-two-down": None, "mind-bluff": None, "bluffers": None}


class Clock:
    """The server's and the person's clock: the real time, plus what the test moved it on by."""

    def __init__(self):
        self.skipped = 0.0

    def __call__(self):
        return time.time() + self.skipped

    def past(self, deadline):
        """On to just after ``deadline`` (a timeout comes strictly after it), if not there yet."""
        now = self()
        if now <= deadline:
            self.skipped += deadline - now + 0.01


async def _vanish(game, options, tmp_path):
    clock = Clock()
    server = Server(tmp_path / "data", limits=TimeLimits(proof=LIMIT, idle=LIMIT, entropy=LIMIT, deal=LIMIT),
                    clock=clock, tick=0.05)
    port = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(server, "127.0.0.1", 0, lambda p, n: port.set_result(p)))
    ws = await connect(f"ws://127.0.0.1:{await asyncio.wait_for(port, STEP)}")
    challenge = json.loads(await ws.recv())["challenge"]
    key = SigningKey.generate()
    await ws.send(json.dumps(sign_auth(key, {"type": "create", "game": game, "options": options or {}, "name": "ann"},
                                       challenge)))
    room = json.loads(await ws.recv())
    for i in range(1, room["seats"]):
        await ws.send(json.dumps({"type": "add-bot", "name": f"robo {i}"}))
    seat, bot, sent_for = None, None, None
    await ws.send(json.dumps({"type": "start"}))

    own = [0]
    while own[0] < 2:  # its entropy and one move of the game (the house bot choosing), then gone
        msg = json.loads(await asyncio.wait_for(ws.recv(), STEP))
        if msg["type"] == "seat":
            seat = Seat(spec_for(msg["game"], msg["options"]), msg["seat"], "ann", Prover(), key, clock=clock)
            bot = seat.spec.house_bot(7)
            await ws.send(json.dumps({"type": "seat-join", "join": seat.join(), "toDealer": seat.to_dealer()}))
            continue
        if msg["type"] != "line":
            continue
        seat.receive(msg["line"])
        own[0] += msg["line"]["seat"] == seat.seat
        due = seat.deal_line()
        if due is None and may_act(seat.view, seat.seat) and sent_for != seat.view.next_line:
            intent = bot.act(seat.observation())
            due = None if intent is None else seat.move(intent)
        if due is not None:
            sent_for = seat.view.next_line
            await ws.send(json.dumps({"type": "line", "line": due}))
    await ws.close()  # gone, with nothing said
    host = server.rooms[room["code"]]
    for _ in range(STEP * 20):
        if host.match_id in host.recorded:
            break
        table = host.table
        # the house bots move at once (with the room's lock held): with the lock free and the
        # match on, the table waits on the vanished seat or on the clock alone (a calling window)
        if not host.lock.locked() and table is not None and not table.over and table.referee.deadline < float("inf"):
            clock.past(table.referee.deadline)
        await asyncio.sleep(0.05)
    assert host.match_id in host.recorded, [(e["action"], e["seat"], e.get("at")) for e in host.table.writer.events][-12:]
    events = host.table.writer.events
    clocked = [e for e in events if "clock" in e]
    assert clocked and all(e["seat"] is None and e["at"] > e["clock"]["deadline"] for e in clocked)
    assert any(e["data"].get("seat") == seat.seat for e in clocked)  # the vanished seat was timed out
    report = verify_transcript(host.transcript)
    assert report["complete"] and report["lines"] == len(events)
    task.cancel()
    return events


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(TIMED))
def test_the_servers_clock_finishes_a_match_whose_person_vanished(game, tmp_path, real_clock_floors):
    events = asyncio.run(asyncio.wait_for(_vanish(game, TIMED[game], tmp_path), 600))
    clocked = [(e["action"], e["data"].get("seat")) for e in events if "clock" in e]
    if game == "bluffers":  # its own move limit, then its agent's automatic move never comes: out, no points
        seat = clocked[0][1]
        assert clocked == [("timeout", seat), ("forfeit", seat)] and events[-1]["data"]["scores"][seat] == 0
    if game == "mind-bluff":  # the silent seat forfeits the series
        assert len(clocked) == 1 and clocked[0][0] == "timeout" and events[-1]["data"]["placements"][clocked[0][1]] == 2
