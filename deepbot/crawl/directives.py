"""What a page asks of robots itself: ``<meta name="robots">`` and ``X-Robots-Tag``.

robots.txt says where a crawler may go; these say what it may do with a page it has
fetched. ``noindex``: do not keep the page; ``nofollow``: do not follow its links;
``none``: both. A directive applies to every crawler, or to one named by its product
token: ``<meta name="deepbot" content="noindex">``, ``X-Robots-Tag: deepbot: nofollow``
(as Google reads them). Other directives (``noarchive``, ``max-snippet:…``) are kept
in what the page said and otherwise ignored.

DeepBot always records them (``Document.meta["robots"]``); it obeys them only when
asked (``CrawlConfig.obey_meta_robots``): sites routinely mark their search results
``noindex`` (WordPress with Yoast does), and those results are what a deep-web crawl is
for. robots.txt, the access rule, is obeyed by default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Directives with a value after a colon: their colon does not name a crawler.
_VALUED = frozenset({"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"})
_SCOPED = re.compile(r"\s*([A-Za-z][\w-]*)\s*:\s*(.*)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class PageDirectives:
    noindex: bool = False
    nofollow: bool = False
    said: str = ""  # every directive that applies to us, as the page said them: "noindex, follow"


def _directives(value: str) -> list[str]:
    return [part.strip().lower() for part in value.split(",") if part.strip()]


def _header_directives(value: str, token: str) -> list[str]:
    """One X-Robots-Tag value: for every crawler, or for the one it names first."""
    scoped = _SCOPED.match(value)
    if scoped and scoped.group(1).lower() not in _VALUED:
        return _directives(scoped.group(2)) if scoped.group(1).lower() == token else []
    return _directives(value)


def page_directives(meta: Iterable[tuple[str, str]], x_robots_tag: str | None, token: str) -> PageDirectives:
    """The directives for the crawler whose product token is ``token``, from the page's
    ``<meta>`` elements (name, content) and its X-Robots-Tag header (several headers
    arrive joined by newlines)."""
    token = token.lower()
    said: list[str] = []
    for name, content in meta:
        if name.strip().lower() in ("robots", token):
            said += _directives(content)
    for value in (x_robots_tag or "").split("\n"):
        said += _header_directives(value, token)
    said = list(dict.fromkeys(said))
    return PageDirectives(noindex="noindex" in said or "none" in said,
                          nofollow="nofollow" in said or "none" in said, said=", ".join(said))
