"""robots.txt: Google's compliance cases, RFC 9309's fetch rules, and real HTTP."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from deepbot.crawl.robots import (
    MAX_BYTES,
    RobotsCache,
    RobotsReason,
    RobotsResponse,
    RobotsRules,
    UrllibFetcher,
    is_allowed,
    origin_of,
    product_token,
)
from fixtures.server import FixtureServer

DATA = Path(__file__).parent / "data" / "robots"
UA = "DeepBot/0.1 (+https://example.org/bot)"


# -- Google's compliance cases --------------------------------------------------------


def load_cases() -> list[tuple[str, bytes, str, str, bool]]:
    """(name, robots.txt bytes, url, user agent, expected allowed) for all 400."""
    cases = []
    for file, bodies in json.loads((DATA / "ctc_cases.json").read_text()).items():
        for i, body in enumerate(bodies):
            robots_txt = base64.b64decode(body["robotstxt_b64"])
            for j, want in enumerate(body["test_expectations"]):
                allowed = want["expected_outcome"] == "ALLOWED"
                cases.append((f"{file}#{i}.{j}", robots_txt, want["testurl"], want["useragent"], allowed))
    return cases


CASES = load_cases()
KNOWN_FAILURES: dict[str, str] = yaml.safe_load((DATA / "known_failures.yaml").read_text())


def known_failure(name: str) -> list[pytest.MarkDecorator]:
    """A listed case must fail (by its assertion): strict, so one that passes fails."""
    if name not in KNOWN_FAILURES:
        return []
    return [pytest.mark.xfail(raises=AssertionError, strict=True, reason=KNOWN_FAILURES[name])]


def test_the_suite_is_whole_and_the_known_failures_are_few() -> None:
    names = {name for name, *_ in CASES}
    assert len(CASES) == len(names) == 400
    assert set(KNOWN_FAILURES) <= names, "a known failure names no case"
    assert len(CASES) - len(KNOWN_FAILURES) >= 381


@pytest.mark.parametrize(
    ("robots_txt", "url", "agent", "allowed"),
    [pytest.param(*case, id=name, marks=known_failure(name)) for name, *case in CASES],
)
def test_google_compliance_case(robots_txt: bytes, url: str, agent: str, allowed: bool) -> None:
    assert is_allowed(robots_txt, url, agent) is allowed


# -- the pure decision ----------------------------------------------------------------


@pytest.mark.parametrize("bom", [b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"])
def test_a_byte_order_mark_even_cut_short_is_skipped(bom: bytes) -> None:
    assert not is_allowed(bom + b"User-agent: *\nDisallow: /x\n", "http://h/x", "DeepBot")


def test_a_str_body_with_a_bom_reads_the_same() -> None:
    assert not is_allowed("\ufeffUser-agent: *\nDisallow: /x\n", "http://h/x", "DeepBot")


def test_groups_match_the_whole_product_token() -> None:
    robots = "User-agent: deepbot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n"
    assert not is_allowed(robots, "http://h/a", "DeepBot")  # case-insensitive
    assert is_allowed(robots, "http://h/b", "DeepBot")  # our group replaces "*"
    assert is_allowed(robots, "http://h/a", "DeepBotX")  # not a prefix match ...
    assert not is_allowed(robots, "http://h/b", "DeepBotX")  # ... so it falls to "*"
    assert is_allowed("User-agent: Deep\nDisallow: /\n", "http://h/a", "DeepBot")


def test_a_group_name_ends_at_the_first_character_outside_a_token() -> None:
    assert not is_allowed("User-agent: DeepBot/2.0 extra\nDisallow: /\n", "http://h/", "deepbot")
    assert not is_allowed("User agent DeepBot\nDisallow: /\n", "http://h/", "DeepBot")  # a typo protego reads
    assert not is_allowed("User-agent: * # everyone\nDisallow: /\n", "http://h/", "DeepBot")


@pytest.mark.parametrize(
    ("rule", "url"),
    [("/%E3%83%84", "http://h/ツ"), ("/ツ", "http://h/%E3%83%84"), ("/a b", "http://h/a%20b"), ("/*?q=ü", "http://h/s?q=%C3%BC")],
)
def test_raw_and_percent_encoded_spellings_match_alike(rule: str, url: str) -> None:
    assert not is_allowed(f"User-agent: *\nDisallow: {rule}\n", url, "DeepBot")


def test_rules_past_500_kib_are_ignored() -> None:
    filler = b"# " + b"x" * (MAX_BYTES + 10) + b"\n"
    assert is_allowed(b"User-agent: *\n" + filler + b"Disallow: /\n", "http://h/", "DeepBot")


def test_crawl_delay_is_read_for_our_group() -> None:
    rules = RobotsRules("User-agent: *\nCrawl-delay: 4\n\nUser-agent: DeepBot\nCrawl-delay: 1.5\n", "DeepBot")
    assert rules.crawl_delay == 1.5
    assert RobotsRules("User-agent: *\nDisallow: /x\n", "DeepBot").crawl_delay is None


def test_product_token_of_a_user_agent_string() -> None:
    assert product_token(UA) == "DeepBot"
    assert product_token("my_crawler-2") == "my_crawler-"
    with pytest.raises(ValueError, match="product token"):
        product_token("/1.0")


def test_origins_are_scheme_host_and_port() -> None:
    assert origin_of("https://Example.COM/a?b") == ("https://example.com:443", "https://example.com:443/robots.txt")
    assert origin_of("http://example.com:8080/") == ("http://example.com:8080", "http://example.com:8080/robots.txt")
    assert origin_of("http://[::1]/x") == ("http://[::1]:80", "http://[::1]:80/robots.txt")
    assert origin_of("data:text/plain,hi") is None and origin_of("about:blank") is None


# -- the cache, with a scripted fetcher ----------------------------------------------


Script = dict[str, RobotsResponse | BaseException]  # url -> answer, or what to raise


class FakeFetcher:
    """Answers from a script: url -> RobotsResponse or an exception to raise."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.calls: list[str] = []
        self.gate: asyncio.Event | None = None

    async def __call__(self, url: str) -> RobotsResponse:
        self.calls.append(url)
        if self.gate is not None:
            await self.gate.wait()
        answer = self.script.get(url, RobotsResponse(404))
        if isinstance(answer, BaseException):
            raise answer
        return answer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


