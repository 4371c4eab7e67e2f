"""Visual distance between boxes (paper §IV.A, "Measuring visual distances").

Distances are measured in character cells, not pixels: boxes are scaled by the cell
size, the distance between the two rectangles (their gaps across and down, numpy) is
rounded to whole cells and the angle of the shortest segment to the nearest multiple of π/4. Coarse units make
"as close as" common, so the angle decides between texts at the same distance.
Boxes that touch relate across their shared edge; the segments also serve to find a
control standing between a text and a field (shapely's STRtree), tested only for the
pairs the layout asks about (``Walls``).

Angles are octants counter-clockwise from the field, y pointing up as on paper:
0 right, 1 up-right, 2 above, 3 up-left, 4 left, 5 down-left, 6 below, 7 down-right.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray

from deepbot.forms.models import Box

__all__ = [
    "CHECKABLE_PREFERENCE",
    "LABEL_PREFERENCE",
    "Cell",
    "Geometry",
    "Walls",
    "cell_for",
    "measure",
    "octant",
]

RIGHT, UP_RIGHT, ABOVE, UP_LEFT, LEFT, DOWN_LEFT, BELOW, DOWN_RIGHT = range(8)

# Preference among texts at the same distance: aligned with the field first, left
# before right, top before bottom (the paper's order for labels)...
LABEL_PREFERENCE: tuple[int, ...] = (LEFT, ABOVE, RIGHT, BELOW, UP_LEFT, DOWN_LEFT, UP_RIGHT, DOWN_RIGHT)
# ...but a radio button's or checkbox's own text conventionally follows it.
CHECKABLE_PREFERENCE: tuple[int, ...] = (RIGHT, LEFT, ABOVE, BELOW, UP_RIGHT, DOWN_RIGHT, UP_LEFT, DOWN_LEFT)


@dataclass(frozen=True)
class Cell:
    """The approximate size of one character, in pixels."""

    width: float = 8.0
    height: float = 19.2


def cell_for(font_sizes: Sequence[float]) -> Cell:
    """A character cell for texts of these sizes: ½ em wide, one line (1.2 em) high."""
    sizes = sorted(s for s in font_sizes if s > 0)
    em = sizes[len(sizes) // 2] if sizes else 16.0
    return Cell(width=em * 0.5, height=em * 1.2)


@dataclass(frozen=True)
class Geometry:
    """Pairwise measures between fields (rows) and texts (columns)."""

    cells: NDArray[np.int64]  # distance rounded to whole character cells
    exact: NDArray[np.float64]  # the same distance unrounded, in cells (tie-breaks)
    ems: NDArray[np.float64]  # the distance in ems, the same unit across and down
    octants: NDArray[np.int64]  # angle field → text as a multiple of π/4 (see module doc)
    # the shortest segments' end points, in cell space: rows × cols × 2 points × (x, y)
    segments: NDArray[np.float64]

    def blocked(
        self, obstacles: Sequence[Box], cell: Cell, own: Sequence[frozenset[int]]
    ) -> NDArray[np.bool_]:
        """Pairs whose shortest segment crosses an obstacle the row does not own.

        A text with another field between it and a field is not that field's text.
        ``own[row]`` are the obstacle indices that belong to the row (itself, its options).
        """
        walls = Walls(self, obstacles, cell, own)
        rows, cols = self.cells.shape
        every = np.arange(cols)
        return np.array([walls.blocked(row, every) for row in range(rows)], dtype=bool).reshape(rows, cols)


class Walls:
    """``Geometry.blocked``, pair by pair as asked: a field reads only the texts near it.

    A large form (260 fields, 300 texts) makes 80,000 segments, and testing each against
    every control costs seconds; the layout asks about a few dozen per field.
    """

    def __init__(self, geometry: Geometry, obstacles: Sequence[Box], cell: Cell,
                 own: Sequence[frozenset[int]]) -> None:
        rows, cols = geometry.cells.shape
        self._segments = geometry.segments
        self._known = np.zeros((rows, cols), dtype=bool)
        self._blocked = np.zeros((rows, cols), dtype=bool)
        self._tree: shapely.STRtree | None = None
        if not obstacles or not rows or not cols:
            return
        # the interior only: a segment ending on a box edge, or a box touching the text, is no wall
        polys = _polygons(obstacles, cell, shrink=0.1)
        self._tree = shapely.STRtree(polys)
        self._solid = ~shapely.is_empty(polys)
        self._owned = np.zeros((rows, len(polys)), dtype=bool)
        for row, mine in enumerate(own):
            self._owned[row, [b for b in mine if b < len(polys)]] = True

    def blocked(self, row: int, columns: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Whether the segment from ``row`` to each of ``columns`` crosses a wall."""
        columns = np.asarray(columns, dtype=np.int64)
        todo = columns[~self._known[row, columns]]
        if todo.size and self._tree is not None:
            lines = shapely.linestrings(self._segments[row, todo])
            hit_line, hit_box = self._tree.query(lines, predicate="intersects")
            walls = ~self._owned[row, hit_box] & self._solid[hit_box]
            self._blocked[row, todo[hit_line[walls]]] = True
        self._known[row, todo] = True
        return np.asarray(self._blocked[row, columns], dtype=bool)


def octant(dx: float, dy_up: float) -> int:
    """The multiple of π/4 nearest to the direction (dx, dy), y pointing up."""
    return round(math.atan2(dy_up, dx) / (math.pi / 4)) % 8


