"""Shared by the games' rules tests (tests/games/*/test_*_rules_guards.py and their
neighbours): a move the rules refuse raises IllegalMove with its message and changes
nothing. Pure rules, no proofs."""
from __future__ import annotations

import copy
import re

import pytest

from zkbluff.errors import IllegalMove


def says(message: str) -> str:
    """A pattern for exactly ``message``."""
    return "^" + re.escape(message) + "$"


def refused_matching(rules, seat, action, pattern: str) -> None:
    """``rules.apply(seat, action)`` raises IllegalMove whose message matches ``pattern``, and
    the rules object is exactly what it was (every attribute, compared with a deep copy)."""
    before = copy.deepcopy(rules.__dict__)
    with pytest.raises(IllegalMove, match=pattern):
        rules.apply(seat, action)
    assert rules.__dict__ == before


def refused(rules, seat, action, message: str) -> None:
    """``rules.apply(seat, action)`` raises IllegalMove with exactly ``message``, and nothing changes."""
    refused_matching(rules, seat, action, says(message))
