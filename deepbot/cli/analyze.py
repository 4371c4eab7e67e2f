"""``deepbot analyze TARGET --domain FILE``: what the Form Analyzer sees on one page.

Which text was paired with which field, which field matched which attribute with
what confidence, the relevance sum against µ; ``--json`` for tools, ``--screenshot``
for people.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from deepbot.config.domain import Domain, load_domain
from deepbot.errors import BrowserCrashedError, BrowserError
from deepbot.forms.models import FormAnalysis, PageAnalysis

_ATTEMPTS = 2


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "analyze",
        help="show how the Form Analyzer reads the forms of a page",
        description="Analyse every form of a page (a URL or a local HTML file) against domain definitions.",
    )
    parser.add_argument("target", metavar="TARGET", help="a URL or a local HTML file")
    parser.add_argument(
        "--domain",
        dest="domains",
        action="append",
        required=True,
        metavar="FILE",
        help="a domain definition (YAML); repeat for several",
    )
    parser.add_argument("--json", action="store_true", help="print the analysis as JSON")
    parser.add_argument(
        "--screenshot", metavar="PNG", type=Path, help="write an annotated full-page screenshot"
    )
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="seconds to wait for the page (default 30)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    domains = [load_domain(path) for path in args.domains]
    analysis = asyncio.run(_analyze(target_url(args.target), domains, args.screenshot, args.timeout))
    if args.json:
        json.dump(to_json(analysis), sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print(report(analysis))
    if args.screenshot:
        print(f"screenshot: {args.screenshot}", file=sys.stderr)
    return 0


def target_url(target: str) -> str:
    """A URL as given, or a local file as a file:// URL."""
    if "://" in target or target.startswith(("about:", "data:")):
        return target
    path = Path(target).expanduser()
    if not path.is_file():
        raise BrowserError(f"{target}: no such file (and not a URL)")
    return path.resolve().as_uri()


async def _analyze(url: str, domains: list[Domain], screenshot: Path | None, timeout: float) -> PageAnalysis:
    # A browser that dies under one page (out of memory, a renderer crash) says nothing
    # about the page: one more try with a fresh browser, as the crawl retries a route.
    for attempt in range(1, _ATTEMPTS + 1):
        try:
            return await _analyze_once(url, domains, screenshot, timeout)
        except BrowserCrashedError as exc:
            if attempt == _ATTEMPTS:
                raise
            first_line = str(exc).splitlines()[0] if str(exc) else "the browser crashed"
            print(f"deepbot: {first_line}; retrying with a fresh browser", file=sys.stderr)
    raise AssertionError("unreachable")


async def _analyze_once(
    url: str, domains: list[Domain], screenshot: Path | None, timeout: float
) -> PageAnalysis:
    from deepbot.browser import chromium
    from deepbot.browser.failures import translated
    from deepbot.crawl.visit import answer_overlay
    from deepbot.forms.analyzer import analyze_page
    from deepbot.forms.annotate import annotate_screenshot

    async with chromium() as browser:
        with translated(f"could not load {url}"):
            page = await browser.new_page()
            await page.goto(url, wait_until="load", timeout=timeout * 1000)
        # What a crawl does first: a cookie wall would cover the form on the screenshot.
        answered = await answer_overlay(page)
        if answered:
            print(f"deepbot: answered an overlay first: {answered.strip()}", file=sys.stderr)
        analysis = await analyze_page(page, domains)
        if screenshot is not None:
            await annotate_screenshot(page, analysis, screenshot)
        return analysis


def to_json(analysis: PageAnalysis) -> dict[str, Any]:
    """The issue's JSON shape (url, forms[form_index, action, method, fields, domains]) plus details."""
    return {
        "url": analysis.url,
        "title": analysis.title,
        "forms": [_form_json(f) for f in analysis.forms],
    }


