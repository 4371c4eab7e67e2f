"""The Markdown files the docs tests read, and the Python snippets in them marked to run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))

# A snippet marked to run: the marker names a regular expression its output must match.
#   <!-- snippet: run; prints: ^seed http:// -->
#   ```python
_MARKED = re.compile(r"<!-- snippet: run; prints: (?P<prints>.+?) -->\n```python\n(?P<code>.*?)\n```", re.S)
_FENCE = re.compile(r"^```python$", re.M)


@dataclass(frozen=True)
class Snippet:
    page: Path
    line: int
    code: str
    prints: str  # a regular expression, searched in the output line by line

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def snippets() -> list[Snippet]:
    found = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for match in _MARKED.finditer(text):
            line = text.count("\n", 0, match.start("code"))
            found.append(Snippet(page, line, match["code"], match["prints"]))
    return found


def python_fences(page: Path) -> int:
    return len(_FENCE.findall(page.read_text("utf-8")))
