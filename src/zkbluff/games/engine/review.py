"""The review and replay of any game: a match, turn by turn, as one seat saw it.

The review of a match is its narration (:class:`~zkbluff.games.engine.narration.Narrator`,
the words every screen printed) from the viewer's seat, after the transcript verified as a
whole, with two things no screen said at the time:

* per proof on a line, what it disclosed (:func:`disclosed`): the statement's public
  values in words, and what it kept hidden;
* with the seat's own secrets file (the one beside the transcript, or a networked
  client's), the seat's own hand after every line that changed it: the seat is replayed
  from its deal (:meth:`~zkbluff.games.engine.parties.Seat.replay`), so what it played,
  gave up or took is shown as it happened.

Nothing here is new information for anyone but the viewer: a review without a secrets file
is a spectator's (the public lines alone), and a seat's file shows that seat's own cards.
Mind Bluff's reveal lines carry each game's review and Truth Replay, and they are said
here as every screen says them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from zkbluff.errors import MalformedInput
from zkbluff.games.engine.narration import Narrator
from zkbluff.games.engine.text import plural, second_person


# ---------------------------------------------------------------- what a proof disclosed

def _said(statement: str, v: Mapping[str, int], who: str) -> str:
    """The public values of one proof of ``statement`` (its name without ``@params``) in words."""
    def bit(name: str) -> bool:
        return bool(v.get(name, 0))

    if statement == "card.play.v1":
        return (f"{plural(v.get('count', 0), 'card')} came out of {who}'s committed hand; which cards stays "
                f"hidden")
    if statement == "card.claim.v1":
        return ("one bit: every played card " + ("is" if bit("verdict") else "is NOT") +
                " of the claimed rank; the cards stay hidden")
    if statement in ("card.absorb.v1", "card.absorb_many.v1"):
        return f"the pile's cards went into {who}'s hidden hand; nothing about them is disclosed"
    if statement == "card.match.v1":
        lies = v.get("lies", 0)
        return (f"{plural(lies, 'named rank')} {'is' if lies == 1 else 'are'} not matched by {who}'s two hidden "
                f"cards; the cards stay hidden")
    if statement == "card.deal.v2":
        board = " (the board is public)" if v.get("board") else ""
        rnd = v.get("round", 0)
        return (("the" if rnd >= 1 << 16 else f"round {rnd}'s") + f" hands are the fair deal of every party's committed entropy"
                f"{board}; each hand is known only to its seat and the dealer")
    if statement == "card.permutation.v1":
        return f"{who}'s committed deck is a shuffle of the whole deck; its order stays hidden"
    if statement == "card.chosen_hand.v1":
        return f"{who}'s hand is the cards at the positions it chose; the cards stay hidden"
    if statement == "card.pick.v1":
        return f"the card played for {who} is the one its own committed seed picks; which card stays hidden"
    if statement == "revolver.share.v1":
        return (f"{who}'s share of pull {v.get('pull', 0) + 1}, a pseudorandom value its committed seed gives; "
                f"the shares together decide click or BANG, the seed stays hidden")
    if statement == "value.chamber.v1":
        return f"one bit: pull {v.get('pull', 0) + 1} " + ("fired" if bit("fired") else "clicked")
    if statement == "value.choice.v1" and not v.get("claim"):
        return f"{who}'s secret eat is 1, 2 or 3; which stays hidden"
    if statement == "value.choice.v1":
        return (f"one bit: the secret eat {'equals' if bit('verdict') else 'is not'} the claim of "
                f"{v.get('claim', '?')}")
    if statement == "value.counter_step.v1":
        return ("one bit: the eat " + ("reached" if bit("ate_last") else "did not reach") +
                " the hidden count; the count stays hidden")
    if statement == "value.counter_is.v1":
        return f"one bit: the hidden count {'is' if bit('equal') else 'is not'} {v.get('target', '?')}"
    if statement == "value.start_draw.v1":
        return ("the hidden start is the fair draw of every party's entropy, and the coin says who moves "
                "first; the start stays hidden")
    small = [f"{k} {x}" for k, x in v.items() if "commitment" not in k and k != "context" and x < 1 << 16]
    return "public " + (", ".join(small) if small else "commitments only")


def disclosed(proof: Mapping[str, Any], names: Sequence[str]) -> str:
    """What one proof on a transcript line (its envelope: ``statement``, ``public``,
    ``signer``) disclosed, in words: ``card.claim.v1 by house: one bit: ...``."""
    from zkbluff.statements import get_statement

    key = str(proof.get("statement"))
    signer = proof.get("signer")
    who = names[signer] if isinstance(signer, int) and 0 <= signer < len(names) else \
        (str(signer) if signer is not None else "the house")
    try:
        stmt = get_statement(key)
        values = {k: int(x) for k, x in zip(stmt.public, proof.get("public") or [])}
    except (MalformedInput, TypeError, ValueError):
        return f"{key} by {who}"
    words = stmt.said(values, who) if stmt.said is not None else _said(stmt.name, values, who)
    return f"{key.split('@')[0]} by {who}: {words}"


# ---------------------------------------------------------------- the review

@dataclass
class ReviewStep:
    """One line of the match as the viewer saw it: its number and kind, the narration,
    the viewer's own hand after it (only where it changed; None without secrets), and
    what each proof on it disclosed."""

    n: int
    action: str
    seat: Optional[int]
    said: list[str]
    hand: Optional[str] = None
    disclosed: list[str] = field(default_factory=list)


@dataclass
class Review:
    """A match's review: the table, the viewer, the verification summary and the steps."""

    game: str
    title: str
    match: str
    names: list[str]
    viewer: Optional[int]
    summary: dict[str, Any]
    steps: list[ReviewStep]
    notes: list[str] = field(default_factory=list)

    def text(self, proofs: bool = True) -> str:
        """The review as a person reads it (``zkbluff review``)."""
        who = "a spectator (public lines only)" if self.viewer is None else \
            f"{self.names[self.viewer]} (seat {self.viewer})"
        s = self.summary
        out = [f"Review of {self.title}, match {self.match}, as {who}",
               f"verified: {s['lines']} signed lines, {s['proofs']} proofs"
               + ("" if s.get("over") else "; the match is not over")] + self.notes
        for step in self.steps:
            if not step.said and step.hand is None:
                continue
            if step.said:
                out.append(f"{step.n:4d}  {step.said[0]}")
                out += [f"        {more}" for more in step.said[1:]]
            if step.hand is not None:
                out.append(f"        {step.hand}")
            if proofs:
                out += [f"        proof: {d}" for d in step.disclosed]
        if s.get("summary"):
            out.append(str(s["summary"]))
        return "\n".join(out)


