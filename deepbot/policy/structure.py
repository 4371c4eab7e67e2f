"""Structure-driven crawling by example (INDESIT): from one sample page, the pages of a site
built from the same template.

Blanco, Crescenzi and Merialdo, "Efficiently locating collections of web pages to
wrap" (§2–3). A page is modelled by its links: a *link collection* is one
root-to-anchor tag path (its *tag-list*, ``html/body/table/tr/td/a``) with the links that
share it, and the *page schema* is the set of its tag-lists. Two pages are alike when
the Jaccard coefficient of their schemas is at least T (0.85, the paper's). Pages with
one schema form a *cluster*; a cluster's tag-list is a *class-link*, and the links of
one collection are *homologous*: they tend to lead to pages of one kind.

INDESIT explores a site by recursion over neighbouring clusters. Here it is a frontier
priority policy in the one engine, learning as the crawl goes, as the paper's site model
does:

- a collection that holds a link to a page already known to be a target (the sample,
  or one found since) is followed first: its other links are homologous, likely targets
  too (the paper's back class-links, the pages that serve as indices over the targets);
- every other link is rated by what its class-link has given so far: the share of the
  pages it led to that were targets, or indices (pages linking back to targets);
- a class-link never tried is probed, as INDESIT checks the homologous-link conjecture:
  PROBES of its links in all (on whichever pages of its cluster) get an even chance, the
  rest wait at the bottom of the frontier; each page it leads to that is a target or an
  index allows PROBES more, and so many of the links that wait are raised to its value
  (``RouteStore.raise_priority``): a collection of news stories or ads costs PROBES
  downloads, not all of them, and tag pages that stopped listing anything new stop
  costing downloads too (the frontier cannot lower a route, so a link is queued low
  until its class-link's yield so far allows it);
- a page is an index when a collection of its links holds targets and links no page read
  before gave (a tag's page of quotes whose authors the front listing gave is none);
  and when a target is found on it, and the page that led to it a hub, whatever they
  seemed when read (``found_under``): a year's programme lists sessions, and sessions
  list papers; their class-links are credited then, and their links raised;
- a listing's next page is followed once the listing shows a target, and while its pages
  bring new links (at least half of them, by Laplace's estimate: one page that repeats
  what other listings gave first does not stop it); a pager's link back to an earlier
  page waits (its first page's other address would be fetched twice), and so does a link
  to a listing's first page met before at its other address (``/tag/love/`` and
  ``/tag/love/page/1/``); a pager's next page costs no depth, as in ``deepbot learn``'s
  mapping (a listing is walked to its end, bounded by ``max_calendar_steps``);
- a target page is stored; any other page is only a way to them. A page whose links are
  few says little by its link collections (an author's page with a header and a footer
  is as like a login page as another author's): a page is a target only if its tag tree
  is like the sample's too (RTDM, ``deepbot.learn.rtdm``, at the threshold ``deepbot
  learn`` uses), so precision holds where the schemas cannot tell;
- the crawl ends, as INDESIT does once every score is zero, when the best route left is
  below STOP_BELOW: what is left promises nothing (its routes stay queued).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from deepbot.content.filters import Decision
from deepbot.content.postprocess import ProcessContext
from deepbot.learn.patterns import backward
from deepbot.routes import PAGE_PARAM, canonical_url

if TYPE_CHECKING:
    from deepbot.learn.rtdm import Classes, PageTree

SIMILAR = 0.85  # the paper's T
STRUCTURE_MISMATCH = "structure-mismatch"
HOMOLOGOUS = 0.95  # priority of a link whose collection holds a known target
PROBES = 3  # links of an untried class-link's collection followed first (the paper's n)
WAITING = 0.01  # the others' priority until a probe tells
# How far up from a target page the credit of having led to it goes: the page that lists
# it (an index) and the page that led to that index (a hub: a year's programme over its
# sessions, a genre over its pages of artists).
LINEAGE = 2
# A structure crawl ends when the best route left is below this: links whose probes never
# paid, and class-links that led nowhere nine times or more.
STOP_BELOW = 0.05


def link_collections(html: str, page_url: str) -> dict[str, tuple[str, ...]]:
    """The page's link collections: tag-list → the canonical http(s) URLs sharing it."""
    tree = LexborHTMLParser(html)
    out: dict[str, list[str]] = {}
    for anchor in tree.css("a[href]"):
        href = (anchor.attributes.get("href") or "").strip()
        url = urljoin(page_url, href)
        if urlsplit(url).scheme not in ("http", "https"):
            continue
        path = []
        node: LexborNode | None = anchor
        while node is not None and node.tag and node.tag[0] not in "-#":
            path.append(node.tag)
            node = node.parent
        out.setdefault("/".join(reversed(path)), []).append(canonical_url(url))
    return {tags: tuple(dict.fromkeys(urls)) for tags, urls in out.items()}


