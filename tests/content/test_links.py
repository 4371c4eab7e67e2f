"""Obtain Links: child routes of a page, deduplicated, scoped, and never rebuilt when known."""

from __future__ import annotations

import pytest

from deepbot.content.links import FILTERS, FIRST_PAGE, Scope, is_pager, link_route, obtain_links
from deepbot.routes import Route, ScriptElement, Via, canonical_url, results_identity, route_key
from deepbot.routes.sequences import navigate_step

SEED = "http://shop.test/"


def _parent(depth: int = 0) -> Route:
    steps = navigate_step(SEED)
    return Route(key=route_key(Via.SEED, SEED), url=SEED, via=Via.SEED, depth=depth, seed=SEED,
                 steps=steps, program=steps)


def _links(*urls: str) -> list[tuple[str, str]]:
    return [(url, f"link {n}") for n, url in enumerate(urls)]


def test_one_route_per_canonical_url_and_never_the_parent() -> None:
    links = _links("http://shop.test/a?y=2&x=1", "http://SHOP.test:80/a?x=1&y=2#top", "http://shop.test/",
                   "http://shop.test/b", "http://elsewhere.test/c", "mailto:someone@shop.test")
    got = obtain_links(_parent(), SEED, links, [], None, Scope.build([SEED]), max_depth=3)
    assert [r.url for r in got.routes] == ["http://shop.test/a?x=1&y=2", "http://shop.test/b"]
    assert got.skipped == {"off-site": 1, "scheme": 1}
    # Each child is exactly what link_route builds for it.
    assert got.routes[0] == link_route(_parent(), "http://shop.test/a?y=2&x=1", None)
    assert all(r.depth == 1 and r.parent == _parent().key for r in got.routes)


def test_session_ids_in_urls_are_not_part_of_a_page_address() -> None:
    sid = "0123456789abcdef0123456789ABCDEF"
    same = [f"http://shop.test/cat/books.jsp;jsessionid={sid}.node1?page=2",
            f"http://shop.test/cat/books.jsp?PHPSESSID={sid}&page=2",
            "http://shop.test/cat/books.jsp?page=2&ASPSESSIONIDQQGGQGPA=KJHDFGLKJHDF&CFID=123&CFTOKEN=456",
            f"http://shop.test/cat/books.jsp?sid={sid}&page=2",
            "http://shop.test/cat/books.jsp?page=2"]
    assert {canonical_url(url) for url in same} == {"http://shop.test/cat/books.jsp?page=2"}
    got = obtain_links(_parent(), SEED, _links(*same), [], None, Scope.build([SEED]), max_depth=3)
    assert [r.url for r in got.routes] == ["http://shop.test/cat/books.jsp?page=2"]
    # A hash-routed app's view keeps its fragment (loading the URL shows it); an anchor does not.
    assert canonical_url("http://shop.test/app/?b=2&a=1#/books/1") == "http://shop.test/app/?a=1&b=2#/books/1"
    assert canonical_url("http://shop.test/app/#!/authors") == "http://shop.test/app/#!/authors"
    assert canonical_url("http://shop.test/app/#reviews") == "http://shop.test/app/"
    # What only looks alike stays: a short "sid" (a section id), other path parameters.
    kept = ["http://shop.test/list?sid=7", "http://shop.test/item;type=a", "http://shop.test/jsessionid/x"]
    assert [canonical_url(url) for url in kept] == kept


def test_known_routes_are_left_out_and_the_rest_unchanged() -> None:
    links = _links(*(f"http://shop.test/item-{n}" for n in range(10)))
    scope = Scope.build([SEED])
    everything = obtain_links(_parent(), SEED, links, [], "s1", scope, max_depth=3)
    known = {r.key for r in everything.routes[::2]}
    rest = obtain_links(_parent(), SEED, links, [], "s1", scope, max_depth=3, known=known)
    assert rest.routes == [r for r in everything.routes if r.key not in known]
    assert len(rest.routes) == 5


def test_depth_limit_is_counted_before_anything_is_built() -> None:
    links = _links("http://shop.test/a", "http://shop.test/b")
    more = ScriptElement(selector="#more", text="More")
    got = obtain_links(_parent(depth=3), SEED, links, [more], None, Scope.build([SEED]), max_depth=3)
    assert got.routes == []
    assert got.skipped == {"depth": 3}