def _lines(path: Path) -> list[dict[str, Any]]:
    from zkbluff.protocol.transcript import parse_chain, read_lines

    return list(parse_chain(read_lines(path)))


def load_secrets(path: Union[str, Path]) -> dict[str, Any]:
    """A seat's secrets: the file ``zkbluff play`` keeps beside a transcript
    (``TRANSCRIPT.seatN.secrets.json``) or a networked client's (its ``seat`` object)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MalformedInput(f"{path}: no such secrets file") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise MalformedInput(f"{path}: not a secrets file ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("seat"), dict):
        data = data["seat"]
    if not isinstance(data, dict) or not isinstance(data.get("seat"), int) or "deal" not in data:
        raise MalformedInput(f"{path}: not a seat's secrets file (expected a JSON object with its seat and deal)")
    return data


def build_review(transcript: Union[str, Path], seat: Optional[int] = None,
                 secrets: Optional[Mapping[str, Any]] = None, keys_dir: Optional[Path] = None,
                 backend: Any = None) -> Review:
    """The review of the match in ``transcript`` (verified first: a bad transcript raises as
    :func:`~zkbluff.games.engine.verifier.verify_transcript` does) from ``seat`` (None: a
    spectator's). ``secrets``: that seat's own secrets (:func:`load_secrets`), to show its
    hand; its key must be the one the header lists for the seat."""
    from zkbluff.ceremony.trust import TrustContext
    from zkbluff.games.engine.parties import Prover, Seat
    from zkbluff.games.engine.registry import spec_for
    from zkbluff.games.engine.verifier import match_trust, verify_transcript
    from zkbluff.protocol.signing import SigningKey

    path = Path(transcript)
    summary = verify_transcript(path, keys_dir=keys_dir, backend=backend)
    events = _lines(path)
    header = events[0]["data"]
    spec = spec_for(header.get("game"), header.get("options"))
    names = list(header.get("seats") or [f"seat {i}" for i in range(spec.n_seats)])
    if secrets is not None and seat is None:
        seat = secrets.get("seat")
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < spec.n_seats):
        raise MalformedInput(f"--seat: this match has seats 0..{spec.n_seats - 1}, got {seat!r}")
    replayed = None
    trust = None
    notes: list[str] = []
    if secrets is not None:
        assert seat is not None
        if secrets.get("seat") != seat:
            raise MalformedInput(f"the secrets file is seat {secrets.get('seat')!r}'s, not seat {seat}'s")
        try:
            public = SigningKey.from_secret_hex(str(secrets.get("key"))).public_hex
        except Exception:  # noqa: BLE001  (any unreadable key is the same malformed file)
            raise MalformedInput("the secrets file holds no readable signing key") from None
        if public != (header.get("parties") or {}).get("seats", [None] * (seat + 1))[seat]:
            raise MalformedInput(f"the secrets file belongs to another match (its key is not seat {seat}'s here)")
        ctx = TrustContext.default()
        if keys_dir is not None:
            ctx = ctx.with_private_keys(Path(keys_dir))
        trust = match_trust(path, header, ctx, backend) if "ceremony" in header else ctx
        replayed = Seat.replay(spec, secrets, Prover(keys_dir, backend))
        if "ownUpdates" not in secrets:
            notes.append("(this secrets file was saved before a seat kept its own moves: your hand is shown as "
                         "dealt, without your own plays)")
    narrator = Narrator(spec, names, viewer=seat)
    text = spec.text
    steps: list[ReviewStep] = []
    shown: Optional[str] = None
    for event in events:
        said = narrator.lines(event)
        step = ReviewStep(int(event.get("n", 0)), str(event.get("action")), event.get("seat"), said,
                          disclosed=[disclosed(p, names) for p in event.get("proofs") or [] if isinstance(p, dict)])
        if "you" in names:
            step.disclosed = [second_person(d).replace("you's", "your") for d in step.disclosed]
        if replayed is not None:
            replayed.follow_again(event, trust)
            if replayed.view is not None and replayed.view.deal_ready and hasattr(text, "hand_words"):
                now = text.hand_words(replayed.observation())
                if now and now != shown and (shown is not None or getattr(replayed.observation(), "hand", True)):
                    step.hand, shown = now, now
        steps.append(step)
    return Review(spec.game, spec.title, str(header.get("match") or header.get("matchId") or "?"), names, seat,
                  summary, steps, notes)
