"""Filling a relevant form with a domain query: assignments → NSEQL steps (pure).

Unbounded fields get the query value. Bounded fields get the option whose label (or
value) best matches it by SoftTFIDF/Jaro-Winkler — "paperback" picks "Paperback (PB)".
Attributes the query leaves empty, and fields no attribute was assigned to, keep
their defaults; a select with nothing to choose from yet ("Any model", filled by a
script once the make above it is chosen) gets NSEQL's ``select … like``, which waits
for the option most like the value. A field that only shares an attribute
(``primary=False``: the second box of a range) is left alone too. The toggles that
showed the form's folded fields ("Advanced search ▾") are clicked first, as the
analyzer clicked them. A chooser ("Search by: Title / Author") takes one more attribute
of the query: its option, then the value in its text field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import nseql
from deepbot.forms.filter_rows import OPERATORS
from deepbot.forms.models import Chooser, DomainMatch, FieldAnalysis, FormAnalysis, OptionAnalysis
from deepbot.forms.textsim import SoftTfidf, jaro_winkler, normalize, sounds_alike

MIN_OPTION_SIMILARITY = 0.3  # below this no option means the value: keep the default
# What a select says while it has nothing to offer: "Any model", "Select a make first", "--".
_PROMPT = re.compile(r"^\W*(any|all|select|choose|pick|please|none|no )|^\W*$", re.I)


@dataclass(frozen=True)
class FilledQuery:
    """The steps filling one form with one query, and what they set."""

    steps: tuple[nseql.Step, ...]
    values: dict[str, str]  # field name -> the value or option label chosen


def best_option(options: tuple[OptionAnalysis, ...], value: str) -> tuple[OptionAnalysis, float] | None:
    """The option a person would pick for ``value``, with its similarity."""
    candidates = [o for o in options if (o.label or o.value).strip()]
    if not candidates or not value.strip():
        return None
    texts = [" ".join(dict.fromkeys((o.label, o.value, *o.texts))) for o in candidates]
    scorer = SoftTfidf([value, *texts])
    scores = scorer.table([value], texts)[0]
    index = int(scores.argmax())
    if scores[index] < MIN_OPTION_SIMILARITY:
        # Nothing spelled like the value: an option that sounds like it is what a person
        # means ("Jon Smyth" → "John Smith"), trusted just over the bar.
        # Among those, the closest spelling ("Jane" sounds like "Jon" too).
        alike = [i for i, t in enumerate(texts) if sounds_alike(value, t) == 1.0]
        if alike:
            best = max(alike, key=lambda i: jaro_winkler(normalize(value), normalize(texts[i])))
            return candidates[best], MIN_OPTION_SIMILARITY
    return candidates[index], float(scores[index])


def fill_steps(form: FormAnalysis, match: DomainMatch, query: Mapping[str, str]) -> FilledQuery | None:
    """The steps filling ``form`` with ``query``; None when no assigned field gets a value."""
    steps: list[nseql.Step] = []
    values: dict[str, str] = {}
    held: set[str] = set()
    opening = [nseql.Click(selector) for selector in form.opened]  # "Advanced search ▾" first
    # Top to bottom, as a person fills a form: a select a script fills from the one above
    # it (a car's make, then its model) must come after that one.
    position = {f.name: i for i, f in enumerate(form.fields)}
    for assignment in sorted(match.assignments, key=lambda a: position.get(a.field, 0)):
        value = query.get(assignment.attribute, "")
        if not assignment.primary or not value.strip():
            continue
        field = form.field(assignment.field)
        filled = _fill_field(field, value, values)
        if filled and field.added_by:  # a filter builder's row: add it, wait for it, then fill it
            steps.extend(nseql.parse("\n".join(field.added_by) + "\n").steps)
        steps.extend(filled)
        if filled:
            held.add(assignment.attribute)
    if match.chooser is not None:
        steps.extend(_choose(form, match.chooser, query, held, values))
    if not values:
        return None
    steps.extend(_any_choices(form, values))
    return FilledQuery((*opening, *steps), values)


# A choice that means "whichever": "Any", "All tags", "(all)", "Alle".
ANY_CHOICE = re.compile(r"^\W*(any|all|every|alle|tous|toutes|todos|todas|tutti)\b", re.I)
# A choice that is no choice: "----------", "Select a tag", "Choose…", an empty label.
_PLACEHOLDER = re.compile(r"^[\W_]*$|^\W*(select|choose|pick|please)\b", re.I)


def _any_choices(form: FormAnalysis, chosen: dict[str, str]) -> list[nseql.Step]:
    """For a person an empty value means "any": a select the query leaves at its placeholder
    ("----------"), which a server may read as "none", takes the option that says any or
    all, where it has one."""
    steps: list[nseql.Step] = []
    for field in form.fields:
        if (field.name in chosen or field.type != "select-one" or field.hidden or field.added_by
                or len(field.options) < 2):
            continue
        shown = next((o for o in field.options if o.selected), field.options[0])
        placeholder = not shown.value.strip() or bool(_PLACEHOLDER.match(shown.label))
        if ANY_CHOICE.match(shown.label) or not placeholder:
            continue
        anything = next((o for o in field.options
                         if o is not shown and o.value.strip() and ANY_CHOICE.match(o.label)), None)
        if anything is not None:
            chosen[field.name] = anything.label
            steps.append(nseql.Select(field.selector, anything.value, by="value"))
    return steps


def _choose(form: FormAnalysis, chooser: Chooser, query: Mapping[str, str], held: set[str],
            chosen: dict[str, str]) -> list[nseql.Step]:
    """A chooser takes one attribute of the query that no field took, the most specific:
    its option, then the value in its text field (unless a field's value is there)."""
    if chooser.target in chosen:
        return []
    wanted = (n for n in chooser.attributes if n.attribute not in held and query.get(n.attribute, "").strip())
    named = next(wanted, None)
    if named is None:
        return []
    field, target = form.field(chooser.field), form.field(chooser.target)
    option = next((o for o in field.options if o.value == named.value), None)
    if option is None:
        return []
    pick: nseql.Step
    if field.type.startswith("select"):
        pick = nseql.Select(field.selector, option.value, by="value")
    elif option.selector:
        pick = nseql.Check(option.selector)
    else:
        return []
    chosen[field.name] = named.label
    chosen[target.name] = query[named.attribute]
    steps = [pick]
    operator = _operator(form, field, target)
    if operator is not None:  # "[title ▾] [= ▾] [____]": a word is looked for, not matched whole
        select, contains = operator
        steps.append(nseql.Select(select.selector, contains.value, by="value"))
        chosen[select.name] = contains.label
    return [*steps, nseql.Fill(target.selector, query[named.attribute])]


# An operator select of a filter row (filter_rows.OPERATORS): "=", "is", "contains"… A word
# a query names is looked for inside the column, as a person searching would ask.
_CONTAINS = re.compile(r"^\s*(contains?|includes?|has|like|matches)\s*$", re.I)


def _operator(form: FormAnalysis, column: FieldAnalysis,
              value: FieldAnalysis) -> tuple[FieldAnalysis, OptionAnalysis] | None:
    """The operator select in the row of a filter's column chooser and its value, with its
    "contains" option, when it has one."""
    for f in form.fields:
        if f is column or not f.type.startswith("select") or not f.box.same_row(column.box):
            continue
        if not f.box.same_row(value.box):
            continue
        labels = [o.label or o.value for o in f.options]
        if sum(bool(OPERATORS.match(label)) for label in labels) < 3:
            continue
        contains = next((o for o in f.options if _CONTAINS.match(o.label or o.value)), None)
        if contains is not None:
            return f, contains
    return None


def _fill_field(field: FieldAnalysis, value: str, chosen: dict[str, str]) -> list[nseql.Step]:
    if field.kind == "unbounded":
        chosen[field.name] = value
        return [nseql.Fill(field.selector, value)]
    found = best_option(field.options, value)
    unmatched = found is None or found[1] < MIN_OPTION_SIMILARITY
    if unmatched and waiting_for_options(field):
        # Nothing to choose from yet ("Any model"): a script fills it once the field above
        # is chosen. The option most like the value is chosen when it comes.
        chosen[field.name] = value
        return [nseql.Select(field.selector, value, by="like")]
    if found is None or unmatched:
        return []
    option, _ = found
    chosen[field.name] = option.label or option.value
    if field.type.startswith("select"):
        return [nseql.Select(field.selector, option.value, by="value")]
    steps: list[nseql.Step] = []
    if field.type == "checkbox":
        # Restrict to the chosen value: untick the others that were ticked by default.
        steps.extend(nseql.Uncheck(o.selector) for o in field.options
                     if o.selected and o is not option and o.selector)
    if option.selector:
        steps.append(nseql.Check(option.selector))
    return steps


def waiting_for_options(field: FieldAnalysis) -> bool:
    """A select with nothing to offer yet: no option, or one prompt ("Any model")."""
    if field.type != "select-one" or len(field.options) > 1:
        return False
    return all(not o.value.strip() or _PROMPT.match(o.label) for o in field.options)


# What a search form says of itself: its button, its box's name or type, its role.
_SEARCHES = re.compile(r"\b(search|find|look ?up|query|q|keywords?|suche|recherche|buscar)\b", re.I)


def search_box(form: FormAnalysis, domain: str) -> FieldAnalysis | None:
    """The form's one text field when the form is a plain search box ("[____] Search"), not
    relevant to ``domain`` by itself: what a person types any words of a query into."""
    if any(d.domain == domain and d.relevant for d in form.domains):
        return None
    shown = [f for f in form.fields if not f.hidden and (f.kind == "unbounded" or f.values)]
    if len(shown) != 1 or shown[0].kind != "unbounded" or shown[0].type not in ("text", "search", ""):
        return None
    box = shown[0]
    said = [*(s.text for s in form.submits), box.html_name, box.id, box.type, *box.hints]
    return box if any(_SEARCHES.search(t.replace("_", " ")) for t in said if t) else None
