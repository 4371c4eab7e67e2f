"""``deepbot recrawl``: revisit a store's documents by their own routes, and record what changed.

A recrawl is a thin mode of the crawl (crawl.engine) over the same store:

1. **Choose** (``choose_revisits``): every stored document's history (its visits) gives a
   change-rate estimate, the revisit policy (policy.revisit) plans visits under the budget,
   and the most overdue documents are taken, at most ``budget`` of them. The policies
   plan ``budget`` visits a day: one recrawl a day, as a daily ETL job runs it.
2. **Ask first** (``not_modified``): a document reached by a plain URL whose server sent
   validators (ETag, Last-Modified) is asked for with If-None-Match / If-Modified-Since
   outside the browser; a ``304`` is a visit that found it unchanged, with no rendering.
3. **Revisit** the rest with the crawl itself: their own routes (links, clicks, form
   queries re-run) go into a frontier of this run (``RevisitFrontier``), leased before
   anything else. What their pages lead to that the store has never seen (a new record
   behind a form, a new page) is crawled as the crawl would; what it has seen is not.
4. **Record**: each revisit is a visit in the store (NEW, CHANGED, UNCHANGED by the page
   fingerprint; GONE on a 404/410), and a record that a query's result pages listed
   before and list no more is GONE too (``listing_gone``).
"""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import urljoin, urlsplit

from deepbot.config import CrawlConfig
from deepbot.content import ProcessContext
from deepbot.crawl.engine import Crawler
from deepbot.crawl.politeness import Politeness
from deepbot.frontier import Lease, RouteRecord, RouteState, RouteStore, SqliteRouteStore
from deepbot.routes import Document, Route, SessionState, Via, canonical_url, query_identity
from deepbot.store import Change, DocumentStore, Hit, Version, Visit

GONE_STATUSES = (404, 410)
REVISIT_PRIORITY = 10.0  # above any route a page makes (a query's are 2.0): revisits are leased first
CONFIG_STATE = "crawl config"  # where the crawl keeps its config in the store (crawl.engine)
_DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class Revisit:
    """A stored document chosen for a revisit, and how to revisit it."""

    doc_id: str
    route: Route
    final_url: str
    last_seen: datetime
    etag: str | None = None
    last_modified: str | None = None
    listing: str | None = None  # the query whose result page this is (routes.query_identity)


@dataclass(frozen=True, slots=True)
class RecrawlReport:
    """What a recrawl found: each document's change, by id (with its URL)."""

    chosen: int  # documents chosen for a revisit
    changes: dict[str, Change]
    urls: dict[str, str]  # where each document is (its final URL: a query's results, not its form)
    not_modified: int  # of the unchanged, how many a 304 answered without a browser
    failed: int  # chosen documents whose revisit gave no page (an error, a refusal)
    seconds: float

    def counts(self) -> dict[str, int]:
        out = {change.value: 0 for change in Change}
        for change in self.changes.values():
            out[change.value] += 1
        return out

    def of(self, change: Change) -> list[str]:
        """The URLs of the documents with this change, sorted."""
        return sorted(self.urls[doc] for doc, found in self.changes.items() if found is change)


# -- choosing -----------------------------------------------------------------------------


def _route_of(doc: Document, frontier: RouteStore) -> Route:
    """The route that made ``doc``: the frontier's, or (a route another run's frontier held)
    rebuilt from the document, whose program runs from a fresh browser."""
    record = frontier.get(doc.route_key)
    if record is not None:
        return record.route
    return Route(key=doc.route_key, url=doc.url, via=doc.via, depth=doc.depth, seed=doc.seed, steps=doc.nseql,
                 program=doc.nseql, domain=doc.domain, query=doc.query, form_url=doc.form_url)


def histories(visits: Iterable[Visit]) -> dict[str, list[Visit]]:
    by_doc: dict[str, list[Visit]] = defaultdict(list)
    for visit in visits:
        by_doc[visit.doc_id].append(visit)
    return by_doc


