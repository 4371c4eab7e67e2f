"""INDESIT's page model and the structure-driven priority policy, without a browser."""

from __future__ import annotations

from deepbot.policy.structure import (
    HOMOLOGOUS,
    PROBES,
    WAITING,
    StructureModel,
    first_page,
    forward,
    jaccard,
    link_collections,
)

SITE = "http://cup.test"


def _page(*blocks: str) -> str:
    return f"<html><body><div id=top><a href='/'>Home</a></div>{''.join(blocks)}</body></html>"


def _list(*paths: str) -> str:
    return "<ul>" + "".join(f"<li><a href='{p}'>x</a></li>" for p in paths) + "</ul>"


def _table(*paths: str) -> str:
    return "<table>" + "".join(f"<tr><td><a href='{p}'>x</a></td></tr>" for p in paths) + "</table>"


def _next(path: str) -> str:
    return f"<p><a href='{path}'>Next</a></p>"


def test_link_collections_are_root_to_anchor_tag_paths() -> None:
    html = _page(_table("/p/1", "p/2#top", "/p/1"), "<p><a href='mailto:a@b'>m</a><a href='ftp://x/'>f</a></p>")
    assert link_collections(html, f"{SITE}/team/") == {
        "html/body/div/a": (f"{SITE}/",),
        "html/body/table/tbody/tr/td/a": (f"{SITE}/p/1", f"{SITE}/team/p/2"),  # canonical, once each
    }


def test_pages_are_alike_by_the_jaccard_coefficient_of_their_schemas() -> None:
    assert jaccard(frozenset("abc"), frozenset("abc")) == 1.0
    assert jaccard(frozenset("abcd"), frozenset("abc")) == 0.75
    assert jaccard(frozenset(), frozenset()) == 1.0


def test_a_collection_holding_a_known_target_is_followed_first() -> None:
    sample = _page("<p class=team><a href='/team/bra'>Brazil</a></p>", _list("/player/2", "/player/3"))
    model = StructureModel(f"{SITE}/player/1")
    model.learn_sample(sample)
    assert model.observe(f"{SITE}/player/1", link_collections(sample, f"{SITE}/player/1"))[0]
    # A team page: its squad table holds the sample, so every player in it is likely one too.
    team = _page(_table("/player/1", "/player/4", "/player/5"), _list("/news/1"))
    collections = link_collections(team, f"{SITE}/team/bra")
    assert not model.observe(f"{SITE}/team/bra", collections)[0]
    rates = model.rate(collections)
    assert rates.priority(f"{SITE}/player/4") == rates.priority(f"{SITE}/player/5") == HOMOLOGOUS
    assert rates.homologous == [f"{SITE}/player/{n}" for n in (1, 4, 5)]  # raised if queued lower
    assert rates.priority(f"{SITE}/news/1") < HOMOLOGOUS


def test_an_untried_collection_is_probed_and_the_rest_wait_for_the_verdict() -> None:
    model = StructureModel(f"{SITE}/player/1")
    model.learn_sample(_page(_list("/player/2")))
    index = _page(_table(*(f"/team/{n}" for n in range(6))))
    teams = model.rate(link_collections(index, f"{SITE}/teams/"))
    rates = [teams.priority(f"{SITE}/team/{n}") for n in range(6)]
    assert rates[:PROBES] == [0.5] * PROBES and rates[PROBES:] == [WAITING] * (6 - PROBES)
    # The first probe is a team page listing a known target (an index): the others are raised.
    team = link_collections(_page(_table("/player/1", "/player/9")), f"{SITE}/team/0")
    target, waiting, worth = model.observe(f"{SITE}/team/0", team, teams.origin(f"{SITE}/team/0"))
    # an index pays as a target does: (1 + 0.5) / (1 + 1), above an untried class-link's 0.5
    assert not target and waiting == [f"{SITE}/team/{n}" for n in range(PROBES, 6)] and worth == 0.75
    # A probe that leads nowhere raises nothing, its class-link is worth less from then on,
    # and its other links wait until a probe shows it leads somewhere.
    news = _page(_list(*(f"/news/{n}" for n in range(6))))
    stories = model.rate(link_collections(news, f"{SITE}/news/"))
    story = link_collections(_page("<p>A story.</p>"), f"{SITE}/news/0")
    assert model.observe(f"{SITE}/news/0", story, stories.origin(f"{SITE}/news/0"))[1:] == ([], 0.25)
    assert model.rate(link_collections(news, f"{SITE}/news/")).priority(f"{SITE}/news/5") == WAITING
    # What the model learned goes on in a model restored from its state (a resumed crawl).
    again = StructureModel(f"{SITE}/player/1")
    assert again.restore(model.state()) and again.state() == model.state()
    assert again.observe(f"{SITE}/news/1", story, stories.origin(f"{SITE}/news/1"))[1:] == ([], 1 / 6)
    assert not StructureModel(f"{SITE}/player/2").restore(model.state())  # another sample's: not used


