"""Every `api-example` block of docs/api.md, run in order against a fresh table."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fastapi.testclient import TestClient

from tests.service.helpers import DEALER, FLOOR

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
BLOCK = re.compile(r"```api-example\n(.*?)```", re.S)
HEAD = re.compile(r"^(GET|POST|DELETE) (\S+) (public|dealer|floor) -> (\d{3})$")


def test_docs_api_examples(client: TestClient) -> None:
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 15
    headers = {"public": {}, "dealer": DEALER, "floor": FLOOR}
    for block in blocks:
        first, _, rest = block.partition("\n")
        m = HEAD.match(first.strip())
        assert m, f"bad example header: {first!r}"
        method, path, role, status = m.groups()
        body = json.loads(rest) if rest.strip() else None
        r = client.request(method, path, json=body, headers=headers[role])
        assert r.status_code == int(status), f"{first}: {r.status_code} {r.text[:300]}"
        if r.status_code >= 400:
            assert r.json()["error"]["message"]
