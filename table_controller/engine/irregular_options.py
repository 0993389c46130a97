"""House options for irregularities: where the rule books give different remedies, each reading is named here.

This module imports nothing from the engine so that ``config.py`` can use it. Book codes as in ``config.py``:
"000", "001", "003". docs/irregularities.md lists every option with its source and default.
"""

from __future__ import annotations

from enum import StrEnum


class ExposedDrawCard(StrEnum):
    # 003 Incorrect dealing in the draw 1, 000 Card exposed in the draw: the first card drawn must be accepted;
    # a later exposed card goes among the discards and is replaced after all others have drawn.
    FIRST_KEPT = "first_kept"
    # 001 IV 6: an open card is never kept; the player receives a replacement at the end of the draw.
    NEVER_KEPT = "never_kept"


class ShortDeal(StrEnum):
    # 000 Incorrect hand: too few cards, not seen: the dealer deals enough from the top of the pack at once.
    DEALT_AT_ONCE = "dealt_at_once"
    # 001 IV 5a: the missing cards come at the end of the deal while the first betting round has not started;
    # once the game has been opened, with the player's draw cards.
    WITH_THE_DRAW = "with_the_draw"
    # 001 IV 5a as written: once the game has been opened "only the player with the Dealer-Button can receive the
    # missing amount with their draw cards"; any other short player's hand is a bum hand (001 IV 5b).
    BUTTON_WITH_THE_DRAW = "button_with_the_draw"


class LateDrawMiscount(StrEnum):
    # 003 Incorrect dealing in the draw 2: once a later player has been served, he may only increase his
    # discard to make room for the excess, or drop.
    DISCARD_OR_DROP = "discard_or_drop"
    # 000 Incorrect number of cards drawn: once the next player has been served, he plays on short, or leaves
    # the excess on the table unseen.
    SHORT_OR_LEAVE = "short_or_leave"


class OutOfTurnDiscarded(StrEnum):
    DEAD = "dead"  # 003 Incorrect dealing in the draw 3: "If he has discarded, his hand is dead."
    # 000 Incorrect number of cards drawn; 003 ibid. "(Some permit such a player to play with an insufficient
    # number of cards.)"
    PLAY_SHORT = "play_short"


class DealerShortDraw(StrEnum):
    FOUL = "foul"  # 003 Incorrect dealing in the draw 5: "If the dealer takes too few cards, his hand is foul."
    PLAY_SHORT = "play_short"  # ibid.: "(Some players allow the dealer to play with an insufficient number.)"


class DrawCountInfo(StrEnum):
    # 001 IV 4: a player must answer truthfully when another active player asks how many cards he exchanged,
    # as long as the second betting round has not started.
    ANY_PLAYER = "any_player"
    # 003 Other rules governing the draw 5: no information about other players' draws; a player still in who
    # has not yet bet may ask how many cards the dealer drew.
    DEALER_ONLY = "dealer_only"


class MisdealAntes(StrEnum):
    STAY = "stay"  # common practice in pass-and-back-in games: the antes stay in the pot for the new deal
    RETURN = "return"  # common card-room practice: every chip, antes included, goes back


class FalseOpenerPenalty(StrEnum):
    NONE = "none"  # 003 False openers 2: the antes and the false opener's bets stay for the next deal
    ANTE_FOR_ALL = "ante_for_all"  # ibid.: "(In some sections ... having him ante for all on the next deal.)"


class MisdealCall(StrEnum):
    # common practice: a misdeal is called before anyone acts on his cards (the straddles, made blind, aside).
    BEFORE_ACTION = "before_action"
    # 000 Card exposed in the deal, literally: no time limit but that the caller, who received an exposed card,
    # "has not intentionally seen the face of any other card dealt to him": any time in the first interval.
    UNTIL_SEEN = "until_seen"


class UncalledFalseOpener(StrEnum):
    # 003 False openers 3: "If no one calls the false opener before the draw, all chips remain in the pot".
    CHIPS_STAY = "chips_stay"
    # 000 False openers: "If all other players have dropped, each other player may withdraw from the pot any chips,
    # except his ante" (before or after the draw alike).
    OTHERS_WITHDRAW = "others_withdraw"


class MixedCardsShuffle(StrEnum):
    # Our reading of 003 Other rules governing the draw 4 with 1 ("no change in the arrangement of the pack"): the
    # shuffled and cut cards go under the pack, and each mixed draw is served again from its top.
    UNDER_THE_PACK = "under_the_pack"
    # 003 Other rules 4 in its own words: "the unclean cards, discards and mixed cards must be shuffled together
    # and cut, and the draw proceeds": from the shuffled cards, put on the pack.
    DRAW_FROM_THE_SHUFFLE = "draw_from_the_shuffle"
