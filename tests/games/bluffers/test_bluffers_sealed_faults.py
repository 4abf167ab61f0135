"""A Bluffers seat's sealed moves when the host's storage fails (issue 27): a write the disk
refuses while the referee plays a seat's seal on its own initiative (after the seat's
timeout), or while it takes a seal in, leaves the seals it holds exactly as they were
(refused means unchanged), and the seal is played once the write goes through: the match
rebuilt from its files, as the server's recovery does (server/app.py, ``RoomHost.recover``).
Real proofs, a fake clock; the refused writes are a transcript writer and a secrets saver
that raise the server's own :class:`~zkbluff.errors.StorageFull` (the style of
tests/server/test_server_faults.py's ``FlakyStore``; the writer, the clock and the table's
set-up are tests/bluffers_table_helpers.py's)."""
from __future__ import annotations

import copy

import pytest

from zkbluff.errors import StorageFull
from zkbluff.games.engine.table import resume_match, secrets_path
from zkbluff.games.engine.verifier import verify_transcript

from bluffers_table_helpers import LIMITS, FlakyWriter
from bluffers_table_helpers import away_turn as _away_turn
from bluffers_table_helpers import dealt as _dealt
from bluffers_table_helpers import play_one as _play_one


@pytest.mark.parametrize("error", [StorageFull, OSError])
def test_a_sealed_move_the_disk_refuses_leaves_the_held_seals_and_is_played_on_the_retry(tmp_path, mcl, match_keys,
                                                                                          error):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    tab.leave_seal(s, tab.spec.make_seal(tab.seats[s])[:2])              # a chain of two
    held = copy.deepcopy(tab.referee.private["seals"])
    tab.writer = FlakyWriter(tab.writer, "sealed_move", fails=1, error=error)
    clock.now += 30.1
    with pytest.raises(error):
        tab.poll()                                                       # the timeout written, its seal refused
    assert tab.referee.private["seals"] == held                          # refused: unchanged (the bug: popped)
    assert [e["action"] for e in tab.writer.events[-1:]] == ["timeout"]
    again = resume_match(tab.writer.path, backend=mcl, clock=clock, limits=LIMITS)  # the retry: from the files
    sealed = again.writer.events[-1]
    assert sealed["action"] == "sealed_move" and sealed["data"] == held[str(s)][0]["data"]
    assert again.referee.private["seals"] == {str(s): held[str(s)][1:]}  # the second for its next turn
    _play_one(again, 1 - s)
    assert _away_turn(again, clock, s) == ["timeout", "sealed_move"]     # and it is played there
    assert verify_transcript(again.writer.path)["lines"] == len(again.writer.events)


def test_the_twin_a_sealed_move_written_at_once_takes_the_first_seal_off(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    chain = tab.spec.make_seal(tab.seats[s])[:2]
    tab.leave_seal(s, chain)
    assert _away_turn(tab, clock, s) == ["timeout", "sealed_move"]
    assert tab.referee.private["seals"] == {str(s): chain[1:]}


def test_a_sealed_move_written_but_not_saved_is_never_opened_again_and_its_chain_goes_on(tmp_path, mcl, match_keys):
    """The line lands, the referee's (and dealer's) secrets write is refused: its file still
    holds the seal just played. Rebuilt from the files, that seal is not opened again as a
    stale one (which dropped the rest of the chain: the seat forfeited later)."""
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    tab.leave_seal(s, tab.spec.make_seal(tab.seats[s])[:3])
    path = tab.writer.path
    saved = {p: secrets_path(path, p).read_text() for p in ("referee", "dealer")}
    real = tab.persist
    refused = []

    def persist(table):
        real(table)  # the seats' own devices save theirs; the host's two files keep their old versions
        if table.writer.events[-1]["action"] == "sealed_move" and not refused:
            refused.append(table.writer.events[-1]["n"])
            for p, text in saved.items():
                secrets_path(path, p).write_text(text)
            raise StorageFull(f"{secrets_path(path, 'referee')}: the disk is full")
        saved.update({p: secrets_path(path, p).read_text() for p in ("referee", "dealer")})

    tab.persist = persist
    clock.now += 30.1
    with pytest.raises(StorageFull):
        tab.poll()
    assert refused and tab.writer.events[-1]["action"] == "sealed_move"
    again = resume_match(path, backend=mcl, clock=clock, limits=LIMITS)
    assert len(again.writer.events) == refused[0]                        # nothing played twice
    _play_one(again, 1 - s)
    assert _away_turn(again, clock, s) == ["timeout", "sealed_move"]     # the chain's second seal
    _play_one(again, 1 - s)
    assert _away_turn(again, clock, s) == ["timeout", "sealed_move"]     # and its third
    assert again.rules.s.hand_sizes[s] == 2
    assert verify_transcript(again.writer.path)["lines"] == len(again.writer.events)


def test_a_seal_the_host_cannot_save_is_refused_and_the_seals_held_are_unchanged(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    chain = tab.spec.make_seal(tab.seats[s])
    tab.leave_seal(s, chain[:1])
    held = copy.deepcopy(tab.referee.private["seals"])
    real = tab.persist

    def full(table):
        raise StorageFull("the disk is full")

    tab.persist = full
    with pytest.raises(StorageFull):
        tab.leave_seal(s, chain)                                         # a longer chain, not saved
    assert tab.referee.private["seals"] == held                          # (the bug: held, though never saved)
    tab.persist = real                                                   # the twin: space again, taken in
    tab.leave_seal(s, chain)
    assert tab.referee.private["seals"] == {str(s): chain}
