"""Text out of HTML: the page title, all visible text, the main text and a summary.

Pure functions over an HTML string (the rendered DOM, or raw HTML). Parsed by Lexbor
(selectolax), a C implementation of the HTML Standard's parser: raw HTML is repaired
as a browser repairs it, and a 30 KB page parses in a fraction of a millisecond (the
stdlib's html.parser took ~3 ms of the 4.4 main_text cost; it is 2.5 ms now). Only
the walk that keeps the visible elements is Python.

Main text: boilerplate is dropped (nav/header/footer/aside/forms, ARIA landmarks
such as ``role=navigation``, exact class/id tokens such as ``sidebar``), every
element gets a score (its text length, link text counting less), and starting at
``<main>`` (or ``<body>``) we descend into a child while that child holds most of
the score. Where no child dominates, the text is spread across the children: that
element is the densest block that still holds the content.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from html import unescape

from selectolax.lexbor import LexborHTMLParser, LexborNode


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


_INVISIBLE = _names("script style noscript template head title svg canvas iframe object")
_BOILERPLATE_TAGS = _names("nav header footer aside button select textarea dialog menu")
_BOILERPLATE_ROLES = _names(
    "navigation banner contentinfo complementary search menu menubar dialog alertdialog"
)
# Exact class/id tokens only: "has-sidebar" on a content wrapper must not drop it.
_BOILERPLATE_TOKENS = _names(
    "nav navbar navigation menu sidebar header footer site-header site-footer breadcrumb "
    "breadcrumbs skip-link cookie-banner cookies"
)
_NEVER_BOILERPLATE = _names("html body main article")
_BLOCK = _names(
    "address article aside blockquote body dd details dialog div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section summary table tbody "
    "tfoot thead tr ul caption center"
)
# Elements whose content is one paragraph: main-text descent never goes inside them.
_PARAGRAPH = _names("p pre blockquote h1 h2 h3 h4 h5 h6 li dt dd td th caption figcaption")
_LINK_WEIGHT = 0.3  # link text is navigation more often than content
_DOMINANT = 0.66  # a child holding this share of its parent's score is the better container
_PARAGRAPH_DOMINANT = 0.9  # the same, for a child that is one paragraph
_FORM_MAJORITY = 0.5  # a form holding this share of the page is a page wrapper (ASP.NET), not a form
_CONTROLS = _names("input select textarea button")
_CONTENT_CHARS = 80  # inside a smaller form, a block this long with no control is content
# Deeper elements give their content to their ancestor at this depth (Chromium's parser
# flattens at 512): the tree walks recurse, and raw HTML can nest without bound.
_MAX_DEPTH = 256


@dataclass(eq=False, slots=True)
class _Element:
    tag: str
    attrs: dict[str, str | None]
    parent: _Element | None = None
    children: list[_Element | str] = field(default_factory=list)
    boilerplate: bool = False
    score: float = 0.0
    chars: int = 0  # all visible text characters below, boilerplate included


def _parse(html: str) -> _Element:
    """The visible part of the document as a tree of ``_Element`` and text.

    Lexbor builds the DOM by the HTML Standard's tree construction, as the browser
    did (so raw HTML is repaired the way Chromium repaired it); invisible subtrees
    (scripts, styles, hidden elements) are left out here, once, rather than skipped
    by every walk. The walk is iterative and the tree it builds at most _MAX_DEPTH
    deep: deeper elements give their content to the ancestor at that depth.
    """
    root = _Element("#root", {})
    parsers = [LexborHTMLParser(html)]  # and one per shadow root; alive while their nodes are walked
    top = parsers[0].root
    if top is None:
        return root
    # (node, the element its content goes to, depth): a run of siblings still to walk. An
    # element's next sibling waits on the stack while its children are walked, so the
    # tree is built in document order; text and skipped nodes just step to the next.
    stack: list[tuple[LexborNode | None, _Element, int]] = [(top, root, 0)]
    while stack:
        node, parent, depth = stack.pop()
        while node is not None:
            tag = node.tag
            if tag == "-text":
                parent.children.append(node.text_content or "")
            elif not tag or tag[0] in "-!#_":
                pass  # comments, doctype
            elif tag in _INVISIBLE:  # elements never shown, but for a web component's shadow root
                if tag == "template" and "shadowrootmode" in node.attributes:
                    stack.append((node.next, parent, depth))
                    node = _shadow_root(node, parsers)
                    continue
            elif not _hidden(attrs := node.attributes):  # values may be None (a bare attribute)
                stack.append((node.next, parent, depth))
                if depth < _MAX_DEPTH:
                    boilerplate = parent.boilerplate or _boilerplate(tag, attrs)
                    el = _Element(tag, attrs, parent, boilerplate=boilerplate)
                    parent.children.append(el)
                    parent, depth = el, depth + 1
                node = node.child
                continue
            node = node.next
    return root


def _shadow_root(template: LexborNode, parsers: list[LexborHTMLParser]) -> LexborNode | None:
    """The first node of a declarative shadow root (``<template shadowrootmode>``, as the
    crawler serializes open shadow roots): what the browser shows inside its host, ahead
    of the host's own (slotted) children. Lexbor keeps a template's content out of the
    tree, so it is parsed on its own."""
    markup = template.html or ""
    inner = markup[markup.find(">") + 1 : markup.rfind("</template>")]
    parsers.append(parser := LexborHTMLParser(inner))
    return parser.body.child if parser.body is not None else None


def _hidden(attrs: dict[str, str | None]) -> bool:
    if not attrs:  # most elements: no attribute to look at
        return False
    if "hidden" in attrs or (attrs.get("aria-hidden") or "").lower() == "true":
        return True
    style = attrs.get("style")
    if not style:
        return False
    style = style.replace(" ", "").lower()
    return "display:none" in style or "visibility:hidden" in style


def _boilerplate(tag: str, attrs: dict[str, str | None]) -> bool:
    if tag in _NEVER_BOILERPLATE:
        return False
    if tag in _BOILERPLATE_TAGS:
        return True
    if not attrs:
        return False
    if (attrs.get("role") or "").lower() in _BOILERPLATE_ROLES:
        return True
    classes = attrs.get("class")
    if classes and not _BOILERPLATE_TOKENS.isdisjoint(classes.lower().split()):
        return True
    return (attrs.get("id") or "").lower() in _BOILERPLATE_TOKENS


# --- scoring -------------------------------------------------------------------------


def _measure(el: _Element, in_link: bool = False) -> None:
    """Fill ``chars`` (all visible text) and ``score`` (content text, links weighted)."""
    in_link = in_link or el.tag == "a"
    chars, score = 0, 0.0
    for child in el.children:
        if isinstance(child, str):
            n = len(child.strip())
            chars += n
            score += n * (_LINK_WEIGHT if in_link else 1.0)
        else:
            _measure(child, in_link)
            chars += child.chars
            score += 0.0 if child.boilerplate else child.score
    el.chars, el.score = chars, score


def _demote_small_forms(el: _Element, page_chars: int) -> bool:
    """Mark forms holding a minority of the page as boilerplate; True if any was."""
    demoted = False
    for child in el.children:
        if isinstance(child, _Element) and not child.boilerplate:
            if child.tag == "form" and child.chars < _FORM_MAJORITY * page_chars:
                _demote_controls(child)
                demoted = True
            else:
                demoted = _demote_small_forms(child, page_chars) or demoted
    return demoted


def _demote_controls(el: _Element) -> bool:
    """Mark ``el`` as boilerplate when it holds a control, unless it also holds a block of
    content with none (an ASP.NET page's one form holds its results grid and pager as well
    as its search box): then only its parts holding controls are. True if it holds one."""
    holds: list[_Element] = []
    content = False
    for child in el.children:
        if not isinstance(child, _Element) or child.boilerplate:
            continue
        if child.tag in _CONTROLS or _holds_control(child):
            holds.append(child)
        elif child.chars >= _CONTENT_CHARS or _find(child, {"a"}) is not None:
            content = True
    if el.tag in _CONTROLS or (holds and not content):
        el.boilerplate = True
    else:
        for child in holds:
            _demote_controls(child)
    return bool(holds) or el.tag in _CONTROLS


def _holds_control(el: _Element) -> bool:
    return any(isinstance(c, _Element) and (c.tag in _CONTROLS or _holds_control(c)) for c in el.children)


def _find(el: _Element, wanted: set[str], role: str = "") -> _Element | None:
    for child in el.children:
        if isinstance(child, _Element) and not child.boilerplate:
            if child.tag in wanted or (role and (child.attrs.get("role") or "").lower() == role):
                return child
            found = _find(child, wanted, role)
            if found:
                return found
    return None


def _main_element(root: _Element) -> _Element:
    start = _find(root, {"main"}, role="main")
    node = start if start is not None and start.score > 0 else (_find(root, {"body"}) or root)
    while node.tag not in _PARAGRAPH:
        children = [c for c in node.children if isinstance(c, _Element) and not c.boilerplate]
        best = max(children, key=lambda c: c.score, default=None)
        # A single paragraph must hold nearly all: beside a list of links (the last page
        # of results, two rows) a summary line outweighs them, links counting less.
        need = _PARAGRAPH_DOMINANT if best is not None and best.tag in _PARAGRAPH else _DOMINANT
        if best is None or best.score <= 0 or best.score < need * node.score:
            break
        node = best
    return node


# --- rendering -----------------------------------------------------------------------

_SPACE = re.compile(r"\s+")
# A line break between blocks, kept apart from the text's own whitespace until that is
# collapsed: the parser drops every NUL from the text, so no page text holds one.
_BREAK = "\x00"


def _render(el: _Element, out: list[str], *, skip_boilerplate: bool) -> None:
    for child in el.children:
        if isinstance(child, str):
            out.append(child)  # whitespace collapsed once, in _lines: not a regex per text node
        elif skip_boilerplate and child.boilerplate:
            continue
        elif child.tag == "br":
            out.append(_BREAK)
        elif child.tag in _BLOCK:
            out.append(_BREAK)
            _render(child, out, skip_boilerplate=skip_boilerplate)
            out.append(_BREAK)
        else:
            if child.tag in ("td", "th"):
                out.append(" ")
            _render(child, out, skip_boilerplate=skip_boilerplate)


def _lines(parts: list[str]) -> str:
    # str.split() breaks at the whitespace r"\s" matches, several times faster than a sub.
    lines = (line.strip() for line in " ".join("".join(parts).split()).split(_BREAK))
    return "\n".join(line for line in lines if line)


# --- public --------------------------------------------------------------------------


_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


def html_title(html: str) -> str:
    """The first ``<title>`` text, whitespace collapsed; empty when there is none.

    A regex, not a parse: the title is near the top and this runs on every page.
    """
    match = _TITLE.search(html)
    return _SPACE.sub(" ", unescape(match.group(1))).strip() if match else ""


def page_text(html: str) -> str:
    """All visible text, one line per block; scripts, styles and hidden elements dropped."""
    out: list[str] = []
    _render(_parse(html), out, skip_boilerplate=False)
    return _lines(out)


def main_text(html: str) -> str:
    """The page's main content as text, without navigation, headers, footers and forms."""
    root = _parse(html)
    _measure(root)
    if _demote_small_forms(root, root.chars):
        _measure(root)  # again, now without the forms' text
    out: list[str] = []
    _render(_main_element(root), out, skip_boilerplate=True)
    return _lines(out)


