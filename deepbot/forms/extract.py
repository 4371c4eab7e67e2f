"""Extract stage: one ``page.evaluate`` of ``extract.js``, then typed models.

The script returns every form in ``document.forms`` order with its visible fields,
submit controls and nearby script anchors, and the visible text runs in or near the
forms. ``build_extraction`` (pure) groups radio buttons and checkboxes sharing a
``name`` into one compound field whose options are the individual inputs, and gives
every field a name unique in its form.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import Page
from pydantic import ValidationError

from deepbot.browser.failures import translated
from deepbot.content import challenge
from deepbot.errors import FormError
from deepbot.forms.models import (
    Box,
    ExtractedForm,
    FieldOption,
    FormField,
    Markup,
    PageExtraction,
    PageText,
    ScriptAnchor,
    SubmitControl,
)

__all__ = ["answer", "build_extraction", "extract_page"]


@cache
def _script() -> str:
    return resources.files("deepbot.forms").joinpath("extract.js").read_text(encoding="utf-8")


async def extract_page(page: Page, *, anchor_reach: float = 300.0) -> PageExtraction:
    """Everything the analyzer needs from the page, in one round trip."""
    args = {"anchorReach": anchor_reach, "challenge": challenge.script_args()}
    # A crash is the browser's failure, not the form's: callers may retry it with a fresh one.
    with translated(f"could not extract forms from {page.url}", other=FormError):
        raw = await page.evaluate(_script(), args)
    return build_extraction(answer(raw))


def answer(raw: Any) -> Mapping[str, Any]:
    """The script's answer as a mapping: it is JSON text, or the object itself on a page
    that broke JSON.stringify."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise FormError(f"unexpected extraction data: {exc}") from None
    if not isinstance(raw, Mapping):
        raise FormError(f"unexpected extraction data: {type(raw).__name__}, not an object")
    return raw


def build_extraction(raw: Mapping[str, Any]) -> PageExtraction:
    """Typed extraction from the script's JSON (pure: unit-testable without a browser)."""
    try:
        return PageExtraction(
            url=raw["url"],
            title=raw.get("title", ""),
            texts=tuple(PageText.model_validate(t) for t in raw.get("texts", ())),
            forms=tuple(_form(f) for f in raw.get("forms", ())),
        )
    except (KeyError, TypeError, ValidationError) as exc:
        raise FormError(f"unexpected extraction data: {exc}") from exc


def _form(raw: Mapping[str, Any]) -> ExtractedForm:
    fields = _fields(raw.get("fields", ()))
    boxes = [Box.model_validate(raw["box"])] if raw.get("box") else [f.box for f in fields]
    return ExtractedForm(
        index=raw["index"],
        selector=raw["selector"],
        virtual=bool(raw.get("virtual")),
        action=raw.get("action", ""),
        method=raw.get("method", "get") or "get",
        name=raw.get("name", ""),
        id=raw.get("id", ""),
        box=boxes[0].union(*boxes[1:]) if boxes else Box(x=0, y=0, width=0, height=0),
        fields=fields,
        submits=tuple(SubmitControl.model_validate({**s, "box": s.get("box") or _NOWHERE})
                      for s in raw.get("submits", ())),
        anchors=tuple(ScriptAnchor.model_validate(a) for a in raw.get("anchors", ())),
        challenge=tuple(raw.get("challenge", ())),
        hidden=bool(raw.get("hidden")),
        classes=raw.get("classes", "") or "",
        heading=raw.get("heading", "") or "",
        declared_action=raw.get("declared_action", "") or "",
    )


_NOWHERE = {"x": 0, "y": 0, "width": 0, "height": 0}  # a hidden control's box


def _box(raw: Any) -> Box:
    return Box.model_validate(raw or _NOWHERE)


_MARKUP_KEYS = frozenset(Markup.model_fields)


def _markup(raw: Mapping[str, Any], *, group_level: bool) -> Markup:
    """Field markup; for a radio/checkbox the legend goes to the group, labels to the option."""
    if group_level:
        return Markup(legend_ids=tuple(raw.get("legend_ids", ())), legend=raw.get("legend", ""))
    keep = {k: v for k, v in raw.items() if k in _MARKUP_KEYS}
    if raw.get("_option"):
        keep.pop("legend_ids", None)
        keep.pop("legend", None)
    return Markup.model_validate(keep)


def _fields(raws: Any) -> tuple[FormField, ...]:
    order: list[str | int] = []  # group key (checkables by name) or position
    groups: dict[str | int, list[Mapping[str, Any]]] = {}
    for i, raw in enumerate(raws):
        checkable = raw["type"] in ("radio", "checkbox")
        key: str | int = f"{raw['type']}:{raw['name']}" if checkable and raw["name"] else i
        if key not in groups:
            order.append(key)
            groups[key] = []
        groups[key].append(raw)

    taken: dict[str, int] = {}
    fields: list[FormField] = []
    for n, key in enumerate(order):
        members = groups[key]
        first = members[0]
        base = first["name"] or first["id"] or f"field{n}"
        taken[base] = taken.get(base, 0) + 1
        name = base if taken[base] == 1 else f"{base}#{taken[base]}"
        if first["type"] in ("radio", "checkbox"):
            options = tuple(
                FieldOption(
                    value=m["value"],
                    selected=bool(m.get("checked")),
                    disabled=bool(m.get("disabled")),
                    selector=m["selector"],
                    box=_box(m["box"]),
                    markup=_markup({**m["markup"], "_option": True}, group_level=False),
                )
                for m in members
            )
            boxes = [o.box for o in options if o.box is not None]
            fields.append(
                FormField(
                    name=name,
                    html_name=first["name"],
                    id=first["id"] if len(members) == 1 else "",
                    tag="input",
                    type=first["type"],
                    kind="bounded",
                    selector=first["selector"],
                    box=boxes[0].union(*boxes[1:]),
                    options=options,
                    multiple=first["type"] == "checkbox",
                    required=any(m.get("required") for m in members),
                    disabled=all(m.get("disabled") for m in members),
                    markup=_markup(first["markup"], group_level=True),
                    hidden=not any(m["box"] for m in members),
                )
            )
            continue
        bounded = first["tag"] == "select"
        fields.append(
            FormField(
                name=name,
                html_name=first["name"],
                id=first["id"],
                tag=first["tag"],
                type=first["type"],
                kind="bounded" if bounded else "unbounded",
                selector=first["selector"],
                box=_box(first["box"]),
                options=tuple(FieldOption.model_validate(o) for o in first.get("options", ())),
                multiple=bool(first.get("multiple")),
                required=bool(first.get("required")),
                disabled=bool(first.get("disabled")),
                markup=_markup(first["markup"], group_level=False),
                hidden=not first["box"],
            )
        )
    return tuple(fields)
