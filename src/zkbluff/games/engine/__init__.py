"""The match engine: what every game shares (rules base, typed actions, specs, parties,
referee, table, offline verifier). A game plugs in as a spec; see docs/adding-a-game.md."""
