"""Red team: a person who joins a room did not choose its table. The house could seat them
at a table whose deal lets it see every hand, with a short proof limit, or with keys of its
own; the client shows the table (the ``seat`` message, then the signed header) and refuses,
with ``TableMismatch`` (exit 1), one that differs from ``--expect`` before the seat makes its
secrets (the room) or signs anything (the header). The header's options pass the game's own
validation first. A real header from the server's own referee and dealer; no proofs."""
import asyncio
import threading

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import CommitmentMismatch, MalformedInput, TableMismatch
from zkbluff.games.engine.parties import Seat, TimeLimits
from zkbluff.games.engine.registry import spec_for
from zkbluff.protocol.signing import sign_line
from zkbluff.server.app import RoomHost, Server, serve
from zkbluff.server.client import SeatClient
from zkbluff.server.expect import check_table, parse_expectation, parse_expectations
from zkbluff.server.rooms import Member, Room

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual", "deal": "dealer"}
CODE = "ABCDEFGH"
LIMITS = TimeLimits(proof=60.0, idle=600.0, entropy=60.0, deal=60.0)  # the server's clock for these tables


def client_at(tmp_path, expect=()):
    said = []
    client = SeatClient("ws://127.0.0.1:9", tmp_path / "ann", "ann", lambda *a: None, said.append,
                        expect=parse_expectations(expect))
    client.code = CODE
    return client, said


def room_for(tmp_path, client, options=OPTIONS):
    """The server's room (ann and bob) for ``options``: its ``seat`` message for ann, and a
    function that launches the match once ann's join is in (its header and first lines)."""
    server = Server(tmp_path / "d", limits=LIMITS)
    spec = spec_for(GAME, options)
    bob = Seat(spec, 1, "bob")
    room = Room(CODE, GAME, client.key.public_hex, 2, 2,
                [Member("ann", False, client.key.public_hex), Member("bob", False, bob.public_key)])
    host = RoomHost(server, room, dict(spec.options), tmp_path / "room")
    host.begin()

    def launch(join):
        host.seat_join(0, join)
        host.seat_join(1, {"type": "seat-join", "join": bob.join(), "toDealer": bob.to_dealer()})
        host.launch()
        return host.table.writer.events

    return server, host, launch


def header_of(tmp_path, client):
    server, host, launch = room_for(tmp_path, client)
    events = launch(client._take_seat(host.seat_message(0)))
    return server, host, events


# ---------------------------------------------------------------- shown

def test_the_person_is_shown_the_room_then_the_signed_header(tmp_path):
    client, said = client_at(tmp_path)
    server, host, events = header_of(tmp_path, client)
    assert said == ["table: Proof or Bluff (proof-or-bluff), 2 seats: ann, bob", "options: deal=dealer, mode=casual"]
    client._on_line({"matchId": host.match_id, "line": events[0]})
    assert said[2].startswith("trust: zk dealer:")
    assert said[3] == "time limits: deal 60 s, entropy 60 s, idle 600 s, proof 60 s"
    assert said[4].startswith("keys: ") and "from project" in said[4]
    assert client.writer.events == events[:1]
    server.close()


# ---------------------------------------------------------------- refused at the room

@pytest.mark.parametrize("expect", [["deal=oblivious"], ["mode=standard"], ["game=cheat"], ["seats=3"],
                                    ["players=3"], ["deal=dealer", "mode=standard"]])
def test_a_room_that_is_not_the_expected_table_is_refused_before_any_secret(tmp_path, expect):
    client, said = client_at(tmp_path, expect)
    server, host, _ = room_for(tmp_path, client)
    with pytest.raises(TableMismatch, match="the room is not the table you expect") as caught:
        client._take_seat(host.seat_message(0))
    assert caught.value.exit_code == 1 and caught.value.code == "table.mismatch"
    assert all(e.split("=")[0] in str(caught.value) for e in expect if not e.startswith("deal=dealer"))
    assert client.seat is None and client.match_id is None and not (client.home / "tables").exists()
    server.close()


def test_a_room_that_is_the_expected_table_is_taken(tmp_path):
    client, _ = client_at(tmp_path, ["deal=dealer", "mode=casual", "game=proof-or-bluff", "seats=2",
                                     "limit.proof>=600"])  # a limit waits for the header
    server, host, _ = room_for(tmp_path, client)
    out = client._take_seat(host.seat_message(0))
    assert out["type"] == "seat-join" and client.seat is not None and (client.folder / "seat.json").exists()
    server.close()


def test_a_room_whose_options_the_game_does_not_allow_is_refused(tmp_path):
    client, _ = client_at(tmp_path)
    server, host, _ = room_for(tmp_path, client)
    with pytest.raises(MalformedInput, match="deal must be one of"):
        client._take_seat({**host.seat_message(0), "options": {"mode": "casual", "deal": "house-sees-all"}})
    assert client.seat is None
    server.close()


# ---------------------------------------------------------------- refused at the signed header

@pytest.mark.parametrize("expect, says", [
    (["limit.proof>=120"], "proof limit is 60 s"), (["limit.idle<=60"], "idle limit is 600 s"),
    (["limit.proof=30"], "proof limit is 60 s"), (["limit.move>=30"], "states no move limit"),
    (["trust=oblivious deal"], "trust is zk dealer"), (["keys=match"], "come from project")])
def test_a_header_that_is_not_the_expected_table_is_refused_before_the_seat_signs(tmp_path, expect, says):
    client, said = client_at(tmp_path, expect)
    server, host, events = header_of(tmp_path, client)
    with pytest.raises(TableMismatch, match="the signed header is not the table you expect") as caught:
        client._on_line({"matchId": host.match_id, "line": events[0]})
    assert says in str(caught.value)
    assert client.writer.events == []  # not taken into the copy: the seat follows nothing, signs nothing
    assert any(s.startswith("time limits:") for s in said)  # what it was shown before it refused
    server.close()


