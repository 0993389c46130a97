"""Finding card outlines in a frame: face up or down, any rotation and perspective, partly overlapped.

Cards are the brightest, least coloured things on a table: their paper (and the white border of a
back) stands out from felt and wood by its low saturation. The mask of card-like pixels is
thresholded against the frame's own statistics (Otsu on a whiteness score), so uneven light moves the
threshold with it. Each blob of the mask is either one card (its hull is close to a quadrilateral)
or several cards overlapping (or a card with a hand over it). For those, every convex, near-right
corner of the blob's outline proposes the card that starts there, sized from the cards already found
in the frame or from the blob's longest straight edge; proposals mostly covered by the mask are kept,
then duplicates are removed (non-maximum suppression by overlap).
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.corner_search import corner_cards
from vision.face import face_symmetry, looks_like_face
from vision.geometry import (
    CARD_ASPECT,
    FloatArray,
    along_to_meet,
    inside_area,
    order_quad,
    past_the_edge,
    quad_area,
    quad_iou,
    side_lengths,
)
from vision.index_first import cards_from_marks, index_marks, is_index_card
from vision.line_search import four_edge_cards
from vision.outline import (
    edge_distance,
    edge_evidence,
    line_quads,
    threshold_proposals,
    whiteness,
)

Image = npt.NDArray[np.uint8]
Contour = npt.NDArray[Any]

MIN_AREA_FRACTION = 0.0015
MAX_AREA_FRACTION = 0.6
ROUGH_TABLE_SPECKS = 25
BRIGHT_TABLE_FRACTION = 0.15  # a blob this big is no card or pile of cards on a table: a bright table top
DETECT_WIDTH = 720
MAX_LINES = 120
CONTAINED = 0.75
TOO_BIG_FOR_SURE = 2.0
MAX_SKEW = 1.25
# A whiteness threshold's quad whose opposite sides differ more than this is no card, however its corners read:
# a blob of light carpet or table beside cards (real photographs' tuning split: a trapezoid from a ten and a
# nine on carpet down to the frame's bottom corners, 2.0; in its `shade-y` variant, one from a nine over the
# light wood grain beside it, 2.3). Perspective on a phone's or a webcam's photograph of a table makes far
# less: the outlines read right there are 1.03 at the median, 1.18 at the 95th percentile.
MAX_PROPOSAL_SKEW = 1.8
SQUARISH = 1.25
PART_AREA = 0.85  # a card inside a merged outline of two has at most this share of its area
MAX_COVERED = 0.5  # the other card of a merged outline: at most this share of it under the first
CORNER_NEAR = 0.1  # corners this close (of the short side) are the same corner
NO_CARD_LENGTH = 0.3  # a card's length (of the frame's longer side) guessed where no card is found to tell it
REACH_FRACTION = 0.25  # without a card size: how far around an unexplained blob a card may lie (of the frame)
# A threshold proposal without both indices is still a card when its outline is a card's edge all round
# (mean and weakest side of `outline.edge_evidence`), it has a card's proportions (stretched photos
# included) and its print is a card face's (`vision.face`).
FACE_EVIDENCE = 0.95
FACE_SIDE_EVIDENCE = 0.83
FACE_ASPECT = (1.15, 2.0)
SPAN_FACE = 0.6
SPAN_NO_FACE = 0.2
SURE_INK = 0.02  # share of ink (`vision.face`) a quad with both indices read must have
FACE_HOLDER = 2.5  # a quad this much bigger than a face that holds it is no card (a card's picture frame is ~0.6 of it)
_SIDE_STEPS = np.linspace(0.1, 0.9, 15, dtype=np.float32)
_SIDE_OFFSETS = np.array([3.0, 5.0], np.float32)
ROUGH_VARIANCE = 15.0**2
_RIM3 = np.ones((3, 3), np.uint8)
_WIDEN7 = np.ones((7, 7), np.uint8)


def card_mask(frame: Image, *, despeckle: bool = True) -> Image:
    """Pixels that look like card paper: bright for their surroundings and low in saturation."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    s = hsv[:, :, 1].astype(np.int16)
    v = hsv[:, :, 2].astype(np.int16)
    score = np.clip(v - s, 0, 255).astype(np.uint8)
    score = cv2.GaussianBlur(score, (5, 5), 0)
    otsu, _ = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # Compensate slow light fall-off: compare each pixel with a wide local mean too.
    local = cv2.blur(score, (101, 101))
    thr = max(90.0, float(otsu))
    bright = (score >= thr) | ((score.astype(np.int16) - local.astype(np.int16) > 45) & (score > 110))
    # Paper is smooth; carpet, wood grain and sparkle are not: drop bright pixels in rough texture.
    f = score.astype(np.float32)
    mean = cv2.blur(f, (5, 5))
    rough = cv2.blur(f * f, (5, 5)) - mean * mean > ROUGH_VARIANCE
    strong = score >= min(250.0, thr + 50.0)
    mask = (bright & (strong | ~rough)).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    if despeckle:
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    return np.asarray(mask, dtype=np.uint8)


def _fill_holes(mask: Image, contours: list[Contour]) -> Image:
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


def find_cards(frame: Image, *, card_size: tuple[float, float] | None = None) -> list[FloatArray]:
    """Ordered quadrilaterals (see `order_quad`) of the cards in a BGR frame."""
    return _find_cards(frame, card_size)


