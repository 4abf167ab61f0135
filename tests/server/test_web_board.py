"""The leaderboard page's JSON (web_board.board_json): season boundaries, who counts, the
viewer's own row, and refused seasons."""

from datetime import datetime, timedelta, timezone

import pytest

from zkbluff.errors import MalformedInput
from zkbluff.server.storage import SeatResult, SqliteResultStore
from zkbluff.server.web_board import board_json, check_season


def seat(player, place, points, bot=False):
    return SeatResult(player, player.title(), bot, place, points)


@pytest.fixture
def store(tmp_path):
    s = SqliteResultStore(tmp_path / "r.sqlite")
    yield s
    s.close()


def test_last_second_of_a_month_and_first_of_the_next(store):
    end_jan = datetime(2026, 1, 31, 23, 59, 59, tzinfo=timezone.utc)
    store.record("m1", "bluffers", end_jan, [seat("ann", 1, 30), seat("bob", 2, 10)])
    store.record("m2", "bluffers", end_jan + timedelta(seconds=1), [seat("cat", 1, 70), seat("bob", 2, 5)])
    jan = board_json(store, "2026-01")
    feb = board_json(store, "2026-02")
    assert [(r["player"], r["points"]) for r in jan["rows"]] == [("ann", 30), ("bob", 10)]
    assert [(r["player"], r["points"], r["tier"]) for r in feb["rows"]] == [("cat", 70, "Silver"), ("bob", 5, "Bronze")]
    all_time = board_json(store, "all")
    assert {r["player"]: r["points"] for r in all_time["rows"]} == {"ann": 30, "bob": 15, "cat": 70}


def test_bot_only_and_one_real_player_matches_do_not_count(store):
    t = datetime(2026, 3, 10, tzinfo=timezone.utc)
    store.record("b1", "bluffers", t, [seat("bot:a", 1, 99, bot=True), seat("bot:b", 2, 9, bot=True)])
    store.record("b2", "bluffers", t, [seat("ann", 1, 99), seat("bot:b", 2, 9, bot=True)])
    assert board_json(store, "2026-03")["rows"] == []
    store.record("b3", "bluffers", t, [seat("ann", 1, 40), seat("bob", 2, 1), seat("bot:b", 3, 0, bot=True)])
    assert [r["player"] for r in board_json(store, "2026-03")["rows"]] == ["ann", "bob"]


def test_game_filter_and_own_row(store):
    t = datetime(2026, 4, 1, tzinfo=timezone.utc)
    store.record("g1", "bluffers", t, [seat("ann", 1, 20), seat("bob", 2, 10)])
    store.record("g2", "liars-dice", t, [seat("cat", 1, 20), seat("bob", 2, 10)])
    out = board_json(store, "2026-04", game="liars-dice", me="bob")
    assert [(r["player"], r["me"]) for r in out["rows"]] == [("cat", False), ("bob", True)]
    assert not any(r["me"] for r in board_json(store, "2026-04", me=None)["rows"])


@pytest.mark.parametrize("bad", ["2026-13", "2026-00", "26-01", "2026-1", "all ", "2026-01'--", 202601])
def test_invalid_season_refused(store, bad):
    with pytest.raises(MalformedInput):
        board_json(store, bad)


def test_default_season_is_this_month():
    assert check_season(None, datetime(2026, 5, 31, 23, 59, 59, tzinfo=timezone.utc)) == "2026-05"
    assert check_season("all") == "all" and check_season("2026-12") == "2026-12"


@pytest.mark.parametrize("game", ["Bluffers", "liars dice", "", "x" * 41, 7])
def test_a_malformed_game_filter_is_refused(store, game):
    with pytest.raises(MalformedInput, match="game"):
        board_json(store, "all", game=game)


@pytest.mark.parametrize("limit", [0, 501, True, "5"])
def test_a_limit_outside_1_to_500_is_refused(store, limit):
    with pytest.raises(MalformedInput, match="limit"):
        board_json(store, "all", limit=limit)


def test_the_limit_cuts_the_board(store):
    t = datetime(2026, 6, 1, tzinfo=timezone.utc)
    store.record("l1", "bluffers", t, [seat("ann", 1, 20), seat("bob", 2, 10), seat("cat", 3, 5)])
    assert [r["player"] for r in board_json(store, "2026-06", limit=2)["rows"]] == ["ann", "bob"]
