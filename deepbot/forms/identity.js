// DeepBot: what each form of the page is, cheaply, before any analysis (forms/identity.py):
// for every <form> in document.forms order, then those in open shadow roots (the order
// extract.js numbers them in), its action and method as written and its fields' names,
// ids and types; and the same for the fields outside every form, when a text field is
// among them (what the Form Analyzer groups into virtual forms). Hidden and collapsed
// fields count: a form reads the same whether its "Advanced ▾" panel is open or not.
() => {
  const BUTTONS = new Set(['submit', 'button', 'reset', 'image']);
  const TEXTY = new Set(['text', 'search', 'email', 'number', 'tel', 'url', 'textarea']);
  // A field named "elements" or "action" shadows the form's own property: read them from
  // the prototype and the attributes.
  const elementsOf = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements').get;
  // A filter builder's row ([label] [operator ▾] [value], forms/filter_rows.py) is the query a
  // page shows, not the form: rows come and go as a person adds them (a results page shows
  // those of its query), and the form is the same.
  const OPERATOR = /^\s*(=|==|!=|<>|<|>|<=|>=|is|is not|equals?|not equal|contains?|not contains?|does not contain|doesn't contain|starts? with|ends? with|like|not like|in list|not in list|empty|any|none|greater than|smaller than|less than)\s*$/i;
  const isOperator = (el) => el.localName === 'select' && el.options.length >= 2
    && [...el.options].filter((o) => OPERATOR.test(o.label || o.textContent || '')).length >= Math.min(3, el.options.length);
  const inFilterRow = (el) => {
    const row = el.closest('tr, li, [role=row]');
    return !!row && [...row.querySelectorAll('select')].some(isOperator);
  };
  const fieldsOf = (els) => els
    .filter((el) => ['input', 'select', 'textarea'].includes(el.localName) && !BUTTONS.has(el.type))
    .filter((el) => !inFilterRow(el))
    .map((el) => [el.getAttribute('name') || '', el.id || '', el.type || el.localName]);
  const roots = [];
  const findRoots = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el; el = walker.nextNode()) {
      if (el.shadowRoot) { roots.push(el.shadowRoot); findRoots(el.shadowRoot); }
    }
  };
  findRoots(document);
  const forms = [...document.forms, ...roots.flatMap((r) => [...r.querySelectorAll('form')])];
  const all = [document, ...roots].flatMap((r) => [...r.querySelectorAll('input, select, textarea')]);
  const loose = fieldsOf(all.filter((el) => !el.form && !el.closest('form') && el.type !== 'hidden'));
  return {
    url: location.href,
    forms: forms.map((form) => ({
      action: new URL(form.getAttribute('action') || location.href, document.baseURI).href,
      method: (form.getAttribute('method') || 'get').toLowerCase(),
      fields: fieldsOf([...elementsOf.call(form)]),
    })),
    loose: loose.some(([, , type]) => TEXTY.has(type)) ? loose : null,
  };
}
