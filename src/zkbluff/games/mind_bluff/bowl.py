"""The hidden side of one Mind Bluff game, natively: the remaining count and the last
eat's choice, with the verdicts they imply. The proven referee keeps the same values
committed and proves each verdict (``referee.py``); the pure-rules arena and the rules
tests use this class directly (no cryptography), so both settle verdicts by one rule."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.mind_bluff.rules import GAME3_STARTS, MAX_EAT, MIN_EAT, OPEN_START


def eat_reaches(choice: int, remaining: int) -> bool:
    """A choice that equals or exceeds the remaining count eats the last dango."""
    return choice >= remaining


def after_eat(choice: int, remaining: int) -> int:
    return 0 if eat_reaches(choice, remaining) else remaining - choice


def check_choice(choice: object) -> int:
    if isinstance(choice, bool) or not isinstance(choice, int) or not MIN_EAT <= choice <= MAX_EAT:
        raise MalformedInput(f"eat: the choice must be {MIN_EAT}..{MAX_EAT}, got {choice!r}")
    return choice


def check_start(game: int, start: object) -> int:
    allowed = GAME3_STARTS if game == 3 else (OPEN_START,)
    if isinstance(start, bool) or start not in allowed:
        raise MalformedInput(f"game {game}: the start count must be one of {allowed}, got {start!r}")
    return start  # type: ignore[return-value]


@dataclass
class Bowl:
    """One game's hidden count. ``remaining`` never goes negative; ``history`` lists the
    count before each eat (for the review)."""

    start: int
    remaining: int = -1
    choice: Optional[int] = None
    ate_last: bool = False
    history: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.remaining < 0:
            self.remaining = self.start

    def eat(self, choice: int) -> bool:
        """Record a committed choice; return ``ate_last``."""
        check_choice(choice)
        if self.remaining == 0:
            raise IllegalMove("eat: the bowl is empty (the game is over)")
        self.history.append(self.remaining)
        self.choice = choice
        last = eat_reaches(choice, self.remaining)
        self.ate_last = last
        self.remaining = after_eat(choice, self.remaining)
        return last

    def truthful(self, claim: int) -> bool:
        """TRUE iff the last choice equals the claim."""
        if self.choice is None:
            raise IllegalMove("verdict: nothing was eaten")
        return self.choice == claim

    def exactly_one(self) -> bool:
        return self.remaining == 1
