// overview.js: the overview panel (issue 18: answers, not only pictures) of
// the files shown: per device the step time (mean, p50, p90), idle %,
// utilisation, communication % and overlap %; the peaks of memory
// counters; the top ops by self time; with several files the ranks x
// steps heatmap (heatmap.js) and the stragglers. The figures are
// core/index/analyze.h's through core/app/app_analyze.c, the same JSON as
// `strata analyze FILE... --json` (window.strata.analyze()). Each figure is
// coloured by the JAX profiling guide's thresholds (THRESHOLDS below, the
// README's "Overview") and clickable: a step time zooms the timeline to
// that device's longest step, the idle % to its largest idle gap, an op
// selects all its events. "Use as step" (the details of a selected event)
// makes every event of that name the steps. Names are untrusted:
// textContent only.

import { createHeatmap, heatmapData, fmtUs } from './heatmap.js';
import { memorySection } from './memory.js';

// good / warning / bad, the README's table:
//   idle %         < 10 good, 10-30 warning, > 30 bad (the guide: "should be < 10 %")
//   utilisation %  > 90 good, 70-90 warning, < 70 bad (busy share: 100 - idle)
//   comm %         < 10 good, 10-30 warning, > 30 bad (time in collectives)
//   overlap %      > 70 good, 30-70 warning, < 30 bad (comm hidden under compute)
//   step p90 / p50 < 1.1 good, 1.1-1.5 warning, > 1.5 bad (step-time jitter)
export const THRESHOLDS = {
  idle_pct: { good: 10, bad: 30, high: 'bad' },
  utilization_pct: { good: 90, bad: 70, high: 'good' },
  comm_pct: { good: 10, bad: 30, high: 'bad' },
  overlap_pct: { good: 70, bad: 30, high: 'good' },
  jitter: { good: 1.1, bad: 1.5, high: 'bad' },
};

export function rate(key, v) {
  const t = THRESHOLDS[key];
  if (v === null || v === undefined || Number.isNaN(v)) return '';
  if (t.high === 'bad') return v < t.good ? 'good' : v > t.bad ? 'bad' : 'warn';
  return v > t.good ? 'good' : v < t.bad ? 'bad' : 'warn';
}

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
const wrapped = (table) => {
  const w = el('div', 'table-wrap');
  w.append(table);
  return w;
};
// A table with its header row and an empty body: [table, tbody].
const tableOf = (id, headers) => {
  const table = el('table');
  table.id = id;
  const head = el('tr');
  for (const h of headers) head.append(el('th', null, h));
  table.append(el('thead'), el('tbody'));
  table.tHead.append(head);
  return [table, table.tBodies[0]];
};
const pct = (v) => (v === null || v === undefined ? '–' : `${v.toFixed(1)} %`);

/**
 * deps: {M, str, withCString, fmtCount}. Returns {analyze(opts), toggle(on?),
 * useAsStep(name), shown(), last(), heatmap()}.
 */
