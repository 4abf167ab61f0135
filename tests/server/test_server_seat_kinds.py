"""Issue 27 items 7, 9, 10, 12 over the server: which seats are people (bots kept off the
leaderboard), Leave Table and a forfeit scoring no points, rooms that start with the
players who are in, Mind Bluff's consent asked of every human seat. No proofs: fast."""
from __future__ import annotations

import pytest

from zkbluff.games.bluffers.rules import BluffersRules, Phase
from zkbluff.games.engine.rules import Result
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.results import seat_results


def _header(n):
    keys = [SigningKey.generate().public_hex for _ in range(n)]
    return {"seats": [f"p{i}" for i in range(n)], "parties": {"seats": keys}}


def _over(n, places, left=(), forfeited=()):
    rules = BluffersRules(n)
    rules.s.phase, rules.s.places = Phase.OVER, list(places)
    for i in left:
        rules.s.left[i] = True
    for i in forfeited:
        rules.s.forfeited[i] = True
    return rules.result()


# ---------------------------------------------------------------- (9) Leave Table: no points

def test_attack_a_seat_that_left_the_table_scores_its_places_points():
    """Seed: "If you leave the table you earn no points from that match". The old
    seat_results gave the leaver its place's points (2nd of 2: 1; 2nd of 4: 6)."""
    result = _over(4, (1, 2, 3, 4), left=(1,))
    rows = seat_results(result, _header(4), [False] * 4)
    assert [r.points for r in rows] == [10, 0, 3, 1]
    assert result.scores[1] == 0 and rows[1].place == 2  # the place stands; the points do not


def test_attack_a_seat_forfeited_by_the_clock_scores_its_places_points():
    result = _over(2, (2, 1), forfeited=(1,))
    assert [r.points for r in seat_results(result, _header(2), [False, False])] == [1, 0]


def test_twin_seats_that_stayed_score_their_places():
    result = _over(3, (3, 1, 2))
    assert result.no_points == (False, False, False)
    assert [r.points for r in seat_results(result, _header(3), [False] * 3)] == [1, 8, 4]
    # a game that marks nobody (no_points empty) keeps the table
    assert [r.points for r in seat_results(Result((1, 2), (0, 0), "x"), _header(2), [False, False])] == [5, 1]


# ---------------------------------------------------------------- the lobby, by the server's own handlers

import asyncio  # noqa: E402
import json  # noqa: E402

from zkbluff.errors import IllegalMove, MalformedInput  # noqa: E402
from zkbluff.games.engine.registry import spec_for  # noqa: E402
from zkbluff.server.app import Conn, Server  # noqa: E402
from zkbluff.server.protocol import sign_auth  # noqa: E402
from zkbluff.server.rooms import RoomState  # noqa: E402


class FakeWS:
    def __init__(self):
        self.sent, self.closed = [], None
        self.remote_address = ("10.0.0.1", 1)

    async def send(self, raw):
        self.sent.append(json.loads(raw))

    async def close(self, code=1000, reason=""):
        self.closed = (code, reason)


class Person:
    def __init__(self, server, address="10.0.0.1"):
        self.server, self.key = server, SigningKey.generate()
        self.conn = Conn(FakeWS(), f"c{id(self)}", address)

    def ask(self, msg, auth=False):
        if auth:
            msg = sign_auth(self.key, msg, self.conn.challenge)
        n = len(self.conn.ws.sent)
        asyncio.run(self.server.on_message(self.conn, json.dumps(msg)))
        return self.conn.ws.sent[n:]

    def errors(self, replies):
        return [r for r in replies if r["type"] == "error"]


def _room(tmp_path, game, options, n_people, bot_clients=()):
    server = Server(tmp_path / "d")
    people = [Person(server) for _ in range(n_people)]
    room = people[0].ask({"type": "create", "game": game, "options": options, "name": "p0",
                          **({"bot": True} if 0 in bot_clients else {})}, auth=True)[-1]
    assert room["type"] == "room", room
    for i, p in enumerate(people[1:], 1):
        replies = p.ask({"type": "join", "code": room["code"], "name": f"p{i}",
                         **({"bot": True} if i in bot_clients else {})}, auth=True)
        assert not p.errors(replies), replies
    return server, server.rooms[room["code"]], people


