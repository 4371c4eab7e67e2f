"""CrawlConfig: every knob of a crawl, from a YAML file and/or command-line flags.

Every flag of ``deepbot crawl`` has a key here with the same name (dashes become
underscores); flags given on the command line override the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

DEFAULT_STORE = "deepbot-store.sqlite"
DEFAULT_USER_AGENT = "DeepBot/0.1 (+https://github.com/deepbot/deepbot)"


def _valid_regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {value!r}: {exc}") from exc
    return value


Regex = Annotated[str, AfterValidator(_valid_regex)]


class CrawlConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seeds: tuple[str, ...] = ()
    domains: tuple[Path, ...] = ()  # domain definition files (form-driven crawling)
    # A saved session the seeds start from (Playwright storage_state JSON): a logged-in crawl.
    session: Path | None = None
    store: Path = Path(DEFAULT_STORE)
    depth: int = Field(3, ge=0, description="link depth from each seed")
    workers: int = Field(4, ge=1, le=64)
    max_pages: int | None = Field(None, ge=1)
    # Pagination costs no depth: this bounds a pager that never ends (a catalogue that
    # answers page=N+1 with "page N+1", an empty list and "Next" again) per query and form.
    max_result_pages: int | None = Field(
        100, ge=1, description="pages of one query's results followed along their pager (null: no bound)")
    # A calendar's "next month" whose server answers any month leads on for ever: links in a
    # row that only move a number or a date in their page's URL are followed this far.
    max_calendar_steps: int | None = Field(
        10, ge=0, description="links in a row that only move a number or a date in their page's URL "
        "(a calendar's 'next month', an archive's ?page=N) followed at most (null: no bound)")
    include: tuple[Regex, ...] = ()  # a URL must match one of these (when given)
    exclude: tuple[Regex, ...] = ()  # a URL matching any of these is skipped
    same_site: bool = True  # only follow links to the seeds' hosts
    keywords: str | None = None  # boolean keyword query deciding what is stored
    # A focused crawl's topic, in words: links nearest to it are followed first (best-first).
    topic: str | None = None
    # An earlier crawl's store to learn paths to the topic from (the HMM crawler, content/hmm.py).
    learn_from: Path | None = None
    # A structure-driven crawl's sample page: the pages built from its template are stored
    # (INDESIT, content/structure.py). It is the first seed.
    like: str | None = None
    topic_threshold: float = Field(
        0.2, ge=0, le=1, description="a page this similar to the topic counts as relevant (harvest rate)")
    content_types: tuple[str, ...] = ()  # store only these (prefixes); empty = all

    # politeness
    user_agent: str = DEFAULT_USER_AGENT
    obey_robots: bool = True
    # <meta name="robots"> and X-Robots-Tag: always recorded (Document.meta["robots"]);
    # obeyed only when asked, since sites mark their search results noindex (directives.py).
    obey_meta_robots: bool = False
    per_host_concurrency: int = Field(4, ge=1)
    min_delay: float = Field(0.0, ge=0, description="seconds between requests to one host")
    give_up_after: int = Field(
        8, ge=1, description="refusals in a row (429, 503, bot checks) after which a host is visited no more "
        "in the run; its routes stay queued for the next"
    )

    # browser and timing
    headless: bool = True
    block_images: bool = True
    block_media: bool = True
    route_timeout: float = Field(45.0, gt=0, description="hard bound on one route, seconds")
    step_timeout: float = Field(10.0, gt=0)
    settle_timeout: float = Field(5.0, ge=0, description="wait for the load event, at most")
    fetch_wait: float = Field(
        2.0, ge=0, description="wait for the fetch/XHR a loaded page still awaits, at most (0: read at once)"
    )
    recycle_after: int = Field(200, ge=1, description="routes per browser context")
    # All workers in one browser session (one cookie jar and storage), as tabs: they then
    # share renderer processes, ~20 MB less a worker. Routes in flight see each other's
    # cookies, so only for sites that keep no per-visitor state (pool.py).
    shared_session: bool = False
    renderer_processes: int = Field(
        0, ge=0, description="with shared_session, renderer processes at most (0: one a core, at least 2); "
        "fewer than the workers is what saves memory")
    max_attempts: int = Field(3, ge=1)
    lease_ttl: float = Field(120.0, gt=0)
    reveal_menus: bool = True
    max_script_clicks: int = Field(30, ge=0, description="script-driven elements clicked per page")
    dismiss_overlays: bool = Field(
        True, description="answer cookie banners and consent walls, refusing what is optional if they let it"
    )
    # A feed of 100 items in batches of 10 needs 9 rounds; one that never ends is stopped
    # by either bound, and the summary says so (it is not "scrolled to the end").
    max_scrolls: int = Field(
        50, ge=0,
        description="rounds of scrolling a page that watches it to its end, or of 'Load more' clicks")
    scroll_time: float = Field(
        25.0, ge=0, description="seconds a page may be scrolled (and its 'Load more' clicked) in all; "
        "within the route's own bound, of which a quarter is left for reading the page")

    @field_validator("topic")
    @classmethod
    def _topic_has_words(cls, topic: str | None) -> str | None:
        if topic is not None:
            from deepbot.policy.topic import terms

            if not terms(topic):
                raise ValueError(f"the topic {topic!r} has no words to look for (only stop words?)")
        return topic

    @model_validator(mode="after")
    def _learning_needs_a_topic(self) -> CrawlConfig:
        if self.learn_from is not None and not self.topic:
            raise ValueError("learn_from learns paths to a topic: give the topic too")
        return self

    @model_validator(mode="before")
    @classmethod
    def _sample_first(cls, values: Any) -> Any:
        if isinstance(values, dict) and values.get("like"):
            if values.get("topic"):
                raise ValueError("a crawl is driven by a topic or by a sample page's structure, not both")
            seeds = tuple(values.get("seeds") or ())  # the sample first
            values = {**values, "seeds": (values["like"], *(s for s in seeds if s != values["like"]))}
        return values

    @field_validator("seeds")
    @classmethod
    def _http_seeds(cls, seeds: tuple[str, ...]) -> tuple[str, ...]:
        for seed in seeds:
            if not re.match(r"^https?://", seed):
                raise ValueError(f"seed {seed!r} is not an http(s) URL")
            try:
                parts = urlsplit(seed)
                parts.port  # noqa: B018 - raises on a port out of range
            except ValueError as exc:
                raise ValueError(f"seed {seed!r} is not a valid URL: {exc}") from None
            if not parts.hostname:
                raise ValueError(f"seed {seed!r} names no host")
        return seeds
