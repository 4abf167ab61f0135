"""Mind Bluff's proven referee and the check every seat's client runs, on the match engine.

The referee (the engine's :class:`~zkbluff.games.engine.parties.RefereeParty`) keeps the
remaining count committed (``Poseidon(count, salt)``, a fresh salt after every eat) and
game 3's start committed; it never publishes either while a game runs. Every verdict it
gives is a Groth16 proof against the players' committed choices and its own committed
count:

============================  ==============================================================
verdict                       statement (publics the table pins)
============================  ==============================================================
games 1 and 2 start at 30     ``value.counter_is.v1`` (start commitment, target 30, equal 1)
game 3: start and coin        ``value.start_draw.v1`` (the referee's draw commitment from
                              game 1's line, the seats' revealed entropies, start
                              commitment, coin = ``first``)
survived / ate the last       ``value.counter_step.v1`` (count commitment before, after,
                              the eater's choice commitment, ate_last)
All done                      ``value.counter_is.v1`` (count commitment, target 1, equal)
TRUE / BLUFF                  ``value.choice.v1`` (the choice commitment, the claim, verdict)
============================  ==============================================================

A seat proves its own statements: the range of a committed choice (``value.choice.v1``
against claim 0: no choice in 1..3 equals 0, so its verdict is always 0 and discloses
nothing but the range) and, while in debt, that its claim equals its committed choice
(``value.choice.v1`` with verdict 1; the prover refuses a lie).

:class:`VerdictChecker` is the table's ledger of these commitments and the one place that
says which proof each line owes and what it pins: the spec's ``demand`` and ``record`` are
its methods, so the live referee, every seat's own view (each party re-checks every line
it is sent) and ``zkbluff transcript verify`` run exactly this check.

The referee's secrets (:class:`RefereeSecrets`) are fixed at the start: its draw entropy
and salt, a salt seed, its sealed-channel key. Everything else it proves from — the count,
each salt, each choice — follows from those and the public lines (the sealed choices
ride on the eat lines), so its moves are a pure function of its secrets and the table.

Game 3's start cannot be chosen: every seat committed its draw entropy in its join (the
header), the referee committed ``Poseidon(entropy, salt)`` on game 1's line before any
seat revealed, and the start is derived inside the proof from all three.
"""
from __future__ import annotations

import hashlib
import json
import secrets as pysecrets
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from Crypto.Protocol.DH import import_x25519_public_key
from Crypto.PublicKey import ECC

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, OutcomeMismatch
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.games.engine.spec import Move, ProofDemand
from zkbluff.games.mind_bluff.bowl import after_eat, check_choice
from zkbluff.games.mind_bluff.review import (
    ChoiceOpening, GameCommitments, GameReveal, build_review,
)
from zkbluff.games.mind_bluff.rules import (
    MAX_GAMES, N_SEATS, OPEN_START, AllDoneVerdict, Claim, DoubtVerdict, Eat, EatVerdict, EventKind, GameRecord,
    MindBluffRules, Phase, Reveal, RevealEntropy, SealAnswer, SealComplaint, StartGame, fixed_first_player,
)
from zkbluff.protocol.commit_reveal import commit_entropy, fresh_salt
from zkbluff.protocol.entropy import channel_key, x25519_keypair
from zkbluff.protocol.messages import open_sealed, seal
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


def _decimal(v: Any, what: str) -> int:
    if not (isinstance(v, str) and v.isdigit() and len(v) <= 78 and int(v) < r):
        raise MalformedInput(f"{what}: expected a decimal string below r, got {v!r:.40}")
    return int(v)


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ------------------------------------------------------------------ the sealed channel

