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
from typing import Any, Callable, Mapping, Optional, Sequence

from zkbluff.errors import (
    ClockDispute, CommitmentMismatch, ForkedMatch, IllegalMove, MalformedInput, TableMismatch, TranscriptError,
    ZkbluffError,
)
from zkbluff.games.engine.compare import fork_of
from zkbluff.games.engine.header_keys import header_verifying_keys
from zkbluff.games.engine.narration import Narrator, clock_notice
from zkbluff.games.engine.parties import Prover, Seat
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.spec import GameSpec
from zkbluff.games.engine.table import may_act
from zkbluff.protocol.signing import SigningKey
from zkbluff.protocol.transcript import TranscriptWriter, canonical, line_hash, parse_chain
from zkbluff.server.expect import Expectation, check_table, describe_table
from zkbluff.server.protocol import decode, encode, sign_auth
from zkbluff.server.rooms import normalise_code
from zkbluff.server.terminal import PromptCancelled, Terminal, in_thread

#: what a client accepts from the server in one frame (a line with its proofs is a few kB)
CLIENT_MAX_BYTES = 4 * 1024 * 1024

Say = Callable[[str], None]
#: a seat's policy: (spec, observation, seat names) -> intent. It runs in a thread of its own
#: while the client keeps following the table; a policy with a ``cancel()`` method (a
#: person's prompt) is called off when the table moves on before it answers.
Policy = Callable[[GameSpec, Any, list[str]], Any]


def default_home() -> Path:
    return Path(os.environ.get("ZKBLUFF_HOME", Path.home() / ".zkbluff"))


def _write_json(path: Path, data: Any) -> None:
    """Atomic and 0600: seat.json holds the seat's identity key and hand salts."""
    from zkbluff.server.files import write_private_json

    write_private_json(path, data)


def _append_json(path: Path, record: Mapping[str, Any], sync: bool = False) -> None:
    """One canonical JSON line appended to ``path`` (a seat's own evidence file), written
    before the caller goes on (``sync``: and fsynced, for a complaint the client stops on)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(canonical(dict(record)) + "\n")
        f.flush()
        if sync:
            os.fsync(f.fileno())


def load_identity(home: Path) -> SigningKey:
    """This client's Ed25519 key (made on first use, kept in ``home/identity.json``)."""
    from zkbluff.server.files import private_dir

    private_dir(home)  # 0700: this client's key and every table's secrets
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


class PromptPolicy:
    """A person at the terminal: the game's own prompt (``spec.text.prompt``), asking through
    a :class:`~zkbluff.server.terminal.Terminal`, so that a prompt still waiting when the
    table moves on (a timeout, a calling window closed) is called off (:meth:`cancel`)."""

    def __init__(self, terminal: Terminal, say: Say):
        self.terminal, self.say = terminal, say

    def __call__(self, spec: GameSpec, obs: Any, names: list[str]) -> Any:
        return spec.text.prompt(obs, self.terminal.ask, self.say, names)

    def cancel(self) -> None:
        self.terminal.cancel()


def prompt_policy(read_line: Optional[Callable[[], str]] = None, say: Say = print,
                  show: Optional[Callable[[str], None]] = None) -> PromptPolicy:
    """A person at the terminal. ``read_line`` returns the next line typed ('' at the end
    of input; standard input by default); ``show`` prints a prompt's text (``say``)."""
    terminal = Terminal(read_line, show or say) if read_line is not None else Terminal(show=show or say)
    return PromptPolicy(terminal, say)


