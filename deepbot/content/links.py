"""Obtain Links: turn a page's anchors and script-driven elements into child routes.

A plain link becomes a ``navigate`` route carrying the session captured after the
parent page (cookies set by script included). A script-driven element becomes a
click route: the parent's own session and steps, then the click, because the page
it acts on may only be reachable that way (after a form POST, say).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from deepbot.content.postprocess import ProcessContext
from deepbot.content.scope import Scope
from deepbot.content.traps import RESULTS, Chain, chain_step
from deepbot.routes import (
    ORDERING_PARAM,
    PAGE_PARAM,
    Route,
    ScriptElement,
    Via,
    canonical_url,
    page_identity,
    query_identity,
    route_key,
)
from deepbot.routes.sequences import append_steps, click_step, navigate_step, select_step


@dataclass
class ObtainedLinks:
    routes: list[Route] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


# The reason a results pager is not followed past max_result_pages (ObtainedLinks.skipped).
RESULT_PAGES = "result pages"
# The reasons a link is not followed past max_calendar_steps, or because it turns such a
# chain (a "next year" on a page a "next month" led to; ObtainedLinks.skipped).
CALENDAR_CHAIN = "calendar-like chain"
CALENDAR_TURN = "calendar-like chain turned"
# The reason a select that sends its form is not followed inside a query's results.
FILTERS = "filters of results"
# The reason a results pager's way back to its first page is not followed: that page is
# the form's answer, which the query's route fetched.
FIRST_PAGE = "back to the first page of results"
# The reason a link of a query's results page to the same results in another order or
# page size is not followed (a column header's "sort by title", "50 per page").
REORDERED = "results reordered"

# The texts of pagination controls: "Next »", "2", "›", "More results"…, and "Next" in the
# languages whose consent banners and logout links DeepBot reads too ("Weiter »", "Page
# suivante", "Siguiente", "Successiva", "Volgende", "Nästa sida", "Następna", "Próxima").
_NEXT = (r"more results.*|older.*|(?:(?:page|pagina|página) )?(?:next|weiter|n[äa]chste|suivante?"
         r"|siguientes?|successiv[ao]|avanti|volgende|n[äa]sta|nast[eę]pna|dalej|pr[óo]xim[ao]|seguinte)\b.*")
# A pager's way back ("‹ Previous"): the pages it leads to are the query's too. A pager
# that shows a window of page numbers may reach a page first that way, and a page queued
# as a plain link is a record of the query, whose own records are not (content.links).
_PREVIOUS = (r"[«‹<←]+|(?:[«‹<←] ?)?(?:prev|previous|zurück|vorherige|précédente?|anterior(?:es)?"
             r"|precedente|vorige|föregående|poprzednia|poprzednie)\b.*")
_PAGER = re.compile(rf"^(?:\d{{1,4}}|[»›>]+|(?:page|seite|pagina|página|sida|strona) \d{{1,4}}|{_NEXT})$",
                    re.I)
_BACK = re.compile(rf"^(?:{_PREVIOUS})$", re.I)
# A form's submit button pages results only when it says so in words: a search box's
# button may read "»" or "2" (its own submit, on every page, results or not).
_SAYS_NEXT = re.compile(rf"^(?:{_NEXT})$", re.I)


def is_pager(text: str) -> bool:
    return bool(_PAGER.match(" ".join(text.split()).strip()))


def _pages_results(text: str) -> bool:
    """A control of a query's results that leads to another page of them, back or on."""
    text = " ".join(text.split()).strip()
    return bool(_PAGER.match(text) or _BACK.match(text))


def says_next(text: str) -> bool:
    """A pager's "Next" (or "More results") in words, not a number or an arrow alone."""
    return bool(_SAYS_NEXT.match(" ".join(text.split()).strip()))


# "Log out" by its words or its URL (Logout.aspx, /user/logout, ?action=logout): following
# it would end the session every later route carries, on the server, for all of them.
_LOGOUT_WORDS = re.compile(
    r"^(?:log ?(?:out|off)|sign ?(?:out|off)|abmelden|ausloggen|(?:se )?d[ée]connexion|se d[ée]connecter"
    r"|cerrar sesi[oó]n|esci|uitloggen|afmelden|logga ut|wyloguj(?: się)?|sair)$", re.I)
