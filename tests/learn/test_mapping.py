"""Site mapping and the navigation pattern on the fixture tournament site (48 player pages
among 110): the Target Pages Map finds every player page and nothing else, and the pattern
it gives reaches them all."""

from __future__ import annotations

import collections
import urllib.request
from urllib.parse import urljoin, urlsplit

import pytest
from selectolax.lexbor import LexborHTMLParser

from deepbot.learn.mapping import SiteMap, choose_pattern
from deepbot.learn.patterns import navigation_patterns
from fixtures.server import FixtureServer
from fixtures.sites import quotes, worldcup


def _links(url: str, html: str) -> list[str]:
    anchors = LexborHTMLParser(html).css("a[href]")
    return [urljoin(url, a.attributes.get("href") or "").split("#")[0] for a in anchors]


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return str(answer.read().decode())


def mapped(sample: str, entry: str) -> SiteMap:
    """Breadth-first over the whole site from ``entry``, as the mapping phase does."""
    sitemap = SiteMap(get(sample))
    queue, seen = collections.deque([(entry, None)]), {entry}
    while queue:
        url, parent = queue.popleft()
        html = get(url)
        links = _links(url, html)
        sitemap.add(url, parent, html, links)
        for link in links:
            if urlsplit(link).netloc == urlsplit(entry).netloc and link not in seen:
                seen.add(link)
                queue.append((link, url))
    return sitemap


@pytest.mark.timeout(60)
def test_the_map_finds_the_player_pages_and_the_pattern_reaches_them() -> None:
    with FixtureServer() as site:
        entry = site.url("/cup/")
        sitemap = mapped(site.url("/cup/player/bra-1"), entry)
        assert {urlsplit(u).path for u in sitemap.targets} == worldcup.PLAYERS
        assert sitemap.path(entry) == []
        pattern, = navigation_patterns(list(sitemap.target_paths()))
        assert pattern.targets == len(worldcup.PLAYERS)
        assert [regex.split("/cup/", 1)[1] for (regex,) in pattern.levels] == \
            ["teams/", r"team/[a-z]+", r"player/[a-z]+\-[0-9]+"]

        # The generated crawler: breadth-first, at each level only the links its regexes match.
        queue2, seen2, fetched, stored = collections.deque([(entry, 0)]), {entry}, 0, set()
        while queue2:
            url, level = queue2.popleft()
            html = get(url)
            fetched += 1
            if level == len(pattern.levels):
                stored.add(urlsplit(url).path)
                continue
            for link in _links(url, html):
                if link not in seen2 and pattern.matches(level, link):
                    seen2.add(link)
                    queue2.append((link, level + 1))
        assert stored == worldcup.PLAYERS
        assert fetched == 1 + 1 + len(worldcup.TEAMS) + len(worldcup.PLAYERS)  # 58 of the site's 110


@pytest.mark.timeout(60)
def test_the_pattern_chosen_takes_the_pager_not_the_tag_pages_that_list_authors_again() -> None:
    with FixtureServer() as site:
        entry = site.url("/quotes/")
        sitemap = mapped(site.url("/quotes/author/Ada-Austen"), entry)
        # The shortest paths run through the tag pages (the pager's tenth page is nine links
        # away), whose lists overlap.
        shortest = navigation_patterns(list(sitemap.target_paths()))[0]
        assert "/tag/" in shortest.levels[0][0]
        through_tags = sitemap.traversal(shortest)
        chosen = choose_pattern(sitemap)
        assert chosen is not None
        assert {urlsplit(u).path for u in chosen.run.reached} == quotes.AUTHORS
        assert [regex.split("/quotes/", 1)[1] for (regex,) in chosen.pattern.levels] == \
            ["page/[0-9]+/", r"author/[A-Za-z]+\-[A-Za-z]+"]
        # the pager's nine other pages (not /page/1/, its first page again, which "Previous"
        # leads back to) and the 50 authors
        assert chosen.run.traversed == 9 + len(quotes.AUTHORS) < through_tags.traversed
        assert chosen.missed == frozenset()


def test_a_threshold_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="threshold"):
        SiteMap("<body></body>", threshold=1.5)
