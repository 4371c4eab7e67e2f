"""The domain files and config files the README and the docs show are valid as shown."""

from __future__ import annotations

import re

import yaml

from deepbot.config.domain import parse_domain
from deepbot.config.load import validate_config
from tests.docs.snippets import PAGES, ROOT

_YAML = re.compile(r"```yaml\n(.*?)\n```", re.S)


def test_every_yaml_block_shown_is_a_valid_domain_or_crawl_config() -> None:
    checked = {"domain": 0, "config": 0}
    for page in PAGES:
        for block in _YAML.findall(page.read_text("utf-8")):
            where = page.relative_to(ROOT).as_posix()
            if "attributes:" in block:
                domain = parse_domain(block, where)
                assert domain.queries, where  # a domain the docs show has queries to send
                checked["domain"] += 1
            else:
                validate_config(yaml.safe_load(block), where)
                checked["config"] += 1
    assert checked["domain"] >= 2 and checked["config"] >= 1, checked
