"""Rules engine speed: random complete hands of fixed-limit five-card draw per second, ours beside PokerKit.

Both engines play the same kind of hand in the same run: three to six players, antes, fixed limit with a
cap of four, random legal acts (check, call, bet or raise, fold, draws of 0-4 cards) until the pot is
awarded. Ours runs with the full rules on (the invariant checks after every act, the transition table,
the event record, the legal-action view before every act). Run with ``cardtable bench --only engine``.

Both random players draw their choices from :class:`QuickRandom`, whose ``randrange`` is one multiplication
(the standard one takes several Python-level calls, which would weigh on the faster engine's figure and
say nothing about either engine). The 52-card deck is shuffled by the standard ``random.shuffle`` on both
sides: PokerKit shuffles inside its ``State``, ours in the bench (the shoe's part at a real table).
The notes give the mean acts per hand of each engine, to show that both play the same kind of hand, and the
CPU time per hand (process time over the same bursts), which other work on a shared machine disturbs less
than hands per second; the speed-up row gives the ratio both ways.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._report import GOAL, OURS, BenchRow
from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, Stakes
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.simulate import random_step, shuffled

NATIVE = f"{OURS}, native build"
#: Issue 3: at least ten times PokerKit's random complete hands per second, with the full rules on.
SPEED_UP_GOAL = 10.0
STAKES = Stakes(ante=1, small_bet=2, big_bet=4, cap=4)
CONFIG = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=Betting.FIXED_LIMIT, stakes=STAKES)
CODES = [card_str(c) for c in FULL_DECK]


class QuickRandom(random.Random):
    """``random.Random`` with a one-step ``randrange(n)`` for the players' many small choices."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None and step == 1 and start > 0:
            return int(self.random() * start)
        return super().randrange(start, stop, step)


def ours_one(rng: random.Random) -> int:
    """One random hand in our engine; returns the number of acts played."""
    n = 3 + rng.randrange(4)
    deck = list(CODES)
    rng.shuffle(deck)
    hand = Hand(CONFIG, [SeatSpec(seat=k + 1, stack=200) for k in range(n)], n, deck=deck)
    acts = 0
    while not hand.is_over:
        if hand.legal_actions().seat is not None:  # a player's act: PokerKit deals, burns and serves by itself
            acts += 1
        random_step(hand, rng, mucks=False)
    return acts


def pokerkit_one(rng: random.Random) -> int:
    """One random hand in PokerKit; returns the number of acts played (PokerKit shows the hands itself)."""
    import pokerkit as pk

    n = 3 + rng.randrange(4)
    acts = 0
    automations = (pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.BLIND_OR_STRADDLE_POSTING,
                   pk.Automation.CARD_BURNING, pk.Automation.HOLE_DEALING, pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
                   pk.Automation.HAND_KILLING, pk.Automation.CHIPS_PUSHING, pk.Automation.CHIPS_PULLING)
    streets = (pk.Street(False, (False,) * 5, 0, False, pk.Opening.POSITION, 2, 4),
               pk.Street(True, (), 0, True, pk.Opening.POSITION, 4, 4))
    state: Any = pk.State(automations, pk.Deck.STANDARD, (pk.StandardHighHand,), streets,
                          pk.BettingStructure.FIXED_LIMIT, True, 1, (), 0, (200,) * n, n, mode=pk.Mode.CASH_GAME)
    while state.status:
        acts += 1
        if state.can_stand_pat_or_discard():
            cards = shuffled(rng, state.hole_cards[state.stand_patter_or_discarder_index])
            state.stand_pat_or_discard(cards[: rng.randrange(5)])
        elif state.actor_index is not None:
            roll = rng.randrange(10)
            if roll < 3 and state.can_complete_bet_or_raise_to():
                state.complete_bet_or_raise_to()
            elif roll == 9 and state.can_fold():
                state.fold()
            else:
                state.check_or_call()
        else:  # nothing left to do by hand: a safety valve against a stuck state
            break
    return acts


Player = Callable[[random.Random], int]
Burst = Callable[[float], tuple[int, int, float, float]]  # seconds -> hands, acts, wall seconds, CPU seconds


def _burst(play: Player, rng: random.Random, seconds: float) -> tuple[int, int, float, float]:
    """Hands, acts, wall seconds and CPU seconds of one burst of about ``seconds``."""
    hands = acts = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while True:
        for _ in range(10):
            acts += play(rng)
        hands += 10
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return hands, acts, elapsed, time.process_time() - cpu_started


def _in_process(play: Player) -> Burst:
    rng = QuickRandom(2024)
    return lambda seconds: _burst(play, rng, seconds)


