"""Running a crawl from the command line: progress while it runs, a summary after, and
always a last line saying why the crawl stopped."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from deepbot.config import CrawlConfig
from deepbot.content.links import CALENDAR_CHAIN, CALENDAR_TURN, RESULT_PAGES
from deepbot.crawl.engine import Crawler
from deepbot.crawl.stats import CrawlStats, Stop
from deepbot.frontier import RouteState

INTERRUPTED_EXIT = 130  # what a shell reports for a command ended by Ctrl-C (128 + SIGINT)
FAILED_EXIT = 1  # a crawl that fetched nothing and failed every route it tried


class CrawlEnd(BaseModel):
    """How a crawl ended: what ``--json`` prints (its keys are kept stable for scripts)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stopped: Stop
    stopped_line: str  # the "stopped: …" line, as printed
    resumed: int  # routes queued by an earlier run when this one began (0: a fresh crawl)
    pages_fetched: int  # by this run
    documents_stored: int
    routes_failed: int
    pages_per_second: float
    seconds: float
    queued: int  # routes left for the next run of the same command
    done_in_store: int  # routes done over every run on the store (what --max-pages counts)
    max_pages: int | None
    routes: dict[str, int]  # the store's routes by state
    outcomes: dict[str, int]
    failures: dict[str, int]
    skipped: dict[str, int]
    store: str


async def crawl_and_report(config: CrawlConfig, *, progress: bool = True, as_json: bool = False) -> int:
    """Crawl, then print the summary; with ``as_json`` the words go to stderr and stdout
    holds only the CrawlEnd object. Ctrl-C stops the crawl with the same report (exit 130)."""
    words = sys.stderr if as_json else sys.stdout
    async with Crawler(config, progress=progress) as crawler:
        resumed = crawler.frontier.pending()  # before this run's seeds are pushed
        if resumed:
            print(f"resuming: {resumed} routes queued from an earlier run", file=words, flush=True)
        try:
            async for _document in crawler.run():
                pass
        except asyncio.CancelledError:
            # Ctrl-C: asyncio.run cancels this task (the workers are stopped by then, run()'s
            # finally). What was committed stays; the routes in flight are leased again next run.
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            crawler.stats.stop = Stop.INTERRUPTED
        counts = crawler.frontier.counts()
    stats = crawler.stats
    end = crawl_end(stats, counts, config, resumed=resumed)
    print(summary(stats, counts, str(config.store), forms=crawler.forms.counts,
                  topic=config.topic, topic_threshold=config.topic_threshold,
                  max_result_pages=config.max_result_pages, max_scrolls=config.max_scrolls,
                  scroll_time=config.scroll_time, max_calendar_steps=config.max_calendar_steps),
          file=words)
    print(end.stopped_line, file=words, flush=True)
    if as_json:
        print(end.model_dump_json(indent=2))
    if end.stopped is Stop.INTERRUPTED:
        return INTERRUPTED_EXIT
    if stats.fetched == 0 and stats.failed > 0:  # nothing reached: a script must not read success
        print("deepbot: no page could be fetched; every route tried failed (see Failures above)",
              file=sys.stderr, flush=True)
        return FAILED_EXIT
    return 0


def crawl_end(stats: CrawlStats, counts: Mapping[RouteState, int], config: CrawlConfig, *,
              resumed: int) -> CrawlEnd:
    # Leased ones too: routes in flight when Ctrl-C came are leased again by the next run.
    queued = counts.get(RouteState.QUEUED, 0) + counts.get(RouteState.LEASED, 0)
    done = counts.get(RouteState.DONE, 0)
    stop = stop_reason(stats, queued)
    said = stopped_line(stop, stats, queued=queued, done=done, max_pages=config.max_pages)
    return CrawlEnd(
        stopped=stop, stopped_line=said,
        resumed=resumed, pages_fetched=stats.fetched, documents_stored=stats.stored,
        routes_failed=stats.failed, pages_per_second=round(stats.rate(), 2),
        seconds=round(time.monotonic() - stats.started, 1), queued=queued, done_in_store=done,
        max_pages=config.max_pages, routes={str(state): n for state, n in sorted(counts.items())},
        outcomes=dict(stats.outcomes), failures=dict(stats.failures), skipped=dict(stats.skipped),
        store=str(config.store))


