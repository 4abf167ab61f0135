"""A table's clock for whole-match tests that are not about time: the real time plus what
the test skipped. Before a move, :meth:`SkipClock.past_pause` moves it to the end of a
pause the rules hold play for (Mind Bluff's 4.5 s after a doubt, game 3's 10 s coin), so
nothing sleeps; the stamps stay those a patient client would write."""
from __future__ import annotations

import time
from typing import Any


class SkipClock:
    def __init__(self) -> None:
        self.skipped = 0.0

    def __call__(self) -> float:
        return time.time() + self.skipped

    def past_pause(self, tab: Any) -> None:
        """On to the end of the table's pause (``Referee.paused_until``), if one runs now."""
        left = tab.view.paused_until - self()
        if left > 0:
            self.skipped += left


def play(tab: Any, seat: int, intent: Any) -> Any:
    """``tab.move`` once its clock (a :class:`SkipClock`) is past any pause."""
    tab.referee.clock.past_pause(tab)
    return tab.move(seat, intent)
