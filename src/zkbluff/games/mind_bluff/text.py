"""Mind Bluff in words: the rules page (the same text as RULES.md) and each event as a
sentence. Names are untrusted display text (checked by the caller); nothing here reads
private information unless the Truth Replay passes the revealed ``truth``."""
from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Optional, Sequence

from zkbluff.errors import MalformedInput
from zkbluff.games.engine.text import is_you, plural, verb
from zkbluff.games.mind_bluff.rules import PACING, EndReason, Event, EventKind

RULES = """\
# Mind Bluff — the rules in plain words

Two players, P1 and P2, share bowls of dango. Whoever eats the last dango loses.

## The series
- The first player to win 2 games wins the series; at most 3 games are played.
- Game 1: P1 moves first, the bowl holds 30 dango.
- Game 2: P2 moves first, the bowl holds 30 dango.
- Game 3 is played only at 1–1. A fair coin picks who moves first, and the bowl holds
  29, 30 or 31 dango, each equally likely. Nobody sees which until the game ends. The
  coin and the count come from randomness every player and the referee committed to
  before the series.
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

## Time
Every wait on you — your turn, your claim, believe or doubt, your draw entropy before
game 3, your agreement to the next game — has a time limit (the table's idle limit, ten
minutes unless the table says otherwise). If it runs out you forfeit the series: your
opponent wins it at once.
"""

EVENT_WORDS = {
    EventKind.ATE: "{who} eats in secret.",
    EventKind.SURVIVED: "{who} survives the bite.",
    EventKind.ATE_LAST: "{who} ate the last dango and loses the game.",
    EventKind.BELIEVED: "{who} believes it.",
    EventKind.DOUBTED: "{who} doubts it! (play pauses {hold} s)",
    EventKind.ALL_DONE: "{who} calls All done (Gochisousama)!",
    EventKind.TIMED_OUT: "{who} let their time run out and forfeits the series.",
    EventKind.SEAL_COMPLAINT: "The referee says {who}'s sealed choice does not open.",
    EventKind.SEAL_ANSWERED: "{who} shows the sealed choice opens: the referee is at fault.",
    EventKind.REFEREE_TIMED_OUT: "{who} shows the referee let its time run out: the referee is at fault.",
}

END_WORDS = {
    EndReason.ATE_LAST: "the loser ate the last dango",
    EndReason.ALL_DONE_WON: "All done with exactly one dango left",
    EndReason.ALL_DONE_LOST: "All done with two or more dango left",
}


def rules_text() -> str:
    return RULES


def describe(e: Event, names: tuple[str, str] = ("P1", "P2"), truth: Optional[dict[str, Any]] = None) -> str:
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


# ------------------------------------------------------------------ the engine's text hooks

def _names2(names: Sequence[str]) -> tuple[str, str]:
    """The two seats' display names, checked as untrusted text (at most 100 characters, no
    control characters: :class:`MalformedInput`)."""
    from zkbluff.games.mind_bluff.bot import check_display_text

    if len(names) != 2:
        raise MalformedInput(f"mind-bluff: two seat names, got {len(names)}")
    return check_display_text(names[0], "seat name"), check_display_text(names[1], "seat name")


def format_review(review: Mapping[str, Any], names: Sequence[str] = ("P1", "P2")) -> str:
    """A finished game's review (the ``review`` a reveal line carries, as JSON data): the
    table of turns with the actual choices, then the Truth Replay turn by turn with the
    actual count visible."""
    n = _names2(names)
    end = END_WORDS[EndReason(review["end_reason"])]
    out = [f"Review of game {review['game']}: {n[review['first']]} moved first, the bowl held {review['start']}; "
           f"{n[review['winner']]} won ({end}).",
           " turn  who          action    left   ate  claim  response  verdict  debts"]
    for t in review["turns"]:
        act = "eat" if t["action"] == "eat" else "all done"
        claim = "" if t["claim"] is None else t["claim"]
        out.append(f" {t['turn']:>4}  {n[t['seat']][:12]:<12} {act:<9} {t['remaining_before']:>4}"
                   f"   {'' if t['choice'] is None else t['choice']:>3}  {claim:>5}"
                   f"{'*' if t['forced_honest'] else ' '} {t['response'] or '':<9} {t['verdict'] or '':<8} "
                   f"{t['debts_after'][0]}–{t['debts_after'][1]}")
    out.append("(* forced honest)")
    out.append(f"Truth Replay of game {review['game']} (the bowl held {review['start']}):")
    for t in review["turns"]:
        who, other_ = n[t["seat"]], n[1 - t["seat"]]
        if t["action"] == "all_done":
            res = "exactly one left: wins" if t["all_done_won"] else "two or more left: loses"
            out.append(f"  turn {t['turn']}: {verb(who, 'calls')} All done with {t['remaining_before']} left ({res}).")
            continue
        s = f"  turn {t['turn']}: {verb(who, 'eats')} {t['choice']} ({t['remaining_before']} → {t['remaining_after']} left)"
        if t["ate_last"]:
            out.append(s + ": the last dango, loses.")
            continue
        claims = "claim" if is_you(who) else "claims"
        s += f", {claims} {t['claim']}" + (" (forced honest)" if t["forced_honest"] else
                                           ("" if t["claim"] == t["choice"] else " (a bluff)"))
        if t["response"] == "doubt":
            s += f"; {verb(other_, 'doubts')}: {t['verdict']}"
        elif t["response"] == "believe":
            s += f"; {verb(other_, 'believes')}"
        out.append(s + f"; debts {t['debts_after'][0]}–{t['debts_after'][1]}.")
    return "\n".join(out)


