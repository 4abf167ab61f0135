"""Results and the leaderboard in PostgreSQL (``zkbluff serve --results postgresql://…``):
the :class:`~zkbluff.server.storage.ResultStore` that many servers share (docs/scale-out.md).

The same rules as SQLite's store (seed 003: online matches, monthly seasons, tiers; see
:mod:`zkbluff.server.storage`), in one schema (``zkbluff``) brought up to date by
:data:`MIGRATIONS` under an advisory lock, so servers starting together migrate once.

A match is recorded once: its row is inserted with ``ON CONFLICT DO NOTHING`` in the same
transaction as its placements, so two servers ending the same match at once (or a retry
after a commit whose answer was lost) leave one row and one of them is told ``False``.
A database that cannot be reached raises :class:`~zkbluff.errors.StorageError`; the server
keeps the result and retries the record every second until it lands (server/app.py).

Needs the ``server`` extra (``psycopg`` 3); imported only for a
``postgresql://`` store (:func:`zkbluff.server.storage.open_result_store`).
"""
from __future__ import annotations

import contextlib
import logging
import threading
from datetime import datetime, timezone
from typing import Any, Iterator, Optional, Sequence

import psycopg
from psycopg.conninfo import conninfo_to_dict

from zkbluff.errors import DamagedDatabase, StorageError, StorageFull
from zkbluff.server.storage import (LeaderboardRow, ResultStore, SeatResult, board_filters, check_seats, counts_online,
                                    ranked, season_of)

log = logging.getLogger("zkbluff.server")

