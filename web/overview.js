// overview.js: the overview panel (issue 18: answers, not only pictures) of
// the files shown: first why each device is idle (its idle causes: what the
// host ran meanwhile, issue 29; a click shades exactly that cause's gaps
// on its device's rows and zooms to its largest; under them HTA's idle split); per device the step time (mean, p50, p90), idle %,
// utilisation, communication % and overlap % ("-" and no colour where a
// figure means nothing: no steps, no communication); the peaks of memory
// counters; the top kernels (with the host op that launched each), host
// ops and runtime calls (with the time they blocked the device) by self
// time, never a wrapper or an annotation; with several files the ranks x
// steps heatmap (heatmap.js) and the stragglers. The figures are
// core/analysis/analyze.h's through core/app/app_analyze.c, the same JSON as
// `strata analyze FILE... --json` (window.strata.analyze()). Each figure is
// coloured by the JAX profiling guide's thresholds (THRESHOLDS below, the
// README's "Overview") and clickable: a step time zooms the timeline to
// that device's longest step, the idle % to its largest idle gap, an op
// selects all its events. "Use as step" (the details of a selected event)
// makes every event of that name the steps. Names are untrusted:
// textContent only.

import { createHeatmap, heatmapData, fmtUs } from './heatmap.js';
import { shortNames } from './names.js';
import { effCells } from './roofline.js';

const NAME_W = 60; // characters of a name in a table (the rest on hover)
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
const NO_STEPS = 'No steps found (no ProfilerStep#N, no Steps line): the step figures are left out. '
  + 'To set steps, select an event that marks one and press “Use as step” in its details '
  + '(the CLI: strata analyze --step-name NAME).';

/**
 * deps: {M, str, withCString, fmtCount, extra(d) -> a section to add (may be
 * absent), efficiency (roofline.js: the TFLOP/s and % of peak columns; may be absent)}. Returns {analyze(opts), toggle(on?),
 * useAsStep(name), shown(), last(), heatmap()}.
 */
