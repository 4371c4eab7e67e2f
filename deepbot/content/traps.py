"""Calendar-like chains: links that only move a number or a date in their page's URL.

A calendar's "next month" (``/calendar/2026/11`` → ``/calendar/2026/12`` →
``/calendar/2027/01``), a day view's "next day" (``?date=20261127``), a week's
(``/events/week/48``), an archive's ``?page=N``: the server answers any value, so the
links never end. As Heritrix and Nutch bound such paths, DeepBot follows a chain of such
steps a few links long (``CrawlConfig.max_calendar_steps``), and along one number only.
The test is on the URL's shape alone, not on words such as "calendar": the same URL with
its numbers (and month names) masked, and a different number somewhere. Pure functions,
no browser.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import urlsplit, urlunsplit

# A number, or a month's name or its abbreviation standing alone ("/events/november-2026").
_MOVING = re.compile(
    r"\d+|(?<![a-z])(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?![a-z])", re.I)


@lru_cache(maxsize=4_096)  # a page's URL is compared with each of its new links
def shape(url: str) -> tuple[str, tuple[str, ...]]:
    """The URL with its numbers and month names masked (its scheme and host kept as they
    are: a port or an address is no counter), and those numbers and names in order."""
    parts = urlsplit(url)
    rest = urlunsplit(("", "", parts.path, parts.query, parts.fragment))
    tokens = tuple(m.group().lower() for m in _MOVING.finditer(rest))
    return f"{parts.scheme}://{parts.netloc}{_MOVING.sub('#', rest)}", tokens


def moved(page_url: str, url: str) -> int | None:
    """Which number ``url`` moves of ``page_url``'s when it is that URL with only numbers or
    dates moved (the same shape, other values): the position of the last that differs, so
    December 2026 → January 2027 moves the month as November → December does. None when it
    is no such step. Both canonical (routes.canonical_url: the query's order does not count)."""
    template, values = shape(page_url)
    other, values_there = shape(url)
    if not values or template != other or values == values_there:
        return None
    return max(n for n, (a, b) in enumerate(zip(values, values_there, strict=True)) if a != b)


def moves_a_number(page_url: str, url: str) -> bool:
    """Whether ``url`` is ``page_url`` with only a number or a date moved."""
    return moved(page_url, url) is not None


def has_numbers(url: str) -> bool:
    """Whether the URL carries a number or a month name a chain could move."""
    return bool(shape(url)[1])


# Chain.axis of a query's results page reached along its pager: no step, since the pager
# has its own bound (max_result_pages), and the page's own "Next" pages the results too.
RESULTS = -2


class Chain(NamedTuple):
    """Where a route stands on a calendar-like chain (Route.chain, Route.chain_axis)."""

    steps: int = 0  # links in a row that only moved a number or a date
    # which number the last of them moved (moved()); -1: the last link was no step;
    # RESULTS: it was a query's results pager
    axis: int = -1
    turned: bool = False  # the last link moved another number than the step before it


def stays(page_url: str, url: str) -> bool:
    """Whether a results pager's link stays with the results: the same path, one under it
    (``/search/java`` → ``/search/java/page/2``; ``/?s=java`` → ``/page/2/?s=java``), or
    the page's URL with a number moved (``…/page/2`` → ``…/page/3``). A calendar beside the
    results whose "Next month ›" reads as a pager goes elsewhere (``/calendar/2026/12``)."""
    here, there = urlsplit(page_url).path, urlsplit(url).path
    return there == here or there.startswith(here.rstrip("/") + "/") or moves_a_number(page_url, url)


def chain_step(parent: Chain, page_url: str, url: str, *, results_pager: bool = False) -> Chain:
    """Where the page ``url`` stands on a calendar-like chain, linked from the page at
    ``page_url`` whose route stood at ``parent``.

    A link that only moves a number of its page's URL is one more step. On a page a step
    led to, one that moves another number has turned: a "next year" beside the "next
    month" that led here (a crawl bounds those: followed, they walk across a calendar,
    every month within so many month-or-year links, 221 for 10, not along it). A link
    elsewhere to a URL with numbers keeps the count: a calendar's day views (another
    shape) link to their month again and step on from there, and a detour through them
    must not start a new chain. A link to a URL without any (the site's "About", a
    calendar's "Today") ends it. ``results_pager``: the link reads as the pager of the
    query's results ``page_url`` shows; where it stays with them (stays()) it is no step,
    the pager having its own bound (max_result_pages), and the count stays as it is.
    """
    if results_pager and stays(page_url, url):
        return Chain(parent.steps, RESULTS)
    axis = moved(page_url, url)
    if axis is not None:
        return Chain(parent.steps + 1, axis, turned=parent.axis >= 0 and axis != parent.axis)
    return Chain(parent.steps if has_numbers(url) else 0)
