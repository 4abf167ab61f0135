"""Two copies of one match's transcript, compared line by line (``zkbluff transcript compare``).

Every line is signed by the party that made it and chained to the line before by its
hash, so a copy is evidence: a seat's client keeps every line it was sent (each checked as
it came), and that copy can be held against the house's stored transcript, or against
another seat's copy, after the match.

Verdicts (:class:`Comparison`):

- ``identical``: the same lines;
- ``prefix``: one copy is the other with lines missing at its end (a seat that dropped
  before the end, a house that cut its file short): the same history as far as both go;
- ``diverged``: the copies hold different lines for one number (the lines before it are
  the same): two histories of the match.

Who signed: each differing line's signature is checked under every key its own copy's
header lists (the referee, the dealer, each seat). Every line from the diverging number on
is chained to its copy's version of that line, so whoever signed any of them vouched for
that copy's history. A key that vouched for both copies of one match (the same ``matchId``)
signed two different histories: proof that its party equivocated — when the party is the
referee or the dealer, proof that the house did. A seat's copy in which the house's
referee signed lines after the seat's own complaint, against a house transcript where the
referee signed a timeout for that number, is exactly that proof.

This module checks each copy's hash chain, not its rules or proofs (``zkbluff transcript
verify`` does that): a house that rewrote its file into another valid match is caught here,
by the copy it cannot rewrite.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from zkbluff.errors import MalformedInput, TranscriptError, ZkbluffError
from zkbluff.protocol.signing import line_message, verify_signature
from zkbluff.protocol.transcript import canonical, parse_chain, read_lines

IDENTICAL, PREFIX, DIVERGED = "identical", "prefix", "diverged"
#: the parties a header lists that are the house's (the server runs them)
HOUSE_PARTIES = ("referee", "dealer")


@dataclass(frozen=True)
class Signer:
    """A party a header lists: ``party`` is ``referee``, ``dealer`` or ``seat N``; ``name``
    says it to a person; ``key`` is its Ed25519 public key (hex)."""

    party: str
    name: str
    key: str

    @property
    def is_house(self) -> bool:
        return self.party in HOUSE_PARTIES

    def to_json(self) -> dict[str, Any]:
        return {"party": self.party, "name": self.name, "key": self.key, "house": self.is_house}


def header_parties(header: Mapping[str, Any]) -> list[Signer]:
    """The parties (and keys) the header line lists; :class:`MalformedInput` if line 1 is
    not a header that lists them."""
    data = header.get("data") if isinstance(header, Mapping) else None
    parties = data.get("parties") if isinstance(data, Mapping) else None
    if header.get("action") != "header" or not isinstance(parties, Mapping) or \
            not isinstance(parties.get("seats"), list) or \
            not all(isinstance(k, str) for k in [parties.get("referee"), parties.get("dealer"), *parties["seats"]]):
        raise MalformedInput("line 1 is not a header listing the parties' public keys (referee, dealer, seats)",
                             line=1, code="header.malformed")
    assert isinstance(data, Mapping)
    seats = data.get("seats")
    names: list[Any] = seats if isinstance(seats, list) else []
    out = [Signer("referee", "the referee", parties["referee"]), Signer("dealer", "the dealer", parties["dealer"])]
    for i, key in enumerate(parties["seats"]):
        name = f" ({names[i]})" if i < len(names) and isinstance(names[i], str) else ""
        out.append(Signer(f"seat {i}", f"seat {i}{name}", key))
    return out


def signer_of(line: Mapping[str, Any], parties: Sequence[Signer]) -> Optional[Signer]:
    """The party among ``parties`` whose key verifies ``line``'s signature, or None (no
    signature, or one nobody listed made)."""
    sig = line.get("sig")
    if not isinstance(sig, str):
        return None
    message = line_message(dict(line))
    for p in parties:
        try:
            verify_signature(p.key, message, sig, p.name)
            return p
        except ZkbluffError:
            continue
    return None


def vouchers(lines: Sequence[Mapping[str, Any]], parties: Sequence[Signer]) -> dict[str, tuple[Signer, list[int]]]:
    """Per key, the party and the numbers of the lines among ``lines`` it signed."""
    out: dict[str, tuple[Signer, list[int]]] = {}
    for line in lines:
        who = signer_of(line, parties)
        if who is not None:
            out.setdefault(who.key, (who, []))[1].append(line["n"])
    return out


@dataclass(frozen=True)
class Equivocator:
    """A key that signed lines on both sides of a fork: ``mine`` and ``theirs`` are the
    numbers of the lines it signed in each copy from the fork on."""

    signer: Signer
    mine: tuple[int, ...]
    theirs: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {**self.signer.to_json(), "mine": list(self.mine), "theirs": list(self.theirs)}


def equivocators(mine: Sequence[Mapping[str, Any]], mine_parties: Sequence[Signer],
                 theirs: Sequence[Mapping[str, Any]], theirs_parties: Sequence[Signer]) -> list[Equivocator]:
    """The keys that signed lines in both ``mine`` and ``theirs`` (each the lines of one side
    of a fork, from the fork on), named as ``mine``'s header names them."""
    a, b = vouchers(mine, mine_parties), vouchers(theirs, theirs_parties)
    return [Equivocator(a[k][0], tuple(a[k][1]), tuple(b[k][1])) for k in a if k in b]