def check_channel_key(public_hex: Any) -> bytes:
    """An X25519 public key (64 hex digits, a point the curve accepts): the referee's, as
    published on game 1's line, or a seat's ephemeral one; else :class:`MalformedInput`."""
    if not (isinstance(public_hex, str) and len(public_hex) == 64
            and all(c in "0123456789abcdef" for c in public_hex)):
        raise MalformedInput(f"channel: expected 64 lowercase hex digits, got {public_hex!r:.80}")
    raw = bytes.fromhex(public_hex)
    try:
        import_x25519_public_key(raw)
    except (ValueError, TypeError):
        raise MalformedInput(f"channel: {public_hex[:16]}… is not an X25519 public key") from None
    return raw


def _box_line(game: int, turn: int) -> int:
    """What a sealed choice is bound to besides the match and seat: its game and turn."""
    return game * 1000 + turn


def seal_choice(referee_public: str, match_id: str, seat: int, game: int, turn: int,
                opening: ChoiceOpening, own: Optional[ECC.EccKey] = None) -> str:
    """The seat's choice opening sealed for the referee only: a fresh X25519 key (``own``:
    the one the seat made and keeps, to answer a complaint with it) agreed with the
    referee's published key (HKDF bound to match and seat), AES-GCM bound to the game and
    turn. Returns ``ephemeral public key hex . box hex``."""
    if own is None:
        own, own_public = x25519_keypair()
    else:
        own_public = own.public_key().export_key(format="raw")
    key = channel_key(own, check_channel_key(referee_public), match_id, seat)
    box = seal(key, match_id, _box_line(game, turn), {"choice": opening.choice, "salt": str(opening.salt)})
    return own_public.hex() + "." + box


def open_choice(referee_key: ECC.EccKey, match_id: str, seat: int, game: int, turn: int, sealed: str) -> ChoiceOpening:
    """The referee opens a sealed choice: :class:`CommitmentMismatch` if it does not open
    under its key for this match, seat, game and turn; :class:`MalformedInput` for a
    payload of the wrong shape."""
    if not isinstance(sealed, str) or sealed.count(".") != 1:
        raise MalformedInput("sealed choice: expected 'ephemeral key hex.box hex'")
    eph, box = sealed.split(".")
    key = channel_key(referee_key, check_channel_key(eph), match_id, seat)
    d = open_sealed(key, match_id, _box_line(game, turn), box)
    if not (isinstance(d, dict) and set(d) == {"choice", "salt"}):
        raise MalformedInput("sealed choice: expected {choice, salt}")
    return ChoiceOpening(check_choice(d["choice"]), _decimal(d["salt"], "sealed choice salt"))


def open_choice_by_seat(seat_key_hex: Any, referee_public: str, match_id: str, seat: int, game: int, turn: int,
                        sealed: str) -> ChoiceOpening:
    """Anyone opens a sealed choice with the seat's ephemeral X25519 private key (64 hex
    digits; its answer to a complaint): the key must be the one whose public key the box
    names, and the box must open under it and the referee's published key. Raises
    :class:`CommitmentMismatch` (code ``seal.answer``) if it is not or does not."""
    if not (isinstance(seat_key_hex, str) and len(seat_key_hex) == 64
            and all(c in "0123456789abcdef" for c in seat_key_hex)):
        raise MalformedInput(f"seal_answer: the key must be 64 lowercase hex digits, got {seat_key_hex!r:.80}")
    if not isinstance(sealed, str) or sealed.count(".") != 1:
        raise CommitmentMismatch("seal_answer: the eat line's sealed choice is not 'key.box'", code="seal.answer")
    eph, box = sealed.split(".")
    own = ECC.construct(curve="X25519", seed=bytes.fromhex(seat_key_hex))
    if own.public_key().export_key(format="raw").hex() != eph:
        raise CommitmentMismatch("seal_answer: the key is not the one the sealed choice was made with",
                                 code="seal.answer")
    try:
        key = channel_key(own, check_channel_key(referee_public), match_id, seat)
        d = open_sealed(key, match_id, _box_line(game, turn), box)
        if not (isinstance(d, dict) and set(d) == {"choice", "salt"}):
            raise MalformedInput("sealed choice: expected {choice, salt}")
        return ChoiceOpening(check_choice(d["choice"]), _decimal(d["salt"], "sealed choice salt"))
    except (CommitmentMismatch, MalformedInput) as exc:
        raise CommitmentMismatch(f"seal_answer: the sealed choice does not open under this key: {exc}",
                                 code="seal.answer") from None


