"""Liar's Dice (Perudo): 2-6 seats, five dice each, rising bids, Dudo decided by every
seat's proven count of the bid face; the dice rolled house-blind by a commit-reveal roll
proven by each seat (``roll.py``). See RULES.md and docs in this folder."""