def _asked(spec: GameSpec, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options a host chose, without those the server sets from the seats at Start
    (:attr:`GameSpec.seat_set_options`: Bluffers' players, Mind Bluff's humans)."""
    return {k: v for k, v in options.items() if k not in spec.seat_set_options}


class _Closed(Exception):
    pass


#: a gap (seconds) in the client's own event loop (its process stopped, the machine asleep, a
#: thread holding the interpreter) after which the lines it reads are a catch-up
STALL = 1.0


class _Connection:
    """One websocket to the server. Its frames are read as they come, each with this machine's
    time (``clock``), while the client proves or checks a line: the arrival of a line that
    waited meanwhile is when it came, not when the client got to it (:meth:`recv_timed`).
    A watch ticks meanwhile: when this process did not run for :data:`STALL` s or more (its
    own stall, not the server's), :attr:`resumed_at` is when it ran again, and a line stamped
    before that may have waited for it, like a line in the catch-up after a reconnect."""

    def __init__(self, ws: Any, clock: Callable[[], float] = time.time):
        self.ws = ws
        self.clock = clock
        self.challenge = ""
        self.servers: list[str] = []
        self._inbox: Optional[asyncio.Queue[tuple[float, Any]]] = None
        self._reader: Optional[asyncio.Future[None]] = None
        self._watch: Optional[asyncio.Future[None]] = None
        self._last_tick = clock()
        #: this machine's time when this process ran again after a stall of its own (None: none)
        self.resumed_at: Optional[float] = None

    def _tick(self) -> float:
        now = self.clock()
        if now - self._last_tick > STALL:
            self.resumed_at = now
        self._last_tick = now
        return now

    async def _watching(self) -> None:
        while True:
            await asyncio.sleep(STALL / 4)
            self._tick()

    async def open(self) -> None:
        hello = await self.recv()
        if hello.get("type") != "hello" or not isinstance(hello.get("challenge"), str):
            raise MalformedInput(f"server: expected hello, got {str(hello)[:80]}")
        self.challenge = hello["challenge"]
        self.servers = lobby_servers(hello.get("servers"))

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        assert self._inbox is not None
        while True:
            try:
                raw = await self.ws.recv()
            except ConnectionClosed as exc:
                self._inbox.put_nowait((self.clock(), _Closed(str(exc))))
                return
            except Exception as exc:  # handed to the reader of the message, as recv() would raise it
                self._inbox.put_nowait((self.clock(), exc))
                return
            self._inbox.put_nowait((self._tick(), raw))

    async def recv_timed(self) -> tuple[dict[str, Any], float]:
        """The server's next message and this machine's time when its frame came."""
        if self._reader is None:
            self._inbox = asyncio.Queue()
            self._last_tick = self.clock()
            self._reader = asyncio.ensure_future(self._read())
            self._watch = asyncio.ensure_future(self._watching())
        assert self._inbox is not None
        at, raw = await self._inbox.get()
        if isinstance(raw, BaseException):
            self._inbox.put_nowait((at, raw))  # the connection is over: every later recv says so
            raise raw
        msg = json.loads(raw)
        if not isinstance(msg, dict):
            raise MalformedInput("server: expected a JSON object")
        return msg, at

    async def recv(self) -> dict[str, Any]:
        return (await self.recv_timed())[0]

    def stop(self) -> None:
        """Stop reading (the connection is left)."""
        for task in (self._reader, self._watch):
            if task is not None:
                task.cancel()

    async def send(self, msg: Mapping[str, Any]) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await self.ws.send(encode(msg))
        except ConnectionClosed as exc:
            raise _Closed(str(exc)) from None


def lobby_servers(servers: Any) -> list[str]:
    """The other servers of this lobby a ``hello`` names (where to go on if this one dies:
    the room's new holder is found through any of them); what is not a ws:// or wss://
    address is ignored, and at most 16 kept."""
    if not isinstance(servers, list) or not servers:
        return []
    try:
        from zkbluff.server.directory import check_server_url
    except ImportError:  # (no server extra here: the client stays with the server it knows)
        return []
    found = []
    for url in servers[:16]:
        try:
            found.append(check_server_url(url))
        except MalformedInput:
            continue
    return found


def next_server(url: str, servers: Sequence[str]) -> str:
    """The server after ``url`` in the lobby's list (``url`` itself if it knows no other)."""
    others = [s for s in servers if s != url]
    if not others:
        return url
    later = [s for s in others if s > url]
    return (later or others)[0]



#: seconds a client that never reached the server keeps trying before it says it cannot
#: connect (a seat coming back to its table tries for its whole reconnect window)
NEW_CLIENT_PATIENCE = 4.0
#: seconds a connected client waits for the server's hello
HELLO_SECONDS = 10.0
#: how often a client still trying says so (seconds)
STILL_TRYING_EVERY = 15.0


def server_url(url: str) -> str:
    """A server address a person typed, checked before anything connects: ws://HOST[:PORT]
    or wss://…; a web address (http://) is refused with the ws:// one to try."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # (a port that is no number raises here)
    except ValueError:
        host, scheme = None, ""
    else:
        scheme = parts.scheme.lower()
    if scheme in ("http", "https") and host:
        other = ("wss" if scheme == "https" else "ws") + url[len(scheme):]
        raise MalformedInput(f"{url[:80]!r} is a web address; a zkbluff server's address is ws://HOST:PORT "
                             f"(try {other[:80]})")
    if scheme not in ("ws", "wss") or not host:
        raise MalformedInput(f"server address: expected ws://HOST:PORT or wss://HOST:PORT, got {url[:80]!r}")
    return url


def _why(exc: BaseException) -> str:
    """Why a connection failed, in words."""
    import socket

    if isinstance(exc, ConnectionRefusedError):
        return "connection refused: nothing listens there (is `zkbluff serve` running?)"
    if isinstance(exc, socket.gaierror):
        return "no such host"
    if isinstance(exc, asyncio.TimeoutError):
        return "no answer"
    if isinstance(exc, _Closed):
        return "the server closed the connection"
    if exc.__class__.__module__.startswith("websockets"):
        return f"it does not answer as a zkbluff server ({str(exc)[:80]})"
    return str(exc)[:120] or exc.__class__.__name__


class _Retries:
    """How long a client keeps trying to reach its server, and what it says meanwhile: a
    client that never reached it gives up after :data:`NEW_CLIENT_PATIENCE` ("cannot
    connect to …"), or, coming back to its seat, tries for its whole window and says so
    once; a client whose connection dropped says "connection lost; reconnecting…" once and
    then every :data:`STILL_TRYING_EVERY` seconds, for its reconnect window."""

    def __init__(self, client: Any, say: Say, window: float, patient: bool):
        self.client, self.say, self.window = client, say, window
        self.up = self.ever = False
        self.deadline = time.monotonic() + (window if patient else min(window, NEW_CLIENT_PATIENCE))
        self.said_at: Optional[float] = None

    def connected(self) -> None:
        self.up = self.ever = True
        self.said_at = None

    def failed(self, exc: BaseException) -> None:
        """After a failed or lost connection: return to try again, or raise."""
        now = time.monotonic()
        url = self.client.url
        if self.up:  # the window to reconnect in runs from the moment the connection was lost
            self.up, self.deadline = False, now + self.window
            self.said_at = now
            self.say(f"connection lost ({_why(exc)}); reconnecting for up to {_seconds(self.window)}…")
            return
        if now > self.deadline:
            if self.ever:
                raise MalformedInput(f"lost the server at {url} and could not reconnect: {_why(exc)}") from None
            raise MalformedInput(f"cannot connect to {url}: {_why(exc)}") from None
        if self.said_at is None:
            if not self.ever and self.deadline - now > NEW_CLIENT_PATIENCE:  # (a seat coming back)
                self.say(f"cannot connect to {url} ({_why(exc)}); trying again for up to "
                         f"{_seconds(self.deadline - now)} (Ctrl-C stops)")
                self.said_at = now
        elif now - self.said_at >= STILL_TRYING_EVERY:
            self.said_at = now
            self.say(f"still trying to reach {url} ({_seconds(self.deadline - now)} left)…")


def _seconds(seconds: float) -> str:
    from zkbluff.games.engine.narration import clock_words

    return clock_words(seconds)


def _connect_errors() -> tuple[type[BaseException], ...]:
    """What a failed connection attempt raises (and is tried again)."""
    from websockets.exceptions import InvalidHandshake, InvalidMessage

    return (_Closed, OSError, asyncio.TimeoutError, InvalidHandshake, InvalidMessage, EOFError)


#: how many times a client sends its deal line again, stamped now, when the server refuses it
#: for the table line it was made for (a stamp too old by the time a busy referee took it,
#: ``line.stamp``): then the person is told, and the deal is left to the entropy limit
DEAL_LINE_TRIES = 3


class SeatClient:
    """A person's seat at a remote table."""

    def __init__(self, url: str, home: Path, name: str, policy: Policy, say: Say = print,
                 key_folder: Optional[Path] = None, backend: Any = None, reconnect_for: float = 120.0,
                 add_bots: tuple[str, ...] = (), autostart: bool = True, expect: Sequence[Expectation] = (),
                 clock: Callable[[], float] = time.time, is_bot: bool = False, start_with: Optional[int] = None):
        self.url, self.home, self.name, self.policy, self.say = server_url(url), Path(home), name, policy, say
        #: a bot chooses this seat's moves (``--bot``): the client says so in its signed
        #: create/join, and the server keeps the match off the leaderboard unless two
        #: people play in it
        self.is_bot = is_bot
        #: the owner's client starts once this many seats are filled (None: every seat)
        self.start_with = start_with
        self._conn: Optional[_Connection] = None  # the live connection (Leave Table sends on it)
        #: what this client's person expects of the table (``--expect``): checked at the seat
        #: message and again at the signed header, before anything is made or signed
        self.expect = tuple(expect)
        self.key = load_identity(self.home)
        self.key_folder, self.backend = key_folder, backend
        self.reconnect_for = reconnect_for
        #: this machine's clock (the stamps of this seat's lines; injected in tests)
        self.clock = clock
        #: the policy's answer being waited for: (the line number it is for, its future)
        self._asking: Optional[tuple[int, Any]] = None
        self._intent: Any = None  # the policy's answer being proven
        self.add_bots, self.autostart = add_bots, autostart
        self.code: Optional[str] = None
        self.seat: Optional[Seat] = None
        self.match_id: Optional[str] = None
        self.names: list[str] = []
        self.writer: Optional[TranscriptWriter] = None
        #: the match's lines in words, as every screen says them (follows every line received)
        self.narrator: Optional[Narrator] = None
        self._clock_said: set[Any] = set()  # the limits whose consequence this person was told
        self.result: Optional[dict[str, Any]] = None
        self.started = False
        self.errors: list[dict[str, Any]] = []
        self._redirects = 0  # redirects followed since a server last held this room (MAX_REDIRECTS)
        #: the lobby's servers as the last hello named them (where to go when this one dies)
        self.servers: list[str] = []
        self.moves = 0
        self._sent_for: Optional[int] = None  # the line number this client last moved at
        self._sent_at: Optional[int] = None
        self._tries = 0
        self._last_line: Optional[dict[str, Any]] = None  # the last line this seat made (sent again; remade only stale)
        self._deal_sent_for: Optional[int] = None  # the table line this seat's last deal line was made for
        self._deal_tries = 0  # the times it was sent again for that line after a refusal (DEAL_LINE_TRIES)
        self._sealed_on: Optional[_Connection] = None  # the connection this seat last left a seal on
        #: the chain of sealed moves being proved in the background: (its plan, the proving)
        self._sealing: Optional[tuple[Any, "asyncio.Future[Any]"]] = None
        #: this machine's time when the current connection seated this client (its seat message)
        self._seated_at: Optional[float] = None
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
        spec = spec_for(msg["game"], msg.get("options"))  # the game's own validation of its options
        if self.wanted is not None and (spec.game, _asked(spec, spec.options)) != (self.wanted[0],
                                                                               _asked(spec, self.wanted[1])):
            raise TableMismatch(f"the server seats this client at {spec.game} {dict(spec.options)}; it asked "
                                f"for {self.wanted[0]} {self.wanted[1]}")
        for text in describe_table(spec, self.names):
            self.say(text)
        check_table(self.expect, spec)  # before the seat makes any secret
        spec.check_seat_kind(int(msg["seat"]), not self.is_bot)  # the options set from the seats: this one too
        prover = Prover(self.key_folder, self.backend)
        saved = self._load_saved(match_id)
        self.match_id = match_id
        from zkbluff.server.files import private_dir

        private_dir(self.folder)
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
                if e is events[0]:
                    self._check_signed_table(seat, e, show=False)
            self.seat, self.narrator = seat, None
            for e in events:  # the narration follows every line, in order, from the header
                self._narrate(e, show=False)
            self.writer = TranscriptWriter(self.transcript_path(match_id), events=events)
            if events:
                self.say(f"back in seat {seat_no} of match {match_id} at line {len(events)}")
                return None
        else:
            self.seat = Seat(spec, seat_no, self.names[seat_no] if seat_no < len(self.names) else self.name,
                             prover, self.key, clock=self._stamp)
            self.narrator = None
            self.writer = TranscriptWriter(self.transcript_path(match_id), overwrite=True)
        self._save()  # the deal secrets are on disk before the join that commits to them leaves
        return self._seat_join()

    def _stamp(self) -> float:
        """The stamp of this seat's lines: this machine's clock, never before the table's
        last line (a clock a little behind the server's would otherwise be refused)."""
        view = self.seat.view if self.seat is not None else None
        head = view.head_at if view is not None and view.head_at is not None else 0.0
        return max(self.clock(), head)

    def _seat_join(self) -> dict[str, Any]:
        assert self.seat is not None
        return {"type": "seat-join", "join": self.seat.join(), "toDealer": self.seat.to_dealer()}

    def _check_header(self, spec: GameSpec, header: Mapping[str, Any]) -> None:
        """The table's verifying keys must be the ones this client proves with (a key the
        house alone made is not accepted)."""
        prover = Prover(self.key_folder, self.backend)
        data = header.get("data")
        vks = header_verifying_keys(data.get("keys") if isinstance(data, dict) else None, spec.statements())
        for key_id in spec.statements():
            if vks[key_id].fingerprint() != prover.key(key_id).vk.fingerprint():
                raise TranscriptError(f"the table's key for {key_id} is not the one this client holds: both sides "
                                      f"need the same keys (the project's pinned keys)", line=1)

    def _check_signed_table(self, seat: Seat, header: Mapping[str, Any], show: bool = True) -> None:
        """The signed header (already checked by the seat: the referee's signature, the game's
        own validation of its options, the options the seat joined, the keys this client
        trusts) shown to the person and held against what they expect, before the seat
        signs any line."""
        view = seat.view
        assert view is not None
        if show:
            for text in describe_table(view.spec, view.seat_names, header["data"], view.trust)[2:]:
                self.say(text)
        check_table(self.expect, view.spec, header["data"], view.trust)

    def _on_line(self, msg: Mapping[str, Any], arrived: Optional[float] = None) -> None:
        assert self.seat is not None and self.writer is not None
        if msg.get("matchId") != self.match_id:
            return
        line = msg.get("line")
        if not isinstance(line, dict):
            raise MalformedInput(f"server: a line message without a line object, got {str(line)[:80]}")
        self._check_fork(line)
        if line.get("n") != self.writer.next_line:
            return  # already have it (the same line: a fork was refused above)
        if line.get("n") == 1:
            self._check_header(self.seat.spec, line)
        self._receive(line, arrived)  # verified here: signature, rules, proofs, the referee's stamp against this clock
        if line.get("n") == 1:
            self._check_signed_table(self.seat, line)
        self.writer.append_event(line)
        self._save()
        self._narrate(line)

    def _narrate(self, line: Mapping[str, Any], show: bool = True) -> None:
        """The line in words, as every screen says it (:mod:`zkbluff.games.engine.narration`)."""
        assert self.seat is not None
        if self.narrator is None or self.narrator.spec is not self.seat.spec:
            self.narrator = Narrator(self.seat.spec, viewer=self.seat.seat)
        said = self.narrator.lines(line)
        if show:
            for i, text in enumerate(said):
                self.say(("  " if i == 0 else "    ") + text)

    def received_path(self, match_id: str) -> Path:
        return self.folder / f"{match_id}.received.jsonl"

    def disputes_path(self, match_id: str) -> Path:
        return self.folder / f"{match_id}.disputes.jsonl"

    def _receive(self, line: Mapping[str, Any], arrived: Optional[float] = None) -> None:
        """The seat follows ``line`` (checking the referee's stamp against this machine's
        clock when the line came, ``arrived``, and whether it came live or in the catch-up
        after this connection seated it); its receive time goes to ``<match>.received.jsonl``
        beside the transcript copy, or, refused on this clock (:class:`ClockDispute`), its
        complaint to ``<match>.disputes.jsonl`` before the error stops the client."""
        assert self.seat is not None and self.match_id is not None
        self.seat.receive_clock = self.clock  # this machine's clock, never the stamp clamped to the table's
        try:
            self.seat.receive(line, arrived=arrived)
        except ClockDispute as dispute:
            _append_json(self.disputes_path(self.match_id), {**dispute.complaint, "matchId": self.match_id,
                                                             "seat": self.seat.seat, "server": self.url,
                                                             "lineReceived": dict(line)}, sync=True)
            dispute.args = (f"{dispute.args[0]} (the complaint is kept in {self.disputes_path(self.match_id)})",)
            raise
        n = int(line["n"])
        _append_json(self.received_path(self.match_id), {"n": n, "hash": line_hash(canonical(dict(line))),
                                                          "receivedAt": self.seat.received_at[n]})

    def _check_fork(self, line: Mapping[str, Any]) -> None:
        """Stop at a line that forks from this seat's copy (a second, different line for a
        number it holds, or the next line chained to another line than its last): the
        house is showing this seat another history. Both signed lines are kept beside the
        transcript copy (``<match>.fork-<n>.json``) before :class:`ForkedMatch` is raised."""
        assert self.writer is not None and self.seat is not None
        fork = fork_of(self.writer.events, line)
        if fork is None:
            return
        path = self.folder / f"{self.match_id}.fork-{fork.line}.json"
        evidence = fork.to_json()
        _write_json(path, {**evidence, "matchId": self.match_id, "code": self.code, "server": self.url,
                           "seat": self.seat.seat, "seenAt": time.time()})
        raise ForkedMatch(f"{fork.describe()}; both signed lines are kept in {path} (hold your copy "
                           f"against another with `zkbluff transcript compare`)", line=fork.line,
                           evidence=evidence, saved=str(path))

    def sent_path(self, match_id: str) -> Path:
        return self.folder / f"{match_id}.sent.jsonl"

    async def _send_line(self, conn: _Connection, line: Mapping[str, Any]) -> None:
        """Send a line this seat signed, first noting it (with this machine's time) in
        ``<match>.sent.jsonl`` beside the transcript copy: a seat's evidence of what it signed
        and when it sent it, whether or not the table wrote it (a complaint or a move the
        house left out for a timeout, docs/timeouts-and-complaints.md)."""
        if self.match_id is not None:
            with open(self.sent_path(self.match_id), "a", encoding="utf-8") as f:
                f.write(json.dumps({"sentAt": self.clock(), "line": line}, sort_keys=True, separators=(",", ":"))
                        + "\n")
        await conn.send({"type": "line", "line": line})

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
        if self._deal_sent_for is not None and self._deal_sent_for != line["n"]:
            self._deal_tries = 0  # a new table line: its own tries
        self._deal_sent_for = line["n"]
        await self._send_line(conn, line)

    def _deal_refused(self, msg: Mapping[str, Any]) -> None:
        """The server refused a line at the number this seat's deal line was made for, and no
        line has taken that number: the deal line is made again (:meth:`Seat.deal_line` sends
        the line it signed there again, re-stamped by :meth:`Seat.resend`, never a new one), up
        to :data:`DEAL_LINE_TRIES` times; then the person is told why it was refused. (Its
        refusal when a rival's line took the number needs nothing: that line brings this one
        again, remade for the next number.)"""
        view = self.seat.view if self.seat is not None else None
        n = msg.get("n", self._deal_sent_for)
        if view is None or self._deal_sent_for is None or n != self._deal_sent_for \
                or view.next_line != self._deal_sent_for:
            return
        if self._deal_tries >= DEAL_LINE_TRIES:
            if self._deal_tries == DEAL_LINE_TRIES:
                self._deal_tries += 1
                self.say(f"  the server refused this seat's deal line {n} {DEAL_LINE_TRIES + 1} times "
                         f"({msg.get('code')}: {msg.get('message')}); it is not sent again, and the "
                         f"table's entropy limit decides")
            return
        self._deal_tries += 1
        self._deal_sent_for = None  # sent again by _deal_line, stamped now

    async def _seal(self, conn: _Connection) -> None:
        """This seat's chain of sealed moves for its next turns, when its hand changed (a game
        whose automatic move needs the seat's own proof, Bluffers), left with the referee,
        which plays one each time one of those turns times out (the seed: "If your connection
        drops ... a move is played for you automatically"). The chain is planned here and
        proved in the background (:meth:`_loop` waits on it beside the server and the
        policy; :meth:`_sealed` leaves it), so its proofs never hold up this seat's move: they
        are not the seat's 30 seconds. On a new connection, the chain still standing is left
        again (the referee may never have got it)."""
        seat = self.seat
        if seat is None or seat.view is None or self._sealing is not None:
            return
        plan = seat.spec.plan_seal(seat)
        if plan is not None:
            self._sealing = (plan, asyncio.ensure_future(asyncio.to_thread(seat.spec.prove_seal, plan)))
            return
        if self._sealed_on is not conn:  # a new connection: the one it made, once again
            seal = seat.spec.pending_seal(seat)
            if seal is not None:
                self._sealed_on = conn
                await conn.send({"type": "seal", "seal": seal})

    async def _sealed(self, conn: _Connection) -> None:
        """The chain proved in the background: kept with the seat's secrets (saved first) and
        left with the referee, unless the seat moved on meanwhile (its hand changed, or a line
        of its own is on its way: then it is planned again for the hand it holds)."""
        assert self._sealing is not None
        plan, proving = self._sealing
        self._sealing = None
        seat = self.seat
        try:
            proved = proving.result()
        except ZkbluffError as exc:  # no seal: its next turn falls back to the timeout
            self.say(f"  could not seal the automatic move for the next turn: {exc}")
            return
        if seat is None or seat.view is None:
            return
        if self._last_line is not None and self._last_line.get("n", -1) >= seat.view.next_line:
            return  # its own line is on its way (its hand is about to change): planned again when it is back
        chain = seat.spec.adopt_seal(seat, plan, proved)
        if chain is None:
            await self._seal(conn)  # stale: the hand it holds now
            return
        await asyncio.to_thread(self._save)
        self._sealed_on = conn
        await conn.send({"type": "seal", "seal": chain})

    def _make_deal_line(self, seat: Seat) -> Optional[dict[str, Any]]:
        """(In a worker thread: it may prove, and it writes.) The seat's deal line due now,
        saved with what it commits to (its hand) before it leaves; None when none is due."""
        complaint = seat.complaint
        line = seat.deal_line()
        if complaint is not None:  # kept until its line is written (the match then ends, and no line is due)
            seat.complaint = complaint
        if line is not None:
            self._save()  # what the seat committed to in the line (its hand) is on disk before the line leaves
        return line

    def _ask(self) -> None:
        """Ask the policy for this seat's move at the table's next line, in a thread of its
        own: the client goes on following the table meanwhile (:meth:`_loop`)."""
        seat = self.seat
        assert seat is not None and seat.view is not None
        if getattr(self.policy, "cancel", None) is not None:  # a person: the time left, and what happens then
            notice = clock_notice(seat.spec, seat.view, seat.seat, self.clock(), self._clock_said)
            if notice:
                self.say("  " + notice)
        self._asking = (seat.view.next_line, in_thread(self.policy, seat.spec, seat.observation(),
                                                        list(seat.view.seat_names)))

    def _drop_stale_prompt(self, force: bool = False) -> None:
        """Call off the policy's question if the table moved on (a line written meanwhile,
        a calling window closed: its answer would be for a table that no longer is), or
        (``force``) because this connection ends."""
        if self._asking is None:
            return
        at, future = self._asking
        if not force and self.seat is not None and self.seat.view is not None and \
                self.seat.view.next_line == at and self._my_turn():
            return
        self._asking = None
        if future.done():
            if not future.cancelled():
                future.exception()  # answered too late: dropped
        else:
            future.cancel()
            cancel = getattr(self.policy, "cancel", None)
            if cancel is not None:
                cancel()
                if not force:
                    last = self.writer.events[-1] if self.writer is not None and self.writer.events else {}
                    timed_out = last.get("action") == "timeout" and self.seat is not None and \
                        (last.get("data") or {}).get("seat") == self.seat.seat
                    self.say("  (time is up: your prompt was withdrawn)" if timed_out
                             else "  (the table moved on; your prompt was called off)")

    async def _decided(self, conn: _Connection, at: int, future: Any) -> None:
        """The policy answered for line ``at``: prove the move here and send it, or ask
        again if it is refused (a typo at the prompt, a move the rules do not allow)."""
        seat = self.seat
        assert seat is not None and seat.view is not None
        if seat.view.next_line != at:
            if not future.cancelled():
                future.exception()  # an answer for a table that moved on: dropped, whatever it was
            return
        try:
            intent = future.result()
        except PromptCancelled:
            return
        except (IllegalMove, MalformedInput) as exc:
            self.say(f"  not allowed: {exc}")
            self._ask()
            return
        if intent is None and seat.view.rules.to_move is None:
            return  # a calling window this seat lets pass
        self._intent = intent
        await self._move(conn)

    async def _move(self, conn: _Connection) -> None:
        """Prove and send this seat's move for the intent its policy gave (``_intent``), at
        the table's next line; if the rules refuse it, say why and ask again. (A hook: the
        server load benchmark times it.)"""
        seat = self.seat
        assert seat is not None
        if seat.signed_here() is not None:  # signed here already (files from before a break): that line, re-stamped,
            line = seat.resend()             # not the policy asked again (Seat.move would refuse it every time)
            self._last_line = line
            self._save()
            await self._send_line(conn, line)
            return
        await self._wait_out_pause(seat)
        try:
            line = await asyncio.to_thread(seat.move, self._intent)  # the table's lines wait meanwhile
        except (IllegalMove, MalformedInput) as exc:
            self.say(f"  not allowed: {exc}")
            self._ask()
            return
        self._last_line = line
        await asyncio.to_thread(self._save)  # the pending move is saved before the line leaves
        self.moves += 1
        await self._send_line(conn, line)

    @staticmethod
    async def _wait_out_pause(seat: Seat) -> None:
        """Hold this seat's move while the rules hold all play (Mind Bluff: 4.5 s after a
        doubt, game 3's 10-second coin), by this machine's clock: a line made inside would be
        refused (``move.paused``). In short steps, so an injected clock moved on ends it too."""
        while (left := seat.pause_left()) > 0:
            await asyncio.sleep(min(left, 0.05))

    async def leave_table(self) -> None:
        """Leave the table now (Bluffers: "you earn no points from that match"; the seat
        is played automatically to the end, its client still making what only it can).
        Raises :class:`IllegalMove` where the game has no Leave Table or no match is on."""
        seat, conn = self.seat, self._conn
        if seat is None or seat.view is None or conn is None:
            raise IllegalMove("leave table: no match is being played at this seat")
        intent = seat.spec.leave_intent()
        if intent is None:
            raise IllegalMove(f"leave table: {seat.spec.title} has no Leave Table")
        self._drop_stale_prompt(force=True)
        self._intent = intent
        await self._move(conn)

    # ---- the session
    async def host(self, game: str, options: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        """Create a room for ``game``, add the bots, start when full, play it to its end."""
        spec = spec_for(game, options or None)  # an unknown game or option is refused before connecting
        self.wanted = (spec.game, dict(spec.options))
        return await self._session(create={"game": game, "options": options or {}})

    async def join(self, code: str) -> dict[str, Any]:
        self.code = normalise_code(code)
        return await self._session()

    def _kind(self) -> dict[str, Any]:
        return {"bot": True} if self.is_bot else {}

    async def _session(self, create: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        from websockets.asyncio.client import connect

        # a client with a seat at this table keeps trying for reconnect_for; a new one gives up sooner
        resuming = self.code is not None and (self.home / "tables" / self.code / "seat.json").exists()
        retries = _Retries(self, self.say, self.reconnect_for, patient=resuming)
        delay = 0.2
        while True:
            try:
                async with connect(self.url, max_size=CLIENT_MAX_BYTES, open_timeout=10) as ws:
                    conn = _Connection(ws, self.clock)
                    await asyncio.wait_for(conn.open(), HELLO_SECONDS)
                    delay = 0.2
                    retries.connected()
                    self.servers = conn.servers or self.servers
                    if self.code is None and create is not None:
                        await conn.send(sign_auth(self.key, {"type": "create", **create, "name": self.name,
                                                             **self._kind()}, conn.challenge))
                    else:
                        have = len(self.writer.events) if self.writer is not None else 0
                        await conn.send(sign_auth(self.key, {"type": "join", "code": self.code, "name": self.name,
                                                             "have": have, **self._kind()}, conn.challenge))
                    done = await self._loop(conn)
                    if done:
                        return await asyncio.to_thread(self.report)
            except _connect_errors() as exc:
                if self.result is not None:
                    return await asyncio.to_thread(self.report)
                retries.failed(exc)
                if isinstance(exc, OSError) and self.servers:  # nobody listens there: ask another server
                    self.url, self._redirects = next_server(self.url, self.servers), 0
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def _loop(self, conn: _Connection) -> bool:
        """Follow the table until the result (True). Two things are awaited at once: the
        server's next message and, while this seat is asked for a move, its policy's answer,
        so a person thinking at the prompt never holds up the lines (a timeout, the
        automatic move the seat owes after it, the end)."""
        self._sent_for = self._deal_sent_for = None
        self._deal_tries = 0
        self._asking = None
        self._conn = conn
        receiving = asyncio.ensure_future(conn.recv_timed())
        try:
            while True:
                waits: set["asyncio.Future[Any]"] = {receiving}
                if self._asking is not None:
                    waits.add(self._asking[1])
                if self._sealing is not None:
                    waits.add(self._sealing[1])
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if receiving.done():
                    msg, arrived = receiving.result()
                    receiving = asyncio.ensure_future(conn.recv_timed())
                    if await self._on_message(conn, msg, arrived):
                        return True
                    self._drop_stale_prompt()
                    await self._turn(conn, msg)
                if self._asking is not None and self._asking[1].done():
                    at, future = self._asking
                    self._asking = None
                    await self._decided(conn, at, future)
                if self._sealing is not None and self._sealing[1].done():
                    await self._sealed(conn)
        finally:
            receiving.cancel()
            conn.stop()
            self._drop_stale_prompt(force=True)

    async def _on_message(self, conn: _Connection, msg: Mapping[str, Any], arrived: Optional[float] = None) -> bool:
        """One message from the server (its frame came at ``arrived`` on this machine's clock),
        checked and followed; True at this match's result."""
        kind = msg.get("type")
        if kind == "room":
            self._redirects = 0  # this server holds the room
            self._on_room(msg)
            if msg.get("owner") and msg.get("state") == "lobby":
                await self._owner(conn, msg)
        elif kind == "seat":
            # this connection seats it now: a line stamped later is pushed live; an earlier one
            # may come in the catch-up that follows (Seat.connected_at)
            self._seated_at = self.clock() if arrived is None else arrived
            out = await asyncio.to_thread(self._take_seat, msg)
            if self.seat is not None:
                self.seat.connected_at = self._seated_at
            if out is not None:
                await conn.send(out)
        elif kind == "line":
            resumed, seat = getattr(conn, "resumed_at", None), self.seat
            if resumed is not None and seat is not None and (seat.connected_at or 0.0) < resumed:
                seat.connected_at = resumed  # this process stopped meanwhile: what waited for it is a catch-up
            await asyncio.to_thread(self._on_line, msg, arrived)
        elif kind == "redirect":
            await self._follow(conn, msg)
        elif kind == "result":
            if msg.get("matchId") == self.match_id:
                self.result = dict(msg)
                points = msg.get("points")
                names = self.names or (list(self.seat.view.seat_names) if self.seat and self.seat.view else [])
                if isinstance(points, list):  # each seat's points by its name, not a bare list
                    points = ", ".join(f"{names[i] if i < len(names) else f'seat {i}'} {p} point"
                                       f"{'s' if p != 1 else ''}" for i, p in enumerate(points))
                self.say(f"result: {msg.get('summary')}; points: {points}"
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
        return False

    async def _follow(self, conn: _Connection, msg: Mapping[str, Any]) -> None:
        """The room is on another server of the same lobby: go there (the connection closes;
        the session reconnects to the new address and joins again)."""
        self.url = follow_redirect(msg, self.code, self.say, self._redirects)
        self._redirects += 1
        await conn.ws.close()

    async def _turn(self, conn: _Connection, msg: Mapping[str, Any]) -> None:
        """After a message: this seat's deal line if one is due, and its move if it is to
        move (the line it already made for this number again, else the policy is asked)."""
        if msg.get("type") == "error" and msg.get("about") == "line":
            self._deal_refused(msg)
        await self._deal_line(conn)
        if msg.get("type") == "error" and msg.get("about") == "line":
            if msg.get("error") == "PausedMove":  # the referee's clock is behind this machine's: a moment later
                await asyncio.sleep(0.25)
            else:
                self._tries += 1
            if self._tries <= 2:
                self._sent_for = None  # refused: try once more, then leave it to the referee's clock
                self._drop_stale_line(msg)
            elif self._tries == 3 and msg.get("code") == "line.stamp":
                self._tries += 1
                self.say(f"  the server refused this seat's line {msg.get('n', '')} again as stale "
                         f"({msg.get('message')}); it is not sent again, and the table's clock decides")
        view = self.seat.view if self.seat is not None else None
        if self._asking is None and self._my_turn() and view is not None and self._sent_for != view.next_line:
            if self._sent_at != view.next_line:
                self._sent_at, self._tries = view.next_line, 0
            self._sent_for = view.next_line
            if self._last_line is not None and self._last_line.get("n") == view.next_line:
                await self._send_line(conn, self._last_line)  # the same line, never a second
            else:
                self._ask()
        await self._seal(conn)  # planned here, proved in the background: never before the move

    def _drop_stale_line(self, refused: Optional[Mapping[str, Any]] = None) -> None:
        """A refused line this seat made (before a break, or held back by the server) whose
        stamp the referee's clock no longer accepts (by this machine's clock, or the server's
        refusal says so: ``line.stamp`` for this line's number, a referee that took it late or
        whose clock runs ahead): the same move, re-stamped
        (:meth:`Seat.resend <zkbluff.games.engine.parties.Seat.resend>`), never a new one.
        While no line has landed at its number the seat signs no other move there, so a
        house that calls a line stale and asks again never holds two signed moves for one
        line."""
        from zkbluff.games.engine.referee import STAMP_TOLERANCE

        last, view = self._last_line, self.seat.view if self.seat is not None else None
        if last is None or view is None or last.get("n") != view.next_line:
            return
        at = last.get("at")
        said_stale = refused is not None and refused.get("code") == "line.stamp" \
            and refused.get("n", last.get("n")) == last.get("n")
        if said_stale or isinstance(at, (int, float)) and time.time() - at > STAMP_TOLERANCE:
            assert self.seat is not None
            try:
                self._last_line = self.seat.resend()
            except IllegalMove:  # a seat file from before seats kept their signed line: left to the clock
                return
            self._save()

    def _on_room(self, msg: Mapping[str, Any]) -> None:
        if self.code is None:
            self.code = msg["code"]
            self.say(f"room {self.code} ({msg.get('title')}): friends join with "
                     f"`zkbluff join {self.url} {self.code}`")
        members = ", ".join(m["name"] + (" (bot)" if m["bot"] else "") + ("" if m["connected"] else " [away]")
                            for m in msg.get("members", []))
        news = f"room {msg.get('code')}: {msg.get('state')}; {len(msg.get('members', []))}/{msg.get('seats')} " \
            f"seats: {members}"
        terminal = getattr(self.policy, "terminal", None)
        if isinstance(terminal, Terminal):  # a person: never written over the prompt they are answering
            terminal.say_between(self.say, news)
        else:
            self.say(news)

    async def _owner(self, conn: _Connection, msg: Mapping[str, Any]) -> None:
        members = msg.get("members", [])
        n_bots = sum(1 for m in members if m["bot"])
        if n_bots < len(self.add_bots) and len(members) < msg["seats"]:
            await conn.send({"type": "add-bot", "name": self.add_bots[n_bots]})
        elif self.autostart and len(members) >= min(msg["seats"], self.start_with or msg["seats"]) \
                and not self.started and msg.get("state") == "lobby":
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
        if self.result is not None:
            check_result_message(self.result, report)
        return {"code": self.code, "matchId": self.match_id, "seat": self.seat.seat, "transcript": str(path),
                "verified": report, "result": self.result, "moves": self.moves}


def check_result_message(message: Mapping[str, Any], report: Mapping[str, Any]) -> None:
    """The server's ``result`` message against the seat's own verified copy: its placements
    and scores must be the ones the copy's end line gives, its points seed 003's table for
    them (the server computes points; the client checks them). :class:`TranscriptError`
    (exit 1, code ``result.mismatch``) if not."""
    from zkbluff.server.results import place_points

    result = report.get("result")
    if result is None:
        raise TranscriptError(f"the server sent a result ({message.get('summary')}) for a match this seat's copy "
                              f"does not show finished", code="result.mismatch")
    placements, scores = list(result.placements), list(result.scores)
    try:
        points = [place_points(len(placements), place) for place in placements]
    except MalformedInput:
        points = None
    got = (message.get("placements"), message.get("scores"), message.get("points"))
    if got != (placements, scores, points):
        raise TranscriptError(f"the server's result (placements {got[0]}, scores {got[1]}, points {got[2]}) is not "
                              f"what this seat's verified copy gives (placements {placements}, scores {scores}, "
                              f"points {points})", code="result.mismatch")


#: redirects a client follows in a row before it gives up (servers that send it round)
MAX_REDIRECTS = 3


def follow_redirect(msg: Mapping[str, Any], code: Any, say: Say, followed: int) -> str:
    """The address a ``redirect`` sends this client to, checked: for this room, ws:// or
    wss://, and not one too many. The other server is no more trusted than the first: the
    seat checks its table, header and lines there exactly as here."""
    from zkbluff.server.directory import check_server_url

    if followed >= MAX_REDIRECTS:
        raise MalformedInput(f"room {code}: sent on more than {MAX_REDIRECTS} times; the servers disagree where it is")
    if msg.get("code") != code:
        raise MalformedInput(f"redirect for room {str(msg.get('code'))[:20]!r}, not this room {code}")
    url = check_server_url(msg.get("url"))
    say(f"room {code} is held by {url}: following")
    return url


class Spectator:
    """Public lines only; each one is checked by this process's own referee."""

    def __init__(self, url: str, say: Say = print, reconnect_for: float = 60.0):
        self.url, self.say, self.reconnect_for = server_url(url), say, reconnect_for
        self.servers: list[str] = []  # the lobby's servers as the last hello named them
        self.view: Optional[Referee] = None
        self.events: list[dict[str, Any]] = []
        self.match_id: Any = None
        self.result: Optional[dict[str, Any]] = None
        self.narrator: Optional[Narrator] = None

    async def watch(self, code: str, until_result: bool = True) -> dict[str, Any]:
        from websockets.asyncio.client import connect

        code = normalise_code(code)
        retries, redirects = _Retries(self, self.say, self.reconnect_for, patient=False), 0
        while True:
            try:
                async with connect(self.url, max_size=CLIENT_MAX_BYTES, open_timeout=10) as ws:
                    conn = _Connection(ws)
                    await asyncio.wait_for(conn.open(), HELLO_SECONDS)
                    retries.connected()
                    self.servers = conn.servers or self.servers
                    await conn.send({"type": "watch", "code": code, "have": len(self.events)})
                    while True:
                        msg = await conn.recv()
                        if msg.get("type") == "line":
                            self._on_line(msg.get("line"), msg.get("matchId"))
                        elif msg.get("type") == "room":
                            self.say(f"room {msg.get('code')}: {msg.get('state')}")
                        elif msg.get("type") == "redirect":
                            self.url = follow_redirect(msg, code, self.say, redirects)
                            redirects += 1
                            break
                        elif msg.get("type") == "error":
                            raise MalformedInput(f"server: {msg.get('message')}")
                        elif msg.get("type") == "result":
                            self.result = dict(msg)
                            self.say(f"result: {msg.get('summary')}")
                            if until_result:
                                return {"lines": len(self.events), "result": self.result,
                                        "events": self.events}
            except _connect_errors() as exc:
                retries.failed(exc)
                if isinstance(exc, OSError) and self.servers:  # nobody listens there: ask another server
                    self.url, redirects = next_server(self.url, self.servers), 0
                await asyncio.sleep(0.5)

    def _on_line(self, line: Any, match_id: Any = None) -> None:
        """Check and follow one public line. A line of the match being watched that forks
        from the lines already followed raises :class:`ForkedMatch` (the evidence on the
        exception); a header of another match starts following that one."""
        if not isinstance(line, dict):
            raise MalformedInput(f"server: a line message without a line object, got {str(line)[:80]}")
        if match_id == self.match_id:
            fork = fork_of(self.events, line)
            if fork is not None:
                raise ForkedMatch(fork.describe(), line=fork.line, evidence=fork.to_json())
        if line.get("n") == 1 and (match_id != self.match_id or not self.events):
            self.view, self.events, self.match_id = Referee(line, verify_now=True), [], match_id
            self.narrator = Narrator(self.view.spec, viewer=None)
        elif self.view is None or line.get("n") != self.view.next_line:
            return
        else:
            self.view.apply(line)
        self.events.append(line)
        assert self.view is not None and self.narrator is not None
        for i, text in enumerate(self.narrator.lines(line)):  # the same words as every screen's
            self.say(("  " if i == 0 else "    ") + text)


def run(coro: Any) -> Any:
    try:
        return asyncio.run(coro)
    except ZkbluffError:
        raise
