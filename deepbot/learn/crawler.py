"""The generated crawler and how it is learned: two processors in the crawl's chain, and
the pattern file a person reads and edits.

- ``MapProcessor`` (``deepbot learn``): during a breadth-first crawl from the entry
  point, records each page's parent and its RTDM similarity to the sample (a
  ``SiteMap``); nothing is stored.
- ``PatternProcessor`` (``deepbot crawl --pattern``): the crawler of Vidal et al.'s
  Figure 9. A page at level i keeps only the links its level's regexes match (and the
  clicks on script-driven elements whose address, ``click:`` and the selector, they match); a page
  of the last level is a target, stored if it is built like the sample (RTDM), so
  precision holds when a pattern over-generalises; no other page is stored. Run again
  on the same store once it has finished, it is a new *pass*: the entry and the pages on
  the way are read again (their routes' keys carry the pass), so targets added since are
  found; the targets it stored before are known by their keys and not fetched again.
  When the pattern's last level repeats over the targets (a target's links to related
  targets), a target's links that match that level are followed too; a rerun then reads
  the targets it stored before again, for their links, and stores none of them twice.
  The sample is read as a seed: a link to it is known by its URL, and a click that led to
  it while learning by its route's key (``sample_clicks``); neither is followed again.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

from pydantic import Field

import nseql
from deepbot.config.yamlfile import load_model
from deepbot.content.filters import Decision
from deepbot.content.postprocess import ProcessContext
from deepbot.errors import ConfigError
from deepbot.frontier import RouteState, RouteStore
from deepbot.learn.mapping import THRESHOLD, SiteMap
from deepbot.learn.patterns import NavigationPattern, backward, click_address
from deepbot.learn.rtdm import Classes, PageTree, similarity, tree_of
from deepbot.models import Frozen
from deepbot.routes import Route, Via, canonical_url

SAMPLE_WAIT_S = 60.0  # a target waits this long at most for the sample page to be read
PASS_STATE = "navigation pattern pass"  # the frontier's note of the pass a store is in
LEVEL_HINT = "pattern level "  # a route's hint: the level of the pattern its page is at
MAX_REPEATS = 1000  # pages of a repeating level (a pager) followed in a row at most


def address(route: Route) -> str | None:
    """What a pattern's level matches for a route: a link's URL, a click's address (its
    element's selector); None for what a pattern does not follow (a form, a jump menu)."""
    if route.via is Via.LINK:
        return route.url
    if route.via is Via.SCRIPT and route.plan.steps and isinstance(route.plan.steps[-1], nseql.Click):
        return click_address(route.plan.steps[-1].selector)
    return None


def _level_of(hint: str | None) -> int:
    return int(hint.removeprefix(LEVEL_HINT)) if hint and hint.startswith(LEVEL_HINT) else -1


def crawl_depth(pattern: PatternFile) -> int:
    """The link depth a pattern crawl needs: one per level, and a pager's pages besides."""
    return len(pattern.levels) + (MAX_REPEATS if any(level.repeat for level in pattern.levels) else 0)


class Level(Frozen):
    """The links followed from a page of one level: regexes (``re.fullmatch``)."""

    follow: tuple[str, ...] = Field(min_length=1)
    matched: int = 0  # links that matched while learning (for the person who edits)
    # A pager: its links are followed again from a page it reached (page 2 → page 3 → …),
    # and it may be skipped (the listing's first page is the previous level's). The last
    # level repeating: a target's links to other targets are followed ("similar artists").
    repeat: bool = False