# ---------------------------------------------------------------- (10) rooms start with who is in

def test_attack_a_four_seat_bluffers_room_refuses_start_with_two_in(tmp_path):
    """Seed: "Once at least two players are in, the room owner taps Start". The old server
    refused: "this table has 4 seats, 2 are filled"."""
    server, host, (owner, guest) = _room(tmp_path, "bluffers", {"players": "4"}, 2)
    assert not owner.errors(owner.ask({"type": "start"}))
    assert host.room.state is RoomState.PLAYING and host.options["players"] == "2"
    assert host.spec().n_seats == 2 and host.table is None and set(host.joins) == set()
    seated = [m for m in guest.conn.ws.sent if m["type"] == "seat"]
    assert seated and seated[-1]["options"]["players"] == "2"
    server.close()


def test_twin_a_bluffers_room_with_one_person_and_no_bot_still_cannot_start(tmp_path):
    server, host, (owner,) = _room(tmp_path, "bluffers", {"players": "4"}, 1)
    errors = owner.errors(owner.ask({"type": "start"}))
    assert errors and errors[0]["error"] == "IllegalMove" and "at least 2" in errors[0]["message"]
    assert host.room.state is RoomState.LOBBY and host.options["players"] == "4"
    server.close()


def test_a_two_seat_bluffers_room_takes_a_bot_and_starts(tmp_path):
    server, host, (owner,) = _room(tmp_path, "bluffers", {"players": "2"}, 1)
    assert not owner.errors(owner.ask({"type": "add-bot", "name": "robo"}))
    assert not owner.errors(owner.ask({"type": "start"}))
    assert host.room.state is RoomState.PLAYING and host.spec().n_seats == 2 and list(host.bot_seats) == [1]
    # a third seat is not there to fill: the table is full
    errors = owner.errors(owner.ask({"type": "add-bot", "name": "robo2"}))
    assert errors and errors[0]["error"] == "IllegalMove"
    server.close()


def test_a_four_seat_room_started_with_two_people_and_a_bot_has_three_seats(tmp_path):
    server, host, (owner, guest) = _room(tmp_path, "bluffers", {"players": "4"}, 2)
    owner.ask({"type": "add-bot", "name": "robo"})
    assert not owner.errors(owner.ask({"type": "start"}))
    assert host.options["players"] == "3" and list(host.bot_seats) == [2]
    only_owner = guest.errors(guest.ask({"type": "start"}))  # (the room already started; a guest never may)
    assert only_owner and only_owner[0]["error"] == "IllegalMove"
    server.close()


# ---------------------------------------------------------------- (12) Mind Bluff: both people consent

def test_attack_mind_bluff_over_the_server_asks_only_p1_to_consent(tmp_path):
    """Seed: "Both human-controlled seats must consent". The old server kept the default
    humans=P1 with two people at the table: P2 was never asked."""
    server, host, people = _room(tmp_path, "mind-bluff", {}, 2)
    assert not people[0].errors(people[0].ask({"type": "start"}))
    assert host.options["humans"] == "both"
    assert host.spec().new_rules().humans == (True, True)
    seated = [m for m in people[1].conn.ws.sent if m["type"] == "seat"]
    assert seated[-1]["options"]["humans"] == "both"  # P2's client is told before it signs anything
    server.close()


@pytest.mark.parametrize("bot_seat, humans", [(1, "P1"), (0, "P2")])
def test_twin_mind_bluff_asks_only_the_person_when_the_other_seat_is_a_bot(tmp_path, bot_seat, humans):
    server, host, people = _room(tmp_path, "mind-bluff", {}, 2, bot_clients=(bot_seat,))
    people[0].ask({"type": "start"})
    assert host.options["humans"] == humans
    server.close()