def test_a_page_listing_only_targets_found_already_is_not_an_index() -> None:
    # A table's hundredth sort order lists the rows every earlier one listed: following more
    # of its kind finds nothing new, and its class-link is worth less and less.
    model = StructureModel(f"{SITE}/row/1")
    model.learn_sample(_page(_list("/")))
    first = link_collections(_page(_table("/row/1", "/row/2")), f"{SITE}/table")
    model.targets.add(f"{SITE}/row/2")  # found already
    sorts = model.rate(link_collections(_page(_table(*(f"/table?sort={n}" for n in range(3)))), f"{SITE}/"))
    origin = sorts.origin(f"{SITE}/table?sort=0")
    assert model.observe(f"{SITE}/table?sort=0", first, origin)[2] == 0.25  # nothing new: not an index
    fresh = link_collections(_page(_table("/row/1", "/row/3")), f"{SITE}/table")
    assert model.observe(f"{SITE}/table?sort=1", fresh, origin)[2] == 0.5  # row 3 is new: an index


def test_a_class_link_leading_to_targets_two_links_away_raises_its_waiting_links() -> None:
    # Proceedings: the index lists years, a year lists sessions, a session lists papers. A
    # year's page lists no paper, so it is no index when read; once a paper is found under
    # one of its sessions, the years' class-link has led to targets, and the years that
    # waited for its probes are raised.
    model = StructureModel(f"{SITE}/2024/paper/a")
    model.learn_sample(_page(_list("/2024/session/1")))
    years = model.rate(link_collections(_page(_table(*(f"/{y}/" for y in range(2020, 2026)))), f"{SITE}/"))
    assert [years.priority(f"{SITE}/{y}/") for y in range(2020, 2026)] == [0.5] * PROBES + [WAITING] * 3
    sessions_list = _list("/2020/session/1", "/2020/session/2")
    year = link_collections(_page(f"<div>{sessions_list}</div>"), f"{SITE}/2020/")
    assert model.observe(f"{SITE}/2020/", year, years.origin(f"{SITE}/2020/"), key="y", parent="i")[1:] == (
        [], 0.25)  # a year's page is no index: nothing is raised yet
    sessions = model.rate(year)
    papers = "<ol><li><a href='/2020/paper/b'>b</a></li></ol>"
    session = link_collections(_page(papers), f"{SITE}/2020/session/1")
    model.observe(f"{SITE}/2020/session/1", session, sessions.origin(f"{SITE}/2020/session/1"), key="s",
                  parent="y")
    paper = link_collections(_page(_list("/2020/session/1")), f"{SITE}/2020/paper/b")
    assert model.observe(f"{SITE}/2020/paper/b", paper, None, key="p", parent="s")[0]
    raised = model.found_under("s")
    # The session's class-link (its others were probes already) and the years' (three waited).
    assert raised == [([f"{SITE}/{y}/" for y in range(2023, 2026)], 0.75)]
    assert model.found_under("s") == []  # each page is credited once
    again = StructureModel(f"{SITE}/2024/paper/a")
    assert again.restore(model.state()) and again.state() == model.state()


def test_a_class_link_is_probed_three_times_in_all_and_dropped_if_none_leads_anywhere() -> None:
    model = StructureModel(f"{SITE}/player/1")
    model.learn_sample(_page(_list("/player/2")))
    # Two stories read before any of their related stories: three probes between them.
    first = model.rate(link_collections(_page(_table("/news/1", "/news/2")), f"{SITE}/news/0"))
    second = model.rate(link_collections(_page(_table("/news/3", "/news/4")), f"{SITE}/news/9"))
    rates = [first.priority(f"{SITE}/news/{n}") for n in (1, 2)] + [
        second.priority(f"{SITE}/news/{n}") for n in (3, 4)]
    assert rates == [0.5, 0.5, 0.5, WAITING]
    story = link_collections(_page("<p>A story.</p>"), f"{SITE}/news/1")
    for n in (1, 2, 3):
        model.observe(f"{SITE}/news/{n}", story, first.origin(f"{SITE}/news/1"), key=f"n{n}", parent="n0")
    # Three probes led nowhere: the homologous-link conjecture does not hold for it, and
    # its links wait, unless a page it led to turns out a way to targets (found_under).
    later = model.rate(link_collections(_page(_table("/news/5")), f"{SITE}/news/4"))
    assert later.priority(f"{SITE}/news/5") == WAITING


