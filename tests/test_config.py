"""Crawl configs: YAML with located errors, flags overriding the file, every flag a key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepbot.cli import build_parser
from deepbot.cli.crawl import _FLAGS, _KEYS, config_from_args
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
        assert _KEYS.get(flag, flag) in keys
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


def test_a_config_file_takes_the_flags_spelling_too(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("seed: http://a.example/\nmax-pages: 7\ndomain: books.yaml\n"
                                     "ignore-robots: true\nheaded: true\nuser-agent: Test/1\n"
                                     "max_scrolls: 3\n")
    config = load_config(tmp_path / "c.yaml")
    assert config.seeds == ("http://a.example/",)  # one seed, as one --seed flag gives
    assert (config.max_pages, config.user_agent, config.max_scrolls) == (7, "Test/1", 3)
    assert config.domains == (tmp_path / "books.yaml",)
    assert (config.obey_robots, config.headless) == (False, False)


@pytest.mark.parametrize(("text", "expected"), [
    # a value's error is still reported at its key, spelled either way
    ("seed: [http://a/]\n\nmax-pages: 0\n",
     r"^c\.yaml:3: max_pages: Input should be greater than or equal to 1$"),
    ("seeds: [http://a/]\nseed: http://b/\n",
     r"^c\.yaml:2: seed: sets seeds a second time \(give it once\)$"),
    ("seed: [http://a/]\nmaxpages: 3\n",
     r"^c\.yaml:2: maxpages: Extra inputs are not permitted; did you mean 'max-pages'\?$"),
    ("seed: [http://a/]\nqwxz: 3\n", r"^c\.yaml:2: qwxz: Extra inputs are not permitted$"),
    ("seed: [http://a/]\nheaded: 1\n", r"^c\.yaml:2: headed: a switch, true or false$"),
    # several problems: one line each, in the file's order, whichever check found them
    ("workers: 0\nseed: ftp://a/\nwrokers: 2\n",
     r"^c\.yaml:1: workers: .*\nc\.yaml:2: seeds: .*not an http\(s\) URL\n"
     r"c\.yaml:3: wrokers: Extra inputs are not permitted; did you mean 'workers'\?$"),
])
def test_a_bad_key_is_one_located_line_with_the_closest_key(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "c.yaml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "c.yaml")
    assert re.fullmatch(expected, str(caught.value).replace(f"{tmp_path}/", "")), str(caught.value)


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "crawl.yaml"


def test_the_example_config_loads_with_every_key_it_shows(tmp_path: Path) -> None:
    config = load_config(EXAMPLE)
    assert config.seeds == ("http://127.0.0.1:8765/books/",)
    assert config.domains[0].resolve() == (EXAMPLE.parents[1] / "domains" / "books.yaml").resolve()
    assert config.domains[0].is_file()
    assert config.store == EXAMPLE.parent / "crawl.sqlite"
    assert config.max_pages == 500
    # Every option it leaves commented out ("#key: value") is valid as written, all at once.
    text = EXAMPLE.read_text()
    shown = re.findall(r"^#([a-z-]+):", text, flags=re.MULTILINE)
    assert len(shown) >= 20
    (tmp_path / "crawl.yaml").write_text(re.sub(r"^#([a-z-]+:)", r"\1", text, flags=re.MULTILINE))
    every = load_config(tmp_path / "crawl.yaml")
    assert every.topic == "java programming books" and every.keywords
    given = {_KEYS.get(key.replace("-", "_"), key.replace("-", "_")) for key in shown}
    assert given - {"obey_robots", "headless"} <= every.model_fields_set
    # And it shows every flag of `deepbot crawl`.
    flags = [*_FLAGS, "ignore_robots", "obey_meta_robots", "shared_session", "headed"]
    missing = [flag for flag in flags
               if not re.search(rf"^#? ?{flag.replace('_', '-')}:", text, re.MULTILINE)]
    assert missing == []
