"""The NSEQL syntax tree: frozen, typed, one class per step.

Every node carries the 1-based ``line`` and ``column`` where it was parsed (0 when
built in code). Positions do not take part in equality, so a parsed program equals
the same program built by hand, and ``parse(dump(p)) == p``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from nseql.errors import ProgramError
from nseql.frames import frame_path

SelectBy = Literal["label", "value", "like"]


_SURROGATE = re.compile("[\ud800-\udfff]")  # category Cs; one scan in C, for every URL of every page


def check_text(text: str, what: str) -> None:
    """Any string except lone surrogates, which no file encoding can hold."""
    if _SURROGATE.search(text):
        raise ProgramError(f"{what} contains a lone surrogate code point")


def check_nonempty(text: str, what: str) -> None:
    check_text(text, what)
    if not text:
        raise ProgramError(f"{what} must not be empty")


def comment_char_ok(ch: str) -> bool:
    """Comments are written raw, so they hold anything but line breaks and controls."""
    return ch == "\t" or unicodedata.category(ch) not in ("Cc", "Cs", "Zl", "Zp")


def check_comment(text: str) -> None:
    bad = next((ch for ch in text if not comment_char_ok(ch)), None)
    if bad is not None:
        raise ProgramError(f"a comment cannot contain U+{ord(bad):04X}; comments are one raw line")


def check_pattern(pattern: str) -> None:
    check_nonempty(pattern, "a URL pattern")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ProgramError(f"invalid regular expression: {exc.msg}") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """Source position (not compared) of a statement."""

    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Comment(Node):
    """A whole-line ``# text`` comment, kept so annotated programs survive a round trip."""

    text: str

    def __post_init__(self) -> None:
        check_comment(self.text)


@dataclass(frozen=True, slots=True, kw_only=True)
class Step(Node):
    """One browser event; ``comment`` is an optional trailing ``# text`` on its line."""

    comment: str | None = None

    def __post_init__(self) -> None:
        if self.comment is not None:
            check_comment(self.comment)


@dataclass(frozen=True, slots=True)
class ElementStep(Step):
    """A step acting on the element matched by a Playwright selector (exactly one, except `wait`)."""

    selector: str

    def __post_init__(self) -> None:
        Step.__post_init__(self)
        check_nonempty(self.selector, "a selector")
        frame_path(self.selector)  # an `enter-frame` with no iframe before it or nothing after


@dataclass(frozen=True, slots=True)
class Navigate(Step):
    """``navigate URL``: load URL in the page (relative URLs resolve against the current page)."""

    url: str

    def __post_init__(self) -> None:
        Step.__post_init__(self)
        check_nonempty(self.url, "a URL")


@dataclass(frozen=True, slots=True)
class Click(ElementStep):
    """``click SEL``."""


@dataclass(frozen=True, slots=True)
class Fill(ElementStep):
    """``fill SEL "value"``: replace the field's content (an empty value clears it)."""

    value: str

    def __post_init__(self) -> None:
        ElementStep.__post_init__(self)
        check_text(self.value, "a value")


@dataclass(frozen=True, slots=True)
class Select(ElementStep):
    """``select SEL "label"``, ``select SEL value "v"`` or ``select SEL like "text"``: choose
    an option of a <select>; ``like``: the option that reads most like the text, waited
    for (a select whose options a script loads once another field is chosen)."""

    option: str
    by: SelectBy = "label"

    def __post_init__(self) -> None:
        ElementStep.__post_init__(self)
        check_text(self.option, "an option")
        if self.by not in ("label", "value", "like"):
            raise ProgramError(f"select by must be 'label', 'value' or 'like', not {self.by!r}")


@dataclass(frozen=True, slots=True)
class Check(ElementStep):
    """``check SEL``: tick a checkbox or choose a radio button."""


@dataclass(frozen=True, slots=True)
class Uncheck(ElementStep):
    """``uncheck SEL``."""


@dataclass(frozen=True, slots=True)
class Hover(ElementStep):
    """``hover SEL``: move the mouse over the element (opens hover menus)."""


@dataclass(frozen=True, slots=True)
class Dismiss(ElementStep):
    """``dismiss SEL``: click SEL if it is shown, and whenever it shows again before a later
    action in this tab (an overlay such as a cookie banner); nothing if it never shows."""


@dataclass(frozen=True, slots=True)
class Press(ElementStep):
    """``press SEL "Enter"``: focus the element and press a key (Playwright key names)."""

    key: str

    def __post_init__(self) -> None:
        ElementStep.__post_init__(self)
        check_nonempty(self.key, "a key")


@dataclass(frozen=True, slots=True)
class Submit(ElementStep):
    """``submit SEL``: ``HTMLFormElement.submit()`` on the matched form or its owner form."""


@dataclass(frozen=True, slots=True)
class WaitNavigation(Step):
    """``wait navigation``: the page has navigated since the previous action began."""


@dataclass(frozen=True, slots=True)
class WaitLoad(Step):
    """``wait load``: the document's load event has fired."""


@dataclass(frozen=True, slots=True)
class WaitSelector(ElementStep):
    """``wait SEL``: some element matching SEL is visible."""


@dataclass(frozen=True, slots=True)
class WaitUrl(Step):
    """``wait url "REGEX"``: the page URL contains a match of the (Python) regex."""

    pattern: str

    def __post_init__(self) -> None:
        Step.__post_init__(self)
        check_pattern(self.pattern)


@dataclass(frozen=True, slots=True)
class Back(Step):
    """``back``: go one page back in history."""


Statement = Step | Comment


@dataclass(frozen=True, slots=True)
class Program:
    """A parsed or built NSEQL program; immutable, so parse once and run many times."""

    body: tuple[Statement, ...] = ()

    @classmethod
    def of(cls, *statements: Statement) -> Program:
        return cls(tuple(statements))

    @property
    def steps(self) -> tuple[Step, ...]:
        """The executable statements, without comments."""
        return tuple(s for s in self.body if isinstance(s, Step))

    def __add__(self, other: Program) -> Program:
        return Program(self.body + other.body)