def commit_choice(choice: int, salt: Optional[int] = None) -> ChoiceOpening:
    check_choice(choice)
    return ChoiceOpening(choice, fresh_salt() if salt is None else salt)


def range_inputs(opening: ChoiceOpening) -> dict[str, int]:
    """The seat's proof inputs that its committed choice is 1, 2 or 3 (discloses nothing else)."""
    return {"choice": opening.choice, "choice_salt": opening.salt, "claim": RANGE_CLAIM, "verdict": 0}


def honest_claim_inputs(opening: ChoiceOpening, claim: int) -> dict[str, int]:
    """A seat in debt: the inputs of its proof that ``claim`` equals its committed choice (a
    lie cannot be proven: :class:`UnsatisfiedConstraint` on ``verdict``)."""
    return {"choice": opening.choice, "choice_salt": opening.salt, "claim": claim, "verdict": 1}


# ------------------------------------------------------------------ the ledger and the check

@dataclass
class VerdictChecker:
    """The commitments the table holds and the check of every proven line: ``expect_*``
    says which proof a line owes and the publics it must carry (the engine verifies the
    envelope against them, in every party's view and offline); ``record_*`` keeps the
    proofs' outputs. ``seat_entropies`` are the seats' draw-entropy commitments from the
    header."""

    seat_entropies: tuple[str, ...] = ()
    match_id: str = ""
    draw_commitment: Optional[int] = None
    channel: Optional[str] = None
    revealed_entropies: dict[int, str] = field(default_factory=dict)
    games: list[GameCommitments] = field(default_factory=list)
    sealed: list[list[str]] = field(default_factory=list)   # per game, each eat's sealed choice
    reveals: list[GameReveal] = field(default_factory=list)
    #: ``(line, reason)`` once a seat's answer showed the referee's seal complaint false
    referee_fault: Optional[tuple[int, str]] = None

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

    def count_commitment(self) -> int:
        """The current count commitment (the start's before any eat)."""
        g = self.current
        return g.count_commitments[-1] if g.count_commitments else g.start_commitment

    def seat_entropy_fields(self) -> tuple[int, int]:
        if len(self.revealed_entropies) != N_SEATS:
            raise IllegalMove("game 3: the draw needs both seats' revealed entropies")
        return entropy_field(self.revealed_entropies[0]), entropy_field(self.revealed_entropies[1])

    # ---- what each line owes
    def expect(self, rules: MindBluffRules, seat: Optional[int], action: Any) -> list[ProofDemand]:
        if isinstance(action, StartGame):
            return [self.expect_start(action)]
        if isinstance(action, Eat):
            if not isinstance(action.sealed, str) or not action.sealed:
                raise MalformedInput("eat: the choice must reach the referee sealed (field 'sealed')")
            eph, _, box = action.sealed.partition(".")
            if len(eph) != 64 or not box or len(box) % 2 or "." in box or \
                    any(c not in "0123456789abcdef" for c in eph + box):
                raise MalformedInput(f"eat: sealed must be 'ephemeral key (64 hex digits).box (hex)', "
                                     f"got {action.sealed!r:.40}")
            return [ProofDemand(CHOICE, {"claim": RANGE_CLAIM, "verdict": 0})]
        if isinstance(action, EatVerdict):
            return [ProofDemand(STEP, {"old_commitment": self.count_commitment(),
                                       "choice_commitment": self._last_choice(settled=False),
                                       "ate_last": int(action.ate_last)})]
        if isinstance(action, Claim) and action.proven_equal:
            return [ProofDemand(CHOICE, {"choice_commitment": self._last_choice(settled=True),
                                         "claim": action.amount, "verdict": 1})]
        if isinstance(action, DoubtVerdict):
            assert rules.claim is not None
            return [ProofDemand(CHOICE, {"choice_commitment": self._last_choice(settled=True),
                                         "claim": rules.claim.amount, "verdict": int(action.truthful)})]
        if isinstance(action, AllDoneVerdict):
            return [ProofDemand(COUNT_IS, {"commitment": self.count_commitment(), "target": ALL_DONE_TARGET,
                                           "equal": int(action.exactly_one)})]
        if isinstance(action, SealAnswer):
            assert seat is not None and self.channel is not None
            self.check_seal_answer(rules, seat, action)
        if isinstance(action, RevealEntropy):
            assert seat is not None
            entropy_field(action.entropy)
            if commit_entropy(action.entropy) != self.seat_entropies[seat]:
                raise CommitmentMismatch(f"reveal_entropy: seat {seat}'s entropy does not open its commitment "
                                         "in the header")
        if isinstance(action, Reveal):
            self.check_reveal_line(rules.games[-1], action)
        return []

    def check_seal_answer(self, rules: MindBluffRules, seat: int, action: SealAnswer) -> ChoiceOpening:
        """The accused eater's answer opens its last sealed choice to the choice it committed
        (else :class:`CommitmentMismatch`, ``seal.answer``: the answer is refused)."""
        opening = open_choice_by_seat(action.key, str(self.channel), self.match_id, seat, rules.game, rules.turn,
                                      self.sealed[-1][-1])
        if opening.commitment != self.current.choice_commitments[-1]:
            raise CommitmentMismatch("seal_answer: the sealed choice opens to another choice than the one committed",
                                     code="seal.answer")
        return opening

    def expect_start(self, action: StartGame) -> ProofDemand:
        if action.game == 1:
            _decimal(action.draw_commitment, "start_game: the referee's draw commitment")
            check_channel_key(action.channel)
        elif action.draw_commitment or action.channel:
            raise IllegalMove(f"start_game: game {action.game}'s line carries no draw commitment or channel "
                              "(published once, on game 1's)")
        if action.game < MAX_GAMES:
            return ProofDemand(COUNT_IS, {"target": OPEN_START, "equal": 1})
        assert self.draw_commitment is not None
        e0, e1 = self.seat_entropy_fields()
        return ProofDemand(DRAW, {"referee_commitment": self.draw_commitment, "entropy0": e0, "entropy1": e1,
                                  "coin": action.first})

    def check_reveal_line(self, record: GameRecord, action: Reveal) -> GameReveal:
        """The reveal opens every commitment, agrees with every verdict (``check_reveal``),
        and its review is exactly the one they give."""
        reveal = reveal_of(action)
        g = self.current
        try:
            review = build_review(record, g, reveal)
        except OutcomeMismatch as exc:
            raise IllegalMove(f"reveal: {exc}") from None
        if action.review != canonical_json(review.to_json()):
            raise IllegalMove(f"reveal: the review of game {record.game} is not the one its truth gives")
        return reveal

    # ---- what the table holds afterwards
    def record(self, seat: Optional[int], action: Any, publics: list[dict[str, int]]) -> None:
        if isinstance(action, StartGame):
            if action.game == 1:
                self.draw_commitment = int(action.draw_commitment)
                self.channel = action.channel
            p = publics[0]
            if action.game < MAX_GAMES:
                self.games.append(GameCommitments(action.game, p["commitment"]))
            else:
                self.games.append(GameCommitments(action.game, p["start_commitment"], [], [], self.draw_commitment,
                                                  self.seat_entropy_fields()))
            self.sealed.append([])
        elif isinstance(action, Eat):
            self.current.choice_commitments.append(publics[0]["choice_commitment"])
            self.sealed[-1].append(action.sealed)
        elif isinstance(action, EatVerdict):
            self.current.count_commitments.append(publics[0]["new_commitment"])
        elif isinstance(action, RevealEntropy):
            assert seat is not None
            self.revealed_entropies[seat] = action.entropy
        elif isinstance(action, Reveal):
            self.reveals.append(reveal_of(action))


