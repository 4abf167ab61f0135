"""The proof envelope: how a proof travels on a transcript line, made and checked in one
place for every game.

An envelope names the statement (its registry key id), the fingerprint of the verifying
key it was made with, its public inputs (decimal strings, in the statement's order), the
snarkjs-shaped proof, and the signer (the seat whose line carries it, ``None`` for the
dealer). Checking an envelope means, before any pairing: the statement is the one the
game demands, the key is the table's key for it, the number of publics is right, every
public the table holds (a commitment, a count, a rank mask) is equal, the ``context``
public binds the proof to this match, line and previous hash, and the signer is the
line's party. Only then is the proof verified, at once (:func:`check_envelope` with
``verify_now``) or collected into a :class:`ProofBatch` (every key's proofs in one
multi-pairing, the bad line named when it fails).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from zkbluff.errors import IllegalMove, InvalidProof, MalformedInput, TranscriptError
from zkbluff.groth16 import Proof, VerifyingKey, batch_verify, batch_verify_keys, public_from_json, verify
from zkbluff.groth16.keys import MAX_PUBLIC
from zkbluff.protocol.context import context_value

FIELDS = ("statement", "vk", "public", "proof", "signer")
#: the reason code of an envelope that is not well formed
MALFORMED = "proof.malformed"


@dataclass(frozen=True)
class Envelope:
    statement: str
    vk: str
    public: tuple[int, ...]
    proof: Proof
    signer: Optional[int]

    def to_json(self) -> dict[str, Any]:
        return {"statement": self.statement, "vk": self.vk, "public": [str(x) for x in self.public],
                "proof": self.proof.to_json(), "signer": self.signer}

    @classmethod
    def from_json(cls, obj: Any) -> "Envelope":
        if not isinstance(obj, dict) or set(obj) != set(FIELDS):
            got = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
            raise MalformedInput(f"proof envelope: fields {got}, expected {sorted(FIELDS)}", code=MALFORMED)
        statement, vk, signer = obj["statement"], obj["vk"], obj["signer"]
        if not isinstance(statement, str) or not isinstance(vk, str):
            raise MalformedInput("proof envelope: statement and vk must be strings", code=MALFORMED)
        if signer is not None and (isinstance(signer, bool) or not isinstance(signer, int)):
            raise MalformedInput(f"proof envelope: signer must be a seat number or null, got {signer!r:.40}",
                                 code=MALFORMED)
        if isinstance(obj["public"], list) and len(obj["public"]) > MAX_PUBLIC:  # before any is parsed
            raise MalformedInput(f"proof envelope: {len(obj['public'])} public inputs, at most {MAX_PUBLIC}",
                                 code=MALFORMED)
        try:
            return cls(statement, vk, tuple(public_from_json(obj["public"])), Proof.from_json(obj["proof"]), signer)
        except MalformedInput as exc:  # a point off the curve, a public input >= r: the envelope's fault
            exc.code = MALFORMED
            raise

    def named(self, names: Sequence[str]) -> dict[str, int]:
        """The publics by the statement's public-input names."""
        if len(self.public) != len(names):
            raise MalformedInput(f"{self.statement}: {len(self.public)} public inputs, expected {len(names)}",
                                 code=MALFORMED)
        return dict(zip(names, self.public))


def make_envelope(statement: str, vk: VerifyingKey, public: Sequence[int], proof: Proof,
                  signer: Optional[int]) -> dict[str, Any]:
    """The JSON envelope of a fresh proof."""
    return Envelope(statement, vk.fingerprint(), tuple(public), proof, signer).to_json()


