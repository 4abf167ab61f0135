"""Which verifying keys a verifier accepts: the default trust of zkbluff.

A Groth16 proof is only as good as its key: whoever knows the setup's secrets (tau,
alpha, beta, delta - tau alone is enough) can make a valid proof of anything. So a
verifier accepts a key only if

(a) it is a **pinned project key** (the ``keys`` of the manifest of the registry this
    package carries, :func:`~zkbluff.ceremony.project.registry_dir`: never a
    ``circuits/`` found in the folder the command runs in; made by the project ceremony
    that ``zkbluff ceremony verify`` re-checks), or
(b) it is a **per-match key** whose ceremony record verifies and includes a
    contribution, signed by the seat's key, from every seat of the match
    (:mod:`zkbluff.ceremony.match`; sound if any one seat was honest), or
(c) it belongs to a key set the user passed deliberately (``--keys DIR``), which the
    caller must report loudly (:attr:`Trust.loud`).

Anything else raises :class:`~zkbluff.errors.UntrustedKey` (exit 1) naming the
statement and the key's fingerprint.

Usage (the referee and ``transcript verify``)::

    ctx = TrustContext.default()                       # pinned project keys
    ctx = ctx.with_match_keys(verified_match_keys)     # (b), from verify_match_ceremony
    ctx = ctx.with_private_keys(Path("DIR"))           # (c), --keys DIR
    trust = check_key("card.claim.v1@deck=52", vk, ctx)   # raises UntrustedKey
    if trust.loud: print(trust.loud)
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Optional

from zkbluff.ceremony.project import pinned_keys, registry_dir
from zkbluff.errors import MalformedInput, UntrustedKey
from zkbluff.groth16.keys import VerifyingKey

PROJECT, MATCH, PRIVATE = "project", "match", "private"


@dataclass(frozen=True)
class Trust:
    """Why a key is accepted: ``source`` is ``"project"``, ``"match"`` or ``"private"``;
    ``loud`` is a line the caller must print for a private key (else None)."""

    statement: str
    fingerprint: str
    source: str
    loud: Optional[str] = None


def _frozen(d: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class TrustContext:
    """The keys a verifier accepts, each ``{statement id: vk fingerprint}``."""

    pinned: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    match: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    private: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    private_source: Optional[str] = None

    @classmethod
    def default(cls, folder: Optional[Path] = None) -> "TrustContext":
        """Trust the pinned project keys (from ``folder`` or the registry)."""
        pins = pinned_keys(folder or registry_dir())
        return cls(pinned=_frozen({k: v["vk_fingerprint"] for k, v in pins.items()}))

    def with_match_keys(self, keys: Mapping[str, str]) -> "TrustContext":
        """Also trust these per-match keys. Pass only the result of
        :func:`zkbluff.ceremony.match.verify_match_ceremony` (a record checked to include
        every seat), never fingerprints read from a transcript."""
        return replace(self, match=_frozen({**self.match, **keys}))

    def with_private_keys(self, folder: Path) -> "TrustContext":
        """Also trust the key set in ``folder`` (``<stem>.vk.json`` files), deliberately
        given by the user; every acceptance through it is loud."""
        keys = {}
        try:
            files = sorted(Path(folder).glob("*.vk.json"))
        except OSError as exc:
            raise MalformedInput(f"--keys {folder}: cannot list ({exc})") from None
        if not files:
            raise MalformedInput(f"--keys {folder}: no *.vk.json verifying keys there")
        for f in files:
            try:
                vk = VerifyingKey.from_json(json.loads(f.read_text()))
            except (OSError, ValueError) as exc:
                raise MalformedInput(f"{f}: {exc}") from None
            keys[f.name[: -len(".vk.json")]] = vk.fingerprint()
        return replace(self, private=_frozen({**self.private, **keys}), private_source=str(folder))


def check_key(statement_id: str, vk: VerifyingKey, ctx: TrustContext) -> Trust:
    """Accept ``vk`` for ``statement_id`` under ``ctx`` or raise :class:`UntrustedKey`."""
    from zkbluff.ceremony.project import file_stem

    fp = vk.fingerprint()
    if ctx.pinned.get(statement_id) == fp:
        return Trust(statement_id, fp, PROJECT)
    if ctx.match.get(statement_id) == fp:
        return Trust(statement_id, fp, MATCH)
    if ctx.private.get(file_stem(statement_id)) == fp or ctx.private.get(statement_id) == fp:
        return Trust(statement_id, fp, PRIVATE,
                     f"WARNING: {statement_id} verified under a PRIVATE key {fp[:16]} from {ctx.private_source}, "
                     "not the project's pinned key: the proofs are only as good as that key's setup")
    raise UntrustedKey(f"untrusted key for {statement_id}: {fp[:16]} is neither the pinned project key"
                       + (f" ({ctx.pinned[statement_id][:16]})" if statement_id in ctx.pinned else "")
                       + " nor a key of a verified per-match ceremony nor one of the keys given with --keys",
                       statement=statement_id, fingerprint=fp)
