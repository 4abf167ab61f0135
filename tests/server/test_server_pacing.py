"""Mind Bluff over the real server on loopback (issue 27 items 11 and 12).

Item 11, the paced pauses: a seat's line inside the doubt's 4.5 s, or inside game 3's 10 s
coin, is refused by the server's referee (``PausedMove``), whether its stamp is inside the
pause or ahead of it;
the server's house bot waits the pause out (the server's clock moves it once it ends); a
person's client waits it out by itself and is never refused. The clock is shared and
injected: the test moves it past each pause instead of sleeping.

Item 12, consent: with two people at the table, P2 is asked to consent to the next game,
and the next game does not start until P2 has.

Real proofs (a few eats and verdicts); each test stops once it has shown its point."""
from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from websockets.asyncio.client import connect

from serving import serving
from zkbluff.games.engine.parties import Prover, Seat
from zkbluff.games.engine.referee import referee_stamp
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.mind_bluff.bot import Move
from zkbluff.games.mind_bluff.rules import AllDone, Claim, Consent, Doubt, Eat, Phase
from zkbluff.games.mind_bluff.spec import MindBluffSpec
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.app import Server
from zkbluff.server.client import SeatClient
from zkbluff.server.protocol import sign_auth

STEP = 180  # a bound on any one wait (never reached by a working server)
DOUBT_S = 4.5  # the seed's number


class Clock:
    """The server's and the seats' clock: the real time, plus what the test moved it on by."""

    def __init__(self):
        self.skipped = 0.0

    def __call__(self):
        return time.time() + self.skipped

    def past(self, t):
        now = self()
        if now < t:
            self.skipped += t - now + 0.01


class Doubter:
    """Eats 1 and claims 1 (the truth) every turn, doubts every claim; otherwise its first
    legal move. A house bot's class (``house_bot(seed)``) and, wrapped, a client's policy."""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def act(self, view):
        phase = view.state.phase
        if phase == Phase.TURN:
            return Move(Eat(), 1)
        if phase == Phase.CLAIM:
            return Move(Claim(1, False))
        if phase == Phase.RESPOND:
            return Move(Doubt())
        return Move(view.legal[0])


async def _serve(server):
    return await serving(server)


class RawSeat:
    """P1 over a bare websocket: the engine's Seat in this process, every message by hand."""

    def __init__(self, ws, clock):
        self.ws, self.clock, self.key, self.seat = ws, clock, SigningKey.generate(), None

    async def recv(self):
        return json.loads(await asyncio.wait_for(self.ws.recv(), STEP))

    async def open_room(self):
        challenge = (await self.recv())["challenge"]
        await self.ws.send(json.dumps(sign_auth(self.key, {"type": "create", "game": "mind-bluff", "options": {},
                                                           "name": "ann"}, challenge)))
        room = await self.recv()
        await self.ws.send(json.dumps({"type": "add-bot", "name": "robo"}))
        await self.ws.send(json.dumps({"type": "start"}))
        return room["code"]

    async def until(self, done):
        """Follow the lines until ``done(seat)``; other messages are skipped, errors returned."""
        while True:
            if self.seat is not None and self.seat.view is not None and done(self.seat):
                return
            msg = await self.recv()
            if msg["type"] == "seat":
                self.seat = Seat(spec_for(msg["game"], msg["options"]), msg["seat"], "ann", Prover(), self.key,
                                 clock=self.clock)
                await self.ws.send(json.dumps({"type": "seat-join", "join": self.seat.join(),
                                               "toDealer": self.seat.to_dealer()}))
            elif msg["type"] == "line":
                self.seat.receive(msg["line"])
            elif msg["type"] == "error":
                raise AssertionError(f"the server refused: {msg}")

    async def send(self, line):
        await self.ws.send(json.dumps({"type": "line", "line": line}))

    async def refused(self):
        """The server's answer to a line it refuses (no line is written meanwhile)."""
        while True:
            msg = await self.recv()
            if msg["type"] == "error":
                return msg
            assert msg["type"] != "line", f"a line was written: {msg['line']['action']}"

    def made_anyway(self, intent, at):
        """This seat's signed line stamped ``at``, made past its own client's guard."""
        s = self.seat
        move = s.spec.seat_move(s.private, s.view.rules, s.seat, intent)
        saved, s.clock = s.clock, (lambda: at)
        try:
            line = s._signed_move(move, s.seat, s.prover)
        finally:
            s.clock = saved
        s._pending = (line["n"], move.update)
        return line


