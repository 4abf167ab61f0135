"""`zkbluff play proof-or-bluff --web` (src/zkbluff/server/web_table.py): the page's server
refuses a request without the one-time token and any bind but loopback; a whole match is
played by clicking in real headless Chromium (Debian's, driven by playwright-core through
tools/browser_play.cjs), its transcript verifies offline, and no response the page received
carries a value of another party's secrets or of the seat's own beyond its hand."""
from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from services import missing
from zkbluff.errors import MalformedInput
from zkbluff.server.web_table import PageServer, _intent

ROOT = Path(__file__).resolve().parents[2]


def _get(url: str, headers: dict[str, str] | None = None, data: bytes | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, res.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture
def server() -> Iterator[PageServer]:
    s = PageServer().start()
    s.publish({"table": {"hand": []}, "log": []})
    yield s
    s.close()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "localhost", ""])
def test_binds_only_loopback(host: str) -> None:
    with pytest.raises(MalformedInput, match="only loopback"):
        PageServer(host=host)


def test_loopback_bind_is_on_127_0_0_1_with_a_random_port() -> None:
    a, b = PageServer(), PageServer()
    try:
        assert a.httpd.server_address[0] == "127.0.0.1" and a.port != b.port and a.token != b.token
        assert len(a.token) >= 32
    finally:
        a.httpd.server_close()
        b.httpd.server_close()


def test_the_token_is_not_replayable_in_a_practice_match() -> None:
    """``--seed`` makes the secrets module's draws replayable; the page's token is not among them."""
    from zkbluff.cli.common import seeded_randomness

    tokens = []
    for _ in range(2):
        with seeded_randomness(5):
            s = PageServer()
            tokens.append(s.token)
            s.httpd.server_close()
    assert tokens[0] != tokens[1]


def test_refuses_a_request_without_the_token(server: PageServer) -> None:
    base = f"http://127.0.0.1:{server.port}"
    for path in ("/", "/app.js", "/style.css", "/games/cheat.js", "/state?since=0"):
        assert _get(base + path)[0] == 403
        assert _get(base + path + ("&" if "?" in path else "?") + "t=" + "x" * len(server.token))[0] == 403
        assert _get(base + path, {"X-Zkbluff-Token": server.token[:-1]})[0] == 403
    code, body = _get(base + "/act", {"Content-Type": "application/json"}, b'{"action": "accept"}')
    assert code == 403 and server.inputs.empty()


def test_refuses_a_foreign_host_header(server: PageServer) -> None:
    """A page on another site reaching this port through its own DNS name (rebinding) is refused."""
    code, _ = _get(f"http://127.0.0.1:{server.port}/state?since=0&t={server.token}", {"Host": "evil.example:80"})
    assert code == 403


def test_serves_the_page_and_takes_a_move_with_the_token(server: PageServer) -> None:
    base = f"http://127.0.0.1:{server.port}"
    code, html = _get(server.url)
    assert code == 200 and f"app.js?t={server.token}".encode() in html and b"{{TOKEN}}" not in html
    assert _get(f"{base}/app.js?t={server.token}")[0] == 200
    code, body = _get(f"{base}/state?since=0", {"X-Zkbluff-Token": server.token})
    assert code == 200 and json.loads(body)["version"] == 1
    code, _ = _get(f"{base}/act", {"X-Zkbluff-Token": server.token, "Content-Type": "application/json"},
                   b'{"action": "accept"}')
    assert code == 202 and server.inputs.get_nowait() == {"action": "accept"}
    assert _get(f"{base}/act", {"X-Zkbluff-Token": server.token}, b"[1]")[0] == 400
    assert _get(f"{base}/act", {"X-Zkbluff-Token": server.token}, b"x" * 5000)[0] == 400


class _Obs:
    hand = (0, 13, 26, 39, 5)


@pytest.mark.parametrize("move, why", [
    ({"action": "play", "cards": [1]}, "not in your hand"),
    ({"action": "play", "cards": [0, 13, 26, 39, 5]}, "1 to 4"),
    ({"action": "play", "cards": [0, 0]}, "1 to 4 different"),
    ({"action": "play", "cards": []}, "1 to 4"),
    ({"action": "play", "cards": "0"}, "pick the cards"),
    ({"action": "play", "cards": [True]}, "pick the cards"),
    ({"action": "fold"}, "unknown move"),
])
def test_a_move_is_checked_against_the_seats_own_hand(move: dict[str, Any], why: str) -> None:
    with pytest.raises(MalformedInput, match=why):
        _intent(move, _Obs())


