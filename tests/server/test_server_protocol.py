"""The server's envelope, sign-in, points, seat joins, lobby guards and the leaderboard
command (no proofs: fast)."""
import asyncio
import json
import os
import time
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner
from websockets.asyncio.client import connect

from serving import serving
from zkbluff.cli import main
from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.engine.parties import Seat
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.rules import Result
from zkbluff.protocol.signing import InvalidSignature, SigningKey, sign_line
from zkbluff.server.app import RoomHost, Server
from zkbluff.server.protocol import check_auth, decode, sign_auth
from zkbluff.server.results import PLACE_POINTS, place_points, seat_results
from zkbluff.server.rooms import MAX_MESSAGE_BYTES, Member, Room
from zkbluff.server.storage import SeatResult, SqliteResultStore

GAME = "proof-or-bluff"


# ---------------------------------------------------------------- envelope and sign-in

def test_decode_accepts_one_object_with_a_type():
    assert decode('{"type": "watch", "code": "X"}') == {"type": "watch", "code": "X"}


@pytest.mark.parametrize("raw, why", [
    (b'{"type": "watch"}', "binary"),
    ("{nope", "not JSON"),
    ("[1, 2]", "object"),
    ('{"kind": "watch"}', "type"),
    ('{"type": 7}', "type"),
    ('{"type": "x", "pad": "' + "a" * MAX_MESSAGE_BYTES + '"}', "limit"),
    ("[" * 30000 + "]" * 30000, "JSON"),  # too deep to parse, or parsed and not an object
])
def test_decode_refuses_what_is_not_a_message(raw, why):
    with pytest.raises(MalformedInput, match=why):
        decode(raw)


def test_sign_in_binds_the_key_to_this_connection():
    key = SigningKey.generate()
    msg = sign_auth(key, {"type": "join", "code": "ABCDEFGH", "name": "ann"}, "c1")
    assert check_auth(msg, "c1") == key.public_hex
    with pytest.raises(InvalidSignature):  # replayed on a connection with another challenge
        check_auth(msg, "c2")
    with pytest.raises(InvalidSignature):  # a field changed after signing
        check_auth({**msg, "name": "bob"}, "c1")
    with pytest.raises(InvalidSignature):  # someone else's key put on it
        check_auth({**msg, "publicKey": SigningKey.generate().public_hex}, "c1")
    with pytest.raises(MalformedInput):
        check_auth({**msg, "publicKey": "zz"}, "c1")


# ---------------------------------------------------------------- points

def test_points_are_seed_003s_table():
    assert [place_points(4, p) for p in (1, 2, 3, 4)] == [10, 6, 3, 1]
    assert [place_points(3, p) for p in (1, 2, 3)] == [8, 4, 1]
    assert [place_points(2, p) for p in (1, 2)] == [5, 1]
    assert all(list(v) == sorted(v, reverse=True) and len(v) == n for n, v in PLACE_POINTS.items())
    for n, p in ((7, 1), (2, 3), (2, 0)):
        with pytest.raises(MalformedInput):
            place_points(n, p)


def test_seat_results_from_the_rules_result():
    keys = [SigningKey.generate().public_hex for _ in range(3)]
    header = {"seats": ["ann", "robo", "bob"], "parties": {"seats": keys}}
    rows = seat_results(Result((2, 1, 2), (3, 9, 3), "x"), header, [False, True, False])
    assert [(r.player, r.is_bot, r.place, r.points) for r in rows] == [
        (f"key:{keys[0]}", False, 2, 4), ("bot:robo#1", True, 1, 8), (f"key:{keys[2]}", False, 2, 4)]
    with pytest.raises(MalformedInput):
        seat_results(Result((1, 2), (1, 0), "x"), header, [False, True, False])


# ---------------------------------------------------------------- a person's join for a match

def _host(tmp_path, game=GAME, options=None):
    server = Server(tmp_path / "d")
    spec = spec_for(game, options)
    keys = [SigningKey.generate() for _ in range(2)]
    room = Room("ABCDEFGH", game, keys[0].public_hex, 2, 2,
                [Member("ann", False, keys[0].public_hex), Member("bob", False, keys[1].public_hex)])
    host = RoomHost(server, room, dict(spec.options), tmp_path / "room")
    host.begin()
    seats = [Seat(spec, i, ["ann", "bob"][i], key=keys[i]) for i in range(2)]
    return server, host, seats


