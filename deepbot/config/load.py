"""Loading and validating CrawlConfig from YAML files and command-line values.

A config file may spell a key as its ``deepbot crawl`` flag (``max-pages``, ``seed``,
``ignore-robots``) or as the field (``max_pages``, ``seeds``): people copy flags from a
command line into a file, and the README says the two are the same.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from deepbot.config import CrawlConfig
from deepbot.config.yamlfile import line_of, load_mapping, located_errors, read_text
from deepbot.errors import ConfigError

# Flags whose name is not their field's with dashes: repeatable flags named in the singular.
_PLURALS = {"seed": "seeds", "domain": "domains", "allow_origin": "allow_origins"}
# Switches that turn a default off: the flag's name says the opposite of the field's.
_NEGATED = {"ignore_robots": "obey_robots", "headed": "headless"}


def _key(name: Any) -> Any:
    """The field (or negated switch) a config key names, dashes or not; a key that names
    none is left as written, to be reported as written."""
    if not isinstance(name, str):
        return name
    key = name.replace("-", "_")
    key = _PLURALS.get(key, key)
    return key if key in CrawlConfig.model_fields or key in _NEGATED else name


def load_config(path: str | Path) -> CrawlConfig:
    """A crawl config file; relative paths in it (store, domains) are relative to the file."""
    source = str(path)
    data, root = load_mapping(read_text(path, ConfigError, "a crawl config"), source, ConfigError,
                              "a crawl config")
    config = _validate(_field_names(data, root, source), root, source)
    base = Path(path).parent
    updates: dict[str, Any] = {}
    store = config.store  # a postgresql:// URL (a str) is not relative to anything
    if "store" in config.model_fields_set and isinstance(store, Path) and not store.is_absolute():
        updates["store"] = base / config.store
    for key in ("session", "learn_from"):
        value = getattr(config, key)
        if value is not None and not value.is_absolute():
            updates[key] = base / value
    if config.domains:
        updates["domains"] = tuple(d if d.is_absolute() else base / d for d in config.domains)
    return config.model_copy(update=updates) if updates else config


def _field_names(data: dict[str, Any], root: yaml.Node, source: str) -> dict[str, Any]:
    """The file's keys as field names; the YAML nodes are renamed too, so that an error in a
    value is still reported at the line of its key, and a key given twice (``seed`` and
    ``seeds``) is refused as a duplicate would be."""
    assert isinstance(root, yaml.MappingNode)  # load_mapping returned a dict: its root is a mapping
    nodes = {key_node.value: key_node for key_node, _ in root.value if isinstance(key_node, yaml.ScalarNode)}
    values: dict[str, Any] = {}
    for name, value in data.items():
        key = _key(name)
        if key in _NEGATED:
            if not isinstance(value, bool):
                raise ConfigError(f"{source}:{line_of(root, (name,))}: {name}: a switch, true or false")
            key, value = _NEGATED[key], not value
        if key in values:
            raise ConfigError(f"{source}:{line_of(root, (name,))}: {name}: sets {key} a second time "
                              "(give it once)")
        if isinstance(key, str) and isinstance(value, str) and _many(key):
            value = [value]  # `seed: http://…`, as one --seed flag gives one
        values[key] = value
        if name in nodes and isinstance(key, str):
            nodes[name].value = key
    return values


def _many(key: str) -> bool:
    """Whether the field holds a list (a tuple): one string given for it is a list of one."""
    field = CrawlConfig.model_fields.get(key)
    return field is not None and str(field.annotation).startswith("tuple[")


def _validate(values: dict[str, Any], root: yaml.Node, source: str) -> CrawlConfig:
    """Validate; each key that is no field is named with the one it most likely meant."""
    unknown = [key for key in values if key not in CrawlConfig.model_fields]
    known = {key: value for key, value in values.items() if key not in unknown}
    problems: list[tuple[int, str]] = []
    for key in unknown:
        line = line_of(root, (key,))
        said = f"{key}: Extra inputs are not permitted{_suggestion(str(key))}"
        problems.append((line, f"{source}:{line}: {said}"))
    config = None
    try:
        config = CrawlConfig.model_validate(known)
    except ValidationError as exc:
        for located in located_errors(exc, root, source).splitlines():
            number = located.removeprefix(f"{source}:").split(":", 1)[0]
            problems.append((int(number) if number.isdigit() else 0, located))
    if problems or config is None:
        # In the file's order, whichever check found them.
        raise ConfigError("\n".join(text for _, text in sorted(problems, key=lambda problem: problem[0])))
    return config


def _suggestion(key: str) -> str:
    """"; did you mean 'depth'?" for the closest field or flag name; "" if none is close."""
    spelled = re.sub(r"[-_\s]+", "_", key.lower())
    names = [*CrawlConfig.model_fields, *_PLURALS, *_NEGATED]
    close = difflib.get_close_matches(spelled, names, n=1, cutoff=0.6)
    return f"; did you mean {close[0].replace('_', '-')!r}?" if close else ""


def validate_config(values: dict[str, Any], source: str) -> CrawlConfig:
    try:
        return CrawlConfig.model_validate(values)
    except ValidationError as exc:
        raise ConfigError(located_errors(exc, None, source).replace(f"{source}:1: ", f"{source}: ")) from None
