// diff.js: the diff table of two traces (the first two shown: A the
// baseline, B the candidate; core/app/app_diff.c over core/analysis/diff.h): by name or
// category, over the whole traces, the visible window or one step; count,
// total, self and average in A and B, the difference and the ratio;
// sortable by any column; rows only in one side marked; the verdict of each
// row (a regression / improvement: a meaningful effect, significant over the
// instances: the paired test when both runs hold the same instances, else
// Mann-Whitney; or too few instances for one) coloured and named in every
// row, with its p and test on hover; above the table which file is A and
// which B, the headline (step time and device busy per step, B - A with a
// 95 % interval) and the rollup by kind with its own verdict; long names cut
// in the middle (names.js; the full name on hover); a click selects the
// row's events in both. Names are untrusted: textContent only.

import { shortNames } from './names.js';
import { counted } from './panels.js';

const COLS = [
  ['name', 'name'], ['count_a', 'count A'], ['count_b', 'count B'],
  ['total_us_a', 'total A'], ['total_us_b', 'total B'], ['d_total_us', 'Δ total'], ['ratio_total', 'B / A'],
  ['self_us_a', 'self A'], ['self_us_b', 'self B'], ['avg_us_a', 'avg A'], ['avg_us_b', 'avg B'],
  ['verdict', 'verdict'], ['p_value', 'p'],
];
// the verdict column's words (core/analysis/diff.h): a word in every cell
const VERDICT = { regression: 'slower', improvement: 'faster', no_change: 'no change', too_few: 'too few', only_a: 'only A', only_b: 'only B' };
const TEST = { wilcoxon: 'paired (Wilcoxon signed-rank on log B/A)', mann_whitney: 'Mann-Whitney U' };
const NAME_W = 60; // characters of a name (the rest on hover)
// the core's column keys for sorting (core/analysis/diff.h st_diff_col_key)
const SORT_KEY = { total_us_a: 'total_us_a', total_us_b: 'total_us_b', d_total_us: 'd_total_us', self_us_a: 'self_us_a',
  self_us_b: 'self_us_b', avg_us_a: 'avg_us_a', avg_us_b: 'avg_us_b', ratio_total: 'ratio_total', name: 'name',
  count_a: 'count_a', count_b: 'count_b' };

