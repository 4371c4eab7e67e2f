"""Text similarity (paper §IV.A): normalisation, then SoftTFIDF over Jaro-Winkler.

SoftTFIDF (Cohen, Ravikumar & Fienberg, IIWeb 2003) scores two token bags S and T as

    sim(S, T) = Σ_{w ∈ CLOSE(θ, S, T)} V(w, S) · V(w*, T) · D(w, T)

where D(w, T) = max_{v ∈ T} JW(w, v), w* is that best v, CLOSE keeps the words of S
whose D reaches θ, and V(w, S) = log(tf + 1) · idf(w), L2-normalised over S. So words
may differ a little ("authors" ~ "author") while rare words weigh more than common
ones ("book title" vs "title"). Jaro-Winkler comes from rapidfuzz, batched with
``process.cdist`` over the distinct words of a whole table at once.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

import jellyfish
import numpy as np
from numpy.typing import NDArray
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from deepbot.forms.lexicon import FORM_WORDS

__all__ = ["FORM_VOCABULARY", "STOPWORDS", "THETA", "SoftTfidf", "fold", "in_english", "jaro_winkler",
           "normalize", "sounds_alike", "tokens"]

# The CLOSE threshold on the inner Jaro-Winkler similarity. Cohen et al. use 0.9, but
# the paper wants "Published" and "Publisher" told apart (JW 0.956) while plurals
# stay close ("song"/"songs" 0.96, "author"/"authors" 0.971).
THETA = 0.96

# English function words, plus the pieces that punctuation leaves behind ("e.g.",
# "author's"). Words that carry meaning in forms ("all", "any", "by") are kept.
STOPWORDS = frozenset(
    """
    a an the and or nor but if of to in on at for from into onto with within without
    as is are was were be been being it its this that these those there here
    i me my we our you your he she they them their his her what which who whom
    do does did done will would shall should can could may might must
    than then so such too very just also only not no yes up
    please enter select choose
    e g s eg ie etc
    """.split()  # noqa: SIM905 (a word list reads better)
) | frozenset(
    # the articles, prepositions and possessives of the languages forms are often written
    # in (French, Spanish, Portuguese, Italian, German, Dutch, Scandinavian, Russian):
    # "Lancer la recherche" is "recherche" as "Search the site" is "search site"
    """
    le la les l un une des du de d au aux et pour par sur votre vos ton ta tes
    el los las del y por para su sus tu
    o os da das dos um uma seu sua seus suas
    il lo gli della delle dei di per
    der die das den dem des und ein eine einen einem für mit zu ihr ihre ihren
    het een van en voor uw je
    og af til din dit
    и в на по для с ваш ваша ваше
    """.split()  # noqa: SIM905
) | frozenset(
    # The same words English drops, in those languages and a few more: "your" (folded, so
    # "Twój" is "twoj"), "the", and the requests "enter", "select", "please". "Inserisci il
    # tuo indirizzo e-mail" is "email", as "Enter your email address" is. Words that are
    # codes or words of their own elsewhere ("AL", "AZ", "MA" as states, Spanish "mes" a
    # month) are left out: a query's value must still read as itself.
    """
    mon notre nos leur leurs
    tus vuestro vuestra vuestros vuestras usted un una unos unas
    teu tua teus tuas ao aos nas nos
    tuo tuoi tue vostro vostra vostri vostre suo nel nella alla
    dein deine deinen deinem deiner deines ihrem ihrer ihres sie im zum zur vom
    jouw de dine ditt dina deres
    twoj twoja twoje twojego swoj swoja swoje wasz wasza wasze vas vase tvuj tvoje
    ваши вашу вашего вашей свой свою свое
    saisissez saisir entrez indiquez renseignez choisissez selectionnez veuillez tapez
    ingrese ingresa introduzca introduce escriba escribe seleccione selecciona elija elige favor
    digite informe insira introduza selecione escolha
    inserisci inserire inserite digita scegli seleziona
    geben eingeben bitte wahlen
    vul voer kies selecteer
    indtast angiv vælg velg ange valj skriv
    wpisz podaj wprowadz wybierz prosze zadejte vyberte
    введите укажите выберите пожалуиста
    hier ici aqui qui tutaj здесь тут
    giriniz girin lutfen seciniz secin
    """.split()  # noqa: SIM905
) | frozenset(
    # "me" in those languages, as "Remember me" is "remember": "Запомнить меня", "Se souvenir
    # de moi", "Angemeldet bleiben", "Husk mig", "Onthoud mij", "Lembrar de mim"
    ["moi", "mich", "mi", "mim", "mig", "mij", "меня", "мне"]
)

_SPLIT = re.compile(r"[\W_]+", re.UNICODE)
# Scripts written without spaces between words: Han, Hiragana, Katakana (and Thai).
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f]+")
_UNSPACED_RUN = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f]+)")


def _fold(text: str) -> str:
    """Casefolded, with the Latin accents dropped: "Título" and "titulo" are one word, as a
    person typing an alias without accents means. Only the combining diacritics block
    (U+0300–U+036F) goes: the vowel signs of other scripts are letters, not accents."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not "\u0300" <= c <= "\u036f")


