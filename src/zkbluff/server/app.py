"""``zkbluff serve``: an asyncio WebSocket server hosting many rooms at once.

Per match the server runs the parties the trust model gives it — the referee (it checks
every line before it is written, and writes the timeouts and the end) and the dealer —
plus the house bots the owner added, each a :class:`~zkbluff.games.engine.parties.Seat` with
its own key and secrets. A person's seat lives in their client: the server gets only the
seat's public join, its message for the dealer, and its signed lines. The routing is the
engine's :class:`~zkbluff.games.engine.table.Table`; a remote seat is a
:class:`RemoteSeat` whose lines arrive over the socket and go through
:meth:`Table.submit <zkbluff.games.engine.table.Table.submit>`, and every written line is
sent to every seat and spectator.

Nothing here knows a game: the room's game is a registry name and every rule, proof,
timeout, bot and summary comes from its spec.

Data under ``--data DIR``: ``results.sqlite`` (results and leaderboard) and
``rooms/<CODE>/`` per room (``room.json``, each match's transcript ``<match>.jsonl`` and
the server's own parties' secrets beside it). A restart reloads every room and resumes
every unfinished match from its transcript.
"""
from __future__ import annotations

import asyncio
import json
import logging
import random
import shutil
import time
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

from zkbluff.errors import IllegalMove, MalformedInput, StorageError, ZkbluffError
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat, TimeLimits, limit_table, new_match_id
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.rules import Result
from zkbluff.games.engine.spec import GameSpec, check_limits, engine_floors
from zkbluff.games.engine.table import Table, may_act, secrets_path
from zkbluff.protocol.transcript import parse_chain, read_lines
from zkbluff.server.protocol import check_auth, decode, encode, error_reply, new_challenge
from zkbluff.server.results import seat_results
from zkbluff.server.rooms import MAX_MESSAGE_BYTES, Member, RateLimiter, Room, RoomLimits, RoomState, \
    new_room_code, normalise_code
from zkbluff.server.files import DataLock, DurableWriter, cut_torn_tail, private_dir, \
    raise_open_files, room_lock, write_private_json
from zkbluff.server.storage import ResultStore, SeatResult, SqliteResultStore, counts_online

log = logging.getLogger("zkbluff.server")


class RemoteSeat:
    """A seat whose party lives in a client: the server holds its public join and its
    message for the dealer, nothing else. Lines reach the client by the server's send
    loop, so :meth:`receive` has nothing to do here."""

    def __init__(self, seat: int, join: dict[str, Any], to_dealer: dict[str, Any]):
        self.seat, self._join, self._to_dealer = seat, join, to_dealer
        self.public_key = join["publicKey"]

    def join(self) -> dict[str, Any]:
        return self._join

    def to_dealer(self) -> dict[str, Any]:
        return self._to_dealer

    def receive(self, event: Mapping[str, Any], restoring: bool = False) -> None:
        return None

    def check_own(self, event: Mapping[str, Any]) -> None:
        """Nothing here: the client's own seat checks its lines (the referee checks the signature)."""
        return None

    def deal_line(self) -> None:
        """Nothing here: a remote seat makes its own deal lines (its entropy, a complaint)
        in its client, which sends each as it sends its moves; the table writes it through
        :meth:`Table.submit <zkbluff.games.engine.table.Table.submit>` and meanwhile waits
        (the deal not ready) as it waits for any seat."""
        return None


class Conn:
    """One WebSocket connection."""

    def __init__(self, ws: Any, ident: str, address: str):
        self.ws, self.ident, self.address = ws, ident, address
        self.challenge = new_challenge()
        self.public_key: Optional[str] = None
        self.host: Optional["RoomHost"] = None
        self.spectator = False
        self.sent = 0          # lines of the current match this connection has been sent
        self.seated = False    # it has been sent its seat message for the current match
        self.refusals = 0
        self.counted = False   # it holds one of its address's connections (Server.admit)
        self.shared = False    # ... also in the directory's count (Server.admit_shared)

    async def send(self, msg: Mapping[str, Any]) -> None:
        try:
            await asyncio.wait_for(self.ws.send(encode(msg)), timeout=10)
        except Exception:  # a vanished client: its handler cleans up
            pass


def _bot_client(msg: Mapping[str, Any]) -> bool:
    """A create/join's ``bot`` field (signed with it): the client says a bot plays its seat."""
    bot = msg.get("bot", False)
    if not isinstance(bot, bool):
        raise MalformedInput(f"bot: expected true or false, got {bot!r:.20}")
    return bot


def _write_json(path: Path, data: Any) -> None:
    write_private_json(path, data)  # atomic, 0600 (the parties' secrets), a typed error on a full disk


