"""A page that navigates by itself gets its host no more requests than the
crawl's politeness allows: each of its own navigations waits for the host's delay, and a
route's page fetches at most ``max_self_navigations`` documents by itself, in the route
and after it (the tab stays open, its timers running, until the next route)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time

import pytest

from deepbot.browser.pool import BrowserPool
from deepbot.crawl.politeness import Politeness
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.errors import DeepBotError
from deepbot.routes import Route, SessionState, Via
from deepbot.routes.sequences import navigate_step
from tests.hostile.conftest import Hostile, html

pytestmark = [pytest.mark.browser, pytest.mark.timeout(60)]

_PAGES = {
    "/reload": "<script>setTimeout(() => location.reload(), 100)</script>",
    "/refresh": '<meta http-equiv="refresh" content="0">',
    "/relocate": "<script>setInterval(() => { location = '/relocate?' + Date.now() }, 100)</script>",
}


@pytest.mark.parametrize("path", sorted(_PAGES))
async def test_a_page_that_navigates_itself_gets_no_more_than_the_politeness_rate(
        hostile: Hostile, path: str) -> None:
    times: list[float] = []
    hostile.routes[path] = html("<h1>again</h1>", head=_PAGES[path], hits=times)
    url = hostile.url(path)
    steps = navigate_step(url)
    route = Route(key=path, url=url, via=Via.LINK, steps=steps, program=steps)
    politeness = Politeness(min_delay=0.4)
    options = VisitOptions(max_scrolls=0, max_self_navigations=3)
    async with BrowserPool(1) as pool, pool.slot() as slot:
        async with politeness.slot(url):
            granted = time.monotonic()  # the route's start, for politeness: its own request follows
            # A page that never stays may not be readable: the requests are what is measured.
            with contextlib.suppress(DeepBotError):
                await visit(route, SessionState(), slot, options, pace=politeness.turn)
        await asyncio.sleep(2.0)  # the tab stays open between routes, its timer still running
    # The route's own request, then at most 3 of the page's own, each 0.4 s after the one
    # before, in the route and in the 2 s after it (unbounded: ~10 a second, 40 or more).
    assert 1 <= len(times) <= 1 + options.max_self_navigations, len(times)
    gaps = [b - a for a, b in itertools.pairwise([granted, *times[1:]])]
    assert all(gap >= 0.35 for gap in gaps), gaps

