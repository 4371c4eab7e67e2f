// Installed in every document of a mini-browser, before the page's own scripts: counts
// the fetch() and XMLHttpRequest calls still waiting for their answer (and response
// bodies still being read), so the crawler can capture a page once what it fetched
// has arrived and been drawn. Counting here costs nothing per request; listening to
// requests through Playwright costs every request of the page a trip to Python.
(() => {
  if (window.__deepbotNet) return;
  const now = () => performance.timeOrigin + performance.now();  // epoch ms, like the crawler's clock
  const net = { pending: new Map(), next: 0, lastEnd: 0, scrollHooks: false };
  Object.defineProperty(window, "__deepbotNet", { value: net });
  const begin = () => {
    const id = ++net.next;
    net.pending.set(id, now());
    return id;
  };
  const end = (id) => {
    if (net.pending.delete(id)) net.lastEnd = now();
  };
  const wrap = (owner, name, make) => {
    const original = owner && owner[name];
    if (typeof original !== "function") return;
    const replacement = make(original);
    Object.defineProperty(replacement, "name", { value: original.name });
    Object.defineProperty(replacement, "length", { value: original.length });
    owner[name] = replacement;
  };
  // Returns what the original returns (the same promise), so the page sees no difference.
  const tracked = (original) => function (...args) {
    const id = begin();
    let result;
    try {
      result = original.apply(this, args);
    } catch (error) {
      end(id);
      throw error;
    }
    Promise.resolve(result).then(() => end(id), () => end(id));
    return result;
  };
  wrap(window, "fetch", tracked);
  // fetch() resolves with the headers; the results come with the body the page then reads.
  if (window.Response) {
    for (const name of ["json", "text", "arrayBuffer", "blob", "formData", "bytes"]) {
      wrap(Response.prototype, name, tracked);
    }
  }
  if (window.XMLHttpRequest) {
    wrap(XMLHttpRequest.prototype, "send", (original) => function (...args) {
      const id = begin();
      this.addEventListener("loadend", () => end(id), { once: true });
      try {
        return original.apply(this, args);
      } catch (error) {
        end(id);
        throw error;
      }
    });
  }

  // Pages that watch scrolling (infinite scroll, content loaded as it comes into view):
  // only these are scrolled by the harvest. The observer or listener itself is noted,
  // not what it does: a page without one is never scrolled, and pays nothing.
  const watches = () => { net.scrollHooks = true; };
  if (window.IntersectionObserver) {
    wrap(IntersectionObserver.prototype, "observe", (original) => function (...args) {
      watches();
      return original.apply(this, args);
    });
  }
  // One wrapper, on EventTarget.prototype itself, not on window, document or Element:
  // an own method there would shadow what a page's library patches on the prototype
  // later (zone.js does, for Angular to see every event), and its listeners would go
  // past it. A panel that scrolls by itself (an app's list inside a fixed shell) is
  // noted too: the harvest scrolls that panel when the window has nothing to scroll.
  net.panels = [];
  wrap(EventTarget.prototype, "addEventListener", (original) => function (type, ...rest) {
    if (type === "scroll" || type === "wheel") {
      watches();
      if (this instanceof Element && net.panels.length < 20) net.panels.push(this);
    }
    return original.call(this ?? window, type, ...rest);
  });

  // Resolves true once no request started at or after `since` (epoch ms) is waiting and
  // neither the DOM nor an answer has changed anything for `quiet` ms; false after
  // `limit` ms. With `always` false, a page with nothing pending and nothing answered
  // in the last `quiet` ms resolves at once: what most pages are when they have loaded.
  net.settle = (since, quiet, limit, always) => new Promise((resolve) => {
    const started = now();
    const busy = () => {
      for (const at of net.pending.values()) if (at >= since) return true;
      return false;
    };
    if (!always && !busy() && started - net.lastEnd >= quiet) return resolve(true);
    let changed = started;
    let timer = 0;
    const observer = new MutationObserver(() => { changed = now(); });
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    const finish = (value) => {
      observer.disconnect();
      clearTimeout(timer);
      resolve(value);
    };
    const check = () => {
      const at = now();
      const left = limit - (at - started);
      const still = busy() ? 0 : at - Math.max(changed, net.lastEnd);
      if (still >= quiet) return finish(true);
      if (left <= 0) return finish(false);
      timer = setTimeout(check, Math.max(1, Math.min(still ? quiet - still : 20, left)));
    };
    timer = setTimeout(check, Math.max(1, Math.min(busy() ? 20 : quiet, limit)));
  });
})();
