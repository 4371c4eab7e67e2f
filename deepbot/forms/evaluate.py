"""The paper's metrics (§V.B) on a labelled set of forms.

Precision and recall of three kinds of association, each a set of tuples compared
with the ground truth a person wrote:

* text-field: (file, form, field, text); a radio/checkbox option is ``name=value``;
* field-attribute: (file, form, domain, field, attribute), on the forms the truth
  says serve that domain (as in the paper, decoys do not count here);
* form-domain: (file, form, domain), over every form, decoys included.

Text-field pairs are grouped by the file's category (books, music, other); the other
two by domain. The truth file format is described in its ``_about`` key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepbot.forms.models import PageAnalysis

__all__ = ["Associations", "Metric", "associations", "load_truth", "metrics", "truth_associations"]

Pair = tuple[str, ...]


@dataclass
class Associations:
    text_field: dict[str, set[Pair]] = field(default_factory=dict)  # category → pairs
    field_attribute: dict[str, set[Pair]] = field(default_factory=dict)  # domain → pairs
    form_domain: dict[str, set[Pair]] = field(default_factory=dict)  # domain → pairs

    def add(self, kind: str, group: str, pair: Pair) -> None:
        getattr(self, kind).setdefault(group, set()).add(pair)


@dataclass(frozen=True)
class Metric:
    hits: int
    predicted: int
    real: int

    @property
    def precision(self) -> float:
        return self.hits / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.hits / self.real if self.real else 1.0


def load_truth(path: str | Path) -> dict[str, Any]:
    files: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))["files"]
    return files


def _clean(text: str) -> str:
    return " ".join(text.split())


def truth_associations(truth: Mapping[str, Any]) -> Associations:
    out = Associations()
    for file, entry in truth.items():
        for form in entry["forms"]:
            key = (file, str(form["index"]))
            for fld, texts in form["texts"].items():
                for text in texts:
                    out.add("text_field", entry["category"], (*key, fld, _clean(text)))
            for domain in form["domains"]:
                out.add("form_domain", domain, (*key, domain))
                for fld, attribute in form["attributes"].get(domain, {}).items():
                    out.add("field_attribute", domain, (*key, domain, fld, attribute))
    return out


def associations(results: Iterable[tuple[str, PageAnalysis]], truth: Mapping[str, Any]) -> Associations:
    """What the analyzer found, as the same tuples as the truth."""
    out = Associations()
    for file, page in results:
        entry = truth[file]
        served = {f["index"]: set(f["domains"]) for f in entry["forms"]}
        for form in page.forms:
            key = (file, str(form.form_index))
            for fld in form.fields:
                for text in fld.texts:
                    out.add("text_field", entry["category"], (*key, fld.name, _clean(text)))
                if fld.type in ("radio", "checkbox"):
                    for option in fld.options:
                        for text in option.texts:
                            out.add(
                                "text_field",
                                entry["category"],
                                (*key, f"{fld.name}={option.value}", _clean(text)),
                            )
            for verdict in form.domains:
                if verdict.relevant:
                    out.add("form_domain", verdict.domain, (*key, verdict.domain))
                if verdict.domain in served.get(form.form_index, set()):
                    for a in verdict.assignments:
                        out.add(
                            "field_attribute", verdict.domain, (*key, verdict.domain, a.field, a.attribute)
                        )
    return out


def metrics(found: Associations, real: Associations) -> dict[str, dict[str, Metric]]:
    """kind → group (and "overall") → Metric."""
    report: dict[str, dict[str, Metric]] = {}
    for kind in ("text_field", "field_attribute", "form_domain"):
        got: dict[str, set[Pair]] = getattr(found, kind)
        want: dict[str, set[Pair]] = getattr(real, kind)
        groups = sorted(set(got) | set(want))
        rows = {g: _metric(got.get(g, set()), want.get(g, set())) for g in groups}
        rows["overall"] = _metric(set().union(*got.values()), set().union(*want.values()))
        report[kind] = rows
    return report


def _metric(got: set[Pair], want: set[Pair]) -> Metric:
    return Metric(hits=len(got & want), predicted=len(got), real=len(want))