# What names a page of a listing by its number and nothing else (``?p=1`` may be a post).
_PAGE_NAME = re.compile(r"^[@_]?(?:page|paged|pg)$", re.I)


def first_page(url: str) -> str | None:
    """The address a listing's first page has without its number, when ``url`` names page 1
    by a path step or a query parameter called page (``/tag/love/page/1/``,
    ``/genre/jazz/?page=1``): the other address of one page. None otherwise."""
    parts = urlsplit(url)
    steps = parts.path.rstrip("/").split("/")
    if len(steps) > 2 and steps[-1] == "1" and _PAGE_NAME.match(steps[-2]):
        return urlunsplit(parts._replace(path="/".join(steps[:-2]) + "/"))
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(name, value) for name, value in pairs if not (value == "1" and _PAGE_NAME.match(name))]
    if len(kept) < len(pairs):
        return canonical_url(urlunsplit(parts._replace(query=urlencode(kept))))
    return None


def forward(page: str, link: str) -> bool:
    """Whether ``link`` is ``page``'s next page in a pager: its address with one number made
    larger, or with one more query parameter whose value is a number, or one more path step
    of a page parameter's name and a number (a listing's first page has no ``?page=1``,
    ``?_next=0``, ``/page/1/``: ``/quotes/`` → ``/quotes/page/2/``)."""
    if backward(link, page):
        return True
    here, there = urlsplit(page), urlsplit(link)
    if here.netloc != there.netloc:
        return False
    if here.path != there.path:
        head = here.path.rstrip("/") + "/"
        rest = there.path.removeprefix(head).strip("/").split("/")
        return (here.query == there.query and there.path.startswith(head) and len(rest) == 2
                and PAGE_PARAM.match(rest[0]) is not None and rest[1].isdigit())
    before, after = set(parse_qsl(here.query)), set(parse_qsl(there.query))
    added = after - before
    return before < after and len(added) == 1 and next(iter(added))[1].isdigit()


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 1.0


@dataclass
class _ClassLink:
    tried: int = 0  # pages reached through it
    targets: int = 0
    indices: int = 0  # non-target pages that link to a target

    def value(self) -> float:
        # Laplace's estimate: an untried class-link is worth half. An index counts as a target
        # does: it lists new ones, so a class-link of indices that keep paying (a tournament's
        # team pages, each a squad) goes before a class-link never tried.
        return (self.targets + self.indices + 0.5) / (self.tried + 1)

    def worth(self) -> float:
        """What its links are queued at: its value once a page it led to paid, else a probe's."""
        return self.value() if self.targets or self.indices else _ClassLink().value()


@dataclass
class LinkRates:
    """A page's links as the site model rates them."""

    rates: dict[str, float]  # canonical URL → priority
    origins: dict[str, str]  # canonical URL → the class-link it is found by (Route.hint)
    homologous: list[str]  # links of collections that hold a known target: raised if queued lower

    def priority(self, url: str, _text: str = "") -> float:
        return round(self.rates.get(canonical_url(url), 0.0), 6)

    def origin(self, url: str) -> str | None:
        return self.origins.get(canonical_url(url))