def choose_revisits(documents: DocumentStore, frontier: RouteStore, *, policy: str = "uniform",
                    budget: int | None = None, older_than: timedelta | None = None,
                    now: datetime | None = None) -> list[Revisit]:
    """The documents to revisit, most overdue first under ``policy``, at most ``budget``
    (all by default), each last seen at least ``older_than`` ago. The pages of a query's
    results are revisited together (their listing is compared as one), so a chosen result
    page brings the query's other pages along."""
    from deepbot.policy.revisit import history_of, plan, revisit_order  # numpy: only here

    now = now or datetime.now(UTC)
    docs = list(documents.iter_documents(html=False))
    if not docs:
        return []
    seen = histories(documents.visits())
    hist = [history_of(seen.get(doc.id, [])) for doc in docs]
    last = {doc.id: (seen[doc.id][-1].at if seen.get(doc.id) else doc.fetched_at) for doc in docs}
    rates = plan(hist, float(budget or len(docs)), policy)
    epoch = min(last.values())
    days = {key: (at - epoch).total_seconds() / _DAY for key, at in last.items()}
    order = revisit_order({doc.id: float(rate) for doc, rate in zip(docs, rates, strict=True)}, days,
                          (now - epoch).total_seconds() / _DAY)
    if older_than is not None:
        order = [key for key in order if now - last[key] >= older_than]
    by_id = {doc.id: doc for doc in docs}
    chosen = order[:budget] if budget is not None else order
    revisits = {key: _revisit(by_id[key], frontier, last[key]) for key in chosen}
    listings = {r.listing for r in revisits.values() if r.listing is not None}
    for doc in docs:  # the rest of each chosen query's result pages
        if doc.id not in revisits and doc.via in (Via.FORM, Via.NEXT):
            revisit = _revisit(doc, frontier, last[doc.id])
            if revisit.listing in listings:
                revisits[doc.id] = revisit
    return list(revisits.values())


def _revisit(doc: Document, frontier: RouteStore, last_seen: datetime) -> Revisit:
    route = _route_of(doc, frontier)
    results = route.via in (Via.FORM, Via.NEXT) and route.domain is not None
    listing = query_identity(route) if results else None
    return Revisit(doc.id, route, doc.final_url, last_seen, etag=doc.meta.get("etag"),
                   last_modified=doc.meta.get("last_modified"), listing=listing)


# -- asking the server first ----------------------------------------------------------------


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # a redirect is an answer that is not 304: the browser follows it


def _opener(proxy: str | None) -> urllib.request.OpenerDirector:
    opener = urllib.request.OpenerDirector()  # http(s) only: no file:, ftp:, data:
    proxies = urllib.request.ProxyHandler({"http": proxy, "https": proxy} if proxy else None)
    for handler in (proxies, urllib.request.HTTPHandler(), urllib.request.HTTPSHandler(), _NoRedirects(),
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def conditional_status(opener: urllib.request.OpenerDirector, url: str, user_agent: str,
                       etag: str | None, last_modified: str | None, timeout_s: float = 10.0) -> int | None:
    """The status of a conditional GET of ``url`` (None: no answer); the body is not read.
    A ``200`` that carries the stored ETag (a server that ignores If-None-Match) is a 304."""
    headers = {"User-Agent": user_agent}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=timeout_s) as response:
            same = etag is not None and _strong(response.headers.get("ETag")) == _strong(etag)
            return 304 if response.status == 200 and same else int(response.status)
    except urllib.error.HTTPError as error:  # 304 comes this way, like any status ≥ 300
        with error:
            return int(error.code)
    except (OSError, ValueError):
        return None


def _strong(etag: str | None) -> str | None:
    """An ETag without its weak mark: a weak one names the same content for this purpose."""
    return etag.removeprefix("W/") if etag else etag


def askable(revisit: Revisit) -> bool:
    """A page a plain GET reaches (a seed or a link), whose server gave validators."""
    web = urlsplit(revisit.route.url).scheme in ("http", "https")
    return revisit.route.via in (Via.SEED, Via.LINK) and web and bool(revisit.etag or revisit.last_modified)


async def ask_first(revisits: Sequence[Revisit], config: CrawlConfig) -> dict[str, Change]:
    """What the servers said without a browser, by document id: UNCHANGED for a ``304 Not
    Modified``, GONE for a 404 or 410 (the rest is for the browser to see). A few at a time
    (the crawl's ``workers``), as politely as the crawl (``per_host_concurrency``,
    ``min_delay``; a host that refuses is left to the browser's visits, which back off)."""
    opener = _opener(config.proxy)
    slots = asyncio.Semaphore(config.workers)
    polite = Politeness(per_host=config.per_host_concurrency, min_delay=config.min_delay,
                        give_up_after=config.give_up_after)

    async def ask(revisit: Revisit) -> int | None:
        if polite.refusing(revisit.route.url):
            return None
        async with polite.slot(revisit.route.url) as host, slots:
            status = await asyncio.to_thread(conditional_status, opener, revisit.route.url, config.user_agent,
                                             revisit.etag, revisit.last_modified)
            host.record(status)
        return status

    asked = [r for r in revisits if askable(r)]
    statuses = await asyncio.gather(*(ask(r) for r in asked))
    return {r.doc_id: Change.UNCHANGED if status == 304 else Change.GONE
            for r, status in zip(asked, statuses, strict=True) if status == 304 or status in GONE_STATUSES}


