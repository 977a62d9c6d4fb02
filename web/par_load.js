// par_load.js: a Chrome JSON File/Blob imported by several parse workers
// (issue 21), without SharedArrayBuffer. The protocol is the core's
// (core/import/chrome/chrome_range.h): the input is cut into tasks at a_k =
// k * taskBytes (st_range_plan); a worker (parse_worker.js) reads its
// task's bytes [a_k, min(a_{k+1} + SLACK, size)) from the File and parses
// them into a self-contained result; here results are applied IN TASK
// ORDER (st_app_load_apply) between the page's load_begin and load_finish,
// as they arrive. The main thread's importer checks every result and parses
// whatever a result does not cover itself, so the model, stats, warnings
// and the error line (with its byte offset) are those of a one-worker load.
//
// Memory stays bounded for a 10 GB file: at most PER_WORKER tasks per
// worker are in flight (read, parsed or waiting for their turn); each result
// is copied into the wasm heap, applied and freed, and a task's bytes go
// into the heap only when the core says the result alone will not do.
//
// Workers are started at the first split load and kept for the next one.
// The parse module is compiled once here and the WebAssembly.Module posted
// to each worker. A worker that fails to start or dies leaves fewer
// workers; its tasks are parsed on the main thread (no word lost). A
// standalone file (no workers: its CSP) never gets here.
//
//   ?workers=N  (page URL) / open(source, {workers: N}): how many workers
//               (default navigator.hardwareConcurrency - 1, at most 8; 1:
//               the one-thread path of app.js, unchanged)
//   ?taskbytes=N  (tests only) cut tasks of N bytes whatever the file's size

const STANDALONE = !!document.getElementById('strata-wasm');
const MAX_WORKERS = 8;
const PER_WORKER = 2; // tasks in flight per worker
const SLACK = 1 << 20; // ST_RANGE_SLACK (chrome_range.h): bytes a task reads past a_{k+1}
const HEAD = 4096; // bytes st_load_splittable looks at (it needs >= 64)
const params = new URLSearchParams(location.search);

// The worker count a load asks for: opts.workers, else ?workers=, else one
// less than the cores: the page's own thread is busy too, applying the
// results (replaying a result costs a third to a half of importing its
// bytes). So 2 cores get the one-thread path, which already keeps both busy
// (reader.js's worker reads while the page imports): split across 2 workers
// there, the 1e6 and 1e7 traces loaded 1.3-1.5x slower (README, Performance).
export function workersWanted(opts) {
  const given = opts && opts.workers !== undefined ? opts.workers : params.get('workers');
  const n = given !== null && given !== undefined && given !== '' ? Math.floor(Number(given)) : (navigator.hardwareConcurrency || 1) - 1;
  return Number.isFinite(n) ? Math.max(1, Math.min(MAX_WORKERS, n)) : 1;
}

// ---- the workers -----------------------------------------------------------------

let compiled = null; // Promise<WebAssembly.Module | null>
const pool = []; // started workers: {w, dead, heap (its memory's peak), tasks: Map key -> resolve}

function compile() {
  if (!compiled) {
    const url = new URL('strata_parse.wasm', import.meta.url);
    compiled = WebAssembly.compileStreaming(fetch(url, { credentials: 'same-origin' })).catch(() => null);
  }
  return compiled; // null: each worker fetches the module itself
}

function kill(h) {
  if (h.dead) return;
  h.dead = true;
  h.w.terminate();
  const i = pool.indexOf(h);
  if (i >= 0) pool.splice(i, 1);
  for (const resolve of h.tasks.values()) resolve(null); // parsed on the main thread
  h.tasks.clear();
}

function spawn() {
  let w;
  try {
    w = new Worker(new URL('parse_worker.js', import.meta.url));
  } catch {
    return null;
  }
  const h = { w, dead: false, heap: 0, tasks: new Map() };
  w.onmessage = (e) => {
    const m = e.data;
    if (m.ready) return;
    if (m.failed !== undefined) kill(h);
    else {
      const key = `${m.id}:${m.k}`;
      const resolve = h.tasks.get(key);
      h.tasks.delete(key);
      if (m.heap > h.heap) h.heap = m.heap;
      if (resolve) resolve(m.error === undefined ? { result: m.result, bytes: m.bytes, worker: h } : null);
    }
  };
  w.onerror = (e) => {
    e.preventDefault();
    kill(h);
  };
  w.onmessageerror = () => kill(h);
  compile().then((mod) => h.dead || w.postMessage({ init: mod }));
  pool.push(h);
  return h;
}

// ---- one load ---------------------------------------------------------------------

let loads = 0; // load ids: a late answer for an earlier load is dropped

