"""How to submit a filled form, in the paper's order (§IV.C), as NSEQL candidates (pure).

Input type submit, then image, then button; then anchors near the form whose
href/onclick carries script, nearest and most submit-like first; then Enter in the
last field typed in (a page script may listen for it; with a submit control, it is
the browser's implicit submission, which a person uses when the buttons are covered
by a typeahead's suggestions); finally ``form.submit()``. The crawler tries them in
turn and keeps the first that navigates or changes the page.

A virtual form (controls outside any <form>, see ``ExtractedForm.virtual``) has no
form to submit and its buttons are whatever the page put near its fields: those that
say "search" come first, nearest first, then Enter, then the others and the anchors.
"""

from __future__ import annotations

from collections.abc import Sequence

import nseql
from deepbot.forms.models import FormAnalysis
from deepbot.forms.textsim import SoftTfidf

SUBMIT_WORDS = "search go find submit look up show results ok send"
_ORDER = {"submit": 0, "image": 1, "button": 2}
MAX_ANCHORS = 3
_NOT_SUBMIT = ("reset", "clear", "cancel", "back", "help", "close")


def submit_candidates(form: FormAnalysis, filled: Sequence[nseql.Step] = ()) -> tuple[str, ...]:
    """Each candidate is one NSEQL step, canonical text. ``filled``: the steps filling the
    form (the Enter key goes to the last text field they type in)."""
    steps: list[nseql.Step] = []
    controls = [c for c in form.submits if not _looks_negative(c.text)]
    typed = [s.selector for s in filled if isinstance(s, nseql.Fill)]
    enter = [nseql.Press(typed[-1], "Enter")] if typed else []
    if form.virtual:
        scorer = SoftTfidf([SUBMIT_WORDS, *(c.text for c in controls)])
        sims = {c.selector: scorer.similarity(c.text, SUBMIT_WORDS) for c in controls}
        controls.sort(key=lambda c: (sims[c.selector] == 0, round(c.distance / 40), -sims[c.selector]))
        saying = [c for c in controls if sims[c.selector] > 0]
        steps.extend(nseql.Click(c.selector) for c in saying)
        steps.extend(enter)
        steps.extend(nseql.Click(c.selector) for c in controls[len(saying):][:MAX_ANCHORS])
    else:
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
    if not form.virtual:
        # Enter before form.submit(): the browser's own submission, which runs the page's
        # handlers, and a person's way when the buttons are covered (a typeahead's list).
        steps.extend(enter)
        steps.append(nseql.Submit(form.selector))
    return tuple(nseql.dump(nseql.Program.of(step)) for step in steps)


def _looks_negative(text: str) -> bool:
    words = text.casefold().split()
    return bool(words) and words[0] in _NOT_SUBMIT
