"""The PostgreSQL results store against a real server (tests/services.py): PostgreSQL down
at a match's end (the result waits and lands once, when it is back), the schema's
migrations, an unreachable database, and the ``--results`` option of ``serve`` and
``leaderboard``. What it shares with SQLite is tested over both in test_server_storage.py."""
import json
import os
import signal
import subprocess
import sys
import threading
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from services import free_port
from zkbluff.errors import StorageError
from zkbluff.server.storage import SeatResult, open_result_store

try:
    import psycopg

    from zkbluff.server.postgres import MIGRATIONS, PostgresResultStore
except ImportError:  # every test here asks for postgres_url, which skips without it (and fails under CI)
    pass

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
SEATS = [SeatResult("key:ana", "Ana", False, 1, 5), SeatResult("key:bo", "Bo", False, 2, 1)]


def rows(url: str, sql: str) -> list:
    with psycopg.connect(url) as db:
        return db.execute(sql).fetchall()


def test_a_record_while_postgresql_is_down_is_refused_and_lands_once_when_it_is_back(postgres_server, postgres_url):
    store = PostgresResultStore(postgres_url, timeout=1.0)
    try:
        assert store.record("m1", "bluffers", NOW, SEATS)
        postgres_server.stop()
        with pytest.raises(StorageError, match="unreachable"):
            store.record("m2", "bluffers", NOW, SEATS)
        postgres_server.start()
        assert store.record("m2", "bluffers", NOW, SEATS) is True  # the pool reconnects by itself
        assert store.record("m2", "bluffers", NOW, SEATS) is False
        assert store.local_total("key:ana") == 10
    finally:
        store.close()
    assert rows(postgres_url, "SELECT match_id FROM zkbluff.matches ORDER BY 1") == [("m1",), ("m2",)]


def test_postgresql_down_at_a_match_end_gives_the_result_and_records_it_once_when_back(
        tmp_path, postgres_server, postgres_url):
    """The server's side (RoomHost.finish, as in test_server_faults' refused record): the
    seats get the result (``recorded: false``), the clock's retries fail while PostgreSQL is
    down and land once it is back; another server recording the same match finds it there."""
    from zkbluff.server.app import RoomHost
    from zkbluff.server.rooms import Member, Room, RoomState

    store = PostgresResultStore(postgres_url, timeout=1.0)
    server = SimpleNamespace(store=store, clock=lambda: 1000.0, retry_every=1.0)
    room = Room("ABCDEFGH", "bluffers", "k", 2, 2, [Member("Ana", False, "a" * 64), Member("Bo", False, "b" * 64)],
                RoomState.PLAYING)
    host = RoomHost(server, room, {}, tmp_path / "rooms" / "ABCDEFGH")  # type: ignore[arg-type]
    host.match_id = "m1"
    result = SimpleNamespace(placements=[1, 2], scores=[3, 0], reason="rules", no_points=())
    host.table = SimpleNamespace(view=SimpleNamespace(complete=True, result=lambda: result),
                                 header={"seats": ["Ana", "Bo"], "parties": {"seats": ["a" * 64, "b" * 64]}},
                                 spec=SimpleNamespace(summary=lambda r, names: "Ana wins"))
    try:
        postgres_server.stop()
        first = host.finish()
        assert first is not None and first["recorded"] is False and "unreachable" in first["notice"]
        assert host.finish(retry=True) is None and host.record_failed is not None  # still down
        assert "m1" not in host.recorded  # (room.json does not say recorded: a restart retries it too)
        postgres_server.start()
        assert host.finish(retry=True) is None and host.record_failed is None  # landed
        assert "m1" in host.recorded and store.local_total("key:" + "a" * 64) == 5
        assert json.loads((host.folder / "room.json").read_text())["recorded"] == ["m1"]
        other = PostgresResultStore(postgres_url, timeout=1.0)  # a second server ends the same match
        assert other.record("m1", "bluffers", NOW, host.seat_rows(result)) is False
        other.close()
    finally:
        store.close()
    assert rows(postgres_url, "SELECT count(*) FROM zkbluff.placements") == [(2,)]