def test_a_pagers_way_back_waits() -> None:
    model = StructureModel(f"{SITE}/artist/1")
    model.learn_sample(_page(_list("/genre/jazz/")))
    pager = link_collections(_page(_list("/genre/jazz/?page=1", "/genre/jazz/?page=3")), f"{SITE}/")
    rates = model.rate(pager, f"{SITE}/genre/jazz/?page=2")
    assert rates.priority(f"{SITE}/genre/jazz/?page=1") == WAITING  # the bare first page was read
    assert rates.priority(f"{SITE}/genre/jazz/?page=3") == 0.5


def test_a_listings_next_page_is_followed_once_a_target_is_found_under_it() -> None:
    assert forward(f"{SITE}/table", f"{SITE}/table?_next=100")  # the first page has no ?_next
    assert forward(f"{SITE}/table?_next=100", f"{SITE}/table?_next=200")
    assert not forward(f"{SITE}/table", f"{SITE}/table?_sort=title")
    assert not forward(f"{SITE}/table?_next=200", f"{SITE}/table?_next=100")  # its way back
    model = StructureModel(f"{SITE}/row/150")
    model.learn_sample(_page(_list("/table")))
    # The table's first page lists rows not yet known to be targets: its next page waits with
    # the other links of its kind (exports, facets) ...
    table = link_collections(_page(_table("/row/1", "/row/2"), "<p><a href='/table.json'>j</a>"
                                   "<a href='/table.csv'>c</a><a href='/table?_facet=a'>f</a>"
                                   "<a href='/table?_next=100'>next</a></p>"), f"{SITE}/table")
    rates = model.rate(table, f"{SITE}/table", "t")
    assert rates.priority(f"{SITE}/table?_next=100") == WAITING
    # ... until a row found under it shows the page a listing of targets: its list goes on.
    assert model.observe(f"{SITE}/row/1", link_collections(_page(_list("/table")), f"{SITE}/row/1"),
                         rates.origin(f"{SITE}/row/1"), key="r1", parent="t")[0]
    assert ([f"{SITE}/table?_next=100"], HOMOLOGOUS) in model.found_under("t")
    # A page that lists a known target already: its next page is followed at once.
    page = f"{SITE}/table?_next=100"
    pager = "<p><a href='/table?_next=200'>n</a></p>"
    second = link_collections(_page(_table("/row/150", "/row/151"), pager), page)
    assert model.rate(second, page, "t2").priority(f"{SITE}/table?_next=200") == HOMOLOGOUS


def test_a_listings_first_page_at_its_own_address_leads_to_page_two() -> None:
    # The first page of a listing is its section's address; its next page one step below.
    assert forward(f"{SITE}/quotes/", f"{SITE}/quotes/page/2/")
    assert forward(f"{SITE}/archive/2026/09/", f"{SITE}/archive/2026/09/page/2/")
    assert not forward(f"{SITE}/quotes/", f"{SITE}/quotes/author/Ada-Austen")
    assert not forward(f"{SITE}/cup/", f"{SITE}/cup/player/bra-1")  # a number, but no page step
    assert not forward(f"{SITE}/quotes/", f"{SITE}/quotes/tag/love/page/1/")  # two steps more


