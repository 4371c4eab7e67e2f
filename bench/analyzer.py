"""Form Analyzer latency: ``python bench/analyzer.py [--repeat N] [--json]``.

For every labelled fixture page, after it has loaded: the page evaluations, the panels
stage's (opening folded fields; after the first run there is nothing left to open, as on
most pages) and the extraction script's, then the pure-Python work (validating the extraction, layout,
matching, relevance against books and music), each timed separately and reported
in milliseconds per form (median over the repeats, then over pages); "in page" is
the script's own time, without the round trip. Goal: at most 30 ms per form in all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright

from deepbot.browser import launch_chromium
from deepbot.config.domain import load_domain
from deepbot.content import challenge
from deepbot.forms.analyzer import analyze_extracted
from deepbot.forms.extract import _script, answer, build_extraction
from deepbot.forms.panels import open_panels

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # fixtures/ is the checkout's, not installed
from fixtures.server import STATIC_ROOT, FixtureServer

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = (ROOT / "domains" / "books.yaml", ROOT / "domains" / "music.yaml")


async def measure(repeat: int) -> list[dict[str, float | int | str]]:
    domains = [load_domain(p) for p in DOMAINS]
    files = sorted(p.name for p in (STATIC_ROOT / "forms").glob("*.html"))
    rows: list[dict[str, float | int | str]] = []
    args = {"anchorReach": 300.0, "challenge": challenge.script_args()}  # as extract_page passes
    with FixtureServer() as site:
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            page = await browser.new_page()
            await page.goto(site.url(f"/forms/{files[0]}"))
            warm = answer(await page.evaluate(_script(), args))
            analyze_extracted(build_extraction(warm), domains)  # warm up
            for file in files:
                await page.goto(site.url(f"/forms/{file}"))
                evals, inpage, pys, forms = [], [], [], 0
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    await open_panels(page)
                    raw = answer(await page.evaluate(_script(), args))
                    t1 = time.perf_counter()
                    analysis = analyze_extracted(build_extraction(raw), domains)
                    t2 = time.perf_counter()
                    evals.append((t1 - t0) * 1000)
                    inpage.append(float(raw["elapsed_ms"]))
                    pys.append((t2 - t1) * 1000)
                    forms = len(analysis.forms)
                n = max(forms, 1)
                rows.append(
                    {
                        "page": file,
                        "forms": forms,
                        "fields": sum(len(f.fields) for f in analysis.forms),
                        "evaluate_ms_per_form": statistics.median(evals) / n,
                        "in_page_ms_per_form": statistics.median(inpage) / n,
                        "python_ms_per_form": statistics.median(pys) / n,
                    }
                )
            await browser.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per page (median kept)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    rows = asyncio.run(measure(args.repeat))
    ev = [float(r["evaluate_ms_per_form"]) for r in rows]
    inside = [float(r["in_page_ms_per_form"]) for r in rows]
    py = [float(r["python_ms_per_form"]) for r in rows]
    total = [a + b for a, b in zip(ev, py, strict=True)]
    summary = {
        "pages": len(rows),
        "forms": sum(int(r["forms"]) for r in rows),
        "evaluate_ms_per_form_median": statistics.median(ev),
        "in_page_ms_per_form_median": statistics.median(inside),
        "python_ms_per_form_median": statistics.median(py),
        "total_ms_per_form_median": statistics.median(total),
        "total_ms_per_form_max": max(total),
    }
    if args.json:
        json.dump({"summary": summary, "pages": rows}, sys.stdout, indent=2)
        print()
        return 0
    head = f"{'page':<30} {'forms':>5} {'fields':>6} {'evaluate ms/form':>17} {'(in page)':>10}"
    print(f"{head} {'python ms/form':>15}")
    for r in rows:
        print(
            f"{r['page']!s:<30} {r['forms']:>5} {r['fields']:>6} {float(r['evaluate_ms_per_form']):>17.1f} "
            f"{float(r['in_page_ms_per_form']):>10.1f} {float(r['python_ms_per_form']):>15.1f}"
        )
    print(
        f"\nmedian per form: evaluate {summary['evaluate_ms_per_form_median']:.1f} ms "
        f"(in page {summary['in_page_ms_per_form_median']:.1f} ms) + "
        f"python {summary['python_ms_per_form_median']:.1f} ms = {summary['total_ms_per_form_median']:.1f} ms"
        f" (worst page {summary['total_ms_per_form_max']:.1f} ms; goal ≤ 30)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
