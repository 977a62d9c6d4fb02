// How well the hardware is used (issue 33), in the overview: each op's
// FLOPs, bytes, TFLOP/s, GB/s and % of peak, the roofline (log-log: one
// dot per op, its area by time, the device's compute and memory roofs;
// hover for the figures, a click selects the op's events) and the share of
// device time with no FLOP count. The figures are core/analysis/efficiency.h's
// (core/app/app_efficiency.c), the same as `strata analyze --json`'s
// "efficiency": the page reads the args of the events the core names (the
// details pane's reads), the core turns each into a cost and builds the
// rest. Names are untrusted: textContent only.

const SVG = 'http://www.w3.org/2000/svg';

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

const fmt = (v, d = 3) => (v === null || v === undefined ? '–' : String(Number(Number(v).toPrecision(d))));

// The efficiency's row (kinds: its row kinds, "op", "kernel", "xla", the
// first that has the name wins) of a name, or null: the name has no FLOP count.
const byName = new WeakMap(); // eff -> Map(kind + '\0' + name -> row)
export function effRow(eff, name, kinds) {
  let m = byName.get(eff);
  if (!m) {
    m = new Map();
    for (const o of eff.ops) if (!m.has(`${o.kind}\0${o.name}`)) m.set(`${o.kind}\0${o.name}`, o);
    byName.set(eff, m);
  }
  for (const k of kinds) {
    const o = m.get(`${k}\0${name}`);
    if (o) return o;
  }
  return null;
}

// The op tables' (the overview's top kernels and host ops, Op stats) TFLOP/s
// and % of peak cells of a name: [{text, title}, {text, title}] from the
// efficiency `eff` (null: not known yet, "…" with `pending` as the title);
// a name without a row: "–", it has no FLOP count.
export function effCells(eff, name, kinds, pending) {
  if (!eff) return [{ text: '…', title: pending }, { text: '…', title: pending }];
  const o = effRow(eff, name, kinds);
  if (!o) {
    const why = 'no FLOP count: no shapes were recorded for it (record_shapes=True), or strata has no formula for this op';
    return [{ text: '–', title: why }, { text: '–', title: why }];
  }
  const of = `${o.count} × · ${(o.flops / 1e9).toPrecision(4)} GFLOP in ${fmtTime(o.time_us)} of device time`;
  const tf = o.tflops === null ? { text: '–', title: `no device time to divide ${of}` }
    : { text: fmt(o.tflops), title: `${o.tflops} TFLOP/s: ${of}` };
  const pct = o.pct_of_peak === null ? { text: '–', title: 'no peak known for its device: set one in the overview (How well the hardware is used)' }
    : { text: fmt(o.pct_of_peak), title: `${o.pct_of_peak} % of the device's peak${o.bound ? ` · ${o.bound}-bound` : ''}` };
  return [tf, pct];
}

function fmtTime(us) {
  if (us >= 1e6) return `${(us / 1e6).toPrecision(3)} s`;
  if (us >= 1e3) return `${(us / 1e3).toPrecision(3)} ms`;
  return `${Number(us).toPrecision(3)} us`;
}

/**
 * deps: {M, str, withCString, argsFor(src, handle) -> Promise<{args}|{error}>,
 * onSelect(text)}. Returns {section(), compute(opts), ensure(analyze), last(),
 * figuresOf(name), onComputed(fn)}.
 */
