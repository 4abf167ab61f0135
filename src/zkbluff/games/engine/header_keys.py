"""The one check of a header's verifying keys, shared by the referee, the offline verifier
and a seat's client: every statement of the game keyed, each key parsed with its size guards
first (``MAX_PUBLIC``, ``len(IC) == nPublic + 1``, every field; :meth:`VerifyingKey.from_json`),
then its public count compared with the statement's."""
from __future__ import annotations

from typing import Any, Sequence

from zkbluff.errors import MalformedInput, UntrustedKey
from zkbluff.groth16 import VerifyingKey
from zkbluff.statements import get_statement

#: the reason code of a header whose keys are not a well-formed key per statement
HEADER = "header.malformed"


def header_verifying_keys(keys: Any, statements: Sequence[str]) -> dict[str, VerifyingKey]:
    """The header's ``keys`` (statement id -> snarkjs verification key JSON) as parsed keys.
    :class:`MalformedInput` (``header.malformed``) for a missing or extra statement or a key
    that fails a size or field check; :class:`UntrustedKey` (``header.key``) for a key whose
    public count is not its statement's (a key of another statement)."""
    if not isinstance(keys, dict) or set(keys) != set(statements):
        raise MalformedInput(f"header: expected keys for {sorted(statements)}", code=HEADER)
    try:  # every key's shape and count first, before any point of any key is decoded
        for k, v in keys.items():
            declared, expected = VerifyingKey.check_shape(v), len(get_statement(k).public)
            if declared != expected:
                raise UntrustedKey(f"header: the key for {k} has {declared} public inputs, the statement {expected}",
                                   statement=k)
        return {k: VerifyingKey.from_json(v) for k, v in keys.items()}
    except MalformedInput as exc:
        exc.code = HEADER
        raise
