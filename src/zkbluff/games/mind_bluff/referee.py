"""Mind Bluff's proven referee, the seats' own proofs, and the check every client runs.

The referee keeps the remaining count committed (``Poseidon(count, salt)``, a fresh salt
after every eat) and game 3's start committed; it never publishes either while a game
runs. Every verdict it gives is a Groth16 proof against the players' committed choices
and its own committed count:

============================  ==============================================================
verdict                       statement (publics the client checks)
============================  ==============================================================
games 1 and 2 start at 30     ``value.counter_is.v1`` (start commitment, target 30, equal 1)
game 3: start and coin        ``value.start_draw.v1`` (referee commitment from the header,
                              the seats' revealed entropies, start commitment, coin)
survived / ate the last       ``value.counter_step.v1`` (count commitment before, after,
                              the eater's choice commitment, ate_last)
All done                      ``value.counter_is.v1`` (count commitment, target 1, equal)
TRUE / BLUFF                  ``value.choice.v1`` (the choice commitment, the claim, verdict)
============================  ==============================================================

A seat proves its own statements: the range of a committed choice (``value.choice.v1``
against claim 0: no choice in 1..3 equals 0, so its verdict is always 0 and discloses
nothing but the range) and, while in debt, that its claim equals its committed choice
(``value.choice.v1`` with verdict 1; the prover refuses a lie).

Game 3's start cannot be chosen by the referee: it committed ``Poseidon(entropy, salt)``
in the series header before any seat revealed its entropy (each seat committed its own
with :func:`~zkbluff.protocol.commit_reveal.commit_entropy`), and the start is derived
inside the proof from all three. Every proof takes the ``context`` its caller gives (the
engine's transcript context: match, line, previous hash).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.games.mind_bluff.bowl import Bowl, check_choice
from zkbluff.games.mind_bluff.review import ChoiceOpening, GameCommitments, GameReveal
from zkbluff.games.mind_bluff.rules import (
    MAX_GAMES, OPEN_START, AllDoneVerdict, DoubtVerdict, EatVerdict, StartGame, fixed_first_player,
)
from zkbluff.groth16 import Proof, ProvingKey, VerifyingKey, prove, verify
from zkbluff.protocol.commit_reveal import fresh_salt
from zkbluff.protocol.messages import open_sealed, seal
from zkbluff.statements.registry import get_statement
from zkbluff.statements.values import start_draw_native

CHOICE = "value.choice.v1"
STEP = "value.counter_step.v1"
COUNT_IS = "value.counter_is.v1"
DRAW = "value.start_draw.v1"
STATEMENTS = (CHOICE, STEP, COUNT_IS, DRAW)
ALL_DONE_TARGET = 1
RANGE_CLAIM = 0  # value.choice.v1 against claim 0 is a pure range proof


def entropy_field(entropy_hex: str) -> int:
    """A seat's revealed draw entropy (64 hex digits, as committed in the header) as the
    field element the draw statement takes."""
    if not (isinstance(entropy_hex, str) and len(entropy_hex) == 64
            and all(c in "0123456789abcdef" for c in entropy_hex)):
        raise MalformedInput(f"entropy: expected 64 lowercase hex digits, got {entropy_hex!r:.80}")
    return int(entropy_hex, 16) % r


# ------------------------------------------------------------------ proofs

@dataclass(frozen=True)
class Proven:
    """A proof with its statement and named public inputs."""

    statement: str
    public: dict[str, int]
    proof: Proof

    def public_list(self) -> list[int]:
        return [self.public[k] for k in get_statement(self.statement).public]


class KeyRing:
    """The proving keys of Mind Bluff's statements (a verifier needs only ``vk``)."""

    def __init__(self, keys: dict[str, ProvingKey], backend=None):
        missing = [k for k in STATEMENTS if k not in keys]
        if missing:
            raise MalformedInput(f"key ring: no keys for {', '.join(missing)}")
        self.keys = keys
        self.backend = backend

    @classmethod
    def cached(cls, backend=None) -> "KeyRing":
        from zkbluff.statements.keys import load_keys

        return cls({k: load_keys(k) for k in STATEMENTS}, backend)

    @classmethod
    def insecure_for_tests(cls, seed: str, backend=None) -> "KeyRing":
        from zkbluff.groth16 import setup_insecure_seeded_for_tests

        return cls({k: setup_insecure_seeded_for_tests(get_statement(k).build()[0], seed + k, backend=backend)
                    for k in STATEMENTS}, backend)

    def vk(self, key_id: str) -> VerifyingKey:
        return self.keys[key_id].vk

    def prove(self, key_id: str, inputs: dict) -> Proven:
        """Build the witness (refused, naming the constraint, if unsatisfied) and prove."""
        stmt = get_statement(key_id)
        system, witness = stmt.build(inputs)
        assert witness is not None
        proof = prove(self.keys[key_id], witness, backend=self.backend)
        return Proven(key_id, dict(zip(stmt.public, witness[1: 1 + system.n_public])), proof)

    def verifying_keys(self) -> "VerifyingKeys":
        """What a client needs to check verdicts: the verifying keys only."""
        return VerifyingKeys({k: pk.vk for k, pk in self.keys.items()}, self.backend)

    def check(self, p: Proven, statement: str, expected: dict[str, int]) -> None:
        self.verifying_keys().check(p, statement, expected)


