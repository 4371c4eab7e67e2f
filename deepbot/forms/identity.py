"""What a form is, wherever it shows: so a crawl analyses and queries each form once.

A site's search form sits in its header on every page, results pages included, at as
many URLs as there are pages. A form is identified by what it sends and where:

- its target: the action URL as the browser resolves it, its ids generalised
  (``/record/1234`` → ``/record/{n}``); a GET form's action without its query, which
  the submission replaces; a form without an action attribute submits to its page, so
  that is its target, and so it is for fields outside any form (a script's panel);
- its method;
- its fields: each one's name (or, without one, its id) and type, hidden fields
  included (but those that sort, size or page a listing), values and options left out
  (a results page fills the box and may offer other options). Buttons are left out: a
  results page may add a "Refine" one.

Read in one page evaluation (``identity.js``) before any analysis, so a page whose forms
are all known costs no analysis at all.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from playwright.async_api import Page

from deepbot.browser.failures import translated
from deepbot.errors import FormError
from deepbot.routes import ORDERING_PARAM, PAGE_PARAM, canonical_url

__all__ = ["PageForms", "form_identity", "page_forms", "read_forms", "url_pattern"]

# A path segment that is an id as a whole: a UUID or a long hex digest.
_HEX_ID = re.compile(r"[0-9a-f]{8}(?:-?[0-9a-f]{4}){3}-?[0-9a-f]{12}|[0-9a-f]{16,}", re.I)
_DIGITS = re.compile(r"\d+")


def _generic(segment: str) -> str:
    """A path segment with its ids generalised: numbers become ``{n}``, a hex id ``{id}``."""
    segment = unquote(segment)
    if _HEX_ID.fullmatch(segment) and any(c.isdigit() for c in segment):
        return "{id}"
    return _DIGITS.sub("{n}", segment)


def url_pattern(url: str, *, query: bool = True) -> str:
    """The kind of page a URL names: scheme, host, path with its ids generalised, and the
    names (not the values) of its query parameters (none with ``query=False``); a
    single-page app's hash route is a path too."""
    parts = urlsplit(canonical_url(url))
    path = "/".join(_generic(segment) for segment in parts.path.split("/"))
    names = sorted({name for name, _ in parse_qsl(parts.query, keep_blank_values=True)}) if query else []
    route = "/".join(_generic(segment) for segment in parts.fragment.split("/")) if parts.fragment else ""
    return f"{parts.scheme}://{parts.netloc}{path}" + ("?" + "&".join(names) if names else "") + (
        "#" + route if route else "")


def form_identity(target: str, method: str, fields: Iterable[tuple[str, str, str]] = ()) -> str:
    """A form's identity: ``target`` is its action as resolved (or its page's URL, for one
    that has none), ``method`` ``get``, ``post`` or ``virtual`` (fields outside any form),
    ``fields`` (name, id, type) each."""
    # The query of a GET form's action is replaced by its fields when it is sent; a POST
    # form's, and a page's (the target of a virtual form), names what is sent to.
    where = url_pattern(target, query=method != "get")
    # A hidden field that orders or pages the listing the form is on (Flask-Admin's sort,
    # page_size) is the same form on every sort order's page.
    names = sorted({f"{name or _DIGITS.sub('{n}', id_)}:{type_}" for name, id_, type_ in fields
                    if not (type_ == "hidden" and (ORDERING_PARAM.match(name) or PAGE_PARAM.match(name)))})
    text = "\n".join([method, where, *names])
    return "form:" + hashlib.sha1(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class PageForms:
    """The identities of a page's forms, in the Form Analyzer's order."""

    forms: tuple[str, ...]  # each <form>: document.forms, then those in shadow roots
    virtual: str | None = None  # the fields outside every form, when a text field is among them

    def of(self, index: int, *, virtual: int | None = None) -> str | None:
        """The identity of form ``index`` (its FormAnalysis.form_index), or of the
        ``virtual``-th virtual form; None if the page did not show it when read."""
        if virtual is not None:
            return f"{self.virtual}#{virtual}" if self.virtual is not None else None
        return self.forms[index] if index < len(self.forms) else None

    @property
    def all(self) -> tuple[str, ...]:
        return (*self.forms, *((self.virtual,) if self.virtual is not None else ()))


def page_forms(raw: dict[str, Any]) -> PageForms:
    """The identities of what ``identity.js`` read (pure: testable without a browser)."""
    def fields(found: Any) -> list[tuple[str, str, str]]:
        return [(str(name), str(id_), str(type_)) for name, id_, type_ in found]

    forms = tuple(form_identity(str(form["action"]), str(form["method"]), fields(form["fields"]))
                  for form in raw["forms"])
    loose = raw.get("loose")
    virtual = form_identity(str(raw["url"]), "virtual", fields(loose)) if loose is not None else None
    return PageForms(forms, virtual)


@cache
def _script() -> str:
    return resources.files("deepbot.forms").joinpath("identity.js").read_text(encoding="utf-8")


async def read_forms(page: Page) -> PageForms:
    """The identities of the forms ``page`` shows, in one round trip."""
    with translated(f"could not read the forms of {page.url}", other=FormError):
        raw = await page.evaluate(_script())
    try:
        return page_forms(raw)
    except (KeyError, TypeError, ValueError) as exc:
        raise FormError(f"unexpected form identities from {page.url}: {exc}") from exc
