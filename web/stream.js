// stream.js: streaming mode in the page (core/import/stream/stream.h, issue 20).
//
// A trace whose resident model would not fit the heap budget is opened as a
// summary and an index: one pass over the file keeps per-track summaries and
// where each stretch of time lives in the file. Zoomed in, the events of the
// view's window are read again from the file (Blob.slice of the local file:
// nothing is uploaded) and shown in place of the summary; zoomed out past
// the window budget, the summary comes back. Until a window's events arrive
// the summary stays on screen (never a blank), and `view().pending` says how
// many bytes are still being read.
//
// Query parameters (also `open(source, {stream, budgetMB, windowMB})`):
//   ?stream=1   always stream; ?stream=0 never; default: automatic, when the
//               estimated resident model is larger than the heap budget
//   ?budget_mb=N  the heap budget (default 2048 MiB)
//   ?window_mb=N  the most bytes of the file read for one window (default 256,
//               at most half the budget)
//   ?preview_ms=N while the pass runs, its summary so far is drawn every N ms
//               (default 1500): the first frame comes before the pass ends
//   ?copy=0     no re-ordered copy (below) in the browser's storage
//
// Compressed files: the pass keeps gzip restart points, and a window's decoded
// ranges are read in pieces inflated from the nearest one.
//
// Unsorted and protobuf traces: a window read from the file would read most of
// an unsorted trace (each stretch of the file spans much of its time), and a
// protobuf packet needs the packets before it. For those the core asks for a
// re-ordered copy ("copy_wanted"): a second pass over the file writes every
// event as a record into time partitions, kept in the browser's own disk (the
// Origin Private File System, never uploaded; removed when the trace closes,
// and left-overs of closed tabs at the next start). Until it is made, the
// summary (and, for JSON, reads of the whole file) serve; then each window
// reads a few partitions of the copy.

const params = new URLSearchParams(typeof location !== 'undefined' ? location.search : '');
const MiB = 1 << 20;
// decoded bytes of JSON per byte of resident model (measured: 48 B per event
// for ~120 B of JSON per event), and a gzip file's decoded size per byte
const JSON_PER_MODEL_BYTE = 2.5;
const GZIP_RATIO = 8;

