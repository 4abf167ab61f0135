"""One exception hierarchy for zkbluff.

Every error a caller can provoke with bad input is a subclass of
:class:`ZkbluffError`; messages say what was got and what was expected.
The CLI maps :attr:`ZkbluffError.exit_code` to its process exit status.

Every error also carries a stable reason :attr:`ZkbluffError.code` (a dotted name such as
``line.signature`` or ``proof.replayed``): a class gives its default, a raise site may name
a finer one (``MalformedInput("...", code="line.json")``). ``zkbluff transcript verify``
reports it, and the transcript vectors (vectors/transcripts/) pin which code a verifier
must give for each way a transcript fails; :data:`TRANSCRIPT_CODES` lists them all
(documented in docs/writing-your-own-verifier.md). Codes are never renamed: a new way to
fail gets a new code.
"""
from __future__ import annotations

from typing import Optional

#: every reason code ``zkbluff transcript verify`` reports, in the order a verifier checks
#: them, with what each means (docs/writing-your-own-verifier.md explains each in full)
TRANSCRIPT_CODES: dict[str, str] = {
    "transcript.unreadable": "the file cannot be read as UTF-8 text",
    "transcript.empty": "the file holds no line",
    "line.json": "a line that is not a JSON object",
    "line.fields": "a line without n, prev, seat, action, data, or with a field outside those and proofs, sig, at, clock, received",
    "secret.leaked": "a line (or its data) carrying a field named as a secret: a private witness input or a party's "
                     "secret (salt, entropy, hand, handKey, ...) that no line may carry",
    "line.canonical": "a line that is not the canonical JSON of its event (sorted keys, no spaces): it was edited",
    "line.number": "a line numbered other than its position (a line removed, inserted or reordered)",
    "line.chain": "a line whose prev is not the SHA-256 of the line before",
    "header.malformed": "line 1 is not a well-formed header (its fields, seats, parties' keys, limits, keys, deal)",
    "header.game": "the header names a game or an option this verifier does not know",
    "header.rules": "the header's rules (\"<game>/<version>\") name a version of the game's rules this verifier "
                    "does not know, or another game's (a header without rules is the legacy <game>/0)",
    "header.limits": "the header states a time limit shorter than the game's floor for it (a house that would give "
                     "a seat no real time to answer)",
    "header.key": "a verifying key in the header that the verifier does not trust (not pinned, no verified per-match "
                  "ceremony, not given deliberately)",
    "header.ceremony": "the per-match ceremony record the header names does not verify or is not this match's",
    "header.seat-key": "the header does not list a seat key the verifier was told the seat holds",
    "line.order": "a line where none may come: a second header, a line after the closing line, a deal line after the "
                  "match is over, a closing line before the end, a game action before the deal's entropy phase ends",
    "action.unknown": "an action kind the game does not have",
    "line.party": "a line made by a party not entitled to it: a seat's action on a line naming seat null (the dealer "
                  "or referee acting for a seat), a house line naming a seat, a seat that does not exist",
    "line.signature": "a signature missing, malformed, or not by the party entitled to the line",
    "line.stamp": "a line without its time stamp 'at', a stamp that is not a time or is earlier than the line before, "
                  "or a seat's stamp more than the header's "
                  "clock.tolerance from the referee's receipt of it",
    "line.malformed": "a line's data not exactly its action's fields and types (or a proof list of the wrong length)",
    "deal.order": "a deal line out of the commit order (a seat's entropy before the dealer's commitment, twice)",
    "deal.late": "a seat's entropy stamped after the deadline the dealer's commitment set",
    "deal.open-early": "a seat's entropy opening (sealed to the dealer) before every contributor's commitment is on "
                       "the transcript: an opening then would let the dealer hand it to a seat still to commit",
    "rules.illegal": "an action the game's rules refuse at that point (out of turn, an illegal claim, a card not held)",
    "commitment.mismatch": "an opening (a reveal, a sealed hand, an entropy) that does not open its commitment",
    "deal.complaint": "a complaint about the dealer that its own evidence does not support",
    "seal.answer": "a seat's answer to the referee's complaint that its sealed choice does not open (Mind Bluff) whose "
                   "key does not open that sealed choice to the choice the seat committed",
    "move.paused": "a seat's line stamped inside a pause the game's rules hold all play for (Mind Bluff: 4.5 s after "
                   "a doubt, 10 s after game 3's start), measured from the stamp of the line that opened it",
    "timeout.clock": "a timeout whose clock is not what the transcript and the header give",
    "timeout.early": "a timeout (or forfeit) declared at or before its deadline",
    "sealed.early": "a seat's sealed automatic move played by the referee before that seat's timeout (the house "
                    "taking a seat's turn from it), or where the seat's automatic move is not a card",
    "sealed.signature": "a sealed automatic move not signed by the seat it is played for (not its own)",
    "proof.missing": "a line that owes a proof and carries none, or carries one it does not owe",
    "proof.malformed": "a proof envelope of the wrong shape: fields, points, public inputs >= r, a wrong count",
    "proof.statement": "a proof of another statement than the one the action demands",
    "proof.key": "a proof naming another verifying key than the header's for its statement",
    "proof.signer": "a proof whose signer is not the line's party",
    "proof.replayed": "a proof whose context public input is not this match, line and previous hash: made for "
                      "another line or match",
    "proof.public": "a proof whose public input differs from what the table holds (a commitment, a count, a mask)",
    "proof.invalid": "a proof that does not verify under its key (the pairing check fails)",
    "end.early": "an end line before the rules end the match, or a second end",
    "end.result": "an end line whose placements, scores or reason code are not what the rules give (under the "
                  "legacy rules <game>/0: its placements, scores or reason words)",
    "end.missing": "the rules ended the match but its end (or closing) line is missing (reported one past the last line)",
    "deal.fault": "a whole transcript whose complaint (or deal timeout) shows the dealer at fault",
    "referee.fault": "a whole transcript whose answer to the referee's complaint shows the referee at fault (Mind "
                     "Bluff: it said a sealed choice does not open, and the seat showed it opens)",
}


