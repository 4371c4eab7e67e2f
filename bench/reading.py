"""What reading a page costs: the bare loop, then each thing a reading crawler adds to it.

    python bench/reading.py                              # 300 pages, every variant, 2 rounds
    python bench/reading.py --pages 600 --concurrency 4
    python bench/reading.py --pages 100 --rounds 1 --only goto,goto+evaluate --json

The throughput benchmark's limit visits the URL list with ``goto(load)`` and nothing
else: it never reads a page. This benchmark takes that loop (one worker, one reused
tab, set up as the limit sets up its pages: deepbot.browser's switches, images, fonts
and media off; ``--concurrency N``: N such tabs, a context each, sharing the list) and
adds one thing at a time after each load:

- ``goto``: nothing (the limit).
- ``goto+sleep``: 15 ms idle. The page lives long enough to be laid out and drawn.
- ``goto+evaluate``: Playwright's ``page.evaluate("() => 1")``.
- ``goto+cdp``: the same no-op through a raw CDP ``Runtime.evaluate`` (no Playwright
  helper script in the page, no Playwright serialisation).
- ``goto+light``: the least a crawler reads, and what a crawler that takes
  ``page.content()`` and its links reads: the document's HTML and its anchors' URLs and
  text, in one evaluate that lays nothing out.
- ``goto+harvest``: DeepBot's own harvest (``deepbot/crawl/harvest.js``, one evaluate,
  with the default options' argument).
- ``goto+harvest+cookies``: and the cookie snapshot DeepBot takes after every page.
- ``goto+harvest-cdp``: the harvest through a raw CDP ``Runtime.evaluate`` instead of
  Playwright's ``evaluate`` (no helper script injected into the page).

Each variant runs in its own process, measured like the throughput benchmark's runs
(``common.measure``: wall time, CPU of the whole process tree by process role); the
variants are interleaved, and in reverse order in every other round, so that the
machine's drift falls on all of them. Reports per page: wall ms, CPU ms in all and by
role, and CPU ms over ``goto``. The site's server checks that every page was fetched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import become_subreaper, interleaved, load_bench_module, measure_child, parse_only

VARIANTS = ("goto", "goto+sleep", "goto+evaluate", "goto+cdp", "goto+light", "goto+harvest",
            "goto+harvest+cookies", "goto+harvest-cdp")
# goto+light's read: HTML and anchors, nothing that needs layout (no innerText, no boxes).
_LIGHT_JS = ("() => [document.documentElement.outerHTML,"
             " Array.from(document.querySelectorAll('a[href]'), a => [a.href, a.textContent])]")


async def _loop(variant: str, urls: list[str], concurrency: int) -> dict[str, Any]:
    """The child: ``concurrency`` tabs (a context each) share the URLs; ``variant``'s extra
    after each load."""
    from playwright.async_api import async_playwright

    from deepbot.browser import chromium_args, find_chromium
    from deepbot.browser.pool import _IMAGES_OFF
    from deepbot.crawl.visit import _HARVEST_JS, VisitOptions, harvest_args

    limit = load_bench_module("peers/limit")
    options = harvest_args(VisitOptions())  # what a crawl with the defaults passes
    read = 0
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_chromium(pw), headless=True,
                                           args=chromium_args(_IMAGES_OFF))
        queue: asyncio.Queue[str] = asyncio.Queue()
        for url in urls:
            queue.put_nowait(url)

        async def worker() -> None:
            nonlocal read
            # The harvest waits on the fetch count that the limit's reading contexts install.
            page = await limit.new_page(browser, read=variant.startswith("goto+harvest"))
            cdp = await page.context.new_cdp_session(page) if variant.endswith("cdp") else None
            harvest_call = f"({_HARVEST_JS})({json.dumps(options)})"  # the evaluate's function, applied
            while not queue.empty():
                await page.goto(queue.get_nowait(), wait_until="load")
                if variant == "goto+sleep":
                    await asyncio.sleep(0.015)
                elif variant == "goto+evaluate":
                    read += await page.evaluate("() => 1")
                elif variant == "goto+harvest-cdp":
                    assert cdp is not None
                    answer = await cdp.send("Runtime.evaluate", {
                        "expression": harvest_call, "awaitPromise": True, "returnByValue": True,
                        "userGesture": True})
                    read += len(answer["result"]["value"])
                elif variant == "goto+cdp":
                    assert cdp is not None
                    answer = await cdp.send("Runtime.evaluate", {"expression": "1", "returnByValue": True})
                    read += answer["result"]["value"]
                elif variant == "goto+light":
                    read += len(await page.evaluate(_LIGHT_JS))
                elif variant.startswith("goto+harvest"):
                    read += len(await page.evaluate(_HARVEST_JS, options))
                    if variant.endswith("+cookies"):
                        await page.context.cookies()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        await browser.close()
    return {"variant": variant, "pages": len(urls), "read": read}


def run_variant(variant: str, server: Any, urls_file: Path, pages: int, concurrency: int, time_limit: float,
                logs: Path) -> dict[str, Any]:
    _, row = measure_child(Path(__file__).resolve(), "variant", variant,
                           ["--urls", str(urls_file), "--concurrency", str(concurrency)],
                           server, pages, time_limit, logs)
    return row


def summarize(rows: list[dict[str, Any]], roles: tuple[str, ...]) -> list[dict[str, Any]]:
    """Medians over the rounds, per variant, and CPU over the ``goto`` variant's."""
    out = []
    for variant in VARIANTS:
        mine = [r for r in rows if r["variant"] == variant]
        if not mine:
            continue
        by_role = {role: statistics.median(r["cpu_ms_per_page_by_role"].get(role, 0.0) for r in mine)
                   for role in roles}
        out.append({"variant": variant, "rounds": len(mine), "complete": all(r["complete"] for r in mine),
                    "wall_ms_per_page": statistics.median(r["wall_ms_per_page"] for r in mine),
                    "cpu_ms_per_page": statistics.median(r["cpu_ms_per_page"] for r in mine),
                    "cpu_ms_per_page_by_role": by_role})
    base = next((s["cpu_ms_per_page"] for s in out if s["variant"] == "goto"), None)
    for s in out:
        s["cpu_ms_over_goto"] = None if base is None else round(s["cpu_ms_per_page"] - base, 1)
    return out