def _polygons(boxes: Sequence[Box], cell: Cell, shrink: float = 0.0) -> NDArray[np.object_]:
    if not boxes:
        return np.empty(0, dtype=object)
    xs = np.array([(b.x, b.y, b.right, b.bottom) for b in boxes], dtype=np.float64)
    xs[:, (0, 2)] /= cell.width
    xs[:, (1, 3)] /= cell.height
    if shrink:
        xs[:, (0, 1)] += shrink
        xs[:, (2, 3)] -= shrink
        xs[:, 2] = np.maximum(xs[:, 0], xs[:, 2])
        xs[:, 3] = np.maximum(xs[:, 1], xs[:, 3])
    return np.asarray(shapely.box(xs[:, 0], xs[:, 1], xs[:, 2], xs[:, 3]))


def measure(fields: Sequence[Box], texts: Sequence[Box], cell: Cell) -> Geometry:
    """Distance (cells) and angle octant of every field-text pair, vectorised."""
    shape = (len(fields), len(texts))
    if not fields or not texts:
        empty_i = np.zeros(shape, dtype=np.int64)
        return Geometry(empty_i, np.zeros(shape), np.zeros(shape), empty_i.copy(), np.zeros((*shape, 2, 2)))
    fs = np.array(
        [(f.x / cell.width, f.y / cell.height, f.right / cell.width, f.bottom / cell.height) for f in fields]
    )
    ts = np.array(
        [(t.x / cell.width, t.y / cell.height, t.right / cell.width, t.bottom / cell.height) for t in texts]
    )
    f4, t4 = fs[:, None, :], ts[None, :, :]
    # The distance between two rectangles: the gaps across and down, in cells.
    exact = np.hypot(np.maximum(0.0, np.maximum(f4[..., 0] - t4[..., 2], t4[..., 0] - f4[..., 2])),
                     np.maximum(0.0, np.maximum(f4[..., 1] - t4[..., 3], t4[..., 1] - f4[..., 3])))
    # The shortest segment between two rectangles: across the middle of their shared
    # rows or columns when they have some (the nearest points would hug an edge, and slip
    # past the controls it must be checked against), else corner to corner.
    lo_x, hi_x = np.maximum(f4[..., 0], t4[..., 0]), np.minimum(f4[..., 2], t4[..., 2])
    lo_y, hi_y = np.maximum(f4[..., 1], t4[..., 1]), np.minimum(f4[..., 3], t4[..., 3])
    mid_x, mid_y = (lo_x + hi_x) / 2, (lo_y + hi_y) / 2
    fx = np.where(hi_x >= lo_x, mid_x, np.where(t4[..., 0] > f4[..., 2], f4[..., 2], f4[..., 0]))
    tx = np.where(hi_x >= lo_x, mid_x, np.where(t4[..., 0] > f4[..., 2], t4[..., 0], t4[..., 2]))
    fy = np.where(hi_y >= lo_y, mid_y, np.where(t4[..., 1] > f4[..., 3], f4[..., 3], f4[..., 1]))
    ty = np.where(hi_y >= lo_y, mid_y, np.where(t4[..., 1] > f4[..., 3], t4[..., 1], t4[..., 3]))
    segments = np.stack([np.stack([fx, fy], -1), np.stack([tx, ty], -1)], -2)
    coords = segments.reshape(-1, 2, 2)
    dx = coords[:, 1, 0] - coords[:, 0, 0]
    dy = coords[:, 0, 1] - coords[:, 1, 1]  # screen y grows downwards: flip it
    ca = np.stack([(fs[:, 0] + fs[:, 2]) / 2, (fs[:, 1] + fs[:, 3]) / 2], -1)
    cb = np.stack([(ts[:, 0] + ts[:, 2]) / 2, (ts[:, 1] + ts[:, 3]) / 2], -1)
    cdx = (cb[None, :, 0] - ca[:, None, 0]).ravel()
    cdy = (ca[:, None, 1] - cb[None, :, 1]).ravel()
    # Touching or overlapping boxes have no segment. Boxes that share an edge relate
    # across it (a label sitting on a field is above it); overlapping ones by centres.
    fa = np.array([(f.x, f.y, f.right, f.bottom) for f in fields])[:, None, :]
    tb = np.array([(t.x, t.y, t.right, t.bottom) for t in texts])[None, :, :]
    ox = (np.minimum(fa[..., 2], tb[..., 2]) - np.maximum(fa[..., 0], tb[..., 0])).ravel()
    oy = (np.minimum(fa[..., 3], tb[..., 3]) - np.maximum(fa[..., 1], tb[..., 1])).ravel()
    touching = exact.ravel() == 0
    overlapping = (ox > 0) & (oy > 0)
    edge_dx = np.where(oy > 0, cdx, 0.0)  # sharing rows: left or right
    edge_dy = np.where((ox > 0) & (oy <= 0), cdy, 0.0)  # sharing columns: above or below
    diagonal = (ox <= 0) & (oy <= 0)
    edge_dx = np.where(diagonal, cdx, edge_dx)
    edge_dy = np.where(diagonal, cdy, edge_dy)
    dx = np.where(touching, np.where(overlapping, cdx, edge_dx), dx)
    dy = np.where(touching, np.where(overlapping, cdy, edge_dy), dy)
    octants = np.rint(np.arctan2(dy, dx) / (np.pi / 4)).astype(np.int64) % 8
    cells = np.floor(exact + 0.5).astype(np.int64)
    gap_x = np.maximum(0.0, np.maximum(fa[..., 0] - tb[..., 2], tb[..., 0] - fa[..., 2]))
    gap_y = np.maximum(0.0, np.maximum(fa[..., 1] - tb[..., 3], tb[..., 1] - fa[..., 3]))
    ems = np.hypot(gap_x, gap_y) / (cell.width * 2)
    return Geometry(cells=cells, exact=exact, ems=ems, octants=octants.reshape(shape), segments=segments)
