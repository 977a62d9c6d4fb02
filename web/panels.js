// panels.js: the page's summary table, the "collapse all" toggle and the
// args view of the details pane. Built from the core's JSON (core/ui/panel.h
// through core/app/app_summary.c and wasm/api.c); the state stays in C.
//
// Summary: a multi-selection (2+ events) is aggregated by name (count,
// total, self, avg, min, max); "Summarise view" does the same for every
// event in the visible window. The table is a snapshot kept in C: sorting
// re-sorts it there; a row click selects that name's events of the
// snapshot (click it again: the whole snapshot). Event names and args are
// untrusted: they reach the DOM through textContent only.

// ST_UI_* change bits (core/ui/ui.h)
const SELECTION = 1 << 3;
const LAYOUT = 1 << 11;
// st_agg_col (core/index/query.h), in table order
const COLS = [
  { key: 'name', label: 'Name', col: 0 },
  { key: 'count', label: 'Count', col: 1 },
  { key: 'total_ns', label: 'Total', col: 2 },
  { key: 'self_ns', label: 'Self', col: 3 },
  { key: 'avg_ns', label: 'Avg', col: 4 },
  { key: 'min_ns', label: 'Min', col: 5 },
  { key: 'max_ns', label: 'Max', col: 6 },
];
const MAX_ROWS = 500; // rows shown (the sort is over all names, in C)
const LONG_TEXT = 80; // strings longer than this (or multi-line) get a copy box

/** Formats ns like the core's st_format_dur: 4 significant digits, adaptive unit. */
// "1 improvement", "3 improvements": a count and its noun, singular for 1
// (fmt formats the number, e.g. fmtCount).
export function counted(n, one, many = `${one}s`, fmt = String) {
  return `${fmt(n)} ${Number(n) === 1 ? one : many}`;
}

export function fmtDur(ns) {
  ns = Number(ns);
  if (!Number.isFinite(ns)) ns = 0;
  const a = Math.abs(ns);
  const [unit, name] = a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
  const v = ns / unit;
  const av = Math.abs(v);
  const dec = unit > 1 ? (av >= 100 ? 1 : av >= 10 ? 2 : 3) : a !== Math.floor(a) ? 1 : 0;
  let s = v.toFixed(dec);
  if (dec > 0) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return `${s} ${name}`;
}

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/**
 * Wires the panels to the module. deps: {M, str (ptr -> string), fmtCount}.
 * Returns {onUi(bits, state), summary(), summarizeWindow(), renderArgs(el, res)}.
 */
