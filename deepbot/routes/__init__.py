"""The typed objects that travel between stages: SessionState, Route, Document.

A Route is self-sufficient: a session snapshot (by digest) plus the NSEQL steps to
run from it, so any worker on any machine can resume it. Each Route also carries the
full NSEQL program from a fresh browser, which its Document keeps for replay.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import (
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

import nseql
from deepbot.models import Frozen as _Frozen


class Via(StrEnum):
    """How a route was found."""

    SEED = "seed"
    LINK = "link"  # an anchor with an http(s) href
    SCRIPT = "script"  # a click on a script-driven anchor or element
    FORM = "form"  # a domain query submitted on a relevant form
    NEXT = "next"  # pagination inside results


class Cookie(_Frozen):
    """One cookie, in Playwright's shape (what ``context.cookies()`` gives and
    ``add_cookies`` takes). Only the fields it was given are kept and written back, the
    values as they were (``expires`` an int stays one), so a session's digest is the one it
    always had; fields Playwright adds later are kept as they come. Readable as that
    mapping too (``cookie["name"]``)."""

    model_config = ConfigDict(extra="allow")

    name: str
    value: str
    domain: str | None = None
    path: str | None = None
    url: str | None = None
    expires: int | float | None = None
    httpOnly: bool | None = None
    secure: bool | None = None
    sameSite: str | None = None

    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        given = self.model_fields_set | set(self.model_extra or ())
        return {key: value for key, value in handler(self).items() if key in given}

    def playwright(self) -> dict[str, Any]:
        return self.model_dump()

    @property
    def host(self) -> str:
        """The host the cookie is for: its domain (no leading dot) or its URL's, lower case."""
        return (self.domain or urlsplit(self.url or "").hostname or "").lstrip(".").lower()

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What names one cookie in a jar: a newer one of the same key replaces it."""
        return self.name, str(self.domain), str(self.url), str(self.path)

    def __getitem__(self, key: str) -> Any:
        return self.playwright()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.playwright().get(key, default)


class SessionState(_Frozen):
    """Cookies and localStorage, in Playwright's ``storage_state`` shape."""

    cookies: tuple[Cookie, ...] = ()
    origins: tuple[dict[str, Any], ...] = ()

    @classmethod
    def from_playwright(cls, state: dict[str, Any]) -> SessionState:
        return cls.model_validate({"cookies": state.get("cookies", ()), "origins": state.get("origins", ())})

    def to_playwright(self) -> dict[str, Any]:
        return {"cookies": [cookie.playwright() for cookie in self.cookies], "origins": list(self.origins)}

    @property
    def empty(self) -> bool:
        return not self.cookies and not any(o.get("localStorage") for o in self.origins)

    def digest(self) -> str:
        """Content address: identical snapshots are stored once."""
        canonical = json.dumps(self.to_playwright(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:32]


EMPTY_SESSION = SessionState()


# A domain's queries are the crawl's task: a query route and its results' pagers are
# leased before any link, however a link policy rated it (a topic's, a structure's and
# an HMM's ratings lie within 0..1), so a page budget is spent on them first.
QUERY_PRIORITY = 2.0


class Route(_Frozen):
    """What a worker must do: restore ``session``, run ``steps``, process the page."""

    key: str  # identity for dedupe; see route_key()
    url: str  # the page this route is expected to reach (or act from)
    via: Via
    depth: int = 0
    seed: str = ""
    steps: str  # NSEQL from the session snapshot
    program: str  # full NSEQL from a fresh browser
    session: str | None = None  # SessionState digest; None means a fresh browser
    parent: str | None = None  # key of the route whose page produced this one
    priority: float = 0.0  # larger is leased earlier; ties go first-in, first-out
    domain: str | None = None  # set for via=form
    query: dict[str, str] | None = None  # the domain query, for via=form
    form_url: str | None = None  # the page holding the form, for via=form
    acts_on: str | None = None  # page_identity() of the page a click/submit acts on
    submit: tuple[str, ...] = ()  # NSEQL steps to try in turn after ``steps`` (form submission)
    # Which page of a query's results: 1 for the form's own answer, one more for each step
    # of its pager (a numbered pager's jumps count one step each); 0 outside results.
    # Pagination costs no depth, so this is what bounds a pager that never ends.
    page: int = 0
    # Links in a row up to this route that only moved a number or a date in their page's URL
    # (a calendar's "next month": content/traps.py); bounded by max_calendar_steps, since a
    # server that answers any month makes such a chain endless.
    chain: int = 0
    # Which number of the URL the last such link moved: -1 it was no such link, -2 it was
    # the pager of a query's results (content/traps.py); None: a route queued before chains
    # were counted (a resumed crawl), for which a pager's page is a results page as it was.
    chain_axis: int | None = None
    # What the crawl's link policy learned of this route's page from the page that linked
    # it (a structure crawl's class-link, an HMM crawl's belief over the page's level):
    # it travels with the route, so a resumed crawl rates the page as the first run would.
    hint: str | None = None

    @property
    def plan(self) -> nseql.Program:
        """``steps``, parsed: once for each text, however often routes carry it (a retry,
        the routes a frontier hands back, a copy with one more step)."""
        return parsed(self.steps)


@lru_cache(maxsize=4096)
def parsed(program: str) -> nseql.Program:
    """An NSEQL program (a route's steps, a form's way of submitting) parsed once: a
    Program is immutable, so every route and every query of a form shares the one parse."""
    return nseql.parse(program)


class Link(_Frozen):
    url: str
    text: str = ""
    nofollow: bool = False


class ScriptElement(_Frozen):
    selector: str
    text: str = ""
    # the element; "select" for an option of a jump menu; "control" for a button whose
    # script is not in its markup or a script link inside a form (followed only as the
    # pager of a query's results); "submit" for a form's own button (followed only as
    # its results' "Next")
    # "postback" for an option of a select whose change sends its own form (a filter)
    kind: str = "anchor"
    option: str | None = None  # a jump menu's option value: the route chooses it, not a click
    # What the action's outcome depends on when not the page it is on: a postback select's
    # form (its action, method and field names), a menu item's menu and markup. Routes are
    # then known by it, not the page.
    scope: str | None = None
    # What shows it: the menus' openers a person clicks first (a dropdown's button), in order.
    opener: tuple[str, ...] = ()


# Why a page's scrolling (or its "Load more" clicks) stopped: "" not done; "end" a round
# brought nothing more; "rounds" or "time" its bound stopped it while more still came
# (max_scrolls, scroll_time); "unsettled" the page still fetched or changed when the wait
# for a round ran out (a ticker, a slow batch). Only "end" says the listing is complete.
GrowthStop = Literal["", "end", "rounds", "time", "unsettled"]


class PageSnapshot(_Frozen):
    """What the browser showed at the end of a route."""

    url: str  # final URL
    status: int | None = None
    content_type: str = ""
    title: str = ""
    html: str = ""
    text: str = ""
    body: bytes | None = None  # raw bytes for non-HTML responses (PDF, JSON, text)
    links: tuple[Link, ...] = ()
    scripts: tuple[ScriptElement, ...] = ()
    revealed: int = 0  # anchors that appeared when menus were hovered
    scrolled: int = 0  # rounds of scrolling to the end that brought more (infinite scroll)
    more: int = 0  # clicks on a "Load more" button that brought more
    # Why each of those stopped (GrowthStop): at the end, or cut short by a bound.
    scroll_stop: GrowthStop = ""
    more_stop: GrowthStop = ""
    grown: str | None = None  # NSEQL of the "Load more" clicks that grew the page, for its program
    session: SessionState = SessionState()
    settled: bool = True  # False when the load event did not come in time
    headers: dict[str, str] = Field(default_factory=dict)
    forms: int = 0  # how many forms the page has
    submitted: str | None = None  # the submit candidate that worked, for routes that had some
    dismissed: str | None = None  # the `dismiss` step that cleared an overlay (a cookie banner)
    challenge: str | None = None  # the page is a bot check in front of the site: what shows it
    robots: tuple[tuple[str, str], ...] = ()  # <meta> robots directives: (name, content)
    login_form: bool = False  # the page shows a login form (a name and one password field)


class DocumentMeta(_Frozen):
    """What the crawl noted of a document besides its page, typed.

    Stored (and exported, and read back from stores written before it was typed) as one
    JSON object of strings, the shape it always had: ``{"handler": "html", "charset":
    "utf-8", "topic_similarity": "0.4231"}``. Read as that mapping too (``meta["robots"]``,
    ``meta.get("start_session")``), for code written against it.
    """

    handler: str = ""  # the download handler that read the response (content.handlers)
    # What the handler noted: charset, pages, truncated, kept_bytes, error, sha256…
    notes: dict[str, str] = Field(default_factory=dict)
    no_results: bool = False  # a query's page that says it found nothing
    robots: str | None = None  # the robots directives the page gave DeepBot (crawl.directives)
    start_session: str | None = None  # the digest of the session the crawl started in: replay needs it
    # A link policy's measure of the page, rounded to 4 places as it always was stored.
    structure_similarity: float | None = None
    path_to_topic: float | None = None
    topic_similarity: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_stored(cls, value: Any) -> Any:
        # The stored shape is flat: a key that is no field is one of the handler's notes.
        if not isinstance(value, dict):
            return value
        fields = cls.model_fields
        notes = {key: item for key, item in value.items() if key not in fields}
        if not notes:
            return value
        return {**{k: v for k, v in value.items() if k in fields},
                "notes": {**value.get("notes", {}), **notes}}

    @field_validator("structure_similarity", "path_to_topic", "topic_similarity")
    @classmethod
    def _rounded(cls, value: float | None) -> float | None:
        # What a stored "0.4231" reads back as, so a measure compares alike before and after.
        return None if value is None else round(value, 4)

    @model_serializer
    def stored(self) -> dict[str, str]:
        """The flat mapping of strings it is stored and exported as, in the order the crawl
        notes them (the handler's first, then the page's, then the link policies')."""
        out = {"handler": self.handler} if self.handler else {}
        out.update(self.notes)
        if self.no_results:
            out["no_results"] = "true"
        for name in ("robots", "start_session"):
            said = getattr(self, name)
            if said is not None:
                out[name] = said
        for name in ("structure_similarity", "path_to_topic", "topic_similarity"):
            measure = getattr(self, name)
            if measure is not None:
                out[name] = f"{measure:.4f}"
        return out

    def __getitem__(self, key: str) -> str:
        return self.stored()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.stored()

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.stored().get(key, default)

    def noted(self, **values: Any) -> DocumentMeta:
        """A copy with these fields set (validated: a float is rounded as stored)."""
        return DocumentMeta.model_validate({**self.model_dump(), **values})


class Document(_Frozen):
    """What we keep of a visited page."""

    route_key: str
    url: str  # the route's URL
    final_url: str  # where the browser ended up
    title: str = ""
    status: int | None = None
    content_type: str = ""
    text: str = ""
    summary: str = ""
    html: str = ""  # rendered DOM (stores compress it)
    nseql: str  # full program from a fresh browser
    via: Via
    depth: int = 0
    seed: str = ""
    domain: str | None = None
    query: dict[str, str] | None = None
    form_url: str | None = None
    size: int = 0
    fetched_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    meta: DocumentMeta = Field(default_factory=DocumentMeta)

    @property
    def id(self) -> str:
        return doc_id(self.route_key)

    def noted(self, **values: Any) -> Document:
        """A copy whose meta has these fields set (DocumentMeta.noted)."""
        return self.model_copy(update={"meta": self.meta.noted(**values)})


def page_identity(url: str, text: str) -> str:
    """What a page is, for acting on it: its URL plus what it shows.

    Two visits that show the same text at the same URL are the same page, so the
    same click on both is one route; a POST result at the same URL is another page.
    """
    shown = " ".join(text.split())
    return canonical_url(url) + "#" + hashlib.sha1(shown.encode()).hexdigest()[:16]


def query_identity(route: Route) -> str:
    """The query a route is under: its domain, form page and values."""
    values = "\n".join(f"{name}={value}" for name, value in sorted((route.query or {}).items()))
    return f"{route.domain}\n{route.form_url}\n{values}"


def results_identity(route: Route, text: str) -> str:
    """What a page of a query's results shows, wherever it is: the query plus the page's
    text. A later page that shows what an earlier one did (a server that answers
    ``page=N+1`` with its last page again) is the same."""
    asked = hashlib.sha1(query_identity(route).encode()).hexdigest()[:16]
    return f"results:{asked}#" + hashlib.sha1(" ".join(text.split()).encode()).hexdigest()[:16]


def doc_id(route_key: str) -> str:
    """Short stable id of the document a route produces."""
    return hashlib.sha1(route_key.encode()).hexdigest()[:16]


_DEFAULT_PORTS = {"http": 80, "https": 443}


# Session ids that servers write into URLs for clients without cookies (Java servlets,
# PHP, classic ASP, ColdFusion). DeepBot carries the session in its cookies, so they only
# make one page look like many, and go stale in a stored program.
_PATH_SESSION = re.compile(r";jsessionid=[^/?#;]*", re.I)
_QUERY_SESSION = frozenset({"jsessionid", "phpsessid", "cfid", "cftoken"})
_HEX32 = re.compile(r"[0-9a-f]{32}", re.I)


def _is_session_param(name: str, value: str) -> bool:
    name = name.lower()
    return (name in _QUERY_SESSION or name.startswith("aspsessionid")
            or (name == "sid" and _HEX32.fullmatch(value) is not None))  # a bare "sid" may be anything


# Where to go back to: an admin's record link carries the listing it was found on
# (Flask-Admin's ?id=7&url=/admin/book/?page=3, Rails' return_to, Zope's came_from). The
# record is the same from every listing: one page looked like as many as there are.
_RETURN = frozenset({"url", "return", "returnto", "return_to", "returnurl", "return_url", "back", "backurl",
                     "back_url", "came_from", "camefrom", "redirect", "redirect_to", "redirecturl", "next",
                     "continue", "goto"})


def _is_return_param(name: str, value: str) -> bool:
    return name.lower() in _RETURN and value.startswith(("/", "http://", "https://"))


# Parameters that order, size or page a listing, by their usual names (Datasette's _sort
# and _size, Roundup's @sort and @pagesize, Flask-Admin's sort and page_size, Rails'
# order and per_page, offsets and page numbers): the same records in another order or cut.
ORDERING_PARAM = re.compile(r"^[@_]?(?:sort|order|orderby|order_by|sortby|sort_by|sortorder|sort_order"
                            r"|sort_desc|ordering|dir|direction|desc|asc|page_?size|per_?page|size|limit"
                            r"|rows|items_per_page|pagesize)$", re.I)
PAGE_PARAM = re.compile(r"^[@_]?(?:page|p|pg|offset|start|startwith|next)$", re.I)


@lru_cache(maxsize=16_384)  # a site's menus repeat the same links on every page
def canonical_url(url: str) -> str:
    """Lower-case scheme and host, drop default port, fragment and session ids, sort the query.
    A parameter that only says where to go back to (``url=/list?page=3`` beside others) goes too.

    A fragment that is a single-page app's route (``#/books/1``, ``#!/authors``: hash
    routing) is kept: it names a view of its own, which loading the URL shows.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    netloc = host
    if parts.port and parts.port != _DEFAULT_PORTS.get(scheme):
        netloc = f"{host}:{parts.port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_session_param(k, v)]
    if len(pairs) > 1:  # alone (/redirect?url=…), it is what the page is about
        pairs = [(k, v) for k, v in pairs if not _is_return_param(k, v)] or pairs
    path = _PATH_SESSION.sub("", parts.path) if ";" in parts.path else parts.path
    fragment = parts.fragment if parts.fragment.startswith(("/", "!")) else ""
    return urlunsplit((scheme, netloc, path or "/", urlencode(sorted(pairs)), fragment))


def route_key(via: Via, url: str, parent: str | None = None, action: str = "") -> str:
    """Identity of a route.

    A plain link (or seed) is its canonical URL, wherever it was found. A script
    click or a form submission is a hash of the parent route and the action, since
    the same action from another page (or session) can lead elsewhere.
    """
    if via in (Via.SEED, Via.LINK):
        return canonical_url(url)
    digest = hashlib.sha256(f"{parent}\n{action}".encode()).hexdigest()[:24]
    return f"{via.value}:{digest}"