ROBOTS_URL = "http://h.test:80/robots.txt"
RULES = RobotsResponse(200, b"User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n")


def cache_with(script: Script, **options: Any) -> tuple[RobotsCache, FakeFetcher, Clock]:
    fetcher, clock = FakeFetcher(script), Clock()
    return RobotsCache(UA, fetcher=fetcher, clock=clock, **options), fetcher, clock


async def test_rules_of_a_2xx_answer_apply() -> None:
    cache, fetcher, _ = cache_with({ROBOTS_URL: RULES})
    decision = await cache.allowed("http://h.test/public")
    assert (decision.allowed, decision.reason) == (True, RobotsReason.ALLOWED)
    decision = await cache.allowed("http://h.test/private/x")
    assert (decision.allowed, decision.reason) == (False, RobotsReason.DISALLOWED)
    assert cache.crawl_delay("http://h.test/anything") == 2.0
    assert fetcher.calls == [ROBOTS_URL]  # once per origin


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410])
async def test_a_4xx_answer_allows_everything(status: int) -> None:
    cache, _, _ = cache_with({ROBOTS_URL: RobotsResponse(status)})
    decision = await cache.allowed("http://h.test/private/x")
    assert (decision.allowed, decision.reason) == (True, RobotsReason.UNAVAILABLE)
    assert cache.crawl_delay("http://h.test/") is None


@pytest.mark.parametrize(
    "answer", [RobotsResponse(500), RobotsResponse(503), RobotsResponse(429), ConnectionRefusedError("no")]
)
async def test_an_unreachable_robots_txt_blocks_the_host(answer: RobotsResponse | BaseException) -> None:
    cache, _, _ = cache_with({ROBOTS_URL: answer})
    decision = await cache.allowed("http://h.test/public")
    assert (decision.allowed, decision.reason) == (False, RobotsReason.UNREACHABLE)


async def test_a_broken_fetcher_counts_as_unreachable() -> None:
    cache, _, _ = cache_with({ROBOTS_URL: RuntimeError("bug")})
    assert not (await cache.allowed("http://h.test/")).allowed


