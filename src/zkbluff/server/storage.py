"""Results and the leaderboard, behind one small interface (:class:`ResultStore`): SQLite
here (the embedded default), PostgreSQL for many servers (:mod:`zkbluff.server.postgres`,
``--results postgresql://…``; :func:`open_result_store` picks one).

What counts (seed 003, "Leaderboard and seasons"):

- every finished match is recorded with each seat's place and points;
- a match with at least two real (non-bot) players is *online*: its points go to the
  worldwide leaderboard and the season (bots at the table don't stop it counting);
- a match with fewer than two real players (against bots) counts only on the player's
  own device: :meth:`ResultStore.local_total` adds it, the leaderboard never does;
- a player who left the table earns no points from that match;
- every calendar month (UTC) is a season; the season leaderboard starts empty each month;
- a tier is a badge from the season's points. The seed names the tiers (Bronze, Silver,
  Gold, Diamond) but not their thresholds; our reading, as data: :data:`TIERS`.

Points are computed by the server from the game's result, never sent by a client.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from zkbluff.errors import DamagedDatabase, MalformedInput, StorageError, StorageFull

#: (tier, the season points from which it is held), lowest first — a reading, see above
TIERS: tuple[tuple[str, int], ...] = (("Bronze", 0), ("Silver", 50), ("Gold", 150), ("Diamond", 400))

MAX_NAME = 100

log = logging.getLogger("zkbluff.server")


def tier_for(points: int) -> str:
    """The badge for a season's points (the highest tier whose threshold is reached)."""
    name = TIERS[0][0]
    for tier, threshold in TIERS:
        if points >= threshold:
            name = tier
    return name


def season_of(moment: datetime) -> str:
    """The season of a moment: its calendar month in UTC, as ``YYYY-MM``."""
    if moment.tzinfo is None:
        raise MalformedInput("a season needs an aware datetime (UTC)")
    return moment.astimezone(timezone.utc).strftime("%Y-%m")


@dataclass(frozen=True)
class SeatResult:
    """One seat's outcome. ``player`` is the stable identity (the seat's public key
    fingerprint for a person, ``bot:<name>`` for a bot)."""

    player: str
    name: str
    is_bot: bool
    place: int
    points: int
    left: bool = False  # left the table: earns nothing from this match

    def __post_init__(self) -> None:
        if not isinstance(self.player, str) or not self.player or len(self.player) > 200:
            raise MalformedInput(f"player id: expected 1..200 characters, got {self.player!r:.60}")
        check_name(self.name)
        if isinstance(self.place, bool) or not isinstance(self.place, int) or self.place < 1:
            raise MalformedInput(f"place: expected an integer >= 1, got {self.place!r}")
        if isinstance(self.points, bool) or not isinstance(self.points, int) or self.points < 0:
            raise MalformedInput(f"points: expected an integer >= 0, got {self.points!r}")

    @property
    def earned(self) -> int:
        return 0 if self.left else self.points


