"""The pages around the web table (src/zkbluff/server/web_pages.py): the drop-a-transcript
verifier (a valid transcript accepted; one byte of a line changed, rejected with the line
named; seed 002's fairness records likewise), the rules page of each game from the text of
``zkbluff rules``; served on the table's terms (loopback, the one-time token)."""
from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from test_web_table import _get, chromium  # noqa: F401  (the fixture)
from zkbluff.server.web_pages import SitePages, check_file

ROOT = Path(__file__).resolve().parents[2]
VECTOR = ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"
FAIR = ROOT / "vectors" / "fair" / "cases.json"


def tampered(body: bytes, line: int) -> bytes:
    """``body`` with one byte of line ``line`` (1-based) changed: a digit of its data."""
    lines = body.split(b"\n")
    text = lines[line - 1]
    start = text.index(b'"data"')
    at = start + re.search(rb"[0-9]", text[start:]).start()  # type: ignore[union-attr]
    lines[line - 1] = text[:at] + bytes([ord("0") + (text[at] - ord("0") + 1) % 10]) + text[at + 1:]
    return b"\n".join(lines)


def fair_records() -> tuple[dict, dict]:
    cases = json.loads(FAIR.read_text())["tests"]
    return (next(c["record"] for c in cases if c["result"] == "valid"),
            next(c["record"] for c in cases if c["result"] == "invalid"))


@pytest.fixture
def server() -> Iterator[SitePages]:
    s = SitePages().start()
    yield s
    s.close()


def test_a_valid_transcript_is_said_valid_with_its_game_seats_and_result() -> None:
    v = check_file(VECTOR.read_bytes())
    assert v["valid"] and v["game"] == "Proof or Bluff" and v["seats"] == ["seat 0", "seat 1"]
    assert "won" in v["result"] and v["lines"] == 33 and v["proofs"] == 19


@pytest.mark.parametrize("line", [1, 5, 20, 33])
def test_one_byte_changed_is_rejected_with_its_line_named(line: int) -> None:
    v = check_file(tampered(VECTOR.read_bytes(), line))
    assert not v["valid"] and v["line"] == line and v["code"], v


def test_a_fairness_record_is_verified_as_zkbluff_fair_verify_does() -> None:
    good, bad = fair_records()
    assert check_file(json.dumps(good).encode())["valid"]
    v = check_file(json.dumps(bad).encode())
    assert not v["valid"] and v["kind"] == "fair" and v["code"] in ("commitment.mismatch", "outcome.mismatch")


def test_a_file_that_is_no_transcript_is_refused_in_words() -> None:
    v = check_file(b"hello\n")
    assert not v["valid"] and v["line"] == 1


def test_the_verifier_and_rules_pages_need_the_token(server: SitePages) -> None:
    base = f"http://127.0.0.1:{server.port}"
    for path in ("/verify", "/verify.js", "/rules/cheat", "/rules.css", "/watch", "/watch.js", "/lobby", "/lobby.js"):
        assert _get(base + path)[0] == 403
        assert _get(base + path, {"X-Zkbluff-Token": server.token[:-1]})[0] == 403
        assert _get(f"{base}{path}?t={server.token}", {"Host": "evil.example"})[0] == 403
        assert _get(f"{base}{path}?t={server.token}")[0] == 200
    assert _get(f"{base}/verify", {}, VECTOR.read_bytes())[0] == 403
    code, body = _get(f"{base}/verify", {"X-Zkbluff-Token": server.token}, VECTOR.read_bytes())
    assert code == 200 and json.loads(body)["valid"]
    assert _get(f"{base}/verify", {"X-Zkbluff-Token": server.token}, b"")[0] == 400
    # the table's own routes are still the table's
    assert _get(f"{base}/app.js?t={server.token}")[0] == 200 and _get(f"{base}/nothing?t={server.token}")[0] == 404


