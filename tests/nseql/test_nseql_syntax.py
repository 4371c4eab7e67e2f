"""NSEQL parsing and dumping: golden cases from golden.yaml, error positions, models."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import nseql
from nseql import (
    Back,
    Click,
    Comment,
    Fill,
    Navigate,
    ParseError,
    Program,
    ProgramError,
    Select,
    Statement,
    WaitSelector,
    WaitUrl,
    dump,
    parse,
)

GOLDEN = yaml.safe_load((Path(__file__).parent / "golden.yaml").read_text(encoding="utf-8"))


def as_dict(node: Statement) -> dict[str, Any]:
    """Class, position and every field that differs from its default."""
    out: dict[str, Any] = {"type": type(node).__name__}
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if f.name in ("line", "column") or value != f.default:
            out[f.name] = value
    return out


@pytest.mark.parametrize("case", GOLDEN["valid"], ids=[c["name"] for c in GOLDEN["valid"]])
def test_golden_valid(case: dict[str, Any]) -> None:
    program = parse(case["text"])
    assert [as_dict(s) for s in program.body] == case["ast"]
    canonical = case.get("dump", case["text"])
    assert dump(program) == canonical
    assert parse(canonical) == program
    assert dump(parse(canonical)) == canonical


@pytest.mark.parametrize("case", GOLDEN["invalid"], ids=[c["name"] for c in GOLDEN["invalid"]])
def test_golden_invalid(case: dict[str, Any]) -> None:
    with pytest.raises(ParseError) as caught:
        parse(case["text"])
    error = caught.value
    assert (error.line, error.column) == (case["line"], case["column"])
    assert case["message"] in error.message


def test_parse_error_shows_the_source_line_and_a_caret_under_the_column() -> None:
    with pytest.raises(ParseError) as caught:
        parse('navigate http://x.test/\nfill "#q" "unterminated\n')
    assert str(caught.value).splitlines() == [
        "line 2, column 11: unterminated string",
        '  fill "#q" "unterminated',
        "            ^",
    ]
    assert caught.value.source_line == 'fill "#q" "unterminated'


def test_caret_stays_aligned_past_tabs() -> None:
    with pytest.raises(ParseError) as caught:
        parse("\tclik a")
    lines = str(caught.value).splitlines()
    assert lines[1] == "   clik a"  # the tab is shown as one space
    assert lines[2].index("^") == lines[1].index("clik")


def test_golden_covers_every_keyword() -> None:
    seen = {s["type"] for case in GOLDEN["valid"] for s in case["ast"] if s["type"] != "Comment"}
    step_classes = {
        name
        for name in nseql.__all__
        if isinstance(getattr(nseql, name), type)
        and issubclass(getattr(nseql, name), nseql.Step)
        and name not in ("Step", "ElementStep")
    }
    assert step_classes <= seen
    assert set(nseql.USAGE) == {"navigate", "click", "fill", "select", "check", "uncheck", "hover", "press",
                                "submit", "dismiss", "wait", "back"}  # fmt: skip


def test_positions_do_not_take_part_in_equality() -> None:
    built = Program.of(Navigate("http://x.test/"), Click("#go", comment="go"))
    parsed = parse("\n\n   navigate http://x.test/\nclick '#go'  # go\n")
    assert parsed == built
    assert [(s.line, s.column) for s in parsed.body] == [(3, 4), (4, 1)]
    assert [(s.line, s.column) for s in built.body] == [(0, 0), (0, 0)]


def test_comments_are_part_of_the_program() -> None:
    assert parse("# a\nback\n") != parse("back\n")
    assert parse("back  # a\n") != parse("back\n")
    assert parse("# a\nback\n").steps == (Back(),)


def test_programs_concatenate_and_stay_immutable() -> None:
    head = parse("navigate http://x.test/\n")
    tail = parse("click a\n")
    assert dump(head + tail) == "navigate http://x.test/\nclick a\n"
    with pytest.raises(dataclasses.FrozenInstanceError):
        head.body = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        tail.body[0].selector = "b"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("build", "fragment"),
    [
        (lambda: Click(""), "selector must not be empty"),
        (lambda: Navigate(""), "URL must not be empty"),
        (lambda: WaitUrl("("), "invalid regular expression"),
        (lambda: Fill("a", "\ud800"), "surrogate"),
        (lambda: Comment("two\nlines"), "U+000A"),
        (lambda: Click("a", comment="bad\u2028"), "U+2028"),
        (lambda: Select("a", "b", by="index"), "'label', 'value' or 'like'"),  # type: ignore[arg-type]
    ],
)
def test_invalid_steps_are_refused_when_built(build: Any, fragment: str) -> None:
    with pytest.raises(ProgramError, match=re.escape(fragment)):
        build()


def test_program_error_is_also_a_value_error() -> None:
    with pytest.raises(ValueError):
        WaitSelector("")


def test_dump_quotes_only_what_needs_it() -> None:
    program = Program.of(
        Click("css=#go"),
        Click("#go"),
        Click("a b"),
        Click('a"b'),
        Click("a'b"),
        Click("a'\"b"),
        Click("é"),
        Click("\u00a0"),
        WaitSelector("load"),
        Fill("q", "plain"),
    )
    assert dump(program).splitlines() == [
        "click css=#go",
        'click "#go"',
        'click "a b"',
        "click 'a\"b'",
        'click "a\'b"',
        'click "a\'\\"b"',
        "click é",
        'click "\\u00a0"',
        'wait "load"',
        'fill q "plain"',
    ]


def test_enter_frame_splits_a_chain_outside_quotes() -> None:
    from nseql.frames import frame_path

    assert frame_path("css=#a >> b") == ["css=#a >> b"]
    assert frame_path('css=#wall >> iframe >> enter-frame >> xpath=//b[.="x >> enter-frame >> y"]') == [
        "css=#wall >> iframe", 'xpath=//b[.="x >> enter-frame >> y"]']
    assert frame_path("iframe.a >> enter-frame >> iframe.b>>enter-frame>>text='It\\'s >> here'") == [
        "iframe.a", "iframe.b", "text='It\\'s >> here'"]
    assert frame_path("css=enter-frame >> a") == ["css=enter-frame >> a"]  # a custom element's tag


@pytest.mark.parametrize("text", ["click 'enter-frame >> a'", "click 'iframe >> enter-frame'",
                                  "click 'iframe >> enter-frame >> enter-frame >> a'"])
def test_enter_frame_needs_an_iframe_before_and_an_element_after(text: str) -> None:
    with pytest.raises(ParseError, match="enter-frame") as caught:
        nseql.parse(text)
    assert caught.value.column == 7
    with pytest.raises(ProgramError, match="enter-frame"):
        nseql.Click(nseql.parse("click x").steps[0].selector + " >> enter-frame")
