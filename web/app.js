// app.js: the page's glue between the DOM and the wasm module (strata.js).
// It starts the module, loads traces one after another (their bytes pushed
// in slices through one reused wasm buffer), reports progress and errors,
// follows the core's interaction state (onUi) and wires the page's controls.
// Everything else (parsing, layout, drawing, input) happens in C.
//
// The rest of the page is in the modules it imports:
//   sources.js    where a trace's bytes come from: files, buffers, URLs (and
//                 their HTTP Range reads), index files
//   file_args.js  an event's args, re-read from its trace's file
//   details.js    the selected event's details pane
//   drop.js       files and folders dropped on the page
//   canvas.js     the canvas's size and the part of it the panels cover
//   api.js        window.strata (DESIGN.md contract 2)
//   panels.js, flame.js, overview.js, ...: a panel each
//
// Event names and args come from untrusted files: they only ever reach the
// DOM through textContent, never as HTML.
//
// Sharing and embedding (?url=, #t=..&sel=.., ?embed=1, postMessage,
// standalone files) live in embed.js; this file calls its hooks.

import { createPanels, fmtDur, counted } from './panels.js';
import { createFlame } from './flame.js';
import { createInfo } from './info.js';
import { createTracks } from './tracks.js';
import { createDiff } from './diff.js';
import { createOpStats } from './opstats.js';
import { createNotShown } from './not_shown.js';
import { embedSetup, FLOW_MODES } from './embed.js';
import { CHUNK, nameFromUrl, resolveSource, bytesOf, isIndex, siblingIndex, pairIndexes } from './sources.js';
import { workersWanted, gzWorkersWanted, splitPlan, loadSplit, loadSplitGz } from './par_load.js';
import { createArgsSearch } from './search_args.js';
import { createOverview } from './overview.js';
import { createRoofline } from './roofline.js';
import { createCollectives } from './collectives.js';
import { createNotes } from './notes.js';
import { streamWanted, createStream } from './stream.js';
import { createFileArgs } from './file_args.js';
import { createDetails } from './details.js';
import { wireDrop } from './drop.js';
import { createApi } from './api.js';
import { createCanvas, TIMELINE_GUTTER_PX } from './canvas.js';

const embed = embedSetup();

const $ = (id) => document.getElementById(id);
const ui = {
  canvas: $('canvas'),
  name: $('trace-name'),
  open: $('open-button'),
  file: $('file-input'),
  progress: $('progress'),
  status: $('status'),
  error: $('error'),
  errorClose: $('error-close'),
  empty: $('empty'),
  drop: $('drop-overlay'),
  search: $('search'),
  searchCount: $('search-count'),
  searchArgs: $('search-args'),
  tool: $('tool'),
  helpButton: $('help-button'),
  flows: $('flows'),
  alignButton: $('align-button'),
  alignCollButton: $('align-coll-button'),
  collectivesButton: $('collectives-button'),
  layoutButton: $('layout-button'),
  help: $('help'),
  details: $('details'),
  outliers: $('outliers'),
  outliersText: $('outliers-text'),
  outliersShow: $('outliers-show'),
  tooltip: $('tooltip'),
};

// ST_UI_* change bits (core/ui/ui.h) that Module.strataOnUi receives.
const UI = { VIEW: 1 << 2, SELECTION: 1 << 3, HOVER: 1 << 4, TOOL: 1 << 5, MARK: 1 << 6, SEARCH: 1 << 7, FOCUS_SEARCH: 1 << 8, HELP: 1 << 9, FOCUS_TIMELINE: 1 << 13, SHIFT: 1 << 14, TRACKS: 1 << 15, FOCUS_FILTER: 1 << 16 };
// ST_MOD_* bits (core/ui/ui.h)
const modsOf = (e) => (e.shiftKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.altKey ? 4 : 0) | (e.metaKey ? 8 : 0);

let M = null; // the wasm module
let buf = 0; // the one transfer buffer in the wasm heap (CHUNK bytes)
let queue = Promise.resolve(); // loads run one after another
let onFrameLoaded = null; // resolves when C reports the new trace's first frame
let panels = null; // summary table, collapse-all, args view (panels.js)
let flame = null; // the flame graph panel (flame.js)
let argsSearch = null; // "in args" search passes over the file (search_args.js)
let diffTable = null; // the diff of two traces (diff.js)
let overview = null; // the overview panel and heatmap (overview.js)
let roofline = null; // FLOPs, TFLOP/s, % of peak and the roofline in the overview (roofline.js)
let opStats = null; // op statistics, duration histogram, idle gaps (opstats.js)
let tracks = null; // the track filter, pins, empty processes (tracks.js)
let notes = null; // notes on the timeline, the Notes panel (notes.js)
let loadSplitStats = null; // {workers, worker_heap_bytes} of the shown trace's load split across workers
let fileArgs = null; // args re-read from the shown traces' files (file_args.js)
let details = null; // the selected event's details pane (details.js)
let geometry = null; // the canvas's size and the part panels cover, told to the core (canvas.js)
let stream = null; // streaming mode: window reads of traces opened as a summary (stream.js)
let baseStatus = ''; // the status line's text before the streaming part
let streamStatus = null; // streaming mode's part of the status line