def test_servers_opening_one_new_database_at_once_migrate_it_once(postgres_url):
    """Without the migration's advisory lock, two servers starting together both create
    the tables and one fails."""
    opened, failed, gate = [], [], threading.Barrier(4)

    def start():
        gate.wait()
        try:
            opened.append(PostgresResultStore(postgres_url, timeout=10.0))
        except Exception as exc:  # noqa: BLE001 - the assertion names it
            failed.append(exc)
    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for s in opened:
        s.close()
    assert failed == [] and len(opened) == 4
    assert rows(postgres_url, "SELECT version FROM zkbluff.schema_version") == [(len(MIGRATIONS),)]


def test_a_database_of_a_newer_schema_is_refused(postgres_url):
    PostgresResultStore(postgres_url).close()
    with psycopg.connect(postgres_url) as db:
        db.execute("UPDATE zkbluff.schema_version SET version = %s", (len(MIGRATIONS) + 1,))
    with pytest.raises(StorageError, match="newer than this zkbluff"):
        PostgresResultStore(postgres_url)


def test_an_unreachable_database_is_a_storage_error_without_its_password(postgres_url):
    url = f"postgresql://zkbluff:sekrit@127.0.0.1:{free_port()}/results"
    with pytest.raises(StorageError, match="unreachable") as caught:
        PostgresResultStore(url, timeout=1.0)
    assert "sekrit" not in str(caught.value) and "127.0.0.1" in str(caught.value)


def test_results_option_names_a_store(tmp_path, postgres_url):
    from zkbluff.errors import MalformedInput
    from zkbluff.server.storage import SqliteResultStore

    store = open_result_store(postgres_url, tmp_path)
    assert isinstance(store, PostgresResultStore)
    store.close()
    store = open_result_store(None, tmp_path)
    assert isinstance(store, SqliteResultStore) and store.path == tmp_path / "results.sqlite"
    store.close()
    with pytest.raises(MalformedInput, match="--results"):
        open_result_store("mysql://x/y", tmp_path)


def test_leaderboard_reads_postgresql_with_results(tmp_path, postgres_url):
    from zkbluff.cli.server import leaderboard_cmd

    store = open_result_store(postgres_url, tmp_path)
    store.record("m1", "bluffers", NOW, SEATS)
    store.close()
    out = CliRunner().invoke(leaderboard_cmd, ["--results", postgres_url, "--season", "2026-12"])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[1:] == ["   1. Ana                           5 points     1 match    Bronze",
                                          "   2. Bo                            1 point      1 match    Bronze"]
    empty = CliRunner().invoke(leaderboard_cmd, ["--results", postgres_url, "--season", "2026-11"])
    assert "(no online matches yet)" in empty.output
    down = CliRunner().invoke(leaderboard_cmd, ["--results", f"postgresql://zkbluff@127.0.0.1:{free_port()}/x"])
    assert down.exit_code == 3 and "unreachable" in down.output


def test_serve_with_results_on_postgresql_starts_and_an_unreachable_one_exits_3(tmp_path, postgres_url):
    zk = [sys.executable, "-m", "zkbluff", "serve", "--port", "0"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    bad = subprocess.run(zk + ["--data", tmp_path / "a", "--results", f"postgresql://zkbluff@127.0.0.1:{free_port()}/x"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 3 and "unreachable" in bad.stdout + bad.stderr and "Traceback" not in bad.stderr
    with open(tmp_path / "serve.log", "w") as log:
        proc = subprocess.Popen(zk + ["--data", tmp_path / "b", "--results", postgres_url], stdout=subprocess.PIPE,
                                stderr=log, text=True, env=env)
    try:
        first = proc.stdout.readline()
        assert "listening on ws://" in first, (tmp_path / "serve.log").read_text()
        assert rows(postgres_url, "SELECT version FROM zkbluff.schema_version") == [(len(MIGRATIONS),)]
        assert not (tmp_path / "b" / "results.sqlite").exists()  # the results go to PostgreSQL only
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
