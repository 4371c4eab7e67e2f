"""A search whose Model select a script fills once a Make is chosen, crawled end to end
with a cars domain: each query picks its make, waits for the models to come, and picks
the one most like its own (``select … like``), in the order a person fills the form."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

import nseql
from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.routes import Via
from fixtures.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CARS = Path(__file__).resolve().parents[1] / "data" / "domains" / "cars.yaml"


async def test_each_query_waits_for_the_models_of_its_make(tmp_path: Path) -> None:
    with FixtureServer() as site:
        config = CrawlConfig(seeds=(site.url("/cars/"),), domains=(CARS,), store=tmp_path / "store.sqlite",
                             include=(r"/cars/(results)?", ), workers=2, depth=1, settle_timeout=2.0)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            assert crawler.frontier.failures() == {}
    submitted = [d for d in documents if d.via is Via.FORM]
    queries = [dict(parse_qsl(urlsplit(d.final_url).query, keep_blank_values=True)) for d in submitted]
    sent = sorted((q.get("make", ""), q.get("model", "")) for q in queries)
    assert sent == [("ford", ""), ("toyota", "corolla"), ("volkswagen", "golf")]
    assert {d.title for d in submitted} == {"Results | Forecourt"}
    assert any("Toyota Corolla for sale" in d.text for d in submitted)
    toyota = next(d for d in submitted if (d.query or {}).get("make") == "toyota")
    steps = [s for s in nseql.parse(toyota.nseql).steps if isinstance(s, nseql.Select)]
    assert [(s.by, s.option) for s in steps] == [("value", "toyota"), ("like", "corolla")]
