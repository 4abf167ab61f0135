"""Shared drivers for the Cheat-on-the-engine tests: an injected clock, bots in every seat,
and the deck-conservation check run after every line the table writes."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Optional

from zkbluff.games.cheat.match import CheatTable, Stage
from zkbluff.games.cheat.rules import DECK, Phase, check_conservation
from zkbluff.games.engine.table import Table, open_match
from zkbluff.gadgets.native import commit
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import canonical


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def conservation(tab: Table) -> None:
    """At every line: the public counts keep the deck, and (looking into every party's
    secrets, as only a test may) the hands held are disjoint, their sizes are the public
    counts, each opens its seat's public commitment, and the pile's plays are the cards
    its players put down."""
    rules: CheatTable = tab.rules
    s = rules.s
    check_conservation(s)
    if s.hand_no == 0:
        return
    held = [seat.private["hand"] for seat in tab.seats]
    for i, h in enumerate(held):
        if rules.stage == Stage.ABSORB and i == s.picker and rules.next_part:
            continue  # part of the pile is already in this hand
        assert bin(h).count("1") == s.hand_sizes[i], f"seat {i} holds {bin(h).count('1')}, public {s.hand_sizes[i]}"
        assert commit(h, tab.seats[i].private["salt"]) == tab.view.ledger.hands[i], f"seat {i}'s commitment"
    union = 0
    for h in held:
        assert union & h == 0, "a card in two hands"
        union |= h
    if s.phase not in (Phase.DEAL, Phase.OVER):
        for no, (p, count) in zip(rules.pile_plays, s.pile):
            mask, salt = tab.seats[p].private["plays"][str(no)]
            assert bin(mask).count("1") == count and commit(mask, salt) == tab.view.ledger.plays[no]
            if not (rules.stage == Stage.ABSORB and rules.next_part):
                assert union & mask == 0, "a pile card also in a hand"
            union |= mask
        assert bin(union).count("1") + s.set_aside == DECK.size


def new_table(n: int, hands: int = 3, window: int = 1, path: Optional[Path] = None,
              names: Optional[list[str]] = None) -> tuple[Table, Clock]:
    clock = Clock()
    # the dealer's entropy, every seat's (the engine's deal lines), then the first deal
    tab = open_match("cheat", {"players": str(n), "hands": str(hands), "window": str(window)}, names,
                     transcript=path, clock=clock, overwrite=True)
    return tab, clock


def watch(tab: Table, checks: list[int]) -> None:
    """Run :func:`conservation` after every line the table writes from now on."""
    def after(t: Table) -> None:
        conservation(t)
        checks.append(t.view.next_line - 1)
    tab.persist = after


def step(tab: Table, clock: Clock, bots: list[Any], rng: random.Random) -> None:
    """One step: the seat to move acts; in a calling window the bots answer in a random
    order (who is quickest) and, if none calls, the clock runs to the deadline."""
    seat = tab.to_move
    if seat is None:
        order = list(range(len(bots)))
        rng.shuffle(order)
        for s in order:
            intent = bots[s].act(tab.observation(s))
            if intent is not None:
                tab.move(s, intent)
                return
        clock.now = tab.referee.deadline + 0.01  # a timeout comes after its deadline
        assert tab.poll() is not None
        return
    tab.move(seat, bots[seat].act(tab.observation(seat)))


def forge(tab: Table, seat: int, kind: str, data: dict[str, Any], statement: Optional[str] = None,
          inputs: Optional[dict[str, int]] = None) -> dict[str, Any]:
    """A line in ``seat``'s name, signed with its own key, with a real proof of whatever
    ``inputs`` say (the referee pins what the table holds)."""
    view = tab.view
    event: dict[str, Any] = {"n": view.next_line, "prev": view.head, "seat": seat, "action": kind, "data": data,
                             "at": tab.referee.clock()}
    if statement is not None:
        assert inputs is not None
        event["proofs"] = [tab.seats[seat].prover.prove(statement, inputs, view.match_id, view.next_line,
                                                        view.head, seat)]
    return sign_line(tab.seats[seat].key, json.loads(json.dumps(event)))


def transcript_with(tab: Table, line: dict[str, Any], path: Path) -> Path:
    """The table's lines so far, then ``line``."""
    path.write_text("".join(canonical(e) + "\n" for e in tab.writer.events + [line]))
    return path