class ZkbluffError(Exception):
    """Base class of every zkbluff error. ``code``: the stable reason (see the module)."""

    exit_code = 2
    code: str = "error"

    def __init__(self, *args: object, code: Optional[str] = None):
        super().__init__(*args)
        if code is not None:
            self.code = code


class MalformedInput(ZkbluffError, ValueError):
    """Input that cannot be parsed or is not in its domain: a point off the curve
    or outside the subgroup, a coordinate or scalar >= its modulus, a wrong count,
    a bad file header, malformed JSON."""

    exit_code = 2
    code = "malformed"

    def __init__(self, message: str, line: int | None = None, code: Optional[str] = None):
        super().__init__(message, code=code)
        #: the transcript line it was found on, when it is one
        self.line = line


class UnknownRules(MalformedInput):
    """A transcript header whose ``rules`` (``"<game>/<version>"``) name rules this verifier
    does not know (a version it has not got, another game's): a transcript verifies under
    the rules it names or not at all."""

    exit_code = 2
    code = "header.rules"


class InvalidProof(ZkbluffError):
    """A well-formed proof that does not verify; in a batch, ``index`` is the first bad item."""

    exit_code = 1
    code = "proof.invalid"

    def __init__(self, message: str, index: int | None = None, code: Optional[str] = None):
        super().__init__(message, code=code)
        self.index = index


class UnsatisfiedConstraint(ZkbluffError):
    """A witness that violates a constraint; ``constraint`` names the first one."""

    exit_code = 1
    code = "constraint.unsatisfied"

    def __init__(self, message: str, constraint: str | None = None, index: int | None = None):
        super().__init__(message)
        self.constraint = constraint
        self.index = index


class CommitmentMismatch(ZkbluffError):
    """A reveal that does not open its commitment."""

    exit_code = 1
    code = "commitment.mismatch"


class OutcomeMismatch(ZkbluffError):
    """A recorded outcome (deal, roll, seat order) that recomputation does not give."""

    exit_code = 1


class UnsupportedScheme(ZkbluffError):
    """A record names a scheme (or version) that this library does not implement."""

    exit_code = 2


