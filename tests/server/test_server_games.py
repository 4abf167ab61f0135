"""Every registered game plays over the network by its spec alone (no game code in the
server): a person's client hosts, house bots fill the other seats server-side, real
proofs; the client's own copy verifies offline and equals the server's."""
import asyncio

import pytest

from zkbluff.games.engine.registry import games
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.server.app import Server, serve
from zkbluff.server.client import SeatClient, bot_policy

# Every game on the engine, with options that keep a whole match short (Cheat: three seats,
# the one-second calling window; its waits are closed by the server's clock).
OPTIONS = {"cheat": {"players": "3", "window": "1"}}
NETWORKED = tuple(sorted(games()))


async def _one(game, match_keys, tmp_path):
    options = OPTIONS.get(game)
    server = Server(tmp_path / "data", key_folder=match_keys)
    port = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(server, "127.0.0.1", 0, lambda p, n: port.set_result(p)))
    url = f"ws://127.0.0.1:{await asyncio.wait_for(port, 30)}"
    n_bots = games()[game](options).n_seats - 1
    said = []
    client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(11), said.append, key_folder=match_keys,
                        add_bots=tuple(f"house {i}" for i in range(1, n_bots + 1)))
    report = await client.host(game, options)
    host = server.rooms[report["code"]]
    assert report["verified"]["complete"] and report["verified"]["game"] == game
    assert host.transcript.read_text() == (tmp_path / "ann" / "tables" / report["code"] /
                                           f"{report['matchId']}.jsonl").read_text()
    assert verify_transcript(host.transcript)["complete"]
    assert not report["result"]["online"] and server.store.leaderboard() == []  # against bots: local only
    assert server.store.local_total(f"key:{client.key.public_hex}") == report["result"]["points"][report["seat"]]
    assert any(line.startswith("  ") for line in said)  # the game's own event text was shown
    task.cancel()


@pytest.mark.slow
@pytest.mark.parametrize("game", NETWORKED)
def test_every_registered_game_plays_over_the_network(game, match_keys, tmp_path):
    asyncio.run(asyncio.wait_for(_one(game, match_keys, tmp_path), 300))
