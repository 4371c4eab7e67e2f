"""Which documents a recrawl revisits, and its frontier: no browser."""

from __future__ import annotations

import argparse
import asyncio
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deepbot.cli.recrawl import duration
from deepbot.config import CrawlConfig
from deepbot.crawl.recrawl import REVISIT_PRIORITY, Revisit, RevisitFrontier, ask_first, choose_revisits
from deepbot.frontier import SqliteRouteStore
from deepbot.policy.revisit import History, history_of
from deepbot.routes import Document, Route, Via, route_key
from deepbot.store import Change, SqliteDocumentStore, Visit
from fixtures.server import FixtureServer
from fixtures.sites.archive import Archive

DAY0 = datetime(2026, 11, 1, tzinfo=UTC)


def _doc(path: str, days: float, text: str = "text") -> Document:
    url = f"https://shop.example{path}"
    return Document(route_key=route_key(Via.LINK, url), url=url, final_url=url, text=text,
                    nseql=f'navigate "{url}"', via=Via.LINK, fetched_at=DAY0 + timedelta(days=days))


def test_history_is_days_between_visits_and_whether_each_found_a_change() -> None:
    at = [DAY0 + timedelta(days=d) for d in (0, 1, 1, 3)]
    found = (Change.NEW, Change.UNCHANGED, Change.UNCHANGED, Change.CHANGED)
    visits = [Visit(doc_id="d", url="u", at=t, change=c) for t, c in zip(at, found, strict=True)]
    assert history_of(visits) == History((1.0, 2.0), (False, True))  # the same instant twice tells nothing


def test_uniform_revisits_the_longest_unvisited_first_within_the_budget(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with SqliteDocumentStore(store) as documents, SqliteRouteStore(store) as frontier:
        for path, days in (("/new", 9), ("/old", 1), ("/mid", 5)):
            documents.upsert(_doc(path, days))
        now = DAY0 + timedelta(days=10)
        chosen = choose_revisits(documents, frontier, budget=2, now=now)
        assert [r.route.url.rsplit("/", 1)[1] for r in chosen] == ["old", "mid"]
        recent = choose_revisits(documents, frontier, older_than=timedelta(days=2), now=now)
        assert [r.route.url.rsplit("/", 1)[1] for r in recent] == ["old", "mid"]
        # No frontier record (a route another run found): rebuilt from the document.
        assert chosen[0].route.steps == chosen[0].route.program == 'navigate "https://shop.example/old"'


def test_the_optimal_policy_leaves_a_page_changing_at_every_visit_for_a_steady_one(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with SqliteDocumentStore(store) as documents, SqliteRouteStore(store) as frontier:
        for day in range(0, 8):
            documents.upsert(_doc("/busy", day / 8, text=f"ticker {day}"))  # changes at every visit
            documents.upsert(_doc("/steady", day, text="the same" if day < 6 else "edited once"))
        now = DAY0 + timedelta(days=8)
        chosen = choose_revisits(documents, frontier, policy="optimal", budget=1, now=now)
        assert [r.route.url.rsplit("/", 1)[1] for r in chosen] == ["steady"]


def test_the_run_frontier_leases_revisits_first_and_pushes_only_the_unseen(tmp_path: Path) -> None:
    with SqliteRouteStore(tmp_path / "s.sqlite") as main:
        known = Route(key="k", url="https://x/k", via=Via.LINK, steps="", program="")
        main.push([known])
        run = RevisitFrontier(main, [Revisit("d", known, known.url, DAY0)])
        fresh = known.model_copy(update={"key": "fresh", "url": "https://x/fresh"})
        assert run.push([known, fresh]) == 1
        leased = run.lease(2, "w", 60)
        assert [(lease.route.key, lease.route.priority) for lease in leased] == [("k", REVISIT_PRIORITY),
                                                                                ("fresh", 0.0)]
        assert run.seen("k") and run.seen("fresh") and not main.seen("fresh")  # new routes stay this run's
        run.close()


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("30m", 1800), ("12h", 43200), ("1d", 86400),
                                               ("2", 172800), ("1w", 604800)])
def test_durations(text: str, seconds: float) -> None:
    assert duration(text).total_seconds() == seconds


def test_a_bad_duration_is_refused() -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        duration("soon")


def test_the_server_is_asked_first_and_politely() -> None:
    archive = Archive()
    archive.removed.add("/archive/page/3")
    with FixtureServer(options={"archive": archive}) as site:
        with urllib.request.urlopen(site.url("/archive/news")) as answer:
            etag = answer.headers["ETag"]

        def revisit(path: str, **validators: str) -> Revisit:
            route = Route(key=path, url=site.url(path), via=Via.LINK, steps="", program="")
            return Revisit(path, route, route.url, DAY0, **validators)

        # The clock sent no validators: it is not asked.
        asked = [revisit("/archive/news", etag=etag), revisit("/archive/page/3", etag='"old"'),
                 revisit("/archive/page/1", etag='"stale"'), revisit("/archive/clock")]
        archive.hits.clear()
        config = CrawlConfig(seeds=(site.url("/archive/"),), min_delay=0.3)
        began = time.monotonic()
        said = asyncio.run(ask_first(asked, config))
        took = time.monotonic() - began
    assert said == {"/archive/news": Change.UNCHANGED, "/archive/page/3": Change.GONE}  # page 1: the browser
    hits = archive.hits
    assert (hits["304"], hits["404"], hits["page"], hits["clock"]) == (1, 1, 1, 0)
    assert took >= 2 * 0.3  # three requests to one host, min_delay apart


def test_a_server_that_ignores_if_none_match_but_sends_the_same_etag_is_unchanged_too() -> None:
    archive = Archive(conditional=False)
    with FixtureServer(options={"archive": archive}) as site:
        with urllib.request.urlopen(site.url("/archive/news")) as answer:
            etag = answer.headers["ETag"]
        route = Route(key="news", url=site.url("/archive/news"), via=Via.LINK, steps="", program="")
        same, other = (Revisit("news", route, route.url, DAY0, etag=tag) for tag in (f"W/{etag}", '"other"'))
        config = CrawlConfig(seeds=(site.url("/archive/"),))
        assert asyncio.run(ask_first([same], config)) == {"news": Change.UNCHANGED}
        assert asyncio.run(ask_first([other], config)) == {}  # another ETag: the browser reads it
    assert archive.hits["304"] == 0 and archive.hits["page"] == 3


def test_a_store_without_the_crawls_settings_is_refused_with_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from deepbot.cli import main

    store = tmp_path / "old.sqlite"
    with SqliteDocumentStore(store) as documents, SqliteRouteStore(store):
        documents.upsert(_doc("/a", 0))
    assert main(["recrawl", "--store", str(store)]) == 1
    assert "run `deepbot crawl` on it once more" in capsys.readouterr().err
    assert main(["recrawl", "--store", str(tmp_path / "none.sqlite")]) == 1
    assert "no store at" in capsys.readouterr().err