// ---- small helpers ------------------------------------------------------

const str = (ptr) => M.UTF8ToString(ptr);
const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

function withCString(s, fn) {
  const n = M.lengthBytesUTF8(s) + 1;
  const p = M._malloc(n);
  try {
    M.stringToUTF8(s, p, n);
    return fn(p);
  } finally {
    M._free(p);
  }
}

function emit(type, detail) {
  window.dispatchEvent(new CustomEvent(type, { detail }));
}

function showError(message, warning = false) {
  ui.error.textContent = message;
  ui.error.classList.toggle('warning', warning);
  ui.error.hidden = false;
  ui.errorClose.hidden = false;
}

function hideError() {
  ui.error.hidden = true;
  ui.errorClose.hidden = true;
  ui.error.textContent = '';
}

function setProgress(done, total) {
  ui.progress.hidden = false;
  if (total > 0) {
    ui.progress.value = Math.min(1, done / total);
    ui.status.textContent = `Reading… ${Math.floor((100 * Math.min(done, total)) / total)}%`;
  } else {
    ui.progress.removeAttribute('value'); // indeterminate
    ui.status.textContent = `Reading… ${(done / 1048576).toFixed(1)} MiB`;
  }
}

function fmtCount(n) {
  return Number(n).toLocaleString('en-US');
}

function showLoaded(name, stats) {
  ui.alignButton.hidden = tracesNow().length < 2;
  ui.alignCollButton.hidden = ui.collectivesButton.hidden = tracesNow().length < 2;
  ui.layoutButton.hidden = tracesNow().length < 2;
  showLayout();
  ui.name.textContent = name;
  ui.name.title = name;
  document.title = `${name} – strata`;
  ui.empty.hidden = true;
  ui.progress.hidden = true;
  const parts = [];
  if (stats) {
    parts.push(`${fmtCount(stats.events)} events`);
    parts.push(counted(stats.processes, 'process', 'processes', fmtCount));
    parts.push(counted(stats.threads, 'thread', 'threads', fmtCount));
    if (stats.format) parts.push(stats.format + (stats.compressed ? ' (gzip)' : ''));
    if (typeof stats.load_ms === 'number') parts.push(`loaded in ${Math.round(stats.load_ms)} ms`);
  }
  baseStatus = parts.join(' · ');
  renderStatus();
}

function renderStatus() {
  ui.status.textContent = [baseStatus, streamStatus].filter(Boolean).join(' · ');
}

// The status line and the trace's name carry their whole text on hover, whatever set it.
function titleFollowsText(el) {
  const sync = () => { el.title = el.textContent; };
  new MutationObserver(sync).observe(el, { childList: true, characterData: true, subtree: true });
  sync();
}

// ---- loading --------------------------------------------------------------

// The stats JSON, with `import_peak_bytes` (the last import's peak of the
// app's heap over what it held when the load began: wasm/heap_budget.h); where
// the shown trace's load was split (par_load.js) also `workers` (parse
// workers used) and `worker_heap_bytes` (their memories' peaks).
function statsNow() {
  let s = M ? JSON.parse(str(M._st_wasm_stats_json())) : null;
  if (s) s.import_peak_bytes = M._st_wasm_import_peak_bytes();
  if (s && loadSplitStats) s = { ...s, ...loadSplitStats };
  // streaming mode: the summary's and index's figures, windows shown, bytes pending
  if (s && stream && stream.active()) s = { ...s, streaming: stream.state() };
  return s;
}

// Resolves after the C side has drawn the first frame of the trace just
// swapped in (Module.strataOnLoaded), so stats.load_ms covers that frame.
function waitFirstFrame() {
  return new Promise((resolve) => {
    onFrameLoaded = resolve;
    M._st_wasm_redraw();
  });
}

// Finishes a load whose bytes have all been pushed; resolves with stats.
async function finish(name, split = null) {
  const frame = waitFirstFrame();
  const status = M._st_wasm_load_finish();
  if (status === 2) {
    onFrameLoaded = null;
    throw new Error(oneLine(str(M._st_wasm_error())));
  }
  loadSplitStats = split;
  await frame;
  const stats = statsNow();
  showLoaded(name, stats);
  // 1: damaged part-way; shown like the CLI keeps it, with its warning line
  if (status === 1) showError(oneLine(str(M._st_wasm_error())), true);
  embed.loaded();
  return stats;
}

// ---- a streamed trace opened from its index file (`strata index`) ---------------

// Starts the load of trace `name` from its index: the index opened, the
// trace's identity samples read with read(off, n) and checked. null: the
// load is open (finish it); else why the index cannot be used (one line;
// nothing is loading).
async function beginFromIndex(name, idx, read, total) {
  const p = M._malloc(idx.length || 1);
  let ok;
  try {
    M.HEAPU8.set(idx, p);
    ok = withCString(name, (np) => M._st_wasm_load_begin_index(np, p, idx.length));
  } finally {
    M._free(p);
  }
  if (!ok) return oneLine(str(M._st_wasm_error()));
  let readError = null;
  const n = M._st_wasm_index_samples();
  for (let k = 0; k < n; k++) {
    const off = M._st_wasm_index_range(k, 0);
    const len = M._st_wasm_index_range(k, 1);
    let part = null;
    try {
      part = await read(off, len);
    } catch (e) {
      readError = readError || oneLine(e && e.message ? e.message : e);
    }
    if (!part || part.length !== len) continue; // short: a mismatch
    const q = M._malloc(len || 1);
    try {
      M.HEAPU8.set(part, q);
      M._st_wasm_index_sample(k, q, len);
    } finally {
      M._free(q);
    }
  }
  if (M._st_wasm_index_verify(total)) return null;
  const why = readError || oneLine(str(M._st_wasm_error()));
  M._st_wasm_load_abort();
  return why;
}

