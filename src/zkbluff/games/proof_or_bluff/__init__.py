"""Proof or Bluff (seed 000): the classic table and 5 Up 2 Down, as two engine specs."""
from zkbluff.games.proof_or_bluff.rules import (  # noqa: F401
    MODES, ClassicRules, FiveUpRules, Mode, rank_mask, rank_name,
)
