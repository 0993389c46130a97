"""Rendering a table scene as the camera above the table sees it.

The camera pose (a homography from table millimetres to image pixels, with some perspective), the
light and the lens faults all come from the seed, so a (scene, seed, options) triple always gives the
same frame. Each card is warped from its artwork straight into the frame, so it stays sharp however
the camera is placed; then hands, uneven light, glare, blur and noise are applied to the whole frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from hardware_sim.camera.art import ART_H, ART_W, FaceSet, card_body_mask, procedural_faces
from hardware_sim.camera.scene import CARD_MM, PlacedCard, TableScene
from vision.calibration import TableCalibration
from vision.rectify import order_quad

Image = npt.NDArray[np.uint8]
Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True, kw_only=True)
class RenderOptions:
    width: int = 1280
    height: int = 720
    perspective: float = 0.06  # how much narrower the far rail looks, as a fraction of the width
    blur: float = 0.8  # upper bound of the Gaussian blur sigma, pixels
    noise: float = 4.0  # upper bound of the sensor noise sigma, grey levels
    uneven_light: float = 0.3  # depth of the light fall-off across the frame
    glare: float = 0.5  # chance of a glare spot
    faces: FaceSet | None = None  # None: procedural deck (style from the seed)


@dataclass(frozen=True, kw_only=True)
class CardTruth:
    card: str
    face_up: bool
    corners: tuple[tuple[float, float], ...]  # ordered like vision.rectify.order_quad
    visible: float  # fraction of the card's area not covered by cards on top or hands
    index_visible: bool  # at least one corner index is at least 95% uncovered (by cards on top or hands)
    # the centre (image pixels) of each corner index at least 95% uncovered: top-left first, then bottom-right
    indices: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True, kw_only=True)
class RenderedFrame:
    image: Image
    truth: tuple[CardTruth, ...]
    calibration: TableCalibration
    extras: dict[str, float] = field(default_factory=dict)


def camera_homography(scene: TableScene, seed: int, options: RenderOptions) -> Matrix:
    """Table millimetres -> image pixels, for the camera pose of this seed."""
    rng = np.random.default_rng([seed, 1])
    w, h = options.width, options.height
    lay = scene.layout
    p = options.perspective * float(rng.uniform(0.3, 1.0)) * w
    j = 0.015 * w
    dst = np.array([
        [p + rng.uniform(-j, j), rng.uniform(0, j)],
        [w - p + rng.uniform(-j, j), rng.uniform(0, j)],
        [w - 1 - rng.uniform(0, j), h - 1 - rng.uniform(0, j)],
        [rng.uniform(0, j), h - 1 - rng.uniform(0, j)],
    ], dtype=np.float32)
    src = np.array([[0, 0], [lay.width_mm, 0], [lay.width_mm, lay.height_mm], [0, lay.height_mm]], dtype=np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)


def calibration_for(scene: TableScene, seed: int, options: RenderOptions | None = None) -> TableCalibration:
    """The exact calibration of the simulated camera pose (what the documented procedure would measure)."""
    opts = options or RenderOptions()
    hm = np.linalg.inv(camera_homography(scene, seed, opts))
    hm = hm / hm[2, 2]
    rows = tuple((float(r[0]), float(r[1]), float(r[2])) for r in hm)
    return TableCalibration(image_size=(opts.width, opts.height), homography=rows, zones=scene.layout.zones)


def _desk(rng: np.random.Generator, w: int, h: int) -> Image:
    """A light grey or off-white desk top, a little grainy: a card's paper is barely lighter than it."""
    base = np.array(rng.choice([[215, 220, 225], [200, 205, 200], [230, 232, 235]]), np.float32)
    shade = 1.0 + 0.02 * rng.normal(0, 1, (h, w)).astype(np.float32)
    return np.asarray(np.clip(base[None, None, :] * shade[:, :, None], 0, 255), dtype=np.uint8)


