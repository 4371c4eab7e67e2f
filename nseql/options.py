"""``select SEL like "text"``: which option of a <select> reads most like a text (pure).

For a select whose options are not known when the program is written: a script fills
it once another field is chosen (a car's model once its make is), or a site renames
"Paperback" to "Paperback (PB)". Words are compared case-folded and without
punctuation: the same words score 1; otherwise the better of Jaro-Winkler and the
share of words one holds of the other's (x 0.95, below an exact match). An option
must score at least ``LIKE``; the best wins, the shorter label on a tie.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz
from rapidfuzz.distance import JaroWinkler

LIKE = 0.85

_WORD = re.compile(r"\w+")


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def likeness(text: str, label: str) -> float:
    a, b = _words(text), _words(label)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    return max(JaroWinkler.normalized_similarity(a, b), 0.95 * fuzz.token_set_ratio(a, b) / 100)


def closest_option(text: str, options: Iterable[tuple[str, str, bool]]) -> str | None:
    """The value of the enabled option (value, label, disabled) most like ``text``, or None."""
    best: tuple[float, int, str] | None = None
    for value, label, disabled in options:
        if disabled:
            continue
        score = max(likeness(text, label), likeness(text, value))
        if score >= LIKE and (best is None or (score, -len(label)) > best[:2]):
            best = (score, -len(label), value)
    return best[2] if best else None
