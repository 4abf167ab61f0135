"""Commit-reveal sessions, context binding and hash-chained transcripts."""