def test_a_jump_menu_option_is_a_route_that_chooses_it() -> None:
    menu = [ScriptElement(selector="#jump", text=name, kind="select", option=value)
            for name, value in (("Fiction", "/fiction"), ("History", "/history"))]
    more = ScriptElement(selector="#more", text="More")
    got = obtain_links(_parent(), SEED, [], [*menu, more], None, Scope.build([SEED]), max_depth=3, page="p1")
    assert [r.steps.splitlines()[-1] for r in got.routes] == [
        'select "#jump" value "/fiction"', 'select "#jump" value "/history"', 'click "#more"']
    assert len({r.key for r in got.routes}) == 3 and {r.via for r in got.routes} == {Via.SCRIPT}
    assert all(r.program.startswith(f"navigate {SEED}\n") for r in got.routes)  # replayable from scratch


def test_a_closed_menus_item_is_a_route_that_opens_the_menu_first() -> None:
    item = ScriptElement(selector="#menu > li > a", text="Advanced search", opener=("#browseMenu",))
    got = obtain_links(_parent(), SEED, [], [item], None, Scope.build([SEED]), max_depth=3, page="p1")
    (route,) = got.routes
    assert route.steps.splitlines()[-2:] == ['click "#browseMenu"', 'click "#menu > li > a"']
    assert route.program == f"navigate {SEED}\n" + 'click "#browseMenu"\nclick "#menu > li > a"\n'


def test_a_select_that_sends_its_form_is_one_route_an_option_and_none_in_results() -> None:
    # An AutoPostBack filter: known by its form, so two pages showing it make one route an option.
    form = "http://shop.test/browse\nget\nyear:select-one\nselect year"
    menu = [ScriptElement(selector=f"#{where} select", text=year, kind="postback", option=year, scope=form)
            for where in ("header", "footer") for year in ("2019", "2020")]
    scope = Scope.build([SEED])
    first = obtain_links(_parent(), SEED, [], menu[:2], None, scope, max_depth=3, page="p1")
    second = obtain_links(_parent(), SEED, [], menu[2:], None, scope, max_depth=3, page="p2")
    assert [r.steps.splitlines()[-1] for r in first.routes] == [
        'select "#header select" value "2019"', 'select "#header select" value "2020"']
    assert [r.key for r in first.routes] == [r.key for r in second.routes]
    # In a query's results it filters or sorts what the pager walks ("2019" is no page number).
    results = _parent().model_copy(update={"via": Via.FORM, "domain": "books", "query": {"title": "java"}})
    got = obtain_links(results, SEED, [], menu, None, scope, max_depth=3, page="p3")
    assert got.routes == [] and got.skipped == {FILTERS: 4}


def test_a_row_of_pager_buttons_is_followed_outside_results_and_a_lone_one_is_not() -> None:
    def controls(*texts: str) -> list[ScriptElement]:
        return [ScriptElement(selector=f"#b{n}", text=t, kind="control") for n, t in enumerate(texts)]

    def follow(page: str, *texts: str) -> list[Route]:
        return obtain_links(_parent(), SEED, [], controls(*texts), None, Scope.build([SEED]), max_depth=3,
                            page=page).routes

    # Its numbered buttons but "1" (the listing itself); "Next" would only repeat one of them.
    first = follow("p1", "1", "2", "3", "Next ›", "Add to basket")
    assert [r.steps.splitlines()[-1] for r in first] == ['click "#b1"', 'click "#b2"']
    assert {(r.via, r.depth) for r in first} == {(Via.SCRIPT, 1)}  # a level deeper: depth bounds it
    # Page 3 is one route whichever page shows its button: a crawl reaches it once, in any order.
    second = follow("p2", "1", "2", "3", "Next ›")
    assert first[1].key == second[1].key and first[1].acts_on != second[1].acts_on
    # A pager with no numbers ("Next ›", "»" to the last): named by the page it is clicked on.
    chain = follow("p1", "« Previous", "Next ›", "»"), follow("p2", "« Previous", "Next ›", "»")
    assert [r.steps.splitlines()[-1] for r in chain[0]] == ['click "#b1"', 'click "#b2"']
    assert chain[0][0].key != chain[1][0].key
    # One button saying "2" is a quantity or a size, not a pager.
    assert follow("p1", "2", "Add to basket") == []


