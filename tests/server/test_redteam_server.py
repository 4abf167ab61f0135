"""Red team against the network server: what a house server that lies to its clients can
do, and what the client must refuse."""
import pytest

from zkbluff.errors import CommitmentMismatch
from zkbluff.server.client import SeatClient


def _client(tmp_path):
    return SeatClient("ws://127.0.0.1:9", tmp_path, "ann", lambda *a: None, say=lambda m: None)


@pytest.mark.parametrize("options", [{"mode": "casual", "deal": "dealer"}, {"mode": "standard", "deal": "oblivious"}])
def test_a_host_refuses_a_seat_at_another_table_than_it_asked_for(tmp_path, options):
    """The owner hosts an oblivious casual Proof or Bluff room; the house's server seats it
    at a dealer-deal table (where the house sees both hands) or another hand size. The
    client refuses the seat before it makes a join or any secret, and keeps no seat."""
    client = _client(tmp_path)
    client.wanted = ("proof-or-bluff", {"mode": "casual", "deal": "oblivious"})
    client.code = "ABCD-EFGH"  # the room it created
    seat_msg = {"type": "seat", "seat": 0, "matchId": "m-1", "game": "proof-or-bluff", "options": options,
                "names": ["ann", "bot"]}
    with pytest.raises(CommitmentMismatch, match="asked for"):
        client._take_seat(seat_msg)
    assert client.seat is None and client.match_id is None
    # twin: the table it asked for is taken (a seat-join for it comes back)
    out = client._take_seat({**seat_msg, "options": {"mode": "casual", "deal": "oblivious"}})
    assert out["type"] == "seat-join" and client.seat is not None


def test_host_records_the_table_it_asks_for(tmp_path):
    """``host`` normalises the options it asks for (defaults filled in) before connecting;
    an unknown option is refused there."""
    import asyncio

    from zkbluff.errors import MalformedInput

    client = _client(tmp_path)
    client.reconnect_for = 0.0
    with pytest.raises(MalformedInput):
        asyncio.run(client.host("proof-or-bluff", {"mode": "casual"}))  # nobody listens on port 9
    assert client.wanted == ("proof-or-bluff", {"mode": "casual", "deal": "oblivious"})
    with pytest.raises(MalformedInput):
        asyncio.run(_client(tmp_path / "b").host("proof-or-bluff", {"deal": "nonsense"}))
