"""Parse NSEQL text into a :class:`~nseql.model.Program`.

Keywords are bare lowercase words; a quoted token is always data, never a keyword,
so ``wait "load"`` waits for an element matching the selector ``load``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import replace

from nseql.errors import ProgramError
from nseql.frames import frame_path
from nseql.lexer import Kind, Line, Token, tokenize
from nseql.model import (
    Back,
    Check,
    Click,
    Comment,
    Dismiss,
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
    check_pattern,
)

# One line of usage per keyword: the parser's error messages and the README agree.
USAGE: dict[str, str] = {
    "navigate": "navigate URL",
    "click": "click SELECTOR",
    "fill": 'fill SELECTOR "VALUE"',
    "select": 'select SELECTOR "LABEL"  or  select SELECTOR value "VALUE"  or  select SELECTOR like "TEXT"',
    "check": "check SELECTOR",
    "uncheck": "uncheck SELECTOR",
    "hover": "hover SELECTOR",
    "press": 'press SELECTOR "KEY"',
    "submit": "submit SELECTOR",
    "dismiss": "dismiss SELECTOR",
    "wait": 'wait navigation  |  wait load  |  wait url "REGEX"  |  wait SELECTOR',
    "back": "back",
}


def parse(text: str) -> Program:
    """Parse a whole program; raise ParseError at the first malformed line."""
    body: list[Statement] = []
    for line in tokenize(text):
        statement = _statement(line)
        if statement is not None:
            body.append(statement)
    return Program(tuple(body))


def _statement(line: Line) -> Statement | None:
    if not line.tokens:
        if line.comment is None:
            return None  # blank line
        return Comment(line.comment, line=line.number, column=line.comment_column)
    head, *rest = line.tokens
    if head.kind is not Kind.WORD:
        raise line.error("a step starts with a keyword such as click or fill, not a string", head.column)
    build = _BUILDERS.get(head.text)
    if build is None:
        raise line.error(_unknown(head.text), head.column)
    args = _Args(line, head, rest)
    step = build(args)
    args.end()
    return replace(step, line=line.number, column=head.column, comment=line.comment)


def _unknown(word: str) -> str:
    close = difflib.get_close_matches(word.lower(), USAGE, n=1)
    if close:
        return f"unknown step {word!r}; did you mean {close[0]!r}?"
    return f"unknown step {word!r}; steps are: {', '.join(sorted(USAGE))}"


class _Args:
    """The argument tokens of one step, consumed left to right."""

    def __init__(self, line: Line, head: Token, tokens: list[Token]) -> None:
        self.line = line
        self.keyword = head.text
        self.tokens = tokens
        self.index = 0
        self.last_end = head.end

    @property
    def remaining(self) -> int:
        return len(self.tokens) - self.index

    def peek_word(self) -> str | None:
        """The next token's text if it is a bare word (a possible sub-keyword)."""
        if self.remaining and self.tokens[self.index].kind is Kind.WORD:
            return self.tokens[self.index].text
        return None

    def take(self, what: str) -> Token:
        if not self.remaining:
            message = f"{self.keyword} needs {what}; usage: {USAGE[self.keyword]}"
            if self.line.comment is not None:
                message += " (a '#' after a space starts a comment: quote arguments starting with '#')"
            # Point one space after the last token, where the argument belongs.
            raise self.line.error(message, self.last_end + 1)
        token = self.tokens[self.index]
        self.index += 1
        self.last_end = token.end
        return token

    def nonempty(self, what: str) -> str:
        token = self.take(what)
        if not token.text:
            raise self.line.error(f"{what} must not be empty", token.column)
        return token.text

    def selector(self) -> str:
        token = self.take("a selector")
        if not token.text:
            raise self.line.error("a selector must not be empty", token.column)
        try:
            frame_path(token.text)
        except ProgramError as exc:
            raise self.line.error(str(exc), token.column) from None
        return token.text

    def value(self, what: str) -> str:
        return self.take(what).text

    def pattern(self) -> str:
        token = self.take("a regular expression")
        try:
            check_pattern(token.text)
        except ProgramError as exc:
            raise self.line.error(str(exc), token.column) from None
        return token.text

    def end(self) -> None:
        if self.remaining:
            token = self.tokens[self.index]
            raise self.line.error(f"unexpected argument; usage: {USAGE[self.keyword]}", token.column)


def _select(a: _Args) -> Step:
    selector = a.selector()
    if a.remaining == 2 and a.peek_word() in ("value", "like"):
        if a.take("value or like").text == "like":
            return Select(selector, a.value("a text"), by="like")
        return Select(selector, a.value("an option value"), by="value")
    return Select(selector, a.value("an option label"))


def _wait(a: _Args) -> Step:
    word = a.peek_word()
    if word == "navigation":
        a.take(word)
        return WaitNavigation()
    if word == "load":
        a.take(word)
        return WaitLoad()
    if word == "url":
        a.take(word)
        return WaitUrl(a.pattern())
    if not a.remaining:
        a.take("navigation, load, url REGEX or a selector")  # raises, naming every form
    return WaitSelector(a.selector())


_BUILDERS: dict[str, Callable[[_Args], Step]] = {
    "navigate": lambda a: Navigate(a.nonempty("a URL")),
    "click": lambda a: Click(a.selector()),
    "fill": lambda a: Fill(a.selector(), a.value("a value")),
    "select": _select,
    "check": lambda a: Check(a.selector()),
    "uncheck": lambda a: Uncheck(a.selector()),
    "hover": lambda a: Hover(a.selector()),
    "press": lambda a: Press(a.selector(), a.nonempty("a key")),
    "submit": lambda a: Submit(a.selector()),
    "dismiss": lambda a: Dismiss(a.selector()),
    "wait": _wait,
    "back": lambda a: Back(),
}
