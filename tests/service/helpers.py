"""Helpers of the service tests: the role tokens of the test app and the headers that carry them."""

from __future__ import annotations

from table_controller.service.roles import RoleTokens

TOKENS = RoleTokens(dealer="dealer-secret", floor="floor-secret", broadcast="bcast-secret")
DEALER = {"Authorization": "Bearer dealer-secret"}
FLOOR = {"Authorization": "Bearer floor-secret"}
