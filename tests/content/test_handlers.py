"""Download handlers: chosen by content type, each turning a Fetched into a Content."""

from __future__ import annotations

import json

import pytest

from deepbot.content.handlers import (
    Fetched,
    HandlerLimits,
    HtmlHandler,
    MetadataHandler,
    decode,
    default_registry,
    media_type,
    sniff,
)

from .pdf import make_pdf

URL = "https://shop.example/item"


def fetched(content_type: str = "", body: bytes = b"", **kw: object) -> Fetched:
    return Fetched(url=URL, final_url=URL, status=200, content_type=content_type, body=body, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("content_type", "handler"),
    [
        ("text/html; charset=utf-8", "html"),
        ("application/xhtml+xml", "html"),
        ("application/pdf", "pdf"),
        ("application/json", "json"),
        ("application/ld+json", "json"),  # structured suffix
        ("text/plain", "text"),
        ("text/csv", "text"),  # text/*
        ("application/rss+xml", "text"),
        ("image/png", "metadata"),
        ("application/octet-stream", "metadata"),
    ],
)
def test_registry_picks_handler_by_media_type(content_type: str, handler: str) -> None:
    assert default_registry().handler_for(media_type(content_type)).name == handler


def test_registry_can_be_extended_without_mutation() -> None:
    base = default_registry()
    custom = base.with_handler("image/*", HtmlHandler())
    assert custom.handler_for("image/png").name == "html"
    assert base.handler_for("image/png").name == "metadata"


def test_html_uses_rendered_dom_title_and_visible_text() -> None:
    html = "<html><head><title> Ignored </title></head><body><p>Hello</p></body></html>"
    content = default_registry().handle(
        fetched("text/html", html=html, title="Rendered title", visible_text="Hello from the page\n")
    )
    assert content.handler == "html"
    assert content.content_type == "text/html"
    assert (content.title, content.text, content.html) == ("Rendered title", "Hello from the page", html)
    assert content.size == len(html.encode())


def test_html_from_bytes_without_browser_extras() -> None:
    html = "<title>Caf\u00e9 list</title><body><p>Un caf\u00e9</p><script>x=1</script></body>"
    body = html.encode("latin-1")
    content = default_registry().handle(fetched("text/html; charset=ISO-8859-1", body))
    assert content.title == "Caf\u00e9 list"
    assert content.text == "Un caf\u00e9"
    assert content.meta["charset"] == "iso-8859-1"
    assert content.size == len(body)


def test_html_too_big_keeps_text_drops_dom() -> None:
    html = "<body><p>" + "word " * 100 + "</p></body>"
    registry = default_registry(HandlerLimits(max_bytes=100))
    content = registry.handle(fetched("text/html", html=html))
    assert content.html == ""
    assert content.text.startswith("word word")
    assert "dropped" in content.meta["html"]


def test_pdf_text_and_title_are_extracted() -> None:
    pdf = make_pdf("First page about crawling", "Second page (forms)", title="Deep Web Notes")
    content = default_registry().handle(fetched("application/pdf", pdf))
    assert content.handler == "pdf"
    assert content.title == "Deep Web Notes"
    assert "First page about crawling" in content.text
    assert "Second page (forms)" in content.text
    assert content.meta["pages"] == "2"
    assert "truncated" not in content.meta
    assert content.size == len(pdf)


def test_pdf_page_cap() -> None:
    pdf = make_pdf("one", "two", "three")
    content = default_registry(HandlerLimits(max_pdf_pages=1)).handle(fetched("application/pdf", pdf))
    assert content.text == "one"
    assert content.meta["truncated"] == "true"


def test_broken_pdf_is_an_outcome_not_a_crash() -> None:
    content = default_registry().handle(fetched("application/pdf", b"%PDF-1.4\nnot really a pdf"))
    assert content.text == ""
    assert "error" in content.meta


def test_pdf_over_cap_is_not_parsed() -> None:
    pdf = make_pdf("text")
    content = default_registry(HandlerLimits(max_bytes=10)).handle(fetched("application/pdf", pdf))
    assert content.text == ""
    assert content.meta == {"skipped": "over max_bytes"}
    assert content.size == len(pdf)


def test_plain_text_is_decoded_and_capped() -> None:
    body = "h\u00e9llo world".encode()
    assert default_registry().handle(fetched("text/plain", body)).text == "h\u00e9llo world"
    capped = default_registry(HandlerLimits(max_bytes=5)).handle(fetched("text/plain", b"0123456789"))
    assert capped.text == "01234"
    assert capped.meta["truncated"] == "true"
    assert capped.size == 10


def test_json_is_pretty_and_titled() -> None:
    body = json.dumps({"title": "Books API", "items": [{"isbn": "123", "name": "Java"}]}).encode()
    content = default_registry().handle(fetched("application/json", body))
    assert content.title == "Books API"
    assert json.loads(content.text) == json.loads(body)
    assert "\n  " in content.text  # indented


def test_invalid_json_is_kept_as_text() -> None:
    content = default_registry().handle(fetched("application/json", b"{oops"))
    assert content.text == "{oops"
    assert content.meta["error"].startswith("invalid JSON")


def test_other_types_keep_metadata_only() -> None:
    body = bytes(range(256)) * 10
    content = default_registry().handle(fetched("image/png", body))
    assert content.handler == MetadataHandler.name
    assert (content.text, content.html) == ("", "")
    assert content.size == len(body)
    assert len(content.meta["sha256"]) == 64


@pytest.mark.parametrize(
    ("f", "expected"),
    [
        (fetched("", make_pdf("x")), "application/pdf"),
        (fetched("", b'  {"a": 1}'), "application/json"),
        (fetched("", b"<!DOCTYPE html><p>x"), "text/html"),
        (fetched("", b"\x00\x01"), "application/octet-stream"),
        (fetched("", html="<p>x</p>"), "text/html"),
        (fetched("Text/HTML; charset=UTF-8"), "text/html"),
    ],
)
def test_sniff_when_no_type_declared(f: Fetched, expected: str) -> None:
    assert sniff(f) == expected


def test_decode_order() -> None:
    assert decode(b"\xef\xbb\xbfhi", "") == ("hi", "utf-8-sig")
    assert decode("hi".encode("utf-16"), "") == ("hi", "utf-16")
    assert decode(b"caf\xe9", "text/plain") == ("caf\u00e9", "cp1252")  # not UTF-8
    assert decode(b"caf\xc3\xa9", "text/plain; charset=bogus") == ("caf\u00e9", "utf-8")