def _join(seat):
    return {"type": "seat-join", "join": seat.join(), "toDealer": seat.to_dealer()}


def test_seat_join_takes_each_seats_engine_messages(tmp_path):
    server, host, seats = _host(tmp_path)
    assert host.seat_join(0, _join(seats[0])) is False
    assert host.seat_join(0, _join(seats[0])) is False  # the same join again (a client that came back)
    assert host.seat_join(1, _join(seats[1])) is True
    server.close()


@pytest.mark.parametrize("change", ["other seat", "other key", "other name", "no dealer message",
                                    "dealer message of another seat", "not an object"])
def test_seat_join_refuses_a_join_that_is_not_this_seats(tmp_path, change):
    server, host, seats = _host(tmp_path)
    msg = _join(seats[0])
    if change == "other seat":
        msg = _join(seats[1])
    elif change == "other key":
        msg["join"]["publicKey"] = SigningKey.generate().public_hex
    elif change == "other name":
        msg["join"]["name"] = "eve"
    elif change == "no dealer message":
        del msg["toDealer"]
    elif change == "dealer message of another seat":
        msg["toDealer"] = seats[1].to_dealer()
    else:
        msg["join"] = "join"
    with pytest.raises(MalformedInput):
        host.seat_join(0, msg)
    assert host.joins == {}
    server.close()


def test_seat_join_refuses_a_second_join_with_other_deal_commitments(tmp_path):
    """Mind Bluff's join publishes the seat's entropy commitment: a second join under the
    same key with other secrets is refused, the first kept (its twin: the same join again
    is taken, above)."""
    server, host, seats = _host(tmp_path, game="mind-bluff")
    host.seat_join(0, _join(seats[0]))
    other = Seat(seats[0].spec, 0, "ann", key=seats[0].key)  # fresh deal secrets under the same key
    assert other.join()["deal"] != seats[0].join()["deal"]
    with pytest.raises(IllegalMove, match="other secrets"):
        host.seat_join(0, _join(other))
    assert host.joins[0][0] == seats[0].join()
    assert host.seat_join(0, _join(seats[0])) is False  # the first one again: still taken
    server.close()


def test_a_second_entropy_line_under_the_same_key_is_refused(tmp_path):
    """Where the deal is in the proof the join carries no secrets (the same key makes the
    same join); the guard is the entropy line: a seat's first is written, a second one
    under its key (other entropy) is refused and changes nothing."""
    from zkbluff.errors import OutOfOrder

    server, host, seats = _host(tmp_path, options={"deal": "dealer"})  # the house's deal in proof
    assert all(host.seat_join(i, _join(s)) is (i == 1) for i, s in enumerate(seats))
    host.launch()  # the referee's header and the dealer's entropy commitment
    table = host.table
    other = Seat(seats[0].spec, 0, "ann", key=seats[0].key)
    for e in table.writer.events:
        for s in (*seats, other):
            s.receive(e)
    assert table.writer.events[-1]["action"] == "entropy.dealer"
    first, made = seats[0].deal_line(), other.deal_line()
    host.submit(first)
    for s in seats:
        s.receive(table.writer.events[-1])
    written = table.writer.events[-1]
    assert {k: v for k, v in written.items() if k != "received"} == first and "received" in written  # its receipt
    assert not table.view.deal_ready
    # the same key, another entropy, signed for the next line
    second = sign_line(other.key, {**{k: v for k, v in made.items() if k != "sig"}, "n": table.view.next_line,
                                   "prev": table.view.head, "at": time.time()})
    assert second["data"]["commitment"] != first["data"]["commitment"]
    before = list(table.writer.events)
    with pytest.raises(OutOfOrder, match="already recorded"):
        host.submit(second)
    assert table.writer.events == before and seats[0].deal_line() is None
    host.submit(seats[1].deal_line())  # the other seat's entropy: every seat has committed
    assert not table.view.deal_ready
    for s in seats:  # then each seat's opening (sealed to the dealer): the deal follows
        for e in table.writer.events[s.view.next_line - 1:]:
            s.receive(e)
        host.submit(s.deal_line())
    assert table.view.deal_ready and table.writer.events[-1]["action"] not in ("entropy.seat", "entropy.open")
    server.close()


