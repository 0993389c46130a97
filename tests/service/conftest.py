from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.settings import TableSettings
from tests.service.helpers import TOKENS


@pytest.fixture
def journal() -> MemoryJournal:
    return MemoryJournal()


@pytest.fixture
def controller(journal: MemoryJournal) -> TableController:
    settings = TableSettings(broadcast_delay_s=0.0, pace_s=0.0)
    return TableController(settings, shoe=VirtualShoe(seed=7), journal=journal)


@pytest.fixture
def client(controller: TableController) -> Iterator[TestClient]:
    registry = TableRegistry([controller], tokens=TOKENS, broadcast_delay_s=0.0)
    with TestClient(create_app(registry)) as c:
        yield c
