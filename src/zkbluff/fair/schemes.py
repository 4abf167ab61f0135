"""The three schemes of seed 002 and the record format that names them.

Where the seed's text is silent, the literal reading of its JavaScript is taken; each
reading is marked "Reading:" here and listed in ``vectors/fair/README.md``.
"""
from __future__ import annotations

from typing import Any, Optional

from zkbluff.errors import CommitmentMismatch, MalformedInput, OutcomeMismatch, UnsupportedScheme
from zkbluff.fair.cards import card_name
from zkbluff.fair.stream import DrawStream, hmac_hex, hmac_stream, sha256_hex, word

# Reading: the game name in the message is its lowercase English name.
GAMES = ("backgammon", "draughts", "xiangqi", "bridge", "tarneeb", "trix", "baloot", "mahjong")
CARD_GAMES_52 = ("bridge", "tarneeb", "trix")
MAHJONG_TILES = 144  # Reading: the wall is tiles 0..143 in their fixed order (record field "tiles" overrides)
BALOOT_CARDS = 32
BALOOT_HAND = 5  # Reading: baloot deals 5 cards a seat to 4 seats; position 20 is the face-up card.


def _str(rec: dict, key: str, default: Optional[str] = None) -> str:
    v = rec.get(key, default)
    if not isinstance(v, str):
        raise MalformedInput(f"record field {key!r}: expected a string, got {type(v).__name__}")
    return v


def _count(rec: dict, key: str, default: int, limit: int = 100_000) -> int:
    v = rec.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= limit:
        raise MalformedInput(f"record field {key!r}: expected a whole number 0..{limit}, got {v!r}")
    return v


# ------------------------------------------------------------------ match_seed_v2

def client_seeds_text(seeds: list[str]) -> str:
    """Reading: client seeds join as ``i=seed`` with ``,`` and nothing escaped."""
    return ",".join(f"{i}={s}" for i, s in enumerate(seeds))


def match_stream(server_seed: str, game: str, match_id: str, client_seeds: list[str]) -> DrawStream:
    """The match's draw stream. Reading: the server seed is the published string, used
    as the HMAC key as text (never hex-decoded); one counter per match, from 0."""
    seeds = client_seeds_text(client_seeds)
    return hmac_stream(server_seed, lambda k: f"pf2:{game}:{match_id}:{seeds}:{k}")


def replay_match_seed_v2(rec: dict) -> dict:
    game = _str(rec, "game")
    if game not in GAMES:
        raise MalformedInput(f"record field 'game': expected one of {', '.join(GAMES)}, got {game!r}")
    server_seed = _str(rec, "serverSeed")
    seeds = rec.get("clientSeeds", [])
    if not isinstance(seeds, list) or not all(isinstance(s, str) for s in seeds):
        raise MalformedInput("record field 'clientSeeds': expected a list of strings")
    match_id = rec.get("matchId")
    if isinstance(match_id, int) and not isinstance(match_id, bool):
        match_id = str(match_id)
    if not isinstance(match_id, str):
        raise MalformedInput("record field 'matchId': expected a string (or a whole number)")
    st = match_stream(server_seed, game, match_id, seeds)
    out: dict[str, Any] = {"scheme": "match_seed_v2", "game": game}
    if "commitment" in rec:
        out["commitmentValid"] = sha256_hex(server_seed) == _str(rec, "commitment")
    out["seatOrder"] = st.shuffle([0, 1])
    if game == "backgammon":
        # Reading: opening roll is one die per seat in seat order; each turn two dice;
        # ties are not re-rolled.
        turns = _count(rec, "turns", 1)
        out["dice"] = [st.die() for _ in range(2 + 2 * turns)]
    elif game in CARD_GAMES_52:
        # Reading: each deal shuffles a fresh ordered deck 0..51 on the same counter.
        deals = []
        for _ in range(_count(rec, "deals", 1, 1000)):
            deck = st.shuffle(range(52))
            deals.append([deck[13 * i: 13 * i + 13] for i in range(4)])
        out["deals"] = deals
    elif game == "baloot":
        deck = st.shuffle(range(BALOOT_CARDS))
        first = 4 * BALOOT_HAND
        out["deck"] = deck
        out["deals"] = [[deck[BALOOT_HAND * i: BALOOT_HAND * (i + 1)] for i in range(4)]]
        out["faceUp"] = deck[first]
        # Reading: the rest (positions 21..31) is shuffled again for the second deal.
        out["rest"] = st.shuffle(deck[first + 1:])
    elif game == "mahjong":
        tiles = _count(rec, "tiles", MAHJONG_TILES, 10_000)
        wall = list(range(tiles))
        draws = []
        for _ in range(min(_count(rec, "draws", tiles, 10_000), tiles)):
            # Reading: a draw takes the j-th of the remaining tiles in their fixed order.
            draws.append(wall.pop(st.int(len(wall))))
        out["draws"] = draws
    out["counter"] = st.counter
    return out


# ------------------------------------------------------------------ poker_hmac_v1

