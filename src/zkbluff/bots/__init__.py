"""House-bot policies. A policy sees only its seat's observation; its randomness is an
injected, seeded generator, so a match replays exactly."""
