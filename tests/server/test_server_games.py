"""Every registered game plays over the network by its spec alone (no game code in the
server): a person's client hosts, house bots fill the other seats server-side, real
proofs; the client's own copy verifies offline and equals the server's."""
import asyncio
import time

import pytest

from serving import serving
from zkbluff.games.engine.registry import games
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.server.app import Server
from zkbluff.server.client import SeatClient, bot_policy

# Every game on the engine, with options that keep a whole match short (Cheat: three seats,
# the one-second calling window; its waits are closed by the server's clock).
OPTIONS = {"cheat": {"players": "3", "window": "1"}}
NETWORKED = tuple(sorted(games()))


class Clock:
    """The server's and the client's clock: the real time, plus the pauses skipped."""

    def __init__(self):
        self.skipped = 0.0

    def __call__(self):
        return time.time() + self.skipped


async def _skip_pauses(server, clock):
    """The pauses the rules hold play for (Mind Bluff's doubt, game 3's coin) pass at once:
    the shared clock is moved to each one's end (the pauses themselves: test_server_pacing.py)."""
    while True:
        await asyncio.sleep(0.05)
        for host in list(server.rooms.values()):
            table = host.table
            if table is not None and not host.lock.locked() and table.view.paused_until > clock():
                clock.skipped += table.view.paused_until - clock()


async def _one(game, match_keys, tmp_path):
    options = OPTIONS.get(game)
    clock = Clock()
    server = Server(tmp_path / "data", key_folder=match_keys, clock=clock)
    skipping = asyncio.ensure_future(_skip_pauses(server, clock))
    task, url = await serving(server)
    n_bots = games()[game](options).n_seats - 1
    said = []
    client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(11), said.append, key_folder=match_keys,
                        add_bots=tuple(f"house {i}" for i in range(1, n_bots + 1)), clock=clock)
    report = await client.host(game, options)
    host = server.rooms[report["code"]]
    assert report["verified"]["complete"] and report["verified"]["game"] == game
    assert host.transcript.read_text() == (tmp_path / "ann" / "tables" / report["code"] /
                                           f"{report['matchId']}.jsonl").read_text()
    assert verify_transcript(host.transcript)["complete"]
    assert not report["result"]["online"] and server.store.leaderboard() == []  # against bots: local only
    assert server.store.local_total(f"key:{client.key.public_hex}") == report["result"]["points"][report["seat"]]
    assert any(line.startswith("  ") for line in said)  # the game's own event text was shown
    skipping.cancel()
    task.cancel()


@pytest.mark.slow
@pytest.mark.parametrize("game", NETWORKED)
def test_every_registered_game_plays_over_the_network(game, match_keys, tmp_path):
    asyncio.run(asyncio.wait_for(_one(game, match_keys, tmp_path), 300))
