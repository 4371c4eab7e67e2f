"""An annotated screenshot of an analysed page: why a form matched or did not.

Each field is boxed, a line joins it to each of its texts, and its attribute and
confidence are written beside it (from the most relevant domain). The drawing is an
SVG overlay injected into the page before ``page.screenshot`` and removed after, so
no imaging library is needed and the page is left as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Page

from deepbot.browser.failures import translated
from deepbot.errors import FormError
from deepbot.forms.models import FormAnalysis, PageAnalysis

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
                 stroke: color, 'stroke-width': 2});
    for (const t of it.texts) {
      add('rect', {x: t.x, y: t.y, width: t.width, height: t.height, fill: 'none', stroke: color,
                   'stroke-width': 1, 'stroke-dasharray': '3,2'});
      add('line', {x1: it.box.x + it.box.width / 2, y1: it.box.y + it.box.height / 2,
                   x2: t.x + t.width / 2, y2: t.y + t.height / 2, stroke: color, 'stroke-width': 1.5});
    }
    if (it.label) {
      const x = it.box.x + it.box.width + 4, y = it.box.y + 12;
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
    """What to draw for every field: its box, its texts' boxes, a label (pure)."""
    items: list[dict[str, Any]] = []
    for form in analysis.forms:
        verdict = _best(form)
        by_field = {a.field: a for a in verdict.assignments} if verdict else {}
        for field in form.fields:
            a = by_field.get(field.name)
            color = _MATCHED if a and verdict and verdict.relevant else _UNMATCHED if a else _IRRELEVANT
            label = f"{a.attribute} {a.confidence:.2f}" if a else ""
            if a and verdict and not verdict.relevant:
                label += f" ({verdict.domain} {verdict.score:.2f} ≤ µ {verdict.threshold:g})"
            boxes = [link.box for link in field.links]
            items.append(
                {
                    "box": field.box.model_dump(),
                    "texts": [b.model_dump() for b in boxes],
                    "label": label,
                    "color": color,
                }
            )
    return items


def _best(form: FormAnalysis) -> Any:
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
