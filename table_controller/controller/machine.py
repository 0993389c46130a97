"""The stages of a table and the one table of transitions between them.

How it works: a :class:`~table_controller.controller.table.TableController` is always in exactly one
:class:`Stage`. Between hands it is ``waiting``; a hand goes ``shuffling`` (the shoe shuffles and verifies the
deck), ``dealing`` (five cards each), then ``playing`` (the engine's hand takes acts) and ``serving`` whenever
the hand waits for the shoe to deliver cards (the dealer's burn and service after a draw, a report's remedy),
until the hand is over. Two stages
*hold* the hand: ``paused`` (a device fault: the dealer retries, continues or voids) and ``halted`` (a security
stop: the floor rules). A hold remembers the stage it interrupted, and resuming returns there
(:data:`BEFORE`, a history state). An input a hold does not take itself but the interrupted stage does (the
cards a shoe dealt while the controller was down, taken from its log after a restart) moves the interrupted
stage by the same table, and the hold stands.

Every journaled input that moves the table is a *trigger* (its name is the journal entry's kind; ``hand_over``
is the step the controller takes when the engine's hand ends). :data:`TRANSITIONS` lists, for each stage,
which triggers it accepts and which stages may follow; the guard that picks among the targets is described
in the ``when`` column and lives in the controller's method applying that input. The controller moves only
through :meth:`StageMachine.move`, which refuses a move that is not in this table as a bug
(:class:`~table_controller.controller.errors.TableError`, code ``bad_transition``). Inputs that never change
the stage (alerts, refused reports, answers to keyed requests) are not triggers.

``docs/controller-states.md`` is generated from this table by :func:`render_markdown` (a test keeps the two
identical).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from table_controller.controller.errors import TableError

__all__ = ["BEFORE", "HOLDS", "IN_HAND", "TRANSITIONS", "Stage", "StageMachine", "Transition", "render_markdown"]


class Stage(StrEnum):
    WAITING = "waiting"  # no hand: players sit, buy in and leave; a hand may start
    SHUFFLING = "shuffling"  # a hand began: the shoe shuffles and verifies the deck
    DEALING = "dealing"  # the deck verified: five cards each, one at a time from the dealer's left
    PLAYING = "playing"  # the engine's hand is live: the dealer enters acts
    SERVING = "serving"  # the hand waits for the shoe's cards: the dealer's burn and service of a draw, a remedy's
    PAUSED = "paused"  # a device fault: the dealer retries, continues without the camera, or voids
    HALTED = "halted"  # a security stop: the floor must rule (resume or void)


BEFORE: Final = "(before)"  # pseudo-target: the stage the hold interrupted
Target = Stage | Literal["(before)"]
HOLDS = frozenset({Stage.PAUSED, Stage.HALTED})
IN_HAND = (Stage.SHUFFLING, Stage.DEALING, Stage.PLAYING, Stage.SERVING)
SEAT_CHANGES = ("seat.sit", "seat.buy_in", "seat.rebuy", "seat.stand")


@dataclass(frozen=True, kw_only=True)
class Transition:
    source: Stage
    trigger: str
    targets: tuple[Target, ...]
    when: str


def _t(source: Stage, trigger: str, targets: tuple[Target, ...], when: str) -> Transition:
    return Transition(source=source, trigger=trigger, targets=targets, when=when)


S = Stage
TRANSITIONS: tuple[Transition, ...] = (
    *(_t(S.WAITING, kind, (S.WAITING,), "between hands only") for kind in SEAT_CHANGES),
    _t(S.WAITING, "hand.start", (S.SHUFFLING,), "two or more seated players with chips, the table not held"),
    _t(S.WAITING, "ruling", (S.WAITING,),
       "between hands the floor moves chips between the carried pot and a stack, awards the carried pot, or notes"),
    _t(S.SHUFFLING, "deck.check", (S.DEALING,),
       "52 cards, none missing, none twice (a failed check is a halt with a security alert)"),
    _t(S.DEALING, "deal", (S.DEALING, S.PLAYING),
       "cards still owed: same stage; the last card of the deal: the engine's hand is built from them"),
    _t(S.PLAYING, "act", (S.PLAYING, S.SERVING),
       "the act is applied at once; serving when it makes the dealer's burn or service due (a draw) and the shoe "
       "has not delivered their cards, or when it is a report whose remedy takes cards (applied once they come)"),
    _t(S.SERVING, "card", (S.SERVING, S.PLAYING),
       "each card goes to the engine as it comes, and the dealer's act due is taken once its cards are in; cards "
       "still owed: same stage; the last one: playing (a waiting report is applied)"),
    _t(S.PLAYING, "hand_over", (S.WAITING,),
       "the engine's hand ended (pot awarded, passed out, false openers): stacks, carried pot and record kept"),
    *(_t(stage, "device.fault", (S.PAUSED,), "a shoe or camera fault, or the journal failing to write")
      for stage in IN_HAND),
    *(_t(stage, "device.fault", (stage,), "a fault while held: the hold stands, the dealer's prompt is added")
      for stage in (S.PAUSED, S.HALTED)),
    *(_t(stage, "halt", (S.HALTED,),
         "the deck fails its check, the camera and the shoe disagree, a shown card the seat cannot hold, the shoe's "
         "log disagrees with the journal after a restart")
      for stage in (*IN_HAND, S.PAUSED, S.HALTED)),
    _t(S.PAUSED, "prompt.answer", (BEFORE, S.WAITING),
       "retry or continue: back where the fault stopped the hand; void: every chip back"),
    _t(S.HALTED, "prompt.answer", (S.HALTED, S.WAITING),
       "retry or continue: the halt stands (only the floor lifts it); void: every chip back"),
    *(_t(stage, "void", (S.WAITING,), "the hand is void: every chip goes back where it was when it began")
      for stage in (*IN_HAND, S.PAUSED, S.HALTED)),
    *(_t(stage, "ruling", (stage,), "a note (the floor voids the hand through `void`; no award before the deal "
         "is complete)") for stage in (S.SHUFFLING, S.DEALING)),
    *(_t(stage, "ruling", (stage, S.WAITING), "a note: same stage; the floor awards the pot: the hand ends")
      for stage in (S.PLAYING, S.SERVING)),
    *(_t(stage, "ruling", (BEFORE, stage, S.WAITING),
         "resume: back where the hold stopped the hand; a note: same stage; void or award: the hand ends")
      for stage in (S.PAUSED, S.HALTED)),
)

_INDEX: dict[tuple[Stage, str], tuple[Target, ...]] = {(t.source, t.trigger): t.targets for t in TRANSITIONS}


class StageMachine:
    """The table's stage, and the stage a hold interrupted."""

    def __init__(self) -> None:
        self.stage = Stage.WAITING
        self.held_from: Stage | None = None

    @property
    def underlying(self) -> Stage:
        """The stage of the hand itself: the one a hold interrupted, else the stage."""
        return self.held_from if self.held_from is not None else self.stage

    def accepts(self, trigger: str) -> bool:
        return (self.stage, trigger) in _INDEX

    @staticmethod
    def _check(source: Stage, trigger: str, target: Target) -> None:
        targets = _INDEX.get((source, trigger))
        if targets is None or target not in targets:
            raise TableError(f"stage {source} --{trigger}--> {target} is not in the controller's transition "
                             "table", code="bad_transition")

    def move(self, trigger: str, target: Target) -> None:
        if self.held_from is not None and (self.stage, trigger) not in _INDEX:
            self._check(self.held_from, trigger, target)
            self.held_from = Stage(target)  # taken in under the hold: the interrupted stage moves on
            return
        self._check(self.stage, trigger, target)
        if target == BEFORE:
            assert self.held_from is not None, "a hold always remembers the stage it interrupted"
            self.stage, self.held_from = self.held_from, None
        elif target in HOLDS:
            if self.stage not in HOLDS:
                self.held_from = self.stage
            self.stage = Stage(target)
        elif self.stage in HOLDS and target == self.stage:
            pass  # the hold stands
        else:
            self.stage, self.held_from = Stage(target), None


