"""Where a crawl's memory goes: the bare loop, its pages laid out in different ways.

    python bench/memory.py                                   # 500 pages, 8 tabs, 2 rounds
    python bench/memory.py --pages 300 --concurrency 4 --rounds 1 --only contexts,tabs --json

The throughput benchmark's peak memory at eight workers is mostly Chromium's renderer
processes. This benchmark takes the limit's loop (``goto(load)``, nothing read; set
up as the limit sets up its pages: deepbot.browser's switches, images, fonts and media
off) and changes only how its pages are laid out in the browser:

- ``contexts``: a browser context per worker, one page each, reused for every URL
  (DeepBot's browser pool, and the limit).
- ``contexts+limit``: the same under ``--renderer-process-limit`` (``--process-limit``,
  default 2): Chromium cannot put pages of two contexts in one renderer.
- ``tabs``: one context, a reused page (tab) per worker.
- ``tabs+limit``: the same under ``--renderer-process-limit``: the tabs share renderer
  processes.
- ``page-per-url``: one context, a new page for every URL, closed after its load
  (what scrapy-playwright does).

Each layout runs in its own process, measured like the throughput runs
(``common.measure``: CPU of the whole process tree, peak PSS by process role, and the
peak number of each role's processes); the layouts are interleaved, in reverse order
every other round. The site's server checks that every page was fetched.
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

LAYOUTS = ("contexts", "contexts+limit", "tabs", "tabs+limit", "page-per-url")


async def _loop(layout: str, urls: list[str], concurrency: int, process_limit: int) -> dict[str, Any]:
    """The child: ``concurrency`` workers share the URLs, their pages laid out as ``layout``."""
    from playwright.async_api import Page, async_playwright

    from deepbot.browser import chromium_args, find_chromium
    from deepbot.browser.blocking import block_media
    from deepbot.browser.pool import _IMAGES_OFF

    limit = load_bench_module("peers/limit")
    extra = (f"--renderer-process-limit={process_limit}",) if layout.endswith("+limit") else ()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_chromium(pw), headless=True,
                                           args=chromium_args(_IMAGES_OFF, *extra))
        queue: asyncio.Queue[str] = asyncio.Queue()
        for url in urls:
            queue.put_nowait(url)
        shared = None
        if not layout.startswith("contexts"):  # one context, set up as the limit sets up each of its own
            first = await limit.new_page(browser)
            shared = first.context
            await first.close()  # left open, its renderer would count against the layout

        async def tab() -> Page:
            assert shared is not None
            page = await shared.new_page()
            await block_media(shared, page)
            return page

        async def worker() -> None:
            page = await limit.new_page(browser) if shared is None else await tab()
            while not queue.empty():
                url = queue.get_nowait()
                if layout == "page-per-url":
                    page = await tab()
                await page.goto(url, wait_until="load")
                if layout == "page-per-url":
                    await page.close()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        await browser.close()
    return {"layout": layout, "pages": len(urls)}


def run_layout(layout: str, server: Any, urls_file: Path, pages: int, concurrency: int, process_limit: int,
               time_limit: float, logs: Path) -> dict[str, Any]:
    m, row = measure_child(
        Path(__file__).resolve(), "layout", layout,
        ["--urls", str(urls_file), "--concurrency", str(concurrency), "--process-limit", str(process_limit)],
        server, pages, time_limit, logs)
    return {**row, "peak_pss_mb": round(m.peak_pss_mb, 1), "peak_pss_mb_by_role": m.peak_pss_mb_by_role,
            "renderers": m.peak_processes_by_role.get("renderer", 0)}


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Medians over the rounds, per layout, and peak PSS over the ``contexts`` layout's."""
    out = []
    for layout in LAYOUTS:
        mine = [r for r in rows if r["layout"] == layout]
        if not mine:
            continue

        def median(key: str, runs: list[dict[str, Any]] = mine) -> float:
            return statistics.median(r[key] for r in runs)

        out.append({
            "layout": layout, "rounds": len(mine), "complete": all(r["complete"] for r in mine),
            "wall_ms_per_page": median("wall_ms_per_page"), "cpu_ms_per_page": median("cpu_ms_per_page"),
            "peak_pss_mb": median("peak_pss_mb"),
            "renderer_pss_mb": statistics.median(r["peak_pss_mb_by_role"].get("renderer", 0.0) for r in mine),
            "gpu_pss_mb": statistics.median(r["peak_pss_mb_by_role"].get("gpu", 0.0) for r in mine),
            "renderers": max(r["renderers"] for r in mine),
        })
    base = next((s for s in out if s["layout"] == "contexts"), None)
    for s in out:
        for key in ("wall_ms_per_page", "cpu_ms_per_page", "peak_pss_mb"):
            s[f"{key}_x"] = round(s[key] / base[key], 2) if base and base[key] else None
    return out