class RoomHost:
    """One room and its current match on the server."""

    def __init__(self, server: "Server", room: Room, options: dict[str, Any], folder: Path):
        self.server, self.room, self.options, self.folder = server, room, options, folder
        private_dir(folder)
        self.lock = asyncio.Lock()
        self.conns: dict[str, Conn] = {}      # public key -> its live connection
        self.spectators: set[Conn] = set()
        self.match_id: Optional[str] = None
        self.table: Optional[Table] = None
        self.joins: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
        self.bot_seats: dict[int, Seat] = {}
        self.bots: dict[int, Any] = {}
        self.bot_seeds: dict[str, int] = {}
        self.recorded: set[str] = set()
        #: a bot's answer in a calling window: (when, at which line, seat, intent)
        self.bot_call: Optional[tuple[float, int, int, Any]] = None
        self.rng = random.Random()
        #: the storage fault that paused the match (its table dropped: rebuilt from disk when
        #: the host's storage takes writes again, :meth:`recover`), and when to try next
        self.stalled: Optional[StorageError] = None
        #: the results database refused this match's result (retried by the clock)
        self.record_failed: Optional[StorageError] = None
        self.retry_at = 0.0
        #: since when nobody is connected (a lobby nobody comes back to expires)
        self.idle_since: Optional[float] = server.clock()
        #: a finished match's lines and result message, kept for spectators (released or
        #: not, a watch never rebuilds the match): (match id, lines, result)
        self._archive: Optional[tuple[str, list[dict[str, Any]], Optional[dict[str, Any]]]] = None
        #: how many times this room's match was rebuilt from its transcript
        self.restores = 0
        #: the flock on this room's folder while this server holds it (with a directory)
        self.room_lock: Optional[DataLock] = None
        #: the loop the connections live on: a line written in a worker thread is sent from it
        #: at once (:meth:`persist`), and one :meth:`push` sends at a time
        try:
            self.loop: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        self._pushing = asyncio.Lock()
        #: the table :meth:`launch` is starting (its first lines are sent as they are written)
        self._starting: Optional[Table] = None

    # ---- persistence
    def spec(self) -> GameSpec:
        return spec_for(self.room.game, self.options)

    def save(self) -> None:
        r = self.room
        _write_json(self.folder / "room.json", {
            "code": r.code, "game": r.game, "options": self.options, "owner": r.owner,
            "members": [{"name": m.name, "bot": m.is_bot, "publicKey": m.public_key, "botClient": m.bot_client}
                        for m in r.members],
            "state": r.state.value, "matchId": self.match_id, "recorded": sorted(self.recorded)})

    @property
    def transcript(self) -> Path:
        assert self.match_id is not None
        return self.folder / f"{self.match_id}.jsonl"

    def persist(self, table: Table) -> None:
        """The server's own parties' secrets beside the transcript (never sent anywhere),
        each with the number of lines it reflects."""
        lines = len(table.writer.events)
        _write_json(secrets_path(self.transcript, "referee"), {**table.referee.export(), "line": lines})
        _write_json(secrets_path(self.transcript, "dealer"), {**table.dealer.export(), "line": lines})
        for i, seat in self.bot_seats.items():
            _write_json(secrets_path(self.transcript, f"seat{i}"), {**seat.export(), "line": lines})
        loop = self.loop  # each line goes out as soon as it (and the secrets after it) is on disk
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self.push()))

    def state_message(self, to: Optional[Conn] = None) -> dict[str, Any]:
        r = self.room
        spec = self.spec()
        return {"type": "room", "code": r.code, "game": r.game, "title": spec.title, "options": dict(spec.options),
                "seats": spec.n_seats, "state": r.state.value, "matchId": self.match_id,
                "owner": to is not None and to.public_key == r.owner,
                "members": [{"name": m.name, "bot": m.is_bot, "botClient": m.bot_client,
                             "connected": m.is_bot or m.public_key in self.conns} for m in r.members]}

    async def broadcast_state(self) -> None:
        for conn in list(self.conns.values()) + list(self.spectators):
            await conn.send(self.state_message(conn))

    # ---- the match
    def _bot_policy(self, spec: GameSpec, seat: int) -> Any:
        seed = self.bot_seeds.setdefault(str(seat), random.randrange(2 ** 31))
        return spec.house_bot(seed)

    def begin(self) -> None:
        """Seat everyone for a new match: the bots make their keys and secrets here; each
        person is sent a ``seat`` message and answers with its join (:meth:`seat_join`)."""
        spec = self.spec()
        self.match_id = new_match_id()
        self.table, self.joins, self.bot_seats, self.bots, self.bot_seeds = None, {}, {}, {}, {}
        self._seat_bots(spec)
        for conn in self.conns.values():
            conn.sent, conn.seated = 0, False
        for conn in self.spectators:
            conn.sent = 0
        self.save()

    def _seat_bots(self, spec: GameSpec) -> None:
        for i, m in enumerate(self.room.members):
            if m.is_bot:
                seat = Seat(spec, i, m.name, self.server.prover(), clock=self.server.clock)
                self.bot_seats[i], self.bots[i] = seat, self._bot_policy(spec, i)
                self.joins[i] = (seat.join(), seat.to_dealer())

    def seat_of(self, public_key: Optional[str]) -> Optional[int]:
        for i, m in enumerate(self.room.members):
            if not m.is_bot and m.public_key == public_key:
                return i
        return None

    def seat_message(self, seat: int) -> dict[str, Any]:
        spec = self.spec()
        return {"type": "seat", "seat": seat, "matchId": self.match_id, "game": self.room.game,
                "options": dict(spec.options), "names": [m.name for m in self.room.members]}

    def seat_join(self, seat: int, msg: Mapping[str, Any]) -> bool:
        """Check a person's join and dealer message for ``seat``; True once every seat has joined."""
        if self.table is not None:
            raise IllegalMove("seat-join: the match has already started")
        join, to_dealer = msg.get("join"), msg.get("toDealer")
        member = self.room.members[seat]
        if not isinstance(join, dict) or join.get("type") != "join" or join.get("seat") != seat \
                or join.get("publicKey") != member.public_key or join.get("name") != member.name \
                or "deal" not in join:
            raise MalformedInput(f"seat-join: expected the engine's join for seat {seat} under this "
                                 f"connection's key and name")
        if not isinstance(to_dealer, dict) or to_dealer.get("type") != "deal-secrets" \
                or to_dealer.get("seat") != seat or to_dealer.get("to") != "dealer" or "body" not in to_dealer:
            raise MalformedInput(f"seat-join: expected the engine's deal-secrets message of seat {seat}")
        if seat in self.joins and self.joins[seat] != (join, to_dealer):
            raise IllegalMove(f"seat-join: seat {seat} already joined this match with other secrets")
        self.joins[seat] = (dict(join), dict(to_dealer))
        return len(self.joins) == len(self.room.members)

    def launch(self) -> None:
        """(In a worker thread.) All seats joined: the referee and dealer start the match."""
        spec = self.spec()
        server = self.server
        referee = RefereeParty(spec, clock=server.clock, limits=server.limits, prover=server.prover())
        dealer = Dealer(spec, server.prover(), clock=server.clock)
        seats: list[Any] = [self.bot_seats[i] if i in self.bot_seats else RemoteSeat(i, *self.joins[i])
                            for i in range(len(self.room.members))]
        writer = DurableWriter(self.transcript, overwrite=True)  # nothing of this match was written yet
        table = Table(referee, dealer, seats, writer, self.persist)
        self._starting = table  # its lines go out as they are written, before the bots' first turns
        try:
            table.start(self.match_id)
        except StorageError:
            raise  # the joins stand: the match starts once the host's storage takes writes (recover)
        except ZkbluffError:
            self.joins = {}  # a join that does not open its commitments: every seat joins again
            self._seat_bots(spec)
            raise
        finally:
            self._starting = None
        self.table = table
        self.play_bots()

    def play_bots(self) -> None:
        """(In a worker thread.) The house bots' turns, until a person is to move or the end.
        While the table waits on the clock (a calling window) a bot that wants to answer is
        given a moment in it, as a person would take (:meth:`bot_answer`, by the ticker)."""
        table = self.table
        assert table is not None
        self.bot_call = None
        while not table.over and table.to_move in self.bot_seats:
            wait = self.bot_seats[table.to_move].pause_left()
            if wait > 0:  # the rules hold all play (Mind Bluff's doubt, game 3's coin): the ticker moves it then
                self.bot_call = (self.server.clock() + wait, table.view.next_line, table.to_move, None)
                return
            if not self._bot_move(table.to_move, None):
                return
        if table.over or table.to_move is not None or not table.spec.clock_due(table.rules):
            return
        order = [i for i in self.bot_seats if may_act(table.view, i)]
        self.rng.shuffle(order)
        for i in order:
            intent = self.bots[i].act(self.bot_seats[i].observation())
            if intent is not None:
                now, deadline = self.server.clock(), table.referee.deadline
                at = now + max(0.0, deadline - now) * self.rng.uniform(0.3, 0.9)
                self.bot_call = (at, table.view.next_line, i, intent)
                return

    def _bot_move(self, i: int, intent: Any) -> bool:
        """Bot ``i``'s line for ``intent`` (its policy's choice if None): proved, saved, written."""
        table = self.table
        assert table is not None
        seat = self.bot_seats[i]
        try:
            if seat.signed_here() is not None:  # signed before a restart, never written: the same move again
                line = seat.resend()
            else:
                line = seat.move(self.bots[i].act(seat.observation()) if intent is None else intent)
        except ZkbluffError as exc:  # a bot that cannot move waits for the referee's clock
            log.warning("room %s: bot in seat %s cannot move: %s", self.room.code, i, exc)
            return False
        self.persist(table)  # the bot's pending move is saved before its line is written
        table.submit(line, seat.prover.last_seconds)
        return True

    def bot_answer(self) -> bool:
        """(In a worker thread.) A bot's answer in a calling window, once its moment has come
        and if the table is still where it was (nobody answered first, the window open)."""
        call, self.bot_call = self.bot_call, None
        table = self.table
        if call is None or table is None or table.over or table.view.next_line != call[1] \
                or not may_act(table.view, call[2]):
            return False
        if self._bot_move(call[2], call[3]):
            self.play_bots()
        return True

    def submit(self, line: dict[str, Any]) -> None:
        """(In a worker thread.) A person's signed line: checked, written, then the bots."""
        assert self.table is not None
        self.table.submit(line)
        self.play_bots()

    def poll(self) -> bool:
        """(In a worker thread.) A timeout the referee's clock has reached."""
        assert self.table is not None
        written = self.table.poll() is not None
        if written:
            self.play_bots()
        return written

    def restore(self) -> None:
        """(At start-up.) Rebuild the current match from its transcript and the server's
        parties' secrets; a match whose header was never written waits for its joins again."""
        spec = self.spec()
        path = self.transcript
        if cut_torn_tail(path):  # a last line cut short (power loss, a full disk) was never sent: written again
            log.warning("room %s: a torn last line of %s was cut back", self.room.code, path.name)
        events = list(parse_chain(read_lines(path))) if path.exists() and path.stat().st_size else []
        if not events:
            self.joins, self.bot_seats, self.bots = {}, {}, {}
            self._seat_bots(spec)
            return

        def load(party: str) -> dict[str, Any]:
            file = secrets_path(path, party)
            try:
                data = json.loads(file.read_text())
            except (OSError, ValueError) as exc:
                raise MalformedInput(f"room {self.room.code}: cannot resume without {file}: {exc}") from None
            if not isinstance(data, dict):
                raise MalformedInput(f"{file}: expected an object")
            return data

        server = self.server
        referee = RefereeParty.restore(spec, load("referee"), clock=server.clock, limits=server.limits,
                                       prover=server.prover())
        dealer = Dealer.restore(spec, load("dealer"), server.prover(), server.clock)
        self.bot_seats, self.bots = {}, {}
        saved: dict[int, int] = {}
        for i, m in enumerate(self.room.members):
            if m.is_bot:
                data = load(f"seat{i}")
                self.bot_seats[i] = Seat.restore(spec, data, server.prover(), server.clock)
                self.bots[i] = self._bot_policy(spec, i)
                saved[i] = int(data.get("line", len(events)))
        header = events[0]["data"]
        seats: list[Any] = []
        for i in range(spec.n_seats):
            if i in self.bot_seats:
                seats.append(self.bot_seats[i])
            else:
                seats.append(RemoteSeat(i, {"publicKey": header["parties"]["seats"][i]}, {}))
        for e in events:
            referee.receive(e, restoring=True)
            dealer.receive(e, restoring=True)
            for i, s in self.bot_seats.items():
                s.receive(e, restoring=e["n"] <= saved[i])
        self.table = Table(referee, dealer, seats, DurableWriter(path, events=events), self.persist)
        self.restores += 1
        self.table.advance()
        self.play_bots()

    def finish(self, retry: bool = False) -> Optional[dict[str, Any]]:
        """Record a finished match's placements and points (once); the result message. A
        results database that refuses the record does not hold the result back: the seats
        get it (``"recorded": false``, the match is whole in its transcript) and the clock
        retries the record (``retry``) until it lands."""
        table = self.table
        if table is None or not table.view.complete or self.match_id in self.recorded:
            return None
        if self.record_failed is not None and not retry:
            return None  # the result was sent; the clock retries the record
        result = table.view.result()  # the deal's own end (a forfeit, a dealer at fault) or the rules'
        assert result is not None and self.match_id is not None
        rows = self.seat_rows(result)
        message = self.result_message(result, rows)
        first = self.record_failed is None
        try:
            self.server.store.record(self.match_id, self.room.game, datetime.now(timezone.utc), rows)
        except StorageError as exc:
            self.record_failed, self.retry_at = exc, self.server.clock() + self.server.retry_every
            log.error("room %s: match %s not recorded (retrying every %.0f s): %s", self.room.code, self.match_id,
                      self.server.retry_every, exc)
            self.room.state = RoomState.FINISHED
            return {**message, "recorded": False, "notice": str(exc)[:300]} if first else None
        if not first:
            log.warning("room %s: match %s recorded after %s", self.room.code, self.match_id, self.record_failed)
        self.record_failed = None
        self.recorded.add(self.match_id)
        self.room.state = RoomState.FINISHED
        try:
            self.save()
        except StorageError as exc:  # recorded; a restart finds the record there (record() is idempotent)
            log.error("room %s: %s", self.room.code, exc)
        return message if first else None

    def stall(self, exc: StorageError) -> None:
        """A write the host's storage refused: the match pauses. Its table is dropped (the
        referee may hold a line the file does not), nothing more is sent, and the clock
        rebuilds it from the files (:meth:`recover`) once the storage takes writes again."""
        if self.stalled is None:
            log.error("room %s: match paused: %s", self.room.code, exc)
        self.stalled, self.table, self.bot_call = exc, None, None
        self.retry_at = self.server.clock() + self.server.retry_every

    def recover(self) -> bool:
        """(In a worker thread.) Try the paused match again from its files, as after a
        restart (a torn last line cut back, the parties' secrets, the bots' pending moves);
        True once it runs again."""
        self.retry_at = self.server.clock() + self.server.retry_every
        try:
            self.save()
            self.restore()
        except StorageError as exc:
            self.stalled, self.table = exc, None
            return False
        log.warning("room %s: match resumed after a storage fault (%s)", self.room.code, self.stalled)
        self.stalled = None
        return True

    def seat_rows(self, result: Result) -> list[SeatResult]:
        assert self.table is not None
        members = self.room.members
        return seat_results(result, self.table.header, [m.is_bot for m in members],
                            [m.bot_client for m in members])

    def result_message(self, result: Result, rows: list[SeatResult]) -> dict[str, Any]:
        """The result as sent: ``online`` (it counts on the leaderboard) when at least two
        seats are people (:class:`~zkbluff.server.rooms.Member`: no house bot, no client
        that said it runs a bot)."""
        assert self.table is not None
        return {"type": "result", "matchId": self.match_id, "placements": list(result.placements),
                "scores": list(result.scores), "points": [r.points for r in rows], "reason": result.reason,
                "summary": self.table.spec.summary(result, self.table.header["seats"]),
                "online": counts_online(rows)}

    def archive(self) -> Optional[tuple[list[dict[str, Any]], Optional[dict[str, Any]]]]:
        """A finished, recorded match's lines and result: from the cache, else from the
        table (rebuilt once if it was released) into the cache."""
        if self.room.state is not RoomState.FINISHED or self.match_id is None or self.match_id not in self.recorded:
            return None
        if self._archive is not None and self._archive[0] == self.match_id:
            return self._archive[1], self._archive[2]
        if self.table is None:
            self.restore()
        if self.table is None or not self.table.view.complete:
            return None
        result = self.table.view.result()
        assert result is not None
        message = self.result_message(result, self.seat_rows(result))
        self._archive = (self.match_id, list(self.table.writer.events), message)
        return self._archive[1], self._archive[2]

    async def release(self) -> None:
        """Drop a finished, recorded match nobody is connected to from memory (its parties,
        their views, its lines): its transcript, the parties' secrets and its result are
        on disk, and a member or spectator coming back rebuilds it (:meth:`restore`, as
        after a restart). A server that runs for days then holds only its live matches."""
        async with self.lock:
            if self.conns or self.spectators or self.table is None or self.room.state is not RoomState.FINISHED \
                    or self.match_id not in self.recorded:
                return
            self.table, self.bot_seats, self.bots, self.joins, self.bot_call = None, {}, {}, {}, None

    async def push(self) -> None:
        """:meth:`flush`, one at a time: called after every line written (a seat's clock takes a
        line that comes long after its stamp, on a connection it was seated on before that
        stamp, as a back-dated one: the lines a move brings, the dealer's deal and the bots'
        answers, each go out when written, not after the last of them is proved)."""
        async with self._pushing:
            await self.flush()

    async def flush(self) -> None:
        """Send every connection the lines it has not been sent yet."""
        table = self.table if self.table is not None else self._starting
        if table is None:
            return
        events = table.writer.events
        targets = [c for c in self.conns.values() if c.seated] + list(self.spectators)
        for conn in targets:
            while conn.sent < len(events):
                await conn.send({"type": "line", "matchId": self.match_id, "line": events[conn.sent]})
                conn.sent += 1


