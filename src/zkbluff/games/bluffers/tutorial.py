"""The guided first match of Bluffers (``zkbluff tutorial bluffers``): what the coach says
before the match, the first time each kind of line appears, before your first move of each
kind, and at the end. Keys of ``LINES`` are transcript actions (as in the transcript)."""

GAMES = ("bluffers",)

INTRO = """\
Welcome to Bluffers, a guided first match against the house bot.
- Each round a table card (King, Queen or Ace) is drawn, and everyone gets 5 hidden cards.
- On your turn play 1 to 3 cards face down, claiming they all match the table card (Jokers
  always match), or call the last player a liar.
- A call turns the cards over: whoever was wrong pulls the trigger of their own revolver
  (1 chance in 6 at first, more with every pull). BANG: that player is out.
- The last one standing wins. You have 30 seconds a move; then a card your own committed
  seed picks is played for you.
Between the moves the coach explains what just happened; the match itself is a real one."""

LINES = {
    "commit_seed": "tip: each player commits to a secret seed for its revolver: from it, and everyone's "
                   "shares, comes the outcome of every pull; nobody can choose it later.",
    "draw": "tip: the table card is drawn from everyone's entropy, with a proof: nobody chose it.",
    "deal": "tip: the deal comes with a proof that the hands are the fair deal of everyone's entropy; your "
            "hand is known only to you (and the dealer, who could not pick it).",
    "play": "tip: a play carries a proof that the cards came out of the player's committed hand; only their "
            "number is public.",
    "call_bluff": "tip: a call: the claimed cards are turned over, and the loser pulls the trigger.",
    "reveal": "tip: the revealed cards are checked against the play's commitment: nobody can show other cards.",
    "share": "tip: each standing player gives a proven share of the pull; together they decide click or BANG, "
             "and no single player can choose it.",
}

MOVES = {
    "turn": "coach: your turn. Type the cards to play by their numbers ('1 2') or names ('King Joker'), or "
            "'c' to call the last claim a lie. Mind the clock: 30 seconds a move.",
}

END = "coach: that was a whole match with real proofs. Every line is signed and every proof can be checked again:"


def move_kind(obs: object) -> "str | None":
    """Which of ``MOVES`` the prompt about to be shown asks for (None: none to explain)."""
    return "turn" if getattr(obs, "due", None) == "turn" else None
