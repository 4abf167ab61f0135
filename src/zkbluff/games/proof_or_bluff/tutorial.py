"""The guided first match of Proof or Bluff (``zkbluff tutorial``): what the coach says
before the match, the first time each kind of line appears, before your first move of each
kind, and at the end. Keys of ``LINES`` are transcript actions (as in the transcript)."""

GAMES = ("proof-or-bluff",)

#: the mode the guided match is played in (the shortest: 5 cards each, to 10 points)
MODE = "casual"

INTRO = """\
Welcome to Proof or Bluff, a guided first match against the house bot.
- You and the house each get a hidden hand. Each turn the player to move plays 1 to 4 cards
  face down and claims they are all of the required rank (it goes up by one each turn).
- The other player accepts, or challenges: "Proof or Bluff!". Then the claimant's client
  PROVES, with a zero-knowledge proof, whether the claim was true, without showing a card.
- Caught bluffing: the challenger gains 3 points. A failed challenge: the claimant gains 2.
- Empty your hand to win the round; the first to 10 points wins the match (casual mode).
Between the moves the coach explains what just happened; the match itself is a real one."""

LINES = {
    "deal": "tip: the deal comes with a proof that the hands are the fair deal of both players' entropy: "
            "the house could not pick your cards, and it never sees them.",
    "oblivious.commit": "tip: the house commits to a shuffled deck, position by position, with a proof that it "
                        "is a whole deck; you then fetch your hand's positions by oblivious transfer, so the "
                        "house never learns which cards you hold.",
    "play": "tip: a play carries a proof that the cards came out of the player's committed hand; only their "
            "number is public, never which cards.",
    "accept": "tip: accepted cards stay on the pile, unseen, and the required rank moves up.",
    "challenge": "tip: a challenge makes the claimant's client prove the claim; the proof discloses one bit "
                 "(true or bluff), never the cards.",
    "prove": "tip: this proof disclosed exactly one bit: whether every played card was of the claimed rank.",
}

MOVES = {
    "play": "coach: your turn. Type the cards to play by their numbers in your hand ('1 3') or by name "
            "('4h'). Claiming the required rank with other cards is a bluff: the house may challenge.",
    "respond": "coach: the house made a claim. Press Enter (or 'a') to accept it, 'c' to challenge it. "
               "Look at how many of that rank you hold yourself: it tells you how likely a bluff is.",
}

END = "coach: that was a whole match with real proofs. Every line is signed and every proof can be checked again:"


def move_kind(obs: object) -> "str | None":
    """Which of ``MOVES`` the prompt about to be shown asks for (None: none to explain)."""
    from zkbluff.games.proof_or_bluff.rules import PROVE

    state = getattr(obs, "state", None)
    if state is None or getattr(state, "phase", None) == PROVE or not hasattr(state, "required_rank"):
        return None
    return "respond" if state.claim is not None else "play"
