"""The post-processing chain: ordered processors run on every visited page.

A processor reads a frozen :class:`ProcessContext` and hands on a widened copy
(``ctx.widened(document=...)``), or None when it changes nothing; new routes and the
forms it analysed go in the context's two buffers, ``ctx.routes`` and ``ctx.forms``.
The worker commits what the chain buffered (stores the document if
``ctx.relevance.keep``, pushes ``ctx.routes``) only after the whole visit succeeded,
so a retried route never duplicates output. Main text + summary lives here; Obtain
Links and the Form Analyzer plug in the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from deepbot.content.extract import main_text, summarize
from deepbot.content.filters import Decision
from deepbot.content.handlers import Content, Fetched
from deepbot.routes import Document, PageSnapshot, Route

if TYPE_CHECKING:
    from playwright.async_api import Page


@dataclass(frozen=True, slots=True)
class ProcessContext:
    """One visit, as the processors see it: each hands the next a widened copy."""

    route: Route
    fetched: Fetched
    content: Content
    document: Document
    relevance: Decision  # the relevance chain's verdict; processors run either way
    page: Page | None = None  # the live page, for processors that need the browser
    snapshot: PageSnapshot | None = None  # links and script elements the browser saw
    session: str | None = None  # digest of the session captured after the page (None: empty)
    # The buffers every processor adds to (the widened copies share them): new routes,
    # pushed after success.
    routes: list[Route] = field(default_factory=list)
    # Identities of the forms this page's analysis read (forms.identity): recorded as
    # known after success, so no page that shows them again has them analysed again.
    forms: list[str] = field(default_factory=list)
    # A priority policy's rating of the page's links, (url, anchor text) → priority: set by
    # a processor before Obtain Links (a structure-driven crawl's); larger is leased first.
    link_priority: Callable[[str, str], float] | None = None
    # And what the policy would have each link's route carry (Route.hint), by URL.
    link_hint: Callable[[str], str | None] | None = None

    def widened(self, **changes: Any) -> ProcessContext:
        """A copy with these fields replaced (the buffers stay the same lists)."""
        return replace(self, **changes)


class Processor(Protocol):
    @property
    def name(self) -> str: ...

    async def process(self, ctx: ProcessContext) -> ProcessContext | None:
        """The context widened by what the processor found, or None if it found nothing to add."""
        ...


class PostProcessChain:
    """Runs processors in order. An exception ends the chain and fails the visit."""

    def __init__(self, processors: Sequence[Processor] = ()) -> None:
        self.processors = tuple(processors)

    def then(self, *processors: Processor) -> PostProcessChain:
        """A copy with processors appended."""
        return PostProcessChain((*self.processors, *processors))

    async def run(self, ctx: ProcessContext) -> ProcessContext:
        for processor in self.processors:
            widened = await processor.process(ctx)
            if widened is not None:
                ctx = widened
        return ctx


class MainTextProcessor:
    """Replaces an HTML document's text with its main text, and writes the summary."""

    name = "main-text"

    def __init__(self, summary_chars: int = 300) -> None:
        self.summary_chars = summary_chars

    async def process(self, ctx: ProcessContext) -> ProcessContext:
        doc = ctx.document
        text = doc.text
        if doc.html:
            # Parsing a big DOM is CPU work: off the event loop, so the browser keeps talking.
            # An empty main text means extraction found nothing: keep the full text.
            text = await asyncio.to_thread(main_text, doc.html) or doc.text
        summary = summarize(text, self.summary_chars, title=doc.title)
        return ctx.widened(document=doc.model_copy(update={"text": text, "summary": summary}))
