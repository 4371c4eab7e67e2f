"""Safe YAML loading into pydantic models, with errors that name file, line and field.

Every YAML file DeepBot reads (domain definitions, crawl configs) goes through
``load_model``: safe loading, duplicate keys refused, and each validation error
reported as ``file:line: field.path: message`` in the caller's error class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from deepbot.errors import ConfigError

M = TypeVar("M", bound=BaseModel)


class _Loader(yaml.SafeLoader):
    """Safe loading that refuses duplicate keys (a silent override hides typos)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):  # `? [a, b]`: a key must be a plain value
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"a key must be a plain value, not a {key_node.id}",
                    key_node.start_mark,
                )
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


def read_text(path: str | Path, error: type[ConfigError], what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:  # a binary file, or another encoding
        line = exc.object[: exc.start].count(b"\n") + 1
        raise error(f"{path}:{line}: {what} must be UTF-8 text; byte 0x{exc.object[exc.start]:02x} "
                    f"at offset {exc.start} is not") from None


def load_mapping(
    text: str, source: str, error: type[ConfigError], what: str
) -> tuple[dict[str, Any], yaml.Node]:
    """Parse YAML text that must hold a mapping; return it with its node tree (for lines)."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = " ".join(p for p in (exc.context, exc.problem) if p)
        raise error(f"{source}{where}: YAML syntax error: {problem}") from None
    except yaml.YAMLError as exc:
        raise error(f"{source}: YAML error: {exc}") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict) or root is None:
        first = root.start_mark.line + 1 if root is not None else 1
        raise error(f"{source}:{first}: {what} is a mapping of keys to values")
    return data, root


def validate(model: type[M], data: dict[str, Any], root: yaml.Node | None, source: str,
             error: type[ConfigError]) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(located_errors(exc, root, source)) from None


def load_model(path: str | Path, model: type[M], error: type[ConfigError], what: str) -> M:
    """Read a YAML file into ``model``; every problem is a located ``error``."""
    text = read_text(path, error, what)
    data, root = load_mapping(text, str(path), error, what)
    return validate(model, data, root, str(path), error)


def located_errors(exc: ValidationError, root: yaml.Node | None, source: str) -> str:
    errors = exc.errors(include_url=False)
    # A list whose only item is wrong is also "too short" (pydantic counts the valid items
    # against min_length): that says nothing the item's own error does not.
    inner = {err["loc"][:n] for err in errors for n in range(len(err["loc"]))}
    return "\n".join(
        f"{source}:{line_of(root, err['loc'])}: {field_path(err['loc']) or '(top)'}: {err['msg']}"
        for err in errors if not (err["type"] == "too_short" and err["loc"] in inner)
    )


def line_of(root: yaml.Node | None, loc: tuple[int | str, ...]) -> int:
    """1-based line of the deepest YAML node the error location reaches."""
    node = root
    line = root.start_mark.line + 1 if root is not None else 1
    for part in loc:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == part:
                    # an unknown key is reported at the key itself; a bad value at the value
                    child = value_node
                    line = key_node.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
        line = child.start_mark.line + 1
    return line


def field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
