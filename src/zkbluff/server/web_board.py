"""The leaderboard as public JSON for a web page (issue 33, seed 003): the season picked
(``YYYY-MM``, or ``all`` for all time), the game filter, each row's tier badge, and the
viewing player's own row marked when their key is known. Only public data leaves here:
player keys, names, points, matches, tiers."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Optional

from zkbluff.errors import MalformedInput
from zkbluff.server.storage import TIERS, ResultStore, season_of

SEASON = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def check_season(season: Optional[str], now: Optional[datetime] = None) -> str:
    """``None`` is this month's season; ``all`` is all time; else a ``YYYY-MM`` month."""
    if season is None:
        return season_of(now or datetime.now(timezone.utc))
    if not isinstance(season, str) or (season != "all" and not SEASON.fullmatch(season)):
        raise MalformedInput(f"season: expected YYYY-MM or all, got {str(season)[:20]!r}")
    return season


def board_json(store: ResultStore, season: Optional[str] = None, game: Optional[str] = None,
               limit: int = 50, me: Optional[str] = None,
               now: Optional[datetime] = None) -> dict[str, Any]:
    """The page's data: {season, game, tiers, rows: [{rank, player, name, points, matches,
    tier, me}]}."""
    picked = check_season(season, now)
    if game is not None and (not isinstance(game, str) or not re.fullmatch(r"[a-z0-9-]{1,40}", game)):
        raise MalformedInput(f"game: expected a game name, got {str(game)[:40]!r}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 500:
        raise MalformedInput(f"limit: expected 1..500, got {limit!r}")
    rows = store.leaderboard(None if picked == "all" else picked, game, limit)
    return {
        "season": picked,
        "game": game,
        "tiers": [{"tier": t, "from": p} for t, p in TIERS],
        "rows": [{"rank": r.rank, "player": r.player, "name": r.name, "points": r.points,
                  "matches": r.matches, "tier": r.tier, "me": me is not None and r.player == me}
                 for r in rows],
    }