def test_a_listing_whose_links_were_all_met_before_is_no_index_and_its_list_stops() -> None:
    # Quotes: the front listing gave every author; a tag's page lists some of them again.
    model = StructureModel(f"{SITE}/author/a")
    model.learn_sample(_page(_list("/quotes/")))
    front = link_collections(_page(_table("/author/a", "/author/b", "/author/c"), _next("/quotes/page/2/")),
                             f"{SITE}/quotes/")
    assert model.rate(front, f"{SITE}/quotes/", "f").priority(f"{SITE}/quotes/page/2/") == HOMOLOGOUS
    tags = model.rate(link_collections(_page(_list("/tag/x/", "/tag/y/")), f"{SITE}/quotes/"))
    tag = link_collections(_page(_table("/author/a", "/author/b"), _next("/tag/x/page/2/")), f"{SITE}/tag/x/")
    # Authors b and c are not known targets yet, but the front listing gave them: nothing new.
    assert model.observe(f"{SITE}/tag/x/", tag, tags.origin(f"{SITE}/tag/x/"))[2] == 0.25
    assert model.rate(tag, f"{SITE}/tag/x/", "x").priority(f"{SITE}/tag/x/page/2/") == WAITING
    # A tag page that lists an author no page gave before is an index, and its list goes on.
    fresh = link_collections(_page(_table("/author/a", "/author/d"), _next("/tag/y/page/2/")),
                             f"{SITE}/tag/y/")
    assert model.observe(f"{SITE}/tag/y/", fresh, tags.origin(f"{SITE}/tag/y/"))[2] == 0.5
    assert model.rate(fresh, f"{SITE}/tag/y/", "y").priority(f"{SITE}/tag/y/page/2/") == HOMOLOGOUS


def test_a_class_link_gets_more_links_fetched_only_as_its_pages_pay() -> None:
    model = StructureModel(f"{SITE}/player/1")
    model.learn_sample(_page(_list("/player/2")))
    index = link_collections(_page(_table(*(f"/match/{n}" for n in range(12)))), f"{SITE}/matches/")
    matches = model.rate(index)
    assert [matches.priority(f"{SITE}/match/{n}") for n in range(12)] == [0.5] * PROBES + [WAITING] * 9
    origin = matches.origin(f"{SITE}/match/0")
    # A match's line-ups list players no page gave before: an index. PROBES more matches are
    # raised for it, not all nine that wait.
    line_up = link_collections(_page(_table("/player/1", "/player/7")), f"{SITE}/match/0")
    assert model.observe(f"{SITE}/match/0", line_up, origin)[1] == [f"{SITE}/match/{n}" for n in (3, 4, 5)]
    model.rate(line_up, f"{SITE}/match/0")  # as the crawl rates every page's links once it is read
    # A match whose line-ups list only players met before pays nothing: none more is raised,
    # and the same links met on another page are not counted twice.
    assert model.observe(f"{SITE}/match/1", line_up, origin)[1] == []
    again = model.rate(index)
    # the probes stay at a probe's worth; the three raised came at the class-link's worth then
    assert [again.priority(f"{SITE}/match/{n}") for n in range(12)] == [0.5] * 3 + [0.75] * 3 + [WAITING] * 6
    # Restored from its state (a resumed crawl), the model keeps what waits, in order.
    restored = StructureModel(f"{SITE}/player/1")
    assert restored.restore(model.state())
    other = link_collections(_page(_table("/player/1", "/player/8")), f"{SITE}/match/2")
    assert restored.observe(f"{SITE}/match/2", other, origin)[1] == [f"{SITE}/match/{n}" for n in (6, 7, 8)]


def test_a_listings_first_page_met_at_its_other_address_waits() -> None:
    assert first_page(f"{SITE}/tag/love/page/1/") == f"{SITE}/tag/love/"
    assert first_page(f"{SITE}/genre/jazz/?page=1") == f"{SITE}/genre/jazz/"
    assert first_page(f"{SITE}/tag/love/page/2/") is None
    assert first_page(f"{SITE}/?p=1") is None and first_page(f"{SITE}/p/1") is None  # a post, a product
    model = StructureModel(f"{SITE}/author/a")
    model.learn_sample(_page(_list("/quotes/")))
    # A quote's tags link /tag/NAME/page/1/, the sidebar /tag/NAME/: one page, two addresses.
    front = link_collections(_page(_list("/tag/love/page/1/", "/tag/life/page/1/"),
                                   "<p><a href='/tag/love/'>love</a><a href='/tag/truth/'>truth</a></p>"),
                             f"{SITE}/quotes/")
    rates = model.rate(front, f"{SITE}/quotes/")
    assert rates.priority(f"{SITE}/tag/love/page/1/") == 0.5
    assert rates.priority(f"{SITE}/tag/love/") == WAITING
    assert rates.priority(f"{SITE}/tag/truth/") == 0.5  # no other address of it was met
    # Met the other way round, on a later page: the first page's numbered address waits.
    later = link_collections(_page(_list("/tag/truth/page/1/")), f"{SITE}/quotes/page/2/")
    assert model.rate(later, f"{SITE}/quotes/page/2/").priority(f"{SITE}/tag/truth/page/1/") == WAITING