class VerifyingKeys:
    """The verifying keys of Mind Bluff's statements: all a seat's client needs."""

    def __init__(self, vks: dict[str, VerifyingKey], backend=None):
        missing = [k for k in STATEMENTS if k not in vks]
        if missing:
            raise MalformedInput(f"verifying keys: none for {', '.join(missing)}")
        self.vks = vks
        self.backend = backend

    def check(self, p: Proven, statement: str, expected: dict[str, int]) -> None:
        """Raise unless ``p`` proves ``statement`` with exactly the ``expected`` publics
        (IllegalMove for a proof of something else or about other values, MalformedInput
        for a malformed one, InvalidProof if it does not verify)."""
        if not isinstance(p, Proven) or p.statement != statement:
            raise IllegalMove(f"expected a proof of {statement}, got {getattr(p, 'statement', p)!r:.60}")
        names = get_statement(statement).public
        if set(p.public) != set(names):
            raise MalformedInput(f"{statement}: public inputs {sorted(p.public)}, expected {list(names)}")
        for k, v in expected.items():
            if p.public[k] != v:
                raise IllegalMove(f"{statement}: public input {k} is {p.public[k]}, the table holds {v}")
        verify(self.vks[statement], p.public_list(), p.proof, backend=self.backend)


# ------------------------------------------------------------------ a seat's side

def commit_choice(choice: int, salt: Optional[int] = None) -> ChoiceOpening:
    check_choice(choice)
    return ChoiceOpening(choice, fresh_salt() if salt is None else salt)


def seal_choice(key: bytes, match_id: str, line: int, opening: ChoiceOpening) -> str:
    """The seat's choice opening, sealed for the referee (AES-GCM bound to match and line)."""
    return seal(key, match_id, line, {"choice": opening.choice, "salt": str(opening.salt)})


def open_choice(key: bytes, match_id: str, line: int, sealed: str) -> ChoiceOpening:
    """The referee opens a sealed choice; a payload of the wrong shape is MalformedInput."""
    d = open_sealed(key, match_id, line, sealed)
    if not (isinstance(d, dict) and set(d) == {"choice", "salt"} and isinstance(d["salt"], str)
            and d["salt"].isdigit() and int(d["salt"]) < r):
        raise MalformedInput("sealed choice: expected {choice, salt} with a decimal salt below r")
    return ChoiceOpening(check_choice(d["choice"]), int(d["salt"]))


def prove_choice_range(keys: KeyRing, opening: ChoiceOpening, context: int) -> Proven:
    """The seat's proof that its committed choice is 1, 2 or 3 (discloses nothing else)."""
    return keys.prove(CHOICE, {"choice": opening.choice, "choice_salt": opening.salt, "claim": RANGE_CLAIM,
                               "verdict": 0, "context": context})


def prove_honest_claim(keys: KeyRing, opening: ChoiceOpening, claim: int, context: int) -> Proven:
    """A seat in debt: the proof that ``claim`` equals its committed choice. A lie cannot
    be proven (:class:`UnsatisfiedConstraint` on ``verdict``)."""
    return keys.prove(CHOICE, {"choice": opening.choice, "choice_salt": opening.salt, "claim": claim,
                               "verdict": 1, "context": context})


