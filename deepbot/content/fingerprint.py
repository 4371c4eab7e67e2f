"""Content fingerprints: is this the same text as before, give or take a little?

A fingerprint is the set of word shingles (runs of ``k`` consecutive words) of the
normalised text, and two texts are compared by the Jaccard similarity of their sets.
Each changed word touches up to ``k`` shingles, so on a short page one different word
("Target A" / "Target B", another search term) drops the similarity far below a 0.9
threshold, while on a long page a changed date or counter barely moves it. A character
edit ratio is the other way round: 0.95 for two short pages that differ in the word
that matters. Sets also ignore moved blocks and repeated boilerplate lines.
"""

from __future__ import annotations

import re
import unicodedata

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