def check_name(name: object) -> str:
    """A display name is untrusted data: 1..100 characters, no control characters."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
        raise MalformedInput(f"name: expected 1..{MAX_NAME} characters, got {str(name)[:40]!r}")
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in name):
        raise MalformedInput("name: control characters are not allowed")
    return name


def board_filters(base: list[str], season: Optional[str], game: Optional[str],
                  mark: str) -> tuple[list[str], list[str]]:
    """The WHERE terms of a leaderboard query (``base``, then the season's and the game's
    when given, with the driver's parameter ``mark``) and their arguments: every store's."""
    where, args = list(base), []
    for column, value in (("m.season", season), ("m.game", game)):
        if value is not None:
            where.append(f"{column} = {mark}")
            args.append(value)
    return where, args


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    player: str
    name: str
    points: int
    matches: int
    tier: str


class ResultStore(ABC):
    """Where finished matches go. Implementations must make :meth:`record` atomic and
    idempotent per ``match_id`` (a retried write after a crash records nothing twice)."""

    @abstractmethod
    def record(self, match_id: str, game: str, ended: datetime, seats: Sequence[SeatResult]) -> bool:
        """Store a finished match; ``False`` if it was already stored (unchanged)."""

    @abstractmethod
    def leaderboard(self, season: Optional[str] = None, game: Optional[str] = None,
                    limit: int = 20) -> list[LeaderboardRow]:
        """Online points per player, highest first (``season`` ``YYYY-MM`` or all time)."""

    @abstractmethod
    def local_total(self, player: str) -> int:
        """Every point the player earned, bot matches included (the device's total)."""

    @abstractmethod
    def close(self) -> None: ...


def counts_online(seats: Sequence[SeatResult]) -> bool:
    """At least two real players at the table (seed 003)."""
    return sum(not s.is_bot for s in seats) >= 2


def check_seats(seats: Sequence[SeatResult]) -> None:
    """What every store refuses before it writes: no seat, or one player twice."""
    if not seats:
        raise MalformedInput("a match result needs at least one seat")
    if len({s.player for s in seats}) != len(seats):
        raise MalformedInput("a player appears twice in one match result")


def ranked(rows: Iterable[tuple[str, str, int, int]]) -> list[LeaderboardRow]:
    """Leaderboard rows from (player, name, points, matches), highest first: equal points
    share a rank; the tier follows the points."""
    out, rank, last = [], 0, None
    for i, (player, name, points, matches) in enumerate(rows, start=1):
        if points != last:  # equal points share a rank
            rank, last = i, points
        out.append(LeaderboardRow(rank, player, name, points, matches, tier_for(points)))
    return out


def open_result_store(where: Optional[str], data: Path) -> ResultStore:
    """The store ``--results`` names: a ``postgresql://`` URL (the server extra), a SQLite
    file's path, or (``None``) ``results.sqlite`` in the data folder, the default."""
    if where is None:
        return SqliteResultStore(data / "results.sqlite")
    if where.startswith(("postgresql://", "postgres://")):
        try:
            from zkbluff.server.postgres import PostgresResultStore
        except ImportError as exc:
            raise StorageError(f"--results postgresql://… needs the server extra (pip install 'zkbluff[server]'): "
                               f"{exc}") from None
        return PostgresResultStore(where)
    if "://" in where:
        raise MalformedInput(f"--results: expected postgresql://… or a SQLite file's path, got {where[:60]!r}")
    return SqliteResultStore(Path(where))


class SqliteResultStore(ResultStore):
    """One SQLite file (stdlib ``sqlite3``) in WAL mode; safe to share between threads."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS matches (
        match_id TEXT PRIMARY KEY, game TEXT NOT NULL, ended TEXT NOT NULL,
        season TEXT NOT NULL, online INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS placements (
        match_id TEXT NOT NULL REFERENCES matches(match_id), player TEXT NOT NULL,
        name TEXT NOT NULL, is_bot INTEGER NOT NULL, place INTEGER NOT NULL,
        points INTEGER NOT NULL, left_table INTEGER NOT NULL,
        PRIMARY KEY (match_id, player));
    CREATE INDEX IF NOT EXISTS placements_player ON placements(player);
    """

    def __init__(self, path: Union[str, Path]):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._closed = False
        try:  # created 0600 (it names every player's key); SQLite gives its -wal and -shm the same bits
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            os.chmod(self.path, 0o600)
        except OSError as exc:
            raise StorageError(f"results database {self.path}: {exc.strerror or exc}") from None
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._error(exc, "cannot be opened") from None
        try:
            self._check()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(self.SCHEMA)
        except sqlite3.Error as exc:
            self._db.close()
            raise self._error(exc, "cannot be opened") from None
        except StorageError:
            self._db.close()
            raise
        for extra in ("-wal", "-shm"):
            private = Path(f"{self.path}{extra}")
            if private.exists():
                os.chmod(private, 0o600)

    def _error(self, exc: sqlite3.Error, what: str) -> StorageError:
        """The typed error for a failure of SQLite's (never a traceback for the host)."""
        text = str(exc)
        if "full" in text:  # SQLITE_FULL: "database or disk is full"
            return StorageFull(f"results database {self.path} {what}: {text}; free space on its disk")
        if not isinstance(exc, sqlite3.OperationalError) and isinstance(exc, sqlite3.DatabaseError) \
                or "malformed" in text or "not a database" in text:
            return DamagedDatabase(f"results database {self.path} {what}: {text} (damaged: restore it from a "
                                   f"backup, docs/hosting.md; the transcripts under rooms/ are intact)")
        return StorageError(f"results database {self.path} {what}: {text}")

    def _check(self) -> None:
        """SQLite's own integrity check of every page, at start."""
        rows = self._db.execute("PRAGMA integrity_check").fetchall()
        if [tuple(r) for r in rows] != [("ok",)]:
            found = "; ".join(str(r[0]) for r in rows[:3])
            raise DamagedDatabase(f"results database {self.path} fails its integrity check ({found}): restore it "
                                  f"from a backup (docs/hosting.md); the transcripts under rooms/ are intact")

    def record(self, match_id: str, game: str, ended: datetime, seats: Sequence[SeatResult]) -> bool:
        check_seats(seats)
        with self._lock:
            try:
                return self._record(match_id, game, ended, seats)
            except sqlite3.Error as exc:
                raise self._error(exc, f"could not record match {match_id}") from None

    def _record(self, match_id: str, game: str, ended: datetime, seats: Sequence[SeatResult]) -> bool:
        cur = self._db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            if cur.execute("SELECT 1 FROM matches WHERE match_id = ?", (match_id,)).fetchone():
                cur.execute("ROLLBACK")
                return False
            cur.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?)",
                        (match_id, game, ended.astimezone(timezone.utc).isoformat(), season_of(ended),
                         int(counts_online(seats))))
            cur.executemany("INSERT INTO placements VALUES (?, ?, ?, ?, ?, ?, ?)",
                            [(match_id, s.player, s.name, int(s.is_bot), s.place, s.points, int(s.left))
                             for s in seats])
            cur.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                try:
                    cur.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise
        return True

    def leaderboard(self, season: Optional[str] = None, game: Optional[str] = None,
                    limit: int = 20) -> list[LeaderboardRow]:
        where, args = board_filters(["m.online = 1", "p.is_bot = 0"], season, game, "?")
        sql = (f"SELECT p.player, MAX(p.name), SUM(CASE WHEN p.left_table THEN 0 ELSE p.points END) AS pts, "
               f"COUNT(*) FROM placements p JOIN matches m USING (match_id) WHERE {' AND '.join(where)} "
               f"GROUP BY p.player ORDER BY pts DESC, p.player LIMIT ?")
        with self._lock:
            try:
                rows = self._db.execute(sql, (*args, int(limit))).fetchall()
            except sqlite3.Error as exc:
                raise self._error(exc, "could not be read") from None
        return ranked(rows)

    def local_total(self, player: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(SUM(CASE WHEN left_table THEN 0 ELSE points END), 0) "
                                   "FROM placements WHERE player = ?", (player,)).fetchone()
        return int(row[0])

    def close(self) -> None:
        """Checkpoint the WAL into the database file and close: after a stop the
        ``.sqlite`` file alone holds every result (a copy of it is a whole backup). A second
        close is a no-op (a stopping server closes from the app and from its runner)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                log.error("results database %s: checkpoint at close failed: %s", self.path, exc)
            self._db.close()
