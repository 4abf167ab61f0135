"""The pages around the table, served by the local process on the same terms as the table
(:class:`~zkbluff.server.web_table.PageServer`: loopback only, the one-time token, a
loopback ``Host``): :class:`SitePages` is that server with these routes added.

- ``GET /verify``: the drop-a-transcript verifier page (``zkbluff transcript verify --web``,
  ``zkbluff fair verify --web``, and beside every ``--web`` table). The file dropped on it
  (or chosen) is posted to this process (``POST /verify``, the file's bytes as they are, at
  most :data:`MAX_FILE`), verified with the offline verifier
  (:func:`zkbluff.games.engine.verifier.verify_transcript`; a seed-002 fairness record, a
  JSON object with a ``scheme``, with :func:`zkbluff.fair.verify_record`, as ``zkbluff fair
  verify`` does), and the verdict (:func:`check_file`) is said on the page: valid, the game,
  the seats and the result; invalid, the line and the reason code and words. Nothing leaves
  the machine: the page's script talks only to this process.
- ``GET /rules/GAME``: the rules of GAME, from the same text as ``zkbluff rules GAME``.
- ``GET /watch``: the spectator's page (``zkbluff watch URL CODE --web``,
  :func:`watch_on_page`): the public lines of the room's match, each checked by this
  process's own referee as it comes (:class:`PageSpectator`, the terminal's
  :class:`~zkbluff.server.client.Spectator`), in the terminal's words, and the result. A
  spectator holds no seat's secrets, so the page cannot show one: it gets the public lines'
  narration and nothing else (``GET /state``, long-polled as the table's).
"""
from __future__ import annotations

import html
import json
import tempfile
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Callable, Optional
from urllib.parse import unquote, urlsplit

from zkbluff.errors import MalformedInput, ZkbluffError
from zkbluff.server.web_table import PageServer, _static

#: the largest file the verifier page may post (a long match's transcript is well below it)
MAX_FILE = 32 * 1024 * 1024
#: the pages' own files (package data in ``web/``)
PAGES = {"/verify": ("verify.html", "text/html; charset=utf-8"),
         "/watch": ("watch.html", "text/html; charset=utf-8"),
         "/watch.js": ("watch.js", "text/javascript; charset=utf-8"),
         "/lobby": ("lobby.html", "text/html; charset=utf-8"),
         "/lobby.js": ("lobby.js", "text/javascript; charset=utf-8"),
         "/verify.js": ("verify.js", "text/javascript; charset=utf-8"),
         "/rules.css": ("style.css", "text/css; charset=utf-8")}


def _fair_record(body: bytes) -> Any:
    """The body as a seed-002 record (a JSON object with a ``scheme``), or None."""
    try:
        rec = json.loads(body)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) and "scheme" in rec else None


def check_file(body: bytes, name: str = "dropped.jsonl") -> dict[str, Any]:
    """The verdict on a dropped file, as the page says it: ``valid``; for a transcript the
    ``game`` (its title), ``seats``, ``result`` and the counts; for a fairness record its
    ``scheme`` and ``game``; when invalid, ``line`` (None when the file has no such line),
    ``code`` (the stable reason, docs/writing-your-own-verifier.md) and ``message``."""
    rec = _fair_record(body)
    if rec is not None:
        from zkbluff.fair import verify_record

        try:
            verify_record(rec)
        except ZkbluffError as exc:
            return {"kind": "fair", "valid": False, "line": None, "code": exc.code, "message": str(exc),
                    "scheme": str(rec.get("scheme")), "name": name}
        return {"kind": "fair", "valid": True, "scheme": str(rec.get("scheme")), "game": str(rec.get("game", "")),
                "message": "the commitment opens and every recorded outcome recomputes", "name": name}
    from zkbluff.games.engine.registry import spec_class
    from zkbluff.games.engine.verifier import verify_transcript

    with tempfile.TemporaryDirectory(prefix="zkbluff-verify-") as tmp:
        path = Path(tmp) / "transcript.jsonl"
        path.write_bytes(body)
        try:
            report = verify_transcript(path)
        except ZkbluffError as exc:
            return {"kind": "transcript", "valid": False, "line": getattr(exc, "line", None), "code": exc.code,
                    "message": str(exc), "name": name}
        except (OSError, UnicodeDecodeError) as exc:
            return {"kind": "transcript", "valid": False, "line": None, "code": "transcript.malformed",
                    "message": f"not a transcript file ({exc})", "name": name}
    header = json.loads(body.split(b"\n", 1)[0])["data"]  # verified above: line 1 is the signed header
    return {"kind": "transcript", "valid": True, "game": spec_class(report["game"]).title, "id": report["game"],
            "options": report["options"], "seats": [str(s) for s in header.get("seats", [])],
            "result": report["summary"], "lines": report["lines"], "proofs": report["proofs"],
            "complete": report["complete"], "name": name}


