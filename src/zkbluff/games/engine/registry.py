"""The registry of game specs, keyed by the header's ``game``. The engine looks specs up
here; the games register themselves in :mod:`zkbluff.games.registry` (one line per game),
which the ``zkbluff.games`` package imports, so every spec is registered before anything
under ``zkbluff.games`` runs."""
from __future__ import annotations

from typing import Any, Optional

from zkbluff.errors import MalformedInput
from zkbluff.games.engine.spec import GameSpec

_GAMES: dict[str, type[GameSpec]] = {}


def register(spec: type[GameSpec]) -> type[GameSpec]:
    """Add a spec class (usable as a decorator); a second spec under one name is an error."""
    if _GAMES.get(spec.game, spec) is not spec:
        raise ValueError(f"two specs registered as game {spec.game!r}")
    _GAMES[spec.game] = spec
    return spec


def games() -> dict[str, type[GameSpec]]:
    return dict(_GAMES)


def spec_class(game: Any) -> type[GameSpec]:
    if not isinstance(game, str) or game not in _GAMES:
        raise MalformedInput(f"unknown game {game!r}; known: {', '.join(sorted(_GAMES))}")
    return _GAMES[game]


def spec_for(game: Any, options: Optional[Any] = None) -> GameSpec:
    """The spec of ``game`` with the header's options (:class:`MalformedInput` if unknown)."""
    return spec_class(game)(options)
