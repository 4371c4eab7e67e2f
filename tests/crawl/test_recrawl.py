"""A recrawl of the archive fixture (fixtures/sites/archive.py) after it changed reports
exactly what changed: the new record behind the form, the edited page and the result list
that changed, the removed page and the withdrawn record; not the clock."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest

from deepbot.cli import main
from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.crawl.recrawl import RecrawlReport, recrawl
from deepbot.frontier import SqliteRouteStore
from deepbot.policy.revisit import history_of
from deepbot.store import Change, SqliteDocumentStore
from fixtures.server import FixtureServer
from fixtures.sites.archive import LAST_MODIFIED, PAGES, Archive

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300), pytest.mark.xdist_group("recrawl")]


@dataclass
class Recrawled:
    site: FixtureServer
    archive: Archive
    store: Path
    first: int  # documents the crawl stored
    report: RecrawlReport


def _config(site: FixtureServer, store: Path) -> CrawlConfig:
    return CrawlConfig(seeds=(site.url("/archive/"),), domains=(Path("domains/books.yaml"),),
                       include=("^" + re.escape(site.url("/archive/")),), store=store, workers=2, depth=3,
                       settle_timeout=2.0)


async def _crawl(config: CrawlConfig) -> int:
    async with Crawler(config) as crawler:
        return len([doc async for doc in crawler.run()])


async def _recrawl(config: CrawlConfig) -> RecrawlReport:
    with SqliteRouteStore(config.store) as frontier, SqliteDocumentStore(config.store) as documents:
        return await recrawl(config, frontier, documents)


@pytest.fixture(scope="module")
def recrawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recrawled]:
    archive = Archive()
    store = tmp_path_factory.mktemp("recrawl") / "archive.sqlite"
    with FixtureServer(options={"archive": archive}) as site:
        config = _config(site, store)
        first = asyncio.run(_crawl(config))
        archive.change()
        yield Recrawled(site, archive, store, first, asyncio.run(_recrawl(config)))


def test_a_recrawl_reports_exactly_what_changed(recrawled: Recrawled) -> None:
    url, report = recrawled.site.url, recrawled.report
    assert report.of(Change.NEW) == [url("/archive/book/6")]
    java = url("/archive/results?title=java&author=&isbn=")  # the results that list the new book
    assert report.of(Change.CHANGED) == [url("/archive/news"), java]
    # Removed (404), and withdrawn: its page still answers, but the results no longer list it.
    assert report.of(Change.GONE) == [url("/archive/book/2"), url("/archive/page/3")]
    assert url("/archive/clock") in report.of(Change.UNCHANGED)  # its clock and token are no change
    assert report.chosen == recrawled.first and report.failed == 0
    assert len(report.of(Change.UNCHANGED)) == recrawled.first - 4  # all but the changed and the gone
    # Every static page but the edited and the removed one answered 304, the withdrawn book's
    # too (the listing says it is gone): reading lists, home, search page, books 1 to 5.
    assert report.not_modified == (PAGES - 1) + 1 + 1 + 5


def test_the_store_keeps_the_history(recrawled: Recrawled) -> None:
    url = recrawled.site.url
    with SqliteDocumentStore(recrawled.store, create=False) as store:
        docs = {doc.final_url: doc for doc in store.iter_documents(html=False)}
        assert url("/archive/book/2") not in docs and url("/archive/page/3") not in docs
        news = docs[url("/archive/news")]
        assert "Saturdays" in news.text
        earlier = store.versions(news.id)
        assert ["The reading room opens at nine on weekdays." in v.text for v in earlier] == [True]
        changes = [v.change for v in store.visits(doc_id=news.id)]
        assert changes == [Change.NEW, Change.CHANGED]
        gone = {v.url for v in store.visits() if v.change is Change.GONE}
        assert gone == {url("/archive/book/2"), url("/archive/page/3")}


def test_the_visits_record_the_last_modified_the_server_sent(recrawled: Recrawled) -> None:
    url = recrawled.site.url
    sent = parsedate_to_datetime(LAST_MODIFIED)
    with SqliteDocumentStore(recrawled.store, create=False) as store:
        by_url = {v.url: v.doc_id for v in store.visits()}
        news = list(store.visits(doc_id=by_url[url("/archive/news")]))[:2]
        assert [(v.change, v.last_modified) for v in news] == [(Change.NEW, sent), (Change.CHANGED, sent)]
        clock = list(store.visits(doc_id=by_url[url("/archive/clock")]))  # sends no validators
        assert clock and all(v.last_modified is None for v in clock)
    # The archive's Last-Modified stays put while the news changed: it dates no change, so
    # the news page's rate comes from the changes alone.
    assert history_of(news).since_change == ()


def test_a_recrawl_of_the_unchanged_site_reports_nothing_and_skips_the_browser_where_it_can(
        recrawled: Recrawled, capsys: pytest.CaptureFixture[str]) -> None:
    hits = recrawled.archive.hits
    hits.clear()
    assert main(["recrawl", "--store", str(recrawled.store), "--json", "--quiet"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["documents"] == {"new": [], "changed": [], "gone": []}
    assert said["counts"]["unchanged"] == said["chosen"] == recrawled.first - 1  # the gone are not revisited
    # The static pages: one conditional request each, and 304; the browser saw only the
    # three queries' form page and results, and the clock.
    assert hits["304"] == said["not_modified"] == (PAGES - 1) + 1 + 1 + 1 + 5  # news too; books 1 3 4 5 6
    assert (hits["page"], hits["results"], hits["clock"]) == (3, 3, 1)