def test_a_legal_pick_is_the_seats_intent() -> None:
    from zkbluff.games.proof_or_bluff.moves import PlayCards

    assert _intent({"action": "play", "cards": [13, 0]}, _Obs()) == PlayCards((13, 0))


# ---------------------------------------------------------------- a match in a real browser

@pytest.fixture(scope="module")
def chromium(node_modules: Path) -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        missing("chromium is not installed (apt-get install chromium; the Makefile does it as root)")
    if not (node_modules / "playwright-core").is_dir():
        missing(f"playwright-core not installed in {node_modules} (run `make test`, which runs `npm ci`)")
    return exe


def _leaves(value: Any, skip: tuple[str, ...] = ()) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                yield from _leaves(v, skip)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v, skip)
    elif isinstance(value, (str, int)) and not isinstance(value, bool):
        yield str(value)


def secret_values(transcript: Path, seat: int) -> set[str]:
    """The values of every party's secrets file that the page of ``seat`` may not see: all
    of the other parties', and the seat's own but its hands (``hand``), leaving out what
    the public transcript itself carries (a party's last signed line, commitments)."""
    public = transcript.read_text()
    out: set[str] = set()
    for file in transcript.parent.glob(transcript.name + ".*.secrets.json"):
        party = file.name[len(transcript.name) + 1:-len(".secrets.json")]
        own = party == f"seat{seat}"
        data = json.loads(file.read_text())
        for v in _leaves(data, ("signed", "pending", "seat", "name") + (("hand", "hands") if own else ())):
            if len(v) >= 12 and v not in public:
                out.add(v)
    return out


def leaked(bodies: list[str], secrets_: set[str]) -> set[str]:
    return {v for v in secrets_ for b in bodies if v in b}


