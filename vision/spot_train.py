"""Train the index spotter: `python -m vision.spot_train` (needs the `train` extra: torch, onnx).

The spotter is a small fully convolutional network on the grey frame that marks, on a grid of cells a quarter of
the input's pixels each way, where a corner index's centre lies (a heat logit), the turn of that index upright (the
cosine and sine of its x axis, the card's short side from the index corner), the log of its index window's width
(`vision.rectify.index_window`) and the centre's offset within its cell. `vision.spot` runs it at table time.

Its data, made here and cached under ~/.cache/cardtable (never in the repository):
- rendered table frames (`hardware_sim.camera`): cards spread apart, overlapping, fanned and held by hands, face up
  and face down, on felt, wood and a light desk, of every deck design, the simulator's procedural faces and the
  designs printed as a black deck; their scene seeds lie above the benchmark's;
- the training photographs (phone_a but its validation split, and webcam_a): each card whose two index boxes are
  labelled gives both indices' turns (`vision.trainset.index_boxes`); a lone box is masked out of the loss, as is
  an index a card or a hand partly covers in a rendered frame.
Patches of these are scaled (index windows 12-180 pixels wide), turned, lit, blurred, noised and JPEG-compressed
on the fly. The test groups and the validation photographs are never used.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision import trainset as ts
from vision.rectify import CORNER_W
from vision.train import CACHE, DEFAULT_DATASETS, MODEL_DIR, TEST_GROUPS, is_validation_photo

Image = npt.NDArray[np.uint8]
Rng = np.random.Generator

PATCH = 224  # training patch side, pixels (a multiple of the network's coarsest stride)
STRIDE = 4  # input pixels per output cell
WINDOW_RANGE = (12.0, 180.0)  # index window widths (pixels) the patches are scaled to
WIDTH_UNIT = 32.0  # the width output is log(window width / this)
# where an index's centre lies in its window (shares of the window's width and height)
INDEX_CENTRE = (0.38, 0.44)
# rendered faces: the centre of the index region the simulator reports, as a share of the card's width and height
_RENDERED_INDEX = (0.1, 0.15)
_PAIR_TO_WINDOW = CORNER_W / math.hypot(1 - 2 * 0.12, (1 - 2 * 0.15) * 1.4)  # two index centres' distance -> window


@dataclass(frozen=True)
class Index:
    x: float
    y: float
    turn: float  # radians: the index's upright x axis in the image
    window: float  # index window width, pixels
    masked: bool = False  # partly covered or not paired: neither a centre nor a negative


@dataclass(frozen=True)
class Picture:
    grey: Image
    indices: tuple[Index, ...]


# Data ------------------------------------------------------------------------------------------------------------

def rendered_pictures(datasets: Path, count: int, seed: int) -> list[Picture]:
    """`count` rendered frames with their indices, scene seeds from 1000 + `seed` * 10000 on."""
    from hardware_sim.camera import (
        FaceSet,
        RenderOptions,
        fanned_scene,
        load_face_set,
        procedural_faces,
        random_scene,
        render_with_truth,
    )

    face_sets: list[FaceSet] = [load_face_set(f) for f in ts.deck_folders(datasets)]
    face_sets += [procedural_faces(style) for style in range(4)]
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        scene_seed = 1000 + seed * 10000 + k
        faces = face_sets[k % len(face_sets)]
        if rng.uniform() < 0.1:
            faces = faces.black()
        surface = str(rng.choice(["felt", "wood", "desk"]))
        kind = rng.uniform()
        if kind < 0.4:
            scene = random_scene(scene_seed, cards=int(rng.integers(3, 13)), face_down=0.2,
                                 overlap=bool(rng.uniform() < 0.5), surface=surface,  # type: ignore[arg-type]
                                 hands=int(rng.integers(0, 3)))
        else:
            scene = fanned_scene(scene_seed, seats=int(rng.integers(1, 5)), pile=int(rng.integers(0, 7)),
                                 face_down=0.15, surface=surface)  # type: ignore[arg-type]
        frame = render_with_truth(scene, scene_seed, RenderOptions(faces=faces))
        indices: list[Index] = []
        for card in frame.truth:
            if not card.face_up:
                continue
            c = np.array(card.corners, np.float64)
            width = float(np.linalg.norm(c[1] - c[0]))
            for corner in (0, 2):
                q = np.roll(c, -corner, axis=0)
                centre = q[0] + _RENDERED_INDEX[0] * (q[1] - q[0]) + _RENDERED_INDEX[1] * (q[3] - q[0])
                seen = any(math.dist(centre, p) < 0.05 * width for p in card.indices)
                turn = math.atan2(q[1][1] - q[0][1], q[1][0] - q[0][0])
                indices.append(Index(float(centre[0]), float(centre[1]), turn, CORNER_W * width, masked=not seen))
        grey = np.asarray(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), np.uint8)
        out.append(Picture(grey, tuple(indices)))
    return out


def photo_pictures(datasets: Path) -> list[Picture]:
    """The training photographs (never a test group's nor a validation photograph) and their labelled indices."""
    labels = datasets / "cardcounterml-photos" / "labels.csv"
    if not labels.exists():
        return []

    def keep(row: dict[str, str]) -> bool:
        if row["group"] in TEST_GROUPS or row["group"] not in ("phone_a", "webcam_a"):
            return False
        return not (row["group"] == "phone_a" and is_validation_photo(row["filename"]))

    rows = [r for r in csv.DictReader(labels.open(encoding="utf-8")) if keep(r)]
    paired = ts.index_boxes(labels, keep=keep)
    by_image: dict[str, list[Index]] = {}
    centres: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for ib in paired:
        x0, y0, x1, y1 = ib.box
        centres.setdefault((ib.image.name, ib.card), []).append(((x0 + x1) / 2, (y0 + y1) / 2))
    for ib in paired:
        x0, y0, x1, y1 = ib.box
        (ax, ay), (bx, by) = centres[(ib.image.name, ib.card)]
        window = _PAIR_TO_WINDOW * math.hypot(bx - ax, by - ay)
        by_image.setdefault(ib.image.name, []).append(
            Index((x0 + x1) / 2, (y0 + y1) / 2, math.radians(ib.angle), window))
    fixed = ts.label_errata()  # the cards `index_boxes` paired, as it names them
    for r in rows:  # every other box of a card: not paired, or a back's (masked either way)
        x0, y0, x1, y1 = (float(r[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
        if (r["filename"], fixed.get((r["filename"], r["card"]), r["card"])) in centres and r["suspect"] != "1":
            continue
        by_image.setdefault(r["filename"], []).append(
            Index((x0 + x1) / 2, (y0 + y1) / 2, 0.0, 1.7 * (x1 - x0), masked=True))
    out = []
    for name, indices in sorted(by_image.items()):
        grey = cv2.imread(str(labels.parent / "images" / name), cv2.IMREAD_GRAYSCALE)
        if grey is not None:
            out.append(Picture(np.asarray(grey, np.uint8), tuple(indices)))
    return out


def cached_pictures(datasets: Path, rendered: int, seed: int) -> list[Picture]:
    key = hashlib.sha256(json.dumps([rendered, seed, __doc__]).encode()).hexdigest()[:16]
    path = CACHE / f"spotter-pictures-{key}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as z:
            counts = z["counts"]
            rows = np.split(z["indices"], np.cumsum(counts)[:-1])
            return [Picture(z[f"g{k}"], tuple(Index(x, y, turn, window, bool(masked))
                                              for x, y, turn, window, masked in rows[k].tolist()))
                    for k in range(len(counts))]
    t0 = time.time()
    pictures = rendered_pictures(datasets, rendered, seed) + photo_pictures(datasets)
    table = np.array([[i.x, i.y, i.turn, i.window, float(i.masked)] for p in pictures for i in p.indices], np.float64)
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    arrays: dict[str, npt.NDArray[Any]] = {f"g{k}": p.grey for k, p in enumerate(pictures)}
    arrays |= {"counts": np.array([len(p.indices) for p in pictures]), "indices": table.reshape(-1, 5)}
    np.savez(tmp, allow_pickle=False, **arrays)
    tmp.replace(path)
    print(f"made {len(pictures)} pictures in {time.time() - t0:.0f} s", file=sys.stderr)
    return pictures


def patch(picture: Picture, rng: Rng) -> tuple[Image, list[Index]]:
    """A PATCH x PATCH grey patch of the picture, scaled so an index window is 12-180 pixels wide, turned at random,
    and its indices in patch pixels; the camera's faults are applied to the patch (`_degrade`)."""
    shown = [i for i in picture.indices if not i.masked]
    h, w = picture.grey.shape
    if shown and rng.uniform() < 0.8:
        at = shown[int(rng.integers(len(shown)))]
        scale = math.exp(rng.uniform(*np.log(WINDOW_RANGE))) / at.window
        centre = (at.x, at.y)
        offset = rng.uniform(-0.4, 0.4, 2) * PATCH
    else:
        windows = [i.window for i in picture.indices] or [w / 40]
        scale = math.exp(rng.uniform(*np.log(WINDOW_RANGE))) / float(np.median(windows))
        centre = (rng.uniform(0, w), rng.uniform(0, h))
        offset = np.zeros(2)
    # cut the region around the centre, scaled with area averaging (no aliasing), then turn it
    reach = PATCH * 0.75 / scale
    x0, y0 = max(0, int(centre[0] - reach)), max(0, int(centre[1] - reach))
    x1, y1 = min(w, int(centre[0] + reach) + 1), min(h, int(centre[1] + reach) + 1)
    region = picture.grey[y0:y1, x0:x1]
    size = (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale)))
    small = np.asarray(cv2.resize(region, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR))
    sx, sy = size[0] / (x1 - x0), size[1] / (y1 - y0)
    turn = rng.uniform(-math.pi, math.pi)
    rot = cv2.getRotationMatrix2D(((centre[0] - x0) * sx, (centre[1] - y0) * sy), math.degrees(turn), 1.0)
    rot[:, 2] += PATCH / 2 + offset - np.array([(centre[0] - x0) * sx, (centre[1] - y0) * sy])
    fill = int(rng.integers(0, 256))
    out = np.asarray(cv2.warpAffine(small, rot, (PATCH, PATCH), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=fill), np.uint8)
    to_small = np.array([[sx, 0, -x0 * sx], [0, sy, -y0 * sy], [0, 0, 1]])
    m = rot @ to_small
    moved = []
    for i in picture.indices:
        x, y = m @ np.array([i.x, i.y, 1.0])
        if -20 <= x < PATCH + 20 and -20 <= y < PATCH + 20:
            dx, dy = m[:, :2] @ np.array([math.cos(i.turn), math.sin(i.turn)])
            moved.append(Index(float(x), float(y), math.atan2(dy, dx), i.window * math.sqrt(sx * sy), i.masked))
    return _degrade(out, rng), moved


def _degrade(grey: Image, rng: Rng) -> Image:
    f = grey.astype(np.float32) / 255
    f = np.power(np.clip(f, 0, 1), math.exp(rng.uniform(-0.5, 0.5)))
    if rng.uniform() < 0.5:
        gx, gy = rng.uniform(-1, 1, 2)
        f = f * (1 + rng.uniform(0.1, 0.5) * (gx * np.linspace(-1, 1, PATCH)[None, :] +
                                              gy * np.linspace(-1, 1, PATCH)[:, None]))
    f = f * 255 * rng.uniform(0.55, 1.25) + rng.uniform(-35, 25)
    if rng.uniform() < 0.5:
        f = np.asarray(cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.6)), np.float32)
    f = f + rng.normal(0, rng.uniform(0, 9), f.shape)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.uniform() < 0.5:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
        if ok:
            out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE), np.uint8)
    return out


