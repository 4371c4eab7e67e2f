"""Filter rows: [field label] [operator ▾] [value], the label belongs to the value.

A filter builder's row (Redmine's issue query, Django admin's and Flask-Admin's active
filters, Roundup-style search rows) reads "Status [is ▾] [open ▾]": the label names what
the value control holds, while the operator between them (is / is not / contains) says
how it is compared. Read by sight alone, the label sits next to the operator, so the layout
gives it the operator select, and the value control is left with whatever text is next
to *it* (often the next row's label). This rule, run on the layout, gives each operator's
texts to the value control to its right in the same row; the operator keeps no text (it
holds no attribute, and the fill stage leaves its default).
"""

from __future__ import annotations

import re

from deepbot.forms.models import Box, ExtractedForm, FieldLayout, FormField, FormLayout

__all__ = ["OPERATORS", "is_operator", "label_values", "without_switches"]

# An operator's option: "=", "is", "contains", "starts with"…
OPERATORS = re.compile(r"^\s*(=|==|!=|<>|<|>|≤|≥|<=|>=|is|is not|equals?|not equals?|not equal|contains?|"
                       r"does not contain|doesn't contain|not contains?|starts? with|begins? with|ends? with|"
                       r"like|not like|in|not in|in list|not in list|matches|has|includes?|empty|not empty|"
                       r"is empty|between|greater than|smaller than|less than|any|none)\s*$", re.I)
# Of those, the ones that only a comparison says ("any" and "none" are values too).
_COMPARES = re.compile(r"^\s*(=|==|!=|<>|is|is not|equals?|not equal|contains?|like)\s*$", re.I)
MIN_OPERATORS = 3  # options that are operators: fewer is a select of values that happen to read so


def is_operator(field: FormField) -> bool:
    """A select whose options are comparisons, not values."""
    if field.tag != "select" or field.multiple or len(field.options) < 2:
        return False
    labels = [o.label or o.value for o in field.options]
    said = sum(bool(OPERATORS.match(label)) for label in labels)
    return said >= min(MIN_OPERATORS, len(labels)) and any(_COMPARES.match(label) for label in labels)


def without_switches(form: ExtractedForm) -> ExtractedForm:
    """The form less its rows' switches: a checkbox that starts a filter row and turns it on
    (Redmine's ``f[]``), left as the page set it. Its label is the row's label, which the
    layout then reads beside the operator, and ``label_values`` gives the value control."""
    operators = [f for f in form.fields if is_operator(f)]
    if not operators:
        return form

    def switch(box: Box | None) -> bool:
        return box is not None and any(box.same_row(o.box) and box.right <= o.box.x + 1 for o in operators)

    kept = [f for f in form.fields
            if not (f.type == "checkbox" and f.options and all(switch(o.box) for o in f.options))]
    if len(kept) == len(form.fields):
        return form
    return form.model_copy(update={"fields": tuple(kept)})


def label_values(form: ExtractedForm, layout: FormLayout) -> FormLayout:
    """The layout with each operator select's texts moved to the value control after it."""
    moved: dict[str, list[int]] = {}  # value control -> the operators whose texts it takes
    for i, field in enumerate(form.fields):
        if not is_operator(field) or not layout.fields[i].texts:
            continue
        value = _value_after(form, field)
        if value is not None:
            moved.setdefault(value, []).append(i)
    if not moved:
        return layout
    fields: list[FieldLayout] = list(layout.fields)
    index = {f.name: i for i, f in enumerate(form.fields)}
    for value, operators in moved.items():
        j = index[value]
        taken = tuple(link for i in operators for link in layout.fields[i].texts)
        fields[j] = fields[j].model_copy(update={"texts": (*taken, *fields[j].texts)})
        for i in operators:
            fields[i] = fields[i].model_copy(update={"texts": ()})
    return layout.model_copy(update={"fields": tuple(fields)})


def _value_after(form: ExtractedForm, operator: FormField) -> str | None:
    """The nearest field right of the operator in its row that holds a value."""
    row = [f for f in form.fields
           if f is not operator and not f.hidden and not is_operator(f) and f.type != "checkbox"
           and f.box.same_row(operator.box) and f.box.x >= operator.box.right - 1]
    return min(row, key=lambda f: f.box.x).name if row else None
