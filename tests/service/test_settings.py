from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.service.settings import ConfigError, load_settings


def test_defaults_are_the_documented_ones() -> None:
    s = load_settings()
    assert (s.host, s.port, s.shoe, s.camera) == ("127.0.0.1", 8000, None, None)
    assert s.data == Path("./cardtable-data")
    assert s.game.form == "jackpots" and s.game.betting == "fixed_limit"


def test_config_file_then_flags(tmp_path: Path) -> None:
    cfg = tmp_path / "table.json"
    cfg.write_text(json.dumps({"port": 9001, "table_name": "Blue", "game": {"form": "five_card_draw"}}))
    s = load_settings(cfg, port=9100, host=None, game={"betting": "no_limit"})
    assert s.port == 9100  # the flag wins over the file
    assert s.table_name == "Blue"
    assert (s.game.form, s.game.betting) == ("five_card_draw", "no_limit")


def test_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDTABLE_PORT", "8123")
    assert load_settings().port == 8123


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "one JSON object"),
        ('{"port": "eighty"}', "port"),
        ('{"seats": 12}', "seats"),
        ('{"colour": "red"}', "colour"),
        ('{"buy_in_min": 50, "buy_in_max": 10}', "buy_in_max"),
        ('{"game": {"form": "jackpots", "speed": 3}}', "game.speed"),
    ],
)
def test_broken_config_is_a_clear_config_error(tmp_path: Path, text: str, needle: str) -> None:
    cfg = tmp_path / "bad.json"
    cfg.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(cfg)
    assert needle in info.value.message
    assert info.value.exit_code == 2


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_settings(tmp_path / "absent.json")
