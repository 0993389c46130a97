"""The table state the simulated camera films: a table layout (seat zones, pot, discard area) and the
cards lying on it, each at a position and angle in table millimetres, face up or face down."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from vision.calibration import Zone
from vision.cards import is_card

CARD_MM = (63.0, 88.0)  # poker size
Surface = Literal["felt", "wood", "desk"]  # desk: a light office desk (cards barely lighter than it)


def _rect(x0: float, y0: float, x1: float, y1: float) -> tuple[tuple[float, float], ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def default_zones() -> tuple[Zone, ...]:
    zones = []
    for i, x in enumerate((15.0, 275.0, 535.0)):
        zones.append(Zone(name=f"seat {i + 1}", kind="seat", seat=i + 1, polygon=_rect(x, 318.0, x + 250.0, 442.0)))
    for i, x in enumerate((535.0, 275.0, 15.0)):
        zones.append(Zone(name=f"seat {i + 4}", kind="seat", seat=i + 4, polygon=_rect(x, 8.0, x + 250.0, 132.0)))
    zones.append(Zone(name="pot", kind="pot", polygon=_rect(120.0, 150.0, 390.0, 300.0)))
    zones.append(Zone(name="discard", kind="discard", polygon=_rect(410.0, 150.0, 680.0, 300.0)))
    return tuple(zones)


@dataclass(frozen=True, kw_only=True)
class TableLayout:
    """An 800 x 450 mm view of the table: six seat zones along the near and far rails, pot and discard area."""

    width_mm: float = 800.0
    height_mm: float = 450.0
    zones: tuple[Zone, ...] = field(default_factory=default_zones)

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(name)

    def seat_zone(self, seat: int) -> Zone:
        for z in self.zones:
            if z.seat == seat:
                return z
        raise KeyError(f"seat {seat}")


@dataclass(frozen=True, kw_only=True)
class PlacedCard:
    card: str
    x: float  # centre, table mm
    y: float
    angle: float = 0.0  # degrees, counter-clockwise on the table
    face_up: bool = True

    def __post_init__(self) -> None:
        if not is_card(self.card):
            raise ValueError(f"not a card code: {self.card!r}")


@dataclass(frozen=True, kw_only=True)
class TableScene:
    """Cards in drawing order (later ones lie on top) and what covers them."""

    cards: tuple[PlacedCard, ...] = ()
    layout: TableLayout = field(default_factory=TableLayout)
    surface: Surface = "felt"
    hands: int = 0  # hands reaching over cards

    def __post_init__(self) -> None:
        seen = [c.card for c in self.cards]
        if len(set(seen)) != len(seen):
            raise ValueError("a card can lie on the table only once")

    @classmethod
    def dealt(cls, seats: dict[int, list[tuple[str, bool]]], *, layout: TableLayout | None = None,
              surface: Surface = "felt", hands: int = 0, spread: float = 46.0, tilt: float = 4.0,
              pot: list[tuple[str, bool]] | None = None, discard: list[tuple[str, bool]] | None = None) -> TableScene:
        """Lay each seat's cards as a fanned row in its zone (later cards on top of earlier ones)."""
        lay = layout or TableLayout()
        cards: list[PlacedCard] = []
        groups: list[tuple[str, list[tuple[str, bool]]]] = [(lay.seat_zone(s).name, cs) for s, cs in seats.items()]
        if pot:
            groups.append(("pot", pot))
        if discard:
            groups.append(("discard", discard))
        for name, hand in groups:
            zone = lay.zone(name)
            xs = [p[0] for p in zone.polygon]
            ys = [p[1] for p in zone.polygon]
            cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
            start = cx - spread * (len(hand) - 1) / 2
            for i, (code, up) in enumerate(hand):
                k = i - (len(hand) - 1) / 2
                # A fan: each card a little turned and raised at the middle, its index corner left uncovered.
                cards.append(PlacedCard(card=code, x=start + i * spread, y=cy + abs(k) * 3.0, angle=-tilt * k,
                                        face_up=up))
        return cls(cards=tuple(cards), layout=lay, surface=surface, hands=hands)


