"""What game is being played: the form, the betting structure, the stakes and the house options.

Every difference between the rule books is a named option here, with a default and the book it comes
from (see docs/rules.md for the full list and which book each code names). Book codes: "000" (final
betting, showdown and irregularities), "001" (the casino procedure), "003" (the forms of Draw Poker).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import Enum, StrEnum
from typing import Any

from table_controller.engine.errors import ConfigError
from table_controller.engine.irregular_options import (
    DealerShortDraw,
    DrawCountInfo,
    ExposedDrawCard,
    FalseOpenerPenalty,
    LateDrawMiscount,
    MisdealAntes,
    MisdealCall,
    MixedCardsShuffle,
    OutOfTurnDiscarded,
    ShortDeal,
    UncalledFalseOpener,
)
from table_controller.engine.opening import OpeningRequirement


class GameForm(StrEnum):
    FIVE_CARD_DRAW = "five_card_draw"
    JACKPOTS = "jackpots"
    PROGRESSIVE_JACKPOTS = "progressive_jackpots"
    JACKS_OR_BOBTAIL = "jacks_or_bobtail"
    OPEN_ON_ANYTHING = "open_on_anything"
    PASS_AND_OUT = "pass_and_out"
    BLIND_AND_STRADDLE = "blind_and_straddle"
    BLIND_OPENING = "blind_opening"
    ENGLISH_BLIND_AND_STRADDLE = "english_blind_and_straddle"
    BLOCK_SYSTEM = "block_system"


class Betting(StrEnum):
    FIXED_LIMIT = "fixed_limit"
    SPREAD_LIMIT = "spread_limit"
    POT_LIMIT = "pot_limit"
    NO_LIMIT = "no_limit"


class AnteMode(StrEnum):
    EACH = "each"  # 003 Jackpots: "Usually each player antes equally"
    DEALER = "dealer"  # 003 Jackpots: "only the dealer ante-one white chip for each player"


class DrawLimit(StrEnum):
    NONE = "none"  # 003 The draw: "A player may discard any or all of his original five cards"
    FOUR = "four"  # 001 Game procedure 5: "exchange up to 4 of their Hole-Cards"
    BY_PLAYERS = "by_players"  # 003 The draw: six or seven players limit the draw to three (sometimes four)


class PassMeaning(StrEnum):
    CHECK_IF_FREE = "check_if_free"  # 003 Jackpots: "the word pass is equivalent to check"
    DROP = "drop"  # 001 Game procedure 6 lists "Pass" beside "Check": there pass is to drop


class OddChip(StrEnum):
    LEFT_OF_BUTTON = "left_of_button"  # common practice: first winner clockwise from the button
    HIGH_SUIT = "high_suit"  # to the winner with the highest card, suits ranked as 001 ranks them for the deal


FORCED_BLIND_FORMS = frozenset({
    GameForm.BLIND_AND_STRADDLE, GameForm.BLIND_OPENING, GameForm.ENGLISH_BLIND_AND_STRADDLE, GameForm.BLOCK_SYSTEM,
})
STRADDLE_FORMS = frozenset({GameForm.BLIND_AND_STRADDLE, GameForm.ENGLISH_BLIND_AND_STRADDLE})
# Forms where the first bet must be justified by a minimum hand (the opener must prove it).
REQUIREMENT_FORMS = frozenset({GameForm.JACKPOTS, GameForm.PROGRESSIVE_JACKPOTS, GameForm.JACKS_OR_BOBTAIL})
# "Pass and back in" forms: if nobody opens, the deal is passed out and the pot carries (003 Jackpots).
PASS_AND_BACK_IN_FORMS = REQUIREMENT_FORMS | {GameForm.OPEN_ON_ANYTHING}


@dataclass(frozen=True, kw_only=True)
class Stakes:
    """Chip amounts. Only those the form and structure use are needed; the others stay 0."""

    ante: int = 0
    small_bet: int = 0  # fixed limit, before the draw
    big_bet: int = 0  # fixed limit, after the draw
    cap: int = 0  # fixed limit: the most bets and raises in one interval (0: no cap)
    min_bet: int = 0  # spread, pot and no limit
    max_bet: int = 0  # spread limit
    blind: int = 0  # blind forms: the age's blind, or the blind opening
    block_ante: int = 19  # block system: the dealer's ante (003 Block system)
    block_blind: int = 2  # block system: blind opening left of the dealer
    block_raise: int = 4  # block system: compulsory raise to this total by the second player
    block_raise_limit: int = 2  # block system: the most any raise may add before the draw


@dataclass(frozen=True, kw_only=True)
class HouseOptions:
    ante_mode: AnteMode = AnteMode.EACH
    burn_before_draw: bool = True  # 003 The draw: "In many games the dealer burns ... before the draw"
    draw_limit: DrawLimit | None = None  # None: the form's default (FOUR for five_card_draw, else BY_PLAYERS)
    draw_limit_six_plus: int = 3  # 003: "limit the amount of the draw to three (sometimes four) cards"
    never_deal_last_card: bool = False  # common practice: the last card of the stub is not dealt
    odd_chip: OddChip = OddChip.LEFT_OF_BUTTON
    progressive_top: OpeningRequirement = OpeningRequirement.ACES  # 003: "some run the series ... to two pair"
    straddle_limit: int | None = None  # 003 Blind and straddle: "until the agreed straddle limit"; None: no limit
    straddle_compulsory: bool = False  # 003: "In many games, at least one straddle is obligatory"
    blind_opening_double_to_stay: bool = False  # 003 Blind opening: "In some games ... required to double"
    pass_meaning: PassMeaning = PassMeaning.CHECK_IF_FREE
    refuse_false_open: bool = True  # cards known to the table: refuse an open without openers (003 Jackpots)
    opener_holds_discards: bool = True  # 003 The draw: the opener "may place his discard under the chips"
    # Irregularities (docs/irregularities.md; the enums say which book each value follows).
    exposed_draw_card: ExposedDrawCard = ExposedDrawCard.FIRST_KEPT
    short_deal: ShortDeal = ShortDeal.DEALT_AT_ONCE
    late_draw_miscount: LateDrawMiscount = LateDrawMiscount.DISCARD_OR_DROP
    out_of_turn_discarded: OutOfTurnDiscarded = OutOfTurnDiscarded.DEAD
    dealer_short_draw: DealerShortDraw = DealerShortDraw.FOUL
    draw_count_info: DrawCountInfo | None = None  # None: the form's book (ANY_PLAYER for five_card_draw)
    misdeal_antes: MisdealAntes = MisdealAntes.STAY
    misdeal_deal_passes: bool = False  # common practice: the same dealer deals again after a misdeal
    misdeal_call: MisdealCall = MisdealCall.BEFORE_ACTION
    false_opener_penalty: FalseOpenerPenalty = FalseOpenerPenalty.NONE
    uncalled_false_opener: UncalledFalseOpener = UncalledFalseOpener.CHIPS_STAY
    mixed_cards_shuffle: MixedCardsShuffle = MixedCardsShuffle.UNDER_THE_PACK


@dataclass(frozen=True, kw_only=True)
class GameConfig:
    form: GameForm = GameForm.JACKPOTS
    betting: Betting = Betting.FIXED_LIMIT
    stakes: Stakes = field(default_factory=Stakes)
    options: HouseOptions = field(default_factory=HouseOptions)

    def __post_init__(self) -> None:
        problems = config_problems(self)
        if problems:
            raise ConfigError("; ".join(problems))

    @property
    def draw_limit(self) -> DrawLimit:
        if self.options.draw_limit is not None:
            return self.options.draw_limit
        return DrawLimit.FOUR if self.form is GameForm.FIVE_CARD_DRAW else DrawLimit.BY_PLAYERS

    def requirement(self, passed_deals: int) -> OpeningRequirement | None:
        """The opening requirement of this deal, or None where any hand may open."""
        if self.form is GameForm.JACKPOTS:
            return OpeningRequirement.JACKS
        if self.form is GameForm.JACKS_OR_BOBTAIL:
            return OpeningRequirement.JACKS
        if self.form is GameForm.PROGRESSIVE_JACKPOTS:
            ladder = [OpeningRequirement.JACKS, OpeningRequirement.QUEENS, OpeningRequirement.KINGS,
                      OpeningRequirement.ACES, OpeningRequirement.TWO_PAIR]
            top = ladder.index(self.options.progressive_top)
            return ladder[min(passed_deals, top)]
        return None

    @property
    def bobtail_allowed(self) -> bool:
        return self.form is GameForm.JACKS_OR_BOBTAIL


def config_problems(config: GameConfig) -> list[str]:
    """Every reason this configuration cannot be played (empty when it can)."""
    s = config.stakes
    problems: list[str] = []
    for name in ("ante", "small_bet", "big_bet", "cap", "min_bet", "max_bet", "blind", "block_ante", "block_blind",
                 "block_raise", "block_raise_limit"):
        if getattr(s, name) < 0:
            problems.append(f"stakes.{name} must not be negative")
    if config.form is GameForm.BLOCK_SYSTEM:
        if not 0 < s.block_blind < s.block_raise or s.block_raise_limit <= 0:
            problems.append("block system needs 0 < block_blind < block_raise and a positive block_raise_limit")
        return problems
    if config.betting is Betting.FIXED_LIMIT:
        if s.small_bet <= 0 or s.big_bet <= 0:
            problems.append("fixed_limit needs positive stakes.small_bet and stakes.big_bet")
    elif config.betting is Betting.SPREAD_LIMIT:
        if s.min_bet <= 0 or s.max_bet < s.min_bet:
            problems.append("spread_limit needs 0 < stakes.min_bet <= stakes.max_bet")
    elif s.min_bet <= 0:
        problems.append(f"{config.betting.value} needs a positive stakes.min_bet")
    if config.form in FORCED_BLIND_FORMS and s.blind <= 0:
        problems.append(f"{config.form.value} needs a positive stakes.blind")
    if config.options.straddle_limit is not None and config.options.straddle_limit < 0:
        problems.append("options.straddle_limit must not be negative")
    if not 1 <= config.options.draw_limit_six_plus <= 5:
        problems.append("options.draw_limit_six_plus must be 1..5")
    return problems


def _plain(value: object) -> object:
    return value.value if isinstance(value, Enum) else value


def config_to_json(config: GameConfig) -> dict[str, Any]:
    """The ``game`` object of a record for this configuration (only non-default stakes and options)."""
    stakes = {f.name: getattr(config.stakes, f.name) for f in fields(Stakes)
              if getattr(config.stakes, f.name) != f.default}
    options = {f.name: _plain(getattr(config.options, f.name)) for f in fields(HouseOptions)
               if getattr(config.options, f.name) != f.default}
    return {"form": config.form.value, "betting": config.betting.value, "stakes": stakes, "options": options}