#: the schema, one step per version (append only: a released step is never edited)
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE zkbluff.matches (
        match_id TEXT PRIMARY KEY, game TEXT NOT NULL, ended TIMESTAMPTZ NOT NULL,
        season TEXT NOT NULL, online BOOLEAN NOT NULL);
    CREATE TABLE zkbluff.placements (
        match_id TEXT NOT NULL REFERENCES zkbluff.matches(match_id), player TEXT NOT NULL,
        name TEXT NOT NULL, is_bot BOOLEAN NOT NULL, place INTEGER NOT NULL,
        points INTEGER NOT NULL, left_table BOOLEAN NOT NULL,
        PRIMARY KEY (match_id, player));
    CREATE INDEX placements_player ON zkbluff.placements(player);
    CREATE INDEX matches_online_season ON zkbluff.matches(season) WHERE online;
    """,
)

#: pg_advisory_xact_lock key of the migration (any constant the host's other tools do not use)
MIGRATION_LOCK = 0x7A6B_626C_7566_66  # "zkbluff"

#: connections kept open between calls (a server records from a few worker threads at most)
IDLE_MAX = 4


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:  # a URL psycopg cannot parse is named by its scheme only
        return "postgresql://…"
    host, port, db = parts.get("host", ""), parts.get("port"), parts.get("dbname", "")
    return f"postgresql://{host}{':' + str(port) if port else ''}/{db}"


class PostgresResultStore(ResultStore):
    """Connections to one PostgreSQL database, reused (up to :data:`IDLE_MAX` kept open);
    safe to share between threads. ``timeout``: seconds a connection may take to open
    before the database counts as unreachable.

    Not psycopg_pool: its background reconnects back off exponentially, so after an
    outage of a minute the first record could wait another minute; here a connection that
    fails its check is dropped and the next call connects at once (the server retries a
    refused record every second). Records are one per match end: a handful of connections
    is all a server needs."""

    def __init__(self, url: str, timeout: float = 5.0):
        self.url, self.where, self.timeout = url, redacted(url), timeout
        self._idle: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()
        self._closed = False
        self.migrate()

    # ---- errors
    def _error(self, exc: BaseException, what: str) -> StorageError:
        """The typed error for a failure of PostgreSQL's (never a traceback for the host)."""
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, psycopg.errors.DiskFull):
            return StorageFull(f"results database {self.where} {what}: {text}; free space on its disk")
        if isinstance(exc, (psycopg.errors.DataCorrupted, psycopg.errors.IndexCorrupted)):
            return DamagedDatabase(f"results database {self.where} {what}: {text} (damaged: restore it from a "
                                   f"backup, docs/scale-out.md; the transcripts are intact)")
        if isinstance(exc, psycopg.OperationalError):
            return StorageError(f"results database {self.where} {what}: unreachable ({text})")
        return StorageError(f"results database {self.where} {what}: {text}")

    def _take(self) -> psycopg.Connection[Any]:
        """An idle connection that still answers, else a new one."""
        while True:
            with self._lock:
                if self._closed:
                    raise StorageError(f"results database {self.where}: the store is closed")
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                return psycopg.connect(self.url, autocommit=True, connect_timeout=max(1, round(self.timeout)))
            try:
                conn.execute("SELECT 1")  # (the server may have restarted since: then connect anew)
                return conn
            except psycopg.Error:
                conn.close()

    def _give_back(self, conn: psycopg.Connection[Any]) -> None:
        with self._lock:
            if not self._closed and not conn.broken and len(self._idle) < IDLE_MAX:
                self._idle.append(conn)
                return
        conn.close()

    @contextlib.contextmanager
    def _connection(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        """A connection in a transaction; every failure as a :class:`StorageError`."""
        try:
            conn = self._take()
        except psycopg.Error as exc:
            raise self._error(exc, what) from None
        try:
            with conn.transaction():
                yield conn
        except psycopg.Error as exc:
            conn.close()
            raise self._error(exc, what) from None
        except BaseException:
            conn.close()
            raise
        self._give_back(conn)

    # ---- schema
    def migrate(self) -> int:
        """Bring the schema to the newest version (under a lock: one server at a time);
        the version it is at. A database newer than this zkbluff is refused."""
        with self._connection("cannot be migrated") as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute("CREATE SCHEMA IF NOT EXISTS zkbluff")
            conn.execute("CREATE TABLE IF NOT EXISTS zkbluff.schema_version (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM zkbluff.schema_version").fetchone()
            version = 0 if row is None else int(row[0])
            if version > len(MIGRATIONS):
                raise StorageError(f"results database {self.where} is at schema version {version}, newer than "
                                   f"this zkbluff knows ({len(MIGRATIONS)}): upgrade zkbluff")
            for step in range(version, len(MIGRATIONS)):
                conn.execute(MIGRATIONS[step])
                log.warning("results database %s: schema migrated to version %d", self.where, step + 1)
            if row is None:
                conn.execute("INSERT INTO zkbluff.schema_version VALUES (%s)", (len(MIGRATIONS),))
            else:
                conn.execute("UPDATE zkbluff.schema_version SET version = %s", (len(MIGRATIONS),))
        return len(MIGRATIONS)

    # ---- the store
    def record(self, match_id: str, game: str, ended: datetime, seats: Sequence[SeatResult]) -> bool:
        check_seats(seats)
        with self._connection(f"could not record match {match_id}") as conn:
            inserted = conn.execute(
                "INSERT INTO zkbluff.matches VALUES (%s, %s, %s, %s, %s) ON CONFLICT (match_id) DO NOTHING "
                "RETURNING match_id",
                (match_id, game, ended.astimezone(timezone.utc), season_of(ended), counts_online(seats))).fetchone()
            if inserted is None:
                return False  # recorded before (by this server or another): unchanged
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO zkbluff.placements VALUES (%s, %s, %s, %s, %s, %s, %s)",
                                [(match_id, s.player, s.name, s.is_bot, s.place, s.points, s.left) for s in seats])
        return True

    def leaderboard(self, season: Optional[str] = None, game: Optional[str] = None,
                    limit: int = 20) -> list[LeaderboardRow]:
        where, args = board_filters(["m.online", "NOT p.is_bot"], season, game, "%s")
        # byte order ("C") for names and ties, as SQLite's: the same board whatever the database's locale
        sql = (f'SELECT p.player, MAX(p.name COLLATE "C"), SUM(CASE WHEN p.left_table THEN 0 ELSE p.points END) '
               f"AS pts, COUNT(*) FROM zkbluff.placements p JOIN zkbluff.matches m USING (match_id) "
               f"WHERE {' AND '.join(where)} GROUP BY p.player ORDER BY pts DESC, p.player COLLATE \"C\" LIMIT %s")
        with self._connection("could not be read") as conn:
            rows = conn.execute(sql, (*args, int(limit))).fetchall()
        return ranked((str(player), str(name), int(points), int(matches)) for player, name, points, matches in rows)

    def local_total(self, player: str) -> int:
        with self._connection("could not be read") as conn:
            row = conn.execute("SELECT COALESCE(SUM(CASE WHEN left_table THEN 0 ELSE points END), 0) "
                               "FROM zkbluff.placements WHERE player = %s", (player,)).fetchone()
        return 0 if row is None else int(row[0])

    def close(self) -> None:
        with self._lock:
            self._closed, idle, self._idle = True, self._idle, []
        for conn in idle:
            conn.close()