async def test_an_unreachable_host_is_asked_again_with_growing_waits() -> None:
    cache, fetcher, clock = cache_with({ROBOTS_URL: RobotsResponse(503)}, retry_s=60, max_retry_s=100)
    for wait in (60, 100, 100):  # 60, then doubled but capped at 100
        assert not (await cache.allowed("http://h.test/")).allowed
        calls = len(fetcher.calls)
        clock.now += wait - 1
        await cache.allowed("http://h.test/")
        assert len(fetcher.calls) == calls  # still cached
        clock.now += 1
    fetcher.script[ROBOTS_URL] = RULES  # the host answers again
    assert (await cache.allowed("http://h.test/public")).allowed
    assert not (await cache.allowed("http://h.test/private/")).allowed


async def test_a_known_copy_serves_while_the_host_is_unreachable() -> None:
    cache, fetcher, clock = cache_with({ROBOTS_URL: RULES}, ttl_s=3600)
    assert (await cache.allowed("http://h.test/public")).allowed
    fetcher.script[ROBOTS_URL] = RobotsResponse(503)
    clock.now += 3600
    assert (await cache.allowed("http://h.test/public")).allowed  # RFC 9309 §2.4
    assert not (await cache.allowed("http://h.test/private/x")).allowed
    assert len(fetcher.calls) == 2


async def test_rules_are_fetched_again_after_the_ttl_capped_at_a_day() -> None:
    cache, fetcher, clock = cache_with({ROBOTS_URL: RULES}, ttl_s=7 * 86400)
    await cache.allowed("http://h.test/")
    clock.now += 86400 - 1
    await cache.allowed("http://h.test/")
    assert len(fetcher.calls) == 1
    fetcher.script[ROBOTS_URL] = RobotsResponse(200, b"User-agent: *\nDisallow: /public\n")
    clock.now += 1
    assert not (await cache.allowed("http://h.test/public")).allowed
    assert len(fetcher.calls) == 2


async def test_each_origin_has_its_own_robots_txt() -> None:
    cache, fetcher, _ = cache_with({ROBOTS_URL: RULES})
    for url in ("http://h.test/private/", "https://h.test/private/", "http://h.test:8080/private/"):
        await cache.allowed(url)
    assert fetcher.calls == [ROBOTS_URL, "https://h.test:443/robots.txt", "http://h.test:8080/robots.txt"]
    assert (await cache.allowed("https://h.test/private/")).allowed  # 404 there


async def test_concurrent_callers_share_one_fetch() -> None:
    cache, fetcher, _ = cache_with({ROBOTS_URL: RULES})
    fetcher.gate = asyncio.Event()
    waiting = [asyncio.create_task(cache.allowed(f"http://h.test/page/{i}")) for i in range(10)]
    await asyncio.sleep(0.01)
    waiting[0].cancel()  # one caller gives up: the others still get their answer
    fetcher.gate.set()
    results = await asyncio.gather(*waiting[1:])
    assert all(r.allowed for r in results) and fetcher.calls == [ROBOTS_URL]


def hops(n: int, final: RobotsResponse = RULES) -> Script:
    """robots.txt reached after n redirects, alternately 302 and 301."""
    script: Script = {}
    url = ROBOTS_URL
    for i in range(n):
        script[url] = RobotsResponse(301 if i % 2 else 302, location=f"/hop/{i + 1}")
        url = f"http://h.test:80/hop/{i + 1}"
    script[url] = final
    return script


async def test_five_redirects_are_followed() -> None:
    cache, fetcher, _ = cache_with(hops(5))
    assert not (await cache.allowed("http://h.test/private/x")).allowed
    assert len(fetcher.calls) == 6


async def test_more_than_five_redirects_mean_no_robots_txt() -> None:
    cache, fetcher, _ = cache_with(hops(6))
    decision = await cache.allowed("http://h.test/private/x")
    assert (decision.allowed, decision.reason) == (True, RobotsReason.UNAVAILABLE)
    assert len(fetcher.calls) == 6  # the sixth redirect is not followed


async def test_rules_reached_on_another_host_govern_the_first() -> None:
    script: Script = {
        ROBOTS_URL: RobotsResponse(301, location="https://cdn.test/site/robots.txt"),
        "https://cdn.test/site/robots.txt": RULES,
    }
    cache, _, _ = cache_with(script)
    assert not (await cache.allowed("http://h.test/private/x")).allowed


