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
from deepbot.learn.patterns import NavigationPattern, navigation_patterns
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


def test_the_fewest_links_to_every_target_are_found_on_the_mapped_graph() -> None:
    # An index over three hubs; the third lists every target the other two list between them.
    # Targets link to the next one ("similar"), and the entry to the first.
    target = "<html><body><h1>T</h1><table><tr><td>1</td><td>2</td></tr></table><p>x</p></body></html>"
    other = "<html><body><ul><li>a</li></ul></body></html>"
    sitemap = SiteMap(target)
    site = "http://s.test/"
    links = {"": ["i", "t1"], "i": ["h1", "h2", "h3"], "h1": ["t1", "t2"], "h2": ["t3", "t4"],
             "h3": ["t1", "t2", "t3", "t4"], "t1": ["t2"], "t2": ["t3"], "t3": ["t4"], "t4": []}
    for page, out in links.items():
        html = target if page.startswith("t") else other
        sitemap.add(site + page, None if page == "" else site, html, [site + link for link in out])
    # Through the targets' own links: the four targets alone.
    least = sitemap.least_links()
    assert least is not None and (least.low, least.high, least.targets) == (4, 4, 4) and least.exact
    # As a navigation pattern goes (nothing followed from a target): the index and the hub
    # that lists all four; the two smaller hubs are not needed.
    least = sitemap.least_links(leaves=True)
    assert least is not None and (least.low, least.high) == (6, 6) and least.per_target() == "1.50"


TARGET = "<html><body><h1>T</h1><table><tr><td>1</td><td>2</td></tr></table><p>x</p></body></html>"
OTHER = "<html><body><ul><li>a</li></ul></body></html>"


def _graph(links: dict[str, list[str]]) -> SiteMap:
    """A mapped site from its links: pages named t… are built like the sample, the others not."""
    target, other = TARGET, OTHER
    sitemap = SiteMap(target)
    site = "http://s.test/"
    parents: dict[str, str | None] = {"": None}
    for page, out in links.items():  # breadth-first: each page's first parent
        for link in out:
            parents.setdefault(link, page)
    for page, out in links.items():
        parent = parents[page]
        sitemap.add(site + page, None if parent is None else site + parent,
                    target if page.startswith("t") else other, [site + link for link in out])
    return sitemap


def test_a_targets_links_to_other_targets_make_the_last_level_repeat_when_it_costs_fewer_links() -> None:
    # The entry features one target and links to two hubs; each target links to the next
    # ("similar"), so the featured one leads to all four without the hubs.
    sitemap = _graph({"": ["t1", "hub/1", "hub/2"], "hub/1": ["t1", "t2"], "hub/2": ["t3", "t4"],
                      "t1": ["t2"], "t2": ["t3"], "t3": ["t4"], "t4": []})
    chosen = choose_pattern(sitemap)
    assert chosen is not None
    assert chosen.pattern.over_targets and chosen.pattern.levels[-1] == (r"http://s\.test/t[0-9]+",)
    assert len(chosen.run.reached) == 4 and chosen.run.traversed == 4  # the hubs are not fetched
    assert chosen.missed == frozenset()


def test_the_last_level_does_not_repeat_where_targets_lead_to_no_more_targets() -> None:
    # Each target links to the one before it only: following them reaches nothing more than
    # the hubs do, so the pattern keeps its last level as leaves.
    sitemap = _graph({"": ["hub/1", "hub/2"], "hub/1": ["t1", "t2"], "hub/2": ["t3", "t4"],
                      "t1": [], "t2": ["t1"], "t3": ["t2"], "t4": ["t3"]})
    chosen = choose_pattern(sitemap)
    assert chosen is not None and len(chosen.run.reached) == 4
    assert not chosen.pattern.over_targets and chosen.run.traversed == 2 + 4


def test_a_pattern_repeating_over_the_targets_follows_no_link_from_a_page_unlike_the_sample() -> None:
    # t2 has the targets' address but is not built like the sample (an artist without a
    # release): it is fetched to be rejected, and its link to t3 is not followed.
    sitemap = _graph({"": ["t1"], "t1": ["t2"]})
    sitemap.add("http://s.test/t2", "http://s.test/t1", OTHER, ["http://s.test/t3"])
    sitemap.add("http://s.test/t3", "http://s.test/t2", TARGET)
    repeating = NavigationPattern(((r"http://s\.test/t[0-9]+",),), 0, frozenset({0}))
    run = sitemap.traversal(repeating)
    assert {urlsplit(u).path for u in run.reached} == {"/t1"} and run.traversed == 2
    sitemap.scores["http://s.test/t2"] = 1.0  # built like the sample after all: t3 is reached through it
    assert len(sitemap.traversal(repeating).reached) == 3


def test_the_last_level_repeats_only_where_the_pattern_without_it_is_above_the_goal() -> None:
    # One hub lists the eight targets (9 links for 8: 1.125, within 1.2), and the entry
    # features the first, which leads to all the others: 8 links, but every rerun would
    # read every target again. The hub's pattern is kept.
    chain = {f"t{n}": [f"t{n + 1}"] for n in range(1, 8)}
    sitemap = _graph({"": ["t1", "hub"], "hub": [f"t{n}" for n in range(1, 9)], **chain, "t8": []})
    chosen = choose_pattern(sitemap)
    assert chosen is not None and len(chosen.run.reached) == 8
    assert not chosen.pattern.over_targets and chosen.run.traversed == 9
    # Two hubs of four (10 links for 8: 1.25): the featured target's links are followed.
    sitemap = _graph({"": ["t1", "hub/1", "hub/2"], "hub/1": [f"t{n}" for n in range(1, 5)],
                      "hub/2": [f"t{n}" for n in range(5, 9)], **chain, "t8": []})
    chosen = choose_pattern(sitemap)
    assert chosen is not None and chosen.pattern.over_targets and chosen.run.traversed == 8
