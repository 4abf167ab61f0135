"""Fixed randomness, for practice matches, tests and replays: every draw a party makes (the
``secrets`` module's: deal entropy and salts, match ids, proof blinding, batch weights; and
pycryptodome's: signing and channel keys, sealing nonces) comes from generators seeded with
one number, so the same seed and the same moves replay the same match, line for line.

It changes no derivation; it only makes the parties' entropy known, which is exactly why a
seeded match is not a fair one: whoever knows the seed knows the cards. ``zkbluff play
--seed`` (a practice match) and :func:`zkbluff.games.engine.table.open_match`'s ``seed=``
both use it; the engine refuses a seed outside tests unless the match is marked practice.
"""
from __future__ import annotations

import contextlib
import random
import secrets
from typing import Any, Callable, Iterator


class FixedRandomness:
    """The generators of one seed. :meth:`draws` patches them in for as long as it is
    entered; entering it again continues the same streams (a table enters it for each
    call, so the draws of a whole match come from one sequence). The ``secrets`` stream is
    ``random.Random(seed)``; pycryptodome's is a second generator of its own, so seeding
    the keys too left every earlier seed's deal as it was."""

    def __init__(self, seed: int):
        self.seed = seed
        self.rng = random.Random(seed)
        self.crypto_rng = random.Random(f"zkbluff.crypto.{seed}")

    def party_key_seed(self, party: str) -> str:
        """A party's signing key seed (hex), from the seed and the party's name alone: the
        same on a replay whatever else was drawn first in the process (a first use that
        loads keys or caches draws more than a second one does)."""
        import hashlib

        return hashlib.sha256(f"zkbluff.party-key.{self.seed}.{party}".encode()).hexdigest()

    def _crypto_bytes(self, n: int) -> bytes:
        return self.crypto_rng.randbytes(n)

    @contextlib.contextmanager
    def draws(self) -> Iterator[None]:
        import Crypto.PublicKey.ECC as ecc
        import Crypto.Random as crypto_random

        rng = self.rng
        patches: list[tuple[Any, str, Callable[..., Any]]] = [
            (secrets, "randbelow", lambda n: rng.randrange(n)),
            (secrets, "randbits", rng.getrandbits),
            (secrets, "token_bytes", lambda n=32: rng.randbytes(32 if n is None else n)),
            (secrets, "token_hex", lambda n=32: rng.randbytes(32 if n is None else n).hex()),
            (secrets, "choice", rng.choice),
            (secrets, "SystemRandom", lambda: rng),
            (crypto_random, "get_random_bytes", self._crypto_bytes),
            (ecc, "get_random_bytes", self._crypto_bytes),
        ]
        saved = [(module, name, getattr(module, name)) for module, name, _ in patches]
        for module, name, fn in patches:
            setattr(module, name, fn)
        try:
            yield
        finally:
            for module, name, fn in saved:
                setattr(module, name, fn)


@contextlib.contextmanager
def seeded_randomness(seed: int) -> Iterator[None]:
    """While inside, every party's draws come from ``seed``'s generators
    (:class:`FixedRandomness`)."""
    with FixedRandomness(seed).draws():
        yield