export function createOverview({ M, str, withCString, fmtCount }) {
  const $ = (id) => document.getElementById(id);
  const panel = $('overview');
  const button = $('overview-button');
  panel.replaceChildren();
  const header = el('header');
  const title = el('h2', null, 'Overview');
  const meta = el('span', 'overview-meta');
  meta.id = 'overview-meta';
  const stepInfo = el('span', 'overview-steps');
  stepInfo.id = 'overview-steps';
  const autoSteps = el('button', null, 'automatic steps');
  autoSteps.type = 'button';
  autoSteps.id = 'overview-auto-steps';
  autoSteps.title = 'Find the steps again by themselves (ProfilerStep#N, XProf Steps lines)';
  autoSteps.hidden = true;
  const close = el('button', 'close', '×');
  close.type = 'button';
  close.title = 'Close';
  close.setAttribute('aria-label', 'Close');
  header.append(title, meta, stepInfo, autoSteps, el('span', 'spacer'), close);
  const body = el('div', 'overview-body');
  body.id = 'overview-body';
  panel.append(header, body);
  const heatBox = el('section', 'overview-heatmap');
  heatBox.id = 'overview-heatmap';
  const heatTitle = el('h3', null, 'Ranks × steps');
  const heatInner = el('div');
  heatBox.append(heatTitle, heatInner);
  const heat = createHeatmap(heatInner, {
    onCell: (trace, step, s0, s1) => { M._st_wasm_analyze_show(trace, -1, s0, s1); },
  });

  let stepName = ''; // '' automatic
  let last = null;

  // {stepName, ops, gaps} -> analyze.h's JSON of the files shown (null: nothing shown).
  function analyze(opts = {}) {
    const name = opts.stepName === undefined || opts.stepName === null ? '' : String(opts.stepName);
    const ops = opts.ops === undefined ? -1 : Math.max(0, Math.floor(Number(opts.ops)) || 0);
    const gaps = opts.gaps === undefined ? 0 : Math.max(1, Math.floor(Number(opts.gaps)) || 1);
    return JSON.parse(withCString(name, (p) => str(M._st_wasm_analyze(p, ops, gaps))));
  }

  const go = (text, cls, fn, title) => {
    const b = el('button', `fig ${cls || ''}`.trim(), text);
    b.type = 'button';
    if (title) b.title = title;
    b.addEventListener('click', fn);
    return b;
  };

  // the device's longest step, and its largest idle gap (the gaps are longest first)
  const worstStep = (d, i) => {
    let best = null;
    for (const p of d.per_step) if (p.device === i && (!best || p.wall_us > best.wall_us)) best = p;
    return best;
  };
  const largestGap = (d, i) => d.idle_gaps.find((g) => g.device === i) || null;

  function showDevices(d) {
    const sec = el('section', 'overview-devices');
    sec.append(el('h3', null, 'Devices'));
    const [table, tb] = tableOf('overview-devices', ['file', 'device', 'steps', 'step mean', 'p50', 'p90', 'idle', 'utilisation', 'comm', 'overlap']);
    d.devices.forEach((v, i) => {
      const tr = el('tr');
      tr.dataset.device = String(i);
      const t = d.traces[v.trace] || {};
      tr.append(el('td', 'name', t.group || t.file || ''), el('td', 'name', v.name), el('td', null, String(v.steps)));
      const ws = worstStep(d, i);
      const stepGo = () => {
        if (ws) M._st_wasm_analyze_show(v.trace, i, ws.start_us, ws.start_us + ws.wall_us);
        else if (v.range_us > 0) M._st_wasm_analyze_show(v.trace, i, 0, v.range_us);
      };
      const jitter = v.step_p50_us > 0 ? v.step_p90_us / v.step_p50_us : null;
      const why = ws ? `the longest step: ${ws.step} (${fmtUs(ws.wall_us)}); click to zoom to it` : 'no steps';
      for (const [k, x] of [['step_us', v.step_us], ['step_p50_us', v.step_p50_us], ['step_p90_us', v.step_p90_us]]) {
        const td = el('td');
        td.dataset.fig = k;
        td.append(go(fmtUs(x), k === 'step_p90_us' ? rate('jitter', jitter) : '', stepGo, why));
        tr.append(td);
      }
      const gap = largestGap(d, i);
      const idle = el('td');
      idle.dataset.fig = 'idle_pct';
      idle.append(go(pct(v.idle_pct), rate('idle_pct', v.idle_pct), () => {
        if (!gap) return;
        const pad = (gap.end_us - gap.start_us) * 0.25;
        M._st_wasm_analyze_show(v.trace, i, gap.start_us - pad, gap.end_us + pad);
      }, gap ? `idle ${fmtUs(v.idle_us)} of ${fmtUs(v.range_us)}; largest gap ${fmtUs(gap.dur_us)}: click to zoom to it` : `idle ${fmtUs(v.idle_us)}`));
      const util = el('td', rate('utilization_pct', v.utilization_pct), pct(v.utilization_pct));
      util.dataset.fig = 'utilization_pct';
      const commPct = v.range_us > 0 ? (100 * v.comm_us) / v.range_us : null;
      const comm = el('td', rate('comm_pct', commPct), pct(commPct));
      comm.dataset.fig = 'comm_pct';
      comm.title = `communication ${fmtUs(v.comm_us)}, memcpy ${fmtUs(v.memcpy_us)}, compute ${fmtUs(v.compute_us)}`;
      const ov = el('td', rate('overlap_pct', v.overlap_pct), pct(v.overlap_pct));
      ov.dataset.fig = 'overlap_pct';
      tr.append(idle, util, comm, ov);
      tb.append(tr);
    });
    if (!d.devices.length) sec.append(el('p', 'note', 'No device rows (no GPU streams, no XLA Ops line).'));
    else sec.append(wrapped(table));
    return sec;
  }

  // issue 34: the devices' memory and the memory counters (memory.js)
  const showMemory = (d) => memorySection(d, { M, el, go, fmtUs, fmtCount, tableOf, wrapped });

  function showOps(d) {
    const sec = el('section', 'overview-ops');
    sec.append(el('h3', null, `Top ops by self time (${d.ops.length} of ${fmtCount(d.op_names)})`));
    const [table, tb] = tableOf('overview-ops', ['op', 'count', 'total', 'self', 'p50', 'p90', 'p99', 'max']);
    d.ops.forEach((o, i) => {
      const tr = el('tr');
      tr.dataset.op = String(i);
      const name = el('td', 'name');
      name.append(go(o.name, 'op', () => {
        const n = withCString(o.name, (p) => M._st_wasm_select_name(p));
        for (const x of tb.querySelectorAll('tr.active')) x.classList.remove('active');
        tr.classList.add('active');
        meta.textContent = n >= 0 ? `${fmtCount(n)} ${o.name.length > 40 ? `${o.name.slice(0, 39)}…` : o.name} selected` : meta.textContent;
      }, 'Select every event of this name'));
      tr.append(name, el('td', null, fmtCount(o.count)));
      for (const k of ['total_us', 'self_us', 'p50_us', 'p90_us', 'p99_us', 'max_us']) tr.append(el('td', null, fmtUs(o[k])));
      tb.append(tr);
    });
    sec.append(wrapped(table));
    return sec;
  }

  function render(d) {
    last = d;
    body.replaceChildren();
    if (!d) {
      meta.textContent = '';
      body.append(el('p', 'note', 'Nothing to analyse: open a trace.'));
      return;
    }
    const froms = new Set(d.traces.map((t) => t.steps_from));
    const nsteps = d.traces.reduce((a, t) => a + t.steps, 0);
    meta.textContent = `${d.traces.length} file${d.traces.length === 1 ? '' : 's'} · ${d.devices.length} device${d.devices.length === 1 ? '' : 's'} · ${fmtCount(nsteps)} steps`;
    stepInfo.textContent = stepName ? `steps: every “${stepName.length > 40 ? `${stepName.slice(0, 39)}…` : stepName}”`
      : `steps: ${[...froms].map((f) => ({ profiler_step: 'ProfilerStep#N', steps_line: 'the Steps line', none: 'none (whole range)', named: 'named' })[f] || f).join(', ')}`;
    autoSteps.hidden = !stepName;
    if (d.stragglers.length) {
      const p = el('p', 'stragglers bad');
      p.id = 'overview-stragglers';
      p.textContent = `Stragglers (per-step compute, median ${fmtUs(d.stragglers[0].median)}): ${d.stragglers.map((s) => `${d.traces[s.trace].group} ${fmtUs(s.value)} (score ${s.score.toFixed(1)})`).join(', ')}`;
      body.append(p);
    }
    body.append(showDevices(d));
    if (d.traces.length > 1) {
      body.append(heatBox);
      heat.show(heatmapData(d));
    }
    const row = el('div', 'overview-row');
    row.append(showOps(d), showMemory(d));
    body.append(row);
  }

  // more idle gaps than the CLI's default 10, so that every device's largest is known
  const PANEL = { gaps: 1000 };

  function refresh() {
    const d = analyze({ stepName, ...PANEL });
    render(d);
    return d;
  }

  // The panel's analysis made ahead, once a trace's first frame is drawn (in
  // idle time: never before that frame): core/app keeps its JSON until the
  // files shown change or move, so `o` then only lays it out. Not for the
  // largest traces (> PREPARE_MAX events: seconds of work the user may not
  // want); asked before it is ready, the panel analyses at once.
  const PREPARE_MAX = 4e6;
  let prepareId = 0;
  function prepare(events) {
    const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50));
    const id = ++prepareId;
    if (!(events <= PREPARE_MAX)) return;
    idle(() => {
      if (id !== prepareId || !panel.hidden || !window.strata || !window.strata.traces().length) return;
      withCString(stepName, (p) => M._st_wasm_analyze(p, -1, PANEL.gaps));
    }, { timeout: 1000 });
  }

  function toggle(on) {
    const show = on === undefined ? panel.hidden : !!on;
    panel.hidden = !show;
    button.setAttribute('aria-pressed', show ? 'true' : 'false');
    if (show) refresh();
  }

  function useAsStep(name) {
    stepName = String(name || '');
    toggle(true);
    return last;
  }

  button.addEventListener('click', () => toggle());
  close.addEventListener('click', () => toggle(false));
  autoSteps.addEventListener('click', () => { stepName = ''; refresh(); });
  window.addEventListener('keydown', (e) => { // o: the overview
    if (e.key !== 'o' || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if (!window.strata || !window.strata.traces().length) return;
    toggle();
  });
  window.addEventListener('strata:loaded', (e) => {
    stepName = '';
    button.hidden = false;
    if (!panel.hidden) refresh();
    else prepare(e.detail && e.detail.events);
  });
  // (files moved on the timeline: nothing to redo, the figures are in each file's own time)
  window.addEventListener('resize', () => { if (!panel.hidden && last && last.traces.length > 1) heat.redraw(); });

  return {
    analyze,
    toggle,
    useAsStep,
    shown: () => !panel.hidden,
    last: () => last,
    heatmap: heat,
    heatmapData,
  };
}
