"""Card outlines that the paper mask cannot give: proposals from several whiteness thresholds, and a
test of any proposed quadrilateral against the image (does it look like a card's edge all round?).

One global threshold cannot separate a white card from a cream folder, a tiled floor or a light
carpet, and it breaks the white border of a picture card into pieces. But at some threshold between
the card's paper and its surroundings the card is a blob of its own. So the whiteness score is cut
at several levels, every blob whose hull is close to a quadrilateral is a proposal, and a proposal is
kept only when its outline is a card's edge nearly all round: the strip just inside is card paper
(bright, little coloured) and brighter than the strip just outside, or an image edge runs along it
(a card touching another card or lying on white paper shows only a thin shadow line there).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry import FloatArray, order_quad, quad_area, quad_iou, side_lengths

Image = npt.NDArray[np.uint8]
Contour = npt.NDArray[Any]

LEVELS = tuple(range(40, 251, 12))
MIN_EVIDENCE = 0.75
MIN_SIDE_EVIDENCE = 0.5
RECT_FILL = 0.8
RECT_ASPECT = (1.2, 1.8)
RECT_EVIDENCE = 0.9
_STEPS = np.linspace(0.12, 0.88, 12, dtype=np.float32)
SIDE_STEPS = _STEPS  # where a side is sampled (shares of its length)


def whiteness(frame: Image) -> Image:
    """Value minus saturation (HSV), lightly blurred: high on white card paper, low on colour and shade."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    score = np.clip(hsv[:, :, 2].astype(np.int16) - hsv[:, :, 1].astype(np.int16), 0, 255).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(score, (3, 3), 0), np.uint8)


def quad_of(contour: Contour, *, min_fill: float = 0.6) -> FloatArray | None:
    """The quadrilateral of a blob whose hull is close to one, else None."""
    hull = cv2.convexHull(contour)
    hull_area = float(cv2.contourArea(hull))
    if hull_area <= 0:
        return None
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float32)
        if len(approx) < 4:
            return None
        if len(approx) != 4:
            continue
        qa = quad_area(approx)
        if not 0.88 <= qa / hull_area <= 1.12:
            return None
        if float(cv2.contourArea(contour)) < min_fill * qa:
            return None
        short, long_ = side_lengths(approx)
        if not 1.0 <= long_ / max(short, 1.0) <= 2.3:
            return None
        return order_quad(approx)
    return None


def threshold_proposals(score: Image, min_area: float, max_area: float, *,
                        dist: npt.NDArray[np.float32] | None = None) -> list[FloatArray]:
    """Quadrilateral blobs of the whiteness score cut at each of several levels.

    With `dist` (`edge_distance` of the same image), a blob whose hull is no quadrilateral is also
    proposed as its minimum-area rectangle when its hull fills most of that rectangle, the rectangle has
    a card's proportions and its outline is a card's edge nearly all round (`RECT_EVIDENCE`): a card
    with a corner in a shadow, or a picture card whose white border breaks, still spans the whole card
    along both its sides (on the tuning photos: 5 more cards found, 2 more false outlines, in one photo).
    With `dist`, closed quadrilateral edges of the score that pass the same test are proposed too
    (`_edge_outlines`)."""
    out: list[FloatArray] = []
    rim = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    for level in LEVELS:
        binary = np.asarray((score >= level).astype(np.uint8) * 255, np.uint8)
        binary = np.asarray(cv2.morphologyEx(binary, cv2.MORPH_OPEN, rim), np.uint8)
        contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            _, _, bw, bh = cv2.boundingRect(c)
            if bw * bh < min_area or bw * bh > 2.5 * max_area:
                continue
            quad = quad_of(c)
            if quad is None and dist is not None:
                quad = _spanning_rect(c, score, dist)
            if quad is None or not min_area <= quad_area(quad) <= max_area:
                continue
            if all(quad_iou(quad, q) < 0.85 for q in out):
                out.append(quad)
    if dist is not None:
        for quad in _edge_outlines(score, dist, min_area, max_area):
            if all(quad_iou(quad, q) < 0.85 for q in out):
                out.append(quad)
    return out


