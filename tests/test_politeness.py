"""Politeness: per-host concurrency, spacing, Crawl-delay, and backoff on 429/503.

Delays are tenths of a second; assertions only bound waits from below (a slow
machine makes them longer, never shorter) or check decisions on a fake clock.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from deepbot.crawl.politeness import Politeness, host_key, retry_after_seconds

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 5 ", 5.0),
        ("0", 0.0),
        ("1.5", 1.5),
        (7, 7.0),
        (format_datetime(NOW + timedelta(seconds=90), usegmt=True), 90.0),
        ("Thu, 01 Jan 2026 12:01:00 GMT", 60.0),
        ("Thursday, 01-Jan-26 12:00:30 GMT", 30.0),  # the obsolete RFC 850 form
        (format_datetime(NOW - timedelta(hours=1), usegmt=True), 0.0),  # already past
        (None, None),
        ("", None),
        ("-3", None),
        (-3, None),
        ("soon", None),
        ("Thu, 99 Foo 2026", None),
    ],
)
def test_retry_after_seconds(value: str | float | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, now=NOW) == seconds


def test_hosts_are_names_and_unusual_ports() -> None:
    assert host_key("http://Example.COM:80/a") == host_key("https://example.com/b") == "example.com"
    assert host_key("https://example.com:8443/") == "example.com:8443"
    assert host_key("http://127.0.0.1:8123/x") == "127.0.0.1:8123"
    assert host_key("data:text/plain,hi") == ""


async def test_at_most_per_host_visits_at_once() -> None:
    politeness = Politeness(per_host=2, min_delay=0)
    running: dict[str, int] = {"a": 0, "b": 0}
    peak: dict[str, int] = {"a": 0, "b": 0}
    overall = [0, 0]

    async def visit(host: str) -> None:
        async with politeness.slot(f"http://{host}.test/page"):
            running[host] += 1
            overall[0] += 1
            peak[host] = max(peak[host], running[host])
            overall[1] = max(overall[1], overall[0])
            await asyncio.sleep(0.05)
            running[host] -= 1
            overall[0] -= 1

    await asyncio.gather(*(visit(h) for h in "aaaaabbbbb"))
    assert peak == {"a": 2, "b": 2}
    assert overall[1] == 4  # two hosts do not wait for each other


async def test_visits_to_one_host_start_min_delay_apart() -> None:
    politeness = Politeness(per_host=4, min_delay=0.1)
    starts: list[float] = []

    async def visit() -> None:
        async with politeness.slot("http://a.test/"):
            starts.append(time.monotonic())

    await asyncio.gather(*(visit() for _ in range(4)))
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert all(gap >= 0.1 - 0.01 for gap in gaps), gaps  # 10 ms for the test's own wake-ups


async def test_hosts_do_not_wait_for_each_other() -> None:
    politeness = Politeness(per_host=1, min_delay=30)
    t0 = time.monotonic()
    for host in ("a", "b", "c"):
        async with politeness.slot(f"http://{host}.test/"):
            pass
    assert time.monotonic() - t0 < 10


async def test_crawl_delay_is_honoured_up_to_a_cap() -> None:
    asked = {"slow.test": 0.15, "greedy.test": 3500.0}
    politeness = Politeness(
        per_host=2, min_delay=0, max_crawl_delay=0.2, crawl_delay=lambda url: asked[host_key(url)]
    )
    for host, least in (("slow.test", 0.15), ("greedy.test", 0.2)):
        async with politeness.slot(f"http://{host}/1"):
            first = time.monotonic()
        async with politeness.slot(f"http://{host}/2"):
            gap = time.monotonic() - first
        assert least - 0.01 <= gap < 2.0


async def test_a_503_with_retry_after_pauses_the_host() -> None:
    politeness = Politeness(per_host=2, min_delay=0)
    async with politeness.slot("http://a.test/1") as host:
        paused = time.monotonic()
        assert host.record(503, "0.2") == 0.2
    async with politeness.slot("http://a.test/2") as host:
        assert time.monotonic() - paused >= 0.2 - 0.01
        assert host.record(200) == 0.0


async def test_a_pause_reaches_visits_already_waiting() -> None:
    politeness = Politeness(per_host=1, min_delay=0)
    first = await politeness.acquire("http://a.test/1")
    waiting = asyncio.create_task(politeness.acquire("http://a.test/2"))
    await asyncio.sleep(0.01)
    politeness.release(first, 429, "0.2")  # reported on release
    t0 = time.monotonic()
    second = await waiting
    assert time.monotonic() - t0 >= 0.2 - 0.01
    politeness.release(second)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_backoff_without_retry_after_doubles_and_resets() -> None:
    clock = FakeClock()
    politeness = Politeness(per_host=1, min_delay=0, backoff=5, max_backoff=30, clock=clock)
    pauses = []
    for status in (503, 429, 503, 503, 200, 503):
        async with politeness.slot("http://a.test/") as host:
            pauses.append(host.record(status))
        clock.now += 1000  # let the pause pass, on the fake clock
    assert pauses == [5, 10, 20, 30, 0, 5]


async def test_a_pause_is_reported_until_it_ends() -> None:
    clock = FakeClock()
    politeness = Politeness(min_delay=0, max_backoff=600, clock=clock)
    async with politeness.slot("http://a.test/") as host:
        assert host.record(503, "86400") == 600  # capped
        clock.now += 100
        assert host.backoff_seconds() == 500
    assert politeness.wait_time("http://a.test/other") == 500
    assert politeness.wait_time("http://b.test/") == 0
    clock.now += 500
    assert politeness.wait_time("http://a.test/") == 0


async def test_other_statuses_do_not_pause() -> None:
    politeness = Politeness(min_delay=0)
    for status in (200, 301, 404, 500, None):
        async with politeness.slot("http://a.test/") as host:
            assert host.record(status, "60") == 0
    assert politeness.wait_time("http://a.test/") == 0


async def test_waiting_sleeps_instead_of_polling(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()  # time passes only in the sleeps: no margin for a slow machine
    politeness = Politeness(per_host=1, min_delay=0.2, clock=clock)
    sleeps: list[float] = []
    real_sleep = asyncio.sleep

    async def counting_sleep(delay: float) -> None:
        sleeps.append(delay)
        clock.now += delay
        await real_sleep(0)

    async with politeness.slot("http://a.test/"):
        pass
    monkeypatch.setattr(asyncio, "sleep", counting_sleep)
    async with politeness.slot("http://a.test/"):
        pass
    assert sleeps == [pytest.approx(0.2)]  # one sleep, the whole delay


async def test_a_cancelled_waiter_gives_its_place_back() -> None:
    politeness = Politeness(per_host=1, min_delay=0)
    holder = await politeness.acquire("http://a.test/")
    waiter = asyncio.create_task(politeness.acquire("http://a.test/"))
    await asyncio.sleep(0.01)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    politeness.release(holder)
    politeness.release(holder)  # twice is harmless
    again = await asyncio.wait_for(politeness.acquire("http://a.test/"), 1)
    other = asyncio.create_task(politeness.acquire("http://a.test/"))
    await asyncio.sleep(0.01)
    assert not other.done()  # still one at a time: nothing was over-released
    politeness.release(again)
    politeness.release(await asyncio.wait_for(other, 1))


async def test_urls_without_a_host_are_not_limited() -> None:
    politeness = Politeness(per_host=1, min_delay=10)
    async with politeness.slot("data:text/html,a"), politeness.slot("about:blank") as host:
        assert host.record(503, "60") == 0


async def test_a_refusal_pauses_the_host_whatever_its_status() -> None:
    """A bot check answers 200 or 403: reported as refused, it pauses the host like a 429."""
    clock = FakeClock()
    politeness = Politeness(per_host=1, min_delay=0, backoff=5, max_backoff=30, clock=clock)
    pauses = []
    for status, refused in ((200, True), (403, True), (None, True), (200, False), (403, True)):
        async with politeness.slot("http://a.test/") as host:
            pauses.append(host.record(status, refused=refused))
        clock.now += 1000
    assert pauses == [5, 10, 20, 0, 5]


async def test_a_host_refusing_visit_after_visit_is_given_up_and_any_other_answer_forgives() -> None:
    clock = FakeClock()
    politeness = Politeness(per_host=1, min_delay=0, give_up_after=3, clock=clock)
    seen = []
    for status in (429, 503, 200, 429, 429, 429):
        async with politeness.slot("http://a.test/") as host:
            host.record(status)
        clock.now += 1000
        seen.append(politeness.refusing("http://a.test/x"))
    assert seen == [False, False, False, False, False, True]
    assert not politeness.refusing("http://b.test/")