class IllegalMove(ZkbluffError):
    """A move that the rules forbid: out of turn, an illegal claim, a card not held."""

    exit_code = 1
    code = "rules.illegal"


class TranscriptError(ZkbluffError):
    """A transcript line that fails verification; ``line`` is its 1-based number, ``code``
    the reason (:data:`TRANSCRIPT_CODES`)."""

    exit_code = 1
    code = "transcript.invalid"

    def __init__(self, message: str, line: int | None = None, code: Optional[str] = None):
        super().__init__(message if line is None else f"line {line}: {message}", code=code)
        self.line = line
        #: the message without the line number
        self.reason = message


class BackendUnavailable(ZkbluffError):
    """A curve backend or field kernel that was asked for by name but cannot be loaded."""

    exit_code = 2


class OutOfOrder(IllegalMove):
    """A protocol message outside its window: before what must precede it (a seat's
    entropy before the dealer's commitment) or after its deadline."""

    exit_code = 1
    code = "deal.order"


class LateEntropy(OutOfOrder):
    """A seat's entropy that arrives after the deadline the dealer's commitment set."""

    exit_code = 1
    code = "deal.late"


class EarlyOpening(OutOfOrder):
    """An opening of a committed draw (a seat's sealed entropy) sent before every
    contributor's commitment is recorded: whoever it reached could pass it to a contributor
    still to commit, which could then choose its own value (commit, then open)."""

    exit_code = 1
    code = "deal.open-early"


class EarlyTimeout(OutOfOrder):
    """A timeout (or a missing-message complaint) declared before the deadline it relies on."""

    exit_code = 1
    code = "timeout.early"


class PausedMove(IllegalMove):
    """A seat's line inside a pause the game's rules hold all play for (``GameSpec.pause``:
    Mind Bluff's 4.5 s after a doubt, 10 s after game 3's start): by its stamp, or by the
    referee's clock when the line reached it."""

    exit_code = 1
    code = "move.paused"


class LimitTooShort(IllegalMove):
    """A time limit below the game's floor for it (``GameSpec.limit_floors``): a header, a
    table or a server that would give a seat no real time to answer."""

    exit_code = 1
    code = "header.limits"


class Equivocation(IllegalMove):
    """Two different moves signed by one party for one position of a match (the same line
    number after the same previous hash): refused by an honest seat before it signs a second
    (``Seat.move``), and, found in two copies of a match, evidence against the party that
    signed both (``zkbluff.games.engine.verifier.equivocation``)."""

    exit_code = 1
    code = "line.equivocation"


class InvalidShuffle(InvalidProof):
    """A house-blind deal's shuffle that its argument does not show to be a re-encryption and
    permutation of the deck before it (:mod:`zkbluff.protocol.shuffle`). ``check`` names the
    equation that fails (``shuffle.permutation-sum``, ``shuffle.permutation-product``,
    ``shuffle.permutation-opening``, ``shuffle.reencryption``) and is the error's ``code``;
    ``seat`` is the shuffler at fault."""

    exit_code = 1
    code = "shuffle.invalid"

    def __init__(self, message: str, seat: int | None = None, check: Optional[str] = None):
        super().__init__(message, code=check)
        self.seat = seat
        self.check = check or self.code


class InvalidShare(InvalidProof):
    """A house-blind deal's key announcement or decryption share that does not verify
    (:mod:`zkbluff.protocol.elgamal`): ``check`` (``key.proof``, ``share.card``, ``share.proof``,
    ``share.opening``) is the error's ``code``; ``seat`` the party at fault, ``card`` the deck
    position concerned."""

    exit_code = 1
    code = "share.invalid"

    def __init__(self, message: str, seat: int | None = None, card: int | None = None,
                 check: Optional[str] = None):
        super().__init__(message, code=check)
        self.seat = seat
        self.card = card
        self.check = check or self.code


class UnfoundedComplaint(ZkbluffError):
    """A complaint whose evidence does not show the accused party at fault."""

    exit_code = 1
    code = "deal.complaint"


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
    code = "header.ceremony"


