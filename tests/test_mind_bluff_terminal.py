"""Mind Bluff at a terminal, driven by a script: bad input re-asked with the reason, the
debt enforced at the prompt, events in words, the review and Truth Replay after each game,
all against the proven referee."""
import pytest

from zkbluff.errors import MalformedInput
from zkbluff.games.mind_bluff.bot import HouseBot
from zkbluff.games.mind_bluff.referee import KeyRing
from zkbluff.games.mind_bluff.session import play_proven_series
from zkbluff.games.mind_bluff.terminal import TerminalPlayer, event_printer, format_review


@pytest.fixture(scope="module")
def keys(mcl):
    return KeyRing.insecure_for_tests("mind-bluff-terminal", backend=mcl)


def scripted(lines):
    it = iter(lines)
    prompts = []

    def read(prompt):
        prompts.append(prompt)
        return next(it)
    return read, prompts


def test_a_human_series_at_the_terminal(keys):
    # game 1 (human first): a bad line, eat 4 refused, eat 2, claim 3 (a lie), then the bot acts;
    # on its next turn the human calls All done, cancels once, confirms; Enter for game 2; and so on
    script = ["hello", "eat 4", "eat 2", "claim 3", "all done", "n", "all done", "y", ""] + ["all done", "y"] * 40
    read, prompts = scripted(script)
    out, holds = [], []

    class Answering(TerminalPlayer):
        """Responds 'believe' whenever asked to respond, else the script."""
        def act(self, view):
            if view.state.phase.value == "respond":
                return super()._parse(view, "believe")[0]
            return super().act(view)

    human = Answering(read, out.append, names=("Aiko", "House"))
    reviews = []
    rec = play_proven_series(keys, [human, HouseBot(1)], humans=(True, False),
                             on_event=event_printer(out.append, ("Aiko", "House"), holds.append),
                             on_review=lambda rv, fr: reviews.append(format_review(rv, fr, ("Aiko", "House"))))
    text = "\n".join(out)
    assert "Eat 1, 2 or 3, or 'all done' (got 'hello')." in text
    assert "(got 'eat 4')" in text and "Keep playing." in text
    assert "Aiko claims to have eaten 3." in text
    assert "Game 1 begins with 30 dango; Aiko moves first." in text
    assert rec.rules.over and len(reviews) == len(rec.rules.games)
    assert "Review of game 1" in reviews[0] and "Truth Replay" in reviews[0]
    assert "[truth: ate 2, 28 left]" in reviews[0]
    assert any("next game" in p for p in prompts)
    assert 3.6 in holds  # the All-done suspense was held (sleep injected)


def test_the_prompt_enforces_an_honesty_debt():
    from zkbluff.games.mind_bluff.arena import view_for
    from zkbluff.games.mind_bluff.rules import (
        Claim, Doubt, DoubtVerdict, Eat, EatVerdict, MindBluffRules, StartGame,
    )

    r = MindBluffRules()
    r.apply(None, StartGame(1, 0))
    r.apply(0, Eat()), r.apply(None, EatVerdict(False)), r.apply(0, Claim(1, False))
    r.apply(1, Doubt()), r.apply(None, DoubtVerdict(False))
    r.apply(1, Eat()), r.apply(None, EatVerdict(False)), r.apply(1, Claim(1, False))
    r.apply(0, Doubt()), r.apply(None, DoubtVerdict(True))        # P1 owes 2
    r.apply(0, Eat()), r.apply(None, EatVerdict(False))
    read, prompts = scripted(["claim 3", "2"])
    out = []
    move = TerminalPlayer(read, out.append).act(view_for(r, 0, (3, 2)))
    assert move.action == Claim(2, True)
    assert out == ["You owe 2 honest claim(s): claim what you ate (2)."] and "you owe 2" in prompts[0]


def test_player_names_are_untrusted():
    with pytest.raises(MalformedInput):
        TerminalPlayer(input, print, names=("ok", "bad\x07bell"))


def test_play_against_the_bot_entry_point(keys):
    from zkbluff.games.mind_bluff.terminal import play_against_bot

    out = []

    def answer(prompt):
        if "'believe' or 'doubt'" in prompt:
            return "doubt"
        if "Keep playing" in prompt:
            return "y"
        return "" if "next game" in prompt else "all done"

    rec = play_against_bot(keys, answer, out.append, name="Aiko", you_are=1, seed=3)
    text = "\n".join(out)
    assert text.startswith("# Mind Bluff") and "Aiko calls All done" in text
    assert "Aiko doubts it!" in text and "Game 1 begins with 30 dango; House Bot moves first." in text
    assert rec.rules.over and text.splitlines()[-1] == rec.rules.result().reason.replace(
        "P1", "House Bot").replace("P2", "Aiko")


@pytest.mark.slow
def test_demo_plays_a_proven_series(keys):
    from zkbluff.games.mind_bluff.terminal import demo

    out = []
    rec = demo(keys, out.append, seed=2)
    assert rec.rules.over and out[-1].endswith(f"({rec.proofs} proofs checked)")
    assert sum("Review of game" in line for line in out) == len(rec.rules.games)
