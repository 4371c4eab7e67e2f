"""A calendar whose "next month" never ends, and a news archive whose ?page=N never does:
a crawl follows each such chain max_calendar_steps links, stores every real page, and
says what it cut."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.crawl.runner import summary
from fixtures.server import FixtureServer
from fixtures.sites import events

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


async def test_a_calendar_that_never_ends_is_followed_ten_steps(site: FixtureServer, tmp_path: Path) -> None:
    # Deep enough for the chains to lead on to max_pages (120) without a bound.
    config = CrawlConfig(seeds=(site.url("/events/"),), store=tmp_path / "events.sqlite", workers=2, depth=50,
                         max_pages=120, settle_timeout=2.0)
    async with Crawler(config) as crawler:
        documents = [doc async for doc in crawler.run()]
        stats, counts = crawler.stats, crawler.frontier.counts()
        assert crawler.frontier.failures() == {}
    stored = {_path(d.final_url) for d in documents}
    assert stored >= events.REAL_PAGES
    months = {p for p in stored if p.startswith("/events/calendar/2")}
    # A month reached by another link (an event's page; "This month", November 2026, which
    # leads to October and December) starts a chain ten "‹"/"›" links long: the earliest,
    # October 2026, leads back to December 2025; the latest, March 2027 (the spring open
    # studios, three links from the front page, where the calendar is five), on to January 2028
    assert months == {f"/events/calendar/{2025 + n // 12}/{n % 12 + 1:02d}" for n in range(11, 37)}
    news = {p for p in stored if p.startswith("/events/news?page=")}
    # "Older news ›" from /events/news (no number: no step), then ten steps
    assert news == {f"/events/news?page={n}" for n in range(2, 13)}
    assert stats.fetched < 60 and stats.skipped["calendar-like chain"] == 3
    said = summary(stats, counts, "events.sqlite", max_calendar_steps=10)
    assert "Calendar-like chains cut at 10 steps ×3 (links in a row that only move a number or a date" in said
    assert "--max-calendar-steps raises the steps" in said


async def test_a_calendar_that_also_links_years_is_followed_along_not_across(tmp_path: Path) -> None:
    # "« 2025" and "2027 »" beside "‹"/"›": ten steps along every path would be every month
    # within ten month-or-year links (221 around each month a chain starts from), and the
    # crawl would run to max_pages (300). Along one number: ten each way from each start.
    with FixtureServer(options={"events_years": True}) as site:
        config = CrawlConfig(seeds=(site.url("/events/"),), store=tmp_path / "events.sqlite", workers=2,
                             depth=50, max_pages=300, settle_timeout=2.0)
        async with Crawler(config) as crawler:
            documents = [doc async for doc in crawler.run()]
            stats = crawler.stats
            assert crawler.frontier.failures() == {}
            said = summary(stats, crawler.frontier.counts(), "events.sqlite", max_calendar_steps=10)
    stored = {_path(d.final_url) for d in documents}
    assert stored >= events.REAL_PAGES
    long, turned = stats.skipped["calendar-like chain"], stats.skipped["calendar-like chain turned"]
    assert stats.fetched < 150 and turned > 0
    assert f"Calendar-like chains cut at 10 steps ×{long} and turned ×{turned} (" in said
    # Every month is ten steps at most along the months or along the years from a month a
    # chain may start from: one a page without a date links ("This month"'s four), or an event's.
    starts = {(2026, 10), (2026, 12), (2025, 11), (2027, 11)}
    starts |= {(y, m) for _, y, m, _ in events.EVENTS.values()}
    for path in stored:
        if path.startswith("/events/calendar/2"):
            year, month = map(int, path.split("/")[3:5])
            assert any((month == m and abs(year - y) <= 10) or abs(12 * (year - y) + month - m) <= 10
                       for y, m in starts), path
