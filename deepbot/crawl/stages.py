"""The stages of one route, each a function of typed input to typed output.

    Route, SessionState ──visit (crawl.visit)──► Visited
    Visited ──classify──► Classified: a page, or why it is none (a refusal, a bot check,
                          the login form again, a click that changed nothing, a page
                          another route reached first, a pager's repeated results)
    Route, PageSnapshot ──build──► Built: fetched, content, document, relevance, directives
    ProcessContext ──PostProcessChain──► ProcessContext (main text, policies, links, forms)
    ProcessContext, directives ──choose──► Chosen: the child routes to push

The engine (crawl.engine) runs them in that order inside a pool slot, counts what they
return and commits; none of them counts, logs or writes a store but through what it is
given (``claim``, ``logged_out``, ``allowed``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from deepbot.content import Content, Decision, Fetched, HandlerRegistry, RelevanceChain, build_document
from deepbot.content.filters import NOINDEX
from deepbot.content.scope import ScopeDecision
from deepbot.crawl.directives import PageDirectives, page_directives
from deepbot.crawl.politeness import BACKOFF_STATUSES
from deepbot.forms.answers import looks_like_no_results
from deepbot.routes import Document, PageSnapshot, Route, SessionState, Via, page_identity, results_identity
from deepbot.routes.sequences import append_steps


@dataclass(frozen=True, slots=True)
class Visited:
    """What a visit gave: the route as run, the session restored for it, what the page showed."""

    route: Route
    session: SessionState
    snapshot: PageSnapshot


class Verdict(StrEnum):
    """What a visited page is to the crawl. The values name the outcomes the stats count."""

    PAGE = "page"  # a page to read
    BOT_CHECK = "bot check"  # a check in front of the site: a refusal, like a 429
    REFUSED = "refused"  # a status that asks to back off (429, 503)
    LOGGED_OUT = "logged out"  # the login form again: the site ended the crawl's session
    UNCHANGED = "unchanged"  # the click or submission changed nothing
    DUPLICATE = "duplicate"  # it led to a page another route reached first
    REPEATED = "repeated results"  # a later page of a query's results that shows an earlier one's
    OFF_SCOPE = "off scope"  # a redirect, a script or a form took the browser out of the crawl's scope


@dataclass(frozen=True, slots=True)
class Classified:
    verdict: Verdict
    # The route as its document and children replay it: with the submission that worked
    # and the overlay it clicked away appended (only for a PAGE and what a claim refused).
    route: Route
    reason: str = ""  # a refusal's or a logout's: what the page showed


def classify(visited: Visited, *, logged_out: Callable[[Route, SessionState, PageSnapshot], bool],
             claim: Callable[[str, str], bool],
             in_scope: Callable[[str], ScopeDecision] | None = None) -> Classified:
    """Whether the page is one to read. ``logged_out``: whether it shows that the crawl's
    login has ended (CrawlSession.logged_out); ``claim(identity, route key)``: whether the
    route is the first to reach a page (the frontier's claim_page, kept across a resume)."""
    route, snapshot = visited.route, visited.snapshot
    # Wherever the browser was sent, what it found off scope is neither stored nor followed.
    # A seed is in scope wherever it lands: the person named it (include/exclude choose the
    # links to follow from it).
    if route.via is not Via.SEED and in_scope is not None and not (decision := in_scope(snapshot.url)).keep:
        return Classified(Verdict.OFF_SCOPE, route, f"{decision.reason}: {snapshot.url[:200]}")
    if snapshot.challenge is not None:
        return Classified(Verdict.BOT_CHECK, route, f"bot check: {snapshot.challenge}")
    if snapshot.status in BACKOFF_STATUSES:
        return Classified(Verdict.REFUSED, route, f"http {snapshot.status}")
    if logged_out(route, visited.session, snapshot):
        return Classified(Verdict.LOGGED_OUT, route, f"logged out: {snapshot.url} shows the login form")
    for done in (snapshot.submitted, snapshot.dismissed, snapshot.grown):
        if done is not None:
            # The document replays the submission that worked and the overlay it
            # clicked away, and so do its children.
            route = route.model_copy(update={
                "steps": append_steps(route.steps, done),
                "program": append_steps(route.program, done), "submit": ()})
    if route.acts_on is not None:
        identity = page_identity(snapshot.url, snapshot.text)
        # The click changed nothing, or led to a page another route reached first
        # (in this run or before a resume: the claim is kept in the frontier).
        if identity == route.acts_on:
            return Classified(Verdict.UNCHANGED, route)
        if not claim(identity, route.key):
            return Classified(Verdict.DUPLICATE, route)
    # Pagination costs no depth, so a pager that never ends (a server that answers
    # page=N+1 with its last page again, "Next" and all) would lead on for ever: a
    # later page that shows what another later page of the same query showed is not
    # stored, and its pager not followed. (The first page, the form's, claims nothing
    # here: a "1" link back to it is stored as before.)
    if (route.via is Via.NEXT and route.domain is not None
            and not claim(results_identity(route, snapshot.text), route.key)):
        return Classified(Verdict.REPEATED, route)
    return Classified(Verdict.PAGE, route)


@dataclass(frozen=True, slots=True)
class Reading:
    """How the crawl reads a page into a document."""

    registry: HandlerRegistry
    relevance: RelevanceChain
    robots_token: str  # the product token a page's robots directives may name (crawl.robots)
    obey_meta_robots: bool = False
    start_session: str | None = None  # the session the crawl started in (a login's digest)


@dataclass(frozen=True, slots=True)
class Built:
    fetched: Fetched
    content: Content
    document: Document
    relevance: Decision
    directives: PageDirectives
    no_results: bool  # a query's page that says it found nothing


def build(route: Route, snapshot: PageSnapshot, reading: Reading) -> Built:
    """The document of a page that is one, and whether the crawl keeps it."""
    fetched = _fetched(route, snapshot)
    content = reading.registry.handle(fetched)
    document = build_document(route, fetched, content)
    no_results = route.via in (Via.FORM, Via.NEXT) and looks_like_no_results(document.text)
    directives = page_directives(snapshot.robots, snapshot.headers.get("x-robots-tag"), reading.robots_token)
    if no_results or directives.said or reading.start_session is not None:
        # start_session: its program runs from there, so a replay needs it.
        document = document.model_copy(update={"meta": document.meta.model_copy(update={
            "no_results": no_results, "robots": directives.said or None,
            "start_session": reading.start_session})})
    relevance = reading.relevance.decide(document)
    if reading.obey_meta_robots and directives.noindex and relevance.keep:
        relevance = Decision(False, NOINDEX, directives.said)
    return Built(fetched, content, document, relevance, directives, no_results)


def _fetched(route: Route, snap: PageSnapshot) -> Fetched:
    return Fetched(url=route.url, final_url=snap.url, status=snap.status, content_type=snap.content_type,
                   body=snap.body or b"", html=snap.html if snap.body is None else None,
                   title=snap.title, visible_text=snap.text or None)


@dataclass(frozen=True, slots=True)
class Chosen:
    children: tuple[Route, ...]
    nofollow: int = 0  # routes not followed because the page said nofollow
    disallowed: int = 0  # routes robots.txt disallows


async def choose(routes: Sequence[Route], directives: PageDirectives, *, obey_meta_robots: bool,
                 allowed: Callable[[Route], Awaitable[bool]] | None = None) -> Chosen:
    """The child routes the processors made that the crawl follows. ``allowed``: robots.txt's
    say on a link (None: not asked)."""
    children = list(routes)
    nofollow = 0
    if obey_meta_robots and directives.nofollow:
        # Its links, script links and pagers are not followed; the domain's queries
        # on its forms are the crawl's own task, not links.
        children = [c for c in children if c.via is Via.FORM]
        nofollow = len(routes) - len(children)
    disallowed = 0
    if allowed is not None:
        kept = [c for c in children if c.via not in (Via.LINK, Via.SEED) or await allowed(c)]
        disallowed, children = len(children) - len(kept), kept
    return Chosen(tuple(children), nofollow, disallowed)