def random_scene(seed: int, *, cards: int = 8, face_down: float = 0.2, overlap: bool = False,
                 surface: Surface | None = None, hands: int = 0, layout: TableLayout | None = None) -> TableScene:
    """Cards dealt at random positions and angles (a test and benchmark scene).

    Without `overlap` no two cards touch (every card fully visible unless a hand covers it); with it,
    each card after the first lies partly over an earlier one.
    """
    import numpy as np

    rng = np.random.default_rng([seed, 7])
    lay = layout or TableLayout()
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    order = rng.permutation(len(deck))
    placed: list[PlacedCard] = []
    margin = 62.0
    attempts = 0
    while len(placed) < cards and attempts < 4000:
        attempts += 1
        if overlap and placed:
            base = placed[int(rng.integers(0, len(placed)))]
            ang = float(rng.uniform(0, 2 * np.pi))
            dist = float(rng.uniform(40, 60))
            x, y = base.x + dist * np.cos(ang), base.y + dist * np.sin(ang)
        else:
            x = float(rng.uniform(margin, lay.width_mm - margin))
            y = float(rng.uniform(margin, lay.height_mm - margin))
        if not (margin <= x <= lay.width_mm - margin and margin <= y <= lay.height_mm - margin):
            continue
        if not overlap and any((x - p.x) ** 2 + (y - p.y) ** 2 < 112.0**2 for p in placed):
            continue
        if overlap and any((x - p.x) ** 2 + (y - p.y) ** 2 < 35.0**2 for p in placed):
            continue
        placed.append(PlacedCard(card=deck[int(order[len(placed)])], x=x, y=y, angle=float(rng.uniform(-180, 180)),
                                 face_up=bool(rng.uniform() >= face_down)))
    chosen: Surface = surface if surface is not None else ("wood" if rng.uniform() < 0.5 else "felt")
    return TableScene(cards=tuple(placed), layout=lay, surface=chosen, hands=hands)


def fanned_scene(seed: int, *, seats: int = 3, pile: int = 4, face_down: float = 0.0, surface: Surface | None = None,
                 layout: TableLayout | None = None) -> TableScene:
    """Hands fanned in seat zones and an overlapping pile in the pot (a test and benchmark scene of cards covering
    one another).

    Each of `seats` seats (picked by the seed) holds 2 to 5 cards, held as a hand fans them: turned about a point
    below the cards (4-14 degrees apart), or slid along a row (14-30 mm apart), the whole hand turned towards its
    seat; each card lies over the one before, covering its right side, so mostly its top-left index is seen.
    The pot holds `pile` cards thrown in, 18-45 mm apart at any angle. `face_down`: share of face-down cards.
    """
    import numpy as np

    rng = np.random.default_rng([seed, 11])
    lay = layout or TableLayout()
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    order = iter(int(k) for k in rng.permutation(len(deck)))
    placed: list[PlacedCard] = []

    def place(x: float, y: float, angle: float) -> None:
        placed.append(PlacedCard(card=deck[next(order)], x=x, y=y, angle=angle,
                                 face_up=bool(rng.uniform() >= face_down)))

    seat_zones = [z for z in lay.zones if z.kind == "seat"]
    for k in rng.permutation(len(seat_zones))[:seats]:
        zone = seat_zones[int(k)]
        xs, ys = [p[0] for p in zone.polygon], [p[1] for p in zone.polygon]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        # a hand faces its seat: the near rail's seats see their cards upright, the far rail's turned round
        facing = 0.0 if cy > lay.height_mm / 2 else 180.0
        turn = facing + float(rng.uniform(-15, 15))
        n = int(rng.integers(2, 6))
        rad = np.deg2rad(turn)
        # table axes of the hand: `right` along the fan, `down` towards the holder (angle counter-clockwise, y down)
        right = np.array([np.cos(rad), -np.sin(rad)])
        down = np.array([np.sin(rad), np.cos(rad)])
        if rng.uniform() < 0.5:
            step = float(rng.uniform(4, 14))
            radius = float(rng.uniform(60, 110))  # from the pivot to a card's centre
            pivot = np.array([cx, cy]) + down * radius * 0.9
            for i in range(n):
                a = step * (i - (n - 1) / 2)
                t = np.deg2rad(a)
                at = pivot - radius * (np.cos(t) * down - np.sin(t) * right)
                place(float(at[0]), float(at[1]), turn - a)
        else:
            step = float(rng.uniform(14, 30))
            tilt = float(rng.uniform(-3, 3))
            for i in range(n):
                at = np.array([cx, cy]) + right * step * (i - (n - 1) / 2)
                place(float(at[0]), float(at[1]), turn + tilt * (i - (n - 1) / 2))
    if pile:
        zone = lay.zone("pot")
        xs, ys = [p[0] for p in zone.polygon], [p[1] for p in zone.polygon]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        for _ in range(pile):
            r, a = float(rng.uniform(0, 40)), float(rng.uniform(0, 2 * np.pi))
            place(cx + r * np.cos(a), cy + r * np.sin(a) * 0.6, float(rng.uniform(-180, 180)))
    chosen: Surface = surface if surface is not None else ("wood" if rng.uniform() < 0.5 else "felt")
    return TableScene(cards=tuple(placed), layout=lay, surface=chosen)
