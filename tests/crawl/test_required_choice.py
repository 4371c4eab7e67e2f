"""A query that leaves a required choice empty (fixtures/sites/builder.py ``/builder/quotes/``):
choosing an author posts the form back and fills the tag list, which has
no "any" tag, and the placeholder finds nothing. The query runs once per tag the author's
list offers, each stored under the query with its tag named; ``max_options`` bounds how
many, and the summary counts what it left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.routes import Via
from fixtures.server import FixtureServer
from fixtures.sites.builder import QUOTES

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

# Quotes by author and tag, as a user would write it (YAML's flow style, as one line).
DOMAIN = ("{name: quotes, threshold: 0.9, queries: [{author: Jane Austen}], attributes: ["
          "{name: author, aliases: [author, writer, by], specificity: 0.9},"
          " {name: tag, aliases: [tag, topic], specificity: 0.2}]}")


async def _crawl(tmp_path: Path, max_options: int) -> tuple[list[tuple[dict[str, str], str]], dict[str, int]]:
    domain = tmp_path / "quotes.yaml"
    domain.write_text(DOMAIN)
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url("/builder/quotes/"),), domains=(domain,), depth=0,
                             store=tmp_path / f"quotes{max_options}.sqlite", workers=1, settle_timeout=2.0,
                             max_pages=20, max_options=max_options)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            counts = dict(crawler.forms.counts)
    return [(dict(d.query or {}), d.html) for d in documents if d.via is Via.FORM], counts


async def test_the_query_runs_once_per_option_of_the_list_its_author_fills(tmp_path: Path) -> None:
    answers, counts = await _crawl(tmp_path, 50)
    tags = sorted({t for a, t, _ in QUOTES if a == "Jane Austen"})
    # Before: one query, the tag at "----------", "No quotes found."
    assert sorted(q.get("Tag", "") for q, _ in answers) == tags, answers
    for query, html in answers:
        wanted = [q for a, t, q in QUOTES if a == "Jane Austen" and t == query["Tag"]]
        assert query["author"] == "Jane Austen"
        assert f"Quotes by Jane Austen tagged {query['Tag']}: {len(wanted)}" in html
    assert counts["queries run once per option of a choice they leave empty"] == 1


async def test_max_options_bounds_them_and_says_so(tmp_path: Path) -> None:
    answers, counts = await _crawl(tmp_path, 1)
    assert len(answers) == 1 and counts["options not queried (--max-options)"] == 1
