"""Per game, what its web table shows and takes: the seat's state for the page, built from
the seat's own observation only (:meth:`WebGame.view`), the page's moves as the seat's
intents, checked against that observation (:meth:`WebGame.intent`), and the moves the
seat's client makes by itself (a proof, a reveal, a share: :meth:`WebGame.auto`).

The match loop and the page's server are in :mod:`zkbluff.server.web_table`; the page's
renderer of each game is ``web/games/<renderer>.js`` (plain ES modules, package data). A
view never reads another seat's observation or any party's secrets beyond the seat's own
hand (and, in Mind Bluff, its own secret eats this game, which the seat itself chose).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from zkbluff.errors import MalformedInput


def _ints(value: Any, what: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in value):
        raise MalformedInput(f"{what}: pick the cards to play")
    return list(value)


def _picked(move: dict[str, Any], hand: Sequence[int], most: int) -> tuple[int, ...]:
    cards = _ints(move.get("cards"), str(move.get("action")))
    if not 1 <= len(cards) <= most or len(set(cards)) != len(cards):
        raise MalformedInput(f"play 1 to {most} different cards at a time")
    if any(c not in hand for c in cards):
        raise MalformedInput("play: a picked card is not in your hand")
    return tuple(cards)


def _unknown(move: dict[str, Any], allowed: str) -> MalformedInput:
    return MalformedInput(f"unknown move {str(move.get('action'))[:40]!r} ({allowed})")


def _you(names: Sequence[str], i: int, verb: str) -> str:
    return f"{names[i]} {verb if names[i] == 'you' else verb + 's'}"


class WebGame:
    """One game's web table (see the module)."""

    #: the renderer module of the page (``web/games/NAME.js``)
    renderer = ""
    #: actions the page may send whenever it likes (they name what they answer, so the
    #: rules refuse a late one: Cheat's call names its play)
    any_time: frozenset[str] = frozenset()
    #: the transcript actions whose words say what a proof disclosed after a challenge
    disclosures: frozenset[str] = frozenset()

    def view(self, tab: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
        raise NotImplementedError

    def intent(self, move: dict[str, Any], obs: Any) -> Any:
        raise NotImplementedError

    def auto(self, obs: Any) -> Optional[Any]:
        """The seat's move its client makes without asking (None: ask the page)."""
        return None


# ---------------------------------------------------------------- Proof or Bluff

def poker_card(c: int) -> dict[str, Any]:
    """A card of the seat's own hand for the page: its id, rank label and suit (0..3:
    clubs, diamonds, hearts, spades; the seed-002 convention, card id // 13)."""
    from zkbluff.games.proof_or_bluff.text import SHORT_RANK_LABELS, SUIT_WORDS

    return {"id": c, "rank": SHORT_RANK_LABELS[c % 13], "suit": c // 13, "suitName": SUIT_WORDS[c // 13]}


class ProofOrBluffWeb(WebGame):
    renderer = "proof-or-bluff"
    disclosures = frozenset({"prove"})

    def view(self, tab: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
        from zkbluff.games.proof_or_bluff.rules import MAX_PLAY, PLAY, PROVE, RESPOND, rank_name
        from zkbluff.games.proof_or_bluff.text import by_rank

        obs = tab.observation(seat)
        s = obs.state
        may: list[str] = []
        if not tab.over and s.to_move == seat:
            may = {PLAY: ["play"], RESPOND: ["accept", "challenge"], PROVE: []}.get(s.phase, [])
        claim = None
        if s.claim is not None:
            who, count, rank = s.claim
            claim = {"seat": who, "count": count, "rank": rank_name(rank),
                     "words": f"{_you(names, who, 'claim')}: {count} × {rank_name(rank)}"}
        turn = None if tab.over or s.to_move is None else s.to_move
        return {
            "seat": seat, "names": list(names), "hand": [poker_card(c) for c in by_rank(obs.hand)],
            "pile": s.pile, "requiredRank": rank_name(s.required_rank), "claim": claim,
            "scores": list(s.scores), "target": s.target, "handSizes": list(s.hand_sizes), "round": s.round,
            "phase": str(s.phase.value), "turn": turn, "may": may, "maxPlay": MAX_PLAY,
            "holdOfClaimRank": (sum(1 for c in obs.hand if c % 13 == s.claim[2]) if s.claim is not None else None),
            "opponent": 1 - seat,
        }

    def intent(self, move: dict[str, Any], obs: Any) -> Any:
        from zkbluff.games.proof_or_bluff.moves import PlayCards
        from zkbluff.games.proof_or_bluff.rules import MAX_PLAY, Accept, Challenge

        kind = move.get("action")
        if kind == "accept":
            return Accept()
        if kind == "challenge":
            return Challenge()
        if kind == "play":
            return PlayCards(_picked(move, obs.hand, MAX_PLAY))
        raise _unknown(move, "play, accept or challenge")

    def auto(self, obs: Any) -> Optional[Any]:
        from zkbluff.games.proof_or_bluff.moves import ProveClaim

        if not obs.legal or obs.state.phase == "prove":  # the client proves by itself
            return ProveClaim()
        return None


class FiveUpWeb(ProofOrBluffWeb):
    renderer = "five-up-two-down"

    def view(self, tab: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
        from zkbluff.games.proof_or_bluff.rules import CLAIM, DECK, MAX_NAMES, RESPOND, board_ranks, rank_name

        obs = tab.observation(seat)
        s = obs.state
        may: list[str] = []
        if not tab.over and s.to_move == seat:
            may = {CLAIM: ["claim"], RESPOND: ["accept", "challenge"]}.get(s.phase, [])
        claim = None
        if s.claim is not None:
            who, named = s.claim
            words = ", ".join(rank_name(n) for n in named) or "no match"
            claim = {"seat": who, "names": [rank_name(n) for n in named],
                     "words": f"{_you(names, who, 'claim')} a match for: {words}"}
        return {
            "seat": seat, "names": list(names), "hand": [poker_card(c) for c in sorted(obs.hand, key=lambda c: c % 13)],
            "board": [poker_card(c) for c in DECK.cards(s.board)],
            "boardRanks": [{"rank": r, "name": rank_name(r)} for r in sorted(board_ranks(s.board))],
            "maxNames": MAX_NAMES, "claim": claim, "scores": list(s.scores), "target": s.target, "round": s.round,
            "phase": str(s.phase.value), "turn": None if tab.over or s.to_move is None else s.to_move, "may": may,
            "opponent": 1 - seat,
        }

    def intent(self, move: dict[str, Any], obs: Any) -> Any:
        from zkbluff.games.proof_or_bluff.rules import MAX_NAMES, Accept, Challenge, Claim, board_ranks

        kind = move.get("action")
        if kind == "accept":
            return Accept()
        if kind == "challenge":
            return Challenge()
        if kind == "claim":
            named = _ints(move.get("ranks"), "claim")
            if len(named) > MAX_NAMES:
                raise MalformedInput(f"name at most {MAX_NAMES} ranks, got {len(named)}")
            on_board = board_ranks(obs.state.board)
            if any(r not in on_board for r in named):
                raise MalformedInput("claim: a named rank is not on the board")
            return Claim(tuple(sorted(named)))
        raise _unknown(move, "claim, accept or challenge")


# ---------------------------------------------------------------- Cheat

class CheatWeb(WebGame):
    renderer = "cheat"
    any_time = frozenset({"call"})
    disclosures = frozenset({"reveal"})

    def view(self, tab: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
        from zkbluff.games.cheat.match import Stage
        from zkbluff.games.cheat.rules import DECK, MAX_PLAY, Call, Pass, Phase, rank_of
        from zkbluff.games.cheat.text import claim_words, rank_word

        obs = tab.observation(seat)
        t, s = obs.table, obs.state
        legal = obs.legal
        may: list[str] = []
        if not tab.over:
            if s.phase == Phase.WINDOW and any(isinstance(a, Call) for a in legal):
                may = ["call"]
            elif t.to_move == seat and t.stage == Stage.RULES and s.phase == Phase.PLAY:
                may = ["play"] + (["pass"] if any(isinstance(a, Pass) for a in legal) else [])
        claim = None
        if s.pile:
            who, count = s.pile[-1]
            claim = {"seat": who, "count": count, "rank": rank_word(s.rank, 1) if s.rank is not None else None,
                     "words": f"{_you(names, who, 'claim')} {claim_words(s.rank, count)}" if s.rank is not None else ""}
        hand = sorted(obs.hand, key=lambda c: (rank_of(c), c))
        opening = s.phase == Phase.PLAY and s.rank is None
        return {
            "seat": seat, "names": list(names), "hand": [poker_card(c) for c in hand],
            "pile": s.pile_size, "plays": [{"seat": p, "count": c} for p, c in s.pile], "setAside": s.set_aside,
            "rank": rank_word(s.rank, 2) if s.rank is not None else None, "opening": opening,
            "ranks": [{"rank": r, "name": DECK.rank_names[r]} for r in range(len(DECK.rank_names))] if opening else [],
            "claim": claim, "handSizes": list(s.hand_sizes), "penalties": list(s.penalties),
            "handNo": s.hand_no, "hands": s.hands, "window": s.window,
            "playNo": s.play_no, "phase": str(s.phase.value), "revealed": [poker_card(c) for c in s.revealed]
            if s.phase == Phase.PICKUP else [],
            "turn": None if tab.over else t.to_move, "may": may, "maxPlay": MAX_PLAY,
            "holdOfClaimRank": (sum(1 for c in obs.hand if rank_of(c) == s.rank)
                                if s.rank is not None and claim is not None and claim["seat"] != seat else None),
        }

    def intent(self, move: dict[str, Any], obs: Any) -> Any:
        from zkbluff.games.cheat.moves import CallBluff, PassTurn, PlayCards
        from zkbluff.games.cheat.rules import DECK, MAX_PLAY

        kind = move.get("action")
        if kind == "call":
            play = move.get("play")
            if isinstance(play, bool) or not isinstance(play, int):
                raise MalformedInput("call: name the play you call (its number)")
            return CallBluff(play)
        if kind == "pass":
            return PassTurn()
        if kind == "play":
            cards = _picked(move, obs.hand, MAX_PLAY)
            s = obs.state
            rank = move.get("rank") if s.rank is None else s.rank
            if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < len(DECK.rank_names):
                raise MalformedInput("you open the round: name the rank you claim")
            return PlayCards(rank, cards)
        raise _unknown(move, "play, pass or call")

    def auto(self, obs: Any) -> Optional[Any]:
        from zkbluff.games.cheat.match import Stage
        from zkbluff.games.cheat.moves import Proceed
        from zkbluff.games.cheat.rules import Phase

        t, s = obs.table, obs.state
        if t.to_move == obs.seat and (t.stage != Stage.RULES or s.phase in (Phase.TURNOVER, Phase.PICKUP)):
            return Proceed()
        return None


# ---------------------------------------------------------------- Mind Bluff

class MindBluffWeb(WebGame):
    renderer = "mind-bluff"
    disclosures = frozenset({"doubt_verdict", "all_done_verdict", "eat_verdict"})

    def view(self, tab: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
        import json

        from zkbluff.games.mind_bluff.rules import Phase

        obs = tab.observation(seat)
        s = obs.state
        may: list[str] = []
        if not tab.over and s.to_move == seat:
            may = {Phase.TURN: ["eat", "all_done"], Phase.CLAIM: ["claim"], Phase.RESPOND: ["believe", "doubt"],
                   Phase.NEXT_GAME: ["consent"]}.get(s.phase, [])
        claims = [a.amount for a in obs.legal if type(a).__name__ == "Claim"] if s.phase == Phase.CLAIM else []
        claim = None
        if s.claim is not None:
            c = s.claim
            claim = {"seat": c.seat, "amount": c.amount, "forcedHonest": c.forced_honest,
                     "words": f"{_you(names, c.seat, 'claim')} {c.amount}" + (" (forced honest, proven)"
                                                                             if c.forced_honest else "")}
        # every finished game's review and Truth Replay: public once the referee's reveal line is written
        reviews = [json.loads(e["data"]["review"]) for e in tab.writer.events
                   if e.get("action") == "reveal" and isinstance(e.get("data"), dict) and "review" in e["data"]]
        return {
            "seat": seat, "names": list(names), "game": s.game, "turnNo": s.turn, "first": s.first,
            "start": s.start, "wins": list(s.wins), "debts": list(s.debts), "claim": claim,
            "myChoices": list(obs.my_choices), "claims": sorted(set(claims)), "phase": str(s.phase.value),
            "turn": None if tab.over or s.to_move is None else s.to_move, "may": may, "opponent": 1 - seat,
            "reviews": reviews,
        }

    def intent(self, move: dict[str, Any], obs: Any) -> Any:
        from zkbluff.games.mind_bluff.bot import Move
        from zkbluff.games.mind_bluff.rules import MAX_EAT, MIN_EAT, AllDone, Believe, Claim, Consent, Doubt, Eat

        kind = move.get("action")
        n = move.get("amount")
        if kind == "eat":
            if isinstance(n, bool) or not isinstance(n, int) or not MIN_EAT <= n <= MAX_EAT:
                raise MalformedInput(f"eat {MIN_EAT}, 2 or {MAX_EAT}")
            return Move(Eat(), n)
        if kind == "all_done":
            return Move(AllDone())
        if kind == "claim":
            legal = [a for a in obs.legal if isinstance(a, Claim) and a.amount == n]
            if not legal:
                raise MalformedInput(f"claim one of {sorted({a.amount for a in obs.legal if isinstance(a, Claim)})}"
                                     " (in debt: what you ate)")
            return Move(legal[0])
        if kind == "believe":
            return Move(Believe())
        if kind == "doubt":
            return Move(Doubt())
        if kind == "consent":
            return Move(Consent())
        raise _unknown(move, "eat, all_done, claim, believe, doubt or consent")

    def auto(self, obs: Any) -> Optional[Any]:
        from zkbluff.games.mind_bluff.bot import Move
        from zkbluff.games.mind_bluff.rules import Phase, RevealEntropy, SealAnswer

        s = obs.state
        if s.phase == Phase.DRAW:
            return Move(RevealEntropy(""))
        if s.phase == Phase.SEAL_ANSWER:
            return Move(SealAnswer(""))
        return None


# ---------------------------------------------------------------- Bluffers

class BluffersWeb(WebGame):
    renderer = "bluffers"
    disclosures = frozenset({"reveal", "share"})

    def view(self, tab: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
        from zkbluff.games.bluffers.rules import CHAMBERS, DECK, MAX_PLAY, CallBluff
        from zkbluff.games.bluffers.text import card_name, claim_words

        obs = tab.observation(seat)
        s = obs.state
        may: list[str] = []
        if not tab.over and obs.due == "turn":
            may = (["play"] if s.hand_sizes[seat] > 0 else []) + \
                (["call"] if any(isinstance(a, CallBluff) for a in obs.legal) else []) + ["leave"]
        claim = None
        if s.last_play is not None and s.table_card is not None:
            lp = s.last_play
            claim = {"seat": lp.seat, "count": lp.count, "auto": lp.auto,
                     "words": f"{_you(names, lp.seat, 'claim')} {claim_words(lp.count, s.table_card)}"}

        def bcard(c: int) -> dict[str, Any]:
            return {"id": c, "name": card_name(c)}

        return {
            "seat": seat, "names": list(names), "hand": [bcard(c) for c in obs.hand],
            "tableCard": DECK.rank_names[s.table_card] if s.table_card is not None else None,
            "round": s.round, "pile": s.pile, "claim": claim, "handSizes": list(s.hand_sizes),
            "chambers": list(s.chambers), "chamberCount": CHAMBERS, "alive": list(s.alive),
            "places": list(s.places), "revealed": [bcard(c) for c in s.revealed], "matched": list(s.matched),
            "phase": str(s.phase.value), "turn": None if tab.over or s.to_move is None else s.to_move,
            "puller": s.puller, "may": may, "maxPlay": MAX_PLAY,
            "lastPull": ({"seat": s.last_pull.seat, "chamber": s.last_pull.chamber, "fired": s.last_pull.fired}
                         if s.last_pull is not None else None),
        }

    def intent(self, move: dict[str, Any], obs: Any) -> Any:
        from zkbluff.games.bluffers.moves import PlayCards
        from zkbluff.games.bluffers.rules import MAX_PLAY, CallBluff, LeaveTable

        kind = move.get("action")
        if kind == "call":
            return CallBluff()
        if kind == "leave":
            return LeaveTable()
        if kind == "play":
            return PlayCards(_picked(move, obs.hand, MAX_PLAY))
        raise _unknown(move, "play, call or leave")

    def auto(self, obs: Any) -> Optional[Any]:
        from zkbluff.games.bluffers.moves import Proceed

        return Proceed() if obs.due not in (None, "turn") else None


# ---------------------------------------------------------------- Liar's Dice

class LiarsDiceWeb(WebGame):
    """Liar's Dice: your own dice (only yours), every seat's dice count, the last bid in
    words; bid a quantity and a face, or call Dudo. Counts are the client's own proofs."""

    renderer = "liars-dice"
    disclosures = frozenset({"count"})

    def view(self, tab: Any, seat: int, names: Sequence[str]) -> dict[str, Any]:
        from zkbluff.games.liars_dice.rules import FACES, Bid, Dudo, Phase

        obs = tab.observation(seat)
        s = obs.state
        bids = [a for a in obs.legal if isinstance(a, Bid)]
        may: list[str] = []
        if not tab.over and s.phase is Phase.BID and s.to_move == seat:
            may = (["bid"] if bids else []) + (["dudo"] if any(isinstance(a, Dudo) for a in obs.legal) else [])
        bid = None
        if s.bid is not None:
            q, f, who = s.bid
            bid = {"seat": who, "quantity": q, "face": f, "words": f"{_you(names, who, 'bid')} {q} × {f}"}
        last = None
        if s.last is not None:
            e = s.last
            last = {"words": "the round was void (a seat timed out); the dice are rolled again" if e.void else
                    f"{names[e.caller]} called Dudo on {e.quantity} × {e.face}: {e.total} showed, so "
                    f"{names[e.loser]} lost a die; nobody's dice were shown"}
        return {
            "seat": seat, "names": list(names), "dice": list(obs.dice), "diceCounts": list(s.dice),
            "inPlay": s.in_play, "wild": s.wild, "round": s.round, "bid": bid, "last": last,
            "phase": str(s.phase.value), "turn": None if tab.over or s.to_move is None else s.to_move,
            "may": may, "faces": FACES, "lowest": ({"quantity": bids[0].quantity, "face": bids[0].face}
                                                   if bids else None),
        }

    def intent(self, move: dict[str, Any], obs: Any) -> Any:
        from zkbluff.games.liars_dice.moves import BidIntent, DudoIntent

        kind = move.get("action")
        if kind == "dudo":
            return DudoIntent()
        if kind == "bid":
            quantity, face = move.get("quantity"), move.get("face")
            if not isinstance(quantity, int) or not isinstance(face, int) or isinstance(quantity, bool) \
                    or isinstance(face, bool):
                raise MalformedInput("a bid is a whole quantity and a face")
            return BidIntent(quantity, face)  # the rules refuse a bid that does not rise
        raise _unknown(move, "bid or dudo")

    def auto(self, obs: Any) -> Optional[Any]:
        from zkbluff.games.liars_dice.moves import CountIntent
        from zkbluff.games.liars_dice.rules import Phase

        return CountIntent() if obs.state.phase is Phase.COUNT else None


#: every game whose table the page draws, by the transcript header's ``game``
TABLES: dict[str, WebGame] = {
    "proof-or-bluff": ProofOrBluffWeb(),
    "five-up-two-down": FiveUpWeb(),
    "cheat": CheatWeb(),
    "mind-bluff": MindBluffWeb(),
    "bluffers": BluffersWeb(),
    "liars-dice": LiarsDiceWeb(),
}