_LOGOUT_URL = re.compile(r"\b(?:log[-_]?(?:out|off)|sign[-_]?(?:out|off))\b", re.I)


def is_logout(url: str, text: str = "") -> bool:
    parts = urlsplit(url)
    return bool(_LOGOUT_WORDS.match(" ".join(text.split()).strip(" .»›→"))
                or _LOGOUT_URL.search(f"{parts.path}?{parts.query}"))


def link_route(parent: Route, url: str, session: str | None, *, via: Via = Via.LINK) -> Route:
    """A route that navigates to ``url`` in the session captured after ``parent``.

    Pagination inside results (``via=NEXT``) does not count as a level of depth: the
    next page of results is as far from the seed as the first.
    """
    url = canonical_url(url)
    return _link_route(parent, url, route_key(Via.LINK, url), session, via)


def _next_page_key(parent: Route, url: str, session: str | None) -> str:
    """The identity of a results pager's link: its URL, and the query where the URL does
    not carry it and a session goes with the route.

    What such a URL shows may be the server's answer for the session's last search: a
    servlet catalogue's ``results.do?page=2`` or an ASP.NET ``Results.aspx?page=2`` name
    no query, and every query's first page links to the same URL. Keyed by URL alone, the
    first of them would be the only route, and the other queries' later pages never
    fetched. A URL that names a value of the query (``?au=knuth&page=2``) shows that
    search whoever follows it, and a route with no session replays the bare URL, which
    shows the same whatever query led to it: one route each, as for any link.
    """
    if session is None or parent.query is None or _names_the_query(url, parent.query):
        return route_key(Via.LINK, url)
    return route_key(Via.NEXT, url, query_identity(parent), url)


def _names_the_query(url: str, query: dict[str, str]) -> bool:
    """Whether a value of ``query`` is a parameter's value or a path segment of ``url``."""
    parts = urlsplit(url)
    words = [value for _, value in parse_qsl(parts.query)] + [unquote(s) for s in parts.path.split("/")]
    said = {" ".join(word.split()).casefold() for word in words}
    return any(" ".join(value.split()).casefold() in said for value in query.values() if value.strip())


def _link_route(parent: Route, url: str, key: str, session: str | None, via: Via,
                priority: float = 0.0, hint: str | None = None, chain: Chain | None = None) -> Route:
    steps = navigate_step(url)
    # From a fresh browser, an empty session needs only the URL; otherwise replay
    # the parent's path first so the cookies it set are there.
    program = steps if session is None else append_steps(parent.program, steps)
    depth = parent.depth if via is Via.NEXT else parent.depth + 1
    return Route(key=key, url=url, via=via, depth=depth, priority=priority, hint=hint,
                 seed=parent.seed, steps=steps, program=program, session=session, parent=parent.key,
                 **_harvest(parent, via), page=_page(parent, via),
                 chain=chain.steps if chain else 0, chain_axis=chain.axis if chain else -1)


def _chain(route: Route) -> Chain:
    """Where ``route`` stands on a calendar-like chain (content.traps)."""
    return Chain(route.chain, -1 if route.chain_axis is None else route.chain_axis)


def _shows_results(route: Route) -> bool:
    """Whether ``route``'s page is a query's results: the form's answer, or a page along
    its pager (queued before chains were counted: any pager's page, as then)."""
    if route.via is Via.FORM:
        return True
    return route.via is Via.NEXT and (route.chain_axis == RESULTS or route.chain_axis is None)


def _harvest(parent: Route, via: Via) -> dict[str, Any]:
    """The query a child's page answers (Route.domain, query, form_url): a query's harvest is
    its results (its answer, the pages along its pager) and what they link to, the records.
    A record's own links are the link crawl again (crawl.discovery bounds it)."""
    if via is Via.NEXT or _shows_results(parent):
        return {"domain": parent.domain, "query": parent.query, "form_url": parent.form_url}
    return {}


