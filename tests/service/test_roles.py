from __future__ import annotations

from table_controller.service.roles import Role, RoleTokens
from table_controller.service.settings import TableSettings


def test_generated_tokens_are_distinct_and_long() -> None:
    a = RoleTokens.from_settings(TableSettings())
    b = RoleTokens.from_settings(TableSettings())
    tokens = {a.dealer, a.floor, a.broadcast, b.dealer, b.floor, b.broadcast}
    assert len(tokens) == 6
    assert all(len(t) >= 20 for t in tokens)


def test_tokens_from_settings_are_kept() -> None:
    t = RoleTokens.from_settings(TableSettings(floor_token="f" * 24))
    assert t.floor == "f" * 24
    assert t.role_of("f" * 24) is Role.FLOOR


def test_role_of_and_grants() -> None:
    t = RoleTokens(dealer="d", floor="f", broadcast="b")
    assert t.role_of(None) is Role.PUBLIC
    assert t.role_of("") is Role.PUBLIC
    assert t.role_of("nope") is Role.PUBLIC
    assert t.role_of("d") is Role.DEALER
    assert t.role_of("b") is Role.BROADCAST
    assert RoleTokens.may(Role.FLOOR, Role.DEALER)
    assert not RoleTokens.may(Role.DEALER, Role.FLOOR)
    assert not RoleTokens.may(Role.BROADCAST, Role.DEALER)
    assert not RoleTokens.may(Role.DEALER, Role.BROADCAST)
    assert not RoleTokens.may(Role.PUBLIC, Role.DEALER)
