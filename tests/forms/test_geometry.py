"""Visual distance: character cells, angles rounded to π/4, occlusion."""

from __future__ import annotations

import pytest

from deepbot.forms.geometry import (
    ABOVE,
    BELOW,
    DOWN_RIGHT,
    LEFT,
    RIGHT,
    UP_LEFT,
    Cell,
    cell_for,
    measure,
    octant,
)
from deepbot.forms.models import Box

CELL = Cell(width=8.0, height=20.0)
FIELD = Box(x=100, y=100, width=200, height=20)


def box(x: float, y: float, w: float = 40, h: float = 16) -> Box:
    return Box(x=x, y=y, width=w, height=h)


def one(text: Box, field: Box = FIELD) -> tuple[int, float, int]:
    g = measure([field], [text], CELL)
    return int(g.cells[0, 0]), float(g.exact[0, 0]), int(g.octants[0, 0])


def test_cells_are_character_sized() -> None:
    assert cell_for([16, 16, 12]) == Cell(width=8.0, height=pytest.approx(19.2))
    assert cell_for([]) == Cell(width=8.0, height=pytest.approx(19.2))


@pytest.mark.parametrize(
    ("text", "cells", "angle"),
    [
        (box(44, 102), 2, LEFT),  # 16 px to the left = 2 cells
        (box(310, 102), 1, RIGHT),  # 10 px = 1.25 cells
        (box(120, 64), 1, ABOVE),  # 20 px = one line
        (box(120, 130), 1, BELOW),  # 10 px below = half a line, rounds up
        (box(44, 40), 3, UP_LEFT),  # 2 cells across, 2.2 lines up
        (box(316, 160), 3, DOWN_RIGHT),
        (box(20, 70), 5, LEFT),  # 5 cells across, 0.7 lines up: nearer to level than to 45°
    ],
)
def test_distance_and_angle(text: Box, cells: int, angle: int) -> None:
    got_cells, _, got_angle = one(text)
    assert (got_cells, got_angle) == (cells, angle)


def test_touching_boxes_relate_across_the_shared_edge() -> None:
    # a label sitting right on top of a wide field is above it, not to its left
    assert one(box(100, 84, 40, 16)) == (0, 0.0, ABOVE)
    # a table cell touching the field's left edge
    assert one(box(60, 98, 40, 24))[::2] == (0, LEFT)


def test_octant_rounds_to_the_nearest_multiple_of_quarter_pi() -> None:
    assert octant(1, 0) == RIGHT
    assert octant(1, 0.3) == RIGHT
    assert octant(1, 0.8) == 1
    assert octant(0, 1) == ABOVE
    assert octant(-1, -0.1) == LEFT


def test_a_control_between_text_and_field_blocks_the_pair() -> None:
    heading = box(100, 40, 80, 16)
    other_field = Box(x=100, y=70, width=200, height=20)
    g = measure([FIELD], [heading], CELL)
    assert g.blocked([other_field], CELL, [frozenset()]).tolist() == [[True]]
    assert g.blocked([other_field], CELL, [frozenset({0})]).tolist() == [[False]]  # its own box
    beside = Box(x=400, y=70, width=50, height=20)
    assert g.blocked([beside], CELL, [frozenset()]).tolist() == [[False]]


def test_walls_asked_pair_by_pair_answer_as_every_pair_tested_at_once() -> None:
    # The layout asks about the texts near each field, in chunks, in any order: each
    # answer is what testing every segment against every control gives.
    import random

    import numpy as np
    import shapely

    from deepbot.forms.geometry import Walls

    rng = random.Random(7)
    fields = [box(rng.uniform(0, 800), rng.uniform(0, 600), rng.uniform(20, 200), 20) for _ in range(12)]
    texts = [box(rng.uniform(0, 800), rng.uniform(0, 600), rng.uniform(10, 120), 16) for _ in range(30)]
    own = [frozenset({i}) for i in range(len(fields))]
    g = measure(fields, texts, CELL)
    walls = Walls(g, fields, CELL, own)
    shrunk = [shapely.box(f.x / CELL.width + 0.1, f.y / CELL.height + 0.1,
                          max(f.x / CELL.width + 0.1, f.right / CELL.width - 0.1),
                          max(f.y / CELL.height + 0.1, f.bottom / CELL.height - 0.1)) for f in fields]
    expected = np.array([[any(b != i and shapely.intersects(shapely.linestrings(g.segments[i, j]), shrunk[b])
                              for b in range(len(fields))) for j in range(len(texts))]
                         for i in range(len(fields))])
    assert expected.any() and not expected.all()
    for i in range(len(fields)):
        order = list(range(len(texts)))
        rng.shuffle(order)
        for start in range(0, len(order), 7):
            chunk = np.array(order[start:start + 7])
            assert walls.blocked(i, chunk).tolist() == expected[i, chunk].tolist()
    assert g.blocked(fields, CELL, own).tolist() == expected.tolist()