def _words(text: str) -> list[str]:
    """A run of a script without spaces becomes its character bigrams ("サイト内検索" holds
    "検索"), so that an alias written in it can match part of a longer text."""
    out = []
    for part in _UNSPACED_RUN.split(text):
        if _UNSPACED.fullmatch(part):
            out += [part] if len(part) < 3 else [part[i : i + 2] for i in range(len(part) - 1)]
        else:
            out += _SPLIT.split(part)
    return out


# The form words of other languages (deepbot.forms.lexicon), folded as texts are, each read as
# its English word: whole words in spaced scripts, anywhere in the others.
_LEXICON = {_fold(phrase): word for word, phrases in FORM_WORDS.items() for phrase in phrases}
_LONGEST_FIRST = sorted(_LEXICON, key=len, reverse=True)
_LEXICON_SPACED = re.compile(
    r"(?<!\w)(" + "|".join(re.escape(p) for p in _LONGEST_FIRST if not _UNSPACED.search(p)) + r")(?!\w)")
_LEXICON_UNSPACED = re.compile("|".join(re.escape(p) for p in _LONGEST_FIRST if _UNSPACED.search(p)))


def fold(text: str) -> str:
    """``text`` casefolded, its Latin accents dropped, as every text is before it is read."""
    return _fold(text)


def in_english(text: str) -> str:
    """``text`` folded (lower case, no accents), its form words of other languages in English."""
    return _in_english(_fold(text))


def _in_english(folded: str) -> str:
    """A folded text with the form words of other languages in English ("nova senha" → "new
    password"), so that a domain written in English reads a form written in Portuguese."""
    text, read = _LEXICON_SPACED.subn(lambda m: _LEXICON[m.group(1)], folded.replace("\u2019", "'"))
    text, more = _LEXICON_UNSPACED.subn(lambda m: f" {_LEXICON[m.group(0)]} ", text)
    # Read once more, as English said otherwise: "Send ny adgangskode" is "send new password"
    # once its words are read, and that is "reset password". A text none of whose words was
    # read has nothing new to find.
    return _LEXICON_SPACED.sub(lambda m: _LEXICON[m.group(1)], text) if read or more else text


# Phrasal verbs of accounts, written as one word as often as two ("Login", "Log in",
# "Sign-up"): one word, so that the stopwords "in" and "up" do not leave "sign" alone and
# make "Sign in" read as "sign up".
_PHRASAL = re.compile(r"\b(log|sign)[\s-]*(in|on|up|out)\b")


def _significant(text: str) -> list[str]:
    """The text's words in their order: folded, read in English, stopwords dropped."""
    return [w for w in _words(_PHRASAL.sub(r"\1\2", _in_english(_fold(text)))) if w and w not in STOPWORDS]


@lru_cache(maxsize=8192)
def tokens(text: str) -> tuple[str, ...]:
    """Lowercase words, accents, stopwords and non-alphanumerics dropped, sorted; no stemming."""
    return tuple(sorted(_significant(text)))


@lru_cache(maxsize=8192)
def glued(text: str) -> str:
    """The significant words in their order, with no space between: "User name", "Username"
    and "user_name" are one word, and so are "E-mail" and "Email", "Zip code" and "Zipcode"."""
    return "".join(_significant(text))


def normalize(text: str) -> str:
    """The normalised form of a text: its sorted significant words joined by spaces."""
    return " ".join(tokens(text))


# The words of forms themselves, as texts read them: the lexicon's English words and the
# phrasal verbs of accounts ("signup"). What a box or a form is, never a page's content.
FORM_VOCABULARY = frozenset({w for word in FORM_WORDS for w in tokens(word)}
                            | {verb + end for verb in ("log", "sign") for end in ("in", "on", "up", "out")})


def sounds_alike(a: str, b: str) -> float:
    """The share of the words of ``a`` that have a word of ``b`` spelled another way but
    pronounced alike ("Jon" / "John", "Smyth" / "Smith", "Colour" / "Color"): both their
    Metaphone and NYSIIS codes agree (one alone is too coarse: "title" and "total" share
    a Metaphone). Words under three letters never count."""
    left = [w for w in tokens(a) if len(w) >= 3 and w.isalpha()]
    right = {_codes(w) for w in tokens(b) if len(w) >= 3 and w.isalpha()}
    if not left or not right:
        return 0.0
    return sum(_codes(w) in right for w in left) / len(left)


@lru_cache(maxsize=8192)
def _codes(word: str) -> tuple[str, str]:
    return jellyfish.metaphone(word), jellyfish.nysiis(word)


