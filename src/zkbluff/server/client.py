"""The client side: a person's seat (``zkbluff join`` / ``host``) and a spectator
(``zkbluff watch``).

The seat is the engine's :class:`~zkbluff.games.engine.parties.Seat`, in this process:
its Ed25519 key (the client's identity, kept in its home folder), its deal secrets, its
cards and its prover never leave it. It sends the server only the engine's messages — the
join, the message for the dealer, its signed lines — and follows every line it is sent
through its own referee (signatures, rules, proofs verified at once). It keeps its own
copy of the transcript and its secrets under ``HOME/tables/<CODE>/``, so a client that
dropped or was killed comes back to the same seat where it left off, and verifies the
whole transcript offline at the end.

What takes time — checking a line (its signature and proofs), proving, writing the
transcript (flushed to disk line by line) and the secrets — runs in a worker thread, one
step at a time per seat: the event loop stays free, so the connection answers its pings
during a long proof or a slow disk, and one process can hold many seats (each with its
own key, secrets and proofs; the loaded proving keys are shared) without one seat's disk
write holding up the others.

The game's terminal text and prompts come from the game's spec (``spec.text``); nothing
here knows a game.
"""
from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, TranscriptError, ZkbluffError
from zkbluff.games.engine.parties import Prover, Seat
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.spec import GameSpec
from zkbluff.games.engine.table import may_act
from zkbluff.groth16 import VerifyingKey
from zkbluff.protocol.signing import SigningKey
from zkbluff.protocol.transcript import TranscriptWriter, parse_chain
from zkbluff.server.protocol import decode, encode, sign_auth
from zkbluff.server.rooms import normalise_code

#: what a client accepts from the server in one frame (a line with its proofs is a few kB)
CLIENT_MAX_BYTES = 4 * 1024 * 1024

Say = Callable[[str], None]
#: a seat's policy: (spec, observation, seat names) -> intent (may block: it runs in a thread)
Policy = Callable[[GameSpec, Any, list[str]], Any]


def default_home() -> Path:
    return Path(os.environ.get("ZKBLUFF_HOME", Path.home() / ".zkbluff"))


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def load_identity(home: Path) -> SigningKey:
    """This client's Ed25519 key (made on first use, kept in ``home/identity.json``)."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / "identity.json"
    if path.exists():
        try:
            return SigningKey.from_secret_hex(json.loads(path.read_text())["key"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise MalformedInput(f"identity {path}: {exc}") from None
    key = SigningKey.generate()
    _write_json(path, {"key": key.secret_hex()})
    os.chmod(path, 0o600)
    return key


def read_events(path: Path) -> list[dict[str, Any]]:
    """A local transcript; a last line cut short by a crash is dropped (it is sent again)."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        path.write_text(text, encoding="utf-8")
    lines = text.split("\n")[:-1] if text else []
    return list(parse_chain(lines))


def bot_policy(seed: int) -> Policy:
    """The game's house bot choosing for this seat (still proving on this machine)."""
    bots: dict[str, Any] = {}

    def act(spec: GameSpec, obs: Any, names: list[str]) -> Any:
        bot = bots.setdefault(spec.game, spec.house_bot(seed))
        return bot.act(obs)
    return act


def prompt_policy(ask: Callable[[str], str], say: Say) -> Policy:
    """A person at the terminal: the game's own prompt."""
    def act(spec: GameSpec, obs: Any, names: list[str]) -> Any:
        return spec.text.prompt(obs, ask, say, names)
    return act


class _Closed(Exception):
    pass


class _Connection:
    def __init__(self, ws: Any):
        self.ws = ws
        self.challenge = ""

    async def open(self) -> None:
        hello = await self.recv()
        if hello.get("type") != "hello" or not isinstance(hello.get("challenge"), str):
            raise MalformedInput(f"server: expected hello, got {str(hello)[:80]}")
        self.challenge = hello["challenge"]

    async def recv(self) -> dict[str, Any]:
        from websockets.exceptions import ConnectionClosed

        try:
            raw = await self.ws.recv()
        except ConnectionClosed as exc:
            raise _Closed(str(exc)) from None
        msg = json.loads(raw)
        if not isinstance(msg, dict):
            raise MalformedInput("server: expected a JSON object")
        return msg

    async def send(self, msg: Mapping[str, Any]) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await self.ws.send(encode(msg))
        except ConnectionClosed as exc:
            raise _Closed(str(exc)) from None


