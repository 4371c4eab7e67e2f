"""The lab fixture site: plain HTTP checks with urllib, script behaviour in Chromium."""

from __future__ import annotations

import io
import json
import time
import urllib.request
from dataclasses import dataclass
from email.message import Message
from html.parser import HTMLParser
from urllib.error import HTTPError
from urllib.parse import urljoin, urlsplit

import pypdf
import pytest
from playwright.async_api import Browser, Page

from fixtures.server import FixtureServer
from fixtures.sites import lab


@dataclass(frozen=True)
class Fetched:
    status: int
    headers: Message
    body: bytes
    url: str

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # surface each 3xx as it is


def fetch(url: str, *, follow: bool = True, headers: dict[str, str] | None = None) -> Fetched:
    opener = urllib.request.build_opener() if follow else urllib.request.build_opener(_NoRedirect)
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with opener.open(request, timeout=30) as response:
            return Fetched(response.status, response.headers, response.read(), response.url)
    except HTTPError as error:
        with error:
            return Fetched(error.code, error.headers, error.read(), error.url)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href is not None:
            self.hrefs.append(href)


def hrefs(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    parser.close()
    return parser.hrefs


@dataclass
class PlainCrawl:
    status: dict[str, int]  # final path -> status
    hrefs: set[str]  # every absolute href seen
    offsite: set[str]


def plain_crawl(server: FixtureServer) -> PlainCrawl:
    """Follow plain hrefs from /lab/ like a link-only crawler: no script, robots obeyed."""
    crawl = PlainCrawl({}, set(), set())
    queue, seen = ["/lab/"], set()
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        got = fetch(server.url(path))
        if got.status == 503:
            got = fetch(server.url(path))  # one retry; Retry-After is advice
        crawl.status[urlsplit(got.url).path] = got.status
        if not got.headers.get("Content-Type", "").startswith("text/html"):
            continue
        for href in hrefs(got.body.decode("utf-8", "replace")):
            absolute = urljoin(got.url, href).split("#")[0]
            parts = urlsplit(absolute)
            if parts.scheme not in ("http", "https"):
                continue
            crawl.hrefs.add(absolute)
            if parts.netloc != urlsplit(server.base_url).netloc:
                crawl.offsite.add(absolute)
            elif parts.path.startswith("/lab/"):
                queue.append(parts.path)
    return crawl


def test_constants_are_consistent() -> None:
    assert lab.SCRIPT_ONLY <= lab.EXPECTED_PAGES
    assert lab.SESSION_ONLY <= lab.EXPECTED_PAGES
    assert lab.IN_FRAMES | lab.BY_REFRESH | lab.BY_SCROLL | lab.BY_LOAD_MORE <= lab.EXPECTED_PAGES
    assert set(lab.REDIRECTS.values()) <= lab.EXPECTED_PAGES
    assert not (lab.EXPECTED_PAGES & (lab.NEVER | lab.UNREACHABLE | lab.OPTIONAL_PAGES | set(lab.REDIRECTS)))


def test_a_plain_crawl_reaches_exactly_the_pages_that_need_no_script() -> None:
    with FixtureServer() as server:  # a fresh server: /lab/busy answers 503 once per server
        crawl = plain_crawl(server)
        ok = {path for path, status in crawl.status.items() if status == 200}
        assert ok == (lab.EXPECTED_PAGES - lab.SCRIPT_ONLY - lab.SESSION_ONLY - lab.IN_FRAMES - lab.BY_REFRESH
                      - lab.BY_SCROLL - lab.BY_LOAD_MORE - lab.BY_PAGER)
        assert crawl.status["/lab/session/secret"] == 403  # no script ran, so no cookie
        assert crawl.status["/lab/redirect/loop-a"] in (301, 302)  # urllib gave up on the loop
        assert crawl.offsite == {lab.OFFSITE_URL}
        assert server.url("/private/secret") in crawl.hrefs
        assert all(server.hits_for(path) == 0 for path in lab.NEVER)
        assert server.hits_for("/lab/busy") == 2
    # nowhere in a crawled page's href
    for target in lab.SCRIPT_ONLY | lab.IN_FRAMES | lab.BY_SCROLL | lab.BY_LOAD_MORE | lab.BY_PAGER:
        assert not any(urlsplit(href).path == target for href in crawl.hrefs)


def test_index_links(site: FixtureServer) -> None:
    links = set(hrefs(fetch(site.url("/lab/")).text))
    assert {
        "/lab/session/",
        "/lab/js/",
        "/lab/menu/",
        "/lab/form/",
        "/private/secret",
        lab.OFFSITE_URL,
    } <= links
    assert "/lab/session/secret" not in links


def test_robots_disallow_private_which_is_still_served(site: FixtureServer) -> None:
    assert "Disallow: /private/" in fetch(site.url("/robots.txt")).text
    assert fetch(site.url("/private/secret")).status == 200


def test_session_secret_needs_the_script_set_cookie(site: FixtureServer) -> None:
    denied = fetch(site.url("/lab/session/secret"))
    assert (denied.status, "no session" in denied.text) == (403, True)
    wrong = fetch(site.url("/lab/session/secret"), headers={"Cookie": "labsid=guess"})
    assert wrong.status == 403
    granted = fetch(site.url("/lab/session/secret"), headers={"Cookie": f"labsid={lab.SESSION_TOKEN}"})
    assert (granted.status, "Members area" in granted.text) == (200, True)


def test_redirect_chain_and_loop_hop_by_hop(site: FixtureServer) -> None:
    hops = {
        "/lab/redirect/start": (302, "/lab/redirect/middle"),
        "/lab/redirect/middle": (301, "/lab/redirect/end"),
        "/lab/redirect/loop-a": (302, "/lab/redirect/loop-b"),
        "/lab/redirect/loop-b": (302, "/lab/redirect/loop-a"),
    }
    for path, (status, location) in hops.items():
        got = fetch(site.url(path), follow=False)
        assert (got.status, got.headers["Location"]) == (status, location)
    end = fetch(site.url("/lab/redirect/start"))
    assert (end.status, urlsplit(end.url).path) == (200, "/lab/redirect/end")


def test_pdf_is_valid_deterministic_and_has_the_sentence(site: FixtureServer) -> None:
    got = fetch(site.url("/lab/doc.pdf"))
    assert got.headers["Content-Type"] == "application/pdf"
    reader = pypdf.PdfReader(io.BytesIO(got.body), strict=True)
    assert len(reader.pages) == 1
    assert reader.pages[0].extract_text().strip() == lab.PDF_SENTENCE
    assert fetch(site.url("/lab/doc.pdf")).body == got.body == lab.make_pdf(lab.PDF_SENTENCE)


def test_slow_and_hanging_responses_are_delayed(site: FixtureServer) -> None:
    for path in ("/lab/slow?s=0.4", "/lab/hang?s=0.4"):
        started = time.monotonic()
        assert fetch(site.url(path)).status == 200
        assert time.monotonic() - started >= 0.4
    assert fetch(site.url("/lab/hang?s=0")).headers["Content-Type"] == "image/gif"


@pytest.mark.parametrize(
    ("value", "expected"), [("", 3.0), ("1.5", 1.5), ("100", 10.0), ("-2", 0.0), ("soon", 3.0), ("nan", 3.0)]
)
def test_slow_delay_is_clamped(value: str, expected: float) -> None:
    assert lab.slow_delay(value) == expected


def test_never_settles_keeps_the_page_busy(site: FixtureServer) -> None:
    html = fetch(site.url("/lab/never-settles")).text
    assert 'src="/lab/hang"' in html and "setInterval(" in html and "fetch('/lab/hang" in html
    assert lab.HANG_DEFAULT >= 60


def test_malformed_page_still_links_its_target(site: FixtureServer) -> None:
    html = fetch(site.url("/lab/malformed")).text
    assert html.index("</html>") < html.index("malformed-target")  # the link comes after a stray </html>
    assert "/lab/malformed-target" in hrefs(html)
    assert fetch(site.url("/lab/malformed-target")).status == 200


def test_busy_answers_503_once_per_server_instance() -> None:
    with FixtureServer() as first, FixtureServer() as second:
        busy = fetch(first.url("/lab/busy"))
        assert (busy.status, busy.headers["Retry-After"]) == (503, "1")
        assert fetch(first.url("/lab/busy")).status == 200
        assert fetch(second.url("/lab/busy")).status == 503  # its own state


def test_text_and_json_documents(site: FixtureServer) -> None:
    text = fetch(site.url("/lab/text.txt"))
    assert text.headers["Content-Type"].startswith("text/plain")
    assert text.text == lab.TEXT_BODY
    data = fetch(site.url("/lab/data.json"))
    assert data.headers["Content-Type"] == "application/json"
    assert json.loads(data.body) == lab.DATA


def test_form_result_echoes_escaped_values(site: FixtureServer) -> None:
    html = fetch(site.url("/lab/form/result?q=%3Cb%3E%26&format=pb")).text
    assert '<dd id="got-q">&lt;b&gt;&amp;</dd>' in html
    assert '<dd id="got-format">pb</dd>' in html


# --- in Chromium, where script matters ---


async def new_page(browser: Browser) -> Page:
    context = await browser.new_context()
    return await context.new_page()


@pytest.mark.browser
async def test_session_script_sets_cookie_and_storage(browser: Browser, site: FixtureServer) -> None:
    page = await new_page(browser)
    try:
        await page.goto(site.url("/lab/session/"))
        assert await page.inner_text("#status") == "Signed in"
        cookies = {c["name"]: c for c in await page.context.cookies()}
        assert (cookies["labsid"]["value"], cookies["labsid"]["path"]) == (lab.SESSION_TOKEN, "/lab/")
        assert await page.evaluate("localStorage.getItem('lab.token')") == lab.SESSION_TOKEN
        response = await page.goto(site.url("/lab/session/secret"))
        assert response is not None and response.status == 200
        assert await page.inner_text("#stored") == f"Stored token: {lab.SESSION_TOKEN}"
    finally:
        await page.context.close()


@pytest.mark.browser
@pytest.mark.parametrize("element", ["#js-a", "#js-b", "#js-c", "#js-d"])
async def test_script_elements_navigate(browser: Browser, site: FixtureServer, element: str) -> None:
    page = await new_page(browser)
    try:
        await page.goto(site.url("/lab/js/"))
        await page.click(element)
        await page.wait_for_url(site.url(f"/lab/js/target-{element[-1]}"))
        assert await page.title() == f"Target {element[-1].upper()}"
    finally:
        await page.context.close()


@pytest.mark.browser
async def test_menus_insert_links_only_when_used(browser: Browser, site: FixtureServer) -> None:
    page = await new_page(browser)
    try:
        await page.goto(site.url("/lab/menu/"))
        hover_link, click_link = (
            page.locator("a[href$='hover-target']"),
            page.locator("a[href$='click-target']"),
        )
        assert (await hover_link.count(), await click_link.count()) == (0, 0)
        await page.hover("#products")
        assert await hover_link.count() == 1
        await page.hover("h1")  # leaving the menu removes it again
        assert await hover_link.count() == 0
        await page.click("#more")
        assert await click_link.count() == 1
        assert await page.get_attribute("#more", "aria-expanded") == "true"
    finally:
        await page.context.close()


@pytest.mark.browser
async def test_never_settles_never_fires_load(browser: Browser, site: FixtureServer) -> None:
    page = await new_page(browser)
    try:
        await page.goto(site.url("/lab/never-settles"), wait_until="domcontentloaded")
        await page.wait_for_function("Number(document.getElementById('tick').textContent) >= 3")
        assert await page.evaluate("document.readyState") == "interactive"  # the image still hangs
    finally:
        await page.context.close()


@pytest.mark.browser
async def test_browser_finds_the_link_in_malformed_html(browser: Browser, site: FixtureServer) -> None:
    page = await new_page(browser)
    try:
        await page.goto(site.url("/lab/malformed"))
        assert await page.locator("a[href='/lab/malformed-target']").count() == 1
        assert await page.title() == "Old page"
    finally:
        await page.context.close()
