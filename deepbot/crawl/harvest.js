// Everything the crawler needs from a rendered page, in ONE evaluate: one round
// trip instead of dozens. Menus that insert links on hover are opened by
// dispatching the events a pointer would, before anchors are collected; menus that
// open on a click are clicked open, one at a time, and their links kept with the
// opener a route must click first.
async (given) => {
  // Options as JSON text (what the crawler sends: one value for Playwright to check) or an object.
  const opts = typeof given === "string" ? JSON.parse(given) : given;
  // An overlay (fixed, sticky, a modal dialog) that speaks of cookies or consent in its
  // own words (a link to a cookie policy in a fixed header does not count), and a button
  // in it that refuses, accepts or closes: {selector, text}, or null.
  const findConsent = () => {
    const TOPIC = /cookie|consent|gdpr|einwilligung|consentement|consentimiento|consenso|toestemming|samtycke/i;
    const REFUSE = new RegExp("\\b(reject|decline|deny|refuse|disagree|do not (consent|accept|agree)|don't (accept|agree))" +
      "|(necessary|essential|required|functional) (cookies )?only|only (the )?(necessary|essential|required)" +
      "|continue without|ablehnen|verweigern|nur (notwendige|essenzielle|erforderliche)|refuser|continuer sans" +
      "|rechazar|rifiut|weigeren|afwijzen", "i");
    const OTHER = /setting|manage|custom|preference|option|more info|learn more|details|policy|read more|partner|vendor|purpose|save|einstellung|mehr|paramètr|personnalis|configur/i;
    const ACCEPT = /\b(accept|agree|allow|ok|okay|got it|understood|i understand|consent|continue)\b|akzeptier|zustimm|einverstanden|annehmen|accepter|j'accepte|acepto|aceptar|accett|accepteren|akkoord|godkänn/i;
    const CLOSE = /^(close|dismiss|[×✕✖x]|schließen|fermer|cerrar|chiudi|sluiten)$/i;
    // Up the tree, out of a shadow root to its host (a consent manager may draw its
    // banner inside a web component: Usercentrics does).
    const up = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;
    const overlayOf = (el) => {
      for (let n = el; n && n !== document.body && n !== document.documentElement; n = up(n)) {
        if (n.localName === "dialog" && n.open) return n;
        const position = getComputedStyle(n).position;
        if (position === "fixed" || position === "sticky") return n;
      }
      return null;
    };
    const nameOf = (el) => {  // what it says, or for an icon ("×") what it is called
      const shown = ((el.localName === "input" ? el.value : el.innerText) || "").replace(/\s+/g, " ").trim();
      return /\w/.test(shown) ? shown : (el.getAttribute("aria-label") || el.getAttribute("title") || shown).trim();
    };
    const roots = new Set();
    // Some consent managers draw their notice in an iframe of their own origin, whose
    // words this document cannot read (Sourcepoint, TrustArc): an iframe in an overlay,
    // named like one or as large as a wall, is returned for the crawler to read in turn.
    const frames = new Set();
    const FRAME_HINT = /consent|cookie|privacy|gdpr|cmp|truste|sp_message/i;
    const noticeFrame = (f) => {
      if (!overlayOf(f) || !f.checkVisibility()) return false;
      const box = f.getBoundingClientRect();
      const hint = [f.id, f.title, f.name, f.getAttribute("class"), f.getAttribute("src")].join(" ");
      return FRAME_HINT.test(hint) || box.width * box.height >= 0.4 * innerWidth * innerHeight;
    };
    const corners = [[0.5, 0.5], [0.5, 0.02], [0.5, 0.98], [0.1, 0.98], [0.9, 0.98], [0.5, 0.9], [0.1, 0.9], [0.9, 0.9]];
    for (const [x, y] of corners) {
      let hit = document.elementFromPoint(innerWidth * x, innerHeight * y);
      for (let inner = hit; inner && inner.shadowRoot; inner = hit !== inner ? hit : null) {
        hit = inner.shadowRoot.elementFromPoint(innerWidth * x, innerHeight * y) || inner;
      }
      if (hit && hit.localName === "iframe" && noticeFrame(hit)) frames.add(hit);
      const root = hit && overlayOf(hit);
      if (root) roots.add(root);
    }
    for (const f of document.querySelectorAll("iframe")) {
      if (frames.size < 3 && FRAME_HINT.test(`${f.id} ${f.title} ${f.getAttribute("class")}`) && noticeFrame(f)) frames.add(f);
    }
    if (opts.inFrame && document.body) roots.add(document.body);  // in such an iframe: the notice is its page
    const named = document.querySelectorAll("[id*=cookie i],[class*=cookie i],[id*=consent i],[class*=consent i]," +
      "[id*=gdpr i],[class*=gdpr i],[aria-label*=cookie i],[aria-label*=consent i],dialog[open],[aria-modal=true]," +
      "[role=dialog],[role=alertdialog],[role=alert]");
    for (let i = 0; i < named.length && i < 30; i++) {
      const root = overlayOf(named[i]);
      if (root) roots.add(root);
    }
    const quoted = (s) => (!s.includes('"') ? `"${s}"` : !s.includes("'") ? `'${s}'` : null);
    // An XPath that names the button by the overlay and its words, not its position: a
    // replay watches for it on later pages too (nseql's `dismiss`), where positions differ.
    // In a shadow root: Playwright CSS, which pierces it (the host, then the button by a
    // test id, its id or its path in the root: a consent manager's own markup is stable).
    const inRoot = (el) => {
      const root = el.getRootNode();
      for (const attr of ["data-testid", "id"]) {
        const v = el.getAttribute(attr);
        const css = v && `${el.localName}[${attr}="${CSS.escape(v)}"]`;
        if (css && root.querySelectorAll(css).length === 1) return css;
      }
      const parts = [];
      for (let n = el; n; n = n.parentElement) {
        let i = 1;
        for (let sib = n.previousElementSibling; sib; sib = sib.previousElementSibling) i += sib.localName === n.localName;
        parts.unshift(`${n.localName}:nth-of-type(${i})`);
      }
      return parts.join(" > ");
    };
    const pierced = (el) => {
      const parts = [];
      for (let n = el; n; n = n.getRootNode() !== document ? n.getRootNode().host : null) parts.unshift("css=" + inRoot(n));
      return parts.join(" >> ");
    };
    const selectorOf = (button, root) => {
      if (button.getRootNode() !== document) return pierced(button);
      let scope = "";
      for (let n = root; n && n !== document.body && !scope; n = n.parentElement) {
        const token = [...n.classList].find((c) => /cookie|consent|gdpr|cmp/i.test(c));
        if (n.id && quoted(n.id) && document.querySelectorAll("#" + CSS.escape(n.id)).length === 1) {
          scope = `//*[@id=${quoted(n.id)}]`;
        } else if (token && quoted(token)) {
          scope = `//*[contains(concat(" ", normalize-space(@class), " "), ${quoted(" " + token + " ")})]`;
        }
      }
      const text = (button.textContent || "").replace(/[ \t\r\n]+/g, " ").trim();
      const by = [["value", button.localName === "input" ? button.value : ""], [".", text.length <= 80 ? text : ""],
                  ["aria-label", button.getAttribute("aria-label")], ["title", button.getAttribute("title")],
                  ["id", button.id]].find(([, v]) => v && quoted(v));
      if (!by) return null;
      const test = by[0] === "." ? `normalize-space(.)=${quoted(by[1])}` : `@${by[0]}=${quoted(by[1])}`;
      const tag = ["button", "a", "input"].includes(button.localName) ? button.localName : "*";
      const expr = `${scope}//${tag}[${test}]`;
      const hits = document.evaluate(expr, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      for (let i = 0; i < hits.snapshotLength; i++) {
        if (hits.snapshotItem(i) === button) return "xpath=" + (hits.snapshotLength > 1 ? `(${expr})[${i + 1}]` : expr);
      }
      return null;
    };
    for (const root of roots) {
      const box = root.getBoundingClientRect();
      const hidden = !root.checkVisibility() || box.width < 1 || box.height < 1 || box.bottom <= 0 || box.top >= innerHeight;
      if (hidden && root !== document.body) continue;  // an iframe's body may have no height of its own
      const controls = root.querySelectorAll("a[href], button, input, select, textarea, [role=button]");
      if (controls.length > 40) continue;  // a page of its own (an app's fixed shell), not a notice
      let words = "";
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t && words.length < 5000; t = walker.nextNode()) {
        if (!t.parentElement.closest("a[href]:not([href^='#']):not([href^='javascript:' i])")) words += t.data + " ";
      }
      if (!TOPIC.test(words)) continue;
      let best = null, bestScore = 0;
      for (const el of root.querySelectorAll("button, [role=button], input[type=button], input[type=submit], a")) {
        if (el.disabled || !el.checkVisibility()) continue;
        const href = el.localName === "a" ? (el.getAttribute("href") || "").trim() : "";
        if (href && !href.startsWith("#") && !/^javascript:/i.test(href) && el.getAttribute("role") !== "button") continue;
        const name = nameOf(el);
        const hint = `${el.id} ${el.getAttribute("class") || ""}`;  // an icon button's only words
        const score = REFUSE.test(name) ? 3 : OTHER.test(name) ? 0 : ACCEPT.test(name) ? 2
          : CLOSE.test(name) || (!name && /close|dismiss/i.test(hint)) ? 1 : 0;
        if (score > bestScore) { best = el; bestScore = score; }
      }
      const selector = best && selectorOf(best, root);
      if (selector) return { selector, text: nameOf(best).slice(0, 60) };
    }
    // The iframe by what names it on every page (a title, the consent manager's origin),
    // as a CSS attribute selector; in a shadow root, pierced.
    const frameSelector = (f) => {
      if (f.getRootNode() !== document) return pierced(f);
      let origin = "";
      try { origin = /^https?:/.test(f.src) ? new URL(f.src).origin + "/" : ""; } catch (e) {}
      for (const [attr, v, op] of [["title", f.title, "="], ["id", f.id, "="], ["name", f.name, "="], ["src", origin, "^="]]) {
        const css = v && `iframe[${attr}${op}"${v.replace(/["\\]/g, "\\$&")}"]`;
        if (css && document.querySelectorAll(css).length === 1) return "css=" + css;
      }
      return null;
    };
    for (const f of frames) {
      const selector = frameSelector(f);
      if (selector) return { frame: selector, src: /^https?:/.test(f.src) ? f.src : "" };
    }
    return null;
  };
  // 0. A page that fetches its content once loaded (a results shell, a single-page
  // app) is read when that content has come: the fetch/XHR still unanswered are waited
  // for (bounded), counted in the page by the mini-browser's init script (fetches.js).
  // Most pages have none pending by now, and go on at once.
  let settled = true;
  const fetches = opts.fetches;
  if (fetches && fetches.limit > 0 && window.__deepbotNet) {
    settled = await window.__deepbotNet.settle(fetches.since, fetches.quiet, fetches.limit, false);
  }
  // 0a. An overlay asking for cookie consent (a bottom banner, a modal wall) is dealt
  // with first: it takes the clicks meant for the page, and a modal one stops it from
  // scrolling. Its button is returned at once, for the crawler to click as a person
  // would (it then harvests the page again): the one refusing what is optional ("Reject
  // all", "Only necessary"), else the one accepting, else the one closing it.
  const sane = JSON.stringify({ a: ["x"] }) === '{"a":["x"]}';
  if (opts.dismiss) {
    const consent = findConsent();
    if (consent || opts.consentOnly) return sane ? JSON.stringify({ consent, settled }) : { consent, settled };
  }
  // 0b. Infinite scroll: a page that watches scrolling is scrolled to its end, round
  // after round, while that brings more (taller page, more links); each round waits
  // for the fetches the scroll made, as above, and for the DOM to stay still a while
  // longer than after a load: scroll handlers are often debounced (100-200 ms). Back at
  // the top afterwards.
  // Old pages set a handler (`window.onscroll = …`, `<body onscroll>`) rather than a
  // listener. When the window does not scroll, the panel that does is scrolled: the
  // largest of those with a scroll listener, else, in a shell that shuts the window's
  // overflow, the largest of any.
  // Bounded by rounds (maxScrolls) and by time (scrollTime ms, shared with "Load more"
  // below): how it stopped is returned, so a feed cut short is never said to be complete.
  // "end": a round brought nothing; "rounds", "time": a bound stopped it while more still
  // came; "unsettled": the page was still fetching or changing when the wait ran out
  // after it had grown (one that never grew, a sticky header beside a ticker, is no feed).
  let scrolled = 0, scrollStop = "";
  const net = window.__deepbotNet;
  const deadline = performance.now() + (opts.scrollTime ?? Infinity);
  const leftMs = () => deadline - performance.now();
  const roundWait = () => Math.max(1, Math.min(fetches ? fetches.limit : 0, leftMs()));  // a round's wait
  const watched = net && (net.scrollHooks || window.onscroll || document.onscroll);
  if (opts.maxScrolls > 0 && watched && fetches && fetches.limit > 0) {
    const scrolls = (el) => el.scrollHeight > el.clientHeight + 1;
    const largest = (els) => {
      let best = null, area = 0;
      for (const el of els) {
        if (el.clientHeight < 100 || !scrolls(el) || !/auto|scroll|overlay/.test(getComputedStyle(el).overflowY)) continue;
        if (el.clientHeight * el.clientWidth > area) { best = el; area = el.clientHeight * el.clientWidth; }
      }
      return best;
    };
    const page = document.scrollingElement || document.documentElement;
    const shut = (el) => el && /hidden|clip/.test(getComputedStyle(el).overflowY);
    const fixed = shut(document.documentElement) || shut(document.body);
    const panel = scrolls(page) && !fixed ? page : largest(net.panels)
      || (fixed ? largest([...document.querySelectorAll("body *")].slice(0, 5000)) : null);
    while (panel) {
      if (!scrolls(panel)) { scrollStop = "end"; break; }
      if (scrolled >= opts.maxScrolls) { scrollStop = "rounds"; break; }
      if (leftMs() <= 0) { scrollStop = "time"; break; }
      const height = panel.scrollHeight, links = document.links.length;
      const since = performance.timeOrigin + performance.now();
      panel.scrollTop = height;
      const calm = await net.settle(since, opts.scrollQuiet, roundWait(), true);
      const grew = panel.scrollHeight > height || document.links.length > links;
      if (grew) scrolled++;
      // a feed that never goes quiet (polling, a ticker) ends the rounds; so does a batch
      // still being fetched when the wait ran out (the time bound's, or fetch_wait's)
      if (!calm) { scrollStop = leftMs() <= 0 ? "time" : scrolled ? "unsettled" : ""; break; }
      if (!grew) { scrollStop = "end"; break; }
    }
    if (panel) panel.scrollTop = 0;
  }
  // 0c. "Load more": a listing that grows in place when its button is clicked, the other
  // common way to page a feed or a catalogue. The button is clicked round after round
  // while that brings more, as for scrolling (same cap). A click that would leave the
  // page (a button that is really a link to page 2) is cancelled: that is not this page.
  // Each click that brought more, as a selector, for the document's program: a replay
  // clicks the same.
  let more = 0, moreStop = "";
  const moreClicks = [];
  const selectorOfMore = (el) => {
    if (el.id && document.querySelectorAll(`#${CSS.escape(el.id)}`).length === 1) return `css=#${CSS.escape(el.id)}`;
    const text = (el.innerText || "").replace(/\s+/g, " ").trim();
    const q = text.includes('"') ? `'${text}'` : `"${text}"`;
    const xp = `//${el.localName}[normalize-space(.)=${q}]`;
    const found = document.evaluate(`count(${xp})`, document, null, XPathResult.NUMBER_TYPE, null).numberValue;
    if (found === 1 && !(text.includes('"') && text.includes("'"))) return `xpath=${xp}`;
    return `xpath=(//${el.localName})[${[...document.getElementsByTagName(el.localName)].indexOf(el) + 1}]`;
  };
  if (opts.maxScrolls > 0 && net && fetches && fetches.limit > 0) {
    const MORE = new RegExp("^(load|show|see|view|display) (\\d+ )?more\\b" +
      "|^more (results|items|products|stories|articles|posts|news|entries|books|records|titles)\\b" +
      "|^(mehr|weitere) (laden|anzeigen)|^(voir|afficher|charger) plus|^(cargar|ver|mostrar) más" +
      "|^(carica|mostra) altr|^meer (laden|tonen|weergeven)", "i");
    // A disclosure ("Show more options", a toggle that says it expands) grows the page
    // too, but it is a form's or a panel's, not a listing's: the Form Analyzer opens those.
    const FOLD = /\b(option|filter|field|criteri|detail|setting|info)/i;
    const findMore = () => {
      const buttons = "button, [role=button], a:not([href]), a[href^='#'], a[href^='javascript:' i]";
      for (const el of document.querySelectorAll(buttons)) {
        if (el.disabled || el.getAttribute("aria-disabled") === "true" || (el.form && el.type === "submit")) continue;
        if (el.closest("[aria-expanded], summary")) continue;
        const text = (el.innerText || "").replace(/\s+/g, " ").trim();
        if (text.length <= 40 && MORE.test(text) && !FOLD.test(text) && el.checkVisibility()) return el;
      }
      return null;
    };
    const root = document.scrollingElement || document.documentElement;
    const stay = (e) => { if (!e.destination.sameDocument && e.cancelable) e.preventDefault(); };
    if (window.navigation) window.navigation.addEventListener("navigate", stay);
    try {
      for (let button = findMore(); ; button = findMore()) {
        if (!button) { moreStop = more ? "end" : ""; break; }
        if (more >= opts.maxScrolls) { moreStop = "rounds"; break; }
        if (leftMs() <= 0) { moreStop = "time"; break; }
        const height = root.scrollHeight, links = document.links.length;
        const since = performance.timeOrigin + performance.now();
        const selector = selectorOfMore(button);
        button.click();
        const calm = await net.settle(since, opts.scrollQuiet, roundWait(), true);
        const grew = root.scrollHeight > height || document.links.length > links;
        if (grew) { more++; moreClicks.push(selector); }
        if (!calm) { moreStop = leftMs() <= 0 ? "time" : more ? "unsettled" : ""; break; }
        if (!grew) { moreStop = more ? "end" : ""; break; }
      }
    } finally {
      if (window.navigation) window.navigation.removeEventListener("navigate", stay);
    }
  }
  const out = { url: location.href, title: document.title || "", links: [], scripts: [],
                revealed: 0, scrolled, scrollStop, more, moreStop, moreClicks, storage: [], origins: [], settled };
  const cssPath = (el) => {
    const parts = [];
    for (let node = el; node && node.nodeType === 1 && node !== document.documentElement; node = node.parentElement) {
      if (node.id && document.querySelectorAll("#" + CSS.escape(node.id)).length === 1) {
        parts.unshift("#" + CSS.escape(node.id));
        return parts.join(" > ");
      }
      const tag = node.localName;
      let index = 1;
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
        if (sib.localName === tag) index++;
      }
      parts.unshift(`${tag}:nth-of-type(${index})`);
    }
    return parts.join(" > ");
  };
  // What an element says: its text, else what names it; an image link ("next.gif") by its
  // image's alt. Blank text (the white space around an <img>) says nothing.
  const label = (el) => {
    const said = [() => el.innerText, () => el.textContent, () => el.getAttribute("aria-label"),
                  () => el.getAttribute("title"), () => el.getAttribute("alt"),
                  () => { const img = el.querySelector("img[alt]"); return img && img.alt; }];
    for (const say of said) {
      const text = (say() || "").trim();
      if (text) return text.replace(/\s+/g, " ").slice(0, 200);
    }
    return "";
  };

  // Open shadow roots (web components): their links and text are the page's too, though
  // document-wide queries, innerText and outerHTML do not go inside them.
  const shadowRoots = [];
  const findRoots = (root) => {  // a TreeWalker: ~6× cheaper than querySelectorAll("*") here
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el; el = walker.nextNode()) {
      if (el.shadowRoot) {
        shadowRoots.push(el.shadowRoot);
        findRoots(el.shadowRoot);
      }
    }
  };
  findRoots(document);

  // Anchors: real URLs become link routes; script-driven ones become click routes.
  // Collected more than once (a menu may close again as soon as the page breathes,
  // e.g. when a real pointer left over from the previous route fires mouseleave).
  const seen = new Set();
  const seenScript = new Set();
  let controls = 0;  // script elements kept only as a results pager: a cap of their own
  // Whether a person sees it (as Playwright judges before acting: a box, and no
  // display: none or visibility: hidden on it or above it). A script element that does
  // not show is no route of its own: clicking it would fail (a closed menu's item). It
  // is taken when something opens it, with that opener.
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && el.checkVisibility({ visibilityProperty: true });
  };
  const candidates = new Set();  // controls that may open a menu: none is a route until it is known not to
  // ``opener``: the selectors a route clicks first, for what a menu's click showed.
  // A menu's item is known by its menu and its markup, not by the page: a header's menu
  // on every page is one route an item, not one a page. Markup that differs (a record's
  // own menu, whose script names the record) makes routes of its own.
  const menuItem = (opener, el) => opener ? { opener, scope: ["menu", location.host, ...opener, cssPath(el),
    el.getAttribute("onclick") || "", el.getAttribute("href") || ""].join("\n") } : {};
  const collect = (opener) => {
    for (const root of [document, ...shadowRoots]) {
      const inShadow = root !== document;
      for (const a of root.querySelectorAll("a, area")) {
        if (seen.has(a)) continue;
        seen.add(a);
        const raw = (a.getAttribute("href") || "").trim();
        const hasClick = a.hasAttribute("onclick");
        if (/^#!?\//.test(raw) && /^https?:/i.test(a.href)) {  // a hash-routed app's view: its URL shows it
          out.links.push({ url: a.href, text: label(a), nofollow: false });
        } else if (/^javascript:/i.test(raw) || ((raw === "" || raw.startsWith("#")) && hasClick)) {
          // A path inside a shadow root names no one element of the page: links only there.
          // Inside a form, a script link is the form's (its submit, which the Form Analyzer
          // uses) or, on an ASP.NET page, where one form holds everything, the results'
          // pager (__doPostBack): kept as a control, followed only as a results pager.
          const inForm = a.closest("form");
          const full = inForm ? controls >= opts.maxScripts : out.scripts.length - controls >= opts.maxScripts;
          if (inShadow || full || seenScript.has(a)) continue;
          // A pager's disabled item ("»" on the last page) and its current page do nothing:
          // Bootstrap gives them pointer-events: none, so a click would only wait and fail.
          if (a.closest(".disabled, [aria-disabled=true], [aria-current=page], .pagination .active")) continue;
          if (!shown(a) || candidates.has(a)) {  // a closed menu's, or a menu's opener: a later pass tells
            seen.delete(a);
            continue;
          }
          const text = label(a);
          if (inForm && (!text || text.length > 20)) continue;
          seenScript.add(a);
          controls += inForm ? 1 : 0;
          out.scripts.push({ selector: cssPath(a), text, kind: inForm ? "control" : "anchor", ...menuItem(opener, a) });
        } else if (raw && !raw.startsWith("#") && a.href && /^https?:/i.test(a.href)) {
          const rel = a.getAttribute("rel") || "";
          // An icon's link says nothing (a chevron drawn by CSS); rel="next" names a pager's.
          const text = label(a) || (/(^|\s)next(\s|$)/i.test(rel) ? "Next" : "");
          out.links.push({ url: a.href, text, nofollow: /\bnofollow\b/i.test(rel) });
        }
      }
    }
    // Other clickable elements driven by script (onclick on spans, buttons…), outside forms.
    for (const el of document.querySelectorAll("[onclick]")) {
      if (out.scripts.length - controls >= opts.maxScripts) break;
      if (seenScript.has(el) || el.closest("form") || el.closest("a[href]") && !seenScript.has(el.closest("a"))) continue;
      if (el.localName === "a" || el.localName === "area" || candidates.has(el) || !shown(el)) continue;
      seenScript.add(el);
      out.scripts.push({ selector: cssPath(el), text: label(el), kind: el.localName, ...menuItem(opener, el) });
    }
  };

  // 1. Open hover menus: candidates are navigation items and anything with inline
  // hover handlers; bounded so a huge mega-menu cannot stall the page.
  if (opts.revealMenus) {
    const before = document.querySelectorAll("a").length;
    const triggers = new Set();
    const sel = "[onmouseover],[onmouseenter],[aria-haspopup],[role=menuitem],nav li,[role=navigation] li," +
                "[role=menubar] > *,[class*=menu] > li,[class*=dropdown],[id*=menu] > li,[class*=nav] > li";
    for (const el of document.querySelectorAll(sel)) {
      if (triggers.size >= opts.maxHover) break;
      triggers.add(el);
    }
    for (const el of triggers) {
      for (const type of ["pointerover", "pointerenter", "mouseover", "mouseenter"]) {
        el.dispatchEvent(new MouseEvent(type, { bubbles: !type.endsWith("enter"), cancelable: true, view: window }));
      }
    }
    // 1b. Menus opened by a click: Bootstrap's data-bs-toggle="dropdown", aria-haspopup,
    // an old onclick that flips style.display. Their items are hidden until a person
    // clicks the opener, so a route clicks it first. A candidate is a visible control
    // beside hidden links (in its parent, or in what its aria-controls names). Each is
    // clicked alone, what it showed taken with it as their opener, and clicked again to
    // close: the next starts from the page as it was (Bootstrap closes one menu when
    // another opens). A navigation such a click would start is cancelled.
    const openers = new Set();
    const hidden = [...document.querySelectorAll("a, [onclick]")].slice(0, 3000)
      .filter((el) => !el.closest("form") && !shown(el));
    if (hidden.length) {  // what shows with no click is taken first (the hover handlers' too, before it can close)
      const OPENER = "[data-bs-toggle=dropdown], [data-toggle=dropdown], [aria-haspopup]:not([aria-haspopup=false])," +
        " [aria-expanded=false], button[onclick], [role=button][onclick], a[onclick]:not([href])," +
        " a[onclick][href^='#'], a[href^='javascript:' i]";
      const menuOf = (el) => {
        const named = el.getAttribute("aria-controls");
        const target = named && document.getElementById(named);
        if (target) return target;
        const parent = el.parentElement;  // a dropdown's wrapper, a menu bar's item
        return parent && parent !== document.body && parent.querySelectorAll("a").length <= 60 ? parent : null;
      };
      for (const el of document.querySelectorAll(OPENER)) {
        if (candidates.size >= opts.maxHover) break;
        if (el.disabled || el.closest("form") || !shown(el)) continue;
        const href = el.localName === "a" ? (el.getAttribute("href") || "").trim() : "";
        if (href && !href.startsWith("#") && !/^javascript:/i.test(href)) continue;  // a link to a page: followed as one
        const menu = menuOf(el);
        if (menu && hidden.some((h) => menu.contains(h) && !el.contains(h))) candidates.add(el);
      }
    }
    collect(null);
    if (candidates.size) {
      const stay = (e) => { if (!e.destination.sameDocument && e.cancelable) e.preventDefault(); };
      if (window.navigation) window.navigation.addEventListener("navigate", stay);
      try {
        for (const el of candidates) {
          if (!shown(el)) continue;  // in a menu closed again
          const selector = cssPath(el);
          const taken = out.scripts.length;
          const already = new Set(hidden.filter(shown));  // a menu that a second click did not close
          el.click();
          // A javascript: link runs its script a task later.
          if (/^javascript:/i.test(el.getAttribute("href") || "")) await new Promise((resolve) => setTimeout(resolve, 0));
          const showing = hidden.filter((h) => !already.has(h) && shown(h));
          collect([selector]);
          if (showing.length || out.scripts.length > taken) {
            openers.add(el);
            seenScript.add(el);  // the opener is no route of its own: it only shows the page's menu
          }
          if (el.getAttribute("aria-expanded") === "true" || showing.some(shown)) el.click();
        }
      } finally {
        if (window.navigation) window.navigation.removeEventListener("navigate", stay);
      }
      candidates.clear();  // one that opened nothing is a script element like any other
    }
    // Disclosure toggles (the ARIA pattern: a collapsed button that opens a panel)
    // are clicked: by convention they reveal content rather than navigate. They stay
    // open; what each showed is taken with it as its opener.
    let toggles = 0;
    for (const el of document.querySelectorAll('[aria-expanded="false"], details:not([open]) > summary')) {
      if (toggles >= opts.maxHover || openers.has(el) || el.closest("form") || el.closest("a[href]")) continue;
      if (el.localName === "summary" || el.localName === "button" || el.getAttribute("role") === "button") {
        const selector = cssPath(el);
        el.click();
        toggles++;
        collect([selector]);
      }
    }
    const opened = document.querySelectorAll("a").length;
    if (triggers.size || toggles) await new Promise((resolve) => setTimeout(resolve, 0));
    out.revealed = Math.max(opened, document.querySelectorAll("a").length) - before + openers.size;
  }
  collect(null);  // and what came a tick later

  // 2. Documents the page leads to without an anchor. Frames and iframes: what they show
  // is a document of its own (an old site's navigation frame, a results iframe).
  for (const f of document.querySelectorAll("frame[src], iframe[src]")) {
    if (/^https?:/i.test(f.src)) {
      out.links.push({ url: f.src, text: (f.title || f.name || "").trim().slice(0, 200), nofollow: false });
    }
  }
  // A delayed meta refresh ("this page has moved; you will be redirected in 5 seconds"),
  // which fires after the page has been read.
  for (const meta of document.querySelectorAll("meta[http-equiv]")) {
    if (meta.httpEquiv.trim().toLowerCase() !== "refresh") continue;
    const rest = /^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?(.*)$/i.exec(meta.content)[1].trim();
    const target = rest.replace(/^(['"])(.*)\1$/, "$2");  // URL='…' as often as URL=…
    try {
      const url = target && new URL(target, document.baseURI).href;
      if (url && /^https?:/i.test(url)) out.links.push({ url, text: "meta refresh", nofollow: false });
    } catch (e) {}  // not a URL: nothing to follow
  }

  // 3. Other clickable elements driven by script: collect() took them with the anchors.

  // 4. Jump menus: a <select> whose change handler navigates (old sites' section and
  // page pickers). Each option is a route that chooses it. Not in a form with a text
  // field: there a change handler serves a search form, which the Form Analyzer fills.
  // A select whose change sends its own form (ASP.NET's AutoPostBack, __doPostBack; an
  // old page's this.form.submit()) is a form's filter, sort or page size: its options
  // are "postback" routes, known by the form (its action, method and field names), not
  // by the page, so a filter shown on every page is one route an option, not one a page.
  const SENDS = /__doPostBack|\.submit\s*\(|requestSubmit/;
  for (const menu of document.querySelectorAll("select[onchange]")) {
    const form = menu.form;
    if (form && form.querySelector("input:not([type]), input[type=text], input[type=search], textarea")) continue;
    const sends = form && SENDS.test(menu.getAttribute("onchange"));
    const scope = sends ? [form.action, form.method, ...[...form.elements].map((el) => `${el.name}:${el.type}`)
      .sort(), `select ${menu.name || menu.id}`].join("\n") : null;
    for (const option of menu.options) {
      if (out.scripts.length - controls >= opts.maxScripts) break;
      if (option.disabled || option.selected || !option.value || option.value === "#") continue;
      out.scripts.push({ selector: cssPath(menu), text: option.text.trim().replace(/\s+/g, " ").slice(0, 200),
                         kind: sends ? "postback" : "select", option: option.value, scope });
    }
  }

  // 4b. Buttons outside forms with no handler in their markup: a framework attaches the
  // script (a listener, or one delegated at the root). Their short texts go to the
  // crawler as controls, which it follows only as the pager of a query's results ("Next",
  // "2").
  for (const el of document.querySelectorAll("button, [role=button]")) {
    if (controls >= opts.maxScripts) break;
    if (seenScript.has(el) || el.hasAttribute("onclick") || el.closest("form, a[href]") || el.disabled) continue;
    const current = el.getAttribute("aria-current");
    if (current && current !== "false") continue;  // the page shown: clicking it shows it again
    const text = label(el);
    if (!text || text.length > 20 || !el.checkVisibility()) continue;
    controls++;
    out.scripts.push({ selector: cssPath(el), text, kind: "control" });
  }
  // 4c. A form's own buttons, by their short texts: an ASP.NET page's one form holds its
  // results' pager of asp:Buttons ("Next »", an <input type=submit>), an old CGI's "Next
  // 20" is a form of hidden fields and a button. The crawler clicks them only as the
  // "Next" of a query's results: a form's button elsewhere may send anything.
  for (const el of document.querySelectorAll("form input[type=submit], form input[type=button], " +
                                             "form input[type=image], form button:not([type=reset])")) {
    if (controls >= opts.maxScripts) break;
    if (seenScript.has(el) || el.disabled) continue;
    const shown = el.localName !== "input" ? label(el) : el.type === "image" ? el.alt : el.value;
    const text = (shown || "").trim().replace(/\s+/g, " ");
    if (!text || text.length > 20 || !el.checkVisibility()) continue;
    controls++;
    out.scripts.push({ selector: cssPath(el), text, kind: "submit" });
  }

  // 5. Session parts the cookie jar does not hold.
  try { out.storage = Object.keys(localStorage).map((k) => ({ name: k, value: localStorage.getItem(k) })); } catch (e) {}
  out.origins = [...new Set([location.origin, ...[...document.querySelectorAll("iframe")]
    .map((f) => { try { return new URL(f.src, location.href).origin; } catch (e) { return ""; } })
    .filter((o) => o && o !== "null")])];
  // A text field outside every form counts as one more: an app's search panel without
  // a <form> (the Form Analyzer groups such fields into virtual forms).
  // Web components' shadow roots count too.
  const fields = "input:not([type]), input[type=text], input[type=search], textarea";
  out.forms = [document, ...shadowRoots].reduce((n, root) => n + root.querySelectorAll("form").length, 0) +
    ([document, ...shadowRoots].some((root) => [...root.querySelectorAll(fields)].some((el) => !el.form)) ? 1 : 0);
  // A login form shown: one visible password field and a visible field for the name in
  // its form. A crawl that started logged in meets one when the site has logged it out.
  const visible = (el) => el.checkVisibility();
  out.login = [...document.querySelectorAll("input[type=password]")].some((p) => {
    if (!visible(p)) return false;
    const scope = p.form || document;
    return [...scope.querySelectorAll("input[type=password]")].filter(visible).length === 1 &&
      [...scope.querySelectorAll("input:not([type]), input[type=text], input[type=email], input[type=tel]")]
        .some(visible);
  });
  // What the page asks of robots (<meta name="robots">, or one naming a crawler):
  // the crawler decides which apply to it (deepbot/crawl/directives.py).
  out.robots = [...document.querySelectorAll("meta[name][content]")]
    .filter((m) => /robots|bot$/i.test(m.name)).slice(0, 10).map((m) => [m.name, m.content]);
  // The document shown, as the browser loaded it: the crawler's own record of responses
  // misses a navigation the page made by itself (a script's redirect, a meta refresh).
  const nav = performance.getEntriesByType("navigation")[0];
  out.document = { url: nav ? nav.name : "", status: nav ? nav.responseStatus || 0 : 0,
                   type: document.contentType || "" };
  // sessionStorage belongs to the tab, not to the route's session, so the tab's next
  // route must not see it: clear it as this document goes (the next route then needs
  // no round trip for it). Timers that write it after this harvest are covered too.
  if (!window.__deepbotClearOnLeave) {
    window.__deepbotClearOnLeave = true;
    addEventListener("pagehide", () => { try { sessionStorage.clear(); } catch (e) {} });
  }
  out.text = document.body ? document.body.innerText : "";
  out.html = document.documentElement ? document.documentElement.outerHTML : "";
  if (shadowRoots.length) {
    // Shown text only: a hidden element's innerText is its whole textContent (styles too).
    const shown = shadowRoots.flatMap((root) => [...root.children])
      .filter((el) => el.checkVisibility()).map((el) => el.innerText.trim()).filter(Boolean);
    if (shown.length) out.text += "\n" + shown.join("\n");
    if (document.documentElement.getHTML) {  // shadow roots serialized as <template shadowrootmode>
      const root = document.documentElement;
      const attrs = [...root.attributes].map((a) => ` ${a.name}="${a.value.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`);
      out.html = `<html${attrs.join("")}>${root.getHTML({ shadowRoots })}</html>`;
    }
  }
  // 6. A page that is only a bot check standing in front of the site (deepbot/challenge.py):
  // little text, a CAPTCHA widget or the words of one, and no field of its own besides
  // the test's answer (a search page a CAPTCHA guards has its search fields). Where a
  // widget shows, the site's own header, menus and footer around it do not count, text
  // or fields (the search box in its header): a check drawn in the site's layout
  // (Cloudflare's custom pages) is one all the same. Words alone need a bare page.
  out.challenge = null;
  const check = opts.challenge;
  const widget = check && [...document.querySelectorAll(check.widgets)].find((el) => el.checkVisibility()
    && !el.closest(check.invisible) && !/size=invisible/.test(el.src || ""));
  const chrome = "header, nav, footer, [role=banner], [role=navigation], [role=contentinfo]";
  const framing = widget ? [...document.querySelectorAll(chrome)]
    .filter((el) => !el.parentElement || !el.parentElement.closest(chrome))
    .reduce((n, el) => n + (el.innerText || "").length, 0) : 0;
  if (check && out.text.length - framing < 3000) {
    const said = new RegExp(check.pageWords, "i").exec(`${document.title}\n${out.text}`);
    const answer = new RegExp(check.fieldWords, "i");
    const own = [...document.querySelectorAll("input:not([type=hidden]):not([type=submit]):not([type=button])" +
      ":not([type=image]):not([type=reset]):not([type=checkbox]):not([type=radio]), select, textarea")]
      .some((el) => el.checkVisibility() && !(widget && el.closest(chrome)) && !answer.test(
        `${el.name} ${el.id} ${el.placeholder || ""} ${el.getAttribute("aria-label") || ""} ${[...(el.labels || [])].map((l) => l.textContent).join(" ")}`));
    if ((said || widget) && !own) {
      out.challenge = { said: said ? said[0] : "",
                        widget: widget ? `${widget.localName} ${widget.className} ${widget.id} ${widget.src || ""}` : "" };
    }
  }
  // One JSON string, not a tree of values: Playwright checks and converts a returned
  // object node by node in Python, and a page's links make thousands of nodes.
  // Old libraries (Prototype.js) patch toJSON and break JSON.stringify: then return the
  // object itself.
  return sane ? JSON.stringify(out) : out;
}