# -- the run ------------------------------------------------------------------------------


class RevisitFrontier:
    """The frontier of one recrawl: the revisits and the new routes their pages lead to, in
    a store of this run; what the crawl's frontier (``main``) knows is not pushed again.
    Sessions, claims of pages, known forms and the link policy's state are the crawl's."""

    def __init__(self, main: RouteStore, revisits: Sequence[Revisit]) -> None:
        self.main = main
        self.run = SqliteRouteStore(":memory:", max_attempts=main.max_attempts)
        self.max_attempts = main.max_attempts
        self.run.push(r.route.model_copy(update={"priority": REVISIT_PRIORITY}) for r in revisits)

    def push(self, routes: Iterable[Route]) -> int:
        return self.run.push(r for r in routes if not self.main.seen(r.key))

    def put_session(self, state: SessionState) -> str:
        return self.main.put_session(state)

    def get_session(self, digest: str) -> SessionState:
        return self.main.get_session(digest)

    def lease(self, n: int, worker: str, ttl_s: float) -> list[Lease]:
        return self.run.lease(n, worker, ttl_s)

    def ack_done(self, lease: Lease) -> RouteState | None:
        return self.run.ack_done(lease)

    def ack_failed(self, lease: Lease, reason: str, *, retry: bool,
                   backoff_s: float = 0.0) -> RouteState | None:
        return self.run.ack_failed(lease, reason, retry=retry, backoff_s=backoff_s)

    def release(self, lease: Lease, delay_s: float = 0.0) -> RouteState | None:
        return self.run.release(lease, delay_s)

    def expire(self) -> int:
        return self.run.expire()

    def reset_leases(self, worker: str | None = None) -> int:
        return self.run.reset_leases(worker)

    def recover(self) -> int:
        return self.run.recover()

    def counts(self) -> dict[RouteState, int]:
        return self.run.counts()

    def failures(self) -> dict[str, int]:
        return self.run.failures()

    def pending(self) -> int:
        return self.run.pending()

    def seen(self, key: str) -> bool:
        return self.run.seen(key) or self.main.seen(key)

    def get(self, key: str) -> RouteRecord | None:
        return self.run.get(key) or self.main.get(key)

    def raise_priority(self, keys: Iterable[str], priority: float) -> int:
        return self.run.raise_priority(keys, priority)

    def claim_page(self, identity: str, key: str) -> bool:
        return self.main.claim_page(identity, key)

    def know_forms(self, identities: Iterable[str]) -> None:
        self.main.know_forms(identities)

    def known_forms(self, identities: Iterable[str]) -> set[str]:
        return self.main.known_forms(identities)

    def put_state(self, name: str, value: str) -> None:
        self.main.put_state(name, value)

    def get_state(self, name: str) -> str | None:
        return self.main.get_state(name)

    def close(self) -> None:
        self.run.close()


class RecordingStore:
    """The crawl's document store, noting what each stored document's visit found: a
    revisited page that answers 404 or 410 is marked GONE, not stored as the page."""

    def __init__(self, inner: DocumentStore, revisited: set[str]) -> None:
        self.inner = inner
        self.revisited = revisited
        self.changes: dict[str, Change] = {}
        self.urls: dict[str, str] = {}

    def upsert(self, doc: Document) -> bool:
        self.urls[doc.id] = doc.final_url
        if doc.status in GONE_STATUSES and doc.id in self.revisited:
            self.inner.mark(doc.id, Change.GONE, doc.fetched_at)
            self.changes[doc.id] = Change.GONE
            return False
        new = self.inner.upsert(doc)
        visits = list(self.inner.visits(doc_id=doc.id))
        self.changes[doc.id] = visits[-1].change if visits else (Change.NEW if new else Change.CHANGED)
        return new

    def mark(self, doc_id: str, change: Change, at: datetime) -> bool:
        return self.inner.mark(doc_id, change, at)

    def visits(self, *, doc_id: str | None = None, since: datetime | None = None) -> Iterator[Visit]:
        return self.inner.visits(doc_id=doc_id, since=since)

    def versions(self, doc_id: str) -> list[Version]:
        return self.inner.versions(doc_id)

    def get(self, doc_id: str) -> Document | None:
        return self.inner.get(doc_id)

    def iter_documents(self, *, html: bool = True) -> Iterator[Document]:
        return self.inner.iter_documents(html=html)

    def count(self) -> int:
        return self.inner.count()

    def counts_by_via(self) -> dict[Via, int]:
        return self.inner.counts_by_via()

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        return self.inner.search(query, limit)

    def close(self) -> None:
        self.inner.close()


