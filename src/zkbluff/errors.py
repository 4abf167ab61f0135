"""One exception hierarchy for zkbluff.

Every error a caller can provoke with bad input is a subclass of
:class:`ZkbluffError`; messages say what was got and what was expected.
The CLI maps :attr:`ZkbluffError.exit_code` to its process exit status.
"""
from __future__ import annotations


class ZkbluffError(Exception):
    """Base class of every zkbluff error."""

    exit_code = 2


class MalformedInput(ZkbluffError, ValueError):
    """Input that cannot be parsed or is not in its domain: a point off the curve
    or outside the subgroup, a coordinate or scalar >= its modulus, a wrong count,
    a bad file header, malformed JSON."""

    exit_code = 2


class InvalidProof(ZkbluffError):
    """A well-formed proof that does not verify; in a batch, ``index`` is the first bad item."""

    exit_code = 1

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index


class UnsatisfiedConstraint(ZkbluffError):
    """A witness that violates a constraint; ``constraint`` names the first one."""

    exit_code = 1

    def __init__(self, message: str, constraint: str | None = None, index: int | None = None):
        super().__init__(message)
        self.constraint = constraint
        self.index = index


class CommitmentMismatch(ZkbluffError):
    """A reveal that does not open its commitment."""

    exit_code = 1


class OutcomeMismatch(ZkbluffError):
    """A recorded outcome (deal, roll, seat order) that recomputation does not give."""

    exit_code = 1


class UnsupportedScheme(ZkbluffError):
    """A record names a scheme (or version) that this library does not implement."""

    exit_code = 2


class IllegalMove(ZkbluffError):
    """A move that the rules forbid: out of turn, an illegal claim, a card not held."""

    exit_code = 1


class TranscriptError(ZkbluffError):
    """A transcript line that fails verification; ``line`` is its 1-based number."""

    exit_code = 1

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line


class BackendUnavailable(ZkbluffError):
    """A curve backend that was asked for by name but cannot be loaded."""

    exit_code = 2


class OutOfOrder(IllegalMove):
    """A protocol message outside its window: before what must precede it (a seat's
    entropy before the dealer's commitment) or after its deadline."""

    exit_code = 1


class LateEntropy(OutOfOrder):
    """A seat's entropy that arrives after the deadline the dealer's commitment set."""

    exit_code = 1


class EarlyTimeout(OutOfOrder):
    """A timeout (or a missing-message complaint) declared before the deadline it relies on."""

    exit_code = 1


class UnfoundedComplaint(ZkbluffError):
    """A complaint whose evidence does not show the accused party at fault."""

    exit_code = 1


class DealerFault(CommitmentMismatch):
    """A dealer's message that its receiver shows to be wrong: an oblivious-transfer payload
    that does not decrypt, or an opening that does not match its position's commitment.
    ``complaint`` (when built) is the record a third party checks with
    :func:`zkbluff.protocol.oblivious_deal.verify_complaint`; ``transfer`` is the transfer
    index it concerns."""

    exit_code = 1

    def __init__(self, message: str, transfer: int | None = None, complaint: dict | None = None):
        super().__init__(message)
        self.transfer = transfer
        self.complaint = complaint


class InvalidComplaint(ZkbluffError):
    """A complaint that does not show what it claims: its reveal does not open the
    complainant's own transfer request, or the accused message is in fact correct."""

    exit_code = 1


class InvalidCeremony(ZkbluffError):
    """A well-formed ``.ptau`` / ``.zkey`` whose contribution chain or points do not
    verify (a proof of knowledge, a link to the previous contribution, a hash, a power)."""

    exit_code = 1


class UntrustedKey(ZkbluffError):
    """A verifying key that is neither a pinned project key, nor a per-match key whose
    ceremony includes every seat, nor a key set the user passed deliberately."""

    exit_code = 1

    def __init__(self, message: str, statement: str | None = None, fingerprint: str | None = None):
        super().__init__(message)
        self.statement = statement
        self.fingerprint = fingerprint


class DealerAtFault(TranscriptError):
    """A transcript whose complaint line a verifier upheld: the dealer sent a seat a hand
    that does not open its proven commitment. ``line`` is the complaint's line (exit 1)."""

    exit_code = 1
