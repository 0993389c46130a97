from __future__ import annotations

import asyncio
import json

from table_controller.service.hub import QUEUE_SIZE, StreamHub
from table_controller.service.models import FloorSeat, FloorView, GameView
from table_controller.service.roles import Role

GAME = GameView(form="jackpots", betting="fixed_limit", stakes={})


def _state(hand: int, stack: int = 10) -> FloorView:
    return FloorView(table_id="t1", name="T", game=GAME, hand=hand,
                     seats=(FloorSeat(seat=1, name="A", stack=stack, status="active", cards=5,
                                      hole=("As", "Kd", "Qh", "Jc", "Ts")),))


def test_each_view_gets_its_cut_and_floor_reads_are_audited() -> None:
    audits: list[tuple[Role, str, int]] = []

    async def run() -> None:
        hub = StreamHub(broadcast_delay_s=0, audit=lambda r, c, h: audits.append((r, c, h)))
        pub = hub.subscribe(Role.PUBLIC, "p")
        flo = hub.subscribe(Role.FLOOR, "f")
        hub.publish(_state(1))
        hub.publish(_state(1, stack=9))
        hub.publish(_state(2))
        msgs = [json.loads(pub.queue.get_nowait()) for _ in range(3)]
        assert [m["seq"] for m in msgs] == [1, 2, 3]
        assert all("hole" not in m["state"]["seats"][0] for m in msgs)
        floor_msg = json.loads(flo.queue.get_nowait())
        assert floor_msg["state"]["seats"][0]["hole"] == ["As", "Kd", "Qh", "Jc", "Ts"]
        # once per subscriber and hand
        assert audits == [(Role.FLOOR, "f", 1), (Role.FLOOR, "f", 2)]

    asyncio.run(run())


def test_late_subscriber_gets_the_latest_state() -> None:
    async def run() -> None:
        hub = StreamHub(broadcast_delay_s=0)
        hub.publish(_state(4))
        late = hub.subscribe(Role.DEALER, "d")
        assert json.loads(late.queue.get_nowait())["state"]["hand"] == 4

    asyncio.run(run())


def test_broadcast_is_held_back() -> None:
    async def run() -> None:
        hub = StreamHub(broadcast_delay_s=0.05)
        b = hub.subscribe(Role.BROADCAST, "tv")
        hub.publish(_state(1))
        assert b.queue.empty()
        msg = json.loads(await asyncio.wait_for(b.queue.get(), timeout=5))
        assert msg["state"]["view"] == "broadcast"
        assert msg["state"]["seats"][0]["hole"][0] == "As"
        hub.close()

    asyncio.run(run())


def test_slow_client_keeps_only_the_newest() -> None:
    async def run() -> None:
        hub = StreamHub(broadcast_delay_s=0)
        sub = hub.subscribe(Role.PUBLIC, "slow")
        for i in range(QUEUE_SIZE + 10):
            hub.publish(_state(1, stack=i))
        assert sub.queue.qsize() == QUEUE_SIZE
        last = None
        while not sub.queue.empty():
            last = json.loads(sub.queue.get_nowait())
        assert last is not None and last["state"]["seats"][0]["stack"] == QUEUE_SIZE + 9

    asyncio.run(run())
