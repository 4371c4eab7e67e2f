"""Politeness: how often and how many at once the crawler asks one host for a page.

The engine wraps each visit in ``async with politeness.slot(url) as host:`` and
reports the answer with ``host.record(status, retry_after)``; a document the page
fetches by itself during the visit waits for ``turn(url)`` (browser.guard). Per host:

- at most ``per_host`` visits at once (default 2: one page loading while the last
  one is processed keeps a worker busy, and with images, media and fonts blocked a
  page costs the host about one request, so two is a light load);
- starts at least ``min_delay`` seconds apart (default 1 s for real sites; tests
  and loopback benchmarks pass 0), or the host's robots.txt Crawl-delay when that
  is longer, capped at ``max_crawl_delay`` so one robots.txt cannot stall a crawl;
- after a 429 or 503 (or a bot check, whatever its status: ``refused``), no new visit
  until ``Retry-After`` (seconds or HTTP-date) has passed, or, without one, 5 s
  doubling with each consecutive refusal; either capped at ``max_backoff``. Any other
  answer ends the streak. After ``give_up_after`` refusals in a row the host is
  ``refusing``: the crawl visits it no more (its routes wait for a later run).

Waiting is asyncio sleeping until the computed time: no polling. A host is keyed
by its name (and port when not the scheme's default), so http and https of one
site share their limits.

Several processes crawling one site together (a shared PostgreSQL store) share the spacing,
the pauses and the slots through ``shared``, a ``HostTurns``: each visit also takes one of the
host's ``per_host`` slots there, and its turn. A slot another process holds is asked for again
after a short pause that doubles up to a second (the only polling: another process's release
wakes nobody here), and one never given back (its process died) is free again after
``slot_ttl`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

from deepbot.errors import DeepBotError

log = logging.getLogger("deepbot.crawl")

BACKOFF_STATUSES = frozenset({429, 503})
_SECONDS = re.compile(r"\d+(?:\.\d+)?", re.ASCII)


def retry_after_seconds(value: str | float | None, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` value asks to wait (delay-seconds or an HTTP-date,
    RFC 9110 §10.2.3); None when absent or unreadable. A past date means 0."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if value >= 0 else None
    text = value.strip()
    if _SECONDS.fullmatch(text):
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000" or no zone: HTTP-dates are GMT
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def host_key(url: str) -> str:
    """The host politeness limits apply to: name, plus a port that is not the default."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and port != {"http": 80, "https": 443}.get(parts.scheme.lower()):
        return f"{host}:{port}"
    return host


@runtime_checkable
class HostTurns(Protocol):
    """Per-host turns kept where every process of a crawl sees them (e.g. its database)."""

    def take_turn(self, host: str, spacing: float) -> float:
        """Start a visit to ``host`` now if its next allowed time has come, the next one
        ``spacing`` seconds later (returns 0); else the seconds left to wait."""
        ...

    def pause_host(self, host: str, seconds: float) -> None:
        """No visit to ``host`` by any process for ``seconds`` (a 429, 503 or bot check)."""
        ...

    def take_slot(self, host: str, limit: int, ttl: float) -> str | None:
        """One of ``host``'s ``limit`` slots over every process, held until free_slot() or for
        ``ttl`` seconds at most (its holder may die): the holder's token, or None if all are taken."""
        ...

    def free_slot(self, host: str, holder: str) -> None:
        """Give back the slot ``holder`` took (nothing if it expired and another took it)."""
        ...


@dataclass(eq=False)
class _Host:
    slots: asyncio.Semaphore
    users: int = 0  # holding or waiting for a slot
    last_start: float = float("-inf")  # when the latest visit started
    spacing: float = 0.0  # the delay asked after it
    paused_until: float = 0.0  # backoff after 429/503
    strikes: int = 0  # consecutive 429/503
    # One tab of this process at a time asks the database for a slot over every process: the
    # others wait their turn here rather than each poll it.
    asking: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(eq=False)
