// DeepBot: open what a form keeps folded, as a person would before filling it ("Advanced
// search ▾", "More options", a closed <details>), so its fields can be read. Returns,
// for each toggle that showed a hidden field, {form, selector, text}: the form's index
// in document.forms and a selector the crawl's NSEQL `click` can find it by.
async () => {
  const CONTROLS = 'input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=image]):not([type=reset]),' +
    'select,textarea';
  // What a toggle without markup says: advanced search, more options or fields, show all.
  const MORE = /advanced|more (search )?(options|fields|criteria|filters)|all (search )?(options|fields)|show (more|all)|refine|erweitert|avanzad|avancée|avançad/i;
  const shown = (el) => el.checkVisibility() && el.getBoundingClientRect().width > 1;
  const hiddenIn = (root) => [...root.querySelectorAll(CONTROLS)].filter((el) => !shown(el));
  const text = (el) => (el.innerText || el.textContent || el.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim();
  // A toggle that does not navigate: a button that submits nothing, a same-page link, a summary.
  const inPlace = (el) => {
    if (el.localName === 'summary') return true;
    if (el.localName === 'button') return (el.getAttribute('type') || 'submit').toLowerCase() === 'button' || !el.form;
    if (el.localName === 'a') {
      const href = (el.getAttribute('href') || '').trim();
      return !href || href.startsWith('#') || /^javascript:/i.test(href);
    }
    return el.getAttribute('role') === 'button' && !el.matches('input[type=submit],input[type=image]');
  };
  const q = (s) => (!s.includes('"') ? `"${s}"` : `'${s}'`);
  const unique = (css) => document.querySelectorAll(css).length === 1;
  const selectorOf = (el) => {
    if (el.id && unique(`#${CSS.escape(el.id)}`)) return `css=#${CSS.escape(el.id)}`;
    const controls = el.getAttribute('aria-controls');
    const byControls = controls && `[aria-controls="${CSS.escape(controls)}"]`;
    if (byControls && unique(byControls)) return `css=${byControls}`;
    const words = text(el);
    if (words && (!words.includes('"') || !words.includes("'"))) {
      const xp = `//${el.localName}[normalize-space(.)=${q(words)}]`;
      const found = document.evaluate(`count(${xp})`, document, null, XPathResult.NUMBER_TYPE, null).numberValue;
      if (found === 1) return `xpath=${xp}`;
    }
    const all = [...document.getElementsByTagName(el.localName)];
    return `xpath=(//${el.localName})[${all.indexOf(el) + 1}]`;
  };
  const frames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));

  const opened = [];
  const forms = [...document.forms];
  for (const [index, form] of forms.entries()) {
    let hidden = hiddenIn(form);
    if (!hidden.length) continue;
    const candidates = [];
    // A closed <details> in the form that holds fields: its summary.
    for (const d of form.querySelectorAll('details:not([open])')) {
      const summary = d.querySelector(':scope > summary');
      if (summary && d.querySelector(CONTROLS)) candidates.push(summary);
    }
    // A toggle that says what it shows (aria-expanded, aria-controls), in the form or not:
    // the panel it controls holds some of the form's hidden fields.
    for (const t of document.querySelectorAll('[aria-expanded=false][aria-controls]')) {
      const panels = t.getAttribute('aria-controls').split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean);
      if (panels.some((p) => hidden.some((el) => p.contains(el)))) candidates.push(t);
    }
    // Else a control in the form that only says so ("More options"), which must not navigate.
    if (!candidates.length) {
      for (const t of form.querySelectorAll('button, a, [role=button]')) {
        if (!t.matches('[aria-expanded=true]') && MORE.test(text(t))) candidates.push(t);
      }
    }
    for (const t of candidates) {
      if (!shown(t) || !inPlace(t) || opened.some((o) => o.el === t)) continue;
      const before = hidden.length, selector = selectorOf(t), label = text(t).slice(0, 80);  // before it changes
      t.click();
      await frames();
      hidden = hiddenIn(form);
      if (hidden.length < before) {
        t.setAttribute('data-deepbot-opened', '');  // for extract.js: a toggle, not a way to submit
        opened.push({el: t, form: index, selector, text: label});
      }
      if (!hidden.length) break;
    }
  }
  return opened.map(({form, selector, text}) => ({form, selector, text}));
}