def test_a_header_that_is_the_expected_table_is_followed(tmp_path):
    client, _ = client_at(tmp_path, ["limit.proof>=60", "limit.idle<=600", "limit.entropy=60", "trust=zk dealer",
                                     "keys=project", "deal=dealer"])
    server, host, events = header_of(tmp_path, client)
    for line in events:
        client._on_line({"matchId": host.match_id, "line": line})
    assert client.writer.events == events
    assert client.seat.deal_line()["action"] == "entropy.seat"  # its entropy line is due and made
    server.close()


def resigned_header(host, header, **data):
    return sign_line(host.table.referee.key, {**{k: v for k, v in header.items() if k != "sig"},
                                             "data": {**header["data"], **data}})


def test_a_signed_header_whose_options_the_game_does_not_allow_is_refused(tmp_path):
    client, _ = client_at(tmp_path)
    server, host, events = header_of(tmp_path, client)
    bad = resigned_header(host, events[0], options={"mode": "casual", "deal": "house-sees-all"})
    with pytest.raises(MalformedInput, match="deal must be one of") as caught:
        client._on_line({"matchId": host.match_id, "line": bad})
    assert caught.value.code == "header.game" and client.writer.events == []
    # legal options, but not the table the seat joined: the key set is another table's (refused
    # as such), and with that table's keys the seat itself refuses (Seat.receive: "this seat joined")
    other = resigned_header(host, events[0], options={"mode": "standard", "deal": "dealer"})
    with pytest.raises((CommitmentMismatch, MalformedInput), match="expected keys for"):
        client._on_line({"matchId": host.match_id, "line": other})
    assert client.writer.events == []
    server.close()


# ---------------------------------------------------------------- the expectations themselves

def test_expectations_parse():
    assert str(parse_expectation("deal=oblivious")) == "deal=oblivious"
    assert parse_expectation(" limit.proof >= 60 ".replace(" ", "")).op == ">="
    assert parse_expectation("trust=zk dealer").value == "zk dealer"
    assert parse_expectation("limit.idle<=600").limit == "idle"


@pytest.mark.parametrize("text", ["deal", "=x", "Deal=x", "deal>=x", "limit.proof>=abc", "limit.proof=0",
                                  "limit.=5", "seats=two", "keys=house"])
def test_an_expectation_that_is_not_one_is_malformed(text):
    with pytest.raises(MalformedInput, match="--expect"):
        parse_expectation(text)


def test_check_table_names_every_difference():
    spec = spec_for("cheat", {"players": "3"})
    check_table(parse_expectations(["game=cheat", "players=3", "seats=3"]), spec)
    with pytest.raises(TableMismatch) as caught:
        check_table(parse_expectations(["game=cheat", "players=4", "deal=oblivious", "mode=casual"]), spec)
    assert "players=4: the table's players is 3" in str(caught.value)
    assert "deal=oblivious: the table's deal is dealer" in str(caught.value)  # cheat: dealer or house-blind
    assert "cheat has no option mode" in str(caught.value) and "game=cheat" not in str(caught.value)


@pytest.mark.parametrize("cmd", ["join", "host"])
def test_the_cli_refuses_a_malformed_expectation_before_connecting(cmd, tmp_path):
    args = ["join", "ws://127.0.0.1:9", CODE] if cmd == "join" else ["host", GAME, "--server", "ws://127.0.0.1:9"]
    out = CliRunner().invoke(main, [*args, "--home", str(tmp_path), "--expect", "deal"])
    assert out.exit_code == 2 and "--expect" in out.output


# ---------------------------------------------------------------- over the wire, from the command line

def test_zkbluff_join_refuses_a_room_it_does_not_expect(tmp_path):
    """The host's room deals by the house (deal=dealer); bob runs ``zkbluff join --expect
    deal=oblivious``: he is shown the table, refused before his seat joins, and the command
    exits 1 saying what differed."""
    ready, stop, box = threading.Event(), None, {}

    async def house():
        nonlocal stop
        stop = asyncio.Event()
        server = Server(tmp_path / "data")
        port = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(serve(server, "127.0.0.1", 0, lambda p, n: port.set_result(p)))
        box["url"] = f"ws://127.0.0.1:{await asyncio.wait_for(port, 60)}"
        owner = SeatClient(box["url"], tmp_path / "ann", "ann", lambda *a: None, lambda m: None)
        hosting = asyncio.ensure_future(owner.host(GAME, OPTIONS))
        while owner.code is None:
            await asyncio.sleep(0.05)
        box["code"], box["loop"], box["server"] = owner.code, asyncio.get_running_loop(), server
        ready.set()
        await stop.wait()
        hosting.cancel()
        task.cancel()
        server.close()

    thread = threading.Thread(target=lambda: asyncio.run(house()), daemon=True)
    thread.start()
    assert ready.wait(60)
    try:
        out = CliRunner().invoke(main, ["join", box["url"], box["code"], "--name", "bob", "--home",
                                        str(tmp_path / "bob"), "--expect", "deal=oblivious"])
        assert out.exit_code == 1, out.output
        assert "table: Proof or Bluff (proof-or-bluff), 2 seats: ann, bob" in out.output
        assert "the room is not the table you expect: deal=oblivious: the table's deal is dealer" in out.output
        room = box["server"].rooms[box["code"]]
        assert room.table is None and 1 not in room.joins  # bob's seat never joined: no header was made
        assert not (tmp_path / "bob" / "tables").exists()  # nor did his client keep any secret
    finally:
        box["loop"].call_soon_threadsafe(stop.set)
        thread.join(30)
