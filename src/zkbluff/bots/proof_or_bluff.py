"""Proof or Bluff's bots live in their game's folder (games/proof_or_bluff/bot.py), one per
table, registered with the table's spec; re-exported here for the arena and old imports."""
from zkbluff.games.proof_or_bluff.bot import (  # noqa: F401
    ClassicHouseBot, ClassicRandomBot, FiveUpHouseBot, FiveUpRandomBot,
)