function numParam(opts, key, param, dflt) {
  const v = opts && opts[key] !== undefined ? Number(opts[key]) : params.has(param) ? Number(params.get(param)) : dflt;
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

// {on, budget, window}: whether a source of `total` bytes streams.
export function streamWanted(opts, total, name) {
  const budget = numParam(opts, 'budgetMB', 'budget_mb', 2048) * MiB;
  // a window's model is about 0.4 byte per byte read (and its index): half
  // the budget at most, so the summary and a window stay within it
  const window = Math.min(numParam(opts, 'windowMB', 'window_mb', 256) * MiB, budget / 2);
  // the summary so far is drawn every previewMs while the pass runs (?preview_ms=)
  const pv = opts && opts.previewMs !== undefined ? Number(opts.previewMs) : params.has('preview_ms') ? Number(params.get('preview_ms')) : NaN;
  const previewMs = Number.isFinite(pv) && pv >= 0 ? pv : 1500;
  const previewFixed = Number.isFinite(pv) && pv >= 0; // asked for: not spaced by their cost
  const asked = opts && opts.stream !== undefined ? String(opts.stream) : params.get('stream');
  let on;
  if (asked === '1' || asked === 'true') on = true;
  else if (asked === '0' || asked === 'false') on = false;
  else {
    const gz = /\.(gz|gzip)$/i.test(name || '');
    const decoded = total * (gz ? GZIP_RATIO : 1);
    on = total > 0 && decoded / JSON_PER_MODEL_BYTE > budget;
  }
  // the summary's buckets (stream.h max_buckets): ~200 bytes each with their
  // share of the summary model and its index, 2^17 at most
  const buckets = Math.max(1024, Math.min(1 << 17, Math.floor(budget / 1024)));
  // ?copy=0: no re-ordered copy in the browser's storage (unsorted traces
  // then read the whole file per window, protobuf ones show their summary)
  const askedCopy = opts && opts.copy !== undefined ? String(opts.copy) : params.get('copy');
  const copy = !(askedCopy === '0' || askedCopy === 'false');
  return { on, budget, window, previewMs, previewFixed, buckets, copy };
}

// M: the module; str: C string -> JS; setStatus(text | null): the streaming
// part of the status line; onError(message): a window that could not be read.
// The Origin Private File System's root, or null (not offered: an insecure
// origin, some embedded frames, an old browser).
async function opfsRoot() {
  try {
    return typeof navigator !== 'undefined' && navigator.storage && navigator.storage.getDirectory
      ? await navigator.storage.getDirectory()
      : null;
  } catch {
    return null;
  }
}

const COPY_PREFIX = 'strata-copy-';

// Copies left by tabs that closed (each live one holds a lock of its name).
async function removeStaleCopies() {
  const root = await opfsRoot();
  if (!root || !root.entries || !navigator.locks) return;
  try {
    const held = new Set(((await navigator.locks.query()).held || []).map((l) => l.name));
    for await (const [name] of root.entries())
      if (name.startsWith(COPY_PREFIX) && !held.has(name)) await root.removeEntry(name).catch(() => {});
  } catch {
    /* best effort */
  }
}

// The copy's shape for a heap budget: partitions and each one's write buffer
// (about 1/32 of the budget in all; records are 48 bytes).
export function copyShape(budget) {
  const parts = Math.max(16, Math.min(1024, Math.floor(budget / (2 * MiB))));
  const buffer = Math.max(768, Math.min(256 << 10, Math.floor(budget / 32 / (parts + 1) / 48) * 48));
  return { parts, buffer };
}

export function createStream({ M, str, setStatus, onError }) {
  const CHUNK = 4 << 20;
  const buf = M._malloc(CHUNK); // its own transfer buffer: loads use theirs
  let copying = null; // {handle, read, size}: the re-ordering pass running
  let copyNote = ''; // why no copy is made (no browser storage, a failure)
  let copyOn = true; // ?copy=0: none
  const copies = []; // {root, name, release}: removed at detach
  removeStaleCopies();
  let files = new Map(); // handle -> {read(off, n), size, compressed}
  let windowBudget = 256 * MiB;
  let heapBudget = 2048 * MiB;
  let timer = 0;
  let busy = false;
  let again = false;
  let gen = 0; // bumped by detach: a read in flight for old files stops
  let previews = 0; // summaries drawn while the last streamed load's pass ran
  let previewEvents = 0; // the last one's events

  // the core's state, with the budgets this page keeps to
  const state = () => ({
    ...JSON.parse(str(M._st_wasm_stream_json())),
    budget_bytes: heapBudget,
    window_bytes: windowBudget,
    previews,
    preview_events: previewEvents,
    copy_reading: copying ? { read: copying.read, size: copying.size } : null,
    copy_note: copyNote || null,
  });

  function statusText() {
    if (!files.size) return null;
    const s = state();
    if (!s || !s.files.length) return null;
    if (s.pending > 0) {
      const got = (s.reading - s.pending) / MiB;
      const why = s.filter ? '; the trace is not in time order: all of it is read, this window kept' : '';
      return `streaming: reading this window's events (${got.toFixed(1)} of ${(s.reading / MiB).toFixed(1)} MiB${why})`;
    }
    const shown = s.files.filter((f) => f.window_ns);
    if (copying)
      return `streaming: re-ordering the trace for fast windows (${(copying.read / MiB).toFixed(0)} of ${(copying.size / MiB).toFixed(0)} MiB read)${shown.length ? ' · events of this window' : ''}`;
    if (!s.files.some((f) => f.windows))
      return `streaming: summary only (${copyNote || 'window reads of this format need its re-ordered copy'})`;
    const fromCopy = s.files.some((f) => f.copy === 'done') ? ' (from the re-ordered copy)' : '';
    return shown.length ? `streaming: events of this window${fromCopy}` : 'streaming: summary (zoom in to read events)';
  }

  function report() {
    const t = statusText();
    // the budget the user can see: the wasm memory against it
    setStatus(t && `${t} · heap ${Math.round(M.HEAPU8.length / MiB)} of ${Math.round(heapBudget / MiB)} MiB`);
  }

  async function readWindow(w, file, mine) {
    const f = w.copy ? file.copy : file; // the re-ordered copy's ranges: plain bytes
    const n = M._st_wasm_stream_begin(w.handle, w.t0_ns, w.t1_ns, w.filter ? 1 : 0);
    if (n < 0) throw new Error(str(M._st_wasm_error()) || 'the window could not be planned');
    report();
    for (let k = 0; k < n; k++) {
      const off = M._st_wasm_stream_range(k, 0);
      const len = M._st_wasm_stream_range(k, 1);
      if (f.compressed) { // decoded offsets: pieces inflated from the restart points
        for (let at = 0; at < len; at += CHUNK) {
          let from = M._st_wasm_stream_raw_begin(off + at, Math.min(CHUNK, len - at));
          if (from < 0) throw new Error(str(M._st_wasm_error()) || 'the compressed file has no restart points here');
          let r = 0;
          while (r === 0) {
            const part = await f.read(from, Math.min(CHUNK, Math.max(0, f.size - from)));
            if (mine !== gen) return false;
            M.HEAPU8.set(part, buf);
            r = M._st_wasm_stream_raw_push(k, buf, part.length);
            from += part.length;
          }
          if (r < 0) throw new Error(str(M._st_wasm_error()) || 'the window read was refused');
          report();
        }
        continue;
      }
      for (let at = 0; at < len; at += CHUNK) {
        const part = await f.read(off + at, Math.min(CHUNK, len - at));
        if (mine !== gen) return false; // the files changed while reading
        if (part.length !== Math.min(CHUNK, len - at)) throw new Error('the file is shorter than when it was opened');
        M.HEAPU8.set(part, buf);
        if (M._st_wasm_stream_push(k, buf, part.length) !== 1) throw new Error(str(M._st_wasm_error()) || 'the window read was refused');
        report();
      }
    }
    if (M._st_wasm_stream_finish() !== 1) throw new Error(str(M._st_wasm_error()));
    return true;
  }

  // Reads what the view wants until it wants nothing more.
  async function step() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    const mine = gen;
    try {
      for (let guard = 0; guard < 8 && mine === gen; guard++) {
        again = false;
        const w = JSON.parse(str(M._st_wasm_stream_want(windowBudget)));
        if (!w) break;
        if (w.summary) {
          M._st_wasm_stream_show_summary(w.handle);
          continue;
        }
        const f = files.get(w.handle);
        if (!f || !f.read || (w.copy && !f.copy)) break;
        if (w.filter && copying && copying.handle === w.handle) break; // the copy serves soon: no race for memory
        try {
          if (!(await readWindow(w, f, mine))) break;
        } catch (e) {
          M._st_wasm_stream_abort();
          onError(`streaming: ${String(e && e.message ? e.message : e)}`);
          break;
        }
        if (!again) break; // the view moved while reading: look again
      }
    } finally {
      busy = false;
      report();
    }
  }

  // The re-ordered copy of each file that wants one, one at a time.
  async function makeCopies() {
    if (copying || !copyOn) return;
    const mine = gen;
    for (;;) {
      const want = state().files.find((x) => x.copy_wanted && files.get(x.handle) && files.get(x.handle).read && !files.get(x.handle).copyTried);
      if (!want || mine !== gen) return;
      const f = files.get(want.handle);
      f.copyTried = true;
      copying = { handle: want.handle, read: 0, size: f.size }; // settle() waits from now
      try {
        await makeCopy(want.handle, f, mine);
      } catch (e) {
        M._st_wasm_spill_abort();
        copyNote = `no re-ordered copy: ${String(e && e.message ? e.message : e)}`;
        onError(`streaming: ${copyNote}`);
      } finally {
        copying = null;
        M.strataSpillWrite = null;
        report();
      }
      viewChanged();
    }
  }

  async function makeCopy(handle, f, mine) {
    const root = await opfsRoot();
    if (!root) {
      copyNote = 'this page has no browser storage for a re-ordered copy';
      return;
    }
    const name = `${COPY_PREFIX}${Date.now()}-${Math.random().toString(36).slice(2)}`;
    let release = () => {};
    if (typeof navigator !== 'undefined' && navigator.locks) // held while this tab keeps it
      await new Promise((got) => navigator.locks.request(name, () => new Promise((r) => { release = r; got(); })));
    const entry = { root, name, release };
    copies.push(entry);
    const fh = await root.getFileHandle(name, { create: true });
    const out = await fh.createWritable();
    // The core writes records (in order, at increasing offsets) while it
    // parses: gathered here in 4 MiB pieces, each written while parsing goes
    // on; at most 64 MiB wait for the disk (then parsing waits for it).
    const PIECE = 4 * MiB;
    let piece = new Uint8Array(PIECE);
    let fill = 0;
    let pieceAt = 0; // the copy's offset of piece[0]
    let queued = 0;
    let failed = null;
    let chain = Promise.resolve();
    let drained = null; // resolves when the queue falls under 32 MiB
    const send = () => {
      if (!fill) return;
      const data = fill === PIECE ? piece : piece.subarray(0, fill);
      const at = pieceAt;
      queued += fill;
      const n = fill;
      chain = chain
        .then(() => out.write({ type: 'write', position: at, data }))
        .then(() => {
          queued -= n;
          if (drained && queued < 32 * MiB) drained.resolve();
        }, (e) => {
          failed = failed || e;
          if (drained) drained.resolve();
        });
      pieceAt += fill;
      piece = new Uint8Array(PIECE);
      fill = 0;
    };
    M.strataSpillWrite = (offset, bytes) => {
      if (failed || offset !== pieceAt + fill) return false;
      for (let i = 0; i < bytes.length; ) {
        const k = Math.min(bytes.length - i, PIECE - fill);
        piece.set(bytes.subarray(i, i + k), fill);
        fill += k;
        i += k;
        if (fill === PIECE) send();
      }
      return true;
    };
    const room = async () => {
      while (queued > 64 * MiB && !failed) {
        let resolve;
        const p = new Promise((r) => { resolve = r; });
        drained = { resolve };
        await p;
        drained = null;
      }
    };
    let limit = 0;
    try {
      const est = await navigator.storage.estimate();
      if (est && est.quota) limit = Math.max(0, (est.quota - (est.usage || 0)) * 0.9);
    } catch { /* no estimate: no limit of ours */ }
    const { parts, buffer } = copyShape(heapBudget);
    if (M._st_wasm_spill_begin(handle, parts, buffer, limit) !== 1) throw new Error(str(M._st_wasm_error()));
    report();
    let ok = 1;
    // 1 MiB pieces (the parser holds a piece while it runs, beside the
    // summary and a window), the next four read while this one is parsed
    const AHEAD = 4;
    const next = (at) => (at < f.size ? f.read(at, Math.min(MiB, f.size - at)) : null);
    const ahead = [];
    for (let k = 0; k < AHEAD; k++) ahead.push(next(k * MiB));
    let shownAt = 0;
    for (let at = 0; at < f.size && ok === 1; ) {
      const part = await ahead.shift();
      if (mine !== gen) { // detached: its file is removed there
        await out.abort().catch(() => {});
        return;
      }
      if (!part || !part.length) break;
      if (part.length !== Math.min(MiB, f.size - at)) throw new Error('the file is shorter than when it was opened');
      ahead.push(next(at + AHEAD * MiB));
      M.HEAPU8.set(part, buf);
      ok = M._st_wasm_spill_push(buf, part.length);
      at += part.length;
      copying.read = at;
      if (performance.now() - shownAt > 250) { // the status, 4 times a second
        shownAt = performance.now();
        report();
      }
      await room(); // the disk keeps up: memory stays bounded
    }
    const done = M._st_wasm_spill_finish(); // writes what it buffered
    const why = done === 1 ? '' : str(M._st_wasm_error());
    send();
    await chain;
    if (!failed) await out.close().catch((e) => { failed = e; });
    if (failed) {
      await out.abort().catch(() => {});
      if (done === 1) M._st_wasm_spill_drop(handle); // the core had it: its windows go back to the file
      await root.removeEntry(name).catch(() => {}); // what was written: its room back at once
      throw new Error(`the browser's storage refused the copy (${failed.message || failed})`);
    }
    if (mine !== gen) return;
    if (done !== 1) throw new Error(why);
    const file = await fh.getFile();
    f.copy = { size: file.size, read: async (off, n) => new Uint8Array(await file.slice(off, off + n).arrayBuffer()) };
  }

  function dropCopies() {
    for (const c of copies.splice(0)) {
      c.root.removeEntry(c.name).catch(() => {}).finally(() => c.release());
    }
  }

  return {
    // After a streamed load: the file (as file_args.js keeps it: read, size, compressed).
    attach(handle, file, opts) {
      files.set(handle, file || {});
      windowBudget = opts && opts.window ? opts.window : windowBudget;
      copyOn = !(opts && opts.copy === false);
      if (!copyOn) copyNote = 'no re-ordered copy: ?copy=0';
      heapBudget = opts && opts.budget ? opts.budget : heapBudget;
      M._st_wasm_stream_want(windowBudget); // from now, view().pending counts a read due under it
      report();
      viewChanged();
      makeCopies();
    },
    // A preview drawn while a streamed load's pass runs (its events).
    previewed(events) {
      if (events > 0) {
        previews++;
        previewEvents = events;
      }
    },
    // A new load replaces what is shown: reads in flight stop.
    detach() {
      gen++;
      previews = 0;
      previewEvents = 0;
      if (files.size) M._st_wasm_stream_abort();
      if (copying) M._st_wasm_spill_abort();
      copying = null;
      copyNote = '';
      M.strataSpillWrite = null;
      dropCopies();
      files = new Map();
      clearTimeout(timer);
      setStatus(null);
    },
    viewChanged,
    active: () => files.size > 0,
    state,
    // Resolves once no window read is in flight or wanted, and no re-ordered
    // copy is being made (tests, embedders).
    async settle() {
      for (let i = 0; copying && i < 24000; i++) await new Promise((r) => setTimeout(r, 25));
      for (let i = 0; i < 400; i++) {
        if (!busy && !timer) {
          const w = JSON.parse(str(M._st_wasm_stream_want(windowBudget)));
          const f = w && files.get(w.handle);
          if (!w || !f || !f.read) return state();
          await step();
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return state();
    },
  };

  function viewChanged() {
    if (!files.size) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = 0;
      step();
    }, 60);
  }
}
