"""The deal's own clock, for the deal schemes whose table waits on one deal line at a time
(the oblivious deal, the house-blind deal, a game folder's own, such as Liar's Dice's roll):
the line owed is due ``limits.deal`` after the last line's stamp; past it the referee writes
the scheme's timeout line, and every party checks that line is the one the transcript gives
and is stamped after the deadline. Also how a fault in the deal settles the places."""
from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional

from zkbluff.errors import EarlyTimeout, IllegalMove


class OneLineDealClock:
    """Mixin for a :class:`~zkbluff.games.engine.spec.DealScheme`: :meth:`owed` names the line
    the table waits for, ``(kind, who, round)``; :meth:`owing_seat` reads the seat from ``who``
    (None: the dealer). :attr:`timeout_kind` is the scheme's referee line."""

    timeout_kind: ClassVar[str]

    def owed(self, view: Any) -> Optional[tuple[str, Any, int]]:
        raise NotImplementedError

    def owing_seat(self, who: Any) -> Optional[int]:
        """The seat that owes the line (None: the dealer), from :meth:`owed`'s ``who``."""
        return who if who is None else int(who)

    def deal_deadline(self, view: Any) -> Optional[float]:
        """While a deal line is owed: the last line's stamp plus ``limits.deal`` (None without it)."""
        limits = view.header.get("limits", {})
        if self.owed(view) is None or "deal" not in limits or view.head_at is None:
            return None
        return float(view.head_at) + float(limits["deal"])

    def timeout_data(self, view: Any) -> Optional[dict[str, Any]]:
        """The timeout line's data the transcript gives now: who owes which line since which
        line, and the deadline; None when nothing is owed under a deal limit."""
        owed, deadline = self.owed(view), self.deal_deadline(view)
        if owed is None or deadline is None:
            return None
        return {"seat": self.owing_seat(owed[1]), "line": owed[0], "since": view.next_line - 1,
                "deadline": deadline}

    def referee_line(self, view: Any, now: float) -> Optional[tuple[str, dict[str, Any]]]:
        data = self.timeout_data(view)
        if data is None or now <= data["deadline"]:
            return None
        return self.timeout_kind, data

    def check_timeout_line(self, view: Any, data: Any, event: Mapping[str, Any],
                           code: Optional[str] = None) -> dict[str, Any]:
        """Refuse a timeout line that is not the one the transcript gives (``IllegalMove``, with
        ``code`` if given) or is stamped at or before the deadline (``EarlyTimeout``); its data."""
        expected = self.timeout_data(view)
        if expected is None:
            raise IllegalMove(f"{self.timeout_kind}: nobody owes a deal line under a deal limit")
        if data != expected:
            raise IllegalMove(f"{self.timeout_kind}: {data!r:.160}; the transcript gives {expected}", code=code)
        at = event.get("at")
        if isinstance(at, bool) or not isinstance(at, (int, float)) or at <= expected["deadline"]:
            raise EarlyTimeout(f"{self.timeout_kind}: declared at {at!r}, not after the deadline "
                               f"{expected['deadline']}")
        return expected


def last_at_fault(standing: tuple[int, ...], seat: int) -> tuple[int, ...]:
    """The places of ``standing`` (1 = best, ties share a place) with ``seat`` strictly
    last: every other seat ranked among the others by its standing place, ``seat`` below all
    (a seat at fault in the deal can only lose by it)."""
    n = len(standing)
    others = [s for s in range(n) if s != seat]
    return tuple(n if s == seat else 1 + sum(standing[t] < standing[s] for t in others) for s in range(n))
