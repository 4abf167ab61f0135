"""The game statements as circuits, with versioned names (``card.play.v1``)."""
from zkbluff.statements.base import Statement  # noqa: F401
from zkbluff.statements.registry import all_statements, get_statement  # noqa: F401