class Server:
    """The rooms, the connections and the guards."""

    def __init__(self, data: Path, key_folder: Optional[Path] = None, backend: Any = None,
                 limits: Optional[TimeLimits] = None, clock: Callable[[], float] = time.time,
                 store: Optional[ResultStore] = None, message_rate: float = 20.0, message_burst: int = 60,
                 lookup_rate: float = 2.0, lookup_burst: int = 10, tick: float = 0.2,
                 open_timeout: float = 10.0, ping_interval: float = 20.0, ping_timeout: float = 30.0,
                 room_limits: Optional[RoomLimits] = None, directory: Any = None, rooms: Optional[Path] = None):
        self.data = Path(data)
        #: the shared room directory (server/directory.py) when rooms span servers, else None
        self.directory = directory
        #: the rooms' folders: ``data/rooms``, or a folder the servers share (``--rooms``:
        #: a dead server's rooms are taken over from it, :meth:`adopt`)
        self.rooms_dir = Path(rooms) if rooms is not None else self.data / "rooms"
        self.shared_rooms = rooms is not None
        private_dir(self.rooms_dir)
        private_dir(self.data)
        self.key_folder, self.backend = key_folder, backend
        self.limits = limits or TimeLimits()
        check_limits(asdict(self.limits), engine_floors(), "zkbluff serve")  # before any room exists
        self.clock = clock
        self.store = store or SqliteResultStore(self.data / "results.sqlite")
        #: seconds between tries of a paused match (a storage fault) or of a refused record
        self.retry_every = 1.0
        self.messages = RateLimiter(message_rate, message_burst)
        self.lookups = RateLimiter(lookup_rate, lookup_burst)
        self.tick = tick
        #: a slow-loris is cut off: a handshake not done in ``open_timeout`` seconds, a
        #: connection that answers no ping (sent every ``ping_interval``) in ``ping_timeout``
        self.open_timeout, self.ping_interval, self.ping_timeout = open_timeout, ping_interval, ping_timeout
        self.rooms: dict[str, RoomHost] = {}
        #: the live servers of the directory (sent in ``hello``: where a client goes on when
        #: its server dies, to be sent to the room's new holder)
        self.peers: list[str] = []
        self._adopting = asyncio.Lock()
        self.room_limits = room_limits or RoomLimits()
        self.creates = RateLimiter(self.room_limits.create_rate, self.room_limits.create_burst, clock)
        #: connections not yet in a room, and when each opened (the sign-in deadline)
        self.unsigned: dict[Conn, float] = {}
        self.per_address: dict[str, int] = {}
        self._next_conn = 0
        self.stats = {"lines": 0, "refused": 0, "verify_s": 0.0, "proofs": 0}

    def prover(self) -> Prover:
        return Prover(self.key_folder, self.backend)

    # ---- start-up
    def load(self) -> int:
        """Reload every room under the rooms folder and resume its unfinished match. With a
        directory each room's folder is locked first (:func:`room_lock`): a room another
        live server holds (its lock taken) is left to it."""
        resumed = 0
        for file in sorted(self.rooms_dir.glob("*/room.json")):
            lock = None
            if self.directory is not None:
                lock = room_lock(file.parent)
                if lock is None:
                    continue
            loaded = self._load_room(file)
            if loaded is None:
                if lock is not None:
                    lock.release()
                continue
            host, live = loaded
            host.room_lock = lock
            self.rooms[host.room.code] = host
            resumed += live
        return resumed

    def _load_room(self, file: Path) -> Optional[tuple[RoomHost, bool]]:
        """One room from its ``room.json``, its unfinished match resumed; whether a match
        is live. ``None``: the room cannot be loaded (logged)."""
        try:
            d = json.loads(file.read_text())
            spec = spec_for(d["game"], d["options"])
            room = Room(d["code"], d["game"], d["owner"], spec.min_seats, spec.n_seats,
                        [Member(m["name"], m["bot"], m["publicKey"], bool(m.get("botClient", False)))
                         for m in d["members"]],
                        RoomState(d["state"]))
            host = RoomHost(self, room, dict(d["options"] or {}), file.parent)
            host.match_id, host.recorded = d["matchId"], set(d.get("recorded", []))
            finished = room.state is RoomState.FINISHED and host.match_id in host.recorded
            live = False
            if room.state is not RoomState.LOBBY and host.match_id and not finished:
                try:
                    host.restore()  # (a finished match is rebuilt only when someone comes back to it)
                except StorageError as exc:  # kept, paused: the clock tries it again
                    host.stall(exc)
                live = host.table is not None and not host.table.over
                host.finish()
        except (ZkbluffError, OSError, ValueError, KeyError, TypeError) as exc:
            log.error("room %s not loaded: %s", file.parent.name, exc)
            return None
        return host, live

    # ---- taking over a dead server's rooms (a shared rooms folder, a directory)
    async def adopt(self, code: str) -> Optional[RoomHost]:
        """The room ``code`` of the shared rooms folder, taken over from a server that
        died: only when its lease in the directory has lapsed, its folder's lock is free
        (the holder's process is gone: the kernel dropped its flock) and this server's
        claim of the code lands. The match resumes from its transcript and the parties'
        secrets beside it, as after a restart. ``None``: not ours to take."""
        async with self._adopting:
            if code in self.rooms:
                return self.rooms[code]
            folder = self.rooms_dir / code
            if self.directory is None or not self.shared_rooms or not (folder / "room.json").exists() \
                    or await self.directory.locate(code) is not None:
                return None
            lock = room_lock(folder)
            if lock is None:
                return None  # its server lives (its lease lapsed while Redis was away): never robbed
            try:
                loaded = await self.directory.claim(code) and await asyncio.to_thread(self._load_room,
                                                                                     folder / "room.json")
            except BaseException:
                lock.release()
                raise
            if not loaded:
                lock.release()
                return None
            host = loaded[0]
            host.room_lock = lock
            self.rooms[code] = host
            log.warning("room %s taken over from a server that stopped holding it", code)
            return host

    async def adopt_orphans(self) -> list[str]:
        """Every room of the shared rooms folder that no server holds, taken over
        (:meth:`adopt`); the live servers noted (:attr:`peers`)."""
        self.peers = await self.directory.servers()
        if not self.shared_rooms:
            return []
        codes = [p.name for p in sorted(self.rooms_dir.iterdir())
                 if p.name not in self.rooms and (p / "room.json").exists()]
        holders = await self.directory.locate_many(codes)
        return [code for code, holder in zip(codes, holders) if holder is None and await self.adopt(code)]

    async def keep_adopting(self) -> None:
        """:meth:`adopt_orphans` every ``ttl / 3`` seconds until cancelled (a Redis that is
        away: tried again at the next turn)."""
        while True:
            await asyncio.sleep(self.directory.ttl / 3)
            try:
                await self.adopt_orphans()
            except StorageError as exc:
                log.warning("taking over rooms: %s", exc)
            except Exception:  # a bug here must not stop the next turn
                log.exception("taking over rooms failed")

    def drop(self, code: str) -> None:
        """Let go of a room another server holds (found at start-up)."""
        host = self.rooms.pop(code, None)
        if host is not None and host.room_lock is not None:
            host.room_lock.release()

    # ---- the socket
    async def handler(self, ws: Any) -> None:
        self._next_conn += 1
        peer = ws.remote_address[0] if ws.remote_address else "?"
        conn = Conn(ws, f"c{self._next_conn}", str(peer))
        if not self.admit(conn) or not await self.admit_shared(conn):
            await conn.send(error_reply(MalformedInput(
                f"too many connections from this address (at most {self.room_limits.max_connections})")))
            await ws.close(1013, "too many connections from this address")
            return
        hello = {"type": "hello", "challenge": conn.challenge, "maxMessageBytes": MAX_MESSAGE_BYTES}
        await conn.send({**hello, "servers": self.peers} if self.peers else hello)
        try:
            async for raw in ws:
                await self.on_message(conn, raw)
        except Exception as exc:  # the connection dropped (mid-message, too large, ...)
            log.info("connection %s closed: %s", conn.ident, exc)
        finally:
            self.detach(conn)
            await self.detach_shared(conn)

    def admit(self, conn: Conn) -> bool:
        """A new connection under the per-address cap (it then has until the sign-in
        deadline to create, join or watch a room)."""
        n = self.per_address.get(conn.address, 0)
        if n >= self.room_limits.max_connections:
            return False
        self.per_address[conn.address] = n + 1
        conn.counted = True
        self.unsigned[conn] = self.clock()
        return True

    async def admit_shared(self, conn: Conn) -> bool:
        """With a directory, the per-address cap counts this address's connections on every
        live server (:meth:`RoomDirectory.connect
        <zkbluff.server.directory.RoomDirectory.connect>`); a refused one gives back its
        local count. While Redis is away the local cap alone holds."""
        if self.directory is None:
            return True
        try:
            shared = await self.directory.connect(conn.address, self.room_limits.max_connections)
        except StorageError as exc:  # (counted again by the directory's next refresh once it is back)
            log.warning("%s: the connection cap is this server's alone meanwhile", exc)
            shared = True
        if not shared:
            self.detach(conn)
            return False
        conn.shared = True
        return True

    async def detach_shared(self, conn: Conn) -> None:
        if not conn.shared:
            return
        conn.shared = False
        try:
            await self.directory.disconnect(conn.address)
        except StorageError as exc:  # the count is set again by the directory's next refresh
            log.warning("%s", exc)

    async def create_allowed(self, address: str) -> bool:
        """The room-creation budget of ``address``: shared by every server through the
        directory (on Redis's clock), this server's own without one or while Redis is away."""
        if self.directory is not None:
            lim = self.room_limits
            try:
                return bool(await self.directory.take("create", address, lim.create_rate, lim.create_burst))
            except StorageError as exc:
                log.warning("%s: the room-creation limit is this server's alone meanwhile", exc)
        return self.creates.allow(address)

    def detach(self, conn: Conn) -> None:
        self.messages.forget(conn.ident)
        self.unsigned.pop(conn, None)
        if conn.counted:
            conn.counted = False
            self.per_address[conn.address] -= 1
            if self.per_address[conn.address] <= 0:
                del self.per_address[conn.address]
        host = conn.host
        if host is None:
            return
        host.spectators.discard(conn)
        if conn.public_key is not None and host.conns.get(conn.public_key) is conn:
            del host.conns[conn.public_key]
            asyncio.ensure_future(host.broadcast_state())
        if not host.conns and not host.spectators:
            host.idle_since = self.clock()
            if host.table is not None:
                asyncio.ensure_future(host.release())

    def shared_connections(self) -> dict[str, int]:
        """This server's open connections per address, as the directory's count lists them
        (set again at every refresh: a count missed while Redis was away is put right)."""
        return dict(self.per_address)

    async def sweep(self) -> None:
        """The room limits' clock (by the ticker): a connection that has not created,
        joined or watched a room by the sign-in deadline is closed; a room still in its
        lobby that nobody has been connected to for ``room_expiry`` seconds is removed,
        its folder with it (nothing was played there)."""
        now, lim = self.clock(), self.room_limits
        for conn, opened in list(self.unsigned.items()):
            if conn.host is not None:
                del self.unsigned[conn]
            elif now - opened > lim.signin_timeout:
                del self.unsigned[conn]
                await conn.send(error_reply(MalformedInput(
                    f"sign-in deadline: no room created, joined or watched within {lim.signin_timeout:g} s")))
                await conn.ws.close(1008, "sign-in deadline")
        for code, host in list(self.rooms.items()):
            if host.room.state is RoomState.LOBBY and not host.conns and not host.spectators \
                    and host.idle_since is not None and now - host.idle_since > lim.room_expiry:
                async with host.lock:
                    if host.conns or host.spectators or host.room.state is not RoomState.LOBBY:
                        continue
                    del self.rooms[code]
                    shutil.rmtree(host.folder, ignore_errors=True)
                    if host.room_lock is not None:  # (after the folder is gone: nobody adopts it meanwhile)
                        host.room_lock.release()
                    log.info("room %s expired unused", code)

    async def on_message(self, conn: Conn, raw: Any) -> None:
        if not self.messages.allow(conn.ident):
            conn.refusals += 1
            await conn.send(error_reply(MalformedInput("rate limit: too many messages; slow down")))
            if conn.refusals > 200:
                await conn.ws.close(1008, "rate limit")
            return
        msg: Any = None
        try:
            msg = decode(raw)
            handler = self.HANDLERS.get(msg["type"])
            if handler is None:
                raise MalformedInput(f"unknown message type {msg['type']!r:.40}; expected one of "
                                     f"{sorted(self.HANDLERS)}")
            await handler(self, conn, msg)
        except ZkbluffError as exc:
            self.stats["refused"] += 1
            about = msg.get("type") if isinstance(msg, dict) else None
            await conn.send(error_reply(exc, about, msg.get("line") if about == "line" else None))
        except Exception as exc:  # a bug must not take the server down; the client is told
            log.exception("internal error on %s", conn.ident)
            await conn.send(error_reply(exc))

    # ---- lobby
    async def _find(self, conn: Conn, code: Any) -> Optional[RoomHost]:
        """The room a join or watch asks for, under the per-address look-up budget (shared
        by every server with a directory); ``None`` once the client was redirected to the
        server of the directory that holds it (``redirect``; the client follows)."""
        if not await self.lookup_allowed(conn.address):
            raise MalformedInput("rate limit: too many room look-ups; wait a moment")
        code = normalise_code(code)
        host = self.rooms.get(code)
        if host is not None:
            return host
        holder = None if self.directory is None else await self.directory.locate(code)
        if holder is None and self.directory is not None:
            host = await self.adopt(code)  # a room its dead server no longer holds: taken over here
            if host is not None:
                return host
        if holder is None or holder == self.directory.server_url:
            raise MalformedInput("no room with this code")
        await conn.send({"type": "redirect", "code": code, "url": holder})
        return None

    async def lookup_allowed(self, address: str) -> bool:
        """The room look-up budget of ``address`` (codes cannot be enumerated faster
        through many servers): as :meth:`create_allowed`."""
        if self.directory is not None:
            try:
                return bool(await self.directory.take("lookup", address, self.lookups.rate, self.lookups.burst))
            except StorageError as exc:
                log.warning("%s: the room look-up limit is this server's alone meanwhile", exc)
        return self.lookups.allow(address)

    def _member_host(self, conn: Conn) -> RoomHost:
        if conn.host is None or conn.spectator or conn.public_key is None:
            raise IllegalMove("join a room first")
        return conn.host

    async def _create(self, conn: Conn, msg: dict[str, Any]) -> None:
        public_key = check_auth(msg, conn.challenge)
        if conn.host is not None:
            raise IllegalMove("create: this connection is already in a room")
        if not await self.create_allowed(conn.address):
            raise MalformedInput("rate limit: too many rooms created from this address; wait a moment")
        options = msg.get("options") or None
        spec = spec_for(msg.get("game"), options)
        spec.check_limits(limit_table(spec, self.limits))  # the room's header will state these
        code = new_room_code(lambda c: c in self.rooms)
        while self.directory is not None and not await self.directory.claim(code):  # unique across servers
            code = new_room_code(lambda c: c in self.rooms)
        room = Room(code, spec.game, public_key, spec.min_seats, spec.n_seats)
        room.join(msg.get("name"), public_key, _bot_client(msg))  # type: ignore[arg-type]
        host = RoomHost(self, room, dict(spec.options), self.rooms_dir / code)
        if self.directory is not None:
            host.room_lock = room_lock(host.folder)
            if host.room_lock is None:  # (a folder of this code held by a server that lost its claim)
                raise StorageError(f"room {code}: its folder is locked by another server; create again")
        host.save()
        self.rooms[code] = host
        conn.public_key, conn.host = public_key, host
        host.conns[public_key] = conn
        await conn.send(host.state_message(conn))

    async def _join(self, conn: Conn, msg: dict[str, Any]) -> None:
        public_key = check_auth(msg, conn.challenge)
        if conn.host is not None:
            raise IllegalMove("join: this connection is already in a room")
        host = await self._find(conn, msg.get("code"))
        if host is None:
            return
        async with host.lock:
            seat = host.seat_of(public_key)
            if seat is None:
                host.room.join(msg.get("name"), public_key, _bot_client(msg))  # type: ignore[arg-type]
                host.save()
            old = host.conns.get(public_key)
            if old is not None:  # a half-dead connection of the same client: the new one wins
                old.host = None
                asyncio.ensure_future(old.ws.close(1000, "replaced by a new connection"))
            conn.public_key, conn.host = public_key, host
            host.conns[public_key] = conn
            await host.broadcast_state()
            seat = host.seat_of(public_key)
            if host.stalled is not None:  # told, kept connected: the match resumes when the storage does
                await conn.send(error_reply(host.stalled, "storage"))
                return
            if host.room.state is not RoomState.LOBBY and host.match_id is not None and seat is not None:
                if host.table is None and host.room.state is RoomState.FINISHED:
                    await asyncio.to_thread(host.restore)
                have = msg.get("have", 0)
                n_lines = len(host.table.writer.events) if host.table is not None else 0
                conn.sent = have if isinstance(have, int) and not isinstance(have, bool) and 0 <= have <= n_lines \
                    else 0
                await conn.send(host.seat_message(seat))
                conn.seated = True
                await host.push()
                result = host.finish() if host.table is not None else None
                if result is None and host.match_id in host.recorded and host.table is not None:
                    result = self._result_of(host)
                if result is not None:
                    await conn.send(result)

    def _result_of(self, host: RoomHost) -> Optional[dict[str, Any]]:
        table = host.table
        if table is None or not table.view.complete:
            return None
        result = table.view.result()  # the deal's own end (a forfeit, a dealer at fault) or the rules'
        assert result is not None
        return host.result_message(result, host.seat_rows(result))

    async def _watch(self, conn: Conn, msg: dict[str, Any]) -> None:
        if conn.host is not None:
            raise IllegalMove("watch: this connection is already in a room")
        host = await self._find(conn, msg.get("code"))
        if host is None:
            return
        conn.host, conn.spectator = host, True
        have = msg.get("have", 0)
        conn.sent = have if isinstance(have, int) and not isinstance(have, bool) and have >= 0 else 0
        host.spectators.add(conn)
        await conn.send(host.state_message(conn))
        async with host.lock:
            if host.stalled is not None:
                await conn.send(error_reply(host.stalled, "storage"))
                return
            archived = await asyncio.to_thread(host.archive)
            if archived is not None:  # a finished match: its lines and result, not the match rebuilt
                events, result = archived
                while conn.sent < len(events):
                    await conn.send({"type": "line", "matchId": host.match_id, "line": events[conn.sent]})
                    conn.sent += 1
                if result is not None:
                    await conn.send(result)
                return
            if host.table is None and host.room.state is RoomState.FINISHED and host.match_id is not None:
                await asyncio.to_thread(host.restore)
            await host.push()
            result = self._result_of(host)
            if result is not None and host.match_id in host.recorded:
                await conn.send(result)

    async def _add_bot(self, conn: Conn, msg: dict[str, Any]) -> None:
        host = self._member_host(conn)
        async with host.lock:
            name = msg.get("name") or f"house {len(host.room.members)}"
            host.room.add_bot(conn.public_key, name)  # type: ignore[arg-type]
            host.save()
        await host.broadcast_state()

    async def _remove_bot(self, conn: Conn, msg: dict[str, Any]) -> None:
        host = self._member_host(conn)
        seat = msg.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise MalformedInput(f"remove-bot: seat must be an integer, got {seat!r:.20}")
        async with host.lock:
            host.room.remove_bot(conn.public_key, seat)  # type: ignore[arg-type]
            host.save()
        await host.broadcast_state()

    async def _start(self, conn: Conn, msg: dict[str, Any]) -> None:
        host = self._member_host(conn)
        async with host.lock:
            room = host.room
            room.check_start(conn.public_key)  # type: ignore[arg-type]
            # the table is what the owner filled by Start (seed 003): the game's options
            # from the seats (Bluffers' players, Mind Bluff's human seats)
            options = {**host.options, **host.spec().table_options(room.people())}
            spec = spec_for(room.game, options)
            if len(room.members) != spec.n_seats:
                raise IllegalMove(f"start: this table has {spec.n_seats} seats, {len(room.members)} are filled")
            room.start(conn.public_key)  # type: ignore[arg-type]
            host.options = dict(spec.options)
            await self._begin(host)

    async def _again(self, conn: Conn, msg: dict[str, Any]) -> None:
        """A new match at the same table, from the last one's result (the owner's call)."""
        host = self._member_host(conn)
        async with host.lock:
            if host.room.state is not RoomState.FINISHED:
                raise IllegalMove("again: the match is not finished")
            if conn.public_key != host.room.owner:
                raise IllegalMove("again: only the room owner can start the next match")
            host.room.state = RoomState.PLAYING
            await self._begin(host)

    async def _begin(self, host: RoomHost) -> None:
        host.begin()
        await host.broadcast_state()
        for conn in list(host.conns.values()):
            seat = host.seat_of(conn.public_key)
            if seat is not None:
                await conn.send(host.seat_message(seat))
                conn.seated = True
        if len(host.joins) == len(host.room.members):  # no person to wait for
            await self._launch(host)

    async def _seat_join(self, conn: Conn, msg: dict[str, Any]) -> None:
        host = self._member_host(conn)
        async with host.lock:
            seat = host.seat_of(conn.public_key)
            if host.room.state is not RoomState.PLAYING or seat is None:
                raise IllegalMove("seat-join: no match is starting at this table")
            if host.table is not None:
                return  # a client that rejoined resends its join; the match already has it
            if host.seat_join(seat, msg):
                await self._launch(host)

    async def _launch(self, host: RoomHost) -> None:
        try:
            await asyncio.to_thread(host.launch)
        except StorageError as exc:
            await self._stall(host, exc)
            return
        except ZkbluffError as exc:  # a join that does not open its commitments: every seat joins again
            for conn in list(host.conns.values()):
                seat = host.seat_of(conn.public_key)
                await conn.send(error_reply(exc, "seat-join"))
                if seat is not None:
                    await conn.send(host.seat_message(seat))
            return
        await self._after(host)

    async def _line(self, conn: Conn, msg: dict[str, Any]) -> None:
        host = self._member_host(conn)
        line = msg.get("line")
        if not isinstance(line, dict):
            raise MalformedInput("line: expected a signed line object")
        async with host.lock:
            seat = host.seat_of(conn.public_key)
            if host.stalled is not None:
                raise type(host.stalled)(str(host.stalled))
            if host.table is None:
                raise IllegalMove("line: no match is being played at this table")
            if line.get("seat") != seat:
                raise IllegalMove(f"line: this connection holds seat {seat}; it cannot act for seat "
                                  f"{line.get('seat')!r:.10}")
            t = time.perf_counter()
            table = host.table
            n_proofs = table.view.n_proofs
            try:
                await asyncio.to_thread(host.submit, line)
            except StorageError as exc:
                await self._stall(host, exc)
                raise
            finally:
                self.stats["verify_s"] += time.perf_counter() - t
                self.stats["proofs"] += table.view.n_proofs - n_proofs
                await self._after(host)

    async def _seal(self, conn: Conn, msg: dict[str, Any]) -> None:
        """A seat's chain of sealed moves for its next turns (a game's automatic moves proved in
        advance, Bluffers): checked and kept by the referee, one played each time one of those
        turns times out (:meth:`Table.leave_seal <zkbluff.games.engine.table.Table.leave_seal>`).
        Never sent to anyone else."""
        host = self._member_host(conn)
        async with host.lock:
            seat = host.seat_of(conn.public_key)
            if host.stalled is not None:
                raise type(host.stalled)(str(host.stalled))
            if host.table is None or seat is None:
                raise IllegalMove("seal: no match is being played at this seat")
            table = host.table
            try:
                await asyncio.to_thread(self._leave_seal, host, table, seat, msg.get("seal"))
            except StorageError as exc:
                await self._stall(host, exc)
                raise
            finally:
                await self._after(host)

    @staticmethod
    def _leave_seal(host: RoomHost, table: Table, seat: int, seal: Any) -> None:
        """(In a worker thread.) The seal left with the referee; the bots' turns if it was played."""
        n = len(table.writer.events)
        table.leave_seal(seat, seal)
        if len(table.writer.events) != n:
            host.play_bots()

    async def _stall(self, host: RoomHost, exc: StorageError) -> None:
        """The host's storage refused a write: the match pauses (:meth:`RoomHost.stall`) and
        everyone at the table is told why; nothing unwritten is ever sent."""
        host.stall(exc)
        for c in list(host.conns.values()) + list(host.spectators):
            await c.send(error_reply(exc, "storage"))

    async def _retry(self, host: RoomHost) -> None:
        """The clock's turn for a paused match or a refused record: try again."""
        async with host.lock:
            if host.stalled is not None:
                if not await asyncio.to_thread(host.recover):
                    return
                # every seat reconnects, is sent what it misses and sends again the line the
                # fault refused (the same signed line, as after a restart)
                for c in list(host.conns.values()):
                    await c.ws.close(1012, "the server's storage is back: reconnect")
                await host.push()
            if host.record_failed is not None:
                await asyncio.to_thread(host.finish, True)

    async def _after(self, host: RoomHost) -> None:
        await host.push()
        result = await asyncio.to_thread(host.finish)  # (the results database commits: off the loop)
        if result is not None:
            for c in list(host.conns.values()) + list(host.spectators):
                await c.send(result)
            await host.broadcast_state()

    HANDLERS: dict[str, Callable[..., Any]] = {
        "create": _create, "join": _join, "watch": _watch, "add-bot": _add_bot, "remove-bot": _remove_bot,
        "start": _start, "again": _again, "seat-join": _seat_join, "line": _line, "seal": _seal,
    }

    # ---- the referee's clock
    async def ticker(self) -> None:
        """The referee's clock for every room: a bot's answer in a calling window when its
        moment comes, a timeout strictly after its deadline. One room's failure is logged
        and leaves the clock running for every other room."""
        while True:
            await asyncio.sleep(self.tick)
            try:
                await self.sweep()
            except Exception:  # the limits' sweep must not stop the referee's clock
                log.exception("the room limits' sweep failed")
            for host in list(self.rooms.values()):
                try:
                    await self._tick(host)
                except Exception:  # a bug in one room must not stop every room's clock
                    log.exception("room %s: the clock's turn failed", host.room.code)

    async def _tick(self, host: RoomHost) -> None:
        if (host.stalled is not None or host.record_failed is not None) and self.clock() >= host.retry_at:
            await self._retry(host)
        table = host.table
        if table is None:
            return
        call, now = host.bot_call, self.clock()
        if (call is None or now < call[0]) and now <= table.referee.deadline:
            return  # nothing due in this room (most rooms at most turns): the rules are not asked
        if table.over:
            return
        if call is not None and self.clock() >= call[0]:
            async with host.lock:
                try:
                    await asyncio.to_thread(host.bot_answer)
                except StorageError as exc:
                    await self._stall(host, exc)
                    return
                except ZkbluffError as exc:
                    log.error("room %s: a bot's answer refused: %s", host.room.code, exc)
                await self._after(host)
        if self.clock() <= table.referee.deadline:  # a timeout comes strictly after its deadline
            return
        async with host.lock:
            try:
                await asyncio.to_thread(host.poll)
            except StorageError as exc:
                await self._stall(host, exc)
                return
            except ZkbluffError as exc:
                log.error("room %s: timeout refused: %s", host.room.code, exc)
            await self._after(host)

    def close(self) -> None:
        self.store.close()


