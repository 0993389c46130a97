"""A soak of the demo with its camera: simulated shoe, simulated players, the camera filming the table.

The camera here sees the simulated table exactly (its recogniser reads the scene the simulator would render,
without rendering it), so every reading is the camera's truth; the shoe's truth is what it dealt. The camera
loop runs beside the players as in the browser demo: a frame may be taken before a hand ends and reported
after the next one is shuffled and dealt. Over 200 hands, a security alert is allowed only where a foreign
card was really laid in front of a seat; each time the floor takes it away and resumes, and the simulated
players carry on.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

import numpy as np
import pytest

from table_controller.controller.camera import SimTableSource, TableCamera
from table_controller.controller.demo import play_hands, seat_players
from table_controller.controller.devices import DealtCard, DeckCheck, VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.players import SimPlayers
from table_controller.controller.table import TableController
from table_controller.service.models import RulingRequest
from table_controller.service.settings import TableSettings
from vision.pipeline import Detection

HANDS = 200
FOREIGN_EVERY = 50  # hands between two foreign cards laid at the table


class YieldingShoe(VirtualShoe):
    """The in-memory shoe, giving the event loop a turn at every operation, as a device on a line does."""

    async def shuffle(self) -> None:
        await asyncio.sleep(0)
        await super().shuffle()
        await asyncio.sleep(0)

    async def verify(self) -> DeckCheck:
        await asyncio.sleep(0)
        return await super().verify()

    async def deal(self) -> DealtCard:
        await asyncio.sleep(0)
        return await super().deal()


class TruthSource(SimTableSource):
    """The simulated camera, its frame the scene itself (no rendering): the recogniser below reads it."""

    def __init__(self, table: TableController) -> None:
        super().__init__(table, seed=1)
        self.scenes: list[Any] = []
        self.blank = np.zeros((36, 64, 3), np.uint8)

    def read(self, scene: Any | None = None) -> tuple[float, Any] | None:
        self.scenes.append(scene if scene is not None else self.scene())
        self.frames += 1
        return float(self.frames), self.blank


class TruthRecognizer:
    """Reads every card of the scene as it lies: face up by its name, face down as a back."""

    def __init__(self, source: TruthSource) -> None:
        self.source = source
        self.calibration = source.calibration()

    def identify(self, image: Any) -> list[Detection]:
        out: list[Detection] = []
        for placed in self.source.scenes.pop(0).cards:
            cx, cy = self.calibration.to_image(placed.x, placed.y)
            corners = ((cx - 5, cy - 8), (cx + 5, cy - 8), (cx + 5, cy + 8), (cx - 5, cy + 8))
            out.append(Detection(card=placed.card if placed.face_up else None, face="up" if placed.face_up else "down",
                                 confidence=1.0, corners=corners))
        return out


def _hand_of(message: str) -> int:
    return int(message.split("hand #", 1)[1].split(":", 1)[0])


async def _in_the_loop(fn: Any, /, *args: Any) -> Any:
    """The camera's frame work run in the event loop's turn instead of a thread: how many frames fall in a hand
    then depends on the loop's turns alone, not on how busy the machine's cores are."""
    await asyncio.sleep(0)
    return fn(*args)


def test_two_hundred_hands_with_the_camera_raise_no_alert_the_truth_does_not_justify(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asyncio, "to_thread", _in_the_loop)
    asyncio.run(_soak())


async def _soak() -> None:
    shoe = YieldingShoe(seed=21)
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0), shoe=shoe, journal=MemoryJournal())
    source = TruthSource(table)
    camera = TableCamera(source, calibration=source.calibration(), recognizer=TruthRecognizer(source),  # type: ignore[arg-type]
                         period_s=0)
    table.camera = camera
    laid: dict[int, tuple[int, str]] = {}  # hand -> (seat, foreign card)
    said: list[str] = []
    rng = random.Random(4)

    def lay_foreign_card() -> None:
        hand = table.hand
        if hand is None or table.hand_no in laid or table.hand_no % FOREIGN_EVERY != FOREIGN_EVERY // 2:
            return
        if table.phase != "betting":
            return
        seat = rng.choice(sorted(hand.seat_info()))
        undealt = sorted(set(shoe._stub))
        card = rng.choice(undealt)
        source.extra[seat] = card
        laid[table.hand_no] = (seat, card)

    async def floor() -> None:
        """The floor: takes a foreign card off the felt and resumes the table."""
        while True:
            await asyncio.sleep(0)
            if table.halted:
                heard = len(said)
                for _ in range(100_000):  # the floor walks over once the terminal has said the table halted
                    if len(said) > heard:
                        break
                    await asyncio.sleep(0)
                source.extra.clear()
                await table.floor_ruling(RulingRequest(kind="resume", by="Fran", reason="foreign card taken away"))

    async def film() -> None:
        while True:
            lay_foreign_card()
            with contextlib.suppress(Exception):  # as TableCamera.run: one bad frame never stops the camera
                await camera.step(table)
            await asyncio.sleep(0)

    await seat_players(table, 5)
    tasks = [asyncio.create_task(film()), asyncio.create_task(floor())]
    try:
        summary = await play_hands(table, SimPlayers(table, rng=random.Random(9)), hands=HANDS, wait_for_floor=True,
                                   report=said.append, poll_s=0)
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    assert summary.hands == HANDS and summary.chips_conserved
    assert camera.frames > HANDS  # the camera filmed throughout, several frames a hand
    security = [a for a in table.full_view().alerts if a.level == "security"]
    # Justified: a foreign card laid at that seat (in that hand or earlier: it lies there until the floor
    # takes it away) is the card the camera named.
    unjustified = [a for a in security if not (
        a.kind == "camera_mismatch" and any(a.seat == seat and card in a.message and _hand_of(a.message) >= n
                                            for n, (seat, card) in laid.items()))]
    assert not unjustified, [a.message for a in unjustified]
    assert laid and security  # the foreign cards were seen, and only they raised alerts
    assert any("halted" in line for line in said) and any("play goes on" in line for line in said)
