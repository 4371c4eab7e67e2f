"""The fixture shops (/books/, /music/): catalog, every advanced-search variant over plain
HTTP, the ground truth, and — in real Chromium — the variants that need a browser."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlencode, urljoin, urlsplit

import pytest
from playwright.async_api import Browser, Page

from deepbot.demo import catalog, shopkit
from deepbot.demo.catalog import Shop, detail_path
from deepbot.demo.shopkit import NO_CRITERIA, NO_RESULTS, PAGE_SIZE, Variant
from fixtures.server import FixtureServer
from fixtures.sites import shops

SHOPS: tuple[Shop, Shop] = ("books", "music")
ALL_VARIANTS = [v for shop in SHOPS for v in shops.variants(shop)]

# ----------------------------------------------------------------------------- catalog


def test_catalog_is_deterministic_and_sized() -> None:
    assert len(catalog.BOOKS) == catalog.BOOK_COUNT == 200
    assert len(catalog.MUSIC) == catalog.MUSIC_COUNT == 200
    assert catalog._build_books() == catalog.BOOKS
    assert catalog._build_music() == catalog.MUSIC
    assert [b.id for b in catalog.BOOKS] == list(range(1, 201))
    assert len({b.isbn for b in catalog.BOOKS}) == 200
    assert {b.format for b in catalog.BOOKS} == set(catalog.BOOK_FORMATS)
    assert {m.format for m in catalog.MUSIC} == set(catalog.MUSIC_FORMATS)


@pytest.mark.parametrize(
    ("shop", "query", "count"),
    [
        ("books", {"title": "java"}, 12),
        ("books", {"title": "xml"}, 11),
        ("books", {"title": "xml", "format": "paperback"}, 6),
        ("books", {"author": "knuth"}, 8),
        ("music", {"artist": "beatles"}, 12),
        ("music", {"album": "blue"}, 13),
        ("music", {"album": "blue", "format": "vinyl"}, 6),
        ("music", {"song": "yesterday"}, 8),
    ],
)
def test_domain_queries_match_a_known_number_of_items(shop: Shop, query: dict[str, str], count: int) -> None:
    assert len(catalog.search(shop, query)) == count


def test_matching_is_whole_word_case_insensitive_and_per_field() -> None:
    assert catalog.text_matches("JAVA", "Thinking in Java")
    assert not catalog.text_matches("java", "JavaScript: The Good Parts")
    assert catalog.text_matches("java xml", "Processing XML with Java")
    assert not catalog.text_matches("yesterday", "Yesterday's Papers")
    assert catalog.text_matches("", "anything")
    titles = {b.title for b in catalog.search_books({"title": "java"})}
    assert not any("JavaScript" in t for t in titles)
    assert "Reading Knuth: A Companion for the Curious" not in {b.title for b in catalog.search_books(
        {"author": "knuth"})}
    albums = {m.album for m in catalog.search_music({"album": "blue"})}
    assert "Five Days in July" not in albums and "Briefcase Full of Blues" not in albums
    assert "Yesterday and Tomorrow" not in {m.album for m in catalog.search_music({"song": "yesterday"})}
    assert "The Beatles Songbook" not in {m.album for m in catalog.search_music({"artist": "beatles"})}
    # enumerations: canonical, case-insensitive, any-of; blanks ignored
    assert all(b.format == "Paperback" for b in catalog.search_books({"title": "xml", "format": "PAPERBACK"}))
    assert len(catalog.search_books({"title": "xml", "format": ["paperback", "hardcover"]})) == 8
    assert len(catalog.search_books({"title": "xml", "author": " ", "format": ""})) == 11
    with pytest.raises(ValueError, match="unknown book attribute"):
        catalog.search_books({"colour": "red"})


# ---------------------------------------------------------------------- HTTP helpers


@dataclass
class Anchor:
    href: str
    onclick: str
    text: str = ""


@dataclass
class Form:
    id: str
    action: str
    method: str
    hidden: list[tuple[str, str]] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[Anchor] = []
        self.forms: list[Form] = []
        self._anchor: Anchor | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "a":
            self._anchor = Anchor(a.get("href", ""), a.get("onclick", ""))
            self.anchors.append(self._anchor)
        elif tag == "form":
            self.forms.append(Form(a.get("id", ""), a.get("action", ""), a.get("method", "get").upper()))
        elif tag in ("input", "select", "textarea") and self.forms:
            if a.get("type") == "hidden":
                self.forms[-1].hidden.append((a.get("name", ""), a.get("value", "")))
            elif a.get("name"):
                self.forms[-1].fields.append(a["name"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._anchor = None

    def handle_data(self, data: str) -> None:
        if self._anchor is not None:
            self._anchor.text += data


@dataclass
class Fetched:
    status: int
    url: str
    text: str

    @property
    def parsed(self) -> _Parser:
        parser = _Parser()
        parser.feed(self.text)
        return parser

    def detail_links(self) -> list[str]:
        return [a.href for a in self.parsed.anchors if re.fullmatch(r"/(books|music)/item/\d+", a.href)]

    def next_anchor(self) -> Anchor | None:
        return next((a for a in self.parsed.anchors if a.text.strip() == "Next »"), None)


def fetch(
    site: FixtureServer,
    path: str,
    method: str = "GET",
    pairs: Sequence[tuple[str, str]] = (),
    cookies: dict[str, str] | None = None,
) -> Fetched:
    url = site.url(path)
    data = None
    if method == "GET" and pairs:
        url += ("&" if "?" in url else "?") + urlencode(list(pairs))
    elif method == "POST":
        data = urlencode(list(pairs)).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if cookies:
        request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Fetched(response.status, response.url, response.read().decode())
    except urllib.error.HTTPError as error:
        return Fetched(error.code, url, error.read().decode())


def _cookies(variant: Variant) -> dict[str, str] | None:
    return dict([variant.session_cookie]) if variant.session_cookie else None


def submit(site: FixtureServer, variant: Variant, query: dict[str, str]) -> Fetched:
    """What a person's browser sends for ``query`` (fetch variants: the first JSON page)."""
    return fetch(site, variant.action, variant.method, variant.submission(query), _cookies(variant))


