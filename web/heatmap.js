// heatmap.js: the ranks x steps heatmap of a profile of several files (issue
// 18): one row per file (a rank or host), one column per step number, a cell
// coloured by one figure of that file's step (step time, compute, idle or
// comm wait; cells.js below), drawn on a 2D canvas so 256 ranks x 200 steps
// redraw within a frame. The stragglers (analyze's `ranks`) have their row
// marked and named. Hover shows a cell's value; a click calls onCell(trace,
// step) (the overview zooms the timeline to that rank's step). Names are
// untrusted: drawn on the canvas or set as textContent, never as HTML.

export const METRICS = {
  step: 'step time',
  compute: 'compute',
  idle: 'idle',
  comm_wait: 'comm wait',
  waited: 'waited (collectives)',
  caused: 'caused (collectives)',
};

const LABEL_W = 150; // px of the row labels
const TOP = 18; // px of the step axis above the cells

// The heatmap's data from an analysis (analyze.h's JSON): rows = traces,
// columns = the step numbers present in any, a cell per (trace, step):
//   step      the step's wall time (steps[].wall_us)
//   compute   the mean over the trace's devices of that step's compute_us
//   idle      the mean of its idle_us
//   comm_wait the mean of the communication not overlapped with compute:
//             comm_us * (1 - overlap_pct / 100)
//   waited    the rank's time in the step's collectives waiting for a later rank
//   caused    the other ranks' wait at the step's collectives it arrived last at
//             (both from an.waits: collectives.js; NaN until they are known)
// (NaN where a trace lacks the step.)
export function heatmapData(an) {
  const rows = an.traces.map((t, k) => ({ trace: k, name: t.group || t.file || `file ${k}`, straggler: false, score: null }));
  for (const r of an.ranks || []) if (rows[r.trace]) { rows[r.trace].straggler = !!r.straggler; rows[r.trace].score = r.score; }
  const nums = [...new Set(an.steps.map((s) => s.step))].sort((a, b) => a - b);
  const col = new Map(nums.map((n, j) => [n, j]));
  const R = rows.length;
  const C = nums.length;
  const make = () => new Float64Array(R * C).fill(NaN);
  const v = { step: make(), compute: make(), idle: make(), comm_wait: make(), waited: make(), caused: make() };
  for (const w of an.waits || []) {
    const j = col.get(w.step);
    if (j === undefined || !rows[w.trace]) continue;
    v.waited[w.trace * C + j] = w.waited_us;
    v.caused[w.trace * C + j] = w.caused_us;
  }
  const win = new Float64Array(R * C * 2).fill(NaN); // [start_us, end_us] of each cell's step
  for (const s of an.steps) {
    const i = s.trace * C + col.get(s.step);
    v.step[i] = s.wall_us;
    win[2 * i] = s.start_us;
    win[2 * i + 1] = s.end_us;
  }
  const n = new Uint32Array(R * C);
  const comp = v.compute.fill(0);
  const idle = v.idle.fill(0);
  const wait = v.comm_wait.fill(0);
  for (const p of an.per_step) {
    const j = col.get(p.step);
    if (j === undefined) continue;
    const i = p.trace * C + j;
    n[i]++;
    comp[i] += p.compute_us;
    idle[i] += p.idle_us;
    wait[i] += p.comm_us * (1 - (p.overlap_pct === null ? 0 : p.overlap_pct) / 100);
  }
  for (let i = 0; i < R * C; i++) {
    const k = n[i];
    if (k) { comp[i] /= k; idle[i] /= k; wait[i] /= k; } else comp[i] = idle[i] = wait[i] = NaN;
  }
  return { rows, steps: nums, values: v, windows: win };
}

