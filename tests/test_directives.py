"""Which of a page's robots directives (meta and X-Robots-Tag) apply to DeepBot."""

from __future__ import annotations

import pytest

from deepbot.crawl.directives import PageDirectives, page_directives


@pytest.mark.parametrize(("meta", "header", "expected"), [
    ((), None, PageDirectives()),
    ((("robots", "noindex, follow"),), None, PageDirectives(noindex=True, said="noindex, follow")),
    ((("ROBOTS", " NoFollow "),), None, PageDirectives(nofollow=True, said="nofollow")),
    ((("robots", "none"),), None, PageDirectives(noindex=True, nofollow=True, said="none")),
    # A meta naming us by product token counts; one naming another crawler does not.
    ((("DeepBot", "noindex"),), None, PageDirectives(noindex=True, said="noindex")),
    ((("googlebot", "noindex"), ("description", "noindex")), None, PageDirectives()),
    # X-Robots-Tag: for everyone, for us, for someone else; several headers joined by newlines.
    ((), "noindex", PageDirectives(noindex=True, said="noindex")),
    ((), "deepbot: nofollow", PageDirectives(nofollow=True, said="nofollow")),
    ((), "otherbot: noindex, nofollow", PageDirectives()),
    ((), "otherbot: noindex\nnofollow", PageDirectives(nofollow=True, said="nofollow")),
    # A directive with a value is not a crawler's name; what is said twice is said once.
    ((), "unavailable_after: 25 Jun 2010 15:00:00 PST",
     PageDirectives(said="unavailable_after: 25 jun 2010 15:00:00 pst")),
    ((("robots", "noindex"),), "noindex, max-snippet:-1",
     PageDirectives(noindex=True, said="noindex, max-snippet:-1")),
])
def test_directives_that_apply(meta: tuple[tuple[str, str], ...], header: str | None,
                               expected: PageDirectives) -> None:
    assert page_directives(meta, header, "DeepBot") == expected