_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")
_ENDS_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*$")


def summarize(text: str, max_chars: int = 300, title: str = "") -> str:
    """The first sentences of ``text`` that fit in ``max_chars``.

    Lines that are not sentences (short headings, the title repeated) are skipped
    when real sentences exist; a first sentence longer than the budget is
    cut at a word boundary with an ellipsis. Reads only as far as the budget needs:
    this runs on every page, and pages can be long.
    """
    if max_chars < 2:
        return ""
    title_key = title.strip().casefold()
    real = (p for p in _parts(text) if _is_sentence(p) and p.casefold() != title_key)
    summary, first = _fill(real, max_chars)
    if first is None:  # no real sentence anywhere: take the lines as they come
        summary, first = _fill(_parts(text), max_chars)
    if summary or first is None:
        return summary
    cut = first[: max_chars - 1]
    if not first[max_chars - 1].isspace():  # the cut fell inside a word: drop that word
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def _parts(text: str) -> Iterator[str]:
    """``_SENTENCE.split(text)``, stripped, without empty parts, lazily."""
    start = 0
    for match in _SENTENCE.finditer(text):
        if part := text[start:match.start()].strip():
            yield part
        start = match.end()
    if part := text[start:].strip():
        yield part


def _is_sentence(part: str) -> bool:
    return bool(_ENDS_SENTENCE.search(part)) or len(part.split()) >= 6


def _fill(sentences: Iterable[str], max_chars: int) -> tuple[str, str | None]:
    """The longest run of leading ``sentences`` within ``max_chars``, and the first one."""
    summary, first = "", None
    for sentence in sentences:
        first = first or sentence
        candidate = f"{summary} {sentence}".strip()
        if len(candidate) > max_chars:
            break
        summary = candidate
    return summary, first