def _page(parent: Route, via: Via) -> int:
    """Route.page of a child: one page further into the results along their pager."""
    return parent.page + 1 if via is Via.NEXT else 0


def script_route(parent: Route, page: str, page_url: str, script: ScriptElement, *,
                 via: Via = Via.SCRIPT, key: str | None = None, priority: float = 0.0,
                 hint: str | None = None, chain: Chain | None = None) -> Route:
    """A route that replays ``parent`` then acts on ``script`` on its page: clicks it, or
    chooses its option (a jump menu).

    ``page`` is the page_identity() of that page: the same action on the same page
    reached twice is one route. ``key``: another identity for the route (a pager's
    numbered page, the same whichever page its button was clicked on). ``chain``: where it
    stands on a calendar-like chain (content.traps); by default where ``parent`` does, as
    a click moves no number in a URL.
    """
    chain = chain or _chain(parent)
    # A closed menu's item: the menu is opened first, as a person would, so the replay
    # finds it shown.
    opening = "".join(click_step(opener) for opener in script.opener)
    if script.option is None:
        action = opening + click_step(script.selector)
    else:
        action = opening + select_step(script.selector, script.option)
    depth = parent.depth if via is Via.NEXT else parent.depth + 1
    return Route(
        key=key or route_key(via, page_url, page, action), acts_on=page, url=page_url, via=via, depth=depth,
        priority=priority, hint=hint,
        seed=parent.seed, steps=append_steps(parent.steps, action),
        program=append_steps(parent.program, action), session=parent.session, parent=parent.key,
        **_harvest(parent, via), page=_page(parent, via), chain=chain.steps, chain_axis=chain.axis,
    )