// The figure that separates the ranks most (issue 29, README "Overview"):
// per figure, each row's median over its steps (NaN cells left out); over
// the rows with a value, med = their median, MAD = the median of |v - med|,
// scale = max(1.4826 MAD, 0.02 |med|, 1e-9); the figure's score is the
// largest (v - med) / scale (a slow rank's); the one with the highest score
// wins (step time on ties, then the order of METRICS). Fewer than 3 rows:
// step time, score null. The collectives' figures (waited, caused) are not
// candidates: they arrive after the panel opens (collectives.js reads the
// files again), and the figure shown must not change under the user then;
// they are the price others paid, the per-rank figures name its cause.
const median = (v) => {
  const a = [...v].sort((x, y) => x - y);
  const n = a.length;
  return n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
};
export function separatingMetric(data) {
  const R = data.rows.length;
  const C = data.steps.length;
  const scores = {};
  let best = 'step';
  for (const m of Object.keys(METRICS)) {
    if (m === 'waited' || m === 'caused') continue;
    const per = [];
    for (let r = 0; r < R; r++) {
      const v = [];
      for (let c = 0; c < C; c++) { const x = data.values[m][r * C + c]; if (x === x) v.push(x); }
      if (v.length) per.push(median(v));
    }
    if (per.length < 3) { scores[m] = null; continue; }
    const med = median(per);
    const mad = median(per.map((x) => Math.abs(x - med)));
    const scale = Math.max(1.4826 * mad, 0.02 * Math.abs(med), 1e-9);
    scores[m] = Math.max(...per.map((x) => (x - med) / scale));
    if (scores[best] === null || scores[best] === undefined || scores[m] > scores[best]) best = m;
  }
  return { metric: best, score: scores[best] ?? null, scores };
}

// Light yellow (low) through orange to dark red (high), 64 steps, as
// RGBA pixels (little-endian: 0xAABBGGRR) for an ImageData.
const STOPS = [[255, 247, 188], [254, 153, 41], [153, 0, 13]];
const RAMP = Array.from({ length: 64 }, (_, i) => {
  const t = (i / 63) * 2;
  const a = STOPS[Math.min(1, Math.floor(t))];
  const b = STOPS[Math.min(2, Math.floor(t) + 1)];
  const f = t - Math.min(1, Math.floor(t));
  const [r, g, bl] = a.map((x, k) => Math.round(x + (b[k] - x) * f));
  return (0xff000000 | (bl << 16) | (g << 8) | r) >>> 0;
});
const WHITE = 0xffffffff;

export const fmtUs = (us) => {
  if (us === null || us === undefined || Number.isNaN(us)) return '–';
  const a = Math.abs(us);
  if (a >= 1e6) return `${(us / 1e6).toFixed(3)} s`;
  if (a >= 1e3) return `${(us / 1e3).toFixed(2)} ms`;
  return `${us.toFixed(1)} us`;
};

/**
 * The heatmap in `root` (an element it fills). onCell(trace, stepNumber,
 * start_us, end_us) on a click. Returns {show(data), setMetric(name), state()}.
 */
