"""Visual distance between boxes (paper §IV.A, "Measuring visual distances").

Distances are measured in character cells, not pixels: boxes are scaled by the cell
size, the distance between the two rectangles (shapely) is rounded to whole cells and
the angle of the shortest segment to the nearest multiple of π/4. Coarse units make
"as close as" common, so the angle decides between texts at the same distance.
Boxes that touch relate across their shared edge; the segments also serve to find a
control standing between a text and a field (shapely's STRtree).

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
    segments: NDArray[np.object_]  # the shortest segments, in cell space

    def blocked(
        self, obstacles: Sequence[Box], cell: Cell, own: Sequence[frozenset[int]]
    ) -> NDArray[np.bool_]:
        """Pairs whose shortest segment crosses an obstacle the row does not own.

        A text with another field between it and a field is not that field's text.
        ``own[row]`` are the obstacle indices that belong to the row (itself, its options).
        """
        rows, cols = self.cells.shape
        out = np.zeros(rows * cols, dtype=bool)
        if not obstacles or not rows or not cols:
            return out.reshape(rows, cols)
        # the interior only: a segment ending on a box edge, or a box touching the text, is no wall
        polys = _polygons(obstacles, cell, shrink=0.1)
        tree = shapely.STRtree(polys)
        lines = self.segments.ravel()
        hit_line, hit_box = tree.query(lines, predicate="intersects")
        for li, bi in zip(hit_line.tolist(), hit_box.tolist(), strict=True):
            if bi not in own[li // cols] and not shapely.is_empty(polys[bi]):
                out[li] = True
        return out.reshape(rows, cols)


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
        return Geometry(
            empty_i, np.zeros(shape), np.zeros(shape), empty_i.copy(), np.empty(shape, dtype=object)
        )
    a = _polygons(fields, cell)[:, None]
    b = _polygons(texts, cell)[None, :]
    exact = np.asarray(shapely.distance(a, b), dtype=np.float64)
    # The shortest segment between two rectangles: across the middle of their shared
    # rows or columns when they have some (shapely's would hug an edge, and slip past
    # the controls it must be checked against), else corner to corner.
    fs = np.array(
        [(f.x / cell.width, f.y / cell.height, f.right / cell.width, f.bottom / cell.height) for f in fields]
    )
    ts = np.array(
        [(t.x / cell.width, t.y / cell.height, t.right / cell.width, t.bottom / cell.height) for t in texts]
    )
    f4, t4 = fs[:, None, :], ts[None, :, :]
    lo_x, hi_x = np.maximum(f4[..., 0], t4[..., 0]), np.minimum(f4[..., 2], t4[..., 2])
    lo_y, hi_y = np.maximum(f4[..., 1], t4[..., 1]), np.minimum(f4[..., 3], t4[..., 3])
    mid_x, mid_y = (lo_x + hi_x) / 2, (lo_y + hi_y) / 2
    fx = np.where(hi_x >= lo_x, mid_x, np.where(t4[..., 0] > f4[..., 2], f4[..., 2], f4[..., 0]))
    tx = np.where(hi_x >= lo_x, mid_x, np.where(t4[..., 0] > f4[..., 2], t4[..., 0], t4[..., 2]))
    fy = np.where(hi_y >= lo_y, mid_y, np.where(t4[..., 1] > f4[..., 3], f4[..., 3], f4[..., 1]))
    ty = np.where(hi_y >= lo_y, mid_y, np.where(t4[..., 1] > f4[..., 3], t4[..., 1], t4[..., 3]))
    coords = np.stack([np.stack([fx, fy], -1), np.stack([tx, ty], -1)], -2).reshape(-1, 2, 2)
    segments = np.asarray(shapely.linestrings(coords)).reshape(shape)
    dx = coords[:, 1, 0] - coords[:, 0, 0]
    dy = coords[:, 0, 1] - coords[:, 1, 1]  # screen y grows downwards: flip it
    ca = shapely.get_coordinates(shapely.centroid(a.ravel()))
    cb = shapely.get_coordinates(shapely.centroid(b.ravel()))
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
