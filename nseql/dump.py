"""Write a Program as canonical NSEQL text.

The canonical text has one statement per line, each ending with LF, single spaces
between tokens, two spaces before a trailing comment and no blank lines. Selectors
and URLs are bare when they can be; values (fill, select, press, wait url) are
always quoted so a reader sees them as data. A string that needs quotes uses
``'…'`` when that needs no escapes and holds a ``"`` or ``\\``, else ``"…"``.
"""

from __future__ import annotations

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
)

# Bare words that `wait` reads as sub-keywords; a selector spelled so is quoted.
_WAIT_WORDS = frozenset({"navigation", "load", "url"})
_SHORT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def dump(program: Program) -> str:
    return "".join(dump_statement(s) + "\n" for s in program.body)


def dump_statement(statement: Statement) -> str:
    if isinstance(statement, Comment):
        return _comment(statement.text)
    text = dump_step(statement)
    if statement.comment is not None:
        text += "  " + _comment(statement.comment)
    return text


def _comment(text: str) -> str:
    return f"# {text}" if text else "#"


def dump_step(step: Step) -> str:
    """The step's canonical text, without its trailing comment."""
    match step:
        case Navigate(url=url):
            return f"navigate {_arg(url)}"
        case Fill(selector=sel, value=value):
            return f"fill {_arg(sel)} {_quote(value)}"
        case Select(selector=sel, option=option, by=by):
            middle = f" {by}" if by != "label" else ""
            return f"select {_arg(sel)}{middle} {_quote(option)}"
        case Press(selector=sel, key=key):
            return f"press {_arg(sel)} {_quote(key)}"
        case WaitNavigation():
            return "wait navigation"
        case WaitLoad():
            return "wait load"
        case WaitUrl(pattern=pattern):
            return f"wait url {_quote(pattern)}"
        case WaitSelector(selector=sel):
            return f"wait {_quote(sel) if sel in _WAIT_WORDS else _arg(sel)}"
        case (
            Click(selector=sel)
            | Check(selector=sel)
            | Uncheck(selector=sel)
            | Hover(selector=sel)
            | Submit(selector=sel)
            | Dismiss(selector=sel)
        ):
            return f"{_KEYWORDS[type(step)]} {_arg(sel)}"
        case Back():
            return "back"
    raise TypeError(f"not an NSEQL step: {step!r}")


_KEYWORDS: dict[type[Step], str] = {
    Click: "click",
    Check: "check",
    Uncheck: "uncheck",
    Hover: "hover",
    Submit: "submit",
    Dismiss: "dismiss",
}


def _arg(text: str) -> str:
    """A selector or URL: bare when the lexer would read it back unchanged."""
    bare = bool(text) and text[0] != "#" and all(ch.isprintable() and ch not in " \"'" for ch in text)
    return text if bare else _quote(text)


def _quote(text: str) -> str:
    if all(ch.isprintable() for ch in text) and "'" not in text and ('"' in text or "\\" in text):
        return f"'{text}'"
    return '"' + "".join(_escape(ch) for ch in text) + '"'


def _escape(ch: str) -> str:
    if ch in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[ch]
    if ch.isprintable():
        return ch
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
