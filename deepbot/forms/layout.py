"""Layout stage (paper §IV.A, "Associating texts and form fields").

For each field, the texts at the shortest distance d, then those closer than k·d
(k = 5), ordered by distance then angle (aligned first, left before right, top
before bottom). Then, across the whole form: a text belongs to one field only, and
every field keeps at least one text even if another field is closer to it.

Beyond the paper:

* Markup binds texts to fields outright: ``<label for>``, a wrapping ``<label>``,
  ``aria-labelledby``/``aria-describedby``, the legend of a fieldset holding only
  that field. Such a text is that field's and no other's.
* Radio buttons and checkboxes are placed in two steps. First each option takes its
  own text (the nearest, following it by convention, one text per option, solved
  for all options at once). Then the group, boxed with its options and their texts,
  competes with the other fields for the remaining texts. A group whose options
  have texts is explained by its values, so it need not take a text of its own
  (the paper's main failure was forcing one on it).
* A field that shows its own prompt (a placeholder, a select's "Any genre") is
  explained too: it takes only texts within ``prompt_reach`` cells and is never
  handed a far text just to have one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from deepbot.forms.assign import assign
from deepbot.forms.geometry import (
    ABOVE,
    BELOW,
    CHECKABLE_PREFERENCE,
    LABEL_PREFERENCE,
    LEFT,
    RIGHT,
    UP_LEFT,
    UP_RIGHT,
    Cell,
    Walls,
    cell_for,
    measure,
)
from deepbot.forms.models import (
    Box,
    Evidence,
    ExtractedForm,
    FieldLayout,
    FormField,
    FormLayout,
    Markup,
    PageExtraction,
    PageText,
    TextLink,
)
from deepbot.forms.textsim import tokens

__all__ = ["LayoutParams", "form_texts", "layout_form"]

# Words of a select's empty choice that say nothing about the field ("-- Any --").
_VAGUE = frozenset({"all", "any", "none", "one", "option", "options", "show", "everything"})


@dataclass(frozen=True)
class LayoutParams:
    k: float = 5.0  # texts farther than k·d from a field are not its texts
    prompt_reach: int = 1  # cells: how far a field that shows its own prompt looks
    margin: tuple[float, float] = (24.0, 3.5)  # cells around the form's controls for outside texts


@dataclass
class _Target:
    """Something texts attach to: a field, or one radio button/checkbox."""

    box: Box
    preference: tuple[int, ...]
    own: frozenset[int]  # indices of the obstacles that are this target itself
    forced: list[tuple[int, Evidence]] = field(default_factory=list)
    explained: bool = False  # shows its function without a text (prompt, labelled options)
    row_labels: bool = False  # a left label means texts above belong to other rows
    reach: int | None = None
    sides: tuple[int, ...] = (LEFT, ABOVE, RIGHT, BELOW)  # where a prompting field looks
    links: list[TextLink] = field(default_factory=list)


def form_texts(
    extraction: PageExtraction, form: ExtractedForm, params: LayoutParams = LayoutParams()
) -> tuple[PageText, ...]:
    """The texts the form's layout may use.

    A form that holds texts is labelled by them (and by texts markup binds to its
    fields): a heading or blurb just outside it is no label. A form element with no
    text of its own (``<table><form>`` markup leaves it empty) borrows the texts near
    its controls that lie outside every form, unless its fields all name themselves
    (placeholders, aria-label, labels). A virtual form has no element of its own: the
    texts near its controls are all the visual evidence there is.
    """
    inside = [t for t in extraction.texts if t.form == form.index]
    bound = {i for f in form.fields for i in _bound_ids(f)}
    unexplained = form.virtual or any(
        not (f.markup.labels or f.markup.aria_label or f.markup.placeholder) for f in form.fields
    )
    if inside or not unexplained:
        return tuple(t for t in extraction.texts if t.form == form.index or t.id in bound)
    cell = cell_for([t.font_size for t in extraction.texts])
    near = form.box.expanded(params.margin[0] * cell.width, params.margin[1] * cell.height)
    return tuple(t for t in extraction.texts if t.id in bound or (t.form is None and near.intersects(t.box)))


def _bound_ids(f: FormField) -> set[int]:
    ids = set(f.markup.bound_ids)
    for o in f.options:
        if o.markup is not None:
            ids.update(o.markup.bound_ids)
    return ids


def _forced(markup: Markup) -> list[tuple[int, Evidence]]:
    out = [(i, Evidence.LABEL) for i in markup.label_ids]
    out += [(i, Evidence.ARIA) for i in (*markup.labelledby_ids, *markup.describedby_ids)]
    out += [(i, Evidence.LEGEND) for i in markup.legend_ids]
    return list({i: e for i, e in reversed(out)}.items())[::-1]


def _rank(cells: int, rank: int, exact: float) -> float:
    """The paper's order within a field's list: whole cells, then angle, then exact distance."""
    return cells * 10.0 + rank + min(exact, 99.0) * 0.01


def _claim(rank: int, ems: float) -> float:
    """How strongly a field claims a text against other fields (lower is stronger).

    Nearness in ems, the same unit across and down (a 5 px gap is as close below as
    to the left), plus a penalty for a worse side and a full em for a diagonal. Whole
    character cells would tie too often here: a label's table cell touches the field
    of the next row as well as its own.
    """
    return ems + (rank * 0.1 if rank < 4 else 1.0 + (rank - 4) * 0.1)


class _Near:
    """The free texts a target sees (no other control between them), nearest first,
    tested against the walls only as far as the layout asks."""

    def __init__(self, walls: Walls, cells: NDArray[np.int64], row: int, columns: NDArray[np.int64]) -> None:
        distance = cells[row, columns]
        by_distance = np.argsort(distance, kind="stable")
        self._walls, self._row, self._distance = walls, row, cells[row]
        self._columns, self._cells = columns[by_distance], distance[by_distance]
        self._tested = 0
        self._open: list[int] = []  # the columns tested and seen, nearest first

    def _test(self, upto: int) -> None:
        if upto > self._tested:
            chunk = self._columns[self._tested:upto]
            self._open += chunk[~self._walls.blocked(self._row, chunk)].tolist()
            self._tested = upto

    def first(self, accept: Callable[[int], bool] = lambda j: True) -> int | None:
        """The nearest seen column ``accept`` takes, or None."""
        looked, step = 0, 8
        while True:
            for j in self._open[looked:]:
                if accept(j):
                    return j
            looked = len(self._open)
            if self._tested >= len(self._columns):
                return None
            self._test(self._tested + step)
            step *= 2

    def below(self, bound: float) -> list[int]:
        """Every seen column nearer than ``bound`` cells."""
        self._test(int(np.searchsorted(self._cells, bound, side="left")))
        return [j for j in self._open if self._distance[j] < bound]


def _place(
    targets: Sequence[_Target],
    texts: Sequence[PageText],
    free: set[int],
    obstacles: Sequence[Box],
    cell: Cell,
    params: LayoutParams,
    *,
    one_each: bool,
) -> set[int]:
    """Attach texts to targets; returns the ids of the texts used.

    ``one_each``: every target takes at most one text (radio/checkbox options).
    """
    if not targets or not texts:
        return set()
    index = {t.id: j for j, t in enumerate(texts)}
    geo = measure([t.box for t in targets], [t.box for t in texts], cell)
    walls = Walls(geo, obstacles, cell, [t.own for t in targets])
    free_columns = np.array([j for j, t in enumerate(texts) if t.id in free], dtype=np.int64)

    def link(i: int, text_id: int, evidence: Evidence) -> TextLink:
        j = index[text_id]
        return TextLink(
            text_id=text_id,
            text=texts[j].text,
            distance=int(geo.cells[i, j]),
            angle=int(geo.octants[i, j]) * 45,
            evidence=evidence,
            box=texts[j].box,
        )

    def order(i: int, j: int) -> float:
        rank = targets[i].preference.index(int(geo.octants[i, j]))
        return _rank(int(geo.cells[i, j]), rank, float(geo.exact[i, j]))

    def claim(i: int, j: int) -> float:
        return _claim(targets[i].preference.index(int(geo.octants[i, j])), float(geo.ems[i, j]))

    used: set[int] = set()
    lists: list[list[int]] = []  # per target, candidate text columns, best first
    for i, target in enumerate(targets):
        for text_id, evidence in target.forced:
            if text_id in index:
                target.links.append(link(i, text_id, evidence))
                used.add(text_id)
        near = _Near(walls, geo.cells, i, free_columns)
        first = None if one_each and target.forced else near.first()
        if first is None:
            lists.append([])
            continue
        own = [index[t] for t, _ in target.forced if t in index]
        d = min(int(geo.cells[i, j]) for j in (first, *own))
        octants = geo.octants[i]
        above = (UP_RIGHT, ABOVE, UP_LEFT)
        level = False  # whether texts above the field are left out
        if target.row_labels:
            # A field labelled from its left sits in a row: what is above it heads the
            # form or belongs to the row above (a site banner, the previous field's hint).
            window = params.k * max(d, 1)
            if any(octants[j] == LEFT and geo.cells[i, j] < window for j in (*near.below(window), *own)):
                level = True
                first = near.first(lambda j: octants[j] not in above)  # noqa: B023 (called here)
                if first is None:
                    lists.append([])
                    continue
                d = min(int(geo.cells[i, j]) for j in (first, *own))
        # The paper's k·d rule; at d = 0 (boxes touching, common once a label takes
        # its table cell's box) k·d would keep nothing else, so d counts as one cell.
        reach = params.k * max(d, 1)
        keep = [j for j in sorted(near.below(max(reach, d + 1)))
                if not (level and octants[j] in above) and (geo.cells[i, j] == d or geo.cells[i, j] < reach)]
        if target.reach is not None:
            # a field showing its own prompt takes only the texts right beside it
            keep = [j for j in keep if geo.cells[i, j] <= target.reach and geo.octants[i, j] in target.sides]
        lists.append(sorted(keep, key=lambda j: order(i, j)))

    # Every target that needs a text gets one: one text each, the cheapest overall.
    needy = [i for i, t in enumerate(targets) if not t.links and not t.explained and lists[i]]
    columns = sorted({j for i in needy for j in lists[i]})
    matrix: list[list[float | None]] = [
        [claim(i, j) if j in lists[i] else None for j in columns] for i in needy
    ]
    for r, c in assign(matrix):
        i, j = needy[r], columns[c]
        targets[i].links.append(link(i, texts[j].id, Evidence.VISUAL))
        used.add(texts[j].id)
    if one_each:
        return used

    # Every other listed text goes to the one field it is closest to, in that order.
    best: dict[int, tuple[float, int]] = {}
    for i, candidates in enumerate(lists):
        for j in candidates:
            if texts[j].id in used:
                continue
            strength = claim(i, j)
            if j not in best or strength < best[j][0]:
                best[j] = (strength, i)
    for j, (_, i) in best.items():
        targets[i].links.append(link(i, texts[j].id, Evidence.VISUAL))
        used.add(texts[j].id)
    return used


def _share_row_labels(form: ExtractedForm, targets: Sequence[_Target]) -> None:
    """Checkboxes named one by one (``chkCD``, ``chkLP``…) on one row share its label.

    "Media: [x] CD [x] Vinyl [x] DVD" is one question to a person even when each box
    is its own field: the row's label, left of the first box, describes each of them.
    """
    for k in range(1, len(form.fields)):
        prev, cur = form.fields[k - 1], form.fields[k]
        if not (prev.checkable and cur.checkable and prev.type == cur.type and len(cur.options) == 1):
            continue
        same_row = min(prev.box.bottom, cur.box.bottom) > max(prev.box.y, cur.box.y)
        if not same_row or targets[k].links:
            continue
        targets[k].links.extend(
            t for t in targets[k - 1].links if t.angle == 180 and t.box.right <= prev.box.x
        )


def _order(links: list[TextLink], preference: tuple[int, ...] = LABEL_PREFERENCE) -> tuple[TextLink, ...]:
    # markup-bound texts first (the author said so), then the paper's order: distance, angle
    return tuple(
        sorted(
            links, key=lambda t: (t.evidence == Evidence.VISUAL, t.distance, preference.index(t.angle // 45))
        )
    )


def layout_form(
    form: ExtractedForm, texts: Sequence[PageText], params: LayoutParams = LayoutParams()
) -> FormLayout:
    """Texts associated with every field (and every radio/checkbox option) of a form."""
    inside = [t.font_size for t in texts if t.form == form.index]
    cell = cell_for(inside or [t.font_size for t in texts])
    bound = {i for f in form.fields for i in _bound_ids(f)}
    # section titles (h1-h6, caption, legend of several fields) label no field by sight
    free = {t.id for t in texts if not t.heading} - bound

    # Every control is an obstacle: a text with a control between it and a field is not its text.
    obstacles: list[Box] = []
    owners: list[list[int]] = []  # per field, its obstacle indices
    for f in form.fields:
        boxes = [o.box for o in f.options if o.box is not None] if f.checkable else [f.box]
        owners.append(list(range(len(obstacles), len(obstacles) + len(boxes))))
        obstacles.extend(boxes)

    # 1. radio buttons and checkboxes take their own texts
    options: list[list[_Target]] = []
    for f, own in zip(form.fields, owners, strict=True):
        options.append(
            [
                _Target(
                    box=o.box if o.box is not None else f.box,
                    preference=CHECKABLE_PREFERENCE,
                    own=frozenset(own[i : i + 1]),
                    forced=_forced(o.markup) if o.markup is not None else [],
                )
                for i, o in enumerate(f.options)
            ]
            if f.checkable
            else []
        )
    flat = [t for group in options for t in group]
    free -= _place(flat, texts, free, obstacles, cell, params, one_each=True)

    # 2. fields, and groups boxed with their options' texts, share the rest
    by_id = {t.id: t for t in texts}
    targets: list[_Target] = []
    for f, opts, own in zip(form.fields, options, owners, strict=True):
        box = f.box
        if f.checkable:
            parts = [by_id[link.text_id].box for o in opts for link in o.links]
            box = box.union(*parts)
        # A placeholder sits where a label above would: only texts on its row can add
        # to it. A select's prompt ("Any genre") says less, so a label above still counts.
        placeholder = bool(f.markup.placeholder)
        prompt = placeholder or bool(set(tokens(f.markup.prompt)) - _VAGUE)
        explained = prompt or (bool(opts) and all(o.links for o in opts))
        targets.append(
            _Target(
                box=box,
                preference=LABEL_PREFERENCE,
                own=frozenset(own),
                row_labels=True,
                forced=_forced(f.markup),
                explained=explained,
                reach=params.prompt_reach if prompt else None,
                sides=(LEFT, RIGHT) if placeholder else (LEFT, ABOVE, RIGHT),
            )
        )
    _place(targets, texts, free, obstacles, cell, params, one_each=False)
    _share_row_labels(form, targets)

    return FormLayout(
        cell=(cell.width, cell.height),
        fields=tuple(
            FieldLayout(
                field=f.name,
                texts=_order(t.links),
                option_texts=tuple(_order(o.links, CHECKABLE_PREFERENCE) for o in opts),
            )
            for f, t, opts in zip(form.fields, targets, options, strict=True)
        ),
    )
