"""Domain crawls of the fixture shops: relevant forms found, every query run on every
submission variant, results followed across pages to exactly the expected detail pages."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.demo import bookshop, musicshop
from deepbot.routes import Document, Via
from fixtures.server import FixtureServer
from fixtures.sites import shops

# One worker runs them all: each crawl (a module fixture) runs once, not once a worker.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(400),
              pytest.mark.xdist_group("shops")]

# The last: a fetch()-loaded results page captured before its answer came.
ERROR_PAGES = ("Please enter at least one search term", "Session expired", "Searching\u2026")


@dataclass
class ShopCrawl:
    shop: str
    site: FixtureServer
    documents: list[Document]
    failures: dict[str, int]
    relevant_forms: set[str]


async def _crawl(shop: str, tmp: Path, shared_session: bool) -> AsyncIterator[ShopCrawl]:
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url(f"/{shop}/"),), domains=(Path(f"domains/{shop}.yaml"),),
                             store=tmp / f"{shop}.sqlite", workers=3, depth=3, settle_timeout=2.0,
                             shared_session=shared_session)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            failures = crawler.frontier.failures()
            relevant = {urlsplit(f.url).path for f in crawler.forms.found}
        yield ShopCrawl(shop, site, documents, failures, relevant)


# The shops' forms need a session cookie: one jar for all workers (--shared-session)
# must give the same documents as a session each.
@pytest_asyncio.fixture(scope="module",
                        params=[("books", False), ("music", False), ("books", True), ("music", True)],
                        ids=["books", "music", "books-shared-session", "music-shared-session"])
async def shop_crawl(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                     ) -> AsyncIterator[ShopCrawl]:
    shop, shared = request.param
    async for result in _crawl(shop, tmp_path_factory.mktemp(shop), shared):
        yield result


def _path(url: str) -> str:
    return urlsplit(url).path


def test_detail_pages_are_exactly_the_query_results(shop_crawl: ShopCrawl) -> None:
    details = {_path(d.final_url) for d in shop_crawl.documents if "/item/" in d.final_url}
    assert details == shops.expected_detail_paths(shop_crawl.shop)  # across all result pages
    assert not shop_crawl.failures


def test_every_submission_variant_is_found_relevant_and_submitted(shop_crawl: ShopCrawl) -> None:
    variants = shops.variants(shop_crawl.shop)
    assert shop_crawl.relevant_forms == {v.path for v in variants}  # and no decoy page
    form_docs = [d for d in shop_crawl.documents if d.via is Via.FORM]
    for v in variants:
        queries = [q for q in shops.domain_queries(shop_crawl.shop) if shops.restrict(v, q) is not None]
        submitted = [d for d in form_docs if _path(d.form_url or "") == v.path]
        assert {tuple(sorted((d.query or {}).items())) for d in submitted} == {
            tuple(sorted(q.items())) for q in queries}, v.key
    # No <form> around an app's search panel: the books app is submitted by its icon button
    # (not by "Clear" beside it), the music app, which has no button, by Enter.
    app = [d for d in form_docs if _path(d.form_url or "") == f"/{shop_crawl.shop}/search/app"]
    submission = {"books": "click 'xpath=//*[@id=\"app-go\"]'", "music": '"Enter"'}[shop_crawl.shop]
    assert app and all(submission in d.nseql for d in app)
    assert not any("app-clear" in d.nseql for d in app)
    # SubmittedForms precision 1.0: every submission reached a real results page.
    assert form_docs
    for doc in form_docs:
        assert not any(marker in doc.text for marker in ERROR_PAGES), (doc.form_url, doc.query)
        assert doc.domain == shop_crawl.shop and doc.form_url


def test_every_result_page_of_every_variant_is_reached(shop_crawl: ShopCrawl) -> None:
    """Pagination is followed on each variant by its own pager (links, postbacks, script
    links, an app's buttons with listeners): every result of every query shows in a page
    of results reached from that variant's form. (The union over variants, above, would
    hide a variant whose pager is never followed: others find the same items.)"""
    summary = {"books": bookshop.SHOP, "music": musicshop.SHOP}[shop_crawl.shop].summary
    for v in shops.variants(shop_crawl.shop):
        pages = " ".join(d.text for d in shop_crawl.documents
                         if d.via in (Via.FORM, Via.NEXT) and _path(d.form_url or "") == v.path)
        for query in shops.domain_queries(v.shop):
            missing = [summary(item)[0] for item in shops.expected_results(v, query)
                       if summary(item)[0] not in pages]
            assert not missing, (v.key, query, missing)


def test_decoy_forms_are_never_submitted(shop_crawl: ShopCrawl) -> None:
    actions = {v.action for v in shops.variants(shop_crawl.shop)}
    for method, target in shop_crawl.site.hits:
        path, _, query = target.partition("?")
        if method == "POST":
            assert path in actions, target
        assert not (path == f"/{shop_crawl.shop}/search" and "q=" in query), target  # quick search


def test_form_documents_replay_the_whole_path(shop_crawl: ShopCrawl) -> None:
    for doc in shop_crawl.documents:
        if doc.via not in (Via.FORM, Via.NEXT):
            continue
        lines = doc.nseql.splitlines()
        assert lines[0].startswith("navigate ")  # from a fresh browser
        if doc.via is Via.NEXT and len(lines) == 1:
            continue  # a result page with its own URL (GET): navigating there is the whole path
        # Otherwise the path is the form page, the filling, the submission (then pagination).
        assert any(line.startswith(("fill ", "select ", "check ")) for line in lines), doc.nseql
        assert any(line.startswith(("click ", "submit ", "press ")) for line in lines), doc.nseql