def table(summary: list[dict[str, Any]], roles: tuple[str, ...]) -> str:
    lines = ["| variant | wall ms/page | CPU ms/page | over goto | " + " | ".join(roles) + " | all pages |",
             "|" + "---|" * (5 + len(roles))]
    for s in summary:
        over = "–" if s["cpu_ms_over_goto"] is None else f"{s['cpu_ms_over_goto']:+.1f}"
        cells = " | ".join(f"{s['cpu_ms_per_page_by_role'][r]:.1f}" for r in roles)
        lines.append(f"| {s['variant']} | {s['wall_ms_per_page']:.1f} | {s['cpu_ms_per_page']:.1f} | {over} "
                     f"| {cells} | {'yes' if s['complete'] else 'NO'} |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=300, help="pages of the site to visit (default 300)")
    p.add_argument("--concurrency", type=int, default=1, help="tabs, a browser context each (default 1)")
    p.add_argument("--rounds", type=int, default=2, help="rounds over the variants (default 2)")
    p.add_argument("--only", help="comma-separated variants (default: all)")
    p.add_argument("--time-limit", type=float, default=300, help="seconds per run before it is killed")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    p.add_argument("--urls", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.only = parse_only(p, args.only, VARIANTS, "variant")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        urls = args.urls.read_text().split()
        print(json.dumps(asyncio.run(_loop(args.child, urls, args.concurrency))))
        return 0
    site_module = load_bench_module("site")
    throughput = load_bench_module("throughput")
    roles: tuple[str, ...] = throughput.ROLES
    become_subreaper()
    rows: list[dict[str, Any]] = []
    site = site_module.build_site(max(args.pages, 1))
    with tempfile.TemporaryDirectory(prefix="deepbot-reading-") as tmp, \
            site_module.SiteServer(site) as server:
        urls_file = Path(tmp) / "urls.txt"
        urls_file.write_text("\n".join(server.page_urls()[: args.pages]) + "\n")
        for round_no, variant in interleaved(args.only, args.rounds):
            row = run_variant(variant, server, urls_file, args.pages, args.concurrency, args.time_limit,
                              Path(tmp))
            row["cpu_ms_per_page_by_role"] = throughput._fold(row["cpu_ms_per_page_by_role"])
            row["round"] = round_no
            rows.append(row)
            print(f"  round {round_no} {variant:22s} {row['wall_ms_per_page']:6.1f} wall ms/page"
                  f" {row['cpu_ms_per_page']:6.1f} CPU ms/page  {row['pages']}/{args.pages} pages",
                  file=sys.stderr, flush=True)
    summary = summarize(rows, roles)
    if args.json:
        print(json.dumps({"settings": {"pages": args.pages, "rounds": args.rounds,
                                       "concurrency": args.concurrency}, "runs": rows,
                          "summary": summary}, indent=2))
    else:
        print(table(summary, roles))
    return 0 if all(s["complete"] for s in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