def reveal_of(action: Reveal) -> GameReveal:
    """The :class:`GameReveal` a reveal line carries (strict: :class:`MalformedInput`)."""
    if len(action.choices) != len(action.choice_salts):
        raise MalformedInput(f"reveal: {len(action.choices)} choices but {len(action.choice_salts)} salts")
    third = action.game == MAX_GAMES
    return GameReveal.from_json({
        "game": action.game, "start": action.start, "countSalts": list(action.count_salts),
        "choices": [{"choice": c, "salt": s} for c, s in zip(action.choices, action.choice_salts)],
        "refereeEntropy": action.referee_entropy if third else None,
        "refereeSalt": action.referee_salt if third else None})


def reveal_action(reveal: GameReveal, review_json: dict[str, Any]) -> Reveal:
    third = reveal.game == MAX_GAMES
    return Reveal(reveal.game, reveal.start, tuple(str(s) for s in reveal.count_salts),
                  tuple(o.choice for o in reveal.openings), tuple(str(o.salt) for o in reveal.openings),
                  str(reveal.referee_entropy) if third else "", str(reveal.referee_salt) if third else "",
                  canonical_json(review_json))


# ------------------------------------------------------------------ the referee's side

@dataclass(frozen=True)
class RefereeSecrets:
    """What the referee holds: its draw entropy and the salt of its commitment, the seed
    of every count salt, its sealed channel's X25519 key (DER, hex). JSON-safe."""

    entropy: int
    entropy_salt: int
    salt_seed: str
    channel_der: str

    @classmethod
    def fresh(cls) -> "RefereeSecrets":
        key, _ = x25519_keypair()
        return cls(pysecrets.randbelow(r), pysecrets.randbelow(r), pysecrets.token_hex(32),
                   key.export_key(format="DER").hex())

    def to_json(self) -> dict[str, Any]:
        return {"entropy": str(self.entropy), "entropySalt": str(self.entropy_salt), "saltSeed": self.salt_seed,
                "channel": self.channel_der}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "RefereeSecrets":
        try:
            return cls(_decimal(d["entropy"], "referee entropy"), _decimal(d["entropySalt"], "referee salt"),
                       str(d["saltSeed"]), str(d["channel"]))
        except (KeyError, TypeError) as exc:
            raise MalformedInput(f"referee secrets: {exc}") from None

    @property
    def commitment(self) -> int:
        """Published on game 1's line, before any seat reveals its draw entropy."""
        return commit(self.entropy, self.entropy_salt)

    @property
    def channel_key(self) -> ECC.EccKey:
        return ECC.import_key(bytes.fromhex(self.channel_der))

    @property
    def channel_public(self) -> str:
        return self.channel_key.public_key().export_key(format="raw").hex()

    def count_salt(self, game: int, k: int) -> int:
        """The salt of game ``game``'s count commitment after ``k`` eats (0: the start)."""
        h = hashlib.sha256(f"zkbluff:mind-bluff:count-salt:v1:{self.salt_seed}:{game}:{k}".encode()).digest()
        return int.from_bytes(h, "big") % r


