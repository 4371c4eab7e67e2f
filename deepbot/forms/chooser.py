"""Chooser stage: "Search by: Title / Author / ISBN [______]".

Beyond the paper, whose fields each stand for one attribute: a library catalogue's
masthead (Koha's index select beside its one box), or a shop's "Search by" radio
buttons over a single text field, let the person say what the box searches. The
bounded field is a *chooser* when its options name at least two of the domain's
attributes (each option *is* an attribute's name or alias: SoftTFIDF ≥ 0.9, where a
format select's "E-Book" or "-- All --" reaches 0.78 against "title of book" or "all
words") and a text field lies next to it; the pair then stands for a field of each
attribute named, one at a time. A sort order ("Sort by: Title / Author / Price") names
attributes too: a field that speaks of sorting or ordering is not a chooser.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from deepbot.config.domain import Domain
from deepbot.forms.match import alias_similarity
from deepbot.forms.models import (
    Box,
    Chooser,
    ExtractedForm,
    FieldLayout,
    FormField,
    NamedAttribute,
    SimilarityEntry,
)
from deepbot.forms.texts import MatchParams, field_texts
from deepbot.forms.textsim import tokens

__all__ = ["find_chooser", "without_chooser"]

MIN_NAMED = 2  # one attribute named is a plain field with a fancy label
MIN_OPTION_SIMILARITY = 0.9  # an option that names an attribute says its name, near enough
MAX_GAP_CELLS = 6.0  # how far from the chooser its text field may be, in character heights

_SORTING = re.compile(
    r"sort|order|arrang|\brank|per page|ascend|descend|(?<![a-z])(asc|desc)(?![a-z])|low to high|high to low"
    r"|newest|oldest|sortier|reihenfolge|\btri(er)?\b|ordenar|ordina",
    re.IGNORECASE,
)


def find_chooser(
    form: ExtractedForm,
    layouts: Sequence[FieldLayout],
    domain: Domain,
    cell_height: float,
    params: MatchParams | None = None,
) -> Chooser | None:
    """The form's chooser for ``domain``, the one naming the most evidence, or None."""
    threshold = max((params or MatchParams()).min_similarity, MIN_OPTION_SIMILARITY)
    best: tuple[float, Chooser] | None = None
    for field, layout in zip(form.fields, layouts, strict=True):
        if field.kind != "bounded" or field.multiple or field.type == "checkbox" or field.disabled:
            continue
        labels = _option_labels(field, layout)
        words = [t.text for t in field_texts(field, layout)] + labels + [o.value for o in field.options]
        if any(_SORTING.search(w) for w in words):
            continue
        named = _named(field, labels, domain, threshold)
        if len(named) < MIN_NAMED:
            continue
        target = _nearest_text_field(field, form.fields, cell_height)
        if target is None:
            continue
        weight = sum(n.confidence * domain.attribute(n.attribute).specificity for n in named)
        chooser = Chooser(field=field.name, target=target.name, attributes=tuple(named))
        if best is None or weight > best[0]:
            best = (weight, chooser)
    return best[1] if best else None


def without_chooser(entries: Sequence[SimilarityEntry], chooser: Chooser | None) -> list[SimilarityEntry]:
    """The similarity table, less the chooser's rows: it says what the text field searches,
    it holds no value of an attribute ("Search by" must not pass for a keywords field)."""
    if chooser is None:
        return list(entries)
    return [e for e in entries if e.field != chooser.field]


def _option_labels(field: FormField, layout: FieldLayout) -> list[str]:
    labels = []
    for i, option in enumerate(field.options):
        shown = layout.option_texts[i] if field.checkable and i < len(layout.option_texts) else ()
        labels.append(" ".join(link.text for link in shown) or option.label or option.value)
    return labels


def _named(field: FormField, labels: Sequence[str], domain: Domain, threshold: float) -> list[NamedAttribute]:
    """Per attribute, the option naming it best; the most specific attribute first."""
    usable = [i for i, label in enumerate(labels) if tokens(label)]
    if not usable:
        return []
    sims = alias_similarity(domain, [labels[i] for i in usable])
    named: dict[str, NamedAttribute] = {}
    for j, i in enumerate(usable):
        row = int(sims[:, j].argmax())
        confidence = float(sims[row, j])
        if confidence < threshold:
            continue
        attribute = domain.attributes[row].name
        if attribute not in named or confidence > named[attribute].confidence:
            named[attribute] = NamedAttribute(attribute=attribute, value=field.options[i].value,
                                              label=labels[i], confidence=round(confidence, 4))
    return sorted(named.values(), key=lambda n: -domain.attribute(n.attribute).specificity)


def _nearest_text_field(chooser: FormField, fields: Sequence[FormField],
                        cell_height: float) -> FormField | None:
    """The text field the chooser names the content of: one in its own row first (a filter
    row's "[column ▾] [op ▾] [value]" beside a search box above it), then the nearest."""
    near = [(_gap(chooser.box, f.box), f) for f in fields
            if f.kind == "unbounded" and f.type != "password" and not f.disabled]
    near = [(gap, f) for gap, f in near if gap <= MAX_GAP_CELLS * cell_height]
    if not near:
        return None
    return min(near, key=lambda pair: (not chooser.box.same_row(pair[1].box), pair[0]))[1]



def _gap(a: Box, b: Box) -> float:
    dx = max(0.0, b.x - a.right, a.x - b.right)
    dy = max(0.0, b.y - a.bottom, a.y - b.bottom)
    return math.hypot(dx, dy)
