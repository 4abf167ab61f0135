"""Seed 003 over the network: "If your connection drops, the match doesn't stop: when your
turn comes, a move is played for you automatically. When you come back, you rejoin the
table where you left off." (issue 27, item 8)

A person's client (``SeatClient``) at a two-seat Bluffers table with a house bot, on a real
server on loopback with real proofs. Whenever its hand changes, the client leaves with the
referee its sealed automatic move for its next turn (games/bluffers/sealed.py). At its first
turn the person is away and the connection drops; the referee's clock runs out the seat's
30 seconds and plays the sealed move; the person comes back with a new client on the same
home folder, is sent the lines it missed, and plays on with its hand to the end; the
transcript verifies. The twin: a seat that left no seal is timed out and its move waits on
its own agent, as before.

The clock is injected and stands still: it moves only when the test moves it past the
deadline of the seat that is gone (tests/README.md)."""
import asyncio
import threading
import time

import pytest

from serving import serving
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.server.app import Server
from zkbluff.server.client import SeatClient, bot_policy, read_events
from zkbluff.server.terminal import PromptCancelled

STEP = 180  # a bound on any one wait (a loaded machine, keys read into the cache)
LIMIT = float(STEP)


class Clock:
    """The server's and the clients' clock: it stands still (no limit runs out however slowly
    a loaded machine proves) until the test moves it past a deadline."""

    def __init__(self):
        self.now = time.time()

    def __call__(self):
        return self.now

    def past(self, deadline):
        if self.now <= deadline:
            self.now = deadline + 0.01


class AwayAtFirstTurn:
    """The person: at its first turn it is not there (the prompt stays open until called off)."""

    def __init__(self):
        self.bot = bot_policy(3)
        self.away = threading.Event()
        self.called_off = threading.Event()

    def __call__(self, spec, obs, names):
        if obs.due == "turn" and not self.away.is_set():
            self.away.set()
            self.called_off.wait(STEP)
            raise PromptCancelled()
        return self.bot(spec, obs, names)

    def cancel(self):
        self.called_off.set()


async def _until(cond, what):
    for _ in range(STEP * 20):
        if cond():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def _serving(tmp_path):
    """A server on loopback (its data under ``tmp_path``, one test clock, every limit LIMIT):
    the clock, the server, its task and its URL."""
    clock = Clock()
    server = Server(tmp_path / "data", limits=TimeLimits(proof=LIMIT, idle=LIMIT, entropy=LIMIT, deal=LIMIT),
                    clock=clock, tick=0.05)
    task, url = await serving(server)
    return clock, server, task, url


async def _table_with_ann_away(tmp_path, seals: bool):
    """A server, ann's client at a two-seat table with a house bot, gone at its first turn."""
    clock, server, task, url = await _serving(tmp_path)
    person = AwayAtFirstTurn()
    ann = SeatClient(url, tmp_path / "ann", "ann", person, lambda s: None, add_bots=("robo",), clock=clock)
    if not seals:
        ann._seal = _no_seal  # type: ignore[method-assign]  # a client that leaves no sealed move
    playing = asyncio.ensure_future(ann.host("bluffers", {"players": "2"}))
    await _until(lambda: person.away.is_set() or playing.done(), "ann's first turn")
    assert not playing.done()
    host = server.rooms[ann.code]
    seat = ann.seat.seat
    if seals:
        await _until(lambda: host.table is not None and str(seat) in host.table.referee.private.get("seals", {}),
                     "ann's seal at the referee")
    playing.cancel()  # the connection drops, nothing said
    try:
        await playing
    except asyncio.CancelledError:
        pass
    await _until(lambda: ann.key.public_hex not in host.conns, "the server to see ann gone")
    return server, task, url, clock, host, seat


async def _no_seal(conn):
    return None


def _kinds(events):
    return [(e["action"], e["seat"] if e["seat"] is not None else e["data"].get("seat")) for e in events]


