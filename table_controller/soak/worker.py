"""The controller process of the fault soak: one live table that plays hands while devices fail.

Run as ``python -m table_controller.soak.worker --data DIR --until N --seed S``. It starts the whole stack
(:class:`~table_controller.soak.stack.LiveStack`) on the data directory, which replays the journal and voids
a hand a killed predecessor left half played, then plays hands until the table's history holds ``N`` hands.
Around each hand it injects faults from a seeded schedule: a 1% garbling line (both ways, for the whole run),
jams that recover and jams that do not, the door opened mid-hand, power lost mid-hand and camera dropouts at
the showdown. The dealer answers a device-fault prompt as a person would: fix the device (close the door),
then Retry; now and then Void instead. Each finished hand is one JSON line on stdout (the soak parent
counts them and picks its moments to kill -9 this process).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.soak.stack import LiveStack, StackOptions, hand_facts

FAULTS = ("jam_recovers", "jam_stuck", "door", "power_loss")
MAX_RETRIES = 3


@dataclass
class WorkerStats:
    hands: int = 0
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))
    prompts: int = 0
    retries: int = 0
    voids_by_dealer: int = 0
    camera_dropouts: int = 0
    camera_misreads: int = 0
    unexpected_voids: int = 0  # hands voided with no fault injected in them or the hand before
    findings: list[str] = field(default_factory=list)


class SoakTable:
    def __init__(self, stack: LiveStack, *, rng: random.Random, fault_rate: float, void_rate: float,
                 queue: list[str] | None = None) -> None:
        self.stack = stack
        self.rng = rng
        self.fault_rate = fault_rate
        self.void_rate = void_rate
        self.stats = WorkerStats()
        self._players = stack.new_players()
        self.queue = list(queue or [])  # faults to inject first, one a hand, before the random schedule
        self._planned: tuple[int, str] | None = None
        self._fault_hands: set[int] = set()

    def control(self, name: str, **args: Any) -> Any:
        """A call on the shoe simulator's control (in this process or in the shoe's own)."""
        assert self.stack.shoe is not None
        return self.stack.shoe.call(name, **args)

    def _inject(self, fault: str) -> None:
        self.stats.faults[fault] += 1
        t = self.stack.table
        self._fault_hands.add(t.hand_no if t.in_play() else t.hand_no + 1)
        if fault == "jam_recovers":
            self.control("jam_next", recovers=True)
        elif fault == "jam_stuck":
            self.control("jam_next", recovers=False)
        elif fault == "door":
            self.control("open_door")
        elif fault == "power_loss":
            self.control("power_loss")

    async def _answer_prompts(self, retries: list[int]) -> None:
        """The dealer at a paused hand: fix the device, then Retry (or Void, sometimes or after many tries)."""
        t = self.stack.table
        view = t.full_view()
        for prompt in view.prompts:
            if prompt.kind != "device_fault":
                continue
            self.stats.prompts += 1
            if self.control("door_open"):
                self.control("close_door")
            retries[0] += 1
            wants_void = retries[0] > MAX_RETRIES or self.rng.random() < self.void_rate
            choice = "void" if wants_void or "retry" not in prompt.options else "retry"
            if choice == "void":
                self.stats.voids_by_dealer += 1
            else:
                self.stats.retries += 1
                await asyncio.sleep(0.05)  # the dealer's hand on the shoe: let a recovering jam clear
            r = await self.stack.call("POST", f"/prompts/{prompt.id}", {"choice": choice})
            if r.status_code != 200:
                raise RuntimeError(f"answer prompt {prompt.id}: {r.status_code} {r.text[:200]}")
            return
        await asyncio.sleep(0.01)  # paused with no device prompt yet: the controller is still deciding

    async def play_hand(self) -> None:
        stack = self.stack
        t = stack.table
        await stack.top_up()
        # A fault may be planned for this hand: at which step (0: before the shuffle) and which one. One the
        # hand ends before carries over to the next hand.
        if self._planned is None and (self.queue or self.rng.random() < self.fault_rate):
            kind = self.queue.pop(0) if self.queue else self.rng.choice(FAULTS)
            self._planned = (self.rng.randrange(0, 8), kind)
        planned, self._planned = self._planned, None
        if planned is not None and planned[0] == 0:
            self._inject(planned[1])
            planned = None
        first_deck = int(self.control("deck_count"))
        r = await stack.start_hand()
        if r.status_code != 201:
            raise RuntimeError(f"start hand: {r.status_code} {r.text[:200]}")
        number = t.hand_no
        self._planned = await self._play_out(planned)
        self._ended(number, first_deck)

    async def finish_resumed_hand(self) -> None:
        """A hand a killed predecessor left in play, resumed at this start: play it to its end. The kill is this
        hand's fault, so a void of it is expected; its cards are checked from the deck it started with."""
        t = self.stack.table
        if not t.in_play():
            return
        number = t.hand_no
        self._fault_hands.add(number)
        await self._play_out(None)
        facts = hand_facts(self.stack.journal.entries() if self.stack.journal else []).get(number)
        decks: list[list[str]] = self.control("decks")
        dealt = facts.dealt if facts is not None else []
        # The deck it started with is the last one whose cards open the hand's (a hand voided before its
        # first card has none).
        first = len(decks) if not dealt else next(
            (k for k in range(len(decks) - 1, -1, -1) if decks[k][:len(dealt)] == dealt[:len(decks[k])]), 0)
        self._ended(number, first)

    async def _play_out(self, planned: tuple[int, str] | None) -> tuple[int, str] | None:
        """Play the hand in progress to its end, injecting `planned` at its step; returns it if not yet due."""
        stack = self.stack
        t = stack.table
        number = t.hand_no
        players = self._players
        retries = [0]
        steps = 0
        while t.in_play():
            steps += 1
            if steps > 2000:
                raise RuntimeError(f"hand {number} is stuck: {t.message}")
            if planned is not None and steps >= planned[0]:
                self._inject(planned[1])
                planned = None
            if t.paused:
                await self._answer_prompts(retries)
                continue
            if t.halted:
                if not await stack.camera_misread_ruling():
                    raise RuntimeError(f"hand {number} halted: {t.message}")
                continue
            if not await stack.step(players):
                await asyncio.sleep(0.005)
        return planned

    def _ended(self, number: int, first_deck: int) -> None:
        t = self.stack.table
        self.stats.hands += 1
        self._check_cards(number, first_deck)
        status = t.history()[-1].status if t.history() else "?"
        if status == "void" and not {number, number - 1} & self._fault_hands:
            # The rules void a hand for a device fault the dealer cannot clear, or a misdeal; not for nothing.
            self.stats.unexpected_voids += 1
            self.stats.findings.append(f"hand {number} was voided although no device failed in it or the hand "
                                       f"before ({t.message})")

    def _check_cards(self, number: int, first_deck: int) -> None:
        """The cards the journal holds for this hand are the ones that left the shoe, in order, once each."""
        stack = self.stack
        assert stack.journal is not None
        facts = hand_facts(stack.journal.entries()).get(number)
        physical = [c for deck in self.control("decks", first=first_deck) for c in deck]
        if facts is None:
            self.stats.findings.append(f"hand {number}: not in the journal")
            return
        if facts.dealt != physical:
            self.stats.findings.append(f"hand {number}: journal cards {facts.dealt} != shoe cards {physical}")
        if len(set(facts.dealt)) != len(facts.dealt):
            self.stats.findings.append(f"hand {number}: a card delivered twice")

    async def run(self, until: int) -> None:
        stack = self.stack
        await stack.seat_players()
        await self.finish_resumed_hand()
        while len(stack.table.history()) < until:
            await self.play_hand()
            self.stats.camera_dropouts = stack.camera_dropouts
            self.stats.camera_misreads = stack.camera_misreads
            _emit({"hand": stack.table.hand_no, "history": len(stack.table.history()),
                   "status": stack.table.history()[-1].status, "stats": vars(self.stats)})


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def _main(args: argparse.Namespace) -> int:
    options = StackOptions(data=Path(args.data), seed=args.seed, players=args.players, camera=not args.no_camera,
                           camera_dropout=args.camera_dropout,
                           shoe_state=Path(args.shoe_state) if args.shoe_state else None)
    stack = LiveStack(options)
    await stack.start()
    try:
        if args.garble:
            assert stack.shoe is not None
            stack.shoe.call("garble", rate=args.garble)
        _emit({"started": True, "recovered_void": stack.voided_at_start, "resumed": stack.resumed_at_start,
               "history": len(stack.table.history())})
        queue = [f for f in args.faults.split(",") if f] if args.faults else []
        soak = SoakTable(stack, rng=random.Random(args.seed), fault_rate=args.fault_rate, void_rate=args.void_rate,
                         queue=queue)
        await soak.run(args.until)
        _emit({"done": True, "history": len(stack.table.history()), "stats": vars(soak.stats)})
    finally:
        await stack.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m table_controller.soak.worker")
    p.add_argument("--data", required=True)
    p.add_argument("--until", type=int, required=True, help="stop when the table's history holds this many hands")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--garble", type=float, default=0.01)
    p.add_argument("--fault-rate", type=float, default=0.3)
    p.add_argument("--void-rate", type=float, default=0.1)
    p.add_argument("--camera-dropout", type=float, default=0.2)
    p.add_argument("--no-camera", action="store_true")
    p.add_argument("--shoe-state", help="state file of the soak's shoe process (default: a simulator in-process)")
    p.add_argument("--faults", default="", help=f"faults to inject first, one a hand: {','.join(FAULTS)}")
    args = p.parse_args(argv)
    return asyncio.run(_main(args))


if __name__ == "__main__":
    sys.exit(main())
