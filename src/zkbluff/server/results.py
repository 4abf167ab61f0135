"""Placements and points from a finished match, computed by the server from the rules'
:class:`~zkbluff.games.engine.rules.Result` (a client never sends points).

Points per place are seed 003's table for 2-4 seats (2 seats: 5, 1; 3 seats: 8, 4, 1;
4 seats: 10, 6, 3, 1). The seeds give no table for 5 or 6 seats (Cheat): ours is a
reading in the same spirit, as data. Seats that share a place share its points.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from zkbluff.errors import MalformedInput
from zkbluff.games.engine.rules import Result
from zkbluff.server.storage import SeatResult

PLACE_POINTS: dict[int, tuple[int, ...]] = {
    2: (5, 1), 3: (8, 4, 1), 4: (10, 6, 3, 1),
    5: (12, 8, 5, 3, 1), 6: (14, 10, 7, 4, 2, 1),  # our reading (the seeds stop at 4 seats)
}


def place_points(n_seats: int, place: int) -> int:
    if n_seats not in PLACE_POINTS:
        raise MalformedInput(f"points: no table for {n_seats} seats (known: {sorted(PLACE_POINTS)})")
    if not 1 <= place <= n_seats:
        raise MalformedInput(f"points: place {place} at a {n_seats}-seat table")
    return PLACE_POINTS[n_seats][place - 1]


def player_id(public_key: str) -> str:
    """A person's stable identity on the leaderboard: their Ed25519 public key."""
    return f"key:{public_key}"


def seat_results(result: Result, header: Mapping[str, Any], bots: Sequence[bool],
                 bot_clients: Sequence[bool] = ()) -> list[SeatResult]:
    """Each seat's place and points. ``header``: the match's header data (names, keys);
    ``bots[i]``: seat i is a house bot. A seat the game marks as earning no points
    (``result.no_points``: Bluffers' Leave Table, a forfeit by the clock) gets 0 points
    at its place. ``bot_clients[i]``: seat i's client said a bot plays it (its row keeps
    the seat's key and counts as a bot: off the leaderboard, not a real player)."""
    names, keys = header["seats"], header["parties"]["seats"]
    n = len(names)
    declared = list(bot_clients) or [False] * n
    if len(result.placements) != n or len(bots) != n or len(declared) != n:
        raise MalformedInput(f"result: {len(result.placements)} placements for {n} seats")
    return [SeatResult(player=f"bot:{names[i]}#{i}" if bots[i] else player_id(keys[i]), name=names[i],
                       is_bot=bool(bots[i] or declared[i]), place=p,
                       points=0 if result.no_points and result.no_points[i] else place_points(n, p),
                       left=bool(result.no_points and result.no_points[i]))
            for i, p in enumerate(result.placements)]
