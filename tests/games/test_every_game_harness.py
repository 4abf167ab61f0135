"""The generic whole-match cases (tests/match_harness.py) for every registered game: a
seeded match of house bots to the end with real proofs; a line with one named field
tampered, refused by the verifier at that line; the same change signed again by its own
party, still refused (and its unchanged twin verifies); a timeout only after the deadline,
by the referee; a replay of the same seed equal to the original, line by line. A game
registered tomorrow is in :func:`game_names` and gets them all; it may name its field and
quick options below, else the harness picks its first proven seat line."""
from __future__ import annotations

import pytest

import match_harness as mh
from zkbluff.games.registry import game_names

#: a game's quick table (small options) and the line field the tamper cases change: a field
#: its proof or its rules pin (a game not listed: default options, its first proven seat line)
TABLES: dict[str, tuple[dict[str, str], str, str]] = {
    "proof-or-bluff": ({}, "play", "count"),
    "five-up-two-down": ({}, "claim", "names"),
    "cheat": ({"players": "3", "hands": "3", "window": "1"}, "play", "count"),
    "mind-bluff": ({}, "claim", "amount"),
    "bluffers": ({}, "share", "value"),
}

#: games none of whose seat lines' data field is pinned by a proof: a line signed again by its
#: own seat with another value is a legal move of its own (Mind Bluff's claims are the seat's choice)
UNPINNED = {"mind-bluff", "five-up-two-down"}  # five-up: its claim names not proven; another field not yet found

#: games whose whole match takes over 10 s here (real proofs, both backends' default)
SLOW = {"cheat", "five-up-two-down"}


def _params() -> list[object]:
    return [pytest.param(g, marks=[pytest.mark.slow] if g in SLOW else []) for g in game_names()]


def _first_proven_seat_field(events: list[dict]) -> tuple[str, str]:
    for e in events:
        if e.get("seat") is not None and e.get("proofs") and isinstance(e.get("data"), dict) and e["data"]:
            return e["action"], sorted(e["data"])[0]
    raise AssertionError("no proven seat line with a data field")


@pytest.fixture(scope="module", params=_params())
def finished(request, tmp_path_factory):
    game = request.param
    options, action, field = TABLES.get(game, ({}, "", ""))
    path = tmp_path_factory.mktemp(game) / "match.jsonl"
    tab = mh.finished_match(game, path, options)
    if not field:
        action, field = _first_proven_seat_field(mh.lines(path))
    return game, options, tab, path, action, field


def test_a_seeded_match_of_bots_ends_and_verifies(finished):
    from zkbluff.games.engine.verifier import verify_transcript

    game, _, tab, path, _, _ = finished
    assert tab.over and mh.lines(path)[-1]["action"] in ("end", *(() if tab.spec.deal.closing is None else ("close",)))
    assert verify_transcript(path)["lines"] == len(mh.lines(path))


def test_a_tampered_field_is_refused_at_its_line(finished, tmp_path):
    _, _, tab, path, action, field = finished
    mh.check_tampered_line(tab, path, tmp_path, action, field)


@pytest.mark.parametrize("finished", [p for p in _params() if p.values[0] not in UNPINNED], indirect=True)
def test_a_tampered_field_signed_again_by_its_own_party_is_still_refused(finished, tmp_path):
    _, _, tab, path, action, field = finished
    mh.check_resigned_line(tab, path, tmp_path, action, field)


def test_the_seat_to_move_is_timed_out_only_after_its_deadline(finished, tmp_path):
    game, options, _, _, _, _ = finished
    mh.check_timeout(game, tmp_path, options)


def test_the_same_seed_replays_the_same_transcript(finished, tmp_path):
    game, options, _, path, _, _ = finished
    mh.check_replay(game, tmp_path, path, options)


def test_fixed_randomness_is_refused_outside_tests_unless_marked_practice(monkeypatch):
    from zkbluff.errors import MalformedInput
    from zkbluff.games.engine import table

    monkeypatch.setattr(table, "FIXED_RANDOMNESS_IN_TESTS", False)
    for kwargs in ({"seed": 1}, {"seat_secrets": [None, None]}):
        with pytest.raises(MalformedInput) as exc:
            table.open_match("bluffers", **kwargs)
        assert exc.value.code == "match.fixed"
    tab = table.open_match("bluffers", seed=1, practice=True)  # the twin: a practice match
    assert isinstance(tab, table.FixedTable)


def test_chosen_seat_secrets_are_the_seats_own_and_unknown_fields_are_refused():
    from zkbluff.errors import MalformedInput
    from zkbluff.games.engine.table import open_match
    from zkbluff.protocol.signing import SigningKey

    key = SigningKey.generate()
    tab = open_match("bluffers", seat_secrets=[{"key": key.secret_hex()}, None])
    assert tab.seats[0].public_key == key.public_hex and tab.header["seats"]
    with pytest.raises(MalformedInput, match="unknown fields"):
        open_match("bluffers", seat_secrets=[{"hand": 1}, None])
    with pytest.raises(MalformedInput, match="one per seat"):
        open_match("bluffers", seat_secrets=[None])
