"""Download handlers: what a fetched response becomes, chosen by content type.

The worker builds a :class:`Fetched` from the Playwright response and page; a
:class:`HandlerRegistry` picks the handler for its media type (exact type, then a
structured suffix such as ``+json``, then ``type/*``, then the fallback) and returns a
:class:`Content`. Handlers are pure: no browser, no I/O.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import json
from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import Field

from deepbot.content.extract import html_title, page_text
from deepbot.models import Frozen as _Frozen

MiB = 1024 * 1024


class Fetched(_Frozen):
    """What the worker got for a route, before any interpretation."""

    url: str  # the route's URL
    final_url: str  # after redirects and script navigation
    status: int | None = None
    content_type: str = ""  # the raw header, e.g. "text/html; charset=utf-8"
    body: bytes = b""  # response bytes (PDF, text, JSON, other)
    html: str | None = None  # the rendered DOM, for pages the browser rendered
    title: str = ""  # document.title, when the browser has one
    visible_text: str | None = None  # the page's rendered text (innerText), if captured


class Content(_Frozen):
    """What a handler kept of a fetched response."""

    content_type: str  # bare media type, lower case, no parameters
    title: str = ""
    text: str = ""
    html: str = ""  # rendered DOM, only for HTML
    size: int = 0  # bytes received (before any cap)
    handler: str  # name of the handler that produced it
    meta: dict[str, str] = Field(default_factory=dict)  # e.g. charset, pages, truncated, error


class HandlerLimits(_Frozen):
    """Bounds that keep one huge response from costing the crawl memory or minutes."""

    max_bytes: int = Field(default=5 * MiB, ge=0)  # larger bodies are not parsed or kept
    max_pdf_pages: int = Field(default=500, ge=1)


class Handler(Protocol):
    @property
    def name(self) -> str: ...

    def handle(self, fetched: Fetched, media_type: str, limits: HandlerLimits) -> Content: ...


# --- media types ---------------------------------------------------------------------


def media_type(content_type: str) -> str:
    """``"Text/HTML; charset=UTF-8"`` → ``"text/html"``."""
    return content_type.split(";", 1)[0].strip().lower()


def charset(content_type: str) -> str | None:
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'").lower()
    return None


def sniff(fetched: Fetched) -> str:
    """The media type, guessed from the body when the server sent none."""
    declared = media_type(fetched.content_type)
    if declared:
        return declared
    if fetched.html is not None:
        return "text/html"
    head = fetched.body[:512].lstrip()
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if head[:1] in (b"{", b"["):
        return "application/json"
    if head[:5].lower() in (b"<!doc", b"<html"):
        return "text/html"
    return "application/octet-stream"


def decode(body: bytes, content_type: str) -> tuple[str, str]:
    """Text and the charset used: BOM, then the declared charset, then UTF-8, then cp1252."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                      (codecs.BOM_UTF16_BE, "utf-16")):
        if body.startswith(bom):
            return body.decode(name, errors="replace"), name
    declared = charset(content_type)
    if declared:
        try:
            return body.decode(declared, errors="replace"), declared
        except LookupError:  # an unknown charset name: fall through to guessing
            pass
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace"), "cp1252"


def _capped(fetched: Fetched, limits: HandlerLimits) -> tuple[bytes, dict[str, str]]:
    """The body cut to the byte cap, and meta saying so when it was cut."""
    if len(fetched.body) <= limits.max_bytes:
        return fetched.body, {}
    return fetched.body[: limits.max_bytes], {"truncated": "true", "kept_bytes": str(limits.max_bytes)}


# --- handlers ----------------------------------------------------------------------


class HtmlHandler:
    """The rendered DOM: text is the page's visible text, or the DOM's text without scripts."""

    name = "html"

    def handle(self, fetched: Fetched, media_type: str, limits: HandlerLimits) -> Content:
        meta: dict[str, str] = {}
        if fetched.html is not None:
            html = fetched.html
            size = len(fetched.body) or len(html.encode())
        else:
            body, meta = _capped(fetched, limits)
            html, meta["charset"] = decode(body, fetched.content_type)
            size = len(fetched.body)
        text = fetched.visible_text if fetched.visible_text is not None else page_text(html)
        title = fetched.title or html_title(html)
        if len(html) > limits.max_bytes:  # keep the text, not a DOM too big to store
            meta["html"] = "dropped: over max_bytes"
            html = ""
        return Content(content_type=media_type, title=title.strip(), text=text.strip(), html=html,
                       size=size, handler=self.name, meta=meta)


