"""A domain crawl explores a host by links only so far past the last relevant form it found
there (crawl.discovery): the queries' records come without the rest of the site.

The fixture (fixtures/sites/stacks.py) is a catalogue whose search form is on its front
page, beside a browse section that links to all 240 books within the depth; the domain's
queries want about 80 of them."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.discovery import EXPLORED
from deepbot.crawl.engine import Crawler
from deepbot.crawl.runner import summary
from deepbot.routes import Document
from fixtures.server import FixtureServer
from fixtures.sites import stacks

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

# books.yaml's queries; the form has no format box, so {title: xml, format: paperback} is
# sent as its title alone.
QUERIES = ({"title": "java"}, {"title": "xml"}, {"author": "knuth"})


def _config(site: FixtureServer, store: Path, **overrides: object) -> CrawlConfig:
    values: dict[str, object] = {
        "seeds": (site.url("/stacks/"),), "domains": (Path("domains/books.yaml"),), "store": store,
        "workers": 2, "depth": 3, "settle_timeout": 2.0, "obey_robots": False}
    return CrawlConfig.model_validate(values | overrides)


def _pages(site: FixtureServer) -> list[str]:
    return [path for method, path in site.hits if path.startswith("/stacks/")]


def _stored_books(documents: list[Document]) -> set[str]:
    return {urlsplit(doc.url).path for doc in documents if "/stacks/book/" in doc.url}


async def test_a_domain_crawl_stops_exploring_a_host_once_its_form_is_found(tmp_path: Path) -> None:
    with FixtureServer() as site:
        async with Crawler(_config(site, tmp_path / "bounded.sqlite", explore_after_form=10)) as crawler:
            documents = [doc async for doc in crawler.run()]
            report = summary(crawler.stats, crawler.frontier.counts(), "bounded", forms=crawler.forms.counts)
            assert not crawler.frontier.failures()
        bounded = _pages(site)
    wanted = set().union(*(stacks.wanted(q) for q in QUERIES))
    # Every record the queries want (stored once, under the route that reached it first: a
    # record the link crawl had queued before a query listed it carries no query).
    assert wanted <= _stored_books(documents)
    # A record's own links ("related books", its subject) are the link crawl's, not the query's.
    assert not any(doc.query is not None and "/subject/" in doc.url for doc in documents)
    # What it fetched besides them: the front page (once more for each query, whose route
    # starts there), the queries' answers, the two other links of their header (Browse,
    # About: what a results page lists is the query's), and ten pages of exploring (with
    # two workers, a page or two in flight when the tenth was counted).
    records = len([p for p in bounded if p in wanted])
    others = sorted(p for p in bounded if p not in wanted)
    assert len(bounded) - records <= 4 + 3 + 2 + 10 + 2, "\n".join(others)
    assert crawler.stats.skipped[EXPLORED] > 0 and EXPLORED in report

    with FixtureServer() as site:
        async with Crawler(_config(site, tmp_path / "all.sqlite", explore_after_form=None)) as crawler:
            everything = [doc async for doc in crawler.run()]
        unbounded = _pages(site)
    assert wanted <= _stored_books(everything)
    # Without the bound, the depth alone stops the link crawl: most of the catalogue.
    assert len(unbounded) > len(bounded) + 100, (len(unbounded), len(bounded))
