"""Device faults pause the hand with a prompt; a failed deck check or a camera mismatch halts it for the floor."""

from __future__ import annotations

import asyncio

import pytest

from table_controller.controller.devices import DeckCheck, VirtualShoe
from table_controller.controller.errors import NotAllowedError, TableRequestError
from table_controller.controller.players import SimPlayers
from table_controller.service.models import RulingRequest
from tests.controller.helpers import make_table, seated


async def _to_draw(table: object, players: SimPlayers) -> None:
    from table_controller.controller.table import TableController

    assert isinstance(table, TableController)
    for _ in range(200):
        view = table.full_view()
        if view.draw is not None or table.hand is None:
            return
        await players.step()


def test_jam_mid_draw_pauses_then_retry_resumes() -> None:
    async def run() -> None:
        import random

        shoe = VirtualShoe(seed=3)
        table = make_table(shoe=shoe)
        await seated(table, 4)
        players = SimPlayers(table, rng=random.Random(3))
        for _ in range(20):  # find a hand that reaches the draw
            await table.start_hand()
            await _to_draw(table, players)
            if table.hand is not None:
                break
        view = table.full_view()
        assert view.draw is not None
        seat = view.draw.seat
        hole = table.hand.hole(seat) if table.hand else ()
        shoe.inject_fault("card jam at the exit roller")
        await table.draw(seat, discard=tuple(hole[:2]))
        view = table.full_view()
        assert view.phase == "paused" and view.paused
        assert view.prompts and view.prompts[0].options == ("retry", "void")
        assert "jam" in view.prompts[0].message
        with pytest.raises(NotAllowedError, match="paused"):
            await table.act(seat, "check")
        shoe.inject_fault(None)
        await table.answer_prompt(view.prompts[0].id, "retry")
        view = table.full_view()
        assert not view.paused and not view.prompts
        assert table.hand is not None and len(table.hand.hole(seat)) == 5
        table.check_chips()

    asyncio.run(run())


def test_fault_in_the_deal_then_void_returns_every_chip() -> None:
    async def run() -> None:
        shoe = VirtualShoe(seed=4)
        table = make_table(shoe=shoe)
        await seated(table, 3, stack=50)
        original = {n: st.stack for n, st in table.seats.items()}
        real_deal = shoe.deal
        dealt = 0

        async def flaky_deal() -> object:
            nonlocal dealt
            dealt += 1
            if dealt == 7:
                shoe.inject_fault("door open")
            return await real_deal()

        shoe.deal = flaky_deal  # type: ignore[method-assign, assignment]
        await table.start_hand()
        view = table.full_view()
        assert view.phase == "paused"
        prompt = view.prompts[0]
        await table.answer_prompt(prompt.id, "void")
        assert table.hand is None and not table.in_play()
        assert {n: st.stack for n, st in table.seats.items()} == original
        assert table.history()[-1].status == "void"
        table.check_chips()
        shoe.inject_fault(None)
        await table.start_hand()  # a new shuffle and deal
        assert table.hand is not None

    asyncio.run(run())


class BadDeckShoe(VirtualShoe):
    async def verify(self) -> DeckCheck:
        return DeckCheck(ok=False, count=51, missing=("Qs",))


def test_failed_deck_check_halts_with_a_security_alert() -> None:
    async def run() -> None:
        table = make_table(shoe=BadDeckShoe(seed=1))
        await seated(table, 3)
        await table.start_hand()
        view = table.full_view()
        assert view.phase == "halted"
        assert view.alerts[0].level == "security" and "missing Qs" in view.alerts[0].message
        assert table.hand is None  # nothing was dealt
        with pytest.raises(NotAllowedError, match="halted"):
            await table.start_hand()
        await table.floor_ruling(RulingRequest(kind="void_hand", by="Floor Fran", reason="deck short a card"))
        assert not table.full_view().paused
        assert table.full_view().rulings[0].by == "Floor Fran"

    asyncio.run(run())


