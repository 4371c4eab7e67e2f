"""The stages of a route (crawl.stages) and the models between them, without a browser:
each is a function of typed input to typed output."""

from __future__ import annotations

import json

import pytest

from deepbot.content import default_registry, relevance_chain
from deepbot.crawl.directives import PageDirectives
from deepbot.crawl.harvest import Harvest, decoded
from deepbot.crawl.sessions import CrawlSession
from deepbot.crawl.stages import Reading, Verdict, Visited, build, choose, classify
from deepbot.errors import BrowserError
from deepbot.policy.links import LinkPolicy
from deepbot.routes import (
    Document,
    DocumentMeta,
    PageSnapshot,
    Route,
    SessionState,
    Via,
    page_identity,
    parsed,
    route_key,
)

URL = "https://shop.test/books"


def _route(via: Via = Via.LINK, **fields: object) -> Route:
    values: dict[str, object] = {"key": route_key(via, URL, "p", "a"), "url": URL, "via": via,
                                 "steps": f'navigate "{URL}"\n', "program": f'navigate "{URL}"\n'}
    values.update(fields)
    return Route.model_validate(values)


def _visited(route: Route, **snap: object) -> Visited:
    return Visited(route, SessionState(), PageSnapshot.model_validate({"url": URL, "status": 200, **snap}))


def _never_out(*_: object) -> bool:
    return False


def test_a_refusal_a_bot_check_and_a_logout_are_no_pages() -> None:
    claims: list[str] = []

    def claim(identity: str, key: str) -> bool:
        claims.append(identity)
        return True

    route = _route()
    assert classify(_visited(route, status=429), logged_out=_never_out, claim=claim).reason == "http 429"
    check = classify(_visited(route, challenge="Cloudflare"), logged_out=_never_out, claim=claim)
    assert (check.verdict, check.reason) == (Verdict.BOT_CHECK, "bot check: Cloudflare")
    out = classify(_visited(route), logged_out=lambda *_: True, claim=claim)
    assert out.verdict is Verdict.LOGGED_OUT and URL in out.reason
    assert classify(_visited(route), logged_out=_never_out, claim=claim).verdict is Verdict.PAGE
    assert claims == []  # a link's page claims nothing


def test_a_click_that_changed_nothing_or_led_where_another_did_is_no_page() -> None:
    acts_on = page_identity(URL, "the list")
    click = _route(Via.SCRIPT, acts_on=acts_on)
    same = classify(_visited(click, text="the list"), logged_out=_never_out, claim=lambda *_: True)
    assert same.verdict is Verdict.UNCHANGED
    taken = classify(_visited(click, text="page 2"), logged_out=_never_out, claim=lambda *_: False)
    assert taken.verdict is Verdict.DUPLICATE
    pager = _route(Via.NEXT, domain="books", query={"title": "java"})
    again = classify(_visited(pager, text="page 9"), logged_out=_never_out, claim=lambda *_: False)
    assert again.verdict is Verdict.REPEATED


def test_the_submission_and_the_dismissal_that_worked_are_replayed() -> None:
    route = _route(Via.FORM, submit=('click "#go"\n',), domain="books")
    out = classify(_visited(route, submitted='click "#go"\n', dismissed='dismiss "#ok"\n'),
                   logged_out=_never_out, claim=lambda *_: True)
    assert out.route.steps.endswith('click "#go"\ndismiss "#ok"\n') and out.route.submit == ()
    assert out.route.program.endswith('click "#go"\ndismiss "#ok"\n')


def test_build_notes_what_the_page_said_in_typed_meta() -> None:
    reading = Reading(default_registry(), relevance_chain(), "DeepBot", obey_meta_robots=True,
                      start_session="s1")
    snap = PageSnapshot(url=URL, status=200, content_type="text/html", html="<p>No results found</p>",
                        text="No results found", robots=(("robots", "noindex"),))
    built = build(_route(Via.FORM, domain="books"), snap, reading)
    meta = built.document.meta
    assert (meta.handler, meta.no_results, meta.robots, meta.start_session) == ("html", True, "noindex", "s1")
    assert built.no_results and not built.relevance.keep and built.relevance.reason == "noindex"


