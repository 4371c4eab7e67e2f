"""A page cannot steer the crawl into another service: scope by origin on every hop, and
--block-private keeps the browser from even connecting."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from deepbot.crawl.engine import Crawler
from deepbot.routes import Document
from tests.hostile.conftest import Hostile

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECRET = "the-internal-secret-4711"


def _html(body: str, status: int = 200, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    data = body.encode()

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    return answer


def _sites() -> tuple[Hostile, Hostile, list[str]]:
    seed, internal = Hostile(), Hostile()
    hits: list[str] = []
    other, alias = internal.url(""), f"http://localhost:{internal.port}"

    def secret(handler: BaseHTTPRequestHandler) -> None:
        hits.append(handler.path)
        _html(f"<html><body><h1>{SECRET}</h1><a href='/s9'>more</a></body></html>")(handler)

    for n in range(1, 10):
        internal.routes[f"/s{n}"] = secret
    seed.routes["/"] = _html(f"""<html><body><h1>Seed</h1>
        <a href="{other}/s1">one</a> <a href="{alias}/s2">two</a> <a href="/redir">three</a>
        <a href="/meta">four</a> <a href="/js">five</a> <a href="/ok">an own page</a>
        <span onclick="location.href='{other}/s6'" style="cursor:pointer">six</span>
        <form action="{other}/s7"><input name="q" aria-label="Search"><button>Search</button></form>
        </body></html>""")
    seed.routes["/ok"] = _html("<html><body><h1>Own page</h1><p>fine</p></body></html>")
    seed.routes["/redir"] = _html("", 302, {"Location": f"{other}/s3"})
    refresh = f'<meta http-equiv="refresh" content="0;url={other}/s4">'
    seed.routes["/meta"] = _html(f"<html><head>{refresh}</head></html>")
    seed.routes["/js"] = _html(f"<html><body><script>location.replace('{other}/s5')</script></body></html>")
    return seed, internal, hits


async def _crawl(tmp_path: Path, seed: Hostile, **options: object) -> list[Document]:
    config = CrawlConfig(seeds=(seed.url("/"),), store=tmp_path / "s.sqlite", depth=2, workers=2,
                         settle_timeout=1.0, obey_robots=False, **options)  # type: ignore[arg-type]
    async with Crawler(config) as crawler:
        docs = [doc async for doc in crawler.run()]
        stored = list(crawler.documents.iter_documents(html=True))
    assert {d.id for d in docs} <= {d.id for d in stored}
    return stored


@pytest.mark.timeout(240)
async def test_nothing_of_another_local_service_is_stored(tmp_path: Path) -> None:
    seed, internal, _hits = _sites()
    try:
        stored = await _crawl(tmp_path, seed)
    finally:
        seed.close()
        internal.close()
    finals = sorted(d.final_url for d in stored)
    assert seed.url("/ok") in finals  # the crawl did crawl
    assert all(url.startswith(seed.url("/")) for url in finals), finals
    assert not any(SECRET in (d.html + d.text) for d in stored)


@pytest.mark.timeout(240)
async def test_include_applies_to_where_the_browser_landed(tmp_path: Path) -> None:
    seed, internal, _hits = _sites()
    try:
        stored = await _crawl(tmp_path, seed, scope="any", include=(rf"^http://127\.0\.0\.1:{seed.port}/",))
    finally:
        seed.close()
        internal.close()
    assert stored and not any(SECRET in (d.html + d.text) for d in stored)


@pytest.mark.timeout(240)
async def test_block_private_keeps_the_browser_from_connecting_at_all(tmp_path: Path) -> None:
    seed, internal, hits = _sites()
    try:
        stored = await _crawl(tmp_path, seed, block_private=True)
    finally:
        seed.close()
        internal.close()
    assert any(d.final_url == seed.url("/ok") for d in stored)  # the seed's own origin is allowed
    assert hits == []  # not one request reached the other service, by any of the seven ways