def test_the_rules_page_is_the_text_of_zkbluff_rules(server: SitePages) -> None:
    import html

    from click.testing import CliRunner

    from zkbluff.cli import main
    from zkbluff.games.registry import game_names

    for game in game_names():
        code, body = _get(f"http://127.0.0.1:{server.port}/rules/{game}?t={server.token}")
        page = html.unescape(body.decode())
        printed = CliRunner().invoke(main, ["rules", game]).output
        rules = printed.split("\noptions: ")[0].strip()
        assert code == 200 and rules and rules in page, game
    assert _get(f"http://127.0.0.1:{server.port}/rules/chess?t={server.token}")[0] == 404


def test_the_table_page_links_its_rules() -> None:
    from zkbluff.server.web_table import _static

    assert b"rules/" in _static("app.js") and b'id="rules-link"' in _static("index.html")


def _start(args: list[str], tmp_path: Path, prefix: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1", "HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "zkbluff", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, env=env, cwd=tmp_path)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            assert proc.poll() is None, proc.stderr.read()  # type: ignore[union-attr]
            continue
        if line.startswith(prefix):
            return proc, line.split()[len(prefix.split())]
    proc.kill()
    raise AssertionError(f"no {prefix!r} line")


@pytest.mark.slow
@pytest.mark.interop
def test_the_verifier_page_in_a_browser(chromium: str, node_modules: Path, tmp_path: Path) -> None:  # noqa: F811
    """``zkbluff transcript verify --web``: a transcript dropped on the page is accepted; the
    same with one byte of line 7 changed (chosen with the file input) is rejected with line 7
    named; a fairness record, valid and tampered, the same way."""
    good = tmp_path / "match.jsonl"
    good.write_bytes(VECTOR.read_bytes())
    bad = tmp_path / "tampered.jsonl"
    bad.write_bytes(tampered(VECTOR.read_bytes(), 7))
    fair_good, fair_bad = fair_records()
    (tmp_path / "record.json").write_text(json.dumps(fair_good))
    (tmp_path / "record-bad.json").write_text(json.dumps(fair_bad))
    proc, url = _start(["transcript", "verify", "--web"], tmp_path, "the verifier: ")
    try:
        assert url.startswith("http://127.0.0.1:") and "/verify?t=" in url
        shot = ROOT / "docs" / "web-verify.png" if os.environ.get("ZKBLUFF_DOC_SHOTS") else tmp_path / "verify.png"
        out = tmp_path / "result.json"
        run = subprocess.run(["node", str(ROOT / "tools" / "browser_verify.cjs"), str(node_modules), chromium, url,
                              str(out), str(good), f"pick:{tmp_path / 'record.json'}",
                              str(tmp_path / "record-bad.json"), f"pick:{bad}", str(shot)],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
    finally:
        proc.kill()
        proc.wait()
    result = json.loads(out.read_text())
    assert result["errors"] == []
    ok, rec, rec_bad, tamper = result["verdicts"]
    assert ok["how"] == "drop" and ok["state"] == "valid", ok
    assert ok["words"].startswith("✓ Valid: Proof or Bluff, seat 0 vs seat 1; seat 0 won"), ok["words"]
    assert tamper["state"] == "invalid" and tamper["line"] == "7" and tamper["code"], tamper
    assert "line 7" in tamper["words"] and tamper["code"] in tamper["words"], tamper["words"]
    assert rec["state"] == "valid" and "fairness record" in rec["words"], rec
    assert rec_bad["state"] == "invalid" and "mismatch" in rec_bad["code"], rec_bad
    # the page talked to this process only
    assert all(u.startswith(url.split("/verify")[0] + "/") for u in result["requests"]), result["requests"]


# ---------------------------------------------------------------- the spectator's page

def _secret_values(root: Path, public: str) -> set[str]:
    """Every value (12 characters or more) of every secrets file under ``root`` (the seats'
    homes, the server's data) that the public transcript does not itself carry."""
    from test_web_table import _leaves

    out: set[str] = set()
    for file in root.rglob("*secrets*.json"):
        for v in _leaves(json.loads(file.read_text()), ("signed", "pending", "seat", "name")):
            if len(v) >= 12 and v not in public:
                out.add(v)
    return out


async def _watched_match(tmp_path: Path, chromium: str, node_modules: Path) -> dict:  # noqa: F811
    import asyncio

    from serving import serving
    from zkbluff.server.app import Server
    from zkbluff.server.client import SeatClient, bot_policy
    from zkbluff.server.web_pages import PageSpectator

    server = Server(tmp_path / "data")
    task, url = await serving(server)
    client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(5), lambda m: None, add_bots=("house 1",))
    page = SitePages()
    page.keep_sent = True
    page.start()
    said: list[str] = []
    shot = ROOT / "docs" / "web-watch.png" if os.environ.get("ZKBLUFF_DOC_SHOTS") else tmp_path / "watch.png"
    out = tmp_path / "watch.json"
    try:
        browser = await asyncio.create_subprocess_exec(
            "node", str(ROOT / "tools" / "browser_watch.cjs"), str(node_modules), chromium, page.watch_url, str(out),
            str(shot), stderr=asyncio.subprocess.PIPE)
        await asyncio.sleep(2.0)  # the browser starts; the room is made and watched meanwhile
        hosting = asyncio.ensure_future(client.host("proof-or-bluff", {"mode": "casual"}))
        for _ in range(600):
            if client.code is not None and client.code in server.rooms:
                break
            await asyncio.sleep(0.05)
        watcher = PageSpectator(url, page, said.append)
        watching = asyncio.ensure_future(watcher.watch(client.code, linger=60))
        report = await asyncio.wait_for(hosting, 240)
        watched = await asyncio.wait_for(watching, 120)
        _, err = await asyncio.wait_for(browser.communicate(), 120)
        assert browser.returncode == 0, err.decode()
    finally:
        page.close()
        task.cancel()
    return {"page": json.loads(out.read_text()), "said": said, "watched": watched, "sent": page.sent,
            "transcript": server.rooms[report["code"]].transcript, "code": report["code"]}


