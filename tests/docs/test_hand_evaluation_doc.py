"""The examples in docs/hand-evaluation.md are true of the evaluator and the opening rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.engine.cards import parse_cards
from table_controller.engine.evaluate import describe, evaluate
from table_controller.engine.opening import OpeningRequirement, meets_requirement, proof

DOC = Path(__file__).resolve().parents[2] / "docs" / "hand-evaluation.md"


def _table_rows(header_start: str) -> list[list[str]]:
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().strip("`") for cell in line.strip().strip("|").split("|")])
    return rows


VALUE_ROWS = _table_rows("| hand | description | beats |")
OPENING_ROWS = _table_rows("| hand | requirement | bobtails |")


def test_doc_has_examples() -> None:
    assert len(VALUE_ROWS) >= 10 and len(OPENING_ROWS) >= 9


@pytest.mark.parametrize(("hand", "description", "beaten"), VALUE_ROWS, ids=[r[0] for r in VALUE_ROWS])
def test_value_examples(hand: str, description: str, beaten: str) -> None:
    value = evaluate(parse_cards(hand))
    assert describe(value) == description
    assert value > evaluate(parse_cards(beaten))


def test_tie_example() -> None:
    assert evaluate(parse_cards("Ac Kd Qh Js 9c")) == evaluate(parse_cards("As Kc Qd Jh 9s"))


@pytest.mark.parametrize(("hand", "requirement", "bobtails", "opens", "shown"), OPENING_ROWS,
                         ids=[f"{r[0]}-{r[1]}-{r[2]}" for r in OPENING_ROWS])
def test_opening_examples(hand: str, requirement: str, bobtails: str, opens: str, shown: str) -> None:
    cards = parse_cards(hand)
    req = OpeningRequirement(requirement)
    allowed = bobtails == "yes"
    assert meets_requirement(cards, req, bobtail_allowed=allowed) is (opens == "yes")
    got = proof(cards, req, bobtail_allowed=allowed)
    if opens == "yes":
        assert got is not None
        assert sorted(got) == sorted(parse_cards(shown)) if shown else got == ()
    else:
        assert got is None