# ------------------------------------------------------------------ the referee

@dataclass
class GameSecrets:
    """The referee's secrets for one game: the bowl, the salt of each count commitment
    (start first), and the choices' openings in eat order."""

    game: int
    bowl: Bowl
    count_salts: list[int] = field(default_factory=list)
    openings: list[ChoiceOpening] = field(default_factory=list)
    start_salt: int = 0
    ended: bool = False

    @property
    def count_commitment(self) -> int:
        return commit(self.bowl.remaining, self.count_salts[-1])


class ProvenReferee:
    """Holds the hidden counts; every verdict comes with its proof. ``salts`` makes the
    fresh salts (injectable for reproducible tests)."""

    def __init__(self, keys: KeyRing, entropy: Optional[int] = None, entropy_salt: Optional[int] = None,
                 salts: Callable[[], int] = fresh_salt):
        self.keys = keys
        self.salts = salts
        self.entropy = salts() if entropy is None else entropy
        self.entropy_salt = salts() if entropy_salt is None else entropy_salt
        self.game: Optional[GameSecrets] = None

    @property
    def commitment(self) -> int:
        """Published in the series header, before any seat reveals its draw entropy."""
        return commit(self.entropy, self.entropy_salt)

    def start_game(self, game: int, context: int,
                   seat_entropies: Optional[tuple[int, int]] = None) -> tuple[StartGame, Proven]:
        """Commit the game's start. Games 1 and 2: 30, proven by ``counter_is``; game 3: the
        draw of every entropy, proven by ``start_draw`` (its coin picks the first player)."""
        salt = self.salts()
        if game < MAX_GAMES:
            first = fixed_first_player(game)
            assert first is not None
            self.game = GameSecrets(game, Bowl(OPEN_START), [salt], start_salt=salt)
            p = self.keys.prove(COUNT_IS, {"count": OPEN_START, "salt": salt, "target": OPEN_START, "equal": 1,
                                           "context": context})
            return StartGame(game, first), p
        if seat_entropies is None or len(seat_entropies) != 2:
            raise MalformedInput("game 3: the draw needs both seats' revealed entropies")
        start, coin = start_draw_native(self.entropy, seat_entropies)
        self.game = GameSecrets(game, Bowl(start), [salt], start_salt=salt)
        p = self.keys.prove(DRAW, {"referee_entropy": self.entropy, "referee_salt": self.entropy_salt,
                                   "start_salt": salt, "entropy0": seat_entropies[0],
                                   "entropy1": seat_entropies[1], "context": context})
        return StartGame(game, coin), p

    def eat(self, opening: ChoiceOpening, posted_commitment: int, context: int) -> tuple[EatVerdict, Proven]:
        """Settle a sealed eat: survived, or ate the last."""
        g = self._game()
        if opening.commitment != posted_commitment:
            raise CommitmentMismatch("eat: the sealed choice does not open the posted choice commitment")
        old, old_salt = g.bowl.remaining, g.count_salts[-1]
        if g.ended:
            raise IllegalMove("eat: the game is over")
        ate_last = g.bowl.eat(opening.choice)
        g.ended = ate_last
        new_salt = self.salts()
        g.count_salts.append(new_salt)
        g.openings.append(opening)
        p = self.keys.prove(STEP, {"old_count": old, "old_salt": old_salt, "choice": opening.choice,
                                   "choice_salt": opening.salt, "new_salt": new_salt, "context": context})
        return EatVerdict(ate_last), p

    def doubt(self, claim: int, context: int) -> tuple[DoubtVerdict, Proven]:
        """TRUE iff the last choice equals the claim."""
        g = self._game()
        if not g.openings:
            raise IllegalMove("doubt: nothing was eaten")
        o = g.openings[-1]
        p = self.keys.prove(CHOICE, {"choice": o.choice, "choice_salt": o.salt, "claim": claim, "context": context})
        return DoubtVerdict(bool(p.public["verdict"])), p

    def all_done(self, context: int) -> tuple[AllDoneVerdict, Proven]:
        g = self._game()
        p = self.keys.prove(COUNT_IS, {"count": g.bowl.remaining, "salt": g.count_salts[-1],
                                       "target": ALL_DONE_TARGET, "context": context})
        g.ended = True
        return AllDoneVerdict(bool(p.public["equal"])), p

    def reveal(self) -> GameReveal:
        """After the game ends (never before): open the start, every count and every choice."""
        g = self._game()
        if not g.ended:
            raise IllegalMove(f"reveal: game {g.game} is still running; its truth is revealed only after it ends")
        third = g.game == MAX_GAMES
        return GameReveal(g.game, g.bowl.start, tuple(g.count_salts), tuple(g.openings),
                          self.entropy if third else None, self.entropy_salt if third else None)

    def _game(self) -> GameSecrets:
        if self.game is None:
            raise IllegalMove("no game has started")
        return self.game