async def test_choose_follows_only_queries_from_a_nofollow_page_and_asks_robots_of_links() -> None:
    link, form = _route(Via.LINK), _route(Via.FORM, key="form:1")
    chosen = await choose([link, form], PageDirectives(nofollow=True), obey_meta_robots=True)
    assert (chosen.children, chosen.nofollow) == ((form,), 1)

    async def disallow(route: Route) -> bool:
        return False

    chosen = await choose([link, form], PageDirectives(), obey_meta_robots=True, allowed=disallow)
    assert (chosen.children, chosen.disallowed) == ((form,), 1)


def test_meta_is_stored_as_the_flat_strings_it_always_was() -> None:
    stored = {"handler": "pdf", "pages": "3", "no_results": "true", "topic_similarity": "0.4231"}
    meta = DocumentMeta.model_validate(stored)
    assert (meta.notes, meta.no_results, meta.topic_similarity) == ({"pages": "3"}, True, 0.4231)
    assert meta.stored() == stored and meta["pages"] == "3" and "robots" not in meta
    noted = meta.noted(structure_similarity=1 / 3)
    assert noted.structure_similarity == 0.3333 and noted["structure_similarity"] == "0.3333"
    doc = Document(route_key="k", url=URL, final_url=URL, nseql="", via=Via.LINK, meta=stored)
    assert json.loads(doc.model_dump_json())["meta"] == stored
    assert Document.model_validate_json(doc.model_dump_json()) == doc


def test_the_harvest_is_one_typed_model() -> None:
    answer = json.dumps({"url": URL, "links": [{"url": URL + "/1", "text": "One", "nofollow": False}],
                         "scrollStop": None, "robots": [["robots", "noindex"]],
                         "document": {"url": URL, "status": 200, "type": "text/html"}})
    harvest = decoded(answer)
    assert isinstance(harvest, Harvest) and harvest.links[0].text == "One"
    assert harvest.scroll_stop == "" and harvest.document.status == 200
    assert harvest.robots == (("robots", "noindex"),)
    with pytest.raises(BrowserError):
        decoded("[]")
    with pytest.raises(BrowserError):
        decoded(json.dumps({"url": URL, "surprise": 1}))  # a key the model does not know: the script changed


def test_steps_are_parsed_once_for_each_text() -> None:
    route = _route()
    assert route.plan is _route().plan is parsed(route.steps)
    assert len(route.plan.steps) == 1


class _Sessions:
    def __init__(self) -> None:
        self.kept: dict[str, SessionState] = {}

    def put_session(self, state: SessionState) -> str:
        self.kept[state.digest()] = state
        return state.digest()

    def get_session(self, digest: str) -> SessionState:
        return self.kept[digest]


def test_the_crawl_session_puts_a_fresh_login_over_older_routes_only() -> None:
    store = _Sessions()
    old = SessionState(cookies=({"name": "sid", "value": "old", "domain": "shop.test", "path": "/"},))
    earlier = store.put_session(old)
    session = CrawlSession(store)
    login = SessionState(cookies=({"name": "sid", "value": "new", "domain": "shop.test", "path": "/"},))
    start = session.log_in(login)
    session.resume([earlier])
    assert session.restore(_route(session=earlier)).cookies[0]["value"] == "new"
    cart = SessionState(cookies=(*login.cookies, {"name": "cart", "value": "1", "domain": "shop.test",
                                                  "path": "/"}))
    made = session.keep(cart)
    assert made is not None and session.restore(_route(session=made)) == cart  # this run's: as it was
    assert session.keep(SessionState()) is None and start == login.digest()
    session.end(URL)
    assert session.ended("https://shop.test/other") and not session.ended("https://elsewhere.test/")


def test_the_link_policy_says_what_the_engine_asks() -> None:
    focused = LinkPolicy(topic="java books", threshold=0.3)
    near = Document(route_key="k", url=URL, final_url=URL, nseql="", via=Via.LINK,
                    meta={"topic_similarity": "0.3000"})
    assert focused.on_topic(near) is True and LinkPolicy().on_topic(near) is None
    assert [p.name for p in focused.processors(lambda *_: None)] == ["topic"]
    like = LinkPolicy(like=URL)
    assert like.unpromising(_route(priority=0.01)) and not like.unpromising(_route(Via.SEED, priority=0.01))
    assert not focused.unpromising(_route(priority=0.01))