def rules_page(game: str, token: str) -> bytes:
    """The rules page of ``game``: the text ``zkbluff rules GAME`` prints, and its options."""
    from zkbluff.games.engine.registry import spec_class
    from zkbluff.games.registry import GAMES  # noqa: F401  (every game registered)

    cls = spec_class(game)
    options = "".join(f"<li><code>--{html.escape(k)}</code>: {html.escape(', '.join(v))} (default "
                      f"{html.escape(str(cls.default_options.get(k, '-')))})</li>"
                      for k, v in cls.option_values.items())
    t = html.escape(token)
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta name=\"referrer\" content=\"no-referrer\"><title>{html.escape(cls.title)}: rules</title>"
            f"<link rel=\"stylesheet\" href=\"../rules.css?t={t}\"></head><body>"
            f"<header><h1>{html.escape(cls.title)}: how to play</h1></header><main>"
            f"<section id=\"rules\" data-game=\"{html.escape(game)}\"><pre id=\"rules-text\">"
            f"{html.escape(cls.text.RULES)}</pre>"
            + (f"<h2>Options</h2><ul id=\"options\">{options}</ul>" if options else "")
            + f"<p>The same text as <code>zkbluff rules {html.escape(game)}</code>.</p></section></main>"
            f"</body></html>").encode()