def result_pages(site: FixtureServer, variant: Variant, query: dict[str, str]) -> Iterator[list[str]]:
    """The detail links of each result page, following the variant's own pagination."""
    if variant.pagination == "fetch":
        number = 1
        while True:
            pairs = [*variant.submission(query), ("page", str(number))]
            got = fetch(site, variant.action, variant.method, pairs)
            data = json.loads(got.text)
            assert data["page"] == number
            yield [item["url"] for item in data["items"]]
            if number >= data["pages"]:
                return
            number += 1
    got = submit(site, variant, query)
    while True:
        assert got.status == 200, got.text[:300]
        yield got.detail_links()
        anchor = got.next_anchor()
        if anchor is None:
            return
        if variant.pagination == "links":
            assert anchor.href.startswith(variant.action + "?")
            got = fetch(site, anchor.href, cookies=_cookies(variant))
        elif variant.pagination == "postback":
            match = re.fullmatch(r"javascript:__doPostBack\('([^']+)','([^']+)'\)", anchor.href)
            assert match, anchor.href
            (form,) = [f for f in got.parsed.forms if f.id == "aspnetForm"]
            assert form.fields == [], "the pager form holds only hidden fields"
            hidden = dict(form.hidden) | {"__EVENTTARGET": match[1], "__EVENTARGUMENT": match[2]}
            got = fetch(site, urljoin(variant.action, form.action), "POST", list(hidden.items()))
        else:
            match = re.search(r"goPage\((\d+)\)", anchor.href + anchor.onclick)
            assert match, anchor
            (form,) = [f for f in got.parsed.forms if f.id == "pager-form"]
            assert form.fields == []
            pairs = [(n, v) for n, v in form.hidden if n != "page"] + [("page", match[1])]
            got = fetch(site, form.action, "POST", pairs, _cookies(variant))


# ------------------------------------------------------------------ variants over HTTP


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=lambda v: f"{v.shop}-{v.key}")
def test_every_variant_answers_every_domain_query_across_pages(site: FixtureServer, variant: Variant) -> None:
    for query in shops.domain_queries(variant.shop):
        expected = [detail_path(variant.shop, item.id) for item in shops.expected_results(variant, query)]
        if not expected:  # the query has no text attribute this form supports
            got = submit(site, variant, query)
            text = json.loads(got.text)["message"] if variant.pagination == "fetch" else got.text
            assert NO_CRITERIA in text and not (got.detail_links() if variant.pagination != "fetch" else [])
            continue
        pages = list(result_pages(site, variant, query))
        assert [link for links in pages for link in links] == expected, query
        sizes = [PAGE_SIZE] * (len(expected) // PAGE_SIZE) + ([len(expected) % PAGE_SIZE] if len(
            expected) % PAGE_SIZE else [])
        assert [len(links) for links in pages] == sizes