def _find_cards(frame: Image, card_size: tuple[float, float] | None) -> list[FloatArray]:
    h, w = frame.shape[:2]
    given_size = card_size
    if w > DETECT_WIDTH * 1.4:
        # Outlines are found on a half-size frame (4x fewer pixels); the index is read at full size.
        small = cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        half = card_mask(np.asarray(small, np.uint8), despeckle=False)
        big = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
        mask: Image = np.asarray((big > 127).astype(np.uint8) * 255, np.uint8)
    else:
        mask = card_mask(frame)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    min_area = MIN_AREA_FRACTION * h * w
    hull_areas = [float(cv2.contourArea(cv2.convexHull(c))) for c in contours]
    # Card paper merged with a bright table (white cloth, paper, marble) makes one huge blob.
    bright_table = any(a > BRIGHT_TABLE_FRACTION * h * w for a in hull_areas)
    # Many specks of "paper" are a rough, light table (carpet, grain) that breaks a card's outline
    # in the mask or joins it to the table: there too, look for outlines.
    rough_table = sum(1 for a in hull_areas if a < min_area) > ROUGH_TABLE_SPECKS
    contours = [c for c, a in zip(contours, hull_areas, strict=True) if min_area <= a <= MAX_AREA_FRACTION * h * w]
    filled = _fill_holes(mask, contours)
    singles: list[FloatArray] = []
    single_contours: list[Contour] = []
    clusters: list[Contour] = []
    doubtful: list[Contour] = []
    for c in contours:
        quad = _single_quad(c, mask)
        if quad is not None:
            singles.append(quad)
            single_contours.append(c)
            if _skew(quad) > MAX_SKEW or _squarish(quad):
                # Opposite sides this unequal are no card seen from above (rendered tables: at most
                # 1.06), nor is a near-square, but two overlapping cards whose hull happens to be
                # four-sided: looked at again.
                doubtful.append(c)
        else:
            clusters.append(c)
    # A "card" much bigger than a card is two cards side by side: split it like any cluster. The size
    # is known from the calibration, or guessed from the other cards (less surely: perspective, close-ups).
    too_big = 1.45
    if card_size is None and singles:
        sizes = np.array([side_lengths(q) for q in singles])
        card_size = (float(np.median(sizes[:, 0])), float(np.median(sizes[:, 1])))
        too_big = 2.2
    if card_size is not None:
        expected = card_size[0] * card_size[1]
        keep = []
        for c, q in zip(single_contours, singles, strict=True):
            if quad_area(q) > too_big * expected:
                clusters.append(c)
            else:
                keep.append(q)
        singles = keep
    found = list(singles)
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8) if clusters else None
    for c in clusters:
        size = card_size or _size_from_blob(c)
        proposals = _split_cluster(c, filled, size, min_area, frame)
        if gray is not None:
            proposals.extend(_edge_proposals(c, gray, filled, size))
            proposals = _edge_support(c, gray, proposals)
        # A proposal that puts an index in one of its index corners is a face-up card lying that way.
        proposals = [(score + (0.5 if _has_index(frame, q) else 0.0), q) for score, q in proposals]
        found.extend(_suppress(proposals))
    unexplained = clusters + doubtful
    # How far around an unexplained blob a card may lie: a blob can be a sliver of a card in shade or
    # glare (the rest of it under the frame's paper threshold), so its own size says nothing.
    reach = card_size[1] if card_size is not None else REACH_FRACTION * max(h, w)
    if bright_table or rough_table:
        # On such a table the mask's blobs are as often the table's own light patches as cards (on the
        # tuning photos, 180 of 200 blobs without an index matched no card): only a face-up card with
        # an index counts there, as for the outline search. A back there stays unfound, never invented.
        found = [q for q in found if _has_index(frame, q)]
        found.extend(_outlined_cards(frame, found, min_area))
        found = _with_threshold_cards(frame, found, min_area, given_size, unexplained, whole_frame=True,
                                      reach=reach, faces_only=True)
        return _with_index_cards(frame, found, given_size)
    if unexplained or not found:
        # Blobs the mask could not cut into cards (cards touching or overlapping, or joined to something
        # light beside them), or nothing found at all: look there again at other whiteness levels.
        found = _with_threshold_cards(frame, found, min_area, given_size, unexplained, whole_frame=not found,
                                      reach=reach)
        return _with_index_cards(frame, found, given_size)
    return found


def _with_index_cards(frame: Image, found: list[FloatArray], card_size: tuple[float, float] | None
                      ) -> list[FloatArray]:
    """`found` plus the cards that two corner indices fix where no outline closed (`vision.index_first`),
    outside the cards already found. Only where the paper mask left something unexplained, and only on a
    frame found at full size (photographs): a 1280 x 720 frame's 30 ms budget has no room for it (the
    search costs tens of milliseconds on a cluttered photograph)."""
    h, w = frame.shape[:2]
    if w > DETECT_WIDTH * 1.4:
        return found
    if card_size is not None:
        length = card_size[1]
    elif found:
        length = float(np.median([side_lengths(q)[1] for q in found]))
    else:
        length = NO_CARD_LENGTH * max(h, w)
    exclude = np.zeros((h, w), np.uint8)
    for q in found:
        cv2.fillConvexPoly(exclude, np.round(q).astype(np.int32), 1)
    out = _index_cards(frame, found, length, exclude, opened=False)
    # Again with the ink's thin lines cut (`index_first.index_marks(opened=True)`): a court card's index
    # touching its picture's frame, a pip touching a towel's print. Its outlines are checked against the
    # cards found so far only: an outline of the first round, refused, must not hide a truer one here.
    out = _index_cards(frame, out, length, exclude, opened=True)
    out += four_edge_cards(frame, length, out)
    # A pile's top card, which none of the searches above closes, from one of its corners (no card length
    # needed: a photograph of a pile alone gives none).
    return out + corner_cards(frame, out)