def _to_move(phase):
    return lambda s: s.view.rules.to_move == s.seat and s.view.rules.phase == phase


def test_a_move_inside_the_doubts_pause_is_refused_by_the_server_and_its_bot_waits_it_out(
        tmp_path, match_keys, monkeypatch):
    monkeypatch.setattr(MindBluffSpec, "house_bot", Doubter)  # the server's bot (P2) doubts every claim

    async def run():
        clock = Clock()
        server = Server(tmp_path / "data", key_folder=match_keys, clock=clock, tick=0.05)
        task, url = await _serve(server)
        async with connect(url) as ws:
            p1 = RawSeat(ws, clock)
            host = server.rooms[await p1.open_room()]
            await p1.until(_to_move(Phase.TURN))
            await p1.send(p1.seat.move(Move(Eat(), 1)))
            await p1.until(_to_move(Phase.CLAIM))
            await p1.send(p1.seat.move(Move(Claim(1, False))))
            # the bot doubts (TRUE: it owes a debt) and is to move next, inside the pause
            await p1.until(lambda s: s.view.rules.to_move == 1 and s.view.rules.phase == Phase.TURN)
            doubt = next(e for e in reversed(host.table.writer.events) if e["action"] == "doubt")
            until = referee_stamp(doubt) + DOUBT_S  # the pause runs from the referee's receipt of the doubt
            assert p1.seat.view.paused_until == until
            for _ in range(STEP * 20):  # the room's lock free: the bot's move is left to the clock
                if not host.lock.locked():
                    break
                await asyncio.sleep(0.05)
            call = host.bot_call
            assert call is not None and call[0] == pytest.approx(until, abs=0.5) and call[2] == 1
            assert host.table.writer.events[-1]["action"] == "doubt_verdict"  # held: no bot line yet
            clock.past(until)                            # the pause ends: the server's clock moves the bot
            await p1.until(_to_move(Phase.RESPOND))      # its eat, the verdict, its honest claim
            bot_eat = next(e for e in host.table.writer.events if e["n"] > doubt["n"] and e["seat"] == 1)
            assert bot_eat["action"] == "eat" and bot_eat["at"] >= until
            # P1 doubts the bot's forced-honest claim (TRUE at once: P1 owes) and moves next, paused
            await p1.send(p1.seat.move(Move(Doubt())))
            await p1.until(_to_move(Phase.TURN))
            doubt = p1.seat.view.pause
            n = len(host.table.writer.events)
            now = clock()
            await p1.send(p1.made_anyway(Move(Eat(), 1), now))           # stamped inside the pause
            refused = await p1.refused()
            assert refused["error"] == "PausedMove" and refused["about"] == "line" and "pause" in refused["message"]
            await p1.send(p1.made_anyway(Move(Eat(), 1), doubt.until + 0.1))  # stamped after it, sent inside it
            refused = await p1.refused()
            assert refused["error"] == "PausedMove" and "referee's clock" in refused["message"]
            assert len(host.table.writer.events) == n    # nothing written
            clock.past(doubt.until)
            p1.seat._pending = None
            await p1.send(p1.seat.move(Move(Eat(), 1)))  # after the pause: taken
            await p1.until(lambda s: s.view.next_line > n + 1)
            assert host.table.writer.events[n]["action"] == "eat" and host.table.writer.events[n]["seat"] == 0
        task.cancel()

    asyncio.run(asyncio.wait_for(run(), 3 * STEP))


