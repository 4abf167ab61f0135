"""Refused means unchanged (issue 26 item 5): a line the table refuses is on no disk, in no
party's view and sent to nobody."""
import pytest

from zkbluff.errors import CommitmentMismatch
from zkbluff.games.engine.table import open_match
from zkbluff.games.proof_or_bluff.moves import PlayCards

CLASSIC = "proof-or-bluff"


def _snapshot(tab, path):
    views = [tab.referee.view, tab.dealer.view] + [s.view for s in tab.seats]
    return (path.read_text(), [(v.next_line, v.head) for v in views], [dict(s.private) for s in tab.seats])


def test_attack_a_signed_line_the_seat_did_not_make_is_not_written(match_keys, tmp_path):
    """The attack: a line correctly signed with the seat's key (its key used elsewhere) that
    Seat.move did not make. It used to raise CommitmentMismatch after it was on disk (5 → 6
    lines, every other party's pile changed); now it is refused before any party takes it."""
    path = tmp_path / "m.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, transcript=path, key_folder=match_keys)
    me = tab.seats[tab.to_move]
    hand = [c for c in range(52) if me.private["hand"] >> c & 1]
    before = _snapshot(tab, path)
    made = me.move(PlayCards((hand[0],)))
    me._pending = me.signed = None  # as if this seat had never made it (its key used elsewhere)
    forged = me._line(me.seat, made["action"], made["data"], made.get("proofs"))
    with pytest.raises(CommitmentMismatch, match="did not make it"):
        tab.submit(forged)
    assert _snapshot(tab, path) == before


def test_attack_a_signed_line_other_than_the_one_the_seat_made_is_not_written(match_keys, tmp_path):
    """Twin: the seat made a move for this line; another one in its name, signed with its
    key, is refused unchanged too (its pending update belongs to the move it made)."""
    path = tmp_path / "m.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, transcript=path, key_folder=match_keys)
    me = tab.seats[tab.to_move]
    hand = [c for c in range(52) if me.private["hand"] >> c & 1]
    before = _snapshot(tab, path)
    other = me.move(PlayCards((hand[1],)))  # the line it signs with its key elsewhere
    me.signed = me._pending = None
    made = me.move(PlayCards((hand[0],)))
    assert other["data"] != made["data"] or other["proofs"] != made["proofs"]
    with pytest.raises(CommitmentMismatch, match="did not make"):
        tab.submit(other)
    assert _snapshot(tab, path) == before
    written = tab.submit(made)  # positive twin: the line it made is written
    assert written["n"] == made["n"] and len(path.read_text().splitlines()) > len(before[0].splitlines())


def test_the_line_the_seat_made_is_written(match_keys, tmp_path):
    path = tmp_path / "m.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, transcript=path, key_folder=match_keys)
    n = len(path.read_text().splitlines())
    me = tab.seats[tab.to_move]
    hand = [c for c in range(52) if me.private["hand"] >> c & 1]
    tab.submit(me.move(PlayCards((hand[0],))))
    assert len(path.read_text().splitlines()) > n
