"""The shoe simulator with a clock on its output: when each card left the shoe, and each deck's cards."""

from __future__ import annotations

import time
from typing import Any

from firmware_bridge.cards import card_code
from hardware_sim.shoe import ShoeSimulator

__all__ = ["TimedShoeSimulator"]


class TimedShoeSimulator(ShoeSimulator):
    """The shoe simulator, noting when each card leaves the shoe (the moment its event goes on the wire)
    and keeping the cards each deck dealt, in order, so a test can compare them with the journal."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.last_out: dict[str, float] = {}
        self.decks: list[list[str]] = []
        self._shuffles = 0
        self._seen = 0

    def process(self, dt: float) -> list[bytes]:
        chunks = super().process(dt)
        with self.lock:
            device = self.device
            if device.shuffles != self._shuffles:
                self._shuffles = device.shuffles
                self._seen = 0
            now = time.perf_counter()
            for card in device.out[self._seen:]:
                code = card_code(card.face)
                self.last_out[code] = now
                if self._seen == 0:
                    self.decks.append([])
                self.decks[-1].append(code)
                self._seen += 1
        return chunks