def _index_cards(frame: Image, found: list[FloatArray], length: float, exclude: Image, *, opened: bool
                 ) -> list[FloatArray]:
    """`found` plus the outlines fixed by two index marks (`index_first`) that are cards."""
    # Outlines that much the same indices fix are one card: the first stands for them all. Two quads
    # overlap only if their centres are closer than their half-diagonals together: only those are compared.
    others = list(found)
    centres = [q.mean(axis=0) for q in others]
    radii = [float(np.linalg.norm(q - q.mean(axis=0), axis=1).max()) for q in others]
    out = list(found)
    candidates = cards_from_marks(*index_marks(frame, length, exclude, opened=opened), length)
    if not candidates:
        return out
    corners = np.array(candidates)
    middles = corners.mean(axis=1)
    reaches = np.linalg.norm(corners - middles[:, None, :], axis=2).max(axis=1)
    for quad, centre, radius in zip(candidates, middles, reaches, strict=True):
        near: list[int] = []
        if others:
            near = np.nonzero(np.linalg.norm(np.array(centres) - centre, axis=1) < np.array(radii) + radius)[0].tolist()
        if any(_contradicts(quad, others[i]) for i in near):
            continue
        others.append(quad)
        centres.append(centre)
        radii.append(float(radius))
        if is_index_card(frame, quad):
            out.append(quad)
    return out


