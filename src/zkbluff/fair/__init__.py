"""Seed 002's provably-fair schemes (match_seed_v2, poker_hmac_v1, chess_colour_v1),
byte-exact with its JavaScript, and the commit-reveal helpers under every zkbluff deal."""
from zkbluff.fair.schemes import (  # noqa: F401
    card_proof, replay, verify_card_proof, verify_record,
)
from zkbluff.fair.stream import DrawStream, hmac_stream, sha256_hex, word  # noqa: F401