def check_envelope(obj: Any, *, statement: str, vk: VerifyingKey, names: Sequence[str],
                   pinned: Mapping[str, int], match_id: str, line: int, prev: str, signer: Optional[int],
                   verify_now: bool = True) -> tuple[Envelope, dict[str, int]]:
    """Check an envelope against what the table holds; return it and its publics by name.

    Raises :class:`MalformedInput` for a badly shaped envelope, :class:`IllegalMove` for a
    proof of another statement, under another key, by another signer or with a public
    input other than the table's, and (``verify_now``) :class:`InvalidProof` if the proof
    does not verify. ``context`` is compared first: a proof made for another line, turn or
    match is reported as replayed (``proof.replayed``), whatever else differs; then every
    public the table holds (``proof.public``)."""
    env = Envelope.from_json(obj)
    if env.statement != statement:
        raise IllegalMove(f"expected a proof of {statement}, got one of {env.statement!r:.60}", code="proof.statement")
    if env.vk != vk.fingerprint():
        raise IllegalMove(f"the proof names key {env.vk!r:.20}, not the table's key for {statement}", code="proof.key")
    if env.signer != signer:
        raise IllegalMove(f"the proof names signer {env.signer!r}, but the line is made by {signer!r}",
                          code="proof.signer")
    got = env.named(names)
    expected = {"context": context_value(match_id, line, prev), **pinned}
    for k, v in expected.items():
        if k not in got:
            raise MalformedInput(f"{statement}: no public input named {k!r}", code=MALFORMED)
        if got[k] != v:
            if k == "context":
                raise IllegalMove(f"{statement}: public input context is not what the table holds (a proof from "
                                  f"another turn or match: not made for line {line} of this match)",
                                  code="proof.replayed")
            raise IllegalMove(f"{statement}: public input {k} is not what the table holds (mismatch)",
                              code="proof.public")
    if verify_now:
        verify(vk, env.public, env.proof)
    return env, got


class ProofBatch:
    """Proofs collected per verifying key and checked at once; a failure names the line
    (the ``tag`` each proof was added with)."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[VerifyingKey, str, list[tuple[Sequence[int], Proof, int]]]] = {}

    def __len__(self) -> int:
        return sum(len(v[2]) for v in self._items.values())

    def add(self, vk: VerifyingKey, env: Envelope, tag: int) -> None:
        self.add_proof(vk, env.statement, env.public, env.proof, tag)

    def add_proof(self, vk: VerifyingKey, statement: str, public: Sequence[int], proof: Proof, tag: int) -> None:
        """Collect a proof that did not come in an envelope (a deal's own proofs)."""
        entry = self._items.setdefault(vk.fingerprint(), (vk, statement, []))
        entry[2].append((public, proof, tag))

    def verify(self) -> None:
        """Raise :class:`TranscriptError` (``proof.invalid``) naming the first bad line: the
        earliest among the failing batches' first bad proofs. Every key's proofs are checked
        together in one multi-pairing (:func:`~zkbluff.groth16.verify.batch_verify_keys`);
        only when that fails is each key's batch checked on its own to find the line, so
        the line named is the first bad one whatever key its proof is under."""
        if not self._items:
            return
        try:
            batch_verify_keys([(vk, [(pub, pr) for pub, pr, _ in items]) for vk, _, items in self._items.values()])
        except InvalidProof:
            self._name_first_bad()
        self._items = {}

    def _name_first_bad(self) -> None:
        first: Optional[tuple[int, str]] = None
        for vk, statement, items in self._items.values():
            try:
                batch_verify(vk, [(pub, pr) for pub, pr, _ in items])
            except InvalidProof as exc:
                bad = items[exc.index or 0][2]
                if first is None or bad < first[0]:
                    first = (bad, statement)
        if first is None:  # fail closed: together they fail, each key's batch passes (a backend fault)
            tags = [tag for _, _, items in self._items.values() for _, _, tag in items]
            raise TranscriptError("the proofs do not verify together, though each key's batch does (a backend "
                                  "fault)", line=max(tags), code="proof.invalid")
        raise TranscriptError(f"the {first[1]} proof does not verify", line=first[0], code="proof.invalid")