export function createRoofline({ M, str, withCString, argsFor, onSelect }) {
  let costs = null; // Float64Array, 6 per wanted event, of the analysis read last
  let wantedKey = '';
  let lastEff = null;
  let peakT = 0;
  let peakG = 0;
  const listeners = []; // fn(eff) after each efficiency computed (the op tables' columns)
  let reading = null; // {key, promise} of the args being read
  window.addEventListener('strata:loaded', () => { lastEff = null; });

  // Up to AUTO events' args are read when the overview opens; more wait
  // for a click (they share the details pane's read queue).
  const AUTO = 2000;

  async function readCosts(progress) {
    const wanted = JSON.parse(str(M._st_wasm_eff_wanted()));
    if (!wanted) return null;
    const key = wanted.map((w) => `${w.h}:${w.src}`).join(',');
    if (costs && key === wantedKey) return costs;
    if (reading && reading.key === key) return reading.promise;
    const promise = readAll(wanted, key, progress);
    reading = { key, promise };
    try {
      return await promise;
    } finally {
      if (reading && reading.promise === promise) reading = null;
    }
  }

  async function readAll(wanted, key, progress) {
    const c = new Float64Array(wanted.length * 6).fill(-1);
    for (let i = 0; i < wanted.length; i++) {
      const w = wanted[i];
      if (progress && i % 200 === 0) progress(i, wanted.length);
      const res = await argsFor(w.src, w.h);
      if (!res || !res.args) continue;
      const text = typeof res.args === 'string' ? res.args : JSON.stringify(res.args);
      const v = JSON.parse(withCString(w.name, (pn) => withCString(text, (pa) => str(M._st_wasm_op_cost(pn, pa)))));
      if (v) c.set(v, i * 6);
    }
    costs = c;
    wantedKey = key;
    return c;
  }

  // The efficiency JSON of the overview's analysis (null: nothing shown).
  async function compute(opts = {}, progress) {
    if (opts.peakTflops !== undefined) peakT = Number(opts.peakTflops) || 0;
    if (opts.peakGbps !== undefined) peakG = Number(opts.peakGbps) || 0;
    const c = await readCosts(progress);
    if (!c) return null;
    const bytes = new Uint8Array(c.buffer);
    const p = M._malloc(bytes.length || 8);
    try {
      M.HEAPU8.set(bytes, p);
      lastEff = JSON.parse(str(M._st_wasm_eff_json(p, c.length / 6, peakT, peakG)));
    } finally {
      M._free(p);
    }
    for (const f of listeners) f(lastEff);
    return lastEff;
  }

  // The efficiency as soon as it can be had without asking: the last one,
  // else computed when its args are few (<= AUTO: as the overview would);
  // null when the overview's Measure must be pressed. analyze() makes the
  // overview's analysis when there is none yet.
  async function ensure(analyze) {
    if (lastEff) return lastEff;
    let wanted = JSON.parse(str(M._st_wasm_eff_wanted()));
    if (!wanted && analyze) {
      analyze();
      wanted = JSON.parse(str(M._st_wasm_eff_wanted()));
    }
    if (!wanted || wanted.length > AUTO) return null;
    return compute({});
  }

  function chart(eff, box, info) {
    const ops = eff.ops.filter((o) => o.kind !== 'kernel' && o.intensity !== null && o.tflops > 0);
    const peak = eff.device_peaks.find((p) => p.tflops && p.gbps) || null;
    const W = 520, H = 300, L = 56, B = 36, T = 10, R = 10;
    const s = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img' });
    s.id = 'roofline-chart';
    s.setAttribute('aria-label', 'Roofline: achieved TFLOP/s against arithmetic intensity (FLOP/byte), log-log');
    box.append(s);
    const xs = ops.map((o) => o.intensity), ys = ops.map((o) => o.tflops);
    if (peak) xs.push(peak.tflops * 1000 / peak.gbps), ys.push(peak.tflops);
    if (!xs.length) {
      s.append(Object.assign(svg('text', { x: L, y: H / 2 }), { textContent: 'no op with a FLOP count and bytes' }));
      return;
    }
    const lx0 = Math.floor(Math.log10(Math.min(...xs)) - 0.5), lx1 = Math.ceil(Math.log10(Math.max(...xs)) + 0.5);
    const ly0 = Math.floor(Math.log10(Math.min(...ys)) - 0.5), ly1 = Math.ceil(Math.log10(Math.max(...ys)) + 0.3);
    const X = (v) => L + (Math.log10(v) - lx0) / (lx1 - lx0) * (W - L - R);
    const Y = (v) => H - B - (Math.log10(v) - ly0) / (ly1 - ly0) * (H - B - T);
    s.append(svg('rect', { x: L, y: T, width: W - L - R, height: H - B - T, class: 'roofline-frame' }));
    for (let e = lx0; e <= lx1; e++) {
      s.append(svg('line', { x1: X(10 ** e), x2: X(10 ** e), y1: T, y2: H - B, class: 'roofline-grid' }));
      s.append(Object.assign(svg('text', { x: X(10 ** e), y: H - B + 14, 'text-anchor': 'middle', class: 'roofline-tick' }), { textContent: `1e${e}` }));
    }
    for (let e = ly0; e <= ly1; e++) {
      s.append(svg('line', { x1: L, x2: W - R, y1: Y(10 ** e), y2: Y(10 ** e), class: 'roofline-grid' }));
      s.append(Object.assign(svg('text', { x: L - 4, y: Y(10 ** e) + 4, 'text-anchor': 'end', class: 'roofline-tick' }), { textContent: `1e${e}` }));
    }
    s.append(Object.assign(svg('text', { x: (L + W) / 2, y: H - 4, 'text-anchor': 'middle', class: 'roofline-axis' }), { textContent: 'FLOP / byte' }));
    s.append(Object.assign(svg('text', { x: 12, y: (T + H - B) / 2, transform: `rotate(-90 12 ${(T + H - B) / 2})`, 'text-anchor': 'middle', class: 'roofline-axis' }), { textContent: 'TFLOP/s' }));
    if (peak) {
      // memory roof: TFLOP/s = intensity x GB/s / 1000, up to the ridge; then the compute roof
      const ridge = peak.tflops * 1000 / peak.gbps;
      const x0 = 10 ** lx0, x1 = 10 ** lx1;
      const yAt = (x) => Math.min(peak.tflops, x * peak.gbps / 1000);
      const mem = svg('polyline', { points: `${X(x0)},${Y(Math.max(yAt(x0), 10 ** ly0))} ${X(ridge)},${Y(peak.tflops)} ${X(x1)},${Y(peak.tflops)}`, class: 'roofline-roof' });
      mem.id = 'roofline-roof';
      s.append(mem);
      s.append(Object.assign(svg('text', { x: W - R - 4, y: Y(peak.tflops) - 4, 'text-anchor': 'end', class: 'roofline-tick' }), { textContent: `${fmt(peak.tflops, 4)} TFLOP/s · ${fmt(peak.gbps, 4)} GB/s` }));
    }
    const tmax = Math.max(...ops.map((o) => o.time_us), 1e-9);
    ops.forEach((o, i) => {
      const r = 3 + 13 * Math.sqrt(o.time_us / tmax); // area by time
      const c = svg('circle', { cx: X(o.intensity), cy: Y(o.tflops), r, class: `roofline-dot ${o.bound || ''}` });
      c.dataset.op = String(i);
      const tip = `${o.name}\n${fmt(o.tflops)} TFLOP/s · ${fmt(o.gbps)} GB/s · ${o.pct_of_peak === null ? '–' : `${fmt(o.pct_of_peak)} % of peak`}\n${fmt(o.intensity)} FLOP/byte · ${o.bound || 'bound unknown'} · ${fmtTime(o.time_us)} · ${o.count} ×`;
      const title = svg('title');
      title.textContent = tip;
      c.append(title);
      c.addEventListener('mouseenter', () => { info.textContent = tip.replace(/\n/g, ' · '); });
      c.addEventListener('click', () => {
        const n = withCString(o.name, (p) => M._st_wasm_select_name(p));
        for (const x of s.querySelectorAll('.roofline-dot.active')) x.classList.remove('active');
        c.classList.add('active');
        if (onSelect) onSelect(n >= 0 ? `${n} ${o.name.length > 40 ? `${o.name.slice(0, 39)}…` : o.name} selected` : '');
      });
      s.append(c);
    });
  }

  function table(eff) {
    const t = el('table', 'overview-table roofline-ops');
    const head = el('tr');
    for (const h of ['op', 'kind', 'count', 'GFLOP', 'time', 'TFLOP/s', 'GB/s', '% of peak', 'FLOP/byte', 'bound']) head.append(el('th', null, h));
    const thead = el('thead');
    thead.append(head);
    const tb = el('tbody');
    for (const o of eff.ops) {
      const tr = el('tr');
      tr.append(el('td', 'name', o.name), el('td', null, o.kind), el('td', null, String(o.count)), el('td', null, (o.flops / 1e9).toFixed(3)),
        el('td', null, fmtTime(o.time_us)), el('td', null, fmt(o.tflops)), el('td', null, fmt(o.gbps)),
        el('td', null, o.pct_of_peak === null ? '–' : fmt(o.pct_of_peak)), el('td', null, fmt(o.intensity)), el('td', null, o.bound || '–'));
      tb.append(tr);
    }
    t.append(thead, tb);
    return t;
  }

  function render(sec, eff) {
    sec.replaceChildren(el('h3', null, 'How well the hardware is used'));
    if (!eff) {
      sec.append(el('p', 'note', 'No analysis to measure.'));
      return;
    }
    if (eff.no_flops_pct > 0) {
      const p = el('p', 'note roofline-coverage', `${Math.round(eff.no_flops_pct)} % of device time has no FLOP count: record shapes to get it`);
      p.id = 'roofline-coverage';
      sec.append(p);
    }
    const peaks = el('p', 'roofline-peaks');
    peaks.id = 'roofline-peaks';
    peaks.textContent = eff.device_peaks.map((p, i) => `device ${i}: ${p.name || 'unnamed'}, ${p.tflops ? `${fmt(p.tflops, 4)} TFLOP/s (${eff.headline_dtype})` : 'TFLOP/s unknown'}, ${p.gbps ? `${fmt(p.gbps, 4)} GB/s` : 'GB/s unknown'}`).join('; ');
    const form = el('p', 'roofline-settings');
    const number = (id, placeholder, v) => {
      const i = el('input');
      i.type = 'number';
      i.min = '0';
      i.id = id;
      i.placeholder = placeholder;
      i.value = v ? String(v) : '';
      return i;
    };
    const inT = number('roofline-peak-tflops', 'peak TFLOP/s', peakT);
    const inG = number('roofline-peak-gbps', 'peak GB/s', peakG);
    const apply = async () => render(sec, await compute({ peakTflops: inT.value, peakGbps: inG.value }));
    inT.addEventListener('change', apply);
    inG.addEventListener('change', apply);
    form.append(el('span', null, 'peaks of every device (empty: from the file or the table): '), inT, inG);
    const info = el('p', 'roofline-info');
    info.id = 'roofline-info';
    const box = el('div', 'roofline-box');
    sec.append(peaks, form);
    chart(eff, box, info);
    sec.append(box, info, table(eff));
  }

  // A section of the overview that fills once the args are read (at once
  // up to AUTO ops, else on a click).
  function section() {
    const sec = el('section', 'overview-efficiency');
    sec.id = 'overview-efficiency';
    const note = el('p', 'note', 'reading the ops’ shapes…');
    sec.append(el('h3', null, 'How well the hardware is used'), note);
    const run = () => compute({}, (i, n) => { note.textContent = `reading the ops’ shapes: ${i} of ${n}…`; }).then((eff) => render(sec, eff), (e) => {
      sec.replaceChildren(el('h3', null, 'How well the hardware is used'), el('p', 'note', `could not measure: ${e && e.message ? e.message : e}`));
    });
    // after the panel is drawn (the key that opens it stays quick)
    setTimeout(() => {
      const wanted = JSON.parse(str(M._st_wasm_eff_wanted()));
      const key = wanted ? wanted.map((w) => `${w.h}:${w.src}`).join(',') : '';
      if (!wanted || wanted.length <= AUTO || (costs && key === wantedKey)) {
        run();
        return;
      }
      note.textContent = `${wanted.length} ops may have a FLOP count: their args are read from the file first. `;
      const b = el('button', null, 'Measure');
      b.type = 'button';
      b.id = 'roofline-measure';
      b.addEventListener('click', () => { b.remove(); run(); });
      note.append(b);
    }, 0);
    return sec;
  }

  // The details pane's figures of a kernel (or an XLA op) by its name, from
  // the last efficiency computed (the overview's): {tflops, pct} texts, or null.
  function figuresOf(name) {
    if (!lastEff || !name) return null;
    const o = lastEff.ops.find((x) => x.kind === 'kernel' && x.name === name) || lastEff.ops.find((x) => x.kind === 'xla' && x.name === name);
    if (!o || o.tflops === null) return null;
    const of = o.count === 1 ? '' : ` (${o.count} instances of this name)`;
    return {
      tflops: `${fmt(o.tflops)} TFLOP/s · ${fmt(o.gbps)} GB/s · ${fmt(o.intensity)} FLOP/byte${of}`,
      pct: o.pct_of_peak === null ? undefined : `${fmt(o.pct_of_peak)} %${o.bound ? ` · ${o.bound}-bound` : ''}`,
    };
  }

  return { section, compute, ensure, last: () => lastEff, figuresOf, onComputed: (f) => listeners.push(f), AUTO };
}
