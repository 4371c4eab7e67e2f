"""Property tests: any program survives dump → parse, and dump is stable."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from nseql import (
    Back,
    Check,
    Click,
    Comment,
    Fill,
    Hover,
    Navigate,
    Press,
    Program,
    Select,
    Statement,
    Step,
    Submit,
    Uncheck,
    WaitLoad,
    WaitNavigation,
    WaitSelector,
    WaitUrl,
    dump,
    parse,
)
from nseql.model import comment_char_ok

# Strings that have broken quoting schemes before: quotes, backslashes, '#', keywords,
# escapes written out, odd spaces and line breaks, astral characters.
NASTY = [
    '"',
    "'",
    "\\",
    "\\\\",
    '\\"',
    "#",
    "# not a comment",
    "a # b",
    "navigation",
    "load",
    "url",
    "value",
    "\\n",
    "\\u0041",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\u00a0",
    "\u2028",
    "\x00",
    "\x7f",
    "\ufeff",
    "😀",
    "é",
    'text="Sign in"',
    "role=button[name='Go']",
    "a'\"b\\c",
]

texts = st.one_of(st.sampled_from(NASTY), st.text(), st.text(st.characters(codec="utf-8")))
nonempty = texts.filter(bool)
comments = st.text(st.characters(codec="utf-8").filter(comment_char_ok))
trailing = st.none() | comments
patterns = st.one_of(
    st.sampled_from([r"/lab/form/result\?q=", r"^https?://", r"\d+$", "a|b", "url", "'\""]),
    nonempty.map(re.escape),
)


def element(cls: type[Click | Check | Uncheck | Hover | Submit | WaitSelector]) -> st.SearchStrategy[Step]:
    return st.builds(cls, nonempty, comment=trailing)


steps: st.SearchStrategy[Statement] = st.one_of(
    st.builds(Navigate, nonempty, comment=trailing),
    *(element(cls) for cls in (Click, Check, Uncheck, Hover, Submit, WaitSelector)),
    st.builds(Fill, nonempty, texts, comment=trailing),
    st.builds(Select, nonempty, texts, by=st.sampled_from(["label", "value"]), comment=trailing),
    st.builds(Press, nonempty, nonempty, comment=trailing),
    st.builds(WaitUrl, patterns, comment=trailing),
    st.builds(WaitNavigation, comment=trailing),
    st.builds(WaitLoad, comment=trailing),
    st.builds(Back, comment=trailing),
    st.builds(Comment, comments),
)
programs = st.lists(steps, max_size=12).map(lambda body: Program(tuple(body)))


@settings(deadline=None)  # the machine is shared; timing is not under test
@given(programs)
def test_parse_inverts_dump(program: Program) -> None:
    assert parse(dump(program)) == program


@settings(deadline=None)  # the machine is shared; timing is not under test
@given(programs)
def test_dump_is_stable_and_canonical(program: Program) -> None:
    text = dump(program)
    assert dump(parse(text)) == text
    assert text == "" or text.endswith("\n")
    assert len(text.splitlines()) == len(program.body)  # one line per statement, escapes only


@settings(deadline=None)  # the machine is shared; timing is not under test
@given(programs)
def test_parsed_positions_are_the_dumped_lines(program: Program) -> None:
    parsed = parse(dump(program))
    assert [(s.line, s.column) for s in parsed.body] == [(i, 1) for i in range(1, len(program.body) + 1)]


@settings(deadline=None)  # the machine is shared; timing is not under test
@given(nonempty, texts)
def test_any_selector_and_value_round_trip_through_fill(selector: str, value: str) -> None:
    (step,) = parse(dump(Program.of(Fill(selector, value)))).body
    assert isinstance(step, Fill)
    assert (step.selector, step.value) == (selector, value)
