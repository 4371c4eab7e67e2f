"""Calendar-like chains: links that only move a number or a date in their page's URL.

A calendar's "next month" (``/calendar/2026/11`` → ``/calendar/2026/12`` →
``/calendar/2027/01``), a day view's "next day" (``?date=20261127``), a week's
(``/events/week/48``), an archive's ``?page=N``: the server answers any value, so the
links never end. As Heritrix and Nutch bound such paths, DeepBot follows a chain of such
steps a few links long (``CrawlConfig.max_calendar_steps``). The test is on the URL's
shape alone, not on words such as "calendar": the same URL with its numbers (and month
names) masked, and a different number somewhere. Pure functions, no browser.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

# A number, or a month's name or its abbreviation standing alone ("/events/november-2026").
_MOVING = re.compile(
    r"\d+|(?<![a-z])(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?![a-z])", re.I)


def shape(url: str) -> tuple[str, tuple[str, ...]]:
    """The URL with its numbers and month names masked (its scheme and host kept as they
    are: a port or an address is no counter), and those numbers and names in order."""
    parts = urlsplit(url)
    rest = urlunsplit(("", "", parts.path, parts.query, parts.fragment))
    tokens = tuple(m.group().lower() for m in _MOVING.finditer(rest))
    return f"{parts.scheme}://{parts.netloc}{_MOVING.sub('#', rest)}", tokens


def moves_a_number(page_url: str, url: str) -> bool:
    """Whether ``url`` is ``page_url`` with only a number or a date moved: the same shape,
    other values. Both canonical (routes.canonical_url: the query's order does not count)."""
    template, values = shape(page_url)
    other, moved = shape(url)
    return bool(values) and template == other and values != moved


def has_numbers(url: str) -> bool:
    """Whether the URL carries a number or a month name a chain could move."""
    return bool(shape(url)[1])


def chain_step(parent_chain: int, page_url: str, url: str, *, results_pager: bool = False) -> int:
    """How long a calendar-like chain is at the page ``url``, linked from the page at
    ``page_url`` whose route's chain was ``parent_chain``.

    A link that only moves a number of its page's URL is one more step. A link elsewhere
    to a URL with numbers keeps the count: a calendar's day views (another shape) link to
    their month again and step on from there, and a detour through them must not start a
    new chain. A link to a URL without any (the site's "About", a calendar's "Today")
    ends it. ``results_pager``: the step is a query's results pager, which has its own
    bound (max_result_pages): it keeps the count as it is.
    """
    if results_pager:
        return parent_chain
    if moves_a_number(page_url, url):
        return parent_chain + 1
    return parent_chain if has_numbers(url) else 0
