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

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from deepbot.config.yamlfile import load_mapping, read_text, validate
from deepbot.errors import DomainError
from deepbot.models import Frozen

__all__ = ["Attribute", "Domain", "load_domain"]


class _Frozen(Frozen):
    # Numbers in YAML queries (an ISBN, a year) are values too: accept them as text.
    model_config = ConfigDict(coerce_numbers_to_str=True)


class Attribute(_Frozen):
    """A searchable attribute: its name, alternative labels and how telling it is."""

    name: str = Field(min_length=1)
    aliases: tuple[str, ...] = ()
    specificity: float = Field(ge=0.0, le=1.0)
    # A search's filters: the attribute also stands for every choice box (a select, a radio
    # group, a checkbox) of a form the domain claims that no attribute holds and that does
    # not sort or page the results ("Any make", "Price from", "Adults"). Such a box is named,
    # never filled, and adds nothing to the form's relevance. Left unsaid (None), an
    # attribute that says it is a category refines (``deepbot.forms.refine.refining``);
    # ``false`` keeps it from doing so.
    refines: bool | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        """The texts describing the attribute: its name first, as words (``sign_in`` and
        ``signIn`` read "sign in", as a page says it), then its aliases, no repeats."""
        seen: dict[str, None] = {_spoken(self.name): None}
        for alias in self.aliases:
            seen.setdefault(alias, None)
        return tuple(seen)


def _spoken(name: str) -> str:
    """An identifier's words: "_", "-" and a capital after a small letter part them."""
    parted = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ")
    return " ".join(parted.split()) or name


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
        refining = [i for i, a in enumerate(self.attributes) if a.refines is True]
        for i in refining[1:]:
            errors.append(_error("two_refining", "only one attribute refines (the first: {first})",
                                 ("attributes", i, "refines"), True,
                                 first=self.attributes[refining[0]].name))
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
    return parse_domain(read_text(path, DomainError, "domain file"), str(path))


def parse_domain(text: str, source: str = "<domain>") -> Domain:
    """Validate a domain definition given as YAML text; ``source`` names it in errors."""
    data, root = load_mapping(text, source, DomainError, "a domain definition")
    return validate(Domain, data, root, source, DomainError)