@pytest.mark.slow
@pytest.mark.interop
def test_the_spectator_page_shows_a_live_match_and_no_secret(chromium: str, node_modules: Path,  # noqa: F811
                                                             tmp_path: Path) -> None:
    """``zkbluff watch URL CODE --web``'s page, in a real browser, while a match is played over
    loopback (a bot client hosting, a house bot, real proofs): the lines appear as they are
    played, in the terminal spectator's words, then the result; nothing the page received
    carries a value of any party's secrets files (the check bites on a secrets file's text)."""
    import asyncio

    got = asyncio.run(asyncio.wait_for(_watched_match(tmp_path, chromium, node_modules), 400))
    page, transcript = got["page"], Path(got["transcript"])
    lines = [json.loads(x) for x in transcript.read_text().splitlines() if x.strip()]
    assert page["errors"] == []
    assert [e["n"] for e in page["log"]] == [line["n"] for line in lines][:len(page["log"])]
    assert len(page["log"]) >= len(lines) - 1 and got["watched"]["lines"] == len(page["log"])
    # live: the page showed the match partly played before it showed it whole
    assert any(0 < n < len(page["log"]) for n in page["seen"]), page["seen"]
    # the terminal spectator's words, line by line
    said = "\n".join(got["said"])
    shown = [w for entry in page["log"] for w in entry["text"].rsplit(" ✓ checked", 1)[0].split("\n")]
    assert sum(w.startswith("line ") for w in shown) <= 2, shown  # a line with no words of its own
    assert [w for w in shown if w and w.strip() not in said and not w.startswith("line ")] == [], (shown, said)
    assert page["result"] and page["result"] in said
    assert all(u.startswith(got_url_base(page)) for u in page["requests"])
    public = transcript.read_text()
    hidden = _secret_values(tmp_path, public)
    assert len(hidden) >= 4, hidden  # the seats' signing keys and salts, the dealer's and referee's
    bodies = [b.decode() for b in got["sent"]] + [b["body"] for b in page["bodies"]]
    assert not {v for v in hidden for b in bodies if v in b}
    some = next(tmp_path.rglob("*secrets*.json")).read_text()
    assert {v for v in hidden for b in bodies + [some] if v in b}  # the check bites


def got_url_base(page: dict) -> str:
    return page["requests"][0].split("/watch")[0] + "/"