@dataclass
class GameTruth:
    """The referee's view of the running game, rebuilt from its secrets and the table."""

    game: int
    start: int
    openings: list[ChoiceOpening]
    before: list[int]      # the count before each eat
    remaining: int


def game_truth(secrets: RefereeSecrets, rules: MindBluffRules, ledger: VerdictChecker, match_id: str) -> GameTruth:
    """Open every sealed choice of the running game (checked against its posted commitment)
    and replay the count from the start."""
    g = ledger.current
    start = OPEN_START if g.game < MAX_GAMES else start_draw_native(secrets.entropy, ledger.seat_entropy_fields())[0]
    eats = [e for e in rules.events if e.kind == EventKind.ATE]  # this game's (kept until the next starts)
    openings, before, remaining = [], [], start
    for (e, sealed, posted) in zip(eats, ledger.sealed[-1], g.choice_commitments):
        assert e.seat is not None
        o = open_choice(secrets.channel_key, match_id, e.seat, g.game, e.turn, sealed)
        if o.commitment != posted:
            raise CommitmentMismatch(f"eat at turn {e.turn}: the sealed choice does not open the posted commitment")
        openings.append(o)
        before.append(remaining)
        remaining = after_eat(o.choice, remaining)
    return GameTruth(g.game, start, openings, before, remaining)


