"""The Python snippets of the README and the docs that are marked to run, run as written.

A marked snippet is copied to a file and run by a fresh Python in an empty folder, with
the demo site served on 127.0.0.1. The snippets name the address `deepbot demo --serve`
uses, http://127.0.0.1:8765; the test serves the site on a free port and puts that
port in their place, the only change it makes. Each marker names what the output shows.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepbot.demo import demo_server
from tests.docs.snippets import PAGES, ROOT, Snippet, python_fences, snippets

PLACEHOLDER = "http://127.0.0.1:8765"
SNIPPETS = snippets()


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with demo_server(port=0) as server:
        yield server.base_url


def test_the_readme_and_the_library_guide_have_snippets_that_run() -> None:
    names = {s.page.relative_to(ROOT).as_posix() for s in SNIPPETS}
    assert {"README.md", "docs/library.md", "docs/domains.md"} <= names
    # The library guide's Python examples all run, its signature block aside.
    library = ROOT / "docs" / "library.md"
    assert sum(s.page == library for s in SNIPPETS) == python_fences(library) - 1
    assert all(p.is_file() for p in PAGES)


@pytest.mark.browser
@pytest.mark.timeout(240)
@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.name for s in SNIPPETS])
def test_a_marked_snippet_runs_as_written(snippet: Snippet, site: str, tmp_path: Path) -> None:
    code = snippet.code.replace(PLACEHOLDER, site)
    (tmp_path / "snippet.py").write_text(code, "utf-8")
    done = subprocess.run([sys.executable, "snippet.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=220, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    shown = done.stdout.replace(site, PLACEHOLDER)  # what a reader on port 8765 would see
    assert re.search(snippet.prints, shown, re.M), (snippet.prints, shown[-2000:])
