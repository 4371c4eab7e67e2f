"""CrawlConfig: every knob of a crawl, from a YAML file and/or command-line flags.

Every flag of ``deepbot crawl`` has a key here with the same name (dashes become
underscores); flags given on the command line override the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

DEFAULT_STORE = "deepbot-store.sqlite"
DEFAULT_USER_AGENT = "DeepBot/0.1 (+https://github.com/deepbot/deepbot)"


def _valid_regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {value!r}: {exc}") from exc
    return value


Regex = Annotated[str, AfterValidator(_valid_regex)]


def _store_target(value: Path | str) -> Path | str:
    """A postgresql:// URL stays a string (a Path would fold its ``//``); anything else is a path.
    After validation, so a config read back from JSON (a string there) validates as well."""
    if isinstance(value, str) and not value.startswith(("postgresql://", "postgres://")):
        return Path(value)
    return value


StoreTarget = Annotated[str | Path, AfterValidator(_store_target)]


class CrawlConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # Each description is one short sentence, with its unit: docs/reference/config.md and
    # `deepbot crawl --help` are generated from them (deepbot/config/reference.py).
    seeds: tuple[str, ...] = Field((), description="URLs the crawl starts from.")
    domains: tuple[Path, ...] = Field(
        (), description="Domain definition files: their forms are filled with their queries.")
    session: Path | None = Field(
        None, description="A saved session the seeds start from, logged in (Playwright storage_state JSON).")
    store: StoreTarget = Field(
        Path(DEFAULT_STORE), description="The SQLite file for documents, their index and the frontier, "
        "or the postgresql:// URL of a database that crawling processes on several machines share.")
    keep_versions: int = Field(3, ge=0, description="Earlier versions of a changed page kept in the store.")
    depth: int = Field(3, ge=0, description="Links followed from each seed, at most.")
    workers: int = Field(4, ge=1, le=64, description="Pages fetched at once, each in its own browser tab.")
    max_pages: int | None = Field(None, ge=1, description="Pages fetched before the crawl stops.")
    # Pagination costs no depth: this bounds a pager that never ends (a catalogue that
    # answers page=N+1 with "page N+1", an empty list and "Next" again) per query and form.
    max_result_pages: int | None = Field(
        100, ge=1, description="Pages of one query's results followed along their pager.")
    # A query that leaves a required choice empty (a tag list a chosen author fills, with no
    # "any" tag) runs once per option offered, this many at most.
    max_options: int = Field(
        50, ge=1, description="Options of a choice a query leaves empty that it is run once per.")
    # A calendar's "next month" whose server answers any month leads on for ever: links in a
    # row that only move a number or a date in their page's URL are followed this far.
    max_calendar_steps: int | None = Field(
        10, ge=0, description="Links in a row that only move a number or a date in the URL, "
        "such as a calendar's 'next month', followed at most.")
    # With a domain, the link crawl is there to find forms: once a host gave one, it is
    # explored this much further (crawl.discovery), so the queries' records do not come
    # with every other page of the site.
    explore_after_form: int | None = Field(
        30, ge=0, description="With a domain: pages of a host's link crawl fetched after the last "
        "new relevant form found there, before its other links are dropped (the queries' "
        "results and records are not counted); null: explore by depth alone.")
    include: tuple[Regex, ...] = Field(
        (), description="Regular expressions: when given, a URL must match one to be followed.")
    exclude: tuple[Regex, ...] = Field(
        (), description="Regular expressions: a URL that matches one is not followed.")
    same_site: bool = Field(True, description="Stay in the scope below; false is the same as scope 'any'.")
    scope: Literal["origin", "host", "domain", "any"] = Field(
        "origin", description="What stays in the crawl: the seeds' origins (scheme, host and port), their "
        "hosts on any port, their registrable domains (Public Suffix List), or any http(s) URL. Checked on "
        "every hop: a page whose final URL is out of scope is neither stored nor followed.")
    allow_origins: tuple[str, ...] = Field(
        (), description="More origins in scope whatever the scope, e.g. https://cdn.example.com.")
    block_private: bool | None = Field(
        None, description="Refuse every connection of the browser to a loopback, private, link-local (cloud "
        "metadata), CGNAT, multicast or reserved address, checked on the address it resolves to; a seed's "
        "own origin stays allowed. Unset: on when every seed's host resolves to a public address.")
    proxy: str | None = Field(
        None, description="An HTTP proxy for the browser (http://host:port). The proxy then decides where "
        "the browser may go, and block_private cannot be asked for with it.")
    keywords: str | None = Field(
        None, description="A boolean keyword query; only documents that match it are stored.")
    topic: str | None = Field(
        None, description="A focused crawl's topic, in words: the links nearest to it are followed first.")
    learn_from: Path | None = Field(
        None, description="An earlier crawl's store to learn the paths to the topic from (the HMM crawler).")
    pattern: Path | None = Field(
        None, description="A navigation pattern file written by deepbot learn: from its entry page, follow "
        "at each level only the links its regexes match; store the last level's pages built like its sample.")
    like: str | None = Field(
        None, description="A sample page: only pages built from its template are stored. "
        "It is the first seed.")
    topic_threshold: float = Field(
        0.2, ge=0, le=1, description="Similarity to the topic, 0 to 1, from which a page counts as relevant.")
    content_types: tuple[str, ...] = Field(
        (), description="Content-type prefixes to store, such as text/html (empty: all).")

    # politeness
    user_agent: str = Field(DEFAULT_USER_AGENT, description="The User-Agent header sent to every site.")
    obey_robots: bool = Field(True, description="Obey robots.txt, its Crawl-delay included.")
    # <meta name="robots"> and X-Robots-Tag: always recorded (Document.meta["robots"]);
    # obeyed only when asked, since sites mark their search results noindex (directives.py).
    obey_meta_robots: bool = Field(
        False, description="Obey a page's noindex and nofollow (meta robots, X-Robots-Tag, rel=nofollow).")
    per_host_concurrency: int = Field(4, ge=1, description="Pages fetched at once from one host, at most.")
    min_delay: float = Field(0.0, ge=0, description="Seconds between two requests to one host, at least.")
    give_up_after: int = Field(
        8, ge=1, description="Refusals in a row (429, 503, bot checks) after which a host is left "
        "for the next run."
    )

    # browser and timing
    headless: bool = Field(True, description="Run the browser without windows.")
    block_images: bool = Field(True, description="Do not load images.")
    block_media: bool = Field(True, description="Do not load fonts, audio and video.")
    route_timeout: float = Field(45.0, gt=0, description="Seconds one route may take, at most.")
    step_timeout: float = Field(10.0, gt=0, description="Seconds one NSEQL step may wait for its element.")
    settle_timeout: float = Field(5.0, ge=0, description="Seconds to wait for a page's load event, at most.")
    fetch_wait: float = Field(
        2.0, ge=0, description="Seconds to wait for the fetch/XHR requests a loaded page still awaits "
        "(0: read it at once)."
    )
    # Given up as they arrive (deepbot.browser.bounded, guard): a page, a file, what its scripts,
    # frames and workers fetch. (A body inflating more than 100x past 1 MB, a gzip bomb, is
    # given up too; no legitimate page comes near that, so it is no setting.)
    max_body_mb: float = Field(
        20.0, gt=0, description="Megabytes (10^6 bytes) of one response at most, a page's, a file's or "
        "one its scripts fetch; past it the route fails 'response too large'.")
    max_self_navigations: int = Field(
        5, ge=0, description="Documents a page may load by itself in one route (a meta refresh, a "
        "reload in a timer), each after its host's delay; further ones are stopped.")
    recycle_after: int = Field(200, ge=1, description="Routes a browser context runs before a fresh one.")
    # All workers in one browser session (one cookie jar and storage), as tabs: they then
    # share renderer processes, ~20 MB less a worker. Routes in flight see each other's
    # cookies, so only for sites that keep no per-visitor state (pool.py).
    shared_session: bool = Field(
        False, description="All workers share one session, as tabs: less memory, "
        "for sites that keep no state per visitor.")
    renderer_processes: int = Field(
        0, ge=0, description="With shared_session, renderer processes at most "
        "(0: one a core, at least 2).")
    max_attempts: int = Field(3, ge=1, description="Tries of one route before it is recorded as failed.")
    lease_ttl: float = Field(
        120.0, gt=0, description="Seconds a leased route stays a worker's before another may take it.")
    reveal_menus: bool = Field(True, description="Open hover and click menus before a page is read.")
    max_script_clicks: int = Field(30, ge=0, description="Script-driven elements clicked on a page, at most.")
    dismiss_overlays: bool = Field(
        True, description="Answer cookie banners and consent walls, refusing what is optional."
    )
    # A feed of 100 items in batches of 10 needs 9 rounds; one that never ends is stopped
    # by either bound, and the summary says so (it is not "scrolled to the end").
    max_scrolls: int = Field(
        50, ge=0, description="Rounds of scrolling an endless feed, or of 'Load more' clicks, on one page.")
    scroll_time: float = Field(
        25.0, ge=0, description="Seconds one page may be scrolled in all (and never more than "
        "three quarters of route_timeout).")

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
