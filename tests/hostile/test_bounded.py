"""Responses are bounded while they arrive: a body past the cap, or one
that inflates past the ratio bound, fails its route "response too large" long before it
is all there, whether the browser shows it, downloads it, or a script of the page fetches it."""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from deepbot.browser.bounded import Bounds, TooLarge, fetch
from deepbot.browser.pool import BrowserPool
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.routes import Route, SessionState, Via
from deepbot.routes.sequences import navigate_step
from tests.hostile.conftest import Answer, Hostile, html

_MB = 1 << 20


def zeros_gzip(inflated: int) -> bytes:
    """A gzip of ``inflated`` zero bytes (~1,000 times smaller)."""
    return _gzip(bytes(_MB) for _ in range(inflated // _MB))


def _gzip(parts: Iterable[bytes]) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join([*(packer.compress(part) for part in parts), packer.flush()])


class Sent:
    """Bytes a server's answers wrote before the client went away."""

    def __init__(self) -> None:
        self.bytes = 0
        self._lock = threading.Lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.bytes += n


def streamed(ctype: str, size: int, sent: Sent, *, encoding: str | None = None,
             body: bytes | None = None) -> Answer:
    """``size`` bytes of text (or ``body``), no Content-Length: the end is the connection's."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", ctype)
        if encoding:
            handler.send_header("Content-Encoding", encoding)
        handler.end_headers()
        for chunk in _chunks(size, body):
            try:
                handler.wfile.write(chunk)
            except OSError:
                return  # the client gave up: what was sent is counted
            sent.add(len(chunk))

    return answer


def _chunks(size: int, body: bytes | None) -> Iterator[bytes]:
    if body is not None:
        for start in range(0, len(body), 64 * 1024):
            yield body[start:start + 64 * 1024]
        return
    block = b"all work and no play makes a crawler dull\n" * 1500
    for _ in range(0, size, len(block)):
        yield block


def _route(url: str) -> Route:
    steps = navigate_step(url)
    return Route(key=url, url=url, via=Via.LINK, steps=steps, program=steps)


async def _visit(url: str, options: VisitOptions) -> object:
    async with BrowserPool(1) as pool, pool.slot() as slot:
        return await visit(_route(url), SessionState(), slot, options)


_FETCHING = "<h1>fetching</h1><script>fetch('{}').then((r) => r.arrayBuffer())</script><p>words</p>"
_SMALL = VisitOptions(max_body_bytes=2 * _MB, max_scrolls=0)


@pytest.mark.browser
@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["page", "download", "subresource"])
async def test_a_body_past_the_cap_fails_the_route_while_it_arrives(hostile: Hostile, kind: str) -> None:
    sent = Sent()
    # 400 MB of text: shown by the browser, handed to its download manager, or fetched by a script.
    ctype = "application/octet-stream" if kind == "download" else "text/plain"
    hostile.routes["/big"] = streamed(ctype, 400 * _MB, sent)
    hostile.routes["/page"] = html(_FETCHING.format("/big"))
    with pytest.raises(TooLarge, match="response too large"):
        await _visit(hostile.url("/page" if kind == "subresource" else "/big"), _SMALL)
    # Given up as it came, not after. (The browser reads loopback at hundreds of MB/s, and
    # hears of its progress through the driver: a few dozen MB pass before the page is closed.)
    assert sent.bytes < 150 * _MB, sent.bytes


@pytest.mark.browser
@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["download", "subresource"])
async def test_a_decompression_bomb_fails_the_route_as_it_inflates(hostile: Hostile, kind: str) -> None:
    sent = Sent()
    bomb = zeros_gzip(100 * _MB)  # ~100 KB over the wire
    hostile.routes["/bomb"] = streamed("application/octet-stream", 0, sent, encoding="gzip", body=bomb)
    hostile.routes["/page"] = html(_FETCHING.format("/bomb"))
    with pytest.raises(TooLarge, match="response too large"):
        await _visit(hostile.url("/page" if kind == "subresource" else "/bomb"), VisitOptions(max_scrolls=0))


def test_the_streamed_download_inflates_within_the_bounds(hostile: Hostile) -> None:
    sent = Sent()
    text = b"a page of words, compressed as servers do\n" * 2000
    hostile.routes["/fine"] = streamed("text/plain", 0, sent, encoding="gzip", body=_gzip([text]))
    hostile.routes["/bomb"] = streamed("application/octet-stream", 0, sent, encoding="gzip",
                                       body=zeros_gzip(5 * _MB))
    hostile.routes["/big"] = streamed("application/octet-stream", 100 * _MB, sent)
    got = asyncio.run(fetch(hostile.url("/fine"), Bounds()))
    assert got.status == 200 and got.body == text
    # Inflating 1,000×: given up past 1 MB, long before the 20 MB cap.
    with pytest.raises(TooLarge, match=r"inflated [\d,]+×"):
        asyncio.run(fetch(hostile.url("/bomb"), Bounds()))
    with pytest.raises(TooLarge, match="passed 1,048,576 bytes"):
        asyncio.run(fetch(hostile.url("/big"), Bounds(max_bytes=_MB)))
    assert sent.bytes < 30 * _MB



async def test_the_download_keeps_to_the_egress_rules_and_the_bounds_behind_the_proxy() -> None:
    from deepbot.browser.egress import BLOCKED_HEADER, EgressProxy

    seed, internal = Hostile(), Hostile()
    sent = Sent()
    seed.routes["/bomb"] = streamed("application/octet-stream", 0, sent, encoding="gzip",
                                    body=zeros_gzip(5 * _MB))
    internal.routes["/secret"] = html("the internal secret")
    try:
        async with EgressProxy(allowed_origins=(("127.0.0.1", seed.port),)) as proxy:
            through = f"http://127.0.0.1:{proxy.port}"
            # --block-private: the seed's own origin is reached through the proxy, bounded all the same...
            with pytest.raises(TooLarge, match="response too large"):
                await fetch(seed.url("/bomb"), Bounds(), proxy=through)
            # ...and another service on this machine is refused, as the browser's requests are.
            refused = await fetch(internal.url("/secret"), Bounds(), proxy=through)
        assert refused.status == 403 and refused.headers.get(BLOCKED_HEADER.lower()) == "blocked"
        assert b"secret" not in refused.body
    finally:
        seed.close()
        internal.close()
