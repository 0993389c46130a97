"""Rules engine for Draw Poker: pure state machines, cards and hand evaluation (no I/O)."""
