"""Bluffers (seed 003): 2-4 players, the 20-card deck with jokers, the table card, Call
Bluff and a revolver per player whose bullet nobody can see or move."""
