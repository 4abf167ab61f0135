"""Every game the engine can run, keyed by the header's ``game``. Adding a game is a
folder under games/ (rules, spec, text, bot) and one line here; see docs/adding-a-game.md."""
from __future__ import annotations

from typing import Any, Optional

from zkbluff.errors import MalformedInput
from zkbluff.games.engine.spec import GameSpec
from zkbluff.games.proof_or_bluff.spec import ClassicSpec, FiveUpSpec

GAMES: dict[str, type[GameSpec]] = {
    ClassicSpec.game: ClassicSpec,
    FiveUpSpec.game: FiveUpSpec,
}


def spec_class(game: Any) -> type[GameSpec]:
    if not isinstance(game, str) or game not in GAMES:
        raise MalformedInput(f"unknown game {game!r}; known: {', '.join(sorted(GAMES))}")
    return GAMES[game]


def spec_for(game: Any, options: Optional[Any] = None) -> GameSpec:
    """The spec of ``game`` with the header's options (:class:`MalformedInput` if unknown)."""
    return spec_class(game)(options)
