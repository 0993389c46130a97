"""The examples in docs/hand-record.md replay to the results printed beside them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from table_controller.engine.record import ReplayError, replay

DOC = Path(__file__).resolve().parents[2] / "docs" / "hand-record.md"
_BLOCK = re.compile(r"<!-- (example|result): (\w+) -->\s*```json\n(.*?)```", re.S)


def _blocks() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for kind, name, body in _BLOCK.findall(DOC.read_text(encoding="utf-8")):
        found.setdefault(name, {})[kind] = json.loads(body)
    return found


EXAMPLES = _blocks()


def test_the_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 3
    assert all(set(v) == {"example", "result"} for v in EXAMPLES.values())


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_doc_example_replays_as_documented(name: str) -> None:
    record, expected = EXAMPLES[name]["example"], EXAMPLES[name]["result"]
    if "error" in expected:
        with pytest.raises(ReplayError) as exc:
            replay(record)
        assert exc.value.to_json()["error"]["action_index"] == expected["error"]["action_index"]
        assert exc.value.code == expected["error"]["code"]
        return
    result = replay(record)
    for key, value in expected.items():
        assert result[key] == value, key