class SeatClient:
    """A person's seat at a remote table."""

    def __init__(self, url: str, home: Path, name: str, policy: Policy, say: Say = print,
                 key_folder: Optional[Path] = None, backend: Any = None, reconnect_for: float = 120.0,
                 add_bots: tuple[str, ...] = (), autostart: bool = True):
        self.url, self.home, self.name, self.policy, self.say = url, Path(home), name, policy, say
        self.key = load_identity(self.home)
        self.key_folder, self.backend = key_folder, backend
        self.reconnect_for = reconnect_for
        self.add_bots, self.autostart = add_bots, autostart
        self.code: Optional[str] = None
        self.seat: Optional[Seat] = None
        self.match_id: Optional[str] = None
        self.names: list[str] = []
        self.writer: Optional[TranscriptWriter] = None
        self.result: Optional[dict[str, Any]] = None
        self.started = False
        self.errors: list[dict[str, Any]] = []
        self.moves = 0
        self._sent_for: Optional[int] = None  # the line number this client last moved at
        self._sent_at: Optional[int] = None
        self._tries = 0
        self._last_line: Optional[dict[str, Any]] = None  # the last line this seat made (sent again; remade only stale)
        self._deal_sent_for: Optional[int] = None  # the table line this seat's last deal line was made for
        #: the table this client asked for when it hosts (game, options): a seat at another is refused
        self.wanted: Optional[tuple[str, dict[str, Any]]] = None

    # ---- files
    @property
    def folder(self) -> Path:
        assert self.code is not None
        return self.home / "tables" / self.code

    def transcript_path(self, match_id: str) -> Path:
        return self.folder / f"{match_id}.jsonl"

    def _save(self) -> None:
        assert self.seat is not None and self.writer is not None
        _write_json(self.folder / "seat.json", {"matchId": self.match_id, "game": self.seat.spec.game,
                                                "options": dict(self.seat.spec.options), "sent": self._last_line,
                                                "line": len(self.writer.events), "seat": self.seat.export()})

    def _load_saved(self, match_id: str) -> Optional[dict[str, Any]]:
        path = self.folder / "seat.json"
        if not path.exists():
            return None
        data = json.loads(path.read_text())
        return data if data.get("matchId") == match_id else None

    # ---- the seat
    def _take_seat(self, msg: Mapping[str, Any]) -> Optional[dict[str, Any]]:
        """Seat this client for the match in ``msg`` (restoring its own secrets if it has
        them); the seat-join to send, or None if the match already has it."""
        match_id, seat_no = msg["matchId"], msg["seat"]
        self.names = list(msg.get("names") or [])
        if self.seat is not None and self.match_id == match_id:
            return None if self.writer and self.writer.events else self._seat_join()
        spec = spec_for(msg["game"], msg.get("options"))
        if self.wanted is not None and (spec.game, dict(spec.options)) != self.wanted:
            raise CommitmentMismatch(f"the server seats this client at {spec.game} {dict(spec.options)}; it asked "
                                     f"for {self.wanted[0]} {self.wanted[1]}")
        prover = Prover(self.key_folder, self.backend)
        saved = self._load_saved(match_id)
        self.match_id = match_id
        self.folder.mkdir(parents=True, exist_ok=True)
        if saved is not None:
            seat = Seat.restore(spec, saved["seat"], prover, self._stamp)
            self._last_line = saved.get("sent")
            if seat.seat != seat_no or seat.public_key != self.key.public_hex:
                raise CommitmentMismatch(f"the server seats this client in seat {seat_no}, its saved seat is "
                                         f"{seat.seat}")
            events = read_events(self.transcript_path(match_id))
            for e in events:
                if len(events) and e is events[0]:
                    self._check_header(spec, e)
                seat.receive(e, restoring=e["n"] <= saved["line"])
            self.seat = seat
            self.writer = TranscriptWriter(self.transcript_path(match_id), events=events)
            if events:
                self.say(f"back in seat {seat_no} of match {match_id} at line {len(events)}")
                return None
        else:
            self.seat = Seat(spec, seat_no, self.names[seat_no] if seat_no < len(self.names) else self.name,
                             prover, self.key, clock=self._stamp)
            self.writer = TranscriptWriter(self.transcript_path(match_id), overwrite=True)
        self._save()  # the deal secrets are on disk before the join that commits to them leaves
        return self._seat_join()

    def _stamp(self) -> float:
        """The stamp of this seat's lines: this machine's clock, never before the table's
        last line (a clock a little behind the server's would otherwise be refused)."""
        view = self.seat.view if self.seat is not None else None
        head = view.head_at if view is not None and view.head_at is not None else 0.0
        return max(time.time(), head)

    def _seat_join(self) -> dict[str, Any]:
        assert self.seat is not None
        return {"type": "seat-join", "join": self.seat.join(), "toDealer": self.seat.to_dealer()}

    def _check_header(self, spec: GameSpec, header: Mapping[str, Any]) -> None:
        """The table's verifying keys must be the ones this client proves with (a key the
        house alone made is not accepted)."""
        prover = Prover(self.key_folder, self.backend)
        keys = header.get("data", {}).get("keys", {})
        for key_id in spec.statements():
            theirs = VerifyingKey.from_json(keys.get(key_id)).fingerprint() if key_id in keys else None
            if theirs != prover.key(key_id).vk.fingerprint():
                raise TranscriptError(f"the table's key for {key_id} is not the one this client holds: both sides "
                                      f"need the same keys (the project's pinned keys)", line=1)

    def _on_line(self, msg: Mapping[str, Any]) -> None:
        assert self.seat is not None and self.writer is not None
        if msg.get("matchId") != self.match_id:
            return
        line = msg["line"]
        if line.get("n") != self.writer.next_line:
            return  # already have it
        if line.get("n") == 1:
            self._check_header(self.seat.spec, line)
        self.seat.receive(line)  # verified here: signature, rules, proofs
        self.writer.append_event(line)
        self._save()
        view = self.seat.view
        assert view is not None
        if line.get("action") not in ("header", self.seat.spec.deal.closing):
            self.say("  " + self.seat.spec.text.describe(line, view.seat_names))

    def _my_turn(self) -> bool:
        """This seat is to move, or may answer while the table waits on the clock (a
        calling window: the policy may let it pass, answering None)."""
        view = self.seat.view if self.seat is not None else None
        return view is not None and may_act(view, self.seat.seat)  # type: ignore[union-attr]

    async def _deal_line(self, conn: _Connection) -> None:
        """This seat's own deal line, when one is due (its entropy after the dealer's
        commitment, a complaint about a hand that does not open): made by the engine's
        seat exactly as the in-process table asks it (:meth:`Seat.deal_line`), sent once
        per table line. Another party's line may take the number first: the table's next
        line then brings this one again, remade for it (a complaint too: the seat keeps it
        until its line is written)."""
        seat = self.seat
        if seat is None or seat.view is None or self._deal_sent_for == seat.view.next_line:
            return
        line = await asyncio.to_thread(self._make_deal_line, seat)
        if line is None:
            return
        self._deal_sent_for = line["n"]
        await conn.send({"type": "line", "line": line})

    def _make_deal_line(self, seat: Seat) -> Optional[dict[str, Any]]:
        """(In a worker thread: it may prove, and it writes.) The seat's deal line due now,
        saved with what it commits to (its hand) before it leaves; None when none is due."""
        complaint = seat.complaint
        line = seat.deal_line()
        if complaint is not None:  # kept until its line is written (the match then ends, and no line is due)
            seat.complaint = complaint
        if line is not None:
            self._save()
        return line

    async def _move(self, conn: _Connection) -> None:
        seat = self.seat
        assert seat is not None and seat.view is not None
        at = seat.view.next_line
        while True:
            obs = seat.observation()
            intent = await asyncio.to_thread(self.policy, seat.spec, obs, list(seat.view.seat_names))
            if seat.view.next_line != at:
                return  # the table moved on meanwhile (a timeout)
            if intent is None and seat.view.rules.to_move is None:
                return  # a calling window this seat lets pass
            try:
                line = await asyncio.to_thread(seat.move, intent)
            except (IllegalMove, MalformedInput) as exc:
                self.say(f"  not allowed: {exc}")
                continue
            break
        self._last_line = line
        await asyncio.to_thread(self._save)  # the pending move is saved before the line leaves
        self.moves += 1
        await conn.send({"type": "line", "line": line})

    # ---- the session
    async def host(self, game: str, options: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        """Create a room for ``game``, add the bots, start when full, play it to its end."""
        spec = spec_for(game, options or None)  # an unknown game or option is refused before connecting
        self.wanted = (spec.game, dict(spec.options))
        return await self._session(create={"game": game, "options": options or {}})

    async def join(self, code: str) -> dict[str, Any]:
        self.code = normalise_code(code)
        return await self._session()

    async def _session(self, create: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        from websockets.asyncio.client import connect

        # a client with a seat at this table keeps trying for reconnect_for; a new one gives up sooner
        resuming = self.code is not None and (self.home / "tables" / self.code / "seat.json").exists()
        deadline = time.monotonic() + (self.reconnect_for if resuming else min(self.reconnect_for, 10.0))
        delay = 0.2
        while True:
            try:
                async with connect(self.url, max_size=CLIENT_MAX_BYTES, open_timeout=10) as ws:
                    conn = _Connection(ws)
                    await conn.open()
                    delay, deadline = 0.2, time.monotonic() + self.reconnect_for
                    if self.code is None and create is not None:
                        await conn.send(sign_auth(self.key, {"type": "create", **create, "name": self.name},
                                                  conn.challenge))
                    else:
                        have = len(self.writer.events) if self.writer is not None else 0
                        await conn.send(sign_auth(self.key, {"type": "join", "code": self.code, "name": self.name,
                                                             "have": have}, conn.challenge))
                    done = await self._loop(conn)
                    if done:
                        return await asyncio.to_thread(self.report)
            except (_Closed, OSError, asyncio.TimeoutError) as exc:
                if self.result is not None:
                    return await asyncio.to_thread(self.report)
                if time.monotonic() > deadline:
                    raise MalformedInput(f"lost the server at {self.url} and could not reconnect: {exc}") from None
                self.say(f"connection lost ({exc.__class__.__name__}); reconnecting…")
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def _loop(self, conn: _Connection) -> bool:
        self._sent_for = self._deal_sent_for = None
        while True:
            msg = await conn.recv()
            kind = msg.get("type")
            if kind == "room":
                self._on_room(msg)
                if msg.get("owner") and msg.get("state") == "lobby":
                    await self._owner(conn, msg)
            elif kind == "seat":
                out = await asyncio.to_thread(self._take_seat, msg)
                if out is not None:
                    await conn.send(out)
            elif kind == "line":
                await asyncio.to_thread(self._on_line, msg)
            elif kind == "result":
                if msg.get("matchId") == self.match_id:
                    self.result = dict(msg)
                    self.say(f"result: {msg.get('summary')}; points {msg.get('points')}"
                             f"{'' if msg.get('online') else ' (a match against bots: counts only locally)'}")
                    return True
            elif kind == "error":
                self.errors.append(dict(msg))
                self.say(f"server: {msg.get('error')}: {msg.get('message')}")
                if msg.get("about") == "join" and "rate limit" in str(msg.get("message")) and self.seat is None:
                    await asyncio.sleep(1.0)  # the server's per-address budget: ask again in a moment
                    await conn.send(sign_auth(self.key, {"type": "join", "code": self.code, "name": self.name,
                                                         "have": 0}, conn.challenge))
                elif msg.get("about") in ("create", "join") and self.seat is None:
                    raise MalformedInput(f"the server refused to seat this client: {msg.get('message')}")
            await self._deal_line(conn)
            if kind == "error" and msg.get("about") == "line":
                self._tries += 1
                if self._tries <= 2:
                    self._sent_for = None  # refused: try once more, then leave it to the referee's clock
                    self._drop_stale_line()
            if self._my_turn() and self.seat is not None and self.seat.view is not None \
                    and self._sent_for != self.seat.view.next_line:
                if self._sent_at != self.seat.view.next_line:
                    self._sent_at, self._tries = self.seat.view.next_line, 0
                self._sent_for = self.seat.view.next_line
                if self._last_line is not None and self._last_line.get("n") == self.seat.view.next_line:
                    await conn.send({"type": "line", "line": self._last_line})  # the same line, never a second
                else:
                    await self._move(conn)

    def _drop_stale_line(self) -> None:
        """A refused line this seat made before a break (the server's restart, its own)
        whose stamp the referee's clock no longer accepts: forgotten, so the move is made
        afresh. Safe only here: the server answers a line after it has sent this
        connection every written line, so the table still waiting for the line's number
        means the old line was never written (a seat never has two lines written for one
        number, and its secrets follow the one that is)."""
        from zkbluff.games.engine.referee import STAMP_TOLERANCE

        last, view = self._last_line, self.seat.view if self.seat is not None else None
        if last is None or view is None or last.get("n") != view.next_line:
            return
        at = last.get("at")
        if isinstance(at, (int, float)) and time.time() - at > STAMP_TOLERANCE:
            self._last_line = None

    def _on_room(self, msg: Mapping[str, Any]) -> None:
        if self.code is None:
            self.code = msg["code"]
            self.say(f"room {self.code} ({msg.get('title')}): friends join with "
                     f"`zkbluff join {self.url} {self.code}`")
        members = ", ".join(m["name"] + (" (bot)" if m["bot"] else "") + ("" if m["connected"] else " [away]")
                            for m in msg.get("members", []))
        self.say(f"room {msg.get('code')}: {msg.get('state')}; {len(msg.get('members', []))}/{msg.get('seats')} "
                 f"seats: {members}")

    async def _owner(self, conn: _Connection, msg: Mapping[str, Any]) -> None:
        members = msg.get("members", [])
        n_bots = sum(1 for m in members if m["bot"])
        if n_bots < len(self.add_bots) and len(members) < msg["seats"]:
            await conn.send({"type": "add-bot", "name": self.add_bots[n_bots]})
        elif self.autostart and len(members) == msg["seats"] and not self.started:
            self.started = True
            await conn.send({"type": "start"})

    def report(self) -> dict[str, Any]:
        """Verify this client's own copy of the transcript offline."""
        from zkbluff.games.engine.verifier import verify_transcript

        assert self.seat is not None and self.match_id is not None and self.seat.view is not None
        path = self.transcript_path(self.match_id)
        # the default trust (pinned keys, or a private set this client was given deliberately)
        report = verify_transcript(path, seat_keys={self.seat.seat: self.key.public_hex},
                                   keys_dir=Path(self.key_folder) if self.key_folder else None)
        return {"code": self.code, "matchId": self.match_id, "seat": self.seat.seat, "transcript": str(path),
                "verified": report, "result": self.result, "moves": self.moves}


class Spectator:
    """Public lines only; each one is checked by this process's own referee."""

    def __init__(self, url: str, say: Say = print, reconnect_for: float = 60.0):
        self.url, self.say, self.reconnect_for = url, say, reconnect_for
        self.view: Optional[Referee] = None
        self.events: list[dict[str, Any]] = []
        self.result: Optional[dict[str, Any]] = None

    async def watch(self, code: str, until_result: bool = True) -> dict[str, Any]:
        from websockets.asyncio.client import connect

        code = normalise_code(code)
        deadline = time.monotonic() + self.reconnect_for
        while True:
            try:
                async with connect(self.url, max_size=CLIENT_MAX_BYTES, open_timeout=10) as ws:
                    conn = _Connection(ws)
                    await conn.open()
                    await conn.send({"type": "watch", "code": code, "have": len(self.events)})
                    while True:
                        msg = await conn.recv()
                        if msg.get("type") == "line":
                            self._on_line(msg["line"])
                        elif msg.get("type") == "room":
                            self.say(f"room {msg.get('code')}: {msg.get('state')}")
                        elif msg.get("type") == "error":
                            raise MalformedInput(f"server: {msg.get('message')}")
                        elif msg.get("type") == "result":
                            self.result = dict(msg)
                            self.say(f"result: {msg.get('summary')}")
                            if until_result:
                                return {"lines": len(self.events), "result": self.result,
                                        "events": self.events}
            except (_Closed, OSError, asyncio.TimeoutError) as exc:
                if time.monotonic() > deadline:
                    raise MalformedInput(f"lost the server at {self.url}: {exc}") from None
                await asyncio.sleep(0.5)

    def _on_line(self, line: dict[str, Any]) -> None:
        if line.get("n") == 1:
            self.view, self.events = Referee(line, verify_now=True), []
        elif self.view is None or line.get("n") != self.view.next_line:
            return
        else:
            self.view.apply(line)
        self.events.append(line)
        assert self.view is not None
        if line["action"] not in ("header", self.view.spec.deal.closing):
            self.say("  " + self.view.spec.text.describe(line, self.view.seat_names))


def run(coro: Any) -> Any:
    try:
        return asyncio.run(coro)
    except ZkbluffError:
        raise
