"""The phases of one deal of Draw Poker and the one table of transitions between them.

How it works: a :class:`~table_controller.engine.hand.Hand` is always in exactly one :class:`Phase`. Every act
(a player's check, bet, draw...; the dealer's deal, burn, serve and reshuffle) and every automatic step the engine
takes by itself (posting the antes and blinds, closing a betting interval) is a *trigger*. :data:`TRANSITIONS` lists,
for each phase, which triggers it accepts and which phases may follow; the guard that picks among the
targets lives in the ``Hand`` method of the same name and is described in the ``when`` column.

The cards leave the shoe only through the dealer's acts, as PokerKit's deal and burn operations: ``deal`` (the five
cards each, in the DEALING phase the hand starts in), ``burn`` (the card burnt before the first card of the draw is
served, BURNING) and ``serve`` (one drawer's replacement cards, SERVING). The player's ``draw`` only throws his
discards; the dealer's acts that follow are due in the phase it moves to, and the legal view names the act due
with ``seat`` None (the dealer). Each has ``verify_x`` / ``can_x`` / ``x`` like every act, so a live table takes
each as the shoe delivers its cards, and a replayer or simulator takes them all at once (``Hand.dealer_acts``).
When the stub runs short in a service, the hand waits in RESHUFFLING for the dealer's ``reshuffle``, another act of
the same kind: it orders the new stub only, and the ``serve`` due again serves the rest.

``Hand`` asks :func:`check_transition` before it changes phase, so a move that is not in this table is an
:class:`~table_controller.engine.errors.InvariantError` (a bug), and an act that the current phase does not
accept is refused as illegal before anything changes. ``docs/engine-states.md`` is generated from this
table by :func:`render_markdown` (a test keeps the two identical).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from table_controller.engine.errors import InvariantError


class Phase(StrEnum):
    DEALING = "dealing"  # the forced bets are posted: the dealer deals five cards each
    STRADDLING = "straddling"  # blind and straddle forms: the next player may straddle, blind
    FIRST_BETTING = "first_betting"  # the betting interval before the draw (opening)
    DRAWING = "drawing"  # each active player in turn from the dealer's left announces or throws his discards
    BURNING = "burning"  # the first discards of the draw are thrown: the dealer burns a card (house option)
    SERVING = "serving"  # a drawer has thrown: the dealer serves him as many from the top of the stub
    RESHUFFLING = "reshuffling"  # the stub ran out mid-service: the dealer must give the reshuffled order
    FINAL_BETTING = "final_betting"  # the betting interval after the draw
    REOPENING = "reopening"  # the opener declared he lacks openers: another may take his place (003 False openers 2)
    PROVING = "proving"  # the opener won uncontested and must show his openers
    SHOWDOWN = "showdown"  # every active player in turn shows or concedes
    COMPLETE = "complete"  # terminal: the pot was awarded (or carried under the false-opener rules)
    PASSED_OUT = "passed_out"  # terminal: nobody opened; the pot stays for the next deal


TERMINAL: Final = frozenset({Phase.COMPLETE, Phase.PASSED_OUT})
# The phases in which the dealer's act that takes cards from the shoe is due, and that act.
DEALER_ACTS: Final = {Phase.DEALING: "deal", Phase.BURNING: "burn", Phase.SERVING: "serve"}
BETTING_ACTS: Final = ("check", "bet", "call", "raise", "fold")


@dataclass(frozen=True, kw_only=True)
class Transition:
    source: Phase | None  # None: the start of the hand
    trigger: str
    targets: tuple[Phase, ...]
    when: str


def _t(source: Phase | None, trigger: str, targets: tuple[Phase, ...], when: str) -> Transition:
    return Transition(source=source, trigger=trigger, targets=targets, when=when)


P = Phase
TRANSITIONS: tuple[Transition, ...] = (
    _t(None, "start", (P.DEALING,), "antes, blinds and block chips posted"),
    _t(P.DEALING, "deal", (P.STRADDLING, P.FIRST_BETTING),
       "five cards dealt to each player one at a time from the dealer's left; straddling in the blind-and-straddle "
       "forms, else the first interval"),
    _t(P.STRADDLING, "straddle", (P.STRADDLING, P.FIRST_BETTING),
       "the next player may straddle again until the straddle limit is reached"),
    _t(P.STRADDLING, "decline_straddle", (P.FIRST_BETTING,),
       "a refusal ends the period of blind and straddle (003 Blind and straddle)"),
    *(_t(P.FIRST_BETTING, act, (P.FIRST_BETTING, P.DRAWING, P.PROVING, P.COMPLETE, P.PASSED_OUT),
         "interval open: same phase; bets equalized with two or more in: the draw; one player left: proving "
         "(opener with unseen cards) or complete; nobody opened in a pass-and-back-in form: passed out")
      for act in BETTING_ACTS),
    _t(P.FIRST_BETTING, "no_action", (P.DRAWING, P.PASSED_OUT),
       "nobody can act (every player all in on the forced bets): the interval closes at once"),
    _t(P.FIRST_BETTING, "declare_no_openers", (P.REOPENING, P.PASSED_OUT),
       "the opener announces before the draw that he lacks openers (003 False openers 2): the others are asked "
       "in turn from his left whether they open in his place"),
    _t(P.DRAWING, "declare_no_openers", (P.REOPENING, P.PASSED_OUT),
       "the betting has closed but no card of the draw is served: still before the draw (003 False openers 2)"),
    _t(P.REOPENING, "take_open", (P.FIRST_BETTING, P.DRAWING, P.FINAL_BETTING, P.SHOWDOWN, P.COMPLETE, P.PROVING),
       "a player with openers takes the opener's place and the game goes on where it stood: the betting, or the "
       "draw (the final interval if every other player had already stood pat)"),
    _t(P.REOPENING, "decline_open", (P.REOPENING, P.PASSED_OUT),
       "nobody takes over: bets withdrawn, the antes and the false opener's bets stay for the next deal"),
    _t(P.DRAWING, "announce", (P.DRAWING,), "a count may be changed until the player is served (001 IV 3)"),
    _t(P.DRAWING, "draw", (P.BURNING, P.SERVING),
       "the discards thrown ([] stands pat): the burn first when these are the first cards of the draw and the "
       "house burns, else the service"),
    _t(P.BURNING, "burn", (P.SERVING,), "the top card of the stub burnt: the drawer is served next"),
    _t(P.SERVING, "serve", (P.DRAWING, P.RESHUFFLING, P.FINAL_BETTING, P.SHOWDOWN),
       "next drawer; stub exhausted: reshuffling; last drawer served: final interval, or showdown when "
       "fewer than two players can still bet"),
    _t(P.RESHUFFLING, "reshuffle", (P.SERVING,), "the new stub ordered: the rest of the service is due"),
    *(_t(P.FINAL_BETTING, act, (P.FINAL_BETTING, P.SHOWDOWN, P.PROVING, P.COMPLETE),
         "interval open: same phase; bets equalized: showdown; one player left: proving or complete")
      for act in BETTING_ACTS),
    _t(P.FINAL_BETTING, "no_action", (P.SHOWDOWN,), "nobody can act: the interval closes at once"),
    _t(P.PROVING, "show", (P.COMPLETE,), "openers proved: the opener takes the pot; not proved: 003 False openers 3"),
    _t(P.PROVING, "muck", (P.COMPLETE,), "the opener cannot prove openers: 003 False openers 3"),
    _t(P.SHOWDOWN, "show", (P.SHOWDOWN, P.COMPLETE), "next player shows; all shown or conceded: pots awarded"),
    _t(P.SHOWDOWN, "muck", (P.SHOWDOWN, P.COMPLETE), "a player concedes; the last live hand must be shown"),
    # Irregularities (table_controller/engine/irregular.py, docs/irregularities.md): the remedy decides the move.
    _t(P.STRADDLING, "irregularity", (P.PASSED_OUT,),
       "cards exposed, too many or too few in the deal: corrected in place; a misdeal voids the deal (status "
       "'misdeal': bets back, the antes stay or come back)"),
    _t(P.FIRST_BETTING, "irregularity", (P.FIRST_BETTING, P.DRAWING, P.REOPENING, P.PROVING, P.COMPLETE,
                                         P.PASSED_OUT),
       "a foul hand drops (the interval may close or one player be left); a foul opener: 003 False openers 2; "
       "an uncalled foul bet carries the pot; a misdeal voids the deal"),
    _t(P.DRAWING, "irregularity", (P.DRAWING, P.FINAL_BETTING, P.SHOWDOWN, P.PROVING, P.COMPLETE, P.REOPENING,
                                   P.PASSED_OUT),
       "a remedy in the draw (a card replaced, a count corrected, a player skipped or dropped); the draw may end; "
       "a foul opener before the first card of the draw is served: 003 False openers 2"),
    _t(P.FINAL_BETTING, "irregularity", (P.FINAL_BETTING, P.SHOWDOWN, P.PROVING, P.COMPLETE),
       "a foul hand drops; an uncalled foul bet carries the pot"),
    _t(P.PROVING, "irregularity", (P.COMPLETE,), "the opener's hand is foul: 003 False openers 3"),
    _t(P.SHOWDOWN, "irregularity", (P.SHOWDOWN, P.COMPLETE), "a foul hand cannot win: the next hand shows"),
    *(_t(p, "floor_ruling", (P.COMPLETE, P.PASSED_OUT),
         "a supervisor awards the pot (complete) or voids the hand (status 'void': every chip back; the carried "
         "pot stays); chips moved between pot and stacks: same phase")
      for p in (P.DEALING, P.STRADDLING, P.FIRST_BETTING, P.DRAWING, P.BURNING, P.SERVING, P.RESHUFFLING,
                P.FINAL_BETTING, P.REOPENING, P.PROVING, P.SHOWDOWN)),
)

_INDEX: Final[dict[tuple[Phase | None, str], tuple[Phase, ...]]] = {
    (t.source, t.trigger): t.targets for t in TRANSITIONS
}


def accepts(phase: Phase | None, trigger: str) -> bool:
    """Whether this phase accepts this trigger at all."""
    return (phase, trigger) in _INDEX


def check_transition(source: Phase | None, trigger: str, target: Phase) -> None:
    targets = _INDEX.get((source, trigger))
    if targets is None or target not in targets:
        raise InvariantError(f"transition {source} --{trigger}--> {target} is not in the transition table")


def render_markdown() -> str:
    """The text of docs/engine-states.md: the transition table and a Mermaid diagram."""
    lines = [
        "# Engine states",
        "",
        "Generated from `table_controller/engine/machine.py` by `render_markdown()`; do not edit by hand",
        "(`tests/engine/test_machine.py` checks that this file matches the table).",
        "",
        "One deal of Draw Poker is always in one phase. An act that the phase does not accept is refused",
        "as illegal; a move outside this table is an internal error.",
        "",
        "```mermaid",
        "stateDiagram-v2",
    ]
    seen: set[tuple[str, str, str]] = set()
    for t in TRANSITIONS:
        src = "[*]" if t.source is None else t.source.value
        for target in t.targets:
            trig = "betting act" if t.trigger in BETTING_ACTS else t.trigger
            key = (src, trig, target.value)
            if key not in seen:
                seen.add(key)
                lines.append(f"    {src} --> {target.value}: {trig}")
    for phase in sorted(TERMINAL):
        lines.append(f"    {phase.value} --> [*]")
    lines += ["```", "", "| phase | trigger | next phases | when |", "|---|---|---|---|"]
    for t in TRANSITIONS:
        src = "(start)" if t.source is None else t.source.value
        lines.append(f"| {src} | `{t.trigger}` | {', '.join(p.value for p in t.targets)} | {t.when} |")
    lines += ["", "## Phases", ""]
    for phase in Phase:
        lines.append(f"- `{phase.value}`")
    lines.append("")
    return "\n".join(lines)