def _with_threshold_cards(frame: Image, found: list[FloatArray], min_area: float,
                          card_size: tuple[float, float] | None, clusters: list[Contour], *,
                          whole_frame: bool, reach: float = 0.0, faces_only: bool = False) -> list[FloatArray]:
    """`found` plus the cards that a whiteness threshold of their own cuts out (`vision.outline`), in the
    whole frame or, when `clusters` are given, around those blobs only, `reach` pixels (a card's length)
    around each, overlapping regions merged (a frame whose other cards the mask explained: this keeps a
    1280 x 720 frame's time down).

    Such a card must show an index in both index corners (on the tuning photos: 247 proposals on a card
    against 8 elsewhere; with one corner, 106 against 63), or else have an outline that is a card's edge
    all round and a card face's print (`vision.face`: on the tuning photos, of such proposals outside the
    cards already found, 9 cards against 1 elsewhere; these come last, where nothing else is). Among
    quads that contradict each other, the one whose outline is most like a card's edge all round wins,
    whether the mask or a threshold gave it; the mask's other quads stay where no sure card contradicts
    them."""
    h, w = frame.shape[:2]
    scale = 2 if w > DETECT_WIDTH * 1.4 else 1
    work = frame if scale == 1 else np.asarray(cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA),
                                               np.uint8)
    wh, ww = work.shape[:2]
    rois = [(0, 0, ww, wh)] if whole_frame else _merged_boxes(
        [_padded_box(c, scale, ww, wh, reach / scale) for c in clusters])
    sure: list[tuple[float, FloatArray]] = []
    faces: list[tuple[float, FloatArray]] = []
    for x0, y0, x1, y1 in rois:
        roi = np.ascontiguousarray(work[y0:y1, x0:x1])
        if min(roi.shape[:2]) < 16:
            continue
        score = whiteness(roi)
        dist = edge_distance(np.asarray(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), np.uint8))
        for q in threshold_proposals(score, min_area / scale**2, MAX_AREA_FRACTION * h * w / scale**2, dist=dist):
            if _cut_by_roi(q, (x0, y0, x1, y1), ww, wh):
                continue
            quad = np.asarray((q + np.array([x0, y0], np.float32)) * scale, np.float32)
            if not _fits_size(quad, card_size) or _skew(quad) > MAX_PROPOSAL_SKEW:
                continue  # not one card of the size the table's calibration gives, or no card's shape at all
            indices = _index_count(frame, quad)
            if indices == 2:
                if _inked(frame, quad, faces_only):
                    sure.append((edge_evidence(score, dist, q)[0], quad))
                continue
            mean, weakest = edge_evidence(score, dist, q)
            short, long_ = side_lengths(quad)
            if (mean >= FACE_EVIDENCE and weakest >= FACE_SIDE_EVIDENCE
                    and FACE_ASPECT[0] <= long_ / short <= FACE_ASPECT[1]
                    and looks_like_face(frame, quad, indices=indices)):
                faces.append((mean, quad))
    lined = _line_cards(frame, work, scale, clusters, card_size, faces_only=faces_only)
    if not sure and not lined and not faces:
        return found
    # The mask's own quads that show both indices compete on the same terms: a threshold blob can be a
    # card with a sliver of its neighbour, still "sure" but with a worse outline.
    # (Only those that some sure card contradicts need the test: the others stay anyway.)
    rivals = [q for q in found if any(_contradicts(q, k) for _, k in sure + lined)]
    sure.extend((_evidence(work, np.asarray(q / scale, np.float32)), q) for q in rivals if _index_count(frame, q) == 2)
    # A near-square quad with a card-shaped quad in it that shares a side with it is two cards side
    # by side taken for one (its corners are both cards' outer corners, so it shows two indices, and its
    # outline is a card's edge all round): the cards go first, whatever their edge evidence.
    candidates = [q for _, q in sure + lined]
    merges = [q for q in candidates + [f for f in found if not any(f is c for c in candidates)]
              if _squarish(q) and any(_is_part(k, q) for k in candidates)]
    sure.sort(key=lambda sq: (not any(sq[1] is m for m in merges), sq[0]), reverse=True)
    # Four straight edges come last: in a fan the edges of neighbouring cards also close such shapes,
    # with an index at two corners, so they only add cards where nothing better is.
    lined.sort(key=lambda sq: (not any(sq[1] is m for m in merges), sq[0]), reverse=True)
    kept: list[FloatArray] = []
    for _, q in sure:
        rivals_here = [k for k in kept if _contradicts(q, k)]
        if rivals_here and not any(q is m for m in merges) and _spans_two(frame, q, rivals_here):
            # A card's print beats a better-edged quad that is no face at all: on carpet, a quad from the
            # table to a card's far corner can read an index at both corners (one of them the card's).
            kept = [k for k in kept if not any(k is r for r in rivals_here)]
            rivals_here = []
        if not rivals_here:
            kept.append(q)
    # ... nor do they displace a quad of the mask that shows an index (a card partly under the next).
    indexed = [q for q in found if any(_contradicts(q, k) for _, k in lined + faces)
               and not (_squarish(q) and any(_is_part(k, q) for _, k in lined)) and _has_index(frame, q)]
    for _, q in lined:
        rivals_here = [k for k in kept + indexed if _contradicts(q, k)]
        if rivals_here and all(any(k is r for r in kept) for k in rivals_here) and _spans_two(frame, q, rivals_here):
            kept = [k for k in kept if not any(k is r for r in rivals_here)]
            indexed = [k for k in indexed if not any(k is r for r in rivals_here)]
        if not any(_contradicts(q, k) for k in kept + indexed):
            kept.append(q)
    # Last, a face whose indices do not read (small, blurred, washed out) but whose outline is a card's
    # edge all round and whose print is a card's (`vision.face`): where nothing else is.
    # A mask quad that shows an index, or that holds the face (a picture card's frame is a face-like
    # quad inside the card), keeps its place, unless it is far bigger: a light table patch or a merge.
    faces.sort(key=lambda sq: sq[0], reverse=True)
    for _, q in faces:
        holders = [f for f in found if quad_area(f) <= FACE_HOLDER * quad_area(q)
                   and (any(f is i for i in indexed) or _covered_share(q, f) > CONTAINED)]
        rivals_here = [k for k in kept + holders if _contradicts(q, k)]
        if rivals_here and _spans_two(frame, q, rivals_here):
            # A clean outline with a card's print beats quads that are no face at all: a threshold blob
            # of part of a picture card and the table beside it can read an index at both corners.
            kept = [k for k in kept if not any(k is r for r in rivals_here)]
            indexed = [k for k in indexed if not any(k is r for r in rivals_here)]
            rivals_here = []
        if not rivals_here:
            kept.append(q)
    # The mask's quads may overlap one another (a fan, a pile): they are only tested against sure cards.
    # The sure cards also tell the cards' size in this frame: a "card" twice as big without both indices is
    # a sheet of paper or a light patch of the table, unless its print is a card face's (`vision.face`):
    # a lone false "sure" card in wood grain must not make a real card too big to keep.
    sure_cards = list(kept)
    largest = TOO_BIG_FOR_SURE * float(np.median([quad_area(q) for q in sure_cards])) if sure_cards else math.inf
    kept.extend(q for q in found if not any(q is k or _contradicts(q, k) for k in sure_cards)
                and (quad_area(q) <= largest or _index_count(frame, q) == 2 or looks_like_face(frame, q)))
    # The other card of a merged outline (one card of it is kept): the same size, at the outline's far
    # end, partly under the first; it counts when an index corner of its own, outside the first, shows one.
    for whole in merges:
        for part in sure_cards:
            if not _is_part(part, whole):
                continue
            other = _other_card(whole, part)
            # Mostly covered, its centre would lie on the first card: the reader would take that one's
            # print for it, so it stays unfound.
            if (other is not None and not _squarish(other) and _covered_share(other, part) <= MAX_COVERED
                    and not any(_contradicts(other, k) for k in kept if k is not part)
                    and _uncovered_index(frame, other, part)):
                kept.append(other)
    return kept


def _spans_two(frame: Image, card: FloatArray, rivals: list[FloatArray]) -> bool:
    """Whether `card` (a four-edge card) is a card face and each of the threshold cards it contradicts
    is not one at all (half-turn symmetry, `vision.face`): a quad across a card and the strip of the
    card under it shows two indices (one of each) but is no card's print."""
    if face_symmetry(frame, card)[0] < SPAN_FACE:
        return False
    return all(face_symmetry(frame, r)[0] < SPAN_NO_FACE for r in rivals)


def _inked(frame: Image, quad: FloatArray, faces_only: bool) -> bool:
    """Whether a quad whose two index corners read has the ink of a face (`vision.face`), where only faces
    count (a bright or rough table: there a back stays unfound anyway, and this ink measure does not see
    a back's field as ink). On such a table a quad over carpet that spans several cards can have its
    corners on two cards' indices and next to no ink of its own (on the tuning photos: 3 of 37 such
    quads off the cards, none of 307 on one, had under 2%)."""
    return not faces_only or face_symmetry(frame, quad)[1] >= SURE_INK


