"""Running a crawl from the command line: progress while it runs, a summary after."""

from __future__ import annotations

from collections.abc import Mapping

from deepbot.config import CrawlConfig
from deepbot.content.links import CALENDAR_CHAIN, CALENDAR_TURN, RESULT_PAGES
from deepbot.crawl.engine import Crawler
from deepbot.crawl.stats import CrawlStats
from deepbot.frontier import RouteState


async def crawl_and_report(config: CrawlConfig, *, progress: bool = True) -> int:
    async with Crawler(config, progress=progress) as crawler:
        async for _document in crawler.run():
            pass
        counts = crawler.frontier.counts()
    print(summary(crawler.stats, counts, str(config.store), forms=crawler.forms.counts,
                  topic=config.topic, topic_threshold=config.topic_threshold,
                  max_result_pages=config.max_result_pages, max_scrolls=config.max_scrolls,
                  scroll_time=config.scroll_time, max_calendar_steps=config.max_calendar_steps))
    return 0


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
