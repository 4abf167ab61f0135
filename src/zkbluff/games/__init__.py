"""Game rule engines (pure state machines: no I/O, no crypto) and their tables."""
