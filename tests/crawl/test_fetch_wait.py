"""Pages that draw their content by fetch/XHR after they load are read once it has come.

The mini-browser's init script (deepbot/browser/fetches.js) counts each document's
unanswered fetch() and XMLHttpRequest calls; visit() waits on that count, bounded,
with no request listener in Python. These tests check what is captured, that the
page's own use of fetch and XHR is unchanged, and that what never ends is bounded.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.crawl.engine import Crawler
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.routes import PageSnapshot, Route, SessionState, Via, page_identity
from deepbot.routes.sequences import append_steps, click_step, navigate_step
from fixtures.server import FixtureServer
from fixtures.sites import lab
from tests.crawl.conftest import lab_config

pytestmark = pytest.mark.browser

_OPTIONS = VisitOptions(fetch_wait_ms=1_000, settle_timeout_ms=2_000)


async def _visit(route: Route, options: VisitOptions = _OPTIONS) -> PageSnapshot:
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        return await visit(route, SessionState(), slot, options)


def _link(url: str) -> Route:
    go = navigate_step(url)
    return Route(key=url, url=url, via=Via.LINK, steps=go, program=go)


async def test_a_page_drawn_by_xhr_then_fetch_is_read_once_both_came(site: FixtureServer) -> None:
    # two requests of 0.2 s one after the other: a bound well above, which a settled page ends
    snapshot = await _visit(_link(site.url("/lab/spa/")),
                            VisitOptions(fetch_wait_ms=5_000, settle_timeout_ms=5_000))
    # The list came by XMLHttpRequest, then its first book's details by fetch(), started
    # in the first answer's handler: both drawn, neither placeholder left.
    assert "Solaris" in snapshot.text and lab.SPA_SUMMARY in snapshot.text, snapshot.text
    assert "Loading" not in snapshot.text and snapshot.settled
    assert lab.SPA_SUMMARY in snapshot.html


@pytest.fixture
def gated_spa() -> Iterator[tuple[FixtureServer, threading.Event]]:
    """The lab, whose SPA list is answered only once the event is set: a page read
    without waiting is read before it, however slow the machine."""
    gate = threading.Event()
    with FixtureServer(options={"lab_spa_gate": gate}) as server:
        try:
            yield server, gate
        finally:
            gate.set()


async def test_without_waiting_the_placeholder_is_what_a_reader_gets(
        gated_spa: tuple[FixtureServer, threading.Event]) -> None:
    """The control: with the wait off, the same page is read with its placeholder."""
    site, gate = gated_spa
    snapshot = await _visit(_link(site.url("/lab/spa/")), VisitOptions(fetch_wait_ms=0))
    gate.set()
    assert "Loading the catalogue" in snapshot.text and "Solaris" not in snapshot.text


async def test_a_request_that_never_ends_is_waited_for_a_bounded_time(site: FixtureServer) -> None:
    # ?live=1 opens a long poll that stays unanswered: the page is read at the bound,
    # with what it had drawn by then, and marked unsettled.
    snapshot = await _visit(_link(site.url("/lab/spa/?live=1")))
    assert snapshot.status == 200 and not snapshot.settled
    assert "Solaris" in snapshot.text and lab.SPA_SUMMARY in snapshot.text


async def test_a_click_waits_for_the_fetches_it_made_not_for_older_ones(site: FixtureServer) -> None:
    # The long poll was opened before the click: only what the click started counts.
    url = site.url("/lab/spa/?live=1")
    go = navigate_step(url)
    route = Route(key="refresh", url=url, via=Via.SCRIPT, steps=append_steps(go, click_step("#spa-refresh")),
                  program=go, acts_on=page_identity(url, ""))
    snapshot = await _visit(route)
    assert "A refreshed arrival" in snapshot.text and "Refreshing" not in snapshot.text, snapshot.text
    assert snapshot.settled


async def test_the_page_s_fetch_and_xhr_behave_as_before(site: FixtureServer) -> None:
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        await slot.page.goto(site.url("/lab/"))
        result = await slot.page.evaluate("""async (dead) => {
          const books = await (await fetch('/lab/spa/books.json')).json();
          const text = await fetch('/lab/text.txt').then((r) => r.text());
          let refused = '';
          try { await fetch(dead); } catch (error) { refused = error.name; }
          const xhr = new XMLHttpRequest();
          xhr.open('GET', '/lab/data.json', false);  // synchronous, as old pages do
          xhr.send();
          let misuse = '';
          try { new XMLHttpRequest().send(); } catch (error) { misuse = error.name; }
          return { books: books.length, text: text.length > 0, refused, sync: xhr.status, misuse,
                   name: fetch.name, sendName: XMLHttpRequest.prototype.send.name,
                   pending: window.__deepbotNet.pending.size };
        }""", "http://127.0.0.1:9/")
    assert result == {"books": 2, "text": True, "refused": "TypeError", "sync": 200,
                      "misuse": "InvalidStateError", "name": "fetch", "sendName": "send", "pending": 0}


@pytest.mark.parametrize("fetch_wait", [2.0, 0.0])
async def test_a_crawl_stores_the_page_as_drawn_by_its_fetches(
        gated_spa: tuple[FixtureServer, threading.Event], tmp_path: Path, fetch_wait: float) -> None:
    site, gate = gated_spa
    if fetch_wait:  # the list comes as it would; without waiting it must not come before the read
        gate.set()
    config = lab_config(site, tmp_path / "store.sqlite", seeds=(site.url("/lab/spa/"),), depth=0,
                        fetch_wait=fetch_wait)
    async with Crawler(config) as crawler:
        (document,) = [doc async for doc in crawler.run()]
    gate.set()
    if fetch_wait:
        assert lab.SPA_SUMMARY in document.text and "Loading" not in document.text
    else:  # the crawl's setting reaches the page: off, the placeholder is what is stored
        assert "Loading the catalogue" in document.text
