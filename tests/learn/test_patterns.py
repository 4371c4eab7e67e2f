"""URL patterns and navigation patterns (Vidal et al.'s Regex tree tokenizer)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepbot.learn.patterns import (
    alike,
    backward,
    group_urls,
    levels,
    navigation_patterns,
    pager_numbers,
    skippable,
    token_regex,
    url_pattern,
)


def test_a_url_is_cut_into_origin_segments_and_query() -> None:
    assert levels("https://a.org:8080/x/y.html?id=3#top") == ("https://a.org:8080", "/x", "/y.html", "?id=3")
    assert levels("https://a.org") == ("https://a.org", "/")


def test_tokens_generalise_to_the_deepest_common_node_of_the_regex_tree() -> None:
    assert token_regex(["jazz", "jazz"]) == "jazz"
    assert token_regex(["jazz", "blues"]) == "[a-z]+"
    assert token_regex(["Jazz", "blues"]) == "[A-Za-z]+"
    assert token_regex(["8", "D"]) == "[A-Za-z0-9]+"  # the paper's \\w example
    assert token_regex(["-", "_"]) == "[^A-Za-z0-9/?#]"
    assert token_regex(["a", "-"]) == "[^/?#]+"


def test_the_paper_dblp_example_and_everyday_urls() -> None:
    dblp = [f"http://www.informatik.uni-trier.de/ley/db/indices/a-tree/{p}" for p in
            ("c/Chaves:Silvio_8=.html", "u/Ugher:Mangabeira_D=.html", "m/Mendes:Sergio.html")]
    pattern = url_pattern(dblp)
    assert pattern.endswith(r"/a\-tree/[a-z]+/[A-Za-z0-9:=_]+\.html")
    assert re.fullmatch(pattern, "http://www.informatik.uni-trier.de/ley/db/indices/a-tree/v/Vidal:Marcio.html")
    assert url_pattern(["http://x.com/artist/12", "http://x.com/artist/345"]) == r"http://x\.com/artist/[0-9]+"
    assert url_pattern(["http://x.com/news/2024/05/big-storm", "http://x.com/news/2023/11/one-two-three"]) \
        == r"http://x\.com/news/[0-9]+/[0-9]+/[A-Za-z\-]+"
    assert url_pattern(["http://x.com/a?id=12&p=1", "http://x.com/a?id=3&p=2"]) == r"http://x\.com/a\?id=[0-9]+\&p=[0-9]+"


def test_urls_of_different_shapes_are_refused_together() -> None:
    with pytest.raises(ValueError, match="same number of levels"):
        url_pattern(["http://x.com/a", "http://x.com/a/b"])


def test_alike_urls_share_the_first_level_and_differ_in_at_most_two() -> None:
    assert alike(levels("http://x.com/genre/jazz"), levels("http://x.com/genre/blues"))
    assert not alike(levels("http://x.com/a/b/c"), levels("http://x.com/d/e/f"))
    assert not alike(levels("http://x.com/a"), levels("http://y.com/a"))
    groups = group_urls(["http://x.com/g/1/a/z", "http://x.com/g/2/b/z", "http://x.com/h/3/c/q", "http://x.com/g/1/a/z"])
    assert groups == [["http://x.com/g/1/a/z", "http://x.com/g/2/b/z"], ["http://x.com/h/3/c/q"]]


def test_the_navigation_pattern_follows_the_paths_that_reach_most_targets() -> None:
    hub = [[f"http://x.com/genre/{g}/list", f"http://x.com/artist/{i}"] for g, i in
           [("jazz", 1), ("jazz", 2), ("blues", 3), ("soul", 4), ("soul", 5)]]
    odd = [["http://x.com/about/team", "http://x.com/artist/1"]]  # a shortcut to an artist already found
    pattern, = navigation_patterns(hub + odd, cover=0.8)
    assert pattern.levels == ((r"http://x\.com/genre/[a-z]+/list",), (r"http://x\.com/artist/[0-9]+",))
    assert pattern.targets == 5
    assert pattern.matches(0, "http://x.com/genre/funk/list") and not pattern.matches(0, "http://x.com/about/team")


def test_paths_of_another_length_make_another_pattern() -> None:
    paths = [["http://x.com/a/1"], ["http://x.com/a/2"], ["http://x.com/i/1/p", "http://x.com/b/9"]]
    two = navigation_patterns(paths)
    assert [p.targets for p in two] == [2, 1] and [len(p.levels) for p in two] == [1, 2]


segment = st.text(alphabet="abcXYZ0189-_.:=", min_size=1, max_size=12).filter(lambda s: s not in (".", ".."))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(segment, min_size=2, max_size=2), min_size=1, max_size=8))
def test_a_pattern_matches_every_url_it_was_built_from(paths: list[list[str]]) -> None:
    urls = ["http://x.com/" + "/".join(p) for p in paths]
    pattern = url_pattern(urls)
    assert all(re.fullmatch(pattern, u) for u in urls), pattern


def test_a_pager_is_one_repeating_level_that_may_be_skipped() -> None:
    # A listing ten quotes a page: its first page's authors are one link from the entry page,
    # the seventh page's seven. One path shape: [page/N]* → author.
    site = "http://x.com/quotes/"
    pages = [f"{site}page/{n}/" for n in range(2, 8)]
    names = ["Ada-Austen", "Mark-Twain", "Jane-Eliot", "Leo-Woolf", "Marie-Curie", "Oscar-Wilde",
             "Emily-Dickinson", "George-Eliot", "Albert-Einstein"]
    paths = [[f"{site}author/{name}"] for name in names[:3]]
    paths += [[*pages[:n], f"{site}author/{names[2 + n]}"] for n in range(1, 7)]
    best, *_ = navigation_patterns(paths)
    assert best.targets == 9 and best.repeats == {0}
    assert best.levels == ((r"http://x\.com/quotes/page/[0-9]+/",),
                           (r"http://x\.com/quotes/author/[A-Za-z]+\-[A-Za-z]+",))
    assert best.next_level(-1, f"{site}author/Leo-Tolstoy") == 1  # the pager skipped: the first page's
    assert best.next_level(0, f"{site}page/9/") == 0  # the pager's next page
    assert best.next_level(0, f"{site}author/Leo-Tolstoy") == 1
    assert best.next_level(1, f"{site}page/2/") is None  # nothing is followed from a target
    # Hubs one level apart from each other are not a pager: different sections stay levels.
    hubs, = navigation_patterns([["http://x.com/teams/", "http://x.com/team/bra", "http://x.com/p/1"]])
    assert hubs.repeats == frozenset() and len(hubs.levels) == 3


def test_a_listing_whose_later_pages_have_another_shape_is_one_pattern_its_pager_skippable() -> None:
    # A month's archive: its first page /archive/2026/09/, its second /archive/2026/09/page/2/.
    # Two path shapes; neither alone reaches the other's stories.
    site = "http://x.com/daily/"
    first = [[f"{site}archive/2026/{m:02d}/", f"{site}2026/{m:02d}/{d:02d}/story-{m}{d}"]
             for m in (9, 10) for d in (1, 3)]
    later = [[f"{site}archive/2026/{m:02d}/", f"{site}archive/2026/{m:02d}/page/2/",
              f"{site}2026/{m:02d}/{d:02d}/story-{m}{d}"] for m in (9, 10) for d in (21, 23)]
    short, = navigation_patterns(first)
    long, = navigation_patterns(later)
    assert not any(long.reaches(p) for p in first)
    merged, = skippable([short, long])
    assert merged.repeats == {1}
    assert all(merged.reaches(p) for p in first + later)
    # the pager's number is any number: page 3 comes when the month has more stories
    assert merged.next_level(1, f"{site}archive/2026/10/page/3/") == 1


def test_a_pager_link_back_is_told_from_one_forward() -> None:
    assert backward("http://x.com/g/jazz/?page=2", "http://x.com/g/jazz/?page=1")
    assert backward("http://x.com/q/page/3/", "http://x.com/q/page/2/")
    assert not backward("http://x.com/q/page/3/", "http://x.com/q/page/4/")
    assert not backward("http://x.com/q/page/3/", "http://x.com/r/page/2/")  # two levels differ
    assert not backward("http://x.com/q/page/3/", "http://x.com/q/page/2/x")


def test_a_repeating_level_generalises_its_numbers_but_not_the_origin() -> None:
    level = (r"http://127\.0\.0\.1:8080/g/[a-z]+/\?page=2",)
    assert pager_numbers((level,), frozenset({0})) == ((r"http://127\.0\.0\.1:8080/g/[a-z]+/\?page=[0-9]+",),)
    assert pager_numbers((level,), frozenset()) == (level,)


def test_slugs_of_several_words_keep_the_number_they_end_with() -> None:
    # Papers' slugs have two to four words and end in a number; the call for papers, served
    # at an address of the same shape by the same template, has none: the pattern leaves it.
    papers = [f"http://h.test/2024/paper/{slug}" for slug in
              ("graph-estimation-2410", "join-sketch-search-2411", "cache-vector-graph-structures-2412")]
    regex = url_pattern(papers)
    assert all(re.fullmatch(regex, url) for url in [*papers, "http://h.test/2024/paper/stream-2420"])
    assert not re.fullmatch(regex, "http://h.test/2024/paper/call-for-papers")
    # Names that end in words of their own are generalised as before.
    assert url_pattern(["http://h.test/author/Ada-Austen", "http://h.test/author/Jo-Van-Dyke"]).endswith(
        "/author/[A-Za-z\\-]+")