class SitePages(PageServer):
    """The table's server with the verifier page and the rules pages (see the module)."""

    def _get(self, req: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(req.path)
        if not self._allowed(req) or not (parts.path in PAGES or parts.path.startswith("/rules/")):
            return super()._get(req)  # the table's routes, and the refusals
        if parts.path.startswith("/rules/"):
            try:
                body = rules_page(parts.path[len("/rules/"):], self.token)
            except MalformedInput as exc:
                return self._refuse(req, 404, str(exc))
            return self._send(req, 200, body, "text/html; charset=utf-8")
        name, kind = PAGES[parts.path]
        body = _static(name)
        if name.endswith(".html"):
            body = body.replace(b"{{TOKEN}}", self.token.encode())
        return self._send(req, 200, body, kind)

    def _post(self, req: BaseHTTPRequestHandler) -> None:
        if urlsplit(req.path).path != "/verify" or not self._allowed(req):
            return super()._post(req)
        try:
            length = int(req.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        if not 0 < length <= MAX_FILE:
            return self._refuse(req, 400, f"a file to verify is 1 to {MAX_FILE} bytes")
        body = req.rfile.read(length)
        name = unquote(req.headers.get("X-Zkbluff-File") or "dropped file")[:200]
        self._send(req, 200, json.dumps(check_file(body, name)).encode(), "application/json")

    @property
    def lobby_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/lobby?t={self.token}"

    @property
    def watch_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/watch?t={self.token}"

    @property
    def verify_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/verify?t={self.token}"


def serve_verifier(say: Any = print) -> None:
    """``zkbluff transcript verify --web`` / ``zkbluff fair verify --web``: serve the verifier
    page until interrupted (Ctrl-C)."""
    server = SitePages()
    server.start()
    say(f"the verifier: {server.verify_url}  (this process's page, on this machine only; "
        f"drop a transcript or a fairness record on it; Ctrl-C stops it)")
    try:
        while not server.stop.wait(0.5):
            pass
    finally:
        server.close()


class PageSpectator:
    """The terminal's spectator (every public line checked by this process's own referee,
    narrated in the terminal's words) whose narration is also published to ``server``'s page:
    each line as one entry (its number, action, seat and words), the room's state, the result."""

    def __init__(self, url: str, server: PageServer, say: Callable[[str], None] = print):
        from zkbluff.server.client import Spectator

        self.server, self.echo = server, say
        self.log: list[dict[str, Any]] = []
        self.room = ""
        self.result: Optional[str] = None
        self.code = ""
        self._said: list[str] = []
        page = self

        class _Watching(Spectator):
            def _on_line(self, line: Any, match_id: Any = None) -> None:
                page._said = []
                before = self.match_id
                super()._on_line(line, match_id)
                if not self.events or self.events[-1] is not line:
                    return  # a line it does not follow (an old one again)
                if len(self.events) == 1 and (before != self.match_id or page.log):
                    page.log = []  # a new match of the room: follow that one
                game = self.view.spec.title if self.view is not None else ""
                page.log.append({"n": line.get("n"), "action": line.get("action"), "seat": line.get("seat"),
                                 "words": [w.strip() for w in page._said]})
                page.publish(game)

        self.spectator = _Watching(url, self._say)

    def _say(self, text: str) -> None:
        self._said.append(text)
        self.echo(text)
        if text.startswith("room "):
            self.room = text.split(": ", 1)[-1]
            self.publish()

    def publish(self, game: Optional[str] = None, over: bool = False) -> int:
        view = self.spectator.view
        title = game or (view.spec.title if view is not None else "")
        return self.server.publish({"kind": "watch", "game": title, "id": view.spec.game if view is not None else "", "code": self.code, "room": self.room,
                                    "match": self.spectator.match_id, "log": self.log, "over": over,
                                    "result": self.result, "verified": len(self.spectator.events)})

    async def watch(self, code: str, linger: float = 30.0) -> dict[str, Any]:
        """Watch room ``code`` until its result; then wait (up to ``linger`` s) for the page to
        fetch the last state."""
        import asyncio

        self.code = code
        self.publish()
        out: dict[str, Any] = await self.spectator.watch(code)
        result = self.spectator.result or {}
        self.result = str(result.get("summary") or "the match is over")
        last = self.publish(over=True)
        await asyncio.get_running_loop().run_in_executor(None, self.server.wait_delivered, last, linger)
        return out


def watch_on_page(url: str, code: str, say: Callable[[str], None] = print, linger: float = 30.0) -> dict[str, Any]:
    """``zkbluff watch URL CODE --web``: watch as the terminal does, on a page served here."""
    from zkbluff.server.client import run

    server = SitePages()
    server.start()
    say(f"the match: {server.watch_url}  (this process's page, on this machine only)")
    watcher = PageSpectator(url, server, say)
    try:
        out: dict[str, Any] = run(watcher.watch(code, linger))
        return out
    finally:
        server.close()


# ---------------------------------------------------------------- the lobby (host --web)

#: the lobby's moves from its page, and the protocol message each one sends
LOBBY_MOVES = ("add-bot", "remove-bot", "start")


def lobby_client(url: str, home: Any, name: str, policy: Any, server: PageServer,
                 say: Callable[[str], None] = print, **kw: Any) -> Any:
    """A :class:`~zkbluff.server.client.SeatClient` whose room's lobby is also a page of
    ``server`` (``GET /lobby``): the room code, the invite (``zkbluff join URL CODE``), the
    seats; the owner's **Add bot**, **Remove** and **Start** come from the page (the client
    never starts by itself). The seat's moves are ``policy``'s, as with ``zkbluff host``."""
    import asyncio
    import queue as queue_

    from zkbluff.server.client import SeatClient

    notes: list[str] = []

    def said(text: str) -> None:
        say(text)
        if text.startswith("server: "):
            notes.append(text[len("server: "):])
            lobby.publish_room()

    class Lobby(SeatClient):
        room: dict[str, Any] = {}
        _pump: Optional["asyncio.Task[None]"] = None

        def _on_room(self, msg: Any) -> None:
            super()._on_room(msg)
            self.room = dict(msg)
            if msg.get("state") != "lobby" and self._pump is not None:
                self._pump.cancel()
                self._pump = None
            self.publish_room()

        def publish_room(self) -> None:
            m = self.room
            members = [{"seat": i, "name": str(x.get("name")), "bot": bool(x.get("bot")),
                        "connected": bool(x.get("connected", True))} for i, x in enumerate(m.get("members", []))]
            code = str(m.get("code") or self.code or "")
            server.publish({"kind": "lobby", "code": code, "title": str(m.get("title") or ""),
                            "state": str(m.get("state") or "connecting"), "seats": m.get("seats"),
                            "members": members, "owner": bool(m.get("owner")),
                            "invite": f"zkbluff join {self.url} {code}" if code else "",
                            "error": notes[-1] if notes else "", "over": self.result is not None,
                            "result": (self.result or {}).get("summary")})

        async def _on_message(self, conn: Any, msg: Any, arrived: Optional[float] = None) -> bool:
            done = await super()._on_message(conn, msg, arrived)
            if done:  # the result: said on the page
                self.publish_room()
            return done

        async def _owner(self, conn: Any, msg: Any) -> None:
            await super()._owner(conn, msg)
            if self._pump is None or self._pump.done():
                self._pump = asyncio.ensure_future(self._from_page(conn))

        async def _from_page(self, conn: Any) -> None:
            n_bots = 0
            while True:
                try:
                    move = await asyncio.to_thread(server.inputs.get, True, 0.5)
                except queue_.Empty:
                    continue
                action = move.get("action")
                if action == "add-bot":
                    n_bots += 1
                    await conn.send({"type": "add-bot", "name": f"house {n_bots}"})
                elif action == "remove-bot" and isinstance(move.get("seat"), int) \
                        and not isinstance(move.get("seat"), bool):
                    await conn.send({"type": "remove-bot", "seat": move["seat"]})
                elif action == "start":
                    self.started = True
                    await conn.send({"type": "start"})
                else:
                    notes.append(f"not a lobby move: {str(action)[:40]}")
                    self.publish_room()

    lobby = Lobby(url, home, name, policy, said, autostart=False, **kw)
    return lobby
