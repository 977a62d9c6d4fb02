// opstats.js: op statistics with distributions, the duration histogram and
// the idle gaps of the devices (issue 18). The numbers are the core's
// (core/app/app_opstats.c over core/analysis/opstats.h and analyze.h, the
// same as `strata analyze --json`); the page only lays them out.
//
// "Op stats": per name count, total, self, mean, p50, p90, p99, max over
// the whole trace, the visible window, one step or the selection (the
// scope menu), sortable by any column (the snapshot's rows, in JS). A row
// click draws that op's duration histogram (log bins, 5 per decade) as
// bars, each labelled with its range (the selection scope first shows the
// histogram of every selected event); a bar click selects exactly that
// bin's instances on the timeline (a core call: events of that name in the
// scope with lo <= duration < hi).
//
// "Idle gaps" (key g): every idle gap of the devices' rows is shaded on the
// timeline (the core's draw list), and the longest are listed with what
// the host was doing meanwhile; a click shows the gap with a margin.
// Names are untrusted: textContent only.
import { counted } from './panels.js';

import { shortNames } from './names.js';
import { effRow, effCells } from './roofline.js';

const SCOPES = ['trace', 'window', 'step', 'selection'];
const COLS = [
  { key: 'name', label: 'Name' },
  { key: 'count', label: 'Count' },
  { key: 'total_us', label: 'Total' },
  { key: 'self_us', label: 'Self' },
  { key: 'mean_us', label: 'Mean' },
  { key: 'p50_us', label: 'p50' },
  { key: 'p90_us', label: 'p90' },
  { key: 'p99_us', label: 'p99' },
  { key: 'max_us', label: 'Max' },
  // issue 33: the efficiency's figures of the name (the whole analysis, whatever the scope)
  { key: 'tflops', label: 'TFLOP/s', eff: 0 },
  { key: 'pct_of_peak', label: '% of peak', eff: 1 },
];
const EFF_KINDS = ['op', 'kernel', 'xla']; // a host op's row first, then a kernel's, an XLA op's
const EFF_HEAD = 'Of the efficiency (the overview’s How well the hardware is used) over all the files shown, whatever the scope';
const EFF_PENDING = 'not measured yet: the ops’ shapes are being read (a large trace: press Measure in the overview, key o)';
const MAX_ROWS = 500; // rows in the DOM (all names are in the snapshot)
const GAPS_LISTED = 20;

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

/**
 * Wires the panels. deps: {M, str, withCString, fmtDur (ns -> text), fmtCount,
 * efficiency (roofline.js; may be absent), analyze() (the overview's analysis,
 * which the efficiency is of)}.
 * Returns {opStats(opts), histogram(name, opts), selectBin(i), idleGaps(), showIdleGaps(on),
 * goToGap(i)}.
 */
