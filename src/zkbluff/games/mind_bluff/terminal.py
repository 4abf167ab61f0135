"""Mind Bluff at a terminal: a human seat as a policy that reads lines, the public events
in words, and the review and Truth Replay after each game. I/O is injected (``read``,
``write``, ``sleep``), so a test drives it with a script; ``zkbluff play mind-bluff``
wires it to stdin/stdout and :func:`~zkbluff.games.mind_bluff.session.play_proven_series`.
"""
from __future__ import annotations

from typing import Callable, Optional

from zkbluff.games.mind_bluff.bot import Move, SeatView, check_display_text
from zkbluff.games.mind_bluff.review import GameReview, ReplayFrame
from zkbluff.games.mind_bluff.rules import (
    MAX_EAT, MIN_EAT, SEAT_NAMES, AllDone, Believe, Claim, Consent, Doubt, Eat, Event, Phase,
)
from zkbluff.games.mind_bluff.text import END_WORDS, describe

HELP = {
    Phase.TURN: "eat 1, eat 2, eat 3 (in secret) or 'all done'",
    Phase.CLAIM: "claim 1, 2 or 3",
    Phase.RESPOND: "'believe' or 'doubt'",
    Phase.NEXT_GAME: "press Enter for the next game",
}


class TerminalPlayer:
    """A human seat. Re-asks on input it cannot use, saying why; never changes the rules."""

    def __init__(self, read: Callable[[str], str], write: Callable[[str], None],
                 names: tuple[str, str] = SEAT_NAMES):
        self.read, self.write = read, write
        self.names = tuple(check_display_text(n, "player name") for n in names)

    def act(self, view: SeatView) -> Move:
        s = view.state
        if s.phase == Phase.NEXT_GAME:
            self.read(f"Series {s.wins[0]}–{s.wins[1]}. {HELP[Phase.NEXT_GAME]} ")
            return Move(Consent())
        while True:
            owes = s.debts[view.seat]
            status = f"[game {s.game}, debts {s.debts[0]}–{s.debts[1]}" + (f", you owe {owes}" if owes else "") + "]"
            line = self.read(f"{status} {HELP[s.phase]}: ").strip().lower()
            move, why = self._parse(view, line)
            if move is not None:
                return move
            self.write(why)

    def _parse(self, view: SeatView, line: str) -> tuple[Optional[Move], str]:
        s = view.state
        words = line.replace("-", " ").split()
        if s.phase == Phase.TURN:
            if words[:2] == ["all", "done"] or words == ["a"]:
                ok = self.read("All done! (y) or Keep playing (n)? ").strip().lower()
                return (Move(AllDone()), "") if ok in ("y", "yes") else (None, "Keep playing.")
            num = words[-1] if words and words[0] in ("eat", "e") else (words[0] if len(words) == 1 else "")
            if num.isdigit() and MIN_EAT <= int(num) <= MAX_EAT:
                return Move(Eat(), int(num)), ""
            return None, f"Eat {MIN_EAT}, 2 or {MAX_EAT}, or 'all done' (got {line!r:.40})."
        if s.phase == Phase.CLAIM:
            num = words[-1] if words else ""
            if not (num.isdigit() and 1 <= int(num) <= 3):
                return None, f"Claim 1, 2 or 3 (got {line!r:.40})."
            legal = [a for a in view.legal if isinstance(a, Claim) and a.amount == int(num)]
            if not legal:
                return None, (f"You owe {s.debts[view.seat]} honest claim(s): claim what you ate "
                              f"({view.my_choices[-1]}).")
            return Move(legal[0]), ""
        if s.phase == Phase.RESPOND:
            if words and "believe".startswith(words[0]):
                return Move(Believe()), ""
            if words and "doubt".startswith(words[0]):
                return Move(Doubt()), ""
            return None, f"'believe' or 'doubt' (got {line!r:.40})."
        return None, f"nothing to do in {s.phase.value}"


def event_printer(write: Callable[[str], None], names: tuple[str, str] = SEAT_NAMES,
                  sleep: Callable[[float], None] = lambda s: None) -> Callable[[Event], None]:
    """Print each public event in words and hold its pause (``sleep`` is injected)."""
    def show(e: Event) -> None:
        write(describe(e, names))
        if e.hold_s:
            sleep(e.hold_s)
    return show


def format_review(review: GameReview, frames: tuple[ReplayFrame, ...], names: tuple[str, str] = SEAT_NAMES) -> str:
    """The review table, then the Truth Replay line by line."""
    out = [f"Review of game {review.game}: {names[review.first]} moved first, the bowl held {review.start}; "
           f"{names[review.winner]} won ({END_WORDS[review.end_reason]}).",
           " turn  who          action    left   ate  claim  response  verdict  debts"]
    for t in review.turns:
        act = "eat" if t.action == "eat" else "all done"
        out.append(f" {t.turn:>4}  {names[t.seat][:12]:<12} {act:<9} {t.remaining_before:>4}"
                   f"   {'' if t.choice is None else t.choice:>3}  {'' if t.claim is None else t.claim:>5}"
                   f"{'*' if t.forced_honest else ' '} {t.response or '':<9} {t.verdict or '':<8} "
                   f"{t.debts_after[0]}–{t.debts_after[1]}")
    out.append("(* forced honest)  Truth Replay:")
    out += [f"  {f.text}" for f in frames]
    return "\n".join(out)


def play_against_bot(keys, read: Callable[[str], str] = input, write: Callable[[str], None] = print,
                     name: str = "You", persona=None, you_are: int = 0, seed: Optional[int] = None,
                     sleep: Callable[[float], None] = lambda s: None):
    """``zkbluff play mind-bluff``: you against the house bot, every verdict proven and
    checked, the review and Truth Replay after each game. Returns the session record."""
    from zkbluff.games.mind_bluff.bot import PERSONAS, HouseBot
    from zkbluff.games.mind_bluff.session import play_proven_series
    from zkbluff.games.mind_bluff.text import rules_text

    bot = HouseBot(seed, persona or PERSONAS["house"])
    names = [bot.persona.name, bot.persona.name]
    names[you_are] = name
    names_t = (names[0], names[1])
    human = TerminalPlayer(read, write, names_t)
    policies = [bot, bot]
    policies[you_are] = human  # type: ignore[call-overload]
    humans = (you_are == 0, you_are == 1)
    write(rules_text())
    rec = play_proven_series(keys, policies, humans=humans, on_event=event_printer(write, names_t, sleep),
                             on_review=lambda rv, fr: write(format_review(rv, fr, names_t)))
    result = rec.rules.result()
    if result is not None:
        write(result.reason.replace("P1", names_t[0]).replace("P2", names_t[1]))
    return rec


def demo(keys, write: Callable[[str], None] = print, seed: int = 0):
    """``zkbluff demo mind-bluff``: two house personas play a proven series."""
    from zkbluff.games.mind_bluff.bot import PERSONAS, HouseBot
    from zkbluff.games.mind_bluff.session import play_proven_series

    a, b = HouseBot(seed, PERSONAS["honest-hana"]), HouseBot(seed + 1, PERSONAS["sly-jiro"])
    names = (a.persona.name, b.persona.name)
    rec = play_proven_series(keys, [a, b], on_event=event_printer(write, names),
                             on_review=lambda rv, fr: write(format_review(rv, fr, names)))
    result = rec.rules.result()
    if result is not None:
        write(result.reason.replace("P1", names[0]).replace("P2", names[1]) + f" ({rec.proofs} proofs checked)")
    return rec
