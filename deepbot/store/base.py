"""The document store's contract: one protocol every backend implements, and a search hit.

Calls are synchronous (SQLite answers in microseconds to milliseconds); async code
calls them through ``asyncio.to_thread``, which implementations must allow.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from enum import StrEnum
from typing import Protocol, runtime_checkable

from deepbot.models import Frozen
from deepbot.routes import Document, Via


class Hit(Frozen):
    """One search result, best first in a result list."""

    doc_id: str
    title: str
    url: str  # the final URL
    via: Via
    domain: str | None = None
    query: dict[str, str] | None = None  # the form query, for via=form
    form_url: str | None = None
    snippet: str  # plain text around the matches
    highlights: tuple[tuple[int, int], ...] = ()  # [start, end) of each match in snippet
    score: float  # larger is better; only comparable within one result list

    def marked(self, open_: str = "[", close: str = "]") -> str:
        """The snippet with each match wrapped in ``open_``/``close``."""
        out, pos = [], 0
        for start, end in self.highlights:
            out += [self.snippet[pos:start], open_, self.snippet[start:end], close]
            pos = end
        out.append(self.snippet[pos:])
        return "".join(out)


class Change(StrEnum):
    """What one visit of a document found."""

    NEW = "new"  # first stored
    CHANGED = "changed"  # its fingerprint (content.fingerprint) differs from the stored one's
    UNCHANGED = "unchanged"  # the same fingerprint, or the server said 304 Not Modified
    GONE = "gone"  # 404/410, or the query results that listed it no longer do


class Visit(Frozen):
    """One visit in a document's history: what the change-rate estimator reads."""

    doc_id: str
    url: str  # the route's URL (a gone document's is all that is left of it)
    at: datetime  # UTC
    change: Change
    # When the page last changed, as its server said (Last-Modified) with the document the
    # visit stored; None for a visit that stored none (a 304, a gone page) or a server that did not say.
    last_modified: datetime | None = None


class Version(Frozen):
    """An earlier version of a document, kept when a visit found it changed."""

    doc_id: str
    title: str
    text: str
    html: str = ""
    fingerprint: str
    seen_at: datetime  # when this version was first seen
    until: datetime  # the visit that found it changed (or gone)


@runtime_checkable
class DocumentStore(Protocol):
    """Every backend keeps, besides the documents, their history: each upsert or mark is a
    visit (``visits``), and a changed or gone document's earlier content is kept as a
    ``Version`` (the newest ``keep_versions`` of each)."""

    def upsert(self, doc: Document) -> bool:
        """Store ``doc``, replacing the one of the same route key; True if it is new.

        Also a visit at ``doc.fetched_at``: NEW, or CHANGED (the replaced content is kept as
        a version) or UNCHANGED by the two fingerprints (``meta["fingerprint"]`` where the
        crawl noted one, else one of the text: content.fingerprint.page_fingerprint)."""
        ...

    def mark(self, doc_id: str, change: Change, at: datetime) -> bool:
        """A visit that stored no document: UNCHANGED (a 304) or GONE (the document is
        removed and kept as a version). False if there is no such document."""
        ...

    def visits(self, *, doc_id: str | None = None, since: datetime | None = None) -> Iterator[Visit]:
        """Visits in time order: of one document, or of all; at or after ``since``."""
        ...

    def versions(self, doc_id: str) -> list[Version]:
        """A document's earlier versions, newest first."""
        ...

    def get(self, doc_id: str) -> Document | None: ...

    def iter_documents(self, *, html: bool = True) -> Iterator[Document]:
        """Every document in the order first stored; ``html=False`` skips the DOM."""
        ...

    def count(self) -> int: ...

    def counts_by_via(self) -> dict[Via, int]: ...

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """Ranked full-text search over title, summary, text and URL."""
        ...

    def close(self) -> None: ...