class PatternFile(Frozen):
    """A navigation pattern as ``deepbot learn`` writes it and ``crawl --pattern`` reads it."""

    sample: str
    entry: str
    threshold: float = Field(THRESHOLD, gt=0, le=1)
    levels: tuple[Level, ...] = Field(min_length=1)
    targets: int = 0  # target pages the pattern reached while learning
    mapped: int = 0  # pages the mapping fetched
    # The clicks that led to the sample while learning, by their routes' keys (the page clicked
    # on, as it read then, and the click): a link to the sample is known by its URL, the seed's,
    # but a click's destination only once made. The crawl reads the sample as a seed and does
    # not make these clicks; a page that reads otherwise now gives its clicks other keys.
    sample_clicks: tuple[str, ...] = ()

    def pattern(self) -> NavigationPattern:
        return NavigationPattern(tuple(level.follow for level in self.levels), self.targets,
                                 frozenset(n for n, level in enumerate(self.levels) if level.repeat))


def load_pattern(path: str | Path) -> PatternFile:
    """A pattern file, validated (file, line and field in every error); regexes compiled."""
    found = load_model(path, PatternFile, ConfigError, "a navigation pattern")
    for n, level in enumerate(found.levels):
        for regex in level.follow:
            try:
                re.compile(regex)
            except re.error as exc:
                raise ConfigError(f"{path}: levels[{n}].follow: invalid regular expression {regex!r}: "
                                  f"{exc}") from None
    return found


class MapProcessor:
    """Feeds a SiteMap with every page of the mapping crawl; stores nothing."""

    name = "site-map"

    def __init__(self, sitemap: SiteMap, sample: str | None = None) -> None:
        self.sitemap = sitemap
        self._urls: dict[str, str] = {}  # route key -> the URL of its page
        self._sample = canonical_url(sample) if sample else None
        self.sample_clicks: list[str] = []  # keys of the click routes that led to the sample

    async def process(self, ctx: ProcessContext) -> ProcessContext | None:
        route, doc = ctx.route, ctx.document
        self._urls[route.key] = doc.final_url
        parent = self._urls.get(route.parent) if route.parent else None
        # Every link, those to pages already queued too: candidate patterns run on this graph.
        links = [canonical_url(link.url) for link in ctx.snapshot.links] if ctx.snapshot else []
        if doc.html:
            await asyncio.to_thread(self.sitemap.add, doc.final_url, parent, doc.html, links)
            step = address(route)
            if parent is not None and step is not None and route.via is Via.SCRIPT:
                self.sitemap.add_click(parent, step, doc.final_url)
                if canonical_url(doc.final_url) == self._sample:
                    self.sample_clicks.append(route.key)
        # A link that only moves a number of its page's URL (a pager's next page) costs no
        # depth, as a query's results pager does not: a listing is mapped to its last page,
        # its targets with it. Such chains stay bounded (max_calendar_steps).
        ctx.routes[:] = [child.model_copy(update={"depth": route.depth}) if child.chain else child
                         for child in ctx.routes]
        return ctx.widened(relevance=Decision(False, "mapped", "deepbot learn stores nothing"))


