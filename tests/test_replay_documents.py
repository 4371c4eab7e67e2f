"""`deepbot replay DOC_ID`: a stored document's program, replayed in a fresh browser,
reaches the stored page (link, script anchor, session cookie, form query), and says so
clearly, with a non-zero exit, when the page has gone or changed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from deepbot.cli import main
from deepbot.config import CrawlConfig
from deepbot.content.fingerprint import shingles, similarity
from deepbot.crawl.engine import Crawler
from deepbot.replay import PageFacts, compare_pages
from deepbot.routes import Document, Via
from deepbot.store import SqliteDocumentStore
from fixtures.server import FixtureServer

# -- the comparison, without a browser ----------------------------------------------------

URL = "http://shop.example/books/results?b=2&a=1"
LONG = " ".join(f"Book number {i} by author {i % 7}, paperback, {1990 + i}." for i in range(60))


def test_fingerprint_ignores_case_punctuation_and_spacing() -> None:
    assert similarity("Target A — reached by script!", "target a\nreached BY script") == 1.0
    assert shingles("Two words") == {("two", "words")}  # shorter than a shingle: one shingle
    assert similarity("", "") == 1.0 and similarity("", "text") == 0.0


def test_one_word_matters_on_a_short_page_not_on_a_long_one() -> None:
    # The lab's script targets differ in one letter: a different page.
    assert similarity("Target A\nReached by script.\nScript links",
                      "Target B\nReached by script.\nScript links") < 0.5
    assert similarity(LONG, LONG.replace("1995", "2025")) >= 0.9  # a changed date, same page


def test_same_url_and_text_is_the_same_page() -> None:
    match = compare_pages(PageFacts(URL, LONG, 200), PageFacts("HTTP://SHOP.EXAMPLE/books/results?a=1&b=2#x",
                                                              LONG, 200))
    assert match.reached and match.same_url and match.similarity == 1.0
    assert "same content at the same URL" in match.reason


def test_same_text_at_another_url_is_the_same_page() -> None:
    match = compare_pages(PageFacts(URL, LONG, 200), PageFacts(URL + "&sid=123", LONG, 200))
    assert match.reached and not match.same_url
    assert "another URL" in match.reason


def test_link_page_whose_text_changed_is_the_same_page() -> None:
    match = compare_pages(PageFacts(URL, LONG, 200), PageFacts(URL, "All new content today", 200))
    assert match.reached and match.similarity < 0.9
    assert "content changed" in match.reason


def test_form_page_with_other_content_at_a_shared_url_is_not() -> None:
    # POST results share one URL: only the content tells two queries' results apart.
    match = compare_pages(PageFacts(URL, LONG, 200), PageFacts(URL, "No books match knuth", 200),
                          url_identifies=False)
    assert not match.reached and "different content" in match.reason


def test_error_status_means_the_page_is_gone() -> None:
    match = compare_pages(PageFacts(URL, LONG, 200), PageFacts(URL, LONG, 404))
    assert not match.reached and match.reason.startswith("the page is gone: HTTP 404")
    # A page stored with an error status is reached when it answers the same again.
    assert compare_pages(PageFacts(URL, "no session", 403), PageFacts(URL, "no session", 403)).reached


def test_other_url_and_text_is_a_different_page() -> None:
    match = compare_pages(PageFacts(URL, LONG, 200), PageFacts("http://shop.example/", "Welcome", 200))
    assert not match.reached and match.reason.startswith("a different page")
    with pytest.raises(ValueError):
        compare_pages(PageFacts(URL, LONG), PageFacts(URL, LONG), threshold=0)


# -- replay by id in real Chromium --------------------------------------------------------

LAB_SLICE = (r"/lab/$", r"/lab/(js|session|jump|popups|hashapp|consent)/")
BOOKS_SLICE = (r"/books/search/advanced$", r"/books/results")


@dataclass
class Crawled:
    site: FixtureServer
    store: Path
    documents: list[Document]

    def one(self, via: Via, path: str, query: dict[str, str] | None = None) -> Document:
        found = [d for d in self.documents if d.via is via and urlsplit(d.final_url).path == path
                 and (query is None or d.query == query)]
        assert found, (via, path, query, [(d.via, d.final_url) for d in self.documents])
        return found[0]


async def _crawl(site: FixtureServer, store: Path, **values: object) -> list[Document]:
    config = CrawlConfig.model_validate({"store": store, "workers": 2, "settle_timeout": 2.0, **values})
    async with Crawler(config) as crawler:
        return [doc async for doc in crawler.run()]


@pytest_asyncio.fixture(scope="module")
async def crawled(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Crawled]:
    """A lab slice (links, script anchors, a session) and one bookshop form, in one store."""
    store = tmp_path_factory.mktemp("replay") / "store.sqlite"
    with FixtureServer() as site:
        documents = await _crawl(site, store, seeds=(site.url("/lab/"), site.url("/books/search/advanced")),
                                 domains=(Path("domains/books.yaml"),), include=LAB_SLICE + BOOKS_SLICE,
                                 depth=2)
        yield Crawled(site, store, documents)


def replay(crawled: Crawled | Path, doc_id: str, capsys: pytest.CaptureFixture[str], *extra: str
           ) -> tuple[int, str, str]:
    store = crawled if isinstance(crawled, Path) else crawled.store
    code = main(["replay", doc_id, "--store", str(store), "--timeout", "15", *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_reached(doc: Document, code: int, out: str, err: str) -> None:
    assert code == 0, out + err
    lines = out.splitlines()
    assert f"document: {doc.id} " in out
    assert any(line.startswith(f"url: {doc.final_url}  [HTTP 200]") for line in lines), out
    assert "compared: URL same" in out and "text similarity 1.00" in out
    assert "reached the same page: same content at the same URL" in out
    assert err == ""


@pytest.mark.browser
@pytest.mark.slow
def test_replay_link_document(crawled: Crawled, capsys: pytest.CaptureFixture[str]) -> None:
    doc = crawled.one(Via.LINK, "/lab/js/")
    assert_reached(doc, *replay(crawled, doc.id, capsys))


@pytest.mark.browser
@pytest.mark.slow
def test_replay_script_anchor_document(crawled: Crawled, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    doc = crawled.one(Via.SCRIPT, "/lab/js/target-a")
    assert "click" in doc.nseql  # its URL is in no href: only the click reaches it
    shot = tmp_path / "target-a.png"
    code, out, err = replay(crawled, doc.id, capsys, "--screenshot", str(shot))
    assert_reached(doc, code, out, err)
    assert "title: Target A" in out.splitlines()
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and f"screenshot: {shot}" in out


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize(("path", "verb"), [
    ("/lab/jump/history", "select"),  # an option of a jump menu
    ("/lab/popups/item-2", "click"),  # opened in a popup window when it was crawled
])
def test_replay_jump_menu_and_popup_documents(crawled: Crawled, capsys: pytest.CaptureFixture[str],
                                              path: str, verb: str) -> None:
    doc = crawled.one(Via.SCRIPT, path)
    assert doc.nseql.splitlines()[-1].startswith(verb + " ")
    assert_reached(doc, *replay(crawled, doc.id, capsys))


@pytest.mark.browser
@pytest.mark.slow
def test_replay_through_a_cookie_wall(crawled: Crawled, capsys: pytest.CaptureFixture[str]) -> None:
    doc = crawled.one(Via.SCRIPT, "/lab/consent/archive")
    assert "\ndismiss " in doc.nseql  # the wall is refused again, then the covered element clicked
    code, out, err = replay(crawled, doc.id, capsys)
    assert_reached(doc, code, out, err)


@pytest.mark.browser
@pytest.mark.slow
def test_replay_hash_routed_view_document(crawled: Crawled, capsys: pytest.CaptureFixture[str]) -> None:
    [doc] = [d for d in crawled.documents if d.final_url.endswith("/lab/hashapp/#/books")]
    assert doc.nseql == f"navigate {doc.final_url}\n"  # the view's URL is the whole path to it
    assert_reached(doc, *replay(crawled, doc.id, capsys))


@pytest.mark.browser
@pytest.mark.slow
def test_replay_session_cookie_document(crawled: Crawled, capsys: pytest.CaptureFixture[str]) -> None:
    doc = crawled.one(Via.LINK, "/lab/session/secret")
    # Opened by URL alone it is 403; the replay first visits the page whose script signs in.
    code, out, err = replay(crawled, doc.id, capsys)
    assert_reached(doc, code, out, err)
    assert "title: Members area" in out.splitlines()


@pytest.mark.browser
@pytest.mark.slow
def test_replay_form_document(crawled: Crawled, capsys: pytest.CaptureFixture[str]) -> None:
    doc = crawled.one(Via.FORM, "/books/results", {"title": "java"})
    assert doc.nseql.startswith("navigate ") and "fill " in doc.nseql  # the query is typed, not a URL
    code, out, err = replay(crawled, doc.id, capsys)
    assert_reached(doc, code, out, err)
    assert "(form query title='java')" in out


@pytest.mark.browser
@pytest.mark.slow
def test_a_changed_click_target_is_reported_as_a_different_page(
    crawled: Crawled, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As if the site now sent the same anchor elsewhere: the program clicks another target.
    stored = crawled.one(Via.SCRIPT, "/lab/js/target-a")
    changed = stored.model_copy(update={"nseql": stored.nseql.replace('"#js-a"', '"#js-b"')})
    assert changed.nseql != stored.nseql
    with SqliteDocumentStore(tmp_path / "one.sqlite") as store:
        store.upsert(changed)
    code, out, err = replay(tmp_path / "one.sqlite", changed.id, capsys)
    assert code == 1
    assert "compared: URL different" in out
    assert "did not reach the stored page: a different page: " in err
    assert crawled.site.url("/lab/js/target-b") in err


@pytest_asyncio.fixture
async def js_crawl(tmp_path: Path) -> Crawled:
    """A small crawl whose server is stopped after it: the test restarts it changed."""
    with FixtureServer() as site:
        store = tmp_path / "js.sqlite"
        documents = await _crawl(site, store, seeds=(site.url("/lab/js/"),), depth=1, include=(r"/lab/js/",))
    return Crawled(site, store, documents)


def _serve_changed(old: FixtureServer, gone: list[str]) -> FixtureServer:
    """The same origin (the stored programs hold absolute URLs), with pages removed."""
    return FixtureServer(port=old.port, options={"lab_gone": gone}).start()


@pytest.mark.browser
@pytest.mark.slow
def test_pages_gone_from_the_site_fail_clearly(js_crawl: Crawled, capsys: pytest.CaptureFixture[str]) -> None:
    target_a = js_crawl.one(Via.SCRIPT, "/lab/js/target-a")
    target_b = js_crawl.one(Via.SCRIPT, "/lab/js/target-b")

    server = _serve_changed(js_crawl.site, ["/lab/js/target-a"])  # the target is gone
    try:
        code, out, err = replay(js_crawl, target_a.id, capsys)
        assert code == 1
        assert f"url: {target_a.final_url}  [HTTP 404]" in out
        assert f"did not reach the stored page: the page is gone: HTTP 404 at {target_a.final_url}" in err
        assert "(stored with HTTP 200)" in err
        code, out, err = replay(js_crawl, target_b.id, capsys)  # the rest of the site is still there
        assert code == 0, err
    finally:
        server.stop()

    server = _serve_changed(js_crawl.site, ["/lab/js/"])  # the page holding the anchor is gone
    try:
        code, out, err = replay(js_crawl, target_a.id, capsys, "--timeout", "2")
    finally:
        server.stop()
    assert code == 1
    assert "compared: nothing (a step failed)" in out
    assert "did not reach the stored page: replay failed at line 2:" in err
    assert "#js-a" in err


# -- errors before any browser ------------------------------------------------------------


def test_unknown_document_id_says_how_to_find_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    SqliteDocumentStore(tmp_path / "empty.sqlite").close()
    code, _, err = replay(tmp_path / "empty.sqlite", "0123456789abcdef", capsys)
    assert code == 1
    assert "no document 0123456789abcdef in" in err
    assert "deepbot search QUERY --store" in err and "deepbot export --store" in err


def test_missing_store_and_unknown_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = replay(tmp_path / "nothing.sqlite", "0123456789abcdef", capsys)
    assert code == 1 and "no document store at" in err
    code, _, err = replay(tmp_path / "nothing.sqlite", "not-an-id", capsys)
    assert code == 1 and "cannot read not-an-id" in err and "16-hex-digit document id" in err


def test_help_documents_both_targets(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["replay", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert "DOC_ID" in text and ".nseql" in text and "--store" in text and "--threshold" in text