def _edge_outlines(score: Image, dist: npt.NDArray[np.float32], min_area: float, max_area: float) -> list[FloatArray]:
    """Closed outlines among the whiteness score's edges that are quadrilaterals and a card's edge nearly
    all round: a card on a tiled floor touches the light grout at every level, but its outline is still
    one closed edge (on the tuning photos: 2 more cards found, no more false outlines)."""
    edges = cv2.Canny(cv2.GaussianBlur(score, (5, 5), 0), 40, 120)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    out: list[FloatArray] = []
    for c in contours:
        if not min_area <= float(cv2.contourArea(cv2.convexHull(c))) <= max_area:
            continue
        quad = quad_of(c, min_fill=0.0)
        if quad is None:
            continue
        mean, weakest = edge_evidence(score, dist, quad)
        if mean >= RECT_EVIDENCE and weakest >= MIN_SIDE_EVIDENCE and all(quad_iou(quad, q) < 0.85 for q in out):
            out.append(quad)
    return out


def _spanning_rect(contour: Contour, score: Image, dist: npt.NDArray[np.float32]) -> FloatArray | None:
    """The minimum-area rectangle of a blob that fills most of it with a card's proportions and whose
    outline is a card's edge nearly all round, else None."""
    rect = cv2.minAreaRect(contour)
    rw, rh = rect[1]
    if min(rw, rh) <= 0 or not RECT_ASPECT[0] <= max(rw, rh) / min(rw, rh) <= RECT_ASPECT[1]:
        return None
    if float(cv2.contourArea(cv2.convexHull(contour))) < RECT_FILL * rw * rh:
        return None
    quad = order_quad(cv2.boxPoints(rect))
    mean, weakest = edge_evidence(score, dist, quad)
    return quad if mean >= RECT_EVIDENCE and weakest >= MIN_SIDE_EVIDENCE else None


def edge_distance(gray: Image) -> npt.NDArray[np.float32]:
    """Distance (pixels) to the nearest image edge."""
    edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 30, 90)
    return np.asarray(cv2.distanceTransform((edges == 0).astype(np.uint8), cv2.DIST_L2, 3), np.float32)


def sample_at(image: npt.NDArray[Any], pts: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]:
    """The image's values at the points (nearest pixel; 0 off the image), and which points are on it."""
    h, w = image.shape[:2]
    xi, yi = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    values = np.zeros(len(pts), image.dtype)
    values[ok] = image[yi[ok], xi[ok]]
    return values, ok


def edge_evidence(score: Image, dist: npt.NDArray[np.float32], quad: FloatArray) -> tuple[float, float]:
    """(mean, weakest side): the fraction of each side's length that looks like a card's edge."""
    fractions = side_evidence(score, dist, quad)
    return float(np.mean(fractions)), float(min(fractions))


def side_evidence(score: Image, dist: npt.NDArray[np.float32], quad: FloatArray) -> tuple[float, float, float, float]:
    """The fraction of each side's length (side i runs from corner i to corner i + 1) that looks like a
    card's edge, the quad's inside taken as the card: a piece of a card (its index corner) is judged by the
    sides it shares with the card."""
    short, _ = side_lengths(quad)
    d_in = max(2.5, 0.05 * short)
    d_out = max(2.0, 0.03 * short)
    center = quad.mean(axis=0)
    # The sample points of the four sides, side by side: each image is sampled once for all of them.
    alongs, ins, outs = [], [], []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        along = a[None, :] + (b - a)[None, :] * _STEPS[:, None]
        d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
        normal = np.array([-d[1], d[0]], np.float32)
        if float(np.dot(center - (a + b) / 2, normal)) < 0:
            normal = -normal  # pointing into the card
        alongs.append(along)
        ins.append(along + normal * d_in)
        outs.append(along - normal * d_out)
    a, b, c, d = (float(side.mean()) for side in
                  edge_points(score, dist, np.concatenate(alongs), np.concatenate(ins), np.concatenate(outs))
                  .reshape(4, len(_STEPS)))
    return a, b, c, d


def edge_points(score: Image, dist: npt.NDArray[np.float32], alongs: FloatArray, ins: FloatArray,
                outs: FloatArray) -> npt.NDArray[np.bool_]:
    """Whether each point of a supposed card edge (`alongs`, with the points just inside and just outside
    it) looks like one: the inside brighter than the outside, or an image edge there with the inside not
    darker, or the outside beyond the frame. (N, 2) arrays in, N answers out."""
    inside, in_ok = sample_at(score, ins)
    outside, out_ok = sample_at(score, outs)
    near, near_ok = sample_at(dist, alongs)
    contrast = inside.astype(np.int16) - outside.astype(np.int16) >= 12
    edge = near_ok & (near <= 1.5) & (inside.astype(np.int16) >= outside.astype(np.int16) - 8)
    # A card cut by the frame's edge: the part beyond the frame is no evidence against it.
    beyond = ~out_ok | ~near_ok
    return np.asarray(in_ok & (contrast | edge | beyond), np.bool_)


