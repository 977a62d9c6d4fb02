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
//
// Compressed files: the pass keeps gzip restart points, and a window's decoded
// ranges are read in pieces inflated from the nearest one.

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
  return { on, budget, window, previewMs, previewFixed, buckets };
}

// M: the module; str: C string -> JS; setStatus(text | null): the streaming
// part of the status line; onError(message): a window that could not be read.
export function createStream({ M, str, setStatus, onError }) {
  const CHUNK = 4 << 20;
  const buf = M._malloc(CHUNK); // its own transfer buffer: loads use theirs
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
    if (!s.files.some((f) => f.windows)) return 'streaming: summary only (window reads need a Chrome JSON trace)';
    return shown.length ? 'streaming: events of this window' : 'streaming: summary (zoom in to read events)';
  }

  function report() {
    const t = statusText();
    // the budget the user can see: the wasm memory against it
    setStatus(t && `${t} · heap ${Math.round(M.HEAPU8.length / MiB)} of ${Math.round(heapBudget / MiB)} MiB`);
  }

  async function readWindow(w, f, mine) {
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
        if (M._st_wasm_stream_push(k, buf, part.length) !== 1) throw new Error('the window read was refused');
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
        if (!f || !f.read) break;
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

  return {
    // After a streamed load: the file (as app.js keeps it: read, size, compressed).
    attach(handle, file, opts) {
      files.set(handle, file || {});
      windowBudget = opts && opts.window ? opts.window : windowBudget;
      heapBudget = opts && opts.budget ? opts.budget : heapBudget;
      report();
      viewChanged();
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
      files = new Map();
      clearTimeout(timer);
      setStatus(null);
    },
    viewChanged,
    active: () => files.size > 0,
    state,
    // Resolves once no window read is in flight or wanted (tests, embedders).
    async settle() {
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
