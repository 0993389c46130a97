"""What the controller shows: the full state after each change, for listeners and the API.

The full state (hole cards included) is built here; each role's view is cut from it in
``table_controller.service.views``. Listeners (the stream hub) get it after each change; the broadcast reads
it as it stood some seconds ago.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from table_controller.controller.core import (
    Listener,
    Moment,
    TableCore,
)
from table_controller.controller.devices import (
    KeepsFrames,
    ReadsShownHands,
)
from table_controller.controller.errors import (
    NotAllowedError,
    NotFoundError,
)
from table_controller.controller.hand import IRREGULARITIES, EngineHand
from table_controller.controller.machine import HOLDS, Stage
from table_controller.controller.views import (
    DeviceView,
    GameView,
    HandSummary,
    IrregularityOption,
    LegalAction,
    PromptView,
    SeatStatus,
    SeatView,
    TableSummary,
    TableView,
)
from table_controller.engine.books import cite
from table_controller.engine.cards import UNKNOWN_CODE
from table_controller.engine.config import GameConfig, config_to_json

__all__ = ["TableReads"]

class TableReads(TableCore):
    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def notify(self) -> None:
        if self._replaying or not self._listeners:
            return
        full = self.full_view()
        self._snapshots.append((self.monotonic(), full))
        for listener in list(self._listeners):
            listener(full)

    def game_view(self) -> GameView:
        game = config_to_json(self.game_in_play)
        return GameView(form=game["form"], betting=game["betting"], stakes=game["stakes"])

    def game_change(self) -> str | None:
        """When the journal's latest hand was dealt with another game than new hands deal (the settings changed
        the stakes or a house rule since): a line saying both; None when they are the same."""
        last = self.dealt_game
        if last is None or last == self.config:
            return None
        return (f"the journal's last hand (#{self.hand_no}) was dealt as {_game_text(last, self.config)}; new hands "
                f"deal {_game_text(self.config, last)}")

    def _seat_views(self, to_act: int | None) -> list[SeatView]:
        out: list[SeatView] = []
        hand_seats = self.hand.seat_info() if self.hand is not None else {}
        dealt: dict[int, list[str]] = {}
        if self._deal is not None:
            for k, code in enumerate(self._deal.cards):
                dealt.setdefault(self._deal.order[k % len(self._deal.order)], []).append(code)
        finished = self.finished.seat_info() if self.finished is not None and self.hand is None else {}
        in_deal = {n for n, _, _ in self._deal.seats} if self._deal is not None else set()
        for n in range(1, self.settings.seats + 1):
            st = self.seats.get(n)
            info = hand_seats.get(n)
            button = n == self.button
            if info is not None:
                out.append(SeatView(
                    seat=n, name=info.name, stack=info.stack, bet=info.bet, status=info.status, cards=len(info.hole),
                    shown=info.shown, drew=info.drew, hole=info.hole, button=button, to_act=n == to_act,
                    opener=info.opener, candidates=self._candidates.get(n, ()) if UNKNOWN_CODE in info.hole else (),
                ))
            elif st is None:
                out.append(SeatView(seat=n))
            elif n in in_deal:
                cards = tuple(dealt.get(n, ()))
                out.append(SeatView(seat=n, name=st.name, stack=st.stack, status="active", cards=len(cards),
                                     hole=cards, button=button))
            else:
                done = finished.get(n)
                shown = done.shown if done is not None else ()
                status: SeatStatus = "sitting_out" if st.sitting_out else "waiting"
                out.append(SeatView(seat=n, name=st.name, stack=st.stack, status=status, cards=len(shown),
                                     shown=shown, drew=done.drew if done is not None else None, button=button))
        return out

    def full_view(self) -> TableView:
        hand = self.hand
        live = hand is not None and self.stage is Stage.PLAYING
        to_act = hand.to_act() if live and hand is not None else None
        pots = hand.pots() if hand is not None else ()
        status = self.shoe.status()
        camera_state, camera_detail = ("none", "no camera") if self.camera is None else self.camera.status()
        phase = "halted" if self.halted else "paused" if self.paused else self.phase
        return TableView(
            table_id=self.table_id,
            name=self.settings.table_name,
            game=self.game_view(),
            hand=self.hand_no,
            phase=phase,  # type: ignore[arg-type]
            message=cite(self.message),
            button=self.button,
            to_act=to_act,
            pots=pots,
            pot_total=sum(p.amount for p in pots) if pots else (self.carried_pot if hand is None else 0),
            carried_pot=self.carried_pot if hand is None else hand.carried_in,
            seats=tuple(self._seat_views(to_act)),
            awards=self.last_awards,
            log=tuple(self._log),
            paused=self.stage in HOLDS,
            draw_counts_public=self.settings.public_draw_counts,
            legal=self._legal(hand, to_act) if live and hand is not None else (),
            draw=hand.draw_entry() if live and hand is not None else None,
            irregularities=self.irregularity_options(),
            device=DeviceView(shoe=status.state, shoe_detail=status.detail, cards_left=status.cards_left,
                              reader=self.shoe.has_reader, camera=camera_state, camera_detail=camera_detail),
            prompts=tuple(PromptView(id=p.id, kind=p.kind, message=cite(p.message), rule=cite(p.rule or "") or None,
                                     options=p.options) for p in self._prompts.values()),
            alerts=tuple(self._alerts),
            rulings=tuple(self._rulings),
        )

    def _legal(self, hand: EngineHand, seat: int | None) -> tuple[LegalAction, ...]:
        acts = hand.legal()
        if seat is None or not any(a.needs_cards for a in acts) or not self._camera_reads_shows(seat):
            return acts
        # A live camera reads the hand laid face up: the dealer confirms "hand shown" with one tap, and the
        # camera's reading (checked against what the seat may hold) is used, not 5 taps out of 52. Until it
        # has read the hand the cards are still needed (a client may name them); once read, they are not.
        read = self._cards_from_camera(seat) is not None
        label = "(read by the camera)" if read else "· camera reads it"
        return tuple(replace(a, needs_cards=not read, label=a.label.replace(
            "(enter the cards)", label).replace("Show hand", "Hand shown")) if a.needs_cards else a for a in acts)

    def delayed_view(self, delay_s: float) -> TableView:
        """The full state as it stood ``delay_s`` seconds ago (the broadcast's hole cards lag the table)."""
        cutoff = self.monotonic() - delay_s
        chosen: TableView | None = None
        for at, view in self._snapshots:
            if at > cutoff:
                break
            chosen = view
        if chosen is None:
            return TableView(table_id=self.table_id, name=self.settings.table_name,
                             game=self.game_view(), hand=0, message="broadcast delay: nothing to show yet")
        return chosen

    def summary(self) -> TableSummary:
        full = self.full_view()
        return TableSummary(table_id=self.table_id, name=self.settings.table_name, game=full.game,
                            hand=self.hand_no, phase=full.phase, players=len(self.seats))

    def irregularity_options(self) -> tuple[IrregularityOption, ...]:
        if self.hand is None and self._deal is None:
            return ()
        return tuple(IrregularityOption(kind=k, label=v.label, rule=cite(v.rule), needs_seat=v.needs_seat,
                                        needs=v.needs) for k, v in IRREGULARITIES.items())

    def history(self) -> list[HandSummary]:
        return list(self._history)

    def hand_record(self, hand: int) -> dict[str, Any]:
        record = self._records.get(hand)
        if record is None:
            raise NotFoundError(f"no finished hand {hand} at this table")
        return record

    def alert_frame_jpeg(self, alert_id: str) -> bytes:
        """The camera frame a camera alert was raised on (alert_frames.py keeps those of the latest alerts)."""
        alert = next((a for a in self._alerts if a.id == alert_id), None)
        frame = self.alert_frames.get(alert_id, round(alert.at * 1000)) if alert is not None else None
        if frame is None:
            known = alert is not None
            raise NotFoundError(f"no camera frame kept for alert {alert_id!r}" if known else f"no alert {alert_id!r}",
                                code="no_frame")
        return frame

    def hand_story(self, hand: int) -> str:
        """A finished hand as the plain-text history (the acts, and the table's halts, alerts and rulings)."""
        record = self.hand_record(hand)
        from table_controller.engine.phh import to_text
        from table_controller.engine.record import replay

        try:
            return to_text(record, replay(record))
        except Exception as exc:  # a record the engine cannot replay: say so, the raw record is still there
            raise NotAllowedError(f"hand {hand}'s record does not replay: {exc}", code="bad_record") from exc

    def audit_hole_cards(self, *, role: str, client: str, hand: int, via: str) -> None:
        self.journal.audit(role=role, who=client or "unknown", why=f"{role} view via {via}", hand=hand or None)

    def camera_frame_jpeg(self) -> bytes | None:
        return self.camera.frame_jpeg() if isinstance(self.camera, KeepsFrames) else None

    def camera_detections(self) -> list[dict[str, Any]]:
        return self.camera.detections() if isinstance(self.camera, KeepsFrames) else []

    def moment(self) -> Moment:
        """Now, as a camera frame taken now will be judged (see :meth:`camera_reading`)."""
        holes: dict[int, tuple[str, ...]] = {}
        if self.hand is not None:
            holes = {n: info.hole for n, info in self.hand.seat_info().items()}
        return Moment(hand=self.hand_no, phase=self.phase, holes=holes)

    def _camera_reads_shows(self, seat: int) -> bool:
        """Whether the dealer's one tap "hand shown" stands for the camera's reading of the seat's hand."""
        hand = self.hand
        if hand is None or not isinstance(self.camera, ReadsShownHands):
            return False
        try:
            return UNKNOWN_CODE in hand.hole(seat) and self.camera.status()[0] == "live"
        except Exception:
            return False

    def _cards_from_camera(self, seat: int) -> tuple[str, ...] | None:
        """A shown hand the table could not read from the shoe, as the camera read it face up (if it did)."""
        hand = self.hand
        camera = self.camera
        if hand is None or not isinstance(camera, ReadsShownHands):
            return None
        try:
            unread = UNKNOWN_CODE in hand.hole(seat)
        except Exception:
            return None
        if not unread:
            return None
        return camera.shown_cards(seat, self.hand_no)


def _game_text(game: GameConfig, other: GameConfig) -> str:
    """``game`` in a few words: form, betting and stakes, and the house options where they differ from ``other``'s
    (a live table's options are rarely the defaults, and rarely change)."""
    g, o = config_to_json(game), config_to_json(other)
    text = f"{g['form']}, {g['betting']}, stakes {g['stakes']}"
    if g["options"] != o["options"]:
        text += f", house options {g['options']}"
    return text
