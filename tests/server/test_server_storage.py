"""Results and leaderboard (seed 003's "Leaderboard and seasons"): one suite over both
stores, SQLite (the default) and PostgreSQL (a real server, tests/services.py)."""
import threading
from datetime import datetime, timedelta, timezone

import pytest

from zkbluff.errors import DamagedDatabase, MalformedInput
from zkbluff.server.storage import (SeatResult, SqliteResultStore, counts_online, open_result_store, season_of,
                                    tier_for)

NOV = datetime(2026, 11, 30, 23, 59, tzinfo=timezone.utc)
DEC = NOV + timedelta(minutes=2)


def seat(player, place, points, bot=False, left=False):
    return SeatResult(player, player.title(), bot, place, points, left)


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request, tmp_path) -> str:
    """What ``--results`` would say: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "results.sqlite")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def stores(where, tmp_path):
    """``stores()``: one more store on the same database (another server's connection)."""
    opened = []

    def another():
        opened.append(open_result_store(where, tmp_path))
        return opened[-1]
    yield another
    for s in opened:
        s.close()


@pytest.fixture
def store(stores):
    return stores()


def test_only_matches_with_two_real_players_reach_the_leaderboard(store):
    store.record("m1", "bluffers", NOV, [seat("ana", 1, 8), seat("bo", 2, 4), seat("bot:x", 3, 1, bot=True)])
    store.record("m2", "bluffers", NOV, [seat("ana", 1, 5), seat("bot:y", 2, 1, bot=True)])  # against a bot
    board = store.leaderboard(season="2026-11")
    assert [(r.player, r.points, r.matches) for r in board] == [("ana", 8, 1), ("bo", 4, 1)]
    assert store.local_total("ana") == 13  # the bot match counts on the device only
    assert counts_online([seat("a", 1, 5), seat("b", 2, 1)]) and not counts_online([seat("a", 1, 5)])


def test_a_player_who_left_earns_nothing_from_that_match(store):
    store.record("m1", "bluffers", NOV, [seat("ana", 1, 8), seat("bo", 2, 4, left=True), seat("cy", 3, 1)])
    points = {r.player: r.points for r in store.leaderboard()}
    assert points == {"ana": 8, "bo": 0, "cy": 1}
    assert store.local_total("bo") == 0


def test_every_calendar_month_is_a_season_that_starts_empty(store):
    store.record("m1", "bluffers", NOV, [seat("ana", 1, 5), seat("bo", 2, 1)])
    store.record("m2", "bluffers", DEC, [seat("bo", 1, 5), seat("ana", 2, 1)])
    assert season_of(NOV) == "2026-11" and season_of(DEC) == "2026-12"
    assert [(r.player, r.points) for r in store.leaderboard(season="2026-12")] == [("bo", 5), ("ana", 1)]
    assert [(r.player, r.points) for r in store.leaderboard(season="2026-11")] == [("ana", 5), ("bo", 1)]
    assert store.leaderboard(season="2027-01") == []
    assert {r.points for r in store.leaderboard()} == {6}  # all time: both months
    with pytest.raises(MalformedInput):
        season_of(datetime(2026, 11, 1))  # naive: which month is ambiguous


def test_recording_is_idempotent_per_match(store):
    seats = [seat("ana", 1, 5), seat("bo", 2, 1)]
    assert store.record("m1", "bluffers", NOV, seats) is True
    assert store.record("m1", "bluffers", NOV, seats) is False
    assert store.local_total("ana") == 5


def test_equal_points_share_a_rank_and_tiers_follow_points(store):
    store.record("m1", "bluffers", NOV, [seat("ana", 1, 5), seat("bo", 2, 1)])
    store.record("m2", "bluffers", NOV, [seat("cy", 1, 5), seat("di", 2, 1)])
    ranks = {r.player: r.rank for r in store.leaderboard()}
    assert ranks["ana"] == ranks["cy"] == 1 and ranks["bo"] == ranks["di"] == 3
    assert [tier_for(p) for p in (0, 49, 50, 149, 150, 399, 400)] == \
        ["Bronze", "Bronze", "Silver", "Silver", "Gold", "Gold", "Diamond"]


def test_concurrent_records_of_one_match_from_two_servers_leave_one_row(stores):
    """Two servers end the same match at once (or one retries while the other lands it):
    one ``True``, one ``False``, never an error, and the points counted once."""
    a, b = stores(), stores()
    seats = [seat("ana", 1, 5), seat("bo", 2, 1)]
    outcomes: dict[str, list] = {}
    for n in range(20):
        match, gate, got = f"m{n}", threading.Barrier(2), []

        def end(store, match=match, gate=gate, got=got):
            gate.wait()
            try:
                got.append(store.record(match, "bluffers", NOV, seats))
            except Exception as exc:  # noqa: BLE001 - the assertion names it
                got.append(exc)
        threads = [threading.Thread(target=end, args=(s,)) for s in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        outcomes[match] = sorted(got, key=repr)
    assert all(got == [False, True] for got in outcomes.values()), outcomes
    assert a.local_total("ana") == b.local_total("ana") == 20 * 5
    assert [(r.player, r.matches) for r in b.leaderboard()] == [("ana", 20), ("bo", 20)]


def test_bad_results_are_refused_and_nothing_is_written(store):
    with pytest.raises(MalformedInput, match="control characters"):
        SeatResult("p", "evil\x1b[2J", False, 1, 5)
    with pytest.raises(MalformedInput, match="1..100"):
        SeatResult("p", "x" * 101, False, 1, 5)
    with pytest.raises(MalformedInput, match="points"):
        SeatResult("p", "P", False, 1, -3)
    with pytest.raises(MalformedInput, match="twice"):
        store.record("m1", "bluffers", NOV, [seat("ana", 1, 5), seat("ana", 2, 1)])
    assert store.leaderboard() == [] and store.local_total("ana") == 0


def test_results_survive_a_reopen_in_wal_mode(tmp_path):
    path = tmp_path / "r.sqlite"
    s = SqliteResultStore(path)
    s.record("m1", "bluffers", NOV, [seat("ana", 1, 5), seat("bo", 2, 1)])
    assert s._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    s.close()
    again = SqliteResultStore(path)
    assert again.local_total("ana") == 5
    again.close()
    (tmp_path / "junk.sqlite").write_bytes(b"not a database" * 100)
    with pytest.raises(DamagedDatabase, match="results database"):  # a storage fault of the host's (exit 3)
        SqliteResultStore(tmp_path / "junk.sqlite")


def test_closing_twice_checkpoints_once_and_logs_no_error(tmp_path, caplog):
    """A server that stops closes its store from two places (the app and its runner): the
    second close is a no-op, not a logged "checkpoint at close failed"."""
    s = SqliteResultStore(tmp_path / "r.sqlite")
    s.record("m1", "bluffers", NOV, [seat("ana", 1, 5), seat("bo", 2, 1)])
    with caplog.at_level("ERROR", logger="zkbluff"):
        s.close()
        s.close()
    assert [r.getMessage() for r in caplog.records] == []
    assert not (tmp_path / "r.sqlite-wal").exists() or (tmp_path / "r.sqlite-wal").stat().st_size == 0
    assert SqliteResultStore(tmp_path / "r.sqlite").local_total("ana") == 5


def test_the_leaderboard_is_the_same_on_sqlite_and_postgresql_for_the_same_matches(tmp_path, postgres_server):
    """Ties, bots, a seat that left, two months, two games, players whose order depends on
    case: both stores order bytes, even on a database whose collation is en-US (where
    "ana" sorts before "Zed")."""
    postgres_url = postgres_server.fresh_database("en_us_board", icu_locale="en-US")
    matches = [
        ("m1", "bluffers", NOV, [seat("ana", 1, 8), seat("Zed", 2, 4), seat("bot:x", 3, 1, bot=True)]),
        ("m2", "bluffers", NOV, [seat("Zed", 1, 5), seat("ana", 2, 1)]),
        ("m3", "cheat", DEC, [seat("bo", 1, 10), seat("ana", 2, 6, left=True), seat("cy", 3, 3), seat("Zed", 4, 1)]),
        ("m4", "cheat", DEC, [seat("cy", 1, 5), seat("bot:y", 2, 1, bot=True)]),  # against a bot: device only
        ("m5", "bluffers", DEC, [seat("éva", 1, 5), seat("bo", 2, 1)]),
    ]
    both = [SqliteResultStore(tmp_path / "r.sqlite"), open_result_store(postgres_url, tmp_path)]
    try:
        for s in both:
            for m in matches:
                assert s.record(*m) is True
        for season in (None, "2026-11", "2026-12", "2027-01"):
            for game in (None, "bluffers", "cheat"):
                for limit in (2, 20):
                    sqlite, postgres = (s.leaderboard(season, game, limit) for s in both)
                    assert sqlite == postgres, (season, game, limit)
        for player in ("ana", "Zed", "bo", "cy", "éva", "nobody"):
            assert both[0].local_total(player) == both[1].local_total(player)
        assert [(r.player, r.points) for r in both[0].leaderboard()] == \
            [("bo", 11), ("Zed", 10), ("ana", 9), ("éva", 5), ("cy", 3)]
        assert [(r.player, r.rank) for r in both[1].leaderboard("2026-11")] == [("Zed", 1), ("ana", 1)]
    finally:
        for s in both:
            s.close()
