"""End-to-end crawls of the lab site in real Chromium."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from deepbot.cli import main
from deepbot.crawl.engine import Crawler
from deepbot.crawl.runner import summary
from deepbot.routes import Via
from deepbot.store import SqliteDocumentStore
from fixtures.server import FixtureServer
from fixtures.sites import lab
from tests.crawl.conftest import lab_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_lab_crawl_reaches_exactly_the_expected_pages(lab_site: FixtureServer, tmp_path: Path) -> None:
    config = lab_config(lab_site, tmp_path / "store.sqlite")
    streamed = []
    async with Crawler(config) as crawler:
        async for doc in crawler.run():
            streamed.append(doc)
        counts = crawler.frontier.counts()
        failures = crawler.frontier.failures()
        stats = crawler.stats

    ok_paths = {urlsplit(d.final_url).path for d in streamed if d.status == 200}
    assert ok_paths == set(lab.EXPECTED_PAGES)
    # Reached only through script, a session cookie set by script, or an opened menu:
    assert set(lab.SCRIPT_ONLY) <= ok_paths
    assert set(lab.SESSION_ONLY) <= ok_paths
    assert {"/lab/menu/hover-target", "/lab/menu/click-target"} <= ok_paths
    assert set(lab.IN_FRAMES) <= ok_paths  # frame and iframe documents, and links inside them
    by_path = {urlsplit(d.final_url).path: d for d in streamed}
    assert by_path["/lab/frames/nav"].via is Via.LINK and by_path["/lab/frames/nav"].depth == 2
    assert "Framed Book" in by_path["/lab/frames/catalog"].text
    assert lab.SHADOW_SENTENCE in by_path["/lab/components/"].text  # the main text, from a shadow root
    assert by_path["/lab/jump/history"].nseql.splitlines()[-1].startswith("select ")  # a jump menu's option
    assert lab_site.hits_for("/lab/jump/closed") == 0  # its disabled option is not a route
    # A hash-routed app: each view is a document at its own URL, with what only it shows.
    app = [(urlsplit(d.final_url), d) for d in streamed]
    views = {"#" + url.fragment: d for url, d in app if url.path == "/lab/hashapp/" and url.fragment}
    for fragment, title in lab.HASH_VIEWS.items():
        assert title in views[fragment].text and views[fragment].via is Via.LINK
    # A feed with infinite scroll: scrolled to its end until no more came.
    assert ok_paths >= lab.BY_SCROLL and "What happened, part 9." in by_path["/lab/feed/"].text
    # A catalogue with a "Load more" button: clicked until it went.
    assert ok_paths >= lab.BY_LOAD_MORE and f"Title {3 * lab.MORE_BATCH}" in by_path["/lab/more/"].text
    # ...and the picks on the pages its pager's buttons render in place
    assert ok_paths >= lab.BY_PAGER
    # A cookie wall over a script element: refused, then the element clicked, in the
    # document's program too; the page kept has no wall in its text.
    assert ok_paths >= lab.CONSENT_WALLED
    walled = by_path["/lab/consent/archive"]
    assert walled.via is Via.SCRIPT and lab.CONSENT_REFUSED in walled.html
    assert [line.split()[0] for line in walled.nseql.splitlines()][-3:] == ["navigate", "dismiss", "click"]
    assert "We use cookies" not in by_path["/lab/consent/"].text
    # ...and the summary says what pages needed
    work = stats.page_work
    assert work["overlay answered"] >= 1 and work["scrolled"] >= 1 and work["load more rounds"] >= 2
    said = summary(stats, counts, "store.sqlite")
    assert "In pages: cookie banner or consent wall answered ×" in said
    assert "'Load more' clicked to the end ×" in said
    assert by_path["/lab/js/target-a"].via is Via.SCRIPT
    assert lab.PDF_SENTENCE in by_path["/lab/doc.pdf"].text
    assert "Members area" in by_path["/lab/session/secret"].title

    # Nothing outside scope or disallowed by robots.txt was ever requested.
    requested = {path.split("?")[0] for _, path in lab_site.hits}
    assert not requested & set(lab.NEVER)
    assert stats.skipped["robots"] >= 1 and stats.skipped["off-site"] >= 1

    # Each hard page ended as a recorded outcome while the crawl completed.
    assert counts["queued"] == 0 and counts["leased"] == 0
    assert any("ERR_TOO_MANY_REDIRECTS" in reason for reason in failures)  # the redirect loop
    assert lab_site.hits_for("/lab/busy") >= 2  # 503 + Retry-After, then retried
    assert by_path["/lab/busy"].status == 200
    assert "/lab/never-settles" in ok_paths and "/lab/slow" in ok_paths and "/lab/malformed" in ok_paths

    # Documents in the store: one per route, none duplicated.
    with SqliteDocumentStore(config.store) as store:
        assert store.count() == len(streamed)
        assert len({d.route_key for d in streamed}) == len(streamed)


async def test_rerun_on_finished_store_fetches_nothing_again(lab_site: FixtureServer, tmp_path: Path) -> None:
    config = lab_config(lab_site, tmp_path / "store.sqlite", max_pages=5)
    async with Crawler(config) as crawler:
        first = [doc async for doc in crawler.run()]
    assert 1 <= len(first) <= 5
    hits_after_first = len(lab_site.hits)
    # Resume with a bigger budget: earlier pages are not fetched again.
    config = config.model_copy(update={"max_pages": 8})
    async with Crawler(config) as crawler:
        second = [doc async for doc in crawler.run()]
    assert {d.route_key for d in first}.isdisjoint({d.route_key for d in second})
    seed_hits = [p for _, p in lab_site.hits[hits_after_first:] if p == "/lab/"]
    assert seed_hits == []


def test_cli_crawl_status_and_export(lab_site: FixtureServer, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "cli.sqlite"
    code = main(["crawl", "--seed", lab_site.url("/lab/"), "--store", str(store), "--depth", "1",
                 "--workers", "2", "--quiet", "--exclude", r"/(slow|never-settles|busy)"])
    assert code == 0
    out = capsys.readouterr().out
    assert "Crawl finished" in out and str(store) in out
    assert main(["status", "--store", str(store)]) == 0
    status = capsys.readouterr().out
    assert "Documents:" in status and "done" in status
    assert main(["export", "--store", str(store), "--output", str(tmp_path / "out.jsonl")]) == 0
    lines = (tmp_path / "out.jsonl").read_text().splitlines()
    assert lines and all('"nseql"' in line for line in lines)
    requested = {path.split("?")[0] for _, path in lab_site.hits}
    assert "/lab/slow" not in requested  # --exclude held
