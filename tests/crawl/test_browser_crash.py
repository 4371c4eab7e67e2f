"""A crashed browser fails its routes (retried), is relaunched, and the crawl completes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from fixtures.server import FixtureServer
from fixtures.sites import lab

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _is_browser(pid: int) -> bool:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    browser = cmd[0].endswith((b"chromium", b"chromium-headless-shell"))
    return browser and not any(a.startswith(b"--type=") for a in cmd)


def _stored(store: Path) -> int:
    try:
        with sqlite3.connect(store) as db:
            return int(db.execute("SELECT count(*) FROM documents").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("flags", [(), ("--shared-session",)], ids=["route-sessions", "shared-session"])
def test_killing_chromium_mid_crawl_relaunches_it(tmp_path: Path, flags: tuple[str, ...]) -> None:
    store = tmp_path / "s.sqlite"
    with FixtureServer() as site:
        proc = subprocess.Popen(
            [sys.executable, "-m", "deepbot", "crawl", "--seed", site.url("/lab/"), "--store", str(store),
             "--workers", "2", "--quiet", *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while _stored(store) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        browsers = [p for p in _descendants(proc.pid) if _is_browser(p)]
        assert browsers, "no Chromium found under the crawl process"
        for pid in browsers:
            os.kill(pid, signal.SIGKILL)
        _out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    assert "relaunched" in err
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT final_url FROM documents WHERE status = 200")
        paths = {urlsplit(u).path for (u,) in rows}
    assert paths == set(lab.EXPECTED_PAGES)