def referee_move(secrets: RefereeSecrets, rules: MindBluffRules, ledger: VerdictChecker, match_id: str) -> Optional[Move]:
    """The referee's line when it is to move: a game's start, a verdict or a reveal, with
    the inputs of the proof it owes (the engine proves and binds it to the line)."""
    phase = rules.phase
    if phase == Phase.START:
        game = rules.next_game_number
        salt = secrets.count_salt(game, 0)
        if game < MAX_GAMES:
            first = fixed_first_player(game)
            assert first is not None
            extra = (str(secrets.commitment), secrets.channel_public) if game == 1 else ("", "")
            return Move(StartGame(game, first, *extra), ({"count": OPEN_START, "salt": salt, "target": OPEN_START},))
        e0, e1 = ledger.seat_entropy_fields()
        _, coin = start_draw_native(secrets.entropy, (e0, e1))
        return Move(StartGame(game, coin), ({"referee_entropy": secrets.entropy, "referee_salt": secrets.entropy_salt,
                                             "start_salt": salt, "entropy0": e0, "entropy1": e1},))
    if phase not in (Phase.EAT_VERDICT, Phase.DOUBT_VERDICT, Phase.ALL_DONE_VERDICT, Phase.REVEAL):
        return None
    try:
        t = game_truth(secrets, rules, ledger, match_id)
    except (CommitmentMismatch, MalformedInput):
        if phase != Phase.EAT_VERDICT:  # every earlier box opened at its own verdict
            raise
        # the eat awaiting its verdict: its box does not open to its commitment. The referee
        # cannot prove a verdict; it says so, and the eater answers or forfeits
        return Move(SealComplaint(rules.actor))
    k = len(t.openings)
    if phase == Phase.EAT_VERDICT:
        o = t.openings[-1]
        return Move(EatVerdict(o.choice >= t.before[-1]), ({
            "old_count": t.before[-1], "old_salt": secrets.count_salt(t.game, k - 1), "choice": o.choice,
            "choice_salt": o.salt, "new_salt": secrets.count_salt(t.game, k)},))
    if phase == Phase.DOUBT_VERDICT:
        assert rules.claim is not None
        o = t.openings[-1]
        return Move(DoubtVerdict(o.choice == rules.claim.amount), ({
            "choice": o.choice, "choice_salt": o.salt, "claim": rules.claim.amount},))
    if phase == Phase.ALL_DONE_VERDICT:
        return Move(AllDoneVerdict(t.remaining == ALL_DONE_TARGET), ({
            "count": t.remaining, "salt": secrets.count_salt(t.game, k), "target": ALL_DONE_TARGET},))
    third = t.game == MAX_GAMES
    reveal = GameReveal(t.game, t.start, tuple(secrets.count_salt(t.game, i) for i in range(k + 1)),
                        tuple(t.openings), secrets.entropy if third else None, secrets.entropy_salt if third else None)
    review = build_review(rules.games[-1], ledger.current, reveal)
    return Move(reveal_action(reveal, review.to_json()))
