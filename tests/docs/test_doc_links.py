"""Every relative link in the README and the docs leads to a file, and to a heading when it
names one. External links are checked for their form only: the tests use no network."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown.extensions.toc import slugify

from tests.docs.snippets import PAGES, ROOT

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")  # [text](target), images left out
_FENCED = re.compile(r"```.*?```", re.S)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)  # fenced blocks and code spans: no links in them


def _links(page: Path) -> list[str]:
    return _LINK.findall(_CODE.sub("", page.read_text("utf-8")))


def _anchors(page: Path) -> set[str]:
    """The ids of a page's headings, made by MkDocs' own rule (GitHub's agrees on plain headings)."""
    headings = re.findall(r"^#{1,6} (.+)$", _FENCED.sub("", page.read_text("utf-8")), re.M)
    return {slugify(heading, "-") for heading in headings}


def _targets() -> list[tuple[Path, str]]:
    return [(page, link) for page in PAGES for link in _links(page)]


def test_the_pages_link_to_each_other() -> None:
    assert len(_targets()) >= 30  # the pattern finds links at all
    readme = {link for page, link in _targets() if page.name == "README.md"}
    assert {"docs/getting-started.md", "docs/reference/config.md", "docs/architecture.md"} <= readme


@pytest.mark.parametrize(("page", "link"), _targets(), ids=lambda v: v.name if isinstance(v, Path) else v)
def test_a_link_resolves(page: Path, link: str) -> None:
    parts = urlsplit(link)
    if parts.scheme:
        assert parts.scheme in ("http", "https") and "." in parts.netloc, link
        return
    target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
    assert target.is_relative_to(ROOT), f"{link} leaves the repository"
    assert target.exists(), f"{page.relative_to(ROOT)}: {link} is not a file"
    if page.parent.is_relative_to(ROOT / "docs"):  # the site holds docs/ only
        assert target.is_relative_to(ROOT / "docs"), f"{link}: the docs site holds docs/ only"
    if parts.fragment:
        assert parts.fragment in _anchors(target), f"{page.relative_to(ROOT)}: {link}: no such heading"


def test_the_anchor_rule_reads_headings_as_mkdocs_does(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# Search, export and replay\n## `--topic`: by topic\n```\n# not a heading\n```\n")
    assert _anchors(page) == {"search-export-and-replay", "-topic-by-topic"}