def _surface(scene: TableScene, rng: np.random.Generator, w: int, h: int) -> Image:
    if scene.surface == "desk":
        return _desk(rng, w, h)
    small = rng.normal(0, 1, (h // 40 + 2, w // 40 + 2)).astype(np.float32)
    low = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    if scene.surface == "wood":
        base = np.array(rng.choice([[45, 85, 140], [30, 60, 105], [70, 120, 170]]), np.float32)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        grain = np.sin(xx * 0.05 + low * 2.5 + yy * 0.004) * 0.5 + np.sin(xx * 0.19 + low * 4) * 0.2
        shade = 1.0 + 0.18 * grain + 0.03 * fine
    else:
        base = np.array(rng.choice([[40, 105, 25], [90, 60, 20], [40, 40, 110]]), np.float32)
        shade = 1.0 + 0.06 * low + 0.05 * fine
    img = np.clip(base[None, None, :] * shade[:, :, None], 0, 255)
    return np.asarray(img, dtype=np.uint8)


def _card_matrix(card: PlacedCard) -> Matrix:
    """Artwork pixels -> table millimetres."""
    s = CARD_MM[0] / ART_W
    a = np.deg2rad(card.angle)
    c, si = np.cos(a), np.sin(a)
    to_center = np.array([[1, 0, -ART_W / 2], [0, 1, -ART_H / 2], [0, 0, 1]], np.float64)
    scale = np.diag([s, s, 1.0])
    rot = np.array([[c, si, 0], [-si, c, 0], [0, 0, 1]], np.float64)
    move = np.array([[1, 0, card.x], [0, 1, card.y], [0, 0, 1]], np.float64)
    return move @ rot @ scale @ to_center


def _project(m: Matrix, pts: npt.ArrayLike) -> npt.NDArray[np.float32]:
    arr = np.asarray(pts, np.float32).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(arr, m).reshape(-1, 2), dtype=np.float32)


_SURFACES: dict[tuple[str, int, int, int], Image] = {}


def _cached_surface(scene: TableScene, seed: int, w: int, h: int) -> Image:
    key = (scene.surface, seed, w, h)
    if key not in _SURFACES:
        if len(_SURFACES) > 16:
            _SURFACES.clear()
        _SURFACES[key] = _surface(scene, np.random.default_rng([seed, 4]), w, h)
    return _SURFACES[key].copy()


def render_with_truth(scene: TableScene, seed: int, options: RenderOptions | None = None, *,
                      frame_index: int = 0) -> RenderedFrame:
    """The frame and where each card truly is. The camera pose, table and deck style depend on `seed`
    only; light, glare, blur, noise and hands also change with `frame_index` (successive frames)."""
    opts = options or RenderOptions()
    rng = np.random.default_rng([seed, 2, frame_index])
    w, h = opts.width, opts.height
    hm = camera_homography(scene, seed, opts)
    img = _cached_surface(scene, seed, w, h)
    line = (120, 170, 110) if scene.surface == "felt" else (90, 140, 190)
    for zone in scene.layout.zones:
        poly = _project(hm, zone.polygon).round().astype(np.int32)
        cv2.polylines(img, [poly], True, line, 2, cv2.LINE_AA)
    faces = opts.faces or procedural_faces(int(np.random.default_rng([seed, 3]).integers(0, 12)))
    body = card_body_mask()
    owner = np.full((h, w), -1, np.int16)
    art_corners = np.array([[0, 0], [ART_W - 1, 0], [ART_W - 1, ART_H - 1], [0, ART_H - 1]], np.float32)
    areas: list[int] = []
    index_quads: list[list[npt.NDArray[np.float32]]] = []
    for i, card in enumerate(scene.cards):
        m = hm @ _card_matrix(card)
        corners = _project(m, art_corners)
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        iw, ih = round(ART_W * 0.2), round(ART_H * 0.3)
        index_quads.append([
            _project(m, [[0, 0], [iw, 0], [iw, ih], [0, ih]]),
            _project(m, [[ART_W - iw, ART_H - ih], [ART_W, ART_H - ih], [ART_W, ART_H], [ART_W - iw, ART_H]]),
        ])
        if x1 <= x0 or y1 <= y0:
            areas.append(0)
            continue
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
        ms = shift @ m
        art = faces.face(card.card) if card.face_up else faces.back
        warped = cv2.warpPerspective(art, ms, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        alpha = cv2.warpPerspective(body, ms, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
        region = img[y0:y1, x0:x1].astype(np.float32)
        # A soft shadow on the table side, then the card.
        shadow = cv2.GaussianBlur(alpha, (0, 0), 3) * 0.35
        region = region * (1 - shadow[:, :, None])
        a3 = alpha[:, :, None]
        img[y0:y1, x0:x1] = np.clip(warped.astype(np.float32) * a3 + region * (1 - a3), 0, 255).astype(np.uint8)
        sub = owner[y0:y1, x0:x1]
        sub[alpha > 0.5] = i
        areas.append(int((alpha > 0.5).sum()))
    for _ in range(scene.hands):
        _draw_hand(img, owner, rng, scene, hm)
    _light(img, rng, opts)
    truth = []
    for i, card in enumerate(scene.cards):
        corners = _project(hm @ _card_matrix(card), art_corners)
        visible = float((owner == i).sum()) / areas[i] if areas[i] else 0.0
        shown = [q for q in index_quads[i] if _uncovered(owner, q, i) >= 0.95]
        truth.append(CardTruth(card=card.card, face_up=card.face_up,
                               corners=tuple((float(x), float(y)) for x, y in order_quad(corners)),
                               visible=round(visible, 4), index_visible=bool(shown),
                               indices=tuple((float(x), float(y)) for x, y in (q.mean(axis=0) for q in shown))))
    return RenderedFrame(image=img, truth=tuple(truth), calibration=calibration_for(scene, seed, opts))


def render(scene: TableScene, seed: int, options: RenderOptions | None = None, *, frame_index: int = 0) -> Image:
    """The camera frame (BGR, uint8) of `scene` for this seed."""
    return render_with_truth(scene, seed, options, frame_index=frame_index).image


def _uncovered(owner: npt.NDArray[np.int16], quad: npt.NDArray[np.float32], i: int) -> float:
    """The share of card `i`'s region `quad` that no later card nor a hand covers, measured a little inside the
    quad (its outermost pixels are the card's anti-aliased edge and rounded corner)."""
    centre = quad.mean(axis=0)
    quad = centre + (quad - centre) * 0.85
    h, w = owner.shape
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [x0, y0]).astype(np.int32), 1)
    total = int(mask.sum())
    if total == 0:
        return 0.0
    return float((owner[y0:y1, x0:x1][mask > 0] == i).sum()) / total


def _draw_hand(img: Image, owner: npt.NDArray[np.int16], rng: np.random.Generator, scene: TableScene,
               hm: Matrix) -> None:
    """A hand reaching in from the near or far rail, resting over part of a card."""
    if scene.cards:
        target = scene.cards[int(rng.integers(0, len(scene.cards)))]
        tx, ty = float(target.x), float(target.y)
    else:
        tx, ty = float(rng.uniform(100, 800)), float(rng.uniform(100, 400))
    from_near = ty > scene.layout.height_mm / 2
    direction = 1.0 if from_near else -1.0
    # Palm centre sits one card length off the target towards the rail, fingers reach over it.
    palm = _project(hm, [[tx + rng.uniform(-30, 30), ty + direction * rng.uniform(70, 95)]])[0]
    tip = _project(hm, [[tx + rng.uniform(-20, 20), ty + direction * rng.uniform(5, 30)]])[0]
    skin = np.array(rng.choice([[120, 160, 215], [90, 130, 190], [60, 90, 140], [150, 180, 225]]), np.float64)
    skin = skin * rng.uniform(0.85, 1.05)
    hand = np.zeros(owner.shape, np.uint8)
    scale = float(np.linalg.norm(_project(hm, [[0, 0], [80, 0]])[1] - _project(hm, [[0, 0]])[0])) / 80.0
    axis = tip - palm
    ang = float(np.degrees(np.arctan2(axis[1], axis[0])))
    cv2.ellipse(hand, (round(palm[0]), round(palm[1])), (round(48 * scale), round(42 * scale)), ang, 0, 360, 255, -1)
    perp = np.array([-axis[1], axis[0]]) / max(float(np.linalg.norm(axis)), 1e-3)
    for k in range(4):
        off = (k - 1.5) * 17 * scale
        base = palm + perp * off + axis * 0.3
        end = tip + perp * off * 1.1
        cv2.line(hand, (round(base[0]), round(base[1])), (round(end[0]), round(end[1])), 255, max(2, round(14 * scale)))
    color = np.asarray(skin, np.float32)
    shade = cv2.GaussianBlur(hand, (0, 0), 4).astype(np.float32) / 255
    img[:] = np.clip(img.astype(np.float32) * (1 - shade[:, :, None]) + color * shade[:, :, None], 0, 255).astype(
        np.uint8)
    owner[hand > 0] = -2


def _light(img: Image, rng: np.random.Generator, opts: RenderOptions) -> None:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = xx / w - 0.5, yy / h - 0.5
    gx, gy = rng.uniform(-1, 1, 2)
    cx, cy = rng.uniform(-0.3, 0.3, 2)
    depth = opts.uneven_light * float(rng.uniform(0.3, 1.0))
    gain = 1.0 + depth * (0.5 * gx * xn + 0.5 * gy * yn) - depth * ((xn - cx) ** 2 + (yn - cy) ** 2)
    out = img.astype(np.float32) * gain[:, :, None]
    if rng.uniform() < opts.glare:
        gxp, gyp = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        sigma = rng.uniform(0.04, 0.1) * w
        amp = rng.uniform(30, 80)
        out += (amp * np.exp(-((xx - gxp) ** 2 + (yy - gyp) ** 2) / (2 * sigma**2)))[:, :, None]
    sigma_b = float(rng.uniform(0.2, max(opts.blur, 0.21)))
    out = cv2.GaussianBlur(out, (0, 0), sigma_b)
    out += rng.standard_normal(out.shape, dtype=np.float32) * float(rng.uniform(0.5, max(opts.noise, 0.51)))
    img[:] = np.clip(out, 0, 255).astype(np.uint8)