// collectivesLine: () => a Promise of collectives.js's JSON (the summary line, waits).
export function createOverview({ M, str, withCString, fmtCount, extra, collectivesLine = null, efficiency = null }) {
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
        if (!v.steps) { // no steps: no step figure (the range is not a step)
          td.textContent = '-';
          td.title = NO_STEPS;
        } else {
          td.append(go(fmtUs(x), k === 'step_p90_us' ? rate('jitter', jitter) : '', stepGo, why));
        }
        tr.append(td);
      }
      const gap = largestGap(d, i);
      const idle = el('td');
      idle.dataset.fig = 'idle_pct';
      // a colour only where idle means something: work in at least half its steps
      const idleMeans = !v.steps || 2 * (v.steps_with_work || 0) >= v.steps;
      idle.append(go(pct(v.idle_pct), idleMeans ? rate('idle_pct', v.idle_pct) : '', () => {
        if (!gap) return;
        const pad = (gap.end_us - gap.start_us) * 0.25;
        M._st_wasm_analyze_show(v.trace, i, gap.start_us - pad, gap.end_us + pad);
      }, gap ? `idle ${fmtUs(v.idle_us)} of ${fmtUs(v.range_us)}; largest gap ${fmtUs(gap.dur_us)}: click to zoom to it` : `idle ${fmtUs(v.idle_us)}`));
      const util = el('td', idleMeans ? rate('utilization_pct', v.utilization_pct) : '', pct(v.utilization_pct));
      util.dataset.fig = 'utilization_pct';
      const commPct = v.range_us > 0 ? (100 * v.comm_us) / v.range_us : null;
      const comm = el('td', rate('comm_pct', commPct), pct(commPct));
      comm.dataset.fig = 'comm_pct';
      comm.title = `communication ${fmtUs(v.comm_us)}, memcpy ${fmtUs(v.memcpy_us)}, compute ${fmtUs(v.compute_us)}`;
      // overlap: coloured when communication is at least 1 % of the range
      const ov = el('td', commPct !== null && commPct >= 1 ? rate('overlap_pct', v.overlap_pct) : '', pct(v.overlap_pct));
      ov.dataset.fig = 'overlap_pct';
      tr.append(idle, util, comm, ov);
      tb.append(tr);
    });
    if (!d.devices.length) sec.append(el('p', 'note', 'No device rows (no GPU streams, no XLA Ops line).'));
    else sec.append(wrapped(table));
    if (d.devices.some((v) => !v.steps)) {
      const p = el('p', 'note', NO_STEPS);
      p.id = 'overview-no-steps';
      sec.append(p);
    }
    return sec;
  }

  // Why each device is idle: its idle causes (analyze.h), in one line each.
  function showCauses(d) {
    const sec = el('section', 'overview-causes');
    sec.id = 'overview-causes';
    d.devices.forEach((v, i) => {
      if (!v.idle_causes || !v.idle_causes.length) return;
      const p = el('p', 'cause-line');
      p.dataset.device = String(i);
      const t = d.traces[v.trace] || {};
      p.append(el('span', 'name', `${d.traces.length > 1 ? `${t.group || t.file} · ` : ''}${v.name} idle ${pct(v.idle_pct)}: `));
      const names = shortNames(v.idle_causes.map((c) => c.what), 48);
      v.idle_causes.forEach((c, j) => {
        const text = `${c.pct === null ? '–' : c.pct.toFixed(0)} % ${j === 0 ? 'of it while the host ran ' : ''}${names[j]}${c.in ? ` (in ${c.in.length > 40 ? `${c.in.slice(0, 39)}…` : c.in})` : ''}`;
        const b = go(text, 'cause', () => {
          const pad = (c.gap_end_us - c.gap_start_us) * 0.25;
          M._st_wasm_analyze_show(v.trace, i, c.gap_start_us - pad, c.gap_end_us + pad);
          // exactly its gaps shaded on the device's rows (in place of `g`'s every gap)
          const n = M._st_wasm_cause_gaps(i, j);
          for (const x of sec.querySelectorAll('button.active')) x.classList.remove('active');
          b.classList.add('active');
          meta.textContent = `${c.what}: ${fmtUs(c.us)} of idle over ${c.gaps} gap${c.gaps === 1 ? '' : 's'}${n >= 0 ? ` · ${fmtCount(n)} gap${n === 1 ? '' : 's'} shaded (g: every gap)` : ''}`;
        }, `${c.what}${c.in ? ` (in ${c.in})` : ''}: ${fmtUs(c.us)} of ${fmtUs(v.idle_us)} idle, over ${c.gaps} gap${c.gaps === 1 ? '' : 's'}; click to shade exactly those gaps and zoom to its largest`);
        b.dataset.cause = String(j);
        if (j) p.append(el('span', null, ', '));
        p.append(b);
      });
      sec.append(p);
      const sp = v.idle_split;
      if (sp && v.idle_us > 0) { // HTA's idle-time breakdown of the same idle time
        const q = (x) => `${((x / v.idle_us) * 100).toFixed(0)} %`;
        const line = el('p', 'cause-split', `idle split (HTA): host wait ${q(sp.host_wait_us)}, kernel wait ${q(sp.kernel_wait_us)}, other ${q(sp.other_us)}`);
        line.dataset.device = String(i);
        line.title = 'host wait: the next kernel was launched after the gap began; kernel wait: kernels < 30 ns apart; other: launched earlier (a wait on a stream or event), no launch known, after the last kernel';
        sec.append(line);
      }
    });
    return sec;
  }

  // issue 34: the devices' memory and the memory counters (memory.js)
  const showMemory = (d) => memorySection(d, { M, el, go, fmtUs, fmtCount, tableOf, wrapped });

  // The TFLOP/s and % of peak cells of the tables (issue 33), filled once
  // the efficiency is known (roofline.js computes it after the panel is drawn).
  const PENDING = 'measuring: the ops’ shapes are being read (How well the hardware is used, below)';
  function fillEff(eff) {
    for (const tr of body.querySelectorAll('tr[data-eff-kinds]')) {
      const cells = effCells(eff, tr.dataset.name, tr.dataset.effKinds.split(','), PENDING);
      const tds = tr.querySelectorAll('td.eff');
      cells.forEach((c, j) => { tds[j].textContent = c.text; tds[j].title = c.title; });
    }
  }
  if (efficiency) efficiency.onComputed((eff) => { if (!panel.hidden) fillEff(eff); });

  // One table of ops (kernels, host ops, runtime calls: analyze.h's JSON),
  // names cut in the middle (the full name on hover), a click selecting
  // every event of the name; effKinds: the efficiency's row kinds its names
  // are matched against (TFLOP/s and % of peak columns).
  function showTable(d, key, title, extra, effKinds) {
    const rows = d[key] || [];
    const sec = el('section', `overview-${key}`);
    sec.append(el('h3', null, `${title} (${rows.length})`));
    const heads = ['name', 'count', 'total', 'self', 'p50', 'p90', 'p99', 'max'];
    if (extra) heads.push(extra.head);
    const withEff = efficiency && effKinds;
    if (withEff) heads.push('TFLOP/s', '% of peak');
    const [table, tb] = tableOf(`overview-${key.replace('_', '-')}`, heads);
    const short = shortNames(rows.map((o) => o.name), NAME_W);
    rows.forEach((o, i) => {
      const tr = el('tr');
      tr.dataset.op = String(i);
      const name = el('td', 'name');
      const b = go(short[i], 'op', () => {
        const n = withCString(o.name, (p) => M._st_wasm_select_name(p));
        for (const x of body.querySelectorAll('tr.active')) x.classList.remove('active');
        tr.classList.add('active');
        meta.textContent = n >= 0 ? `${fmtCount(n)} ${o.name.length > 40 ? `${o.name.slice(0, 39)}…` : o.name} selected` : meta.textContent;
      }, o.name);
      name.title = o.name;
      name.append(b);
      tr.append(name, el('td', null, fmtCount(o.count)));
      for (const k of ['total_us', 'self_us', 'p50_us', 'p90_us', 'p99_us', 'max_us']) tr.append(el('td', null, fmtUs(o[k])));
      if (extra) {
        const td = el('td', 'name', extra.cell(o));
        td.title = extra.title(o);
        tr.append(td);
      }
      if (withEff) {
        tr.dataset.name = o.name;
        tr.dataset.effKinds = effKinds.join(',');
        tr.append(el('td', 'eff'), el('td', 'eff'));
      }
      tb.append(tr);
    });
    if (rows.length) sec.append(wrapped(table));
    else sec.append(el('p', 'note', `No ${title.toLowerCase()}.`));
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
    meta.textContent = `${d.traces.length} file${d.traces.length === 1 ? '' : 's'} · ${d.devices.length} device${d.devices.length === 1 ? '' : 's'} · ${nsteps ? `${fmtCount(nsteps)} steps` : 'no steps'}`;
    stepInfo.textContent = stepName ? `steps: every “${stepName.length > 40 ? `${stepName.slice(0, 39)}…` : stepName}”`
      : `steps: ${[...froms].map((f) => ({ profiler_step: 'ProfilerStep#N', steps_line: 'the Steps line', none: 'none (whole range)', named: 'named' })[f] || f).join(', ')}`;
    autoSteps.hidden = !stepName;
    if (d.stragglers.length) {
      const p = el('p', 'stragglers bad');
      p.id = 'overview-stragglers';
      p.textContent = `Stragglers (per-step compute, median ${fmtUs(d.stragglers[0].median)}): ${d.stragglers.map((s) => `${d.traces[s.trace].group} ${fmtUs(s.value)} (score ${s.score.toFixed(1)})`).join(', ')}`;
      body.append(p);
    }
    body.append(showCauses(d));
    if (d.traces.length > 1 && collectivesLine) { // collectives.js: who waited for whom, in one line
      const p = el('p', 'collectives-line');
      p.id = 'overview-collectives';
      p.textContent = 'Collectives: matching…';
      body.append(p);
      collectivesLine().then((c) => {
        p.textContent = c && c.collectives.length ? `Collectives: ${c.collectives_summary}` : 'Collectives: none found';
        if (c && last === d) { // the heatmap's waited / caused cells (the analysis itself stays the CLI's)
          heat.show(heatmapData({ ...d, waits: c.waits }));
        }
      }, () => { p.textContent = 'Collectives: could not be read'; });
    }
    body.append(showDevices(d));
    if (d.traces.length > 1) {
      body.append(heatBox);
      heat.show(heatmapData(d));
    }
    const row = el('div', 'overview-row');
    row.append(
      showTable(d, 'kernels', 'Top kernels by self time', {
        head: 'launched by',
        cell: (o) => (o.launched_by ? shortNames([o.launched_by], 40)[0] : '–'),
        title: (o) => o.launched_by || 'no launcher found (no flow into it, no XLA op over it)',
      }, ['kernel', 'xla']),
      showTable(d, 'host_ops', 'Top host ops by self time', null, ['op']),
      showTable(d, 'runtime', 'Runtime calls', {
        head: 'blocked the device',
        cell: (o) => `${fmtUs(o.blocked_us)}${o.blocked_pct === null ? '' : ` (${o.blocked_pct.toFixed(1)} %)`}`,
        title: () => 'the device idle time while this call was the host\'s innermost slice (idle causes)',
      }),
      showMemory(d),
    );
    body.append(row);
    if (efficiency) fillEff(efficiency.last());
    if (extra) body.append(extra(d));
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
    if (show) button.hidden = false; // `o` and the button agree: a trace is shown
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
  if (window.strata && window.strata.traces().length) button.hidden = false; // loaded before this ran
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
    // the panel's analysis (core/app keeps it), made now without drawing the panel
    analyzeNow: () => withCString(stepName, (p) => M._st_wasm_analyze(p, -1, PANEL.gaps)),
    heatmap: heat,
    heatmapData,
  };
}