class PatternProcessor:
    """Follows the pattern's links level by level; stores the targets built like the sample."""

    name = "navigation-pattern"

    def __init__(self, pattern: PatternFile) -> None:
        self.file = pattern
        self.pattern = pattern.pattern()
        self._classes = Classes()
        self._sample: PageTree | None = None
        self._sample_read = asyncio.Event()
        self.rejected = 0  # last-level pages not built like the sample
        self.pass_no = 0  # 0: the first run on a store; n: its n-th rerun after one that finished
        self._frontier: RouteStore | None = None
        self._routed: set[str] = set()  # targets' own keys routed by this run (a rerun's new targets)

    def begin(self, frontier: RouteStore) -> int:
        """The pass this run is: the store's, or the next one when the last pass finished
        (nothing pending, something done); an interrupted pass resumes as it was."""
        self._frontier = frontier
        self.pass_no = int(frontier.get_state(PASS_STATE) or 0)
        if frontier.counts()[RouteState.DONE] and not frontier.pending():
            self.pass_no += 1
            frontier.put_state(PASS_STATE, str(self.pass_no))
        return self.pass_no

    def key(self, key: str) -> str:
        """A navigation route's key in this pass (a target's key is its own in every pass)."""
        return f"{key}#pattern-pass-{self.pass_no}" if self.pass_no else key

    def _target_key(self, key: str) -> str:
        """A route to a target's key: its own in every pass, so a target stored before is not
        fetched again. But when the targets' level repeats, a target stored by an earlier pass
        is read again for its links, under this pass's key (and not stored again)."""
        if not (self.pass_no and self.pattern.over_targets) or key in self._routed:
            return key
        if self._frontier is not None and self._frontier.seen(key):
            return self.key(key)
        self._routed.add(key)
        return key

    def _over_targets(self, ctx: ProcessContext) -> None:
        """Keep a target's links to other targets (the last level's regexes), when that level
        repeats; none otherwise. The sample, read as a seed, is not fetched again."""
        last = len(self.pattern.levels) - 1
        kept = []
        for child in ctx.routes if self.pattern.over_targets else ():
            step = address(child)
            if (step is None or child.url == self.file.sample or child.key in self.file.sample_clicks
                    or self.pattern.next_level(last, step) != last):
                continue
            key = self._target_key(child.key)
            kept.append(child.model_copy(update={"key": key, "hint": f"{LEVEL_HINT}{last}"}))
        ctx.routes[:] = kept

    async def process(self, ctx: ProcessContext) -> ProcessContext | None:
        route, doc = ctx.route, ctx.document
        if route.via is Via.SEED and route.url == self.file.sample:
            self._sample = tree_of(doc.html, self._classes)
            self._sample_read.set()
            self._over_targets(ctx)  # the sample is read, not crawled from, unless targets lead to targets
            if self.pass_no:  # read again for the comparisons; stored by the first pass
                return ctx.widened(relevance=Decision(False, "sample", "stored by the first pass"))
            return None
        level = _level_of(route.hint) if route.via is not Via.SEED else -1  # -1: the entry page
        last = len(self.pattern.levels) - 1
        if level < last:
            kept = []
            for child in ctx.routes:
                step = address(child)
                if step is None:
                    continue
                nxt = self.pattern.next_level(level, step)
                if nxt is None or (nxt == level and backward(doc.final_url, step)):
                    continue  # not in the pattern, or a pager's way back to a page it came through
                if nxt == last and child.key in self.file.sample_clicks:
                    continue  # the click to the sample, read as a seed
                # a target's key is its own in every pass; the way to it is read again in each
                key = self._target_key(child.key) if nxt == last else self.key(child.key)
                kept.append(child.model_copy(update={"key": key, "hint": f"{LEVEL_HINT}{nxt}"}))
            ctx.routes[:] = kept
            return ctx.widened(relevance=Decision(False, "on-the-way", f"level {level + 1} of the pattern"))
        if doc.final_url == self.file.sample:  # reached by a click: its route is not the seed's
            ctx.routes.clear()  # the seed's links were followed
            return ctx.widened(relevance=Decision(False, "sample", "stored as the seed"))
        with contextlib.suppress(TimeoutError):  # read first (a seed), unless it failed
            await asyncio.wait_for(self._sample_read.wait(), SAMPLE_WAIT_S)
        if self._sample is None or not doc.html:
            ctx.routes.clear()
            return ctx.widened(relevance=Decision(False, "no-sample", "the sample page could not be read"))
        alike = similarity(self._sample, tree_of(doc.html, self._classes))
        if alike < self.file.threshold:
            ctx.routes.clear()  # no target: its links are not followed
            self.rejected += 1
            return ctx.widened(relevance=Decision(False, "unlike-sample", f"RTDM similarity {alike:.2f}"))
        self._over_targets(ctx)
        if self.pass_no and route.key.endswith(self.key("")):  # stored by an earlier pass, read for its links
            return ctx.widened(relevance=Decision(False, "known-target", "stored by an earlier pass"))
        return None