def test_single_attribute_queries_need_several_pages_somewhere() -> None:
    for shop in SHOPS:
        counts = [len(catalog.search(shop, q)) for q in shops.domain_queries(shop)]
        assert all(6 <= c <= 14 for c in counts) and max(counts) > 2 * PAGE_SIZE


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=lambda v: f"{v.shop}-{v.key}")
def test_no_results_and_empty_searches(site: FixtureServer, variant: Variant) -> None:
    text_attr = next(a for a in variant.fields.values() if a in catalog.text_attributes(variant.shop))
    for query, message in (({text_attr: "zzyzx"}, NO_RESULTS), ({}, NO_CRITERIA),
                           ({"format": "vinyl" if variant.shop == "music" else "paperback"}, NO_CRITERIA)):
        got = submit(site, variant, query)
        assert got.status == 200
        if variant.pagination == "fetch":
            data = json.loads(got.text)
            assert (data["message"], data["items"]) == (message, [])
        else:
            assert message in got.text and got.detail_links() == []
            assert got.next_anchor() is None


@pytest.mark.parametrize("variant", [v for v in ALL_VARIANTS if v.session_cookie], ids=lambda v: v.shop)
def test_session_variant_refuses_without_the_cookie(site: FixtureServer, variant: Variant) -> None:
    query = shops.domain_queries(variant.shop)[0]
    for cookies in (None, {variant.session_cookie[0]: "stale"} if variant.session_cookie else None):
        got = fetch(site, variant.action, variant.method, variant.submission(query), cookies)
        assert got.status == 403
        assert "Session expired" in got.text and shopkit.SESSION_EXPIRED in got.text
        assert got.detail_links() == []
    # the cookie is set by script on the search page, never by the server
    page = fetch(site, variant.path)
    assert variant.session_cookie is not None and variant.session_cookie[0] in page.text
    assert variant.session_cookie[1] not in page.text


def test_aspnet_postback_without_an_event_just_renders_the_form(site: FixtureServer) -> None:
    variant = shops.variant("music", "catalogue")
    pairs = [(n, v) for n, v in variant.submission({"artist": "beatles"}) if n != "__EVENTTARGET"]
    got = fetch(site, variant.action, "POST", pairs)
    assert got.detail_links() == [] and "ctl00$MainContent$txtArtist" in got.text


def test_ground_truth_is_the_union_over_variants() -> None:
    books = shops.expected_detail_paths("books")
    assert len(books) == 24  # 12 java ∪ 6 xml paperbacks (2 also java) ∪ 8 knuth
    assert books == {
        detail_path("books", b.id) for q in catalog.BOOK_QUERIES for b in catalog.search_books(q)
    }
    music = shops.expected_detail_paths("music")
    assert len(music) == 23  # 12 beatles ∪ 6 blue vinyl ∪ 8 yesterday (3 also beatles)
    # one variant at a time; a query without a supported text attribute contributes nothing
    assert shops.expected_detail_paths("books", only=["members"]) == {
        detail_path("books", b.id) for b in catalog.search_books({"author": "knuth"})
    }
    live = shops.expected_detail_paths("music", only=["live"])
    assert len(live) == 17 and live < music
    assert shops.expected_detail_paths("books", [{"isbn": catalog.BOOKS[0].isbn}]) == {"/books/item/1"}
    with pytest.raises(KeyError):
        shops.expected_detail_paths("books", only=["nope"])
    # every variant with a format field also has the queries' text attribute, so the filter holds
    xml_paperbacks = {detail_path("books", b.id) for b in catalog.search_books(catalog.BOOK_QUERIES[1])}
    assert shops.expected_detail_paths("books", [catalog.BOOK_QUERIES[1]]) == xml_paperbacks


@pytest.mark.parametrize("shop", SHOPS)
def test_the_quick_search_decoy_finds_near_misses_outside_the_ground_truth(site: FixtureServer,
                                                                           shop: Shop) -> None:
    word = "java" if shop == "books" else "blue"
    got = fetch(site, f"/{shop}/search", pairs=[("q", word)])
    found = set(got.detail_links())
    while (anchor := got.next_anchor()) is not None:
        got = fetch(site, anchor.href)
        found.update(got.detail_links())
    assert found == {detail_path(shop, item.id) for item in catalog.keyword_search(shop, word)}
    assert found - shops.expected_detail_paths(shop)