async def _dropped_and_back(tmp_path):
    server, task, url, clock, host, seat = await _table_with_ann_away(tmp_path, seals=True)
    n = len(host.table.writer.events)
    assert host.table.to_move == seat                                    # its turn, and it is gone
    clock.past(host.table.referee.deadline)                              # its 30 seconds run out
    await _until(lambda: any(e["action"] == "sealed_move" for e in host.table.writer.events[n:]), "the sealed move")
    events = host.table.writer.events
    k = next(i for i in range(n, len(events)) if events[i]["action"] == "sealed_move")
    assert _kinds(events[k - 1:k + 1]) == [("timeout", seat), ("sealed_move", seat)]
    assert events[k]["seat"] is None and all(p["signer"] == seat for p in events[k]["proofs"])
    assert not any(e["seat"] == seat and e["action"] in ("play", "call_bluff", "auto_move") for e in events[n:k])
    # back: a new client on the same home folder rejoins where it left off and plays on
    said = []
    back = SeatClient(url, host.server.data.parent / "ann", "ann", bot_policy(4), said.append, clock=clock)
    report = await asyncio.wait_for(back.join(host.room.code), STEP * 4)
    events = read_events(host.transcript)                               # (the finished match may be released)
    assert host.match_id in host.recorded and report["result"] is not None
    assert any(text.startswith("back in seat") for text in said)
    after = [e for e in events[k + 1:] if e["seat"] == seat]
    assert after and back.moves >= 1                                    # its own lines after the sealed move
    assert back.writer.events == events                                 # it has every line, the missed ones too
    verified = verify_transcript(host.transcript)
    assert verified["complete"] and verified["lines"] == len(events)
    task.cancel()


async def _seal_lost_then_left_again(tmp_path):
    server, task, url, clock, host, seat = await _table_with_ann_away(tmp_path, seals=True)
    host.table.referee.private["seals"].pop(str(seat))                   # as if it never reached the referee
    person = AwayAtFirstTurn()                                           # back, and away again at the same turn
    back = SeatClient(url, tmp_path / "ann", "ann", person, lambda s: None, clock=clock)
    playing = asyncio.ensure_future(back.join(host.room.code))
    await _until(lambda: person.away.is_set(), "ann's turn again")
    await _until(lambda: str(seat) in host.table.referee.private.get("seals", {}), "the seal left again")
    playing.cancel()
    try:
        await playing
    except asyncio.CancelledError:
        pass
    n = len(host.table.writer.events)
    clock.past(host.table.referee.deadline)
    await _until(lambda: any(e["action"] == "sealed_move" for e in host.table.writer.events[n:]), "the sealed move")
    sealed = next(e["n"] for e in host.table.writer.events[n:] if e["action"] == "sealed_move")
    # the server plays on meanwhile (its bot's next move may already be written): the file, as it
    # stands, verifies and holds the sealed move
    assert verify_transcript(host.transcript)["lines"] >= sealed
    task.cancel()


async def _dropped_without_a_seal(tmp_path):
    server, task, url, clock, host, seat = await _table_with_ann_away(tmp_path, seals=False)
    n = len(host.table.writer.events)
    assert host.table.referee.private.get("seals", {}) == {}
    clock.past(host.table.referee.deadline)
    await _until(lambda: len(host.table.writer.events) > n, "the timeout")
    await asyncio.sleep(1.0)
    assert _kinds(host.table.writer.events[n:]) == [("timeout", seat)]  # nothing is played for it
    assert host.table.spec.timeout(host.table.rules)[1] == "idle"        # its own agent owes the move (or forfeits)
    task.cancel()


@pytest.mark.slow
def test_a_dropped_bluffers_seat_is_played_by_its_sealed_move_and_rejoins_with_its_hand(tmp_path):
    asyncio.run(asyncio.wait_for(_dropped_and_back(tmp_path), 900))


@pytest.mark.slow
def test_a_seal_the_referee_never_got_is_left_again_on_the_next_connection(tmp_path):
    asyncio.run(asyncio.wait_for(_seal_lost_then_left_again(tmp_path), 900))


@pytest.mark.slow
def test_a_dropped_bluffers_seat_without_a_seal_falls_back_to_the_timeout(tmp_path):
    asyncio.run(asyncio.wait_for(_dropped_without_a_seal(tmp_path), 900))


