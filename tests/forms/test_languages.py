"""Forms written in other languages, read by domains written in English alone
(``bench/plain_forms/domains``): a form's words are read in English before they are
compared (``deepbot.forms.lexicon``), so "Senha" is a password, "Mot de passe oublié" a
forgotten password and "パスワード再設定" a password reset, with no alias in those languages.
English said otherwise reads one way ("Stay signed in" is "remember me"), and a few kinds of
form whose English the domains do not say as they do: a glued name under a heading that
names the form, a consent checkbox labelled by a whole sentence."""

from __future__ import annotations

from typing import Any

import pytest

from deepbot.config.domain import Domain
from deepbot.forms.textsim import SoftTfidf, tokens
from fixtures.server import FixtureServer
from tests.forms.truthpage import check_page, domains_in


def _english_domains() -> list[Domain]:
    return domains_in("bench/plain_forms/domains")


@pytest.mark.parametrize(("text", "english"), [
    ("Senha", "password"), ("Mot de passe oublié ?", "forgot password"), ("Nom d’utilisateur", "username"),
    ("Nova senha", "new password"), ("E-mail", "email"), ("Endereço de e-mail", "email"),
    ("パスワード再設定", "password reset"), ("Tilmeld nyhedsbrev", "newsletter tilmeld"),
    # and English said otherwise: the same thing, one way
    ("Email address", "email"), ("E-mail address", "email"), ("Sign in", "log in"), ("Log on", "login"),
    ("Stay signed in", "remember me"), ("Keep me logged in", "remember me"),
    ("Angemeldet bleiben", "remember me"),
    ("Request a new password", "reset password"), ("E-mail new password", "reset password"),
    ("Email sign-up", "newsletter"), ("E-mail subscription", "newsletter"),
    ("Create a new user account", "create account"), ("Create User", "create account"),
    # and languages further afield
    ("비밀번호", "password"), ("كلمة المرور", "password"), ("Şifremi unuttum", "forgot password"),
    ("Tìm kiếm", "search"), ("Lupa kata sandi?", "forgot password"), ("Đăng nhập", "login"),
    ("Giriş yap", "login"), ("Alamat email", "email"), ("Buat akun", "create account"),
    # and what English drops ("Enter your email address" is "email"), said in those languages
    ("Inserisci il tuo indirizzo e-mail", "email"), ("La tua email:", "email"),
    ("Wpisz swój adres e-mail", "email"), ("Geben Sie Ihre E-Mail-Adresse ein", "email"),
    ("Introduzca su correo electrónico", "email"), ("Digite seu e-mail", "email"),
    ("Saisissez votre adresse e-mail", "email"), ("Введите ваш e-mail", "email"),
    ("Vul uw e-mailadres in", "email"), ("Ange din e-postadress", "email"), ("Zadejte váš e-mail", "email"),
    ("E-posta adresinizi giriniz", "email"),
    # what a search box asks, and the words typed in it
    ("What are you looking for?", "search"), ("¿Qué estás buscando?", "search"), ("Что вы ищете?", "search"),
    ("Wpisz czego szukasz...", "search"), ("Suchbegriff", "keywords"), ("Mots-clés", "keywords"),
    ("Parola chiave", "keywords"),
    # a recovery form's heading
    ("Восстановление пароля", "recover password"), ("Mot de passe perdu", "lost password"),
    ("Zapomniałeś hasła?", "forgot password"), ("Tema", "subject"), ("Passwort anfordern", "reset password"),
    ("Glömt lösenordet?", "forgot password"),
    # read once more as English once its words are: "send new password" is a reset
    ("Send ny adgangskode", "reset password"), ("Bestil ny adgangskode", "reset password"),
    ("Solicitar nueva contraseña", "reset password"),
    # the boxes of contact and sign-up forms, and English said otherwise
    ("Full name", "name"), ("ФИО", "name"), ("Namn", "name"), ("Förnamn", "first name"), ("Objet", "subject"),
    ("Telefonnummer", "phone"), ("Mobile number", "phone"), ("Site web", "website"), ("User ID", "username"),
    ("Commentaires", "comment"),
    # the nouns of English purposes are their verbs, as the other languages' are
    ("Password reminder", "remind password"), ("Ricorda password", "remind password"),
    ("Password recovery", "recover password"), ("Forgotten password", "forgot password"),
    ("Registration", "register"),
    # "here", as English drops it
    ("Hier suchen...", "search"), ("Rechercher ici", "search"), ("Искать здесь", "search"),
])
def test_a_form_word_of_another_language_reads_as_its_english_word(text: str, english: str) -> None:
    assert tokens(text) == tokens(english)


def test_a_form_word_is_read_inside_a_script_without_spaces() -> None:
    assert {"forgot", "password"} <= set(tokens("パスワードを忘れた")) and "forgot" in tokens("忘记密码")


def test_a_word_is_its_english_word_only_as_a_whole_word() -> None:
    # "nom" is French for name; "nominee" and "phenomenal" are not names
    assert tokens("Nominee") == ("nominee",) and tokens("phenomenal") == ("phenomenal",)
    assert tokens("Nom") == ("name",)
    # "lupa" forgets in Indonesian only beside what is forgotten: alone it is a Spanish
    # search button's magnifier
    assert tokens("lupa") == ("lupa",)


def test_aliases_that_read_alike_are_one_text_of_the_corpus() -> None:
    # "Senha", "Passwort" and "password" are one text: "password" stays as rare as the
    # corpus says, not a word every text has
    one = SoftTfidf(["password", "search"])
    three = SoftTfidf(["password", "Senha", "Passwort", "search"])
    assert one.idf("password") == three.idf("password")


@pytest.mark.browser
async def test_forms_in_other_languages_and_words_are_read_by_english_domains(
    site: FixtureServer, browser: Any,
) -> None:
    await check_page(site, browser, "languages", _english_domains())


def test_a_stop_word_of_one_language_that_is_a_code_or_word_elsewhere_is_kept() -> None:
    # a query's value must still read as itself: states by their codes, Spanish "mes" (month)
    assert [tokens(t) for t in ("AL", "AZ", "MA", "Mes")] == [("al",), ("az",), ("ma",), ("mes",)]
