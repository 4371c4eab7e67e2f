"""The crawl engine: lease → visit → process → commit, with N mini-browser workers.

Every route's output (document, child routes) is buffered and committed only once
the route succeeded, in an order that makes a kill at any instant harmless: push
children (deduped), record the forms analysed as known, upsert the document (by route
key), then ack. A route killed
before its ack is leased again after the restart and its writes are idempotent.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from deepbot.browser.egress import EgressProxy, blocks_private
from deepbot.browser.pool import BrowserPool, BrowserSettings
from deepbot.config import CrawlConfig
from deepbot.config.domain import load_domain
from deepbot.content import (
    MainTextProcessor,
    PostProcessChain,
    ProcessContext,
    Processor,
    default_registry,
    relevance_chain,
)
from deepbot.content.fingerprint import FingerprintProcessor
from deepbot.content.links import ObtainLinks
from deepbot.content.scope import Scope
from deepbot.crawl.discovery import EXPLORED, Discovery
from deepbot.crawl.politeness import HostSlot, HostTurns, Politeness, host_key
from deepbot.crawl.robots import RobotsCache, UrllibFetcher
from deepbot.crawl.sessions import CrawlSession, load_session
from deepbot.crawl.stages import Reading, Verdict, Visited, build, choose, classify
from deepbot.crawl.stats import CrawlStats, Progress, Stop
from deepbot.crawl.visit import VisitOptions, visit
from deepbot.errors import CaptchaShown, DeepBotError, ElementUnusable, LoggedOut, Refused
from deepbot.forms.queries import FormQueries
from deepbot.frontier import Lease, RouteState, RouteStore
from deepbot.frontier.open import open_route_store
from deepbot.policy.links import SAVE_EVERY, LinkPolicy
from deepbot.routes import Document, Route, Via, doc_id, route_key
from deepbot.routes.sequences import navigate_step
from deepbot.store import DocumentStore
from deepbot.store.open import open_document_store

if TYPE_CHECKING:
    from deepbot.learn.crawler import PatternProcessor

log = logging.getLogger("deepbot.crawl")

# Errors a retry cannot fix.
_PERMANENT = ("ERR_TOO_MANY_REDIRECTS", "ERR_UNSAFE_REDIRECT", "ERR_INVALID_URL", "ERR_UNKNOWN_URL_SCHEME",
              "ERR_BLOCKED_BY_CLIENT",  # a video or font URL, which the pool blocks
              "response too large")  # browser.bounded: it would be as large again
_HOLD_AT_MOST = 2.0  # seconds a worker may wait for a host before giving the route back
_QUEUED_CACHE = 200_000  # route keys remembered as "already in the frontier" (~25 MB at most)


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What a route's visit leaves to commit."""

    document: Document | None = None
    children: tuple[Route, ...] = ()
    forms: tuple[str, ...] = ()  # identities of the forms the page's analysis read


