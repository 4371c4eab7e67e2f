"""The document store's contract: one protocol every backend implements, and a search hit.

Calls are synchronous (SQLite answers in microseconds to milliseconds); async code
calls them through ``asyncio.to_thread``, which implementations must allow.
"""

from __future__ import annotations

from collections.abc import Iterator
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


@runtime_checkable
class DocumentStore(Protocol):
    def upsert(self, doc: Document) -> bool:
        """Store ``doc``, replacing the one of the same route key; True if it is new."""
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