def _other_card(whole: FloatArray, part: FloatArray) -> FloatArray | None:
    """The card at the far end of `whole` from `part` (which shares two adjacent corners with it), as
    wide as `part` across `whole`."""
    near = CORNER_NEAR * side_lengths(whole)[0]
    shared = [i for i in range(4) if float(np.min(np.linalg.norm(part - whole[i], axis=1))) <= near]
    if len(shared) != 2 or (shared[1] - shared[0]) % 4 not in (1, 3):
        return None
    i, j = (shared[0], shared[1]) if (shared[1] - shared[0]) % 4 == 1 else (shared[1], shared[0])
    # whole[i] -> whole[j] is the shared side; whole[j+1] and whole[i-1] (= whole[j+2]) the far side.
    a, b = whole[(j + 1) % 4], whole[(i - 1) % 4]
    across = [part[int(np.argmin(np.linalg.norm(part - whole[k], axis=1)))] for k in (i, j)]
    # The part's extent across `whole`: from its shared corners to its other two corners.
    rest = [p for p in part if all(float(np.linalg.norm(p - c)) > 1e-3 for c in across)]
    if len(rest) != 2:
        return None
    width = float(np.mean([min(float(np.linalg.norm(r - c)) for r in rest) for c in across]))
    ua = whole[j] - a
    ub = whole[i] - b
    la, lb = float(np.linalg.norm(ua)), float(np.linalg.norm(ub))
    if min(la, lb) <= width:
        return None
    quad = np.array([a, a + ua / la * width, b + ub / lb * width, b], np.float32)
    return order_quad(quad)


def _covered_share(quad: FloatArray, cover: FloatArray) -> float:
    inter, _ = cv2.intersectConvexConvex(quad.astype(np.float32), cover.astype(np.float32))
    return float(inter) / max(quad_area(quad), 1e-6)


def _uncovered_index(frame: Image, quad: FloatArray, cover: FloatArray) -> bool:
    """Whether one of `quad`'s index corners that `cover` leaves in view shows an index (the corner
    under `cover` shows `cover`'s own print, which must not name this card)."""
    from vision.identify import extract_glyphs, iter_index_corners

    hull = cover.reshape(-1, 1, 2).astype(np.float32)
    margin = 0.1 * side_lengths(quad)[0]
    for corner_point, corner in zip((quad[0], quad[2]), iter_index_corners(frame, quad), strict=True):
        inside = cv2.pointPolygonTest(hull, (float(corner_point[0]), float(corner_point[1])), True)
        if inside < -margin and extract_glyphs(corner) is not None:
            return True
    return False


def _squarish(quad: FloatArray) -> bool:
    """Too square for one card (1.4; stretched photographs and perspective give 1.3 to 1.8): two cards
    side by side or overlapping, taken for one."""
    short, long_ = side_lengths(quad)
    return long_ < SQUARISH * short


def _is_part(card: FloatArray, whole: FloatArray) -> bool:
    """A card-shaped quad, smaller than `whole`, with two of its corners on two adjacent corners of
    `whole` (one side in common): one of two cards side by side that `whole` outlines as one. (A
    picture's frame inside a card shares no corner; a quad across two cards' opposite corners, as a
    threshold blob of a card and its neighbour's strip can be, shares no side.)"""
    if _squarish(card) or quad_area(card) > PART_AREA * quad_area(whole):
        return False
    near = CORNER_NEAR * side_lengths(whole)[0]
    shared = [i for i in range(4) if float(np.min(np.linalg.norm(card - whole[i], axis=1))) <= near]
    return any((b - a) % 4 in (1, 3) for a in shared for b in shared if a < b)


def _skew(quad: FloatArray) -> float:
    """The larger ratio of opposite sides' lengths (1 for a parallelogram)."""
    sides = [float(np.linalg.norm(quad[(i + 1) % 4] - quad[i])) for i in range(4)]
    return max(max(sides[0], sides[2]) / max(min(sides[0], sides[2]), 1e-6),
               max(sides[1], sides[3]) / max(min(sides[1], sides[3]), 1e-6))


def _fits_size(quad: FloatArray, card_size: tuple[float, float] | None) -> bool:
    """Whether the quad's sides match the card size the table's calibration gives (if any); in a fan,
    the edges of neighbouring cards also make four-sided shapes with an index at two corners."""
    if card_size is None:
        return True
    short, long_ = side_lengths(quad)
    return 0.8 <= short / card_size[0] <= 1.25 and 0.8 <= long_ / card_size[1] <= 1.25


def _line_cards(frame: Image, work: Image, scale: int, clusters: list[Contour],
                card_size: tuple[float, float] | None, *, faces_only: bool = False) -> list[tuple[float, FloatArray]]:
    """Cards lying on other cards inside the mask's clusters, found as four straight edges
    (`outline.line_quads`) with an index in both corners; scored by `outline.edge_evidence`."""
    wh, ww = work.shape[:2]
    out: list[tuple[float, FloatArray]] = []
    for c in clusters:
        x0, y0, x1, y1 = _padded_box(c, scale, ww, wh)
        roi = np.ascontiguousarray(work[y0:y1, x0:x1])
        if min(roi.shape[:2]) < 16:
            continue
        region = np.zeros(roi.shape[:2], np.uint8)
        cv2.drawContours(region, [np.round(c / scale).astype(np.int32) - [x0, y0]], -1, 255, -1)
        region = np.asarray(cv2.dilate(region, _WIDEN7), np.uint8)
        gray = np.asarray(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), np.uint8)
        _, _, bw, bh = cv2.boundingRect(c)
        longest = max(bw, bh) / scale
        min_side = max(12.0, 0.2 * longest) if card_size is None else 0.8 * card_size[0] / scale
        max_side = 1.05 * longest if card_size is None else 1.2 * card_size[1] / scale
        quads = line_quads(gray, min_side, max_side, region=region)
        if not quads:
            continue
        score = whiteness(roi)
        dist = edge_distance(gray)
        for q in quads:
            quad = np.asarray((q + np.array([x0, y0], np.float32)) * scale, np.float32)
            if not _fits_size(quad, card_size):
                continue
            if (_coverage(region, q) >= 0.9 and _index_count(frame, quad) == 2
                    and _inked(frame, quad, faces_only)):
                out.append((edge_evidence(score, dist, q)[0], quad))
    return out


