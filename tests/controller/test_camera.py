"""The simulated camera films the live table; the vision pipeline reads it; the controller cross-checks."""

from __future__ import annotations

import asyncio
from pathlib import Path

from table_controller.controller.camera import SeatCards, SimTableSource, TableCamera, felt_scene
from tests.controller.helpers import make_table, seated
from vision.pipeline import Recognizer

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "camera"


def test_foreign_card_in_front_of_a_seat_halts_the_hand_and_the_frame_is_drawn() -> None:
    async def run() -> None:
        table = make_table(seed=12)
        await seated(table, 3)
        await table.start_hand()
        assert table.hand is not None
        source = SimTableSource(table, seed=3)
        camera = TableCamera(source, calibration=source.calibration())
        table.camera = camera
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert await camera.step(table)
        frame = camera.frame_jpeg()
        assert frame is not None and frame[:2] == b"\xff\xd8"  # a JPEG
        dets = camera.detections()
        assert sum(1 for d in dets if d["face"] == "down") >= 3  # the dealt hands lie face down
        (ARTIFACTS / "camera-frame.jpg").write_bytes(frame)
        assert table.full_view().device.camera == "live"
        assert not table.halted
        hole = set(table.hand.hole(2))
        foreign = next(c for c in ("Ah", "Kc", "Qd", "Js", "Th", "9c") if c not in hole and
                       all(c not in table.hand.hole(s) for s in (1, 3)))
        source.extra[2] = foreign
        for _ in range(3):
            await camera.step(table)
            if table.halted:
                break
        view = table.full_view()
        assert view.phase == "halted"
        alert = view.alerts[-1]
        assert alert.kind == "camera_mismatch" and alert.seat == 2 and foreign in alert.message
        assert any(d["code"] == foreign and d["zone"] == "seat 2" for d in camera.detections())
        (ARTIFACTS / "camera-foreign-card.jpg").write_bytes(camera.frame_jpeg() or b"")

    asyncio.run(run())


def test_camera_lost_mid_hand_pauses_until_the_dealer_continues() -> None:
    async def run() -> None:
        table = make_table(seed=12)
        await seated(table, 3)
        await table.start_hand()
        source = SimTableSource(table, seed=3)
        camera = TableCamera(source, calibration=source.calibration())
        table.camera = camera
        source.close()
        assert not await camera.step(table)
        view = table.full_view()
        assert view.device.camera == "lost"
        assert view.alerts[-1].kind == "camera_lost"
        assert view.phase == "paused" and view.prompts[0].options == ("retry", "continue", "void")
        await table.answer_prompt(view.prompts[0].id, "retry")
        assert not await camera.step(table)  # still no frame: paused again
        view = table.full_view()
        assert view.phase == "paused"
        await table.answer_prompt(view.prompts[0].id, "continue")
        view = table.full_view()
        assert view.phase == "betting" and view.to_act is not None

    asyncio.run(run())


class _ShowdownCamera:
    """The simulated camera over a two-seat table whose seats have room for a hand laid out card by card;
    the player to show turns his real cards (the shoe could not read them) face up."""

    def __init__(self, table: object, truth: object) -> None:
        from hardware_sim.camera import RenderOptions, TableLayout, TableScene, calibration_for
        from vision.calibration import Zone

        self.table = table
        self.truth = truth
        self.name = "showdown camera"
        zones = tuple(Zone(name=f"seat {n}", kind="seat", seat=n,
                           polygon=((0.0, y), (800.0, y), (800.0, y + 225.0), (0.0, y + 225.0)))
                      for n, y in ((1, 225.0), (2, 0.0)))
        self.layout = TableLayout(zones=zones)
        self.options = RenderOptions(width=1280, height=720)
        self._calibration = calibration_for(TableScene(layout=self.layout), 7, self.options)
        self.frames = 0

    def calibration(self) -> object:
        return self._calibration

    def read(self) -> tuple[float, object] | None:
        from hardware_sim.camera import PlacedCard, TableScene, render
        from table_controller.controller.table import TableController

        table = self.table
        assert isinstance(table, TableController)
        placed = []
        seat = table.full_view().to_act
        if table.hand is not None and seat is not None and table.full_view().phase == "showdown":
            faces = self.truth()  # type: ignore[operator]
            y0 = 225.0 if seat == 1 else 0.0
            for i, pos in enumerate(table.hand.positions(seat)):
                placed.append(PlacedCard(card=faces[pos], x=80.0 + 140.0 * i, y=y0 + 112.0))
        image = render(TableScene(cards=tuple(placed), layout=self.layout), 7, self.options, frame_index=self.frames)
        self.frames += 1
        return float(self.frames), image


def test_camera_reads_a_shown_hand_the_shoe_could_not() -> None:
    async def run() -> None:
        from table_controller.controller.devices import VirtualShoe

        shoe = VirtualShoe(seed=8, has_reader=False)
        table = make_table(shoe=shoe, card_reader=False, game={
            "form": "five_card_draw", "betting": "fixed_limit",
            "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}})
        await seated(table, 2)
        source = _ShowdownCamera(table, lambda: list(shoe.dealt))
        camera = TableCamera(source, calibration=source.calibration())  # type: ignore[arg-type]
        table.camera = camera
        await table.start_hand()
        for _ in range(20):
            view = table.full_view()
            if view.phase == "showdown":
                break
            if view.draw is not None:
                await table.draw(view.draw.seat, count=0)
            else:
                assert view.to_act is not None
                await table.act(view.to_act, "check")
        view = table.full_view()
        assert view.phase == "showdown" and view.legal[0].needs_cards
        seat = view.to_act
        assert seat is not None and table.hand is not None
        truth = {shoe.dealt[p] for p in table.hand.positions(seat)}
        for _ in range(4):
            await camera.step(table)
            if camera.shown_cards(seat, table.hand_no):
                break
        assert set(camera.shown_cards(seat, table.hand_no) or ()) == truth
        show = next(a for a in table.full_view().legal if a.act == "show")
        assert not show.needs_cards and "read by the camera" in show.label
        await table.act(seat, "show")  # no cards named: the camera's reading is used
        record_show = next(a for a in table.hand.hand.actions if a["act"] == "show")
        assert set(record_show["cards"]) == truth

    asyncio.run(run())


def test_the_simulated_camera_names_no_card_a_seat_does_not_hold_in_shown_hands() -> None:
    """Three hands shown at a showdown, as the simulated camera lays them out: over eight frames the recognizer
    names no card that is not on the felt, nor one in another seat's zone; either would halt the hand as a
    camera and shoe mismatch (a false halt). A five of diamonds at the left of the table is the card a smaller
    frame misread as a six."""
    hands = {1: ("5d", "Kc", "2d", "Qh", "6c"), 2: ("Ac", "2s", "8c", "3s", "Kd"), 3: ("Jh", "4h", "Th", "7d", "8s")}
    table = make_table(seed=12)
    source = SimTableSource(table, seed=1)
    calibration = source.calibration()
    recognizer = Recognizer(card_size=calibration.card_size_px())
    scene = felt_scene({seat: SeatCards(cards=cards, face_up=frozenset(cards), spread=True)
                        for seat, cards in hands.items()})
    named = 0
    for _ in range(8):
        frame = source.read(scene)
        assert frame is not None
        for d in recognizer.identify(frame[1]):
            if d.card is None:
                continue
            zone = calibration.zone_at(*d.center)
            seat = zone.seat if zone is not None else None
            assert seat is not None and d.card in hands[seat], f"{d.card} read at seat {seat}"
            named += 1
    assert named >= 8 * 14  # the camera still reads the shown hands (15 cards a frame)