def obtain_links(parent: Route, page_url: str, links: Iterable[tuple[str, str]],
                 scripts: Iterable[ScriptElement], session: str | None, scope: Scope, *, max_depth: int,
                 page: str = "", known: Container[str] = frozenset(),
                 priority: Callable[[str, str], float] | None = None,
                 hint: Callable[[str], str | None] | None = None,
                 max_result_pages: int | None = None, max_calendar_steps: int | None = None) -> ObtainedLinks:
    """Child routes of a page: ``links`` are (url, text) pairs, ``scripts`` what to act on.

    Inside a query's results (the form's answer, a page along its pager), controls that read like
    pagination become ``via=NEXT`` routes. Elsewhere, a pager of buttons (two or more
    controls that read like one: an app's "1 2 3 Next ›" that renders pages in place) is
    clicked like any script element, one level deeper each time, so the depth bounds
    it: its numbered buttons but "1" (the listing itself), one route per number whatever
    page shows the button, so a page is reached once and the crawl stays the same
    whatever order it runs in; "Next" only where no button has a number. Routes whose
    key is ``known`` (already in the frontier, which would ignore them) are not built at
    all: on most sites nearly every link of a page is one the crawl already has.
    ``priority`` rates a link or script element by its URL and text (a focused crawl's,
    policy.topic; a structure-driven one's, policy.structure); a results pager keeps
    its parent's priority. ``hint``: what that policy has each route carry (Route.hint), by
    URL; a results pager carries its parent's. A results pager is not followed from the
    ``max_result_pages``-th page of the results on (Route.page; None: no bound). A link
    that only moves a number or a date of the page's URL (a calendar's "next month") is one
    more step of a chain (Route.chain, content.traps), followed ``max_calendar_steps``
    steps at most, and not where it turns to move another number (None: no bound); a
    query's own results pager is not such a step.
    """

    def rate(via: Via, url: str, text: str) -> float:
        if via is Via.NEXT:
            return parent.priority
        return priority(url, text) if priority is not None else 0.0

    def note(via: Via, url: str) -> str | None:
        if via is Via.NEXT:
            return parent.hint
        return hint(url) if hint is not None else None

    out = ObtainedLinks()
    # A query's results page: its pager is the query's. A record it lists carries the query
    # too (Route.domain), but its own "Next" is the next record, or another listing's.
    in_results = _shows_results(parent)
    at_limit = parent.depth >= max_depth
    last_page = max_result_pages is not None and parent.page >= max_result_pages
    # The results of a query (the form's answer, the pages along its pager) page by their
    # own bound: their pager is no step of a calendar-like chain.
    results_page = _shows_results(parent)
    here = canonical_url(page_url)
    seen: set[str] = set()
    links = list(links)
    numbers_page = in_results and _numbers_are_pages(text for _, text in links)
    for url, text in links:
        decision = scope.decide(url)
        if not decision.keep:
            out.skip(decision.reason)
            continue
        if is_logout(url, text):
            out.skip("log out")
            continue
        if in_results and _BACK.match(" ".join(text.split()).strip()) and _first_page(url):
            out.skip(FIRST_PAGE)  # the form's own answer: fetched already
            continue
        paging = _pages_results(text) and (numbers_page or not text.strip().isdigit())
        via = Via.NEXT if in_results and paging else Via.LINK
        if in_results and via is Via.LINK and reorders(page_url, url):
            out.skip(REORDERED)
            continue
        if at_limit and via is not Via.NEXT:
            out.skip("depth")
            continue
        if last_page and via is Via.NEXT:
            out.skip(RESULT_PAGES)
            continue
        url = canonical_url(url)
        key = _next_page_key(parent, url, session) if via is Via.NEXT else route_key(Via.LINK, url)
        if key in seen or key == parent.key or key in known:
            continue
        chain = chain_step(_chain(parent), here, url,
                           results_pager=via is Via.NEXT and results_page)
        if max_calendar_steps is not None and (chain.turned or chain.steps > max_calendar_steps):
            out.skip(CALENDAR_TURN if chain.turned else CALENDAR_CHAIN)
            continue
        seen.add(key)
        out.routes.append(_link_route(parent, url, key, session, via, rate(via, url, text), note(via, url),
                                      chain))
    if scope.decide(page_url).keep:
        scripts = list(scripts)
        pager = _pager_buttons(scripts) if not in_results else {}
        for script in scripts:
            # Not its way back: a page shown in place has no URL to tell it was fetched.
            via = Via.NEXT if in_results and is_pager(script.text) else Via.SCRIPT
            if script.kind == "control" and via is not Via.NEXT and script.selector not in pager:
                continue  # any other button a page has: not worth a route
            if script.kind == "submit" and not (via is Via.NEXT and says_next(script.text)):
                continue  # a form's button: only its results' "Next"
            if script.kind == "postback" and in_results:
                # A filter or sort of the results the pager walks: a subset or the same
                # set again, option after option, on every page of every query.
                out.skip(FILTERS)
                continue
            if is_logout(script.option or "", script.text):
                out.skip("log out")
                continue
            if at_limit and via is not Via.NEXT:
                out.skip("depth")
                continue
            if last_page and via is Via.NEXT:
                out.skip(RESULT_PAGES)
                continue
            numbered = pager.get(script.selector)
            paging = via is Via.NEXT and results_page  # the results shown in place: no URL moves
            known_by = numbered or script.scope  # a pager's page, a filter's form: not the page shown
            child = script_route(parent, page or page_identity(page_url, ""), page_url, script, via=via,
                                 key=_script_key(via, page_url, known_by, script) if known_by else None,
                                 priority=rate(via, page_url, script.text), hint=note(via, page_url),
                                 chain=Chain(parent.chain, RESULTS) if paging else None)
            if child.key not in seen and child.key not in known:
                seen.add(child.key)
                out.routes.append(child)
    return out


def _first_page(url: str) -> bool:
    """Whether ``url`` names a listing's first page: no page number, or 0 or 1."""
    pages = [value for name, value in parse_qsl(urlsplit(url).query) if PAGE_PARAM.match(name)]
    return all(value in ("", "0", "1") for value in pages)


def reorders(page_url: str, url: str) -> bool:
    """Whether ``url`` shows ``page_url``'s listing in another order or page size: the same
    path, and the parameters it adds or changes order or size it (its page may change too)."""
    here, there = urlsplit(page_url), urlsplit(url)
    if (here.netloc, here.path) != (there.netloc, there.path):
        return False
    before, after = dict(parse_qsl(here.query)), dict(parse_qsl(there.query))
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    ordering = {k for k in changed if ORDERING_PARAM.match(k)}
    return bool(ordering) and all(ORDERING_PARAM.match(k) or PAGE_PARAM.match(k) for k in changed)


