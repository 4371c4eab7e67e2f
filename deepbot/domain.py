"""Domain definitions (paper §III): attributes with aliases and specificity, queries, µ.

The YAML shape is a public format::

    name: books
    threshold: 0.9            # the relevance threshold µ
    attributes:
      - name: title
        aliases: [book title, title keywords]
        specificity: 0.6      # 0..1
    queries:                  # attribute -> value ("" allowed)
      - {title: java}

``load_domain`` reads it with safe loading and turns every problem into a
``DomainError`` naming the file, the line and the field path, e.g.
``domains/x.yaml:7: attributes[1].specificity: Input should be less than or equal to 1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from deepbot.errors import DomainError

__all__ = ["Attribute", "Domain", "load_domain"]


class _Frozen(BaseModel):
    # Numbers in YAML queries (an ISBN, a year) are values too: accept them as text.
    model_config = ConfigDict(frozen=True, extra="forbid", coerce_numbers_to_str=True)


class Attribute(_Frozen):
    """A searchable attribute: its name, alternative labels and how telling it is."""

    name: str = Field(min_length=1)
    aliases: tuple[str, ...] = ()
    specificity: float = Field(ge=0.0, le=1.0)

    @property
    def labels(self) -> tuple[str, ...]:
        """The texts describing the attribute: its name first, then its aliases, no repeats."""
        seen: dict[str, None] = {self.name: None}
        for alias in self.aliases:
            seen.setdefault(alias, None)
        return tuple(seen)


class Domain(_Frozen):
    """One data-collection task: which forms are relevant and what to ask them."""

    name: str = Field(min_length=1)
    threshold: float = Field(ge=0.0)
    attributes: tuple[Attribute, ...] = Field(min_length=1)
    queries: tuple[dict[str, str], ...] = ()

    @field_validator("queries", mode="before")
    @classmethod
    def _empty_values(cls, value: Any) -> Any:
        # `{title: }` in YAML is null: the paper allows empty values, so read it as "".
        if isinstance(value, list | tuple):
            return [
                {k: ("" if v is None else v) for k, v in q.items()} if isinstance(q, Mapping) else q
                for q in value
            ]
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Domain:
        errors: list[InitErrorDetails] = []
        seen: set[str] = set()
        for i, attribute in enumerate(self.attributes):
            if attribute.name in seen:
                errors.append(
                    _error(
                        "duplicate_attribute",
                        "duplicate attribute {name}",
                        ("attributes", i, "name"),
                        attribute.name,
                    )
                )
            seen.add(attribute.name)
        for i, query in enumerate(self.queries):
            if not query:
                errors.append(
                    _error("empty_query", "a query names at least one attribute", ("queries", i), query)
                )
            for key in query:
                if key not in seen:
                    known = ", ".join(sorted(seen))
                    errors.append(
                        _error(
                            "unknown_attribute",
                            "unknown attribute {name} (known: {known})",
                            ("queries", i, key),
                            key,
                            known=known,
                        )
                    )
        if errors:
            raise ValidationError.from_exception_data("Domain", errors)
        return self

    def attribute(self, name: str) -> Attribute:
        for attribute in self.attributes:
            if attribute.name == name:
                return attribute
        raise KeyError(name)

    def query_values(self, attribute: str) -> tuple[str, ...]:
        """The non-empty values the queries use for an attribute, in order, no repeats."""
        values: dict[str, None] = {}
        for query in self.queries:
            value = query.get(attribute, "")
            if value.strip():
                values.setdefault(value, None)
        return tuple(values)


def _error(kind: str, template: str, loc: tuple[str | int, ...], value: Any, **ctx: str) -> InitErrorDetails:
    return InitErrorDetails(
        type=PydanticCustomError(kind, template, {"name": repr(value), **ctx}), loc=loc, input=value
    )


def load_domain(path: str | Path) -> Domain:
    """Read and validate a domain definition; every problem is a located DomainError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DomainError(f"{path}: cannot read domain file: {exc.strerror or exc}") from exc
    return parse_domain(text, str(path))


def parse_domain(text: str, source: str = "<domain>") -> Domain:
    """Validate a domain definition given as YAML text; ``source`` names it in errors."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = " ".join(p for p in (exc.context, exc.problem) if p)
        raise DomainError(f"{source}{where}: YAML syntax error: {problem}") from None
    except yaml.YAMLError as exc:
        raise DomainError(f"{source}: YAML error: {exc}") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        first = root.start_mark.line + 1 if root is not None else 1
        raise DomainError(
            f"{source}:{first}: a domain definition is a mapping (name, threshold, attributes, queries)"
        )
    try:
        return Domain.model_validate(data)
    except ValidationError as exc:
        messages = [
            f"{source}:{_line_of(root, err['loc'])}: {_path(err['loc']) or '(top)'}: {err['msg']}"
            for err in exc.errors(include_url=False)
        ]
        raise DomainError("\n".join(messages)) from None


class _Loader(yaml.SafeLoader):
    """Safe loading that refuses duplicate keys (a silent override hides typos)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


def _line_of(root: yaml.Node | None, loc: tuple[int | str, ...]) -> int:
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


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
