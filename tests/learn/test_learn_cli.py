"""``deepbot learn`` then ``deepbot crawl --pattern``: a crawler generated from one sample page
collects every page built like it, and only those, traversing few more pages than it stores."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fixtures.server import FixtureServer
from fixtures.sites import worldcup

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _deepbot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "deepbot", *args], capture_output=True, text=True,
                          timeout=240, check=False, cwd=cwd)


def _stored(store: Path) -> list[str]:
    with sqlite3.connect(store) as db:
        return [row[0] for row in db.execute("SELECT final_url FROM documents")]


@pytest.mark.timeout(300)
def test_learn_writes_a_pattern_that_collects_the_player_pages(tmp_path: Path) -> None:
    with FixtureServer() as site:
        learned = _deepbot("learn", "--sample", site.url("/cup/player/bra-1"), "--entry", site.url("/cup/"),
                           "-o", "p.yaml", cwd=tmp_path)
        assert learned.returncode == 0, learned.stderr[-2000:]
        assert "48 built like the sample" in learned.stdout
        pattern = yaml.safe_load((tmp_path / "p.yaml").read_text())
        assert pattern["targets"] == 48 and len(pattern["levels"]) >= 2
        assert re.search(r"/cup/player/\[a-z\]\+\\-\[0-9\]\+$", pattern["levels"][-1]["follow"][0])

        crawled = _deepbot("crawl", "--pattern", "p.yaml", "--store", "c.sqlite", cwd=tmp_path)
        assert crawled.returncode == 0, crawled.stderr[-2000:]
        stored = {url.removeprefix(site.base_url) for url in _stored(tmp_path / "c.sqlite")}
        assert stored == worldcup.PLAYERS  # precision 1.0, recall 1.0
        fetched = int(re.search(r"Crawl finished: (\d+) pages fetched", crawled.stdout)[1])  # type: ignore[index]
        # The paper's "links traversed" stay near the targets: 58 when the map took the teams' path,
        # about 68 when it mixed the teams' and the matches' paths (the site has 110 pages).
        assert fetched <= 1.5 * len(worldcup.PLAYERS), fetched

        # Players signed since: run again on the same store, the crawler reads the way to them
        # again and fetches only the new players among the targets.
        site.options["signings"] = 1
        signed = worldcup.signed(site.options)
        rerun = _deepbot("crawl", "--pattern", "p.yaml", "--store", "c.sqlite", cwd=tmp_path)
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        urls = _stored(tmp_path / "c.sqlite")
        assert {url.removeprefix(site.base_url) for url in urls} == worldcup.PLAYERS | signed
        assert len(urls) == len(worldcup.PLAYERS | signed)  # the sample, read again, is not stored twice
        again = int(re.search(r"Crawl finished: (\d+) pages fetched", rerun.stdout)[1])  # type: ignore[index]
        # the way again, the new players, and the sample (a player the first pass fetched once)
        assert again == fetched - len(worldcup.PLAYERS) + len(signed) + 1, (again, fetched)

        # A person widens the last level to every page of the site: RTDM keeps precision.
        pattern["levels"][-1]["follow"] = [re.escape(site.base_url) + "/cup/.*"]
        (tmp_path / "wide.yaml").write_text(yaml.safe_dump(pattern))
        wide = _deepbot("crawl", "--pattern", "wide.yaml", "--store", "w.sqlite", cwd=tmp_path)
        assert wide.returncode == 0, wide.stderr[-2000:]
        widened = {url.removeprefix(site.base_url) for url in _stored(tmp_path / "w.sqlite")}
        assert widened == worldcup.PLAYERS | signed


def test_a_broken_pattern_file_is_one_located_line(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("sample: http://a/\nentry: http://a/\nlevels:\n  - follow: ['(']\n")
    done = _deepbot("crawl", "--pattern", "p.yaml", "--store", "s.sqlite", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "p.yaml: levels[0].follow: invalid regular expression" in done.stderr