def _match_id(header: Mapping[str, Any]) -> Optional[str]:
    data = header.get("data")
    match_id = data.get("matchId") if isinstance(data, Mapping) else None
    return match_id if isinstance(match_id, str) else None


def describe_line(line: Mapping[str, Any]) -> str:
    """One short line about a transcript line: its number, party and action."""
    seat = line.get("seat")
    who = "house" if seat is None else f"seat {seat}"
    return f"line {line.get('n')}: {who} {line.get('action')} {canonical(line.get('data'))[:120]}"


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare_transcripts` found (see the module). For ``diverged``: ``line`` is
    the first number where the copies differ, ``mine`` / ``theirs`` each copy's line there
    and ``mine_signer`` / ``theirs_signer`` who signed it (None: no party of its header);
    ``equivocators`` the keys that signed lines from there on in both copies of one match."""

    verdict: str
    mine_lines: int
    theirs_lines: int
    same_match: bool = True
    line: Optional[int] = None
    mine: Optional[dict[str, Any]] = None
    theirs: Optional[dict[str, Any]] = None
    mine_signer: Optional[Signer] = None
    theirs_signer: Optional[Signer] = None
    equivocators: tuple[Equivocator, ...] = field(default=())

    @property
    def house_equivocated(self) -> bool:
        return any(e.signer.is_house for e in self.equivocators)

    def summary(self) -> str:
        if self.verdict == IDENTICAL:
            return f"identical: both copies hold the same {self.mine_lines} lines"
        if self.verdict == PREFIX:
            short, long_ = ("MINE", "THEIRS") if self.mine_lines < self.theirs_lines else ("THEIRS", "MINE")
            return (f"prefix: {short} ({min(self.mine_lines, self.theirs_lines)} lines) is the start of {long_} "
                    f"({max(self.mine_lines, self.theirs_lines)} lines): the same history as far as both go")
        assert self.line is not None
        text = f"diverged at line {self.line}"
        if not self.same_match:
            return text + ": the headers are of different matches (matchId differs)"
        if self.house_equivocated:
            who = ", ".join(e.signer.name for e in self.equivocators if e.signer.is_house)
            return text + f": {who} signed both histories: proof that the house equivocated"
        if self.equivocators:
            return text + f": {', '.join(e.signer.name for e in self.equivocators)} signed both histories"
        if self.line == 1:  # no key in common: a referee key made for each view (no seat can sign both)
            return text + ": two headers for one match, under different referee keys"
        return text

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict, "lines": {"mine": self.mine_lines, "theirs": self.theirs_lines},
                               "sameMatch": self.same_match, "line": self.line, "summary": self.summary()}
        if self.verdict == DIVERGED:
            for side, line, who in (("mine", self.mine, self.mine_signer), ("theirs", self.theirs, self.theirs_signer)):
                out[side] = {"line": line, "signer": None if who is None else who.to_json()}
            out["equivocators"] = [e.to_json() for e in self.equivocators]
            out["houseEquivocated"] = self.house_equivocated
        return out


def _read(path: Union[str, Path], label: str) -> tuple[list[str], list[dict[str, Any]]]:
    lines = read_lines(path)
    if not lines:
        raise MalformedInput(f"{label} {path}: the file holds no line", code="transcript.empty")
    try:
        events = list(parse_chain(lines))
    except (MalformedInput, TranscriptError) as exc:
        raise type(exc)(f"{label} {path}: {getattr(exc, 'reason', None) or exc}", line=exc.line,
                        code=exc.code) from None
    return lines, events


def compare_events(mine: Sequence[str], mine_events: Sequence[dict[str, Any]], theirs: Sequence[str],
                   theirs_events: Sequence[dict[str, Any]]) -> Comparison:
    """Compare two chains already parsed (``mine`` / ``theirs``: their canonical lines)."""
    n = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), None)
    if n is None:
        verdict = IDENTICAL if len(mine) == len(theirs) else PREFIX
        return Comparison(verdict, len(mine), len(theirs))
    mine_parties, theirs_parties = header_parties(mine_events[0]), header_parties(theirs_events[0])
    same = _match_id(mine_events[0]) == _match_id(theirs_events[0]) is not None
    found = equivocators(mine_events[n:], mine_parties, theirs_events[n:], theirs_parties) if same else []
    return Comparison(DIVERGED, len(mine), len(theirs), same, n + 1, dict(mine_events[n]), dict(theirs_events[n]),
                      signer_of(mine_events[n], mine_parties), signer_of(theirs_events[n], theirs_parties),
                      tuple(found))


def compare_transcripts(mine: Union[str, Path], theirs: Union[str, Path]) -> Comparison:
    """Compare two copies of a transcript file. Raises :class:`MalformedInput` (exit 2)
    for a file that cannot be read, is empty or holds a line that is not a transcript line,
    and :class:`TranscriptError` (exit 1) for a file whose own hash chain is broken (an
    edited line), each naming the file (MINE or THEIRS) and the line; otherwise returns the
    :class:`Comparison` (a divergence is a finding, not an error: the CLI exits 1 on it)."""
    a, a_events = _read(mine, "MINE")
    b, b_events = _read(theirs, "THEIRS")
    return compare_events(a, a_events, b, b_events)


# ---------------------------------------------------------------- live: a line against the copy held

TWO_LINES, BROKEN_LINK = "two-lines", "broken-link"


@dataclass(frozen=True)
class Fork:
    """A line that forks from the copy its receiver holds (see :func:`fork_of`): ``kind`` is
    ``two-lines`` (a second, different line for number ``line``) or ``broken-link`` (line
    ``line + 1`` whose ``prev`` is not the hash of the held line ``line``); ``mine`` is the
    held line ``line``, ``theirs`` the line just sent."""

    kind: str
    line: int
    mine: dict[str, Any]
    theirs: dict[str, Any]
    mine_signer: Optional[Signer]
    theirs_signer: Optional[Signer]
    equivocators: tuple[Equivocator, ...]

    @property
    def house_equivocated(self) -> bool:
        return any(e.signer.is_house for e in self.equivocators)

    def describe(self) -> str:
        def who(s: Optional[Signer]) -> str:
            return "signed by no party of the header" if s is None else f"signed by {s.name}"

        if self.kind == TWO_LINES:
            text = (f"the server sent a second, different line {self.line} ({who(self.theirs_signer)}: "
                    f"{self.theirs.get('action')}) where this copy holds {self.mine.get('action')} "
                    f"({who(self.mine_signer)})")
        else:
            text = (f"the server sent line {self.theirs.get('n')} ({who(self.theirs_signer)}: "
                    f"{self.theirs.get('action')}) chained to another line {self.line} than this copy's "
                    f"({self.mine.get('action')}, {who(self.mine_signer)})")
        if self.house_equivocated:
            text += ": the house signed two histories of this match (proof of equivocation)"
        elif self.equivocators:
            text += f": {', '.join(e.signer.name for e in self.equivocators)} signed two histories of this match"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "line": self.line,
                "mine": {"line": self.mine, "signer": None if self.mine_signer is None else self.mine_signer.to_json()},
                "theirs": {"line": self.theirs,
                           "signer": None if self.theirs_signer is None else self.theirs_signer.to_json()},
                "equivocators": [e.to_json() for e in self.equivocators],
                "houseEquivocated": self.house_equivocated, "summary": self.describe()}


def fork_of(held: Sequence[Mapping[str, Any]], line: Mapping[str, Any]) -> Optional[Fork]:
    """Whether ``line``, sent for the match whose lines ``held`` (1..len) its receiver keeps,
    forks from them: a line for a number already held that is not the held line, or the
    next line not chained to the last held one. None if it is a held line again, the next
    line chained to the copy, or not a line of this copy at all (a number past the next)."""
    from zkbluff.protocol.transcript import line_hash

    n = line.get("n")
    if not held or type(n) is not int or not 1 <= n <= len(held) + 1:
        return None
    if n <= len(held):
        if canonical(dict(line)) == canonical(dict(held[n - 1])):
            return None
        kind, at, mine_side = TWO_LINES, n, list(held[n - 1:])
    else:
        if line.get("prev") == line_hash(canonical(dict(held[-1]))):
            return None
        kind, at, mine_side = BROKEN_LINK, n - 1, [held[-1]]
    parties = header_parties(held[0])
    theirs_parties = parties
    if n == 1 and line.get("action") == "header":
        try:
            theirs_parties = header_parties(line)
        except MalformedInput:
            pass
    same = n != 1 or _match_id(held[0]) == _match_id(line) is not None
    found = equivocators(mine_side, parties, [line], theirs_parties) if same else []
    return Fork(kind, at, dict(held[at - 1]), dict(line), signer_of(held[at - 1], parties),
                signer_of(line, theirs_parties), tuple(found))