class MindBluffText:
    """The engine's text hooks for Mind Bluff: the rules page, each transcript line in
    words (the ``reveal`` line after a game as its review and Truth Replay), and the prompt
    that turns a person's typing into an intent. Names are untrusted display text."""

    RULES = RULES

    @staticmethod
    def hand_words(obs: Any) -> Optional[str]:
        """The seat's own secret eats this game, for its review (``games/engine/review.py``)."""
        if not obs.my_choices:
            return None
        return "your secret eats this game: " + ", ".join(str(c) for c in obs.my_choices)

    @staticmethod
    def describe(line: Mapping[str, Any], names: Sequence[str]) -> str:
        n = _names2(names)
        kind, d, seat = line["action"], line.get("data") or {}, line.get("seat")
        who = n[seat] if seat in (0, 1) else "the referee"
        if kind == "header":
            return f"match {d['matchId']}: {' vs '.join(d['seats'])}"
        if kind == "start_game":
            if d["game"] < 3:
                return f"Game {d['game']} begins with 30 dango; {n[d['first']]} moves first (start proven)."
            return (f"Game 3 begins with ?? dango (hidden until the game ends; drawn in proof from every party's "
                    f"entropy); the fair coin says {n[d['first']]} moves first. (coin animation "
                    f"{PACING.coin_animation_s:g} s)")
        if kind == "eat":
            return f"{verb(who, 'eats')} in secret (choice committed, sealed to the referee, range proven)."
        if kind == "eat_verdict":
            return ("The referee proves: the eater ate the last dango and loses the game." if d["ate_last"]
                    else "The referee proves: survived.")
        if kind == "claim":
            return f"{verb(who, 'claims')} to have eaten {d['amount']}" + (
                " (forced honest, proven)." if d["proven_equal"] else ".")
        if kind == "believe":
            return f"{verb(who, 'believes')} it."
        if kind == "doubt":
            return f"{verb(who, 'doubts')} it! (play pauses {PACING.doubt_hold_s:g} s)"
        if kind == "doubt_verdict":
            return ("TRUE! The claim was honest (proven); the doubter owes an honest claim." if d["truthful"]
                    else "BLUFF! The claim was a lie (proven); the claimant owes an honest claim.")
        if kind == "all_done":
            return f"{verb(who, 'calls')} All done (Gochisousama)! (the result is held {PACING.all_done_suspense_s:g} s)"
        if kind == "all_done_verdict":
            return ("The referee proves: exactly one dango was left — All done wins." if d["exactly_one"]
                    else "The referee proves: two or more dango were left — All done loses.")
        if kind == "reveal":
            return format_review(json.loads(d["review"]), n)
        if kind == "reveal_entropy":
            return f"{verb(who, 'reveals')} the draw entropy it committed before the series (for game 3's fair draw)."
        if kind == "consent":
            return f"{verb(who, 'agrees')} to the next game."
        if kind == "seal_complaint":
            accused = n[d["seat"]] if d.get("seat") in (0, 1) else f"seat {d.get('seat')!r}"
            return (f"The referee says {accused}'s sealed choice does not open to the committed choice: {accused} "
                    f"shows that it does, or forfeits the series.")
        if kind == "seal_answer":
            return f"{verb(who, 'shows')} the key of the sealed choice: it opens to the committed choice. The referee " \
                   f"is at fault; the series is void."
        if kind == "timeout":
            late = n[d["seat"]] if d.get("seat") in (0, 1) else f"seat {d.get('seat')!r}"
            return f"The referee's clock: {late} let their time run out and forfeits the series."
        if kind == "end":
            reason = str(d["reason"]).replace("P1", n[0]).replace("P2", n[1])
            return f"Series over: {reason}."
        return f"{kind} {d}"

    @staticmethod
    def outcome(line: Mapping[str, Any], before: Any, after: Any, names: Sequence[str]) -> list[str]:
        """What a line decided, from the public state around it: a game won (and the series
        score), an honest claim owed after a doubt, the series' end."""
        n = _names2(names)
        out = []
        if after.debts != before.debts and line.get("action") == "doubt_verdict":
            out += [f"{n[i]} now owes {plural(d, 'honest claim')}."
                    for i, d in enumerate(after.debts) if d > before.debts[i]]
        if after.wins != before.wins:
            won = 0 if after.wins[0] > before.wins[0] else 1
            out.append(f"Game {before.game} goes to {n[won]}. Series: {n[0]} {after.wins[0]}–{after.wins[1]} {n[1]}.")
        return out

    @staticmethod
    def prompt(obs: Any, ask: Callable[[str], str], say: Callable[[str], None], names: Sequence[str]) -> Any:
        """Ask the person at ``obs.seat`` for a move (raises with the reason on input it
        cannot use; the caller asks again)."""
        from zkbluff.errors import IllegalMove, MalformedInput
        from zkbluff.games.mind_bluff.bot import Move
        from zkbluff.games.mind_bluff.rules import (
            MAX_EAT, MIN_EAT, AllDone, Believe, Claim, Consent, Doubt, Eat, Phase, RevealEntropy, SealAnswer,
        )

        s, me = obs.state, obs.seat
        n = _names2(names)
        if s.phase == Phase.DRAW:
            say("Game 3 is next: your client reveals the draw entropy it committed before the series.")
            return Move(RevealEntropy(""))
        if s.phase == Phase.SEAL_ANSWER:
            say("The referee says your sealed choice does not open: your client shows the key it sealed it with.")
            return Move(SealAnswer(""))
        if s.phase in (Phase.NEXT_GAME, Phase.SERIES_OVER):
            ask(f"Series {n[0]} {s.wins[0]}–{s.wins[1]} {n[1]}. Press Enter for the next game")
            return Move(Consent())
        owes = s.debts[me]
        status = f"[game {s.game}, turn {s.turn + (s.phase.value == 'turn')}, debts {s.debts[0]}–{s.debts[1]}" + \
            (f", you owe {owes}" if owes else "") + "]"
        while s.phase == Phase.TURN:
            line = ask(f"{status} eat 1, eat 2, eat 3 (in secret) or 'all done'").strip().lower()
            words = line.replace("-", " ").split()
            if words[:2] == ["all", "done"] or words == ["a"]:
                while True:
                    ok = ask("All done! (y) or Keep playing (n)?").strip().lower()
                    if ok in ("y", "yes"):
                        return Move(AllDone())
                    if ok in ("n", "no"):
                        break
                say("Keep playing: your turn again.")
                continue
            num = words[-1] if words and words[0] in ("eat", "e") else (words[0] if len(words) == 1 else "")
            if num.isdigit() and MIN_EAT <= int(num) <= MAX_EAT:
                return Move(Eat(), int(num))
            raise MalformedInput(f"Eat {MIN_EAT}, 2 or {MAX_EAT}, or 'all done' (got {line!r:.40}).")
        if s.phase == Phase.CLAIM:
            line = ask(f"{status} you ate {obs.my_choices[-1]}; claim 1, 2 or 3").strip().lower()
            words = line.split()
            num = words[-1] if words else ""
            if not (num.isdigit() and 1 <= int(num) <= 3):
                raise MalformedInput(f"Claim 1, 2 or 3 (got {line!r:.40}).")
            legal = [a for a in obs.legal if isinstance(a, Claim) and a.amount == int(num)]
            if not legal:
                raise IllegalMove(f"You owe {plural(owes, 'honest claim')}: claim what you ate "
                                  f"({obs.my_choices[-1]}).")
            return Move(legal[0])
        if s.phase == Phase.RESPOND:
            c = s.claim
            line = ask(f"{status} {n[c.seat]} claims {c.amount}" + (" (forced honest, proven)" if c.forced_honest
                                                                     else "") + ": 'believe' or 'doubt'")
            words = line.strip().lower().split()
            if words and "believe".startswith(words[0]):
                return Move(Believe())
            if words and "doubt".startswith(words[0]):
                return Move(Doubt())
            raise MalformedInput(f"'believe' or 'doubt' (got {line!r:.40}).")
        raise IllegalMove(f"nothing to do in {s.phase.value}")
