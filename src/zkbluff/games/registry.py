"""Every game the engine runs, registered by the header's ``game``. Adding a game is a
folder under games/ (rules, spec, text, bot) and one line here; see docs/adding-a-game.md."""
from __future__ import annotations

from typing import Any

from zkbluff.games.engine.registry import game_names, games, register, register_lazy, spec_class, spec_for

__all__ = ["game_names", "games", "register", "register_lazy", "spec_class", "spec_for"]

# each game's spec is imported when the game is first looked up (start-up of a verifier)
register_lazy("proof-or-bluff", "zkbluff.games.proof_or_bluff.spec:ClassicSpec")
register_lazy("five-up-two-down", "zkbluff.games.proof_or_bluff.spec:FiveUpSpec")
register_lazy("cheat", "zkbluff.games.cheat.spec:CheatSpec")
register_lazy("mind-bluff", "zkbluff.games.mind_bluff.spec:MindBluffSpec")
register_lazy("bluffers", "zkbluff.games.bluffers.spec:BluffersSpec")
register_lazy("liars-dice", "zkbluff.games.liars_dice.spec:LiarsDiceSpec")


def __getattr__(name: str) -> Any:
    if name == "GAMES":  # every game's spec, imported on first use
        return games()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
