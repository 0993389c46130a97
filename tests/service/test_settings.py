from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.engine.config import Betting, GameConfig, GameForm
from table_controller.service.settings import ConfigError, load_settings, table_game


def test_defaults_are_the_documented_ones() -> None:
    s = load_settings()
    assert (s.host, s.port, s.shoe, s.camera) == ("127.0.0.1", 8000, None, None)
    assert s.data == Path("./cardtable-data")
    assert s.game.form is GameForm.JACKPOTS and s.game.betting is Betting.FIXED_LIMIT
    assert (s.game.stakes.ante, s.game.stakes.small_bet, s.game.stakes.big_bet, s.game.stakes.cap) == (1, 2, 4, 4)


def test_config_file_then_flags(tmp_path: Path) -> None:
    cfg = tmp_path / "table.json"
    cfg.write_text(json.dumps({"port": 9001, "table_name": "Blue",
                               "game": {"form": "five_card_draw", "stakes": {"ante": 1, "min_bet": 5}}}))
    s = load_settings(cfg, port=9100, host=None, game={"betting": "no_limit"})
    assert s.port == 9100  # the flag wins over the file
    assert s.table_name == "Blue"
    # The game is merged key by key (the file's form and stakes, the flag's betting) and validated as a whole
    # into the engine's own configuration, which the controller hands to the engine as it is.
    assert isinstance(s.game, GameConfig)
    assert (s.game.form, s.game.betting, s.game.stakes.min_bet) == (GameForm.FIVE_CARD_DRAW, Betting.NO_LIMIT, 5)
    assert s.game.options.refuse_false_open is False  # a live table never refuses an open (hole cards are secret)
    # Written back, it is the config file's JSON shape again (the stakes and options that differ from the engine's).
    assert s.model_dump(mode="json")["game"] == {"form": "five_card_draw", "betting": "no_limit",
                                                 "stakes": {"ante": 1, "min_bet": 5},
                                                 "options": {"refuse_false_open": False}}


def test_a_game_the_engine_cannot_deal_fails_at_load(tmp_path: Path) -> None:
    # The file's fixed-limit stakes under the flag's no limit: no minimum bet, so no hand could be dealt.
    cfg = tmp_path / "table.json"
    cfg.write_text(json.dumps({"game": {"form": "five_card_draw", "stakes": {"small_bet": 2, "big_bet": 4}}}))
    with pytest.raises(ConfigError) as info:
        load_settings(cfg, game={"betting": "no_limit"})
    assert info.value.exit_code == 2
    assert "\n" not in info.value.message
    assert "game" in info.value.message and "no_limit needs a positive stakes.min_bet" in info.value.message