def test_mind_bluff_spec_table_options_from_the_seats():
    spec = spec_for("mind-bluff", None)
    assert [spec.table_options(p)["humans"] for p in ((True, True), (True, False), (False, True), (False, False))] \
        == ["both", "P1", "P2", "none"]


# ---------------------------------------------------------------- (7) bot clients are not real players

from zkbluff.server.storage import SqliteResultStore, counts_online  # noqa: E402


def test_attack_two_bot_clients_count_as_an_online_match_on_the_leaderboard(tmp_path):
    """Two `host`/`join --bot` clients: the old server saw two people (only house bots
    were bots), so the match was online and both keys reached the leaderboard. Now each
    client says so in its signed join and its row is a bot's."""
    server, host, people = _room(tmp_path, "bluffers", {"players": "2"}, 2, bot_clients=(0, 1))
    assert [m.bot_client for m in host.room.members] == [True, True] and host.room.people() == [False, False]
    shown = [m for m in people[1].conn.ws.sent if m["type"] == "room"][-1]["members"]
    assert [m["botClient"] for m in shown] == [True, True]
    header = {"seats": ["p0", "p1"], "parties": {"seats": [p.key.public_hex for p in people]}}
    rows = seat_results(Result((1, 2), (5, 0), "x"), header, [False, False], [True, True])
    assert [r.is_bot for r in rows] == [True, True] and not counts_online(rows)
    assert rows[0].player == f"key:{people[0].key.public_hex}"  # still the seat's key, marked a bot
    store = SqliteResultStore(tmp_path / "r.sqlite")
    from datetime import datetime, timezone
    store.record("m1", "bluffers", datetime.now(timezone.utc), rows)
    assert store.leaderboard() == []
    store.close()
    server.close()


def test_twin_two_people_and_one_person_with_a_bot_client(tmp_path):
    server, host, people = _room(tmp_path, "bluffers", {"players": "3"}, 3, bot_clients=(2,))
    assert host.room.people() == [True, True, False]
    header = {"seats": ["p0", "p1", "p2"], "parties": {"seats": [p.key.public_hex for p in people]}}
    rows = seat_results(Result((1, 2, 3), (8, 4, 1), "x"), header, [False] * 3, [False, False, True])
    assert counts_online(rows) and [r.is_bot for r in rows] == [False, False, True]
    # one person and one bot client: not online
    assert not counts_online(rows[1:])
    server.close()


def test_a_bot_field_that_is_not_a_boolean_is_refused_and_seats_nobody(tmp_path):
    server = Server(tmp_path / "d")
    p = Person(server)
    errors = p.errors(p.ask({"type": "create", "game": "bluffers", "name": "p0", "bot": "yes"}, auth=True))
    assert errors and errors[0]["error"] == "MalformedInput" and server.rooms == {}
    server.close()


def test_a_bot_client_says_so_and_a_persons_client_does_not(tmp_path):
    from zkbluff.server.client import SeatClient, bot_policy

    bot = SeatClient("ws://x", tmp_path / "a", "a", bot_policy(1), is_bot=True)
    person = SeatClient("ws://x", tmp_path / "b", "b", bot_policy(1))
    assert bot._kind() == {"bot": True} and person._kind() == {}


def test_a_bot_client_mark_survives_a_restart(tmp_path):
    server, host, people = _room(tmp_path, "bluffers", {"players": "2"}, 2, bot_clients=(1,))
    code = host.room.code
    server.close()
    again = Server(tmp_path / "d")
    again.load()
    assert again.rooms[code].room.people() == [True, False]
    again.close()


# ---------------------------------------------------------------- (9) Leave Table offered at the prompt

def _turn_obs():
    from types import SimpleNamespace

    from zkbluff.games.bluffers.rules import CallBluff

    state = SimpleNamespace(table_card=0, last_play=None, round=1, chambers=(0, 0))
    return SimpleNamespace(due="turn", state=state, hand=(0, 1, 2, 3, 4), legal=(CallBluff(),), seat=0)


