"""A choice the query leaves empty in a select filled only once another field is chosen.

A two-step form (choose an author, the page posts back and fills the tag list) shows the
dependent select with nothing but its placeholder ("----------") when the form is
analysed, and a query that names an author and no tag leaves it there, which a server may
answer with nothing. For a person an empty value means "any": this stage looks at what the
select offers once the query's own choices are made (in a page of its own, the way the
query will go), and

- takes the option that says any or all, where it has one;
- else runs the query once per option offered, at most ``max_options`` of them, each
  stored under the query it answers (the query with that option named).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from playwright.async_api import BrowserContext

import nseql
from deepbot.browser.failures import close_quietly, translated
from deepbot.errors import BrowserCrashedError, BrowserError
from deepbot.forms.answers import looks_like_no_results
from deepbot.forms.fill import ANY_CHOICE, FilledQuery, waiting_for_options
from deepbot.forms.models import FieldAnalysis, FormAnalysis

__all__ = ["Variant", "dependent_selects", "variants"]

log = logging.getLogger("deepbot.forms")

PROBE_TIMEOUT_MS = 10_000
_OPTIONS_JS = ("(el) => [...el.options].map((o) => [o.value, (o.label || o.textContent || '').trim(),"
               " o.selected])")


@dataclass(frozen=True)
class Variant:
    """One way to send a query: the steps after its fill, and what they add to the query."""

    steps: tuple[nseql.Step, ...] = ()
    adds: tuple[tuple[str, str], ...] = ()


AS_IS: tuple[Variant, ...] = (Variant(),)


def dependent_selects(form: FormAnalysis, filled: FilledQuery) -> list[FieldAnalysis]:
    """The selects the query leaves alone that had nothing to offer when the form was read."""
    return [f for f in form.fields if f.name not in filled.values and not f.hidden and waiting_for_options(f)]


async def variants(context: BrowserContext, program: str, form: FormAnalysis, filled: FilledQuery,
                   max_options: int, submit: str | None = None) -> tuple[tuple[Variant, ...], int]:
    """The ways to send the query (AS_IS when nothing is left empty), and how many options
    ``max_options`` left out. ``submit``: the first way to send the form; with it, a choice
    is required only when the form marks it so or the server answers the placeholder with
    nothing (else the placeholder means "any" to the server as well)."""
    pending = dependent_selects(form, filled)
    if not pending:
        return AS_IS, 0
    offered, nothing = await _offered(context, program, pending, submit)
    for field in pending:
        options = offered.get(field.selector, [])
        shown = next((o for o in options if o[2]), options[0] if options else None)
        real = [o for o in options if o[0].strip()]
        if shown is None or not real or ANY_CHOICE.match(shown[1]):
            continue  # nothing came, or it shows "any" already
        anything = next((o for o in real if ANY_CHOICE.match(o[1])), None)
        if anything is not None:
            return (Variant((nseql.Select(field.selector, anything[0], by="value"),)),), 0
        if submit is not None and not (field.required or nothing):
            continue  # the server reads the placeholder as "any"
        name = (field.texts or field.hints or (field.html_name or field.name,))[0]
        chosen = tuple(Variant((nseql.Select(field.selector, value, by="value"),), ((name, label),))
                       for value, label, _ in real[:max_options])
        return chosen, max(0, len(real) - max_options)
    return AS_IS, 0


async def _offered(context: BrowserContext, program: str, fields: Sequence[FieldAnalysis], submit: str | None
                   ) -> tuple[dict[str, list[tuple[str, str, bool]]], bool]:
    """Each field's options once ``program`` (the way to the form and the query's fill) ran,
    and whether the form, sent so (by ``submit``), found nothing;
    in a context of its own with the crawl's session, closed after (the crawl's own context
    closes any page it did not open, as it closes popups)."""
    if context.browser is None:
        return {}, False
    try:
        with translated("could not open a context to read options in", other=BrowserError):
            own = await context.browser.new_context(storage_state=await context.storage_state())
    except BrowserError as exc:
        log.debug("%s", exc)
        return {}, False
    try:
        with translated("could not open a page to read options in", other=BrowserError):
            page = await own.new_page()
        await nseql.run(nseql.parse(program), page, step_timeout_ms=PROBE_TIMEOUT_MS,
                        navigation_timeout_ms=PROBE_TIMEOUT_MS, load_timeout_ms=0)
        found: dict[str, list[tuple[str, str, bool]]] = {}
        for field in fields:
            with translated(f"could not read the options of {field.name}", other=BrowserError):
                raw = await nseql.locate(page, field.selector).evaluate(_OPTIONS_JS, timeout=PROBE_TIMEOUT_MS)
            found[field.selector] = [(str(v), str(label), bool(s)) for v, label, s in raw]
        if submit is None:
            return found, False
        await nseql.run(nseql.parse(submit), page, step_timeout_ms=PROBE_TIMEOUT_MS,
                        navigation_timeout_ms=PROBE_TIMEOUT_MS, load_timeout_ms=0)
        with translated("could not read the answer", other=BrowserError):
            answer = await page.evaluate("() => document.body ? document.body.innerText : ''")
        return found, looks_like_no_results(str(answer))
    except BrowserCrashedError:
        raise
    except (nseql.NseqlError, BrowserError) as exc:  # the query goes as it is
        log.debug("the options of %s could not be read: %s", [f.name for f in fields], exc)
        return {}, False
    finally:
        await close_quietly(own)
