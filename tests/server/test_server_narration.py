"""The same line prints the same words on every screen: a match played over loopback (a
person's client hosting, house bots in the other seats, a spectator watching, real proofs)
is narrated by the client and by the spectator exactly as the terminal narrates its lines
(games/engine/narration.py over the server's transcript), consequences included: who
scored, the pile discarded, whose turn, click or BANG. And `zkbluff demo`, the terminal,
prints the same narration of its own transcript."""
from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from serving import serving
from zkbluff.cli import main
from zkbluff.games.engine.narration import narration
from zkbluff.games.engine.registry import spec_for
from zkbluff.server.app import Server
from zkbluff.server.client import SeatClient, Spectator, bot_policy

#: what each game's narration must say somewhere in a whole match (the consequences the
#: line alone never says)
CONSEQUENCES = {
    "proof-or-bluff": ("is discarded", "plays next"),
    "bluffers": ("pulls the trigger", "Revolvers:"),
}


def _said_lines(said):
    """The narration in what a client printed: its indented lines, less its own notices."""
    notices = ("(", "not allowed", "could not", "clock:")
    return [s for s in said if s.startswith("  ") and not s.lstrip().startswith(notices)]


def _expected(transcript):
    lines = [json.loads(x) for x in transcript.read_text().splitlines() if x.strip()]
    header = lines[0]["data"]
    words = narration(spec_for(header["game"], header["options"]), lines)
    return [("  " if i == 0 else "    ") + w for ws in words for i, w in enumerate(ws)]


async def _match(game, options, tmp_path):
    server = Server(tmp_path / "data")
    task, url = await serving(server)
    said, watched = [], []
    client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(5), said.append, add_bots=("house 1",))
    hosting = asyncio.ensure_future(client.host(game, options))
    for _ in range(600):
        if client.code is not None and client.code in server.rooms:
            break
        await asyncio.sleep(0.05)
    watcher = Spectator(url, watched.append)
    watching = asyncio.ensure_future(watcher.watch(client.code))
    report = await asyncio.wait_for(hosting, 240)
    await asyncio.wait_for(watching, 60)
    transcript = server.rooms[report["code"]].transcript
    task.cancel()
    return said, watched, transcript


@pytest.mark.slow
@pytest.mark.parametrize("game,options", [("proof-or-bluff", {"mode": "casual"}), ("bluffers", None)])
def test_client_and_spectator_print_the_terminal_narration(game, options, tmp_path):
    said, watched, transcript = asyncio.run(asyncio.wait_for(_match(game, options, tmp_path), 300))
    expected = _expected(transcript)
    assert _said_lines(said) == expected
    assert _said_lines(watched) == expected
    text = "\n".join(watched)
    for needed in CONSEQUENCES[game]:
        assert needed in text, needed  # the spectator sees what each line decided, not only the line
    if game == "proof-or-bluff":
        assert "gains 3 points" in text or "challenge failed" in text  # the score as it goes, not only at the end


def test_the_terminal_prints_the_same_narration(tmp_path):
    out = tmp_path / "demo.jsonl"
    res = CliRunner().invoke(main, ["demo", "bluffers", "--out", str(out), "--seed", "3"])
    assert res.exit_code == 0, res.output
    printed = [ln for ln in res.output.splitlines() if ln[:4].strip().isdigit() or ln.startswith("        ")]
    shown = [ln[6:].split("  [prove")[0] if ln[:4].strip().isdigit() else ln[8:] for ln in printed]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    header = lines[0]["data"]
    words = [w for ws in narration(spec_for(header["game"], header["options"]), lines) for w in ws]
    assert shown == words
    assert any("Click!" in w or "BANG!" in w for w in shown) and any("pulls the trigger" in w for w in shown)
