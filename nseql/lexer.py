"""Split NSEQL text into lines and each line into tokens.

A line holds bare words, quoted strings and at most one trailing comment:

- a bare word is a run of printable characters without spaces or quotes; it is taken
  literally (a backslash is just a backslash) and cannot start with ``#``;
- ``"…"`` holds anything, with the escapes ``\\\\ \\" \\n \\r \\t \\uXXXX \\UXXXXXXXX``;
- ``'…'`` holds printable characters literally, without ``'`` (handy for regexes and
  selectors containing ``"`` or ``\\``);
- ``#`` at the start of a token begins a comment running to the end of the line.

Spaces and tabs separate tokens. Lines end with LF; a CR before it is dropped.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from nseql.errors import ParseError
from nseql.model import comment_char_ok

_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
_HEX_LENGTH = {"u": 4, "U": 8}
_HEX = frozenset("0123456789abcdefABCDEF")
_BLANK = " \t"


class Kind(Enum):
    WORD = "word"
    STRING = "string"


@dataclass(frozen=True, slots=True)
class Token:
    kind: Kind
    text: str  # the decoded value
    column: int  # 1-based column of its first character
    end: int  # 1-based column just after it


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    source: str
    tokens: tuple[Token, ...]
    comment: str | None  # text after "#" minus one leading space, if the line has one
    comment_column: int  # where the "#" is (0 without a comment)

    def error(self, message: str, column: int) -> ParseError:
        return ParseError(message, line=self.number, column=column, source_line=self.source)


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based number, content) of each line; a final newline adds no empty line."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    for number, part in enumerate(parts, start=1):
        yield number, part.removesuffix("\r")


def tokenize(text: str) -> Iterator[Line]:
    for number, source in split_lines(text):
        yield _Lexer(number, source).line()


def _describe(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'control character')}"


class _Lexer:
    def __init__(self, number: int, source: str) -> None:
        self.number = number
        self.source = source
        self.pos = 0  # 0-based index of the next character

    def error(self, message: str, index: int) -> ParseError:
        return ParseError(message, line=self.number, column=index + 1, source_line=self.source)

    def line(self) -> Line:
        tokens: list[Token] = []
        s = self.source
        while self.pos < len(s):
            ch = s[self.pos]
            if ch in _BLANK:
                self.pos += 1
            elif ch == "#":
                return Line(self.number, s, tuple(tokens), self._comment(), self.pos + 1)
            else:
                tokens.append(self._token(ch))
        return Line(self.number, s, tuple(tokens), None, 0)

    def _token(self, ch: str) -> Token:
        start = self.pos
        if ch == '"':
            text, kind = self._double(), Kind.STRING
        elif ch == "'":
            text, kind = self._single(), Kind.STRING
        else:
            text, kind = self._word(), Kind.WORD
        if self.pos < len(self.source) and self.source[self.pos] not in _BLANK:
            raise self.error("expected a space after the closing quote", self.pos)
        return Token(kind, text, start + 1, self.pos + 1)

    def _comment(self) -> str:
        text = self.source[self.pos + 1 :]
        for offset, ch in enumerate(text):
            if not comment_char_ok(ch):
                raise self.error(f"{_describe(ch)} is not allowed in a comment", self.pos + 1 + offset)
        return text.removeprefix(" ")

    def _word(self) -> str:
        s, start = self.source, self.pos
        while self.pos < len(s) and s[self.pos] not in _BLANK:
            ch = s[self.pos]
            if ch in "\"'":
                raise self.error(
                    "a quote cannot appear inside a bare word; quote the whole argument", self.pos
                )
            if not ch.isprintable():
                raise self.error(f"{_describe(ch)} outside quotes; quote the argument", self.pos)
            self.pos += 1
        return s[start : self.pos]

    def _single(self) -> str:
        s, start = self.source, self.pos
        end = s.find("'", start + 1)
        if end < 0:
            raise self.error("unterminated string", start)
        text = s[start + 1 : end]
        for offset, ch in enumerate(text):
            if not ch.isprintable():
                raise self.error(
                    f"{_describe(ch)} in a '…' string; use a \"…\" string with an escape", start + 1 + offset
                )
        self.pos = end + 1
        return text

    def _double(self) -> str:
        s, start = self.source, self.pos
        out: list[str] = []
        i = start + 1
        while i < len(s):
            ch = s[i]
            if ch == '"':
                self.pos = i + 1
                return "".join(out)
            if ch == "\\":
                decoded, i = self._escape(i)
                out.append(decoded)
                continue
            if not comment_char_ok(ch):
                raise self.error(f"{_describe(ch)} in a string; write it as an escape", i)
            out.append(ch)
            i += 1
        raise self.error("unterminated string", start)

    def _escape(self, i: int) -> tuple[str, int]:
        """Decode the escape whose backslash is at index i; return it and the next index."""
        s = self.source
        if i + 1 >= len(s):
            raise self.error("unterminated string", i)
        code = s[i + 1]
        if code in _ESCAPES:
            return _ESCAPES[code], i + 2
        length = _HEX_LENGTH.get(code)
        if length is None:
            raise self.error(f"unknown escape \\{code}", i)
        digits = s[i + 2 : i + 2 + length]
        if len(digits) != length or not set(digits) <= _HEX:
            raise self.error(f"\\{code} needs exactly {length} hex digits", i)
        value = int(digits, 16)
        if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            raise self.error(f"\\{code}{digits} is not a valid code point", i)
        return chr(value), i + 2 + length