# ---------------------------------------------------------------- the lobby over the wire

class Client:
    def __init__(self, key=None):
        self.key = key or SigningKey.generate()

    async def open(self, url):
        self.ws = await connect(url)
        self.challenge = json.loads(await self.ws.recv())["challenge"]
        return self

    async def ask(self, msg, auth=False):
        if auth:
            msg = sign_auth(self.key, msg, self.challenge)
        await self.ws.send(json.dumps(msg))
        return json.loads(await asyncio.wait_for(self.ws.recv(), 10))


async def _lobby(tmp_path):
    server = Server(tmp_path / "d", lookup_burst=5, lookup_rate=0.001, message_burst=30, message_rate=0.001)
    task, url = await serving(server)
    ann, bob, eve, spy = [await Client().open(url) for _ in range(4)]

    bad = await ann.ask({"type": "create", "game": "chess", "name": "ann"}, auth=True)
    assert bad["type"] == "error" and bad["error"] == "MalformedInput" and "unknown game" in bad["message"]
    room = await ann.ask({"type": "create", "game": GAME, "options": {"mode": "casual"}, "name": "ann"}, auth=True)
    assert room["type"] == "room" and room["owner"] and room["state"] == "lobby"
    code = room["code"]
    assert len(code) == 8 and server.rooms[code].room.owner == ann.key.public_hex
    # a sign-in that names a key it is not signed with
    forged = sign_auth(bob.key, {"type": "join", "code": code, "name": "bob"}, bob.challenge)
    forged["publicKey"] = ann.key.public_hex
    assert (await bob.ask(forged))["error"] == "InvalidSignature"
    # bob joins (typed in lower case with a dash); he is not the owner
    joined = await bob.ask({"type": "join", "code": code[:4].lower() + "-" + code[4:], "name": "bob"}, auth=True)
    assert joined["type"] == "room" and not joined["owner"] and len(joined["members"]) == 2
    for msg in ({"type": "start"}, {"type": "add-bot", "name": "x"}, {"type": "remove-bot", "seat": 1}):
        reply = await bob.ask(msg)
        assert reply["error"] == "IllegalMove", reply
    assert len(server.rooms[code].room.members) == 2 and server.rooms[code].room.state.value == "lobby"
    # the table is full
    full = await eve.ask({"type": "join", "code": code, "name": "eve"}, auth=True)
    assert full["error"] == "IllegalMove" and "full" in full["message"]
    # guessing codes: refused, then rate limited (5 look-ups per address: bob, eve and 3 guesses)
    replies = [await spy.ask({"type": "watch", "code": "ZZZZZZZZ"}) for _ in range(4)]
    assert [r["message"] for r in replies[:3]] == ["no room with this code"] * 3
    assert "rate limit" in replies[-1]["message"]
    # a flood: the messages over the connection's budget are refused
    replies = [await eve.ask({"type": "start"}) for _ in range(40)]
    assert sum("rate limit" in r["message"] for r in replies) >= 9
    task.cancel()


def test_lobby_guards_over_the_wire(tmp_path):
    asyncio.run(asyncio.wait_for(_lobby(tmp_path), 60))


# ---------------------------------------------------------------- leaderboard command

def test_leaderboard_command(tmp_path):
    store = SqliteResultStore(tmp_path / "results.sqlite")
    now = datetime.now(timezone.utc)
    store.record("m1", GAME, now, [SeatResult("key:a", "ann", False, 1, 5), SeatResult("key:b", "bob", False, 2, 1)])
    store.record("m2", GAME, now, [SeatResult("key:c", "cat", False, 1, 5), SeatResult("bot:x#1", "x", True, 2, 1)])
    store.close()
    out = CliRunner().invoke(main, ["leaderboard", "--data", str(tmp_path)])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert "ann" in lines[1] and "5 points" in lines[1] and "Bronze" in lines[1] and "bob" in lines[2]
    assert "cat" not in out.output  # a match against a bot counts only locally
    out = CliRunner().invoke(main, ["leaderboard", "--data", str(tmp_path), "--season", "1999-01"])
    assert out.exit_code == 0 and "no online matches" in out.output
    for args in (["--season", "2026-13"], ["--data", str(tmp_path / "nowhere")]):
        out = CliRunner().invoke(main, ["leaderboard", "--data", str(tmp_path), *args])
        assert out.exit_code == 2, out.output