async def test_a_redirect_without_location_means_no_robots_txt() -> None:
    cache, _, _ = cache_with({ROBOTS_URL: RobotsResponse(302)})
    assert (await cache.allowed("http://h.test/private/")).reason == RobotsReason.UNAVAILABLE


async def test_non_http_urls_are_not_governed() -> None:
    cache, fetcher, _ = cache_with({})
    decision = await cache.allowed("data:text/html,<p>hi</p>")
    assert (decision.allowed, decision.reason) == (True, RobotsReason.NOT_HTTP)
    assert fetcher.calls == []


async def test_another_product_token_can_be_asked() -> None:
    body = b"User-agent: *\nDisallow: /x\n\nUser-agent: OtherBot\nDisallow: /\n"
    cache, _, _ = cache_with({ROBOTS_URL: RobotsResponse(200, body)})
    assert (await cache.allowed("http://h.test/y")).allowed
    assert not (await cache.allowed("http://h.test/y", "otherbot")).allowed


async def test_the_cache_forgets_the_least_recently_used_origin() -> None:
    cache, fetcher, _ = cache_with({}, max_origins=2)
    for host in ("a", "b", "a", "c", "a", "b"):
        await cache.allowed(f"http://{host}.test/")
    assert [u.split("/")[2] for u in fetcher.calls] == ["a.test:80", "b.test:80", "c.test:80", "b.test:80"]


# -- over real HTTP -------------------------------------------------------------------


@pytest.fixture
def serve() -> Iterator[list[FixtureServer]]:
    servers: list[FixtureServer] = []
    yield servers
    for server in servers:
        server.stop()


def start(servers: list[FixtureServer], robots: str) -> FixtureServer:
    server = FixtureServer(options={"robots": robots}).start()
    servers.append(server)
    return server


async def test_http_robots_txt_rules(serve: list[FixtureServer]) -> None:
    site = start(serve, "ok")
    cache = RobotsCache(UA)
    assert (await cache.allowed(site.url("/books/"))).allowed
    decision = await cache.allowed(site.url("/private/secret.html"))
    assert (decision.allowed, decision.reason) == (False, RobotsReason.DISALLOWED)
    assert not (await cache.allowed(site.url("/"), "BadBot")).allowed
    assert cache.crawl_delay(site.url("/")) == 0.0
    assert site.hits_for("/robots.txt") == 1


async def test_http_503_blocks_the_host_and_404_allows_it(serve: list[FixtureServer]) -> None:
    down, missing = start(serve, "503"), start(serve, "404")
    cache = RobotsCache(UA)
    blocked = await cache.allowed(down.url("/books/"))
    assert (blocked.allowed, blocked.reason) == (False, RobotsReason.UNREACHABLE)
    free = await cache.allowed(missing.url("/private/secret.html"))
    assert (free.allowed, free.reason) == (True, RobotsReason.UNAVAILABLE)


async def test_http_redirects_are_followed_five_times_at_most(serve: list[FixtureServer]) -> None:
    five, six = start(serve, "redirect:5"), start(serve, "redirect:6")
    cache = RobotsCache(UA)
    assert not (await cache.allowed(five.url("/private/x"))).allowed
    assert (await cache.allowed(six.url("/private/x"))).reason == RobotsReason.UNAVAILABLE
    assert six.hits_for("/robots-hop/6/6") == 0  # the sixth redirect was not followed


async def test_http_unreachable_port_blocks_the_host() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    decision = await RobotsCache(UA).allowed(f"http://127.0.0.1:{port}/page")
    assert (decision.allowed, decision.reason) == (False, RobotsReason.UNREACHABLE)


async def test_http_a_silent_server_times_out() -> None:
    with socket.socket() as silent:  # accepts connections (backlog) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        fetcher = UrllibFetcher(UA, timeout_s=0.3)
        cache = RobotsCache(UA, fetcher=fetcher)
        decision = await asyncio.wait_for(cache.allowed(f"http://127.0.0.1:{silent.getsockname()[1]}/"), 5)
    assert (decision.allowed, decision.reason) == (False, RobotsReason.UNREACHABLE)