def stop_reason(stats: CrawlStats, queued: int) -> Stop:
    """What the engine recorded (the budget) or the runner (Ctrl-C); else what the frontier
    shows: empty, or left with routes no worker would take."""
    if stats.stop is not None:
        return stats.stop
    if queued == 0:
        return Stop.FRONTIER_EMPTY
    return Stop.UNPROMISING if stats.unpromising else Stop.HOSTS_LEFT


def stopped_line(stop: Stop, stats: CrawlStats, *, queued: int, done: int, max_pages: int | None) -> str:
    """One line, the crawl's last: why it stopped, and what to do for more."""
    if stop is Stop.MAX_PAGES:
        return (f"stopped: --max-pages {max_pages} reached ({done} pages stored in this store, over all runs;"
                " raise it or use a new --store)")
    if stop is Stop.INTERRUPTED:
        return f"stopped: interrupted (Ctrl-C) — run the same command to resume: {queued} routes queued"
    if stop is Stop.UNPROMISING:
        return f"stopped: no route left promises a page like the sample ({queued} routes queued)"
    if stop is Stop.HOSTS_LEFT:
        if stats.logged_out and not stats.parked:
            return (f"stopped: only routes of sites that logged the crawl out are left ({queued} queued) —"
                    " log in again (deepbot login) and rerun with the new --session")
        return (f"stopped: only routes of hosts that refused every visit are left ({queued} queued) —"
                " run the same command later to resume")
    return "stopped: frontier empty"