PAD_LEAF_TEXT = "pk1:pad"
TREE_LEAVES = 64
def hand_value(server_seed: str, table: str, session: str, hand: int) -> str:
    return hmac_hex(server_seed, f"pk1:hand:{table}:{session}:{hand}")


def poker_seeds_text(seeds: dict) -> str:
    """Reading: seats are sorted numerically; ``seat=seed`` joined with ``,``."""
    return ",".join(f"{s}={seeds[s]}" for s in sorted(seeds, key=int))


def poker_deck(hand_val: str, table: str, session: str, hand: int, seeds: dict) -> list[int]:
    """Reading: the HMAC key is the 64-character hex string of the hand value, as text."""
    text = poker_seeds_text(seeds)
    st = hmac_stream(hand_val, lambda k: f"pk1:{table}:{session}:{hand}:{text}:{k}")
    return st.shuffle(range(52))


def leaf_salt(hand_val: str, position: int) -> str:
    return hmac_hex(hand_val, f"pk1:salt:{position}")


def leaf_hash(position: int, card: int, salt: str) -> str:
    """Reading: card ids in leaves are decimal; the salt is its hex string as text."""
    return sha256_hex(f"pk1:leaf:{position}:{card}:{salt}")


def node_hash(left: str, right: str) -> str:
    """Reading: a parent hashes its children's hex strings concatenated as text."""
    return sha256_hex(f"pk1:node:{left}{right}")


def merkle_levels(deck: list[int], hand_val: str) -> list[list[str]]:
    leaves = [leaf_hash(i, c, leaf_salt(hand_val, i)) for i, c in enumerate(deck)]
    leaves += [sha256_hex(PAD_LEAF_TEXT)] * (TREE_LEAVES - len(leaves))
    levels = [leaves]
    while len(levels[-1]) > 1:
        lv = levels[-1]
        levels.append([node_hash(lv[i], lv[i + 1]) for i in range(0, len(lv), 2)])
    return levels


def card_proof(deck: list[int], hand_val: str, position: int) -> dict:
    """The card at ``position`` with its salt and Merkle path (sibling hashes from the
    leaf up, each with the side it stands on)."""
    if not 0 <= position < len(deck):
        raise MalformedInput(f"position must be 0..{len(deck) - 1}, got {position}")
    levels = merkle_levels(deck, hand_val)
    path, idx = [], position
    for lv in levels[:-1]:
        sib = idx ^ 1
        path.append({"hash": lv[sib], "side": "left" if sib < idx else "right"})
        idx //= 2
    return {"position": position, "card": deck[position], "salt": leaf_salt(hand_val, position), "path": path,
            "root": levels[-1][0]}


def _sha256_hex_arg(value: Any, what: str) -> str:
    """A SHA-256/HMAC value as the records write it: 64 hex digits. Case is folded (an
    uppercase copy of a root is the same root); anything else is malformed, not a
    mismatch."""
    if not isinstance(value, str) or len(value) != 64 or any(c not in "0123456789abcdefABCDEF" for c in value):
        shown = value if isinstance(value, str) and len(value) <= 80 else f"{str(value)[:80]}..."
        raise MalformedInput(f"{what}: expected 64 hex digits, got {shown!r}")
    return value.lower()


def verify_card_proof(proof: Any, root: str) -> None:
    """Raise :class:`CommitmentMismatch` unless ``proof`` opens ``root``;
    :class:`MalformedInput` if it is not shaped as :func:`card_proof` makes it."""
    root = _sha256_hex_arg(root, "root")
    try:
        position, card, salt, path = proof["position"], proof["card"], proof["salt"], proof["path"]
        if not (isinstance(position, int) and isinstance(card, int) and isinstance(salt, str)
                and isinstance(path, list) and 0 <= position < TREE_LEAVES and 0 <= card < 52):
            raise TypeError
        salt = _sha256_hex_arg(salt, "salt")
        h = leaf_hash(position, card, salt)
        idx = position
        if len(path) != 6:
            raise CommitmentMismatch(f"a path of {len(path)} steps cannot reach the root of a 64-leaf tree")
        for step in path:
            side, sib = step["side"], step["hash"]
            if side not in ("left", "right") or not isinstance(sib, str):
                raise TypeError
            sib = _sha256_hex_arg(sib, "path hash")
            if (side == "left") != bool(idx & 1):
                raise CommitmentMismatch("a path step stands on the wrong side for this position")
            h = node_hash(sib, h) if side == "left" else node_hash(h, sib)
            idx //= 2
    except (KeyError, TypeError):
        raise MalformedInput("card proof: expected position, card, salt and a path of {hash, side}") from None
    if h != root:
        raise CommitmentMismatch("the card proof does not lead to the committed root")


def hole_positions(seat_rank: int, n_seats: int, cards: int = 2) -> list[int]:
    """Reading (the seed names no dealing order): seats sorted numerically take one
    card each in turn, so seat number ``seat_rank`` holds positions
    ``seat_rank + j * n_seats``; the board follows the hole cards."""
    return [seat_rank + j * n_seats for j in range(cards)]


