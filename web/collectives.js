// collectives.js: why a distributed step is slow (issue 32; core/analysis/collectives.h).
// The collectives of the files shown matched across them, read through the core
// (app.h "collectives"): each file's decoded bytes are handed over one file at a
// time (its args: record_param_comms's group, Seq and sizes), then the JSON
// `strata analyze --json` writes. A table (per collective: step, kind, group,
// bytes, duration, busbw, skew, blocker; sortable) whose row selects the
// collective's kernels on every rank and states its arrival spread; the
// one-line summary; and the alignment of the files' clocks by the
// collectives (window.strata.align('collectives'), ?align=collectives).
// Names from the files go into the DOM as text only.

const COLS = [
  ['step', 'step', (c) => c.step],
  ['kind', 'kind', (c) => c.kind],
  ['group', 'group', (c) => c.group],
  ['bytes', 'bytes', (c) => c.bytes],
  ['dur_us', 'duration', (c) => c.dur_us],
  ['busbw_gbps', 'busbw', (c) => c.busbw_gbps],
  ['skew_us', 'skew', (c) => c.skew_us],
  ['blocker', 'blocker', (c) => c.blocker],
];
const MAX_ROWS = 200; // rows drawn at once (the sort picks which; the count is stated)

// The whole decoded input of a file shown ({read, size, compressed}).
async function wholeFile(f) {
  const raw = await f.read(0, f.size);
  if (!f.compressed) return raw;
  const out = new Blob([raw]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export function createCollectives({ M, str, files, traces, analyze, emit, fmtDur, onAligned }) {
  let last = null; // the JSON of the last run, for the files then shown
  let lastKey = '';
  let sortKey = 'step';
  let sortDesc = false;

  const key = () => traces().map((t) => `${t.handle}@${t.offset_us}`).join(',');

  // One pass: file by file, each file's decoded bytes handed to the core (null: the
  // analysis it was over went meanwhile, e.g. the overview analysed again).
  async function pass(list) {
    analyze();
    if (!M._st_wasm_coll_begin()) return null;
    const shown = files();
    for (let k = 0; k < list.length; k++) {
      const f = shown.get(list[k].handle);
      let bytes = null;
      try {
        bytes = f ? await wholeFile(f) : null;
      } catch {
        bytes = null; // unreadable: its kernels' names only
      }
      const p = bytes && bytes.length ? M._malloc(bytes.length) : 0;
      if (p) M.HEAPU8.set(bytes, p);
      const ok = M._st_wasm_coll_add(k, p, p ? bytes.length : 0);
      if (p) M._free(p);
      if (!ok) return null;
    }
    return JSON.parse(str(M._st_wasm_coll_finish()));
  }

  // Resolves the collectives' JSON of the files shown (null: none shown).
  async function run() {
    const list = traces();
    if (!list.length) return null;
    const k = list.map((t) => t.handle).join(',');
    if (last && lastKey === k) return last;
    let d = null;
    for (let attempt = 0; attempt < 3 && !d; attempt++) d = await pass(list);
    last = d;
    lastKey = d ? k : '';
    return d;
  }

  // Moves the files onto the collectives' clock: {aligned, clock_offsets, unaligned, traces}.
  async function align() {
    const d = await run();
    if (!d) throw new Error('strata.align: no trace shown');
    const moved = M._st_wasm_coll_align();
    const list = traces();
    emit('strata:offsets', list);
    if (onAligned) onAligned();
    return { aligned: moved > 0, clock_offsets: d.clock_offsets, unaligned: d.unaligned, traces: list };
  }

  // ---- the panel ----
  const panel = document.createElement('section');
  panel.id = 'collectives-panel';
  panel.className = 'collectives-panel';
  panel.hidden = true;
  const head = document.createElement('header');
  const title = document.createElement('h2');
  title.textContent = 'Collectives';
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'close';
  close.textContent = '×';
  close.title = 'Close';
  close.setAttribute('aria-label', 'Close');
  close.addEventListener('click', () => { panel.hidden = true; });
  head.append(title, close);
  const summary = document.createElement('p');
  summary.className = 'collectives-summary';
  const spread = document.createElement('p');
  spread.className = 'collectives-spread';
  const count = document.createElement('p');
  count.className = 'collectives-count';
  const table = document.createElement('table');
  table.className = 'collectives-table';
  const thead = document.createElement('thead');
  const htr = document.createElement('tr');
  for (const [k, label] of COLS) {
    const th = document.createElement('th');
    th.textContent = label;
    th.dataset.key = k;
    th.addEventListener('click', () => {
      sortDesc = sortKey === k ? !sortDesc : k !== 'step' && k !== 'kind' && k !== 'group';
      sortKey = k;
      render();
    });
    htr.append(th);
  }
  thead.append(htr);
  const tbody = document.createElement('tbody');
  // a row's click: its collective's kernels selected on every rank, its arrival spread stated
  tbody.addEventListener('click', async (e) => {
    const tr = e.target.closest('tr');
    if (!tr || !last) return;
    const i = Number(tr.dataset.index);
    const c = last.collectives[i];
    for (const r of tbody.querySelectorAll('tr.selected')) r.classList.remove('selected');
    tr.classList.add('selected');
    if (M._st_wasm_coll_select(i) < 0) { // the analysis was made again since: match again
      last = null;
      await run();
      M._st_wasm_coll_select(i);
    }
    showSpread(c);
  });
  table.append(thead, tbody);
  // the critical path of a chosen step: selected (outlined) on the timeline, stated here
  const pathBar = document.createElement('div');
  pathBar.className = 'collectives-pathbar';
  const pathLabel = document.createElement('label');
  pathLabel.textContent = 'critical path of step ';
  const pathStep = document.createElement('input');
  pathStep.type = 'number';
  pathStep.id = 'collectives-path-step';
  pathStep.min = '0';
  pathStep.style.width = '5em';
  pathLabel.append(pathStep);
  const pathGo = document.createElement('button');
  pathGo.type = 'button';
  pathGo.id = 'collectives-path-button';
  pathGo.textContent = 'Show';
  const pathText = document.createElement('p');
  pathText.className = 'collectives-path';
  pathBar.append(pathLabel, pathGo);
  pathGo.addEventListener('click', async () => {
    const p = await api.criticalPath(Number(pathStep.value));
    readNames();
    pathText.textContent = p ? `step ${p.step}, ${fmtDur(p.total_us * 1000)}: ` + p.segments.map((g) =>
      `${groupOf(g.trace)} ${g.kind === 'collective' ? g.name : 'compute'} ${fmtDur((g.end_us - g.start_us) * 1000)}`).join(' → ')
      : 'no such step with collectives';
  });
  panel.append(head, summary, pathBar, pathText, spread, count, table);
  document.body.append(panel);

  let names = []; // per trace: its group (else its name), read once per render
  const groupOf = (k) => names[k] ?? `trace ${k}`;
  const readNames = () => { names = traces().map((t) => t.group || t.name); };
  const bytesText = (b) => (b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`);

  function showSpread(c) {
    readNames();
    const first = c.ranks.reduce((a, r) => (r.start_us < a.start_us ? r : a), c.ranks[0]);
    spread.textContent = `${c.kind} ${c.group ? `(group ${c.group}) ` : ''}step ${c.step}: ` +
      `${c.ranks.length} ranks arrived over ${fmtDur(c.skew_us * 1000)}, first ${groupOf(first.trace)}, ` +
      `last ${groupOf(c.blocker)}; the others waited ${fmtDur(c.ranks.reduce((s, r) => s + r.wait_us, 0) * 1000)} in all`;
    spread.dataset.skew = String(c.skew_us);
  }

  // A column's sort key per collective, as numbers (text: its rank among the
  // column's values), made once per run and column.
  let keysOf = null;
  let keysCache = new Map();
  function sortKeys(name) {
    if (keysOf !== last) {
      keysOf = last;
      keysCache = new Map();
    }
    if (!keysCache.has(name)) {
      const get = COLS.find((x) => x[0] === name)[2];
      const vals = last.collectives.map(get);
      let k;
      if (typeof vals[0] === 'string') {
        const order = new Map([...new Set(vals)].sort().map((v, i) => [v, i]));
        k = Float64Array.from(vals, (v) => order.get(v));
      } else {
        k = Float64Array.from(vals, (v) => v ?? 0);
      }
      keysCache.set(name, k);
    }
    return keysCache.get(name);
  }

  // The first MAX_ROWS collectives' indices in a column's order (kept per run,
  // column and direction): a bounded heap over the n rows, O(n log MAX_ROWS),
  // then those few sorted, rather than all n sorted for the rows shown.
  function sortedBy(name, desc) {
    sortKeys(name); // resets the cache for a new run
    const id = `${name}:${desc ? 1 : 0}`;
    if (!keysCache.has(id)) {
      const k = sortKeys(name);
      const dir = desc ? -1 : 1;
      const before = (a, b) => (k[a] - k[b]) * dir < 0 || ((k[a] - k[b]) * dir === 0 && a < b);
      const m = Math.min(MAX_ROWS, k.length);
      const heap = new Uint32Array(m); // a max-heap by `before`: heap[0] is the last of the kept
      let size = 0;
      const down = (i) => {
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let w = i;
          if (l < size && before(heap[w], heap[l])) w = l;
          if (r < size && before(heap[w], heap[r])) w = r;
          if (w === i) return;
          [heap[i], heap[w]] = [heap[w], heap[i]];
          i = w;
        }
      };
      for (let i = 0; i < k.length; i++) {
        if (size < m) {
          let j = size++;
          heap[j] = i;
          while (j > 0 && before(heap[(j - 1) >> 1], heap[j])) {
            const p = (j - 1) >> 1;
            [heap[p], heap[j]] = [heap[j], heap[p]];
            j = p;
          }
        } else if (m && before(i, heap[0])) {
          heap[0] = i;
          down(0);
        }
      }
      const idx = Array.from(heap.subarray(0, size)).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
      keysCache.set(id, idx);
    }
    return keysCache.get(id);
  }

  function render() {
    if (!last) return;
    const t0 = performance.now();
    readNames();
    summary.textContent = last.collectives_summary;
    const idx = sortedBy(sortKey, sortDesc);
    for (const th of htr.children) th.className = th.dataset.key === sortKey ? (sortDesc ? 'sorted desc' : 'sorted') : '';
    const rows = [];
    for (const i of idx) {
      const c = last.collectives[i];
      const tr = document.createElement('tr');
      tr.dataset.index = String(i);
      const cells = [String(c.step), c.kind, c.group, bytesText(c.bytes), fmtDur(c.dur_us * 1000),
        c.busbw_gbps ? `${c.busbw_gbps.toFixed(1)} GB/s` : '–', fmtDur(c.skew_us * 1000), groupOf(c.blocker)];
      for (const t of cells) {
        const td = document.createElement('td');
        td.textContent = t;
        tr.append(td);
      }
      rows.push(tr);
    }
    tbody.replaceChildren(...rows);
    const n = last.collectives.length;
    count.textContent = `${n} collective${n === 1 ? '' : 's'}` +
      (n > MAX_ROWS ? `; the first ${MAX_ROWS} in this order shown (click a header to sort)` : '');
    panel.dataset.renderMs = String(performance.now() - t0); // tools/benchmarks/bench_collectives.mjs
  }

  async function show() {
    panel.hidden = false;
    summary.textContent = 'Matching the collectives…';
    const d = await run();
    if (!d) {
      summary.textContent = 'No trace shown.';
      return null;
    }
    render();
    return d;
  }

  // ?align=collectives: once files are loaded, align them.
  window.addEventListener('strata:loaded', () => {
    last = null;
    if (new URLSearchParams(location.search).get('align') === 'collectives' && traces().length > 1) {
      align().catch(() => {});
    }
  });

  const api = {
    run,
    align,
    show,
    // the collective at row index i of the last run selected (its kernels on every rank)
    select: (i) => {
      const tr = tbody.querySelector(`tr[data-index="${Number(i)}"]`);
      if (tr) tr.click();
      else M._st_wasm_coll_select(Number(i));
      return last ? last.collectives[Number(i)] : null;
    },
    // Selects step `step`'s critical path on the timeline: {step, total_us, segments}.
    criticalPath: async (step) => {
      let d = await run();
      if (!d) return null;
      if (M._st_wasm_coll_path_select(Number(step)) < 0) { // the analysis went: match again
        last = null;
        d = await run();
        if (!d || M._st_wasm_coll_path_select(Number(step)) < 0) return null;
      }
      return d.critical_path.find((p) => p.step === Number(step)) || null;
    },
    // The critical path's cross-rank edges drawn as arrows: {step, arrows: [{from_trace,
    // from_us, to_trace, to_us}]} (the collectives' clock), null when none are shown.
    pathArrows: () => JSON.parse(str(M._st_wasm_coll_path_arrows_json())),
    panel,
    stale: () => key() !== lastKey,
  };
  return api;
}
