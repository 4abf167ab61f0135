"""A line the storage refuses changes no party (issues 26 and 27): :meth:`Table.publish`
used to apply the line to the referee's view before the write, so a refused write (a full
disk) left the referee one line ahead of the transcript and a second ``poll()`` on the same
table found nothing to write (the timeout was never written from that table). Now every
party's view, the referee's deadline and the writer are as they were, and the retry on the
same table writes the line. Real proofs, a fake clock; the refused write is a transcript
writer that raises like a full disk (tests/bluffers_table_helpers.py's ``FlakyWriter``), or a real file the writer cannot append to."""
from __future__ import annotations

import copy
import enum

import pytest

from zkbluff.errors import StorageFull
from zkbluff.games.bluffers.moves import PlayCards
from zkbluff.games.bluffers.proofs import cards_of
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.transcript import canonical

from bluffers_table_helpers import FlakyWriter
from bluffers_table_helpers import dealt as _dealt


def _snapshot(tab):
    """Everything a refused line may not change: each party's view (its state, not just its
    head), the referee's deadline and secrets, the dealer's and seats' secrets, the writer, the file."""
    def view(v):
        return {k: canonical(_plain(x)) for k, x in sorted(vars(v).items())
                if k not in ("spec", "vks", "trust", "batch", "signatures")}
    return {"views": [view(p.view) for p in [tab.referee, tab.dealer, *tab.seats]],
            "deadline": tab.referee.deadline, "referee": copy.deepcopy(tab.referee.private),
            "dealer": copy.deepcopy(tab.dealer.state), "seats": [copy.deepcopy(s.private) for s in tab.seats],
            "received": [dict(s.received_at) for s in tab.seats],
            "writer": (list(tab.writer.lines), tab.writer.head, tab.writer.next_line),
            "file": tab.writer.path.read_text()}


def _plain(x):
    """A JSON-able picture of a view's attribute (its objects by their public fields)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        items = [_plain(v) for v in x]
        return sorted(items, key=repr) if isinstance(x, (set, frozenset)) else items
    if isinstance(x, (enum.Enum, type)) or callable(x):
        return repr(x)
    if hasattr(x, "__dict__"):
        return {"__type": type(x).__name__, **_plain(vars(x))}
    if hasattr(x, "__slots__"):
        return {"__type": type(x).__name__, **{s: _plain(getattr(x, s, None)) for s in x.__slots__}}
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return repr(x)


@pytest.mark.parametrize("error", [StorageFull, OSError])
def test_a_refused_timeout_changes_no_party_and_the_retry_on_the_same_table_writes_it(tmp_path, mcl, match_keys,
                                                                                       error):
    tab, clock = _dealt(tmp_path, mcl)
    tab.writer = FlakyWriter(tab.writer, "timeout", fails=1, error=error)
    clock.now += 30.1
    before = _snapshot(tab)
    with pytest.raises(error):
        tab.poll()
    assert _snapshot(tab) == before                                      # refused: unchanged (the bug: view +1)
    written = tab.poll()                                                 # the retry, the same table
    assert written is not None and written["action"] == "timeout" and written["seat"] is None
    assert written["n"] == before["writer"][2] and tab.writer.events[written["n"] - 1] == written
    assert [e["action"] for e in tab.writer.events].count("timeout") == 1      # written once
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


def test_the_twin_a_timeout_the_disk_takes_is_written_at_once(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    n = tab.writer.next_line
    clock.now += 30.1
    assert tab.poll()["n"] == n and tab.writer.events[n - 1]["action"] == "timeout"


def test_a_write_the_file_refuses_leaves_the_writer_as_it_was(tmp_path, mcl, match_keys, monkeypatch):
    """A real OSError from the file (not a writer that refuses before it starts): the line
    reached the file, its fsync failed (a full disk). The file is cut back to the lines it
    held, the writer's lines and head stay as they were, and the retry writes the line once."""
    from zkbluff.protocol import transcript

    tab, clock = _dealt(tmp_path, mcl)
    path = tab.writer.path
    clock.now += 30.1
    before = _snapshot(tab)
    real, fails = transcript.os.fsync, [1]

    def fsync(fd):
        if fails[0]:
            fails[0] -= 1
            raise OSError(28, "No space left on device")
        return real(fd)

    monkeypatch.setattr(transcript.os, "fsync", fsync)
    with pytest.raises(OSError):
        tab.poll()
    assert _snapshot(tab) == before
    assert tab.poll()["action"] == "timeout"
    assert verify_transcript(path)["lines"] == len(tab.writer.events) == len(path.read_text().splitlines())


def test_a_refused_seat_line_changes_no_party_and_the_same_line_is_written_on_the_retry(tmp_path, mcl, match_keys):
    """A seat's own line (its receipt added by the referee) the disk refuses: the seat's move
    stays pending, every view as it was; the same signed line submitted again is written."""
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    line = tab.seats[s].move(PlayCards((cards_of(tab.seats[s].private["hand"])[0],)))
    tab.writer = FlakyWriter(tab.writer, line["action"], fails=1)
    before = _snapshot(tab)
    with pytest.raises(StorageFull):
        tab.submit(line)
    assert _snapshot(tab) == before
    written = tab.submit(line)
    assert written["n"] == line["n"] and {k: written[k] for k in line} == line and "received" in written
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)
