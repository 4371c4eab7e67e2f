"""How to submit a filled form, in the paper's order (§IV.C), as NSEQL candidates (pure).

Input type submit, then image, then button; then anchors near the form whose
href/onclick carries script, nearest and most submit-like first; finally
``form.submit()``. The crawler tries them in turn and keeps the first that
navigates or changes the page.
"""

from __future__ import annotations

import nseql
from deepbot.forms.models import FormAnalysis
from deepbot.forms.textsim import SoftTfidf

SUBMIT_WORDS = "search go find submit look up show results ok send"
_ORDER = {"submit": 0, "image": 1, "button": 2}
MAX_ANCHORS = 3
_NOT_SUBMIT = ("reset", "clear", "cancel", "back", "help", "close")


def submit_candidates(form: FormAnalysis) -> tuple[str, ...]:
    """Each candidate is one NSEQL step, canonical text."""
    steps: list[nseql.Step] = []
    controls = [c for c in form.submits if not _looks_negative(c.text)]
    controls.sort(key=lambda c: _ORDER.get(c.type, 3))  # stable: document order within a type
    steps.extend(nseql.Click(c.selector) for c in controls)
    if form.script_anchors:
        scorer = SoftTfidf([SUBMIT_WORDS, *(a.text for a in form.script_anchors)])
        ranked = sorted(
            (a for a in form.script_anchors if not _looks_negative(a.text)),
            # proximity in ~character cells, then how much the text says "search"
            key=lambda a: (round(a.distance / 40), -scorer.similarity(a.text, SUBMIT_WORDS)),
        )
        steps.extend(nseql.Click(a.selector) for a in ranked[:MAX_ANCHORS])
    steps.append(nseql.Submit(form.selector))
    return tuple(nseql.dump(nseql.Program.of(step)) for step in steps)


def _looks_negative(text: str) -> bool:
    words = text.casefold().split()
    return bool(words) and words[0] in _NOT_SUBMIT
