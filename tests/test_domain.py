"""Domain definitions: the public YAML shape, and errors that name file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepbot.config.domain import Domain, load_domain, parse_domain
from deepbot.errors import DomainError

DOMAINS = Path(__file__).resolve().parent.parent / "domains"

GOOD = """\
name: books
threshold: 0.9            # the relevance threshold
attributes:
  - name: title
    aliases: [book title, title keywords]
    specificity: 0.6
  - name: isbn
    aliases: [isbn]
    specificity: 0.95
queries:
  - {title: java}
  - {title: xml, isbn: ""}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    return path


def test_shipped_domains_load_with_the_required_queries() -> None:
    books = load_domain(DOMAINS / "books.yaml")
    music = load_domain(DOMAINS / "music.yaml")
    assert books.queries == ({"title": "java"}, {"title": "xml", "format": "paperback"}, {"author": "knuth"})
    assert music.queries == (
        {"artist": "beatles"},
        {"album": "blue", "format": "vinyl"},
        {"song": "yesterday"},
    )
    for domain in (books, music):
        assert domain.threshold > 0
        assert all(0 <= a.specificity <= 1 for a in domain.attributes)


def test_good_file_and_helpers(tmp_path: Path) -> None:
    domain = load_domain(write(tmp_path, GOOD))
    assert isinstance(domain, Domain)
    assert domain.attribute("title").labels == ("title", "book title", "title keywords")
    assert domain.query_values("title") == ("java", "xml")
    assert domain.query_values("isbn") == ()  # "" is allowed and carries no value
    with pytest.raises(ValueError):
        domain.model_copy().__setattr__("threshold", 2)  # frozen


def test_null_query_value_reads_as_empty() -> None:
    domain = parse_domain(GOOD.replace('{title: xml, isbn: ""}', "{title: xml, isbn: }"))
    assert domain.queries[1] == {"title": "xml", "isbn": ""}


def test_out_of_range_specificity_names_file_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("specificity: 0.95", "specificity: 1.5"))
    with pytest.raises(DomainError) as err:
        load_domain(path)
    assert str(err.value) == f"{path}:9: attributes[1].specificity: Input should be less than or equal to 1"


def test_yaml_syntax_error_has_a_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("  - {title: java}", "  - {title: java"))
    with pytest.raises(DomainError, match=rf"^{path}:1[12]: YAML syntax error"):
        load_domain(path)


def test_unknown_attribute_in_a_query() -> None:
    with pytest.raises(DomainError) as err:
        parse_domain(GOOD.replace("{title: xml,", "{titel: xml,"), "d.yaml")
    message = str(err.value)
    assert message.startswith("d.yaml:12: queries[1].titel: unknown attribute 'titel'")
    assert "known: isbn, title" in message


def test_extra_key_is_an_error_at_its_line() -> None:
    text = GOOD.replace("    aliases: [isbn]\n", "    aliases: [isbn]\n    alias: [ean]\n")
    with pytest.raises(
        DomainError, match=r"^d.yaml:9: attributes\[1\]\.alias: Extra inputs are not permitted"
    ):
        parse_domain(text, "d.yaml")


def test_missing_field_points_at_its_mapping() -> None:
    text = GOOD.replace("    specificity: 0.6\n", "")
    with pytest.raises(DomainError, match=r"^d.yaml:4: attributes\[0\]\.specificity: Field required"):
        parse_domain(text, "d.yaml")


def test_every_error_is_reported() -> None:
    text = GOOD.replace("threshold: 0.9", "threshold: high").replace("specificity: 0.6", "specificity: -1")
    with pytest.raises(DomainError) as err:
        parse_domain(text, "d.yaml")
    lines = str(err.value).splitlines()
    assert lines[0].startswith("d.yaml:2: threshold: Input should be a valid number")
    assert lines[1].startswith(
        "d.yaml:6: attributes[0].specificity: Input should be greater than or equal to 0"
    )


def test_a_wrong_only_attribute_is_reported_once() -> None:
    # Its list then has no valid item: pydantic's "at least 1 item" would say it again.
    text = "name: books\nthreshold: 0.9\nattributes:\n  - name: title\n    specificity: 2\n"
    with pytest.raises(DomainError) as err:
        parse_domain(text, "d.yaml")
    assert str(err.value).splitlines() == [
        "d.yaml:5: attributes[0].specificity: Input should be less than or equal to 1"]
    with pytest.raises(DomainError, match=r"^d.yaml:3: attributes: Tuple should have at least 1 item"):
        parse_domain("name: books\nthreshold: 0.9\nattributes: []\n", "d.yaml")


def test_duplicate_key_and_duplicate_attribute() -> None:
    with pytest.raises(DomainError, match=r"^d.yaml:3: YAML syntax error: .*duplicate key 'threshold'"):
        parse_domain(GOOD.replace("attributes:", "threshold: 1\nattributes:"), "d.yaml")
    with pytest.raises(DomainError, match=r"d.yaml:7: attributes\[1\]\.name: duplicate attribute 'title'"):
        parse_domain(GOOD.replace("name: isbn", "name: title"), "d.yaml")


def test_not_a_mapping_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DomainError, match=r"^d.yaml:1: a domain definition is a mapping"):
        parse_domain("- just\n- a list\n", "d.yaml")
    with pytest.raises(DomainError, match="cannot read domain file"):
        load_domain(tmp_path / "nope.yaml")


def test_numbers_in_queries_are_values() -> None:
    domain = parse_domain(GOOD.replace('isbn: ""', "isbn: 9780131103627"))
    assert domain.queries[1]["isbn"] == "9780131103627"  # an int to YAML, a value to the domain


def test_one_attribute_refines_at_most() -> None:
    text = ("name: search\nthreshold: 0.4\nattributes:\n  - name: query\n    specificity: 0.6\n"
            "  - name: category\n    specificity: 0.1\n    refines: true\n"
            "  - name: where\n    specificity: 0.1\n    refines: true\n")
    with pytest.raises(DomainError) as err:
        parse_domain(text, "d.yaml")
    assert str(err.value).splitlines() == [
        "d.yaml:11: attributes[2].refines: only one attribute refines (the first: category)"]
    one = parse_domain(text.replace("refines: true\n", "refines: false\n", 1), "d.yaml")
    assert [a.refines for a in one.attributes] == [None, False, True]  # None: not said


def test_an_attribute_name_reads_as_the_words_a_page_says() -> None:
    # the name counts as an alias: "sign_in" and "signIn" are "sign in", not "sign"
    text = ("name: login\nthreshold: 0.5\nattributes:\n"
            "  - {name: sign_in, aliases: [log in], specificity: 0.6}\n"
            "  - {name: searchTerms, specificity: 0.5}\n  - {name: q, specificity: 0.5}\n")
    domain = parse_domain(text)
    assert [a.labels for a in domain.attributes] == [("sign in", "log in"), ("search Terms",), ("q",)]
    assert domain.attribute("sign_in").name == "sign_in"  # queries and assignments keep the name
