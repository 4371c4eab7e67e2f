"""Visit: run one route in a mini-browser and capture what the page shows.

Input: a Route, its SessionState and a pool Slot. Output: a frozen PageSnapshot
(status, content type, rendered HTML and text, links, script-driven elements, the
session after the visit). The browser operations it needs, and their Playwright
errors translated into DeepBot's, are deepbot.browser.page's.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import TYPE_CHECKING, Any

import nseql
from deepbot.browser import bounded, fetches, guard
from deepbot.browser import page as tab
from deepbot.browser.failures import browser_error
from deepbot.browser.page import blank as _blank
from deepbot.browser.pool import Slot
from deepbot.content import challenge
from deepbot.crawl.harvest import SCRIPT as _HARVEST_JS
from deepbot.crawl.harvest import Challenge, Consent, Harvest, decoded
from deepbot.errors import CaptchaShown, DeepBotError, ElementUnusable, FormError
from deepbot.models import Frozen as _Frozen
from deepbot.routes import PageSnapshot, Route, SessionState, parsed
from deepbot.routes.sequences import grown_steps

if TYPE_CHECKING:
    from playwright.async_api import Page

log = logging.getLogger(__name__)

_CHALLENGE = challenge.script_args()


class VisitOptions(_Frozen):
    step_timeout_ms: int = 10_000
    settle_timeout_ms: int = 5_000
    reveal_menus: bool = True
    max_hover: int = 30
    max_scripts: int = 30
    max_scrolls: int = 50  # rounds of scrolling to the end (pages that watch it), or of "Load more" clicks
    scroll_time_ms: int = 25_000  # scrolling and "Load more" clicks on one page, in all, at most
    # The route's own time bound (0: none known): scrolling stops early enough to leave a
    # quarter of it for what follows (reading the page, its forms and links).
    route_timeout_ms: int = 0
    scroll_quiet_ms: int = 250  # after a scroll: the DOM still this long means nothing more comes
    dismiss_overlays: bool = True  # click away cookie banners and consent walls (refusing, if it can)
    # A response is given up ("response too large", the route fails for good) as soon as it
    # passes max_body_bytes, or inflates more than max_inflation times past 1 MB (browser.bounded).
    max_body_bytes: int = bounded.MAX_BODY_BYTES
    max_inflation: float = bounded.MAX_RATIO
    # Documents the page may fetch by itself in one route (a meta refresh, a reload in a
    # timer), each after the host's politeness delay; past it they are stopped (browser.guard).
    max_self_navigations: int = guard.MAX_SELF_NAVIGATIONS
    proxy: str | None = None  # the crawl's proxy (the egress proxy of --block-private), for downloads
    submit_wait_ms: int = 3_000  # how long a submission may take to change the page
    quiet_ms: int = 150  # after a click or submission: the DOM still this long means it is done
    # Any page: fetch/XHR still unanswered when it has loaded (a shell that fetches its
    # content) are waited for this long at most, then the DOM to stay still fetch_quiet_ms.
    fetch_wait_ms: int = fetches.FETCH_WAIT_MS
    fetch_quiet_ms: int = fetches.FETCH_QUIET_MS


_HTML_TYPES = ("text/html", "application/xhtml+xml", "")
_NAVIGATED = object()  # what an evaluate answers when the page navigated under it


def is_html(content_type: str) -> bool:
    return content_type.split(";")[0].strip().lower() in _HTML_TYPES


async def visit(route: Route, session: SessionState, slot: Slot, options: VisitOptions, *,
                pace: guard.Pace | None = None) -> PageSnapshot:
    """Restore ``session`` in ``slot``, run the route's steps, capture the page.

    ``pace``: waits until a URL's host may be asked again (the crawl's politeness), for the
    documents the page fetches by itself. A response past the options' bounds closes the
    page and fails the route with TooLarge (browser.guard).
    """
    with tab.translated():
        watch = await guard.watch(slot.page)
    watch.start(_bounds(options), pace=pace, max_self_navigations=options.max_self_navigations)
    try:
        snapshot = await _visit(route, session, slot, options)
    except (DeepBotError, nseql.StepError) as exc:
        if watch.tripped is not None:
            raise bounded.TooLarge(watch.tripped) from exc
        raise
    finally:
        watch.finish()
    if watch.tripped is not None:  # a subresource, after the page was read
        raise bounded.TooLarge(watch.tripped)
    return snapshot


def _bounds(options: VisitOptions) -> bounded.Bounds:
    return bounded.Bounds(options.max_body_bytes, options.max_inflation)


async def _visit(route: Route, session: SessionState, slot: Slot, options: VisitOptions) -> PageSnapshot:
    page = slot.page
    origins: set[str] = set()

    def on_navigated(frame: Any) -> None:
        if frame == page.main_frame:
            origins.add(_origin(frame.url))

    started = time.monotonic()
    page.on("framenavigated", on_navigated)
    # A click or a submission may load what it shows by fetch/XHR, after the click
    # returned: the page is captured once the fetches made from the action on are
    # answered (counted in the page, fetches.js). (The run reports the responses of
    # the navigations it makes.)
    action = _Action()
    try:
        with tab.translated():  # Playwright's errors leave as DeepBot's
            if page.url != "about:blank":
                # sessionStorage is per tab and not part of a session snapshot: start clean. A
                # harvested page clears it itself as it goes; any other needs a round trip.
                # (Going to the same URL but for its fragment keeps the document: no pagehide.)
                if not slot.clears_on_leave or _same_document(page.url, route.url):
                    await tab.clear_session_storage(page)
                if slot.acted or _same_document(page.url, route.url):
                    # A click may have armed a timer ("a moment later" navigations): left alive, it
                    # could navigate this tab away from the next route's page. A new document ends it.
                    # So does going to another view of the app shown (#/route): it would only be a
                    # hash change, not the fresh load in the route's session the route is.
                    await _blank(page)
            slot.acted = route.acts_on is not None or bool(route.submit)
            slot.clears_on_leave = False
            await nseql.forget_overlays(page)  # what the tab's last route dismissed is not this one's
            await slot.restore(session)
            slot.mark_dirty()  # whatever happens next may change cookies or storage
            program = route.plan
            download: tuple[bytes, int, dict[str, str]] | None = None
            settled = True
            result: nseql.RunResult | None = None
            try:
                # The load event is waited for (bounded) after each navigation, by the run itself.
                with guard.acting(page, len(program.steps)):  # the documents its steps ask for are its own
                    result = await nseql.run(program, page, step_timeout_ms=options.step_timeout_ms,
                                             navigation_timeout_ms=options.step_timeout_ms,
                                             load_timeout_ms=options.settle_timeout_ms,
                                             on_action=action.started if route.acts_on is not None else None)
                settled = result.loaded
            except nseql.StepError as exc:
                if exc.kind is not nseql.Failure.DOWNLOAD:
                    raise
                # Chromium hands what it cannot show (a zip; a PDF, in the headless shell,
                # which has no viewer) to its download manager: fetch the same URL with the
                # context's cookies instead, read as it comes within the bounds.
                download = await tab.fetch(slot.context, page, route.url, _bounds(options),
                                           proxy=options.proxy)
            submitted = None
            main = result.response if result else None
            if route.submit:
                action.started()
                submitted, submission = await _submit(page, route.submit, options)
                main = submission.response or main
                # A page that never settles is still a page: keep what is there.
                settled = await tab.loaded(page, "load", options.settle_timeout_ms) and settled
            if download is None and action.since and settled:
                settled = await _settle_in_place(page, action.since, options)
            status = main.status if main else None
            headers = tab.headers(main)
            content_type = headers.get("content-type", "")
            if download is not None:
                file, file_status, headers = download
                return PageSnapshot(url=route.url, status=file_status, body=file, headers=headers,
                                    content_type=headers.get("content-type", ""),
                                    session=await _capture(slot, [], origins))
            if not is_html(content_type) and main is not None:
                body = await tab.body(main, options.max_body_bytes)
                if "pdf" in content_type and not (body or b"").startswith(b"%PDF"):
                    # Chromium shows PDFs in its viewer, whose page is not the file: fetch the bytes.
                    body, _, _ = await tab.fetch(slot.context, page, page.url, _bounds(options),
                                                 proxy=options.proxy)
                return PageSnapshot(url=page.url, status=status, content_type=content_type, body=body,
                                    title=await page.title(), session=await _capture(slot, [], origins),
                                    settled=settled, headers=headers)
            data = await _harvest(page, options, since=action.since, scroll_ms=_scroll_ms(options, started))
            dismissed = None
            if data.consent is not None:
                consent = await _in_frames(page, data.consent, options)
                dismissed = await _dismiss(page, consent, options, action) if consent else None
                slot.acted = slot.acted or dismissed is not None
                again = options.model_copy(update={"dismiss_overlays": False})
                data = await _harvest(page, again, since=action.since, scroll_ms=_scroll_ms(options, started))
            settled = settled and data.settled
            shown = data.document
            if nseql.replaced(main, shown.url):
                # The page replaced the document by itself after the last step (a script's
                # or a meta refresh's redirect): what the browser says of the document it shows.
                status = shown.status or None
                headers = {"content-type": shown.type} if shown.type else {}
                content_type = headers.get("content-type", "")
            slot.clears_on_leave = True
            origins.update(data.origins)
            session = await _capture(slot, list(data.storage), origins)
            return PageSnapshot(
                url=data.url, status=status, content_type=content_type or "text/html",
                title=data.title, html=data.html, text=data.text, links=data.links, scripts=data.scripts,
                revealed=data.revealed, scrolled=data.scrolled, more=data.more, scroll_stop=data.scroll_stop,
                more_stop=data.more_stop, grown=grown_steps(data.more_clicks), session=session,
                settled=settled, headers=headers, forms=data.forms, submitted=submitted, dismissed=dismissed,
                challenge=_challenge(data.challenge), robots=data.robots, login_form=data.login,
            )
    except nseql.StepError as exc:
        if exc.kind is nseql.Failure.NOT_ACTIONABLE:
            raise ElementUnusable(str(exc)) from exc
        raise browser_error(exc, str(exc)) from exc  # its text names the line
    finally:
        page.remove_listener("framenavigated", on_navigated)


class _Action:
    """When the route first acted (a click, a submission): epoch ms, 0 if it has not.

    Compared with the page's clock (``performance.timeOrigin + now()``, the same system
    clock): a fetch the action caused starts after this, once the action has gone
    through the driver to the page; one the page started before (a long poll left
    open, its own content still loading) is not waited for.
    """

    def __init__(self) -> None:
        self.since = 0.0

    def started(self, *_: object) -> None:
        if not self.since:
            self.since = time.time() * 1000


async def _settle_in_place(page: Page, since: float, options: VisitOptions) -> bool:
    """Wait, bounded, until the fetches made since the action are answered and the DOM is still.

    A submission that loads results by fetch() changes the page at once ("Searching…")
    and again when the answer comes; capturing the first change would store the
    placeholder. Not "network idle": only fetch/XHR the page started, and a bound.
    """
    return await tab.fetches_settled(page, since=since, quiet_ms=options.quiet_ms,
                                     limit_ms=options.settle_timeout_ms)


# After a submission that changed nothing: a CAPTCHA widget a person would have to answer
# that was not there before it (an invisible reCAPTCHA shows its test to a visit it does
# not trust), described for challenge.provider(); or null.
_SHOWN_JS = """(check) => {
  const before = window.__deepbotWidgets || new Set();
  const widget = [...document.querySelectorAll(check.widgets)].find((el) => !before.has(el)
    && el.checkVisibility() && !el.closest(check.invisible) && !/size=invisible/.test(el.src || ""));
  return widget ? `${widget.localName} ${widget.className} ${widget.id} ${widget.src || ""}` : null;
}"""

_CHANGE_JS = """([mark, ms]) => new Promise((resolve) => {
  // Resolves true as soon as the document is a new one (navigation) or its text
  // differs from what it was before the submission (results loaded by script).
  const changed = () => window.__deepbotMark !== mark || document.body.innerText !== window.__deepbotText;
  if (changed()) return resolve(true);
  const observer = new MutationObserver(() => { if (changed()) { observer.disconnect(); resolve(true); } });
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  setTimeout(() => { observer.disconnect(); resolve(changed()); }, ms);
})"""


# Before each way of submitting: mark the document and its text (to see what changes),
# and for a click, whether a click at the control's centre reaches it (or what it holds)
# within ms: true, false, or "suggestions" at once when what covers it is the list of
# suggestions the field typed in opened (a typeahead's; it stays while the field has
# focus, and Enter in the field submits). A selector the page cannot resolve itself
# (Playwright's own syntax) or a hidden control is left to the click, which says what is wrong.
_PREPARE_JS = """([mark, selector, ms, check]) => {
  window.__deepbotMark = mark;
  window.__deepbotText = document.body.innerText;
  window.__deepbotWidgets = new Set(document.querySelectorAll(check.widgets));
  if (!selector) return true;
  let el = null;
  try {
    el = selector.startsWith('xpath=')
      ? document.evaluate(selector.slice(6), document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null)
          .singleNodeValue
      : document.querySelector(selector);
  } catch (e) { return true; }
  if (!el || !el.getBoundingClientRect) return true;
  // The suggestions of the focused text field: the box its aria-controls/owns names, a
  // listbox, or a box placed over the page just under the field.
  const suggestions = (hit) => {
    const field = document.activeElement;
    if (!field || !field.matches('input, textarea')) return false;
    const ids = `${field.getAttribute('aria-controls') || ''} ${field.getAttribute('aria-owns') || ''}`;
    if (ids.split(/\\s+/).some((id) => id && document.getElementById(id)?.contains(hit))) return true;
    if (hit.closest('[role=listbox], [role=option]')) return true;
    for (let n = hit; n && n !== document.body; n = n.parentElement) {
      const position = getComputedStyle(n).position;
      if (position !== 'absolute' && position !== 'fixed') continue;
      const a = field.getBoundingClientRect(), b = n.getBoundingClientRect();
      return !n.contains(field) && b.top >= a.bottom - 4 && b.top <= a.bottom + 24
        && b.left < a.right && b.right > a.left;
    }
    return false;
  };
  return new Promise((resolve) => {
    const started = performance.now();
    const check = () => {
      let r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return resolve(true);
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
        el.scrollIntoView({block: 'center', inline: 'center'});
        r = el.getBoundingClientRect();
      }
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || hit === el || el.contains(hit)) return resolve(true);
      if (suggestions(hit)) return resolve('suggestions');
      if (performance.now() - started >= ms) return resolve(false);
      setTimeout(check, 100);
    };
    check();
  });
}"""


async def _submit(page: Page, candidates: tuple[str, ...],
                  options: VisitOptions) -> tuple[str, nseql.RunResult]:
    """Try each submission in turn; return the first that navigated or changed the page,
    with its run (whose response is the one it navigated to, if it did)."""
    tried: list[str] = []
    # The controls were found on this very page: one another element covers for a few
    # seconds (an overlay such as a cookie wall) will stay covered, and the next way of
    # submitting should not wait the whole step timeout for it. Checked in the page, in
    # the round trip that marks it anyway (a trial click would cost two more and wait two
    # frames); the click itself keeps the full timeout for the navigation it starts.
    cover_ms = min(options.step_timeout_ms, options.submit_wait_ms)
    for n, candidate in enumerate(candidates):
        (step,) = parsed(candidate).steps
        target = step.selector if isinstance(step, nseql.Click) else None
        # The document being replaced: the step will tell.
        clear = await tab.evaluate_or(page, _PREPARE_JS, [f"m{n}", target, cover_ms, _CHALLENGE], True,
                                      crash_raises=True)
        if clear == "suggestions":
            tried.append(f"{candidate.strip()}: covered by the suggestions of the field typed in")
            continue
        if not clear:
            tried.append(f"{candidate.strip()}: covered by another element for {cover_ms} ms")
            continue
        try:
            with guard.acting(page):
                run = await nseql.run(nseql.Program.of(step), page, step_timeout_ms=options.step_timeout_ms,
                                      navigation_timeout_ms=options.step_timeout_ms, load_timeout_ms=0)
        except nseql.StepError as exc:
            tried.append(f"{candidate.strip()}: {exc.reason}")
            continue
        # The page navigated while we watched: a new document.
        if await tab.evaluate_or(page, _CHANGE_JS, [f"m{n}", options.submit_wait_ms], True):
            return candidate, run
        shown = await tab.evaluate_or(page, _SHOWN_JS, _CHALLENGE, _NAVIGATED)
        if shown is _NAVIGATED:
            return candidate, run  # it navigated after all, just now: a new document
        if shown:  # every other way of submitting would meet it too
            raise CaptchaShown(f"{challenge.provider(shown)} showed its test when the form was submitted"
                               f" ({candidate.strip()})")
        tried.append(f"{candidate.strip()}: nothing changed")
    raise FormError("no way of submitting the form changed the page (" + "; ".join(tried) + ")")


async def _dismiss(page: Page, consent: Consent, options: VisitOptions, action: _Action) -> str | None:
    """Click the overlay's button the harvest chose; the ``dismiss`` step, or None if it failed.

    A ``dismiss`` step, not a click: on a replay the overlay may show later, or not at
    all (a consent already given), and the step then watches for it or does nothing. A
    button that cannot be clicked is given up in the submission wait, not the step timeout.
    """
    comment = "".join(ch for ch in f"overlay: {consent.text}" if ch.isprintable())
    step = nseql.Dismiss(consent.selector, comment=comment.strip())
    try:
        with guard.acting(page):
            await nseql.run(nseql.Program.of(step), page,
                            step_timeout_ms=min(options.step_timeout_ms, options.submit_wait_ms),
                            navigation_timeout_ms=options.step_timeout_ms,
                            load_timeout_ms=options.settle_timeout_ms, on_action=action.started)
    except nseql.StepError as exc:
        if exc.kind is nseql.Failure.CLOSED:
            raise
        log.info("could not dismiss an overlay on %s: %s", page.url, exc.reason)
        return None
    return nseql.dump(nseql.Program.of(step))


async def find_overlay(page: Page, options: VisitOptions | None = None) -> dict[str, str] | None:
    """The button that answers the cookie banner or consent wall ``page`` shows, as a crawl
    chooses it: ``{"selector", "text"}`` (an NSEQL selector), or None."""
    options = options or VisitOptions()
    found = decoded(await page.evaluate(_HARVEST_JS, harvest_args(options, consentOnly=True)))
    consent = await _in_frames(page, found.consent, options) if found.consent else None
    return consent.found() if consent else None


async def answer_overlay(page: Page, options: VisitOptions | None = None) -> str | None:
    """Answer the cookie banner or consent wall ``page`` shows, as a crawl does (for a
    tool that reads the page itself: ``deepbot analyze``); its ``dismiss`` step, or None."""
    options = options or VisitOptions()
    found = await find_overlay(page, options)
    return await _dismiss(page, Consent(**found), options, _Action()) if found else None


async def _in_frames(page: Page, consent: Consent, options: VisitOptions) -> Consent | None:
    """The harvest's answer, or, when it names an iframe that may hold the notice (a consent
    manager's own origin: Sourcepoint, TrustArc), the button read in that frame's document,
    its selector entering the frame (``IFRAME >> enter-frame >> BUTTON``); None if none."""
    path: list[str] = []
    scope = page.main_frame
    args = harvest_args(options, consentOnly=True, inFrame=True)
    for _ in range(3):  # an iframe in an iframe, at most this deep
        if consent.frame is None:
            return consent.model_copy(update={"selector": " >> ".join([*path, consent.selector])})
        path += [consent.frame, nseql.ENTER_FRAME]
        try:
            # wait_for_src: inserted a moment ago, its document may not have come yet.
            read = await tab.in_frame(scope, consent.frame, _HARVEST_JS, args, wait_for_src=bool(consent.src),
                                      find_timeout_ms=options.submit_wait_ms,
                                      load_timeout_ms=options.settle_timeout_ms)
        except tab.FrameUnreadable as exc:
            log.info("could not read the iframe %s on %s: %s", consent.frame, page.url, exc)
            return None
        if read is None:
            return None
        frame, answer = read
        found = decoded(answer)
        if found.consent is None:
            return None
        consent, scope = found.consent, frame
    return None


def harvest_args(options: VisitOptions, *, since: float = 0, scroll_ms: int | None = None,
                 **extra: bool) -> str:
    """The harvest script's argument (``harvest.js``) for these options, as JSON text:
    Playwright checks an object argument against its protocol schema value by value
    (~300 checks for this one, ~0.25 ms of Python a page); a string is one. ``scroll_ms``:
    the time scrolling may take on this page (default: options.scroll_time_ms)."""
    fetches = {"since": since, "quiet": options.fetch_quiet_ms, "limit": options.fetch_wait_ms}
    return json.dumps({"revealMenus": options.reveal_menus, "maxHover": options.max_hover,
                       "maxScripts": options.max_scripts, "maxScrolls": options.max_scrolls,
                       "scrollQuiet": options.scroll_quiet_ms,
                       "scrollTime": options.scroll_time_ms if scroll_ms is None else scroll_ms,
                       "dismiss": options.dismiss_overlays,
                       "fetches": fetches, "challenge": _CHALLENGE, **extra})


def _scroll_ms(options: VisitOptions, started: float) -> int:
    """How long this page may be scrolled: scroll_time_ms, and no later than three quarters
    of the route's time bound since the visit ``started`` (monotonic seconds): the route
    still has to read the page, its forms and links, and a route over its bound fails whole."""
    if not options.route_timeout_ms:
        return options.scroll_time_ms
    left = options.route_timeout_ms * 3 / 4 - (time.monotonic() - started) * 1000
    return max(0, min(options.scroll_time_ms, int(left)))


async def _harvest(page: Page, options: VisitOptions, *, since: float = 0,
                   scroll_ms: int | None = None) -> Harvest:
    # Opening a menu may navigate after all: then the page it led to, touching nothing.
    args = harvest_args(options, since=since, scroll_ms=scroll_ms)
    again = harvest_args(options, since=since, scroll_ms=scroll_ms, revealMenus=False)
    # A page replaces itself at most max_self_navigations times in a route (browser.guard): one
    # read after each, and one more, reads the document it is left on.
    answer = await tab.harvest(page, _HARVEST_JS, args, again, load_timeout_ms=options.settle_timeout_ms,
                               attempts=options.max_self_navigations + 2,
                               moving=lambda answer: _moving(page, options, answer))
    return decoded(answer)


# A meta refresh in the harvest's answer (its HTML, as JSON text): only then is the page asked.
_REFRESH_HINT = re.compile(r"http-equiv\W{0,4}refresh", re.IGNORECASE)


async def _moving(page: Page, options: VisitOptions, answer: Any) -> bool:
    """The page just read is on its way to another document, which has now come: read that.
    A meta refresh of 0 s is a redirect (as Scrapy's MetaRefreshMiddleware has it): it may
    be waiting for its host's turn, or fire a moment after the read."""
    hinted = not isinstance(answer, str) or _REFRESH_HINT.search(answer) is not None
    expected = hinted and await tab.refreshes_at_once(page)
    return await guard.navigation_done(page, options.settle_timeout_ms / 1000, expected=expected)


def _challenge(found: Challenge | None) -> str | None:
    """What shows the page is a bot check: the widget's service, the words it says."""
    if found is None:
        return None
    parts = [challenge.provider(found.widget)] if found.widget else []
    parts += [f"'{found.said}'"] if found.said else []
    return ", ".join(parts) or None


def _same_document(current: str, target: str) -> bool:
    """Going to ``target`` only scrolls ``current`` (a fragment of the same URL)."""
    return "#" in target and current.split("#", 1)[0] == target.split("#", 1)[0]


def _origin(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


async def _capture(slot: Slot, storage: list[dict[str, str]], origins: set[str]) -> SessionState:
    """The session a child route needs: cookies plus localStorage of the page's origin.

    When the route touched one origin, that is the whole state and the slot knows
    what it holds; otherwise ask Playwright for the full snapshot (slower).
    """
    origins.discard("")
    if len(origins) > 1:
        state = await slot.context.storage_state()
        session = SessionState.from_playwright(dict(state))
        slot.mark_dirty()
        if slot.shared is not None:
            slot.shared.read(session)
        return session
    cookies = await slot.context.cookies()
    origin_entries: tuple[dict[str, Any], ...] = ()
    if storage and origins:
        origin_entries = ({"origin": next(iter(origins)), "localStorage": storage},)
    session = SessionState(cookies=tuple(dict(c) for c in cookies), origins=origin_entries)
    slot.captured(session)
    return session
