"""The trained index spotter: the committed model loads and runs in ONNX Runtime, finds the corner indices of a
rendered card at several turns and sizes with their turn and window width, and a missing, corrupt or foreign model
file is refused with a one-line error naming it."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware_sim.camera import (
    PlacedCard,
    RenderOptions,
    TableScene,
    procedural_faces,
    random_scene,
    render_with_truth,
)
from vision.errors import VisionInputError
from vision.pipeline import Recognizer
from vision.rectify import CORNER_W, gray, holds
from vision.spot import DEFAULT_MODEL, IndexSpotter, default_spotter


def test_model_is_small_and_described() -> None:
    assert DEFAULT_MODEL.stat().st_size <= 1_000_000
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    assert meta["stride"] == 4 and meta["input"]["multiple"] == 32
    assert 0 < meta["index_centre"][0] < 1 and 0 < meta["index_centre"][1] < 1


@pytest.mark.parametrize(("angle", "zoom"), [(0.0, 1.0), (35.0, 1.0), (120.0, 1.6), (200.0, 2.2), (-70.0, 3.0)])
def test_a_rendered_cards_indices_are_spotted_with_their_turn_and_size(angle: float, zoom: float) -> None:
    scene = TableScene(cards=(PlacedCard(card="7h", x=400.0, y=225.0, angle=angle),))
    frame = render_with_truth(scene, 3, RenderOptions(faces=procedural_faces(1), perspective=0.0))
    image = np.asarray(cv2.resize(frame.image, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_LINEAR), np.uint8)
    card = frame.truth[0]
    corners = np.array(card.corners) * zoom
    width = float(np.linalg.norm(corners[1] - corners[0]))
    spots = default_spotter().spots(gray(image), 1.0, 0.3)
    assert len(card.indices) == 2
    for k, centre in enumerate(np.array(card.indices) * zoom):
        near = [s for s in spots if math.dist(s.centre, centre) < 0.1 * width]
        assert near, f"index {k} at {centre} not spotted"
        q = corners if math.dist(corners[0], centre) < math.dist(corners[2], centre) else np.roll(corners, -2, axis=0)
        short = (q[1] - q[0]) / np.linalg.norm(q[1] - q[0])
        assert float(np.dot(near[0].along_short, short)) > math.cos(math.radians(25))
        assert 0.75 < near[0].window / (CORNER_W * width) < 1.33
    assert len([s for s in spots if not any(math.dist(s.centre, c) < 0.1 * width for c in
                                           np.array(card.indices) * zoom)]) <= 2


def test_bad_model_files_are_refused(tmp_path: Path) -> None:
    model = tmp_path / "s.onnx"
    with pytest.raises(VisionInputError, match=r"s\.onnx: no such model file"):
        IndexSpotter(model)
    shutil.copy(DEFAULT_MODEL, model)
    with pytest.raises(VisionInputError, match=r"s\.json: no such model file"):
        IndexSpotter(model)
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    model.with_suffix(".json").write_text(json.dumps({**meta, "format": "cardtable-index-spotter-0"}))
    with pytest.raises(VisionInputError, match="not a cardtable-index-spotter-1 model description"):
        IndexSpotter(model)
    model.with_suffix(".json").write_text(json.dumps({**meta, "stride": None}))
    with pytest.raises(VisionInputError, match="input, stride or framing is missing"):
        IndexSpotter(model)
    model.with_suffix(".json").write_text(json.dumps(meta))
    assert IndexSpotter(model).spots(np.full((96, 128), 200, np.uint8), 1.0, 0.5) == []
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(VisionInputError, match="does not match its metadata") as refused:
        IndexSpotter(model)
    assert "\n" not in str(refused.value)
    garbage = b"no network at all"  # described truly by its metadata, yet no model
    model.write_bytes(garbage)
    model.with_suffix(".json").write_text(json.dumps({**meta, "sha256": hashlib.sha256(garbage).hexdigest()}))
    with pytest.raises(VisionInputError, match="ONNX Runtime cannot load this model"):
        IndexSpotter(model)


@pytest.mark.parametrize("style", [0, 1])
def test_a_card_with_a_small_index_on_a_light_desk_is_named_by_its_spotted_index(style: int) -> None:
    """A king lying turned on a light desk, its outline not found whole and its small index's rank and suit not
    paired as glyphs: the spotter finds its index, and the reader names it there."""
    scene = random_scene(204, cards=8, face_down=0.2, surface="desk")
    frame = render_with_truth(scene, 204, RenderOptions(faces=procedural_faces(style)))
    king = next(t for t in frame.truth if t.card == "Ks")
    dets = Recognizer().identify(frame.image)
    assert any(d.card == "Ks" and any(holds(d.quad, p) for p in king.indices) for d in dets)


def test_a_photograph_card_in_the_errata_is_a_spotter_centre_not_masked(tmp_path: Path) -> None:
    """The spotter's training photographs: a card the errata correct gives both its indices as centres, not also as
    unpaired boxes masked out of the loss (its rows are matched by the card the errata name)."""
    from vision.spot_train import photo_pictures
    from vision.trainset import label_errata

    (name, labelled), _ = next(iter(label_errata().items()))
    folder = tmp_path / "cardcounterml-photos"
    (folder / "images").mkdir(parents=True)
    cv2.imwrite(str(folder / "images" / name), np.full((640, 640, 3), 200, np.uint8))
    (folder / "labels.csv").write_text(
        "filename,width,height,card,xmin,ymin,xmax,ymax,box_kind,suspect,group\n"
        f"{name},640,640,{labelled},100,100,130,150,index,0,webcam_a\n"
        f"{name},640,640,{labelled},300,380,330,430,index,0,webcam_a\n", encoding="utf-8")
    (picture,) = photo_pictures(tmp_path)
    assert len(picture.indices) == 2 and not any(i.masked for i in picture.indices)
