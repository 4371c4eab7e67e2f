"""The bounds of a hostile page are `deepbot crawl` options: --max-body-mb and --max-self-navigations
reach the crawl's visits, and a bad value is one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deepbot.browser import bounded, guard
from deepbot.config import CrawlConfig
from tests.hostile.conftest import Hostile, deepbot, html, one_clear_line, served


def test_the_config_defaults_are_the_browser_s_own() -> None:
    config = CrawlConfig()
    assert config.max_body_mb * 1_000_000 == bounded.MAX_BODY_BYTES
    assert config.max_self_navigations == guard.MAX_SELF_NAVIGATIONS


@pytest.mark.parametrize(("flag", "value", "said"), [
    ("--max-body-mb", "0", "max_body_mb: Input should be greater than 0"),
    ("--max-body-mb", "-3", "max_body_mb: Input should be greater than 0"),
    ("--max-self-navigations", "-1", "max_self_navigations: Input should be greater than or equal to 0"),
])
def test_a_bad_limit_is_refused_on_one_line(tmp_path: Path, flag: str, value: str, said: str) -> None:
    line = one_clear_line(deepbot("crawl", "--seed", "http://127.0.0.1:9/", flag, value, cwd=tmp_path))
    assert said in line
    assert not any(tmp_path.iterdir())  # no store was made for a crawl that cannot start


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_the_limits_given_on_the_command_line_bound_the_crawl(tmp_path: Path, hostile: Hostile) -> None:
    hits: list[float] = []
    # 3 MB: well under the default 20 MB, over the 1 MB asked for.
    hostile.routes["/big"] = served(b"words and more words\n" * 150_000, "text/plain")
    refresh = '<meta http-equiv="refresh" content="0">'
    hostile.routes["/self"] = html("<h1>again</h1>", head=refresh, hits=hits)
    done = deepbot("crawl", "--seed", hostile.url("/big"), "--seed", hostile.url("/self"), "--depth", "0",
                   "--store", "s.sqlite", "--ignore-robots", "--max-body-mb", "1", "--max-self-navigations",
                   "1", "--json", "--quiet", cwd=tmp_path)
    summary = json.loads(done.stdout[done.stdout.index("{"):])
    assert summary["documents_stored"] == 1, (summary, done.stderr[-2000:])
    assert summary["routes_failed"] == 1 and any("response too large" in r for r in summary["failures"])
    assert len(hits) == 2, hits  # the route's request and the one refresh allowed
