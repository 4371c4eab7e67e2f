"""Filling a form with a query (pure): the steps, their order, and what waits for options."""

from __future__ import annotations

import nseql
from deepbot.forms.fill import fill_steps, search_box
from deepbot.forms.models import (
    Assignment,
    Box,
    DomainMatch,
    FieldAnalysis,
    FormAnalysis,
    OptionAnalysis,
    SubmitControl,
)

BOX = Box(x=0, y=0, width=100, height=20)


def _select(name: str, *options: tuple[str, str]) -> FieldAnalysis:
    return FieldAnalysis(name=name, kind="bounded", type="select-one", tag="select", selector=f"#{name}",
                         box=BOX, options=tuple(OptionAnalysis(value=v, label=label) for v, label in options))


def _form(*fields: FieldAnalysis, opened: tuple[str, ...] = ()) -> FormAnalysis:
    return FormAnalysis(form_index=0, selector="#f", action="", method="get", box=BOX, fields=fields,
                        opened=opened)


def _match(*pairs: tuple[str, str]) -> DomainMatch:
    return DomainMatch(domain="cars", score=1.2, threshold=0.9, relevant=True,
                       assignments=tuple(Assignment(field=f, attribute=a, confidence=1.0) for f, a in pairs))


MAKE = _select("make", ("", "Any make"), ("ford", "Ford"), ("toyota", "Toyota"))


def test_a_select_with_only_a_prompt_waits_for_the_option_like_the_value() -> None:
    form = _form(MAKE, _select("model", ("", "Any model")))
    # assigned model first: the steps still go top to bottom, make before model
    query = {"make": "Toyota", "model": "corolla"}
    filled = fill_steps(form, _match(("model", "model"), ("make", "make")), query)
    assert filled is not None
    assert filled.steps == (nseql.Select("#make", "toyota", by="value"),
                            nseql.Select("#model", "corolla", by="like"))
    assert filled.values == {"make": "Toyota", "model": "corolla"}


def test_a_select_with_one_real_option_keeps_it() -> None:
    for only in (("uk", "United Kingdom"), ("0", "English")):
        form = _form(MAKE, _select("country", only))
        query = {"make": "ford", "country": "France"}
        filled = fill_steps(form, _match(("make", "make"), ("country", "country")), query)
        assert filled is not None and [s.selector for s in filled.steps] == ["#make"]  # left at its default


def test_the_toggles_that_showed_folded_fields_come_first() -> None:
    title = FieldAnalysis(name="t", kind="unbounded", type="text", tag="input", selector="#t", box=BOX)
    form = _form(title, opened=('css=[aria-controls="adv"]',))
    filled = fill_steps(form, _match(("t", "title")), {"title": "java"})
    assert filled is not None
    assert filled.steps == (nseql.Click('css=[aria-controls="adv"]'), nseql.Fill("#t", "java"))
    assert fill_steps(form, _match(("t", "title")), {"author": "knuth"}) is None  # nothing to fill: no route


def test_an_option_spelled_another_way_is_found_by_its_sound() -> None:
    # no option is spelled like "Jon" (Jaro-Winkler 0.93 < θ): the one that sounds like it,
    # and of those ("Jane" sounds alike too) the closest spelling
    author = _select("author", ("", "Any author"), ("7", "Jane Austen"), ("9", "John Knuth"), ("3", "Mary"))
    filled = fill_steps(_form(author), _match(("author", "author")), {"author": "Jon"})
    assert filled is not None and filled.steps == (nseql.Select("#author", "9", by="value"),)
    # and nothing when nothing sounds like it either: the default stays
    filled = fill_steps(_form(author), _match(("author", "author")), {"author": "Bob"})
    assert filled is None or filled.steps == ()


def _search_form(field: FieldAnalysis, button: str, *, relevant: bool = False) -> FormAnalysis:
    return _form(field).model_copy(update={
        "submits": (SubmitControl(type="submit", tag="button", text=button, selector="#go", box=BOX),),
        "domains": (DomainMatch(domain="library", score=0.59, threshold=0.9, relevant=relevant),)})


def test_a_page_search_box_is_one_text_field_of_a_form_that_searches() -> None:
    box = FieldAnalysis(name="search", html_name="search", kind="unbounded", type="text", tag="input",
                        selector="#s", box=BOX, hints=("title, author",))
    assert search_box(_search_form(box, "Search"), "library") is box
    # A form relevant by itself takes its queries through its own fields.
    assert search_box(_search_form(box, "Search", relevant=True), "library") is None
    # Two fields are a form to fill, not a box; a box that says nothing of searching is not one.
    author = box.model_copy(update={"name": "author", "html_name": "author"})
    two = _search_form(box, "Search").model_copy(update={"fields": (box, author)})
    assert search_box(two, "library") is None
    mail = box.model_copy(update={"html_name": "email", "name": "email", "hints": ()})
    assert search_box(_search_form(mail, "Subscribe"), "library") is None


def test_a_select_left_at_its_placeholder_takes_its_any_option() -> None:
    title = FieldAnalysis(name="t", kind="unbounded", type="text", tag="input", selector="#t", box=BOX)
    tags = _select("tag", ("", "----------"), ("0", "All tags"), ("py", "python"))
    form = _form(title, tags)
    filled = fill_steps(form, _match(("t", "title")), {"title": "java"})
    assert filled is not None
    # An empty value means "any" to a person; a server may read the placeholder as "none".
    assert filled.steps == (nseql.Fill("#t", "java"), nseql.Select("#tag", "0", by="value"))
    # A select already showing "any", or a real choice, or without such an option, is left.
    for kept in (_select("tag", ("", "Any tag"), ("py", "python")),
                 _select("tag", ("py", "python"), ("0", "All")),
                 _select("tag", ("", "----------"), ("py", "python"))):
        filled = fill_steps(_form(title, kept), _match(("t", "title")), {"title": "java"})
        assert filled is not None and filled.steps == (nseql.Fill("#t", "java"),)
