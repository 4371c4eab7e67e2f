"""A page built by "Load more" clicks (fixtures/sites/lab.py ``/lab/more/``):
its document's program holds every click that grew it, so ``deepbot replay DOC_ID`` reaches
the same content, and every document the crawl stores replays with a passing verdict."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from deepbot.cli import main
from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.routes import Document
from fixtures.server import FixtureServer
from fixtures.sites import lab

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]


@dataclass
class Crawled:
    store: Path
    documents: list[Document]


@pytest_asyncio.fixture(scope="module")
async def crawled(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Crawled]:
    store = tmp_path_factory.mktemp("grown") / "store.sqlite"
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url("/lab/more/"),), include=(r"/lab/more/(title-\d+)?$",), depth=1,
                             store=store, workers=2, settle_timeout=2.0, max_pages=40)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
        yield Crawled(store, documents)


def test_the_grown_page_carries_its_clicks(crawled: Crawled) -> None:
    [grown] = [d for d in crawled.documents if urlsplit(d.final_url).path == "/lab/more/"]
    # Every title it lists came by a click; before, its program was the navigation alone.
    assert f"Title {3 * lab.MORE_BATCH}" in grown.text
    clicks = [line for line in grown.nseql.splitlines() if line.startswith("click ")]
    assert len(clicks) == 2, grown.nseql  # two batches after the first


def test_every_stored_document_replays(crawled: Crawled, capsys: pytest.CaptureFixture[str]) -> None:
    assert len(crawled.documents) == 1 + 3 * lab.MORE_BATCH
    failed = {}
    for doc in crawled.documents:
        code = main(["replay", doc.id, "--store", str(crawled.store), "--timeout", "15"])
        out = capsys.readouterr().out
        # The same content, not only the same URL (a link's page whose text changed passes
        # too): before, the grown page replayed to its first batch alone.
        if code != 0 or "reached the same page" not in out or "text similarity 1.00" not in out:
            failed[doc.final_url] = out
    assert not failed, failed


def test_the_replay_waits_after_each_action_that_has_no_wait_of_its_own() -> None:
    import nseql
    from deepbot.replay.run import in_place_parts

    program = nseql.parse("navigate http://x/\nclick '#more'\nclick '#more'\nclick '#add'\nwait '#row'\n"
                          "fill '#row' \"java\"\nclick '#go'\n")
    parts = [[nseql.dump_step(step) for step in part.steps] for part in in_place_parts(program)]
    assert parts == [["navigate http://x/", 'click "#more"'], ['click "#more"'],
                     ['click "#add"', 'wait "#row"', 'fill "#row" "java"', 'click "#go"']]