@dataclass
class ListingProcessor:
    """Notes the links of each result page the recrawl reads, by the query it answers."""

    name: str = "listing"
    links: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    read: set[str] = field(default_factory=set)  # route keys of the result pages read

    async def process(self, ctx: ProcessContext) -> ProcessContext:
        route = ctx.route
        if route.via in (Via.FORM, Via.NEXT) and route.domain is not None and ctx.snapshot is not None:
            self.links[query_identity(route)].update(canonical_url(link.url) for link in ctx.snapshot.links)
            self.read.add(route.key)
        return ctx


def page_links(html: str, base: str) -> set[str]:
    """The canonical URLs a stored page's anchors link to."""
    from selectolax.lexbor import LexborHTMLParser

    urls = (urljoin(base, href) for node in LexborHTMLParser(html).css("a[href]")
            if (href := node.attributes.get("href")))
    return {canonical_url(url) for url in urls if urlsplit(url).scheme in ("http", "https")}


def listing_gone(documents: DocumentStore, revisits: Sequence[Revisit], listed_before: dict[str, set[str]],
                 listing: ListingProcessor) -> list[str]:
    """The stored records a query's result pages listed before this recrawl and list no
    more: judged only for queries whose every stored result page was read again."""
    pages: dict[str, set[str]] = defaultdict(set)
    for r in revisits:
        if r.listing is not None:
            pages[r.listing].add(r.route.key)
    complete = {q for q, keys in pages.items() if keys <= listing.read}
    dropped = set().union(*(listed_before[q] - listing.links[q] for q in complete)) if complete else set()
    # A record page that still answers is gone all the same when no query lists it any more.
    return [doc.id for doc in documents.iter_documents(html=False)
            if doc.via is Via.LINK and canonical_url(doc.url) in dropped]


async def recrawl(config: CrawlConfig, frontier: RouteStore, documents: DocumentStore, *,
                  policy: str = "uniform", budget: int | None = None, older_than: timedelta | None = None,
                  progress: bool = False, now: datetime | None = None) -> RecrawlReport:
    """Revisit the store's documents (module docstring); the caller owns the stores."""
    began = time.perf_counter()
    now = now or datetime.now(UTC)
    chosen = choose_revisits(documents, frontier, policy=policy, budget=budget, older_than=older_than,
                             now=now)
    answered = await ask_first(chosen, config)
    recording = RecordingStore(documents, {r.doc_id for r in chosen})
    for r in chosen:
        recording.urls[r.doc_id] = r.final_url
    for doc, change in answered.items():
        documents.mark(doc, change, datetime.now(UTC))
        recording.changes[doc] = change
    rest = [r for r in chosen if r.doc_id not in answered]
    listed_before: dict[str, set[str]] = defaultdict(set)
    for r in rest:
        if r.listing is not None and (stored := documents.get(r.doc_id)) is not None:
            listed_before[r.listing] |= page_links(stored.html, stored.final_url)
    listing = ListingProcessor()
    if rest:
        run = RevisitFrontier(frontier, rest)
        try:
            # The seeds the crawl pushes are in the crawl's frontier, so not pushed again (a
            # seed is revisited when chosen, like any page); max_pages counted the first crawl.
            crawl = config.model_copy(update={"max_pages": None})
            async with Crawler(crawl, processors=[listing], progress=progress, frontier=run,
                               documents=recording) as crawler:
                async for _ in crawler.run():
                    pass
        finally:
            run.close()
    for doc in listing_gone(documents, rest, listed_before, listing):
        if documents.mark(doc, Change.GONE, datetime.now(UTC)):
            recording.changes[doc] = Change.GONE
    failed = sum(1 for r in chosen if r.doc_id not in recording.changes)
    return RecrawlReport(chosen=len(chosen), changes=dict(recording.changes), urls=dict(recording.urls),
                         not_modified=sum(c is Change.UNCHANGED for c in answered.values()), failed=failed,
                         seconds=round(time.perf_counter() - began, 2))
