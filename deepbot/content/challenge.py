"""Human-verification tests (CAPTCHAs, bot checks): what marks one.

DeepBot does not answer them. Two places look for them, with the evidence below:

- the harvest (``crawl/harvest.js``): a page that is only a check standing in front of
  the site ("Verify you are human", a CAPTCHA and little else; around a widget, the
  site's header, menus and footer do not count). The crawler treats it
  as a refusal, like a 429: the host is paused, the route retried later, then recorded
  as failed; the check is never stored as the page.
- the form extraction (``forms/extract.js``) and the analyzer: a form that a CAPTCHA
  guards. A relevant one is reported, not queried: every submission would be refused.
- the submission (``crawl/visit.py``): a widget that was invisible (it only scored the
  visit) shows its test when the form is sent. The query fails, ``CaptchaShown``, and
  the form's other queries are not sent.

The widgets are the CAPTCHA services' own markup (each marks its container with
``data-sitekey`` and draws its test in an iframe of its origin) and a site's own
CAPTCHA image. Invisible variants (reCAPTCHA v3's badge, a ``data-size=invisible``
widget, a sitekey on the submit button) guard nothing a person sees: they score the
visit, and a form with one is tried.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

WIDGETS = ", ".join((
    "[data-sitekey]", ".g-recaptcha", ".h-captcha", ".cf-turnstile", ".frc-captcha",
    'iframe[src*="/recaptcha/"]', 'iframe[src*="hcaptcha.com"]', 'iframe[src*="challenges.cloudflare.com"]',
    'iframe[src*="captcha-delivery.com"]', 'iframe[src*="arkoselabs.com"]', 'iframe[src*="funcaptcha.com"]',
    'iframe[src*="geetest"]',
    'img[src*="captcha" i]', 'img[id*="captcha" i]', 'img[alt*="captcha" i]', 'img[class*="captcha" i]',
))

# Where a widget asks nothing of a person: reCAPTCHA v3's badge, an invisible widget, a
# sitekey on the submit button (the test runs on its click, unseen by a trusted visit).
# An iframe whose src says ``size=invisible`` is one too.
INVISIBLE = ".grecaptcha-badge, [data-size=invisible], button, input"

# What a check page says (Cloudflare, Google's "unusual traffic", HUMAN's "Press & Hold",
# Imperva's "Pardon Our Interruption", a shop's "Enter the characters you see").
# JavaScript and Python read these patterns alike.
PAGE_WORDS = (
    r"verif(y|ying|ies) (that )?you('re| are) (a )?human|(confirm|prove) (that )?you('re| are) (a )?human"
    r"|(i'?m|i am|you'?re|you are) not a robot|are you a (human|robot)|unusual traffic"
    r"|automated (queries|requests|access)|checking (your browser|if the site connection is secure)"
    r"|review the security of your connection|enable javascript and cookies to continue"
    r"|complete the security check|press (&|and) hold|pardon our interruption"
    r"|(type|enter) the (characters|letters|code) (you see|shown)"
)

# What a field that takes a CAPTCHA's answer is called or labelled.
FIELD_WORDS = (
    r"captcha|security code|verification code|(type|enter) the (characters|letters|code|text|word)"
    r"|(characters|letters|code|text) (you see|shown|in the (image|picture))|are you (a )?human"
    r"|what is \d+ ?(\+|plus|x|×|\*|-|minus|times) ?\d+"
)

_FIELD = re.compile(FIELD_WORDS, re.I)
# A payment card's "Security code" (CVV, "card verification code") speaks of the card
# somewhere: its name, its hint, its section. That field is not a CAPTCHA's answer.
_AMBIGUOUS = re.compile(r"security code|verification code", re.I)
_CARD = re.compile(r"\b(?:cvv2?|cvc2?|csc|cid)\b|cc-?csc|card|digits on the back", re.I)

_PROVIDERS = (
    (re.compile(r"recaptcha", re.I), "reCAPTCHA"),
    (re.compile(r"\bh-?captcha", re.I), "hCaptcha"),
    (re.compile(r"turnstile|challenges\.cloudflare", re.I), "Cloudflare Turnstile"),
    (re.compile(r"captcha-delivery", re.I), "DataDome"),
    (re.compile(r"arkoselabs|funcaptcha", re.I), "Arkose Labs"),
    (re.compile(r"geetest", re.I), "GeeTest"),
    (re.compile(r"frc-captcha|friendlycaptcha", re.I), "Friendly Captcha"),
)


def script_args() -> dict[str, Any]:
    """The evidence, for the page scripts (``challenge`` in their argument)."""
    return {"widgets": WIDGETS, "invisible": INVISIBLE, "pageWords": PAGE_WORDS, "fieldWords": FIELD_WORDS}


def provider(hint: str) -> str:
    """A widget's service, from what the scripts report of it (its tag, class, id and src)."""
    for pattern, name in _PROVIDERS:
        if pattern.search(hint):
            return name
    return "a CAPTCHA image" if hint.startswith("img") else "a CAPTCHA"


def field_says(*texts: str) -> str | None:
    """The first text that calls a field a CAPTCHA's answer ("Enter the code shown"), if any."""
    return next((t for t in texts if t and _FIELD.search(t)), None)


def guard(widgets: Iterable[str], fields: Iterable[Sequence[str]]) -> str | None:
    """What guards a form: its widgets' services, and each text field whose name or
    labels (``fields``: each one's texts) call it a CAPTCHA's answer; None if nothing."""
    found = dict.fromkeys(provider(w) for w in widgets)
    for texts in fields:
        said = field_says(*texts)
        if said is not None and not (_AMBIGUOUS.search(said) and any(_CARD.search(t) for t in texts if t)):
            found[f"a CAPTCHA field ('{said.strip().rstrip(':')}')"] = None
    return ", ".join(found) or None