@pytest.mark.parametrize("shop", SHOPS)
def test_only_result_pages_link_to_detail_pages(site: FixtureServer, shop: Shop) -> None:
    """A link-following crawl (no forms) sees every non-result page and no detail page;
    detail pages link to no other detail page; every page is small and deterministic."""
    seen: set[str] = set()
    queue = ["/", f"/{shop}/"]
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        got = fetch(site, path)
        assert got.status == 200, path
        assert len(got.text.encode()) < 30_000, path
        assert fetch(site, path).text == got.text
        for anchor in got.parsed.anchors:
            target = urlsplit(urljoin(site.url(path), anchor.href))
            if target.scheme == "http" and target.path.startswith(f"/{shop}/"):
                queue.append(target.path)
    assert not [p for p in seen if "/item/" in p]
    assert set(shops.advanced_search_paths(shop)) <= seen
    assert set(shops.decoy_form_pages(shop)) <= seen
    for path in sorted(shops.expected_detail_paths(shop))[:5]:
        got = fetch(site, path)
        assert got.status == 200 and got.detail_links() == []
    assert fetch(site, f"/{shop}/item/9999").status == 404


@pytest.mark.parametrize("shop", SHOPS)
def test_detail_pages_show_every_field(site: FixtureServer, shop: Shop) -> None:
    if shop == "books":
        book = catalog.search_books({"author": "knuth"})[0]
        text = fetch(site, detail_path("books", book.id)).text
        for value in (book.title, book.author, book.isbn, book.publisher, book.format, str(book.year),
                      book.subject, f"{book.price:.2f}"):
            assert value.replace("&", "&amp;").replace("'", "&#x27;") in text
    else:
        item = catalog.search_music({"song": "yesterday"})[0]
        text = fetch(site, detail_path("music", item.id)).text
        for value in (item.artist, item.album, item.label, item.format, item.genre, str(item.year),
                      *item.songs):
            assert value.replace("&", "&amp;").replace("'", "&#x27;") in text


# --------------------------------------------------------------------- in real Chromium


async def _detail_links(page: Page) -> list[str]:
    links: list[str] = await page.eval_on_selector_all(
        "a[href*='/item/']", "els => els.map(e => e.getAttribute('href'))"
    )
    return links


def _expected_pages(shop: Shop, key: str, query: dict[str, str]) -> list[list[str]]:
    paths = [detail_path(shop, i.id) for i in shops.expected_results(shops.variant(shop, key), query)]
    return [paths[i : i + PAGE_SIZE] for i in range(0, len(paths), PAGE_SIZE)]


@pytest.mark.browser
async def test_browser_script_anchor_submits_books_finder(browser: Browser, site: FixtureServer) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(site.url("/books/search/finder"))
    assert await page.locator("form[name=finder] input[type=submit], form[name=finder] button").count() == 0
    await page.fill("input[name=t]", "java")
    async with page.expect_popup() as popup_info:  # the form's target: a window named "results"
        await page.click("a[href='javascript:doSearch()']")
    page = await popup_info.value
    await page.wait_for_load_state()
    assert await page.evaluate("window.name") == "results"
    expected = _expected_pages("books", "finder", {"title": "java"})
    assert urlsplit(page.url).path == "/books/find"
    for number, links in enumerate(expected, start=1):
        assert await _detail_links(page) == links, number
        if number < len(expected):
            async with page.expect_navigation():
                await page.click("text=Next »")
    await context.close()


@pytest.mark.browser
async def test_browser_postback_anchor_and_postback_pagination(browser: Browser, site: FixtureServer) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(site.url("/music/catalogue/Search.aspx"))
    await page.fill("#ctl00_MainContent_txtArtist", "beatles")
    async with page.expect_navigation():
        await page.click("#ctl00_MainContent_lnkSearch")
    expected = _expected_pages("music", "catalogue", {"artist": "beatles"})
    assert len(expected) == 3
    assert await _detail_links(page) == expected[0]
    async with page.expect_navigation():
        await page.click("a[href*=\"Page$3\"]")
    assert await _detail_links(page) == expected[2]
    async with page.expect_navigation():
        await page.click("text=« Prev")
    assert await _detail_links(page) == expected[1]
    await context.close()