def _form_json(form: FormAnalysis) -> dict[str, Any]:
    return {
        "form_index": form.form_index,
        "selector": form.selector,
        "virtual": form.virtual,
        "action": form.action,
        "method": form.method,
        "challenge": form.challenge,
        "opened": list(form.opened),
        "hidden": form.hidden,
        "best_domain": form.best_domain.domain if form.best_domain else None,
        "evidence": [t.model_dump(mode="json") for t in form.evidence],
        "box": form.box.model_dump(),
        "fields": [
            {
                "name": f.name,
                "kind": f.kind,
                "type": f.type,
                "texts": list(f.texts),
                "values": list(f.values),
                "selector": f.selector,
                "html_name": f.html_name,
                "id": f.id,
                "hints": list(f.hints),
                "evidence": [t.model_dump(mode="json") for t in f.evidence],
                "hidden": f.hidden,
                "options": [o.model_dump() for o in f.options],
                "links": [link.model_dump(mode="json") for link in f.links],
                "box": f.box.model_dump(),
                "multiple": f.multiple,
                "required": f.required,
            }
            for f in form.fields
        ],
        "submits": [s.model_dump() for s in form.submits],
        "script_anchors": [a.model_dump() for a in form.script_anchors],
        "domains": [
            {
                "domain": d.domain,
                "score": d.score,
                "threshold": d.threshold,
                "relevant": d.relevant,
                "assignments": [a.model_dump() for a in d.assignments],
                "form_attribute": d.form_attribute.model_dump() if d.form_attribute else None,
                "similarities": [e.model_dump(mode="json") for e in d.similarities],
            }
            for d in form.domains
        ],
    }


def report(analysis: PageAnalysis) -> str:
    """A readable account of every form: texts per field, assignments, verdicts."""
    lines = [f"{analysis.url}  ({len(analysis.forms)} form{'s' if len(analysis.forms) != 1 else ''})"]
    for form in analysis.forms:
        lines.append("")
        if form.virtual:  # no <form>: nothing is sent to an action, a script reads the fields
            lines.append(f"form {form.form_index}  no <form>: controls in [{form.selector}]")
        else:
            lines.append(f"form {form.form_index}  {form.method.upper()} {form.action}  [{form.selector}]")
        width = max((len(f.name) for f in form.fields), default=4)
        for f in form.fields:
            texts = " | ".join(f.texts) or "-"
            extra = f"  hints: {' | '.join(f.hints)}" if f.hints else ""
            if f.hidden and not form.hidden:
                extra += "  (folded away: read from its markup)"
            lines.append(f"  {f.name:<{width}}  {f.kind:<9} {f.type:<15} {texts}{extra}")
            if f.type in ("radio", "checkbox"):
                for o in f.options:
                    lines.append(f"  {'':<{width}}    = {o.value!r}: {o.label}")
            elif f.values:
                shown = ", ".join(f.values[:8]) + (", …" if len(f.values) > 8 else "")
                lines.append(f"  {'':<{width}}    values: {shown}")
        for s in form.submits:
            lines.append(f"  submit: {s.type} {s.text!r}  [{s.selector}]")
        for anchor in form.script_anchors[:3]:
            lines.append(f"  script anchor: {anchor.text!r} {anchor.distance:.0f}px  [{anchor.selector}]")
        for selector in form.opened:
            lines.append(f"  opened first by a click on [{selector}]")
        if form.challenge is not None:
            lines.append(f"  guarded by {form.challenge}: a crawl does not query it")
        if form.hidden:
            lines.append("  hidden: no control of it shows; read from its markup, a crawl does not query it")
        if form.evidence:
            says = " | ".join(f"{t.text} ({t.evidence.value})" for t in form.evidence)
            lines.append(f"  the form says: {says}")
        for d in form.domains:
            verdict = "RELEVANT" if d.relevant else "not relevant"
            lines.append(f"  {d.domain}: score {d.score:.3f} vs µ {d.threshold:g} → {verdict}")
            for a in d.assignments:
                shared = ("  (a filter: left as the page set it)" if a.refines
                          else "" if a.primary else "  (shares the attribute)")
                lines.append(f"    {a.field} → {a.attribute}  confidence {a.confidence:.2f}{shared}")
            if d.chooser is not None:
                named = ", ".join(f"{n.label!r} → {n.attribute}" for n in d.chooser.attributes)
                lines.append(f"    {d.chooser.field} chooses what {d.chooser.target} searches: {named}")
            if d.form_attribute is not None:
                a = d.form_attribute
                lines.append(f"    (the form as a whole) → {a.attribute}  confidence {a.confidence:.2f}")
        best = form.best_domain
        if best is not None and len(form.relevant_domains) > 1:
            lines.append(f"  fits {best.domain} best")
    return "\n".join(lines)