def test_verify_web_takes_no_file_and_verify_without_web_needs_one() -> None:
    from click.testing import CliRunner

    from zkbluff.cli import main

    for args in (["transcript", "verify", "--web", str(VECTOR)], ["transcript", "verify", "--web", "--json"],
                 ["transcript", "verify"], ["fair", "verify"], ["fair", "verify", "--web", str(FAIR)]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2 and ("--web" in res.output), (args, res.output)
    assert CliRunner().invoke(main, ["transcript", "verify", str(VECTOR)]).exit_code == 0


@pytest.mark.slow
def test_watch_on_page_follows_a_match_to_its_result(tmp_path: Path) -> None:
    """``zkbluff watch URL CODE --web``'s body (:func:`watch_on_page`): it prints the page's
    URL, follows every line of a match hosted over loopback, and ends with the result."""
    import asyncio

    from serving import serving
    from zkbluff.server.app import Server
    from zkbluff.server.client import SeatClient, bot_policy
    from zkbluff.server.web_pages import watch_on_page

    async def go() -> tuple[dict, list[str], Path]:
        server = Server(tmp_path / "data")
        task, url = await serving(server)
        client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(3), lambda m: None, add_bots=("house 1",))
        hosting = asyncio.ensure_future(client.host("proof-or-bluff", {"mode": "casual"}))
        for _ in range(600):
            if client.code is not None and client.code in server.rooms:
                break
            await asyncio.sleep(0.05)
        said: list[str] = []
        watching = asyncio.get_running_loop().run_in_executor(None, watch_on_page, url, client.code, said.append, 0.5)
        report = await asyncio.wait_for(hosting, 240)
        out = await asyncio.wait_for(watching, 120)
        task.cancel()
        return out, said, Path(server.rooms[report["code"]].transcript)

    out, said, transcript = asyncio.run(asyncio.wait_for(go(), 300))
    assert said[0].startswith("the match: http://127.0.0.1:") and "/watch?t=" in said[0]
    assert out["lines"] == len(transcript.read_text().splitlines()) and out["result"]
    assert any(s.startswith("result: ") for s in said)


# ---------------------------------------------------------------- the lobby

async def _lobby_match(tmp_path: Path, chromium: str, node_modules: Path) -> dict:  # noqa: F811
    import asyncio

    from serving import serving
    from zkbluff.server.app import Server
    from zkbluff.server.client import bot_policy
    from zkbluff.server.web_pages import lobby_client

    server = Server(tmp_path / "data")
    task, url = await serving(server)
    page = SitePages()
    page.keep_sent = True
    page.start()
    said: list[str] = []
    client = lobby_client(url, tmp_path / "ann", "ann", bot_policy(4), page, said.append)
    shot = ROOT / "docs" / "web-lobby.png" if os.environ.get("ZKBLUFF_DOC_SHOTS") else tmp_path / "lobby.png"
    out = tmp_path / "lobby.json"
    try:
        hosting = asyncio.ensure_future(client.host("proof-or-bluff", {"mode": "casual"}))
        browser = await asyncio.create_subprocess_exec(
            "node", str(ROOT / "tools" / "browser_lobby.cjs"), str(node_modules), chromium, page.lobby_url, str(out),
            str(shot), stderr=asyncio.subprocess.PIPE)
        report = await asyncio.wait_for(hosting, 300)
        _, err = await asyncio.wait_for(browser.communicate(), 60)
        assert browser.returncode == 0, err.decode()
    finally:
        page.close()
        task.cancel()
    return {"page": json.loads(out.read_text()), "said": said, "report": report, "url": url}


@pytest.mark.slow
@pytest.mark.interop
def test_the_lobby_page_adds_removes_a_bot_and_starts(chromium: str, node_modules: Path,  # noqa: F811
                                                      tmp_path: Path) -> None:
    """``zkbluff host GAME --web``'s lobby in a real browser: the room code big with a copy
    button (the clipboard holds it), the invite, Start refused until every seat is filled,
    Add bot, Remove, Add bot again, Start; the match is played to its result (the seat's moves
    by its bot policy here) and the host's transcript verifies."""
    import asyncio

    got = asyncio.run(asyncio.wait_for(_lobby_match(tmp_path, chromium, node_modules), 420))
    page, report = got["page"], got["report"]
    assert page["errors"] == []
    assert page["code"] == report["code"] and page["invite"] == f"zkbluff join {got['url']} {report['code']}"
    assert page["startBefore"] is True
    assert page["copied"] == "true" and page["clipboard"] == report["code"]
    assert any("house 1 (bot)" in x for x in page["afterAdd"]) and page["afterRemove"] == 0
    assert page["started"] != "lobby" and page["result"]
    from zkbluff.games.engine.verifier import verify_transcript

    assert verify_transcript(report["transcript"])["complete"]


