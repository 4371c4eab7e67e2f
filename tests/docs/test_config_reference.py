"""The configuration reference and ``deepbot crawl --help`` say what CrawlConfig says."""

from __future__ import annotations

import re
from pathlib import Path

from deepbot.cli import build_parser
from deepbot.cli.crawl import config_flags
from deepbot.config import CrawlConfig
from deepbot.config.reference import reference_page

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "config.md"


def test_the_checked_in_reference_is_the_one_the_model_makes() -> None:
    assert PAGE.read_text("utf-8") == reference_page(config_flags()), (
        "docs/reference/config.md is stale: run python scripts/config_reference.py")


def test_every_key_has_a_one_line_description_and_a_row() -> None:
    page = PAGE.read_text("utf-8")
    for key, field in CrawlConfig.model_fields.items():
        assert field.description and field.description.endswith("."), key
        assert "\n" not in field.description, key
        assert f"| `{key}` |" in page, key


def _crawl_help() -> str:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    text = sub.choices["crawl"].format_help()  # type: ignore[attr-defined]
    return " ".join(text.split("options:", 1)[1].split())  # the options, not the usage line


def test_every_crawl_flag_shows_its_description_and_default() -> None:
    shown = _crawl_help()
    flags = config_flags()
    assert set(flags) >= {"depth", "workers", "max_pages", "store", "give_up_after", "obey_robots"}
    for key, names in flags.items():
        field = CrawlConfig.model_fields[key]
        help_text = re.search(re.escape(names[0]) + r"(?: [A-Z]+)? (.*?)(?= --|$)", shown)
        assert help_text, names
        if key in ("obey_robots", "headless"):  # the flags turn them off
            assert f"Sets {key}: false (default: true)." in help_text[1], help_text[1]
            continue
        assert " ".join(str(field.description).split()) in help_text[1], (key, help_text[1])
        if field.default not in (None, (), False):
            assert f"Default: {field.default}." in help_text[1], (key, help_text[1])
    assert "--depth N Links followed from each seed, at most. Default: 3." in shown
    assert "--max-pages N Pages fetched before the crawl stops. Default: no bound." in shown
