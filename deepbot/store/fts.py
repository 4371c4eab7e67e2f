"""User queries → FTS5 MATCH expressions that cannot be a syntax error.

The query language is the relevance filter's (``deepbot.text.query``): AND, OR,
NOT, parentheses, "phrases", prefix*. Every term is emitted as an FTS5 string, so
``C++``, ``NEAR`` or a stray ``:`` reach the tokenizer instead of the parser. A query
that does not parse is searched as all of its words, because a search box should
answer rather than lecture; a query FTS5 cannot express (nothing left after the
negations) is a ConfigError.
"""

from __future__ import annotations

import re

from deepbot.errors import ConfigError
from deepbot.text.query import And, Node, Not, Or, Phrase, Term, parse_query

_WORD = re.compile(r'[^\s()"]+')
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # FTS5 reads a NUL as the end of the query string


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _lenient(query: str) -> Node | None:
    words = [w for w in _WORD.findall(query) if w not in ("AND", "OR", "NOT")]
    if not words:
        return None
    return Term(words[0]) if len(words) == 1 else And(tuple(Term(w) for w in words))


def _simplify(node: Node) -> Node:
    """NOT NOT x is x."""
    while isinstance(node, Not) and isinstance(node.operand, Not):
        node = node.operand.operand
    return node


def _emit(node: Node) -> str:
    node = _simplify(node)
    if isinstance(node, Term):
        return _quote(node.text) + (" *" if node.prefix else "")
    if isinstance(node, Phrase):
        return _quote(" ".join(node.words))
    if isinstance(node, Not):
        raise ConfigError("search query: NOT needs a term to subtract from, e.g. 'java NOT script'")
    if isinstance(node, Or):
        return "(" + " OR ".join(_emit(child) for child in node.operands) + ")"
    operands = [_simplify(c) for c in node.operands]
    positives = [c for c in operands if not isinstance(c, Not)]
    negatives = [c.operand for c in operands if isinstance(c, Not)]
    if not positives:
        raise ConfigError("search query: NOT needs a term to subtract from, e.g. 'java NOT script'")
    expr = _emit(positives[0]) if len(positives) == 1 else "(" + " AND ".join(map(_emit, positives)) + ")"
    for negative in negatives:
        expr = f"({expr} NOT {_emit(negative)})"
    return expr


def fts_query(query: str) -> str | None:
    """The FTS5 expression for a user query; None when it holds no term at all."""
    query = _CONTROL.sub(" ", query)
    try:
        node: Node | None = parse_query(query)
    except ConfigError:
        node = _lenient(query)
    return None if node is None else _emit(node)