async def _hostile_seals(tmp_path):
    """A seat's own client that sends the server seals it should not: a chain with a seal
    under another key's signature, another seat's name, its own chain of an earlier turn.
    Each is refused with an error reply, the referee keeps none of them, and its own fresh
    chain is kept."""
    import copy
    import json

    from websockets.asyncio.client import connect

    from zkbluff.games.bluffers.moves import PlayCards, Proceed
    from zkbluff.games.bluffers.proofs import cards_of
    from zkbluff.games.bluffers.sealed import seal_message
    from zkbluff.games.engine.parties import Prover, Seat
    from zkbluff.games.engine.registry import spec_for
    from zkbluff.protocol.signing import SigningKey
    from zkbluff.server.protocol import sign_auth

    clock, server, task, url = await _serving(tmp_path)
    ws = await connect(url)
    challenge = json.loads(await ws.recv())["challenge"]
    key = SigningKey.generate()
    await ws.send(json.dumps(sign_auth(key, {"type": "create", "game": "bluffers", "options": {"players": "2"},
                                             "name": "ann"}, challenge)))
    room = json.loads(await ws.recv())
    await ws.send(json.dumps({"type": "add-bot", "name": "robo"}))
    await ws.send(json.dumps({"type": "start"}))
    seat, errors = None, []

    async def follow(until):
        while not until():
            msg = json.loads(await asyncio.wait_for(ws.recv(), STEP))
            if msg["type"] == "seat":
                nonlocal seat
                seat = Seat(spec_for(msg["game"], msg["options"]), msg["seat"], "ann", Prover(), key, clock=clock)
                await ws.send(json.dumps({"type": "seat-join", "join": seat.join(), "toDealer": seat.to_dealer()}))
            elif msg["type"] == "line":
                seat.receive(msg["line"])
                due = seat.deal_line()
                owed = seat.view.rules.to_move == seat.seat and seat.observation().due not in ("turn", None)
                if due is None and owed:  # what follows by itself (its seed, a reveal, a share)
                    due = seat.move(Proceed())
                if due is not None:
                    await ws.send(json.dumps({"type": "line", "line": due}))
            elif msg["type"] == "error":
                errors.append(msg)

    def my_turn():
        return seat is not None and seat.view is not None and seat.observation().due == "turn"

    await follow(my_turn)
    host = server.rooms[room["code"]]
    i = seat.seat
    old = seat.spec.make_seal(seat)                                      # its chain: a seal for each turn of the hand
    assert isinstance(old, list) and len(old) == 5

    def seals():
        return host.table.referee.private.get("seals", {})

    async def refused(seal, words):
        n = len(errors)
        await ws.send(json.dumps({"type": "seal", "seal": seal}))
        await follow(lambda: len(errors) > n)
        assert errors[-1]["about"] == "seal" and words in errors[-1]["message"], errors[-1]
        assert str(i) not in seals()

    forged = copy.deepcopy(old)
    d = forged[1]["data"]                                                # its second seal re-signed by another key
    d["sig"] = SigningKey.generate().sign(seal_message(host.match_id, i, d["context"], d["play_commitment"],
                                                        d["hand_commitment"]))
    await refused(forged, "signature does not verify")
    other = copy.deepcopy(old)
    other[0]["data"]["seat"] = 1 - i
    await refused(other, "only its own sealed move")
    await ws.send(json.dumps({"type": "seal", "seal": old}))            # the twin: its own seal is kept
    await _until(lambda: str(i) in seals(), "the seat's own seal")
    line = seat.move(PlayCards((cards_of(seat.private["hand"])[0],)))  # it plays itself: that seal is stale
    await ws.send(json.dumps({"type": "line", "line": line}))
    await follow(lambda: my_turn() and seat.view.next_line > line["n"] + 1)
    await refused(old, "made for another hand or turn")
    assert not any(e["action"] == "sealed_move" for e in host.table.writer.events)
    await ws.close()
    task.cancel()


@pytest.mark.slow
def test_a_seats_forged_foreign_and_stale_seals_are_refused_by_the_server(tmp_path):
    asyncio.run(asyncio.wait_for(_hostile_seals(tmp_path), 900))


class OneCardUntilReleased:
    """Bob, a person at the other seat: plays one card each turn (never calls) while ann is
    away, then as a bot."""

    def __init__(self):
        self.bot = bot_policy(5)
        self.released = threading.Event()

    def __call__(self, spec, obs, names):
        from zkbluff.games.bluffers.moves import PlayCards

        if obs.due == "turn" and not self.released.is_set():
            return PlayCards((obs.hand[0],))
        return self.bot(spec, obs, names)


