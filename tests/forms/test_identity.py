"""What a form is, wherever it shows (forms/identity.py): the same search form at every
URL of a site is one form; another action, method or set of fields is another."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from deepbot.forms.identity import form_identity, read_forms, url_pattern
from fixtures.server import FixtureServer
from fixtures.sites import koha

SEARCH = [("idx", "masthead_search", "select-one"), ("q", "translControl1", "text"),
          ("weight_search", "", "hidden")]


def test_a_url_pattern_keeps_the_kind_of_page_and_drops_its_values_and_ids() -> None:
    assert url_pattern("http://Lib.example:80/opac-search.pl?q=java&idx=ti&offset=20#top") == (
        "http://lib.example/opac-search.pl?idx&offset&q")
    assert url_pattern("http://lib.example/opac-search.pl?q=java&page=2", query=False) == (
        "http://lib.example/opac-search.pl")
    assert url_pattern("https://shop.example/item/1234/reviews") == "https://shop.example/item/{n}/reviews"
    assert url_pattern("https://shop.example/p/9f1c2e7a-3b4d-4c5e-8f90-123456789abc") == (
        "https://shop.example/p/{id}")
    assert url_pattern("https://app.example/#/records/17") == "https://app.example/#/records/{n}"
    session = "https://x.example/Search.aspx;jsessionid=AB12?sid=0123456789abcdef0123456789abcdef"
    assert url_pattern(session) == "https://x.example/Search.aspx"  # session ids are no part of a page


def test_the_same_form_anywhere_on_a_site_is_one_form() -> None:
    home = form_identity("http://lib.example/koha/opac-search.pl", "get", SEARCH)
    # On a results page: the action as resolved, whatever the page; the box filled in is no difference.
    assert form_identity("http://lib.example/koha/opac-search.pl?idx=ti&q=java&offset=5", "get",
                         list(reversed(SEARCH))) == home
    # A form without an action submits to its page: its results pages are one target.
    assert form_identity("http://lib.example/search?q=java&page=2", "get", SEARCH) == form_identity(
        "http://lib.example/search?q=xml", "get", SEARCH)
    assert form_identity("http://lib.example/record/17", "virtual", SEARCH) == form_identity(
        "http://lib.example/record/18", "virtual", SEARCH)
    # Nameless fields are known by their ids, generated numbers and all.
    nameless = [("", ":r3:", "text")]
    assert form_identity("http://app.example/", "get", nameless) == form_identity(
        "http://app.example/", "get", [("", ":r17:", "text")])


def test_a_listings_hidden_sort_order_or_page_size_is_the_same_form() -> None:
    # Flask-Admin's list view on its sort orders' pages: its filter form keeps the order hidden.
    fields = [("flt0_0", "", "text"), ("search", "", "text")]
    plain = form_identity("http://app.example/admin/book/", "get", fields)
    assert form_identity("http://app.example/admin/book/", "get",
                         [*fields, ("sort", "", "hidden"), ("page_size", "", "hidden")]) == plain
    # A hidden field of another name may change what the form searches: another form.
    assert form_identity("http://app.example/admin/book/", "get", [*fields, ("shelf", "", "hidden")]) != plain


@pytest.mark.parametrize(("target", "method", "fields"), [
    ("http://lib.example/koha/opac-advsearch.pl", "get", SEARCH),  # another action
    ("http://lib.example/koha/opac-search.pl", "post", SEARCH),  # another method
    ("http://lib.example/koha/opac-search.pl", "get", SEARCH[:2]),  # a field fewer
    ("http://lib.example/koha/opac-search.pl", "get", [*SEARCH[:1], ("q", "", "search"), *SEARCH[2:]]),
    ("http://lib.example/koha/opac-search.pl", "virtual", SEARCH),  # fields outside any form
    ("http://other.example/koha/opac-search.pl", "get", SEARCH),  # another site
])
def test_another_action_method_or_set_of_fields_is_another_form(
        target: str, method: str, fields: list[tuple[str, str, str]]) -> None:
    assert form_identity(target, method, fields) != form_identity(
        "http://lib.example/koha/opac-search.pl", "get", SEARCH)


def test_a_post_form_is_told_apart_by_the_query_it_is_sent_to() -> None:
    assert form_identity("http://x.example/Search.aspx?mode=advanced", "post", SEARCH) != form_identity(
        "http://x.example/Search.aspx", "post", SEARCH)
    assert form_identity("http://x.example/Search.aspx?mode=advanced", "post", SEARCH) == form_identity(
        "http://x.example/Search.aspx?mode=simple", "post", SEARCH)


@pytest_asyncio.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    page = await browser.new_page()
    yield page
    await page.close()


@pytest.mark.browser
async def test_a_sites_masthead_search_reads_the_same_on_every_kind_of_page(page: Page,
                                                                           site: FixtureServer) -> None:
    read = {}
    for path in ("/koha/", "/koha/opac-news.pl?id=3", "/koha/opac-detail.pl?biblionumber=7",
                 koha.search_url("ti", "java"), koha.search_url("au", "Donald Knuth", 5)):
        await page.goto(site.url(path))
        read[path] = await read_forms(page)
    masthead, login = read["/koha/"].forms
    assert masthead != login and read["/koha/"].virtual is None
    for path, forms in read.items():
        assert forms.forms[:2] == (masthead, login), path
    # A results page has its "Sort by" form too: another form, the same on every results page.
    sort = read[koha.search_url("ti", "java")].forms[2]
    assert sort not in (masthead, login) and read[koha.search_url("au", "Donald Knuth", 5)].forms[2] == sort


@pytest.mark.browser
async def test_a_form_is_read_whatever_it_hides_or_names_its_fields(page: Page, site: FixtureServer) -> None:
    # A folded panel's fields count, closed or open; a field named "action" or "elements"
    # does not hide the form's own; a text field outside any form is read as the page's.
    html = """<form id="f" action="/search" method="GET"><input name="q">
      <details><summary>More</summary><input name="author"></details>
      <input type="hidden" name="action" value="x"><input name="elements"><button>Go</button></form>
      <div><input type="search" name="find"><span role="button">Find</span></div>"""
    await page.goto(site.url("/koha/"))
    await page.set_content(html)
    folded = await read_forms(page)
    await page.click("summary")
    assert await read_forms(page) == folded
    fields = [("q", "", "text"), ("author", "", "text"), ("action", "", "hidden"), ("elements", "", "text")]
    assert folded.forms == (form_identity(site.url("/search"), "get", fields),)
    assert folded.virtual == form_identity(site.url("/koha/"), "virtual", [("find", "", "search")])
    assert folded.of(0) == folded.forms[0] and folded.of(3, virtual=0) == f"{folded.virtual}#0"
