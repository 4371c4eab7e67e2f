"""The Form Analyzer in the post-processing chain: relevant forms become query routes.

Every form a page shows for the first time in the crawl is analysed against every
configured domain; one met before, on any page (forms.identity), is not. A relevant form
yields one route per domain query: the way to the page from where the crawl started,
the fill steps, and the submission candidates the worker tries in turn (§IV.C). Those
routes go before any link (routes.QUERY_PRIORITY).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepbot.config.domain import Domain
from deepbot.content.postprocess import ProcessContext
from deepbot.errors import FormError
from deepbot.routes import QUERY_PRIORITY, Route, Via, page_identity, route_key
from deepbot.routes.sequences import append_steps, steps_text

if TYPE_CHECKING:
    import nseql
    from deepbot.forms.models import DomainMatch, ExtractedForm, FormAnalysis

log = logging.getLogger("deepbot.forms")

@dataclass(frozen=True)
class RelevantForm:
    url: str
    form_index: int
    domain: str
    score: float
    queries: int
    challenge: str | None = None  # what guards it (a CAPTCHA): then it was not queried


def _nothing_known(_identities: Collection[str]) -> Collection[str]:
    return ()


@dataclass
class FormQueries:
    """Analyse forms on pages outside results; push a route per (relevant form, query).

    A form is analysed once a crawl (forms.identity: the same form on every page, at every
    URL, is one): ``known`` says which of a page's forms an earlier page's committed visit
    analysed (the frontier's known_forms), and the visit's ``ctx.forms`` names those this
    page analysed, for the engine to record when it commits. A query route's key is its
    form's identity and the query, so a (form, query) is one route whichever page showed
    the form, in a resumed crawl too.
    """

    domains: Sequence[Domain]
    # Where the crawl's routes start (a login's session digest; None: a fresh browser).
    start_session: str | None = None
    known: Callable[[Collection[str]], Collection[str]] = _nothing_known
    # A query that leaves a required choice empty runs once per option, at most this many.
    max_options: int = 50
    name: str = "form-analyzer"
    found: list[RelevantForm] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    async def process(self, ctx: ProcessContext) -> None:
        snap, page, route = ctx.snapshot, ctx.page, ctx.route
        # Inside a query's results (and the detail pages under them) the form is the one
        # already used; analysing it again would only resubmit the same queries.
        if snap is None or page is None or not snap.forms or route.domain is not None or not self.domains:
            return
        from deepbot.forms.identity import read_forms

        try:
            forms = await read_forms(page)
        except FormError as exc:
            self._unreadable(snap.url, exc)
            return
        known = set(self.known(forms.all))
        new = [identity for identity in dict.fromkeys(forms.all) if identity not in known]
        self.counts["forms already known"] += len(forms.all) - len(new)
        if not new:
            return
        # Here, not at the top: the analyzer's numpy and shapely load only for a crawl with a domain.
        from deepbot.forms.analyzer import analyze_page

        taken: set[str] = set()

        def unknown(form: ExtractedForm) -> bool:
            """Whether to analyse the form: one not known, and not a copy of one taken
            already (a page may show its search form in the header and the footer)."""
            identity = forms.virtual if form.virtual else forms.of(form.index)
            if identity is None:  # not there when the page was read: a script added it since
                return True
            if identity not in new or (identity in taken and not form.virtual):
                return False
            taken.add(identity)
            return True

        try:
            analysis = await analyze_page(page, self.domains, only=unknown)
        except FormError as exc:
            self._unreadable(snap.url, exc)
            return
        ctx.forms.extend(new)
        self.counts["forms analysed"] += len(analysis.forms)
        acts_on = page_identity(snap.url, snap.text)
        virtual = 0
        identities: list[str] = []
        # Per domain with a relevant form here, the queries none of them could take.
        unanswered: dict[str, set[int]] = {}
        for form in analysis.forms:
            if form.virtual:
                identity, virtual = forms.of(form.form_index, virtual=virtual), virtual + 1
            else:
                identity = forms.of(form.form_index)
            # A form the page did not show when read: known by this page and its selector.
            identity = identity or f"{acts_on}\n{form.selector}"
            identities.append(identity)
            if form.hidden and form.relevant_domains:
                # No control of it shows (a closed modal): nothing a person could fill.
                self.counts["relevant forms hidden, not queried"] += 1
                continue
            for match in form.relevant_domains:
                left = await self._query(ctx, form, match, identity, acts_on)
                unanswered[match.domain] = unanswered.get(match.domain, left) & left
        for name, left in unanswered.items():
            if left:
                self._search_box(ctx, analysis.forms, identities, name, sorted(left), acts_on)

    def _unreadable(self, url: str, exc: FormError) -> None:
        """A page whose forms cannot be read (its script broke the extraction) is still a
        page: stored, its links followed; only its forms are lost, and the summary says so."""
        log.warning("the forms of %s could not be read: %s", url, exc)
        self.counts["pages whose forms could not be read"] += 1

    def _search_box(self, ctx: ProcessContext, forms: Sequence[FormAnalysis], identities: Sequence[str],
                    domain_name: str, queries: Sequence[int], acts_on: str) -> None:
        """The queries the page's relevant forms cannot take, typed into its search box.

        A filter builder offers the columns it filters on; a query that names none of them
        (any words of a title or an author) is what the page's own search box is for, as a
        person would use it: one text field, a form that says it searches (forms.fill)."""
        import nseql
        from deepbot.forms.fill import search_box
        from deepbot.forms.submit import submit_candidates

        domain = next(d for d in self.domains if d.name == domain_name)
        for form, identity in zip(forms, identities, strict=True):
            box = None if form.hidden or form.challenge is not None else search_box(form, domain_name)
            if box is None:
                continue
            for i in queries:
                query = domain.queries[i]
                words = " ".join(v.strip() for v in query.values() if v.strip())
                steps = (nseql.Fill(box.selector, words),)
                self._route(ctx, identity, acts_on, domain.name, query, steps, submit_candidates(form, steps))
                self.counts["queries through the page's search box"] += 1
            return

    def _route(self, ctx: ProcessContext, identity: str, acts_on: str, domain: str, query: Mapping[str, str],
               steps: Sequence[nseql.Step], candidates: tuple[str, ...]) -> None:
        """A query route: the way to the form's page, the fill steps, the ways to submit."""
        snap, route = ctx.snapshot, ctx.route
        assert snap is not None
        # A query starts where the crawl started and walks to its form again (the page's
        # program), not from the session the form's page was reached in: a server that
        # keeps the last search in its session (a cookie from the home page) would
        # otherwise hold every query in one session, and page each through whichever
        # query ran last.
        program = append_steps(route.program, steps_text(*steps))
        ctx.routes.append(Route(
            # The form and the query: one route, whichever page showed the form.
            key=route_key(Via.FORM, snap.url, identity, f"{domain}\n{sorted(query.items())}"),
            url=snap.url, via=Via.FORM, depth=route.depth, seed=route.seed,
            steps=program, program=program, priority=QUERY_PRIORITY,
            session=self.start_session, parent=route.key, domain=domain, query=dict(query),
            form_url=snap.url, acts_on=acts_on, submit=candidates, page=1,
        ))

    async def _query(self, ctx: ProcessContext, form: FormAnalysis, match: DomainMatch, identity: str,
                     acts_on: str) -> set[int]:
        """Routes of ``form``'s queries for the domain it matched; the queries (their
        indices) it could not take."""
        from deepbot.forms.choices import AS_IS, variants
        from deepbot.forms.fill import fill_steps
        from deepbot.forms.submit import submit_candidates

        snap = ctx.snapshot
        assert snap is not None
        domain = next(d for d in self.domains if d.name == match.domain)
        if form.challenge is not None:
            # Every submission would be refused, and DeepBot does not answer CAPTCHAs.
            log.warning("form #%d on %s serves %s but a person must pass %s to send it: not queried",
                        form.form_index, snap.url, domain.name, form.challenge)
            self.counts["relevant forms behind a CAPTCHA"] += 1
            self.found.append(RelevantForm(snap.url, form.form_index, domain.name, match.score, 0,
                                           challenge=form.challenge))
            return set()
        made = 0
        left: set[int] = set()
        for i, query in enumerate(domain.queries):
            filled = fill_steps(form, match, query)
            if filled is None:
                self.counts["queries not applicable"] += 1
                left.add(i)
                continue
            ways, left_out = AS_IS, 0
            if ctx.page is not None:
                program = append_steps(ctx.route.program, steps_text(*filled.steps))
                submit = submit_candidates(form, filled.steps)
                ways, left_out = await variants(ctx.page.context, program, form, filled, self.max_options,
                                                submit[0] if submit else None)
            if any(way.adds for way in ways):
                self.counts["queries run once per option of a choice they leave empty"] += 1
                self.counts["options not queried (--max-options)"] += left_out
            for way in ways:
                steps = (*filled.steps, *way.steps)
                self._route(ctx, identity, acts_on, domain.name, {**query, **dict(way.adds)}, steps,
                            submit_candidates(form, steps))
                made += 1
        self.counts["relevant forms"] += 1
        self.counts["query routes"] += made
        self.found.append(RelevantForm(snap.url, form.form_index, domain.name, match.score, made))
        return left