export function createPanels({ M, str, fmtCount }) {
  const $ = (id) => document.getElementById(id);
  const pane = $('summary');
  const title = $('summary-title');
  const meta = $('summary-meta');
  const body = $('summary-body');
  const head = $('summary-head');
  const note = $('summary-note');
  const collapseBtn = $('collapse-all');
  const windowBtn = $('summarize-window');
  const canvas = $('canvas');

  let data = null; // the table shown: the JSON of st_wasm_summary_json, or null
  let sort = { col: 2, desc: true }; // total, largest first
  let active = null; // name_id of the row whose events are selected, or null
  let own = false; // a selection change we caused (row click): keep the table
  let windowLabel = '';

  const take = (window) => {
    const n = M._st_wasm_summary_take(window ? 1 : 0);
    active = null;
    if (n < 0) {
      data = null;
      return;
    }
    if (window) {
      const v = JSON.parse(str(M._st_wasm_view_json()));
      windowLabel = v ? fmtDur((v.end_us - v.start_us) * 1000) : '';
    }
    refresh();
  };

  const refresh = () => {
    data = JSON.parse(str(M._st_wasm_summary_json(sort.col, sort.desc ? 1 : 0, MAX_ROWS)));
    render();
  };

  const hide = () => {
    pane.hidden = true;
    data = null;
    active = null;
  };

  function render() {
    if (!data) {
      pane.hidden = true;
      return;
    }
    const win = data.source === 'window';
    title.textContent = win ? 'Visible window' : `${fmtCount(data.events)} events selected`;
    meta.textContent = win
      ? `${windowLabel} · ${fmtCount(data.events)} events · ${fmtCount(data.names)} name${data.names === 1 ? '' : 's'}`
      : `${fmtCount(data.names)} name${data.names === 1 ? '' : 's'}`;
    for (const th of head.querySelectorAll('th')) {
      const c = Number(th.dataset.col);
      th.setAttribute('aria-sort', c === sort.col ? (sort.desc ? 'descending' : 'ascending') : 'none');
    }
    const rows = data.rows.map((r) => {
      const tr = el('tr');
      tr.dataset.nameId = String(r.name_id);
      if (r.name_id === active) tr.classList.add('active');
      tr.title = 'Select these events (click again: all of the table)';
      const name = el('td', 'name', r.name || '(unnamed)');
      tr.append(name, el('td', 'num', fmtCount(r.count)));
      for (const k of ['total_ns', 'self_ns', 'avg_ns', 'min_ns', 'max_ns']) tr.append(el('td', 'num', fmtDur(r[k])));
      return tr;
    });
    body.replaceChildren(...rows);
    note.textContent = data.names > data.rows.length ? `showing ${fmtCount(data.rows.length)} of ${fmtCount(data.names)} names` : '';
    note.hidden = !note.textContent;
    pane.hidden = false;
  }

  // sortable headers: a click sorts by that column; again: the other way
  head.replaceChildren(
    ...COLS.map(({ label, col }) => {
      const th = el('th', col === 0 ? 'name' : 'num');
      th.dataset.col = String(col);
      th.scope = 'col';
      const b = el('button', null, label);
      b.type = 'button';
      th.append(b);
      return th;
    }),
  );
  head.addEventListener('click', (e) => {
    const th = e.target.closest('th');
    if (!th || !data) return;
    const c = Number(th.dataset.col);
    sort = c === sort.col ? { col: c, desc: !sort.desc } : { col: c, desc: c !== 0 };
    refresh();
  });
  body.addEventListener('click', (e) => {
    const tr = e.target.closest('tr');
    if (!tr || !data) return;
    const id = Number(tr.dataset.nameId);
    active = active === id ? null : id;
    own = true;
    try {
      M._st_wasm_summary_select(active === null ? -1 : id);
    } finally {
      own = false;
    }
    for (const r of body.children) r.classList.toggle('active', Number(r.dataset.nameId) === active);
  });
  $('summary-close').addEventListener('click', () => {
    hide();
    canvas.focus();
  });
  $('summary-refresh').addEventListener('click', () => {
    if (data) take(data.source === 'window');
  });
  windowBtn.addEventListener('click', () => {
    take(true);
    canvas.focus();
  });
  window.addEventListener('strata:loaded', hide); // a new trace: the snapshot is gone
  collapseBtn.addEventListener('click', () => {
    M._st_wasm_collapse_all();
    canvas.focus();
  });

  function onUi(bits, st) {
    if (bits & LAYOUT) {
      const all = !!st.all_collapsed;
      collapseBtn.textContent = all ? 'Expand all' : 'Collapse all';
      collapseBtn.setAttribute('aria-pressed', all ? 'true' : 'false');
    }
    if ((bits & SELECTION) && !own) {
      if (st.selected >= 2) take(false);
      else if (data && data.source === 'selection') hide();
      else if (data) {
        // the window table stays; a selection made elsewhere is not its row
        active = null;
        for (const r of body.children) r.classList.remove('active');
      }
    }
  }

  /** Renders {args, truncated} or {error} into container (details pane). */
  function renderArgs(container, res) {
    container.replaceChildren();
    if (!res || res.error) {
      container.append(el('div', 'args-note', `args: ${res ? res.error : 'none'}`));
      return;
    }
    const args = res.args;
    const bar = el('div', 'args-head');
    bar.append(el('span', null, 'args'));
    if (args && typeof args === 'object' && Object.keys(args).length) {
      bar.append(copyButton(() => JSON.stringify(args, null, 2), 'Copy all args as JSON'));
      container.append(bar, valueNode(args));
    } else {
      bar.append(el('span', 'args-empty', 'none'));
      container.append(bar);
    }
    if (res.truncated) container.append(el('div', 'args-note', '(cut short: the args are too large to show whole)'));
  }

  return {
    onUi,
    renderArgs,
    summarizeWindow: () => take(true),
    summary: () => (data ? JSON.parse(JSON.stringify(data)) : null),
  };
}

function copyButton(text, label) {
  const b = el('button', 'copy', 'Copy');
  b.type = 'button';
  b.title = label;
  b.setAttribute('aria-label', label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      b.textContent = 'Copied';
    } catch {
      b.textContent = 'Copy failed';
    }
    setTimeout(() => { b.textContent = 'Copy'; }, 1500);
  });
  return b;
}

// A JSON value as nested key/value tables; long strings in a monospace box
// with their own copy button.
function valueNode(v) {
  if (v !== null && typeof v === 'object') {
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    const t = el('table', 'kv');
    for (const [k, x] of entries) {
      const tr = el('tr');
      tr.append(el('th', null, k));
      const td = el('td');
      td.append(valueNode(x));
      tr.append(td);
      t.append(tr);
    }
    if (!entries.length) return el('span', 'args-empty', Array.isArray(v) ? '[]' : '{}');
    return t;
  }
  if (typeof v === 'string' && (v.length > LONG_TEXT || v.includes('\n'))) {
    const box = el('div', 'longtext');
    const pre = el('pre', null, v);
    box.append(copyButton(() => v, 'Copy this text'), pre);
    return box;
  }
  return el('span', typeof v === 'string' ? 'str' : 'lit', typeof v === 'string' ? v : JSON.stringify(v));
}