@pytest.mark.browser
async def test_browser_aspnet_image_button_and_postback_pager(browser: Browser, site: FixtureServer) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(site.url("/books/Search.aspx"))
    await page.fill("#ctl00_MainContent_txtTitle", "xml")
    await page.select_option("#ctl00_MainContent_ddlFormat", label="Paperback")
    async with page.expect_navigation():
        await page.click("#ctl00_MainContent_btnSearch")
    expected = _expected_pages("books", "classic", {"title": "xml", "format": "paperback"})
    assert await _detail_links(page) == expected[0]
    async with page.expect_navigation():
        await page.click("#ctl00_MainContent_gvResults >> text=Next »")
    assert await _detail_links(page) == expected[1]
    assert urlsplit(page.url).path == "/books/Search.aspx"
    await context.close()


@pytest.mark.browser
async def test_browser_image_input_with_radio_format(browser: Browser, site: FixtureServer) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(site.url("/music/search/finder"))
    await page.fill("input[name=al]", "blue")
    await page.check("input[name=media][value=vinyl]")
    async with page.expect_popup() as popup_info:  # target=_blank: a new window
        await page.click("form[name=finder] input[type=image]")
    assert urlsplit(page.url).path == "/music/search/finder"
    page = await popup_info.value
    await page.wait_for_load_state()
    assert "go.x=" in page.url
    expected = _expected_pages("music", "finder", {"album": "blue", "format": "vinyl"})
    assert await _detail_links(page) == expected[0]
    async with page.expect_navigation():
        await page.click("text=Next »")
    assert await _detail_links(page) == expected[1]
    await context.close()


@pytest.mark.browser
async def test_browser_onsubmit_validator_and_script_pagination(
    browser: Browser, site: FixtureServer
) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(site.url("/books/search/power"))
    await page.click("#power button[type=submit]")  # empty: the validator keeps us on the page
    await page.wait_for_selector("#power-error", state="visible")
    assert urlsplit(page.url).path == "/books/search/power"
    await page.fill("#p-title", "xml")
    await page.check("#b-pb")
    async with page.expect_navigation():
        await page.click("#power button[type=submit]")
    expected = _expected_pages("books", "power", {"title": "xml", "format": "paperback"})
    assert urlsplit(page.url).path == "/books/power-search"
    assert await _detail_links(page) == expected[0]
    async with page.expect_navigation():
        await page.click(".pager >> text=2")
    assert await _detail_links(page) == expected[1]
    await context.close()


@pytest.mark.browser
@pytest.mark.parametrize(
    ("path", "fill", "button", "shop", "key", "query"),
    [
        ("/books/search/instant", {"#i-title": "java"}, "input[type=button]", "books", "instant",
         {"title": "java"}),
        ("/music/search/live", {"#l-track": "yesterday"}, "#live-go", "music", "live", {"song": "yesterday"}),
    ],
)
async def test_browser_fetch_loaded_results(
    browser: Browser, site: FixtureServer, path: str, fill: dict[str, str], button: str, shop: Shop, key: str,
    query: dict[str, str]
) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(site.url(path))
    navigations: list[str] = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))
    for selector, value in fill.items():
        await page.fill(selector, value)
    await page.click(button)
    await page.wait_for_selector("#results[data-state=loaded] ol.results")
    expected = _expected_pages(shop, key, query)
    assert await _detail_links(page) == expected[0]
    await page.click("#results .pager >> text=Next »")
    await page.wait_for_selector(f"#results[data-state=loaded] ol.results[start='{PAGE_SIZE + 1}']")
    assert await _detail_links(page) == expected[1]
    assert navigations == [] and urlsplit(page.url).path == path
    await context.close()


@pytest.mark.browser
async def test_browser_session_cookie_set_by_script(browser: Browser, site: FixtureServer) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    response = await page.goto(site.url("/music/members/results"))  # GET without a session: not even routed
    assert response is not None and response.status == 404
    await page.goto(site.url("/music/search/members"))
    assert {c["name"] for c in await context.cookies()} == {"mx_sid"}
    await page.fill("#mm-album", "blue")
    await page.select_option("#mm-format", label='Vinyl record (12")')
    async with page.expect_navigation():
        await page.click("main input[type=submit]")
    expected = _expected_pages("music", "members", {"album": "blue", "format": "vinyl"})
    assert await _detail_links(page) == expected[0]
    await context.clear_cookies()
    async with page.expect_navigation():
        await page.click("text=Next »")
    assert await page.title() == "Session expired – Groove Yard Records"
    await context.close()