def test_log_out_is_never_followed_by_its_words_or_its_url() -> None:
    links = [("http://shop.test/patron/Logout.aspx", "Exit"),
             ("http://shop.test/wp-login.php?action=logout", "x"),
             ("http://shop.test/account/", "Sign out"), ("http://shop.test/konto", "Abmelden"),
             ("http://shop.test/session/end", " Log off » "),
             # Not a log out: words that only contain the letters, a blog about logging.
             ("http://shop.test/blog-outline", "Catalog outlet"),
             ("http://shop.test/logbook/out-of-print", "Logbook"),
             ("http://shop.test/signup", "Sign up")]
    scripts = [ScriptElement(selector="#ctl00_lnkLogout", text="Log out"),
               ScriptElement(selector="#more", text="More")]
    got = obtain_links(_parent(), SEED, links, scripts, None, Scope.build([SEED]), max_depth=3, page="p")
    assert sorted(r.url for r in got.routes if r.via is Via.LINK) == [
        "http://shop.test/blog-outline", "http://shop.test/logbook/out-of-print", "http://shop.test/signup"]
    assert [r.steps.splitlines()[-1] for r in got.routes if r.via is Via.SCRIPT] == ['click "#more"']
    assert got.skipped == {"log out": 6}


def _results(query: dict[str, str]) -> Route:
    url = "http://opac.test/results.do"
    steps = navigate_step("http://opac.test/search.do")
    return Route(key=route_key(Via.FORM, url, "form", str(query)), url=url, via=Via.FORM, depth=1, seed=SEED,
                 steps=steps, program=steps, domain="books", query=query, form_url="http://opac.test/search.do")


def test_a_results_pager_link_is_a_route_per_query_where_a_session_goes_with_it() -> None:
    # results.do?page=2 carries no query: with a session (the server's last search), the
    # URL shows each query's own page 2, so each query has its route; the same query's
    # link found again (on page 3, "Previous") is the same route.
    scope = Scope.build(["http://opac.test/"])
    pager = [("http://opac.test/results.do?page=2", "Next page"), ("http://opac.test/item?id=7", "Dune")]

    def routes(query: dict[str, str], session: str | None) -> dict[Via, str]:
        got = obtain_links(_results(query), "http://opac.test/results.do", pager, [], session, scope,
                           max_depth=3)
        return {r.via: r.key for r in got.routes}

    java, xml = routes({"title": "java"}, "s1"), routes({"title": "xml"}, "s2")
    assert java[Via.NEXT] != xml[Via.NEXT]
    assert java[Via.NEXT] == routes({"title": "java"}, "s3")[Via.NEXT]
    assert java[Via.LINK] == xml[Via.LINK] == "http://opac.test/item?id=7"  # a detail page is one page
    # A URL that names the query shows that search whoever follows it: one route, as any
    # link (the page reached both by "1" and by a link of another text is fetched once).
    named = [("http://opac.test/results?au=Donald+Knuth&page=2", "2"),
             ("http://opac.test/search/java/page/2", "Next »")]
    got = obtain_links(_results({"author": "donald  knuth"}), "http://opac.test/results", named[:1], [], "s1",
                       scope, max_depth=3)
    assert [r.key for r in got.routes] == ["http://opac.test/results?au=Donald+Knuth&page=2"]
    got = obtain_links(_results({"title": "java"}), "http://opac.test/results", named[1:], [], "s1",
                       scope, max_depth=3)
    assert [(r.via, r.key) for r in got.routes] == [(Via.NEXT, "http://opac.test/search/java/page/2")]
    # With no session the route replays the bare URL, which shows the same for every query.
    assert routes({"title": "java"}, None)[Via.NEXT] == routes({"title": "xml"}, None)[Via.NEXT] \
        == "http://opac.test/results.do?page=2"


def test_a_results_pager_counts_its_pages_and_stops_at_max_result_pages() -> None:
    # Pagination costs no depth, so the pager's own count bounds it: a catalogue that
    # answers page=N+1 with "page N+1", an empty list and "Next" again shows a new page
    # each time. The form's answer is page 1; a detail page under the results is no page
    # of them, and neither are script pagers' pages exempt.
    scope = Scope.build(["http://opac.test/"])
    links = [("http://opac.test/results.do?page=2", "Next page"), ("http://opac.test/item?id=7", "Dune")]
    scripts = [ScriptElement(selector="#next", text="Next", kind="control")]
    first = _results({"title": "java"}).model_copy(update={"page": 1})
    got = obtain_links(first, "http://opac.test/results.do", links, scripts, "s1", scope, max_depth=3,
                       max_result_pages=2)
    assert sorted((r.via, r.page) for r in got.routes) == [(Via.LINK, 0), (Via.NEXT, 2), (Via.NEXT, 2)]
    second = next(r for r in got.routes if r.via is Via.NEXT)
    got = obtain_links(second, "http://opac.test/results.do?page=2", links, scripts, "s1", scope, max_depth=3,
                       max_result_pages=2)
    assert [(r.via, r.page) for r in got.routes] == [(Via.LINK, 0)]  # the details, not page 3
    assert got.skipped == {"result pages": 2}
    # No bound: on it goes, a page further each time.
    later = [("http://opac.test/results.do?page=3", "Next page")]
    got = obtain_links(second, "http://opac.test/results.do?page=2", later, [], "s1", scope, max_depth=3)
    assert [r.page for r in got.routes if r.via is Via.NEXT] == [3]