class UntrustedKey(ZkbluffError):
    """A verifying key that is neither a pinned project key, nor a per-match key whose
    ceremony includes every seat, nor a key set the user passed deliberately."""

    exit_code = 1
    code = "header.key"

    def __init__(self, message: str, statement: str | None = None, fingerprint: str | None = None):
        super().__init__(message)
        self.statement = statement
        self.fingerprint = fingerprint


class DealerAtFault(TranscriptError):
    """A transcript whose complaint line a verifier upheld: the dealer sent a seat a hand
    that does not open its proven commitment. ``line`` is the complaint's line (exit 1).
    ``result``: the match's result as the rules and the deal give it (the one its ``end``
    line states; for a dealer that holds no seat, the standing at the fault), set by the
    offline verifier."""

    exit_code = 1
    code = "deal.fault"
    result: object = None


class ForkedMatch(TranscriptError):
    """Two different histories of one match, each signed: a second, different line for a
    number its receiver already holds, or a line whose ``prev`` does not chain to the
    receiver's copy of the line before (found live by a client, or afterwards by
    ``zkbluff transcript compare``). ``line`` is the first number where the copies differ;
    ``evidence`` holds both signed lines and who signed each; ``saved`` is the file a
    client kept them in (beside its transcript copy), when it kept them. Exit 1."""

    exit_code = 1
    code = "transcript.fork"

    def __init__(self, message: str, line: int | None = None, evidence: dict | None = None,
                 saved: str | None = None):
        super().__init__(message, line=line)
        self.evidence = evidence or {}
        self.saved = saved


class ClockDispute(ZkbluffError):
    """A seat refuses a line because its own clock contradicts the referee's: a referee stamp
    further than the header's ``clock.tolerance`` from the seat's clock when the line
    arrived (``clock.skew``), or a timeout whose wait, by the seat's own receive times,
    had not run out (``timeout.contradicted``). ``complaint`` is the record the seat saved
    (the line, its hash, the referee's stamp, the seat's receive times). A seat's own
    evidence, never a proof to a third party. Exit 1."""

    exit_code = 1
    code = "clock.skew"

    def __init__(self, message: str, code: str | None = None, complaint: dict | None = None):
        super().__init__(message, code=code)
        self.complaint = complaint or {}


class TableMismatch(CommitmentMismatch):
    """A table that is not the one its seat expects: the room's (or the signed header's)
    game, options, limits or keys differ from what the client was told to expect
    (``zkbluff join --expect``, or the table ``zkbluff host`` asked for). Refused before the
    seat makes its secrets or signs anything. Exit 1."""

    exit_code = 1
    code = "table.mismatch"


class RefereeAtFault(TranscriptError):
    """A transcript in which a seat answered a complaint of the referee's and the answer
    holds: the referee accused the seat falsely (Mind Bluff: a sealed choice that does
    open). ``line`` is the answer's line (exit 1)."""

    exit_code = 1
    code = "referee.fault"


class StorageError(ZkbluffError):
    """The host's own storage failed: a line, a secret or a result could not be written
    (the disk full, a read-only folder), a damaged results database, a data folder another
    process holds. Nothing unwritten was sent; the match waits and resumes once the host
    has fixed its storage (exit 3: not the input's fault, nor a cheat)."""

    exit_code = 3
    code = "storage.failed"


class StorageFull(StorageError):
    """A write refused for want of space (ENOSPC, EDQUOT): the match pauses until there is room."""

    exit_code = 3
    code = "storage.full"


class DamagedDatabase(StorageError):
    """The results database fails SQLite's integrity check (or cannot be read at all)."""

    exit_code = 3
    code = "storage.database"


class DataFolderLocked(StorageError):
    """Another process already serves from this ``--data`` folder."""

    exit_code = 3
    code = "storage.locked"


def unknown_statement(name: str, ids: list[str]) -> str:
    """The message for a statement name no statement has: the closest names first ("did
    you mean"), then every id."""
    import difflib

    bare = sorted({k.split("@")[0] for k in ids})
    close = difflib.get_close_matches(name.split("@")[0], bare, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    return f"unknown statement {name!r}{hint}; known: {', '.join(ids)}"