// A failed open: the page as it was, the one line shown and sent
// (strata:error); returns the Error to reject with.
function openFailed(e, prevStatus) {
  const message = oneLine(e && e.message ? e.message : e);
  ui.progress.hidden = true;
  ui.status.textContent = ui.name.textContent ? prevStatus : '';
  if (!ui.name.textContent) ui.empty.hidden = false;
  showError(message);
  emit('strata:error', message);
  return new Error(message);
}

// One source: a URL may turn out to be a profile manifest (manifest.js),
// opened as its files on one timeline.
async function openOne(source, opts) {
  const prevStatus = ui.status.textContent;
  let src;
  try {
    if (!M) throw new Error('strata is not ready yet');
    hideError();
    ui.status.textContent = 'Opening…';
    src = await resolveSource(source, opts || {});
  } catch (e) {
    throw openFailed(e, prevStatus);
  }
  if (!src.manifest) return doOpen(source, src, opts, prevStatus);
  const m = src.manifest;
  // a profile that streams opens each file from its index (fetched when its turn comes)
  const bytes = m.files.reduce((n, f) => n + f.bytes, 0);
  const streams = m.files.length && streamWanted(opts, bytes, m.files[0].name).on;
  const indexOf = (u) => () => bytesOf(u).then((b) => (isIndex(b) ? b : null), () => null);
  const indexes = streams ? new Map(m.files.filter((f) => f.index).map((f) => [f.name, indexOf(f.index)])) : null;
  return doOpenMany(m.files.map((f) => f.url), {
    ...opts, names: m.files.map((f) => f.name), groups: m.files.map((f) => f.group), skipped: m.skipped, total: m.total, prevStatus,
    ...(indexes && indexes.size ? { indexes } : {}),
  });
}

async function doOpen(source, src, opts, prevStatus) {
  try {
    const { name, total, read } = src;
    let sw = streamWanted(opts, total, name);
    // with its index file (given, or `<url>.stx` beside a streamed ?url=): no pass
    let idx = opts && opts.index ? await bytesOf(opts.index) : null;
    if (!idx && sw.on && typeof source === 'string') idx = await siblingIndex(source);
    if (idx && (read || src.rangeRead)) {
      stream.detach();
      ui.status.textContent = 'Opening with its index…';
      const why = await beginFromIndex(name, idx, read || src.rangeRead, total);
      if (!why) {
        if (src.cancel) src.cancel();
        if (!sw.on) sw = streamWanted({ ...(opts || {}), stream: 1 }, total, name);
        const stats = await finish(name, null);
        const h = M._st_wasm_last_handle();
        fileArgs.setFiles(new Map(read ? [[h, { read, size: total, compressed: !!stats.compressed }]] : []));
        stream.attach(h, { read: read || src.rangeRead, size: total, compressed: !!stats.compressed }, sw);
        stats.streaming = { ...stream.state(), from_index: true };
        embed.opened([{ source, name }]);
        emit('strata:loaded', stats);
        return stats;
      }
      showError(`${why}; reading the whole trace instead`, true);
    }
    const plan = src.blob && !sw.on ? await splitPlan(M, src.blob, workersWanted(opts), gzWorkersWanted(opts), opts) : null;
    setProgress(0, total);
    stream.detach();
    if (!withCString(name, (p) => (sw.on ? M._st_wasm_load_begin_stream(p, 0, sw.buckets) : M._st_wasm_load_begin(p)))) {
      throw new Error(oneLine(str(M._st_wasm_error())));
    }
    let split = null;
    try {
      if (plan) {
        const r = await (plan.gz ? loadSplitGz : loadSplit)(M, src.blob, plan, (n) => setProgress(n, total));
        split = { workers: r.workers, worker_heap_bytes: r.heap };
      } else {
        await pushChunks(src.chunks, total, sw.on ? sw : null);
      }
    } catch (e) {
      M._st_wasm_load_abort();
      throw e;
    }
    const stats = await finish(name, split);
    const h = M._st_wasm_last_handle();
    fileArgs.setFiles(new Map(read ? [[h, { read, size: total, compressed: !!stats.compressed }]] : []));
    if (sw.on) {
      stream.attach(h, { read: read || src.rangeRead, size: total, compressed: !!stats.compressed }, sw);
      stats.streaming = stream.state();
    }
    embed.opened([{ source, name }]);
    emit('strata:loaded', stats);
    return stats;
  } catch (e) {
    throw openFailed(e, prevStatus);
  }
}