def is_card_outline(score: Image, dist: npt.NDArray[np.float32], quad: FloatArray) -> bool:
    mean, weakest = edge_evidence(score, dist, quad)
    return mean >= MIN_EVIDENCE and weakest >= MIN_SIDE_EVIDENCE


def _merged_lines(segments: npt.NDArray[np.int32]) -> list[tuple[float, float, float]]:
    """Hough segments merged into infinite lines (theta, rho, total length), longest first: the pieces
    of one card side broken by an index or a shadow count together. (Each segment joins the first line
    it matches; the lines so far are compared all at once, with the same arithmetic as one by one.)"""
    rows = segments.reshape(-1, 4).astype(np.float64)
    thetas = np.empty(len(rows), np.float64)
    rhos = np.empty(len(rows), np.float64)
    lengths: list[float] = []
    tolerance = np.radians(4)
    n = 0
    for x0, y0, x1, y1 in rows:
        length = float(np.hypot(x1 - x0, y1 - y0))
        theta = float(np.arctan2(x0 - x1, y1 - y0)) % np.pi  # normal direction, in [0, pi)
        rho = x0 * np.cos(theta) + y0 * np.sin(theta)
        if n:
            dt = np.abs(theta - thetas[:n])
            flip = dt > np.pi / 2
            same = (np.minimum(dt, np.pi - dt) < tolerance) & (np.abs(np.where(flip, -rho, rho) - rhos[:n]) < 4.0)
            hit = np.flatnonzero(same)
            if hit.size:
                lengths[int(hit[0])] += length
                continue
        thetas[n], rhos[n] = theta, rho
        lengths.append(length)
        n += 1
    order = sorted(range(n), key=lambda k: -lengths[k])
    return [(float(thetas[k]), float(rhos[k]), lengths[k]) for k in order]


def _meet(a: tuple[float, float, float], b: tuple[float, float, float]) -> FloatArray | None:
    m = np.array([[np.cos(a[0]), np.sin(a[0])], [np.cos(b[0]), np.sin(b[0])]])
    if abs(np.linalg.det(m)) < 1e-3:
        return None
    return np.asarray(np.linalg.solve(m, np.array([a[1], b[1]])), np.float32)


def line_quads(gray: Image, min_side: float, max_side: float, *, region: Image | None = None,
               max_lines: int = 14) -> list[FloatArray]:
    """Quadrilaterals bounded by four straight image edges (two roughly parallel pairs): the outline of
    a card lying on another, whose paper is one blob with the card below. `region`: only edges where
    it is non-zero count (the blob, a little widened: the table's own lines stay out)."""
    edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 40, 120)
    if region is not None:
        edges[region == 0] = 0
    segments = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold=max(15, int(0.25 * min_side)),
                               minLineLength=0.35 * min_side, maxLineGap=4)
    if segments is None:
        return []
    lines = _merged_lines(np.asarray(segments, np.int32))[:max_lines]
    pairs: list[tuple[int, int]] = []
    for i, first in enumerate(lines):
        for j in range(i + 1, len(lines)):
            second = lines[j]
            dt = abs(first[0] - second[0])
            flip = dt > np.pi / 2
            if min(dt, np.pi - dt) > np.radians(12):
                continue
            gap = abs(first[1] - (-second[1] if flip else second[1]))
            if 0.6 * min_side <= gap <= 1.15 * max_side:
                pairs.append((i, j))
    # Many quads share a corner (the same two lines, met in the same order): each is computed once.
    meets: dict[tuple[int, int], FloatArray | None] = {}

    def meet(x: int, y: int) -> FloatArray | None:
        if (x, y) not in meets:
            meets[(x, y)] = _meet(lines[x], lines[y])
        return meets[(x, y)]

    out: list[FloatArray] = []
    for i, (a, b) in enumerate(pairs):
        for c, d in pairs[i + 1:]:
            dt = abs(lines[a][0] - lines[c][0]) % np.pi
            if min(dt, np.pi - dt) < np.radians(40):
                continue
            corners = [meet(a, c), meet(c, b), meet(b, d), meet(d, a)]
            if any(p is None for p in corners):
                continue
            quad = np.array(corners, np.float32)
            if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
                continue
            short, long_ = side_lengths(quad)
            if short < 0.6 * min_side or long_ > 1.15 * max_side or not 1.05 <= long_ / short <= 2.3:
                continue
            out.append(order_quad(quad))
    return out