class AllDoner:
    """Calls All done at every turn of games 1 and 2 (it loses each game it opens: 30 remain),
    eats 1 in game 3 (the series goes on); otherwise its first legal move (its draw entropy)."""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def act(self, view):
        if view.state.phase == Phase.TURN:
            return Move(Eat(), 1) if view.state.game == 3 else Move(AllDone())
        return Move(view.legal[0])


def test_a_move_inside_game_3s_coin_pause_is_refused_by_the_server(tmp_path, match_keys, monkeypatch, seed_secrets):
    """Games 1 and 2 are lost by All done at once (1–1); game 3's start opens a 10 s pause:
    whichever seat the coin names first (seeded: the same seat every run), nothing of its is
    written before the pause ends, and its eat after it is."""
    seed_secrets(2711)
    monkeypatch.setattr(MindBluffSpec, "house_bot", AllDoner)
    coin_s = 10.0  # the seed's number

    async def run():
        clock = Clock()
        server = Server(tmp_path / "data", key_folder=match_keys, clock=clock, tick=0.05)
        task, url = await _serve(server)
        async with connect(url) as ws:
            p1 = RawSeat(ws, clock)
            host = server.rooms[await p1.open_room()]
            me, sent = AllDoner(), None  # P1 loses game 1, the bot game 2; P1 consents, reveals its entropy
            while True:
                await p1.until(lambda s: s.view.rules.game == 3 or (
                    s.view.rules.to_move == 0 and s.view.next_line != sent))
                if p1.seat.view.rules.game == 3:
                    break
                sent = p1.seat.view.next_line
                await p1.send(p1.seat.move(me.act(p1.seat.observation())))
            start = next(e for e in reversed(host.table.writer.events) if e["action"] == "start_game")
            until = start["at"] + coin_s
            assert start["data"]["game"] == 3 and p1.seat.view.paused_until == until
            first = p1.seat.view.rules.to_move
            n = len(host.table.writer.events)
            if first == 0:                                # P1's line 5 s in: refused, nothing written
                await p1.send(p1.made_anyway(Move(Eat(), 1), max(clock(), start["at"] + 5.0)))
                refused = await p1.refused()
                assert refused["error"] == "PausedMove" and len(host.table.writer.events) == n
                clock.past(until)
                p1.seat._pending = None
                await p1.send(p1.seat.move(Move(Eat(), 1)))
            else:                                         # the server's bot is held until the pause ends
                for _ in range(STEP * 20):
                    if not host.lock.locked():
                        break
                    await asyncio.sleep(0.05)
                assert host.bot_call is not None and host.bot_call[0] == pytest.approx(until, abs=0.5)
                assert len(host.table.writer.events) == n
                clock.past(until)
            await p1.until(lambda s: s.view.next_line > n + 1)
            moved = host.table.writer.events[n]
            assert moved["seat"] == first and moved["action"] == "eat" and moved["at"] >= until
        task.cancel()

    asyncio.run(asyncio.wait_for(run(), 3 * STEP))