def summary(stats: CrawlStats, counts: Mapping[RouteState, int], store: str, *,
            forms: Mapping[str, int] | None = None, topic: str | None = None,
            topic_threshold: float = 0.0, max_result_pages: int | None = None,
            max_scrolls: int | None = None, scroll_time: float | None = None,
            max_calendar_steps: int | None = None) -> str:
    """What the crawl did; ``forms``: the Form Analyzer's counts (FormQueries.counts);
    ``topic``: a focused crawl's, whose harvest rate is reported; ``max_result_pages``,
    ``max_scrolls``, ``scroll_time``, ``max_calendar_steps``: the bounds on a query's
    pager, on a page's scrolling and on calendar-like chains, named where they cut
    something short."""
    lines = [
        f"Crawl finished: {stats.fetched} pages fetched, {stats.stored} documents stored, "
        f"{stats.failed} routes failed ({stats.rate():.1f} pages/s).",
        "Routes: " + ", ".join(f"{state} {n}" for state, n in sorted(counts.items())),
    ]
    if stats.outcomes:
        lines.append("Pages: " + ", ".join(f"{r} ×{n}" for r, n in stats.outcomes.most_common()))
    work = stats.page_work
    if any(work[k] for k in ("overlay answered", "menus opened", "scrolled", "load more")):
        parts = [f"cookie banner or consent wall answered ×{work['overlay answered']}",
                 f"hover menus opened ×{work['menus opened']}",
                 f"scrolled to the end ×{work['scrolled']} ({work['scroll rounds']} rounds)",
                 f"'Load more' clicked to the end ×{work['load more']} ({work['load more rounds']} rounds)"]
        lines.append("In pages: " + ", ".join(p for p in parts if " ×0" not in p))
    cut = [_cut_short(work, what, max_scrolls, scroll_time) for what in ("scroll", "load more")]
    if any(cut):
        stopped = "; ".join(c for c in cut if c)
        lines.append(f"Listings cut short (those pages may hold more): {stopped}.")
    if forms and (forms.get("forms analysed") or forms.get("forms already known")
                  or forms.get("pages whose forms could not be read")):
        said = [f"{forms.get('forms analysed', 0)} analysed",
                f"{forms.get('relevant forms', 0)} relevant and queried",
                f"{forms.get('query routes', 0)} query routes"]
        if forms.get("forms already known"):
            said.append(f"{forms['forms already known']} already known (met again: not analysed again)")
        guarded = forms.get("relevant forms behind a CAPTCHA", 0)
        if guarded:
            said.append(f"{guarded} relevant but behind a CAPTCHA (not queried)")
        hidden = forms.get("relevant forms hidden, not queried", 0)
        if hidden:
            said.append(f"{hidden} relevant but hidden (no control shows: not queried)")
        unreadable = forms.get("pages whose forms could not be read", 0)
        if unreadable:
            said.append(f"on {unreadable} pages the forms could not be read (their script broke the "
                        "extraction: pages stored, forms skipped; see the log)")
        lines.append("Forms: " + ", ".join(said))
    if work["bot checks met"]:
        lines.append(f"Bot checks met: ×{work['bot checks met']} (pages that asked to prove a person"
                     " is there; each paused its host, and the route was retried later)")
    if stats.parked:
        hosts = ", ".join(f"{host} ({n} routes)" for host, n in stats.parked.most_common())
        lines.append(f"Stopped visiting hosts that refused every visit: {hosts}. Their routes stay queued:"
                     " run the same command later to resume.")
    if stats.logged_out:
        hosts = ", ".join(f"{host} ({n} routes)" for host, n in stats.logged_out.most_common())
        lines.append(f"Logged out by: {hosts}: its pages showed the login form again (the saved session"
                     " expired). Their routes stay queued: log in again (deepbot login) and rerun with the"
                     " new --session.")
    if topic is not None and stats.fetched:
        lines.append(f"Topic: harvest rate {stats.on_topic / stats.fetched:.0%} ({stats.on_topic} of"
                     f" {stats.fetched} pages at similarity ≥ {topic_threshold:g} to {topic!r})")
    if stats.unpromising:
        lines.append(f"Structure: ended with {stats.unpromising} routes left that promise no page like the"
                     " sample (their kind of link led nowhere, or never paid a probe); they stay queued.")
    if stats.failures:
        lines.append("Failures: " + ", ".join(f"{r} ×{n}" for r, n in stats.failures.most_common(8)))
    if stats.skipped[RESULT_PAGES]:
        lines.append(f"Query results cut short: a pager not followed past page {max_result_pages or '?'}"
                     f" ×{stats.skipped[RESULT_PAGES]} (--max-result-pages: pagination costs no depth, so"
                     " this bound is what ends a pager that never does; raise it for longer results).")
    if stats.skipped[CALENDAR_CHAIN] or stats.skipped[CALENDAR_TURN]:
        steps = "?" if max_calendar_steps is None else max_calendar_steps
        long, turned = stats.skipped[CALENDAR_CHAIN], stats.skipped[CALENDAR_TURN]
        cut = [f"cut at {steps} steps ×{long}"] if long else []
        cut += [f"turned ×{turned}"] if turned else []
        lines.append(f"Calendar-like chains {' and '.join(cut)} (links in a row that only move a number or a"
                     " date in their page's URL, as a calendar's 'next month' whose server answers any month,"
                     " followed along one number: not a 'next year' on a page a 'next month' led to;"
                     " --max-calendar-steps raises the steps).")
    if stats.skipped:
        lines.append("Links not followed: " + ", ".join(f"{r} ×{n}" for r, n in stats.skipped.most_common()))
    lines.append(f"Store: {store}  (deepbot status/search/export --store {store})")
    return "\n".join(lines)


def _cut_short(work: Mapping[str, int], what: str, max_scrolls: int | None, scroll_time: float | None) -> str:
    """The pages whose scrolling (``what``: "scroll") or "Load more" clicks a bound or a
    restless page stopped, by why, with the flag that raises each bound; "" if none."""
    rounds = f"{max_scrolls} rounds a page" if max_scrolls is not None else "its rounds"
    seconds = f"{scroll_time:g} s a page" if scroll_time is not None else "its time"
    why = {"rounds": ("by the round bound", f" ({rounds}: --max-scrolls raises it)"),
           "time": ("by the time bound", f" ({seconds}: --scroll-time raises it; so does a longer"
                    " route_timeout, a quarter of which is kept for reading the page)"),
           "unsettled": ("while the page still fetched or changed", " (when the wait for a round ran out)")}
    said = [f"{reason} ×{work[f'{what} cut: {stop}']}{detail}" for stop, (reason, detail) in why.items()
            if work[f"{what} cut: {stop}"]]
    if not said:
        return ""
    return ("scrolling stopped " if what == "scroll" else "'Load more' stopped ") + ", ".join(said)
