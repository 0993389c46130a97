"""Settings of one live table: devices, storage, web server, game and the role tokens.

Sources, weakest first: defaults, environment variables ``CARDTABLE_*`` (for example
``CARDTABLE_PORT=8080``), the JSON file given with ``--config FILE``, then command-line flags. A file that
is not valid JSON or has a field of the wrong kind is a :class:`ConfigError` (exit code 2) naming the field,
never a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    Field,
    GetCoreSchemaHandler,
    GetPydanticSchema,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import core_schema
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from table_controller.bounded import BoundedInputError, loads, read_bounded
from table_controller.engine.config import GameConfig, HouseOptions, Stakes, config_to_json
from table_controller.engine.errors import ConfigError as EngineConfigError
from table_controller.engine.record import GameModel, config_from_model

__all__ = [
    "DEFAULT_GAME",
    "MIN_TOKEN_LENGTH",
    "ConfigError",
    "TableGame",
    "TableSettings",
    "load_settings",
    "table_game",
    "token_problems",
]

MAX_CONFIG_BYTES = 1024 * 1024
MAX_BUY_IN = 10**9

# A role token guessed is a role taken: at least 16 characters (a generated one has 24, 144 random bits).
MIN_TOKEN_LENGTH = 16


def token_problems(tokens: dict[str, str | None]) -> list[str]:
    """What is wrong with these role tokens (role -> token; None: generated at start)."""
    problems = [f"{role}_token is shorter than {MIN_TOKEN_LENGTH} characters" for role, token in tokens.items()
                if token is not None and len(token) < MIN_TOKEN_LENGTH]
    problems += [f"{role}_token has characters a header cannot carry (use letters, digits, '-', '_', '.', '~')"
                 for role, token in tokens.items() if token is not None and not _TOKEN_CHARS.match(token)]
    given = [(role, token) for role, token in tokens.items() if token is not None]
    for k, (role, token) in enumerate(given):
        for other, second in given[k + 1:]:
            if token == second:
                problems.append(f"{role}_token and {other}_token are the same: each role needs its own token")
    return problems


_TOKEN_CHARS = re.compile(r"^[A-Za-z0-9._~-]+$")


class ConfigError(Exception):
    """A configuration that cannot be used (bad file, bad field). Exit code 2: the operator's input."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# The stakes of a game given without any: fixed limit, 1 ante, 2/4 with a cap of four bets.
DEFAULT_STAKES: dict[str, int] = {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}


def _live_table_options(options: object) -> object:
    """The house options as a live table plays them: ``refuse_false_open`` is always off.

    Refusing an open that lacks openers would tell the dealer's screen (its legal acts) which players hold
    openers: hole cards are secret from the dealer, so a live table plays 003 False openers instead."""
    if not isinstance(options, dict):
        return options  # the record's model names the wrong kind
    if options.get("refuse_false_open"):
        raise ValueError("refuse_false_open cannot be on at a live table: refusing an open would tell the "
                         "dealer's screen who holds openers (003 False openers apply instead)")
    return {**options, "refuse_false_open": False}


