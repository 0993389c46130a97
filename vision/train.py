"""Train the index reader: `python -m vision.train` (needs the `train` extra: torch, onnx, pillow).

Makes the training crops (`vision.trainset`, cached under ~/.cache/cardtable), trains a small CNN on two
cores, sets its softmax temperature on the validation split, and writes the ONNX model and its metadata
(`vision/model/index-reader.onnx` and `.json`) which `vision.read` runs with ONNX Runtime.
The split is fixed here and written in docs/vision-model.md: the photographs of the `phone_b_blackdeck` and
`webcam_b` groups and all of real-photos-dev are never trained on (test), one phone_a photo in five is the
validation split, and `--exclude` leaves deck designs out (the leave-one-deck-out benchmark).
"""

from __future__ import annotations

import argparse
import csv
import functools
import hashlib
import json
import os
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision import trainset as ts
from vision.rectify import CROP_H, CROP_W, to_blob

DEFAULT_DATASETS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets"
MODEL_DIR = Path(__file__).resolve().parent / "model"
CACHE = Path.home() / ".cache" / "cardtable"
TRAIN_GROUPS = ("phone_a", "webcam_a", "index_crop")
TEST_GROUPS = ("phone_b_blackdeck", "webcam_b")
EMBEDDING = 128


def is_validation_photo(name: str) -> bool:
    """One phone_a photograph in five, by a stable hash of its name, is validation."""
    return zlib.crc32(name.encode()) % 5 == 0


def photo_rows(split: str) -> Any:
    def keep(row: dict[str, str]) -> bool:
        group = row["group"]
        if group in TEST_GROUPS:
            return split == "test"
        if group == "phone_a" and is_validation_photo(row["filename"]):
            return split == "validation"
        return split == "train" and group in TRAIN_GROUPS
    return keep


def build_sources(datasets: Path, split: str) -> ts.Sources:
    decks = [ts.load_deck(p) for p in ts.deck_folders(datasets)]
    decks += ts.procedural_decks()
    labels = datasets / "cardcounterml-photos" / "labels.csv"
    boxes: list[ts.IndexBox] = []
    backs: list[ts.IndexBox] = []
    windows: list[ts.SceneWindow] = []
    if labels.exists():
        keep = photo_rows(split)
        boxes = ts.index_boxes(labels, keep=keep)
        folder = labels.parent / "images"
        backs = [ts.IndexBox(folder / r["filename"], "back",
                             (float(r["xmin"]), float(r["ymin"]), float(r["xmax"]), float(r["ymax"])), 0.0)
                 for r in csv.DictReader(labels.open(encoding="utf-8"))
                 if r["card"] == "back" and r["suspect"] != "1" and keep(r)]
        windows = _scene_windows(labels, split)
    return ts.Sources(decks, boxes, backs, scene_windows=windows)


@functools.cache
def _scene_windows(labels: Path, split: str) -> list[ts.SceneWindow]:
    """The same for every deck left out: made once per process."""
    return ts.scene_windows(labels, keep=photo_rows(split), propose=_read_windows)


def _read_windows(image: npt.NDArray[np.uint8]) -> list[npt.NDArray[np.float32]]:
    """The card quads whose first corner's index window the pipeline reads in a photograph: both corners of
    every outline, and every corner proposed from two edges or from index glyphs (the reader's false names
    in the training photographs are read from these, so its hardest negatives come from them)."""
    from vision.detect import find_cards
    found = find_cards(image)
    return [*(q for o in found.outlines for q in (o, np.roll(o, -2, axis=0))),
            *(q for c in found.corners for q in c.cards())]


Crops = tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.str_]]


def cached_samples(datasets: Path, split: str, n: int, seed: int) -> Crops:
    """`n` crops of every deck design, their labels and the deck design each was made from ("" for fonts and
    photographs). One set serves every leave-one-deck-out fold (`without`), and the first n crops of a larger
    cached set of the same seed are the set of n, so a smaller budget reuses it too."""
    errata = sorted(f"{name} {labelled} {actual}" for (name, labelled), actual in ts.label_errata().items())
    key = hashlib.sha256(json.dumps([split, seed, ts.__doc__, errata]).encode()).hexdigest()[:16]
    for cached in sorted(CACHE.glob(f"index-crops-{key}-*.npz"), key=lambda p: int(p.stem.rsplit("-", 1)[1])):
        if int(cached.stem.rsplit("-", 1)[1]) >= n:
            with np.load(cached) as z:
                return z["x"][:n], z["y"][:n], z["deck"][:n]
    t0 = time.time()
    src = build_sources(datasets, split)
    xs, ys, ds = ts.samples(src, n, seed)
    names = np.array(["", *(d.name for d in src.decks)])[ds.astype(np.int64) + 1]
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"index-crops-{key}-{n}.npz"
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, x=xs, y=ys, deck=names)
    tmp.replace(path)
    print(f"made {n} {split} crops in {time.time() - t0:.0f} s", file=sys.stderr)
    return xs, ys, names


def without(crops: Crops, exclude: tuple[str, ...]) -> Crops:
    """The crops not made from the deck designs `exclude` names."""
    keep = ~np.isin(crops[2], exclude)
    return crops[0][keep], crops[1][keep], crops[2][keep]


