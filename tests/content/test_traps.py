"""Calendar-like chains: links that only move a number or a date in their page's URL are
steps of one chain, bounded; other links, and a query's results pager, are not."""

from __future__ import annotations

import pytest

from deepbot.content.links import CALENDAR_CHAIN, CALENDAR_TURN, Scope, obtain_links
from deepbot.content.traps import RESULTS, Chain, chain_step, moves_a_number
from deepbot.routes import Route, Via, route_key
from deepbot.routes.sequences import navigate_step

SITE = "http://events.test"


@pytest.mark.parametrize(("page", "link"), [
    ("/calendar/2026/11", "/calendar/2026/12"),
    ("/calendar/2026/12", "/calendar/2027/01"),  # two numbers moved at once: still one step
    ("/events?month=2026-11", "/events?month=2026-12"),
    ("/agenda?date=20261127", "/agenda?date=20261128"),
    ("/blog/?page=4", "/blog/?page=5"),
    ("/events/week/48", "/events/week/47"),
    ("/events/2026-W48", "/events/2026-W49"),
    ("/events/november-2026", "/events/december-2026"),  # a month by its name
    ("/app/#/day/2026-11-27", "/app/#/day/2026-11-28"),  # a hash-routed app's view
])
def test_a_link_that_only_moves_a_number_or_a_date_is_a_step(page: str, link: str) -> None:
    assert moves_a_number(SITE + page, SITE + link)
    assert chain_step(Chain(3), SITE + page, SITE + link).steps == 4


@pytest.mark.parametrize(("page", "link"), [
    ("/news/2026/11/27/a-storm", "/news/2026/11/28/the-flood"),  # another article: its words differ
    ("/calendar/2026/11", "/calendar/2026/11/27"),  # a day of the month: another shape
    ("/calendar/2026/11", "/calendar/2026/11"),  # the same page
    ("/about", "/contact"),
    ("/item/12", "/item/12/reviews"),
])
def test_any_other_link_is_not(page: str, link: str) -> None:
    assert not moves_a_number(SITE + page, SITE + link)


def test_a_port_or_an_address_is_no_counter() -> None:
    assert not moves_a_number("http://127.0.0.1:8001/about", "http://127.0.0.1:8002/about")
    assert not moves_a_number("http://10.0.0.1/about", "http://10.0.0.2/about")


def test_a_detour_keeps_the_count_and_a_page_without_numbers_ends_it() -> None:
    month, day = f"{SITE}/calendar/2026/11", f"{SITE}/calendar/2026/11/30"
    assert chain_step(Chain(5, 1), month, day) == Chain(5)  # a day view of a month on the chain: on it
    assert chain_step(Chain(5), day, f"{SITE}/calendar/2026/12/01") == Chain(6, 2)  # its "next day"
    assert chain_step(Chain(5, 1), month, f"{SITE}/about") == Chain(0)
    pager = chain_step(Chain(5), f"{SITE}/results?page=2", f"{SITE}/results?page=3", results_pager=True)
    assert pager == Chain(5, RESULTS)


def test_a_chain_moves_one_number_and_turns_where_a_link_moves_another() -> None:
    nov, dec = f"{SITE}/calendar/2026/11", f"{SITE}/calendar/2026/12"
    # the month, whether or not the year moves with it; the year alone
    assert chain_step(Chain(), nov, dec) == Chain(1, 1)
    assert chain_step(Chain(1, 1), dec, f"{SITE}/calendar/2027/01") == Chain(2, 1)
    assert chain_step(Chain(1, 1), dec, f"{SITE}/calendar/2027/12") == Chain(2, 0, turned=True)
    # from a page no step led to, any way is the start of a chain
    assert chain_step(Chain(), nov, f"{SITE}/calendar/2027/11") == Chain(1, 0)


def _route(url: str, via: Via, chain: int = 0, domain: str | None = None, axis: int = -1) -> Route:
    steps = navigate_step(url)
    return Route(key=route_key(via, url), url=url, via=via, depth=1, steps=steps, program=steps, chain=chain,
                 chain_axis=axis, domain=domain, query={"title": "java"} if domain else None)