export function createHeatmap(root, { onCell }) {
  const bar = document.createElement('div');
  bar.className = 'heatmap-bar';
  const label = document.createElement('label');
  label.textContent = 'cell: ';
  const sel = document.createElement('select');
  sel.id = 'heatmap-metric';
  sel.setAttribute('aria-label', 'Heatmap cell figure');
  for (const [k, name] of Object.entries(METRICS)) sel.append(Object.assign(document.createElement('option'), { value: k, textContent: name }));
  label.append(sel);
  const legend = document.createElement('span');
  legend.className = 'heatmap-legend';
  const strag = document.createElement('span');
  strag.className = 'heatmap-stragglers';
  const why = document.createElement('span');
  why.className = 'heatmap-why';
  why.id = 'heatmap-why';
  bar.append(label, why, legend, strag);
  const wrap = document.createElement('div');
  wrap.className = 'heatmap-wrap';
  const canvas = document.createElement('canvas');
  canvas.id = 'heatmap-canvas';
  canvas.setAttribute('aria-label', 'Ranks x steps heatmap');
  const tip = document.createElement('div');
  tip.className = 'heatmap-tip';
  tip.hidden = true;
  wrap.append(canvas, tip);
  root.append(bar, wrap);

  let data = null;
  let metric = 'step';
  let geom = null; // {x0, y0, cw, ch, R, C}
  let drawMs = 0;
  let img = null; // the cells' pixels

  function draw() {
    const t0 = performance.now();
    const ctx = canvas.getContext('2d');
    if (!data || !data.rows.length || !data.steps.length) {
      canvas.width = canvas.height = 0;
      geom = null;
      drawMs = performance.now() - t0;
      return;
    }
    const R = data.rows.length;
    const C = data.steps.length;
    const cssW = Math.max(300, root.clientWidth || 600);
    const ch = R <= 16 ? 18 : R <= 64 ? 8 : Math.max(2, Math.floor(600 / R));
    const cw = Math.max(1, (cssW - LABEL_W - 8) / C);
    const cssH = TOP + R * ch + 2;
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = `${cssW}px`;
    canvas.style.height = `${cssH}px`;
    if (canvas.width !== Math.round(cssW * dpr)) canvas.width = Math.round(cssW * dpr); // (a resize clears and reallocates)
    if (canvas.height !== Math.round(cssH * dpr)) canvas.height = Math.round(cssH * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const v = data.values[metric];
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < v.length; i++) if (v[i] === v[i]) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i]; }
    const span = hi > lo ? hi - lo : 1;
    // cells: pixels written straight into an ImageData (51200 cells in a few ms)
    const x0 = LABEL_W;
    const y0 = TOP;
    const gap = cw >= 4 ? 1 : 0;
    const gh = ch >= 4 ? 1 : 0;
    const W = canvas.width;
    const H = canvas.height;
    if (!img || img.width !== W || img.height !== H) img = ctx.createImageData(W, H); // kept for redraws
    const px = new Uint32Array(img.data.buffer);
    px.fill(WHITE);
    const xs = new Int32Array(C + 1);
    const xe = new Int32Array(C);
    for (let c = 0; c < C; c++) {
      xs[c] = Math.round((x0 + c * cw) * dpr);
      xe[c] = Math.max(xs[c] + 1, Math.round((x0 + c * cw + cw - gap) * dpr));
    }
    let cells = 0;
    for (let r = 0; r < R; r++) {
      const ya = Math.round((y0 + r * ch) * dpr);
      const yb = Math.min(H, Math.max(ya + 1, Math.round((y0 + r * ch + ch - gh) * dpr)));
      for (let c = 0; c < C; c++) {
        const x = v[r * C + c];
        if (x !== x) continue;
        const col = RAMP[Math.min(63, Math.floor(((x - lo) / span) * 63.999))];
        cells++;
        for (let y = ya; y < yb; y++) px.fill(col, y * W + xs[c], y * W + Math.min(W, xe[c]));
      }
    }
    ctx.putImageData(img, 0, 0);
    // row labels, stragglers marked
    ctx.font = `${Math.min(12, Math.max(7, ch - 4))}px system-ui, sans-serif`;
    ctx.textBaseline = 'middle';
    const every = Math.max(1, Math.ceil(10 / ch));
    for (let r = 0; r < R; r++) {
      const row = data.rows[r];
      const y = y0 + r * ch;
      if (row.straggler) {
        ctx.fillStyle = '#b3261e';
        ctx.fillRect(x0 - 6, y, 4, Math.max(1, ch - gh));
        ctx.strokeStyle = '#b3261e';
        ctx.lineWidth = 1.5;
        ctx.strokeRect(x0 + 0.5, y + 0.5, C * cw - 1, Math.max(1, ch - 1));
      }
      if (r % every === 0 || row.straggler) {
        ctx.fillStyle = row.straggler ? '#b3261e' : '#333';
        const text = row.straggler ? `⚠ ${row.name}` : row.name;
        ctx.fillText(text.length > 22 ? `${text.slice(0, 21)}…` : text, 4, y + ch / 2, LABEL_W - 12);
      }
    }
    // the step axis: a few step numbers
    ctx.fillStyle = '#5b606b';
    ctx.textBaseline = 'alphabetic';
    ctx.font = '10px system-ui, sans-serif';
    const stepEvery = Math.max(1, Math.ceil(40 / cw));
    for (let c = 0; c < C; c += stepEvery) ctx.fillText(String(data.steps[c]), x0 + c * cw, TOP - 5);
    geom = { x0, y0, cw, ch, R, C, cells, lo, hi };
    legend.textContent = `${METRICS[metric]}: ${fmtUs(lo)} (light) … ${fmtUs(hi)} (dark)`;
    const s = data.rows.filter((r) => r.straggler).map((r) => r.name);
    strag.textContent = s.length ? `stragglers: ${s.join(', ')}` : data.rows.length >= 3 ? 'no stragglers' : '';
    strag.classList.toggle('bad', s.length > 0);
    drawMs = performance.now() - t0;
  }

  function cellAt(e) {
    if (!geom) return null;
    const b = canvas.getBoundingClientRect();
    const c = Math.floor((e.clientX - b.left - geom.x0) / geom.cw);
    const r = Math.floor((e.clientY - b.top - geom.y0) / geom.ch);
    if (r < 0 || r >= geom.R || c < 0 || c >= geom.C) return null;
    return { r, c, i: r * geom.C + c };
  }

  canvas.addEventListener('mousemove', (e) => {
    const cell = cellAt(e);
    if (!cell) { tip.hidden = true; return; }
    const row = data.rows[cell.r];
    const x = data.values[metric][cell.i];
    tip.textContent = `${row.name}${row.straggler ? ' (straggler)' : ''} · step ${data.steps[cell.c]} · ${METRICS[metric]} ${fmtUs(x)}`;
    const wb = wrap.getBoundingClientRect();
    tip.style.left = `${Math.round(e.clientX - wb.left + 12)}px`;
    tip.style.top = `${Math.round(e.clientY - wb.top + 12)}px`;
    tip.hidden = false;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  canvas.addEventListener('click', (e) => {
    const cell = cellAt(e);
    if (!cell) return;
    const s0 = data.windows[2 * cell.i];
    const s1 = data.windows[2 * cell.i + 1];
    if (s0 === s0 && s1 > s0) onCell(data.rows[cell.r].trace, data.steps[cell.c], s0, s1);
  });
  let chosen = null; // separatingMetric of the data shown
  sel.addEventListener('change', () => { metric = sel.value; why.textContent = ''; draw(); });

  return {
    // new data: opens on the figure that separates the ranks most, and says so
    show(d) {
      data = d;
      chosen = d && d.rows.length ? separatingMetric(d) : null;
      if (chosen) {
        metric = chosen.metric;
        sel.value = metric;
        why.textContent = chosen.score === null ? ''
          : `showing ${METRICS[metric]}: the figure that separates the ranks most (straggler score ${chosen.score.toFixed(1)})`;
      }
      draw();
      return drawMs;
    },
    setMetric(m) {
      if (!METRICS[m]) throw new Error(`heatmap metric: one of ${Object.keys(METRICS).join(', ')}`);
      metric = m;
      sel.value = m;
      why.textContent = '';
      draw();
    },
    redraw: draw,
    // {metric, rows: [{trace, name, straggler, score}], steps, cell: {x, y, w, h} (cell 0,0 in
    // canvas CSS px), cells (drawn), lo, hi (the figure's range), draw_ms}
    state() {
      if (!data) return null;
      return {
        metric,
        rows: data.rows.map((r) => ({ ...r })),
        steps: data.steps.slice(),
        cell: geom ? { x: geom.x0, y: geom.y0, w: geom.cw, h: geom.ch } : null,
        cells: geom ? geom.cells : 0,
        lo: geom ? geom.lo : null,
        hi: geom ? geom.hi : null,
        draw_ms: drawMs,
        scores: chosen ? { ...chosen.scores } : null,
        why: why.textContent,
      };
    },
  };
}
