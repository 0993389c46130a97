"""Hand-evaluator speed: our scalar and numpy batch paths beside treys, phevaluator and eval7.

Every system evaluates the same random five-card hands in the same run. Cards are converted to each
library's own representation before the clock starts, so the figures are evaluation only. Each figure is
the best of a few repeats (the least disturbed by other work on the machine).

    .venv/bin/python -m bench.evaluator [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from bench._report import OURS, BenchRow, machine_line, to_markdown
from table_controller.engine.cards import card_str
from table_controller.engine.evaluate import evaluate, evaluate5, evaluate_batch

AREA = "evaluator"
METRIC_SCALAR = "5-card evaluations/s, one call per hand"
METRIC_BATCH = "5-card evaluations/s, batch"
UNIT = "hands/s"
_SEED = 20260303  # the benchmark's hands are reproducible; play never uses this


def random_hands(count: int, seed: int = _SEED) -> npt.NDArray[np.uint8]:
    """``count`` hands of five distinct cards, uniformly at random, as an (N, 5) uint8 array."""
    rng = np.random.default_rng(seed)
    hands = np.empty((count, 5), dtype=np.uint8)
    chunk = 200_000
    for start in range(0, count, chunk):
        n = min(chunk, count - start)
        # The five smallest of 52 random keys are a uniform draw of five distinct cards.
        keys = rng.random((n, 52), dtype=np.float32)
        hands[start : start + n] = np.argpartition(keys, 5, axis=1)[:, :5]
    return hands


def _best_rate(work: Callable[[], object], count: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return count / best


def _scalar_systems(hands: list[list[int]]) -> list[tuple[str, str, Callable[[], object]]]:
    """(system, note, work) for each one-call-per-hand evaluator available here."""
    systems: list[tuple[str, str, Callable[[], object]]] = []

    def ours_unchecked() -> None:
        for a, b, c, d, e in hands:
            evaluate5(a, b, c, d, e)

    def ours_checked() -> None:
        for hand in hands:
            evaluate(hand)

    systems.append((OURS, "evaluate5(a, b, c, d, e): no validation", ours_unchecked))
    systems.append((OURS, "evaluate(cards): validates count, range, duplicates", ours_checked))

    codes = [card_str(c) for c in range(52)]
    try:
        import treys
    except ImportError:  # pragma: no cover - the reference systems are dev dependencies
        pass
    else:
        tc = [treys.Card.new(code) for code in codes]
        treys_hands = [[tc[c] for c in hand] for hand in hands]
        evaluator: Any = treys.Evaluator()
        five = evaluator._five

        def treys_public() -> None:
            for h in treys_hands:
                evaluator.evaluate(h[:2], h[2:])

        def treys_five() -> None:
            for h in treys_hands:
                five(h)

        systems.append(("treys", "Evaluator.evaluate(hand, board)", treys_public))
        systems.append(("treys", "Evaluator._five(cards): its internal 5-card path", treys_five))
    try:
        from phevaluator import evaluate_cards
    except ImportError:  # pragma: no cover
        pass
    else:
        # phevaluator numbers cards as we do (rank * 4 + suit, clubs diamonds hearts spades).
        def phevaluator_run() -> None:
            for a, b, c, d, e in hands:
                evaluate_cards(a, b, c, d, e)

        systems.append(("phevaluator", "evaluate_cards(a, b, c, d, e) (C core via Python wrapper)", phevaluator_run))
    try:
        import eval7
    except ImportError:  # pragma: no cover
        pass
    else:
        ec = [eval7.Card(code) for code in codes]
        eval7_hands = [[ec[c] for c in hand] for hand in hands]
        eval7_evaluate = eval7.evaluate

        def eval7_run() -> None:
            for h in eval7_hands:
                eval7_evaluate(h)

        systems.append(("eval7", "evaluate(cards) (Cython extension)", eval7_run))
    return systems


def run(quick: bool) -> list[BenchRow]:
    """Measure every evaluator on the same hands; quick runs are short enough for CI."""
    scalar_count = 20_000 if quick else 300_000
    batch_count = 200_000 if quick else 5_000_000
    repeats = 2 if quick else 5
    rows: list[BenchRow] = []

    batch_hands = random_hands(batch_count)
    evaluate_batch(batch_hands[:1000])  # first touch of the tables
    rate = _best_rate(lambda: evaluate_batch(batch_hands), batch_count, repeats)
    rows.append(
        BenchRow(
            area=AREA,
            metric=METRIC_BATCH,
            system=OURS,
            value=rate,
            unit=UNIT,
            note=f"evaluate_batch on an ({batch_count:,}, 5) uint8 array, numpy, one thread",
        )
    )

    scalar_hands = batch_hands[:scalar_count].tolist()
    for system, note, work in _scalar_systems(scalar_hands):
        work_rate = _best_rate(work, scalar_count, repeats)
        rows.append(BenchRow(area=AREA, metric=METRIC_SCALAR, system=system, value=work_rate, unit=UNIT, note=note))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.evaluator", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs, for CI")
    args = parser.parse_args(argv)
    sys.stdout.write(f"Machine: {machine_line()}\n\n{to_markdown(run(quick=args.quick))}\n")
    return 0


if __name__ == "__main__":
    from table_controller.cli.closed_pipe import quiet_on_closed_pipe

    raise SystemExit(quiet_on_closed_pipe(main))