// {n, tb} if `blob` should be split across `workers` workers, else null
// (one worker asked for, a standalone page, gzip or not Chrome JSON, or a
// file too small for workers to pay: st_range_plan's threshold).
export async function splitPlan(M, blob, workers) {
  if (workers <= 1 || STANDALONE || typeof Worker === 'undefined' || typeof WebAssembly.compileStreaming !== 'function') return null;
  const size = blob.size;
  let n = 0;
  let tb = 0;
  const forced = Math.floor(Number(params.get('taskbytes')));
  if (forced > 0) {
    tb = forced;
    n = Math.ceil(size / tb);
  } else {
    const p = M._malloc(8);
    if (!p) return null;
    n = M._st_wasm_range_plan(size, workers, p);
    tb = M.HEAPF64[p >> 3];
    M._free(p);
  }
  if (!n) return null;
  const head = new Uint8Array(await blob.slice(0, HEAD).arrayBuffer());
  const hp = M._malloc(Math.max(1, head.length));
  if (!hp) return null;
  M.HEAPU8.set(head, hp);
  const ok = M._st_wasm_load_splittable(hp, head.length);
  M._free(hp);
  return ok ? { n, tb, workers } : null;
}

// Applies every task of `plan` to the load begun by the caller; resolves
// {code, workers, heap}: code 0, or the st_code that stopped it (the
// caller's load_finish says why, as after a push); workers = how many parse
// workers delivered results, heap = the sum of their memories' peaks (each
// its own wasm memory, kept while the worker lives). Throws when the file cannot be read (or out of memory:
// the caller aborts the load).
export async function loadSplit(M, blob, plan, onProgress) {
  const { n, tb } = plan;
  const size = blob.size;
  const id = ++loads;
  while (pool.length < plan.workers && spawn()) {
    /* started once, kept for the next load */
  }
  const live = () => pool.slice(0, plan.workers).filter((h) => !h.dead);
  const at = (k) => Math.min(size, k * tb);
  const task = (k) => ({ id, k, blob, base: at(k), end: Math.min(size, at(k + 1) + SLACK), next: at(k + 1), size });
  const used = new Set();

  // task k to the least busy worker: a Promise of {result, bytes} or null
  // (the main thread parses it when its turn comes)
  const send = (k) => {
    const ws = live();
    if (!ws.length) return Promise.resolve(null);
    const h = ws.reduce((a, b) => (b.tasks.size < a.tasks.size ? b : a));
    return new Promise((resolve) => {
      h.tasks.set(`${id}:${k}`, resolve);
      h.w.postMessage(task(k));
    });
  };

  // task k parsed here (its worker failed or there is none)
  const parseHere = async (k) => {
    const t = task(k);
    const bytes = await blob.slice(t.base, t.end).arrayBuffer();
    const bp = heapCopy(M, bytes);
    const lp = M._malloc(4);
    const rp = lp ? M._st_wasm_range_parse(bp, bytes.byteLength, t.base, t.next, t.size, lp) : 0;
    const rlen = rp ? new DataView(M.HEAPU8.buffer).getUint32(lp, true) : 0;
    M._free(lp);
    if (!rp) {
      M._free(bp);
      throw new Error(`out of memory (at byte ${t.base})`);
    }
    try {
      const needs = M._st_wasm_load_apply_needs(rp, rlen);
      return M._st_wasm_load_apply(rp, rlen, needs ? bp : 0, needs ? bytes.byteLength : 0);
    } finally {
      M._free(rp);
      M._free(bp);
    }
  };

  // a worker's result applied
  const apply = (k, r) => {
    const rp = heapCopy(M, r.result);
    try {
      const rlen = r.result.byteLength;
      if (!M._st_wasm_load_apply_needs(rp, rlen)) return M._st_wasm_load_apply(rp, rlen, 0, 0);
      const bp = heapCopy(M, r.bytes);
      try {
        return M._st_wasm_load_apply(rp, rlen, bp, r.bytes.byteLength);
      } finally {
        M._free(bp);
      }
    } finally {
      M._free(rp);
    }
  };

  const inFlight = new Map(); // k -> Promise
  let sent = 0;
  let code = 0;
  try {
    for (let k = 0; k < n && code === 0; k++) {
      while (sent < n && sent - k < PER_WORKER * Math.max(1, live().length)) inFlight.set(sent, send(sent++));
      const r = await inFlight.get(k);
      inFlight.delete(k);
      if (r) {
        used.add(r.worker);
        code = apply(k, r);
      } else {
        code = await parseHere(k);
      }
      onProgress(at(k + 1));
    }
  } finally {
    // tasks still out (the load stopped early): their workers are stopped
    // (started again at the next load), their answers dropped
    for (const h of live()) {
      if ([...h.tasks.keys()].some((key) => key.startsWith(`${id}:`))) kill(h);
    }
  }
  return { code, workers: used.size, heap: [...used].reduce((a, h) => a + h.heap, 0) };
}

// bytes (an ArrayBuffer) copied into a fresh block of the wasm heap
function heapCopy(M, ab) {
  const p = M._malloc(Math.max(1, ab.byteLength));
  if (!p) throw new Error('out of memory');
  M.HEAPU8.set(new Uint8Array(ab), p); // HEAPU8 re-read: the heap may have grown
  return p;
}
