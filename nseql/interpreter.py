"""Run a Program on a Playwright page, one step at a time, with bounded waits.

After each action that may navigate (click, select, check, uncheck, press, submit)
the interpreter asks the page whether the action started a cross-document
navigation: a ``navigate`` listener (the Navigation API) is armed before the action
and read one task later. If one started, it waits for the commit and for
``domcontentloaded``, then gives ``load`` a short, optional grace. It never waits for
network idle and never sleeps for a fixed time.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page, Response
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from nseql.dump import dump_step
from nseql.errors import Failure, StepError
from nseql.frames import locate
from nseql.model import (
    Back,
    Check,
    Click,
    Dismiss,
    Fill,
    Hover,
    Navigate,
    Press,
    Program,
    Select,
    Step,
    Submit,
    Uncheck,
    WaitLoad,
    WaitNavigation,
    WaitSelector,
    WaitUrl,
)
from nseql.navigation import Mark, NavigationTracker, wait_for_load_state
from nseql.options import closest_option
from nseql.translate import Failed, is_closed, is_context_lost, translate

# Armed before every action. Besides watching for a navigation, it brings into this tab
# what a form or link would open in another window or frame (target=_blank, a named
# popup, a frame of a frameset the page is no longer in): a person sees it in the new
# tab; a run reads this one. Targets already in the page are rewritten (page scripts may
# call form.submit()), later ones as they are submitted or clicked. A window.open(url)
# that a popup blocker would let through (the page has a user's activation: the action
# caused it) navigates this tab to that URL instead; others (ads on a timer) open as usual.
_ARM = r"""() => {
  const key = Symbol.for('nseql.navigation');
  const sameTab = (el) => {
    for (const attr of ['target', 'formtarget']) {
      const value = (el.getAttribute && el.getAttribute(attr) || '').trim().toLowerCase();
      if (value && !['_self', '_top', '_parent'].includes(value)) el.setAttribute(attr, '_self');
    }
  };
  let state = window[key];
  if (!state) {
    state = window[key] = { event: null };
    if (window.navigation) {
      window.navigation.addEventListener('navigate', (e) => {
        if (!e.destination.sameDocument) state.event = e;
      });
    }
    const open = window.open;
    window.open = function (url, ...rest) {
      const href = url == null ? '' : String(url).trim();
      if (href && !/^(javascript|about|data|blob):/i.test(href) && navigator.userActivation?.isActive) {
        location.assign(new URL(href, document.baseURI).href);
        return window;  // what callers use it for (focus(), a truthiness check) still works
      }
      return open.call(this, url, ...rest);
    };
    addEventListener('submit', (e) => { sameTab(e.target); if (e.submitter) sameTab(e.submitter); }, true);
    addEventListener('click', (e) => {
      const link = e.target instanceof Element && e.target.closest('a[href], area[href]');
      if (!link) return;
      sameTab(link);
      state.scriptLink = /^\s*javascript:/i.test(link.getAttribute('href'));
    }, true);
  }
  state.scriptLink = false;
  const targeted = 'form[target], a[target], area[target], base[target], [formtarget]';
  document.querySelectorAll(targeted).forEach(sameTab);
  state.event = null;
}"""

# One task later every handler the action ran has had its chance to navigate. A
# javascript: link runs its script in a task of its own, queued after the click: that
# takes one more on a quiet machine (measured: one task missed it every time, two never
# did), and later on a busy one (CI once lost a javascript: link's page so). So after a
# javascript: link the probe looks again every 5 ms, for at most 250 ms, and ends as soon
# as a navigation has started.
_PROBE = """() => new Promise((resolve) => {
  const state = window[Symbol.for('nseql.navigation')];
  const navigating = () => Boolean(state && state.event && !state.event.defaultPrevented);
  if (!(state && state.scriptLink)) { setTimeout(() => resolve(navigating()), 0); return; }
  const began = performance.now();
  const check = () => {
    if (navigating() || performance.now() - began > 250) resolve(navigating());
    else setTimeout(check, 5);
  };
  setTimeout(() => setTimeout(check, 0), 0);
})"""

# form.submit is shadowed when the form has a control named "submit"; call the prototype's.
_SUBMIT = """(el) => {
  const form = el instanceof HTMLFormElement ? el : (el.form || el.closest('form'));
  if (!form) return false;
  HTMLFormElement.prototype.submit.call(form);
  return true;
}"""

# A <select> a script hid behind a widget of its own (Chosen, Nice Select, Select2's
# older themes): hidden itself, with the widget shown in its place, right after it or
# around it.
# A select's options as [value, label, disabled]; an error for anything else.
# The options, and how many fetches the page still waits for: -1 where it does not count
# them (DeepBot's mini-browsers do: deepbot/browser/fetches.js).
_OPTIONS = """(el) => {
  if (el.localName !== 'select') throw new Error('not a <select> element');
  const net = window.__deepbotNet;
  return [[...el.options].map((o) => [o.value, (o.label || o.textContent).trim(), o.disabled]),
          net ? net.pending.size : -1];
}"""
# `select … like` stops waiting once the page fetches nothing and the options have not
# changed for this long: what a script was to bring has come, and none is alike.
OPTIONS_QUIET_S = 0.5

_REPLACED = """(el) => {
  const visible = (w) => w.checkVisibility({checkVisibilityCSS: true, visibilityProperty: true});
  if (el.localName !== 'select' || visible(el)) return false;
  const shown = (w) => !!w && !w.matches('input,select,textarea') && visible(w);
  const parent = el.parentElement;
  return shown(el.nextElementSibling) || (!!parent && parent.firstElementChild === el && shown(parent));
}"""


# Before an action on an element that is there: whether a person could use it. Hidden
# (display: none or visibility: hidden on it or above it, or no size: a closed menu's
# link) or covered at its centre by another element: resolves with why, once it has
# stayed so `grace` ms and the page fetches nothing (DeepBot's mini-browsers count
# fetches, deepbot/browser/fetches.js: content still coming may show it), `limit` ms at
# most; null at once when it is usable. A point outside the window is not tested for
# cover: the action scrolls it into view first. Playwright alone would wait the whole
# step timeout for what no later moment changes.
_USABLE = """(el, [grace, limit, cover]) => new Promise((resolve) => {
  const named = (n) => {
    const classes = typeof n.className === 'string' ? n.className.trim().split(/\\s+/).filter(Boolean) : [];
    return n.localName + (n.id ? '#' + n.id : '') + classes.map((c) => '.' + c).join('');
  };
  const why = () => {
    if (!el.isConnected) return 'gone from the page';
    const box = el.getBoundingClientRect();
    const shown = el.checkVisibility({visibilityProperty: true});
    if (shown && (box.width > 0 && box.height > 0 || getComputedStyle(el).display === 'contents')) {
      if (!cover) return null;
      const x = box.left + box.width / 2, y = box.top + box.height / 2;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return null;
      const hit = el.getRootNode().elementFromPoint(x, y);
      if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return null;
      const label = hit.closest('label');
      if (label && (label.control === el || label.contains(el))) return null;
      return 'covered by <' + named(hit) + '>';
    }
    for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.getRootNode().host || null)) {
      const style = getComputedStyle(n);
      const on = n === el ? 'on it' : 'on <' + named(n) + '>';
      if (style.display === 'none') return 'hidden (display: none ' + on + ')';
      const seen = style.visibility;
      if (seen === 'hidden' || seen === 'collapse') return 'hidden (visibility: ' + seen + ' ' + on + ')';
      if (style.contentVisibility === 'hidden') return 'hidden (content-visibility: hidden ' + on + ')';
    }
    return 'hidden (it has no size)';
  };
  const started = performance.now();
  const check = () => {
    const found = why();
    const waited = performance.now() - started;
    const net = window.__deepbotNet;
    const fetching = net && net.pending && net.pending.size > 0;
    if (!found || waited >= limit || (waited >= grace && !fetching)) return resolve(found);
    setTimeout(check, 50);
  };
  check();
})"""
# How long an element may stay hidden or covered before its step fails (while the page
# fetches nothing): a menu's fade, an overlay going away. Well under a second.
UNUSABLE_GRACE_MS = 500


@dataclass(frozen=True, slots=True)
class RunResult:
    final_url: str
    steps_run: int
    status: int | None  # HTTP status of the last main document, if one was loaded
    loaded: bool = True  # False when a navigation's load event did not come within the grace
    # The last main document's response, as far as the run saw it (its headers, its body).
    # A navigation the page made by itself after the last step (a script's redirect) is
    # not in it: compare its url with the page's document.
    response: Response | None = field(default=None, compare=False, repr=False)


def replaced(response: Response | None, document_url: str) -> bool:
    """Whether the document shown, whose URL the browser's navigation entry gives
    (``performance.getEntriesByType("navigation")[0].name``), is not the one ``response``
    (a run's) loaded: the page navigated by itself after the last step."""
    if not document_url:
        return False
    return response is None or response.url.split("#", 1)[0] != document_url.split("#", 1)[0]


# The overlays `dismiss` steps watch for, per tab: Playwright's locator handlers, which it
# checks before every later action (an overlay often shows late: a consent script that
# fetches its settings first). They outlive the run: a caller that runs a program in
# several parts keeps them; one that reuses the tab for another program forgets them.
_WATCHED: weakref.WeakKeyDictionary[Page, dict[str, Locator]] = weakref.WeakKeyDictionary()


async def _watch(page: Page, selector: str, timeout_ms: float) -> None:
    watched = _WATCHED.setdefault(page, {})
    if selector in watched:
        return

    async def dismiss(found: Locator) -> None:
        await found.click(timeout=timeout_ms)

    locator = locate(page, selector)
    # Not waiting for it to go: an overlay its button does not hide (a broken consent
    # script, a slow fade) would hold every later action until its timeout.
    await page.add_locator_handler(locator, dismiss, no_wait_after=True)
    watched[selector] = locator


async def _unwatch(page: Page, selector: str) -> None:
    locator = _WATCHED.get(page, {}).pop(selector, None)
    if locator is None:
        return
    try:
        await page.remove_locator_handler(locator)
    except PlaywrightError as exc:
        if not is_closed(exc):
            raise


async def forget_overlays(page: Page) -> None:
    """Stop clicking away what the ``dismiss`` steps run in ``page`` watch for."""
    for selector in list(_WATCHED.get(page, {})):
        await _unwatch(page, selector)
    _WATCHED.pop(page, None)


@dataclass(frozen=True, slots=True)
class Limits:
    step_ms: float  # each element action or element wait
    navigation_ms: float  # each navigation, to its commit and domcontentloaded
    load_ms: float  # optional grace for the load event after a navigation (0: none)


async def run(
    program: Program,
    page: Page,
    *,
    step_timeout_ms: float = 10_000,
    navigation_timeout_ms: float = 30_000,
    load_timeout_ms: float = 5_000,
    on_action: Callable[[Step], object] | None = None,
) -> RunResult:
    """Run every step of ``program`` on ``page``; raise StepError at the first failure.

    ``on_action`` is called just before each action that may navigate (click, select,
    check, uncheck, press, submit, a dismiss's click) is performed: a caller that wants
    to watch what the action does (its fetches) starts watching there, not at the first
    ``goto``.
    """
    limits = Limits(step_timeout_ms, navigation_timeout_ms, load_timeout_ms)
    tracker = NavigationTracker(page)
    tracker.attach()
    try:
        interpreter = _Interpreter(page, tracker, limits, on_action)
        steps = program.steps
        for done, step in enumerate(steps):
            await interpreter.execute(step, done)
        response = await tracker.document_response()
        return RunResult(final_url=page.url, steps_run=len(steps),
                         status=response.status if response is not None else None,
                         loaded=interpreter.loaded, response=response)
    finally:
        tracker.detach()


class _Interpreter:
    def __init__(self, page: Page, tracker: NavigationTracker, limits: Limits,
                 on_action: Callable[[Step], object] | None) -> None:
        self.page = page
        self.tracker = tracker
        self.limits = limits
        self.on_action = on_action
        self.last_mark = tracker.mark()  # taken when the latest action began
        self.loaded = True  # whether the latest navigation's load event came in time

    async def execute(self, step: Step, done: int) -> None:
        try:
            await self._dispatch(step)
        except Failed as failed:
            raise StepError(step, dump_step(step), failed.kind, failed.reason, steps_run=done) from failed
        except PlaywrightError as exc:
            kind, reason = await translate(self.page, step, exc, self.limits.step_ms)
            raise StepError(step, dump_step(step), kind, reason, steps_run=done) from exc

    def _locator(self, selector: str) -> Locator:
        return locate(self.page, selector)

    async def _dispatch(self, step: Step) -> None:
        t = self.limits.step_ms
        match step:
            case Navigate(url=url):
                await self._navigate(url)
            case Click(selector=sel):
                await self._usable(sel, "click")
                await self._act(step, lambda: self._locator(sel).click(timeout=t))
            case Fill(selector=sel, value=value):
                await self._usable(sel, "type in")
                await self._locator(sel).fill(value, timeout=t)
            case Select(selector=sel, option=option, by=by):
                await self._act(step, lambda: self._select(sel, option, by))
            case Check(selector=sel):
                await self._usable(sel, "tick")
                await self._act(step, lambda: self._locator(sel).check(timeout=t))
            case Uncheck(selector=sel):
                await self._usable(sel, "untick")
                await self._act(step, lambda: self._locator(sel).uncheck(timeout=t))
            case Hover(selector=sel):
                await self._usable(sel, "point at")
                await self._locator(sel).hover(timeout=t)
            case Press(selector=sel, key=key):
                await self._act(step, lambda: self._locator(sel).press(key, timeout=t))
            case Submit(selector=sel):
                await self._act(step, lambda: self._submit(sel))
            case Dismiss(selector=sel):
                await self._dismiss(step, sel)
            case WaitNavigation():
                await self._await_navigation(self.last_mark, explicit=True)
                self.last_mark = self.tracker.mark()  # a second `wait navigation` waits for another
            case WaitLoad():
                await wait_for_load_state(self.page, "load", self.limits.navigation_ms)
            case WaitSelector(selector=sel):
                await self._locator(sel).first.wait_for(state="visible", timeout=t)
            case WaitUrl(pattern=pattern):
                regex = re.compile(pattern)
                await self.page.wait_for_url(regex, wait_until="commit", timeout=self.limits.navigation_ms)
                await self._loaded()
            case Back():
                await self._back()
            case _:
                raise TypeError(f"not an NSEQL step: {step!r}")

    async def _usable(self, selector: str, verb: str) -> None:
        """Fail at once, NOT_ACTIONABLE, when the element is there but hidden or covered
        (see _USABLE); an element not there yet is waited for as any step waits. Typing
        needs no pointer: for ``type in`` a cover is no matter.

        A cover is checked again by Playwright's own trial of the action, briefly: it
        runs the page's `dismiss` handlers (an overlay shown late), which a look in the
        page does not."""
        locator = self._locator(selector)
        t = self.limits.step_ms
        grace = min(UNUSABLE_GRACE_MS, t)
        why = await locator.evaluate(_USABLE, [grace, t, verb != "type in"], timeout=t)
        if why is None:
            return
        if why.startswith("covered"):
            try:
                await locator.click(trial=True, timeout=grace)
                return
            except PlaywrightTimeoutError:
                pass
        raise Failed(Failure.NOT_ACTIONABLE, f"{selector!r} is {why}: a person could not {verb} it")

    async def _act(self, step: Step, action: Callable[[], Awaitable[object]]) -> None:
        if self.on_action is not None:
            self.on_action(step)
        mark = self.last_mark = self.tracker.mark()
        await self._arm()
        await action()
        if await self._probe() or self.tracker.moved_since(mark):
            await self._await_navigation(mark, explicit=False)

    async def _dismiss(self, step: Step, selector: str) -> None:
        # A handler an earlier `dismiss` of it left would click it first, and this click
        # then wait for an element that is gone.
        await _unwatch(self.page, selector)
        locator = self._locator(selector)
        if await locator.is_visible():  # no waiting: an overlay is there or it is not
            await self._act(step, lambda: locator.click(timeout=self.limits.step_ms))
        await _watch(self.page, selector, self.limits.step_ms)

    async def _navigate(self, url: str) -> None:
        if not urlsplit(url).scheme and self.page.url.startswith(("http:", "https:")):
            url = urljoin(self.page.url, url)
        self.last_mark = self.tracker.mark()
        response = await self.page.goto(url, wait_until="domcontentloaded", timeout=self.limits.navigation_ms)
        self.tracker.note(response)
        await self._loaded(dom_ready=True)

    async def _back(self) -> None:
        mark = self.last_mark = self.tracker.mark()
        response = await self.page.go_back(wait_until="domcontentloaded", timeout=self.limits.navigation_ms)
        self.tracker.note(response)
        if response is None and not self.tracker.moved_since(mark):
            raise Failed(Failure.NO_HISTORY, "there is no previous page in this tab's history")
        await self._loaded(dom_ready=response is not None)

    async def _select(self, selector: str, option: str, by: str) -> None:
        locator = self._locator(selector)
        t = self.limits.step_ms
        # A person chooses in the widget that replaced the select, and the widget sets the
        # select; choosing in the select itself fires the input and change events the
        # widget and the page listen to, and the form sends the same.
        replaced = await locator.evaluate(_REPLACED, timeout=t)
        if by == "like":
            value = await self._option_like(locator, option)
            await locator.select_option(value=value, timeout=t, force=replaced)
        elif by == "value":
            await locator.select_option(value=option, timeout=t, force=replaced)
        else:
            await locator.select_option(label=option, timeout=t, force=replaced)

    async def _option_like(self, locator: Locator, text: str) -> str:
        """The value of the option most like ``text``, waiting (polled, within the step
        timeout) for one to be there: the options may come from a script. Where the page
        counts its fetches, the wait ends sooner: when nothing is being fetched and the
        options have stayed the same for OPTIONS_QUIET_S."""
        t = self.limits.step_ms
        clock = asyncio.get_running_loop().time
        deadline = clock() + t / 1000
        last: list[list[Any]] | None = None
        still_since = clock()
        while True:
            options, pending = await locator.evaluate(_OPTIONS, timeout=t)
            found = closest_option(text, ((v, label, off) for v, label, off in options))
            if found is not None:
                return found
            now = clock()
            if options != last or pending != 0:
                last, still_since = options, now
            settled = pending == 0 and now - still_since >= OPTIONS_QUIET_S
            if settled or now >= deadline:
                shown = ", ".join(repr(label) for _, label, _ in options[:8]) or "none"
                when = "once the page had fetched its options" if settled else f"within {t:g} ms"
                raise Failed(Failure.NOT_FOUND, f"no option like {text!r} {when} (options: {shown})")
            await asyncio.sleep(0.1)

    async def _submit(self, selector: str) -> None:
        try:
            found = await self._locator(selector).evaluate(_SUBMIT, timeout=self.limits.step_ms)
        except PlaywrightError as exc:
            if not is_context_lost(exc):
                raise
            found = True  # the submission replaced the document before the call returned
        if not found:
            raise Failed(Failure.NO_FORM, f"{selector!r} is not a form and belongs to no form")

    async def _arm(self) -> None:
        try:
            await self.page.evaluate(_ARM)
        except PlaywrightError as exc:
            if is_closed(exc):
                raise
            # The document is being replaced; the tracker's events will tell.

    async def _probe(self) -> bool:
        """Whether the last action started a cross-document navigation."""
        try:
            async with asyncio.timeout(self.limits.step_ms / 1000):
                return bool(await self.page.evaluate(_PROBE))
        except TimeoutError:
            raise Failed(
                Failure.TIMEOUT, f"the page did not respond within {self.limits.step_ms:g} ms"
            ) from None
        except PlaywrightError as exc:
            if is_closed(exc):
                raise
            return True  # the old document is gone: a navigation replaced it

    async def _await_navigation(self, mark: Mark, *, explicit: bool) -> None:
        limit = self.limits.navigation_ms
        try:
            async with asyncio.timeout(limit / 1000):
                outcome = await self.tracker.wait(mark)
        except TimeoutError:
            what = "no navigation happened" if explicit else "the navigation did not commit"
            raise Failed(Failure.TIMEOUT, f"{what} within {limit:g} ms") from None
        if outcome.failure is not None:
            raise Failed(Failure.NAVIGATION, f"navigation failed: {outcome.failure}")
        if not outcome.committed:
            if explicit:
                raise Failed(
                    Failure.NAVIGATION, "the navigation ended without a page (a download or aborted)"
                )
            return
        await self._loaded()
        failure = self.tracker.failure_since(mark)
        if failure is not None:  # an error page committed before the failure was reported
            raise Failed(Failure.NAVIGATION, f"navigation failed: {failure}")

    async def _loaded(self, *, dom_ready: bool = False) -> None:
        if not dom_ready:  # goto and go_back have waited for it already
            await wait_for_load_state(self.page, "domcontentloaded", self.limits.navigation_ms)
        self.loaded = True
        if self.limits.load_ms <= 0:
            return
        # Subresources that never finish are common; the document itself is ready.
        try:
            await wait_for_load_state(self.page, "load", self.limits.load_ms)
        except PlaywrightTimeoutError:
            self.loaded = False