def _padded_box(contour: Contour, scale: int, w: int, h: int, reach: float = 0.0) -> tuple[int, int, int, int]:
    x, y, bw, bh = (v / scale for v in cv2.boundingRect(contour))
    pad = max(8.0, 0.15 * max(bw, bh), reach)
    return max(0, int(x - pad)), max(0, int(y - pad)), min(w, int(x + bw + pad) + 1), min(h, int(y + bh + pad) + 1)


def _merged_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Overlapping boxes replaced by their union, until none overlap: each pixel is searched once."""
    out = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def _cut_by_roi(quad: FloatArray, roi: tuple[int, int, int, int], w: int, h: int) -> bool:
    """A blob that runs into the region's edge (not the frame's) is cut there, not a card's outline."""
    x0, y0, x1, y1 = roi
    qx0, qy0 = quad.min(axis=0)
    qx1, qy1 = quad.max(axis=0)
    return bool((x0 > 0 and qx0 <= 1) or (y0 > 0 and qy0 <= 1) or (x1 < w and qx1 >= x1 - x0 - 2)
                or (y1 < h and qy1 >= y1 - y0 - 2))


def _evidence(work: Image, quad: FloatArray) -> float:
    """`outline.edge_evidence` of a quad in `work` image coordinates, measured around the quad only."""
    h, w = work.shape[:2]
    x0, y0 = (max(0, int(v) - 8) for v in quad.min(axis=0))
    x1, y1 = (int(v) + 9 for v in quad.max(axis=0))
    roi = np.ascontiguousarray(work[y0:min(h, y1), x0:min(w, x1)])
    if min(roi.shape[:2]) < 4:
        return 0.0
    dist = edge_distance(np.asarray(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), np.uint8))
    return edge_evidence(whiteness(roi), dist, np.asarray(quad - np.array([x0, y0], np.float32), np.float32))[0]


def _contradicts(a: FloatArray, b: FloatArray) -> bool:
    """Two quads that cannot both be cards: much the same place, or one (nearly) inside the other, which
    makes it a piece of the card or the other a merge of several. (Cards in a pile or a fan overlap
    each other, but none lies inside another.)"""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    area_a, area_b = quad_area(a), quad_area(b)
    union = area_a + area_b - inter
    return inter > 0.3 * union or inter > CONTAINED * min(area_a, area_b)


def _index_count(frame: Image, quad: FloatArray) -> int:
    from vision.identify import extract_glyphs, iter_index_corners

    return sum(extract_glyphs(corner) is not None for corner in iter_index_corners(frame, quad))


def _outlined_cards(frame: Image, found: list[FloatArray], min_area: float) -> list[FloatArray]:
    """Cards on a bright or rough table, found by their outline in the image's edges rather than by their
    paper. Only a face-up card with an index in a corner counts: an outline alone could be anything
    rectangular (a book, a tile), so a back on a bright table stays unfound rather than invented."""
    h, w = frame.shape[:2]
    gray = cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    edges = cv2.dilate(cv2.Canny(gray, 40, 120), _RIM3)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    out: list[FloatArray] = []
    for c in contours:
        hull = cv2.convexHull(c)
        area = float(cv2.contourArea(hull))
        if not min_area <= area <= MAX_AREA_FRACTION * h * w:
            continue
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2).astype(np.float32)
        if len(approx) != 4 or not 0.9 <= quad_area(approx) / area <= 1.1:
            continue
        short, long_ = side_lengths(approx)
        if not 1.25 <= long_ / max(short, 1.0) <= 1.6:
            continue
        quad = order_quad(approx)
        if any(quad_iou(quad, q) > 0.2 for q in found + out):
            continue
        if _has_index(frame, quad):
            out.append(quad)
    return out


def _edge_support(contour: Contour, gray: Image, proposals: list[tuple[float, FloatArray]]
                  ) -> list[tuple[float, FloatArray]]:
    """Re-score proposals by how much of their outline runs along an edge in the image: a real card's
    visible sides do, a box spanning two cards crosses open paper."""
    if not proposals:
        return []
    x, y, bw, bh = cv2.boundingRect(contour)
    pad = 6
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(gray.shape[1], x + bw + pad), min(gray.shape[0], y + bh + pad)
    edges = cv2.Canny(cv2.GaussianBlur(gray[y0:y1, x0:x1], (3, 3), 0), 30, 90)
    dist = cv2.distanceTransform((edges == 0).astype(np.uint8), cv2.DIST_L2, 3)
    out = []
    for cover, quad in proposals:
        pts = []
        for i in range(4):
            a, b = quad[i], quad[(i + 1) % 4]
            for t in np.linspace(0.0, 1.0, 24, endpoint=False):
                pts.append(a + (b - a) * t)
        arr = np.round(np.array(pts) - [x0, y0]).astype(int)
        ok = (arr[:, 0] >= 0) & (arr[:, 0] < x1 - x0) & (arr[:, 1] >= 0) & (arr[:, 1] < y1 - y0)
        near = np.zeros(len(arr), bool)
        near[ok] = dist[arr[ok, 1], arr[ok, 0]] <= 2.5
        support = float(near.mean())
        if support >= 0.35:
            out.append((support + 0.2 * cover, quad))
    return out


