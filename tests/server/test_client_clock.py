"""Red team (issue 26, 4a, over the network): a house whose clock runs 601 s ahead. The
seat's client checks every referee stamp against its own machine's clock as the line
arrives: it stops with :class:`ClockDispute` (``clock.skew``), the complaint saved in
``<match>.disputes.jsonl``, and it keeps the receive time of every line it took in
``<match>.received.jsonl`` beside its transcript copy. Loopback, one process; the skew
comes before any proof is made."""
import asyncio
import json

import pytest

from test_client_forks import GAME, OPTIONS, STEP, lying_flush, resign
from serving import serving
from zkbluff.errors import ClockDispute
from zkbluff.protocol.transcript import canonical, line_hash
from zkbluff.server import app
from zkbluff.server.app import Server
from zkbluff.server.client import SeatClient, bot_policy

SKEW = 601.0


def line_two_skewed(host, n, events):
    """Line 2 (the dealer's commitment) as a house clock 601 s ahead stamps it, signed again."""
    line = events[n - 1]
    if n != 2:
        return [line]
    return [resign(host, line, at=line["at"] + SKEW, data={**line["data"], "deadline": line["data"]["deadline"] + SKEW})]


async def _skewed(tmp_path, match_keys):
    server = Server(tmp_path / "data", key_folder=match_keys)
    task, url = await serving(server)
    client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(2), lambda m: None, key_folder=match_keys,
                        add_bots=("robo",), reconnect_for=5.0)
    try:
        with pytest.raises(ClockDispute) as caught:
            await client.host(GAME, OPTIONS)
    finally:
        task.cancel()
        server.close()
    return client, caught.value


def test_attack_4a_a_client_refuses_a_house_clock_601_s_ahead_and_keeps_its_evidence(tmp_path, monkeypatch,
                                                                                      match_keys):
    monkeypatch.setattr(app.RoomHost, "flush", lying_flush(line_two_skewed))
    client, exc = asyncio.run(asyncio.wait_for(_skewed(tmp_path, match_keys), STEP))
    assert exc.code == "clock.skew" and exc.exit_code == 1
    [complaint] = [json.loads(x) for x in client.disputes_path(client.match_id).read_text().splitlines()]
    assert complaint["code"] == "clock.skew" and complaint["line"] == 2 and complaint["matchId"] == client.match_id
    assert complaint["refereeAt"] - complaint["receivedAt"] > SKEW - 5
    assert complaint["hash"] == line_hash(canonical(complaint["lineReceived"]))
    copy = [json.loads(x) for x in client.transcript_path(client.match_id).read_text().splitlines()]
    assert len(copy) == 1  # the skewed line is not in the copy
    received = [json.loads(x) for x in client.received_path(client.match_id).read_text().splitlines()]
    assert [r["n"] for r in received] == [1] and received[0]["hash"] == line_hash(canonical(copy[0]))
    assert abs(received[0]["receivedAt"] - copy[0]["at"]) < 5  # the honest header: taken, its time kept


# ---------------------------------------------------------------- a line that comes live, long after its stamp

TOLERANCE = 2.0  # the header's clock.tolerance at this table (5 s by default): a short test


def holding_flush(hold, after, held):
    """The server's flush, holding back for ``hold`` s the first line the referee stamped more
    than ``after`` s after the header (the seat has been connected all along): what a seat sees
    of a house that back-dates its own line is the same, a live line whose stamp trails its
    arrival. ``held`` gets the line's number."""
    from zkbluff.games.engine.referee import referee_stamp

    async def flush(self):
        table = self.table if self.table is not None else self._starting
        if table is None:
            return
        events = table.writer.events
        for conn in [c for c in self.conns.values() if c.seated]:
            while conn.sent < len(events):
                line = events[conn.sent]
                if not held and referee_stamp(line) > referee_stamp(events[0]) + after:
                    held.append(line["n"])
                    await asyncio.sleep(hold)
                await conn.send({"type": "line", "matchId": self.match_id, "line": line})
                conn.sent += 1
    return flush


def slow_first(policy, seconds):
    """``policy``, thinking ``seconds`` before its first answer (the table goes past the
    tolerance after the seat message)."""
    import time

    calls = []

    def act(spec, obs, names):
        if not calls:
            time.sleep(seconds)
        calls.append(1)
        return policy(spec, obs, names)
    return act


async def _held(tmp_path, match_keys):
    server = Server(tmp_path / "data", key_folder=match_keys)
    task, url = await serving(server)
    client = SeatClient(url, tmp_path / "ann", "ann", slow_first(bot_policy(2), TOLERANCE + 0.5), lambda m: None,
                        key_folder=match_keys, add_bots=("robo",), reconnect_for=5.0)
    try:
        with pytest.raises(ClockDispute) as caught:
            await client.host(GAME, OPTIONS)
    finally:
        task.cancel()
        server.close()
    return client, caught.value


