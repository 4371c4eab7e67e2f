"""A fixture page of forms read by a set of domain files, checked against its truth.json:
each form's best domain, and the field → attribute pairs that domain must find."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepbot.config.domain import Domain, load_domain
from deepbot.forms import analyze_page
from fixtures.server import STATIC_ROOT, FixtureServer

ROOT = Path(__file__).resolve().parents[2]


def truth_of(folder: str) -> list[dict[str, Any]]:
    """The forms of ``fixtures/static/forms/<folder>/truth.json``, in page order."""
    forms: list[dict[str, Any]] = json.loads(
        (STATIC_ROOT / "forms" / folder / "truth.json").read_text(encoding="utf-8"))["forms"]
    return forms


def domains_in(folder: str) -> list[Domain]:
    """The domain files of a folder of the repository (``bench/plain_forms/domains``)."""
    return [load_domain(p) for p in sorted((ROOT / folder).glob("*.yaml"))]


async def check_page(site: FixtureServer, browser: Any, folder: str, domains: Sequence[Domain]) -> None:
    """Each form of the page reads as its truth says: its best domain (none where the truth
    says null) and its pairs."""
    page = await browser.new_page()
    try:
        await page.goto(site.url(f"/forms/{folder}/"))
        analysis = await analyze_page(page, domains)
    finally:
        await page.close()
    forms = [f for f in analysis.forms if not f.virtual]
    truths = truth_of(folder)
    assert len(forms) == len(truths)
    for form, truth in zip(forms, truths, strict=True):
        best = form.best_domain
        scores = {d.domain: d.score for d in form.domains}
        if truth["type"] is None:
            assert best is None, (form.form_index, scores)
            continue
        assert best is not None and best.domain == truth["type"], (form.form_index, scores)
        names = {f.name: f.html_name for f in form.fields}
        found = {names[a.field]: a.attribute for a in best.assignments}
        for field, attribute in truth["fields"].items():
            assert found.get(field) == attribute, (form.form_index, field, found)
