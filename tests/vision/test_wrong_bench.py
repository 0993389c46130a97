"""`bench.vision_wrong` sorts each named detection by what lies under its centre: the card on top there
(a face of its rank: right; another face's rank, a back, or no card at all: wrong, each counted apart)."""

from __future__ import annotations

from bench.vision_wrong import Tally, score, under
from hardware_sim.camera.render import CardTruth
from vision.pipeline import Detection


def _truth(card: str, x: float, *, face_up: bool = True) -> CardTruth:
    return CardTruth(card=card, face_up=face_up, corners=((x, 0.0), (x + 60, 0.0), (x + 60, 84.0), (x, 84.0)),
                     visible=1.0, index_visible=True)


def _named(rank: str | None, x: float) -> Detection:
    return Detection(card=None, face="up", confidence=0.9, rank=rank,
                     corners=((x - 10, 30.0), (x + 10, 30.0), (x + 10, 50.0), (x - 10, 50.0)))


def test_each_named_detection_is_sorted_by_what_lies_under_it() -> None:
    # A nine face up at x 0-60, a back over it from x 40 on (drawn later: on top), a king at 200-260.
    truth = [_truth("9h", 0), _truth("2s", 40, face_up=False), _truth("Kd", 200)]
    assert under(truth, (50.0, 40.0)) == truth[1]  # the later card is on top
    tally = Tally()
    for rank, x in (("9", 20), ("9", 70), ("Q", 230), ("K", 230), ("A", 150), (None, 20)):
        score(_named(rank, x), truth, ("p", "s", 1), tally)
    assert (tally.named, tally.right, tally.back, tally.rank, tally.off) == (5, 2, 1, 1, 1)
    assert tally.wrong == 3
    assert sorted(w.under for w in tally.wrongs) == ["Kd", "back", "off"]
