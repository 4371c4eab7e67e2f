"""Site mapping and the navigation pattern on the fixture tournament site (48 player pages
among 110): the Target Pages Map finds every player page and nothing else, and the pattern
it gives reaches them all."""

from __future__ import annotations

import collections
import urllib.request
from urllib.parse import urljoin, urlsplit

import pytest
from selectolax.lexbor import LexborHTMLParser

from deepbot.learn.mapping import SiteMap
from deepbot.learn.patterns import navigation_patterns
from fixtures.server import FixtureServer
from fixtures.sites import worldcup


def _links(url: str, html: str) -> list[str]:
    anchors = LexborHTMLParser(html).css("a[href]")
    return [urljoin(url, a.attributes.get("href") or "").split("#")[0] for a in anchors]


@pytest.mark.timeout(60)
def test_the_map_finds_the_player_pages_and_the_pattern_reaches_them() -> None:
    with FixtureServer() as site:
        def get(url: str) -> str:
            with urllib.request.urlopen(url, timeout=10) as answer:
                return str(answer.read().decode())

        entry = site.url("/cup/")
        sitemap = SiteMap(get(site.url("/cup/player/bra-1")))
        queue, seen = collections.deque([(entry, None)]), {entry}
        while queue:  # breadth-first over the whole site, as the mapping phase does
            url, parent = queue.popleft()
            html = get(url)
            sitemap.add(url, parent, html)
            for link in _links(url, html):
                if urlsplit(link).netloc == urlsplit(entry).netloc and link not in seen:
                    seen.add(link)
                    queue.append((link, url))
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


def test_a_threshold_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="threshold"):
        SiteMap("<body></body>", threshold=1.5)
