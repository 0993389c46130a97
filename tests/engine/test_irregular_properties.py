"""Property tests for irregularities: no sequence of reports (sensible or not) breaks chip or card conservation,
leaves a hand stuck, or changes anything when refused; a hand with reports replays from its record."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.engine.errors import IllegalActionError
from table_controller.engine.hand import Hand
from table_controller.engine.irregular import FLOOR_KINDS, REPORT_KINDS
from table_controller.engine.machine import DEALER_ACTS, Phase
from table_controller.engine.record import replay
from table_controller.engine.simulate import random_step
from tests.engine.helpers import random_hand, random_report

SETTINGS = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def _total(hand: Hand) -> int:
    return sum(hand.stacks().values()) + (hand.carried_pot if hand.is_over else hand.pot)


def _snapshot(hand: Hand) -> Any:
    return (hand.result(), hand.phase, hand.to_act, len(hand.actions), hand.card_identities())


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), rate=st.integers(1, 4))
def test_reports_never_break_conservation_or_leave_a_hand_stuck(seed: int, rate: int) -> None:
    rng = random.Random(seed)
    hand, truth = random_hand(rng)
    total = _total(hand)
    applied = 0
    steps = 0
    while not hand.is_over:
        steps += 1
        assert steps < 400, "the hand did not end"
        if rng.randrange(rate + 1) == 0:
            report = random_report(hand, rng, truth)
            entry = hand.floor_ruling if report.kind in FLOOR_KINDS else hand.irregularity
            before = _snapshot(hand)
            try:
                entry(report)
                applied += 1
            except IllegalActionError as exc:
                assert exc.code and exc.message
                assert _snapshot(hand) == before, "a refused report changed the hand"
        else:
            random_step(hand, rng, truth=truth)
        assert _total(hand) == total
        if not hand.is_over:
            legal = hand.legal_actions()
            assert legal.acts, legal
            assert legal.seat is not None or legal.phase in (Phase.RESHUFFLING, *DEALER_ACTS)
    # The record, reports included, replays to the same result.
    assert replay(hand.to_record()) == hand.result()


def test_the_random_reports_exercise_every_remedy() -> None:
    """The generator above is not all nonsense: over a fixed run every kind of report is accepted somewhere."""
    rng = random.Random(2026)
    accepted: set[str] = set()
    for _ in range(600):
        hand, truth = random_hand(rng)
        while not hand.is_over:
            if rng.random() < 0.4:
                report = random_report(hand, rng, truth)
                entry = hand.floor_ruling if report.kind in FLOOR_KINDS else hand.irregularity
                try:
                    entry(report)
                    accepted.add(report.kind)
                    continue
                except IllegalActionError:
                    pass
            random_step(hand, rng, truth=truth)
    assert accepted == {*REPORT_KINDS, *FLOOR_KINDS}
