"""The games: the match engine (games/engine), one folder per game, and the registry that
names them (imported here, so every spec is registered before any game runs)."""
from zkbluff.games import registry  # noqa: F401
