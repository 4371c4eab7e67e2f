"""The keyword boolean query language: lexer → parser → frozen AST → matcher.

    java AND (xml OR "web services") AND NOT javascript

Operators are upper-case words (``AND``, ``OR``, ``NOT``); two terms side by side are
ANDed; ``NOT`` binds tighter than ``AND``, which binds tighter than ``OR``. A term is
any run of characters other than space, parentheses and ``"``, so ``C++`` and
``.net`` are terms; a trailing ``*`` makes a prefix term (``crawl*``). Quote an
operator word to search for it (``"AND"``).

The same AST drives the relevance filter (:class:`KeywordQuery`, regex matching of
whole words and phrases, case-insensitive) and the full-text search, which compiles it
to FTS5 syntax (``deepbot.store.fts``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from deepbot.errors import ConfigError

# --- AST ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Term:
    text: str
    prefix: bool = False  # written with a trailing '*'


@dataclass(frozen=True, slots=True)
class Phrase:
    words: tuple[str, ...]  # at least two words; a one-word phrase is a Term


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node


@dataclass(frozen=True, slots=True)
class And:
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Or:
    operands: tuple[Node, ...]


Node = Term | Phrase | Not | And | Or


# --- lexer -------------------------------------------------------------------------


class _Kind(Enum):
    WORD = "term"
    PHRASE = "phrase"
    AND = "AND"
    OR = "OR"
    NOT = "NOT"
    LPAREN = "'('"
    RPAREN = "')'"
    END = "end of query"


@dataclass(frozen=True, slots=True)
class _Token:
    kind: _Kind
    text: str
    pos: int  # 0-based offset into the query


_OPERATORS = {"AND": _Kind.AND, "OR": _Kind.OR, "NOT": _Kind.NOT}
_WORD = re.compile(r'[^\s()"]+')


def query_error(query: str, pos: int, message: str) -> ConfigError:
    """A ConfigError naming the 1-based column, with a caret under it."""
    return ConfigError(f"invalid query at column {pos + 1}: {message}\n  {query}\n  {' ' * pos}^")


def _tokenize(query: str) -> list[_Token]:
    tokens: list[_Token] = []
    i = 0
    while i < len(query):
        ch = query[i]
        if ch.isspace():
            i += 1
        elif ch in "()":
            tokens.append(_Token(_Kind.LPAREN if ch == "(" else _Kind.RPAREN, ch, i))
            i += 1
        elif ch == '"':
            end = query.find('"', i + 1)
            if end < 0:
                raise query_error(query, i, 'unterminated phrase (missing closing ")')
            tokens.append(_Token(_Kind.PHRASE, query[i + 1 : end], i))
            i = end + 1
        else:
            match = _WORD.match(query, i)
            assert match is not None  # any other character starts a word
            word = match.group()
            tokens.append(_Token(_OPERATORS.get(word, _Kind.WORD), word, i))
            i = match.end()
    tokens.append(_Token(_Kind.END, "", len(query)))
    return tokens


# --- parser ------------------------------------------------------------------------
#   or    := and ("OR" and)*
#   and   := unary (["AND"] unary)*
#   unary := "NOT" unary | atom
#   atom  := WORD | PHRASE | "(" or ")"

_STARTS_ATOM = {_Kind.WORD, _Kind.PHRASE, _Kind.LPAREN, _Kind.NOT}


class _Parser:
    def __init__(self, query: str) -> None:
        self.query = query
        self.tokens = _tokenize(query)
        self.i = 0

    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def error(self, message: str, tok: _Token | None = None) -> ConfigError:
        return query_error(self.query, (tok or self.tok).pos, message)

    def parse(self) -> Node:
        if self.tok.kind is _Kind.END:
            raise self.error("empty query")
        node = self.parse_or()
        stop = self.tokens[self.i]  # parse_or stops only at the end or at a ')' closing nothing
        if stop.kind is not _Kind.END:
            raise self.error("unexpected ')' (no matching '(')", stop)
        return node

    def parse_or(self) -> Node:
        operands = [self.parse_and()]
        while self.tok.kind is _Kind.OR:
            self.i += 1
            operands.append(self.parse_and())
        return operands[0] if len(operands) == 1 else Or(tuple(operands))

    def parse_and(self) -> Node:
        operands = [self.parse_unary()]
        while self.tok.kind is _Kind.AND or self.tok.kind in _STARTS_ATOM:
            if self.tok.kind is _Kind.AND:
                self.i += 1
            operands.append(self.parse_unary())
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def parse_unary(self) -> Node:
        if self.tok.kind is _Kind.NOT:
            self.i += 1
            return Not(self.parse_unary())
        return self.parse_atom()

    def parse_atom(self) -> Node:
        tok = self.tok
        if tok.kind is _Kind.WORD:
            self.i += 1
            return _word(tok.text)
        if tok.kind is _Kind.PHRASE:
            self.i += 1
            words = tuple(tok.text.split())
            if not words:
                raise self.error("empty phrase", tok)
            return Term(words[0]) if len(words) == 1 else Phrase(words)
        if tok.kind is _Kind.LPAREN:
            self.i += 1
            node = self.parse_or()
            if self.tok.kind is not _Kind.RPAREN:
                raise self.error(f"missing ')' to close the '(' at column {tok.pos + 1}")
            self.i += 1
            return node
        raise self.error(f"expected a term, found {tok.kind.value}")


def _word(text: str) -> Term:
    if len(text) > 1 and text.endswith("*"):
        return Term(text.rstrip("*") or text, prefix=True)
    return Term(text)


def parse_query(query: str) -> Node:
    """Parse a boolean keyword query; a syntax error is a ConfigError with the column."""
    return _Parser(query).parse()


def terms(node: Node) -> list[Term | Phrase]:
    """The leaves of a query, in order (negated ones included)."""
    if isinstance(node, Term | Phrase):
        return [node]
    if isinstance(node, Not):
        return terms(node.operand)
    return [leaf for child in node.operands for leaf in terms(child)]


# --- matcher -----------------------------------------------------------------------

Matcher = Callable[[str], bool]


def _leaf_pattern(leaf: Term | Phrase) -> re.Pattern[str]:
    # Whole words: no word character may touch either end of the match. Phrase words
    # may be separated by any run of non-word characters ("web, services").
    if isinstance(leaf, Phrase):
        body = r"\W+".join(re.escape(w) for w in leaf.words)
        tail = r"(?!\w)"
    else:
        body = re.escape(leaf.text)
        tail = r"\w*" if leaf.prefix else r"(?!\w)"
    return re.compile(rf"(?<!\w){body}{tail}", re.IGNORECASE)


def _compile(node: Node) -> Matcher:
    if isinstance(node, Term | Phrase):
        search = _leaf_pattern(node).search
        return lambda text: search(text) is not None
    if isinstance(node, Not):
        inner = _compile(node.operand)
        return lambda text: not inner(text)
    parts = [_compile(child) for child in node.operands]
    if isinstance(node, And):
        return lambda text: all(part(text) for part in parts)
    return lambda text: any(part(text) for part in parts)


class KeywordQuery:
    """A parsed query compiled once to regexes, matched against many texts."""

    def __init__(self, query: str) -> None:
        self.text = query
        self.ast = parse_query(query)
        self._match = _compile(self.ast)

    def matches(self, text: str) -> bool:
        return self._match(text)

    def __repr__(self) -> str:
        return f"KeywordQuery({self.text!r})"