def test_a_persons_client_waits_out_the_pause_by_itself_and_is_never_refused(tmp_path, match_keys, monkeypatch):
    monkeypatch.setattr(MindBluffSpec, "house_bot", Doubter)
    doubter = Doubter()
    answered = []  # the table line each answer of the person's policy was for

    async def run():
        clock = Clock()
        server = Server(tmp_path / "data", key_folder=match_keys, clock=clock, tick=0.05)
        task, url = await _serve(server)

        def policy(spec, obs, names):
            answered.append(client.seat.view.next_line)
            return doubter.act(obs)

        client = SeatClient(url, tmp_path / "ann", "ann", policy, lambda m: None, key_folder=match_keys,
                            add_bots=("robo",), clock=clock)
        playing = asyncio.ensure_future(client.host("mind-bluff"))
        waited = []  # (the pause's end, the client's own pause_left) when the test moved the clock for it
        mine: list = []
        for _ in range(STEP * 20):
            await asyncio.sleep(0.05)
            host = next(iter(server.rooms.values()), None)
            table = host.table if host is not None else None
            if table is None or client.seat is None or client.seat.view is None:
                continue
            events = table.writer.events
            mine = [e for e in events if e["seat"] == 0 and e["action"] == "eat" and any(  # after its own doubt
                d["action"] == "doubt" and d["seat"] == 0 and d["n"] < e["n"] for d in events)]
            if mine:
                break
            if table.view.paused_until <= clock() or host.lock.locked():
                continue
            if table.to_move == 1:                      # the house bot: the server's clock moves it
                clock.past(table.view.paused_until)
            elif answered and answered[-1] == table.view.next_line:  # the person answered; its client holds it
                waited.append((table.view.paused_until, client.seat.pause_left()))
                clock.past(table.view.paused_until)
        playing.cancel()
        task.cancel()
        return waited, mine[0], [e for e in events if e["action"] == "doubt"], client.errors

    waited, first, doubts, errors = asyncio.run(asyncio.wait_for(run(), 3 * STEP))
    assert waited and waited[-1][1] > 0 and first["at"] >= waited[-1][0]  # it held its move until the pause ended
    assert first["at"] >= referee_stamp(doubts[-1]) + DOUBT_S
    assert not [e for e in errors if e.get("error") == "PausedMove"]


# ---------------------------------------------------------------- (12) both people consent

def test_p2_is_asked_to_consent_and_the_next_game_waits_for_it(tmp_path, match_keys):
    """Seed: "Both human-controlled seats must consent". Two people: P1 calls All done at
    once (30 remain: P1 loses game 1) and consents; P2's client is asked too, and game 2
    does not start until P2 answers."""
    asked = threading.Event()
    release = threading.Event()

    def p1(spec, obs, names):
        return Move(AllDone()) if obs.state.phase == Phase.TURN else Move(Consent())

    def p2(spec, obs, names):
        if obs.state.phase == Phase.NEXT_GAME:
            asked.set()
            release.wait(STEP)
            return Move(Consent())
        return Move(AllDone()) if obs.state.phase == Phase.TURN else Move(obs.legal[0])

    async def run():
        server = Server(tmp_path / "data", key_folder=match_keys)
        task, url = await _serve(server)
        ann = SeatClient(url, tmp_path / "ann", "ann", p1, lambda m: None, key_folder=match_keys, start_with=2)
        ann_playing = asyncio.ensure_future(ann.host("mind-bluff"))
        for _ in range(STEP * 20):
            await asyncio.sleep(0.05)
            if ann.code is not None:
                break
        ben = SeatClient(url, tmp_path / "ben", "ben", p2, lambda m: None, key_folder=match_keys)
        ben_playing = asyncio.ensure_future(ben.join(ann.code))
        for _ in range(STEP * 20):
            await asyncio.sleep(0.05)
            if asked.is_set():
                break
        assert asked.is_set(), "P2 was never asked to consent"
        host = server.rooms[ann.code]
        for _ in range(STEP * 20):  # P1's consent is written; the table still waits for P2
            if any(e["action"] == "consent" for e in host.table.writer.events):
                break
            await asyncio.sleep(0.05)
        kinds = [e["action"] for e in host.table.writer.events]
        assert host.options["humans"] == "both" and kinds.count("start_game") == 1
        assert [e["seat"] for e in host.table.writer.events if e["action"] == "consent"] == [0]
        assert host.table.rules.phase == Phase.NEXT_GAME and host.table.to_move == 1
        release.set()
        for _ in range(STEP * 20):
            if [e["action"] for e in host.table.writer.events].count("start_game") == 2:
                break
            await asyncio.sleep(0.05)
        events = host.table.writer.events
        ann_playing.cancel()
        ben_playing.cancel()
        task.cancel()
        return events

    events = asyncio.run(asyncio.wait_for(run(), 3 * STEP))
    kinds = [e["action"] for e in events]
    consents = [e["seat"] for e in events if e["action"] == "consent"]
    assert consents == [0, 1] and kinds.count("start_game") == 2
    assert kinds.index("start_game", 2) > max(i for i, k in enumerate(kinds) if k == "consent")
