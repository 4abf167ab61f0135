"""Mind Bluff in words: the rules page (the same text as RULES.md) and each event as a
sentence. Names are untrusted display text (checked by the caller); nothing here reads
private information unless the Truth Replay passes the revealed ``truth``."""
from __future__ import annotations

from typing import Optional

from zkbluff.games.mind_bluff.rules import PACING, EndReason, Event, EventKind

RULES = """\
# Mind Bluff — the rules in plain words

Two players, P1 and P2, share bowls of dango. Whoever eats the last dango loses.

## The series
- The first player to win 2 games wins the series; at most 3 games are played.
- Game 1: P1 moves first, the bowl holds 30 dango.
- Game 2: P2 moves first, the bowl holds 30 dango.
- Game 3 is played only at 1–1. A fair coin picks who moves first, and the bowl holds
  29, 30 or 31 dango, each equally likely. Nobody sees which until the game ends.
- The referee keeps the count in the bowl sealed. Every answer it gives comes with a
  proof, so it cannot lie about the count.

## Your turn
Choose one:
- **Eat 1, 2 or 3 dango in secret.** If your number reaches the number left, you ate
  the last dango and lose at once, before you say anything.
- **All done.** Eat nothing. You win if exactly 1 dango is left, and lose if 2 or more
  are left. You may call it even when you owe honest claims, but not after eating.

If you survive eating, say how many you ate: 1, 2 or 3. You may lie, unless you owe an
honest claim.

## Believe or doubt
Your opponent believes you (your number stays secret) or doubts you. A doubt reveals
only TRUE or BLUFF, never the number.
- TRUE: you told the truth. The doubter now owes one honest claim.
- BLUFF: you lied. You now owe one honest claim.
Then the turn passes to your opponent.

## Honesty debt
Debts are public and add up. While you owe any, your claim must be your real number;
you prove it, and the claim is marked "forced honest". Each such claim pays off one
debt. Doubting a forced-honest claim costs the doubter a debt. Losing by eating the last
dango does not pay off debt.

## Between games
After each game you can review it: the real numbers, the claims, the TRUE/BLUFF
answers, the debts, the counts and why it ended; the Truth Replay plays it back turn by
turn with the real count shown. Nothing of a running game is shown. Debts and history
start fresh each game. The next game starts when every human player agrees (a bot never
holds it up). A new series also needs everyone's agreement.

## Pauses
A doubt pauses play for 4.5 seconds. Game 3 opens with a 10-second coin animation (the
count shows "??"). All done keeps the result hidden for 3.6 seconds before the reveal.
"""

EVENT_WORDS = {
    EventKind.ATE: "{who} eats in secret.",
    EventKind.SURVIVED: "{who} survives the bite.",
    EventKind.ATE_LAST: "{who} ate the last dango and loses the game.",
    EventKind.BELIEVED: "{who} believes it.",
    EventKind.DOUBTED: "{who} doubts it! (play pauses {hold} s)",
    EventKind.ALL_DONE: "{who} calls All done (Gochisousama)!",
}

END_WORDS = {
    EndReason.ATE_LAST: "the loser ate the last dango",
    EndReason.ALL_DONE_WON: "All done with exactly one dango left",
    EndReason.ALL_DONE_LOST: "All done with two or more dango left",
}


def rules_text() -> str:
    return RULES


def describe(e: Event, names: tuple[str, str] = ("P1", "P2"), truth: Optional[dict] = None) -> str:
    """One event in words. ``truth`` (Truth Replay only: after the game) adds the real
    count and choice."""
    who = names[e.seat] if e.seat in (0, 1) else "the referee"
    if e.kind == EventKind.GAME_STARTED:
        bowl = f"{e.start} dango" if e.start is not None else "?? dango (hidden until the game ends)"
        s = f"Game {e.game} begins with {bowl}; {who} moves first."
    elif e.kind == EventKind.CLAIMED:
        s = f"{who} claims to have eaten {e.amount}" + (" (forced honest, proven)." if e.forced_honest else ".")
    elif e.kind == EventKind.VERDICT:
        v = "TRUE" if e.outcome else "BLUFF"
        assert e.seat is not None  # a verdict always names the claimant
        owes = e.seat if not e.outcome else 1 - e.seat
        s = f"{v}! {names[owes]} now owes an honest claim (debts {e.debts[0]}–{e.debts[1]})."
    elif e.kind == EventKind.ALL_DONE_RESULT:
        s = (f"Exactly one dango was left: {who} wins the game." if e.outcome
             else f"Two or more dango were left: {who} loses the game.")
    elif e.kind == EventKind.GAME_ENDED:
        s = f"{who} wins game {e.game} ({END_WORDS[e.reason]})." if e.reason else f"{who} wins game {e.game}."
    else:
        s = EVENT_WORDS[e.kind].format(who=who, hold=PACING.doubt_hold_s)
    if truth is not None:
        if e.kind == EventKind.ATE and truth.get("choice") is not None:
            s += f" [truth: ate {truth['choice']}, {truth['remaining']} left]"
        elif e.kind == EventKind.GAME_STARTED:
            s += f" [truth: the bowl held {truth['start']}]"
        elif e.kind == EventKind.ALL_DONE:
            s += f" [truth: {truth['remaining']} left]"
    return s
