"""Text similarity: normalisation, Jaro-Winkler cross-checked, SoftTFIDF properties."""

from __future__ import annotations

import jellyfish
import pytest
from hypothesis import given
from hypothesis import strategies as st

from deepbot.forms.textsim import SoftTfidf, glued, jaro_winkler, normalize, sounds_alike, tokens


def reference_jaro_winkler(s: str, t: str, p: float = 0.1) -> float:
    """Jaro-Winkler as Winkler's strcmp95 (and jellyfish) computes it: half the
    transpositions rounded down, prefix boost (up to 4) only above Jaro 0.7."""
    if s == t:
        return 1.0
    if not s or not t:
        return 0.0
    window = max(max(len(s), len(t)) // 2 - 1, 0)
    s_hit, t_hit = [False] * len(s), [False] * len(t)
    matches = 0
    for i, c in enumerate(s):
        for j in range(max(0, i - window), min(len(t), i + window + 1)):
            if not t_hit[j] and t[j] == c:
                s_hit[i] = t_hit[j] = True
                matches += 1
                break
    if not matches:
        return 0.0
    s_m = [c for c, h in zip(s, s_hit, strict=True) if h]
    t_m = [c for c, h in zip(t, t_hit, strict=True) if h]
    transpositions = sum(a != b for a, b in zip(s_m, t_m, strict=True)) // 2  # halved, rounded down
    jaro = (matches / len(s) + matches / len(t) + (matches - transpositions) / matches) / 3
    if jaro <= 0.7:
        return jaro
    prefix = 0
    for a, b in zip(s[:4], t[:4], strict=False):
        if a != b:
            break
        prefix += 1
    return jaro + prefix * p * (1 - jaro)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("martha", "marhta", 0.9611), ("dwayne", "duane", 0.84), ("dixon", "dicksonx", 0.8133)],
)
def test_jaro_winkler_published_values(a: str, b: str, expected: float) -> None:
    assert jaro_winkler(a, b) == pytest.approx(expected, abs=1e-4)


@given(st.text(alphabet="abcdeor", max_size=9), st.text(alphabet="abcdeor", max_size=9))
def test_jaro_winkler_matches_the_textbook_definition(a: str, b: str) -> None:
    assert jaro_winkler(a, b) == pytest.approx(reference_jaro_winkler(a, b), abs=1e-12)


# Letters of Latin, Greek and Cyrillic, no combining mark: jellyfish compares grapheme
# clusters, rapidfuzz code points, and "0" + a Thai vowel sign is one cluster to the first only.
_LETTERS = st.characters(min_codepoint=0x21, max_codepoint=0x4FF,
                         exclude_categories=("Mn", "Mc", "Me", "Cc", "Cf"))


@given(st.text(_LETTERS, min_size=1, max_size=12), st.text(_LETTERS, min_size=1, max_size=12))
def test_jaro_winkler_matches_jellyfish(a: str, b: str) -> None:
    # jellyfish is the reference implementation; rapidfuzz the fast one DeepBot runs
    assert jaro_winkler(a, b) == pytest.approx(jellyfish.jaro_winkler_similarity(a, b), abs=1e-9)


def test_accents_and_scripts_without_spaces() -> None:
    assert tokens("Título do Livro") == tokens("titulo do livro")
    assert tokens("Usuário") == ("usuario",)
    assert "書籍" in tokens("サイト内書籍")  # bigrams: an alias can match part of the run
    assert "search" in tokens("サイト内検索")  # a form word of the lexicon, wherever it is in the run
    assert tokens("Поиск книг") == ("search", "книг")  # other scripts keep their letters
    assert tokens("हिन्दी") == tokens("हिन्दी") != ()  # vowel signs are letters, not accents


def test_account_verbs_are_one_word() -> None:
    assert tokens("Log in") == tokens("Login") == tokens("log-in") == ("login",)
    assert tokens("Sign in") != tokens("Sign up")  # "in" and "up" are stopwords elsewhere


def test_sounds_alike() -> None:
    assert sounds_alike("Jon", "John") == 1.0
    assert sounds_alike("Jon Philip", "John Phillip (ed.)") == 1.0
    assert sounds_alike("grey", "Gray") == 1.0
    assert sounds_alike("colour", "Color") == 1.0
    assert sounds_alike("title", "total") == 0.0  # Metaphone alone would say yes
    assert sounds_alike("Jon Knuth", "John Smith") == 0.5


def test_normalisation() -> None:
    assert normalize("Title of the Book:") == "book title"
    assert normalize("Author's name") == "author name"
    assert normalize("ISBN-13 (e.g. 978...)") == "13 978 isbn"
    assert tokens("Published") != tokens("Publisher")  # no stemming
    assert normalize("  the  of  ") == ""


def test_soft_tfidf_properties() -> None:
    # each distinct text counts once: "name" is generic for being in many texts
    scorer = SoftTfidf(["book title", "title", "author name", "author", "publisher", "name", "your name",
                        "display name"])
    assert scorer.similarity("Title", "title:") == pytest.approx(1.0)
    assert scorer.similarity("author", "Authors") > 0.9  # close words count (JW ≥ θ)
    assert scorer.similarity("publisher", "published") == 0.0  # the paper's point: no stemming
    assert scorer.similarity("song", "songs") == pytest.approx(0.96)
    assert scorer.similarity("author", "price") == 0.0
    assert scorer.similarity("", "title") == 0.0
    # the rarer word weighs more: "book title" is closer to "book" than to "title"
    assert scorer.similarity("book title", "book") > scorer.similarity("book title", "title")
    # a generic word weighs little
    assert scorer.similarity("author name", "name") < scorer.similarity("author name", "author")


def test_table_equals_pairwise_scores() -> None:
    left = ["book title", "author", "isbn", "published by"]
    right = ["Title:", "Authors", "ISBN / EAN", "Publisher", "(e.g. Thinking in Java)"]
    scorer = SoftTfidf([*left, *right])
    table = scorer.table(left, right)
    for i, a in enumerate(left):
        for j, b in enumerate(right):
            assert table[i, j] == pytest.approx(scorer.similarity(a, b))
            assert 0.0 <= table[i, j] <= 1.0


def test_a_foreign_phrase_is_one_english_word() -> None:
    # a phrase of the lexicon read two ways would make the first English word win by chance
    from deepbot.forms.lexicon import FORM_WORDS
    from deepbot.forms.textsim import fold

    read: dict[str, set[str]] = {}
    for english, phrases in FORM_WORDS.items():
        for phrase in phrases:
            read.setdefault(fold(phrase), set()).add(english)
    assert {p: ws for p, ws in read.items() if len(ws) > 1} == {}


@pytest.mark.parametrize(("text", "alias"), [
    ("User Name", "username"), ("E mail", "email"), ("Zip code", "zipcode"), ("web-site", "website"),
    ("post_code", "post code"),
])
def test_a_word_written_as_two_is_that_word(text: str, alias: str) -> None:
    scorer = SoftTfidf([text, alias, "password", "search"])
    assert scorer.similarity(alias, text) == 1.0
    assert glued(text) == glued(alias)


def test_only_the_whole_text_glued_is_the_word() -> None:
    scorer = SoftTfidf(["zip", "zipcode", "code", "zip code list"])
    assert scorer.similarity("zipcode", "zip") < 1.0
    assert scorer.similarity("zipcode", "zip code list") < 1.0
