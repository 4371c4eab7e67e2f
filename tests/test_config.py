"""Crawl configs: YAML with located errors, flags overriding the file, every flag a key."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.cli import build_parser
from deepbot.cli.crawl import _FLAGS, config_from_args
from deepbot.config import CrawlConfig
from deepbot.config.load import load_config
from deepbot.errors import ConfigError


def test_yaml_config_is_validated_and_paths_are_relative_to_it(tmp_path: Path) -> None:
    (tmp_path / "crawl.yaml").write_text(
        "seeds: [http://127.0.0.1:1/]\ndepth: 2\nstore: out/store.sqlite\ndomains: [books.yaml]\n")
    config = load_config(tmp_path / "crawl.yaml")
    assert config.depth == 2
    assert config.store == tmp_path / "out/store.sqlite"
    assert config.domains == (tmp_path / "books.yaml",)


@pytest.mark.parametrize(("text", "expected"), [
    ("seeds: [http://a/]\ndepht: 2\n", r"crawl.yaml:2: depht: Extra inputs are not permitted"),
    ("seeds: [http://a/]\nworkers: 0\n", r"crawl.yaml:2: workers: Input should be greater than or equal"),
    ("seeds: [ftp://a/]\n", r"crawl.yaml:1: seeds: Value error, seed 'ftp://a/' is not an http\(s\) URL"),
    ("include: ['(']\n", r"crawl.yaml:1: include\[0\]: Value error, invalid regular expression"),
    ("seeds: [http://a/\n", r"crawl.yaml:2: YAML syntax error"),
    ("- a\n- b\n", r"crawl.yaml:1: a crawl config is a mapping"),
])
def test_bad_config_names_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "crawl.yaml").write_text(text)
    with pytest.raises(ConfigError, match=expected):
        load_config(tmp_path / "crawl.yaml")


def test_flags_override_the_file(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("seeds: [http://a.example/]\ndepth: 5\nworkers: 3\n")
    args = build_parser().parse_args(["crawl", "--config", str(tmp_path / "c.yaml"), "--depth", "1",
                                      "--exclude", "logout", "--ignore-robots"])
    config = config_from_args(args)
    assert (config.depth, config.workers, config.exclude, config.obey_robots) == (1, 3, ("logout",), False)
    assert config.seeds == ("http://a.example/",)


def test_every_crawl_flag_has_a_config_key() -> None:
    keys = set(CrawlConfig.model_fields)
    for flag in _FLAGS:
        assert {"seed": "seeds", "domain": "domains"}.get(flag, flag) in keys
    bad = build_parser().parse_args(["crawl", "--seed", "http://a/", "--workers", "0"])
    with pytest.raises(ConfigError, match="workers"):
        config_from_args(bad)


def test_how_many_refusals_before_a_host_is_left_for_the_next_run() -> None:
    args = build_parser().parse_args(["crawl", "--seed", "http://a/", "--give-up-after", "2"])
    assert config_from_args(args).give_up_after == 2
    with pytest.raises(ConfigError, match="give_up_after"):
        config_from_args(build_parser().parse_args(["crawl", "--seed", "http://a/", "--give-up-after", "0"]))


def test_a_sample_page_is_the_first_seed_and_excludes_a_topic() -> None:
    from deepbot.config.load import validate_config
    from deepbot.errors import ConfigError

    config = CrawlConfig(like="http://cup.test/player/1", seeds=("http://cup.test/", "http://cup.test/player/1"))
    assert config.seeds == ("http://cup.test/player/1", "http://cup.test/")
    with pytest.raises(ConfigError, match="a topic or by a sample page's structure, not both"):
        validate_config({"like": "http://cup.test/player/1", "topic": "football"}, "command line")


def test_the_bounds_on_scrolling_and_on_calendar_like_chains() -> None:
    defaults = config_from_args(build_parser().parse_args(["crawl", "--seed", "http://a/"]))
    assert (defaults.max_scrolls, defaults.scroll_time, defaults.max_calendar_steps) == (50, 25.0, 10)
    args = build_parser().parse_args(["crawl", "--seed", "http://a/", "--max-scrolls", "200", "--scroll-time",
                                      "40", "--max-calendar-steps", "24"])
    config = config_from_args(args)
    assert (config.max_scrolls, config.scroll_time, config.max_calendar_steps) == (200, 40.0, 24)
    with pytest.raises(ConfigError, match="scroll_time"):
        config_from_args(build_parser().parse_args(["crawl", "--seed", "http://a/", "--scroll-time", "-1"]))
