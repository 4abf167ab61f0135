"""Every game the engine runs, registered by the header's ``game``. Adding a game is a
folder under games/ (rules, spec, text, bot) and one line here; see docs/adding-a-game.md."""
from __future__ import annotations

from zkbluff.games.engine.registry import games, register, spec_class, spec_for  # noqa: F401
from zkbluff.games.cheat.spec import CheatSpec
from zkbluff.games.mind_bluff.spec import MindBluffSpec
from zkbluff.games.proof_or_bluff.spec import ClassicSpec, FiveUpSpec

register(ClassicSpec)
register(FiveUpSpec)
register(CheatSpec)
register(MindBluffSpec)

GAMES = games()