class StructureModel:
    """The site model of one structure-driven crawl: the sample's schema, what each
    class-link has led to, and which pages are targets.

    A class-link is named ``"<cluster> <tag-list>"``; each link's route carries the name of
    the one it was found by (Route.hint), and the model's counts, targets and waiting
    links are kept in the frontier (state(), restore()), so a resumed crawl learns on."""

    def __init__(self, sample: str, threshold: float = SIMILAR) -> None:
        self.sample = canonical_url(sample)
        self.threshold = threshold
        self.schema: frozenset[str] | None = None  # the sample's, once it has been read
        self._tree: PageTree | None = None  # the sample's tag tree (RTDM), once it has been read
        self._classes: Classes | None = None
        self.targets: set[str] = {self.sample}
        self._links: dict[str, _ClassLink] = {}
        # class-link → its links that wait, in the order met (a dict as an ordered set)
        self._waiting: dict[str, dict[str, None]] = {}
        # class-link → its links rated to be fetched so far: its probes, then those its yield allows
        self._probes: dict[str, int] = {}
        self._rated: dict[str, float] = {}  # link → the worth it was queued at by its class-link's
        self._counted: set[tuple[str, str]] = set()  # (class-link, link) counted among its _probes
        self._held: set[str] = set()  # links that wait
        # Route key of each page read → (the class-link that led to it, its parent's route key):
        # the way up from a target to the pages that led to it.
        self._pages: dict[str, tuple[str | None, str | None]] = {}
        self._credited: set[str] = set()  # route keys of pages counted as ways to targets
        self._pagers: dict[str, list[str]] = {}  # route key → its page's next pages, while it lists no target
        # The links of the pages read so far: a listing whose targets' collection holds none
        # but these brings nothing new (not kept by state(): a resumed crawl takes them as new).
        self._seen: set[str] = set()
        self._firsts: set[str] = set()  # first_page() of the links met that name a page 1
        # A listing's next page → (the listing's pages read so far, how many brought new links)
        self._listings: dict[str, tuple[int, int]] = {}

    def learn_sample(self, html: str) -> None:
        from deepbot.learn.rtdm import Classes, tree_of  # numpy: only for a structure crawl

        self.schema = frozenset(link_collections(html, self.sample))
        self._classes = Classes()
        self._tree = tree_of(html, self._classes)

    def built_alike(self, html: str | None) -> bool:
        """Whether a page's tag tree is like the sample's (RTDM); True while either is unknown."""
        if self._tree is None or self._classes is None or not html:
            return True
        from deepbot.learn.mapping import THRESHOLD  # deepbot learn's, at which a page is a target
        from deepbot.learn.rtdm import similarity, tree_of

        return similarity(self._tree, tree_of(html, self._classes)) >= THRESHOLD

    def similarity(self, collections: dict[str, tuple[str, ...]]) -> float:
        return jaccard(frozenset(collections), self.schema) if self.schema is not None else 0.0

    def observe(self, url: str, collections: dict[str, tuple[str, ...]],
                origin: str | None = None, html: str | None = None, *,
                key: str | None = None, parent: str | None = None) -> tuple[bool, list[str], float]:
        """A page was read: whether it is a target (its schema like the sample's and, given
        its ``html``, its tag tree too); ``origin``, the class-link that led to it, learns.
        Also the links that waited for that class-link's probes, when they showed it worth
        following, with the priority to raise them to. ``key`` and ``parent``, its route's
        and the route's parent's keys, keep the way to it for found_under()."""
        url = canonical_url(url)
        if key is not None:
            self._pages[key] = (origin, parent)
        target = url == self.sample or (self.similarity(collections) >= self.threshold
                                        and self.built_alike(html))
        if target:
            self.targets.add(url)
        if origin is None:
            return target, [], 0.0
        link = self._links.setdefault(origin, _ClassLink())
        link.tried += 1
        if target:
            link.targets += 1
        elif self._lists_new(collections):
            # An index: a collection of its links holds targets, and links new to the crawl
            # beside them. A page that lists only targets found already (a table's hundredth
            # sort order or facet), or links other pages listed before (a tag's page of
            # quotes whose authors the front listing gave), leads to nothing new: it does not
            # keep its class-link worth following.
            link.indices += 1
            if key is not None:
                self._credited.add(key)
        return target, self._release(origin), link.value()

    def _allowed(self, key: str) -> int:
        """How many links of a class-link may be fetched by its worth so far: PROBES, and
        PROBES more for each page it led to that was a target or a way to targets (its yield).
        A class-link whose pages stopped leading anywhere new (tag pages whose quotes' authors
        the listing gave) has its other links wait, as an untried one's wait for its probes."""
        link = self._links.get(key)
        return PROBES * (1 + (link.targets + link.indices if link is not None else 0))

    def _issue(self, key: str, url: str, rate: float) -> bool:
        """Count ``url`` as fetched by its class-link's worth, if its yield allows one more."""
        if self._probes.get(key, 0) >= self._allowed(key):
            return False
        self._count(key, url)
        self._rated[url] = rate
        return True

    def _count(self, key: str, url: str) -> None:
        """One more link of a class-link fetched or queued: each link once per class-link."""
        if (key, url) not in self._counted:
            self._counted.add((key, url))
            self._probes[key] = self._probes.get(key, 0) + 1

    def _wait(self, key: str, url: str) -> None:
        self._waiting.setdefault(key, {})[url] = None
        self._held.add(url)

    def _release(self, key: str | None) -> list[str]:
        """The links of a class-link that waited and that its yield now allows, first met first."""
        link = self._links.get(key) if key is not None else None
        waiting = self._waiting.get(key) if key is not None else None
        if key is None or link is None or not waiting or not (link.targets or link.indices):
            return []
        worth = link.value()
        if worth < STOP_BELOW:
            return []
        out = []
        for url in list(waiting):
            if not self._issue(key, url, worth):
                break
            del waiting[url]
            self._held.discard(url)
            out.append(url)
        if not waiting:
            del self._waiting[key]
        return out

    def _lists_new(self, collections: dict[str, tuple[str, ...]]) -> bool:
        """Whether a collection of the page's links holds targets and links beside them that
        are neither known targets nor met on a page read before (the links' yield)."""
        return any(u not in self.targets and u not in self._seen for urls in collections.values()
                   if any(v in self.targets for v in urls) for u in urls)

    def found_under(self, parent: str | None) -> list[tuple[list[str], float]]:
        """A target was found on the page of route ``parent``: that page is an index, and the
        page that led to it a hub, whatever they seemed when they were read (a session's
        page lists papers not yet known to be targets; a year's page lists only sessions).
        The class-links that led to them are credited up to LINEAGE levels, each page once,
        so the links that waited for those class-links' probes are raised: what they are
        raised to, by class-link. A class-link whose pages lead to targets two links away
        is worth following as one whose pages list them."""
        out: list[tuple[list[str], float]] = []
        pagers = self._pagers.pop(parent, []) if parent is not None else []
        if pagers:  # the index's list goes on on its next page
            out.append((pagers, HOMOLOGOUS))
        key = parent
        for _ in range(LINEAGE):
            if key is None or key not in self._pages:
                break
            origin, up = self._pages[key]
            if key not in self._credited:
                self._credited.add(key)
                if origin is not None:
                    link = self._links.setdefault(origin, _ClassLink())
                    link.indices += 1
                    waiting = self._release(origin)
                    if waiting:
                        out.append((waiting, link.value()))
            key = up
        return out

    def rate(self, collections: dict[str, tuple[str, ...]], page: str | None = None,
             route: str | None = None) -> LinkRates:
        """The priority of each link of a page just observed (by URL; its text is not used).
        A link from ``page`` back to a page before it in its pager waits at the bottom: a
        pager walked forward meets every page, and its first page's other address
        (``?page=1`` beside the bare one) would be fetched twice. Its link to its next page
        goes on with its list: followed at once if the page lists a known target, else once
        a target is found under the page (``route``, its route's key: found_under())."""
        cluster = hashlib.sha1("\n".join(sorted(collections)).encode()).hexdigest()[:12]
        out = LinkRates({}, {}, [])
        lists_target = any(u in self.targets for urls in collections.values() for u in urls)
        lists_new = self._lists_new(collections)
        # The listing this page is a page of: pages walked, and how many brought new links.
        walked, gave = self._listings.get(canonical_url(page), (0, 0)) if page is not None else (0, 0)
        # (A page that shows no known target yet is not counted against it: its yield is unknown.)
        walked, gave = walked + 1, gave + (lists_new or not lists_target)
        # One page that brings nothing new does not stop a listing that mostly did: which
        # listing gives an author first depends on the order pages come back in (a tag's
        # page read while the front listing's was slow), and a front listing may repeat
        # the authors of its earlier pages on one page by chance. Laplace's estimate of
        # its pages' yield, at least even.
        productive = (gave + 1) / (walked + 2) >= 0.5
        for tags, urls in collections.items():
            key = f"{cluster} {tags}"
            known = self._links.get(key)
            worth = known.worth() if known is not None else _ClassLink().value()
            holds_target = any(u in self.targets for u in urls)
            for url in urls:
                ahead = page is not None and forward(page, url)
                if ahead:
                    self._listings[url] = (walked, gave)
                if (page is not None and backward(page, url)) or (ahead and lists_target and not productive):
                    rate = WAITING  # a pager's way back; or on, from a listing whose pages bring nothing new
                elif self._other_address(url, out.rates):
                    rate = WAITING  # a listing's first page met at its other address (…/page/1/)
                elif holds_target or (ahead and lists_target):
                    rate = HOMOLOGOUS
                    out.homologous.append(url)
                elif url in self._rated:
                    # Met on a page before, and queued at that. It is one of this class-link's
                    # links fetched too, though what it leads to is credited to the first.
                    rate = self._rated[url]
                    self._count(key, url)
                elif url in self._held:
                    rate = WAITING  # met before, and waits for its class-link's worth to show
                elif worth < STOP_BELOW:
                    rate = worth  # raised if a page reached through it turns out a way to targets
                    self._wait(key, url)
                elif not self._issue(key, url, worth):
                    # PROBES links of an untried class-link in all, not on each page: the
                    # pages of one cluster read before any probe came back give no more
                    # probes. Until a probe shows the class-link leads somewhere, the others
                    # wait: queued at a probe's failure's worth, they would be fetched after
                    # it was refuted. Then PROBES more for each page it led to that paid.
                    rate = WAITING
                    self._wait(key, url)
                else:
                    rate = self._rated[url]
                if route is not None and not lists_target and ahead:
                    self._pagers.setdefault(route, []).append(url)
                out.rates[url] = max(rate, out.rates.get(url, 0.0))
                out.origins.setdefault(url, key)
        self._seen.update(out.rates)
        return out

    def _other_address(self, url: str, here: dict[str, float]) -> bool:
        """Whether ``url`` is the other address of a listing's first page met before, on this
        page (``here``) or another: ``/tag/love/`` and ``/tag/love/page/1/`` are one page."""
        if url in self._seen or url in here:
            return False
        base = first_page(url)
        if base is not None:
            self._firsts.add(base)
            return base in self._seen or base in here
        return url in self._firsts

    def state(self) -> str:
        """What the model has learned, as JSON (the sample's schema is read from the store)."""
        return json.dumps({
            "sample": self.sample,
            "targets": sorted(self.targets),
            "links": {key: [c.tried, c.targets, c.indices] for key, c in self._links.items()},
            "waiting": {key: list(urls) for key, urls in self._waiting.items()},
            "pages": {key: list(way) for key, way in self._pages.items()},
            "credited": sorted(self._credited),
            "probes": self._probes,
            "pagers": self._pagers,
            "listings": self._listings,
        })

    def restore(self, state: str) -> bool:
        """Go on from what state() kept, if it was this sample's; whether it was."""
        data = json.loads(state)
        if data.get("sample") != self.sample:
            return False
        self.targets.update(data["targets"])
        self._links = {key: _ClassLink(*counts) for key, counts in data["links"].items()}
        self._waiting = {key: dict.fromkeys(urls) for key, urls in data["waiting"].items()}
        self._held = {url for urls in self._waiting.values() for url in urls}
        # A model saved before the ways to pages were kept has none: credit starts from here.
        self._pages = {key: (way[0], way[1]) for key, way in data.get("pages", {}).items()}
        self._credited = set(data.get("credited", ()))
        self._probes = dict(data.get("probes", {}))
        self._pagers = {key: list(urls) for key, urls in data.get("pagers", {}).items()}
        self._listings = {url: (counts[0], counts[1]) for url, counts in data.get("listings", {}).items()}
        return True