def table(summary: list[dict[str, Any]]) -> str:
    def x(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}×"

    lines = ["| layout | renderers | wall ms/page | CPU ms/page | peak PSS MB | renderers' PSS | GPU PSS "
             "| all pages |", "|" + "---|" * 8]
    for s in summary:
        lines.append(
            f"| {s['layout']} | {s['renderers']} "
            f"| {s['wall_ms_per_page']:.1f} ({x(s['wall_ms_per_page_x'])}) "
            f"| {s['cpu_ms_per_page']:.1f} ({x(s['cpu_ms_per_page_x'])}) "
            f"| {s['peak_pss_mb']:.0f} ({x(s['peak_pss_mb_x'])}) | {s['renderer_pss_mb']:.0f} "
            f"| {s['gpu_pss_mb']:.0f} | {'yes' if s['complete'] else 'NO'} |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=500, help="pages of the site to visit (default 500)")
    p.add_argument("--concurrency", type=int, default=8, help="workers (default 8)")
    p.add_argument("--process-limit", type=int, default=2,
                   help="--renderer-process-limit of the +limit layouts (default 2)")
    p.add_argument("--rounds", type=int, default=2, help="rounds over the layouts (default 2)")
    p.add_argument("--only", help="comma-separated layouts (default: all)")
    p.add_argument("--time-limit", type=float, default=300, help="seconds per run before it is killed")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--child", choices=LAYOUTS, help=argparse.SUPPRESS)
    p.add_argument("--urls", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.only = parse_only(p, args.only, LAYOUTS, "layout")
    if args.process_limit < 1:
        p.error("--process-limit must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        urls = args.urls.read_text().split()
        print(json.dumps(asyncio.run(_loop(args.child, urls, args.concurrency, args.process_limit))))
        return 0
    site_module = load_bench_module("site")
    become_subreaper()
    rows: list[dict[str, Any]] = []
    site = site_module.build_site(max(args.pages, 1))
    with tempfile.TemporaryDirectory(prefix="deepbot-memory-") as tmp, site_module.SiteServer(site) as server:
        urls_file = Path(tmp) / "urls.txt"
        urls_file.write_text("\n".join(server.page_urls()[: args.pages]) + "\n")
        for round_no, layout in interleaved(args.only, args.rounds):
            row = run_layout(layout, server, urls_file, args.pages, args.concurrency, args.process_limit,
                             args.time_limit, Path(tmp))
            row["round"] = round_no
            rows.append(row)
            print(f"  round {round_no} {layout:15s} {row['wall_ms_per_page']:6.1f} wall ms/page"
                  f" {row['cpu_ms_per_page']:6.1f} CPU ms/page {row['peak_pss_mb']:6.0f} MB peak PSS"
                  f" {row['renderers']:3d} renderers  {row['pages']}/{args.pages} pages",
                  file=sys.stderr, flush=True)
    summary = summarize(rows)
    if args.json:
        settings = {"pages": args.pages, "rounds": args.rounds, "concurrency": args.concurrency,
                    "process_limit": args.process_limit}
        print(json.dumps({"settings": settings, "runs": rows, "summary": summary}, indent=2))
    else:
        print(table(summary))
    return 0 if all(s["complete"] for s in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
