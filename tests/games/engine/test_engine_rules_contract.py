"""The rules contract (games/engine/rules.py) as a game module meets it (issue 21): a game's
rules class must give every abstract member, or it cannot be made at all; a missing one is
a TypeError at construction, never a silent default at the first line of a match."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from zkbluff.games.engine.rules import Action, Rules

MEMBERS = ("over", "to_move", "legal_actions", "check", "_apply", "public_state", "result")


def _complete() -> dict:
    return {
        "n_seats": 2,
        "over": property(lambda self: False),
        "to_move": property(lambda self: 0),
        "legal_actions": lambda self, seat: [],
        "check": lambda self, seat, action: None,
        "_apply": lambda self, seat, action: None,
        "public_state": lambda self: None,
        "result": lambda self: None,
    }


def test_a_rules_class_with_every_member_can_be_made():
    rules = type("Complete", (Rules,), _complete())()
    assert rules.over is False and rules.to_move == 0 and rules.result() is None
    rules.apply(0, object())  # check, then _apply


@pytest.mark.parametrize("missing", MEMBERS)
def test_a_rules_class_missing_one_member_cannot_be_made(missing):
    members = _complete()
    del members[missing]
    cls = type(f"Without_{missing}", (Rules,), members)
    with pytest.raises(TypeError, match=f"abstract.*{missing}"):
        cls()


def test_the_base_itself_cannot_be_made():
    with pytest.raises(TypeError, match="abstract"):
        Rules()  # type: ignore[abstract]


def test_every_action_is_frozen():
    """Action is a frozen dataclass, so an action class cannot be a mutable one (a line's
    action, once checked, cannot change under the referee)."""
    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):
        @dataclass
        class Mutable(Action):
            kind: ClassVar[str] = "mutable"
            n: int

    @dataclass(frozen=True)
    class Fixed(Action):
        kind: ClassVar[str] = "fixed"
        n: int

    with pytest.raises(AttributeError):
        Fixed(1).n = 2  # type: ignore[misc]
