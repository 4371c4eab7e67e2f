// DeepBot form extraction: everything the Form Analyzer needs from a page, in ONE
// page.evaluate (one round trip: ~16 ms for 50 boxes, against ~1.2 s asking
// Playwright for them one locator at a time). Returns plain JSON; Python validates it.
//
// Output: {url, title, forms: [...], texts: [...]}. Boxes are page coordinates.
(options) => {
  const started = performance.now();
  const marginEm = options && options.marginEm ? options.marginEm : [12, 4];
  const anchorReach = options && options.anchorReach ? options.anchorReach : 300;
  const check = options && options.challenge;  // CAPTCHA widgets: deepbot/challenge.py
  const sx = window.scrollX, sy = window.scrollY;
  const box = (r) => ({x: r.left + sx, y: r.top + sy, width: r.width, height: r.height});
  const union = (a, b) => {
    if (!a) return b;
    if (!b) return a;
    const x = Math.min(a.x, b.x), y = Math.min(a.y, b.y);
    return {x, y, width: Math.max(a.x + a.width, b.x + b.width) - x,
            height: Math.max(a.y + a.height, b.y + b.height) - y};
  };
  const gap = (a, b) => {
    const dx = Math.max(0, a.x - (b.x + b.width), b.x - (a.x + a.width));
    const dy = Math.max(0, a.y - (b.y + b.height), b.y - (a.y + a.height));
    return Math.hypot(dx, dy);
  };
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  // A form's own properties lose to its controls' names (<input name="id">, WordPress's
  // <input name="action">: "DOM clobbering"); the prototype's getters still answer.
  const FORM = HTMLFormElement.prototype;
  const formGet = (form, prop) => Object.getOwnPropertyDescriptor(FORM, prop).get.call(form);
  const ELEMENT_ID = Object.getOwnPropertyDescriptor(Element.prototype, 'id').get;
  const ownId = (el) => ELEMENT_ID.call(el);
  // What a text inside one of these names: where a link goes, what a toggle opens.
  const TOGGLES = 'a[href],[onclick],summary,[aria-expanded],[data-deepbot-opened]';
  const shown = (el) => {
    if (el.checkVisibility && !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1;
  };

  // ---- selectors: unique XPath, preferring what survives a reload (name, id) over position
  const xq = (s) => !s.includes('"') ? `"${s}"` : !s.includes("'") ? `'${s}'`
    : `concat("${s.split('"').join(`", '"', "`)}")`;
  // Uniqueness is checked with the CSS twin of each XPath (same elements, found
  // natively): evaluating XPath over a large document per field would cost more
  // than everything else here.
  const cssq = (v) => '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ') + '"';
  const only = (root, css, el) => { const found = root.querySelectorAll(css); return found.length === 1 && found[0] === el; };
  const positional = (el, scopeXp, scopeEl) => {
    const tag = el.localName;
    const scope = scopeEl && scopeEl.contains(el) ? scopeEl : document;
    const all = Array.from(scope.getElementsByTagName(tag));
    const prefix = scope === document ? '' : scopeXp;
    return `(${prefix}//${tag})[${all.indexOf(el) + 1}]`;
  };
  // Attributes a page keeps stable for its own tests and for assistive technology: a
  // nameless field or a plain container is better named by one than by its position,
  // which the next banner or list item the page inserts shifts.
  const STABLE = ['data-testid', 'data-test', 'data-qa', 'data-cy', 'aria-label', 'placeholder', 'title'];
  const byStable = (el, scope) => {  // the XPath of the first such attribute unique in scope
    for (const attr of STABLE) {
      const v = el.getAttribute(attr);
      if (v && v.length <= 80 && only(scope, `${el.localName}[${attr}=${cssq(v)}]`, el)) {
        return `//${el.localName}[@${attr}=${xq(v)}]`;
      }
    }
    return null;
  };
  const elementXp = (el, scopeXp, scopeEl) => {
    const tag = el.localName;
    const name = el.getAttribute('name');
    const inScope = scopeEl && scopeEl.contains(el);
    let css = name ? `${tag}[name=${cssq(name)}]` : '';
    let xp = name ? `//${tag}[@name=${xq(name)}]` : '';
    if (name && (el.type === 'radio' || el.type === 'checkbox') && el.hasAttribute('value')) {
      css += `[value=${cssq(el.getAttribute('value'))}]`;
      xp += `[@value=${xq(el.getAttribute('value'))}]`;
    }
    if (name && inScope && only(scopeEl, css, el)) return scopeXp + xp;
    if (ownId(el) && only(document, `[id=${cssq(ownId(el))}]`, el)) return `//*[@id=${xq(ownId(el))}]`;
    if (name && !inScope && only(document, css, el)) return xp;
    const stable = inScope ? byStable(el, scopeEl) : null;
    if (stable) return scopeXp + stable;
    return byStable(el, document) || positional(el, scopeXp, scopeEl);
  };
  const formXp = (form, i) => {
    const id = ownId(form);
    if (id && only(document, `form[id=${cssq(id)}]`, form)) return `//form[@id=${xq(id)}]`;
    const name = form.getAttribute('name');
    if (name && only(document, `form[name=${cssq(name)}]`, form)) return `//form[@name=${xq(name)}]`;
    return byStable(form, document) || `(//form)[${i + 1}]`;
  };

  // ---- open shadow roots (web components): a form or a search panel in one is the
  // page's too, though document-wide queries, XPath and contains() stop at its edge. An
  // element inside one is named by Playwright CSS, which pierces them: its host's
  // selector, then its own within the host ("css=book-search >> css=input[name=q]").
  const shadowRoots = [];
  const findRoots = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el; el = walker.nextNode()) {
      if (el.shadowRoot) { shadowRoots.push(el.shadowRoot); findRoots(el.shadowRoot); }
    }
  };
  findRoots(document);
  const everywhere = (css) => shadowRoots.reduce((all, r) => all.concat(Array.from(r.querySelectorAll(css))),
    Array.from(document.querySelectorAll(css)));
  const up = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const holds = (c, el) => { for (let n = el; n; n = up(n)) if (n === c) return true; return false; };
  const shadowed = (el) => el.getRootNode() !== document;
  const byId = (el, id) => (el.getRootNode().getElementById ? el.getRootNode() : document).getElementById(id);
  const cssIn = (el) => {  // unique within el's own root
    const root = el.getRootNode(), tag = el.localName;
    if (ownId(el) && only(root, `[id=${cssq(ownId(el))}]`, el)) return `${tag}[id=${cssq(ownId(el))}]`;
    const name = el.getAttribute('name');
    if (name) {
      let css = `${tag}[name=${cssq(name)}]`;
      if ((el.type === 'radio' || el.type === 'checkbox') && el.hasAttribute('value')) {
        css += `[value=${cssq(el.getAttribute('value'))}]`;
      }
      if (only(root, css, el)) return css;
    }
    if (only(root, tag, el)) return tag;  // a custom element is often the page's only one
    const parts = [];
    for (let n = el; n; n = n.parentElement) {
      let i = 1;
      for (let sib = n.previousElementSibling; sib; sib = sib.previousElementSibling) if (sib.localName === n.localName) i++;
      parts.unshift(`${n.localName}:nth-of-type(${i})`);
    }
    return parts.join(' > ');
  };
  const pierce = (el) => {
    const parts = [];
    for (let n = el; n; n = shadowed(n) ? n.getRootNode().host : null) parts.unshift('css=' + cssIn(n));
    return parts.join(' >> ');
  };
  // fxp: the XPath of the element's form (or virtual container), '' for none or one in a shadow root
  const selectorOf = (el, fxp, scopeEl) => (shadowed(el) ? pierce(el)
    : 'xpath=' + elementXp(el, fxp, fxp ? scopeEl : null));

  // ---- visible text runs: consecutive inline text with no control, break or block between
  const SKIP = 'script,style,noscript,template,select,option,optgroup,textarea,button,datalist,svg,canvas,iframe,object';
  const BREAKERS = new Set(['input', 'select', 'textarea', 'button', 'br', 'img', 'hr', 'label', 'iframe', 'object',
    'svg', 'canvas', 'meter', 'progress']);
  const styleCache = new Map();
  const displayOf = (el) => {
    let d = styleCache.get(el);
    if (d === undefined) { d = getComputedStyle(el).display; styleCache.set(el, d); }
    return d;
  };
  const isInline = (el) => { const d = displayOf(el); return d === 'inline' || d === 'contents'; };
  // Where texts can matter: around each form's controls, and inside labels and
  // aria-referenced elements of form controls (wherever they are). A subtree far from
  // all of these is skipped whole: a long page costs little more than a short one.
  const formsArr = Array.from(document.forms).concat(...shadowRoots.map((r) => Array.from(r.querySelectorAll('form'))));
  // ---- controls outside every form. An app's search panel is often plain <div>s with a
  // button (or only Enter) that runs a script. Each such control belongs to its nearest
  // ancestor that also holds a button outside every form (the whole body when none
  // does); a group is a form of its own ("virtual") when it has a text field: a select
  // alone outside a form is a jump menu or a sort order, not a search.
  const BUTTONISH = 'button,input[type=submit],input[type=button],input[type=image],[role=button]';
  const outside = (el) => !el.form && !el.closest('form');
  const looseButtons = everywhere(BUTTONISH).filter(outside);
  const holdsButton = new Map();
  const hasButton = (c) => {
    let v = holdsButton.get(c);
    if (v === undefined) { v = looseButtons.some((b) => holds(c, b) && shown(b)); holdsButton.set(c, v); }
    return v;
  };
  // ---- a <select> a script replaced by a widget of its own (Select2, Chosen, Nice Select,
  // bootstrap-select, Choices) is hidden, shrunk to a pixel or transparent; the widget
  // drawn in its place is what a person sees and points at. The select takes the
  // widget's box, and the widget's texts (the option shown, its list) and controls (its
  // search box) are the select's, not the page's. The widget: the element right after
  // the select, else a box the select opens; compact, holding no other control the form
  // sends, and either a popup's (combobox, listbox) or showing the option chosen.
  const POPUP = '[role=combobox],[role=listbox],[aria-haspopup]';
  const widgetOf = (el) => {
    const candidates = [el.nextElementSibling];
    for (let n = el; n.parentElement && n.parentElement.firstElementChild === n && candidates.length < 3;) {
      n = n.parentElement;
      candidates.push(n);
    }
    const chosen = el.options[el.selectedIndex];
    const current = chosen ? clean(chosen.textContent) : '';
    return candidates.find((w) => w && shown(w) && w.getBoundingClientRect().height <= 120
      && !w.matches('input,select,textarea,label,button[type=submit]')
      && (w.matches(POPUP) || w.querySelector(POPUP) || (current && clean(w.textContent).includes(current)))
      && !Array.from(w.querySelectorAll('input,select,textarea')).some((c) => c !== el && c.name)) || null;
  };
  const widgets = new Map();
  for (const el of everywhere('select')) {
    const w = shown(el) ? null : widgetOf(el);
    if (w) widgets.set(el, w);
  }
  const inWidget = (el) => {
    if (!widgets.size || widgets.has(el)) return false;
    for (const w of widgets.values()) if (w.contains(el)) return true;
    return false;
  };
  const widgetEls = new Set(widgets.values());
  const groups = new Map();
  const body = document.body || document.documentElement;
  for (const el of everywhere('input,select,textarea')) {
    if (inWidget(el)) continue;
    if (!outside(el) || ['hidden', 'submit', 'button', 'image', 'reset', 'file']
      .includes((el.getAttribute('type') || '').toLowerCase())) continue;
    let c = up(el);
    while (c && c !== body && !hasButton(c)) c = up(c);
    c = c || body;
    if (!groups.has(c)) groups.set(c, []);
    groups.get(c).push(el);
  }
  const TEXTY = new Set(['text', 'search', 'email', 'number', 'tel', 'url', '']);
  const virtuals = Array.from(groups.entries()).filter(([, els]) => els.some((el) => shown(el) && (
    el.localName === 'textarea' || (el.localName === 'input' && TEXTY.has((el.getAttribute('type') || '').toLowerCase())))))
    .slice(0, options && options.maxVirtual ? options.maxVirtual : 20)
    .map(([container, els]) => {
      const buttons = looseButtons.filter((b) => holds(container, b));
      const controls = els.concat(buttons)
        .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
      return {container, controls};
    });
  const hosts = formsArr.map((form) => ({el: form, controls: Array.from(formGet(form, 'elements'))}))
    .concat(virtuals.map((v) => ({el: v.container, controls: v.controls})));
  const nearBoxes = [];
  const boundEls = new Set();
  for (const {el: form, controls} of hosts) {
    let b = null;
    for (const el of controls) {
      if (el.type === 'hidden') continue;
      for (const l of el.labels || []) boundEls.add(l);
      for (const attr of ['aria-labelledby', 'aria-describedby']) {
        for (const id of (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean)) {
          const ref = byId(el, id);
          if (ref) boundEls.add(ref);
        }
      }
      const r = (widgets.get(el) || el).getBoundingClientRect();
      if (r.width > 0 && r.height > 0) b = union(b, box(r));
    }
    const em = parseFloat(getComputedStyle(form).fontSize) || 16;
    if (b) nearBoxes.push({x: b.x - marginEm[0] * em, y: b.y - marginEm[1] * em,
      width: b.width + 2 * marginEm[0] * em, height: b.height + 2 * marginEm[1] * em});
  }
  const farAway = (el) => {
    if (el.closest('form') || hosts.some((h) => el.contains(h.el))) return false;
    for (const b of boundEls) if (el.contains(b) || b.contains(el)) return false;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false; // display: contents, or an empty box
    const eb = box(r);
    return !nearBoxes.some((nb) => gap(nb, eb) === 0);
  };
  const runs = [];
  const runOfNode = new Map();
  let current = null;
  // the document's texts, then each shadow root's (a walker does not go inside them)
  const walkTexts = (root) => {
    const walker = document.createTreeWalker(root,
      NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
        acceptNode: (n) => {
          if (n.nodeType !== 1) return NodeFilter.FILTER_ACCEPT;
          if (widgetEls.has(n)) { current = null; return NodeFilter.FILTER_REJECT; }
          if (n.matches(SKIP)) {
            if (BREAKERS.has(n.localName)) current = null; // a skipped control still splits the text around it
            return NodeFilter.FILTER_REJECT;
          }
          if (farAway(n)) { current = null; return NodeFilter.FILTER_REJECT; }
          return NodeFilter.FILTER_ACCEPT;
        },
      });
    current = null;
    let lastText = null;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 1) {
        // a control, a break or any non-inline box ends the run (so does leaving one: see below)
        if (BREAKERS.has(n.localName) || !isInline(n)) current = null;
        continue;
      }
      const raw = n.data;
      if (!raw || !raw.trim()) continue;
      const parent = n.parentElement;
      if (!parent) continue;
      // leaving a block between two texts also ends the run: their nearest block differs
      if (current && lastText) {
        let a = lastText.parentElement, b = parent;
        while (a && isInline(a) && a.localName !== 'label') a = a.parentElement;
        while (b && isInline(b) && b.localName !== 'label') b = b.parentElement;
        if (a !== b) current = null;
      }
      lastText = n;
      if (!shown(parent)) { current = null; continue; }
      const range = document.createRange();
      range.selectNodeContents(n);
      let r = null;
      for (const rect of range.getClientRects()) {
        if (rect.width > 0 && rect.height > 0) r = union(r, box(rect));
      }
      if (!r || r.width < 2 || r.height < 2) { current = null; continue; }
      if (!current) {
        current = {nodes: [], text: '', box: null, fontSize: parseFloat(getComputedStyle(parent).fontSize) || 16};
        runs.push(current);
      }
      current.nodes.push(n);
      current.text += raw;
      current.box = union(current.box, r);
      runOfNode.set(n, current);
    }
  };
  for (const root of [document.body || document.documentElement, ...shadowRoots]) walkTexts(root);

  // the single text of a table cell (with no control in it) takes the cell's box
  const cellRuns = new Map();
  for (const run of runs) {
    const td = run.nodes[0].parentElement.closest('td,th');
    run.td = td && run.nodes.every((n) => n.parentElement.closest('td,th') === td) ? td : null;
    const key = run.nodes[0].parentElement.closest('td,th');
    if (key) cellRuns.set(key, (cellRuns.get(key) || 0) + 1);
  }
  for (const run of runs) {
    if (run.td && cellRuns.get(run.td) === 1 && !run.td.querySelector('input,select,textarea,button')) {
      const r = run.td.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) { run.box = box(r); run.cell = true; }
    }
  }

  const formIndex = new Map(formsArr.map((f, i) => [f, i]));
  const runsIn = (el) => {
    // the runs whose text lies inside el, in order, without repeats
    const found = [];
    if (!el) return found;
    const tw = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = tw.nextNode(); t; t = tw.nextNode()) {
      const run = runOfNode.get(t);
      if (run && !found.includes(run)) found.push(run);
    }
    return found;
  };
  const idRefs = (el, attr) => (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean)
    .map((id) => byId(el, id)).filter(Boolean);

  // ---- forms and their controls
  const TEXTLIKE = new Set(['text', 'search', 'email', 'number', 'tel', 'url', 'date', 'month', 'week', 'time',
    'datetime-local', 'password', '']);
  const boundRuns = new Set();
  const forms = [];
  const containerXp = (el) => {
    if (shadowed(el)) return '';
    if (el === document.body) return '/html/body';
    if (ownId(el) && only(document, `[id=${cssq(ownId(el))}]`, el)) return `//*[@id=${xq(ownId(el))}]`;
    return byStable(el, document) || positional(el, '', null);
  };
  // A form none of whose fields shows (a login in a closed modal, a collapsed panel whose
  // toggle button alone shows) is still a form of the page: its fields are read from
  // their markup alone, boxless, and the form is marked hidden. Buttons do not count.
  const NOT_FIELDS = new Set(['hidden', 'reset', 'file', 'submit', 'button', 'image']);
  const isField = (el) => ['input', 'select', 'textarea'].includes(el.localName)
    && !NOT_FIELDS.has((el.getAttribute('type') || '').toLowerCase());
  const hiddenForm = (controls) => controls.some(isField) && !controls.some((el) => isField(el)
    && (shown(el) || widgets.has(el) || Array.from(el.labels || []).some(shown)));
  // The heading a form sits under: the nearest h1-h6 or legend before it, within a few
  // ancestors and a few siblings, or the first one inside it ("Forgot your password?",
  // "Newsletter"). Words of a section, not of a field.
  const HEADINGS = 'h1,h2,h3,h4,h5,h6,legend,[role=heading]';
  const headingOf = (form) => {
    const own = form.querySelector(HEADINGS);
    if (own) return clean(own.textContent).slice(0, 120);
    let n = form;
    for (let up = 0; up < 4 && n && n !== body; up++, n = n.parentElement) {
      let sib = n.previousElementSibling;
      for (let k = 0; k < 3 && sib; k++, sib = sib.previousElementSibling) {
        if (sib.matches(HEADINGS)) return clean(sib.textContent).slice(0, 120);
        // a section of its own (its heading heads it), a block of text or another form's
        // part: what it is headed by is not this form's
        if (sib.matches('main,article,section,aside,nav,table,ul,ol') || sib.querySelector('input,select,textarea,form')
          || clean(sib.textContent).length > 200) return '';
        const inner = sib.querySelectorAll(HEADINGS);
        if (inner.length) return clean(inner[inner.length - 1].textContent).slice(0, 120);
      }
    }
    return '';
  };
  const readForm = (form, fi, fxp, controls, virtual) => {
    const fields = [], submits = [];
    let controlsBox = null;
    const hidden = !virtual && hiddenForm(controls);
    for (const el of controls) {
      const tag = el.localName;
      const type = (tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase()
        : tag === 'select' ? (el.multiple ? 'select-multiple' : 'select-one') : tag === 'button'
          ? (el.getAttribute('type') || 'submit').toLowerCase() : tag);
      if (tag === 'fieldset' || tag === 'output' || tag === 'object') continue;
      if (type === 'hidden' || type === 'reset' || type === 'file' || inWidget(el)) continue;
      const isSubmit = (tag === 'input' && (type === 'submit' || type === 'image' || type === 'button')) || tag === 'button'
        || (virtual && el.getAttribute('role') === 'button');
      const checkable = type === 'radio' || type === 'checkbox';
      let visible = shown(el);
      let r = visible ? box(el.getBoundingClientRect()) : null;
      const labels = Array.from(el.labels || []);
      if (!visible && checkable) {
        // a styled radio/checkbox hides the input and shows its label instead
        const shownLabel = labels.find((l) => shown(l));
        if (shownLabel) { visible = true; r = box(shownLabel.getBoundingClientRect()); }
      }
      if (!visible && widgets.has(el)) { visible = true; r = box(widgets.get(el).getBoundingClientRect()); }
      // A choice box a script shows on a click (a dropdown of checkboxes) is still the
      // form's: read from its markup, marked hidden. A hidden box for words is left out: a
      // trap for robots, or a widget's own state.
      if (!visible && !hidden && !(checkable || tag === 'select')) continue;
      if (visible) controlsBox = union(controlsBox, r);
      const selector = selectorOf(el, fxp, form);
      if (isSubmit) {
        // an icon button names itself in aria-label or title only
        const text = clean((tag === 'input' ? el.value || el.getAttribute('alt') : el.innerText || el.textContent)
          || el.getAttribute('aria-label') || el.getAttribute('title') || (type === 'image' ? el.getAttribute('src') : ''));
        submits.push({type: type === 'image' ? 'image' : type === 'button' ? 'button' : 'submit', tag, text,
          name: el.getAttribute('name') || '', selector, box: r});
        continue;
      }
      if (!(checkable || tag === 'select' || tag === 'textarea' || (tag === 'input' && TEXTLIKE.has(type)))) continue;
      const labelRuns = [];
      for (const l of labels) for (const run of runsIn(l)) {
        // a wrapping label also holds other controls' texts only in odd markup; keep what is its own
        if (!labelRuns.includes(run)) labelRuns.push(run);
      }
      const labelledby = idRefs(el, 'aria-labelledby');
      const describedby = idRefs(el, 'aria-describedby');
      const lbRuns = labelledby.flatMap(runsIn), dbRuns = describedby.flatMap(runsIn);
      for (const run of [...labelRuns, ...lbRuns, ...dbRuns]) boundRuns.add(run);
      let prompt = '';
      if (tag === 'select' && !el.multiple) {
        const opt = el.options[el.selectedIndex];
        if (opt && opt.value === '') prompt = clean(opt.textContent);
      }
      // a legend (or aria group label) describing this field alone
      let legendRuns = [], legendText = '', section = '';
      const group = el.closest('fieldset,[role=radiogroup],[role=group]');
      if (group) {
        const members = Array.from(group.querySelectorAll('input,select,textarea'))
          .filter((c) => !['hidden', 'submit', 'image', 'button', 'reset'].includes((c.type || '').toLowerCase()));
        const key = (c) => (c.type === 'radio' || c.type === 'checkbox') && c.name ? 'g:' + c.name : c;
        const mine = key(el);
        const own = members.every((c) => key(c) === mine);
        const sectionLegend = !own && group.localName === 'fieldset' ? group.querySelector(':scope > legend') : null;
        if (sectionLegend) section = clean(sectionLegend.textContent);
        if (own) {
          const legendEl = group.localName === 'fieldset' ? group.querySelector(':scope > legend') : null;
          const groupLabels = legendEl ? [legendEl] : idRefs(group, 'aria-labelledby');
          legendRuns = groupLabels.flatMap(runsIn);
          legendText = clean(groupLabels.map((g) => g.textContent).join(' ') || group.getAttribute('aria-label'));
          for (const run of legendRuns) boundRuns.add(run);
        }
      }
      const markup = {
        labelRuns, lbRuns, dbRuns, legendRuns,
        labels: [...labels, ...labelledby].map((l) => clean(l.textContent)).filter(Boolean),
        legend: legendText,
        section,
        aria_label: clean(el.getAttribute('aria-label')),
        placeholder: clean(el.getAttribute('placeholder')),
        title: clean(el.getAttribute('title')),
        autocomplete: clean(el.getAttribute('autocomplete')).slice(0, 80),
        prompt,
      };
      const field = {
        tag, type, name: el.getAttribute('name') || '', id: el.id || '', selector, box: r,
        value: checkable ? (el.hasAttribute('value') ? el.getAttribute('value') : 'on') : '',
        checked: checkable ? el.checked : false,
        multiple: !!el.multiple, required: !!el.required, disabled: !!el.disabled, markup, options: [],
      };
      if (tag === 'select') {
        field.options = Array.from(el.options).map((o) => ({
          value: o.value, label: clean(o.label || o.textContent), selected: o.selected, disabled: o.disabled,
        }));
      }
      fields.push(field);
    }
    const reach = parseFloat(getComputedStyle(form).fontSize) || 16;
    // a virtual form's buttons count only near its fields: its container may be the body
    const fieldsBox = fields.reduce((acc, f) => union(acc, f.box), null);
    const near = (b) => !virtual || (fieldsBox && gap(fieldsBox, b) <= anchorReach);
    // CAPTCHA widgets a person must answer to send the form (deepbot/challenge.py); an
    // invisible one (a badge, a sitekey on the button) only scores the visit.
    const challenge = [];
    for (const w of (check ? (virtual ? everywhere(check.widgets) : form.querySelectorAll(check.widgets)) : [])) {
      if (challenge.length >= 4 || !w.checkVisibility() || /size=invisible/.test(w.getAttribute('src') || '')
        || w.closest(check.invisible)) continue;
      if (virtual && !near(box(w.getBoundingClientRect()))) continue;
      challenge.push(clean(`${w.localName} ${w.getAttribute('class') || ''} ${w.id} ${w.getAttribute('src') || ''}`).slice(0, 200));
    }
    forms.push({
      index: fi, selector: fxp ? 'xpath=' + fxp : pierce(form), xp: fxp, virtual,
      action: virtual ? location.href : formGet(form, 'action') || location.href,
      method: virtual ? 'get' : (form.getAttribute('method') || 'get').toLowerCase(),
      name: virtual ? '' : form.getAttribute('name') || '', id: ownId(form) || '', box: controlsBox, fields, hidden,
      classes: clean(form.getAttribute('class')).slice(0, 200), heading: headingOf(form),
      declared_action: virtual ? '' : clean(form.getAttribute('action')).slice(0, 300),
      submits: submits.filter((sb) => near(sb.box)).map((sb) => ({...sb, distance: virtual ? gap(fieldsBox, sb.box) : 0})),
      near: controlsBox ? {x: controlsBox.x - marginEm[0] * reach, y: controlsBox.y - marginEm[1] * reach,
        width: controlsBox.width + 2 * marginEm[0] * reach, height: controlsBox.height + 2 * marginEm[1] * reach} : null,
      el: form, challenge,
    });
  };
  formsArr.forEach((form, fi) => {
    // form.elements leaves out <input type=image> (HTML spec), yet it submits the form.
    const images = Array.from(form.getRootNode().querySelectorAll('input[type=image]')).filter((el) => el.form === form);
    const controls = Array.from(formGet(form, 'elements')).concat(images)
      .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    readForm(form, fi, shadowed(form) ? '' : formXp(form, fi), controls, false);
  });
  virtuals.forEach(({container, controls}, k) => {
    readForm(container, formsArr.length + k, containerXp(container), controls, true);
  });

  // ---- texts worth keeping: inside a form, near one, or bound to a field by markup
  const kept = [];
  const idOf = new Map();
  for (const run of runs) {
    const holder = run.nodes[0].parentElement.closest('form');
    const fi = holder ? formIndex.get(holder) : undefined;
    const near = forms.some((f) => f.near && gap(f.near, run.box) === 0);
    if (fi === undefined && !near && !boundRuns.has(run)) continue;
    // a link's text names where it goes, not a field, and a toggle's ("More options", a
    // summary) what it opens: leave them out (unless markup binds them)
    if (!boundRuns.has(run) && run.nodes.every((n) => n.parentElement.closest(TOGGLES))) continue;
    idOf.set(run, kept.length);
    kept.push({id: kept.length, text: clean(run.text), box: run.box, font_size: run.fontSize,
      form: fi === undefined ? null : fi, cell: !!run.cell,
      heading: !!run.nodes[0].parentElement.closest('h1,h2,h3,h4,h5,h6,caption,legend')});
  }
  const ids = (rs) => rs.map((r) => idOf.get(r)).filter((i) => i !== undefined);

  // ---- anchors with script near each form (a way to submit when there is no button);
  // not a toggle the panels stage opened (panels.js marks them)
  const scripted = everywhere('a[href], [onclick]').filter((a) => {
    const href = a.getAttribute('href') || '';
    if (a.matches('input,select,textarea,button,form,[data-deepbot-opened]')) return false;
    return /^\s*javascript:/i.test(href) || a.hasAttribute('onclick');
  }).filter(shown);

  const result = {
    url: location.href,
    title: document.title,
    texts: kept,
    forms: forms.map((f) => {
      const anchors = [];
      if (f.box) {
        for (const a of scripted) {
          const r = box(a.getBoundingClientRect());
          const d = f.el.contains(a) && !f.virtual ? 0 : gap(f.box, r);
          if (d > anchorReach) continue;
          anchors.push({text: clean(a.innerText || a.getAttribute('title') || a.getAttribute('alt') || ''),
            href: a.getAttribute('href') || '', onclick: a.hasAttribute('onclick'),
            selector: selectorOf(a, f.xp, f.el), box: r, distance: d});
        }
        anchors.sort((a, b) => a.distance - b.distance);
      }
      return {
        index: f.index, selector: f.selector, virtual: f.virtual, action: f.action, method: f.method,
        name: f.name, id: f.id, challenge: f.challenge, hidden: f.hidden, classes: f.classes, heading: f.heading,
        declared_action: f.declared_action,
        box: f.box, submits: f.submits, anchors,
        fields: f.fields.map((fd) => {
          const m = fd.markup;
          return {...fd, markup: {
            label_ids: ids(m.labelRuns), labelledby_ids: ids(m.lbRuns), describedby_ids: ids(m.dbRuns),
            legend_ids: ids(m.legendRuns), labels: m.labels, legend: m.legend, section: m.section,
            aria_label: m.aria_label, autocomplete: m.autocomplete,
            placeholder: m.placeholder, title: m.title, prompt: m.prompt,
          }};
        }),
      };
    }),
  };
  result.elapsed_ms = performance.now() - started; // in-page work, without the round trip
  // One JSON string, not a tree of values, as the crawl's harvest returns: Playwright
  // converts a returned object node by node, and a form's options and the page's texts
  // make thousands of nodes (60-150 ms on a page whose extraction takes 10). A number
  // JSON cannot say (NaN, Infinity) is 0. Old libraries (Prototype.js) patch toJSON and
  // break JSON.stringify: then the object itself is returned.
  const sane = JSON.stringify({ a: ['x'] }) === '{"a":["x"]}';
  return sane ? JSON.stringify(result, (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? 0 : v)) : result;
}