// Several files on one timeline: each read and imported one after another
// into its own model (one batch: core/app/app.h), then shown merged, each under
// its group. Files that cannot be read are skipped, and the page says which
// and why; the others stay open (also when one does not fit in memory).
// From a manifest: opts.groups names the files' groups, opts.skipped (its
// files not read, already said why) and opts.total (all its files) count in
// the report.
async function doOpenMany(sources, opts) {
  const indexes = opts && opts.indexes; // trace name -> its index's bytes (open() pairs them)
  const prevStatus = opts && opts.prevStatus !== undefined ? opts.prevStatus : ui.status.textContent;
  const names = (opts && opts.names) || [];
  const loaded = []; // {handle, file, name}
  const skipped = [...((opts && opts.skipped) || [])]; // {name, message}
  const count = (opts && opts.total) || sources.length;
  const warnings = [];
  try {
    if (!M) throw new Error('strata is not ready yet');
    if (!sources.length && skipped.length) throw new Error(skipped.map((f) => f.message).join('; '));
    if (!sources.length) throw new Error('strata.open: no files given');
    hideError();
    stream.detach();
    M._st_wasm_batch_begin();
    for (const [i, source] of sources.entries()) {
      let name = names[i] || (source && source.name) || (typeof source === 'string' ? nameFromUrl(source) : `trace ${i + 1}`);
      try {
        ui.status.textContent = `Opening ${name} (${i + 1} of ${sources.length})…`;
        const r = await resolveSource(source, { name: names[i] });
        if (r.manifest) throw new Error('a profile manifest, not a trace (open it alone)');
        name = r.name;
        // streaming mode when the files together would pass the heap budget;
        // then each file's summary and window take their share of it
        let sw = streamWanted(opts, r.total * sources.length, r.name);
        if (sw.on && sources.length > 1) {
          sw.buckets = Math.max(1024, Math.floor(sw.buckets / sources.length));
          sw.window = Math.max(1 << 20, sw.window / sources.length);
        }
        // a trace given with its index file (dropped or opened together): no pass
        let idx = indexes && indexes.get(name);
        if (typeof idx === 'function') idx = await idx(); // a manifest's, fetched now
        let status = null;
        if (idx && (r.read || r.rangeRead)) {
          const why = await beginFromIndex(name, idx, r.read || r.rangeRead, r.total);
          if (!why) {
            if (r.cancel) r.cancel();
            status = M._st_wasm_load_finish();
            if (!sw.on) sw = streamWanted({ ...(opts || {}), stream: 1 }, r.total * sources.length, name);
          } else {
            warnings.push(`${why}; reading the whole trace instead`);
          }
        }
        if (status === null) status = await pushSource(r, sw.on ? sw : null);
        if (status === 2) {
          skipped.push({ name, message: oneLine(str(M._st_wasm_error())) });
          continue;
        }
        if (status === 1) warnings.push(oneLine(str(M._st_wasm_error())));
        const group = opts && opts.groups && opts.groups[i]; // a manifest's name for it
        if (group) withCString(group, (p) => M._st_wasm_set_group(M._st_wasm_last_handle(), p));
        loaded.push({ handle: M._st_wasm_last_handle(), name, source,
          file: r.read ? { read: r.read, size: r.total, compressed: false } : null,
          stream: sw.on ? { sw, read: r.read || r.rangeRead, size: r.total } : null });
      } catch (e) {
        skipped.push({ name, message: oneLine(e && e.message ? e.message : e) });
      }
    }
    const frame = waitFirstFrame();
    if (!M._st_wasm_batch_end()) {
      // nothing of the batch shown: the files that failed to load, and (if some
      // had loaded) why their view could not be built; what was shown stays
      onFrameLoaded = null;
      const why = [...skipped.map((f) => f.message), ...(loaded.length ? [oneLine(str(M._st_wasm_error()))] : [])];
      throw new Error(why.join('; '));
    }
    loadSplitStats = null;
    await frame;
    const list = tracesNow();
    // files loaded but left out because the view of them all did not fit in
    // memory (the C side lists them last first), in file order
    const dropped = str(M._st_wasm_batch_dropped()).split('\n').filter(Boolean).reverse();
    for (const line of dropped) skipped.push({ name: '', message: line });
    const shownHandles = new Set(list.map((t) => t.handle));
    loaded.splice(0, loaded.length, ...loaded.filter((l) => shownHandles.has(l.handle)));
    const files = new Map();
    for (const l of loaded) {
      if (!l.file) continue;
      const st = JSON.parse(str(M._st_wasm_trace_stats_json(l.handle)));
      files.set(l.handle, { ...l.file, compressed: !!(st && st.compressed) });
    }
    fileArgs.setFiles(files);
    for (const l of loaded) {
      if (!l.stream) continue;
      const st = JSON.parse(str(M._st_wasm_trace_stats_json(l.handle)));
      stream.attach(l.handle, { read: l.stream.read, size: l.stream.size, compressed: !!(st && st.compressed) }, l.stream.sw);
    }
    const stats = statsNow();
    showLoaded(list.length === 1 ? list[0].name : `${list.length} traces`, stats);
    const notes = [];
    if (skipped.length) {
      notes.push(`Skipped ${skipped.length} of ${count} files: ` +
        skipped.map((f) => (f.message.startsWith(f.name) ? f.message : `${f.name}: ${f.message}`)).join('; '));
    }
    notes.push(...warnings);
    if (notes.length) showError(notes.join(' · '), true);
    embed.loaded();
    embed.opened(loaded.map((l) => ({ source: l.source, name: l.name })));
    emit('strata:loaded', stats);
    return stats;
  } catch (e) {
    throw openFailed(e, prevStatus);
  }
}

