"""Role tokens kept in the data folder (mode 0600) so that bookmarked screens survive a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.service.settings import ConfigError, TableSettings
from table_controller.service.token_store import TOKENS_FILE, load_tokens
from tests.hostile_files import hostile_file


def test_generated_tokens_are_kept_private_and_read_back(tmp_path: Path) -> None:
    settings = TableSettings(data=tmp_path)
    first = load_tokens(settings)
    path = tmp_path / TOKENS_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    assert json.loads(path.read_text()) == {"dealer": first.dealer, "floor": first.floor,
                                            "broadcast": first.broadcast}
    again = load_tokens(TableSettings(data=tmp_path))
    assert again == first
    assert len({first.dealer, first.floor, first.broadcast}) == 3


def test_a_token_the_config_sets_wins_and_is_not_written(tmp_path: Path) -> None:
    kept = load_tokens(TableSettings(data=tmp_path))
    chosen = load_tokens(TableSettings(data=tmp_path, floor_token="floor-from-config-0123456789"))
    assert chosen.floor == "floor-from-config-0123456789"
    assert chosen.dealer == kept.dealer and chosen.broadcast == kept.broadcast
    assert "floor-from-config" not in (tmp_path / TOKENS_FILE).read_text()


def test_a_file_left_readable_by_others_is_closed_again(tmp_path: Path) -> None:
    first = load_tokens(TableSettings(data=tmp_path))
    (tmp_path / TOKENS_FILE).chmod(0o644)
    assert load_tokens(TableSettings(data=tmp_path)) == first
    assert (tmp_path / TOKENS_FILE).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"floor": 7}', '{"floor": ""}'])
def test_a_broken_token_file_is_a_config_error(tmp_path: Path, text: str) -> None:
    (tmp_path / TOKENS_FILE).write_text(text)
    with pytest.raises(ConfigError, match="token file"):
        load_tokens(TableSettings(data=tmp_path))


@pytest.mark.parametrize(("content", "needle"), [
    (b'{"floor": "\xff\xfe"}', "is not UTF-8 text"),
    (b"[" * 30_000 + b"]" * 30_000, "nested more than"),
    (b'{"floor": "' + b"a" * 1_000_000 + b'"}', "is larger than"),
    (None, "is larger than"),  # a link to /dev/zero
])
def test_a_hostile_token_file_is_a_config_error(tmp_path: Path, content: bytes | None, needle: str) -> None:
    hostile_file(tmp_path / TOKENS_FILE, content)
    with pytest.raises(ConfigError, match="token file") as info:
        load_tokens(TableSettings(data=tmp_path))
    assert needle in info.value.message and "delete it to make new tokens" in info.value.message