def test_cardtable_run_refuses_an_undealable_game_with_one_line(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "table.json"
    cfg.write_text(json.dumps({"game": {"form": "jackpots", "betting": "spread_limit",
                                        "stakes": {"min_bet": 10, "max_bet": 5}}}))
    assert main(["run", "--config", str(cfg), "--data", str(tmp_path / "data")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "spread_limit needs 0 < stakes.min_bet <= stakes.max_bet" in line
    assert not (tmp_path / "data").exists()  # refused before anything was opened


def test_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDTABLE_PORT", "8123")
    assert load_settings().port == 8123


def test_a_game_from_the_environment_is_the_engine_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDTABLE_GAME", '{"form": "five_card_draw", "betting": "pot_limit", "stakes": {"min_bet": 3}}')
    game = load_settings().game
    assert (game.form, game.betting, game.stakes.min_bet, game.stakes.ante) == (GameForm.FIVE_CARD_DRAW,
                                                                               Betting.POT_LIMIT, 3, 0)
    monkeypatch.setenv("CARDTABLE_GAME", '{"form": "five_card_draw", "betting": "pot_limit"}')
    with pytest.raises(ConfigError, match=r"pot_limit needs a positive stakes\.min_bet"):
        load_settings()


def test_table_game_names_the_game_in_its_error() -> None:
    assert table_game({"form": "pass_and_out"}).form is GameForm.PASS_AND_OUT
    with pytest.raises(ConfigError, match=r"^bad game: game\.stakes\.ante: Input should be greater than or equal"):
        table_game({"stakes": {"ante": -1, "small_bet": 2, "big_bet": 4}})
    with pytest.raises(ConfigError, match=r"^bad game: game: this game cannot be dealt: fixed_limit needs"):
        table_game({"stakes": {}})


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
        ('{"game": {"stakes": {"antes": 1}}}', "game.stakes.antes"),
        ('{"game": {"form": "lowball"}}', "game.form"),
        ('{"game": {"options": {"odd_chip": "to_the_house"}}}', "game.options.odd_chip"),
        ('{"game": {"options": {"refuse_false_open": true}}}', "refuse_false_open cannot be on"),
        ('{"game": {"betting": "pot_limit"}}', "pot_limit needs a positive stakes.min_bet"),
        ('{"game": "jackpots"}', "game"),
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


@pytest.mark.parametrize(("value", "needle"), [
    ("{not json", "CARDTABLE_GAME is not JSON"),
    ("[" * 20_000 + "]" * 20_000, "CARDTABLE_GAME: nested more than"),
    ('{"stakes": {"ante": ' + "9" * 5000 + "}}", "CARDTABLE_GAME: an integer of 5000 digits"),
])
def test_a_broken_json_environment_variable_is_a_config_error(monkeypatch: pytest.MonkeyPatch, value: str,
                                                              needle: str, capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    monkeypatch.setenv("CARDTABLE_GAME", value)
    with pytest.raises(ConfigError, match="bad table settings: environment variable ") as info:
        load_settings()
    assert needle in info.value.message
    assert main(["run", "--data", str(tmp_path / "data")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert needle in line


@pytest.mark.parametrize(("field", "value"), [
    ("pace_s", "Infinity"), ("pace_s", "1e308"), ("broadcast_delay_s", "1e308"), ("camera_period_s", "1e-300"),
    ("camera_period_s", "1e308"),
])
def test_seconds_a_clock_cannot_wait_are_refused(monkeypatch: pytest.MonkeyPatch, field: str, value: str) -> None:
    monkeypatch.setenv(f"CARDTABLE_{field.upper()}", value)
    with pytest.raises(ConfigError, match=f"^bad table settings: {field}: Input should be"):
        load_settings()


def test_an_endless_pace_stops_the_demo_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--hands", "1", "--pace", "inf", "--data", str(tmp_path / "data")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "pace_s: Input should be less than or equal to 60" in line


def test_a_buy_in_the_journal_could_not_keep_the_winnings_of_is_refused(tmp_path: Path) -> None:
    """At buy_in_max 2**53 - 1 two stacks called all in and the result (2**54 - 2) failed its journal write."""
    cfg = tmp_path / "table.json"
    cfg.write_text(json.dumps({"buy_in_max": 2**53 - 1}))
    with pytest.raises(ConfigError, match="buy_in_max: Input should be less than or equal to 1000000000"):
        load_settings(cfg)
    cfg.write_text(json.dumps({"buy_in_max": 10**9}))
    assert load_settings(cfg).buy_in_max == 10**9


@pytest.mark.parametrize(("game", "needle"), [
    ({"stakes": {"ante": 10**17, "small_bet": 2, "big_bet": 4, "cap": 4}}, "game: stakes.ante is 100000000000000000"),
    ({"stakes": {"ante": 1, "small_bet": 10**17, "big_bet": 2 * 10**17}}, "game: stakes.small_bet is"),
    ({"options": {"straddle_limit": 10**17}}, "game: options.straddle_limit is"),
])
def test_a_stake_no_hand_record_could_keep_is_refused(tmp_path: Path, game: dict[str, object], needle: str) -> None:
    """An ante of 10**17 paused the first hand on a failed journal write, and its record was not kept."""
    cfg = tmp_path / "table.json"
    cfg.write_text(json.dumps({"game": game}))
    with pytest.raises(ConfigError) as info:
        load_settings(cfg)
    assert needle in info.value.message and "at most 1000000000" in info.value.message


def test_a_table_name_is_a_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name of 100,000 characters went out in every view and every stream message."""
    monkeypatch.setenv("CARDTABLE_TABLE_NAME", "a" * 100_000)
    with pytest.raises(ConfigError, match="table_name: String should have at most 80 characters"):
        load_settings()


@pytest.mark.parametrize("field", ["data", "db", "host", "table_name", "shoe", "camera", "camera_calibration"])
def test_a_control_character_in_a_setting_is_named(tmp_path: Path, field: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A NUL in data or db stopped the start as 'embedded null byte' (exit 1), in host with a traceback."""
    cfg = tmp_path / "table.json"
    cfg.write_text(json.dumps({field: "postgresql://u:secret@127.0.0.1/x\u0000\u001b[31m"}))
    with pytest.raises(ConfigError, match=f"{field}: holds a control character") as info:
        load_settings(cfg)
    assert "secret" not in info.value.message
    data = [] if field == "data" else ["--data", str(tmp_path / "d")]  # a flag would stand in for the file's
    assert main(["run", "--port", "0", "--config", str(cfg), *data]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "holds a control character" in line
