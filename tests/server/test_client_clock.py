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
from zkbluff.errors import ClockDispute
from zkbluff.protocol.transcript import canonical, line_hash
from zkbluff.server import app
from zkbluff.server.app import Server, serve
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
    port = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(server, "127.0.0.1", 0, lambda p, n: port.set_result(p)))
    url = f"ws://127.0.0.1:{await asyncio.wait_for(port, STEP)}"
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