class NativeWorker:
    """Our engine's native build (bench/native.py) playing bursts in a child process, on request: the child reads
    one line (the seconds of a burst) and answers one JSON line, so its bursts alternate with the others'."""

    def __init__(self, build_dir: Path) -> None:
        from bench.native import NativeBuildError, environment

        self._proc = subprocess.Popen([sys.executable, "-m", "bench.engine", "--worker"], cwd=build_dir,
                                      env=environment(build_dir), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True)
        hello = self._read()
        if hello != {"native": True}:
            self.close()
            raise NativeBuildError(f"the native worker in {build_dir} does not run the compiled engine: {hello}")

    def _read(self) -> Any:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the native worker stopped (exit {self._proc.wait()})")
        return json.loads(line)

    def __call__(self, seconds: float) -> tuple[int, int, float, float]:
        assert self._proc.stdin is not None
        self._proc.stdin.write(f"{seconds}\n")
        self._proc.stdin.flush()
        hands, acts, elapsed, cpu = self._read()
        return int(hands), int(acts), float(elapsed), float(cpu)

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)


def _worker() -> None:
    """The child side of :class:`NativeWorker`."""
    from bench.native import is_native_engine

    print(json.dumps({"native": is_native_engine()}), flush=True)
    burst = _in_process(ours_one)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for line in sys.stdin:
            print(json.dumps(burst(float(line))), flush=True)


@dataclass(kw_only=True)
class Rate:
    hands: int = 0
    acts: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.hands / self.seconds

    @property
    def acts_per_hand(self) -> float:
        return self.acts / self.hands

    @property
    def cpu_us_per_hand(self) -> float:
        """CPU time per hand in microseconds: less sensitive than hands/s to other work on a shared machine."""
        return self.cpu_seconds / self.hands * 1e6


def _rates(bursts: list[Burst], seconds: float) -> list[Rate]:
    """Hands per second of each player, measured in alternating short bursts so that all see the same load
    on a shared machine."""
    totals = [Rate() for _ in bursts]
    rounds = 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns on a fold that could have checked
        for _ in range(rounds):
            for k, burst in enumerate(bursts):
                hands, acts, elapsed, cpu = burst(seconds / rounds)
                totals[k].hands += hands
                totals[k].acts += acts
                totals[k].seconds += elapsed
                totals[k].cpu_seconds += cpu
    return totals


def _native_worker() -> tuple[NativeWorker | None, str]:
    """The native build's worker, or None and why not (the report says it)."""
    from bench.native import NativeBuildError, build

    started = time.perf_counter()
    try:
        build_dir = build()
        return NativeWorker(build_dir), f"built or found in {time.perf_counter() - started:.0f} s"
    except (NativeBuildError, OSError, RuntimeError) as exc:
        return None, f"{type(exc).__name__}: {exc}"[:300]


def run(quick: bool = False) -> list[BenchRow]:
    seconds = 1.0 if quick else 5.0
    metric = "random complete hands/s, fixed-limit five-card draw"
    bursts: list[Burst] = [_in_process(ours_one)]
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        has_pokerkit = False
    else:
        has_pokerkit = True
        bursts.append(_in_process(pokerkit_one))
    worker, why = _native_worker()
    if worker is not None:
        bursts.append(worker)
    try:
        rates = _rates(bursts, seconds)
    finally:
        if worker is not None:
            worker.close()
    ours = rates[0]
    rows = [BenchRow(area="engine", metric=metric, system=OURS, value=ours.per_second, unit="hands/s",
                     note="interpreted; " + _ours_note(ours))]
    native = rates[-1] if worker is not None else None
    if native is not None:
        rows.append(BenchRow(area="engine", metric=metric, system=NATIVE, value=native.per_second, unit="hands/s",
                             note=f"the same source compiled by mypyc (bench/native.py, {why}); " + _ours_note(native)))
    else:
        rows.append(BenchRow(area="engine", metric=metric, system=NATIVE, value=0, unit="hands/s",
                             note=f"not measured: {why}"))
    if not has_pokerkit:
        return rows
    theirs = rates[1]
    rows.append(BenchRow(area="engine", metric=metric, system="pokerkit", value=theirs.per_second, unit="hands/s",
                         note=f"{theirs.hands} hands, {theirs.acts_per_hand:.1f} acts each (showdown automated), "
                              f"{theirs.cpu_us_per_hand:.0f} us CPU per hand"))
    for system, rate in ((OURS, ours), (NATIVE, native)):
        if rate is None:
            continue
        rows.append(BenchRow(area="engine", metric="speed-up over PokerKit", system=system,
                             value=rate.per_second / theirs.per_second, unit="x",
                             note=f"alternating bursts, same run; by CPU time per hand: "
                                  f"{theirs.cpu_us_per_hand / rate.cpu_us_per_hand:.2f}x"))
    rows.append(BenchRow(area="engine", metric="speed-up over PokerKit", system=GOAL, value=SPEED_UP_GOAL, unit="x"))
    return rows


def _ours_note(rate: Rate) -> str:
    return (f"{rate.hands} hands, {rate.acts_per_hand:.1f} acts each (incl. the showdown shows), "
            f"{rate.cpu_us_per_hand:.0f} us CPU per hand; invariants checked after every act")


if __name__ == "__main__":
    if "--worker" in sys.argv[1:]:
        _worker()
    else:
        from bench._report import to_markdown
        from table_controller.cli.closed_pipe import quiet_on_closed_pipe

        def report() -> int:
            print(to_markdown(run(quick="--full" not in sys.argv[1:])))
            return 0

        sys.exit(quiet_on_closed_pipe(report))
