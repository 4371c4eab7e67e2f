"""Content fingerprints: is this the same text as before, give or take a little?

Two measures: ``similarity`` (below) for "about the same page" (a replay), and
``page_fingerprint`` for "has the page changed since the last visit" (a recrawl): a digest
of the main text and the links, with clocks, dates and tokens masked.

A fingerprint is the set of word shingles (runs of ``k`` consecutive words) of the
normalised text, and two texts are compared by the Jaccard similarity of their sets.
Each changed word touches up to ``k`` shingles, so on a short page one different word
("Target A" / "Target B", another search term) drops the similarity far below a 0.9
threshold, while on a long page a changed date or counter barely moves it. A character
edit ratio is the other way round: 0.95 for two short pages that differ in the word
that matters. Sets also ignore moved blocks and repeated boilerplate lines.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from deepbot.content.postprocess import ProcessContext

SHINGLE_WORDS = 3
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lower-cased words of ``text`` (NFKC, so ligatures and full-width forms compare)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def shingles(text: str, k: int = SHINGLE_WORDS) -> frozenset[tuple[str, ...]]:
    """The set of ``k``-word runs of ``text``; a text shorter than ``k`` words is one shingle."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    tokens = words(text)
    if len(tokens) <= k:
        return frozenset({tuple(tokens)}) if tokens else frozenset()
    return frozenset(tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1))


def similarity(a: str, b: str, k: int = SHINGLE_WORDS) -> float:
    """Jaccard similarity of the two texts' shingle sets, in [0, 1]; two empty texts are equal."""
    sa, sb = shingles(a, k), shingles(b, k)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


# What changes on every load without the page changing: a clock's time, today's date, a
# token (a CSRF token, a session or cache-busting id). They are masked before a page is
# fingerprinted, so a page that shows the time is not "changed" on every revisit.
_VOLATILE = re.compile(
    r"\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[ap]\.?m\.?)?\b"  # 14:05, 2:05:09 pm
    r"|\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?\b"  # ISO dates
    r"|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"  # 28/11/2026, 11.28.26
    r"|\b(?=[a-z_-]*\d)(?=[0-9_-]*[a-z])[a-z0-9_-]{16,}\b"  # a token: 16+ letters and digits mixed
    r"|\b[0-9a-f]{16,}\b",  # a hex digest
    re.IGNORECASE,
)
_TOKEN_VALUE = re.compile(r"^[A-Za-z0-9_-]{16,}$")


def stable_text(text: str) -> str:
    """``text``'s words with times, dates and tokens masked (NFKC, case-folded)."""
    return " ".join(words(_VOLATILE.sub(" _ ", unicodedata.normalize("NFKC", text))))


def _stable_link(url: str) -> str:
    parts = urlsplit(url)
    pairs = sorted((k, "_" if _TOKEN_VALUE.match(v) and any(c.isdigit() for c in v) else v)
                   for k, v in parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", urlencode(pairs), ""))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def page_fingerprint(text: str, links: Iterable[str] | None = None) -> str:
    """What a page says, as ``"TEXT.LINKS"``: a digest of its (main) text with the volatile
    parts masked, and one of the set of URLs it links to (tokens in their queries masked,
    order and repeats ignored). Without ``links`` (a page stored before links were
    fingerprinted) only ``"TEXT"``: ``same_page`` then compares the texts alone."""
    text_part = _digest(stable_text(text))
    if links is None:
        return text_part
    return f"{text_part}.{_digest(chr(10).join(sorted({_stable_link(u) for u in links})))}"


def same_page(old: str, new: str) -> bool:
    """Whether two fingerprints say the page is unchanged, comparing the parts both have."""
    a, b = old.split("."), new.split(".")
    return all(x == y for x, y in zip(a, b, strict=False))


class FingerprintProcessor:
    """Notes in each document's meta its ``fingerprint`` (main text and links) and the
    validators its server sent (``etag``, ``last_modified``): the store compares the
    fingerprint on the next visit, and a recrawl asks the server with the validators whether
    the page changed at all (If-None-Match, If-Modified-Since). Runs after the main text."""

    name = "fingerprint"

    async def process(self, ctx: ProcessContext) -> ProcessContext:
        doc = ctx.document
        links = [link.url for link in ctx.snapshot.links] if ctx.snapshot is not None else None
        notes = {**doc.meta.notes, "fingerprint": page_fingerprint(doc.text, links)}
        headers = ctx.snapshot.headers if ctx.snapshot is not None else {}
        for header, note in (("etag", "etag"), ("last-modified", "last_modified")):
            if headers.get(header):
                notes[note] = headers[header]
        meta = doc.meta.model_copy(update={"notes": notes})
        return ctx.widened(document=doc.model_copy(update={"meta": meta}))