def _size_from_blob(contour: Contour) -> tuple[float, float]:
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    rs, rl = min(rw, rh), max(rw, rh)
    # A long thin blob is a row of cards side by side: its short side is a card's long side.
    long_ = rs if rl / max(rs, 1.0) > 1.9 else min(rl, rs * CARD_ASPECT)
    return long_ / CARD_ASPECT, long_


def _suppress(proposals: list[tuple[float, FloatArray]]) -> list[FloatArray]:
    proposals.sort(key=lambda cq: cq[0], reverse=True)
    kept: list[FloatArray] = []
    for _, q in proposals:
        if all(quad_iou(q, k) < 0.5 for k in kept):
            kept.append(q)
    return kept


def _edge_proposals(contour: Contour, gray: Image, filled: Image,
                    card_size: tuple[float, float]) -> list[tuple[float, FloatArray]]:
    """Cards in a fan or a row show only their long edges over the card below: find those straight
    edges, then put the card on the side that is not in the upper card's shadow."""
    long_ = card_size[1]
    x, y, bw, bh = cv2.boundingRect(contour)
    pad = 4
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(gray.shape[1], x + bw + pad), min(gray.shape[0], y + bh + pad)
    roi = gray[y0:y1, x0:x1]
    edges = cv2.Canny(cv2.GaussianBlur(roi, (3, 3), 0), 25, 75)
    lines = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold=max(20, int(0.4 * long_)),
                            minLineLength=0.6 * long_, maxLineGap=6)
    if lines is None:
        return []
    out: list[tuple[float, FloatArray]] = []
    for lx0, ly0, lx1, ly1 in lines.reshape(-1, 4)[:MAX_LINES]:
        a = np.array([lx0 + x0, ly0 + y0], np.float32)
        b = np.array([lx1 + x0, ly1 + y0], np.float32)
        length = float(np.linalg.norm(b - a))
        if length > 1.15 * long_:
            continue
        d = (b - a) / length
        # The edge runs on, over the card paper, to where the cards end: that is the card's full side.
        a = _march(filled, a, -d, 0.5 * long_)
        b = _march(filled, b, d, 0.5 * long_)
        side_len = float(np.linalg.norm(b - a))
        if not 0.8 * long_ <= side_len <= 1.12 * long_:
            continue
        normal = np.array([-d[1], d[0]], np.float32)
        bright = _brighter_side(gray, a, b, normal)
        # The card's side runs from one end of the edge or the other (in a fan, the neighbours' ends
        # are not level with it): try both ends, with the card's own length.
        spans = {(0.0, 1.0)} | {(0.0, long_ / side_len), (1.0 - long_ / side_len, 1.0)}
        for t0, t1 in spans:
            p0, p1 = a + (b - a) * t0, a + (b - a) * t1
            width = float(np.linalg.norm(p1 - p0)) / CARD_ASPECT
            for side in (1.0, -1.0):
                n = normal * side * width
                quad = np.array([p0, p1, p1 + n, p0 + n], np.float32)
                cover = _coverage(filled, quad)
                if cover >= 0.9:
                    # Without an index to tell (a back), the side out of the upper card's shadow is likelier.
                    out.append((cover - 0.05 - (0.0 if bright == side else 0.1), order_quad(quad)))
    return out


def _march(filled: Image, p: FloatArray, d: FloatArray, limit: float) -> FloatArray:
    """Walk from p along d while on card paper (the filled mask), at most `limit` pixels."""
    h, w = filled.shape
    q = p.copy()
    misses = 0
    for _ in range(int(limit)):
        nxt = q + d
        xi, yi = round(float(nxt[0])), round(float(nxt[1]))
        if not (0 <= xi < w and 0 <= yi < h) or filled[yi, xi] == 0:
            misses += 1
            if misses > 2:
                break
        else:
            misses = 0
        q = nxt
    return np.asarray(q - d * misses, dtype=np.float32)


def _brighter_side(gray: Image, a: FloatArray, b: FloatArray, normal: FloatArray) -> int:
    """+1 or -1: the side of segment ab whose strip just beside it is brighter; 0 if no clear answer."""
    h, w = gray.shape
    along = a[None, :] + (b - a)[None, :] * _SIDE_STEPS[:, None]
    values = []
    for sign in (1.0, -1.0):
        pts = (along[:, None, :] + normal[None, None, :] * sign * _SIDE_OFFSETS[None, :, None]).reshape(-1, 2)
        xi, yi = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
        ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        values.append(float(np.median(gray[yi[ok], xi[ok]])) if ok.any() else 0.0)
    if abs(values[0] - values[1]) < 6:
        return 0
    return 1 if values[0] > values[1] else -1