// The one load loop: pushes a source's chunks (total bytes in all) into the
// loader begun for it, in slices of CHUNK, the progress shown as it goes;
// stops at the first slice the loader refuses (finish says why). previews:
// streaming mode's options (sw) when the summary so far is drawn while the
// pass runs (one file opened alone); null in a batch, which shows nothing
// until it ends.
async function pushChunks(chunks, total, previews = null) {
  let done = 0;
  let code = 0;
  let preview = performance.now();
  const passStart = preview;
  let previewEvery = previews ? previews.previewMs : 0;
  let progressAt = 0;
  for await (const chunk of chunks) {
    for (let off = 0; off < chunk.length && code === 0; off += CHUNK) {
      const part = chunk.subarray(off, off + CHUNK);
      M.HEAPU8.set(part, buf); // HEAPU8 is re-read: the heap may have grown
      code = M._st_wasm_load_push(buf, part.length);
    }
    done += chunk.length;
    // a preview on screen: the status once a second (each repaint composites
    // the canvas: in software, headless, ~50 ms)
    if (!previews || performance.now() - progressAt >= 1000) {
      setProgress(done, total);
      progressAt = performance.now();
    }
    if (code !== 0) break; // the loader has seen enough to fail: finish says why
    // the summary so far drawn while the pass runs, when the pass still has
    // 3 s or more to go at its rate so far (else its final summary comes
    // soon: a preview would only slow it, its drawing competing with the
    // parse for the cores)
    const now = performance.now();
    const left = done > 0 ? ((total - done) * (now - passStart)) / done : Infinity;
    if (previews && now - preview >= previewEvery && done < total && (previews.previewFixed || left >= 3000)) {
      const t = performance.now();
      stream.previewed(M._st_wasm_stream_preview());
      preview = performance.now();
      // a preview costs O(summary) in wasm (at most ~2.5 % of the pass's
      // time), then the browser's drawing of it, which competes with the
      // parse and is not seen here: spaced by half the time so far too
      if (!previews.previewFixed) previewEvery = Math.max(previews.previewMs, 40 * (preview - t), (preview - passStart) / 2);
    }
  }
}

// Pushes one resolved source through the loader (inside a batch: the file's
// load status, 0 ok, 1 damaged part-way, 2 failed; nothing is shown yet).
async function pushSource({ name, total, chunks }, sw = null) {
  setProgress(0, total);
  if (!withCString(name, (p) => (sw ? M._st_wasm_load_begin_stream(p, 0, sw.buckets) : M._st_wasm_load_begin(p)))) return 2;
  try {
    await pushChunks(chunks, total);
  } catch (e) {
    M._st_wasm_load_abort();
    throw e;
  }
  return M._st_wasm_load_finish();
}

const tracesNow = () => (M ? JSON.parse(str(M._st_wasm_traces_json())) : []);

async function openList(list, opts) {
  const { sources, indexes } = await pairIndexes(list);
  if (sources.length === 1 && indexes) {
    const idx = indexes.get((sources[0] && sources[0].name) || (typeof sources[0] === 'string' ? nameFromUrl(sources[0]) : ''));
    return openOne(sources[0], idx ? { ...(opts || {}), index: idx } : opts);
  }
  return doOpenMany(sources, indexes ? { ...(opts || {}), indexes } : opts);
}

// Runs fn once every load (and args read) queued before it has ended: they
// take turns with the one transfer buffer.
function enqueue(fn) {
  const p = queue.then(fn);
  queue = p.catch(() => {});
  return p;
}

function open(source, opts) {
  const many = Array.isArray(source);
  return enqueue(() => (many ? openList(source, opts) : openOne(source, opts)));
}

// Opens from a user action: failures are already shown in the banner.
const openFromUi = (source, opts) => open(source, opts).catch(() => {});

// ---- panels: built from the core's interaction state (JSON, textContent only) --

const json = (ptr) => JSON.parse(str(ptr));
let pointer = { x: 0, y: 0 };

// "3 of 7,652", "12 matches"; with a track filter hiding some, steps skip
// them (core/ui/ui.c st_ui_search_step) and the count says so: "2 of 9 (4
// hidden by the track filter)", where 9 are the matches shown.
function searchCountText(s) {
  if (!s.text) return '';
  const shown = s.matches - (s.hidden || 0);
  const text = s.current >= 0 ? `${fmtCount(s.current + 1)} of ${fmtCount(shown)}` : `${fmtCount(shown)} match${shown === 1 ? '' : 'es'}`;
  return s.hidden ? `${text} (${fmtCount(s.hidden)} hidden by the track filter)` : text;
}

