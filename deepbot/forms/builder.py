"""Filter builders: rows a person adds before filling them (``builder.js``).

Issue trackers and admin screens query through rows of [field label] [operator ▾] [value],
and an "Add filter" select or menu whose entry adds a row by script (Flask-Admin's list
view, Redmine's issue query). Until a row is added its field is nowhere on the page, so the
analyzer would see an empty form. The builder stage tries each entry in the page, reads the
row it adds, and takes the row out again; each row's value control joins its form as a
field whose label is the entry chosen ("Title" adds the title's row), with the steps that
add it (``FormField.added_by``): the opening click of the menu, the entry's click or choice,
and a wait for the row. The fill stage puts those steps before the value, so a query adds
exactly the rows it fills, in a fresh page as in the crawl. The row's operator keeps its
default ("contains", "is"): a person looking for a word does not change it.

Rows already on the page are ordinary fields; their label is paired with their value
control, not the operator, by ``filter_rows.label_values``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import Page
from pydantic import ValidationError

import nseql
from deepbot.forms.models import Box, ExtractedForm, FieldOption, FormField, Markup, PageExtraction
from deepbot.forms.panels import act_in_page

__all__ = ["AddedRow", "add_rows", "base_fields", "find_rows"]

log = logging.getLogger("deepbot.forms")


@cache
def _script() -> str:
    return resources.files("deepbot.forms").joinpath("builder.js").read_text(encoding="utf-8")


@dataclass(frozen=True)
class AddedRow:
    """One entry of a builder: the form its row joins (its index in ``document.forms``), what
    the entry says, and the row's value control."""

    form: int
    entry: str
    field: FormField


async def find_rows(page: Page) -> tuple[AddedRow, ...]:
    """Try every "Add filter" entry of the page; the rows they add (the page is left as it was)."""
    found = await act_in_page(page, _script(), "try the filter builders")
    rows = []
    for raw in found if isinstance(found, list) else ():
        try:
            rows.append(_row(raw))
        except (KeyError, TypeError, ValueError, ValidationError) as exc:  # a page's odd markup: skip it
            log.debug("a filter builder's row of %s was not read: %s", page.url, exc)
    return tuple(rows)


def _step(raw: Mapping[str, Any]) -> nseql.Step:
    if raw["kind"] == "select":
        return nseql.Select(raw["selector"], raw["value"], by="value")
    return nseql.Click(raw["selector"])


def _row(raw: Mapping[str, Any]) -> AddedRow:
    value = raw["value"]
    entry = str(raw["entry"])
    steps = [*(_step(s) for s in raw["steps"]), nseql.WaitSelector(value["selector"])]
    field = FormField(
        name="",  # named when it joins its form
        html_name=value["name"],
        id=value["id"],
        tag=value["tag"],
        type=value["type"],
        kind="bounded" if value["tag"] == "select" else "unbounded",
        selector=value["selector"],
        box=Box.model_validate(value["box"]),
        options=tuple(FieldOption.model_validate(o) for o in value["options"]),
        multiple=bool(value["multiple"]),
        required=bool(value["required"]),
        # The entry that adds the row names what its value is: the row's own label.
        markup=Markup(labels=(entry,), placeholder=value.get("placeholder", "")),
        added_by=tuple(nseql.dump_step(s) for s in steps),
    )
    return AddedRow(int(raw["form"]), entry, field)


def add_rows(extraction: PageExtraction, rows: Sequence[AddedRow]) -> PageExtraction:
    """The extraction with each added row's value control as a field of its form, after the
    form's own fields (in the order the entries come: top to bottom in the menu)."""
    if not rows:
        return extraction
    forms = []
    silenced: set[int] = set()
    for form in extraction.forms:
        mine = [r for r in rows if r.form == form.index and not form.virtual]
        if not mine:
            forms.append(form)
            continue
        # An "Add filter" select is how rows are added, not a field of the query; its label
        # ("Add filter") labels no other field either.
        chosen = {r.entry for r in mine if r.field.added_by[0].startswith("select ")}
        fields = []
        for f in form.fields:
            if chosen and f.tag == "select" and chosen <= {o.label for o in f.options}:
                silenced.update(f.markup.bound_ids)
            else:
                fields.append(f)
        taken = {f.name for f in fields}
        for row in mine:
            base = row.field.html_name or row.field.id or f"added {row.entry}"
            name, n = base, 1
            while name in taken:
                n += 1
                name = f"{base}#{n}"
            taken.add(name)
            fields.append(row.field.model_copy(update={"name": name}))
        forms.append(form.model_copy(update={"fields": tuple(fields)}))
    # Read as a section's title: the layout pairs it with no field.
    texts = tuple(t.model_copy(update={"heading": True}) if t.id in silenced else t for t in extraction.texts)
    return extraction.model_copy(update={"forms": tuple(forms), "texts": texts})


def base_fields(form: ExtractedForm) -> ExtractedForm:
    """The form as the page shows it: without the rows a builder would add."""
    if not any(f.added_by for f in form.fields):
        return form
    return form.model_copy(update={"fields": tuple(f for f in form.fields if not f.added_by)})
