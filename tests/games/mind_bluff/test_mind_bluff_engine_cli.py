"""Mind Bluff through the engine's generic commands: `zkbluff rules mind-bluff`, `zkbluff
play mind-bluff` (you against the house bot, the review and Truth Replay after each game)
and `zkbluff demo mind-bluff`; `zkbluff transcript verify` checks the whole series, the
reveals included."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.mind_bluff.text import RULES


def test_rules_page(tmp_path):
    res = CliRunner().invoke(main, ["rules", "mind-bluff"])
    assert res.exit_code == 0 and RULES in res.output and "humans: P1, P2, both, none (default P1)" in res.output
    res = CliRunner().invoke(main, ["demo", "mind-bluff", "-o", "humans=everyone", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "humans" in res.output


def test_play_against_the_house_bot_with_reviews(tmp_path, monkeypatch, match_keys):
    """A person who believes every claim and calls All done at every turn (re-asked on the
    lines a prompt cannot use): each game ends, its review and Truth Replay are printed
    before the next game's consent, and the transcript verifies."""
    out = tmp_path / "play.jsonl"
    res = CliRunner().invoke(main, ["play", "mind-bluff", "--seed", "5", "--out", str(out)],
                             input="b\nall done\ny\n" * 60)
    assert res.exit_code == 0, res.output
    text = res.output
    assert "you call All done (Gochisousama)!" in text and "not allowed: Eat 1, 2 or 3" in text
    games = text.count("Review of game")
    assert games >= 2 and text.count("Truth Replay of game") == games
    assert text.index("Review of game 1") < text.index("Press Enter for the next game") < \
        text.index("Game 2 begins with 30 dango")
    assert "Series over: house won the series" in text or "Series over: you won the series" in text
    report = verify_transcript(out)
    assert report["complete"] and report["game"] == "mind-bluff"
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["seat"] for e in events if e["action"] == "consent"] == [0] * (games - 1)  # the bot never consents
    res = CliRunner().invoke(main, ["transcript", "verify", str(out)])
    assert res.exit_code == 0 and "mind-bluff" in res.output


@pytest.mark.slow
def test_demo_plays_a_verified_series(tmp_path, monkeypatch, match_keys):
    out = tmp_path / "demo.jsonl"
    res = CliRunner().invoke(main, ["demo", "mind-bluff", "--out", str(out), "--seed", "2"])
    assert res.exit_code == 0, res.output
    assert "transcript verified offline" in res.output and "Series over:" in res.output
    assert res.output.count("Review of game") == verify_transcript(out)["scores"][0] + \
        verify_transcript(out)["scores"][1]


# ---------------------------------------------------------------- the prompt and the words (no proofs)

def in_debt():
    from zkbluff.games.mind_bluff.rules import (
        Claim, Doubt, DoubtVerdict, Eat, EatVerdict, MindBluffRules, StartGame,
    )

    r = MindBluffRules()
    r.apply(None, StartGame(1, 0))
    r.apply(0, Eat()), r.apply(None, EatVerdict(False)), r.apply(0, Claim(1, False))
    r.apply(1, Doubt()), r.apply(None, DoubtVerdict(False))
    r.apply(1, Eat()), r.apply(None, EatVerdict(False)), r.apply(1, Claim(1, False))
    r.apply(0, Doubt()), r.apply(None, DoubtVerdict(True))        # P1 owes 2
    return r


def test_the_prompt_says_why_and_enforces_an_honesty_debt():
    from zkbluff.errors import IllegalMove, MalformedInput
    from zkbluff.games.mind_bluff.arena import view_for
    from zkbluff.games.mind_bluff.rules import AllDone, Claim, Eat, EatVerdict
    from zkbluff.games.mind_bluff.text import MindBluffText

    r = in_debt()
    said, prompts = [], []

    def asking(*answers):
        it = iter(answers)

        def ask(p):
            prompts.append(p)
            return next(it)
        return ask

    view = view_for(r, 0, (3,))
    for bad, why in (("hello", "got 'hello'"), ("eat 4", "got 'eat 4'")):
        with pytest.raises(MalformedInput, match=why):
            MindBluffText.prompt(view, asking(bad), said.append, ["Aiko", "Ben"])
    # Keep playing asks the turn again (before: "not allowed: Keep playing.", as if refused)
    move = MindBluffText.prompt(view, asking("all done", "maybe", "n", "eat 1"), said.append, ["Aiko", "Ben"])
    assert (move.action, move.choice) == (Eat(), 1) and said[-1] == "Keep playing: your turn again."
    assert MindBluffText.prompt(view, asking("all done", "y"), said.append, ["Aiko", "Ben"]).action == AllDone()
    move = MindBluffText.prompt(view, asking("eat 2"), said.append, ["Aiko", "Ben"])
    assert (move.action, move.choice) == (Eat(), 2) and "you owe 2" in prompts[-1]
    r.apply(0, Eat()), r.apply(None, EatVerdict(False))
    view = view_for(r, 0, (3, 2))
    with pytest.raises(IllegalMove, match=r"You owe 2 honest claims: claim what you ate \(2\)"):
        MindBluffText.prompt(view, asking("claim 3"), said.append, ["Aiko", "Ben"])
    assert MindBluffText.prompt(view, asking("2"), said.append, ["Aiko", "Ben"]).action == Claim(2, True)


def test_names_are_untrusted_display_text():
    from zkbluff.errors import MalformedInput
    from zkbluff.games.mind_bluff.text import MindBluffText

    line = {"action": "believe", "seat": 1, "data": {}}
    assert MindBluffText.describe(line, ["Aiko", "Ben"]) == "Ben believes it."
    assert MindBluffText.describe(line, ["Aiko", "you"]) == "you believe it."
    with pytest.raises(MalformedInput, match="control"):
        MindBluffText.describe(line, ["Aiko", "Ben\x07"])
    with pytest.raises(MalformedInput, match="100"):
        MindBluffText.describe(line, ["Aiko", "B" * 101])
