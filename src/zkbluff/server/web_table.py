"""``zkbluff play GAME --web``: the seat's own table as a web page (every registered game).

The command runs the match exactly as the terminal does (every party in this process, each
with its own keys, secrets and prover; the referee checks every line before it is
written). This module adds a page served on loopback that is only a view and an input of
that process: :class:`PageServer` (stdlib ``http.server`` in a thread) serves the page and
the seat's state, and takes the page's moves; :func:`play_on_page` is the match loop, in
the caller's thread, which builds every state the page sees from the seat's own
observation (the game's :class:`~zkbluff.server.web_games.WebGame` view: its hand, the
public state, the narration of the public lines) and nothing else: never another seat's
hand, never the seat's secrets beyond its hand (its signing key, salts and deal seed stay
in the process and its secrets file). The loop holds a calling window (Cheat) open on the
referee's clock, the bots answering after a human-like delay, and waits out the rules'
pauses (Mind Bluff), as the terminal's loop does.

The server binds 127.0.0.1 only (:data:`LOOPBACK`; anything else is refused with
:class:`~zkbluff.errors.MalformedInput`), on a random port; every request must carry the
one-time token of the printed URL (``?t=TOKEN``, or the ``X-Zkbluff-Token`` header) and a
loopback ``Host`` (a page on another site cannot reach it through a DNS name that points
here). A request without them gets 403 and nothing else.

Routes: ``GET /`` the page, ``GET /app.js`` / ``GET /style.css`` its code,
``GET /games/RENDERER.js`` a game's renderer, ``GET /state?since=V`` the seat's state once
its version passes ``V`` (a long poll), ``POST /act`` a move (a JSON object, the game's
``action`` and its fields, and ``v``: the version of the state it was made on); the match
loop checks it against the seat's own observation and the rules, and a refused move is
said on the page (``error``).
"""
from __future__ import annotations

import base64
import hmac
import json
import queue
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable, Optional, Sequence
from urllib.parse import parse_qs, urlsplit

from zkbluff.errors import IllegalMove, MalformedInput

#: the only addresses the page's server binds
LOOPBACK = ("127.0.0.1",)
#: the games whose table the page draws (the state :func:`seat_view` builds)
WEB_GAMES = ("proof-or-bluff", "five-up-two-down", "cheat", "mind-bluff", "bluffers", "liars-dice")
#: the page's files (package data beside this module): the generic page, and each game's renderer
STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8"),
          **{f"/games/{g}.js": (f"games/{g}.js", "text/javascript; charset=utf-8")
             for g in WEB_GAMES}}
#: how long a long poll of ``/state`` waits for a new version
POLL_SECONDS = 20.0
#: the largest move a page may post
MAX_BODY = 4096


def _static(name: str) -> bytes:
    base = resources.files("zkbluff.server") / "web"
    for part in name.split("/"):
        base = base / part
    return base.read_bytes()


