from __future__ import annotations

from table_controller.service.models import FloorSeat, FloorView, GameView, LegalAction, LogEntry
from table_controller.service.views import broadcast_view, dealer_view, public_view
from tests.service.leaks import leaked_cards

GAME = GameView(form="jackpots", betting="fixed_limit", stakes={"ante": 1})


def _full(draw_counts_public: bool = True) -> FloorView:
    return FloorView(
        table_id="t1", name="T", game=GAME, hand=3, phase="betting", to_act=2,
        seats=(
            FloorSeat(seat=1, name="Ann", stack=90, status="active", cards=5, hole=("As", "Ah", "Kd", "Kc", "2s"),
                      shown=("As",), drew=2),
            FloorSeat(seat=2, name="Bo", stack=80, status="active", cards=5, hole=("Qs", "Jh", "9d", "9c", "3s"),
                      to_act=True, drew=1),
        ),
        log=(LogEntry(seq=1, text="Bo bets 2"), LogEntry(seq=2, text="Ann holds As Ah Kd Kc 2s", secret=True)),
        legal=(LegalAction(act="call", label="Call 2", to=2),),
        alerts=(),
    )


SECRET = {"Ah", "Kd", "Kc", "2s", "Qs", "Jh", "9d", "9c", "3s"}


def test_public_view_has_no_hole_cards_and_no_secret_log() -> None:
    pub = public_view(_full())
    assert pub.view == "public"
    assert leaked_cards(pub.model_dump_json(), SECRET) == set()
    assert [e.text for e in pub.log] == ["Bo bets 2"]
    assert pub.seats[0].shown == ("As",)
    assert not hasattr(pub, "legal")


def test_dealer_view_has_actions_but_no_hole_cards() -> None:
    d = dealer_view(_full(draw_counts_public=False))
    assert d.view == "dealer"
    assert leaked_cards(d.model_dump_json(), SECRET) == set()
    assert d.legal[0].label == "Call 2"
    assert d.seats[0].drew == 2  # the dealer served the draw: he knows the counts


def test_draw_counts_follow_the_house_rule() -> None:
    full = _full().model_copy(update={"draw_counts_public": False})
    assert [s.drew for s in public_view(full).seats] == [None, None]
    assert [s.drew for s in public_view(_full()).seats] == [2, 1]


def test_broadcast_view_carries_hole_cards() -> None:
    b = broadcast_view(_full(), delay_s=30)
    assert b.seats[1].hole == ("Qs", "Jh", "9d", "9c", "3s")
    assert b.delay_s == 30


def test_leak_finder_finds_leaks() -> None:
    assert leaked_cards('{"log": ["shows Kd"]}', SECRET) == {"Kd"}
    assert leaked_cards('{"seats": [{"hole": []}]}', SECRET) == {"hole"}
    assert leaked_cards('{"text": "AKd Kdx"}', SECRET) == set()