function onUi(bits) {
  const st = json(M._st_wasm_ui_state_json());
  if (!st) return;
  ui.canvas.style.cursor = st.cursor || 'default';
  if (bits & UI.TOOL) ui.tool.value = String(['select', 'pan', 'zoom', 'timing'].indexOf(st.tool));
  if (bits & UI.HELP) ui.help.hidden = !st.help;
  if (FLOW_MODES.includes(st.flows)) ui.flows.value = st.flows;
  if (bits & UI.SEARCH) {
    const s = st.search || {};
    if (document.activeElement !== ui.search && s.text !== undefined) ui.search.value = s.text;
    if (!s.text && argsSearch) argsSearch.cancel(); // cleared (Esc on the timeline): no pass may bring it back
    ui.searchCount.textContent = searchCountText(s);
  } else if (bits & UI.TRACKS) {
    ui.searchCount.textContent = searchCountText(st.search || {}); // the filter hides more or fewer
  }
  if (bits & UI.FOCUS_SEARCH) {
    ui.search.focus();
    ui.search.select();
  }
  if (bits & UI.FOCUS_TIMELINE) {
    ui.search.blur();
    ui.canvas.focus();
  }
  if ((bits & UI.VIEW) && stream) stream.viewChanged();
  if (bits & UI.VIEW) {
    // the first view left isolated far events out (core/index/bulk.h): say how many
    const n = st.outside || 0;
    ui.outliers.hidden = !n;
    if (n) ui.outliersText.textContent = `${fmtCount(n)} event${n === 1 ? '' : 's'} far from the rest ${n === 1 ? 'is' : 'are'} not in this first view.`;
  }
  if ((bits & UI.TRACKS) && tracks) tracks.refresh();
  if ((bits & UI.FOCUS_FILTER) && tracks) tracks.focus();
  if (bits & UI.SELECTION) details.fill(json(M._st_wasm_selected_event_json()), st.selected);
  if (panels) panels.onUi(bits, st);
  if (bits & UI.SHIFT) emit('strata:offsets', tracesNow()); // a file was moved (alt+drag, Align, an offset)
  if (bits & (UI.HOVER | UI.VIEW)) {
    const h = json(M._st_wasm_hover_json());
    if (!h) {
      ui.tooltip.hidden = true;
    } else {
      // an event narrower than a pixel is drawn in a hatched block of merged events (lod.h: min 1 px)
      const v = h.kind === 'event' ? JSON.parse(str(M._st_wasm_view_json())) : null;
      const nsPerPx = v ? ((v.end_us - v.start_us) * 1000) / Math.max(1, ui.canvas.clientWidth - TIMELINE_GUTTER_PX) : 0;
      const merged = v && h.dur_ns < nsPerPx ? ' · in a hatched block: events too small to draw apart, merged (zoom in to see each)' : '';
      ui.tooltip.textContent = h.kind === 'counter' ? `${h.name}: ${h.value_text ?? h.value}` : `${h.name}  ${h.dur_text || ''}${merged}`;
      ui.tooltip.style.left = `${Math.round(pointer.x + 14)}px`;
      ui.tooltip.style.top = `${Math.round(pointer.y + 16)}px`;
      ui.tooltip.hidden = false;
    }
  }
}