export function createDiff({ M, str, withCString, onChange }) {
  const $ = (id) => document.getElementById(id);
  const panel = $('diff');
  const head = $('diff-head');
  const body = $('diff-body');
  const meta = $('diff-meta');
  const headline = $('diff-headline');
  const note = $('diff-note');
  const by = $('diff-by');
  const range = $('diff-range');
  const step = $('diff-step');
  const button = $('diff-button');
  let last = null; // the JSON shown
  let sort = { col: 'd_total_us', desc: true };

  const fmtUs = (us) => {
    if (us === null || us === undefined) return '';
    const a = Math.abs(us);
    if (a >= 1e6) return `${(us / 1e6).toFixed(3)} s`;
    if (a >= 1e3) return `${(us / 1e3).toFixed(3)} ms`;
    return `${+us.toFixed(3)} us`;
  };
  const cell = (c, r, short) => {
    const v = r[c];
    if (c === 'name') return short;
    if (c.startsWith('count')) return String(v);
    if (c === 'ratio_total') return v === null ? '∞' : `${v.toFixed(2)}×`;
    if (c === 'd_total_us') return `${v > 0 ? '+' : ''}${fmtUs(v)}`;
    if (c === 'verdict') return VERDICT[v] || String(v || '');
    if (c === 'p_value') return v === null || v === undefined ? '' : v < 0.001 ? v.toExponential(1) : v.toFixed(3);
    return fmtUs(v);
  };
  const signed = (us) => `${us > 0 ? '+' : us < 0 ? '−' : ''}${fmtUs(Math.abs(us))}`;
  // "A 21.69 ms, B 25.13 ms, B − A +3.45 ms (95 % interval +3.41 … +3.49 ms)"
  const change = (a, b, d, ci) => `A ${fmtUs(a)}, B ${fmtUs(b)}, B − A ${signed(d)}` +
    (ci ? ` (95 % interval ${signed(ci[0])} … ${signed(ci[1])})` : '');

  // The headline and the rollup by kind (the five kinds that changed most).
  function renderHeadline(d) {
    headline.replaceChildren();
    const h = d.headline;
    const line = (cls, text) => {
      const p = document.createElement('p');
      p.className = cls;
      p.textContent = text;
      p.title = text; // cut at the panel's width: the whole line on hover
      headline.append(p);
    };
    if (d.file_a !== undefined) line('diff-files', `A: ${d.file_a} · B: ${d.file_b}`);
    if (h && h.step_us_a !== null) line('diff-step-change', `step time: ${change(h.step_us_a, h.step_us_b, h.d_step_us, h.d_step_ci_us)} over ${h.steps_a} / ${h.steps_b} steps`);
    if (h && h.busy_us_a !== null) line('diff-busy-change', `device busy per step: ${change(h.busy_us_a, h.busy_us_b, h.d_busy_us, h.d_busy_ci_us)}`);
    const kinds = (d.rollup || []).filter((k) => k.d_total_us !== 0)
      .sort((x, y) => Math.abs(y.d_total_us) - Math.abs(x.d_total_us)).slice(0, 5);
    if (kinds.length) {
      const kv = (k) => `${VERDICT[k.verdict] || k.verdict}${k.p_value === null || k.p_value === undefined ? '' : `, p ${k.p_value < 0.001 ? k.p_value.toExponential(1) : k.p_value.toFixed(3)}`}`;
      line('diff-rollup', `by kind: ${kinds.map((k) => `${k.kind} ${signed(k.d_total_us)}: ${kv(k)} (${k.regressions} of ${counted(k.rows, 'row')} slower, ${k.improvements} faster)`).join('; ')}`);
    }
  }

  function render(d) {
    last = d;
    head.replaceChildren();
    body.replaceChildren();
    if (!d) {
      meta.textContent = '';
      headline.replaceChildren();
      note.hidden = false;
      note.textContent = 'Nothing to compare: open two traces (or the step is not in both).';
      return d;
    }
    for (const [c, label] of COLS) {
      const th = document.createElement('th');
      if (!SORT_KEY[c]) { // the verdict and its p: not a sort key of the core's
        th.className = 'plain';
        th.textContent = label;
        head.append(th);
        continue;
      }
      if (sort.col === c) th.setAttribute('aria-sort', sort.desc ? 'descending' : 'ascending');
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = label;
      b.dataset.col = c;
      b.addEventListener('click', () => {
        sort = { col: c, desc: sort.col === c ? !sort.desc : c !== 'name' };
        render(JSON.parse(withCString(SORT_KEY[c], (p) => str(M._st_wasm_diff_sort(p, sort.desc ? 1 : 0)))));
      });
      th.append(b);
      head.append(th);
    }
    const short = shortNames(d.rows.map((r) => r.name), NAME_W);
    d.rows.forEach((r, i) => {
      const tr = document.createElement('tr');
      if (r.regression) tr.classList.add('regression');
      if (r.improvement) tr.classList.add('improvement');
      if (r.only_a) tr.classList.add('only-a');
      if (r.only_b) tr.classList.add('only-b');
      for (const [c] of COLS) {
        const td = document.createElement('td');
        if (c === 'name') td.className = 'name';
        if (c === 'd_total_us') td.className = 'd';
        if (c === 'verdict') td.className = 'verdict';
        td.textContent = cell(c, r, short[i]);
        if (c === 'name') td.title = r.name;
        if (c === 'verdict' || c === 'p_value') td.title = r.test ? `test: ${TEST[r.test] || r.test}` : 'on one side only: no test';
        tr.append(td);
      }
      tr.addEventListener('click', () => {
        for (const x of body.querySelectorAll('tr.active')) x.classList.remove('active');
        tr.classList.add('active');
        M._st_wasm_diff_select(i);
      });
      body.append(tr);
    });
    meta.textContent = `${d.file_a !== undefined ? `A ${d.file_a} · B ${d.file_b} · ` : ''}${counted(d.rows.length, 'row')} · ${counted(d.regressions, 'regression')} · ${counted(d.improvements, 'improvement')} · ` +
      `${d.not_enough_data} too few instances · ${d.only_a} only in A · ${d.only_b} only in B`;
    renderHeadline(d);
    note.hidden = true;
    return d;
  }

  // {by: 'name'|'cat', range: 'all'|'window'|{step}|{start_us, end_us}} -> the diff JSON (null if none)
  function compute(opts = {}) {
    const byCat = opts.by === 'cat' || opts.by === 'category' ? 1 : 0;
    let kind = 0;
    let t0 = 0;
    let t1 = 0;
    let n = 0;
    const r = opts.range;
    if (r === 'window') {
      const v = window.strata.view();
      kind = 1; t0 = v.start_us; t1 = v.end_us;
    } else if (r && typeof r === 'object' && r.step !== undefined) {
      kind = 2; n = Number(r.step);
    } else if (r && typeof r === 'object' && r.start_us !== undefined) {
      kind = 1; t0 = Number(r.start_us); t1 = Number(r.end_us);
    }
    by.value = String(byCat);
    range.value = kind === 0 ? 'all' : kind === 2 ? 'step' : 'window';
    step.hidden = kind !== 2;
    if (kind === 2) step.value = String(n);
    const d = JSON.parse(withCString(SORT_KEY[sort.col], (p) => str(M._st_wasm_diff(byCat, kind, t0, t1, n, p, sort.desc ? 1 : 0))));
    return render(d);
  }

  function fromControls() {
    step.hidden = range.value !== 'step';
    const r = range.value === 'step' ? { step: Number(step.value || 0) } : range.value;
    return compute({ by: by.value === '1' ? 'cat' : 'name', range: r });
  }

  function show(on) {
    panel.hidden = !on;
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
    if (on) fromControls();
  }

  by.addEventListener('change', fromControls);
  range.addEventListener('change', fromControls);
  step.addEventListener('change', fromControls);
  $('diff-close').addEventListener('click', () => show(false));
  button.addEventListener('click', () => show(panel.hidden));
  window.addEventListener('strata:loaded', () => {
    button.hidden = window.strata.traces().length < 2;
    if (button.hidden) show(false);
    else if (!panel.hidden) fromControls();
  });
  void onChange;
  return { compute, show, last: () => last };
}
