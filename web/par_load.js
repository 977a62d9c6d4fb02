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
  const given = workersGiven(opts);
  const n = given !== null ? Math.floor(Number(given)) : (navigator.hardwareConcurrency || 1) - 1;
  return Number.isFinite(n) ? Math.max(1, Math.min(MAX_WORKERS, n)) : 1;
}

// The count asked for by opts.workers or ?workers= (null: none, the default).
function workersGiven(opts) {
  const given = opts && opts.workers !== undefined ? opts.workers : params.get('workers');
  return given === undefined || given === null || given === '' ? null : given;
}

// Files under this size are split only when a count of workers is asked
// for: starting the workers (fetching and instantiating the module in each)
// costs more than they save on smaller files. A 30 MB / 1e5-event trace took
// 143 ms on 2 workers against 99 ms on one thread; a 97 MB one takes ~420 ms
// on one thread, where the start-up is under a tenth.
const DEFAULT_MIN_SPLIT = 64 << 20;

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
// file too small for workers to pay: st_range_plan's threshold, and
// DEFAULT_MIN_SPLIT when no count of workers was asked for).
export async function splitPlan(M, blob, workers, gzWorkers = 0, opts = null) {
  if (STANDALONE || typeof Worker === 'undefined' || typeof WebAssembly.compileStreaming !== 'function') return null;
  const forced = Math.floor(Number(params.get('taskbytes')));
  const comp = gzWorkers >= 1 && (forced > 0 || blob.size * 5 >= GZ_MIN_RAW) ? await compressedJson(M, blob) : 0;
  if (comp) return { gz: true, compression: comp, workers: gzWorkers, tb: forced > 0 ? forced : GZ_TASK };
  if (workers <= 1) return null;
  const size = blob.size;
  if (!(forced > 0) && workersGiven(opts) === null && size < DEFAULT_MIN_SPLIT) return null;
  let n = 0;
  let tb = 0;
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

// ---- a compressed file (gzip, zlib) --------------------------------------------------
// One more worker inflates it and cuts the decoded bytes into tasks
// (wasm/parse/inflate.c, core/import/load/inflate_cut.h); the parse workers
// parse them, the page applies the results in order and, at the end, hands
// the inflater's outcome to the loader (stats and gzip errors as if the raw
// bytes had been pushed). Its own thread would otherwise inflate AND parse:
// here the split pays even on 2 cores. Where a worker fails, the page
// inflates itself from the first task not applied yet (no word lost).

const GZ_TASK = 8 << 20; // decoded bytes per task (the decoded size is not known ahead)
const GZ_MIN_RAW = 24 << 20; // ST_RANGE_MIN_SPLIT: the decoded size is guessed at 5x the file

// The gzip/zlib parse worker count a load asks for: opts.workers, else
// ?workers= (1: the one-thread path), else the cores less two (the
// inflating worker and the page's thread take the others; 0 on 2 cores,
// where the one-thread load measured faster: t1e6.json.gz 0.95 s against
// 1.1 s split).
export function gzWorkersWanted(opts) {
  const given = workersGiven(opts);
  if (given !== null) {
    const n = Math.floor(Number(given));
    return Number.isFinite(n) && n > 1 ? Math.min(MAX_WORKERS, n) : 0;
  }
  return Math.max(0, Math.min(MAX_WORKERS, (navigator.hardwareConcurrency || 1) - 2));
}

// 2 (gzip) or 3 (zlib: st_compression) if the blob inflates to Chrome JSON
// that may be split, else 0
async function compressedJson(M, blob) {
  const head = new Uint8Array(await blob.slice(0, 1 << 16).arrayBuffer());
  if (head.length < 2 || !(head[0] === 0x1f && head[1] === 0x8b) && (head[0] & 0x0f) !== 8) return 0;
  const p = M._malloc(head.length);
  if (!p) return 0;
  M.HEAPU8.set(head, p);
  const ok = M._st_wasm_decoded_splittable(p, head.length);
  M._free(p);
  return ok ? (head[0] === 0x1f ? 2 : 3) : 0;
}

let inflater = null; // {w, dead, on} the inflating worker, kept for the next load

function spawnInflater() {
  if (inflater && !inflater.dead) return inflater;
  let w;
  try {
    w = new Worker(new URL('parse_worker.js', import.meta.url));
  } catch {
    return null;
  }
  const h = { w, dead: false, on: null };
  const fail = () => {
    if (h.dead) return;
    h.dead = true;
    w.terminate();
    if (h.on) h.on({ error: 'the inflating worker stopped' });
  };
  w.onmessage = (e) => {
    const m = e.data;
    if (m.ready) return;
    if (m.failed !== undefined) return fail();
    if (h.on) h.on(m);
  };
  w.onerror = (e) => {
    e.preventDefault();
    fail();
  };
  w.onmessageerror = fail;
  compile().then((mod) => h.dead || w.postMessage({ init: mod }));
  inflater = h;
  return h;
}

// The inflater's outcome to the loader (before the caller's load_finish).
function setInflated(M, outcome, msg) {
  const o = M._malloc(8 * 8);
  const mp = M._malloc(M.lengthBytesUTF8(msg) + 1);
  if (!o || !mp) throw new Error('out of memory');
  M.HEAPF64.set(outcome, o >> 3);
  M.stringToUTF8(msg, mp, M.lengthBytesUTF8(msg) + 1);
  M._st_wasm_load_set_inflated(o, mp);
  M._free(o);
  M._free(mp);
}

// The page inflates and parses itself from task `from` on (a worker failed):
// the tasks before it (applied already) are decoded again and dropped.
async function inflateHere(M, blob, tb, from, onProgress) {
  const meta = M._malloc(8 * 8);
  if (!meta || !M._st_wasm_cut_begin(tb)) throw new Error('out of memory');
  let k = 0;
  let code = 0;
  const hand = (read) => {
    for (;;) {
      const p = M._st_wasm_cut_take(meta);
      if (!p) return;
      const [len, base, next, size] = Array.from(M.HEAPF64.subarray(meta >> 3, (meta >> 3) + 4));
      const kk = k++;
      try {
        if (kk >= from && code === 0) {
          code = parseApplyHere(M, p, len, base, next, size);
          onProgress(read);
        }
      } finally {
        M._free(p);
      }
    }
  };
  try {
    for (let off = 0; off < blob.size && code === 0; ) {
      const ab = await blob.slice(off, Math.min(off + (4 << 20), blob.size)).arrayBuffer();
      off += ab.byteLength;
      const p = M._malloc(Math.max(1, ab.byteLength));
      if (!p) throw new Error('out of memory');
      M.HEAPU8.set(new Uint8Array(ab), p);
      const c = M._st_wasm_cut_push(p, ab.byteLength);
      M._free(p);
      hand(off);
      if (c !== 0) break;
    }
    M._st_wasm_cut_finish();
    hand(blob.size);
    const o = M._malloc(8 * 8);
    const msg = M.UTF8ToString(M._st_wasm_cut_outcome(o));
    const outcome = Array.from(M.HEAPF64.subarray(o >> 3, (o >> 3) + 8));
    M._free(o);
    setInflated(M, code === 0 ? outcome : [outcome[0], outcome[1], outcome[2], 1, 0, 0, 0, 0], code === 0 ? msg : '');
    return code;
  } finally {
    M._st_wasm_cut_end();
    M._free(meta);
  }
}

// A compressed file's load split across workers: as loadSplit.
export async function loadSplitGz(M, blob, plan, onProgress) {
  const id = ++loads;
  while (pool.length < plan.workers && spawn()) {
    /* started once, kept for the next load */
  }
  const live = () => pool.slice(0, plan.workers).filter((h) => !h.dead);
  const used = new Set();
  const inf = spawnInflater();
  const tasks = []; // k -> Promise of {result, bytes, worker} | null
  const waiting = []; // k -> resolve, for tasks not arrived yet
  let outcome = null; // {outcome, msg} at the inflater's end
  let failed = !inf;
  let ended = false;
  const wake = [];
  const kick = () => wake.splice(0).forEach((r) => r());
  // a task from the inflater straight to the least busy parse worker
  const dispatch = (t) => {
    const ws = live();
    const p = !ws.length
      ? Promise.resolve(null)
      : new Promise((resolve) => {
          const h = ws.reduce((a, b) => (b.tasks.size < a.tasks.size ? b : a));
          h.tasks.set(`${id}:${t.k}`, resolve);
          h.w.postMessage({ id, k: t.k, bytes: t.bytes, base: t.base, next: t.next, size: t.size }, [t.bytes]);
        });
    tasks[t.k] = p.then((r) => (r ? { ...r, raw: t.raw, next: t.next } : null));
    kick();
  };
  if (inf) {
    inf.on = (m) => {
      if (m.id !== undefined && m.id !== id) return; // an earlier load's
      if (m.task) dispatch(m.task);
      else if (m.inflated) outcome = m.inflated, ended = true;
      else failed = true;
      kick();
    };
    inf.w.postMessage({ inflate: { id, blob, tb: plan.tb, window: 2 * Math.max(1, plan.workers) + 1 } });
  }
  let code = 0;
  let k = 0;
  const seen = { raw: 0, next: 0 }; // the last task applied: raw bytes read by then, its end
  try {
    for (; code === 0; k++) {
      while (!tasks[k] && !ended && !failed) await new Promise((r) => wake.push(r));
      if (!tasks[k]) break; // the inflater ended (or failed): no task k
      const r = await tasks[k];
      if (!r) {
        failed = true;
        break;
      }
      used.add(r.worker);
      code = applyResult(M, r);
      seen.raw = r.raw;
      seen.next = r.next;
      if (inf && !inf.dead) inf.w.postMessage({ credit: id });
      onProgress(r.raw);
    }
    if (code === 0 && failed) {
      // a worker failed: the page inflates itself from the first task not applied
      if (inf && !inf.dead) inf.on = null;
      code = await inflateHere(M, blob, plan.tb, k, onProgress);
    } else if (code === 0 && outcome) {
      setInflated(M, outcome.outcome, outcome.msg);
    } else if (code !== 0) {
      // stopped at damage inside: the input was compressed all the same (how
      // much was read depends on read sizes, as on one thread)
      setInflated(M, [plan.compression, seen.raw, seen.next, 1, 0, 0, 0, 0], '');
    }
  } finally {
    if (inf) inf.on = null;
    if (inf && !inf.dead && (!ended || code !== 0)) {
      // stopped early: the inflater is stopped (a new one at the next load)
      inf.dead = true;
      inf.w.terminate();
    }
    for (const h of live()) {
      if ([...h.tasks.keys()].some((key) => key.startsWith(`${id}:`))) kill(h);
    }
  }
  return { code, workers: used.size, heap: [...used].reduce((a, h) => a + h.heap, 0) };
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
    try {
      return parseApplyHere(M, bp, bytes.byteLength, t.base, t.next, t.size);
    } finally {
      M._free(bp);
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
        code = applyResult(M, r);
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

// A worker's result ({result, bytes}: ArrayBuffers) applied: copied into the
// heap, its task's bytes too only when the loader needs them.
function applyResult(M, r) {
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
}

// A task whose bytes are in the heap (bp, len) parsed and applied here (its
// worker failed, or there is none): the st_code, as st_wasm_load_apply.
function parseApplyHere(M, bp, len, base, next, size) {
  const lp = M._malloc(4);
  const rp = lp ? M._st_wasm_range_parse(bp, len, base, next, size, lp) : 0;
  const rlen = rp ? new DataView(M.HEAPU8.buffer).getUint32(lp, true) : 0;
  M._free(lp);
  if (!rp) throw new Error(`out of memory (at byte ${base})`);
  try {
    const needs = M._st_wasm_load_apply_needs(rp, rlen);
    return M._st_wasm_load_apply(rp, rlen, needs ? bp : 0, needs ? len : 0);
  } finally {
    M._free(rp);
  }
}

// bytes (an ArrayBuffer) copied into a fresh block of the wasm heap
function heapCopy(M, ab) {
  const p = M._malloc(Math.max(1, ab.byteLength));
  if (!p) throw new Error('out of memory');
  M.HEAPU8.set(new Uint8Array(ab), p); // HEAPU8 re-read: the heap may have grown
  return p;
}