# ---------------------------------------------------------------- a client that vanishes mid-message

async def _vanish(tmp_path):
    import os
    import struct

    server = Server(tmp_path / "d")
    task, url = await serving(server)
    ann = await Client().open(url)
    room = await ann.ask({"type": "create", "game": GAME, "name": "ann"}, auth=True)
    # bob starts a 1000-byte text frame, sends 10 bytes of it, and is gone
    bob = await connect(url)
    await bob.recv()
    bob.transport.write(bytes([0x81, 0x80 | 126]) + struct.pack("!H", 1000) + os.urandom(4) + b"x" * 10)
    bob.transport.abort()
    await asyncio.sleep(0.3)
    # the server is still there, the room unchanged, and a new client is served
    carl = await Client().open(url)
    joined = await carl.ask({"type": "join", "code": room["code"], "name": "carl"}, auth=True)
    assert joined["type"] == "room" and [m["name"] for m in joined["members"]] == ["ann", "carl"]
    task.cancel()


def test_a_client_vanishing_mid_message_leaves_the_server_serving(tmp_path):
    asyncio.run(asyncio.wait_for(_vanish(tmp_path), 60))


@pytest.mark.parametrize("args", [["join", "ws://127.0.0.1:9", "NOT-A-CODE!"], ["watch", "ws://127.0.0.1:9", "O0O0O0O0"],
                                  ["host", "no-such-game", "--server", "ws://127.0.0.1:9"]])
def test_client_commands_refuse_bad_input_before_connecting(args, tmp_path):
    out = CliRunner().invoke(main, [*args, *(["--home", str(tmp_path)] if args[0] != "watch" else [])])
    assert out.exit_code == 2, out.output


# ---------------------------------------------------------------- a seat's own deal lines, from its client

def test_a_clients_deal_line_is_sent_once_per_table_line_and_a_complaint_kept_until_written(tmp_path):
    """The client sends the line its engine seat says is due (once per table line); a
    complaint that loses the race for its number is made again for the next one."""
    from types import SimpleNamespace

    from zkbluff.server.client import SeatClient

    class FakeSeat:  # the engine seat's deal_line contract: a complaint is handed over once
        def __init__(self):
            self.view = SimpleNamespace(next_line=7)
            self.complaint = {"line": 5}

        spec = SimpleNamespace(game="cheat", options={})

        def export(self):  # what the client saves before a deal line leaves
            return {"complaint": self.complaint}

        def deal_line(self):
            if self.complaint is None:
                return None
            data, self.complaint = self.complaint, None
            return {"n": self.view.next_line, "action": "complaint", "data": data}

    class Conn:
        def __init__(self):
            self.sent = []

        async def send(self, msg):
            self.sent.append(msg)

    client = SeatClient("ws://127.0.0.1:9", tmp_path, "ann", lambda *a: None, say=lambda m: None)
    client.seat, conn = FakeSeat(), Conn()
    client.code, client.writer = "ABCD-EFGH", SimpleNamespace(events=[])
    client.folder.mkdir(parents=True)

    async def run():
        await client._deal_line(conn)
        await client._deal_line(conn)  # the same table line: not sent twice
        assert [m["line"]["n"] for m in conn.sent] == [7]
        client.seat.view.next_line = 8  # another party's line took number 7
        await client._deal_line(conn)
        assert [m["line"]["n"] for m in conn.sent] == [7, 8] and conn.sent[1]["line"]["action"] == "complaint"
        client.seat.complaint = None  # written: the match is over, nothing more is due
        client.seat.view.next_line = 9
        await client._deal_line(conn)
        assert len(conn.sent) == 2

    asyncio.run(run())


# ---------------------------------------------------------------- a client's slow work leaves its event loop free

