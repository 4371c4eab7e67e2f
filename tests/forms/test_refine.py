"""A search's filters (``deepbot.forms.refine``): a box that sorts or pages the results is
no filter, in whatever language it says so, by its label, its name or its options; an
attribute named as a category holds the filters unless the domain says otherwise."""

from __future__ import annotations

import pytest

from deepbot.config.domain import parse_domain
from deepbot.forms.models import Box, Evidence, FieldOption, FieldText, FormField
from deepbot.forms.refine import refining, sorts_or_pages


def _select(name: str, label: str, *options: str) -> FormField:
    return FormField(name=name, html_name=name, tag="select", type="select-one", kind="bounded",
                     selector=f"select[name={name}]", box=Box(x=0, y=0, width=100, height=20),
                     options=tuple(FieldOption(value=o, label=o) for o in options))


def _texts(label: str) -> tuple[FieldText, ...]:
    return (FieldText(text=label, evidence=Evidence.LABEL),) if label else ()


@pytest.mark.parametrize(("name", "label", "options"), [
    ("sortBy", "", ("Relevance", "Newest")),                      # the name alone
    ("o", "Sortierung", ("Preis", "Datum")),                      # German, a word on "sort"
    ("o", "Trier par", ("Prix", "Date")),                         # French
    ("o", "Ordenar por", ("Precio", "Fecha")),                    # Spanish
    ("o", "Сортировка", ("Цена", "Дата")),                        # Russian
    ("dir", "", ("Prix croissant", "Prix décroissant")),          # French options
    ("order", "", ("in Ascending Order", "in Descending Order")),
    ("o", "", ("Price (Low to High)", "Price (High to Low)")),
    ("n", "Artikel pro Seite", ("20", "48")),                     # a page size
])
def test_a_box_that_sorts_or_pages_is_known(name: str, label: str, options: tuple[str, ...]) -> None:
    assert sorts_or_pages(_select(name, label, *options), _texts(label))


def test_a_name_is_read_as_the_reader_splits_it() -> None:
    # "pageSize" reaches the refinement as the reader gives it: "page size", a name's words
    said = (FieldText(text="page size", evidence=Evidence.NAME, weight=0.9),)
    assert sorts_or_pages(_select("pageSize", "", "20", "40"), said)
    assert not sorts_or_pages(_select("pageSize", "", "20", "40"), ())


@pytest.mark.parametrize(("name", "label", "options"), [
    ("make", "", ("Any make", "Audi", "Ford")),
    ("cat", "Catégorie", ("Viennoiserie", "Croissant", "Pain")),  # a pastry, not an order
    ("adults", "Adults", ("1", "2", "3")),
    ("orderStatus", "Order status", ("Shipped", "Pending")),     # an order is not "order by"
])
def test_a_filter_is_not_read_as_a_sort(name: str, label: str, options: tuple[str, ...]) -> None:
    assert not sorts_or_pages(_select(name, label, *options), _texts(label))


def test_folded_boxes_are_no_share_of_what_a_form_shows() -> None:
    # A form that shows one box, with four checkboxes a script keeps folded away. "cars"
    # holds the box; "news" passes its µ by more but holds nothing. Counted among what the
    # form shows, the folded boxes would shrink the share "cars" explains, and "news" would win.
    from deepbot.forms.models import Assignment, DomainMatch, FieldAnalysis, FormAnalysis, OptionAnalysis

    box = Box(x=0, y=0, width=100, height=20)
    query = FieldAnalysis(name="q", kind="unbounded", type="text", tag="input", selector="#q", box=box)
    folded = tuple(FieldAnalysis(name=f"c{i}", kind="bounded", type="checkbox", tag="input",
                                 selector=f"#c{i}", box=Box(x=0, y=0, width=0, height=0), hidden=True,
                                 values=("Garden",), options=(OptionAnalysis(value="1", label="Garden"),))
                   for i in range(4))
    cars = DomainMatch(domain="cars", score=1.2, threshold=1.0, relevant=True,
                       assignments=(Assignment(field="q", attribute="make", confidence=1.0),))
    news = DomainMatch(domain="news", score=1.5, threshold=1.0, relevant=True)
    form = FormAnalysis(form_index=0, selector="#f", action="", method="get", box=box,
                        fields=(query, *folded), domains=(cars, news))
    assert form.best_domain is not None and form.best_domain.domain == "cars"


def _domain(*attributes: str) -> str:
    listed = "".join(f"  - {a}\n" for a in attributes)
    return f"name: d\nthreshold: 0.5\nattributes:\n  - {{name: query, specificity: 0.6}}\n{listed}"


@pytest.mark.parametrize("name", ["category", "categories", "section", "department", "filters",
                                  "search_category", "searchCategory", "refinement", "kategorie",
                                  "Categoría"])
def test_an_attribute_named_as_a_category_holds_the_filters_unsaid(name: str) -> None:
    # A user who writes a search domain with a category seldom knows of `refines`; the name
    # says what the attribute is
    domain = parse_domain(_domain(f"{{name: {name}, specificity: 0.1}}"))
    assert refining(domain) == name


def test_what_the_domain_says_of_its_filters_wins() -> None:
    assert refining(parse_domain(_domain("{name: category, specificity: 0.1, refines: false}"))) is None
    marked = _domain("{name: category, specificity: 0.1}", "{name: where, specificity: 0.1, refines: true}")
    assert refining(parse_domain(marked)) == "where"
    # an alias is a word of the pages, not what the attribute is: a subject stays a subject
    subject = _domain("{name: subject, aliases: [category, section], specificity: 0.3}")
    assert refining(parse_domain(subject)) is None
    others = _domain("{name: sector, specificity: 0.1}", "{name: subsection, specificity: 0.1}")
    assert refining(parse_domain(others)) is None
