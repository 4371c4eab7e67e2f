"""The order in which a filled form's ways of submitting are tried (pure)."""

from __future__ import annotations

import nseql
from deepbot.forms.models import Box, FieldAnalysis, FormAnalysis, ScriptAnchor, SubmitControl
from deepbot.forms.submit import submit_candidates

BOX = Box(x=0, y=0, width=100, height=20)
TITLE = FieldAnalysis(name="t", kind="unbounded", type="text", tag="input", selector="#t", box=BOX)
AUTHOR = FieldAnalysis(name="a", kind="unbounded", type="text", tag="input", selector="#a", box=BOX)
FILLED = (nseql.Fill("#t", "java"), nseql.Fill("#a", "knuth"))


def _form(*, virtual: bool = False, submits: tuple[SubmitControl, ...] = (),
          anchors: tuple[ScriptAnchor, ...] = ()) -> FormAnalysis:
    return FormAnalysis(form_index=0, selector="#f", virtual=virtual, action="", method="get", box=BOX,
                        fields=(TITLE, AUTHOR), submits=submits, script_anchors=anchors)


def _button(text: str, selector: str, kind: str = "button", distance: float = 0) -> SubmitControl:
    return SubmitControl.model_validate(
        {"type": kind, "tag": "button", "text": text, "selector": selector, "box": BOX, "distance": distance})


def _steps(candidates: tuple[str, ...]) -> list[nseql.Step]:
    return [step for c in candidates for step in nseql.parse(c).steps]


def test_a_form_with_a_submit_button_is_clicked_then_entered_then_submitted() -> None:
    form = _form(submits=(_button("Reset", "#r"), _button("Go", "#g", "submit")))
    # Enter before form.submit(): what a person does when a typeahead's list covers "Go"
    assert _steps(submit_candidates(form, FILLED)) == [
        nseql.Click("#g"), nseql.Press("#a", "Enter"), nseql.Submit("#f")]
    assert _steps(submit_candidates(form)) == [nseql.Click("#g"), nseql.Submit("#f")]  # nothing typed


def test_a_form_without_a_control_tries_its_anchor_then_enter_then_submit() -> None:
    anchor = ScriptAnchor(text="Search", href="javascript:go()", selector="#s", box=BOX, distance=0)
    form = _form(anchors=(anchor,))
    # Enter where the query was last typed: a page may listen for it (an onsubmit handler
    # that form.submit() would skip)
    assert _steps(submit_candidates(form, FILLED)) == [
        nseql.Click("#s"), nseql.Press("#a", "Enter"), nseql.Submit("#f")]
    assert _steps(submit_candidates(form)) == [nseql.Click("#s"), nseql.Submit("#f")]  # nothing typed


def test_a_virtual_form_tries_what_says_search_then_enter_then_its_other_buttons() -> None:
    form = _form(virtual=True, submits=(
        _button("Menu", "#menu", distance=10), _button("Clear", "#clear"), _button("", "#icon", distance=200),
        _button("Search", "#far", distance=120), _button("Find", "#near", distance=5)))
    assert _steps(submit_candidates(form, FILLED)) == [
        nseql.Click("#near"), nseql.Click("#far"), nseql.Press("#a", "Enter"),
        nseql.Click("#menu"), nseql.Click("#icon")]  # never "Clear", and no form to submit