def render_markdown() -> str:
    """The text of docs/controller-states.md: the transition table and a Mermaid diagram."""
    lines = [
        "# Controller states",
        "",
        "Generated from `table_controller/controller/machine.py` by `render_markdown()`; do not edit by hand",
        "(`tests/controller/test_machine.py` checks that this file matches the table).",
        "",
        "A table is always in one stage. Each journaled input that moves it is a trigger; a move outside this",
        "table is an internal error. `(before)` is the stage a hold (paused, halted) interrupted.",
        "",
        "```mermaid",
        "stateDiagram-v2",
        f"    [*] --> {Stage.WAITING.value}",
    ]
    seen: set[tuple[str, str, str]] = set()
    for t in TRANSITIONS:
        for target in t.targets:
            name = "before" if target == BEFORE else str(target)
            trig = "seat change" if t.trigger in SEAT_CHANGES else t.trigger
            key = (t.source.value, trig, name)
            if key not in seen:
                seen.add(key)
                lines.append(f"    {t.source.value} --> {name}: {trig}")
    lines += ["```", "", "| stage | trigger | next stages | when |", "|---|---|---|---|"]
    for t in TRANSITIONS:
        lines.append(f"| {t.source.value} | `{t.trigger}` | {', '.join(str(x) for x in t.targets)} | {t.when} |")
    lines += ["", "## Stages", ""]
    for stage in Stage:
        lines.append(f"- `{stage.value}`")
    lines.append("")
    return "\n".join(lines)