class PageServer:
    """The page's server: one seat, one token, loopback only (see the module)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, token: Optional[str] = None):
        if host not in LOOPBACK:
            raise MalformedInput(f"the web table binds only loopback ({', '.join(LOOPBACK)}), not {host!r}: "
                                 f"the page is a view of this process and of nobody else's")
        # from the OS's randomness, not :mod:`secrets`: a practice match (``--seed``) makes
        # that module's draws replayable, and a token anyone can replay protects nothing
        self.token = token or base64.urlsafe_b64encode(os.urandom(24)).decode().rstrip("=")
        self._cond = threading.Condition()
        self._state: dict[str, Any] = {"version": 0}
        self.delivered = 0  # the highest version a page has fetched
        self.inputs: "queue.Queue[dict[str, Any]]" = queue.Queue()
        #: set to make the match loop return at its next step (the match left as its transcript says)
        self.stop = threading.Event()
        #: every body sent (kept for tests: what the page could ever have received)
        self.sent: list[bytes] = []
        self.keep_sent = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                pass

            def do_GET(self) -> None:
                server._get(self)

            def do_POST(self) -> None:
                server._post(self)

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="zkbluff-web", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?t={self.token}"

    def start(self) -> "PageServer":
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # ---- the state the match loop publishes
    def publish(self, state: dict[str, Any]) -> int:
        with self._cond:
            version = int(self._state["version"]) + 1
            self._state = {**state, "version": version}
            self._cond.notify_all()
            return version

    def wait_delivered(self, version: int, timeout: float) -> bool:
        """Wait until a page has fetched ``version`` (the match's last state) or ``timeout``."""
        end = time.monotonic() + timeout
        with self._cond:
            while self.delivered < version:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    # ---- requests
    def _allowed(self, req: BaseHTTPRequestHandler) -> bool:
        query = parse_qs(urlsplit(req.path).query)
        given = req.headers.get("X-Zkbluff-Token") or (query.get("t") or [""])[0]
        host = (req.headers.get("Host") or "").rsplit(":", 1)[0]
        return hmac.compare_digest(given.encode(), self.token.encode()) and host in ("127.0.0.1", "localhost")

    def _send(self, req: BaseHTTPRequestHandler, code: int, body: bytes, kind: str) -> None:
        req.send_response(code)
        req.send_header("Content-Type", kind)
        req.send_header("Content-Length", str(len(body)))
        req.send_header("Cache-Control", "no-store")
        req.send_header("Referrer-Policy", "no-referrer")  # the token is in the URL: never pass it on
        req.send_header("X-Frame-Options", "DENY")
        req.send_header("Content-Security-Policy", "default-src 'self'; connect-src 'self'")
        req.end_headers()
        req.wfile.write(body)
        if self.keep_sent:
            self.sent.append(body)

    def _refuse(self, req: BaseHTTPRequestHandler, code: int, why: str) -> None:
        self._send(req, code, why.encode(), "text/plain; charset=utf-8")

    def _get(self, req: BaseHTTPRequestHandler) -> None:
        if not self._allowed(req):
            return self._refuse(req, 403, "forbidden: this page needs the token of the URL zkbluff printed")
        parts = urlsplit(req.path)
        if parts.path in STATIC:
            name, kind = STATIC[parts.path]
            body = _static(name)
            if name == "index.html":  # its code's addresses carry the token too
                body = body.replace(b"{{TOKEN}}", self.token.encode())
            return self._send(req, 200, body, kind)
        if parts.path == "/state":
            try:
                since = int((parse_qs(parts.query).get("since") or ["0"])[0])
            except ValueError:
                return self._refuse(req, 400, "since: a version number")
            end = time.monotonic() + POLL_SECONDS
            with self._cond:
                while int(self._state["version"]) <= since and time.monotonic() < end:
                    self._cond.wait(max(0.0, end - time.monotonic()))
                state = self._state
            self._send(req, 200, json.dumps(state).encode(), "application/json")
            req.wfile.flush()
            with self._cond:  # sent (the match loop may close the server and exit once the last state is)
                self.delivered = max(self.delivered, int(state["version"]))
                self._cond.notify_all()
            return None
        return self._refuse(req, 404, "not found")

    def _post(self, req: BaseHTTPRequestHandler) -> None:
        if not self._allowed(req):
            return self._refuse(req, 403, "forbidden: this page needs the token of the URL zkbluff printed")
        if urlsplit(req.path).path != "/act":
            return self._refuse(req, 404, "not found")
        try:
            length = int(req.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY:
            return self._refuse(req, 400, f"a move is a JSON object of at most {MAX_BODY} bytes")
        try:
            move = json.loads(req.rfile.read(length))
        except ValueError:
            return self._refuse(req, 400, "a move is a JSON object")
        if not isinstance(move, dict):
            return self._refuse(req, 400, "a move is a JSON object")
        self.inputs.put(move)
        self._send(req, 202, b"{}", "application/json")


# ---------------------------------------------------------------- the seat's state

def card(c: int) -> dict[str, Any]:
    """A card of the seat's own hand for the page (:func:`zkbluff.server.web_games.poker_card`)."""
    from zkbluff.server.web_games import poker_card

    return poker_card(c)


def seat_view(tab: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
    """What the page of ``seat`` may show now: built from the seat's own observation (its
    hand and the public state) only, by the game's :class:`~zkbluff.server.web_games.WebGame`."""
    from zkbluff.server.web_games import TABLES

    return TABLES[tab.spec.game].view(tab, seat, names)


def _proof_entry(line: dict[str, Any], timing: Any) -> Optional[dict[str, Any]]:
    """A proof line's summary for the page: the statements, their times, and the mark that
    the referee of this process verified it before writing it (every written line was)."""
    raw = line.get("data")
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if isinstance(line.get("proofs"), list):
        statements = [str(p.get("statement")) for p in line["proofs"] if isinstance(p, dict)]
    elif isinstance(data.get("proof"), dict):  # a deal line's own Groth16 proof
        statements = [f"{line['action']} ({data['proof'].get('protocol', 'proof')})"]
    else:
        return None
    return {"statements": statements, "verified": True,
            "proveMs": round(timing.prove_s * 1000, 1) if timing is not None else None,
            "verifyMs": round(timing.verify_s * 1000, 2) if timing is not None else None}


# ---------------------------------------------------------------- the match loop

def _intent(move: dict[str, Any], obs: Any, game: str = "proof-or-bluff") -> Any:
    """The page's move as the seat's intent, checked against the seat's own observation."""
    from zkbluff.server.web_games import TABLES

    return TABLES[game].intent(move, obs)


def play_on_page(tab: Any, path: Any, bots: dict[int, Any], human: int = 0,
                 say: Callable[[str], None] = print, server: Optional[PageServer] = None,
                 linger: float = 60.0, verify_command: str = "", rng: Any = None) -> PageServer:
    """Run the match of ``tab`` with ``human``'s moves from the page (the other seats are
    ``bots``) until it is over, as the terminal's loop does (the rules' pauses waited out, a
    calling window held open on the referee's clock while the bots answer after a
    human-like delay); then wait (up to ``linger`` seconds) for the page to fetch the last
    state, and close the server. Returns the server (its ``sent`` for tests)."""
    import math
    import random

    from zkbluff.games.engine.narration import Narrator, move_clock
    from zkbluff.games.engine.table import may_act
    from zkbluff.server.web_games import TABLES

    spec = tab.spec
    if spec.game not in WEB_GAMES:
        raise MalformedInput(f"--web draws the table of {', '.join(WEB_GAMES)}, not {spec.game}")
    game = TABLES[spec.game]
    rng = rng or random.Random()
    if hasattr(spec.text, "configure"):
        spec.text.configure(True, False)  # suit symbols, no terminal colour codes
    names = list(tab.header["seats"])
    narrator = Narrator(spec, names, viewer=human)
    log: list[dict[str, Any]] = []
    shown = 0
    status = ""
    error = ""
    disclosed: Optional[dict[str, Any]] = None
    asked = 0  # the version of the last state that asked the page for a move
    server = server or PageServer()
    server.start()
    say(f"your table: {server.url}  (this process's page, on this machine only; keep the link to yourself)")

    def publish(busy: bool = False, clock: Optional[tuple[str, float]] = None) -> int:
        """The seat's state now; ``busy``: the process is working (proving, a bot's move), so
        the page may not act until the next state; ``clock``: a countdown (its label and
        deadline on the referee's clock) instead of the seat's move clock."""
        nonlocal shown, disclosed
        timing = {t.line: t for t in tab.timings}
        for e in tab.writer.events[shown:]:
            words = narrator.lines(e)
            if words:
                proof = _proof_entry(e, timing.get(e["n"]))
                log.append({"n": e["n"], "seat": e.get("seat"), "action": e["action"], "words": words,
                            "proof": proof, "line": e if proof else None})
                if e["action"] in game.disclosures:
                    disclosed = {"n": e["n"], "words": words}
        shown = len(tab.writer.events)
        countdown = None
        now = tab.referee.clock()
        if clock is not None:
            countdown = {"label": clock[0], "secondsLeft": max(0.0, clock[1] - now)}
        elif move_clock(tab.view, human) is not None and math.isfinite(tab.referee.deadline):
            countdown = {"label": "left for this move", "secondsLeft": max(0.0, tab.referee.deadline - now)}
        end = [e for e in tab.writer.events if e["action"] == "end"]
        table = game.view(tab, human, names)
        if busy:
            table["may"] = []
        return server.publish({
            "game": spec.title, "kind": spec.game, "renderer": game.renderer, "match": tab.match_id,
            "transcript": str(path), "verify": verify_command,
            "table": table, "log": log, "status": status, "error": error, "disclosed": disclosed,
            "over": tab.over, "result": spec.text.describe(end[-1], names) if end else None,
            "secondsLeft": countdown["secondsLeft"] if countdown else None, "clock": countdown,
        })

    def from_page(move: dict[str, Any]) -> bool:
        """Make the page's move; False (and the reason on the page) if it is refused. A move
        made on a table older than the one that asked is refused (the page's click crossed
        a new state), but for the moves that name what they answer (:attr:`any_time`)."""
        nonlocal status, error
        v = move.get("v")
        if move.get("action") not in game.any_time and (not isinstance(v, int) or v < asked):
            status, error = "", "that move answered an older table; look again"
            return False
        try:
            intent = game.intent(move, tab.observation(human))
            status, error = "your client proves your move", ""
            publish(busy=True)
            tab.move(human, intent)
            status = ""
            return True
        except (MalformedInput, IllegalMove) as exc:
            status, error = "", str(exc)
            return False

    def pause(seat: int) -> None:
        left = tab.seats[seat].pause_left()
        if left > 0:
            nonlocal status
            status = f"play is paused for {left:.1f} s"
            publish(busy=True, clock=("play is paused", tab.referee.clock() + left))
            time.sleep(left)
            status = ""

    def window() -> None:
        """The table waits on the referee's clock (a calling window): the bots answer after a
        human-like delay, the page until the deadline; nobody: the clock closes it."""
        nonlocal asked
        deadline = tab.referee.deadline
        if not math.isfinite(deadline):
            tab.poll()
            time.sleep(0.05)
            return
        start = tab.referee.clock()
        first: Optional[tuple[float, int, Any]] = None
        seats = [i for i in range(spec.n_seats) if may_act(tab.view, i)]
        rng.shuffle(seats)
        for s in seats:
            if s != human:
                intent = bots[s].act(tab.observation(s))
                if intent is not None:
                    at = start + (deadline - start) * rng.uniform(0.3, 0.9)
                    first = min(first or (at, s, intent), (at, s, intent), key=lambda x: x[0])
        until = deadline if first is None else first[0]
        asked = publish(clock=("calling window", deadline))
        before = len(tab.writer.events)
        while tab.referee.clock() < until and len(tab.writer.events) == before:
            try:
                move = server.inputs.get(timeout=max(0.01, min(0.25, until - tab.referee.clock())))
            except queue.Empty:
                continue
            if not from_page(move):
                asked = publish(clock=("calling window", deadline))
        if len(tab.writer.events) != before:
            return
        if first is not None and tab.referee.clock() < deadline:
            try:
                tab.move(first[1], first[2])
            except IllegalMove:
                tab.poll()
        else:
            tab.poll()

    def drain() -> None:
        """Moves the page sent while the process was not asking: refused (or, for a move that
        names what it answers, given to the rules, which refuse a late one)."""
        nonlocal status, error
        while True:
            try:
                move = server.inputs.get_nowait()
            except queue.Empty:
                return
            if move.get("action") in game.any_time:
                from_page(move)
            else:
                status, error = "", "not your move now"
            publish(busy=True)

    try:
        publish()
        waiting = False  # the page has the state that asks for the seat's move
        while not tab.over:
            if server.stop.is_set():
                return server
            seat = tab.to_move
            if seat is None:
                drain()
                window()
                waiting = False
            elif seat == human:
                pause(seat)
                auto = game.auto(tab.observation(human))
                if auto is not None:  # the client proves (reveals, shares) by itself
                    drain()
                    status, error = "your client proves what the table needs from it", ""
                    publish(busy=True)
                    tab.move(human, auto)
                    status, waiting = "", False
                    continue
                if not waiting:
                    status, waiting = "your move", True
                    asked = publish()
                try:
                    move = server.inputs.get(timeout=1.0)
                except queue.Empty:
                    before = len(tab.writer.events)
                    tab.poll()  # the idle limit
                    if len(tab.writer.events) != before:
                        waiting = False
                        publish()
                    continue
                waiting = False
                from_page(move)
            else:
                drain()
                pause(seat)
                status, error = f"{names[seat]} moves and proves", error
                publish(busy=True)
                tab.move(seat, bots[seat].act(tab.observation(seat)))
                status, waiting = "", False
        drain()
        status = "the match is over"
        last = publish()
        server.wait_delivered(last, linger)
    finally:
        server.close()
    return server