def test_a_chain_is_followed_max_calendar_steps_steps_and_no_further() -> None:
    scope = Scope.build([SITE])
    links = [(f"{SITE}/calendar/2026/10", "‹ October"), (f"{SITE}/calendar/2026/12", "December ›"),
             (f"{SITE}/event/31", "Carols"), (f"{SITE}/about", "About us")]
    page = f"{SITE}/calendar/2026/11"
    got = obtain_links(_route(page, Via.LINK, chain=9), page, links, [], None, scope, max_depth=50,
                       max_calendar_steps=10)
    assert {r.url.removeprefix(SITE): r.chain for r in got.routes} == {
        "/calendar/2026/10": 10, "/calendar/2026/12": 10, "/event/31": 9, "/about": 0}
    got = obtain_links(_route(page, Via.LINK, chain=10), page, links, [], None, scope, max_depth=50,
                       max_calendar_steps=10)
    assert {r.url.removeprefix(SITE): r.chain for r in got.routes} == {"/event/31": 10, "/about": 0}
    assert got.skipped == {CALENDAR_CHAIN: 2}
    # no bound: on it goes
    got = obtain_links(_route(page, Via.LINK, chain=10), page, links, [], None, scope, max_depth=50)
    assert len(got.routes) == 4 and not got.skipped
    # a page "December ›" led to: its "2027 »" turns the chain
    years = [(f"{SITE}/calendar/2025/11", "« 2025"), (f"{SITE}/calendar/2027/11", "2027 »")]
    got = obtain_links(_route(page, Via.LINK, chain=1, axis=1), page, links[:2] + years, [], None, scope,
                       max_depth=50, max_calendar_steps=10)
    assert {r.url.removeprefix(SITE): (r.chain, r.chain_axis) for r in got.routes} == {
        "/calendar/2026/10": (2, 1), "/calendar/2026/12": (2, 1)}
    assert got.skipped == {CALENDAR_TURN: 2}


def test_a_querys_results_pager_is_no_step_but_a_calendar_under_the_results_is() -> None:
    scope = Scope.build([SITE])
    form = _route(f"{SITE}/search.do", Via.FORM, domain="books")
    # the pager's links, wherever they lead along the results: no step
    pagers = [f"{SITE}/search.do?page=2", f"{SITE}/search.do/page/2"]
    got = obtain_links(form, f"{SITE}/search.do", [(url, "Next »") for url in pagers], [], "s1", scope,
                       max_depth=3, max_calendar_steps=0)
    assert [(r.via, r.chain, r.chain_axis) for r in got.routes] == [(Via.NEXT, 0, RESULTS)] * 2
    results = got.routes[0]
    got = obtain_links(results, results.url, [(f"{SITE}/search.do?page=3", "Next »")], [], "s1", scope,
                       max_depth=3, max_calendar_steps=0)
    assert [(r.via, r.chain) for r in got.routes] == [(Via.NEXT, 0)]
    # a calendar beside the results, whose "Next month ›" reads as their pager: it leaves
    # them, and its own "Next month ›" is a step
    got = obtain_links(form, f"{SITE}/search.do", [(f"{SITE}/calendar/2026/12", "Next month ›")], [], "s1",
                       scope, max_depth=3, max_calendar_steps=1)
    ((calendar,),) = [got.routes]
    assert (calendar.via, calendar.chain, calendar.chain_axis) == (Via.NEXT, 0, -1)
    got = obtain_links(calendar, calendar.url, [(f"{SITE}/calendar/2027/01", "Next month ›")], [], "s1",
                       scope, max_depth=3, max_calendar_steps=1)
    ((step,),) = [got.routes]
    assert step.chain == 1
    got = obtain_links(step, step.url, [(f"{SITE}/calendar/2027/02", "Next month ›")], [], "s1", scope,
                       max_depth=3, max_calendar_steps=1)
    assert not got.routes and got.skipped == {CALENDAR_CHAIN: 1}
    # a detail page reached from the results, with a calendar: its "Next month" is no pager
    # of the query's (a record's links are the link crawl's), a step of a chain, a level deeper
    detail = _route(f"{SITE}/calendar/2026/11", Via.LINK, domain="books")
    got = obtain_links(detail, detail.url, [(f"{SITE}/calendar/2026/12", "Next month ›")], [], None, scope,
                       max_depth=3, max_calendar_steps=3)
    ((step,),) = [got.routes]
    assert (step.via, step.chain, step.depth, step.domain) == (Via.LINK, 1, detail.depth + 1, None)
    got = obtain_links(step, step.url, [(f"{SITE}/calendar/2027/01", "Next month ›")], [], None, scope,
                       max_depth=3, max_calendar_steps=3)
    assert [r.chain for r in got.routes] == [2]


def test_a_results_page_queued_before_chains_were_counted_still_pages_its_results() -> None:
    # a store from before: its routes carry no chain_axis
    steps = navigate_step(f"{SITE}/search.do?page=7")
    queued = Route(key="next:old", url=f"{SITE}/search.do?page=7", via=Via.NEXT, steps=steps, program=steps,
                   domain="books", query={"title": "java"}, page=7)
    got = obtain_links(queued, queued.url, [(f"{SITE}/search.do?page=8", "Next »")], [], "s1",
                       Scope.build([SITE]), max_depth=3, max_calendar_steps=0)
    assert [(r.page, r.chain, r.chain_axis) for r in got.routes] == [(8, 0, RESULTS)]