def jaro_winkler(a: str, b: str) -> float:
    """Jaro-Winkler similarity (prefix weight 0.1, boost above Jaro 0.7)."""
    return float(JaroWinkler.similarity(a, b))


class SoftTfidf:
    """A SoftTFIDF scorer whose word weights come from a corpus of texts.

    The corpus should hold every text the scorer will compare (a domain's labels and
    values and a form's texts): the IDF of a word is ``log(1 + N / df)``, which stays
    positive for a word found in every text, so no text ever weighs nothing.
    """

    def __init__(self, corpus: Iterable[str], theta: float = THETA) -> None:
        self.theta = theta
        # Each distinct text once: aliases that normalise alike ("Passwort", "Senha" and
        # "Password" all read "password") are one text, not a word that every text has.
        docs = list({frozenset(tokens(text)) for text in corpus})
        self._n = max(len(docs), 1)
        self._df: Counter[str] = Counter(word for doc in docs for word in doc)
        self._weights: dict[str, dict[str, float]] = {}  # the corpus texts recur: remember them
        self._lefts: dict[tuple[str, ...], tuple[list[str], NDArray[np.float64]]] = {}
        self._glued: dict[tuple[str, ...], dict[str, list[int]]] = {}

    def idf(self, word: str) -> float:
        return math.log(1.0 + self._n / max(self._df.get(word, 0), 1))

    def weights(self, text: str) -> dict[str, float]:
        """V(w, text): log-TF × IDF, unit length."""
        cached = self._weights.get(text)
        if cached is None:
            cached = self._weights[text] = self._compute_weights(text)
        return cached

    def _compute_weights(self, text: str) -> dict[str, float]:
        counts = Counter(tokens(text))
        raw = {w: math.log(tf + 1.0) * self.idf(w) for w, tf in counts.items()}
        norm = math.sqrt(sum(v * v for v in raw.values()))
        return {w: v / norm for w, v in raw.items()} if norm else {}

    def similarity(self, s: str, t: str) -> float:
        """SoftTFIDF(s, t) in [0, 1]; directional (CLOSE runs over the words of s)."""
        return float(self.table([s], [t])[0, 0])

    def table(self, left: Sequence[str], right: Sequence[str]) -> NDArray[np.float64]:
        """SoftTFIDF of every pair: ``result[i, j] = sim(left[i], right[j])``."""
        out = np.zeros((len(left), len(right)))
        lvocab, lmat = self._left(tuple(left))
        rw = [self.weights(t) for t in right]
        rvocab = sorted({w for d in rw for w in d})
        if not lvocab or not rvocab:
            return out
        jw = process.cdist(lvocab, rvocab, scorer=JaroWinkler.similarity, dtype=np.float64)
        jw = np.where(jw >= self.theta, jw, 0.0)
        rindex = {w: i for i, w in enumerate(rvocab)}
        rows = np.arange(len(lvocab))
        # Each right text contributes, for every left word, its closest word's weight × JW;
        # the left texts' weight matrix then sums those contributions per left text.
        for j, d in enumerate(rw):
            if not d:
                continue
            cols = np.fromiter((rindex[w] for w in d), dtype=np.intp, count=len(d))
            vals = np.fromiter(d.values(), dtype=np.float64, count=len(d))
            sub = jw[:, cols]
            best = sub.argmax(axis=1)
            out[:, j] = lmat @ (sub[rows, best] * vals[best])
        # A text whose words, glued, are another's is that text written another way: a word
        # split in two ("User name" for "username") would otherwise weigh as two words.
        same = self._glued_left(tuple(left))
        for j, text in enumerate(right):
            alike = same.get(glued(text))
            if alike:
                out[alike, j] = 1.0
        return np.minimum(out, 1.0)

    def _glued_left(self, left: tuple[str, ...]) -> dict[str, list[int]]:
        """Each left text's glued words → the rows that have them, remembered as ``_left`` is."""
        cached = self._glued.get(left)
        if cached is None:
            cached = {}
            for i, text in enumerate(left):
                if key := glued(text):
                    cached.setdefault(key, []).append(i)
            self._glued[left] = cached
        return cached

    def _left(self, left: tuple[str, ...]) -> tuple[list[str], NDArray[np.float64]]:
        """The words of the left texts and their (texts × words) weight matrix, remembered:
        the left side is a domain's labels, the same for every form."""
        cached = self._lefts.get(left)
        if cached is None:
            lw = [self.weights(s) for s in left]
            vocab = sorted({w for d in lw for w in d})
            index = {w: i for i, w in enumerate(vocab)}
            mat = np.zeros((len(left), len(vocab)))
            for i, d in enumerate(lw):
                for w, v in d.items():
                    mat[i, index[w]] = v
            cached = self._lefts[left] = (vocab, mat)
        return cached
