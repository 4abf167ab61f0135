"""Hosting tables: rooms, the WebSocket server and client transport, spectators, and the
results and leaderboard storage (SQLite by default, behind one interface)."""
