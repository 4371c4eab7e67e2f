"""What marks a human-verification test (deepbot/challenge.py), without a browser.

The pages that use these live in tests/crawl/test_challenge.py; here, the words and
widgets against real sites' texts, and what the analyzer says guards a form.
"""

from __future__ import annotations

import re

import pytest

from deepbot.content import challenge

PAGE = re.compile(challenge.PAGE_WORDS, re.I)


@pytest.mark.parametrize("text", [
    "Verify you are human by completing the action below.",  # Cloudflare
    "www.example.com needs to review the security of your connection before proceeding.",
    "Checking if the site connection is secure",
    "Our systems have detected unusual traffic from your computer network.",  # Google
    "Sorry, we just need to make sure you're not a robot.",  # a shop's own check
    "Press & Hold to confirm you are a human (and not a bot).",  # HUMAN
    "Pardon Our Interruption",  # Imperva
    "Please enable JavaScript and cookies to continue",
])
def test_the_words_of_bot_checks(text: str) -> None:
    assert PAGE.search(text)


@pytest.mark.parametrize("text", [
    "Robots in fiction: from Čapek to Asimov",
    "Human resources: opening hours and contact",
    "Search our catalogue of 40,000 titles",
    "We use cookies to improve your experience. Continue to the site.",
])
def test_ordinary_pages_do_not_say_them(text: str) -> None:
    assert not PAGE.search(text)


@pytest.mark.parametrize(("hint", "name"), [
    ("div g-recaptcha", "reCAPTCHA"),
    ("iframe https://www.google.com/recaptcha/api2/anchor?ar=1&k=6Lc", "reCAPTCHA"),
    ("div h-captcha", "hCaptcha"),
    ("iframe https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2",
     "Cloudflare Turnstile"),
    ("div cf-turnstile turnstile-wrapper", "Cloudflare Turnstile"),
    ("iframe https://geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAAAAMA", "DataDome"),
    ("img Captcha ctl00_MainContent_imgCode CaptchaImage.axd?guid=7b1c", "a CAPTCHA image"),
    ("div captcha-box", "a CAPTCHA"),
])
def test_a_widget_names_its_service(hint: str, name: str) -> None:
    assert challenge.provider(hint) == name


@pytest.mark.parametrize("text", [
    "txtCaptcha", "Enter the code shown:", "Type the characters you see in this image",
    "Security code", "What is 4 + 3?", "Verification code",
])
def test_a_field_that_takes_the_answer(text: str) -> None:
    assert challenge.field_says("", text) == text


@pytest.mark.parametrize("text", ["Title", "ISBN code", "Zip code", "Enter the title or author",
                                  "Promo code"])
def test_a_field_that_takes_a_value(text: str) -> None:
    assert challenge.field_says(text) is None


def test_what_guards_a_form() -> None:
    widgets = ["div g-recaptcha", "iframe reCAPTCHA https://www.google.com/recaptcha/api2/anchor?k=1"]
    fields = [("title", "Title"), ("txtCode", "Enter the code shown:")]
    assert challenge.guard(widgets, fields) == "reCAPTCHA, a CAPTCHA field ('Enter the code shown')"
    assert challenge.guard([], [("title", "Title"), ("q", "Search")]) is None
    # A payment card's security code is no CAPTCHA, whatever names it: its name, its hint, its section.
    for card in [("cvv", "Security code"), ("ctl00$txtSecCode", "Security code", "3 digits on the back"),
                 ("code", "Security code", "Payment card details"), ("cc-csc", "Security code")]:
        assert challenge.guard([], [("number", "Card number"), card]) is None, card
    assert challenge.guard([], [("txtSecCode", "Security code")]) == "a CAPTCHA field ('Security code')"
    assert challenge.guard([], [("code", "Enter the code shown", "Get a library card")]) is not None


def test_the_scripts_get_valid_patterns() -> None:
    args = challenge.script_args()
    assert set(args) == {"widgets", "invisible", "pageWords", "fieldWords"}
    # JavaScript reads the same sources: nothing Python-only in them.
    for source in (args["pageWords"], args["fieldWords"]):
        assert "(?" not in source and "\\A" not in source and "\\Z" not in source