def _single_quad(contour: Contour, mask: Image) -> FloatArray | None:
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    area = cv2.contourArea(contour)
    hull_area = max(float(cv2.contourArea(hull)), 1.0)
    x, y, bw, bh = cv2.boundingRect(hull)
    inside = np.zeros((bh, bw), np.uint8)
    cv2.fillConvexPoly(inside, hull.reshape(-1, 2) - [x, y], 1)
    paper = float((mask[y:y + bh, x:x + bw] > 0)[inside > 0].sum())
    if paper < 0.5 * hull_area:
        # A ring: the white border of a back whose inside is coloured, maybe cut by a hand. A back's
        # border is a few percent of the card wide; a line painted on the table is much thinner.
        thickness = paper / max(peri, 1.0)
        side = math.sqrt(hull_area / CARD_ASPECT)
        if thickness < 0.025 * side:
            return None
        area = hull_area
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float32)
        if len(approx) == 5:
            approx = _cut_corner(approx)
        if len(approx) == 5:
            approx = past_the_edge(approx, mask.shape[1], mask.shape[0])
        if len(approx) == 4:
            quad = approx
            # A card running past the frame's edge is judged by its part inside the frame.
            qa = inside_area(quad, mask.shape[1], mask.shape[0])
            fit = qa / hull_area
            if qa <= 0 or fit < 0.85 or fit > 1.15:
                return None
            short, long_ = side_lengths(quad)
            aspect = long_ / max(short, 1)
            # Paper covers most of a card; a picture card or a notched outline less, so it needs a truer shape.
            if area / qa < (0.75 if 1.1 <= aspect <= 1.9 else 2.0) and not (area / qa >= 0.4 and 1.2 <= aspect <= 1.75
                                                                               and 0.9 <= fit <= 1.1):
                return None
            if not 1.1 <= aspect <= 1.9:
                return None
            return _grow_rounded(order_quad(quad), contour)
        if len(approx) < 4:
            return None
    return None


def _cut_corner(poly: FloatArray) -> FloatArray:
    """A pentagon whose shortest side is a cut-off corner (a rounded or dog-eared corner, a finger):
    replace that side by the point where its two neighbours meet."""
    n = len(poly)
    lengths = [float(np.linalg.norm(poly[(i + 1) % n] - poly[i])) for i in range(n)]
    i = int(np.argmin(lengths))
    if lengths[i] > 0.25 * sorted(lengths)[n // 2]:
        return poly
    a0, a1 = poly[i - 1], poly[i]
    b0, b1 = poly[(i + 1) % n], poly[(i + 2) % n]
    da = a1 - a0
    t = along_to_meet(a0, da, b0, b1 - b0)
    if t is None:
        return poly
    meet = a0 + da * t
    keep = [poly[j] for j in range(n) if j not in (i, (i + 1) % n)]
    keep.insert(i if i < n - 1 else 0, meet)
    out = np.array(keep, np.float32)
    return out if cv2.isContourConvex(out.reshape(-1, 1, 2)) else poly


def _grow_rounded(quad: FloatArray, contour: Contour) -> FloatArray:
    """The polygon fit cuts the rounded corners a little inside the card: push the corners out to the hull."""
    del contour
    center = quad.mean(axis=0)
    return np.asarray(center + (quad - center) * 1.01, dtype=np.float32)


def _split_cluster(contour: Contour, filled: Image, card_size: tuple[float, float],
                   min_area: float, frame: Image) -> list[tuple[float, FloatArray]]:
    peri = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, 0.012 * peri, True).reshape(-1, 2).astype(np.float32)
    n = len(poly)
    if n < 4:
        return []
    # Orientation of the outline, so that "convex" means the same whatever way it was traced.
    signed = float(cv2.contourArea(poly, oriented=True))
    short, long_ = card_size
    proposals: list[tuple[float, FloatArray]] = []
    for i in range(n):
        p, prev, nxt = poly[i], poly[i - 1], poly[(i + 1) % n]
        d1, d2 = prev - p, nxt - p
        l1, l2 = float(np.linalg.norm(d1)), float(np.linalg.norm(d2))
        if l1 < 0.5 * short or l2 < 0.5 * short:
            continue
        u1, u2 = d1 / l1, d2 / l2
        cross = float(u1[0] * u2[1] - u1[1] * u2[0])
        if (cross > 0) == (signed > 0):
            continue  # a concave (inner) corner, where two cards meet
        angle = math.degrees(math.acos(max(-1.0, min(1.0, float(np.dot(u1, u2))))))
        if not 65 <= angle <= 115:
            continue
        options = [(long_, short), (short, long_)]
        here = []
        for a, b in options:
            quad = np.array([p, p + u1 * a, p + u1 * a + u2 * b, p + u2 * b], dtype=np.float32)
            cover = _coverage(filled, quad)
            if cover >= 0.88 and quad_area(quad) >= min_area:
                here.append((cover, order_quad(quad)))
        if len(here) == 2:
            # Which way does the card lie from this corner? The way that puts an index in the corner.
            indexed = [cq for cq in here if _has_index(frame, cq[1])]
            if len(indexed) == 1:
                here = indexed
        proposals.extend(here)
    return proposals


def _has_index(frame: Image, quad: FloatArray) -> bool:
    from vision.identify import extract_glyphs, iter_index_corners

    return any(extract_glyphs(corner) is not None for corner in iter_index_corners(frame, quad))


def _coverage(filled: Image, quad: FloatArray) -> float:
    h, w = filled.shape
    qx0, qy0 = np.floor(quad.min(axis=0)).astype(int)
    qx1, qy1 = np.ceil(quad.max(axis=0)).astype(int)
    if qx0 < -2 or qy0 < -2 or qx1 > w + 2 or qy1 > h + 2:
        return 0.0
    qx0, qy0 = max(qx0, 0), max(qy0, 0)
    qx1, qy1 = min(qx1, w), min(qy1, h)
    if qx1 <= qx0 or qy1 <= qy0:
        return 0.0
    sub = np.zeros((qy1 - qy0, qx1 - qx0), np.uint8)
    cv2.fillConvexPoly(sub, np.round(quad - [qx0, qy0]).astype(np.int32), 1)
    total = int(sub.sum())
    if total == 0:
        return 0.0
    inside = int((filled[qy0:qy1, qx0:qx1] > 0)[sub > 0].sum())
    return inside / total
