"""The README's first command: ``deepbot demo`` crawls the bundled bookshop through its
forms, prints what the README shows, and its "Next" steps work as printed."""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

# The summary lines whose counts the README quotes from a run.
_COUNTED = ("Crawl finished:", "Queries run:")


def _counts(line: str) -> list[str]:
    """A summary line's numbers, without the run's speed (pages/s varies)."""
    return re.findall(r"\d+", re.sub(r"\([\d.]+ pages/s\)", "", line))


def _readme_block() -> list[str]:
    text = README.read_text()
    block = text.split("`scripts/demo.sh` runs `deepbot demo`", 1)[1].split("```", 2)[1]
    return block.splitlines()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(300)
def test_the_demo_crawls_the_bookshop_as_the_readme_shows_and_its_next_steps_work(tmp_path: Path) -> None:
    store = tmp_path / "demo.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "deepbot", "demo", "--store", str(store), "--port", "0"],
        capture_output=True, text=True, timeout=280, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout.splitlines()
    port = re.search(r"Demo site: http://127\.0\.0\.1:(\d+)/books/", done.stdout)
    assert port, done.stdout[:500]

    # What the README quotes from a run is what a run prints (the speed aside).
    readme = _readme_block()
    for head in _COUNTED:
        ours = next(line for line in out if line.startswith(head))
        theirs = next(line for line in readme if line.startswith(head))
        assert _counts(ours) == _counts(theirs), (ours, theirs)
    # A page reached both by a results pager and by a link counts as whichever route stored it
    # first, which four workers may order either way: the two kinds together are fixed.
    ours = next(line for line in out if line.startswith("Result pages:"))
    theirs = next(line for line in readme if line.startswith("Result pages:"))
    assert sum(map(int, _counts(ours))) == sum(map(int, _counts(theirs))), (ours, theirs)
    listed = [line for line in out if line.startswith("  http://") and " form #" in line]
    assert len(listed) == int(re.search(r"on (\d+) forms", done.stdout)[1])  # type: ignore[index]
    shown = {" ".join(line.split()) for line in listed}  # the README aligns its columns
    for line in readme:
        if line.startswith("  http://127.0.0.1:8765/books/"):  # the README abridges the list
            assert " ".join(line.replace(":8765/", f":{port[1]}/").split()) in shown, line

    # "Next": the search it suggests finds documents, and the replay hint names this port.
    search = next(line.split() for line in out if line.startswith("  deepbot search "))
    term = shlex.split(" ".join(search))[2]
    assert term == "java"  # the first query of domains/books.yaml
    found = subprocess.run([sys.executable, "-m", "deepbot", "search", term, "--store", str(store)],
                           capture_output=True, text=True, timeout=60, check=False)
    assert found.returncode == 0 and found.stdout.startswith("1. "), found.stdout + found.stderr
    assert f"`deepbot demo --serve --port {port[1]}`" in done.stdout
    replay = next(line for line in out if line.startswith("  deepbot replay "))
    assert "# results of {" in replay
    nseql = out[out.index("Its navigation sequence (NSEQL):") + 1:]
    assert nseql[0].startswith(f"  navigate http://127.0.0.1:{port[1]}/books/")
    assert any(line.startswith("  click ") for line in nseql)


@pytest.mark.timeout(60)
def test_a_taken_port_is_one_line_and_the_previous_demo_store_is_kept(tmp_path: Path) -> None:
    store = tmp_path / "demo.sqlite"
    store.write_bytes(b"the previous demo's store")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "deepbot", "demo", "--store", str(store), "--port", str(port)],
            capture_output=True, text=True, timeout=50, check=False, cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"deepbot: error: cannot serve the demo site on 127.0.0.1:{port}: ")
    assert "--port" in line  # how to get round it
    assert store.read_bytes() == b"the previous demo's store"
    assert done.stdout == ""