class HostSlot:
    """One visit's permission to fetch from ``host``; report its answer with record()."""

    host: str
    _politeness: Politeness = field(repr=False)
    status: int | None = None
    released: bool = False
    holder: str | None = None  # the slot over every process (HostTurns.take_slot), while held

    def record(self, status: int | None, retry_after: str | float | None = None, *,
               refused: bool = False) -> float:
        """Report the answer; returns the pause now imposed on the host (0 if none).
        ``refused``: whatever its status, the answer refuses the visit (a bot check)."""
        self.status = status
        return self._politeness._record(self.host, status, retry_after, refused=refused)

    def backoff_seconds(self) -> float:
        """How long the host is paused from now (0 if it is not)."""
        return self._politeness.paused_for(self.host)


class Politeness:
    """Per-host concurrency, spacing, Crawl-delay and backoff for one crawl."""

    def __init__(
        self,
        *,
        per_host: int = 2,
        min_delay: float = 1.0,
        crawl_delay: Callable[[str], float | None] | None = None,
        max_crawl_delay: float = 60.0,
        backoff: float = 5.0,
        max_backoff: float = 600.0,
        give_up_after: int = 8,
        clock: Callable[[], float] = time.monotonic,
        slot_ttl: float = 120.0,
    ) -> None:
        if per_host < 1:
            raise ValueError("per_host must be at least 1")
        self.per_host = per_host
        self.min_delay = min_delay
        self.crawl_delay = crawl_delay  # e.g. RobotsCache.crawl_delay
        self.max_crawl_delay = max_crawl_delay
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.give_up_after = give_up_after  # refusals in a row (~21 min of pauses at the defaults)
        self._clock = clock
        self._hosts: dict[str, _Host] = {}
        self.shared: HostTurns | None = None  # the other processes' turns, when there are any
        # How long a slot over every process stays taken when its holder never gives it back:
        # the engine's is its lease_ttl (a visit that outlives its lease is lost anyway).
        self.slot_ttl = slot_ttl

    @asynccontextmanager
    async def slot(self, url: str) -> AsyncIterator[HostSlot]:
        granted = await self.acquire(url)
        try:
            yield granted
        finally:
            self.release(granted)
            await self._free_shared(granted)

    async def acquire(self, url: str) -> HostSlot:
        """Wait until a visit to ``url``'s host is polite, then hold one of its slots."""
        key = host_key(url)
        granted = HostSlot(key, self)
        if not key:  # no host (data:, about:): nobody to be polite to
            return granted
        host = self._hosts.get(key)
        if host is None:
            host = self._hosts[key] = _Host(asyncio.Semaphore(self.per_host))
        host.users += 1
        try:
            await host.slots.acquire()
        except BaseException:
            host.users -= 1
            raise
        try:
            if self.shared is not None:
                # The host's slot over every process first: the turn below is then taken by a
                # visit that can start at once, not spent while it waits for a slot.
                async with host.asking:
                    granted.holder = await self._take_shared(key)
            delay = self._spacing(url)
            # Sleep until the host may be asked again, then look again: another slot
            # holder may have started meanwhile, or a 429/503 paused the host.
            while (wait := max(host.last_start + delay, host.paused_until) - self._clock()) > 0 or (
                    self.shared is not None and delay > 0
                    and (wait := await asyncio.to_thread(self.shared.take_turn, key, delay)) > 0):
                await asyncio.sleep(wait)
            host.last_start, host.spacing = self._clock(), delay
        except BaseException:
            self._give_back(key, host)
            await self._free_shared(granted)
            raise
        return granted

    async def _take_shared(self, key: str) -> str:
        shared = self.shared
        assert shared is not None
        pause = 0.05
        while True:
            asking = asyncio.ensure_future(asyncio.to_thread(shared.take_slot, key, self.per_host,
                                                             self.slot_ttl))
            try:
                holder = await asyncio.shield(asking)
            except asyncio.CancelledError:
                # The database may grant the slot all the same: given back when it answers,
                # not held to its expiry while other processes wait for the host.
                asking.add_done_callback(lambda done: self._forget(shared, key, done))
                raise
            if holder is not None:
                return holder
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)

    @staticmethod
    def _forget(shared: HostTurns, key: str, asked: asyncio.Future[str | None]) -> None:
        if not asked.cancelled() and asked.exception() is None and (holder := asked.result()) is not None:
            asyncio.get_running_loop().run_in_executor(None, shared.free_slot, key, holder)

    async def _free_shared(self, granted: HostSlot) -> None:
        holder, granted.holder = granted.holder, None
        if holder is None or self.shared is None:
            return
        try:
            # Shielded: a cancelled visit still gives its slot back rather than hold it to expiry.
            await asyncio.shield(asyncio.to_thread(self.shared.free_slot, granted.host, holder))
        except DeepBotError as exc:  # the database out of reach too long: the slot expires instead
            log.warning("could not give back a slot of %s: %s", granted.host, exc)

    async def turn(self, url: str) -> None:
        """Wait until ``url``'s host may be asked again, then count the request as its latest.
        For a request the crawl does not choose but must answer for: a document the page
        of a route in flight fetches by itself (a reload in a timer, a meta refresh). The
        route already holds its host's slot, so no slot is taken."""
        key = host_key(url)
        delay = self._spacing(url)
        host = self._hosts.get(key)
        if not key or (host is None and delay <= 0):
            return  # nobody to be polite to, or nothing to wait for
        if host is None:
            host = self._hosts[key] = _Host(asyncio.Semaphore(self.per_host))
        while (wait := max(host.last_start + delay, host.paused_until) - self._clock()) > 0:
            await asyncio.sleep(wait)
        host.last_start, host.spacing = self._clock(), delay

    def release(
        self, granted: HostSlot, status: int | None = None, retry_after: str | float | None = None
    ) -> None:
        """Return the slot; ``status``/``retry_after`` are recorded if given."""
        if status is not None:
            granted.record(status, retry_after)
        if granted.released:
            return
        granted.released = True
        host = self._hosts.get(granted.host)
        if host is not None:
            self._give_back(granted.host, host)

    def wait_time(self, url: str) -> float:
        """Seconds before a visit to ``url``'s host could start (ignoring busy slots):
        the engine may give a lease back rather than hold a worker that long."""
        host = self._hosts.get(host_key(url))
        if host is None:
            return 0.0
        return max(0.0, self._ready_at(host) - self._clock())

    def refusing(self, url: str) -> bool:
        """Whether ``url``'s host refused ``give_up_after`` visits in a row."""
        host = self._hosts.get(host_key(url))
        return host is not None and host.strikes >= self.give_up_after

    def paused_for(self, key: str) -> float:
        host = self._hosts.get(key)
        return max(0.0, host.paused_until - self._clock()) if host else 0.0

    def _spacing(self, url: str) -> float:
        asked = self.crawl_delay(url) if self.crawl_delay else None
        return max(self.min_delay, min(asked or 0.0, self.max_crawl_delay))

    def _record(self, key: str, status: int | None, retry_after: str | float | None, *,
                refused: bool = False) -> float:
        host = self._hosts.get(key)
        if host is None or (status is None and not refused):
            return 0.0
        if status not in BACKOFF_STATUSES and not refused:
            host.strikes = 0
            return 0.0
        host.strikes += 1
        asked = retry_after_seconds(retry_after)
        pause = asked if asked is not None else self.backoff * 2 ** (host.strikes - 1)
        pause = min(pause, self.max_backoff)
        host.paused_until = max(host.paused_until, self._clock() + pause)
        if self.shared is not None:
            self.shared.pause_host(key, pause)
        return pause

    def _give_back(self, key: str, host: _Host) -> None:
        host.slots.release()
        host.users -= 1
        if host.users == 0 and host.strikes == 0 and self._ready_at(host) <= self._clock():
            del self._hosts[key]  # nothing left to remember: keeps a long crawl's memory flat

    @staticmethod
    def _ready_at(host: _Host) -> float:
        return max(host.last_start + host.spacing, host.paused_until)
