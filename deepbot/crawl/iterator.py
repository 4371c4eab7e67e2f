"""``deepbot.crawl(...)``: the crawler as a plain iterator, for scripts and ETL jobs.

    for doc in deepbot.crawl(seeds=["https://shop.example/"], store="shop.sqlite", depth=2):
        ...

The async ``Crawler`` runs in a background thread with its own event loop and hands
documents over a bounded queue (``buffer``): when the caller is slow, the crawl waits.
Leaving the loop early (``break``, an exception, ``close()``, the end of a ``with``
block, or the iterator being garbage-collected) stops the crawl: in-flight routes are
cancelled (the next run on the same store leases them again), the browser is closed
and the thread is joined before control returns. Every call has its own thread, loop,
browser and store connections, so crawls in one process do not interfere.

Async code should use ``Crawler`` directly: this iterator blocks its caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import threading
import weakref
from collections.abc import AsyncGenerator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from os import PathLike
from types import TracebackType
from typing import Any

from deepbot.config import CrawlConfig
from deepbot.content import Processor
from deepbot.crawl.engine import Crawler
from deepbot.crawl.stats import CrawlStats
from deepbot.routes import Document

__all__ = ["CrawlIterator", "crawl"]

_numbers = itertools.count(1)  # thread names only


def crawl(
    seeds: Iterable[str] = (),
    *,
    store: str | PathLike[str] | None = None,
    domains: Iterable[str | PathLike[str]] = (),
    config: CrawlConfig | None = None,
    buffer: int = 16,
    processors: Sequence[Processor] = (),
    **options: Any,
) -> CrawlIterator:
    """Start a crawl and return an iterator over the documents as they are stored.

    ``options`` are CrawlConfig fields (``depth``, ``include``, ``max_pages``,
    ``workers``…); with ``config`` they override its values. An invalid value raises
    ConfigError, a bad domain file DomainError, here and not later. Errors of the crawl
    itself (no Chromium, a full disk) are raised by the iteration.
    """
    from deepbot.config.load import validate_config

    values: dict[str, Any] = config.model_dump(exclude_unset=True) if config is not None else {}
    seeds = tuple(seeds)
    if seeds:
        values["seeds"] = seeds
    if store is not None:
        values["store"] = store
    domains = tuple(domains)
    if domains:
        values["domains"] = domains
    values.update(options)
    return CrawlIterator(validate_config(values, source="deepbot.crawl()"), buffer=buffer,
                         processors=processors)


@dataclass(frozen=True)
class _End:
    error: BaseException | None = None


class _Runner:
    """The background side: a thread running the crawl on its own event loop.

    Kept apart from CrawlIterator so that a finalizer can stop it without holding the
    iterator alive.
    """

    def __init__(self, crawler: Crawler, buffer: int) -> None:
        self.crawler = crawler
        self.handoff: queue.SimpleQueue[Document | _End] = queue.SimpleQueue()
        self._buffer = buffer
        self._credits: asyncio.Semaphore | None = None  # free places in the hand-over queue
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pump: asyncio.Task[None] | None = None
        self._stopping = False
        self._entered = threading.Event()  # set once the loop runs (or the thread ended)
        self.thread = threading.Thread(target=self._main, name=f"deepbot-crawl-{next(_numbers)}", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _main(self) -> None:
        end = _End()
        try:
            asyncio.run(self._crawl())
        except BaseException as exc:  # handed to the consumer, which raises it
            end = _End(exc)
        finally:
            self._entered.set()
            self.handoff.put(end)

    async def _crawl(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._credits = asyncio.Semaphore(self._buffer)
        self._entered.set()
        # Entering (launching Chromium) is not interrupted: a stop waits for it, so that
        # what was opened is closed by the exit below and nothing is left half-started.
        async with self.crawler as crawler:
            if self._stopping:
                return
            self._pump = asyncio.create_task(self._hand_over(crawler))
            try:
                await self._pump
            except asyncio.CancelledError:
                if not self._stopping:
                    raise

    async def _hand_over(self, crawler: Crawler) -> None:
        assert self._credits is not None
        documents = crawler.run()
        try:
            async for doc in documents:
                await self._credits.acquire()
                self.handoff.put(doc)
        finally:
            if isinstance(documents, AsyncGenerator):  # close it now, not whenever it is collected
                await documents.aclose()

    def took_one(self) -> None:
        """The consumer took a document: the crawl may hand over another."""
        if self._loop is not None and self._credits is not None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed: the crawl ended
                self._loop.call_soon_threadsafe(self._credits.release)

    def stop(self) -> None:
        """Cancel the crawl and wait until its browser is closed and its thread ended."""
        self._stopping = True
        if self.thread.ident is None:  # never started
            return
        self._entered.wait()
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed: nothing to cancel
                self._loop.call_soon_threadsafe(self._cancel)
        if threading.current_thread() is not self.thread:  # a finalizer may run on the crawl thread
            self.thread.join()

    def _cancel(self) -> None:
        if self._pump is not None:
            self._pump.cancel()


class CrawlIterator(Iterator[Document]):
    """Documents of a running crawl, in the order they are stored.

    Iterate it once. ``close()`` (or leaving a ``with`` block) stops the crawl and
    returns when the browser is closed; iterating to the end does the same.
    """

    def __init__(
        self, config: CrawlConfig, *, buffer: int = 16, processors: Sequence[Processor] = ()
    ) -> None:
        if buffer < 1:
            raise ValueError(f"buffer must be at least 1, not {buffer}")
        self.config = config
        crawler = Crawler(config, processors=processors)  # config and domain errors surface here
        self.stats: CrawlStats = crawler.stats  # updated live by the crawl thread
        self._runner = _Runner(crawler, buffer)
        self._closed = False
        # Runs stop() once: on close(), when this iterator is collected, or at interpreter exit.
        self._finalizer = weakref.finalize(self, self._runner.stop)
        self._runner.start()

    def __iter__(self) -> CrawlIterator:
        return self

    def __next__(self) -> Document:
        if self._closed:
            raise StopIteration
        item = self._runner.handoff.get()
        if isinstance(item, _End):
            self._closed = True
            self._finalizer()  # joins the thread: the browser is closed when iteration ends
            if item.error is not None:
                raise item.error
            raise StopIteration
        self._runner.took_one()
        return item

    def close(self) -> None:
        """Stop the crawl (if still running) and wait for its browser to close."""
        self._closed = True
        self._finalizer()

    @property
    def running(self) -> bool:
        return self._runner.thread.is_alive()

    def __enter__(self) -> CrawlIterator:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
