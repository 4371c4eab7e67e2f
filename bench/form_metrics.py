"""The paper's metrics (§V) on the labelled forms: ``python bench/form_metrics.py``.

Serves ``fixtures/static/forms/`` on 127.0.0.1, loads every page in one headless
Chromium, runs the Form Analyzer with ``domains/books.yaml`` and
``domains/music.yaml`` and compares text-field, field-attribute and form-domain
associations with ``truth.json``. ``--json`` prints the figures as JSON;
``--errors`` lists every association found but not true, or true but not found.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from playwright.async_api import async_playwright

from deepbot.browser import launch_chromium
from deepbot.config.domain import Domain, load_domain
from deepbot.forms.analyzer import analyze_page
from deepbot.forms.evaluate import Associations, associations, load_truth, metrics, truth_associations
from deepbot.forms.models import PageAnalysis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # fixtures/ is the checkout's, not installed
from fixtures.server import STATIC_ROOT, FixtureServer

ROOT = Path(__file__).resolve().parent.parent
TRUTH = STATIC_ROOT / "forms" / "truth.json"
DOMAINS = (ROOT / "domains" / "books.yaml", ROOT / "domains" / "music.yaml")
PAPER = {  # the paper's global figures (Table 2), worst of books and music
    "text_field": (0.82, 0.88),
    "field_attribute": (0.97, 0.92),
    "form_domain": (1.00, 0.95),
}
KINDS = {"text_field": "text-field", "field_attribute": "field-attribute", "form_domain": "form-domain"}


async def analyze_all(domains: list[Domain], files: list[str]) -> list[tuple[str, PageAnalysis]]:
    out = []
    with FixtureServer() as site:
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            page = await browser.new_page()
            for file in files:
                await page.goto(site.url(f"/forms/{file}"))
                out.append((file, await analyze_page(page, domains)))
            await browser.close()
    return out


def report(found: Associations, real: Associations) -> dict[str, dict[str, dict[str, float | int]]]:
    return {
        kind: {
            group: {
                "precision": round(m.precision, 4),
                "recall": round(m.recall, 4),
                "hits": m.hits,
                "found": m.predicted,
                "real": m.real,
            }
            for group, m in rows.items()
        }
        for kind, rows in metrics(found, real).items()
    }


def print_table(figures: dict[str, dict[str, dict[str, float | int]]]) -> None:
    print(f"{'association':<16} {'group':<8} {'precision':>16} {'recall':>16}   paper P / R")
    for kind, rows in figures.items():
        for group, m in rows.items():
            paper = f"{PAPER[kind][0]:.2f} / {PAPER[kind][1]:.2f}" if group == "overall" else ""
            p = f"{m['hits']}/{m['found']} = {m['precision']:.2f}"
            r = f"{m['hits']}/{m['real']} = {m['recall']:.2f}"
            print(f"{KINDS[kind]:<16} {group:<8} {p:>16} {r:>16}   {paper}")


def print_errors(found: Associations, real: Associations) -> None:
    for kind in KINDS:
        got = set().union(*getattr(found, kind).values())
        want = set().union(*getattr(real, kind).values())
        for label, pairs in (("extra", got - want), ("missed", want - got)):
            for pair in sorted(pairs):
                print(f"{KINDS[kind]:<16} {label:<6} {' | '.join(pair)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--errors", action="store_true", help="list every wrong or missed association")
    parser.add_argument("files", nargs="*", help="only these fixture files (default: all in truth.json)")
    args = parser.parse_args(argv)
    truth = load_truth(TRUTH)
    files = args.files or sorted(truth)
    truth = {f: truth[f] for f in files}
    domains = [load_domain(p) for p in DOMAINS]
    results = asyncio.run(analyze_all(domains, files))
    found, real = associations(results, truth), truth_associations(truth)
    figures = report(found, real)
    if args.json:
        json.dump(figures, sys.stdout, indent=2)
        print()
    else:
        print(f"{len(files)} pages, {sum(len(t['forms']) for t in truth.values())} forms")
        print_table(figures)
    if args.errors:
        print_errors(found, real)
    return 0


if __name__ == "__main__":
    sys.exit(main())