def test_a_results_page_is_the_same_as_another_only_for_the_same_query() -> None:
    java, xml = _results({"title": "java"}), _results({"title": "xml"})
    page = "Results for: java (page 3 of 3)\n1. Thinking in Java"
    assert results_identity(java, page) == results_identity(java, page.replace("\n", "  \n "))
    assert results_identity(java, page) != results_identity(java, page.replace("3 of 3", "2 of 3"))
    # Two queries that both found nothing show the same words: neither is a repeat of the other.
    assert results_identity(java, "No books found.") != results_identity(xml, "No books found.")


@pytest.mark.parametrize("text", [
    "2", "Next »", "› ", "More results", "Page 3", "Weiter »", "Nächste Seite", "Seite 4", "Suivant ›",
    "Page suivante", "Siguiente", "Página siguiente", "Successiva", "Pagina 2", "Avanti »", "Volgende",
    "Nästa sida", "Następna strona", "Dalej", "Próxima", "Seguinte »"])
def test_a_pager_reads_like_one_in_the_languages_deepbot_reads(text: str) -> None:
    assert is_pager(text)


@pytest.mark.parametrize("text", [
    "Weiterlesen", "Suivre", "Nachrichten", "Volgen", "3 Zimmer", "Seite", "Pages", "Weitere Informationen"])
def test_words_beside_a_pager_are_not_one(text: str) -> None:
    assert not is_pager(text)


def test_a_forms_button_is_followed_only_as_its_results_next() -> None:
    # Submit buttons of the page's one form (ASP.NET): in a query's results "Next »" pages
    # them; "»" or "2" may be the search box's own button, "« Previous" goes back, and
    # outside results a form's button may send anything.
    scope = Scope.build(["http://opac.test/"])
    buttons = [ScriptElement(selector=f"#b{n}", text=text, kind="submit")
               for n, text in enumerate(["Next »", "»", "2", "« Previous", "Search", "Weiter"])]
    got = obtain_links(_results({"title": "java"}), "http://opac.test/results.aspx", [], buttons, "s1", scope,
                       max_depth=3, page="p1")
    assert [(r.via, r.steps.splitlines()[-1]) for r in got.routes] == [
        (Via.NEXT, 'click "#b0"'), (Via.NEXT, 'click "#b5"')]
    assert obtain_links(_parent(), SEED, [], buttons, None, Scope.build([SEED]), max_depth=3).routes == []


def test_a_querys_harvest_is_its_results_and_the_records_they_list() -> None:
    scope = Scope.build([SEED])
    answer = _parent().model_copy(update={"via": Via.FORM, "domain": "books", "query": {"title": "java"},
                                          "form_url": SEED})
    listed = obtain_links(answer, SEED, [(SEED + "book/1", "Java"), (SEED + "?page=2", "Next")], [], None,
                          scope, max_depth=3).routes
    record, pager = sorted(listed, key=lambda r: r.via)
    assert (record.via, record.query) == (Via.LINK, answer.query)
    assert (pager.via, pager.query) == (Via.NEXT, answer.query)
    # A record's own links, its "Next" among them, are the link crawl's again.
    onward = obtain_links(record, record.url, [(SEED + "book/2", "Next"), (SEED + "about", "About")], [],
                          None, scope, max_depth=3).routes
    assert {(r.via, r.domain, r.query) for r in onward} == {(Via.LINK, None, None)}


def test_a_host_is_explored_so_far_past_its_last_new_form() -> None:
    from deepbot.crawl.discovery import Discovery

    def route(path: str, via: Via = Via.LINK, domain: str | None = None) -> Route:
        return _parent().model_copy(update={"key": path, "url": SEED + path, "via": via, "domain": domain})

    found = Discovery(2)
    query = route("q", Via.FORM, "books")
    assert not found.spent(route("a"))  # no form found yet: depth alone bounds the crawl
    found.visited(route("home", Via.SEED), (query,))
    for path in ("a", "b"):
        assert not found.spent(route(path))
        found.visited(route(path), ())
    assert found.spent(route("c"))
    assert not found.spent(query) and not found.spent(route("rec", domain="books"))  # the harvest goes on
    found.answers.add("c")  # a record the link crawl queued before a results page listed it
    assert not found.spent(route("c"))
    found.visited(route("d"), (query,))  # another new form: its host explores again
    assert not found.spent(route("e"))
    assert not Discovery(None).spent(route("c"))