class Crawler:
    """Runs a crawl described by a CrawlConfig; documents stream out of ``run()``.

    ``async with Crawler(config) as crawler: async for doc in crawler.run(): ...``
    Running it again on the same store resumes where it stopped.
    """

    def __init__(self, config: CrawlConfig, *, processors: Sequence[Processor] = (),
                 progress: bool = False, frontier: RouteStore | None = None,
                 documents: DocumentStore | None = None):
        """``frontier``, ``documents``: the stores to crawl into (their owner closes them);
        by default the SQLite ones at ``config.store``, which the crawler opens and closes."""
        self.pattern: PatternProcessor | None = None
        if config.pattern is not None:  # the generated crawler: its entry and sample are the seeds
            # numpy: only for the generated crawler
            from deepbot.learn.crawler import PatternProcessor, crawl_depth, load_pattern

            found = load_pattern(config.pattern)
            self.pattern = PatternProcessor(found)
            config = config.model_copy(update={"seeds": (found.entry, found.sample),
                                               "depth": crawl_depth(found)})
        self.config = config
        self.stats = CrawlStats()
        self.run_id = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._progress = progress
        self._stack = AsyncExitStack()
        self._wake = asyncio.Event()
        self._stop = False
        self._supervisor: asyncio.Task[None] | None = None  # the workers of a run() in progress
        # Seams for a crawl shared with other processes (cli/worker.py): how long an idle tab
        # waits before asking the frontier again (routes other processes push wake nobody
        # here), and the pages done or in flight over the whole crawl, for max_pages.
        self.idle_wait_s = 0.5
        self.crawl_pages: Callable[[], int] | None = None
        self.scope = Scope.build(config.seeds, config.include, config.exclude,
                                 mode=config.scope if config.same_site else "any",
                                 allow_origins=config.allow_origins)
        self.egress: EgressProxy | None = None  # with --block-private: the proxy the browser goes through
        # Keys pushed to the frontier by this run: Obtain Links skips them without building
        # a route (the frontier would ignore them). Only a cache, so bounded by clearing.
        self._queued: set[str] = set()
        # Priorities a policy raised links to before the page that found them was committed
        # (another worker's page paid for their class-link while this one chose its
        # children): the frontier cannot raise a route it does not hold yet, so they are
        # applied when the route is pushed. Bounded as _queued is.
        self._raised: dict[str, float] = {}
        self.discovery = Discovery(config.explore_after_form if config.domains else None)
        self.policy = LinkPolicy(topic=config.topic, threshold=config.topic_threshold, like=config.like)
        self.links = ObtainLinks(self.scope, config.depth, skipped=self.stats.skipped, known=self._queued,
                                 follow_nofollow=not config.obey_meta_robots,
                                 max_result_pages=config.max_result_pages,
                                 max_calendar_steps=config.max_calendar_steps,
                                 answers=self.discovery.answers)
        domains = [load_domain(path) for path in config.domains]
        self.forms = FormQueries(domains, max_options=config.max_options)
        self._processors = processors
        self.chain: PostProcessChain  # built when the crawl opens (an HMM policy trains then)
        # Routes of hosts that refuse every visit (politeness.refusing): left queued for a
        # later run; the crawl ends when nothing else is left.
        self._parked: set[str] = set()
        # Forms whose submission showed a CAPTCHA's test (_form_of): what it was.
        self._guarded: dict[tuple[str | None, str], str] = {}
        self._given = (frontier, documents)
        self.frontier: RouteStore
        self.documents: DocumentStore
        self.session: CrawlSession  # the crawl's login, made when the crawl opens
        self.pool: BrowserPool
        self.robots = RobotsCache(user_agent=config.user_agent)
        self._options = VisitOptions(
            step_timeout_ms=int(config.step_timeout * 1000),
            settle_timeout_ms=int(config.settle_timeout * 1000),
            fetch_wait_ms=int(config.fetch_wait * 1000),
            reveal_menus=config.reveal_menus, max_scripts=config.max_script_clicks,
            max_scrolls=config.max_scrolls, scroll_time_ms=int(config.scroll_time * 1000),
            route_timeout_ms=int(config.route_timeout * 1000),
            dismiss_overlays=config.dismiss_overlays,
            max_body_bytes=int(config.max_body_mb * 1_000_000),
            max_self_navigations=config.max_self_navigations,
        )
        self._reading = Reading(default_registry(), relevance_chain(query=config.keywords,
                                                                    content_types=config.content_types),
                                self.robots.token, obey_meta_robots=config.obey_meta_robots)
        self.politeness = Politeness(per_host=config.per_host_concurrency, min_delay=config.min_delay,
                                     give_up_after=config.give_up_after, slot_ttl=config.lease_ttl,
                                     crawl_delay=self.robots.crawl_delay if config.obey_robots else None)

    async def __aenter__(self) -> Crawler:
        try:
            return await self._open()
        except BaseException:
            await self._stack.aclose()  # what did open (stores, driver) is closed again
            raise

    async def _open(self) -> Crawler:
        frontier, documents = self._given
        if (frontier is None or documents is None) and isinstance(self.config.store, Path):
            self.config.store.parent.mkdir(parents=True, exist_ok=True)
        if frontier is None:
            frontier = open_route_store(self.config.store, max_attempts=self.config.max_attempts)
            self._stack.callback(frontier.close)
        self.frontier = frontier
        self.politeness.shared = frontier if isinstance(frontier, HostTurns) else None
        if documents is None:
            documents = open_document_store(self.config.store, keep_versions=self.config.keep_versions)
            self._stack.callback(documents.close)
        self.documents = documents
        self.session = CrawlSession(self.frontier)
        self.frontier.recover()  # leases of crashed earlier runs come back now, not at expiry
        self.frontier.put_state("crawl config", self.config.model_dump_json())  # what `recrawl` reruns
        self.forms.known = self.frontier.known_forms  # what earlier pages (and runs) analysed
        if self.config.learn_from is not None:
            self.policy.learn_paths(self.config.learn_from, Path(self.config.store))
        # Main text first (documents are stored with it), then the link policy's ratings,
        # then what feeds the frontier.
        self.chain = PostProcessChain([MainTextProcessor(), FingerprintProcessor(),
                                       *self.policy.processors(self._raise_links),
                                       self.links, self.forms, *([self.pattern] if self.pattern else []),
                                       *self._processors])
        # Resumed: the sample was read by an earlier run, and what it learned saved.
        sample = doc_id(route_key(Via.SEED, self.config.seeds[0]))
        if self.policy.resume(self.frontier, lambda: self.documents.get(sample)):
            # Saved at the end, before the stores close (callbacks run last first); only once
            # restored, so a crawl that fails to open never writes an empty model over it.
            self._stack.callback(self.policy.save, self.frontier)
        if self.config.session is not None:  # a bad file fails here, before a browser starts
            start = self.session.log_in(load_session(self.config.session))
            self.forms.start_session = start
            self._reading = replace(self._reading, start_session=start)
            self.session.resume(record.route.session for seed in self.seed_routes()
                                if (record := self.frontier.get(seed.key)) is not None)
        extra_args: tuple[str, ...] = ()
        if await blocks_private(self.config.block_private, self.config.seeds, self.config.proxy):
            allowed = tuple(found for seed in self.config.seeds if (found := _host_port(seed)) is not None)
            self.egress = await self._stack.enter_async_context(EgressProxy(allowed_origins=allowed))
            extra_args = self.egress.chromium_args()
            self.robots.fetcher = UrllibFetcher(self.config.user_agent, proxy=f"http://127.0.0.1:{self.egress.port}")
        elif self.config.proxy is not None:
            extra_args = (f"--proxy-server={self.config.proxy}",)
            self.robots.fetcher = UrllibFetcher(self.config.user_agent, proxy=self.config.proxy)
        proxy = f"http://127.0.0.1:{self.egress.port}" if self.egress is not None else self.config.proxy
        self._options = self._options.model_copy(update={"proxy": proxy})  # for the crawl's own downloads
        settings = BrowserSettings(
            extra_args=extra_args, headless=self.config.headless, block_images=self.config.block_images,
            block_media=self.config.block_media, user_agent=self.config.user_agent,
            recycle_after=self.config.recycle_after,
            navigation_timeout_ms=int(self.config.step_timeout * 1000),
            shared_session=self.config.shared_session, renderer_processes=self.config.renderer_processes,
        )
        # A shared session starts logged in, localStorage too: a route brings only its cookies.
        pool = BrowserPool(self.config.workers, settings, session=self.session.login)
        self.pool = await self._stack.enter_async_context(pool)
        return self

    async def __aexit__(self, *exc: object) -> None:
        # A run() left by `break` is finalised only when collected, maybe after this:
        # stop its workers before the browser and the stores they use are closed.
        await self._halt()
        await self._stack.aclose()

    async def drain(self) -> None:
        """Take no new route; return when the routes in flight are finished and committed."""
        self._stop = True  # the workers' loop condition: each ends after its route in flight
        supervisor = self._supervisor
        if supervisor is not None:
            with suppress(asyncio.CancelledError):
                await supervisor

    async def _halt(self) -> None:
        self._stop = True
        supervisor = self._supervisor
        if supervisor is not None and not supervisor.done():
            supervisor.cancel()
            with suppress(asyncio.CancelledError):
                await supervisor

    def seed_routes(self) -> list[Route]:
        routes = []
        for seed in self.config.seeds:
            steps = navigate_step(seed)
            key = route_key(Via.SEED, seed)
            if self.pattern is not None:  # a rerun of the generated crawler reads its seeds again
                key = self.pattern.key(key)
            routes.append(Route(key=key, url=seed, via=Via.SEED, depth=0,
                                seed=seed, steps=steps, program=steps, session=self.session.start))
        return routes

    async def run(self) -> AsyncGenerator[Document, None]:
        """Crawl until the frontier is exhausted (or max_pages), yielding stored documents."""
        out: asyncio.Queue[Document | None] = asyncio.Queue(maxsize=max(64, self.config.workers * 4))
        if self.pattern is not None:
            self.pattern.begin(self.frontier)
        self.frontier.push(self.seed_routes())
        self._done_before = self.frontier.counts()[RouteState.DONE]
        workers: list[asyncio.Task[None]] = []

        async def supervise() -> None:
            try:
                async with asyncio.TaskGroup() as group:
                    for n in range(self.config.workers):
                        workers.append(group.create_task(self._worker(n, out)))
            finally:
                if not self._stop:  # when stopped, nobody reads on, and the queue may be full
                    await out.put(None)

        progress = Progress(self.stats, lambda: self.frontier.pending(), enabled=self._progress)
        async with progress:
            supervisor = self._supervisor = asyncio.create_task(supervise())
            try:
                while (doc := await out.get()) is not None:
                    yield doc
                await supervisor
            finally:
                await self._halt()

    def _budget_left(self) -> bool:
        if self.config.max_pages is None:
            return True
        used = (self.crawl_pages() if self.crawl_pages is not None
                else self._done_before + self.stats.fetched + self.stats.in_flight)
        if used < self.config.max_pages:
            return True
        self.stats.stop = Stop.MAX_PAGES  # said at the end: the budget counts earlier runs' pages too
        return False

    async def _worker(self, n: int, out: asyncio.Queue[Document | None]) -> None:
        worker = f"{self.run_id}/{n}"
        while not self._stop and self._budget_left():
            leases = self.frontier.lease(1, worker, self.config.lease_ttl)
            if leases and self.policy.unpromising(leases[0].route):
                self.frontier.release(leases[0])  # nor anything after it: the best is leased first
                leases = []
                if self.stats.in_flight == 0:  # and nothing running may still find better
                    self.stats.unpromising = self.frontier.pending() - len(self._parked)
                    self._wake.set()
                    return
            if not leases:
                if self.stats.in_flight == 0 and self.frontier.pending() <= len(self._parked):
                    self._wake.set()  # let the others see the end too
                    return
                self._wake.clear()
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.idle_wait_s)
                continue
            self.stats.in_flight += 1
            try:
                document = await self._process(leases[0])
            finally:
                self.stats.in_flight -= 1
                self._wake.set()
            if document is not None:
                await out.put(document)

    async def _process(self, lease: Lease) -> Document | None:
        route = lease.route
        if self.config.obey_robots and route.via in (Via.SEED, Via.LINK):
            decision = await self.robots.allowed(route.url)
            if not decision.allowed:
                self.frontier.ack_failed(lease, f"robots: {decision}", retry=False)
                self.stats.failed += 1  # the route failed for good: the summary counts it
                self.stats.failures["robots"] += 1
                return None
        if self.politeness.refusing(route.url) or self.session.ended(route.url):
            self._park(lease)
            return None
        if self.discovery.spent(route):
            self.frontier.ack_done(lease)  # dropped: its host's forms are found (crawl.discovery)
            self.stats.skipped[EXPLORED] += 1
            return None
        guarded = self._guarded.get(_form_of(route)) if route.via is Via.FORM else None
        if guarded is not None:  # its form showed a CAPTCHA to another query: this one would meet it too
            self._fail(lease, CaptchaShown(guarded))
            return None
        wait = self.politeness.wait_time(route.url)
        if wait > _HOLD_AT_MOST:
            # The host asked for a pause (Crawl-delay, Retry-After): give the route back
            # rather than hold a worker idle; it is leased again when the host is ready.
            self.frontier.release(lease, delay_s=wait)
            return None
        try:
            async with self.politeness.slot(route.url) as host:
                # The time bound covers the visit, not the polite wait before it.
                outcome = await asyncio.wait_for(self._visit(route, host, retry=lease.attempt > 1),
                                                 self.config.route_timeout)
        except (DeepBotError, TimeoutError) as exc:
            self._fail(lease, exc)
            return None
        except Exception as exc:  # a bug in one page's processing must not end the crawl
            log.exception("unexpected error on %s", route.url)
            self._fail(lease, exc)
            return None
        return self._commit(lease, outcome)

    async def _visit(self, route: Route, host: HostSlot, *, retry: bool = False) -> _Outcome:
        """The route's stages (crawl.stages), in a pool slot: visit, classify, build the
        document, run the processors, choose the children."""
        session = self.session.restore(route)
        # A query's results and what they lead to: in a context of their own even when the
        # workers share one session (a server may keep the last search in its session).
        # So is a retry: the route may have failed for a page whose script never ends, which
        # in a shared renderer holds up every page there (pool.py).
        async with self.pool.slot(private=route.domain is not None or retry) as slot:
            visited = Visited(route, session, await visit(route, session, slot, self._options,
                                                          pace=self.politeness.turn))
            snapshot = visited.snapshot
            # A bot check in front of the site is a refusal, like a 429: the host is paused,
            # the route retried later, and the check never stored as the page.
            host.record(snapshot.status, snapshot.headers.get("retry-after"),
                        refused=snapshot.challenge is not None)
            self.stats.note_page(dismissed=snapshot.dismissed is not None, revealed=snapshot.revealed,
                                 scrolled=snapshot.scrolled, more=snapshot.more,
                                 scroll_stop=snapshot.scroll_stop, more_stop=snapshot.more_stop)
            if route.via is Via.SEED:  # where a seed lands (http -> https://www.) is in scope
                self.scope.admit(snapshot.url)
            classified = classify(visited, logged_out=self.session.logged_out, claim=self.frontier.claim_page,
                                  in_scope=self.scope.decide)
            verdict, route = classified.verdict, classified.route
            if verdict is Verdict.BOT_CHECK:
                self.stats.page_work["bot checks met"] += 1
                log.info("a bot check answered %s (%s): the host pauses", snapshot.url, snapshot.challenge)
                raise Refused(classified.reason, host.backoff_seconds())
            if verdict is Verdict.REFUSED:
                raise Refused(classified.reason, host.backoff_seconds())
            if verdict is Verdict.LOGGED_OUT:
                raise LoggedOut(classified.reason)
            if verdict is not Verdict.PAGE:
                self.stats.fetched += 1
                self.stats.outcomes[verdict.value] += 1
                return _Outcome()
            digest = self.session.keep(snapshot.session)
            built = build(route, snapshot, self._reading)
            if built.no_results:
                self.stats.outcomes["no results"] += 1
            ctx = ProcessContext(route, built.fetched, built.content, built.document, built.relevance,
                                 page=slot.page, snapshot=snapshot, session=digest)
            # Processors that need the live page (forms) run while the slot is held.
            ctx = await self.chain.run(ctx)
        self.stats.fetched += 1
        self.stats.outcomes[ctx.relevance.reason] += 1
        if self.policy.on_topic(ctx.document):
            self.stats.on_topic += 1
        chosen = await choose(ctx.routes, built.directives, obey_meta_robots=self.config.obey_meta_robots,
                              allowed=self._robots_ok if self.config.obey_robots else None)
        if chosen.nofollow:
            self.stats.skipped["nofollow page"] += chosen.nofollow
        if chosen.disallowed:
            self.stats.skipped["robots"] += chosen.disallowed
        return _Outcome(document=ctx.document if ctx.relevance.keep else None, children=chosen.children,
                        forms=tuple(ctx.forms))

    async def _robots_ok(self, route: Route) -> bool:
        return bool((await self.robots.allowed(route.url)).allowed)

    def _commit(self, lease: Lease, outcome: _Outcome) -> Document | None:
        self.discovery.visited(lease.route, outcome.children)
        if outcome.children:
            children = [self._with_raise(child) for child in outcome.children]
            added = self.frontier.push(children)
            if added:
                self._wake.set()
            if len(self._queued) > _QUEUED_CACHE:
                self._queued.clear()
            self._queued.update(child.key for child in children)
        if outcome.forms:
            # After their queries are pushed: a kill between the two leaves the forms unknown,
            # so the route, leased again, analyses them again (their routes are deduped).
            self.frontier.know_forms(outcome.forms)
        if outcome.document is not None:
            self.documents.upsert(outcome.document)
            self.stats.stored += 1
        self.frontier.ack_done(lease)
        self.policy.save(self.frontier, every=SAVE_EVERY)
        return outcome.document

    def _raise_links(self, urls: list[str], priority: float) -> None:
        keys = [route_key(Via.LINK, url) for url in urls]
        self.frontier.raise_priority(keys, priority)
        if len(self._raised) > _QUEUED_CACHE:
            self._raised.clear()
        for key in keys:
            if key not in self._queued:  # not pushed yet, or long ago (then a no-op at push)
                self._raised[key] = max(priority, self._raised.get(key, 0.0))

    def _with_raise(self, child: Route) -> Route:
        raised = self._raised.pop(child.key, None)
        if raised is None or raised <= child.priority:
            return child
        return child.model_copy(update={"priority": raised})

    def _park(self, lease: Lease) -> None:
        """Leave the route of a host that refuses us, or logged us out, queued and untried
        for a later run."""
        self.frontier.release(lease, delay_s=max(1.0, self.politeness.wait_time(lease.route.url)))
        if lease.route.key not in self._parked:
            self._parked.add(lease.route.key)
            host = host_key(lease.route.url)
            if self.session.ended(lease.route.url):
                self.stats.logged_out[host] += 1
                if self.stats.logged_out[host] == 1:
                    log.warning("%s logged the crawl out (%s showed the login form): no more visits to it "
                                "in this run; its routes stay queued (log in again and rerun with the new "
                                "--session)", host, lease.route.url)
                return
            self.stats.parked[host] += 1
            if self.stats.parked[host] == 1:
                log.warning("%s refused %d visits in a row: no more visits to it in this run; its routes "
                            "stay queued (run the same command later to resume)",
                            host, self.politeness.give_up_after)

    def _fail(self, lease: Lease, exc: BaseException) -> None:
        """Requeue the route with backoff, or record it failed once retries are used up."""
        if isinstance(exc, Refused) and self.politeness.refusing(lease.route.url):
            self._park(lease)  # the refusal that made the host give up is not the route's fault
            return None
        if isinstance(exc, LoggedOut):  # nor is the end of the session: it waits for a new one
            self.session.end(lease.route.url)
            self._park(lease)
            return None
        reason = _reason(exc)
        retry = not any(marker in str(exc) for marker in _PERMANENT)
        if isinstance(exc, ElementUnusable):
            retry = False  # the same steps find it hidden or covered again
        if isinstance(exc, CaptchaShown):
            retry = False  # the test would be shown again: DeepBot does not answer them
            if _form_of(lease.route) not in self._guarded:
                self._guarded[_form_of(lease.route)] = str(exc)
                log.warning("the form on %s showed a CAPTCHA's test when submitted: its queries are not sent",
                            lease.route.form_url or lease.route.url)
        backoff = exc.seconds if isinstance(exc, Refused) else 2.0 ** lease.attempt
        state = self.frontier.ack_failed(lease, reason, retry=retry, backoff_s=backoff)
        if state is RouteState.FAILED:
            self.stats.failed += 1
            self.stats.failures[reason] += 1
            log.warning("failed %s: %s", lease.route.url, reason)
        else:
            self.stats.retried += 1
        return None


def _form_of(route: Route) -> tuple[str | None, str]:
    """Which form a query route submits: its page, and the way of submitting tried last
    (a form's own ``submit``, the same for all its queries, where it has one)."""
    return route.acts_on, route.submit[-1] if route.submit else ""




def _reason(exc: BaseException) -> str:
    """A short, countable reason: the error kind plus the first line of its message."""
    if isinstance(exc, TimeoutError):
        return "timeout: route exceeded its time bound"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    for marker in ("net::ERR_", "Timeout"):
        if marker in text:
            start = text.index(marker)
            text = text[start:].split(" ")[0].rstrip(";,:")
            break
    return f"{type(exc).__name__}: {text}"[:200]


def _host_port(url: str) -> tuple[str, int] | None:
    """A seed's (host, port), the origin the egress proxy lets through whatever its address."""
    from deepbot.content.scope import origin

    found = origin(url)
    if found is None:
        return None
    host, port = found.split("://", 1)[1].rsplit(":", 1)
    return host.strip("[]"), int(port)
