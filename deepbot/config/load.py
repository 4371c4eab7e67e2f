"""Loading and validating CrawlConfig from YAML files and command-line values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from deepbot.config import CrawlConfig
from deepbot.config.yamlfile import load_model, located_errors
from deepbot.errors import ConfigError


def load_config(path: str | Path) -> CrawlConfig:
    """A crawl config file; relative paths in it (store, domains) are relative to the file."""
    config = load_model(path, CrawlConfig, ConfigError, "a crawl config")
    base = Path(path).parent
    updates: dict[str, Any] = {}
    if "store" in config.model_fields_set and not config.store.is_absolute():
        updates["store"] = base / config.store
    for key in ("session", "learn_from"):
        value = getattr(config, key)
        if value is not None and not value.is_absolute():
            updates[key] = base / value
    if config.domains:
        updates["domains"] = tuple(d if d.is_absolute() else base / d for d in config.domains)
    return config.model_copy(update=updates) if updates else config


def validate_config(values: dict[str, Any], source: str) -> CrawlConfig:
    try:
        return CrawlConfig.model_validate(values)
    except ValidationError as exc:
        raise ConfigError(located_errors(exc, None, source).replace(f"{source}:1: ", f"{source}: ")) from None
