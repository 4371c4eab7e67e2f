"""What reaches Python while a route runs: not every subresource of every page.

Any request or response listener on a page makes Playwright send Python every
request the page makes (four messages each, kept until the context closes), and
real pages load dozens of scripts and style sheets. The navigation tracker listens
to none (nseql.navigation), and the fetches a page makes are counted in the page
(deepbot/browser/fetches.js), not by listening.
"""

from __future__ import annotations

import collections
from typing import Any

import pytest

try:  # where Playwright's client receives each message from its driver
    from playwright._impl.connection import Connection
except ImportError:  # pragma: no cover - upstream's module name
    from playwright._impl._connection import Connection  # type: ignore[no-redef]

import nseql
from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.routes import Route, SessionState, Via, page_identity
from deepbot.routes.sequences import append_steps, click_step, navigate_step
from fixtures.server import FixtureServer

pytestmark = pytest.mark.browser


def _count_requests(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """Request objects Playwright creates in this process from now on, by URL path.

    Counted where Python receives them (``Connection.dispatch``): the cost itself,
    not a listener's view of it."""
    created: collections.Counter[str] = collections.Counter()
    original = Connection.dispatch

    def dispatch(self: Connection, msg: dict[str, Any]) -> None:
        params = msg.get("params") or {}
        if msg.get("method") == "__create__" and params.get("type") == "Request":
            url = params.get("initializer", {}).get("url", "")
            created["/" + url.split("/", 3)[-1].split("?")[0]] += 1
        original(self, msg)

    monkeypatch.setattr(Connection, "dispatch", dispatch)
    return created


def _libs(created: collections.Counter[str]) -> int:
    return sum(n for path, n in created.items() if path.startswith("/lab/libs/lib-"))


async def test_routes_that_act_do_not_follow_every_subresource(
        site: FixtureServer, monkeypatch: pytest.MonkeyPatch) -> None:
    url = site.url("/lab/libs/")
    identity = page_identity(url, "")
    go = navigate_step(url)
    routes = {
        "link": Route(key="link", url=url, via=Via.LINK, steps=go, program=go),
        "click": Route(key="click", url=url, via=Via.SCRIPT, steps=append_steps(go, click_step("#libs-next")),
                       program=go, acts_on=identity),
        "more": Route(key="more", url=url, via=Via.SCRIPT, steps=append_steps(go, click_step("#libs-more")),
                      program=go, acts_on=identity),
        "form": Route(key="form", url=url, via=Via.FORM, steps=append_steps(go, 'fill "#libs-q" "dune"'),
                      program=go, acts_on=identity, submit=('click "#libs-search button"',)),
        # Its results page is a shell that fetches the results once loaded.
        "app": Route(key="app", url=url, via=Via.FORM, steps=append_steps(go, 'fill "#libs-app-q" "dune"'),
                     program=go, acts_on=identity, submit=('click "#libs-app button"',)),
        # The same shell reached by a link.
        "shell": Route(key="shell", url=site.url("/lab/libs/app?q=dune"), via=Via.LINK,
                       steps=navigate_step(site.url("/lab/libs/app?q=dune")),
                       program=navigate_step(site.url("/lab/libs/app?q=dune"))),
    }
    seen: dict[str, collections.Counter[str]] = {}
    texts: dict[str, str] = {}
    fetched_before = site.hits_for("/lab/libs/more.json")
    async with BrowserPool(1, BrowserSettings()) as pool:
        for name, route in routes.items():
            async with pool.slot() as slot:
                created = _count_requests(monkeypatch)
                # (no "Load more" rounds in the harvest: each route makes its one fetch)
                snapshot = await visit(route, SessionState(), slot, VisitOptions(max_scrolls=0))
                monkeypatch.undo()
            seen[name], texts[name] = created, snapshot.text
            assert snapshot.status == 200, name
    # What each route was for, all reached.
    assert "Next page" in texts["click"] and "Results for dune" in texts["form"]
    # The fetches a page made had to be waited for, on the page (an in-place update) or on
    # the page an action or a link led to (a results shell): each page was captured once
    # its fetch was answered, not with its placeholder...
    for name in ("more", "app", "shell"):
        assert "Third item" in texts[name] and "Loading" not in texts[name], (name, texts[name])
    # ...and no request of any page reached Python but the documents: not the libraries,
    # not even the fetches waited for.
    for name, created in seen.items():
        assert _libs(created) == 0 and created["/lab/libs/more.json"] == 0, (name, dict(created))
    assert site.hits_for("/lab/libs/more.json") - fetched_before == 3


async def test_following_a_run_s_navigations_costs_no_request(
        site: FixtureServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """NSEQL runs that click, submit, go back and wait for navigations see how each
    ended (status, failure) without a single request of the pages reaching Python."""
    url = site.url("/lab/libs/")
    program = nseql.parse(f'navigate "{url}"\nclick "#libs-next"\nback\nfill "#libs-q" "dune"\n'
                          'submit "#libs-search"\n')
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        created = _count_requests(monkeypatch)
        result = await nseql.run(program, slot.page)
    assert (result.final_url, result.status) == (site.url("/lab/libs/results?q=dune"), 200)
    # Only the documents themselves (the first twice: back loads it again).
    assert created == {"/lab/libs/": 2, "/lab/libs/next": 1, "/lab/libs/results": 1}, dict(created)
