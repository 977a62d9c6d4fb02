// flame.js: the flame graph panel. A call tree of CPU samples (or of nested
// slices) aggregated by the core (core/analysis/flame.h via core/app/app_flame.c):
// node 0 is the root, each node spans [x, x + total) of the root's total
// and sits in row `depth`, so the page only places boxes. A click is
// hit-tested by the core and selects the events behind the frame (the
// samples whose stack passes through it, or the slices at exactly that
// path) on the timeline, where f zooms to them and m measures them.
//
// What it shows (the "Flame graph" button): the selection if there is one
// (its samples; its slices with everything nested in them when it holds
// no sample), else the timing mark's range, else the visible window; the
// samples / slices buttons switch between the two trees, and for a range
// the thread menu narrows it to one thread. Names are untrusted:
// textContent only.

const ROW_H = 18; // px per depth row (matches .flame-node in style.css)
const FROM = { selection: 0, mark: 1, window: 2 };

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// A stable warm colour per name (the same frame is the same colour everywhere).
function colourOf(name) {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  h >>>= 0;
  return `hsl(${h % 50 + 8}, ${60 + (h >> 8) % 25}%, ${62 + (h >> 16) % 14}%)`;
}

/**
 * Wires the panel to the module. deps: {M, str (ptr -> string), fmtCount, fmtDur}.
 * Returns {open({from, source}) -> data, data(), close()}.
 */
export function createFlame({ M, str, fmtCount, fmtDur }) {
  const $ = (id) => document.getElementById(id);
  const pane = $('flame');
  const title = $('flame-title');
  const meta = $('flame-meta');
  const body = $('flame-body');
  const tree = $('flame-tree');
  const info = $('flame-info');
  const samplesBtn = $('flame-samples');
  const slicesBtn = $('flame-slices');
  const threadSel = $('flame-thread');
  const canvas = $('canvas');

  let data = null; // {from, start_us, end_us, tree: {source, unit, events, nodes: [...]}}
  let from = -1; // what the shown tree was taken from (FROM), -1: the first that applies
  let track = -1; // a range's thread (a track index), -1: every thread
  let active = -1; // the node whose events are selected

  function take(f, source, tr = track) {
    const n = M._st_wasm_flame_take(f, source, tr);
    active = -1;
    if (n < 0) {
      data = null;
      render();
      return null;
    }
    const w = Math.max(1, tree.clientWidth || body.clientWidth || 800);
    data = JSON.parse(str(M._st_wasm_flame_json(0.5 / w))); // boxes under half a pixel: left out
    from = data ? FROM[data.from] : -1;
    track = data ? data.track : -1;
    render();
    return data;
  }

  function nodeText(n, unit) {
    const share = data.tree.nodes[0].total ? (100 * n.total) / data.tree.nodes[0].total : 0;
    const count = unit === 'samples' ? `${fmtCount(n.total)} samples (${fmtCount(n.self)} self)` : `${fmtCount(n.count)} slices`;
    return `${n.name}: ${share.toFixed(1)}% · total ${n.total_text} · self ${n.self_text} · ${count}`;
  }

  function render() {
    if (!data) {
      pane.hidden = true;
      return;
    }
    const t = data.tree;
    const samples = t.source === 'samples';
    title.textContent = `Flame graph · ${fmtCount(t.events)} ${samples ? 'samples' : 'slices'}`;
    const where = data.from === 'selection' ? 'of the selection'
      : `${data.from === 'mark' ? 'of the timing mark' : 'of the visible window'} (${fmtDur((data.end_us - data.start_us) * 1000)})`;
    const root = t.nodes[0];
    meta.textContent = `${where} · ${root.total_text}${samples ? ' (samples × interval)' : ''}${t.omitted ? ` · ${fmtCount(t.omitted)} narrow frames not drawn` : ''}`;
    // the thread menu: for a range only (a selection already names its threads)
    threadSel.hidden = data.from === 'selection';
    threadSel.replaceChildren(el('option', null, 'all threads'), ...data.threads.map((th) => {
      const where = `${th.file !== undefined ? `${th.file}: ` : ''}pid ${th.pid}, tid ${th.tid}`; // several files: whose
      const o = el('option', null, `${th.name || `tid ${th.tid}`} (${where})`);
      o.value = String(th.track);
      return o;
    }));
    threadSel.firstChild.value = '-1';
    threadSel.value = String(data.track);
    samplesBtn.setAttribute('aria-pressed', samples ? 'true' : 'false');
    slicesBtn.setAttribute('aria-pressed', samples ? 'false' : 'true');
    const total = root.total || 1;
    const boxes = [];
    let depth = 0;
    for (const n of t.nodes) {
      const b = el('div', 'flame-node', n.depth === 0 ? `all (${root.total_text})` : n.name || '(unnamed)');
      b.dataset.i = String(n.i);
      b.style.left = `${(100 * n.x) / total}%`;
      b.style.width = `${(100 * n.total) / total}%`;
      b.style.top = `${n.depth * ROW_H}px`;
      b.style.background = n.depth === 0 ? '#d9dde5' : colourOf(n.name || '');
      b.title = nodeText(n, t.unit);
      if (n.i === active) b.classList.add('active');
      if (n.depth > depth) depth = n.depth;
      boxes.push(b);
    }
    tree.style.height = `${(depth + 1) * ROW_H}px`;
    tree.replaceChildren(...boxes);
    info.textContent = root.total ? 'Click a frame to select its events on the timeline (then f zooms to them).'
      : `Nothing to show: no ${samples ? 'samples' : 'slices'} here.`;
    pane.hidden = false;
  }

  // a click: the core finds the frame (share of the width, row) and selects its events
  tree.addEventListener('click', (e) => {
    if (!data) return;
    const r = tree.getBoundingClientRect();
    const fx = (e.clientX - r.left) / r.width;
    const depth = Math.floor((e.clientY - r.top) / ROW_H);
    const i = M._st_wasm_flame_hit(fx, depth);
    if (i < 0) return;
    const n = M._st_wasm_flame_select(i);
    active = i;
    for (const b of tree.children) b.classList.toggle('active', Number(b.dataset.i) === i);
    const node = data.tree.nodes.find((x) => x.i === i);
    info.textContent = `${fmtCount(Math.max(0, n))} ${data.tree.source === 'samples' ? 'samples' : 'slices'} selected · ${node ? nodeText(node, data.tree.unit) : ''}`;
  });
  tree.addEventListener('mousemove', (e) => {
    const b = e.target.closest('.flame-node');
    if (b && data && active < 0) info.textContent = b.title;
  });
  $('flame-button').addEventListener('click', () => {
    take(-1, -1, -1);
    canvas.focus();
  });
  const sourceNow = () => (data && data.tree.source === 'slices' ? 1 : 0);
  samplesBtn.addEventListener('click', () => take(from, 0, -1));
  slicesBtn.addEventListener('click', () => take(from, 1, -1));
  threadSel.addEventListener('change', () => take(from, sourceNow(), Number(threadSel.value)));
  const close = () => {
    pane.hidden = true;
    data = null;
    active = -1;
  };
  $('flame-close').addEventListener('click', () => {
    close();
    canvas.focus();
  });
  window.addEventListener('strata:loaded', close); // a new trace: the snapshot is gone

  return {
    open: (opts = {}) => {
      const f = opts.from === undefined ? -1 : FROM[opts.from] ?? -1;
      const s = opts.source === 'samples' ? 0 : opts.source === 'slices' ? 1 : -1;
      return take(f, s, opts.track ?? -1);
    },
    data: () => (data ? JSON.parse(JSON.stringify(data)) : null),
    close,
  };
}
