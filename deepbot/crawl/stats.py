"""Crawl counters and the progress display.

Every outcome and every skip is counted by reason, so ``deepbot status`` and the
final summary explain where each route went.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

log = logging.getLogger("deepbot.crawl")


class Stop(StrEnum):
    """Why a crawl ended: the last line of every crawl says it (runner.stopped_line)."""

    MAX_PAGES = "max_pages"  # the --max-pages budget, counted over every run on the store
    FRONTIER_EMPTY = "frontier_empty"  # every route reached was visited (or failed for good)
    HOSTS_LEFT = "hosts_left"  # only routes of hosts that refused every visit or logged the crawl out
    UNPROMISING = "unpromising"  # a structure crawl: no route left promises a page like the sample
    INTERRUPTED = "interrupted"  # Ctrl-C


@dataclass
class CrawlStats:
    started: float = field(default_factory=time.monotonic)
    fetched: int = 0  # routes whose page was loaded (stored or not)
    stored: int = 0
    on_topic: int = 0  # a focused crawl's pages at least topic_threshold near its topic
    unpromising: int = 0  # routes a structure crawl left queued when it ended: none promised anything
    failed: int = 0
    retried: int = 0
    in_flight: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)  # e.g. stored, filtered:keywords
    skipped: Counter[str] = field(default_factory=Counter)  # child routes not pushed, by reason
    failures: Counter[str] = field(default_factory=Counter)
    parked: Counter[str] = field(default_factory=Counter)  # routes left queued, by refusing host
    logged_out: Counter[str] = field(default_factory=Counter)  # the same, by host that logged the crawl out
    # What pages needed before they gave everything: pages, and rounds where it repeats.
    page_work: Counter[str] = field(default_factory=Counter)
    stop: Stop | None = None  # set by what ended the crawl where it knows (the engine's budget)

    def note_page(self, *, dismissed: bool, revealed: int, scrolled: int, more: int,
                  scroll_stop: str = "end", more_stop: str = "end") -> None:
        """Count what a page needed. Scrolling and "Load more" count as done to the end
        ("scrolled", "load more", with their rounds) only when a round brought nothing
        more; one a bound or a restless page stopped counts as cut short, by why
        ("scroll cut: rounds", "load more cut: time"…: GrowthStop)."""
        for what, done in (("overlay answered", dismissed), ("menus opened", revealed > 0)):
            if done:
                self.page_work[what] += 1
        for what, rounds, stop in (("scroll", scrolled, scroll_stop), ("load more", more, more_stop)):
            if stop in ("", "end"):
                if rounds > 0:
                    self.page_work["scrolled" if what == "scroll" else what] += 1
                    self.page_work[f"{what} rounds"] += rounds
            else:
                self.page_work[f"{what} cut: {stop}"] += 1

    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.fetched / elapsed if elapsed > 0 else 0.0

    def line(self, queued: int) -> str:
        return (
            f"{self.fetched} pages fetched, {queued} queued, {self.failed} failed, {self.rate():.1f} pages/s"
            f" ({self.stored} stored, {self.in_flight} in flight)"
        )


class Progress:
    """A live line when the crawl's output is a terminal (rich); otherwise a line every
    ``interval`` seconds on stderr, so that a crawl piped to a file or a CI log shows it runs."""

    def __init__(self, stats: CrawlStats, queued: Callable[[], int], *, enabled: bool = True,
                 interval: float = 5.0):
        self.stats = stats
        self.queued = queued
        self.enabled = enabled
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._live: object | None = None

    async def __aenter__(self) -> Progress:
        if self.enabled:
            # Output piped or redirected (`| tee crawl.log`, a CI job) is a record of the run:
            # plain lines stay in it, where a live display leaves nothing (it is transient).
            if sys.stderr.isatty() and sys.stdout.isatty():
                from rich.console import Console
                from rich.live import Live

                live = Live(console=Console(stderr=True), refresh_per_second=4, transient=True)
                live.start()
                self._live = live
                self._task = asyncio.create_task(self._loop(0.25))
            else:
                self._task = asyncio.create_task(self._loop(self.interval))
        return self

    async def _loop(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            text = self.stats.line(self.queued())
            if self._live is not None:
                self._live.update(f"[bold]deepbot[/] {text}")  # type: ignore[attr-defined]
            else:
                log.info(text)

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._live is not None:
            self._live.stop()  # type: ignore[attr-defined]
