"""`zkbluff play GAME --web` for Cheat, Mind Bluff, Bluffers and 5 Up 2 Down
(src/zkbluff/server/web_games.py, web/games/*.js), in real headless Chromium (Debian's,
driven by playwright-core through tools/browser_table.cjs): a Cheat call made inside its
calling window and one posted after a window closed, refused; Mind Bluff's series to its
end and each game's review and Truth Replay; a Bluffers match and a 5 Up 2 Down match
clicked against the house bot. Each: the transcript verifies offline and no response the
page received carries a value of another party's secrets (or of the seat's own beyond its
hand). ``ZKBLUFF_DOC_SHOTS=1`` writes each table's screenshot to docs/."""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from test_web_table import chromium, leaked, secret_values  # noqa: F401 - the fixture, and the secrets check
from zkbluff.errors import MalformedInput

ROOT = Path(__file__).resolve().parents[2]


def _play(game: str, args: list[str], chromium_exe: str, node_modules: Path, tmp_path: Path,
          stop: bool = False) -> tuple[dict[str, Any], Path, list[str]]:
    """Start ``zkbluff play GAME --web``, drive its page with tools/browser_table.cjs; with
    ``stop`` the process is then stopped (Ctrl-C), else it must exit 0 by itself."""
    out = tmp_path / "m.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1", "HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "zkbluff", "play", game, *args, "--web", "--out", out.name],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            env=env, cwd=tmp_path)
    lines: "queue.Queue[str]" = queue.Queue()
    printed: list[str] = []
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        url = None
        end = time.monotonic() + 120
        while url is None and time.monotonic() < end:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                assert proc.poll() is None, proc.stderr.read()  # type: ignore[union-attr]
                continue
            printed.append(line)
            if line.startswith("your table: "):
                url = line.split()[2]
        assert url and url.startswith("http://127.0.0.1:") and "?t=" in url, printed
        shot = ROOT / "docs" / f"web-table-{game}.png" if os.environ.get("ZKBLUFF_DOC_SHOTS") else tmp_path / "t.png"
        facts = tmp_path / "page.json"
        run = subprocess.run(["node", str(ROOT / "tools" / "browser_table.cjs"), str(node_modules), chromium_exe, url,
                              game, str(facts), str(shot)], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        result = json.loads(facts.read_text())
        if stop:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=60) == 2, proc.stderr.read()  # type: ignore[union-attr]
        else:
            assert proc.wait(timeout=120) == 0, proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while not lines.empty():
        printed.append(lines.get())
    assert result["errors"] == []
    return result, out, printed


def _no_secret_in_any_response(result: dict[str, Any], out: Path) -> None:
    """No response the page received (HTML, scripts, every state) carries a value of another
    party's secrets file, nor of the seat's own beyond its hand; the check bites on the
    other seat's file."""
    bodies = [b["body"] for b in result["bodies"]]
    assert any('"hand"' in b or '"myChoices"' in b for b in bodies)
    hidden = secret_values(out, 0)
    assert len(hidden) >= 6
    assert leaked(bodies, hidden) == set()
    assert leaked(bodies + [(out.parent / (out.name + ".seat1.secrets.json")).read_text()], hidden)


def _verifies(out: Path, result: dict[str, Any]) -> None:
    from zkbluff.games.engine.verifier import verify_transcript

    report = verify_transcript(out)
    assert report["lines"] == len(out.read_text().splitlines()) and report["proofs"] >= result["verified"] > 0


