"""Helpers of the service tests: the role tokens of the test app and the headers that carry them."""

from __future__ import annotations

from table_controller.service.roles import RoleTokens

TOKENS = RoleTokens(dealer="dealer-secret-token", floor="floor-secret-token", broadcast="bcast-secret-token")
DEALER = {"Authorization": "Bearer dealer-secret-token"}
FLOOR = {"Authorization": "Bearer floor-secret-token"}
