// DeepBot: the rows of a filter builder ("Add filter ▾" → Title / Author / Year), which a
// person adds one at a time: choosing an entry of the "Add filter" select, or clicking it in
// the menu an "Add filter" toggle opens, makes the page add a row of [label] [operator ▾]
// [value] to a form. The page shows none of those rows until then, so their fields cannot be
// read from the page as it loads. Each entry is tried here, as a person would try it, and the
// row it adds is read, then taken out again (the page is left as it was for the extraction).
//
// Returns one item per entry that added a value control to a form:
// {form, entry, steps, value: {...field}, operator: {selector, label} | null}, where steps
// are what a person does to add the row ({kind: 'click'|'select', selector, value}) and
// value.selector finds the row's value control again in a fresh page once the row is added
// (by its own stable id, or as the last row of its container: rows are appended).
async () => {
  const CONTROLS = 'input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=image]):not([type=reset])' +
    ':not([type=file]),select,textarea';
  // What an "add a row" control says: "Add filter", "+ Add condition", "Add criteria", "Filter by…".
  const ADD = /\badd(ing)?\s+(an?\s+|new\s+|another\s+|more\s+)?(filters?|criteri(a|on)|conditions?|rules?)\b|^\W*\+\s*(filters?|conditions?|criteri)|\bfilter\s+by\b|\bnew\s+filter\b|\bajouter\s+(un\s+)?filtre|\bfilter\s+hinzuf/i;
  const OPERATOR = /^\s*(=|==|!=|<>|<|>|≤|≥|<=|>=|is|is not|equals?|not equals?|not equal|contains?|not contains?|does not contain|doesn't contain|starts? with|begins? with|ends? with|like|not like|in|not in|in list|not in list|matches|has|includes?|empty|not empty|is empty|any|none|all|between|greater than|smaller than|less than|before|after|on)\s*$/i;
  const shown = (el) => el.checkVisibility() && el.getBoundingClientRect().width > 1;
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const text = (el) => clean(el.innerText || el.textContent || el.getAttribute('aria-label') || el.getAttribute('title'));
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const frames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const q = (s) => (!s.includes('"') ? `"${s}"` : `'${s}'`);
  const quotable = (s) => !s.includes('"') || !s.includes("'");
  const count = (xp) => document.evaluate(`count(${xp})`, document, null, XPathResult.NUMBER_TYPE, null).numberValue;
  const inPlace = (el) => {  // a control that does not navigate: what adds a row stays on the page
    if (el.localName === 'button') return (el.getAttribute('type') || 'submit').toLowerCase() === 'button' || !el.form;
    if (el.localName === 'a') {
      const href = (el.getAttribute('href') || '').trim();
      return !href || href.startsWith('#') || /^javascript:/i.test(href);
    }
    return true;
  };
  // A stable XPath: an element's own unique id, else its position under the nearest ancestor
  // with one (or a named form), else in the document.
  const idXp = (el) => (el.id && quotable(el.id) && count(`//*[@id=${q(el.id)}]`) === 1 ? `//*[@id=${q(el.id)}]` : null);
  const anchorOf = (el) => {
    for (let n = el.parentElement; n && n !== document.body; n = n.parentElement) {
      const own = idXp(n);
      if (own) return [n, own];
      const name = n.localName === 'form' && n.getAttribute('name');
      if (name && quotable(name) && count(`//form[@name=${q(name)}]`) === 1) return [n, `//form[@name=${q(name)}]`];
    }
    return [document, ''];
  };
  const xpathOf = (el) => {
    const own = idXp(el);
    if (own) return own;
    const [anchor, axp] = anchorOf(el);
    const all = [...anchor.getElementsByTagName(el.localName)];
    return `(${axp}//${el.localName})[${all.indexOf(el) + 1}]`;
  };
  // What to click: found by its words where they are unique (a menu's entry), else by position.
  const clickable = (el) => {
    const own = idXp(el);
    if (own) return 'xpath=' + own;
    const words = text(el);
    if (words && quotable(words)) {
      const xp = `//${el.localName}[normalize-space(.)=${q(words)}]`;
      if (count(xp) === 1) return 'xpath=' + xp;
    }
    return 'xpath=' + xpathOf(el);
  };
  // A menu's entry: by its words, within the menu where the page repeats them (a column "Title").
  const inMenu = (menu, el) => {
    const words = text(el);
    if (idXp(el) || !words || !quotable(words)) return clickable(el);
    const own = `//${el.localName}[normalize-space(.)=${q(words)}]`;
    if (count(own) === 1) return 'xpath=' + own;
    const scoped = `${xpathOf(menu)}${own}`;
    return count(scoped) === 1 ? 'xpath=' + scoped : clickable(el);
  };
  const isOperator = (el) => el.localName === 'select'
    && [...el.options].filter((o) => OPERATOR.test(clean(o.label || o.textContent))).length >= Math.min(3, el.options.length)
    && el.options.length >= 2;
  const widgetShown = (el) => {  // a select a script hid behind its own widget (select2, Chosen)
    const next = el.nextElementSibling;
    return !!next && shown(next) && /select2|chosen|choices|nice-select|selectize/i.test(next.className || '');
  };

  // ---- the adders: "Add filter" selects, and menus an "Add filter" toggle opens
  const adders = [];
  for (const s of document.querySelectorAll('select')) {
    if (s.multiple || !(shown(s) || widgetShown(s)) || s.disabled) continue;
    const first = s.options[0];
    const said = [...(s.labels || [])].map(text);
    said.push(clean(s.getAttribute('aria-label')), clean(s.getAttribute('title')), clean(s.id).replace(/[_-]+/g, ' '),
      clean(s.getAttribute('name')).replace(/[_\-\[\]]+/g, ' '));
    if (first && !first.value) said.push(clean(first.label || first.textContent));
    if (!said.some((t) => ADD.test(t))) continue;
    const entries = [...s.options].filter((o) => o.value && !o.disabled && clean(o.label || o.textContent))
      .map((o) => ({text: clean(o.label || o.textContent), value: o.value}));
    if (entries.length) adders.push({kind: 'select', el: s, entries});
  }
  for (const t of document.querySelectorAll('a, button, [role=button]')) {
    if (!shown(t) || !inPlace(t) || !ADD.test(text(t)) || t.closest('select')) continue;
    const controls = t.getAttribute('aria-controls');
    const menus = [controls && document.getElementById(controls), t.nextElementSibling,
      t.parentElement && t.parentElement.querySelector('[role=menu], .dropdown-menu, ul, ol')].filter(Boolean);
    for (const menu of menus) {
      if (menu === t || menu.contains(t)) continue;
      const items = [...menu.querySelectorAll('a, button, [role=menuitem]')]
        .filter((i) => inPlace(i) && text(i) && !i.querySelector('a, button'));
      if (!items.length) continue;
      adders.push({kind: 'menu', el: t, menu, entries: items.map((i) => ({text: text(i), el: i}))});
      break;
    }
  }
  if (!adders.length) return [];

  // ---- try each entry: what row did it add?
  const rows = [];
  for (const adder of adders) {
    const toggle = adder.kind === 'menu' ? clickable(adder.el) : null;
    const chooser = adder.kind === 'select' ? 'xpath=' + xpathOf(adder.el) : null;
    for (const entry of adder.entries) {
      const before = new Set([...document.querySelectorAll(CONTROLS)].filter((c) => shown(c) || widgetShown(c)));
      const added = [];
      const observer = new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) added.push(n);
      });
      observer.observe(document.body, {childList: true, subtree: true});
      const steps = [];
      try {
        if (adder.kind === 'menu') {
          const where = inMenu(adder.menu, entry.el);  // before the menu opens: what it says is the same
          if (!shown(entry.el)) { adder.el.click(); await frames(); steps.push({kind: 'click', selector: toggle}); }
          entry.el.click();
          steps.push({kind: 'click', selector: where});
        } else {
          adder.el.value = entry.value;
          adder.el.dispatchEvent(new Event('input', {bubbles: true}));
          adder.el.dispatchEvent(new Event('change', {bubbles: true}));
          steps.push({kind: 'select', selector: chooser, value: entry.value});
        }
      } catch (e) { observer.disconnect(); continue; }
      let fresh = [];
      for (let waited = 0; waited < 1500 && !fresh.length; waited += 100) {
        await sleep(waited ? 100 : 0);
        await frames();
        fresh = [...document.querySelectorAll(CONTROLS)].filter((c) => !before.has(c) && (shown(c) || widgetShown(c)));
      }
      observer.disconnect();
      if (adder.kind === 'select') {  // the chooser goes back to its prompt, as the page's own script would
        adder.el.selectedIndex = 0;
      }
      if (!fresh.length) continue;
      // The row: the element the page added that holds the new controls; else (a row the page
      // kept hidden and showed) the row-like element around them.
      const roots = added.filter((n) => n.isConnected && fresh.some((c) => n.contains(c)));
      let row = roots.find((n) => !roots.some((m) => m !== n && m.contains(n))) || null;
      const appended = !!row;
      if (!row) row = fresh[0].closest('tr, li, [role=row], fieldset') || fresh[0].parentElement;
      const inRow = [...row.querySelectorAll(CONTROLS)];
      const operator = inRow.find(isOperator) || null;
      const value = inRow.find((c) => c !== operator && !isOperator(c) && c.type !== 'checkbox' && (shown(c) || widgetShown(c)));
      const form = value && value.form ? [...document.forms].indexOf(value.form) : -1;
      if (!value || form < 0) { if (appended) row.remove(); continue; }
      // Found again in a fresh page: by a stable id, or in the last row of its container.
      let selector = idXp(value);
      if (!selector && appended && row.parentElement && row.parentElement.lastElementChild === row) {
        const tag = value.localName;
        const k = [...row.getElementsByTagName(tag)].indexOf(value) + 1;
        selector = `(${xpathOf(row.parentElement)}/*[last()]//${tag})[${k}]`;
      }
      if (!selector) selector = xpathOf(value);
      const r = value.getBoundingClientRect();
      const visible = shown(value) ? value : value.nextElementSibling;
      const vr = visible.getBoundingClientRect();
      const type = value.localName === 'input' ? (value.getAttribute('type') || 'text').toLowerCase()
        : value.localName === 'select' ? (value.multiple ? 'select-multiple' : 'select-one') : value.localName;
      const opChosen = operator ? operator.options[operator.selectedIndex] : null;
      rows.push({
        form, entry: entry.text, steps,
        value: {
          tag: value.localName, type, name: value.getAttribute('name') || '', id: value.id || '',
          selector: 'xpath=' + selector, multiple: !!value.multiple, required: !!value.required,
          box: {x: vr.left + scrollX, y: vr.top + scrollY, width: vr.width || r.width, height: vr.height || r.height},
          placeholder: clean(value.getAttribute('placeholder')),
          options: value.localName === 'select' ? [...value.options].map((o) => ({
            value: o.value, label: clean(o.label || o.textContent), selected: o.selected, disabled: o.disabled,
          })) : [],
        },
        operator: operator ? {selector: 'xpath=' + xpathOf(operator), label: clean(opChosen ? opChosen.label : '')} : null,
      });
      // Taken out again: the page as it was (a row it showed stays; its fields are empty).
      if (appended) row.remove();
    }
    if (adder.kind === 'menu' && adder.entries.some((e) => shown(e.el))) { adder.el.click(); await frames(); }
    adder.el.setAttribute('data-deepbot-opened', '');  // for extract.js: a toggle, not a way to submit
    for (const entry of adder.entries) if (entry.el) entry.el.setAttribute('data-deepbot-opened', '');
  }
  return rows;
}