@pytest.mark.slow
@pytest.mark.interop
def test_cheat_a_call_inside_the_window_and_one_refused_after_it(chromium: str, node_modules: Path,
                                                                   tmp_path: Path) -> None:
    result, out, _ = _play("cheat", ["--players", "3", "--hands", "3", "--window", "3", "--seed", "11"],
                           chromium, node_modules, tmp_path, stop=True)
    called = result["callInWindow"]
    assert called is not None and called["clock"].startswith("calling window: ") and 0 < called["left"] <= 3
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    # the call inside the window was the seat's own, on the play its button named, and the table turned it over
    calls = [e for e in lines if e["action"] == "call" and e["seat"] == 0]
    assert calls and calls[0]["data"]["play"] == called["play"]
    assert any(e["action"] == "reveal" and e["n"] > calls[0]["n"] for e in lines)
    assert result["disclosed"]  # what the turned-over play showed, said on the page
    # the late one: the window of its play had closed (the referee's close_window line), the rules refused it
    late = result["lateCall"]
    assert late is not None and late["error"].startswith("not allowed") and late["play"] != called["play"]
    assert any(e["action"] == "close_window" and e["data"]["play"] == late["play"] for e in lines)
    assert not any(e["action"] == "call" and e["data"]["play"] == late["play"] for e in lines)
    assert result["verified"] >= 3
    _verifies(out, result)
    _no_secret_in_any_response(result, out)


@pytest.mark.slow
@pytest.mark.interop
def test_mind_bluff_played_to_its_end_then_the_review_and_truth_replay(chromium: str, node_modules: Path,
                                                                       tmp_path: Path) -> None:
    result, out, printed = _play("mind-bluff", ["--seed", "4"], chromium, node_modules, tmp_path)
    assert "won the series" in result["result"], result["result"]
    assert any(l.startswith("Verify it yourself: zkbluff transcript verify") for l in printed)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    reveals = [e for e in lines if e["action"] == "reveal"]
    assert len(result["reviews"]) == len(reveals) >= 2
    # the Truth Replay steps from the first turn, with the bowl's real count, as the review says
    replay = result["replay"]
    assert len(replay["first"]) == 1 and len(replay["second"]) == 2 and replay["first"][0].startswith("turn 1: ")
    first_review = json.loads(reveals[0]["data"]["review"])
    assert f"({first_review['turns'][0]['remaining_before']} → " in replay["all"][0] or "All done" in replay["all"][0]
    assert len(replay["all"]) == len(first_review["turns"])
    assert result["download"].startswith("data:application/json")
    assert json.loads(__import__("urllib.parse").parse.unquote(result["download"].split(",", 1)[1])) == first_review
    _verifies(out, result)
    _no_secret_in_any_response(result, out)


@pytest.mark.slow
@pytest.mark.interop
def test_bluffers_a_match_clicked_against_the_house_bot(chromium: str, node_modules: Path, tmp_path: Path) -> None:
    result, out, _ = _play("bluffers", ["--seed", "6"], chromium, node_modules, tmp_path)
    assert result["moves"] >= 2 and ("last one standing" in result["result"] or "wins" in result["result"]), \
        result["result"]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert any(e["action"] == "play" and e["seat"] == 0 for e in lines)
    assert any(e["action"] == "share" for e in lines)  # a pull of the revolver, shown with its proof
    _verifies(out, result)
    _no_secret_in_any_response(result, out)


@pytest.mark.slow
@pytest.mark.interop
def test_liars_dice_a_match_clicked_against_the_house_bot(chromium: str, node_modules: Path, tmp_path: Path) -> None:
    """Bids and Dudo clicked to the end: the seat sees its own dice, each call is settled by
    every seat's proven count, and no die of another seat reaches the page."""
    result, out, _ = _play("liars-dice", ["--seed", "3"], chromium, node_modules, tmp_path)
    assert result["moves"] >= 2 and result.get("dice", 0) >= 1 and "dice" in result["result"], result["result"]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert any(e["action"] == "bid" and e["seat"] == 0 for e in lines)
    assert any(e["action"] == "count" for e in lines)  # a Dudo, settled by proven counts
    _verifies(out, result)
    _no_secret_in_any_response(result, out)