def test_a_clients_line_is_written_off_the_event_loop(tmp_path, monkeypatch):
    """Writing a received line (flushed to disk) runs in a worker thread: while the disk
    is slow, the client's event loop goes on (its pings answered, the other seats a
    process holds served). The disk here waits until the loop has run meanwhile; a write
    on the loop itself would hold the loop, and the wait would end by its timeout."""
    import threading
    from types import SimpleNamespace

    from zkbluff.protocol import transcript
    from zkbluff.protocol.transcript import TranscriptWriter
    from zkbluff.server.client import SeatClient

    writing, loop_ran = threading.Event(), threading.Event()
    waits = []
    real_fsync = transcript.os.fsync

    def slow_fsync(fd):
        if not os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):
            return real_fsync(fd)  # (the client's key and seat.json are fsynced too; this test times the line)
        writing.set()
        waits.append(loop_ran.wait(timeout=10))  # True when the loop ran while this write waited
        real_fsync(fd)

    monkeypatch.setattr(transcript.os, "fsync", slow_fsync)

    class FakeSeat:  # the engine seat's surface the client uses while it follows a line
        seat = 0
        complaint = None
        spec = SimpleNamespace(game=GAME, options={}, deal=SimpleNamespace(closing="closing"),
                               text=SimpleNamespace(describe=lambda line, names: "a line"),
                               make_seal=lambda seat: None, pending_seal=lambda seat: None,
                               plan_seal=lambda seat: None)
        view = SimpleNamespace(next_line=3, seat_names=["ann", "bob"])

        def __init__(self):
            self.received = []
            self.received_at = {}  # its clock's time of each line (the client writes it beside its copy)

        def receive(self, line, arrived=None):
            self.received.append(line["n"])
            self.received_at[line["n"]] = 0.0

        def export(self):
            return {}

        def deal_line(self):
            return None

    class Quiet(SeatClient):
        def _my_turn(self):
            return False

        def _narrate(self, line, show=True):  # (the words need a real game's rules; this test times the write)
            pass

    class Conn:
        def __init__(self, msgs):
            self.msgs = msgs

        async def recv(self):
            return self.msgs.pop(0)

        async def recv_timed(self):
            return await self.recv(), None

        def stop(self):
            pass

        async def send(self, msg):
            pass

    client = Quiet("ws://127.0.0.1:9", tmp_path, "ann", lambda *a: None, say=lambda m: None)
    client.code, client.match_id, client.seat = "ABCD-EFGH", "m1", FakeSeat()
    client.folder.mkdir(parents=True)
    first = {"n": 1, "prev": transcript.GENESIS, "seat": None, "action": "header", "data": {}}
    client.writer = TranscriptWriter(client.transcript_path("m1"), events=[first])
    line = {"n": 2, "prev": client.writer.head, "seat": 1, "action": "play", "data": {}}
    conn = Conn([{"type": "line", "matchId": "m1", "line": line}, {"type": "result", "matchId": "m1"}])

    async def meanwhile():
        while not writing.is_set():
            await asyncio.sleep(0.005)
        loop_ran.set()

    async def run():
        other = asyncio.ensure_future(meanwhile())
        assert await client._loop(conn) is True
        await other

    asyncio.run(run())
    assert waits == [True]
    assert client.seat.received == [2] and client.writer.next_line == 3
    assert client.transcript_path("m1").read_text().count("\n") == 1  # line 2 on disk (the header was given)


# ---------------------------------------------------------------- a seat's deal line the server refused

def _deal_client(tmp_path):
    """A client at seat 0 of a dealt-in-proof table just after the dealer's commitment (its
    entropy line due), with a fake connection that keeps what the client sends."""
    from types import SimpleNamespace

    from zkbluff.server.client import SeatClient

    server, host, seats = _host(tmp_path, options={"deal": "dealer"})
    assert all(host.seat_join(i, _join(s)) is (i == 1) for i, s in enumerate(seats))
    host.launch()
    for e in host.table.writer.events:
        for s in seats:
            s.receive(e)

    class Conn:
        def __init__(self):
            self.sent = []

        async def send(self, msg):
            self.sent.append(msg)

    said = []
    client = SeatClient("ws://127.0.0.1:9", tmp_path / "ann", "ann", lambda *a: None, say=said.append)
    client.seat, client.code, client.writer = seats[0], "ABCD-EFGH", SimpleNamespace(events=[])
    client.folder.mkdir(parents=True)
    return server, host, seats, client, Conn(), said


