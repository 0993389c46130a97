from __future__ import annotations

import pytest

from table_controller.service.roles import Role, RoleTokens
from table_controller.service.settings import ConfigError, TableSettings, load_settings


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
    d, f, b = "d" * 16, "f" * 16, "b" * 16
    t = RoleTokens(dealer=d, floor=f, broadcast=b)
    assert t.role_of(None) is Role.PUBLIC
    assert t.role_of("") is Role.PUBLIC
    assert t.role_of("nope") is Role.PUBLIC
    assert t.role_of(d) is Role.DEALER
    assert t.role_of(b) is Role.BROADCAST
    assert RoleTokens.may(Role.FLOOR, Role.DEALER)
    assert not RoleTokens.may(Role.DEALER, Role.FLOOR)
    assert not RoleTokens.may(Role.BROADCAST, Role.DEALER)
    assert not RoleTokens.may(Role.DEALER, Role.BROADCAST)
    assert not RoleTokens.may(Role.PUBLIC, Role.DEALER)


@pytest.mark.parametrize(("given", "why"), [
    ({"dealer_token": "short"}, "shorter than 16"),
    ({"dealer_token": "s" * 20, "floor_token": "s" * 20}, "dealer_token and floor_token are the same"),
    ({"broadcast_token": "with space " * 2}, "characters a header cannot carry"),
])
def test_a_weak_or_shared_token_is_refused_at_start(given: dict[str, str], why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        load_settings(**given)
    with pytest.raises(ConfigError, match="same"):
        RoleTokens(dealer="x" * 16, floor="x" * 16, broadcast="y" * 16)