@pytest.mark.slow
@pytest.mark.parametrize("by_join", [False, True], ids=["add-bot", "join-web"])
def test_host_web_prints_its_lobby_and_starts_only_from_the_page(tmp_path: Path, by_join: bool) -> None:
    """``zkbluff host GAME --web``: the command prints the lobby's URL; the room fills (from
    the page's Add bot, or a person's ``zkbluff join URL CODE --web``, whose own page shows
    the same room, not as its owner) but does not start by itself; the page's Start starts
    it, and the commands end with the match (exit 0)."""
    import asyncio

    from serving import serving
    from zkbluff.server.app import Server

    import contextlib

    ready: "queue.Queue[tuple[str, asyncio.AbstractEventLoop, asyncio.Event]]" = queue.Queue()

    async def serve_it() -> None:
        stop = asyncio.Event()
        task, url = await serving(Server(tmp_path / "data"))
        ready.put((url, asyncio.get_running_loop(), stop))
        await stop.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    serving_thread = threading.Thread(target=lambda: asyncio.run(serve_it()), daemon=True)
    serving_thread.start()
    url, loop, stop = ready.get(timeout=30)
    proc, lobby = _start(["host", "proof-or-bluff", "-o", "mode=casual", "--server", url, "--bot", "2", "--web",
                          "--home", str(tmp_path / "ann")], tmp_path, "your room: ")
    guest: "subprocess.Popen[str] | None" = None
    try:
        assert lobby.startswith("http://127.0.0.1:") and "/lobby?t=" in lobby
        base, token = lobby.split("/lobby?t=")
        auth = {"X-Zkbluff-Token": token, "Content-Type": "application/json"}

        def state_when(ok: "Callable[[dict], bool]") -> dict:
            since = 0
            for _ in range(60):
                s = json.loads(_get(f"{base}/state?since={since}", auth)[1])
                if ok(s):
                    return s
                since = s["version"]
            raise AssertionError(s)

        room = state_when(lambda s: s.get("state") == "lobby" and s.get("owner"))
        if by_join:  # a second person joins with `zkbluff join URL CODE --web`: their page shows the room
            guest, their_lobby = _start(["join", url, room["code"], "--name", "bea", "--bot", "3", "--web",
                                         "--home", str(tmp_path / "bea")], tmp_path, "your room: ")
            their_base, their_token = their_lobby.split("/lobby?t=")
            theirs: dict = {"members": []}
            for _ in range(60):
                theirs = json.loads(_get(f"{their_base}/state?since={theirs.get('version', 0)}",
                                         {"X-Zkbluff-Token": their_token})[1])
                if len(theirs.get("members", [])) == 2:
                    break
            assert theirs["code"] == room["code"] and not theirs["owner"] and theirs["invite"] == room["invite"]
            assert [m["name"] for m in theirs["members"]] == ["host", "bea"]
        else:
            assert _get(f"{base}/act", auth, b'{"action": "add-bot"}')[0] == 202
        full = state_when(lambda s: len(s.get("members", [])) == 2)
        time.sleep(1.0)
        assert json.loads(_get(f"{base}/state?since=0", auth)[1])["state"] == "lobby"  # not started by itself
        assert full["members"][1]["bot"] is not by_join
        assert _get(f"{base}/act", auth, b'{"action": "start"}')[0] == 202
        assert proc.wait(timeout=240) == 0, proc.stderr.read()  # type: ignore[union-attr]
        if guest is not None:
            assert guest.wait(timeout=120) == 0, guest.stderr.read()  # type: ignore[union-attr]
    finally:
        for p in (proc, guest):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        loop.call_soon_threadsafe(stop.set)
        serving_thread.join(timeout=30)