# A pager shows a few page numbers ("1 2 3 … 10", "… 48 49 50 51 52 …"); a page whose links
# read as more numbers than this lists things by number (a table's row ids, a year's days).
_PAGE_NUMBERS_AT_MOST = 20


def _numbers_are_pages(texts: Iterable[str]) -> bool:
    """Whether a results page's links that read as a bare number may be its pager's."""
    numbers = {text.strip() for text in texts if text.strip().isdigit()}
    return len(numbers) <= _PAGE_NUMBERS_AT_MOST


def _script_key(via: Via, page_url: str, known_by: str, script: ScriptElement) -> str:
    """The key of a script route known by something other than its page: a pager's
    numbered page (its number says what it shows), a filter's form with the option
    chosen (the same filter on every page sends the same form), a menu's item by its
    menu and markup (the same header menu on every page does the same)."""
    if script.scope is None:
        return route_key(via, page_url, known_by)
    return route_key(via, page_url, known_by, script.option or "")


def _pager_buttons(scripts: list[ScriptElement]) -> dict[str, str]:
    """The buttons of a pager outside results worth a route: selector → what names the
    page it shows ("page 3"; "" for a "Next", named by the page it is clicked on)."""
    row = [s for s in scripts if s.kind == "control" and is_pager(s.text)]
    if len(row) < 2:  # one button saying "2" is a quantity or a size, not a pager
        return {}
    numbered = {s.selector: " ".join(s.text.split()) for s in row if s.text.strip().isdigit()}
    if numbered:
        return {sel: f"page {n}" for sel, n in numbered.items() if n.lstrip("0") != "1"}
    return {s.selector: "" for s in row}


class ObtainLinks:
    """The post-processing filter that feeds the frontier from each page."""

    name = "obtain-links"

    def __init__(self, scope: Scope, max_depth: int, *, follow_nofollow: bool = True,
                 skipped: dict[str, int] | None = None, known: Container[str] = frozenset(),
                 max_result_pages: int | None = None,
                 max_calendar_steps: int | None = None, answers: set[str] | None = None):
        self.scope = scope
        # Keys of the links a query's results list, queued by this page or before it by the
        # link crawl: what a domain crawl fetches however far it explored (crawl.discovery).
        self.answers = answers
        self.max_result_pages = max_result_pages
        self.max_calendar_steps = max_calendar_steps
        self.known = known  # route keys already in the frontier
        self.max_depth = max_depth
        self.follow_nofollow = follow_nofollow
        self.skipped: dict[str, int] = {} if skipped is None else skipped  # counts by reason

    async def process(self, ctx: ProcessContext) -> None:
        snap = ctx.snapshot
        if snap is None:
            return
        links = [(link.url, link.text) for link in snap.links if self.follow_nofollow or not link.nofollow]
        if len(links) < len(snap.links):
            self.skipped["rel=nofollow"] = self.skipped.get("rel=nofollow", 0) + len(snap.links) - len(links)
        # The page's identity (a hash of all its text) names click routes only.
        page = page_identity(snap.url, snap.text) if snap.scripts else ""
        # The link policy's rating (policy/): processors before this one set it.
        obtained = obtain_links(ctx.route, snap.url, links, snap.scripts, ctx.session, self.scope,
                                max_depth=self.max_depth, page=page, known=self.known,
                                priority=ctx.link_priority,
                                hint=ctx.link_hint, max_result_pages=self.max_result_pages,
                                max_calendar_steps=self.max_calendar_steps)
        for reason, count in obtained.skipped.items():
            self.skipped[reason] = self.skipped.get(reason, 0) + count
        ctx.routes.extend(obtained.routes)
        if self.answers is not None and _shows_results(ctx.route):
            self.answers.update(route_key(Via.LINK, canonical_url(url)) for url, _ in links)
