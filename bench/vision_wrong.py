"""Wrong names on simulated frames: every profile a room can run, under many render settings.

A wrong name costs a card room far more than an unknown card. This counts, per profile and render setting,
the detections named (a rank given) and how many of them are wrong, split by what lies under the detection's
centre: no card at all (felt, wood, a hand), a card back, or a face of another rank. The simulator knows
where every card is (`render_with_truth`); the card on top at the detection's centre is the one it belongs to.

    python -m bench.vision_wrong [--seeds 500-520] [--profiles default,card-faces,photos] [--photos-profile PKL]

No timed asserts: it prints a table (and `--list` every wrong name, to look at).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from bench.vision import DATASETS, card_faces_profile, tuned_real_profile
from hardware_sim.camera import RenderOptions, load_face_set, random_scene, render_with_truth
from hardware_sim.camera.render import CardTruth
from vision.pipeline import Detection, Recognizer
from vision.profile import DeckProfile, default_profile


@dataclass(frozen=True, kw_only=True)
class Setting:
    """One way of filming: render options and the scene's own knobs."""

    name: str
    options: RenderOptions
    overlap: bool = False
    hands: int = 0
    face_down: float | None = None  # None: half the seeds all backs, half a coin toss each


@dataclass(frozen=True, kw_only=True)
class WrongName:
    profile: str
    setting: str
    seed: int
    rank: str
    under: str  # "off" (no card), "back", or the card code of the face under the centre
    corners: tuple[tuple[float, float], ...]
    confidence: float


@dataclass(kw_only=True)
class Tally:
    named: int = 0
    right: int = 0
    off: int = 0
    back: int = 0
    rank: int = 0
    wrongs: list[WrongName] = field(default_factory=list)

    @property
    def wrong(self) -> int:
        return self.off + self.back + self.rank


def settings(faces_folder: Path | None) -> list[Setting]:
    """Plain and harder settings at the live table's 960 x 540, a smaller camera's 640 x 360 and 1280 x 720; the
    card-faces deck too."""
    small = RenderOptions(width=960, height=540)  # the live table's simulated camera
    out = [
        Setting(name="960", options=replace(small, glare=0.0)),
        Setting(name="960 glare", options=small),
        Setting(name="960 hard", options=replace(small, blur=2.0, noise=10.0, uneven_light=0.6, glare=1.0,
                                                       perspective=0.15)),
        Setting(name="960 overlap", options=small, overlap=True),
        Setting(name="960 hands", options=small, hands=2),
        # A smaller camera's frame: a photographs' profile reads it as a photograph, four looks (the last enlarged).
        Setting(name="640", options=RenderOptions(width=640, height=360, glare=0.0)),
        Setting(name="640 overlap hands", options=RenderOptions(width=640, height=360), overlap=True, hands=2),
        Setting(name="1280", options=RenderOptions()),
        Setting(name="1280 hard", options=RenderOptions(blur=2.0, noise=10.0, uneven_light=0.6, glare=1.0,
                                                        perspective=0.15)),
        Setting(name="1280 overlap hands", options=RenderOptions(), overlap=True, hands=2),
    ]
    if faces_folder is not None and faces_folder.is_dir():
        faces = load_face_set(faces_folder)
        out += [Setting(name="cf 960", options=replace(small, faces=faces)),
                Setting(name="cf 960 overlap hands", options=replace(small, faces=faces), overlap=True,
                        hands=2),
                Setting(name="cf 1280", options=RenderOptions(faces=faces))]
    return out


def under(truth: Sequence[CardTruth], point: tuple[float, float]) -> CardTruth | None:
    """The card on top at `point` (the renderer draws later cards over earlier ones), or None."""
    holding = [t for t in truth
               if cv2.pointPolygonTest(np.array(t.corners, np.float32).reshape(-1, 1, 2), point, False) >= 0]
    return holding[-1] if holding else None


