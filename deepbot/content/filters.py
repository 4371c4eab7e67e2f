"""The relevance chain: does a visited document get stored and indexed?

Each filter looks at a :class:`~deepbot.routes.Document` and returns a
:class:`Decision`; the chain returns the first rejection, else an acceptance. A
rejected page is still post-processed (its links and forms lead on); it is just not
kept. ``Decision.reason`` is a short stable code for stats to count; ``detail`` is
for people (which pattern, which type).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from deepbot.errors import ConfigError
from deepbot.routes import Document
from deepbot.text.query import KeywordQuery

ACCEPTED = "accepted"
QUERY_MISMATCH = "query-mismatch"
URL_EXCLUDED = "url-excluded"
URL_NOT_INCLUDED = "url-not-included"
CONTENT_TYPE_REJECTED = "content-type-rejected"
NOINDEX = "noindex"  # the page asked robots not to keep it (crawl/directives.py)


@dataclass(frozen=True, slots=True)
class Decision:
    keep: bool
    reason: str  # a stable code, e.g. "accepted", "query-mismatch"
    detail: str = ""  # for people: the pattern or value behind the reason


ACCEPT = Decision(True, ACCEPTED)


class RelevanceFilter(Protocol):
    @property
    def name(self) -> str: ...

    def decide(self, doc: Document) -> Decision: ...


class KeywordFilter:
    """Keeps documents whose title or text satisfies a boolean keyword query."""

    name = "keywords"

    def __init__(self, query: str) -> None:
        self.query = KeywordQuery(query)  # a syntax error surfaces here, at configuration time

    def decide(self, doc: Document) -> Decision:
        if self.query.matches(f"{doc.title}\n{doc.text}"):
            return ACCEPT
        return Decision(False, QUERY_MISMATCH, self.query.text)


def _compile(patterns: Sequence[str], what: str) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise ConfigError(f"invalid {what} regex {pattern!r}: {exc}") from None
    return tuple(compiled)


class UrlFilter:
    """Exclude patterns win; with include patterns, the URL must match one of them.

    Patterns are searched (not anchored) in the final URL, where the browser ended up.
    """

    name = "url"

    def __init__(self, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> None:
        self.include = _compile(include, "include")
        self.exclude = _compile(exclude, "exclude")

    def decide(self, doc: Document) -> Decision:
        url = doc.final_url or doc.url
        for pattern in self.exclude:
            if pattern.search(url):
                return Decision(False, URL_EXCLUDED, pattern.pattern)
        if self.include and not any(p.search(url) for p in self.include):
            return Decision(False, URL_NOT_INCLUDED, url)
        return ACCEPT


class ContentTypeFilter:
    """Keeps documents whose media type matches a pattern.

    A pattern is a media type (``text/html``), or a prefix ending in ``/`` or ``*``
    (``text/``, ``text/*``, ``application/vnd.*``); ``*`` and ``*/*`` allow all.
    """

    name = "content-type"

    def __init__(self, allow: Sequence[str]) -> None:
        if not allow:
            raise ConfigError("content-type filter: give at least one media type to allow")
        self.exact = frozenset(p.strip().lower() for p in allow if not p.strip().endswith(("/", "*")))
        self.prefixes = tuple(
            p.strip().lower().rstrip("*").replace("*/", "") for p in allow if p.strip().endswith(("/", "*"))
        )

    def decide(self, doc: Document) -> Decision:
        media = doc.content_type.split(";", 1)[0].strip().lower()
        if media in self.exact or media.startswith(self.prefixes):
            return ACCEPT
        return Decision(False, CONTENT_TYPE_REJECTED, media or "(none)")


class RelevanceChain:
    """Runs filters in order; the first rejection wins."""

    def __init__(self, filters: Sequence[RelevanceFilter] = ()) -> None:
        self.filters = tuple(filters)

    def decide(self, doc: Document) -> Decision:
        for f in self.filters:
            decision = f.decide(doc)
            if not decision.keep:
                return decision
        return ACCEPT


def relevance_chain(
    *,
    query: str | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    content_types: Sequence[str] = (),
) -> RelevanceChain:
    """The chain a crawl config asks for; filters with nothing to do are left out.

    Cheap filters run first so most rejections never scan the text.
    """
    filters: list[RelevanceFilter] = []
    if content_types:
        filters.append(ContentTypeFilter(content_types))
    if include or exclude:
        filters.append(UrlFilter(include, exclude))
    if query and query.strip():
        filters.append(KeywordFilter(query))
    return RelevanceChain(filters)
