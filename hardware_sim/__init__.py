"""Simulated shoe and table camera, so the whole stack runs without devices."""
