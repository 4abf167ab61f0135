"""The registry of game specs, keyed by the header's ``game``. The engine looks specs up
here; the games register themselves in :mod:`zkbluff.games.registry` (one line per game),
which the ``zkbluff.games`` package imports, so every spec is registered before anything
under ``zkbluff.games`` runs."""
from __future__ import annotations

import importlib
from typing import Any, Optional

from zkbluff.errors import MalformedInput
from zkbluff.games.engine.spec import GameSpec

_GAMES: dict[str, type[GameSpec]] = {}
#: games named but not imported yet: game -> "module:SpecClass" (see :func:`register_lazy`)
_LAZY: dict[str, str] = {}


def register(spec: type[GameSpec]) -> type[GameSpec]:
    """Add a spec class (usable as a decorator); a second spec under one name is an error."""
    if _GAMES.get(spec.game, spec) is not spec:
        raise ValueError(f"two specs registered as game {spec.game!r}")
    _GAMES[spec.game] = spec
    return spec


def register_lazy(game: str, target: str) -> None:
    """Name ``game``, whose spec class ``"module:Class"`` is imported (and registered) when
    first looked up: a process that verifies one game's transcript imports that game only."""
    if game in _GAMES or _LAZY.get(game, target) != target:
        raise ValueError(f"two specs registered as game {game!r}")
    _LAZY[game] = target


def _resolve(game: str) -> None:
    target = _LAZY.get(game)
    if target is None:
        return
    module, _, attr = target.partition(":")
    spec = getattr(importlib.import_module(module), attr)
    if spec.game != game:
        raise ValueError(f"{target} is the spec of game {spec.game!r}, registered as {game!r}")
    _LAZY.pop(game, None)
    register(spec)


def games() -> dict[str, type[GameSpec]]:
    for game in list(_LAZY):
        _resolve(game)
    return dict(_GAMES)


def game_names() -> list[str]:
    """Every registered game's name, sorted (nothing imported)."""
    return sorted({*_GAMES, *_LAZY})


def spec_class(game: Any) -> type[GameSpec]:
    if isinstance(game, str) and game in _LAZY:
        _resolve(game)
    if not isinstance(game, str) or game not in _GAMES:
        raise MalformedInput(f"unknown game {game!r}; known: {', '.join(game_names())}")
    return _GAMES[game]


def spec_for(game: Any, options: Optional[Any] = None) -> GameSpec:
    """The spec of ``game`` with the header's options (:class:`MalformedInput` if unknown)."""
    return spec_class(game)(options)