class TextHandler:
    """Plain text (and any other ``text/*`` or XML) kept as decoded text."""

    name = "text"

    def handle(self, fetched: Fetched, media_type: str, limits: HandlerLimits) -> Content:
        body, meta = _capped(fetched, limits)
        text, meta["charset"] = decode(body, fetched.content_type)
        return Content(content_type=media_type, title=fetched.title, text=text, size=len(fetched.body),
                       handler=self.name, meta=meta)


class JsonHandler:
    """JSON pretty-printed, so it stays valid JSON and its words are searchable."""

    name = "json"

    def handle(self, fetched: Fetched, media_type: str, limits: HandlerLimits) -> Content:
        body, meta = _capped(fetched, limits)
        raw, meta["charset"] = decode(body, fetched.content_type)
        title = fetched.title
        try:
            value: Any = json.loads(raw)
        except ValueError as exc:  # invalid (or truncated) JSON is still text worth keeping
            meta["error"] = f"invalid JSON: {exc}"
            text = raw
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False)
            if not title and isinstance(value, dict) and isinstance(value.get("title"), str):
                title = value["title"]
        return Content(content_type=media_type, title=title, text=text, size=len(fetched.body),
                       handler=self.name, meta=meta)


class PdfHandler:
    """Text of each page via pypdf; the title from the document info when present."""

    name = "pdf"

    def handle(self, fetched: Fetched, media_type: str, limits: HandlerLimits) -> Content:
        size = len(fetched.body)
        if size > limits.max_bytes:
            return Content(content_type=media_type, title=fetched.title, size=size, handler=self.name,
                           meta={"skipped": "over max_bytes"})
        from pypdf import PdfReader  # imported here: only PDF pages pay for it

        meta: dict[str, str] = {}
        pages: list[str] = []
        title = fetched.title
        try:
            reader = PdfReader(io.BytesIO(fetched.body))
            meta["pages"] = str(len(reader.pages))
            for page in reader.pages[: limits.max_pdf_pages]:
                pages.append(page.extract_text() or "")
            info_title = reader.metadata.title if reader.metadata else None
            title = title or (info_title or "")
        except Exception as exc:  # pypdf raises many types on broken files; one bad PDF is an outcome
            meta["error"] = f"{type(exc).__name__}: {exc}"
        if len(pages) < int(meta.get("pages", "0")):
            meta["truncated"] = "true"
        return Content(content_type=media_type, title=str(title).strip(), text="\n\n".join(pages).strip(),
                       size=size, handler=self.name, meta=meta)


class MetadataHandler:
    """Anything else: kept as metadata (type, size, digest), never the bytes."""

    name = "metadata"

    def handle(self, fetched: Fetched, media_type: str, limits: HandlerLimits) -> Content:
        body, meta = _capped(fetched, limits)
        meta["sha256"] = hashlib.sha256(body).hexdigest()
        return Content(content_type=media_type, title=fetched.title, size=len(fetched.body),
                       handler=self.name, meta=meta)


# --- registry ----------------------------------------------------------------------


class HandlerRegistry:
    """Maps media-type patterns (``text/html``, ``+json``, ``text/*``) to handlers."""

    def __init__(
        self,
        handlers: Mapping[str, Handler],
        fallback: Handler,
        limits: HandlerLimits | None = None,
    ) -> None:
        self._handlers = {pattern.lower(): handler for pattern, handler in handlers.items()}
        self.fallback = fallback
        self.limits = limits or HandlerLimits()

    def with_handler(self, pattern: str, handler: Handler) -> HandlerRegistry:
        """A copy with one pattern added or replaced."""
        return HandlerRegistry({**self._handlers, pattern: handler}, self.fallback, self.limits)

    def with_limits(self, limits: HandlerLimits) -> HandlerRegistry:
        return HandlerRegistry(self._handlers, self.fallback, limits)

    def handler_for(self, media: str) -> Handler:
        major, _, subtype = media.partition("/")
        suffix = "+" + subtype.rpartition("+")[2] if "+" in subtype else None
        for key in (media, suffix, f"{major}/*"):
            if key and key in self._handlers:
                return self._handlers[key]
        return self.fallback

    def handle(self, fetched: Fetched) -> Content:
        media = sniff(fetched)
        return self.handler_for(media).handle(fetched, media, self.limits)


def default_registry(limits: HandlerLimits | None = None) -> HandlerRegistry:
    html, text, js = HtmlHandler(), TextHandler(), JsonHandler()
    return HandlerRegistry(
        {
            "text/html": html,
            "application/xhtml+xml": html,
            "application/pdf": PdfHandler(),
            "application/json": js,
            "+json": js,
            "text/*": text,
            "application/xml": text,
            "+xml": text,
        },
        fallback=MetadataHandler(),
        limits=limits,
    )