def test_attack_a_client_refuses_a_line_that_comes_live_long_after_its_stamp(tmp_path, monkeypatch, match_keys):
    """On main the client took a live line whatever its stamp trailed by (only a stamp ahead
    of its clock was a skew): a house that back-dates its own line shortens the seat's wait
    unrefused. Now the line, pushed to a connection seated before its stamp, is refused
    (``clock.skew``, ``live``), the complaint saved, the line not in the copy."""
    from zkbluff.games.engine import parties

    monkeypatch.setattr(parties, "STAMP_TOLERANCE", TOLERANCE)
    held: list[int] = []
    monkeypatch.setattr(app.RoomHost, "flush", holding_flush(TOLERANCE + 1.5, TOLERANCE + 0.5, held))
    client, exc = asyncio.run(asyncio.wait_for(_held(tmp_path, match_keys), STEP))
    assert exc.code == "clock.skew"
    [complaint] = [json.loads(x) for x in client.disputes_path(client.match_id).read_text().splitlines()]
    assert complaint["live"] is True and complaint["line"] == held[0] and complaint["tolerance"] == TOLERANCE
    assert complaint["receivedAt"] - complaint["refereeAt"] > TOLERANCE
    assert complaint["refereeAt"] > complaint["connectedAt"] + TOLERANCE
    copy = [json.loads(x) for x in client.transcript_path(client.match_id).read_text().splitlines()]
    assert len(copy) == held[0] - 1  # the held line is not in the copy


# ---------------------------------------------------------------- live or catch-up: what the client tells its seat

class _Conn:
    def __init__(self):
        self.sent = []

    async def send(self, msg):
        self.sent.append(msg)


def _seated_then_sent(tmp_path, seated_after: float):
    """A client seated (its seat message arrived) ``seated_after`` s after the header was
    stamped, then sent the header 100 s after its stamp: the twin cases of a catch-up (seated
    after the stamp) and a live line (seated before it)."""
    from test_client_expectations import client_at, room_for

    client, _ = client_at(tmp_path)
    server, host, launch = room_for(tmp_path, client)
    conn, t0 = _Conn(), __import__("time").time()
    asyncio.run(client._on_message(conn, host.seat_message(0), arrived=t0 + seated_after))
    [join] = conn.sent
    events = launch(join)
    header = events[0]
    try:
        asyncio.run(client._on_message(conn, {"type": "line", "matchId": host.match_id, "line": header},
                                       arrived=header["at"] + 100.0))
    finally:
        server.close()
    return client, header


def test_a_line_in_the_catch_up_after_the_seat_message_may_come_late(tmp_path):
    client, header = _seated_then_sent(tmp_path, seated_after=100.0)
    assert client.writer.events == [header]
    assert client.seat.received_at[1] == header["at"] + 100.0  # when its frame came, not when it was read
    assert not client.disputes_path(client.match_id).exists()


def test_a_line_stamped_after_the_seat_message_that_comes_late_is_refused(tmp_path):
    with pytest.raises(ClockDispute) as refused:
        _seated_then_sent(tmp_path, seated_after=-10.0)
    assert refused.value.code == "clock.skew" and refused.value.complaint["live"] is True


# ---------------------------------------------------------------- the client's own stall

class _FrameLater:
    """A websocket whose one frame comes when the test lets it."""

    def __init__(self):
        self.frame = asyncio.Event()

    async def recv(self):
        await self.frame.wait()
        self.frame.clear()
        return json.dumps({"type": "line", "line": {}})


@pytest.mark.parametrize("stalled", [True, False])
def test_a_client_that_did_not_run_for_a_while_takes_what_waited_for_it_as_a_catch_up(stalled):
    """The client's process stopped (SIGSTOP, a sleeping laptop): the frames that reached its
    socket meanwhile are read late, by its clock; its watch sees the gap in its own loop and
    says when it ran again (``resumed_at``), so they are a catch-up, not back-dated lines.
    The twin: a loop that kept running sees no stall."""
    from zkbluff.server.client import STALL, _Connection

    now = [1000.0]

    async def run():
        ws = _FrameLater()
        conn = _Connection(ws, clock=lambda: now[0])
        receiving = asyncio.ensure_future(conn.recv_timed())
        await asyncio.sleep(STALL / 2)
        if stalled:
            now[0] += 30.0  # the clock went on while the process did not run
        ws.frame.set()
        msg, arrived = await receiving
        await asyncio.sleep(STALL / 2)
        conn.stop()
        return conn, arrived

    conn, arrived = asyncio.run(run())
    assert arrived == now[0]
    assert conn.resumed_at == (1030.0 if stalled else None)