async def _away_three_turns_and_back(tmp_path):
    """Two people at a networked table; ann's connection drops at her first turn and she
    stays away for three of her turns, each played by the next seal of the chain she left;
    then she rejoins with her hand and both play on to the end."""
    clock, server, task, url = await _serving(tmp_path)
    person, other = AwayAtFirstTurn(), OneCardUntilReleased()
    ann = SeatClient(url, tmp_path / "ann", "ann", person, lambda s: None, clock=clock)
    playing = asyncio.ensure_future(ann.host("bluffers", {"players": "2"}))
    await _until(lambda: ann.code is not None, "ann's room")
    bob = SeatClient(url, tmp_path / "bob", "bob", other, lambda s: None, clock=clock)
    bobbing = asyncio.ensure_future(bob.join(ann.code))
    await _until(lambda: person.away.is_set() or playing.done(), "ann's first turn")
    host = server.rooms[ann.code]
    seat = ann.seat.seat

    def held():
        return host.table.referee.private.get("seals", {}).get(str(seat)) or []

    await _until(lambda: len(held()) == 5, "ann's chain of five seals at the referee")
    playing.cancel()  # the connection drops, nothing said
    try:
        await playing
    except asyncio.CancelledError:
        pass
    await _until(lambda: ann.key.public_hex not in host.conns, "the server to see ann gone")
    hand = ann.seat.private["hand"]
    for turn in range(3):                                                # away for three of her turns
        await _until(lambda: host.table.to_move == seat and host.table.rules.timed_out is None, f"ann's turn {turn}")
        n = len(host.table.writer.events)
        clock.past(host.table.referee.deadline)                          # her 30 seconds run out
        await _until(lambda: any(e["action"] == "sealed_move" for e in host.table.writer.events[n:]),
                     f"sealed move {turn}")
        assert len(held()) == 4 - turn
    await _until(lambda: host.table.to_move == seat, "ann's fourth turn")
    events = host.table.writer.events
    sealed_lines = [e for e in events if e["action"] == "sealed_move"]
    assert len(sealed_lines) == 3 and host.table.rules.s.hand_sizes[seat] == 2
    assert not any(e["action"] == "forfeit" for e in events)
    # back: a new client on the same home folder catches up, opens each sealed move once, plays on
    said = []
    back = SeatClient(url, tmp_path / "ann", "ann", bot_policy(4), said.append, clock=clock)
    other.released.set()
    rejoining = asyncio.ensure_future(back.join(host.room.code))
    await _until(lambda: back.seat is not None and back.seat.view is not None and back.moves >= 1, "ann's own move")
    played = back.seat.private["played"]
    if host.table.rules.s.round == 1:                                    # (still the first hand: what it holds)
        assert hand & ~sum(1 << c for c in played) == back.seat.private["hand"]
    report = await asyncio.wait_for(rejoining, STEP * 4)
    bob_report = await asyncio.wait_for(bobbing, STEP * 4)
    events = read_events(host.transcript)
    assert report["result"] is not None and bob_report["result"] is not None
    assert any(text.startswith("back in seat") for text in said)
    k = events.index(sealed_lines[-1])
    assert any(e["seat"] == seat and e["action"] in ("play", "call_bluff") for e in events[k + 1:])  # her own turns after the seals (a call is one)
    assert back.writer.events == events and bob.writer.events == events  # every copy equals the server's
    verified = verify_transcript(host.transcript)
    assert verified["complete"] and verified["lines"] == len(events)
    task.cancel()


@pytest.mark.slow
def test_a_bluffers_seat_away_for_three_turns_is_played_by_its_chain_and_rejoins_with_its_hand(tmp_path):
    asyncio.run(asyncio.wait_for(_away_three_turns_and_back(tmp_path), 900))


async def _move_before_chain(tmp_path, monkeypatch):
    """The chain's proofs are not the seat's 30 seconds: while its chain is still being
    proved (held back here until the test lets it finish), the seat's move goes out."""
    from zkbluff.games.bluffers import sealed
    from zkbluff.games.bluffers.spec import BluffersSpec

    gate = threading.Event()

    def held_back(self, plan):
        gate.wait(STEP)
        return sealed.prove_seal(plan)

    monkeypatch.setattr(BluffersSpec, "prove_seal", held_back)
    clock, server, task, url = await _serving(tmp_path)
    ann = SeatClient(url, tmp_path / "ann", "ann", bot_policy(3), lambda s: None, add_bots=("robo",), clock=clock)
    playing = asyncio.ensure_future(ann.host("bluffers", {"players": "2"}))
    await _until(lambda: ann.code is not None and server.rooms.get(ann.code) is not None
                 and server.rooms[ann.code].table is not None, "the match")
    host = server.rooms[ann.code]
    seat = ann.seat.seat

    def own_moves():
        return [e for e in host.table.writer.events if e["seat"] == seat and e["action"] in ("play", "call_bluff")]

    for _ in range(600):                                                 # 30 s: its move, the chain still unproved
        if own_moves():
            break
        await asyncio.sleep(0.05)
    assert own_moves(), "the seat's move waited on its chain of seals"
    assert not gate.is_set() and str(seat) not in host.table.referee.private.get("seals", {})
    gate.set()                                                           # the chain is proved: it is left after all
    table = host.table                                                   # (the bots may finish the match first)
    await _until(lambda: str(seat) in table.referee.private.get("seals", {}) or table.over, "the chain")
    playing.cancel()
    try:
        await playing
    except (asyncio.CancelledError, Exception):
        pass
    task.cancel()


@pytest.mark.slow
def test_a_seats_move_never_waits_on_proving_its_chain_of_seals(tmp_path, monkeypatch):
    asyncio.run(asyncio.wait_for(_move_before_chain(tmp_path, monkeypatch), 900))
