"""Rank-only deck calibration from labelled photographs (`vision.labelled`), the sure-rank reading and
`calibrate-deck --labels`. Photographs are rendered scenes whose labels come from the renderer's truth."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, procedural_faces, random_scene, render_with_truth
from table_controller.cli import main
from vision.errors import VisionInputError
from vision.geometry import warp_card
from vision.glyphs import rank_mask
from vision.identify import read_card
from vision.labelled import SCORE_FLOOR, LabelledCard, calibrate_ranks, rank_from_label, read_labels
from vision.pipeline import Detection, Recognizer
from vision.profile import RANK_SHAPE, DeckProfile, TemplateSet, default_profile

SQUARE = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
WORD = {"9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}


def _photos(folder: Path, seeds: range) -> tuple[Path, dict[str, list[LabelledCard]]]:
    """Rendered photos of one procedural deck and a labels.csv of their fully visible face-up cards."""
    options = RenderOptions(faces=procedural_faces(1))
    rows = ["filename,width,height,class,xmin,ymin,xmax,ymax"]
    labels: dict[str, list[LabelledCard]] = {}
    for seed in seeds:
        frame = render_with_truth(random_scene(seed, cards=8, face_down=0.0), seed, options)
        name = f"photo{seed}.png"
        cv2.imwrite(str(folder / name), frame.image)
        for truth in frame.truth:
            if not truth.face_up or truth.visible < 0.999:
                continue
            xs, ys = [p[0] for p in truth.corners], [p[1] for p in truth.corners]
            box = (min(xs), min(ys), max(xs), max(ys))
            word = WORD.get(truth.card[0], truth.card[0])
            rows.append(f"{name},1280,720,{word},{box[0]:.0f},{box[1]:.0f},{box[2]:.0f},{box[3]:.0f}")
            labels.setdefault(name, []).append(LabelledCard(rank=truth.card[0], box=box))
    csv = folder / "labels.csv"
    csv.write_text("\n".join(rows) + "\n")
    return csv, labels


def test_rank_labels_words_and_printed_ranks() -> None:
    assert [rank_from_label(x) for x in ("nine", "Ten", "10", "T", "q", "ace", "2")] == ["9", "T", "T", "T", "Q",
                                                                                         "A", "2"]
    for bad in ("joker", "", "1", "11"):
        with pytest.raises(VisionInputError):
            rank_from_label(bad)


def test_read_labels_csv_voc_file_and_folder(tmp_path: Path) -> None:
    (tmp_path / "l.csv").write_text("filename,width,height,class,xmin,ymin,xmax,ymax\n"
                                    "a/b.jpg,10,10,queen,1,2,30,40\nb.jpg,10,10,10,5,5,9,9\n")
    got = read_labels(tmp_path / "l.csv")
    assert got == {"b.jpg": [LabelledCard(rank="Q", box=(1, 2, 30, 40)), LabelledCard(rank="T", box=(5, 5, 9, 9))]}
    voc = tmp_path / "voc"
    voc.mkdir()
    (voc / "c.xml").write_text("<annotation><filename>c.jpg</filename><object><name>king</name><bndbox>"
                               "<xmin>3</xmin><ymin>4</ymin><xmax>50</xmax><ymax>70</ymax></bndbox></object>"
                               "</annotation>")
    assert read_labels(voc / "c.xml") == read_labels(voc) == {"c.jpg": [LabelledCard(rank="K", box=(3, 4, 50, 70))]}


@pytest.mark.parametrize("text", [
    "filename,class,xmin\nb.jpg,queen,1\n",  # columns missing
    "filename,class,xmin,ymin,xmax,ymax\nb.jpg,joker,1,2,3,4\n",  # not a rank
    "filename,class,xmin,ymin,xmax,ymax\nb.jpg,queen,1,2,x,4\n",  # not a number
    "filename,class,xmin,ymin,xmax,ymax\nb.jpg,queen,5,5,1,9\n",  # empty box
])
def test_bad_label_files_are_input_errors(tmp_path: Path, text: str) -> None:
    (tmp_path / "l.csv").write_text(text)
    with pytest.raises(VisionInputError):
        read_labels(tmp_path / "l.csv")


def test_bad_voc_and_missing_labels_are_input_errors(tmp_path: Path) -> None:
    (tmp_path / "x.xml").write_text("<annotation><object>")
    for path in (tmp_path / "x.xml", tmp_path / "none.csv", tmp_path / "empty"):
        if path.name == "empty":
            path.mkdir()
        with pytest.raises(VisionInputError):
            read_labels(path)


def test_detection_rank_follows_the_card_and_is_checked() -> None:
    named = Detection(card="Qs", face="up", confidence=0.9, corners=SQUARE)
    assert named.rank == "Q" and named.to_json()["rank"] == "Q"
    rank_only = Detection(card=None, face="up", confidence=0.7, corners=SQUARE, rank="T")
    assert rank_only.to_json()["card"] is None and rank_only.to_json()["rank"] == "T"
    for bad in ({"card": "Qs", "rank": "K"}, {"card": None, "rank": "X"}, {"card": None, "rank": "10"}):
        with pytest.raises(ValueError):
            Detection(face="up", confidence=0.5, corners=SQUARE, **bad)
    with pytest.raises(ValueError):
        Detection(card=None, face="down", confidence=0.0, corners=SQUARE, rank="Q")


def test_a_sure_rank_is_reported_when_the_suit_is_not() -> None:
    frame = render_with_truth(random_scene(21, cards=6, face_down=0.0), 21, RenderOptions(blur=0.3, noise=1.0))
    base = default_profile()
    no_suits = replace(base, min_suit_score=2.0)  # no suit can ever be sure
    named = ranks = 0
    for truth in frame.truth:
        card = warp_card(frame.image, np.array(truth.corners, np.float32))
        full, rank_only = read_card(card, base), read_card(card, no_suits)
        assert rank_only.card is None
        if full.card is not None:
            named += 1
            assert full.rank == full.card[0]
            # The suit was what made the card sure: the rank alone passes the same rank test.
            ranks += rank_only.rank == full.card[0]
        assert rank_only.rank in (None, truth.card[0])
    assert named >= 3 and ranks == named


def test_calibrate_ranks_learns_a_deck_and_reads_other_photos(tmp_path: Path) -> None:
    _, labels = _photos(tmp_path, range(40, 50))
    # A base profile that knows no rank of this deck (only a "2" of another font): whatever ranks are
    # read afterwards were learnt from the labelled photos.
    blind = replace(default_profile(), ranks=TemplateSet.build([("2", rank_mask("2", cv2.FONT_HERSHEY_PLAIN, 0.12))],
                                                               RANK_SHAPE))
    cal = calibrate_ranks({tmp_path / name: cards for name, cards in labels.items()}, name="house", base=blind)
    p = cal.profile
    assert p.name == "house" and cal.kept <= cal.glyphs and cal.glyphs >= 20 and p.recut and p.search
    # Cross-validated reject rule, card by card, never below the search floor; these rendered photos hold
    # no outline of two cards at once, so no card was read wrong across the folds.
    assert p.min_rank_score >= SCORE_FLOOR and p.rank_margin >= 0.04 and cal.cv_right > cal.cv_wrong == 0
    assert cal.cv_read == cal.cv_right + cal.cv_wrong and cal.cv_right <= cal.cv_cards
    saved = tmp_path / "house.npz"
    p.save(saved)
    again = DeckProfile.load(saved)
    assert again.rank_margin == p.rank_margin and again.min_rank_score == p.min_rank_score
    for profile, least, most in ((blind, 0, 4), (again, 18, 24)):
        right = wrong = 0
        for seed in (90, 91, 92):
            frame = render_with_truth(random_scene(seed, cards=8, face_down=0.0), seed,
                                      RenderOptions(faces=procedural_faces(1)))
            found = Recognizer(profile).identify(frame.image)
            for truth in frame.truth:
                if truth.card[0] in cal.missing:
                    continue  # a rank never learnt may be taken for one that looks alike (documented)
                c = np.mean(np.array(truth.corners), axis=0)
                near = [d for d in found if float(np.hypot(*(np.array(d.center) - c))) < 20 and d.rank is not None]
                right += any(d.rank == truth.card[0] for d in near)
                wrong += any(d.rank != truth.card[0] for d in near)
        assert wrong == 0 and least <= right <= most, (profile.name, right)


def test_calibrate_ranks_needs_enough_photos(tmp_path: Path) -> None:
    _, labels = _photos(tmp_path, range(40, 42))
    with pytest.raises(VisionInputError, match="too few"):
        calibrate_ranks({tmp_path / name: cards for name, cards in labels.items()})


def test_cli_calibrate_deck_with_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv, labels = _photos(tmp_path, range(40, 46))
    images = [str(tmp_path / name) for name in sorted(labels)]
    out = tmp_path / "p.npz"
    assert main(["vision", "calibrate-deck", "--out", str(out), "--labels", str(csv), *images, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["glyphs"] >= report["kept"] > 0 and report["min_rank_score"] >= SCORE_FLOOR
    assert report["cross_validation"]["cards"] >= report["cross_validation"]["read"] > 0
    assert SCORE_FLOOR - 0.2 <= report["min_pair_score"] <= report["min_rank_score"]
    assert DeckProfile.load(out).min_rank_score == report["min_rank_score"]
    stray = tmp_path / "stray.png"
    cv2.imwrite(str(stray), np.full((64, 64, 3), 128, np.uint8))
    assert main(["vision", "calibrate-deck", "--out", str(out), "--labels", str(csv), *images, str(stray)]) == 2
    assert "no labels for this image" in capsys.readouterr().err
    assert main(["vision", "calibrate-deck", "--out", str(out), "--labels", str(csv), *images, "--no-default"]) == 2
    assert "--no-default" in capsys.readouterr().err
    assert main(["vision", "calibrate-deck", "--out", str(out), "--labels", str(tmp_path / "none.csv"), *images]) == 2
    assert "no such label file" in capsys.readouterr().err


@pytest.mark.parametrize(("long_side", "named"), [(140.0, True), (120.0, True), (105.0, False), (100.0, False)])
def test_near_square_outline_is_not_named(monkeypatch: pytest.MonkeyPatch, long_side: float, named: bool) -> None:
    """Two overlapping cards taken for one make a near-square outline whose corners may show either
    card's index: such an outline is reported face up but unnamed, whatever its corners read."""
    from vision import pipeline
    from vision.identify import CardReading

    quad = np.array([[100, 100], [200, 100], [200, 100 + long_side], [100, 100 + long_side]], np.float32)
    monkeypatch.setattr(pipeline, "find_cards", lambda image, card_size=None: [quad])
    monkeypatch.setattr(pipeline, "name_card",
                        lambda readings, profile, small=False: CardReading(card="Qs", face_up=True, confidence=0.9,
                                                                           rank="Q"))
    (d,) = Recognizer().identify(np.full((400, 400, 3), 200, np.uint8))
    assert d.face == "up" and (d.card, d.rank) == (("Qs", "Q") if named else (None, None))
