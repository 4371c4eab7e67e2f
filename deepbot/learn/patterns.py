"""Navigation patterns: the URL regexes, level by level, that lead from an entry page to
the target pages (Vidal, da Silva, de Moura and Cavalcanti, SIGIR 2006, §4.2–4.3).

A URL is cut into *levels*: its origin, each path segment, its query. URLs with the same
number of levels, the same first level and at most K = 2 differing levels are *alike*
and form a group (``group_urls``). A group becomes one regex (``url_pattern``): each
differing level keeps its common prefix and suffix, and its middle is cut into tokens
(runs of letters, runs of digits, single other characters); tokens at one position
become the deepest node of the *Regex tree* that matches them all:

    [^/?#]+                 anything within a level
    ├── [A-Za-z0-9]+        letters and digits
    │   ├── [A-Za-z]+       letters
    │   │   ├── [a-z]+      lowercase
    │   │   └── [A-Z]+      uppercase
    │   └── [0-9]+          digits
    └── [^A-Za-z0-9/?#]     one other character

The same token everywhere stays literal. Two distinct words at one level stay literal
too, as alternatives (``(?:teams|matches)``): they name sections, and ``[a-z]+`` would
lead the crawl into every other section; three or more generalise (genres, initials).
When the middles have different numbers of tokens (slugs of several words), the middle
becomes the class of the characters they use.
Prefixes and suffixes end between tokens, so ``/2023`` and ``/2024`` give ``/[0-9]+``.

The Target Pages Map gives, for every target, the path of links from the entry page to
it. ``navigation_patterns`` groups the URLs of each step, and picks the sequences of
groups that lead to the most targets: the navigation pattern, a list of regexes per
level that a person can read and edit.

Beyond the paper: listings are paged. The tenth page of a listing is ten steps from the
entry page, the first one step, so the paths to the targets of one listing have every
length. Consecutive steps whose URLs are alike (``/page/2/`` then ``/page/3/``) are one
*repeating* level: its links may be followed again from a page it reached, or not at
all (``/quotes/`` → author, ``/quotes/`` → page 2 → … → page 7 → author are one path
shape, ``[page/N]* → author``).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

K = 2  # URLs differing in at most this many levels are alike
# A click on a script-driven element (``<a href="#" onclick=…>``, a button) has no URL before
# it is made: a step of a path is then this prefix and the element's CSS selector, its
# address in the pattern (``click:#works > li:nth-of-type(3) > a``), two levels: the prefix
# and the selector, which generalises like a URL's level (its numbers become ``[0-9]+``).
CLICK = "click:"
MAX_ALTERNATIVES = 2  # so many distinct words (3+ letters) at a level stay literal: (?:teams|matches)

_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]")

# The Regex tree: each node's regex and its parent.
_PARENT = {
    "lower": "alpha", "upper": "alpha", "alpha": "alnum", "digit": "alnum",
    "alnum": "any", "other": "any", "any": None,
}
_REGEX = {
    "lower": "[a-z]+", "upper": "[A-Z]+", "alpha": "[A-Za-z]+", "digit": "[0-9]+",
    "alnum": "[A-Za-z0-9]+", "other": "[^A-Za-z0-9/?#]", "any": "[^/?#]+",
}


def levels(url: str) -> tuple[str, ...]:
    """A URL's levels: ``scheme://host[:port]``, then ``/segment`` per path segment, then
    ``?query`` if any (the fragment is not part of what the server sees). A click's address:
    the prefix, then the selector."""
    if url.startswith(CLICK):
        return (CLICK, url[len(CLICK):])
    parts = urlsplit(url)
    out = [f"{parts.scheme}://{parts.netloc}"]
    path = parts.path or "/"
    out.extend("/" + segment for segment in path.split("/")[1:])
    if parts.query:
        out.append("?" + parts.query)
    return tuple(out)


def _kind(token: str) -> str:
    if token.isdigit():
        return "digit"
    if token.isalpha() and token.isascii():
        return "lower" if token.islower() else "upper" if token.isupper() else "alpha"
    return "other"


def _ancestors(kind: str) -> list[str]:
    chain: list[str] = []
    node: str | None = kind
    while node is not None:
        chain.append(node)
        node = _PARENT[node]
    return chain


def token_regex(tokens: Sequence[str]) -> str:
    """The regex of one token position: the token itself when all are one, else the deepest
    node of the Regex tree above all of them."""
    if len(set(tokens)) == 1:
        return re.escape(tokens[0])
    chains = [_ancestors(_kind(t)) for t in tokens]
    common = set(chains[0]).intersection(*chains[1:])
    return _REGEX[next(node for node in chains[0] if node in common)]


def _common_prefix(values: Sequence[str]) -> str:
    first, last = min(values), max(values)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def _same_token(a: str, b: str) -> bool:
    return (a.isdigit() and b.isdigit()) or (a.isalpha() and a.isascii() and b.isalpha() and b.isascii())


def _snap(values: Sequence[str], n: int) -> int:
    """Shorten a common prefix of length ``n`` so that it ends between two tokens in every value."""
    while n > 0 and any(n < len(v) and _same_token(v[n - 1], v[n]) for v in values):
        n -= 1
    return n


def _level_regex(values: Sequence[str]) -> str:
    if len(set(values)) == 1:
        return re.escape(values[0])
    prefix = values[0][: _snap(values, len(_common_prefix(values)))]
    rest = [v[len(prefix):] for v in values]
    backwards = [v[::-1] for v in rest]
    suffix = rest[0][len(rest[0]) - _snap(backwards, len(_common_prefix(backwards))):] if rest[0] else ""
    middles = [v[: len(v) - len(suffix)] for v in rest]
    words = sorted(set(middles))
    if len(words) <= MAX_ALTERNATIVES and all(len(w) >= 3 and w.isalpha() and w.isascii() for w in words):
        # Two words at one level are sections of the site ("teams", "matches"), not ids:
        # keep them, so the pattern does not walk into a third section ("news").
        return re.escape(prefix) + "(?:" + "|".join(words) + ")" + re.escape(suffix)
    tokens = [_TOKEN.findall(m) for m in middles]
    if len({len(t) for t in tokens}) == 1 and tokens[0]:  # the tokens line up: one regex per position
        middle = "".join(token_regex([t[j] for t in tokens]) for j in range(len(tokens[0])))
    else:  # they do not (slugs of several words): the characters they use, then the tokens
        middle = _char_class_then_tail(tokens)
    return re.escape(prefix) + middle + re.escape(suffix)


def _char_class_then_tail(tokens: Sequence[Sequence[str]]) -> str:
    """Values whose tokens do not line up from the left may from the right: slugs of two to
    four words each end in ``-`` and a number (a paper's ``graph-estimation-2410``). The
    characters of what precedes, then one regex per token position aligned from the right,
    as long as each is one token in all or a number: a value of another ending
    (``call-for-papers``) is not matched, a slug of more or fewer words is."""
    tail: list[str] = []
    while all(len(t) > len(tail) + 1 for t in tokens):
        ends = [t[len(t) - 1 - len(tail)] for t in tokens]
        if len(set(ends)) > 1 and not all(end.isdigit() for end in ends):
            break
        tail.insert(0, token_regex(ends))
    heads = ["".join(t[: len(t) - len(tail)]) for t in tokens]
    return _char_class(heads) + "".join(tail)


def _char_class(middles: Sequence[str]) -> str:
    chars = set("".join(middles))
    ranges = []
    if any(c.isalpha() and c.isascii() for c in chars):
        ranges.append("A-Za-z")
    if any(c.isdigit() for c in chars):
        ranges.append("0-9")
    others = sorted(c for c in chars if not (c.isascii() and c.isalnum()))
    ranges.extend(re.escape(c) if c not in "]\\^-" else "\\" + c for c in others)
    quantifier = "*" if any(m == "" for m in middles) else "+"
    return f"[{''.join(ranges)}]{quantifier}"


def url_pattern(urls: Sequence[str]) -> str:
    """A regex (to use with ``re.fullmatch``) that matches every URL of a group of alike URLs."""
    if not urls:
        raise ValueError("no URLs to generalise")
    cut = [levels(u) for u in urls]
    if len({len(c) for c in cut}) != 1:
        raise ValueError("URLs of one pattern must have the same number of levels")
    return "".join(_level_regex([c[k] for c in cut]) for k in range(len(cut[0])))


def alike(a: Sequence[str], b: Sequence[str], k: int = K) -> bool:
    """Same number of levels, same first level, at most ``k`` levels differing."""
    return len(a) == len(b) and a[0] == b[0] and sum(x != y for x, y in zip(a, b, strict=True)) <= k


def group_urls(urls: Sequence[str], k: int = K) -> list[list[str]]:
    """Alike URLs together, in first-seen order; each group's first URL stands for it."""
    groups: list[tuple[tuple[str, ...], list[str]]] = []
    for url in dict.fromkeys(urls):
        cut = levels(url)
        for head, members in groups:
            if alike(head, cut, k):
                members.append(url)
                break
        else:
            groups.append((cut, [url]))
    return [members for _, members in groups]


@dataclass(frozen=True)
class NavigationPattern:
    """Regexes per level: a link at level i is followed when it fully matches one of
    ``levels[i]``; the pages the last level reaches are the targets. A level in
    ``repeats`` may match any number of links in a row, none included (a pager). The
    last level in ``repeats`` *repeats over the targets*: from a target, its links that
    match the targets' regexes are followed too (a music guide's "similar artists")."""

    levels: tuple[tuple[str, ...], ...]
    targets: int  # targets of the map this pattern reaches
    repeats: frozenset[int] = frozenset()

    def matches(self, level: int, url: str) -> bool:
        return any(re.fullmatch(regex, url) for regex in self.levels[level])

    def next_level(self, level: int, url: str) -> int | None:
        """The level of the page a link leads to, from a page of ``level`` (-1: the entry
        page): the deepest level the link can take, the levels between it and ``level``
        all repeating (skipped); None when the pattern does not follow it."""
        found = None
        if level in self.repeats and self.matches(level, url):
            found = level
        nxt = level + 1
        while nxt < len(self.levels):
            if self.matches(nxt, url):
                found = nxt
            if nxt not in self.repeats:
                break
            nxt += 1
        return found

    @property
    def over_targets(self) -> bool:
        """Whether the last level repeats over the targets (see the class)."""
        return len(self.levels) - 1 in self.repeats

    def reaches(self, path: Sequence[str]) -> bool:
        """Whether following ``path`` from the entry page keeps to the pattern, to its last level."""
        states = {-1}
        for url in path:
            states = {n for s in states for n in self._moves(s, url)}
            if not states:
                return False
        return len(self.levels) - 1 in states

    def _moves(self, level: int, url: str) -> set[int]:
        out = {level} if level in self.repeats and self.matches(level, url) else set()
        nxt = level + 1
        while nxt < len(self.levels):
            if self.matches(nxt, url):
                out.add(nxt)
            if nxt not in self.repeats:
                break
            nxt += 1
        return out


def backward(page: str, link: str) -> bool:
    """Whether ``link`` is ``page``'s address with one number made smaller (a pager's
    "Previous" or "1"): a pager walked forward from its first page meets every page by
    its forward links, and the first page's other address (``?page=1`` beside the bare
    one) is a page fetched twice."""
    a, b = levels(page), levels(link)
    if len(a) != len(b):
        return False
    differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if len(differ) != 1:
        return False
    here, there = (_TOKEN.findall(level) for level in differ[0])
    moved = [(x, y) for x, y in zip(here, there, strict=False) if x != y]
    return (len(here) == len(there) and len(moved) == 1 and moved[0][0].isdigit() and moved[0][1].isdigit()
            and int(moved[0][1]) < int(moved[0][0]))


def _collapsed(path: Sequence[str]) -> list[list[str]]:
    """A path's steps, each run in a row of URLs that differ in one level (a pager's pages:
    ``/page/2/``, ``/page/3/``; ``?_next=100``, ``?_next=200``) one step. The target stays
    a step of its own."""
    steps: list[list[str]] = []
    for url in path:
        if steps and url != path[-1] and alike(levels(steps[-1][-1]), levels(url), 1):
            steps[-1].append(url)
        else:
            steps.append([url])
    return steps


def navigation_patterns(paths: Sequence[Sequence[str]], *, k: int = K, cover: float = 1.0
                        ) -> list[NavigationPattern]:
    """Navigation patterns from a Target Pages Map's paths (each: the URLs of the links
    followed from the entry page, the last a target), most targets first.

    A run of alike URLs in a row in a path is one repeating step (a pager). For each
    number of steps, the URLs of each step are grouped; a path is a sequence of groups.
    The sequence that reaches most targets is taken first (the paper's choice); more
    sequences of that length are added, level by level, until ``cover`` of its targets
    are reached. Paths of another length make another pattern; a pattern's count is of
    every path it reaches (a repeating level may be skipped: the listing's first page).
    """
    by_length: dict[int, list[list[list[str]]]] = defaultdict(list)
    for path in paths:
        if path:
            steps = _collapsed(path)
            by_length[len(steps)].append(steps)
    patterns = []
    for length, group in by_length.items():
        step_groups = [group_urls([u for p in group for u in p[i]], k) for i in range(length)]
        index = [{url: g for g, members in enumerate(groups) for url in members} for groups in step_groups]
        signatures = Counter(tuple(index[i][p[i][0]] for i in range(length)) for p in group)
        chosen: list[tuple[int, ...]] = []
        reached = 0
        for signature, count in signatures.most_common():
            if chosen and reached >= cover * len(group):
                break
            chosen.append(signature)
            reached += count
        regexes = tuple(
            tuple(dict.fromkeys(url_pattern(step_groups[i][sig[i]]) for sig in chosen)) for i in range(length)
        )
        kept = [p for p in group if tuple(index[j][p[j][0]] for j in range(length)) in set(chosen)]
        repeats = frozenset(i for p in kept for i in range(length) if len(p[i]) > 1)
        regexes = pager_numbers(regexes, repeats)
        pattern = NavigationPattern(regexes, 0, repeats)
        found = {p[-1] for p in paths if p and pattern.reaches(p)}
        patterns.append(NavigationPattern(regexes, len(found), repeats))
    return sorted(patterns, key=lambda p: -p.targets)


def skippable(patterns: Sequence[NavigationPattern]) -> list[NavigationPattern]:
    """More candidates: a pattern one level longer than another, the same on the way
    but for one level, that level made repeating, which may be skipped, and the targets'
    regexes of both. A listing whose first page has an address of its own
    (``/archive/2026/09/``) and its later pages another shape (``/archive/2026/09/page/2/``)
    gives two path shapes, neither reaching the other's targets; together, the later
    pages a level that may be skipped, they reach all."""
    shorter: dict[tuple[tuple[str, ...], ...], list[NavigationPattern]] = defaultdict(list)
    for p in patterns:
        shorter[p.levels[:-1]].append(p)
    out = []
    for long in patterns:
        for j in range(len(long.levels) - 1):  # the targets' level is never skipped
            for short in shorter.get(long.levels[:j] + long.levels[j + 1:-1], ()):
                moved = {i + (i >= j) for i in short.repeats}  # the short pattern's repeats, renumbered
                last = tuple(dict.fromkeys(long.levels[-1] + short.levels[-1]))
                repeats = long.repeats | moved | {j}
                out.append(NavigationPattern(pager_numbers((*long.levels[:-1], last), repeats),
                                             long.targets + short.targets, repeats))
    return out


def repeating_targets(patterns: Sequence[NavigationPattern]) -> list[NavigationPattern]:
    """More candidates: each pattern with its last level repeating over the targets. A
    target's own links to other targets (related items) may reach the rest of them through
    fewer pages than the listings do; the targets' regexes stay as the map gave them (no
    pager moves their numbers)."""
    return [NavigationPattern(p.levels, p.targets, p.repeats | {len(p.levels) - 1})
            for p in patterns if not p.over_targets]


_LITERAL_NUMBER = re.compile(r"\[[^\]]*\]|\\.|[0-9]+")  # a class, an escape, or a run of digits


def pager_numbers(levels: Sequence[tuple[str, ...]], repeats: frozenset[int]) -> tuple[tuple[str, ...], ...]:
    """A repeating level's regexes with every literal number of the URL's path and query
    made ``[0-9]+``: a pager moves a number, and the pages the mapping met (only a page 2,
    the listing being short then) are not all there will be."""
    def general(regex: str) -> str:
        start = regex.find("/", regex.find("://") + 3)  # the origin (its port) stays as it is
        if start < 0:
            return regex
        rest = _LITERAL_NUMBER.sub(lambda m: "[0-9]+" if m[0].isdigit() else m[0], regex[start:])
        return regex[:start] + rest
    return tuple(tuple(dict.fromkeys(general(r) for r in level)) if n in repeats else level
                 for n, level in enumerate(levels))


def click_address(selector: str) -> str:
    """The address of a click on the element ``selector`` names, as a pattern's levels match it."""
    return CLICK + selector
