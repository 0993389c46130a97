"""A black deck on wood (skipped with a reason when ../shared/datasets is absent): a court card's gold picture is
the table's colour, so only the card's thin dark border tells it from the table; each lies across a line drawn on
the table, as cards in a seat's zone do."""

from __future__ import annotations

import pytest

from hardware_sim.camera import PlacedCard, RenderOptions, TableScene, load_face_set, render
from tests.vision.helpers import DATASETS
from vision.pipeline import Recognizer

pytestmark = pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (a fresh clone)")

# centres on the zones' lines: a far seat's near edge, a near seat's far edge, the pot's left edge and the
# discard area's far edge (hardware_sim's default layout)
COURT_CARDS = (PlacedCard(card="Kc", x=150.0, y=132.0, angle=20.0),
               PlacedCard(card="Qs", x=420.0, y=318.0, angle=-35.0),
               PlacedCard(card="Jd", x=120.0, y=225.0, angle=75.0),
               PlacedCard(card="Kh", x=600.0, y=150.0, angle=5.0))


@pytest.mark.parametrize("seed", [3, 4])
def test_black_court_cards_on_wood_across_zone_lines_are_read(seed: int) -> None:
    faces = load_face_set(DATASETS / "aisleriot-decks" / "atlasnye").black()
    frame = render(TableScene(cards=COURT_CARDS, surface="wood"), seed, RenderOptions(faces=faces))
    named = sorted(d.card for d in Recognizer().identify(frame) if d.card)
    assert named == sorted(c.card for c in COURT_CARDS)
