"""Fonts and media are blocked in the browser; everything else loads, from the cache too."""

from __future__ import annotations

import http.server
import threading
from collections import Counter
from collections.abc import Iterator

import pytest

from deepbot.browser.blocking import MEDIA_URL, PATTERNS
from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler

pytestmark = pytest.mark.browser

_PAGE = b"""<!DOCTYPE html><html><head><title>Media</title><link rel="stylesheet" href="/site.css">
<script src="/app.js"></script></head><body><h1 id="h">A page with media</h1>
<audio src="/clip.mp3" autoplay></audio><video src="/media/stream?id=1" preload="auto"></video>
<video preload="auto"><source src="/MOVIE.MP4?v=2" type="video/mp4"></video>
<p><a href="/next">Next page</a> <a href="/trailer.webm">Trailer</a></p></body></html>"""
_GAVE_UP = """() =>
  [...document.querySelectorAll('audio, video')].every((m) => m.error || m.networkState === 3)
  && document.fonts.size > 0
  && [...document.fonts].every((f) => f.status === 'error' || f.status === 'loaded')"""
_CSS = b"@font-face { font-family: F; src: url(/fonts/f.woff2) format('woff2') } h1 { font-family: F }"


@pytest.fixture
def media_site() -> Iterator[tuple[str, Counter[str]]]:
    hits: Counter[str] = Counter()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            hits[path] += 1
            body, ctype, extra = b"", "application/octet-stream", {}
            if path in ("/", "/next"):
                body, ctype = _PAGE, "text/html"
            elif path == "/site.css":
                body, ctype, extra = _CSS, "text/css", {"Cache-Control": "max-age=3600"}
            elif path == "/app.js":
                body, ctype = b"document.title += ' (js ran)';", "text/javascript"
            else:
                body = b"\0" * 64
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


def test_patterns_and_regex_name_the_same_extensions() -> None:
    assert MEDIA_URL.search("http://h/a/B.WOFF2?x=1") and MEDIA_URL.search("http://h/v.mp4#t")
    assert not MEDIA_URL.search("http://h/mp4.html")
    assert {"urlPattern": "*.mp4?*"} in PATTERNS and {"resourceType": "Font"} in PATTERNS


async def test_pool_pages_load_scripts_and_cached_css_but_no_fonts_or_media(
        media_site: tuple[str, Counter[str]]) -> None:
    base, hits = media_site
    async with BrowserPool(1, BrowserSettings()) as pool, pool.slot() as slot:
        for path in ("/", "/next"):
            await slot.page.goto(base + path, wait_until="load")
            # Media and fonts start loading after load: wait until each has loaded or failed,
            # so that the counts below are of requests made or refused, not of ones not yet made.
            await slot.page.wait_for_function(_GAVE_UP, timeout=10_000)
        title = await slot.page.title()
        family = await slot.page.evaluate("getComputedStyle(document.getElementById('h')).fontFamily")
    assert title == "Media (js ran)" and family == "F"  # the stylesheet and the script did load
    assert hits["/"] == hits["/next"] == 1
    assert hits["/site.css"] == 1  # the second page took it from the HTTP cache: nothing intercepts it
    blocked = ("/fonts/f.woff2", "/clip.mp3", "/media/stream", "/MOVIE.MP4")
    assert {path: hits[path] for path in blocked} == dict.fromkeys(blocked, 0)


async def test_a_crawl_records_a_media_link_failed_without_retrying_it(
        media_site: tuple[str, Counter[str]], tmp_path) -> None:
    base, hits = media_site
    config = CrawlConfig(seeds=[base + "/"], store=tmp_path / "store.sqlite", workers=1, depth=1,
                         obey_robots=False, max_attempts=3)
    async with Crawler(config) as crawler:
        urls = sorted([doc.final_url async for doc in crawler.run()])
        stats = crawler.stats
    assert urls == [base + "/", base + "/next"]
    assert hits["/trailer.webm"] == 0
    assert stats.failed == 1 and stats.retried == 0
    assert any("ERR_BLOCKED_BY_CLIENT" in reason for reason in stats.failures)
