"""The Form Analyzer's numpy and shapely load only when a form is analysed."""

from __future__ import annotations

import subprocess
import sys

import pytest

_HEAVY = ("numpy", "shapely")


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_a_crawl_without_a_domain_does_not_load_the_analyzer() -> None:
    out = _run(
        "import sys, deepbot, deepbot.cli, deepbot.cli.crawl, deepbot.crawl.engine\n"
        "from deepbot import Crawler, CrawlConfig, FormAnalysis, PageAnalysis\n"
        "Crawler(CrawlConfig(seeds=('http://127.0.0.1:9/',)))\n"
        f"print(sorted(m for m in {_HEAVY!r} if m in sys.modules))")
    assert out == "[]"


@pytest.mark.parametrize("code", [
    "from deepbot import analyze_page\nfrom deepbot.forms import analyzer\n"
    "assert analyze_page is analyzer.analyze_page",
    "import deepbot; assert deepbot.analyze_form.__module__ == 'deepbot.forms.analyzer'",
    "from deepbot.forms import AnalyzerParams, annotate_screenshot, extract_page, SimilarityEntry",
])
def test_the_analyzer_is_there_when_asked_for(code: str) -> None:
    _run(code + "\nimport sys\nassert all(m in sys.modules for m in ('numpy', 'shapely'))")


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    out = _run(
        "import deepbot, deepbot.forms\n"
        "for mod in (deepbot, deepbot.forms):\n"
        "    try:\n"
        "        mod.no_such_thing\n"
        "    except AttributeError as exc:\n"
        "        print(exc)\n")
    assert out.splitlines() == ["module 'deepbot' has no attribute 'no_such_thing'",
                                "module 'deepbot.forms' has no attribute 'no_such_thing'"]