def test_a_results_list_of_numbered_rows_is_no_pager() -> None:
    # A table of results whose rows link by their id (Datasette's, an admin's list): each
    # "1234" is a record, not page 1234; the few numbers of a pager are still pages.
    answer = _parent().model_copy(update={"via": Via.FORM, "domain": "books", "query": {"title": "java"}})
    rows = [(f"{SEED}books/{n}", str(n)) for n in range(101, 131)]
    got = obtain_links(answer, SEED, [*rows, (SEED + "?_next=130", "Next page")], [], None,
                       Scope.build([SEED]), max_depth=3).routes
    assert sorted(r.via for r in got) == [Via.LINK] * 30 + [Via.NEXT]
    pager = [(f"{SEED}?page={n}", str(n)) for n in range(2, 6)]
    titled = [(url, f"Book {text}") for url, text in rows[:5]]
    got = obtain_links(answer, SEED, [*titled, *pager], [], None, Scope.build([SEED]), max_depth=3).routes
    assert sorted(r.url for r in got if r.via is Via.NEXT) == [url for url, _ in pager]


def test_a_results_page_in_another_order_or_size_is_not_followed() -> None:
    from deepbot.content.links import REORDERED, reorders

    here = SEED + "admin/book/?flt0_0=lantern&page=3"
    assert reorders(here, SEED + "admin/book/?flt0_0=lantern&sort=1")  # a column header
    assert reorders(here, SEED + "admin/book/?flt0_0=lantern&page=3&page_size=50")
    issues = SEED + "issue?@filter=title&title=x"
    assert reorders(issues, issues + "&@sort=-activity")
    assert not reorders(here, SEED + "admin/book/?flt0_0=lantern&page=4")  # its pager
    assert not reorders(here, SEED + "admin/book/?flt0_0=orchard&sort=1")  # another query
    assert not reorders(here, SEED + "admin/book/details/?id=7&sort=1")  # a record
    answer = _parent().model_copy(update={"via": Via.FORM, "domain": "books", "query": {"title": "java"}})
    got = obtain_links(answer, here, [(SEED + "admin/book/?flt0_0=lantern&sort=1", "Title")], [], None,
                       Scope.build([SEED]), max_depth=3)
    assert got.routes == [] and got.skipped == {REORDERED: 1}
    # Outside results, a listing's sort orders are links as any other.
    assert obtain_links(_parent(), here, [(SEED + "admin/book/?sort=1", "Title")], [], None,
                        Scope.build([SEED]), max_depth=3).routes


def test_where_to_go_back_to_is_no_part_of_a_pages_address() -> None:
    record = canonical_url("http://app.example/admin/book/details/?id=7&url=%2Fadmin%2Fbook%2F%3Fpage%3D3")
    assert record == canonical_url("http://app.example/admin/book/details/?url=/admin/book/&id=7")
    assert record == "http://app.example/admin/book/details/?id=7"
    # Alone, it is what the page is about; a value that is no address is a value.
    assert "url=" in canonical_url("http://app.example/redirect?url=/elsewhere")
    assert "next=" in canonical_url("http://app.example/list?q=a&next=eyJvZmZzZXQiOjEwfQ")


def test_a_results_pagers_way_back_is_the_querys_too() -> None:
    # A pager showing a window of numbers (Flask-Admin's) may reach a page first by "‹":
    # queued as a plain link, it would have been a record of the query, not its results.
    answer = _parent().model_copy(update={"via": Via.FORM, "domain": "books", "query": {"title": "java"}})
    back = [(SEED + "?page=2", "‹"), (SEED + "?page=3", "« Previous"), (SEED + "?page=4", "Zurück")]
    got = obtain_links(answer, SEED + "?page=5", back, [], None, Scope.build([SEED]), max_depth=3).routes
    assert {r.via for r in got} == {Via.NEXT}
    # Back to the first page is back to the form's answer, which the query fetched.
    first = obtain_links(answer, SEED + "?page=2", [(SEED + "?page=1", "‹ Prev"), (SEED, "«")], [], None,
                         Scope.build([SEED]), max_depth=3)
    assert first.routes == [] and first.skipped == {FIRST_PAGE: 2}
    # Outside results, "‹" is a link as any other (a carousel's is no pager).
    assert {r.via for r in obtain_links(_parent(), SEED, back, [], None, Scope.build([SEED]),
                                        max_depth=3).routes} == {Via.LINK}