def replay_poker_hmac_v1(rec: dict) -> dict:
    server_seed = _str(rec, "serverSeed")
    table, session = str(rec.get("table", "")), str(rec.get("session", ""))
    hand = _count(rec, "hand", 0, 10 ** 9)
    seeds = rec.get("seeds", {})
    if not isinstance(seeds, dict) or not all(isinstance(v, str) for v in seeds.values()) or \
            not all(str(k).isdigit() for k in seeds):
        raise MalformedInput("record field 'seeds': expected an object of seat number -> seed string")
    hv = hand_value(server_seed, table, session, hand)
    deck = poker_deck(hv, table, session, hand, {str(k): v for k, v in seeds.items()})
    out: dict[str, Any] = {"scheme": "poker_hmac_v1", "handValue": hv, "handCommitment": sha256_hex(hv)}
    if "commitment" in rec:
        out["commitmentValid"] = sha256_hex(server_seed) == _str(rec, "commitment")
    if "handCommitment" in rec:
        out["handCommitmentValid"] = out["handCommitment"] == _str(rec, "handCommitment")
    out["deck"] = deck
    out["cards"] = [card_name(c) for c in deck]
    out["root"] = merkle_levels(deck, hv)[-1][0]
    return out


# ------------------------------------------------------------------ chess_colour_v1

def chess_message(commit_a: str, commit_b: Optional[str], client_a: str, client_b: str, k: int) -> str:
    return f"cc1:{commit_a}:{commit_b or '-'}:0={client_a},1={client_b}:{k}"


def replay_chess_colour_v1(rec: dict) -> dict:
    """A = the owner of the seek or challenge. Reading: the commitments are the SHA-256
    hex of the seeds; against a bot B adds no seed, its commitment is '-', its client
    seed the empty string, and the word is A's alone (no XOR)."""
    seed_a = _str(rec, "seedA")
    seed_b = rec.get("seedB")
    if seed_b is not None and not isinstance(seed_b, str):
        raise MalformedInput("record field 'seedB': expected a string or null (a bot)")
    client_a = _str(rec, "clientA", "")
    client_b = _str(rec, "clientB", "")
    commit_a = sha256_hex(seed_a)
    commit_b = sha256_hex(seed_b) if seed_b is not None else None

    def next_word(k: int) -> int:
        msg = chess_message(commit_a, commit_b, client_a, client_b, k)
        w = word(seed_a, msg)
        return w ^ word(seed_b, msg) if seed_b is not None else w

    st = DrawStream(next_word)
    out: dict[str, Any] = {"scheme": "chess_colour_v1", "commitA": commit_a, "commitB": commit_b}
    if "commitA" in rec:
        out["commitmentValid"] = rec["commitA"] == commit_a and rec.get("commitB") == commit_b
    out["white"] = "A" if st.int(2) == 0 else "B"
    return out


# ------------------------------------------------------------------ records

REPLAYERS = {
    "match_seed_v2": replay_match_seed_v2,
    "poker_hmac_v1": replay_poker_hmac_v1,
    "chess_colour_v1": replay_chess_colour_v1,
}


def replay(rec: Any) -> dict:
    """Everything a record determines, picked by its ``scheme``."""
    if not isinstance(rec, dict):
        raise MalformedInput(f"record: expected a JSON object, got {type(rec).__name__}")
    scheme = rec.get("scheme")
    if scheme == "match_seed_v1":
        raise UnsupportedScheme("scheme match_seed_v1 is not supported: seed 002 names it but never defines it")
    if scheme not in REPLAYERS:
        raise UnsupportedScheme(f"scheme {scheme!r} is not supported (known: {', '.join(REPLAYERS)})")
    return REPLAYERS[scheme](rec)


OUTCOME_KEYS = ("seatOrder", "dice", "deals", "deck", "rest", "faceUp", "draws", "handValue", "handCommitment",
                "root", "white")


def verify_record(rec: Any) -> dict:
    """Replay ``rec``; raise :class:`CommitmentMismatch` if a commitment fails, or
    :class:`OutcomeMismatch` naming the first recorded outcome that recomputation does
    not give. Returns the replay."""
    out = replay(rec)
    for key in ("commitmentValid", "handCommitmentValid"):
        if out.get(key) is False:
            raise CommitmentMismatch(f"{key[:-5]}: the revealed seed does not match the commitment")
    if "commitmentValid" not in out:
        raise MalformedInput("record: no commitment to check (expected 'commitment', or 'commitA' for chess)")
    recorded = rec.get("outcomes", {})
    if not isinstance(recorded, dict):
        raise MalformedInput("record field 'outcomes': expected an object")
    for key, value in recorded.items():
        if key not in OUTCOME_KEYS:
            raise MalformedInput(f"record outcome {key!r} is not one this scheme determines")
        if out.get(key) != value:
            raise OutcomeMismatch(f"outcome {key!r}: recorded {value!r:.120}, recomputed {out.get(key)!r:.120}")
    return out
