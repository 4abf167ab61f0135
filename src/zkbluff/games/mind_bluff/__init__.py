"""Mind Bluff (seed 001): the dango-eating bluff series with a hidden count, secret eats,
Believe/Doubt with one-bit TRUE/BLUFF proofs, honesty debt and All done."""