@pytest.mark.slow
@pytest.mark.interop
def test_five_up_two_down_a_match_clicked(chromium: str, node_modules: Path, tmp_path: Path) -> None:
    result, out, _ = _play("five-up-two-down", ["--mode", "casual", "--seed", "3"], chromium, node_modules, tmp_path)
    assert result["moves"] >= 2 and result["result"]
    _verifies(out, result)
    _no_secret_in_any_response(result, out)


# ---------------------------------------------------------------- without a browser

class _CheatObs:
    hand = (0, 13, 5)

    class state:  # noqa: N801 - a stand-in for CheatState's two fields the intent reads
        rank = None


@pytest.mark.parametrize("move, why", [
    ({"action": "play", "cards": [1], "rank": 0}, "not in your hand"),
    ({"action": "play", "cards": [0]}, "name the rank"),
    ({"action": "play", "cards": [0], "rank": 13}, "name the rank"),
    ({"action": "play", "cards": [0], "rank": True}, "name the rank"),
    ({"action": "call"}, "name the play"),
    ({"action": "call", "play": "3"}, "name the play"),
    ({"action": "fold"}, "unknown move"),
])
def test_a_cheat_move_is_checked_against_the_seats_own_hand(move: dict[str, Any], why: str) -> None:
    from zkbluff.server.web_games import TABLES

    with pytest.raises(MalformedInput, match=why):
        TABLES["cheat"].intent(move, _CheatObs())


@pytest.mark.parametrize("game", ["cheat", "mind-bluff", "bluffers", "five-up-two-down", "liars-dice"])
def test_each_seat_view_of_a_real_table_holds_its_own_secrets_only(game: str, tmp_path: Path) -> None:
    """A view is built from its seat's own observation: seat 0's view carries none of the
    other parties' secrets (nor its own beyond its hand), and its hand is its own."""
    from zkbluff.games.engine.table import open_match
    from zkbluff.games.registry import spec_class
    from zkbluff.server.web_games import TABLES

    options = {"players": "3", "hands": "3", "window": "1"} if game == "cheat" else {}
    spec = spec_class(game)(options)
    names = ["you"] + ["house"] * (spec.n_seats - 1) if spec.n_seats > 1 else ["you"]
    if game == "mind-bluff":
        names = ["you", "house"]
    tab = open_match(game, options, names, transcript=tmp_path / "m.jsonl")
    view = TABLES[game].view(tab, 0, names)
    mine = set(tab.observation(0).hand) if hasattr(tab.observation(0), "hand") else set()
    if "hand" in view and game != "mind-bluff":
        assert {c["id"] for c in view["hand"]} == mine
        theirs = set(tab.observation(1).hand)
        assert not {c["id"] for c in view["hand"]} & theirs
    secrets_ = secret_values(tmp_path / "m.jsonl", 0)
    assert secrets_ and leaked([json.dumps(view)], secrets_) == set()


@pytest.mark.parametrize("move", [
    {"action": "bid", "quantity": True, "face": 3},      # a bool is not a quantity
    {"action": "bid", "quantity": "2", "face": 3},       # nor is a string
    {"action": "bid", "quantity": 2},                    # a face is needed
    {"action": "raise", "quantity": 2, "face": 3},       # no such action
])
def test_a_liars_dice_page_move_that_is_not_a_bid_or_dudo_is_refused(move: dict[str, Any]) -> None:
    from zkbluff.server.web_games import TABLES

    with pytest.raises(MalformedInput):
        TABLES["liars-dice"].intent(move, None)


def test_a_liars_dice_bid_and_dudo_from_the_page_are_the_seats_intents() -> None:
    """The positive twin: a whole bid and a Dudo become the seat's intents (whether the bid
    rises is the rules' to judge, on the seat's own table)."""
    from zkbluff.games.liars_dice.moves import BidIntent, DudoIntent
    from zkbluff.server.web_games import TABLES

    assert TABLES["liars-dice"].intent({"action": "bid", "quantity": 2, "face": 3}, None) == BidIntent(2, 3)
    assert TABLES["liars-dice"].intent({"action": "dudo"}, None) == DudoIntent()