def _game_config(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> GameConfig:
    """The ``game`` object of the settings (the JSON of a hand record's ``game``: form, betting, stakes,
    options) validated into the engine's :class:`GameConfig`, or a ValueError naming what cannot be dealt."""
    if isinstance(value, GameConfig):
        if value.options.refuse_false_open:
            _live_table_options({"refuse_false_open": True})
        return value
    if isinstance(value, dict):
        value = {"form": "jackpots", "stakes": DEFAULT_STAKES, **value,
                 "options": _live_table_options(value.get("options", {}))}
    model: GameModel = handler(value)
    try:
        config = config_from_model(model)
    except EngineConfigError as exc:  # a game the engine cannot deal (stakes its betting structure lacks)
        raise ValueError(f"this game cannot be dealt: {exc}") from None
    _check_journaled_numbers(config_to_json(config), "")
    return config


def _check_journaled_numbers(value: Any, where: str) -> None:
    """Every hand record journals the game: a stake past :data:`MAX_BUY_IN` (an ante of 10**17, beyond what
    the journal keeps) paused the first hand on a failed journal write and lost its record."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_journaled_numbers(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_BUY_IN:
        raise ValueError(f"{where} is {value}: at most {MAX_BUY_IN} (every hand's record keeps it)")


def _game_schema(source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    return core_schema.no_info_wrap_validator_function(
        _game_config, handler(GameModel),
        serialization=core_schema.plain_serializer_function_ser_schema(config_to_json))


# The game dealt at the table: validated once, at load, into the engine's own configuration, which the
# controller hands to the rules engine as it is.
TableGame = Annotated[GameConfig, GetPydanticSchema(_game_schema)]
DEFAULT_GAME = GameConfig(stakes=Stakes(**DEFAULT_STAKES), options=HouseOptions(refuse_false_open=False))
_GAME = TypeAdapter(TableGame)


def table_game(data: Any) -> GameConfig:
    """A table's game from its JSON object (as in the config file); :class:`ConfigError` naming the fields."""
    try:
        return _GAME.validate_python(data)
    except ValidationError as exc:
        raise ConfigError(f"bad game: {_describe(exc, 'game')}") from exc


class _BoundedEnvironment(EnvSettingsSource):
    """The ``CARDTABLE_*`` variables, a JSON value among them (``CARDTABLE_GAME``) read within the bounds of a
    config file: one that is not JSON, too deep or too large is a :class:`BoundedInputError` naming the variable."""

    def decode_complex_value(self, field_name: str, field: FieldInfo, value: Any) -> Any:
        name = f"environment variable {self.env_prefix.upper()}{field_name.upper()}"
        return loads(value, max_bytes=MAX_CONFIG_BYTES, what=name)


class TableSettings(BaseSettings):
    """Everything one table needs to start. See ``docs/operations.md`` for each field."""

    model_config = SettingsConfigDict(env_prefix="CARDTABLE_", extra="forbid")

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, _BoundedEnvironment(settings_cls), dotenv_settings, file_secret_settings

    table_id: str = Field(default="t1", pattern=r"^[A-Za-z0-9_-]{1,32}$")
    table_name: str = Field(default="Table 1", max_length=80)  # in every view and stream message
    seats: int = Field(default=8, ge=2, le=8)
    shoe: str | None = None
    camera: str | None = None
    camera_calibration: Path | None = None  # JSON from the vision calibration step; needed with --camera
    # Seconds as numbers a clock can wait: a period of 1e-300 s spins the camera loop, and an infinite pace or
    # delay hangs the demo or holds every broadcast message for ever.
    camera_period_s: float = Field(default=1.0, ge=0.01, le=3600.0)
    card_reader: bool = True
    data: Path = Path("./cardtable-data")
    db: str | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    game: TableGame = DEFAULT_GAME
    # A stack holds at most buy_in_max after a buy-in, and a winner the stacks of all the seats: at a billion
    # that stays far inside what the journal keeps (2**53 - 1, about 9 * 10**15); at 2**53 - 1 a hand's result
    # failed its journal write (a 503 at showdown, the hand's record not kept).
    buy_in_min: int = Field(default=20, ge=1, le=MAX_BUY_IN)
    buy_in_max: int = Field(default=1000, ge=1, le=MAX_BUY_IN)
    # Role tokens; a missing token is generated with `secrets` at start and printed once.
    dealer_token: str | None = None
    floor_token: str | None = None
    broadcast_token: str | None = None
    broadcast_delay_s: float = Field(default=30.0, ge=0.0, le=3600.0)
    # 001 (Special Draw Rules, 4) lets players learn how many cards each drew; 003 (Other rules governing
    # the draw, 5) forbids it except for the dealer's own draw. The public display obeys this option.
    public_draw_counts: bool = True
    # Demo pacing: seconds between simulated players' acts (0 for headless runs).
    pace_s: float = Field(default=1.2, ge=0.0, le=60.0)

    @model_validator(mode="after")
    def _tokens_hardened(self) -> TableSettings:
        problems = token_problems({"dealer": self.dealer_token, "floor": self.floor_token,
                                   "broadcast": self.broadcast_token})
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @field_validator("table_name", "shoe", "camera", "camera_calibration", "data", "db", "host", mode="before")
    @classmethod
    def _no_control_characters(cls, v: Any) -> Any:
        """A NUL in a path stopped the start with a ValueError (a traceback for the host), an escape in the name
        went to the terminal in the banner."""
        if isinstance(v, str) and any(ord(c) < 32 or ord(c) == 127 for c in v):
            raise ValueError("holds a control character (such as NUL or ESC)")  # not echoed: a db URL has a password
        return v

    @field_validator("buy_in_max")
    @classmethod
    def _max_not_below_min(cls, v: int, info: Any) -> int:
        low = info.data.get("buy_in_min", 1)
        if v < low:
            raise ValueError(f"buy_in_max {v} is below buy_in_min {low}")
        return v


def _describe(exc: ValidationError, *root: str) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join([*root, *(str(p) for p in err["loc"])]) or "(top level)"
        parts.append(f"{where}: {err['msg'].removeprefix('Value error, ')}")
    return "; ".join(parts)


def load_settings(config_file: str | Path | None = None, **overrides: Any) -> TableSettings:
    """Settings from the environment, an optional JSON file and explicit overrides (``None`` is ignored)."""
    values: dict[str, Any] = {}
    if config_file is not None:
        path = Path(config_file)
        try:
            loaded = loads(read_bounded(path, max_bytes=MAX_CONFIG_BYTES, what=f"config file {str(path)!r}"),
                           max_bytes=MAX_CONFIG_BYTES, what=f"config file {str(path)!r}")
        except BoundedInputError as exc:
            raise ConfigError(str(exc)) from exc
        if not isinstance(loaded, dict):
            raise ConfigError(f"config file {str(path)!r} must hold one JSON object, not {type(loaded).__name__}")
        values.update(loaded)
    for key, value in overrides.items():
        if value is None:
            continue
        if key == "game" and isinstance(value, dict):
            merged = dict(values.get("game") or {})
            merged.update(value)
            values["game"] = merged
        else:
            values[key] = value
    try:
        return TableSettings(**values)
    except SettingsError as exc:  # an environment variable that cannot be read (bounded.loads says why)
        raise ConfigError(f"bad table settings: {exc.__cause__ or exc}") from exc
    except ValidationError as exc:
        where = f" in {str(config_file)!r}" if config_file is not None else ""
        raise ConfigError(f"bad table settings{where}: {_describe(exc)}") from exc