def test_camera_mismatch_halts_and_alerts_the_floor() -> None:
    async def run() -> None:
        table = make_table(seed=9)
        await seated(table, 3)
        await table.start_hand()
        assert table.hand is not None
        seat = table.full_view().to_act
        assert seat is not None
        hole = table.hand.hole(seat)
        await table.camera_reading(seat, hole[0])  # the card the shoe dealt there: no alarm
        assert not table.full_view().paused
        foreign = next(c for c in ("As", "Kd", "2c", "7h", "9s") if c not in hole)
        await table.camera_reading(seat, foreign)
        view = table.full_view()
        assert view.phase == "halted"
        alert = view.alerts[-1]
        assert alert.kind == "camera_mismatch" and alert.seat == seat and foreign in alert.message
        from table_controller.service.views import dealer_view, public_view

        assert not hasattr(dealer_view(view), "alerts") and not hasattr(public_view(view), "alerts")
        await table.floor_ruling(RulingRequest(kind="resume", by="Floor Fran", reason="camera misread a glare"))
        assert table.full_view().to_act == seat

    asyncio.run(run())


def test_misdeal_called_during_the_deal_voids_it() -> None:
    async def run() -> None:
        shoe = VirtualShoe(seed=2)
        table = make_table(shoe=shoe)
        await seated(table, 4)
        before = {n: st.stack for n, st in table.seats.items()}
        shoe.inject_fault("jam")
        await table.start_hand()  # paused before the deal completes
        assert table.in_play() and table.hand is None
        await table.report_irregularity("misdeal", seat=2, note="two cards exposed", by="dealer")
        assert not table.in_play()
        assert {n: st.stack for n, st in table.seats.items()} == before
        assert table.history()[-1].status == "void"

    asyncio.run(run())


def test_engine_applies_the_books_remedy_and_names_the_rule() -> None:
    async def run() -> None:
        table = make_table(seed=2)
        await seated(table, 4)
        await table.start_hand()
        assert table.hand is not None
        seat = table.full_view().to_act
        assert seat is not None
        card = table.hand.hole(seat)[0]
        await table.report_irregularity("exposed_in_deal", seat=seat, note="flipped on the deal", by="dealer",
                                        details={"card": card})
        view = table.full_view()
        assert "Draw Poker Rules · " in view.message and "000" not in view.message  # the rule, by its title
        assert view.alerts[-1].kind == "irregularity"
        assert table.hand is not None  # one exposed card: no misdeal, play goes on
        from table_controller.service.views import public_view

        assert public_view(view).seats[seat - 1].shown == (card,)  # everyone saw it
        with pytest.raises(TableRequestError):
            await table.report_irregularity("spilled_drink", seat=seat, note="", by="dealer")
        with pytest.raises(NotAllowedError) as info:  # one exposed card is not a misdeal
            await table.report_irregularity("misdeal", seat=seat, note="", by="dealer")
        assert info.value.rule and "000" in info.value.rule
        second = table.hand.hole(seat)[1]
        await table.report_irregularity("exposed_in_deal", seat=seat, note="", by="dealer", details={"card": second})
        await table.report_irregularity("misdeal", seat=seat, note="second card exposed", by="dealer")
        assert table.hand is None and table.history()[-1].hand == 1
        table.check_chips()

    asyncio.run(run())


def test_floor_moves_chips_between_hands_and_conservation_holds() -> None:
    async def run() -> None:
        table = make_table(seed=2)
        await seated(table, 3)
        table.carried_pot = 0
        with pytest.raises(NotAllowedError):
            await table.floor_ruling(RulingRequest(kind="move_chips", by="F", reason="r", seat=1, amount=5))
        await table.floor_ruling(RulingRequest(kind="move_chips", by="F", reason="chips left on the felt", seat=1,
                                               amount=-5))
        assert table.carried_pot == 5 and table.seats[1].stack == 95
        table.check_chips()

    asyncio.run(run())