class StructureProcessor:
    """Post-processing for a structure-driven crawl: the target test (only pages like the
    sample are stored) and the link priorities Obtain Links gives the page's routes."""

    name = "structure"

    def __init__(self, model: StructureModel, raise_priority: Callable[[list[str], float], object]) -> None:
        self.model = model
        self.raise_priority = raise_priority  # (URLs of link routes, priority): the frontier's
    async def process(self, ctx: ProcessContext) -> ProcessContext:
        route = ctx.route
        if route.chain_axis is not None and route.chain_axis >= 0 and route.depth > 0:
            # Reached by a link that only moved a number of its page's URL (a pager's next
            # page): its links are one link deeper than the listing's first page's, as in
            # deepbot learn's mapping. A listing is walked to its end whatever the depth,
            # and such chains stay bounded (max_calendar_steps).
            ctx = ctx.widened(route=route.model_copy(update={"depth": route.depth - 1}))
        html = ctx.document.html
        collections = link_collections(html, ctx.document.final_url) if html else {}
        if self.model.schema is None and canonical_url(ctx.route.url) == self.model.sample:
            self.model.learn_sample(html)
        target, waiting, worth = self.model.observe(ctx.route.url, collections, ctx.route.hint, html,
                                                    key=ctx.route.key, parent=ctx.route.parent)
        if waiting:
            self.raise_priority(waiting, worth)
        if target:
            for urls, value in self.model.found_under(ctx.route.parent):
                self.raise_priority(urls, value)
        near = self.model.similarity(collections)
        relevance = ctx.relevance
        if not target and relevance.keep:
            why = (f"{near:.2f} < {self.model.threshold}" if near < self.model.threshold
                   else "tag tree unlike the sample's")
            relevance = Decision(False, STRUCTURE_MISMATCH, why)
        rates = self.model.rate(collections, ctx.document.final_url, ctx.route.key)
        # Those already queued (found earlier, rated lower) move up too.
        if rates.homologous:
            self.raise_priority(rates.homologous, HOMOLOGOUS)
        return ctx.widened(document=ctx.document.noted(structure_similarity=near), relevance=relevance,
                           link_priority=rates.priority, link_hint=rates.origin)
