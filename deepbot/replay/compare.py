"""Did a replay reach the stored page? Pure functions of two pages' facts."""

from __future__ import annotations

from dataclasses import dataclass

from deepbot.content.extract import main_text, page_text
from deepbot.content.fingerprint import SHINGLE_WORDS, similarity
from deepbot.routes import Document, Via, canonical_url

# A long page whose ads or dates changed stays above this; a page differing in the word
# that matters (another target, another search) falls far below (see content.fingerprint).
SIMILARITY_THRESHOLD = 0.9
FINGERPRINT = f"Jaccard of {SHINGLE_WORDS}-word shingles of the main text"


@dataclass(frozen=True)
class PageFacts:
    """What tells one page from another: where it is, how it answered, what it says."""

    url: str
    text: str
    status: int | None = None


@dataclass(frozen=True)
class PageMatch:
    """The verdict of ``compare_pages`` and what it compared."""

    reached: bool
    reason: str  # one sentence: why reached or not
    stored_url: str  # canonical
    replayed_url: str  # canonical
    similarity: float  # of the two texts' fingerprints, in [0, 1]
    threshold: float

    @property
    def same_url(self) -> bool:
        return self.stored_url == self.replayed_url


def _error_status(status: int | None) -> bool:
    return status is not None and status >= 400


def compare_pages(
    stored: PageFacts,
    replayed: PageFacts,
    *,
    url_identifies: bool = True,
    threshold: float = SIMILARITY_THRESHOLD,
) -> PageMatch:
    """Did the replay reach the stored page?

    An error status the stored page did not have means the page is gone. Otherwise
    the same text (fingerprint similarity ≥ ``threshold``) is the same page wherever
    it now lives, and the same canonical URL is the same page even if its text changed
    -- unless the URL does not identify the page (``url_identifies=False``: a page
    reached by a click or a form, e.g. POST results that all share one URL).
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], not {threshold}")
    sim = round(similarity(stored.text, replayed.text), 4)
    same_url = canonical_url(stored.url) == canonical_url(replayed.url)
    text = f"text similarity {sim:.2f} {'≥' if sim >= threshold else '<'} {threshold:.2f}"
    if _error_status(replayed.status) and replayed.status != stored.status:
        was = f" (stored with HTTP {stored.status})" if stored.status is not None else ""
        reached, reason = False, f"the page is gone: HTTP {replayed.status} at {replayed.url}{was}"
    elif sim >= threshold:
        where = "at the same URL" if same_url else f"at another URL ({replayed.url})"
        reached, reason = True, f"same content {where}: {text}"
    elif same_url and url_identifies:
        reached, reason = True, f"same URL, but the content changed: {text}"
    elif same_url:
        reached, reason = False, (
            f"same URL but different content ({text}); pages reached by a click or a form "
            "can share a URL, so only the content tells them apart"
        )
    else:
        reached, reason = False, f"a different page: {replayed.url} instead of {stored.url}, {text}"
    return PageMatch(reached, reason, canonical_url(stored.url), canonical_url(replayed.url), sim, threshold)


def replayed_text(html: str) -> str:
    """The text of a replayed page, extracted as the crawl extracted the stored one."""
    return main_text(html) or page_text(html)


def url_identifies(doc: Document) -> bool:
    """True when the document's URL alone names its page (links and seeds, not actions)."""
    return doc.via in (Via.SEED, Via.LINK)