def build_model() -> Any:
    import torch
    from torch import nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.MaxPool2d(2)]

    class IndexReader(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            first = [nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
                     nn.MaxPool2d(2)]
            self.features = nn.Sequential(*first, *block(16, 32), *block(32, 64), nn.Flatten(),
                                          nn.Dropout(0.3),
                                          nn.Linear(64 * (CROP_H // 8) * (CROP_W // 8), EMBEDDING), nn.ReLU())
            self.head = nn.Linear(EMBEDDING, len(ts.CLASSES) + 1)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            e = self.features(x)
            return self.head(e), e

    return IndexReader()


def _jitter(x: Any, rng: np.random.Generator) -> Any:
    """Each batch shifted by up to 2 px (an outline found a little off)."""
    import torch

    dx, dy = (int(v) for v in rng.integers(-2, 3, 2))
    return torch.roll(x, shifts=(dy, dx), dims=(2, 3))


def train(datasets: Path, *, seed: int, samples: int, epochs: int, exclude: tuple[str, ...] = (),
          threads: int = 2, log: bool = True) -> tuple[Any, float, dict[str, Any]]:
    """The trained model, its temperature and figures on the validation split."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    xs, ys, _ = without(cached_samples(datasets, "train", samples, seed), exclude)
    vx, vy, _ = without(cached_samples(datasets, "validation", max(2000, samples // 10), seed + 1), exclude)
    x = torch.from_numpy(to_blob(list(xs)))
    y = torch.from_numpy(ys)
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 128
    steps = epochs * (len(x) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    t0 = time.time()
    for epoch in range(epochs):
        model.train()
        order = torch.from_numpy(rng.permutation(len(x)))
        total = 0.0
        for i in range(len(x) // batch):
            idx = order[i * batch:(i + 1) * batch]
            logits, _ = model(_jitter(x[idx], rng))
            loss = loss_fn(logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        if log:
            acc = accuracy(model, vx, vy)
            print(f"epoch {epoch + 1}/{epochs}: loss {total / (len(x) // batch):.3f}, validation accuracy "
                  f"{acc:.3f} ({time.time() - t0:.0f} s)", file=sys.stderr)
    model.eval()
    logits = _logits(model, vx)
    temperature = fit_temperature(logits, vy)
    figures = {"validation_crops": len(vy), "validation_accuracy": round(accuracy(model, vx, vy), 4),
               "temperature": round(temperature, 3), "train_crops": len(ys), "seconds": round(time.time() - t0)}
    return model, temperature, figures


def _logits(model: Any, xs: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    import torch

    model.eval()
    with torch.no_grad():
        out = [model(torch.from_numpy(to_blob(list(xs[i:i + 512]))))[0].numpy() for i in range(0, len(xs), 512)]
    return np.concatenate(out).astype(np.float32)


def accuracy(model: Any, xs: npt.NDArray[np.uint8], ys: npt.NDArray[np.int64]) -> float:
    return float((_logits(model, xs).argmax(axis=1) == ys).mean())


def fit_temperature(logits: npt.NDArray[np.float32], labels: npt.NDArray[np.int64]) -> float:
    """The softmax temperature minimising the validation split's negative log-likelihood."""
    best, best_t = float("inf"), 1.0
    for t in np.exp(np.linspace(np.log(0.3), np.log(5.0), 60)):
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        nll = float(-(z[np.arange(len(z)), labels] - np.log(np.exp(z).sum(axis=1))).mean())
        if nll < best:
            best, best_t = nll, float(t)
    return best_t


def export(model: Any, temperature: float, figures: dict[str, Any], out: Path, meta: dict[str, Any]) -> None:
    import torch

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.onnx")
    torch.onnx.export(model, (torch.zeros(1, 1, CROP_H, CROP_W),), str(tmp), dynamo=False, opset_version=13,
                      input_names=["crop"], output_names=["logits", "embedding"],
                      dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}})
    tmp.replace(out)
    from vision.read import MODEL_FORMAT

    doc = {"format": MODEL_FORMAT, "classes": [*ts.CLASSES, "none"], "crop": [CROP_W, CROP_H],
           "temperature": temperature, "sha256": hashlib.sha256(out.read_bytes()).hexdigest(), **meta,
           "figures": figures}
    out.with_suffix(".json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.splitlines()[0])
    p.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    p.add_argument("--out", type=Path, default=MODEL_DIR / "index-reader.onnx")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--samples", type=int, default=320000)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--threads", type=int, default=1, help="torch threads (others share the machine)")
    p.add_argument("--exclude", action="append", default=[], metavar="DECK", help="leave this deck design out")
    args = p.parse_args(argv)
    if not args.datasets.is_dir():
        print(f"python -m vision.train: error: {args.datasets}: no such data-set folder", file=sys.stderr)
        return 2
    model, temperature, figures = train(args.datasets, seed=args.seed, samples=args.samples, epochs=args.epochs,
                                        exclude=tuple(args.exclude), threads=args.threads)
    meta = {"command": " ".join(["python -m vision.train", *(argv if argv is not None else sys.argv[1:])]),
            "seed": args.seed, "samples": args.samples, "epochs": args.epochs, "excluded_decks": args.exclude}
    export(model, temperature, figures, args.out, meta)
    print(json.dumps({"model": str(args.out), **figures}))
    return 0


def _main_quiet_on_closed_pipe() -> int:
    """`main`, ended as `cardtable` ends when the reader of its output goes away (`| head`): quietly, exit 141
    (table_controller/cli/closed_pipe.py says why; vision may not import it). Nothing is lost: the crops and the
    model are each written to a temporary file and renamed before a line is printed about them. This program
    writes to no pipe but stdout and stderr, so a broken pipe is one of them."""
    try:
        code = main()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):  # what is left in their buffers goes nowhere at exit
            os.dup2(devnull, stream.fileno())
        os.close(devnull)
        return 141


if __name__ == "__main__":
    sys.exit(_main_quiet_on_closed_pipe())
