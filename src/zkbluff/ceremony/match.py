"""The per-match ceremony: keys in which every seat of the table has a share.

Before the deal, each seat in turn contributes to phase 1 (a new accumulator at the
smallest power that fits the match's statements), then - once phase 1 is closed and
the initial keys are built from it (deterministic) - each seat in turn contributes to
phase 2 of every statement. Before contributing, a seat verifies everything so far
(:func:`check_so_far`), so nobody builds on a broken chain.

A seat is identified by its Ed25519 public key: it signs, for each of its
contributions, ``match id | phase | statement | seat index | contribution hash`` (the
phase-1 response hash, which covers its public key and all the points after it, or
the phase-2 contribution hash). A third party re-checks the record with
:func:`verify_match_ceremony`: the chain of contributions and its points, the keys'
consistency with phase 1 and the circuits, and one signed contribution from every seat
in phase 1 and in every statement's phase 2. Soundness then holds if any one seat was
honest: a forger would need that seat's tau (phase 1) or delta (phase 2).

The record (:meth:`MatchCeremony.save`) is a folder: ``phase1.ptau``, one compact
``<stem>.phase2`` per statement and ``ceremony.json`` (match id, seat keys, signatures,
file hashes); :func:`record_digest` is what a transcript header carries.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Optional, Protocol, Sequence

from Crypto.PublicKey import ECC
from Crypto.Signature import eddsa

from zkbluff.circuit.builder import R1CS
from zkbluff.ceremony.phase2 import (
    Zkey, circuit_power, compact_bytes, compact_from_bytes, zkey_contribute, zkey_new, zkey_verify_fast,
)
from zkbluff.ceremony.project import file_stem
from zkbluff.ceremony.ptau import Ptau, ptau_contribute, ptau_from_bytes, ptau_new, ptau_to_bytes, ptau_verify
from zkbluff.curve import Backend, get_backend
from zkbluff.errors import InvalidCeremony, MalformedInput

Say = Optional[Callable[[str], None]]
PHASE1 = "phase1"
RECORD_VERSION = 1


# ------------------------------------------------------------------ signatures (Ed25519, RFC 8032)
class SeatSigner(Protocol):
    """What a contribution is signed with: a seat's raw Ed25519 public key and a signer
    (:class:`SeatKey`, or the engine's line key wrapped by the table: one key per seat)."""

    @property
    def public(self) -> bytes: ...

    def sign(self, message: bytes) -> bytes: ...


class SeatKey:
    """A seat's Ed25519 signing key (pycryptodome)."""

    def __init__(self, key: ECC.EccKey):
        self._key = key

    @classmethod
    def generate(cls) -> "SeatKey":
        return cls(ECC.generate(curve="ed25519"))

    @property
    def public(self) -> bytes:
        return self._key.public_key().export_key(format="raw")

    def sign(self, message: bytes) -> bytes:
        return eddsa.new(self._key, "rfc8032").sign(message)


def _seat_public_key(public: bytes) -> ECC.EccKey:
    """The decoded Ed25519 point; ValueError unless it is one of order L or 8L. A point of
    small order (8A the neutral point) is refused: under it the cofactored equation holds
    for R = 0, s = 0 and any message, so its signatures would prove nobody contributed
    (protocol.signing refuses such keys for transcript lines the same way)."""
    key = eddsa.import_public_key(public)
    if (key.pointQ * 8).is_point_at_infinity():
        raise ValueError("a point of small order (any message verifies under it)")
    return key


def verify_signature(public: bytes, message: bytes, signature: bytes) -> bool:
    try:
        eddsa.new(_seat_public_key(public), "rfc8032").verify(message, signature)
        return True
    except (ValueError, TypeError):
        return False


def contribution_message(match_id: str, phase: str, seat: int, contribution_hash: bytes) -> bytes:
    """What a seat signs for one contribution (``phase`` is ``phase1`` or a statement id)."""
    return f"zkbluff match ceremony v1|{match_id}|{phase}|{seat}|{contribution_hash.hex()}".encode()


# ------------------------------------------------------------------ the ceremony
@dataclass(frozen=True, eq=False)
class MatchCeremony:
    match_id: str
    seat_keys: tuple[bytes, ...]
    circuits: Mapping[str, R1CS]
    ptau: Ptau
    zkeys: Mapping[str, Zkey] = field(default_factory=dict)
    #: per phase (``phase1`` or statement id), one ``(seat, signature)`` per contribution
    signatures: Mapping[str, tuple] = field(default_factory=dict)

    @property
    def phase1_closed(self) -> bool:
        return bool(self.zkeys)


def start_match_ceremony(match_id: str, seat_keys: Sequence[bytes], circuits: Mapping[str, R1CS]) -> MatchCeremony:
    if not match_id or not seat_keys or not circuits:
        raise MalformedInput("a match ceremony needs a match id, the seats' keys and the statements")
    for i, k in enumerate(seat_keys):
        if not isinstance(k, bytes) or len(k) != 32:
            raise MalformedInput(f"seat {i}: expected a 32-byte Ed25519 public key")
        try:
            _seat_public_key(k)
        except ValueError as exc:
            raise MalformedInput(f"seat {i}: not a usable Ed25519 public key ({exc}), "
                                 "expected a point of order L or 8L") from None
    power = max(circuit_power(s) for s in circuits.values())
    return MatchCeremony(match_id, tuple(seat_keys), dict(circuits), ptau_new(power), {}, {PHASE1: ()})


def _check_signatures(mc: MatchCeremony, phase: str, hashes: Sequence[bytes]) -> None:
    sigs = mc.signatures.get(phase, ())
    if len(sigs) != len(hashes):
        raise InvalidCeremony(f"{phase}: {len(hashes)} contributions but {len(sigs)} signatures")
    for i, ((seat, sig), h) in enumerate(zip(sigs, hashes), 1):
        if not isinstance(seat, int) or not 0 <= seat < len(mc.seat_keys):
            raise InvalidCeremony(f"{phase}: contribution #{i} names seat {seat!r}, not a seat of the match")
        if not verify_signature(mc.seat_keys[seat], contribution_message(mc.match_id, phase, seat, h), sig):
            raise InvalidCeremony(f"{phase}: contribution #{i}'s signature is not seat {seat}'s")


def check_so_far(mc: MatchCeremony, backend: Optional[Backend] = None) -> None:
    """What a seat checks before it contributes: every contribution so far, its points
    and its signature (phase 2: every key against phase 1 and its circuit)."""
    be = backend or get_backend()
    if mc.ptau.contributions:
        ptau_verify(mc.ptau, be)
    _check_signatures(mc, PHASE1, [c.response_hash for c in mc.ptau.contributions])
    for key_id, zk in mc.zkeys.items():
        zkey_verify_fast(zk, mc.circuits[key_id], mc.ptau, be)
        _check_signatures(mc, key_id, [c.contribution_hash for c in zk.contributions])


def contribute_phase1(mc: MatchCeremony, seat: int, key: SeatSigner, backend: Optional[Backend] = None,
                      verify_first: bool = True) -> MatchCeremony:
    """Seat ``seat`` checks the chain so far, then adds its (signed) phase-1 contribution."""
    if mc.phase1_closed:
        raise MalformedInput("phase 1 is closed: contribute to phase 2")
    _check_seat(mc, seat, key)
    be = backend or get_backend()
    if verify_first:
        check_so_far(mc, be)
    pt = ptau_contribute(mc.ptau, f"seat {seat}", be)
    sig = key.sign(contribution_message(mc.match_id, PHASE1, seat, pt.contributions[-1].response_hash))
    sigs = dict(mc.signatures)
    sigs[PHASE1] = tuple(sigs.get(PHASE1, ())) + ((seat, sig),)
    return replace(mc, ptau=pt, signatures=sigs)


def close_phase1(mc: MatchCeremony, backend: Optional[Backend] = None, say: Say = None) -> MatchCeremony:
    """Build every statement's initial key from phase 1 (deterministic: anyone can do it,
    everyone checks it before contributing)."""
    if mc.phase1_closed:
        return mc
    be = backend or get_backend()
    zkeys = {k: zkey_new(s, mc.ptau, be, say) for k, s in sorted(mc.circuits.items())}
    sigs = dict(mc.signatures)
    for k in zkeys:
        sigs[k] = ()
    return replace(mc, zkeys=zkeys, signatures=sigs)


def contribute_phase2(mc: MatchCeremony, seat: int, key: SeatSigner, backend: Optional[Backend] = None,
                      verify_first: bool = True) -> MatchCeremony:
    """Seat ``seat`` checks everything so far, then adds a signed contribution to every
    statement's key."""
    if not mc.phase1_closed:
        raise MalformedInput("phase 1 is still open: close it first")
    _check_seat(mc, seat, key)
    be = backend or get_backend()
    if verify_first:
        check_so_far(mc, be)
    zkeys, sigs = dict(mc.zkeys), dict(mc.signatures)
    for key_id in sorted(zkeys):
        zk = zkey_contribute(zkeys[key_id], f"seat {seat}", be)
        zkeys[key_id] = zk
        sig = key.sign(contribution_message(mc.match_id, key_id, seat, zk.contributions[-1].contribution_hash))
        sigs[key_id] = tuple(sigs.get(key_id, ())) + ((seat, sig),)
    return replace(mc, zkeys=zkeys, signatures=sigs)


def _check_seat(mc: MatchCeremony, seat: int, key: SeatSigner) -> None:
    if not 0 <= seat < len(mc.seat_keys) or mc.seat_keys[seat] != key.public:
        raise MalformedInput(f"seat {seat}: the signing key is not the seat's registered key")


def verify_match_ceremony(mc: MatchCeremony, backend: Optional[Backend] = None) -> dict[str, str]:
    """Re-check a finished ceremony as a third party: everything :func:`check_so_far`
    checks, and a signed contribution from every seat in phase 1 and in every
    statement's phase 2. Returns ``{statement id: vk fingerprint}`` of the match's keys
    (what :meth:`TrustContext.with_match_keys` takes); raises :class:`InvalidCeremony`."""
    if not mc.phase1_closed:
        raise InvalidCeremony("the match ceremony never closed phase 1")
    if set(mc.zkeys) != set(mc.circuits):
        raise InvalidCeremony(f"the record has keys for {sorted(mc.zkeys)}, the match uses {sorted(mc.circuits)}")
    check_so_far(mc, backend)
    everyone = set(range(len(mc.seat_keys)))
    for phase in [PHASE1] + sorted(mc.zkeys):
        seats = {s for s, _ in mc.signatures.get(phase, ())}  # each a seat of the match (check_so_far)
        if not everyone <= seats:
            missing = ", ".join(str(s) for s in sorted(everyone - seats))
            raise InvalidCeremony(f"{phase}: no contribution from seat(s) {missing}: "
                                  "the key is not one every seat had a share in")
    return {k: zk.vk.fingerprint() for k, zk in mc.zkeys.items()}


# ------------------------------------------------------------------ the record
def _record_json(mc: MatchCeremony, files: Mapping[str, bytes]) -> dict:
    return {
        "version": RECORD_VERSION,
        "match_id": mc.match_id,
        "seats": [k.hex() for k in mc.seat_keys],
        "statements": sorted(mc.zkeys),
        "signatures": {ph: [{"seat": s, "signature": sig.hex()} for s, sig in v] for ph, v in mc.signatures.items()},
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }


def record_files(mc: MatchCeremony) -> dict[str, bytes]:
    files = {"phase1.ptau": ptau_to_bytes(mc.ptau)}
    for key_id, zk in mc.zkeys.items():
        files[f"{file_stem(key_id)}.phase2"] = compact_bytes(zk)
    files["ceremony.json"] = (json.dumps(_record_json(mc, files), indent=1, sort_keys=True) + "\n").encode()
    return files


def record_digest(mc: MatchCeremony) -> str:
    """SHA-256 of the record's ``ceremony.json`` (which hashes every other file)."""
    return hashlib.sha256(record_files(mc)["ceremony.json"]).hexdigest()


def save(mc: MatchCeremony, folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    files = record_files(mc)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return hashlib.sha256(files["ceremony.json"]).hexdigest()


def load(folder: Path, circuits: Mapping[str, R1CS], digest: Optional[str] = None) -> MatchCeremony:
    """Read a record (compact keys) for the given circuits; ``digest`` (from the
    transcript header) must match its ``ceremony.json``."""
    try:
        raw = (folder / "ceremony.json").read_bytes()
        rec = json.loads(raw)
    except (OSError, ValueError) as exc:
        raise MalformedInput(f"{folder}/ceremony.json: {exc}") from None
    if digest is not None and hashlib.sha256(raw).hexdigest() != digest:
        raise InvalidCeremony(f"{folder}/ceremony.json is not the record the transcript names")
    try:
        if rec["version"] != RECORD_VERSION:
            raise MalformedInput(f"match ceremony record version {rec['version']}, expected {RECORD_VERSION}")
        seat_keys = tuple(bytes.fromhex(k) for k in rec["seats"])
        files = {}
        for name, h in rec["files"].items():
            data = (folder / name).read_bytes()
            if hashlib.sha256(data).hexdigest() != h:
                raise InvalidCeremony(f"{folder}/{name} is not the file the record names")
            files[name] = data
        if set(rec["statements"]) != set(circuits):
            raise InvalidCeremony(f"the record is for {rec['statements']}, expected {sorted(circuits)}")
        pt = ptau_from_bytes(files["phase1.ptau"], f"{folder}/phase1.ptau")
        zkeys = {k: compact_from_bytes(files[f"{file_stem(k)}.phase2"], f"{folder}/{file_stem(k)}.phase2",
                                       circuits[k]) for k in rec["statements"]}
        sigs = {ph: tuple((int(e["seat"]), bytes.fromhex(e["signature"])) for e in v)
                for ph, v in rec["signatures"].items()}
    except (KeyError, TypeError, ValueError, OSError) as exc:
        raise MalformedInput(f"{folder}: not a match ceremony record ({exc})") from None
    return MatchCeremony(rec["match_id"], seat_keys, dict(circuits), pt, zkeys, sigs)