function wirePanels() {
  // the pointer where it is now, before the core's handlers report the hover it causes:
  // the tooltip goes by the mouse, not by its previous position
  const track = (e) => {
    const r = ui.canvas.getBoundingClientRect();
    pointer = { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  window.addEventListener('pointermove', track, { capture: true, passive: true });
  window.addEventListener('mousemove', track, { capture: true, passive: true });
  // over the time axis (which reads from the trace's start): the absolute time there, in
  // the file's clock (an epoch trace's 80000 s), after the core's hover has been handled
  ui.canvas.addEventListener('mousemove', () => requestAnimationFrame(() => {
    if (!M || pointer.y >= 28 || pointer.x < TIMELINE_GUTTER_PX) return;
    const v = JSON.parse(str(M._st_wasm_view_json()));
    if (!v) return;
    const w = Math.max(1, ui.canvas.clientWidth - TIMELINE_GUTTER_PX);
    const us = v.start_us + ((pointer.x - TIMELINE_GUTTER_PX) / w) * (v.end_us - v.start_us);
    // the axis reads from the trace's start, or from its work's when outliers far before it
    // were left out of the first view (view().axis_zero_us)
    const sinceStart = us - (v.axis_zero_us ?? statsNow()?.ts_min_us ?? 0);
    const dt = fmtDur(Math.abs(sinceStart) * 1000);
    ui.tooltip.textContent = `${(us / 1e6).toFixed(6)} s in the file's clock · ${sinceStart < 0 ? `-${dt}` : dt} from the trace's start`;
    ui.tooltip.style.left = `${Math.round(pointer.x + 14)}px`;
    ui.tooltip.style.top = `${Math.round(pointer.y + 16)}px`;
    ui.tooltip.hidden = false;
  }), { passive: true });
  ui.canvas.addEventListener('mouseleave', () => { ui.tooltip.hidden = true; }, { passive: true });
  const nameSearch = (t) => {
    argsSearch.cancel();
    return withCString(t, (p) => M._st_wasm_search(p));
  };
  const typed = () => (ui.searchArgs.checked ? argsSearch.typed(ui.search.value) : nameSearch(ui.search.value));
  ui.search.addEventListener('input', typed);
  ui.searchArgs.addEventListener('change', () => { typed(); ui.search.focus(); });
  // Enter / PageDown / Esc in the box: the core decides (st_ui_search_box_key);
  // an "in args" search not run yet for this text runs first, then steps.
  const boxKey = (key, mods) => withCString(key, (p) => M._st_wasm_search_key(p, mods));
  ui.search.addEventListener('keydown', (e) => {
    const t = ui.search.value;
    const steps = e.key === 'Enter' || e.key === 'PageDown' || e.key === 'PageUp';
    if (steps && ui.searchArgs.checked && t && !argsSearch.ready(t)) {
      e.preventDefault();
      const { key } = e;
      const mods = modsOf(e);
      argsSearch.run(t).then((r) => { if (r && !r.cancelled) boxKey(key, mods); }, () => {});
    } else if (boxKey(e.key, modsOf(e))) {
      e.preventDefault();
      e.stopPropagation(); // Esc moved the focus: the timeline's key handler must not see it too
    }
  });
  ui.outliersShow.addEventListener('click', () => { M._st_wasm_view_fit(); ui.canvas.focus(); });
  ui.tool.addEventListener('change', () => { M._st_wasm_set_tool(Number(ui.tool.value)); ui.canvas.focus(); });
  ui.helpButton.addEventListener('click', () => M._st_wasm_set_help(ui.help.hidden ? 1 : 0));
  ui.layoutButton.addEventListener('click', () => {
    setLayout(M._st_wasm_side_by_side() ? 'stacked' : 'side');
    ui.canvas.focus();
  });
  window.addEventListener('keydown', (e) => { // c: the compare layout
    if (e.key !== 'c' || e.ctrlKey || e.metaKey || e.altKey || ui.layoutButton.hidden) return;
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    setLayout(M._st_wasm_side_by_side() ? 'stacked' : 'side');
  });
  ui.alignButton.addEventListener('click', () => {
    if (!M._st_wasm_align_selection()) {
      showError('Align: select one event in at least two files (ctrl+click), e.g. the same step in every rank, then Align', true);
    }
    ui.canvas.focus();
  });
  ui.flows.addEventListener('change', () => {
    M._st_wasm_set_flows(FLOW_MODES.indexOf(ui.flows.value));
    ui.flows.value = FLOW_MODES[M._st_wasm_set_flows(-1)]; // also before a trace is shown
    ui.canvas.focus();
  });
}

// ---- compare layouts: stacked / side by side ------------------------------------

function showLayout() {
  const side = !!(M && M._st_wasm_side_by_side());
  ui.layoutButton.setAttribute('aria-pressed', side ? 'true' : 'false');
  ui.layoutButton.textContent = side ? 'Stacked' : 'Side by side';
  document.documentElement.classList.toggle('side-by-side', side);
  return side ? 'side' : 'stacked';
}

// The layout now in effect; side by side asked for without the memory for its
// second pane says so (and stays stacked).
const SIDE_NO_MEMORY = 'Side by side: out of memory for the second pane (the view stays stacked; close files or open fewer to compare side by side)';
function setLayout(name) {
  if (M._st_wasm_set_side_by_side(name === 'side' ? 1 : 0) < 0) showError(SIDE_NO_MEMORY, true);
  return showLayout();
}

// ---- page wiring --------------------------------------------------------------

function wireUi() {
  ui.open.addEventListener('click', () => ui.file.click());
  // files chosen or dropped: one alone, several on one timeline
  const openFiles = (fs) => {
    if (fs.length === 1) openFromUi(fs[0]);
    else if (fs.length > 1) openFromUi(fs);
  };
  ui.file.addEventListener('change', () => {
    openFiles(Array.from(ui.file.files || []));
    ui.file.value = ''; // the same file can be chosen again
  });
  ui.errorClose.addEventListener('click', hideError);
  wireDrop({
    overlay: ui.drop,
    open: openFiles,
    onError: (err) => showError(`Could not read the dropped files: ${oneLine(err && err.message ? err.message : err)}`),
  });

  new ResizeObserver(geometry.resize).observe(ui.canvas);
  window.addEventListener('resize', geometry.resize);
  geometry.watchDpr();
}

// ---- start ------------------------------------------------------------------

async function start() {
  if (typeof window.createStrataModule !== 'function') {
    showError('Could not start strata: strata.js did not load.');
    return;
  }
  try {
    M = await window.createStrataModule({
      ...embed.moduleOptions(),
      canvas: ui.canvas,
      locateFile: (path) => new URL(path, import.meta.url).href,
      print: (t) => console.log(t),
      printErr: (t) => console.warn(t),
      strataOnUi: (bits) => {
        try {
          onUi(bits);
        } catch (e) {
          console.warn('strata: panel update failed', e);
        }
      },
      strataOnLoaded: () => {
        const r = onFrameLoaded;
        onFrameLoaded = null;
        if (r) r();
      },
    });
  } catch (e) {
    showError(`Could not start strata: ${oneLine(e && e.message ? e.message : e)}`);
    return;
  }
  buf = M._malloc(CHUNK);
  geometry = createCanvas({ M, canvas: ui.canvas });
  fileArgs = createFileArgs({
    M, str, buf, chunk: CHUNK, enqueue, traces: tracesNow,
    filesChanged: () => { if (argsSearch) argsSearch.fileChanged(); },
  });
  details = createDetails({
    M, el: ui.details, traces: tracesNow, argsFor: fileArgs.argsFor, handleOf: fileArgs.handleOf,
    renderArgs: (el, res) => panels.renderArgs(el, res),
    figuresOf: (name) => roofline?.figuresOf(name),
    overview: () => overview,
  });
  geometry.resize();
  if (!M._st_wasm_gfx_ok()) showError('This browser cannot show the timeline: WebGL2 is not available.');

  tracks = createTracks({ M, str, withCString, fmtCount, canvas: ui.canvas });
  stream = createStream({
    M,
    str,
    setStatus: (t) => {
      streamStatus = t;
      renderStatus();
    },
    onError: (m) => showError(m, true),
  });
  const coll = createCollectives({
    M,
    str,
    files: () => fileArgs.files(),
    traces: tracesNow,
    // as the overview asks (overview.js PANEL), so that its kept analysis answers
    analyze: () => withCString('', (p) => M._st_wasm_analyze(p, -1, 1000)),
    emit,
    fmtDur,
  });
  ui.alignCollButton.addEventListener('click', () => {
    coll.align().catch((e) => showError(oneLine(e && e.message ? e.message : e), true));
  });
  ui.collectivesButton.addEventListener('click', () => { coll.show(); });
  window.strata = createApi({
    M, str, withCString, open, statsNow, tracesNow, emit, ui, fileArgs, tracks, stream, coll, setLayout,
    SIDE_NO_MEMORY, FLOW_MODES,
    // made below, after window.strata: read when a method is called
    panels: () => panels,
    flame: () => flame,
    argsSearch: () => argsSearch,
    diffTable: () => diffTable,
    overview: () => overview,
    roofline: () => roofline,
    opStats: () => opStats,
    notes: () => notes,
  });
  wireUi();
  window.addEventListener('strata:layout', showLayout);
  panels = createPanels({ M, str, fmtCount });
  flame = createFlame({ M, str, fmtCount, fmtDur });
  argsSearch = createArgsSearch({
    M, withCString, chunk: CHUNK, countEl: ui.searchCount, progressEl: ui.progress,
    getFile: () => fileArgs.file(),
    getHandle: () => (fileArgs.file() ? [...fileArgs.files().keys()][0] : 0), // the one file's trace handle
    // several files shown: [{handle, file}] in display order (each searched in its own pass)
    getFiles: () => (tracesNow().length > 1 ? tracesNow().filter((t) => fileArgs.files().has(t.handle)).map((t) => ({ handle: t.handle, file: fileArgs.files().get(t.handle) })) : []),
    getBuf: () => buf,
  });
  wirePanels();
  createInfo({ M, str, traces: tracesNow });
  diffTable = createDiff({ M, str, withCString });
  roofline = createRoofline({
    M, str, withCString, argsFor: fileArgs.argsFor,
    onSelect: (text) => { const m = document.getElementById('overview-meta'); if (m && text) m.textContent = text; },
  });
  overview = createOverview({
    M, str, withCString, fmtCount,
    extra: () => roofline.section(),
    efficiency: roofline,
    collectivesLine: () => coll.run(),
  });
  opStats = createOpStats({ M, str, withCString, fmtDur, fmtCount, efficiency: roofline, analyze: () => overview.analyzeNow() });
  createNotShown({ M, str });
  notes = createNotes({ M, str, withCString, fmtDur });
  geometry.watchCover(); // after every panel exists
  titleFollowsText(ui.status);

  const first = embed.firstSource(); // ?url=, a standalone file's trace, the demo, or nothing (?embed=1)
  if (first.kind === 'demo') {
    // The built-in demo, through the same loader as a user's file.
    await (queue = queue.then(async () => {
      const frame = waitFirstFrame();
      stream.detach();
      const status = M._st_wasm_load_demo();
      if (status === 2) {
        onFrameLoaded = null;
        showError(oneLine(str(M._st_wasm_error())));
        ui.empty.hidden = false;
        return;
      }
      await frame;
      showLoaded('Demo trace (built in)', statsNow());
      // The demo's bytes, copied out of the wasm heap into a Blob: its events'
      // args then read like a file's (and "Save HTML" can save it).
      const size = M._st_wasm_demo_size();
      const demo = size > 0 ? new Blob([M.HEAPU8.slice(M._st_wasm_demo_bytes(), M._st_wasm_demo_bytes() + size)]) : null;
      M._st_wasm_demo_release();
      const h = M._st_wasm_last_handle();
      fileArgs.setFiles(new Map(demo ? [[h, { read: async (off, n) => new Uint8Array(await demo.slice(off, off + n).arrayBuffer()), size: demo.size, compressed: false }]] : []));
      embed.opened(demo ? [{ source: demo, name: 'strata-demo.trace.json' }] : []);
      embed.loaded();
    }));
  }
  emit('strata:ready', {});
  embed.ready(M, { open, openFromUi, withCString });
  if (first.kind === 'open') openFromUi(first.source, first.opts);
}

start();
