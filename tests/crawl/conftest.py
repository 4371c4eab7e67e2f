from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.config import CrawlConfig
from fixtures.server import FixtureServer


@pytest.fixture
def lab_site() -> FixtureServer:
    """A private fixture server: crawl tests count its hits, so none may share it."""
    with FixtureServer() as server:
        yield server


def lab_config(site: FixtureServer, store: Path, **overrides: object) -> CrawlConfig:
    values: dict[str, object] = {
        "seeds": (site.url("/lab/"),), "store": store, "workers": 2, "depth": 3,
        "settle_timeout": 2.0, "step_timeout": 8.0, "route_timeout": 30.0,
    }
    values.update(overrides)
    return CrawlConfig.model_validate(values)
