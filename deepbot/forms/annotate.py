"""An annotated screenshot of an analysed page: why a form matched or did not.

Each field is boxed, a line joins it to each of its texts (from box edge to box edge, so
it crosses neither the field nor the text it points at), and its attribute and
confidence are written beside it (from the most relevant domain). The way a crawl would
submit the form first (``deepbot.forms.submit``) is marked: its button outlined and
tagged "submit", or "Enter submits" beside the field it would press Enter in. The
drawing is an SVG overlay injected into the page before ``page.screenshot`` and removed
after, so no imaging library is needed and the page is left as it was.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from playwright.async_api import Page

import nseql
from deepbot.browser.failures import translated
from deepbot.errors import FormError
from deepbot.forms.models import Box, DomainMatch, FormAnalysis, PageAnalysis, ScriptAnchor, SubmitControl
from deepbot.forms.submit import submit_candidates

__all__ = ["annotate_screenshot", "overlay_items"]

_OVERLAY_ID = "__deepbot_overlay__"

_DRAW = """({id, items}) => {
  const ns = 'http://www.w3.org/2000/svg';
  const doc = document.documentElement;
  const w = Math.max(doc.scrollWidth, document.body ? document.body.scrollWidth : 0);
  const h = Math.max(doc.scrollHeight, document.body ? document.body.scrollHeight : 0);
  const svg = document.createElementNS(ns, 'svg');
  svg.id = id;
  svg.setAttribute('width', w); svg.setAttribute('height', h);
  svg.style.cssText = 'position:absolute;left:0;top:0;pointer-events:none;z-index:2147483647';
  const add = (tag, attrs, text) => {
    const el = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text) el.textContent = text;
    svg.appendChild(el);
    return el;
  };
  for (const it of items) {
    const color = it.color;
    add('rect', {x: it.box.x, y: it.box.y, width: it.box.width, height: it.box.height, fill: 'none',
                 stroke: color, 'stroke-width': it.stroke});
    for (const t of it.texts) {
      add('rect', {x: t.x, y: t.y, width: t.width, height: t.height, fill: 'none', stroke: color,
                   'stroke-width': 1, 'stroke-dasharray': '3,2'});
    }
    for (const [x1, y1, x2, y2] of it.lines) {
      add('line', {x1, y1, x2, y2, stroke: color, 'stroke-width': 1.5});
    }
    if (it.label) {
      // A field's tag goes beside it; a button's under it, off the field tags of its row.
      const x = it.below ? it.box.x + 2 : it.box.x + it.box.width + 4;
      const y = it.below ? it.box.y + it.box.height + 14 : it.box.y + 12;
      const bg = add('rect', {x: x - 2, y: y - 11, width: it.label.length * 6.6 + 4, height: 15,
                              fill: '#fffbe6', stroke: color, 'stroke-width': 1});
      add('text', {x, y, fill: color, 'font-family': 'monospace', 'font-size': 11}, it.label);
      bg.setAttribute('opacity', '0.9');
    }
  }
  doc.appendChild(svg);
}"""

_REMOVE = "(id) => { const el = document.getElementById(id); if (el) el.remove(); }"

_MATCHED, _UNMATCHED, _IRRELEVANT = "#d6336c", "#1c7ed6", "#868e96"


def overlay_items(analysis: PageAnalysis) -> list[dict[str, Any]]:
    """What to draw for every field (its box, its texts' boxes, the lines joining them, a
    label) and every form's submit button (pure)."""
    items: list[dict[str, Any]] = []
    for form in analysis.forms:
        verdict = _best(form)
        by_field = {a.field: a for a in verdict.assignments} if verdict else {}
        way = _submit_way(form, verdict)
        for field in form.fields:
            if field.hidden:  # nowhere on the page to draw it
                continue
            a = by_field.get(field.name)
            color = _MATCHED if a and verdict and verdict.relevant else _UNMATCHED if a else _IRRELEVANT
            label = f"{a.attribute} {a.confidence:.2f}{' (a filter)' if a.refines else ''}" if a else ""
            if a and verdict and not verdict.relevant:
                label += f" ({verdict.domain} {verdict.score:.2f} ≤ µ {verdict.threshold:g})"
            if isinstance(way, nseql.Press) and way.selector == field.selector:
                label = f"{label} · Enter submits" if label else "Enter submits"
            items.append(_item(field.box, label, color, texts=tuple(link.box for link in field.links)))
        button = _button(form, way)
        if button is not None:
            color = _MATCHED if verdict and verdict.relevant else _UNMATCHED if verdict else _IRRELEVANT
            items.append(_item(button, "submit", color, stroke=3, below=True))
    return items


def _item(box: Box, label: str, color: str, *, texts: tuple[Box, ...] = (), stroke: float = 2,
          below: bool = False) -> dict[str, Any]:
    lines = [line for line in (edge_to_edge(box, text) for text in texts) if line is not None]
    return {"box": box.model_dump(), "texts": [b.model_dump() for b in texts], "lines": lines,
            "label": label, "color": color, "stroke": stroke, "below": below}


def edge_to_edge(a: Box, b: Box) -> tuple[float, float, float, float] | None:
    """The part of the line between the centres of ``a`` and ``b`` that lies outside both
    (x1, y1 on a's edge, x2, y2 on b's); None when they overlap along it."""
    (ax, ay), (bx, by) = a.center, b.center
    dx, dy = bx - ax, by - ay

    def inside(box: Box) -> float:
        """The share of the centre-to-centre line that lies inside ``box``, from its centre."""
        return min(box.width / 2 / abs(dx) if dx else math.inf, box.height / 2 / abs(dy) if dy else math.inf)

    start, end = inside(a), inside(b)
    if start + end >= 1:
        return None
    return (ax + start * dx, ay + start * dy, bx - end * dx, by - end * dy)


def _submit_way(form: FormAnalysis, verdict: DomainMatch | None) -> nseql.Step | None:
    """The step a crawl would try first to submit ``form``: the text fields its queries
    type in are filled first (Enter goes to the last of them)."""
    if form.hidden:
        return None
    assigned = {a.field for a in verdict.assignments if a.primary} if verdict else set()
    typed = [nseql.Fill(f.selector, "x") for f in form.fields
             if f.kind == "unbounded" and not f.hidden and (f.name in assigned or not assigned)]
    candidates = submit_candidates(form, typed)
    return nseql.parse(candidates[0]).steps[0] if candidates else None


def _button(form: FormAnalysis, way: nseql.Step | None) -> Box | None:
    """The box of the button or link ``way`` clicks, if it is one of the form's and shows."""
    if not isinstance(way, nseql.Click):
        return None
    controls: list[SubmitControl | ScriptAnchor] = [*form.submits, *form.script_anchors]
    box = next((c.box for c in controls if c.selector == way.selector), None)
    return box if box is not None and box.width > 0 and box.height > 0 else None


def _best(form: FormAnalysis) -> DomainMatch | None:
    if not form.domains:
        return None
    return max(form.domains, key=lambda d: (d.relevant, d.score))


async def annotate_screenshot(page: Page, analysis: PageAnalysis, path: Path) -> None:
    """Write a full-page PNG of ``page`` with the analysis drawn over it."""
    items = overlay_items(analysis)
    with translated("could not draw the annotated screenshot", other=FormError):
        await page.evaluate(_DRAW, {"id": _OVERLAY_ID, "items": items})
        try:
            await page.screenshot(path=str(path), full_page=True)
        finally:
            await page.evaluate(_REMOVE, _OVERLAY_ID)
