from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.forms.queries import RelevantForm
from deepbot.routes import Document
from fixtures.server import FixtureServer


@pytest.fixture
def lab_site() -> FixtureServer:
    """A private fixture server: crawl tests count its hits, so none may share it."""
    with FixtureServer() as server:
        yield server


def lab_config(site: FixtureServer, store: Path, **overrides: object) -> CrawlConfig:
    values: dict[str, object] = {
        "seeds": (site.url("/lab/"),), "store": store, "workers": 2, "depth": 3,
        "settle_timeout": 2.0, "step_timeout": 8.0, "route_timeout": 30.0,
    }
    values.update(overrides)
    return CrawlConfig.model_validate(values)


async def crawl_books_page(path: str | tuple[str, ...], results: str,
                           store: Path) -> tuple[list[Document], list[RelevantForm], dict[str, int]]:
    """Crawl labelled pages of fixtures/static/forms (``path``: one or more) and their
    submissions' results (``results``: a path regex) with domains/books.yaml: documents,
    forms found, failures."""
    paths = (path,) if isinstance(path, str) else path
    with FixtureServer() as site:
        include = (*("^" + re.escape(site.url(p)) + "$" for p in paths), results)
        config = CrawlConfig(seeds=tuple(site.url(p) for p in paths), domains=(Path("domains/books.yaml"),),
                             include=include, store=store, workers=2, depth=1, settle_timeout=2.0)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            return documents, list(crawler.forms.found), crawler.frontier.failures()