export function createOpStats({ M, str, withCString, fmtDur, fmtCount, efficiency = null, analyze = null }) {
  const $ = (id) => document.getElementById(id);
  const json = (p) => JSON.parse(str(p));
  const us = (v) => fmtDur(Number(v) * 1000);
  const stage = $('stage');
  const canvas = $('canvas');

  // ---- the op statistics panel ----
  const pane = el('aside');
  pane.id = 'opstats';
  pane.hidden = true;
  pane.setAttribute('aria-label', 'Op statistics');
  const head = el('header');
  const title = el('h2', '', 'Op statistics');
  const meta = el('span', 'meta');
  meta.id = 'opstats-meta';
  const scopeSel = el('select');
  scopeSel.id = 'opstats-scope';
  scopeSel.setAttribute('aria-label', 'Scope');
  scopeSel.title = 'Over the whole trace, the visible window, one step, or the selection';
  for (const [v, t] of [['trace', 'whole trace'], ['window', 'visible window'], ['step', 'step…'], ['selection', 'selection']]) {
    const o = el('option', '', t);
    o.value = v;
    scopeSel.append(o);
  }
  const stepIn = el('input');
  stepIn.id = 'opstats-step';
  stepIn.type = 'number';
  stepIn.min = '0';
  stepIn.step = '1';
  stepIn.hidden = true;
  stepIn.setAttribute('aria-label', 'Step number');
  stepIn.title = 'Step number (ProfilerStep#N, an XProf Steps line)';
  const refresh = el('button', '', '↻');
  refresh.type = 'button';
  refresh.title = 'Compute again (the view or selection as it is now)';
  refresh.setAttribute('aria-label', 'Refresh');
  const close = el('button', 'close', '×');
  close.type = 'button';
  close.title = 'Close';
  close.setAttribute('aria-label', 'Close');
  head.append(title, meta, el('span', 'spacer'), scopeSel, stepIn, refresh, close);
  const wrap = el('div', 'table-wrap');
  const table = el('table');
  const thead = el('thead');
  const headRow = el('tr');
  thead.append(headRow);
  const tbody = el('tbody');
  tbody.id = 'opstats-body';
  table.append(thead, tbody);
  wrap.append(table);
  const hist = el('div');
  hist.id = 'opstats-hist';
  hist.hidden = true;
  const note = el('div', 'note');
  note.id = 'opstats-note';
  pane.append(head, wrap, hist, note);
  stage.append(pane);

  let data = null; // {scope, step, names, rows}
  let sortKey = 'self_us';
  let sortDesc = true;
  let histData = null; // {name, scope, bins}
  let histStep = 0;

  function scopeArgs(opts) {
    const scope = SCOPES.indexOf(opts && opts.scope ? String(opts.scope) : 'trace');
    if (scope < 0) throw new Error(`strata.opStats: scope is one of ${SCOPES.join(', ')}`);
    const step = Number(opts && opts.step !== undefined ? opts.step : 0);
    if (scope === 2 && !Number.isInteger(step)) throw new Error('strata.opStats: a step scope needs {step: N}');
    return { scope, step };
  }

  function renderHead() {
    headRow.textContent = '';
    for (const c of COLS) {
      if (c.eff !== undefined && !efficiency) continue;
      const th = el('th');
      if (c.key === sortKey) th.setAttribute('aria-sort', sortDesc ? 'descending' : 'ascending');
      const b = el('button', '', c.label);
      b.type = 'button';
      b.dataset.key = c.key;
      if (c.eff !== undefined) th.title = EFF_HEAD;
      b.addEventListener('click', () => {
        if (sortKey === c.key) sortDesc = !sortDesc;
        else { sortKey = c.key; sortDesc = c.key !== 'name'; }
        render();
      });
      th.append(b);
      headRow.append(th);
    }
  }

  // a row's value of a column (the efficiency's: -1 while unknown or none)
  const cols = (c) => COLS.find((x) => x.key === c);
  function value(r, k) {
    if (cols(k).eff === undefined) return r[k];
    const eff = efficiency && efficiency.last();
    const o = eff && effRow(eff, String(r.name), EFF_KINDS);
    return o && o[k] !== null ? o[k] : -1;
  }

  function sorted() {
    const rows = data.rows.slice();
    const k = sortKey;
    rows.sort((a, b) => {
      const x = value(a, k), y = value(b, k);
      const c = k === 'name' ? (x < y ? -1 : x > y ? 1 : 0) : Number(x) - Number(y);
      return sortDesc ? -c : c;
    });
    return rows;
  }

  function render() {
    renderHead();
    tbody.textContent = '';
    if (!data) {
      meta.textContent = '';
      note.textContent = 'Nothing to count here (no trace, or no such step).';
      return;
    }
    const where = data.scope === 'step' ? `step ${data.step}` : data.scope === 'trace' ? 'whole trace' : data.scope === 'window' ? 'visible window' : 'selection';
    meta.textContent = `${fmtCount(data.names)} names · ${where}`;
    const rows = sorted();
    const shown = rows.slice(0, MAX_ROWS);
    const short = shortNames(shown.map((r) => String(r.name)), 60); // cut in the middle (names.js)
    for (const [i, r] of shown.entries()) {
      const tr = el('tr');
      tr.dataset.name = r.name;
      if (histData && histData.name === r.name) tr.classList.add('active');
      for (const c of COLS) {
        if (c.eff !== undefined) {
          if (efficiency) tr.append(el('td', 'eff'));
          continue;
        }
        const v = r[c.key];
        const td = el('td', c.key === 'name' ? 'name' : '', c.key === 'name' ? short[i] : c.key === 'count' ? fmtCount(v) : us(v));
        if (c.key === 'name') td.title = v;
        tr.append(td);
      }
      tr.addEventListener('click', () => showHistogram(r.name, { scope: data.scope, step: data.step }));
      tbody.append(tr);
    }
    fillEff();
    note.textContent = rows.length > MAX_ROWS ? `${fmtCount(MAX_ROWS)} of ${fmtCount(rows.length)} names shown (sort to see others)` : 'Click an op: its duration histogram; click a bar: select those instances.';
  }

  // the TFLOP/s and % of peak cells, from the efficiency once it is known
  function fillEff() {
    if (!efficiency) return;
    const eff = efficiency.last();
    for (const tr of tbody.querySelectorAll('tr')) {
      const tds = tr.querySelectorAll('td.eff');
      effCells(eff, tr.dataset.name, EFF_KINDS, EFF_PENDING).forEach((c, j) => { tds[j].textContent = c.text; tds[j].title = c.title; });
    }
    if (!eff && !asked) { // once per file set; fills through onComputed
      asked = true;
      efficiency.ensure(analyze).catch(() => {});
    }
  }
  let asked = false;
  window.addEventListener('strata:loaded', () => { asked = false; });
  if (efficiency) efficiency.onComputed(() => { if (!pane.hidden && data) fillEff(); });

  function opStats(opts) {
    const { scope, step } = scopeArgs(opts);
    const top = opts && opts.top ? Number(opts.top) : 0;
    data = json(M._st_wasm_opstats_json(scope, step, top));
    scopeSel.value = SCOPES[scope];
    stepIn.hidden = scope !== 2;
    if (scope === 2) stepIn.value = String(step);
    pane.hidden = false;
    histData = null;
    hist.hidden = true;
    render();
    // the selection's own duration histogram, whatever the names (a row click: one op's)
    if (scope === 3 && data && data.rows.length) showHistogram(null, { scope: 'selection' });
    return data;
  }

  // ---- the histogram ----
  function renderHist() {
    hist.textContent = '';
    if (!histData || !histData.bins.length) {
      hist.hidden = !histData;
      if (histData) hist.append(el('div', 'hist-title', `${histData.name ?? 'the selection'}: no instances here`));
      return;
    }
    hist.hidden = false;
    const total = histData.bins.reduce((s, b) => s + b.count, 0);
    const what = histData.name ?? 'every event selected';
    hist.append(el('div', 'hist-title', `${what}: ${fmtCount(total)} instances, log bins (click a bar to select them)`));
    const bars = el('div', 'hist-bars');
    const max = Math.max(...histData.bins.map((b) => b.count));
    histData.bins.forEach((b, i) => {
      const col = el('button', 'hist-bin');
      col.type = 'button';
      col.dataset.index = String(i);
      col.dataset.count = String(b.count);
      col.title = `${us(b.lo_us)} – ${us(b.hi_us)}: ${fmtCount(b.count)}`;
      const bar = el('div', 'bar');
      bar.style.height = `${b.count ? Math.max(2, Math.round((70 * b.count) / max)) : 0}px`;
      col.append(el('div', 'n', b.count ? fmtCount(b.count) : ''), bar, el('div', 'lo', us(b.lo_us)));
      col.addEventListener('click', () => selectBin(i));
      bars.append(col);
    });
    hist.append(bars);
  }

  // name null: every event of the scope (the whole selection)
  const withName = (name, fn) => (name === null ? fn(0) : withCString(String(name), fn));

  function showHistogram(name, opts) {
    const { scope, step } = scopeArgs(opts);
    histStep = step;
    histData = withName(name, (p) => json(M._st_wasm_histogram_json(p, scope, step)));
    for (const tr of tbody.children) tr.classList.toggle('active', name !== null && tr.dataset.name === String(name));
    pane.hidden = false;
    renderHist();
    return histData;
  }

  function selectBin(i) {
    if (!histData || !histData.bins[i]) throw new Error('strata.selectHistogramBin: no such bin');
    const b = histData.bins[i];
    const scope = SCOPES.indexOf(histData.scope);
    const n = withName(histData.name, (p) => M._st_wasm_histogram_select(p, scope, histStep, b.lo_us, b.hi_us));
    for (const c of hist.querySelectorAll('.hist-bin')) c.classList.toggle('active', c.dataset.index === String(i));
    return n;
  }

  scopeSel.addEventListener('change', () => {
    stepIn.hidden = scopeSel.value !== 'step';
    if (scopeSel.value === 'step' && stepIn.value === '') return;
    opStats({ scope: scopeSel.value, step: Number(stepIn.value || 0) });
  });
  stepIn.addEventListener('change', () => opStats({ scope: 'step', step: Number(stepIn.value || 0) }));
  refresh.addEventListener('click', () => opStats({ scope: scopeSel.value, step: Number(stepIn.value || 0) }));
  close.addEventListener('click', () => { pane.hidden = true; canvas.focus(); });

  // ---- idle gaps ----
  const gapsPane = el('aside');
  gapsPane.id = 'idle-gaps';
  gapsPane.hidden = true;
  gapsPane.setAttribute('aria-label', 'Idle gaps');
  const gHead = el('header');
  const gMeta = el('span', 'meta');
  gMeta.id = 'idle-gaps-meta';
  const gClose = el('button', 'close', '×');
  gClose.type = 'button';
  gClose.title = 'Close the list (the highlight stays; g turns it off)';
  gClose.setAttribute('aria-label', 'Close');
  gHead.append(el('h2', '', 'Idle gaps'), gMeta, el('span', 'spacer'), gClose);
  const gList = el('ol');
  gList.id = 'idle-gaps-list';
  gapsPane.append(gHead, gList);
  stage.append(gapsPane);
  const gapsButton = $('idle-gaps-button');

  function idleGaps() {
    return json(M._st_wasm_idle_gaps_json(GAPS_LISTED));
  }

  function renderGaps() {
    gList.textContent = '';
    const g = idleGaps();
    if (!g) { gMeta.textContent = 'no trace'; return g; }
    gMeta.textContent = g.devices ? `${fmtCount(g.highlighted)} highlighted on ${counted(g.devices, 'device', 'devices', fmtCount)}` : 'no device rows (GPU streams, XLA Ops) in this trace';
    for (const p of g.gaps) {
      const li = el('li');
      li.tabIndex = 0;
      li.dataset.index = String(p.index);
      li.append(el('span', 'dur', us(p.dur_us)), el('span', 'dev', ` ${p.device}`));
      const host = p.host.length ? p.host.map((h) => `${h.name} (${us(h.overlap_us)})`).join(', ') : 'nothing';
      li.append(el('div', 'host', `host meanwhile: ${host}`));
      li.title = `at ${us(p.start_us)}; click: show it`;
      li.addEventListener('click', () => goToGap(p.index));
      gList.append(li);
    }
    return g;
  }

  function showIdleGaps(on) {
    const n = M._st_wasm_idle_gaps_show(on === undefined ? -1 : on ? 1 : 0);
    const shown = M._st_wasm_idle_gaps_shown() === 1;
    if (gapsButton) gapsButton.setAttribute('aria-pressed', shown ? 'true' : 'false');
    gapsPane.hidden = !shown;
    if (shown) renderGaps();
    return n;
  }

  function goToGap(i) {
    if (!M._st_wasm_idle_gap_go(Number(i))) throw new Error('strata.goToIdleGap: no such gap');
    for (const li of gList.children) li.classList.toggle('active', li.dataset.index === String(i));
    return JSON.parse(str(M._st_wasm_view_json()));
  }

  gClose.addEventListener('click', () => { gapsPane.hidden = true; canvas.focus(); });
  if (gapsButton) gapsButton.addEventListener('click', () => { showIdleGaps(); canvas.focus(); });
  const opsButton = $('opstats-button');
  if (opsButton) opsButton.addEventListener('click', () => opStats({ scope: scopeSel.value === 'step' ? 'trace' : scopeSel.value }));
  window.addEventListener('keydown', (e) => { // g: the idle-gap highlight
    if (e.key !== 'g' || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    showIdleGaps();
  });
  // a new trace: the lists are of the old one
  window.addEventListener('strata:offsets', () => { if (!gapsPane.hidden) renderGaps(); });
  window.addEventListener('strata:loaded', () => {
    pane.hidden = true;
    data = null;
    histData = null;
    if (!gapsPane.hidden) renderGaps();
  });

  return { opStats, histogram: showHistogram, selectBin, idleGaps, showIdleGaps, goToGap, histogramShown: () => histData };
}
