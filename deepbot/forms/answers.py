"""What a query's answer says of itself: a results page that found nothing."""

from __future__ import annotations

import re

__all__ = ["looks_like_no_results"]

# What result pages say when a query matched nothing.
_NO_RESULTS = re.compile(
    r"\b(no (items|results|records|matches|books|titles|products)\b.{0,40}\b(found|matched|match)"
    r"|no (results|matches) (found|for)|did not match any|nothing (was )?found|0 (results|items|matches)"
    r"|your search returned no|sorry, we couldn.?t find|\bno \w+ (were |was )?found\b)", re.I)


def looks_like_no_results(text: str) -> bool:
    return bool(_NO_RESULTS.search(text[:5000]))