async def _refusal(host, line):
    """The server's reply to ``line`` from seat 0's connection, through its message handler
    (nothing written: a typed refusal)."""
    from zkbluff.server.app import Conn

    class WS:
        def __init__(self):
            self.sent = []

        async def send(self, raw):
            self.sent.append(json.loads(raw))

    conn = Conn(WS(), "c0", "10.0.0.1")
    conn.host, conn.public_key = host, host.room.members[0].public_key
    n = len(host.table.writer.events)
    await host.server.on_message(conn, json.dumps({"type": "line", "line": line}))
    assert len(host.table.writer.events) == n
    [reply] = [m for m in conn.ws.sent if m["type"] == "error"]
    assert reply["about"] == "line"
    return reply


def test_a_deal_line_the_server_refuses_as_stale_is_stamped_again_and_written(tmp_path):
    """The 1,000-room finding: a seat's entropy line that reached the referee more than the
    stamp tolerance after its stamp (a busy server) is refused (``line.stamp``); the client
    sends the same line again, stamped now, and the table writes it (before, it was sent once
    per table line and never again: the deal stalled until the entropy limit forfeited an
    honest seat)."""
    server, host, seats, client, conn, said = _deal_client(tmp_path)
    seats[0].clock = lambda: time.time() - 10.0  # its line waited 10 s before the referee took it

    async def run():
        await client._turn(conn, {"type": "room"})
        [first] = [m["line"] for m in conn.sent]
        refusal = await _refusal(host, first)
        assert refusal["code"] == "line.stamp" and refusal["n"] == first["n"]  # why, and which line
        seats[0].clock = time.time
        await client._turn(conn, refusal)
        assert len(conn.sent) == 2
        again = conn.sent[1]["line"]
        assert {k: v for k, v in again.items() if k not in ("at", "sig")} == \
            {k: v for k, v in first.items() if k not in ("at", "sig")}  # the same line, re-stamped
        assert again["at"] > first["at"] + 5
        host.submit(again)
        assert host.table.writer.events[-1]["sig"] == again["sig"]

    asyncio.run(run())
    server.close()


def test_a_refused_deal_line_is_stamped_again_a_bounded_number_of_times_and_the_person_told(tmp_path):
    """A referee that refuses every try: the client stops after a few and says so (never a
    silent drop); a refusal of another line number (the rival's line took it) sends nothing."""
    from zkbluff.server.client import DEAL_LINE_TRIES

    server, host, seats, client, conn, said = _deal_client(tmp_path)
    seats[0].clock = lambda: time.time() - 10.0  # every stamp too old

    async def run():
        await client._turn(conn, {"type": "room"})
        first = conn.sent[0]["line"]
        await client._turn(conn, {**(await _refusal(host, first)), "n": first["n"] - 1})  # another line's refusal
        assert len(conn.sent) == 1
        for _ in range(DEAL_LINE_TRIES + 2):
            await client._turn(conn, await _refusal(host, conn.sent[-1]["line"]))
        assert len(conn.sent) == 1 + DEAL_LINE_TRIES
        assert any("refused" in m and "line.stamp" in m for m in said), said

    asyncio.run(run())
    server.close()


def test_a_move_the_server_refuses_as_stale_is_stamped_again_even_if_this_clock_thinks_it_fresh(tmp_path):
    """The referee's ``line.stamp`` refusal of this seat's move re-stamps it (the same move,
    :meth:`Seat.resend`) although this machine's clock says the line is only 2 s old (a
    referee that took it late, or whose clock runs ahead); another reason, or another line's
    number, does not."""
    from types import SimpleNamespace

    from zkbluff.server.client import SeatClient

    class FakeSeat:
        view = SimpleNamespace(next_line=7)
        spec = SimpleNamespace(game="cheat", options={})

        def export(self):
            return {}

        def resend(self):
            return {"n": 7, "at": time.time(), "resent": True}

    client = SeatClient("ws://127.0.0.1:9", tmp_path, "ann", lambda *a: None, say=lambda m: None)
    client.seat, client.code, client.writer = FakeSeat(), "ABCD-EFGH", SimpleNamespace(events=[])
    client.folder.mkdir(parents=True)
    made = {"n": 7, "at": time.time() - 2.0}
    for refused in ({"code": "rules.illegal", "n": 7}, {"code": "line.stamp", "n": 6}, None):
        client._last_line = dict(made)
        client._drop_stale_line(refused)
        assert client._last_line == made, refused
    client._drop_stale_line({"code": "line.stamp", "n": 7})
    assert client._last_line["resent"]
