"""What harvest.js reads of a rendered page in one evaluate, as a typed model.

The script returns one JSON string (a tree of values would be converted node by node by
Playwright); it is validated here in one call, the links and script elements straight
into the models a PageSnapshot holds, so nothing downstream reads the page's answer
with ``.get``.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, field_validator

from deepbot.errors import BrowserError
from deepbot.models import Frozen
from deepbot.routes import GrowthStop, Link, ScriptElement

SCRIPT = resources.files("deepbot.crawl").joinpath("harvest.js").read_text("utf-8")


class Consent(Frozen):
    """The button that answers a cookie banner or consent wall, or the iframe that may hold it."""

    selector: str = ""  # the button (NSEQL selector); empty when ``frame`` names where to look
    text: str = ""  # what the button says
    frame: str | None = None  # an iframe that may hold the notice (a consent manager's origin)
    src: str = ""  # that iframe's address, when it has one to load

    def found(self) -> dict[str, str]:
        """As the overlay tools hand it on: ``{"selector", "text"}``."""
        return {"selector": self.selector, "text": self.text}


class ShownDocument(Frozen):
    """The document the tab shows, as the browser loaded it (Navigation Timing)."""

    url: str = ""
    status: int = 0  # 0: unknown
    type: str = ""  # document.contentType


class Challenge(Frozen):
    """What shows the page is a bot check: the words it says, the CAPTCHA widget it shows."""

    said: str = ""
    widget: str = ""


class Harvest(Frozen):
    """One harvest of a page (``harvest.js``), or of its overlay only (``consentOnly``)."""

    model_config = ConfigDict(populate_by_name=True)

    url: str = ""
    title: str = ""
    html: str = ""
    text: str = ""
    links: tuple[Link, ...] = ()
    scripts: tuple[ScriptElement, ...] = ()
    revealed: int = 0
    scrolled: int = 0
    more: int = 0
    scroll_stop: GrowthStop = Field("", alias="scrollStop")
    more_stop: GrowthStop = Field("", alias="moreStop")
    more_clicks: tuple[str, ...] = Field((), alias="moreClicks")  # the "Load more" buttons clicked, in order
    settled: bool = True
    consent: Consent | None = None
    storage: tuple[dict[str, str], ...] = ()  # localStorage of the page's origin: {name, value}
    origins: tuple[str, ...] = ()  # the page's origin and its iframes'
    forms: int = 0
    login: bool = False
    robots: tuple[tuple[str, str], ...] = ()  # <meta> robots directives: (name, content)
    document: ShownDocument = ShownDocument()
    challenge: Challenge | None = None

    @field_validator("scroll_stop", "more_stop", mode="before")
    @classmethod
    def _not_done(cls, value: Any) -> Any:
        return value or ""  # null: not done

    @field_validator("robots", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return [(str(name), str(content)) for name, content in value or ()]


def decoded(value: Any) -> Harvest:
    """The script's answer (JSON text, or the object itself where a page broke JSON.stringify)."""
    try:
        if isinstance(value, str):
            return Harvest.model_validate_json(value)
        if isinstance(value, dict):
            return Harvest.model_validate(value)
    except ValidationError as exc:
        raise BrowserError(f"the page's harvest did not read as one: {exc}") from None
    raise BrowserError(f"the page's harvest returned {type(value).__name__}, not an object")
