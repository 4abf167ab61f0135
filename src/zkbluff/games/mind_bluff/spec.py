"""Mind Bluff on the match engine: the spec the referee, table, parties and offline
verifier run.

Parties. The engine's referee party holds the count (committed, hidden) with its own
secrets (:class:`~zkbluff.games.mind_bluff.referee.RefereeSecrets`) and proves every
verdict; the dealer deals nothing (no line of its own); each seat holds its choices. A
seat's choice reaches the referee sealed to the key the referee published on game 1's
line; every verdict is a referee line carrying its proof; every party (each seat's own
client included) re-checks every line against :class:`VerdictChecker`, the ledger the
spec's ``demand`` and ``record`` delegate to.

The draw. Each seat commits its draw entropy in its join (the header's ``deal``), the
referee commits its own on game 1's line; before game 3 each seat reveals its entropy (a
line), and the referee's ``value.start_draw.v1`` proof derives the start (hidden) and the
coin (public) from all three. The start, its salt and the referee's entropy appear on the
``reveal`` line after game 3 ends, nowhere before.

Options: ``humans`` names the human-controlled seats (``P1``, ``P2``, ``both``, ``none``;
default ``P1``, as ``zkbluff play`` seats you as P1): only they consent to the next game.
"""
from __future__ import annotations

import secrets as pysecrets
from typing import Any, ClassVar, Mapping, Optional, Sequence

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.games.engine.rules import NO_SEAT, Action, Rules
from zkbluff.games.engine.spec import DealScheme, GameSpec, Move, ProofDemand
from zkbluff.games.mind_bluff import text
from zkbluff.games.mind_bluff.bot import HouseBot, RandomBot, SeatView, seat_legal
from zkbluff.games.mind_bluff.bot import Move as Intent
from zkbluff.games.mind_bluff.referee import (
    STATEMENTS, RefereeSecrets, VerdictChecker, commit_choice, honest_claim_inputs, range_inputs, referee_move,
    seal_choice,
)
from zkbluff.games.mind_bluff.review import ChoiceOpening
from zkbluff.games.mind_bluff.rules import (
    ACTIONS, END_CODES, MAX_GAMES, N_SEATS, PACING, SEAT_PHASES, Claim, Doubt, Eat, MindBluffRules, Phase,
    RefereeTimeOut, RevealEntropy, SealAnswer, StartGame, TimeOut,
)
from zkbluff.protocol.commit_reveal import _hex32, commit_entropy
from zkbluff.protocol.entropy import x25519_keypair

HUMANS = {"P1": (True, False), "P2": (False, True), "both": (True, True), "none": (False, False)}
DRAW_SCHEME = "mind-bluff.draw.v1"


class DrawCommitments(DealScheme):
    """Mind Bluff deals no cards: before the series each seat commits the entropy it adds
    to game 3's draw (SHA-256, in its join; the header lists the commitments). Nothing is
    sent to the dealer and nothing is closed after the end."""

    trust: ClassVar[str] = ("proven referee: the referee holds the count committed and proves every verdict; "
                            "game 3's start is drawn in proof from every party's committed entropy")

    def seat_secrets(self) -> dict[str, Any]:
        return {"entropy": pysecrets.token_hex(32)}

    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {"entropy": commit_entropy(secrets["entropy"])}

    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {}

    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        return {"scheme": DRAW_SCHEME, "entropyCommitments": [p["entropy"] for p in seat_public]}

    def check_header(self, deal: Any, n_seats: int) -> None:
        self.commitments(deal, n_seats)

    def check_seat_header(self, deal: Any, seat: int, secrets: Mapping[str, Any]) -> None:
        """The header lists this seat's own draw commitment (commit, then open: a referee
        that wrote another would make the seat's true reveal fail and time it out)."""
        if self.commitments(deal, len(deal["entropyCommitments"]))[seat] != commit_entropy(secrets["entropy"]):
            raise CommitmentMismatch(f"seat {seat}: the header's draw commitment for this seat is not the one "
                                     "it sent in its join")

    def observe(self, ledger: Any, line: int, action: Action, publics: list[dict[str, int]]) -> None:
        """An accepted seal answer (its key opened the box to the commitment: the referee's
        complaint was false) is recorded with its line: ``transcript verify`` names it."""
        if isinstance(action, SealAnswer):
            ledger.referee_fault = (line, "the referee said a sealed choice does not open, and the seat's answer "
                                          "opens it to the committed choice")
        if isinstance(action, RefereeTimeOut):
            ledger.referee_fault = (line, "the referee let its time run out (the table waited on it past the "
                                          "proof limit; the seat's claim is stamped after it)")

    @staticmethod
    def commitments(deal: Any, n_seats: int) -> tuple[str, ...]:
        """The seats' draw commitments of a header's ``deal``; :class:`MalformedInput` unless
        it is well formed."""
        if not isinstance(deal, dict) or set(deal) != {"scheme", "entropyCommitments"} \
                or deal["scheme"] != DRAW_SCHEME:
            raise MalformedInput(f"header deal: expected {{scheme: {DRAW_SCHEME}, entropyCommitments}}")
        coms = deal["entropyCommitments"]
        if not isinstance(coms, list) or len(coms) != n_seats:
            raise MalformedInput(f"header deal: expected {n_seats} entropy commitments")
        return tuple(_hex32(c, "entropy commitment") for c in coms)


