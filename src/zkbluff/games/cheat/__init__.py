"""Cheat (seed 004, Boombala's bluff): pure rules, bots, terminal text, rules page."""