# ------------------------------------------------------------------ a client's check

class VerdictChecker:
    """What a seat's own client (and the offline verifier) runs on every verdict: the
    proof must be of the right statement, against the commitments the table holds, and
    verify. It tracks the current count commitment from one step to the next."""

    def __init__(self, keys: "KeyRing | VerifyingKeys", referee_commitment: int):
        self.keys = keys.verifying_keys() if isinstance(keys, KeyRing) else keys
        self.referee_commitment = referee_commitment
        self.games: list[GameCommitments] = []

    @property
    def current(self) -> GameCommitments:
        if not self.games:
            raise IllegalMove("no game has started")
        return self.games[-1]

    def _last_choice(self, settled: bool) -> int:
        """The latest choice commitment; ``settled``: its eat verdict was given."""
        g = self.current
        if not g.choice_commitments or (len(g.count_commitments) == len(g.choice_commitments)) != settled:
            raise IllegalMove("no choice is waiting for this verdict" if not settled
                              else "no settled eat to speak of")
        return g.choice_commitments[-1]

    def _count(self) -> int:
        """The current count commitment (the start's before any eat)."""
        g = self.current
        return g.count_commitments[-1] if g.count_commitments else g.start_commitment

    def start(self, action: StartGame, p: Proven, context: int,
              seat_entropies: Optional[tuple[int, int]] = None) -> None:
        if action.game < MAX_GAMES:
            self.keys.check(p, COUNT_IS, {"target": OPEN_START, "equal": 1, "context": context})
            self.games.append(GameCommitments(action.game, p.public["commitment"]))
            return
        if seat_entropies is None:
            raise MalformedInput("game 3: the check needs both seats' revealed entropies")
        self.keys.check(p, DRAW, {"referee_commitment": self.referee_commitment, "entropy0": seat_entropies[0],
                                  "entropy1": seat_entropies[1], "coin": action.first, "context": context})
        self.games.append(GameCommitments(action.game, p.public["start_commitment"], [], [],
                                          self.referee_commitment, seat_entropies))

    def choice_posted(self, commitment: int, range_proof: Proven, context: int) -> None:
        self.keys.check(range_proof, CHOICE, {"choice_commitment": commitment, "claim": RANGE_CLAIM, "verdict": 0,
                                              "context": context})
        self.current.choice_commitments.append(commitment)

    def eat_verdict(self, action: EatVerdict, p: Proven, context: int) -> None:
        self.keys.check(p, STEP, {"old_commitment": self._count(), "choice_commitment":
                                  self._last_choice(settled=False), "ate_last": int(action.ate_last),
                                  "context": context})
        self.current.count_commitments.append(p.public["new_commitment"])

    def honest_claim(self, claim: int, p: Proven, context: int) -> None:
        self.keys.check(p, CHOICE, {"choice_commitment": self._last_choice(settled=True), "claim": claim,
                                    "verdict": 1, "context": context})

    def doubt_verdict(self, claim: int, action: DoubtVerdict, p: Proven, context: int) -> None:
        self.keys.check(p, CHOICE, {"choice_commitment": self._last_choice(settled=True), "claim": claim,
                                    "verdict": int(action.truthful), "context": context})

    def all_done_verdict(self, action: AllDoneVerdict, p: Proven, context: int) -> None:
        self.keys.check(p, COUNT_IS, {"commitment": self._count(), "target": ALL_DONE_TARGET,
                                      "equal": int(action.exactly_one), "context": context})

