"""Shared set-up for the Bluffers table tests with a fake clock and real proofs (the sealed
moves in tests/games/bluffers/test_bluffers_sealed.py, and the storage faults in
test_bluffers_sealed_faults.py and tests/games/engine/test_publish_faults.py): the clock,
the time limits, two seats dealt into round 1, one card played, a seat's timeout run out,
and a transcript writer that refuses lines as a full disk would."""
from __future__ import annotations

from typing import Any

from zkbluff.errors import StorageFull
from zkbluff.games.bluffers.moves import PlayCards, Proceed
from zkbluff.games.bluffers.proofs import cards_of
from zkbluff.games.bluffers.rules import Phase
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.table import open_match
from zkbluff.protocol.transcript import TranscriptWriter

LIMITS = TimeLimits(proof=10.0, idle=20.0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FlakyWriter(TranscriptWriter):
    """Refuses the first ``fails`` lines of ``action`` as a full disk would: nothing written,
    ``error`` raised (the server's typed one, or a plain writer's OSError)."""

    def __init__(self, writer: TranscriptWriter, action: str, fails: int, error: type = StorageFull):
        super().__init__(writer.path, events=list(writer.events))
        self.action, self.fails, self.error = action, fails, error

    def append_event(self, event):
        if event.get("action") == self.action and self.fails:
            self.fails -= 1
            raise self.error(f"{self.path}: the disk is full")
        return super().append_event(event)


def dealt(tmp_path, mcl) -> tuple[Any, Clock]:
    """Two seats, seeds committed and round 1 dealt: the first turn to play."""
    clock = Clock()
    tab = open_match("bluffers", {"players": "2"}, ["ann", "bob"], transcript=tmp_path / "b.jsonl", clock=clock,
                     backend=mcl, limits=LIMITS)
    while tab.rules.s.phase != Phase.TURN:
        tab.move(tab.to_move, Proceed())
    return tab, clock


def play_one(tab, i):
    """Seat ``i`` plays the first card of its hand."""
    card = cards_of(tab.seats[i].private["hand"])[0]
    return tab.move(i, PlayCards((card,)))


def away_turn(tab, clock, s) -> list[str]:
    """Seat ``s``'s 30 seconds run out: the actions the referee writes (its timeout, its next seal)."""
    assert tab.to_move == s
    n = len(tab.writer.events)
    clock.now += 30.1
    tab.poll()
    return [e["action"] for e in tab.writer.events[n:]]