def test_attack_join_offers_no_leave_table():
    """The old prompt (what `join` shows a person) refused "leave" as bad card positions."""
    from zkbluff.games.bluffers.rules import LeaveTable
    from zkbluff.games.bluffers.text import TableText

    asked = []
    intent = TableText.prompt(_turn_obs(), lambda q: asked.append(q) or "leave", lambda m: None, ["ann", "bob"])
    assert intent == LeaveTable() and "leave" in asked[0]


def test_twin_the_prompt_still_refuses_what_is_no_move():
    from zkbluff.games.bluffers.text import TableText

    with pytest.raises(MalformedInput):
        TableText.prompt(_turn_obs(), lambda q: "leav", lambda m: None, ["ann", "bob"])


def test_seat_client_leave_table_is_refused_without_a_match_or_where_the_game_has_none(tmp_path):
    from zkbluff.games.bluffers.rules import LeaveTable
    from zkbluff.server.client import SeatClient, bot_policy

    client = SeatClient("ws://x", tmp_path / "a", "a", bot_policy(1))
    with pytest.raises(IllegalMove, match="no match"):
        asyncio.run(client.leave_table())
    assert spec_for("bluffers", None).leave_intent() == LeaveTable()
    assert spec_for("proof-or-bluff", None).leave_intent() is None


# ---------------------------------------------------------------- the seat's own side of the options set at Start

def test_attack_a_server_that_marks_p2_a_bot_skips_its_consent_and_p2s_client_refuses():
    """A house that sets humans=P1 with a person at P2 would take P2's consent for
    granted: P2's client refuses the table before it signs anything."""
    from zkbluff.errors import TableMismatch

    with pytest.raises(TableMismatch, match="P2"):
        spec_for("mind-bluff", {"humans": "P1"}).check_seat_kind(1, person=True)
    with pytest.raises(TableMismatch):
        spec_for("mind-bluff", {"humans": "both"}).check_seat_kind(1, person=False)  # a bot asked as a person


def test_twin_the_seats_kind_as_the_table_says_passes():
    for humans, seat, person in (("both", 1, True), ("P1", 1, False), ("P2", 1, True), ("P1", 0, True)):
        spec_for("mind-bluff", {"humans": humans}).check_seat_kind(seat, person)
    spec_for("bluffers", None).check_seat_kind(0, False)  # nothing to check elsewhere


def test_a_hosting_client_accepts_only_the_options_start_sets():
    from zkbluff.server.client import _asked

    spec = spec_for("bluffers", {"players": "4"})
    assert _asked(spec, {"players": "2"}) == _asked(spec, {"players": "4"}) == {}
    pob = spec_for("proof-or-bluff", None)
    assert _asked(pob, {"mode": "casual"}) != _asked(pob, {"mode": "standard"})


def test_host_start_with_starts_a_four_seat_room_once_two_are_in(tmp_path):
    from zkbluff.server.client import SeatClient, bot_policy

    class Sent:
        def __init__(self):
            self.msgs = []

        async def send(self, msg):
            self.msgs.append(msg)

    room = {"type": "room", "seats": 4, "state": "lobby",
            "members": [{"name": "a", "bot": False}, {"name": "b", "bot": False}]}
    waiting, conn = SeatClient("ws://x", tmp_path / "a", "a", bot_policy(1)), Sent()
    asyncio.run(waiting._owner(conn, room))
    assert conn.msgs == []  # the twin: without --start-with it waits for every seat
    eager, conn = SeatClient("ws://x", tmp_path / "b", "b", bot_policy(1), start_with=2), Sent()
    asyncio.run(eager._owner(conn, {**room, "members": room["members"][:1]}))
    assert conn.msgs == []  # one in: not yet
    asyncio.run(eager._owner(conn, room))
    assert conn.msgs == [{"type": "start"}]
