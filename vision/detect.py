"""Detect: where the cards are in a frame. A mask's blob filling a quadrilateral of a card's proportions is one card's
outline; any other blob that can hold cards is cards overlapping, each near-right vertex a `Corner` where a card may
start; a rank over its suit on the `Ground` an index lies on is a card found by its index (`index_corners`). Details
and reasons: docs/vision.md, "Detect" and "Find by index".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.rectify import (
    CARD_ASPECT,
    CORNER_W,
    FloatArray,
    Image,
    boxes_meet,
    card_coords,
    corner_frame,
    holds,
    index_window,
    order_quad,
    quad_area,
    quad_iou,
    quantiles_u8,
    side_lengths,
)
from vision.settings import SETTINGS, Settings

Labels = npt.NDArray[np.integer[Any]]  # a mask's parts numbered, 0 the background


@dataclass(frozen=True)
class Corner:
    point: FloatArray  # the card's corner, full-frame pixels
    along_short: FloatArray  # unit vector along the card's short side from the corner
    along_long: FloatArray  # unit vector along its long side
    widths: tuple[float, ...]  # card widths (pixels) to try
    by_index: bool = False  # proposed from an index's glyphs (not from an outline's vertex)
    within: int = -1  # the outline (index into `Found.outlines`) whose glyphs proposed it; -1: on no outline
    light_ink: bool = False  # proposed from glyphs lighter than their card (a black deck)
    one_blob: bool = False  # proposed from one blob, a rank touching its suit (read to name a card, not to mark one)
    suit: tuple[float, float, float] | None = None  # a glyph pair's lower glyph (its suit): centre x, y and size

    def cards(self) -> list[FloatArray]:
        """The card quad from this corner at each of its widths."""
        return [corner_frame(self.point, self.along_short, self.along_long, w) for w in self.widths]


@dataclass(frozen=True)
class Ground:
    """Where an index may lie, at the outline scale (`scale` of the frame): light paper, for dark ink, and dark
    cards, for light ink (a black deck's gold or silver)."""
    paper: Image
    dark: Image
    scale: float
    margin: int  # pixels (at `scale`) the ground reaches beyond the paper or dark card it lies on
    off_table: Image  # what is far in colour from the table top (cards, hands, chips), at `scale`

    def region(self, dark: bool, skip: Sequence[FloatArray]) -> Image:
        """The ground off the cards `skip` (frame quads) and off the table top within the margin around them (its
        grain would pair up as glyphs), without slivers thinner than the margin. What is no table beside a card
        stays: in a fan a card's index lies at the edge of the card on it. A quad with ground all around it stays
        in: a pip or a picture outlined on a card that was not (its index is beside it)."""
        ground = self.dark if dark else self.paper
        if not ground.any():
            return ground
        region = ground.copy()
        if skip:
            cards = np.zeros(ground.shape, np.uint8)
            for q, apart in zip(skip, self._around(ground, skip) <= 0.5, strict=True):
                if apart:
                    cv2.fillConvexPoly(cards, np.round(q * self.scale).astype(np.int32), 255)
            near = cv2.dilate(cards, np.ones((2 * self.margin + 1,) * 2, np.uint8))
            region &= ~np.asarray(cv2.bitwise_or(cards, cv2.bitwise_and(near, ~self.off_table)), np.uint8)
        thin = cv2.getStructuringElement(cv2.MORPH_RECT, (self.margin | 1,) * 2)
        return np.asarray(cv2.morphologyEx(region, cv2.MORPH_OPEN, thin), np.uint8)

    def _around(self, ground: Image, quads: Sequence[FloatArray]) -> FloatArray:
        """For each quad, the share of the line around it (a sixth of its size out) that is ground."""
        q = np.array(quads, np.float32).reshape(-1, 4, 2) * self.scale
        centre = q.mean(axis=1, keepdims=True)
        ring = centre + (q - centre) * 1.35
        t = np.arange(8, dtype=np.float32)[:, None, None] / 8
        points = (ring[:, None] + t * (np.roll(ring, -1, axis=1) - ring)[:, None]).reshape(len(q), -1, 2)
        h, w = ground.shape
        x = np.clip(np.round(points[..., 0]).astype(int), 0, w - 1)
        y = np.clip(np.round(points[..., 1]).astype(int), 0, h - 1)
        return np.asarray((ground[y, x] > 0).mean(axis=1), np.float32)


@dataclass(frozen=True)
class Found:
    outlines: list[FloatArray]  # one card each, full-frame pixels, ordered by `order_quad`
    corners: list[Corner]
    ground: Ground

    def off_table_share(self, quad: FloatArray) -> float:
        """The share of a parallelogram (frame pixels: a card proposed at a corner) off the table top."""
        return float(_shares(self.ground.off_table, np.asarray(quad, np.float32)[None] * self.ground.scale)[0])


def _shares(mask: Image, quads: FloatArray) -> FloatArray:
    """The share of each parallelogram (quads x 4 corners x xy, in mask pixels) set in the mask, on an 8 x 8 grid."""
    t = (np.arange(8, dtype=np.float32) + 0.5) / 8
    across, down = (g.reshape(1, -1, 1) for g in np.meshgrid(t, t))
    q = quads[:, :, None, :]
    points = q[:, 0] + across * (q[:, 1] - q[:, 0]) + down * (q[:, 3] - q[:, 0])  # quad x sample x xy
    x, y = np.moveaxis(np.round(points).astype(int), -1, 0)
    inside = mask[np.clip(y, 0, mask.shape[0] - 1), np.clip(x, 0, mask.shape[1] - 1)] > 0
    return np.asarray(inside.mean(axis=1), np.float32)


def _ground(small: Image, highest: Image, off_table: Image, scale: float, s: Settings, *,
            quads: Sequence[FloatArray]) -> Ground:
    # The local mean over a twelfth of the frame reaches beyond a card's paper: the ground is kept near the paper.
    block = max(7, (min(small.shape[:2]) // 12) | 1)
    margin = block // 6
    near = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * margin + 1,) * 2)
    blue, green, red = cv2.split(small)
    lowest = cv2.min(cv2.min(blue, green), red)
    paper = cv2.bitwise_and(cv2.inRange(cv2.blur(lowest, (block, block)), s.paper_level, 255),
                            cv2.inRange(cv2.dilate(lowest, near), s.paper_level, 255))
    # A large index's ink darkens the local mean under it: holes in the paper up to two blocks square are ground.
    contours, tree = cv2.findContours(paper, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if tree is not None:
        holes = [c for c, t in zip(contours, tree[0], strict=True)
                 if t[3] >= 0 and cv2.contourArea(c) <= (2 * block) ** 2]
        cv2.drawContours(paper, holes, -1, 255, cv2.FILLED)
    # A dark card is off the table (felt is no ground for light ink), its local mean its own: an index in its corner
    # beside a light table counts (the sum at most `dark_card` times the count: a mean with no division). The dark
    # inside of an outline is a card too: a black card on dark felt is the table's colour.
    outlined = np.zeros(off_table.shape, np.uint8)
    for q in quads:
        cv2.fillConvexPoly(outlined, np.round(q).astype(np.int32), 255)
    cards = cv2.bitwise_or(off_table, cv2.bitwise_and(outlined, cv2.inRange(highest, 0, s.dark_card)))
    on_card = cv2.blur(cv2.bitwise_and(highest, cards), (block, block))
    bar = cv2.LUT(cv2.blur(cards, (block, block)), cv2.multiply(np.arange(256, dtype=np.uint8), s.dark_card / 255))
    dark = cv2.bitwise_and(cv2.compare(on_card, bar, cv2.CMP_LE), cv2.inRange(cv2.erode(highest, near), 0, s.dark_card))
    dark = cv2.bitwise_and(dark, cv2.dilate(cards, near))
    return Ground(np.asarray(paper, np.uint8), np.asarray(dark, np.uint8), scale, margin, off_table)


def _masks(small: Image, grey: Image, saturation: Image, value: Image, s: Settings) -> list[Image]:
    """The masks cards are outlined in, in this order: card-like paper, the frame's edges (rings: a back, a dark card,
    any outline), far from the table top's colour opened then closed, paper lighter than its surroundings, far from
    the table top's colour closed then opened (`saturation` and `value`: the frame's HSV channels)."""
    white = cv2.GaussianBlur(cv2.subtract(value, saturation), (5, 5), 0)
    _, paper = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    paper = cv2.morphologyEx(paper, cv2.MORPH_OPEN, kernel)
    # bridge a card's paper where its index or picture runs close to the edge
    paper = cv2.morphologyEx(paper, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    # On a light desk Otsu puts the cards with the desk and a card's edges run into its index: its paper is found
    # lighter than its surroundings (unsmoothed: opening and closing merge a card with the glare and the desk).
    block = max(15, (min(small.shape[:2]) // s.lighter_block) | 1)
    lighter = cv2.adaptiveThreshold(white, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -s.lighter_by)
    edges = cv2.Canny(cv2.GaussianBlur(grey, (5, 5), 0), 15, 45)
    edges = cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)), iterations=1)
    # not the table: far in colour from the table top (most of the frame: a sparse grid's median colour)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
    table = quantiles_u8(np.asarray(lab[::8, ::8], np.uint8).reshape(-1, 3).T)
    off = cv2.absdiff(lab, np.array([*table, 0.0], np.float64))  # a scalar: the table's colour
    lightness, green_red, blue_yellow = cv2.split(off)
    distance = cv2.add(cv2.add(lightness, green_red), blue_yellow)  # the L1 distance, saturated at 255
    _, far = cv2.threshold(distance, 45, 255, cv2.THRESH_BINARY)
    apart = cv2.morphologyEx(cv2.morphologyEx(far, cv2.MORPH_OPEN, kernel), cv2.MORPH_CLOSE, kernel)
    # Closed first, a card with a thin dark border stays whole where its print is the table's colour (a black deck's
    # gold court on wood) and thin lines still open away; as closing joins a card to its shadow, both are outlined.
    joined = cv2.morphologyEx(cv2.morphologyEx(far, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN,
                              cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)))
    return [np.asarray(m, np.uint8) for m in (paper, edges, apart, lighter, joined)]


def _one_card(contour: npt.NDArray[np.int32], blob: float, s: Settings) -> FloatArray | None:
    """The quad of a contour (of area `blob`) that is one card's outline, else None: its hull simplified to 4
    vertices when it simplifies so (perspective kept), else its minimum-area rectangle."""
    rect = cv2.minAreaRect(contour)
    rect_w, rect_h = rect[1]
    # the tests on the quad below bound the blob's share of this rectangle: most blobs need no quad fitted
    if blob < s.min_fill / s.quad_of_rect * rect_w * rect_h:
        return None
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    fits = (cv2.approxPolyDP(hull, eps * peri, True) for eps in (0.02, 0.035, 0.05))
    quad = next((q.reshape(4, 2) for q in fits if len(q) == 4), cv2.boxPoints(rect)).astype(np.float32)
    area = quad_area(quad)
    short, long_ = side_lengths(quad)
    if area <= 0 or not s.min_aspect <= long_ / max(short, 1e-6) <= s.max_aspect or blob / area < s.min_fill:
        return None  # not a card's proportions, or the blob does not fill it
    if rect_w * rect_h > s.quad_of_rect * area:  # a quad cutting off much of the blob
        return None
    return quad


def _to_edges(grey: Image, quads: Sequence[FloatArray], s: Settings) -> list[FloatArray]:
    """The quads with each side moved onto the strongest grey-level steps across it (within `edge_reach` pixels): a
    mask's outline lies a pixel or two off the card's edge and cuts its rounded corners, its index windows off."""
    if not quads:
        return []
    a = np.array(quads, np.float32)
    reach = np.arange(-s.edge_reach, s.edge_reach + 0.25, 0.5, dtype=np.float32)
    along, normal, middle, profile = _across(grey, a, np.linspace(0.2, 0.8, 13, dtype=np.float32), reach)
    steps = np.diff(profile, axis=3)
    k = np.argmax(np.abs(steps), axis=3)
    step = np.take_along_axis(steps, k[..., None], axis=3)[..., 0]
    # a card's edge is one step, lighter on one side all along it; a line on the table is two (its strongest flips)
    rising = (step >= s.edge_step).sum(axis=2)
    falling = (step <= -s.edge_step).sum(axis=2)
    strong = np.where((rising >= falling)[..., None], step >= s.edge_step, step <= -s.edge_step)
    fitted = (np.minimum(rising, falling) <= 1) & (strong.sum(axis=2) >= k.shape[2] // 2)
    points = middle + ((reach[k] + reach[k + 1]) / 2)[..., None] * normal[:, :, None]  # the step between samples
    lines = np.concatenate([along, a], axis=2)  # (vx, vy, x0, y0): the side itself where no edge is fitted
    for i, j in zip(*np.nonzero(fitted), strict=True):
        lines[i, j] = cv2.fitLine(points[i, j][strong[i, j]], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return list(_where_sides_meet(a, lines)[0])


def moved_out(grey: Image, quad: FloatArray, reach: float, s: Settings) -> FloatArray | None:
    """The quad with each side fitted to where the card gives way to the table: along lines across it, up to `reach`
    of its width out, the outermost point still half as far from the table's grey level (at the lines' ends, on the
    table only) as the paper is; None when no side moves. For an outline found inside its card (its index cut off),
    or a card drawn inside itself from its index window."""
    h, w = grey.shape
    a = np.asarray(quad, np.float32)
    centre = a.mean(axis=0)
    short = min(side_lengths(a))
    inner = a + 0.25 * (centre - a)
    x0, y0 = np.clip(inner.min(axis=0).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(inner.max(axis=0).astype(int) + 1, 1, [w, h])
    if x1 <= x0 or y1 <= y0:
        return None
    paper = float(quantiles_u8(grey[y0:y1, x0:x1].reshape(1, -1), 0.75)[0])
    steps = np.arange(0.0, reach * short, 0.5, dtype=np.float32)
    if len(steps) < 8:
        return None  # too small a quad to tell its card's edge from the table beyond it
    spots = np.linspace(0.15, 0.85, 15, dtype=np.float32)
    along, normal, middle, profile = (x[0] for x in _across(grey, a[None], spots, steps, outward=True))
    lines = np.concatenate([along, a], axis=1)
    moved = False
    for j in range(4):
        table = float(np.median(profile[j, :, -4:]))
        if abs(paper - table) < s.edge_paper:
            continue  # the card is not told from the table beside this side by its grey level
        card = np.abs(profile[j] - table) >= abs(paper - table) / 2
        ends = ~card[:, -4:].any(axis=1)  # lines ending on the table (not on another card beside it)
        last = np.where(card.any(axis=1), len(steps) - 1 - np.argmax(card[:, ::-1], axis=1), 0)
        if ends.sum() >= 8:
            points = middle[j][ends] + steps[last[ends]][:, None] * normal[j]
            lines[j] = cv2.fitLine(points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            moved |= float(np.median(steps[last[ends]])) >= 1.0
    if not moved:
        return None
    out, met = _where_sides_meet(a[None], lines[None], within=2 * reach)
    return out[0] if met[0] else None


def _across(grey: Image, quads: FloatArray, spots: FloatArray, offsets: FloatArray,
            outward: bool = False) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Grey levels across each side of `quads` at `spots` (shares of its length) and `offsets` pixels along its normal
    (`outward`: away from the centre); with the sides' unit vectors, normals and spots (quad x side x spot x xy)."""
    side = np.roll(quads, -1, axis=1) - quads
    along = side / np.maximum(np.linalg.norm(side, axis=2, keepdims=True), 1e-6)
    normal = np.stack([-along[..., 1], along[..., 0]], axis=2)
    if outward:
        centre = quads.mean(axis=1, keepdims=True)
        normal *= np.where(((quads + side / 2 - centre) * normal).sum(axis=2) < 0, -1.0, 1.0)[..., None]
    middle = quads[:, :, None] + spots[:, None] * side[:, :, None]
    at = (middle[:, :, :, None] + offsets[:, None] * normal[:, :, None, None]).reshape(-1, len(offsets), 2)
    profile = cv2.remap(grey, np.ascontiguousarray(at[..., 0]), np.ascontiguousarray(at[..., 1]), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).reshape(*middle.shape[:3], len(offsets))
    return along, normal, middle, profile.astype(np.float32)


def _where_sides_meet(quads: FloatArray, lines: FloatArray,
                      within: float = 0.1) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Where the quads' sides moved onto `lines` (quad x side x (vx, vy, x0, y0)) meet, and whether they did: a quad
    two of whose sides are near parallel, or a corner moved far (no card's edge: a fan's strip, glare), stays."""
    (ux, uy, px, py), (vx, vy, rx, ry) = np.moveaxis(np.roll(lines, 1, axis=1), 2, 0), np.moveaxis(lines, 2, 0)
    det = ux * vy - uy * vx
    parallel = np.abs(det) < 0.2
    t = (((rx - px) * vy - (ry - py) * vx) / np.where(parallel, 1.0, det.astype(np.float64))).astype(np.float32)
    out = np.stack([px + t * ux, py + t * uy], axis=2)
    reach = within * np.array([side_lengths(q)[0] for q in quads])
    met = ~parallel.any(axis=1) & (np.linalg.norm(out - quads, axis=2).max(axis=1) <= reach)
    return np.where(met[:, None, None], out, quads).astype(np.float32), met


def _corners(contour: npt.NDArray[np.int32], widths: tuple[float, ...], s: Settings) -> list[tuple[FloatArray, ...]]:
    """(corner, along next edge, along previous edge) at each convex near-right vertex of the blob's outline."""
    poly = cv2.approxPolyDP(contour, max(2.0, 0.04 * min(widths)), True).reshape(-1, 2).astype(np.float32)
    if len(poly) < 3:
        return []
    # clockwise on screen (y down) is a positive signed area in OpenCV's convention
    if cv2.contourArea(poly, oriented=True) < 0:
        poly = poly[::-1]
    a = np.concatenate([poly[1:], poly[:1]]) - poly  # to the next vertex (the previous one: b)
    b = -np.concatenate([a[-1:], a[:-1]])
    la = np.sqrt((a * a).sum(axis=1))
    lb = np.concatenate([la[-1:], la[:-1]])
    angle = np.degrees(np.arccos(np.clip((a * b).sum(axis=1) / (la.astype(np.float64) * lb + 1e-300), -1.0, 1.0)))
    # convex on screen, its edges 3 pixels or longer
    at = (la >= 3) & (lb >= 3) & (a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0] > 0) & (angle >= s.corner_angle[0]) & \
        (angle <= s.corner_angle[1])
    u = a / np.maximum(la, 1.0)[:, None]
    # the long side: the previous edge straightened to a right angle with the next one
    w = np.stack([-u[:, 1], u[:, 0]], axis=1)
    w[(w * b).sum(axis=1) < 0] *= -1
    return [(poly[i], u[i], w[i]) for i in np.flatnonzero(at)]


def find_cards(image: Image, s: Settings = SETTINGS, card_width: float | None = None, *, indices: bool = True) -> Found:
    """The outlines and corner proposals in a BGR frame, the proposals sized by `card_width` (pixels, from a table
    calibration) or else by the outlines and blobs found. With `indices`, every glyph pair's too (`index_corners`)."""
    h, w = image.shape[:2]
    scale = min(1.0, s.detect_width / w)
    small = np.asarray(cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_LINEAR),
                       np.uint8) if scale < 1 else image
    frame_area = small.shape[0] * small.shape[1]
    quads: list[FloatArray] = []
    blobs: list[tuple[npt.NDArray[np.int32], float]] = []  # contour, area
    _, saturation, value = (np.asarray(c, np.uint8) for c in cv2.split(cv2.cvtColor(small, cv2.COLOR_BGR2HSV)))
    grey = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), np.uint8)
    masks = _masks(small, grey, saturation, value, s)
    lighter: list[FloatArray] = []
    for k, mask in enumerate(masks):
        # holes too (the inside of a ring of edges), but for the last two masks (their holes are pips and indices)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL if k >= 3 else cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        areas = np.fromiter(map(cv2.contourArea, contours), np.float64, len(contours))
        sized = (areas >= s.min_card_area * frame_area) & (areas <= s.max_card_area * frame_area)
        for i in np.flatnonzero(sized).tolist():
            c = np.asarray(contours[i], np.int32)
            quad = _one_card(c, float(areas[i]), s)
            if quad is not None:
                (lighter if k == 3 else quads).append(quad)
            elif k in (0, 2):  # cards overlapping (the other masks' blobs are as often walls, lights, clutter)
                blobs.append((c, float(areas[i])))
    # Where another mask outlines a card too, its outline is kept: on felt the lighter-than-around mask takes in the
    # card's blurred rim, and a part of a card (a picture's frame) is no card.
    quads = _one_quad_per_card(quads)
    lighter = _not_outlined(_one_quad_per_card(lighter), quads, s)
    quads = _one_quad_per_card(quads + lighter)
    # a quad over `max_card_area` of the frame is no card (its blob was not: edges round most of the table)
    quads = _card_sized([q for q in quads if quad_area(q) <= s.max_card_area * frame_area])
    quads = _to_edges(np.asarray(cv2.GaussianBlur(grey, (3, 3), 0), np.uint8), quads, s)
    widths_seen = [side_lengths(q)[0] for q in quads]
    # a card's width: the calibration's, else the outlines' (strips told from cards by three outlines or more)
    known = card_width * scale if card_width is not None else float(np.median(widths_seen)) if widths_seen else None
    card_w = known if card_width is not None or len(widths_seen) >= 3 else None
    outlines = [order_quad(q / scale) for q in quads]
    corners: list[Corner] = []
    if card_w is not None:
        # An outline narrower than a card and as long as one (a smaller one is a card further off) is the visible
        # strip of a card under another (a row, a fan): the card is proposed at its corners.
        for q in quads:
            short, long_ = side_lengths(q)
            if short < s.strip_width * card_w and long_ >= s.strip_width * card_w * CARD_ASPECT:
                for v, u, wv in _corners(np.round(q).astype(np.int32).reshape(-1, 1, 2), (card_w,), s):
                    corners.append(Corner(v / scale, u, wv, (card_w / scale,)))
    for blob, area in sorted(blobs, key=lambda b: -b[1]):
        x, y, bw, bh = cv2.boundingRect(blob)
        # mostly a card outlined already (by another mask): its box's centre on the card, and not much larger
        if any(holds(q, (x + bw / 2, y + bh / 2)) and area < 1.3 * quad_area(q) for q in quads):
            continue
        if known is None and area < 3 * s.min_card_area * frame_area:
            continue
        short = min(cv2.minAreaRect(blob)[1])
        widths: tuple[float, ...] = (known,) if known is not None else (short / CARD_ASPECT, 0.75 * short / CARD_ASPECT)
        if area < 0.6 * CARD_ASPECT * widths[0] ** 2:  # smaller than a card: no cards in it
            continue
        for v, u, wv in _corners(blob, widths, s):
            # a ring of edges gives each corner twice (its outer and inner contour)
            if corners:
                at = np.array([c.point for c in corners]) * scale
                along = np.array([c.along_short for c in corners])
                if bool(((np.hypot(*(at - v).T) < 0.15 * widths[0]) & (along @ u > 0.9)).any()):
                    continue
            corners.append(Corner(v / scale, u, wv, tuple(x / scale for x in widths)))
            if len(corners) >= s.max_corners:
                break
        if len(corners) >= s.max_corners:
            break
    ground = _ground(small, value, masks[2], scale, s, quads=quads)
    if corners:  # a corner whose index window lies mostly off the ground frames the table (glare, a line on it)
        windows = np.array([index_window(c.cards()[0]) for c in corners]) * scale
        on_ground = _shares(np.asarray(cv2.bitwise_or(ground.paper, ground.dark), np.uint8), windows)
        corners = [c for c, share in zip(corners, on_ground, strict=True) if share >= s.corner_ground]
    found = Found(outlines, corners, ground)
    return replace(found, corners=corners + index_corners(image, found, s)) if indices else found


def _card_sized(quads: list[FloatArray]) -> list[FloatArray]:
    """The quads at most three times the typical card's size (a far bigger "card" is a part of the table), where three
    quads or more tell it: the median of those lying in no larger one (a card's own parts are no measure of it)."""
    if len(quads) < 3:
        return quads
    areas = [quad_area(q) for q in quads]
    meet = boxes_meet(quads)
    alone = [a for i, (q, a) in enumerate(zip(quads, areas, strict=True))
             if not any(meet[i, j] and areas[j] > a and cv2.intersectConvexConvex(q, quads[j])[0] > 0.7 * a
                        for j in range(len(quads)))]
    typical = float(np.median(alone))
    return [q for q, a in zip(quads, areas, strict=True) if a <= 3.0 * typical]


def _not_outlined(quads: list[FloatArray], others: list[FloatArray], s: Settings) -> list[FloatArray]:
    """The quads lying mostly in none of `others` 1/3 to about 1 times their size (the same card, or a part of it: a
    smaller part stays beside it, as in `_one_quad_per_card`); only quads whose bounding boxes meet are intersected."""
    areas, meet, n = [quad_area(q) for q in quads + others], boxes_meet(quads + others).tolist(), len(quads)
    return [q for i, q in enumerate(quads) if not any(meet[i][j] and s.same_outline * areas[i] <= areas[j] <= 3.0 *
            areas[i] and cv2.intersectConvexConvex(q, o)[0] >= 0.7 * areas[i] for j, o in enumerate(others, n))]


def _one_quad_per_card(quads: list[FloatArray]) -> list[FloatArray]:
    """One quad per card: of quads covering the same card the larger is kept (a frame inside a card goes); one
    holding a whole card and too long for a card goes. A quad inside one over three times its size (a large pip, the
    frame round the pips; or a card on a zone line) stays beside it: the typical card size and the reader decide."""
    areas = [quad_area(q) for q in quads]
    meet = boxes_meet(quads).tolist()  # only quads whose bounding boxes meet can overlap
    kept: list[int] = []  # indices into `quads`
    for j in sorted(range(len(quads)), key=areas.__getitem__):
        q, area = quads[j], areas[j]
        for i, k in enumerate(kept):
            if not meet[j][k]:
                continue  # apart
            inter = cv2.intersectConvexConvex(q, quads[k])[0]
            if inter > 0.7 * areas[k]:  # k lies inside q
                short, long_ = side_lengths(q)
                if long_ > 1.7 * short:
                    break  # q is no card: it holds a whole card and is too long for one
                if area > 3.0 * areas[k]:
                    continue  # both stay: a card and a part of it (a large pip, a frame), or a card on a zone
                kept[i] = j  # q is the card, k a frame inside it or the same card
                break
            if inter > 0.5 * area:
                break
        else:
            kept.append(j)
    out: list[int] = []
    for j in kept:  # the replacements above may have made duplicates
        if all(not meet[j][o] or quad_iou(quads[j], quads[o]) < 0.5 for o in out):
            out.append(j)
    return [quads[j] for j in out]


def index_grounds(found: Found, skip: Sequence[int] = (), dark_cards: Sequence[int] = ()) -> tuple[Image, Image]:
    """Where an index is looked for, for dark ink and for light (`Ground.region`): on `found.ground` off the outlines
    `skip` (cards already read) but for light ink on `dark_cards` (taken for backs: a black deck's cards are dark
    too)."""
    quads = found.outlines
    return (found.ground.region(False, [quads[i] for i in skip]),
            found.ground.region(True, [quads[i] for i in skip if i not in dark_cards]))


def index_corners(image: Image, found: Found, s: Settings = SETTINGS, *,
                  grounds: tuple[Image, Image] | None = None) -> list[Corner]:
    """Cards found by their index: the glyph pairs on `grounds` (`index_grounds`; all of the found ground unless
    given), each tagged `within` the smallest outline holding its glyphs."""
    quads = found.outlines
    fine = min(1.0, s.index_width / image.shape[1])
    widths = [side_lengths(q)[0] for q in quads]
    if fine == 1.0 and len(widths) >= 3:  # a frame of small cards is looked at larger: their glyphs are few pixels
        fine = float(np.clip(s.index_card_width / np.median(widths), 1.0, s.index_upscale))
    out: list[Corner] = []
    for dark, region in zip((False, True), grounds or index_grounds(found), strict=True):
        out += _glyph_pairs(image, region, dark, [q * fine for q in quads], s, fine=fine)
    kept: list[Corner] = []
    taken: dict[int, int] = {}
    for c in out:  # at most `max_index_pairs` off the outlines and in each outline, both inks together
        taken[c.within] = taken.get(c.within, 0) + 1
        if taken[c.within] <= s.max_index_pairs:
            kept.append(c)
    return kept


def _components(mask: Image) -> tuple[int, Labels, npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """The 8-connected parts of a mask: their count (the background included), labels, stats and centres."""
    # 16-bit labels are much faster, and enough when fewer pixels are set than they can count
    ltype = cv2.CV_16U if cv2.countNonZero(mask) < 65535 else cv2.CV_32S
    n, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=ltype)
    return int(n), np.asarray(labels), np.asarray(stats, np.int32), np.asarray(centres, np.float64)


def _untangled(labels: Labels, stats: npt.NDArray[np.int32], lo: float, hi: float,
               least_fill: float) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """The parts (stats, centres) the tangles among `labels`' parts fall into with their one-pixel lines opened away.
    A glyph touching a thin line (a card's edge, a line on the table) is one tangle with it: a part at least twice a
    glyph's least size (`lo`) that is bigger than a glyph (`hi`) or sparser (under `least_fill` of its box)."""
    stats_, centres_ = [np.zeros((0, 5), np.int32)], [np.zeros((0, 2), np.float64)]
    extent, area = stats[1:, 2:4].max(axis=1), stats[1:, 4]
    tangled = (extent >= 2 * lo) & ((extent > hi) | (area < least_fill * stats[1:, 2] * stats[1:, 3]))
    for i in np.flatnonzero(tangled).tolist():
        x, y, w, h, _ = stats[i + 1]
        tangle = np.asarray(labels[y:y + h, x:x + w] == i + 1, np.uint8)
        opened = np.asarray(cv2.morphologyEx(tangle, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)), np.uint8)
        _, _, cut, centres = _components(opened)
        stats_.append(cut[1:] + np.array([x, y, 0, 0, 0], np.int32))
        centres_.append(centres[1:] + np.array([x, y]))
    return np.concatenate(stats_), np.concatenate(centres_)