def tally(recognizer: Recognizer, profile: str, setting: Setting, seeds: Iterable[int], into: Tally) -> None:
    for seed in seeds:
        face_down = setting.face_down if setting.face_down is not None else (1.0 if seed % 2 else 0.5)
        scene = random_scene(seed, cards=8, face_down=face_down, overlap=setting.overlap, hands=setting.hands)
        frame = render_with_truth(scene, seed, setting.options)
        for d in recognizer.identify(frame.image):
            score(d, frame.truth, (profile, setting.name, seed), into)


def score(d: Detection, truth: Sequence[CardTruth], where_from: tuple[str, str, int], into: Tally) -> None:
    """Count the named detection `d` of the frame (profile, setting, seed) `where_from` into `into`."""
    if d.rank is None:
        return
    profile, setting, seed = where_from
    into.named += 1
    t = under(truth, d.center)
    if t is not None and t.face_up and t.card[0] == d.rank:
        into.right += 1
        return
    where = "off" if t is None else ("back" if not t.face_up else t.card)
    if t is None:
        into.off += 1
    elif not t.face_up:
        into.back += 1
    else:
        into.rank += 1
    into.wrongs.append(WrongName(profile=profile, setting=setting, seed=seed, rank=d.rank, under=where,
                                 corners=d.corners, confidence=d.confidence))


def profiles(names: Sequence[str], photos_pkl: Path | None) -> dict[str, Callable[[], DeckProfile]]:
    def photos() -> DeckProfile:
        if photos_pkl is not None:
            with photos_pkl.open("rb") as f:
                loaded: DeckProfile = pickle.load(f)  # a profile this machine wrote (the evaluator's cache)
            return loaded
        return tuned_real_profile(DATASETS / "real-photos-dev")

    known: dict[str, Callable[[], DeckProfile]] = {
        "default": default_profile,
        "card-faces": lambda: card_faces_profile(DATASETS / "card-faces"),
        "photos": photos,
    }
    return {n: known[n] for n in names}


def seed_range(text: str) -> range:
    lo, hi = text.split("-")
    return range(int(lo), int(hi))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="500-520", help="LO-HI (HI excluded)")
    ap.add_argument("--profiles", default="default,card-faces,photos")
    ap.add_argument("--photos-profile", type=Path, default=None, help="a pickled photographs' profile")
    ap.add_argument("--settings", default="", help="comma-separated setting names (default: all)")
    ap.add_argument("--list", action="store_true", help="print every wrong name")
    args = ap.parse_args(argv)
    if not (DATASETS / "card-faces").is_dir():
        print("skipped: ../shared/datasets/card-faces is absent", file=sys.stderr)
    chosen = settings(DATASETS / "card-faces")
    if args.settings:
        keep = set(args.settings.split(","))
        chosen = [s for s in chosen if s.name in keep]
    seeds = seed_range(args.seeds)
    print(f"{'profile':11} {'setting':22} {'named':>6} {'right':>6} {'wrong':>6} {'off':>4} {'back':>5} {'rank':>5}")
    total = Tally()
    for pname, make in profiles(args.profiles.split(","), args.photos_profile).items():
        recognizer = Recognizer(make())
        for setting in chosen:
            t = Tally()
            tally(recognizer, pname, setting, seeds, t)
            print(f"{pname:11} {setting.name:22} {t.named:6} {t.right:6} {t.wrong:6} {t.off:4} {t.back:5} {t.rank:5}",
                  flush=True)
            total.named += t.named
            total.right += t.right
            total.off += t.off
            total.back += t.back
            total.rank += t.rank
            total.wrongs += t.wrongs
    print(f"{'all':11} {'':22} {total.named:6} {total.right:6} {total.wrong:6} {total.off:4} {total.back:5} "
          f"{total.rank:5}")
    if args.list:
        for w in total.wrongs:
            print(w.profile, w.setting, w.seed, w.rank, "on", w.under, round(w.confidence, 2),
                  [(round(x), round(y)) for x, y in w.corners])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
