"""An in-process proven Mind Bluff series: the rules, the proven referee, each seat's
commitments and proofs, and a client check of every verdict — every step a real Groth16
proof. It is the reference flow the match engine's table and verifier reproduce with
messages and a transcript; contexts here are ``context_value(match_id, step, "local")``.

Order of commitments (why the game-3 start cannot be chosen): the referee publishes
``Poseidon(entropy, salt)`` and each seat ``commit_entropy(its draw entropy)`` before the
series; the seats reveal their entropies (checked against their commitments) when game 3
starts; the referee's draw proof derives the start and coin from all three; its own
entropy is revealed after game 3 with the rest of the game's truth.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Callable, Optional

from zkbluff.errors import CommitmentMismatch
from zkbluff.games.mind_bluff.bot import Move, SeatView, seat_legal
from zkbluff.games.mind_bluff.referee import (
    KeyRing, ProvenReferee, VerdictChecker, commit_choice, entropy_field, open_choice, prove_choice_range,
    prove_honest_claim, seal_choice,
)
from zkbluff.games.mind_bluff.review import (
    ChoiceOpening, GameCommitments, GameReveal, GameReview, ReplayFrame, build_review, truth_replay,
)
from zkbluff.games.mind_bluff.rules import (
    MAX_GAMES, Claim, Consent, Eat, Event, MindBluffRules, Phase,
)
from zkbluff.protocol.commit_reveal import commit_entropy
from zkbluff.protocol.context import context_value


@dataclass
class SessionRecord:
    rules: MindBluffRules
    commitments: list[GameCommitments]
    reveals: list[GameReveal]
    reviews: list[GameReview]
    proofs: int = 0
    seat_entropy_commitments: tuple[str, str] = ("", "")


@dataclass
class _Seat:
    entropy: str = field(default_factory=lambda: secrets.token_hex(32))
    channel: bytes = field(default_factory=lambda: secrets.token_bytes(32))  # shared with the referee only
    choices: list[int] = field(default_factory=list)
    opening: Optional[ChoiceOpening] = None


def play_proven_series(keys: KeyRing, policies, match_id: str = "local", humans=(False, False),
                       referee: Optional[ProvenReferee] = None, salts: Optional[Callable[[], int]] = None,
                       seat_entropies: Optional[tuple[str, str]] = None, max_steps: int = 5000,
                       on_event: Optional[Callable[[Event], None]] = None,
                       on_review: Optional[Callable[[GameReview, tuple[ReplayFrame, ...]], None]] = None,
                       ) -> SessionRecord:
    """Play a whole series with proofs; raise at the first check that fails. ``on_event``
    sees each public event as it happens; ``on_review`` each finished game's review and
    Truth Replay. A human seat's policy is asked for its consent between games."""
    ref = referee or (ProvenReferee(keys, salts=salts) if salts else ProvenReferee(keys))
    seats = [_Seat(seat_entropies[i]) if seat_entropies else _Seat() for i in range(2)]
    seat_commitments = (commit_entropy(seats[0].entropy), commit_entropy(seats[1].entropy))
    checker = VerdictChecker(keys, ref.commitment)
    rules = MindBluffRules(humans)
    rec = SessionRecord(rules, checker.games, [], [], 0, seat_commitments)
    n = 0

    def ctx() -> int:
        nonlocal n
        n += 1
        rec.proofs += 1
        return context_value(match_id, n, "local")

    shown = (0, 0)  # (game, events already passed to on_event)

    def publish() -> None:
        nonlocal shown
        if on_event is None:
            return
        done = shown[1] if shown[0] == rules.game else 0
        for e in rules.events[done:]:
            on_event(e)
        shown = (rules.game, len(rules.events))

    for _ in range(max_steps):
        publish()
        if rules.over:
            return rec
        phase = rules.phase
        if phase == Phase.START:
            game = rules.next_game_number
            ents = None
            if game == MAX_GAMES:
                for i, s in enumerate(seats):  # the reveal each seat's client checks
                    if commit_entropy(s.entropy) != seat_commitments[i]:
                        raise CommitmentMismatch(f"seat {i}: the revealed entropy does not open its commitment")
                ents = (entropy_field(seats[0].entropy), entropy_field(seats[1].entropy))
            c = ctx()
            action, proof = ref.start_game(game, c, ents)
            checker.start(action, proof, c, ents)
            rules.apply(None, action)
            for s in seats:
                s.choices = []
        elif phase in (Phase.TURN, Phase.CLAIM, Phase.RESPOND, Phase.NEXT_GAME):
            seat = rules.to_move
            assert seat is not None
            me = seats[seat]
            state = rules.public_state()
            view = SeatView(seat, state, tuple(me.choices),
                            seat_legal(rules.legal_actions(seat), state, seat, tuple(me.choices)))
            move: Move = policies[seat].act(view)
            a = move.action
            if isinstance(a, Eat):
                assert move.choice is not None
                opening = commit_choice(move.choice)
                c = ctx()
                checker.choice_posted(opening.commitment, prove_choice_range(keys, opening, c), c)
                rules.apply(seat, a)
                me.choices.append(move.choice)
                me.opening = opening
                line = n
                sealed = seal_choice(me.channel, match_id, line, opening)  # the seat -> the referee only
                c = ctx()
                verdict, proof = ref.eat(open_choice(me.channel, match_id, line, sealed), opening.commitment, c)
                checker.eat_verdict(verdict, proof, c)
                rules.apply(None, verdict)
            elif isinstance(a, Consent):
                rules.apply(seat, a)
            elif isinstance(a, Claim):
                if a.proven_equal:
                    c = ctx()
                    assert me.opening is not None
                    checker.honest_claim(a.amount, prove_honest_claim(keys, me.opening, a.amount, c), c)
                rules.apply(seat, a)
            else:
                rules.apply(seat, a)
                if rules.phase == Phase.DOUBT_VERDICT:
                    assert rules.claim is not None
                    c = ctx()
                    doubt_verdict, proof = ref.doubt(rules.claim.amount, c)
                    checker.doubt_verdict(rules.claim.amount, doubt_verdict, proof, c)
                    rules.apply(None, doubt_verdict)
                elif rules.phase == Phase.ALL_DONE_VERDICT:
                    c = ctx()
                    all_done_verdict, proof = ref.all_done(c)
                    checker.all_done_verdict(all_done_verdict, proof, c)
                    rules.apply(None, all_done_verdict)
        else:  # pragma: no cover - every referee phase is handled right after its trigger
            raise AssertionError(f"unexpected phase {phase}")
        if len(rules.games) > len(rec.reveals):  # a game just ended: the truth comes out now
            publish()
            reveal = ref.reveal()
            rec.reveals.append(reveal)
            rec.reviews.append(build_review(rules.games[-1], checker.current, reveal))
            if on_review is not None:
                on_review(rec.reviews[-1], truth_replay(rules.games[-1], checker.current, reveal))
    raise RuntimeError("the series did not end")
