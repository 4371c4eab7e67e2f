"""How far a domain crawl explores a host by links once it has found the host's forms.

With a domain, the crawl's task is the records behind the domain's queries. Its link crawl
serves that task: it finds the forms. A form-focused crawler leaves a site once exploring
stops paying (Barbosa and Freire, "Searching for Hidden-Web Databases", WebDB 2005, stop a
site's crawl after a number of pages or of forms); otherwise, on a real site, the queries'
few hundred records come with every other page of the site within the depth.

So, per host: once a page of it gave a relevant form not known before (its query routes
were new), the crawl fetches at most ``explore_after_form`` more pages of the host's link
crawl (seeds excepted) without finding another; the rest of the host's link routes are
dropped as they come up, each counted under ``EXPLORED``. What a query reaches is never
counted nor dropped: its answer, its pager's pages, and the records they link to
(Route.domain is set on those only: a record's own links are the link crawl again), even
when the link crawl queued a record first (``answers``: the keys results pages list).
A host with no relevant form found yet is explored as any crawl explores it, by depth.

The count is per process: workers of one crawl on several machines each explore that far.
"""

from __future__ import annotations

from collections import Counter

from deepbot.crawl.politeness import host_key
from deepbot.routes import Route, Via

__all__ = ["EXPLORED", "Discovery"]

_ANSWERS_KEPT = 500_000  # keys (~60 MB at most)
EXPLORED = "explored past the last form found"  # the summary's reason for a dropped link route


class Discovery:
    """The link crawl's allowance per host after its last new relevant form (None: no bound)."""

    def __init__(self, after_form: int | None) -> None:
        self.after_form = after_form
        self._since: Counter[str] = Counter()  # host → link pages fetched since its last new form
        self._found: set[str] = set()  # hosts where a relevant form was found
        # Link keys a query's results list (content.links.ObtainLinks fills it): a record the
        # link crawl queued first carries no query, yet is the query's.
        self.answers: set[str] = set()

    @staticmethod
    def explores(route: Route) -> bool:
        """Whether ``route`` is the link crawl's, not a seed's nor a query's harvest."""
        return route.domain is None and route.via is not Via.SEED

    def spent(self, route: Route) -> bool:
        """Whether ``route`` is a link route of a host that has explored enough."""
        if self.after_form is None or not self.explores(route):
            return False
        host = host_key(route.url)
        return host in self._found and self._since[host] >= self.after_form and route.key not in self.answers

    def visited(self, route: Route, children: tuple[Route, ...]) -> None:
        """Count a fetched page; a new relevant form (its query routes among ``children``)
        starts its host's allowance again."""
        host = host_key(route.url)
        if len(self.answers) > _ANSWERS_KEPT:
            self.answers.clear()  # only a cache: a record forgotten is fetched as a link is
        if any(child.via is Via.FORM for child in children):
            self._found.add(host)
            self._since[host] = 0
        elif self.explores(route) and host in self._found and route.key not in self.answers:
            self._since[host] += 1
