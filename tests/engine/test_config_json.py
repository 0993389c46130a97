"""The game configuration has one JSON form: a record's ``game`` (and a table's settings ``game``) is
validated by the record's model into the engine's frozen :class:`GameConfig`, and written back by
:func:`config_to_json`. The model must name exactly the configuration's fields, with the same defaults."""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

import pytest

from table_controller.engine.config import Betting, GameConfig, GameForm, HouseOptions, Stakes, config_to_json
from table_controller.engine.record import GameModel, OptionsModel, StakesModel, config_from_model


@pytest.mark.parametrize(("model", "config"), [(StakesModel, Stakes), (OptionsModel, HouseOptions)])
def test_the_json_model_names_every_field_with_its_default(model: Any, config: Any) -> None:
    defaults = {f.name: f.default for f in fields(config)}
    assert MISSING not in defaults.values()
    assert {name: info.default for name, info in model.model_fields.items()} == defaults


@pytest.mark.parametrize("config", [
    GameConfig(stakes=Stakes(ante=1, small_bet=2, big_bet=4, cap=4)),
    GameConfig(form=GameForm.BLIND_AND_STRADDLE, betting=Betting.NO_LIMIT, stakes=Stakes(min_bet=2, blind=1),
               options=HouseOptions(straddle_limit=2, refuse_false_open=False, burn_before_draw=False)),
    GameConfig(form=GameForm.BLOCK_SYSTEM, stakes=Stakes(block_ante=10, block_blind=1, block_raise=3)),
])
def test_a_config_survives_its_json(config: GameConfig) -> None:
    assert config_from_model(GameModel.model_validate(config_to_json(config))) == config