class MindBluffSpec(GameSpec):
    game = "mind-bluff"
    title = "Mind Bluff"
    #: the end reason codes (the rules' table): the end line's ``code`` under rules /1
    end_codes = END_CODES
    actions: ClassVar[tuple[type[Action], ...]] = tuple(ACTIONS.values())
    option_values: ClassVar[Mapping[str, tuple[str, ...]]] = {"humans": tuple(HUMANS)}
    default_options: ClassVar[Mapping[str, str]] = {"humans": "P1"}
    n_seats = N_SEATS
    house_bot = HouseBot
    random_bot = RandomBot
    text = text.MindBluffText
    deal: DrawCommitments

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.deal = DrawCommitments()

    seat_set_options: ClassVar[tuple[str, ...]] = ("humans",)

    def check_seat_kind(self, seat: int, person: bool) -> None:
        """A person's seat must be one the table asks to consent (a server that marked it a
        bot would take its consent for granted)."""
        from zkbluff.errors import TableMismatch

        if HUMANS[self.options["humans"]][seat] != person:
            raise TableMismatch(f"mind-bluff: the table's humans={self.options['humans']} treats seat P{seat + 1} "
                                f"as {'a bot' if person else 'a person'}; this seat is "
                                f"{'a person' if person else 'a bot'}")

    def table_options(self, people: Sequence[bool]) -> dict[str, str]:
        """Seed: "Both human-controlled seats must consent" to the next game: over a
        server the humans are the seats people play (a bot seat consents by itself)."""
        return {"humans": next(k for k, v in HUMANS.items() if v == tuple(bool(p) for p in people))}

    # ---- the public side
    def statements(self) -> list[str]:
        return list(STATEMENTS)

    def new_rules(self) -> MindBluffRules:
        return MindBluffRules(HUMANS[self.options["humans"]])

    def new_ledger(self, header: Mapping[str, Any]) -> VerdictChecker:
        """The verdict ledger, starting from the seats' draw commitments in the header."""
        return VerdictChecker(self.deal.commitments(header["deal"], self.n_seats), str(header.get("matchId", "")))

    def demand(self, rules: Rules, ledger: VerdictChecker, seat: Optional[int], action: Action) -> list[ProofDemand]:
        assert isinstance(rules, MindBluffRules)
        return ledger.expect(rules, seat, action)

    def record(self, ledger: VerdictChecker, seat: Optional[int], action: Action,
               publics: list[dict[str, int]]) -> None:
        ledger.record(seat, action, publics)

    def claimed_wait(self, rules: Rules, action: Action) -> Any:
        """A seat's :class:`RefereeTimeOut` claims the referee let the ``proof`` limit run out."""
        return "proof" if isinstance(action, RefereeTimeOut) else None

    def pause(self, rules: Rules, action: Action) -> float:
        """The seed's pauses that are rules, not decoration: "Doubt pauses all manual and
        automatic play for 4.5 seconds", and game 3's 10-second coin/number animation
        ("Closing the animation does not skip the server's waiting period"). No seat moves
        inside either (the referee's verdict on the doubt comes at once). The other pauses
        (voices, All done's suspense) only cover a result already final: presentation."""
        if isinstance(action, Doubt):
            return PACING.doubt_hold_s
        if isinstance(action, StartGame) and action.game == MAX_GAMES:
            return PACING.coin_animation_s
        return 0.0

    def fault(self, ledger: VerdictChecker) -> Optional[tuple[int, str]]:
        """``(line, reason)`` once a seat showed its sealed choice opens after the referee
        said it does not: the referee is at fault."""
        return ledger.referee_fault

    def timeout(self, rules: Rules) -> Optional[tuple[Action, str]]:
        """The seed sets no limit; this table gives every seat's wait (its turn, its claim,
        its answer, its draw entropy, its consent) the header's ``idle`` limit, and an
        accused eater's answer to the referee's seal complaint the ``proof`` limit (its
        client answers by itself, as it proves). The seat that lets it run out forfeits the
        series (:class:`TimeOut`; docs/mind-bluff.md)."""
        assert isinstance(rules, MindBluffRules)
        seat = rules.to_move
        if rules.over or seat is NO_SEAT or rules.phase not in SEAT_PHASES:
            return None
        return TimeOut(seat), "proof" if rules.phase == Phase.SEAL_ANSWER else "idle"

    # ---- the seat side
    def new_private(self) -> dict[str, Any]:
        return {"matchId": "", "channel": "", "entropy": "", "choices": [], "opening": None, "sealKey": None}

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        out = dict(private)
        if isinstance(action, StartGame):
            if action.game == 1:
                out.update(matchId=match_id, channel=action.channel, entropy=deal_secrets["entropy"])
            out.update(choices=[], opening=None)  # private choice notes reset each game
        return out

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        assert isinstance(rules, MindBluffRules)
        if isinstance(intent, Intent):
            action, choice = intent.action, intent.choice
        elif isinstance(intent, Action):
            action, choice = intent, None
        else:
            raise MalformedInput(f"mind-bluff: {intent!r:.80} is not a move")
        if isinstance(action, Eat):
            rules.check(seat, action)
            opening = commit_choice(choice)  # type: ignore[arg-type]  # 1..3, else MalformedInput
            own, _ = x25519_keypair()  # kept (this eat only) to answer a complaint that the box does not open
            sealed = seal_choice(private["channel"], private["matchId"], seat, rules.game, rules.turn + 1, opening, own)
            return Move(Eat(sealed), (range_inputs(opening),),
                        {"choices": [*private["choices"], opening.choice],
                         "opening": {"choice": opening.choice, "salt": str(opening.salt)}, "sealKey": own.seed.hex()})
        if isinstance(action, SealAnswer):
            rules.check(seat, action)
            if not private.get("sealKey"):
                raise IllegalMove("seal_answer: this seat holds no key of a sealed choice to show")
            return Move(SealAnswer(private["sealKey"]))
        if isinstance(action, Claim):
            owes = rules.debts[seat]
            if owes == 0:
                return Move(Claim(action.amount, False))
            o = private["opening"]
            if o is None:
                raise IllegalMove("claim: nothing eaten to claim")
            opening = ChoiceOpening(o["choice"], int(o["salt"]))
            if action.amount != opening.choice:
                raise IllegalMove(f"claim: you owe {owes} honest claim(s): claim what you ate ({opening.choice}), "
                                  f"not {action.amount}")
            return Move(Claim(action.amount, True), (honest_claim_inputs(opening, action.amount),))
        if isinstance(action, RevealEntropy):
            return Move(RevealEntropy(private["entropy"]))
        return Move(action)

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> SeatView:
        assert isinstance(rules, MindBluffRules)
        state = rules.public_state()
        mine = tuple(private["choices"])
        return SeatView(seat, state, mine, seat_legal(rules.legal_actions(seat), state, seat, mine))

    # ---- the dealer and the referee
    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str,
                    line: int) -> Optional[Move]:
        return None  # nothing to deal: the referee opens each game

    def new_referee_private(self) -> dict[str, Any]:
        return RefereeSecrets.fresh().to_json()

    def referee_move(self, referee: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str,
                     line: int) -> Optional[Move]:
        assert isinstance(rules, MindBluffRules) and isinstance(ledger, VerdictChecker)
        return referee_move(RefereeSecrets.from_json(referee), rules, ledger, match_id)


def series_review(path: Any) -> dict[str, Any]:
    """The downloadable review of a series from its transcript: the transcript is verified
    first (every proof, every reveal against its commitments and verdicts: a bad one raises
    :class:`~zkbluff.errors.TranscriptError`), then each finished game's review and reveal,
    the players' names and the result. The transcript itself is the full record."""
    import json
    from pathlib import Path

    from zkbluff.games.engine.verifier import verify_transcript
    from zkbluff.games.mind_bluff.referee import reveal_of
    from zkbluff.games.mind_bluff.rules import Reveal

    report = verify_transcript(path)
    if report["game"] != MindBluffSpec.game:
        raise MalformedInput(f"series review: a {MindBluffSpec.game} transcript, got {report['game']!r}")
    events = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    names = events[0]["data"]["seats"]
    games = [{"review": json.loads(e["data"]["review"]), "reveal": reveal_of(Reveal.from_data(e["data"])).to_json()}
             for e in events if e["action"] == Reveal.kind]
    result = report["result"]
    return {"game": MindBluffSpec.game, "matchId": events[0]["data"]["matchId"], "players": names,
            "result": None if result is None else result.reason, "complete": report["complete"], "games": games}