async def serve(server: Server, host: str = "127.0.0.1", port: int = 8765,
                ready: Optional[Callable[[int, int], None]] = None) -> None:
    """Load ``server``'s rooms (resuming their matches) and serve until cancelled.
    ``ready(port, resumed)`` is called once listening."""
    from websockets.asyncio.server import serve as ws_serve

    resumed = server.load()
    async with ws_serve(server.handler, host, port, max_size=MAX_MESSAGE_BYTES, open_timeout=server.open_timeout,
                        ping_interval=server.ping_interval, ping_timeout=server.ping_timeout) as ws_server:
        sockets = list(ws_server.sockets)
        keeper = None
        if server.directory is not None:  # this server's rooms listed (again) in the shared directory
            server.directory.bind(f"ws://{host}:{sockets[0].getsockname()[1]}")
            for code in await server.directory.refresh(list(server.rooms)):
                server.drop(code)  # another server holds it now (took it over): left to it
            server.peers = await server.directory.servers()
            keeper = asyncio.ensure_future(server.directory.keep(lambda: list(server.rooms),
                                                                 server.shared_connections))
            adopter = asyncio.ensure_future(server.keep_adopting())
        if ready is not None:
            ready(sockets[0].getsockname()[1], resumed)
        ticker = asyncio.ensure_future(server.ticker())
        stop: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def stopping() -> None:
            if not stop.done():
                stop.set_result(None)

        _on_sigterm(stopping)
        try:
            await stop  # until cancelled (Ctrl-C) or SIGTERM: either way the database is checkpointed
        finally:
            _on_sigterm(None)
            ticker.cancel()
            if keeper is not None:
                keeper.cancel()
                adopter.cancel()
                await server.directory.close()
            server.close()


def _on_sigterm(callback: Optional[Callable[[], Any]]) -> None:
    """SIGTERM (``systemctl stop``, ``docker stop``, ``kill``) stops the server as Ctrl-C
    does, through :meth:`Server.close`: the results database's WAL is checkpointed into
    ``results.sqlite``, so the file alone holds every result after a stop."""
    import signal

    try:
        loop = asyncio.get_running_loop()
        if callback is None:  # served: SIGTERM is the process's own again
            loop.remove_signal_handler(signal.SIGTERM)
        else:
            loop.add_signal_handler(signal.SIGTERM, callback)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
        pass


async def run_server(data: Path, host: str = "127.0.0.1", port: int = 8765,
                     ready: Optional[Callable[[int, int], None]] = None, **kwargs: Any) -> None:
    """``zkbluff serve``: a :class:`Server` on ``data``, served until cancelled. The data
    folder is locked for this process first (a second server on it exits, exit 3)."""
    lock = DataLock(data)
    raise_open_files()
    try:
        await serve(Server(data, **kwargs), host, port, ready)
    finally:
        lock.release()