def _boxes(region: Image, to_fine: float, pad: int, size: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1, frame pixels at the fine scale) around the region's parts, each grown by `pad`,
    overlapping ones merged: every region pixel lies in exactly one box."""
    # The parts are outlined in the region's box only (most of a frame is no ground), in the order a labelling of
    # the mask by 2 x 2 blocks gives (first block's row, then column), those in another's hole left out (as merged).
    x, y, w, h = cv2.boundingRect(region)
    left, top = x - x % 2, y - y % 2
    parts, _ = cv2.findContours(region[top:y + h, left:x + w], cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    first = [int((p[..., 1] // 2 * 65536 + p[..., 0] // 2).min()) for p in parts]  # block row, then column
    stats = [np.add(cv2.boundingRect(parts[i]), (left, top, 0, 0)) for i in np.argsort(first)]
    fw, fh = size
    boxes = [(max(0, int(x * to_fine) - pad), max(0, int(y * to_fine) - pad),
              min(fw, int((x + bw) * to_fine) + pad + 1), min(fh, int((y + bh) * to_fine) + pad + 1))
             for x, y, bw, bh in stats]
    merged = True
    while merged:
        merged = False
        out: list[tuple[int, int, int, int]] = []
        for b in boxes:
            for i, o in enumerate(out):
                if b[0] < o[2] and o[0] < b[2] and b[1] < o[3] and o[1] < b[3]:
                    out[i] = (min(b[0], o[0]), min(b[1], o[1]), max(b[2], o[2]), max(b[3], o[3]))
                    merged = True
                    break
            else:
                out.append(b)
        boxes = out
    return boxes


def _glyph_pairs(image: Image, region: Image, light_ink: bool, quads: list[FloatArray], s: Settings, *,
                 fine: float) -> list[Corner]:
    """The index proposals of one ink polarity in the region (a mask at the ground's scale): its blobs of a glyph's
    size and fill, the frame looked at `fine` times its size, paired within each outline (`quads`, at that scale)."""
    if not region.any():
        return []
    h, w = image.shape[:2]
    size_fine = (round(w * fine), round(h * fine))
    block = max(15, (min(size_fine) // 12) | 1)
    to_fine = size_fine[0] / region.shape[1]
    where = cv2.resize(region, size_fine, interpolation=cv2.INTER_NEAREST)
    centres_, sizes_, contrasts_ = [], [], []
    lo, hi = s.glyph_size[0], s.glyph_size[1] * min(size_fine)
    for x0, y0, x1, y1 in _boxes(region, to_fine, block // 2 + 1, size_fine):
        sx0, sy0, sx1, sy1 = (round(v / fine) for v in (x0, y0, x1, y1))
        part = image[sy0:sy1, sx0:sx1]
        if fine != 1.0:
            part = np.asarray(cv2.resize(part, (x1 - x0, y1 - y0),
                                         interpolation=cv2.INTER_AREA if fine < 1 else cv2.INTER_LINEAR), np.uint8)
        # dark ink is dark in the lowest colour channel (red and black ink alike), light ink light in the highest
        level = 255 - cv2.max(cv2.max(part[:, :, 0], part[:, :, 1]), part[:, :, 2]) if light_ink else \
            cv2.min(cv2.min(part[:, :, 0], part[:, :, 1]), part[:, :, 2])
        ink, depth = _ink(np.asarray(level, np.uint8), np.asarray(where[y0:y1, x0:x1], np.uint8), block)
        _, labels, stats, centres = _components(ink)
        cut, cut_centres = _untangled(labels, stats, lo, hi, s.glyph_fill[0])
        centres_ += [centres[1:] + np.array([x0, y0]), cut_centres + np.array([x0, y0])]
        sizes_ += [stats[1:], cut]
        contrasts_.append(_contrasts(ink, depth, np.concatenate([stats[1:], cut])))
    stats = np.concatenate(sizes_)
    centres = np.concatenate(centres_)
    size = stats[:, 2:4].max(axis=1)
    fill = stats[:, 4] / np.maximum(stats[:, 2] * stats[:, 3], 1)
    # dark ink is printed, well beyond the paper, where a table's grain or a shadow just passes (light ink is fainter)
    contrast = np.concatenate(contrasts_)
    printed = light_ink | (contrast >= s.glyph_contrast)
    keep = (size >= lo) & (size <= hi) & (fill >= s.glyph_fill[0]) & (fill <= s.glyph_fill[1]) & printed
    # Each glyph's outline (-1: none), whose glyphs alone it pairs with: the reader decides whether an outline's own
    # glyphs are wanted. A glyph a third of its outline's width or more (a pip taken for a card) is on none.
    owner = np.full(len(stats), -1, np.int32)
    for k in sorted(range(len(quads)), key=lambda k: quad_area(quads[k])):  # the smallest outline holding it
        q = quads[k]
        at = card_coords(q, centres)
        inside = np.all((at >= 0) & (at <= 1), axis=1) & (3 * size <= side_lengths(q)[0]) & (owner < 0)
        owner[inside] = k
    # a rank touching its suit (a jumbo index, or one blurred together) is one blob twice as tall as wide
    bw, bh = stats[:, 2].astype(np.float32), stats[:, 3].astype(np.float32)
    across = np.minimum(bw, bh)
    stacked = printed & (across >= lo) & (size <= hi) & (fill >= 0.25) & (fill <= 0.75) & (size >= 1.7 * across) & \
        (size <= 2.8 * across)
    out: list[Corner] = []
    centres, size, bw, bh = centres / fine, size / fine, bw / fine, bh / fine  # paired in frame pixels
    for k in np.unique(owner[keep | stacked]):
        glyphs = np.flatnonzero(keep & (owner == k))
        # the most inked first: where the cap (`max_index_pairs`) cuts, it keeps the pairs likeliest to be an index
        glyphs = glyphs[np.argsort(-contrast[glyphs], kind="stable")]
        out += _pairs(centres[glyphs].astype(np.float32), size[glyphs].astype(np.float32), int(k), light_ink, s)
        for g in np.flatnonzero(stacked & (owner == k)):
            out += _stack(centres[g].astype(np.float32), float(bw[g]), float(bh[g]), int(k), light_ink)
    return out


def _ink(level: Image, ground: Image, block: int) -> tuple[Image, Image]:
    """Ink on the ground, 18 grey levels below the ground's mean around it (`block` pixels square), and each pixel's
    depth below that mean. The mean is the ground's alone: the table beside a card, far lighter or darker, would
    pull it off the card's level and lose an index's thin strokes there."""
    def box_sum(image: Image) -> FloatArray:
        return np.asarray(cv2.boxFilter(image, cv2.CV_32F, (block, block), normalize=False,
                                        borderType=cv2.BORDER_REPLICATE), np.float32)

    total, count = box_sum(np.asarray(cv2.bitwise_and(level, ground), np.uint8)), box_sum(ground) / 255
    mean = np.rint(total / np.maximum(count, 1.0)).astype(np.uint8)  # whole grey levels, as adaptiveThreshold's
    depth = np.asarray(cv2.subtract(mean, level), np.uint8)
    return np.asarray(cv2.bitwise_and(ground, cv2.inRange(depth, 18, 255)), np.uint8), depth


def _contrasts(ink: Image, depth: Image, stats: npt.NDArray[np.int32]) -> FloatArray:
    """The contrast of each part (`stats`' rows): the mean depth of the ink in its box."""
    x, y, w, h = stats[:, :4].T

    def in_boxes(image: Image) -> FloatArray:
        total = np.asarray(cv2.integral(image, sdepth=cv2.CV_32S), np.int32)
        return np.asarray(total[y + h, x + w] - total[y, x + w] - total[y + h, x] + total[y, x], np.float32)

    inked = np.asarray(cv2.bitwise_and(depth, ink), np.uint8)
    return np.asarray(in_boxes(inked) / np.maximum(in_boxes(ink) / 255, 1), np.float32)


def _stack(centre: FloatArray, bw: float, bh: float, within: int, light_ink: bool) -> list[Corner]:
    """A blob of a rank touching its suit, either way along its long side, as its halves would give as a pair."""
    iw = min(bw, bh)  # a glyph's size: the blob's width
    ih = max(bw, bh) / 2 + iw  # as `_pairs` frames it: the halves' centres apart, plus a glyph
    axis = np.array([0.0, 1.0] if bh >= bw else [1.0, 0.0], np.float32)
    out: list[Corner] = []
    for v in (axis, -axis):
        u = np.array([v[1], -v[0]], np.float32)
        origin = centre - 0.75 * iw * u - 0.65 * ih * v
        out.append(Corner(origin.astype(np.float32), u, v.astype(np.float32), (1.7 * iw / CORNER_W,), True, within,
                          light_ink, one_blob=True))
    return out


def _pairs(pts: FloatArray, size: FloatArray, within: int, light_ink: bool, s: Settings) -> list[Corner]:
    """Pairs of glyphs of alike size, one a little above the other (a rank over its suit), each both ways round, as
    index windows (at most `max_index_pairs`) framed as the reader was trained on boxed indices."""
    d = np.sqrt((pts[:, None, 0] - pts[None, :, 0]) ** 2 + (pts[:, None, 1] - pts[None, :, 1]) ** 2)  # x, y apart
    mean = (size[:, None] + size[None, :]) / 2
    ratio = size[None, :] / size[:, None]
    ok = (d >= 0.6 * mean) & (d <= 1.6 * mean) & (ratio >= 0.5) & (ratio <= 1.6)
    # A pattern (a back's lattice, a cloth's weave) is glyph-like blobs all round one another: a pair whose glyphs
    # both pair with `pattern_partners` or more is the pattern's (a rank pairs with its suit and a pip or two)
    partners = ok.sum(axis=1)
    ok &= np.minimum(partners[:, None], partners[None, :]) < s.pattern_partners
    top, low = np.nonzero(ok)  # both ways round: (a, b) and (b, a), either blob may be the rank
    top, low = top[:s.max_index_pairs], low[:s.max_index_pairs]
    dist = d[top, low][:, None]
    v = (pts[low] - pts[top]) / np.maximum(dist, 1e-6)
    u = np.stack([v[:, 1], -v[:, 0]], axis=1)  # the card's short side, to the index's right
    ih = dist + (size[top] + size[low])[:, None] / 2
    iw = np.maximum(size[top], size[low])[:, None]
    centre = (pts[top] + pts[low]) / 2
    origin = centre - 0.75 * iw * u - 0.65 * ih * v  # the index up-left in its window, paper right and below
    # the window's height follows from the card's proportions: about 1.6 times its width, 1.7 glyph widths
    widths = (1.7 * iw[:, 0] / CORNER_W).tolist()
    origin, u, v = origin.astype(np.float32), u.astype(np.float32), v.astype(np.float32)
    return [Corner(origin[i], u[i], v[i], (widths[i],), True, within, light_ink,
                   suit=(*pts[low[i]].tolist(), float(size[low[i]]))) for i in range(len(top))]