def targets(indices: list[Index]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The heat map (Gaussian splats, 1 at each centre's cell), its loss weights (0 around masked indices) and the
    regression targets (cos, sin, log width, offset x, y) with their weights (the splat, where at least 0.3)."""
    g = PATCH // STRIDE
    heat = np.zeros((g, g), np.float32)
    weight = np.ones((g, g), np.float32)
    regress = np.zeros((5, g, g), np.float32)
    rweight = np.zeros((g, g), np.float32)
    for i in indices:
        cx, cy = i.x / STRIDE, i.y / STRIDE
        sigma = max(0.8, i.window / STRIDE / 8)
        reach = max(2.0, i.window / STRIDE / 2) if i.masked else 3 * sigma
        x0, x1 = max(0, int(cx - reach)), min(g, int(cx + reach) + 2)
        y0, y1 = max(0, int(cy - reach)), min(g, int(cy + reach) + 2)
        if x0 >= x1 or y0 >= y1:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32) + 0.5
        d2 = (xx - cx) ** 2 + (yy - cy) ** 2
        if i.masked:
            weight[y0:y1, x0:x1][d2 <= reach * reach] = 0.0
            continue
        splat = np.exp(-d2 / (2 * sigma * sigma))
        ix, iy = math.floor(cx) - x0, math.floor(cy) - y0
        if 0 <= ix < x1 - x0 and 0 <= iy < y1 - y0 and 0 <= cx < g and 0 <= cy < g:
            splat[iy, ix] = 1.0
        heat[y0:y1, x0:x1] = np.maximum(heat[y0:y1, x0:x1], splat)
        here = rweight[y0:y1, x0:x1]
        near = (splat >= 0.3) & (splat > here)
        here[near] = splat[near]
        for k, value in enumerate((math.cos(i.turn), math.sin(i.turn), math.log(i.window / WIDTH_UNIT))):
            regress[k, y0:y1, x0:x1][near] = value
        regress[3, y0:y1, x0:x1][near] = (cx - xx)[near]
        regress[4, y0:y1, x0:x1][near] = (cy - yy)[near]
    return np.stack([heat, weight, rweight]), regress


# The network ------------------------------------------------------------------------------------------------------

def build_model() -> Any:
    import torch
    from torch import nn

    class Separable(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
                nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
            self.residual = stride == 1 and cin == cout

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y: torch.Tensor = self.body(x)
            return x + y if self.residual else y

    class IndexSpotter(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
            self.s4 = nn.Sequential(Separable(16, 32, 2), Separable(32, 32))
            self.s8 = nn.Sequential(Separable(32, 48, 2), Separable(48, 48))
            self.s16 = nn.Sequential(Separable(48, 64, 2), Separable(64, 64))
            self.s32 = nn.Sequential(Separable(64, 96, 2), Separable(96, 96), Separable(96, 96))
            self.lateral = nn.ModuleList([nn.Conv2d(c, 32, 1) for c in (32, 48, 64, 96)])
            self.mix = nn.Sequential(Separable(32, 32), Separable(32, 32))
            self.head = nn.Conv2d(32, 6, 1)
            bias = torch.zeros(6)
            bias[0] = -4.0  # few cells hold a centre
            self.head.bias = nn.Parameter(bias)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            f4 = self.s4(self.stem(x))
            f8 = self.s8(f4)
            f16 = self.s16(f8)
            f32 = self.s32(f16)
            up = nn.functional.interpolate
            p = self.lateral[3](f32)
            for lateral, f in ((self.lateral[2], f16), (self.lateral[1], f8), (self.lateral[0], f4)):
                p = up(p, size=f.shape[2:], mode="nearest") + lateral(f)
            maps: torch.Tensor = self.head(self.mix(p))
            return maps

    return IndexSpotter()


def loss(out: Any, maps: Any, regress: Any) -> tuple[Any, Any]:
    """CenterNet's focal loss on the heat map, L1 on the regressions near centres; each per centre."""
    import torch

    heat, weight, rweight = maps[:, 0], maps[:, 1], maps[:, 2]
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    centre = (heat >= 1.0).float()
    pos = -torch.log(p) * (1 - p) ** 2 * centre
    neg = -torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * (1 - centre)
    n = centre.sum().clamp(min=1.0)
    focal = ((pos + neg) * weight).sum() / n
    l1 = (torch.abs(out[:, 1:] - regress).sum(dim=1) * rweight).sum() / rweight.sum().clamp(min=1.0)
    return focal, l1


def _batch(pictures: list[Picture], rng: Rng, size: int) -> tuple[Any, Any, Any]:
    import torch

    xs, maps, regs = [], [], []
    for _ in range(size):
        grey, indices = patch(pictures[int(rng.integers(len(pictures)))], rng)
        m, r = targets(indices)
        xs.append(grey)
        maps.append(m)
        regs.append(r)
    x = (np.stack(xs)[:, None].astype(np.float32) - 128.0) / 64.0
    return torch.from_numpy(x), torch.from_numpy(np.stack(maps)), torch.from_numpy(np.stack(regs))


def train(datasets: Path, *, seed: int, minutes: float, steps: int | None, rendered: int, threads: int, out: Path,
          checkpoint: float, command: str) -> dict[str, Any]:
    """Trains for `steps` batches if given (reproducible from the seed), else for `minutes`; the learning rate falls
    on a cosine over the budget."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    pictures = cached_pictures(datasets, rendered, seed)
    photos = sum(1 for p in pictures[rendered:])
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    budget = minutes * 60
    t0 = time.time()
    step = 0
    saved_checkpoint = False
    recent: list[float] = []
    while (progress := step / steps if steps else (time.time() - t0) / budget) < 1.0:
        elapsed = time.time() - t0
        for group in opt.param_groups:
            group["lr"] = 3e-3 * 0.5 * (1 + math.cos(math.pi * progress))
        model.train()
        x, maps, regress = _batch(pictures, rng, 16)
        focal, l1 = loss(model(x), maps, regress)
        total = focal + l1
        opt.zero_grad()
        total.backward()
        opt.step()
        step += 1
        recent.append(total.item())
        if step % 100 == 0:
            print(f"step {step}: loss {np.mean(recent):.3f} (focal {focal.item():.3f}, l1 {l1.item():.3f}) "
                  f"{elapsed:.0f} s", file=sys.stderr, flush=True)
            recent = []
        if not saved_checkpoint and checkpoint and elapsed >= checkpoint * 60:
            export(model, out.with_name(out.stem + "-early.onnx"), {"command": command, "steps": step})
            saved_checkpoint = True
    figures = {"steps": step, "seconds": round(time.time() - t0), "rendered_frames": rendered, "photographs": photos}
    export(model, out, {"command": command, "seed": seed, "figures": figures})
    return figures


def export(model: Any, out: Path, meta: dict[str, Any]) -> None:
    import torch

    from vision.spot import MODEL_FORMAT

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.onnx")
    torch.onnx.export(model, (torch.zeros(1, 1, PATCH, PATCH),), str(tmp), dynamo=False, opset_version=13,
                      input_names=["grey"], output_names=["maps"],
                      dynamic_axes={"grey": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}})
    tmp.replace(out)
    doc = {"format": MODEL_FORMAT, "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
           "input": {"mean": 128.0, "scale": 64.0, "multiple": 32}, "stride": STRIDE,
           "outputs": ["heat_logit", "cos_turn", "sin_turn", "log_width", "offset_x", "offset_y"],
           "width_unit": WIDTH_UNIT, "index_centre": list(INDEX_CENTRE), **meta}
    out.with_suffix(".json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    model.train()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.spot_train", description=__doc__.splitlines()[0])
    p.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    p.add_argument("--out", type=Path, default=MODEL_DIR / "index-spotter.onnx")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=15000, help="batches to train (reproducible from the seed)")
    p.add_argument("--minutes", type=float, default=None, help="train for this much wall-clock time instead of --steps")
    p.add_argument("--rendered", type=int, default=480, help="rendered frames")
    p.add_argument("--threads", type=int, default=2, help="torch threads (others share the machine)")
    p.add_argument("--checkpoint", type=float, default=10.0, help="minutes after which an early model is exported")
    args = p.parse_args(argv)
    if not args.datasets.is_dir():
        print(f"python -m vision.spot_train: error: {args.datasets}: no such data-set folder", file=sys.stderr)
        return 2
    command = " ".join(["python -m vision.spot_train", *(argv if argv is not None else sys.argv[1:])])
    steps = None if args.minutes is not None else args.steps
    figures = train(args.datasets, seed=args.seed, minutes=args.minutes or 0.0, steps=steps, rendered=args.rendered,
                    threads=args.threads, out=args.out, checkpoint=args.checkpoint, command=command)
    print(json.dumps({"model": str(args.out), **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