@pytest.mark.slow
@pytest.mark.interop
def test_a_whole_match_played_by_clicking(chromium: str, node_modules: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1", "HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "zkbluff", "play", "proof-or-bluff", "--mode", "casual", "--seed",
                             "5", "--web", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, env=env, cwd=tmp_path)
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
        shot = ROOT / "docs" / "web-table.png" if os.environ.get("ZKBLUFF_DOC_SHOTS") else tmp_path / "table.png"
        run = subprocess.run(["node", str(ROOT / "tools" / "browser_play.cjs"), str(node_modules), chromium, url,
                              str(shot)], capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        result = json.loads(run.stdout)
        assert proc.wait(timeout=120) == 0, proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while not lines.empty():
        printed.append(lines.get())
    assert result["errors"] == []
    assert result["moves"] >= 3 and ("wins" in result["result"] or "draw" in result["result"]), result["result"]
    assert any(l.startswith("Verify it yourself: zkbluff transcript verify") for l in printed), printed
    # every proof line shown with its mark, in the terminal's own words
    assert result["verified"] >= 5
    assert any("client proves the claim" in l for l in result["log"])
    # the transcript verifies offline
    from zkbluff.games.engine.verifier import verify_transcript

    report = verify_transcript(out)
    assert report["lines"] == len(out.read_text().splitlines()) and report["proofs"] >= result["verified"]
    # the page never received a value the seat may not see
    bodies = [b["body"] for b in result["bodies"]]
    assert any('"hand"' in b for b in bodies)
    hidden = secret_values(out, 0)
    assert len(hidden) >= 6  # the other seat's signing key and salts, the dealer's and referee's, the seat's own
    assert leaked(bodies, hidden) == set()
    assert leaked(bodies + [(out.parent / (out.name + ".seat1.secrets.json")).read_text()], hidden)  # the check bites
    states = [json.loads(b) for b in bodies if b.startswith("{") and '"table"' in b]
    assert states and all(set(s["table"]) >= {"hand", "pile", "scores"} and "hands" not in s["table"] for s in states)


def test_every_registered_game_has_a_web_table_and_its_renderer_is_served() -> None:
    """A game registered without a web table (or a renderer file) would make ``--web``
    refuse it: every game of the registry is drawn, each by its own renderer module."""
    from zkbluff.games.registry import game_names
    from zkbluff.server.web_games import TABLES
    from zkbluff.server.web_table import STATIC, WEB_GAMES, _static

    assert set(WEB_GAMES) == set(TABLES) == set(game_names())
    for game in WEB_GAMES:
        name, kind = STATIC[f"/games/{TABLES[game].renderer}.js"]
        assert b"export function render" in _static(name) and kind.startswith("text/javascript")


def test_play_web_refuses_a_game_whose_table_it_does_not_draw(tmp_path: Path) -> None:
    from zkbluff.games.engine.table import open_match
    from zkbluff.server import web_table

    tab = open_match("bluffers", {}, ["you", "house"], transcript=tmp_path / "m.jsonl")
    old = web_table.WEB_GAMES
    web_table.WEB_GAMES = ("proof-or-bluff",)
    try:
        with pytest.raises(MalformedInput, match="--web draws the table of proof-or-bluff, not bluffers"):
            web_table.play_on_page(tab, tmp_path / "m.jsonl", {}, say=lambda m: None)
    finally:
        web_table.WEB_GAMES = old


def test_the_seat_view_of_a_real_table_holds_its_own_hand_only(tmp_path: Path) -> None:
    """seat_view reads the seat's own observation: its hand, and of the other seat only the
    public hand size (a view built from the other seat's observation would fail here)."""
    from zkbluff.games.engine.table import open_match
    from zkbluff.server.web_table import seat_view

    tab = open_match("proof-or-bluff", {"mode": "casual", "deal": "dealer"}, ["you", "house"],
                     transcript=tmp_path / "m.jsonl")
    view = seat_view(tab, 0, ["you", "house"])
    mine, theirs = set(tab.observation(0).hand), set(tab.observation(1).hand)
    assert {c["id"] for c in view["hand"]} == mine and not mine & theirs
    assert view["handSizes"] == [len(mine), len(theirs)]
    other = seat_view(tab, 1, ["house", "you"])
    assert {c["id"] for c in other["hand"]} == theirs
    text = json.dumps(view)
    secrets_ = secret_values(tmp_path / "m.jsonl", 0)
    assert secrets_ and leaked([text], secrets_) == set()


def test_a_move_made_on_an_older_state_than_the_one_that_asked_is_refused(tmp_path: Path) -> None:
    """A click that crossed a new state (the page acted on the table it had, the process has
    moved on) is refused, not applied to the new table; the same move made on the state that
    asked is played. The match loop stops when its server is told to."""
    from zkbluff.games.engine.table import open_match
    from zkbluff.server.web_table import play_on_page

    out = tmp_path / "m.jsonl"
    tab = open_match("proof-or-bluff", {"mode": "casual", "deal": "dealer"}, ["you", "house"], transcript=out)
    server = PageServer()
    loop = threading.Thread(target=play_on_page, args=(tab, out, {1: tab.spec.house_bot(1)}, 0, lambda m: None, server),
                            daemon=True)
    loop.start()
    base = f"http://127.0.0.1:{server.port}"
    auth = {"X-Zkbluff-Token": server.token}

    def state(since: int) -> dict[str, Any]:
        for _ in range(100):
            try:
                return json.loads(_get(f"{base}/state?since={since}", auth)[1])
            except urllib.error.URLError:
                time.sleep(0.1)
        raise AssertionError("the page's server did not start")

    def post(move: dict[str, Any]) -> None:
        assert _get(f"{base}/act", {**auth, "Content-Type": "application/json"}, json.dumps(move).encode())[0] == 202

    def mine() -> int:
        return sum(1 for line in out.read_text().splitlines() if json.loads(line).get("seat") == 0)

    try:
        s = state(0)
        while "play" not in s["table"]["may"]:
            if "accept" in s["table"]["may"]:
                post({"action": "accept", "v": s["version"]})
            s = state(s["version"])
        before = mine()
        card_id = s["table"]["hand"][0]["id"]
        post({"action": "play", "cards": [card_id], "v": s["version"] - 1})
        s = state(s["version"])
        assert "older table" in s["error"] and "play" in s["table"]["may"] and mine() == before
        post({"action": "play", "cards": [card_id], "v": s["version"]})
        while mine() == before:
            s = state(s["version"])
        assert not s["error"]
    finally:
        server.stop.set()
        loop.join(timeout=30)
    assert not loop.is_alive()
