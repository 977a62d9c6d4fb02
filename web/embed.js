// embed.js: how the page is shared and embedded (DESIGN.md contracts 2 and 3).
// app.js imports embedSetup() and calls its hooks; everything else here
// talks to the page only through window.strata, DOM events and the wasm
// module handed over in ready().
//
//   ?url=<trace url>   the first trace is fetched from there (by app.js's
//                      streaming loader, through sources.js). The
//                      Content-Security-Policy is tightened at start-up to
//                      connect-src 'self' plus that URL's origin (without
//                      ?url=: 'self' only).
//   ?manifest=<url>    a profile manifest (`strata manifest`, web/manifest.js):
//                      its files fetched from the manifest's folder and opened
//                      on one timeline; a ?url= whose body is a manifest
//                      opens the same way. Its origin is allowed as ?url='s.
//   ?index=<url>       with ?url=: the trace's index file (`strata index`):
//                      opened in streaming mode without its pass (checked
//                      against the trace; a stale one: the pass runs).
//   #t=<start_us>,<end_us>&sel=<row>:<index>
//                      the view and the selected event; kept up to date
//                      (history.replaceState, at most ~4 times a second) and
//                      applied when the first trace has loaded, and on
//                      hashchange.
//   &flows=off|all     the flow arrows' mode when it is not the default
//                      (selection; window.strata.setFlows), kept the same way.
//   &tf=<text>&pin=<id>,<id>&empty=1
//                      the track filter, the pinned tracks (ids "<file>.<pid>.<k>",
//                      web/tracks.js) and the processes without events shown
//   &notes=<t0>[,<t1>]:<text>;...
//                      the notes (notes.js): each a time or a range in us (as
//                      t=) and its text percent-encoded (encodeURIComponent,
//                      so ';' ',' ':' never appear in it), ';' between notes.
//                      Bound: the notes that fit in NOTES_HASH_MAX (8,192)
//                      characters, in time order (at most 64 notes of 200
//                      characters each exist); the rest are left out of the link.
//   ?workers=N         how many parse workers split a large Chrome JSON file
//                      (web/par_load.js; default the cores less one, 1 = one thread)
//   ?embed=1           a small frame: no demo, no brand or open/save buttons;
//                      waits for a trace by postMessage.
//   postMessage        a parent (iframe) or opener window may send
//                        {strata: {buffer: ArrayBuffer|TypedArray, name?: string}}
//                        {strata: {buffers: [{buffer, name?}, ...], compare?: 'side'|'stacked'}}
//                          (several files on one timeline; compare with two: the two runs
//                          as window.strata.compare(a, b) shows them, in that layout)
//                        {perfetto: {buffer: ArrayBuffer, title?: string}}  (Perfetto's)
//                        'PING'  -> answered with 'PONG' (Perfetto's handshake)
//                      anything else is ignored. The page tells its parent /
//                      opener (targetOrigin '*'; no trace content is sent):
//                        {strata: {event: 'ready'}}
//                        {strata: {event: 'loaded', name, stats}}
//                        {strata: {event: 'error', message}}
//   standalone file    `strata export` / the "Save HTML" button write one HTML
//                      file holding the page, strata.js, strata.wasm (base64)
//                      and the traces (base64, gzip-compressed), both through
//                      the one builder in core/report (report.h has the exact
//                      layout; the page runs it compiled into strata.wasm,
//                      wasm/report_api.c). This file only gathers the bytes.
//                      It also keeps the page's view state: the link hash (every
//                      key above and any other key the page writes) in <script
//                      type="application/json" id="strata-state">{"hash": ...},
//                      applied when the file opens exactly as a link's hash is
//                      (a hash in the file's own address wins over it).
//
// Event names and args are never put into the DOM as HTML (app.js and its
// modules use textContent); nothing here reads them either.

const params = new URLSearchParams(location.search);
const EMBED = params.get('embed') === '1';
const URL_PARAMS = params.getAll('url').filter(Boolean);
const MANIFEST_PARAM = params.get('manifest') || null;
const URL_PARAM = URL_PARAMS[0] || null;
const INDEX_PARAM = params.get('index') || null; // ?url=A&index=A.stx: its index file (no pass)
const $ = (id) => document.getElementById(id);

// ---- standalone file --------------------------------------------------------------
// A standalone file (core/report/report.h) holds the wasm in <script
// id="strata-wasm">, the traces in <script id="strata-trace[-N]"> and its
// own page in <style id="strata-css">, <script id="strata-js"> and <script
// type="module" id="strata-app">; it can save itself again from those.
const STANDALONE = !!document.getElementById('strata-wasm');

function b64ToBytes(s) {
  s = s.replace(/\s+/g, '');
  const out = new Uint8Array(Math.floor((s.length * 3) / 4) - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0));
  const STEP = 1 << 20; // characters per atob call (a multiple of 4)
  let o = 0;
  for (let i = 0; i < s.length; i += STEP) {
    const bin = atob(s.slice(i, i + STEP));
    for (let k = 0; k < bin.length; k++) out[o++] = bin.charCodeAt(k);
  }
  return out;
}

// ---- CSP: connect only where ?url= points --------------------------------------
// The static policy in index.html allows connect-src http: https: because a
// meta tag cannot know the URL; this narrows it before anything is fetched.
// (Policies only ever add up: a second meta tag can tighten, never widen.)
function tightenCsp() {
  if (STANDALONE) return; // its own policy allows no connections at all
  let allow = "'self'";
  for (const p of [...URL_PARAMS, ...(MANIFEST_PARAM ? [MANIFEST_PARAM] : []), ...(INDEX_PARAM ? [INDEX_PARAM] : [])]) {
    try {
      const u = new URL(p, document.baseURI);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && u.origin !== location.origin && !allow.includes(` ${u.origin}`)) {
        allow += ' ' + u.origin;
      }
    } catch {
      /* an invalid URL fails in the loader with its own message */
    }
  }
  const m = document.createElement('meta');
  m.httpEquiv = 'Content-Security-Policy';
  m.content = `connect-src ${allow}`;
  document.head.append(m);
}

// ---- the location hash ----------------------------------------------------------

export const FLOW_MODES = ['off', 'selection', 'all']; // st_flow_mode order (core/ui/ui.h)
const fmtUs = (x) => String(+x.toFixed(3));

// notes=<t0>[,<t1>]:<text>;... (the header): [{t0, t1, text}], null without notes=.
const NOTES_HASH_MAX = 8192;
function parseNotes(raw) {
  if (raw === undefined) return null;
  const out = [];
  for (const item of raw.split(';')) {
    const colon = item.indexOf(':');
    if (colon < 0) continue;
    const [t0, t1] = item.slice(0, colon).split(',').map(Number);
    let text;
    try {
      text = decodeURIComponent(item.slice(colon + 1));
    } catch {
      continue; // a broken escape: that note is left out
    }
    if (Number.isFinite(t0)) out.push({ t0, t1: Number.isFinite(t1) ? t1 : t0, text });
  }
  return out;
}
function notesHash(list) {
  let h = '';
  for (const n of list) {
    const item = `${fmtUs(n.t0_us)}${n.t1_us > n.t0_us ? `,${fmtUs(n.t1_us)}` : ''}:${encodeURIComponent(n.text)}`;
    if (h.length + item.length + 1 > NOTES_HASH_MAX) break;
    h += (h ? ';' : '') + item;
  }
  return h;
}

function parseHash(h) {
  const out = {};
  const raw = {};
  for (const part of h.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    raw[part.slice(0, eq)] = part.slice(eq + 1);
    try {
      out[part.slice(0, eq)] = decodeURIComponent(part.slice(eq + 1));
    } catch {
      /* a broken escape: the key is left out */
    }
  }
  const t = /^(-?[\d.]+(?:e[+-]?\d+)?),(-?[\d.]+(?:e[+-]?\d+)?)$/i.exec(out.t || '');
  const s = /^(\d+):(\d+)$/.exec(out.sel || '');
  // off=<us>,<us>,...: each file's offset on the shared timeline (several traces)
  const off = /^-?[\d.]+(?:e[+-]?\d+)?(?:,-?[\d.]+(?:e[+-]?\d+)?)+$/i.test(out.off || '') ? out.off.split(',').map(Number) : null;
  return {
    t: t ? [Number(t[1]), Number(t[2])] : null,
    sel: s ? [Number(s[1]), Number(s[2])] : null,
    off,
    cmp: out.cmp === 'side' ? 'side' : null,
    flows: FLOW_MODES.includes(out.flows) ? out.flows : null,
    tf: out.tf || '',
    pin: /^[\d.,-]+$/.test(out.pin || '') ? out.pin.split(',').filter(Boolean) : [],
    empty: out.empty === '1',
    notes: parseNotes(raw.notes),
  };
}

// ---- the standalone file ----------------------------------------------------------

// Parts of a report build (wasm/report_api.c st_wasm_report_add's kinds).
const PART = { index: 0, css: 1, js: 2, wasm: 3, module: 4, trace: 5, state: 6 };
const enc = new TextEncoder();

async function gzipIfPlain(u8) {
  const gz = u8.length > 2 && u8[0] === 0x1f && u8[1] === 0x8b;
  const zl = u8.length > 2 && u8[0] === 0x78 && ((u8[0] << 8) | u8[1]) % 31 === 0;
  if (gz || zl || typeof CompressionStream !== 'function') return u8;
  const s = new Blob([u8]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

// ---- setup (called once by app.js, before anything else runs) ------------------------

// A standalone file's view state (the link hash it was saved with): applied
// as the hash when the file is opened without one of its own.
function stateHash() {
  const el = document.getElementById('strata-state');
  if (!el) return null;
  try {
    const h = JSON.parse(el.textContent).hash;
    return typeof h === 'string' && h.length > 1 ? (h.startsWith('#') ? h : `#${h}`) : null;
  } catch {
    return null;
  }
}

export function embedSetup() {
  tightenCsp();
  const saved = stateHash();
  if (saved && location.hash.length <= 1) {
    try {
      history.replaceState(history.state, '', saved);
    } catch {
      /* some sandboxed frames refuse: the state is not applied */
    }
  }
  // The body as parsed, before the page fills it in: the standalone file's body.
  const pristine = document.body.cloneNode(true);
  for (const s of pristine.querySelectorAll('script')) s.remove();
  const bodyHtml = pristine.innerHTML;
  if (EMBED) document.documentElement.classList.add('embed');
  if (STANDALONE) document.documentElement.classList.add('standalone'); // no guide/ beside it: the help hides its link

  let M = null;
  let api = null; // {open, openFromUi, withCString}
  let hashApplied = false;
  let loadedEarly = false; // a trace was shown before ready() handed over the module
  let shown = null; // [{source, name}] of the traces on screen, for "Save HTML"
  let saveButton = null;

  const tellParents = (msg) => {
    for (const w of new Set([window.parent, window.opener])) {
      if (w && w !== window) {
        try {
          w.postMessage({ strata: msg }, '*');
        } catch {
          /* a closed opener */
        }
      }
    }
  };

  function applyHash() {
    const h = parseHash(location.hash);
    if (h.off) {
      const list = JSON.parse(M.UTF8ToString(M._st_wasm_traces_json()));
      if (list.length === h.off.length) list.forEach((t, i) => { if (t.offset_us !== h.off[i]) M._st_wasm_set_offset(t.handle, h.off[i]); });
    }
    if (h.cmp === 'side' && !M._st_wasm_side_by_side()) {
      M._st_wasm_set_side_by_side(1);
      window.dispatchEvent(new CustomEvent('strata:layout'));
    }
    applyTracks(h);
    if (h.t && h.t[1] > h.t[0]) M._st_wasm_view_set(h.t[0], h.t[1]);
    if (h.sel) M._st_wasm_select(h.sel[0], h.sel[1]);
    if (h.flows) M._st_wasm_set_flows(FLOW_MODES.indexOf(h.flows));
    if (h.notes) window.strata.setNotes(h.notes);
  }

  // The link's track filter, pins and empty processes (the link is the whole state).
  function applyTracks(h) {
    const st = window.strata.trackState();
    if (!st) return;
    if (st.filter !== h.tf) api.withCString(h.tf, (p) => M._st_wasm_set_track_filter(p));
    if (st.show_empty !== h.empty) M._st_wasm_set_show_empty(h.empty ? 1 : 0);
    if (st.pins.join(',') === h.pin.join(',')) return;
    for (const id of st.pins) api.withCString(id, (p) => M._st_wasm_pin(p, 0));
    for (const id of h.pin) api.withCString(id, (p) => M._st_wasm_pin(p, 1));
  }

  // lastHash is the hash this page last wrote (or applied). A location.hash
  // that differs from it was edited by someone else (the user, a link, a
  // test) and wins: it is applied, never overwritten, even when this timer
  // runs before the browser has delivered its hashchange event.
  let lastHash = null;
  function syncHash() {
    if (!M || !hashApplied) return;
    if (location.hash !== lastHash && lastHash !== null) {
      lastHash = location.hash;
      applyHash();
      return;
    }
    const v = JSON.parse(M.UTF8ToString(M._st_wasm_view_json()));
    if (!v) return;
    let h = `#t=${fmtUs(v.start_us)},${fmtUs(v.end_us)}`;
    const sel = JSON.parse(M.UTF8ToString(M._st_wasm_selection_json(2)));
    if (Array.isArray(sel) && sel.length === 1 && sel[0].row !== undefined) h += `&sel=${sel[0].row}:${sel[0].index}`;
    const list = JSON.parse(M.UTF8ToString(M._st_wasm_traces_json()));
    if (list.length > 1) h += `&off=${list.map((t) => fmtUs(t.offset_us)).join(',')}`;
    if (M._st_wasm_side_by_side()) h += '&cmp=side';
    const flows = window.strata.flows();
    if (flows && flows !== 'selection') h += `&flows=${flows}`;
    const ts = window.strata.trackState();
    if (ts && ts.filter) h += `&tf=${encodeURIComponent(ts.filter)}`;
    if (ts && ts.pins.length) h += `&pin=${ts.pins.join(',')}`;
    if (ts && ts.show_empty) h += '&empty=1';
    const notes = notesHash(window.strata.notes());
    if (notes) h += `&notes=${notes}`;
    lastHash = h;
    if (h === location.hash) return;
    try {
      history.replaceState(history.state, '', h);
    } catch {
      /* some sandboxed frames refuse; the view just is not kept */
    }
  }

  async function traceBytes(s) {
    if (!s) throw new Error('no trace from a file is open (the built-in demo cannot be saved)');
    if (typeof s === 'string') {
      const r = await fetch(s, { credentials: 'omit', referrerPolicy: 'no-referrer' });
      if (!r.ok) throw new Error(`could not fetch ${s} again: HTTP ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    }
    if (s instanceof Blob) return new Uint8Array(await s.arrayBuffer());
    if (s instanceof ArrayBuffer) return new Uint8Array(s);
    return new Uint8Array(s.buffer, s.byteOffset, s.byteLength);
  }

  // The page's own files as report parts: [kind, name, bytes]. From the
  // standalone file's elements (its app module is inlined already), or
  // fetched from where this page came from ('self' in the CSP).
  async function ownParts() {
    if (STANDALONE) {
      return [
        [PART.index, '', enc.encode(`<body>\n${bodyHtml}\n</body>`)],
        [PART.css, '', enc.encode($('strata-css').textContent)],
        [PART.js, '', enc.encode($('strata-js').textContent)],
        [PART.wasm, '', b64ToBytes($('strata-wasm').textContent)],
        [PART.module, 'app.js', enc.encode($('strata-app').textContent)],
      ];
    }
    const get = async (name) => {
      const r = await fetch(new URL(name, import.meta.url), { credentials: 'same-origin' });
      if (!r.ok) throw new Error(`could not read the page's own ${name}: HTTP ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    };
    const names = [[PART.index, 'index.html'], [PART.css, 'style.css'], [PART.js, 'strata.js'], [PART.wasm, 'strata.wasm'], [PART.module, 'app.js']];
    const bytes = await Promise.all(names.map(([, n]) => get(n)));
    const parts = names.map(([kind, n], i) => [kind, kind === PART.module ? n : '', bytes[i]]);
    parts.get = get; // for the modules app.js imports (the builder asks for them)
    return parts;
  }

  // The file, built in strata.wasm by core/report (the builder of `strata
  // export`): the parts go into the wasm heap, the HTML comes back.
  async function buildStandalone(parts, traces, title) {
    const s = M._st_wasm_report_begin();
    if (!s) throw new Error('out of memory');
    try {
      const add = (kind, name, bytes) => {
        const p = M._malloc(Math.max(1, bytes.length));
        if (!p) throw new Error('out of memory');
        M.HEAPU8.set(bytes, p);
        if (!api.withCString(name, (np) => M._st_wasm_report_add(s, kind, np, p, bytes.length))) throw new Error('out of memory');
      };
      for (const [kind, name, bytes] of parts) add(kind, name, bytes);
      for (let m; (m = M._st_wasm_report_missing(s)); ) {
        const name = M.UTF8ToString(m);
        if (!parts.get) throw new Error(`the module ${name} is missing`);
        add(PART.module, name, await parts.get(name));
      }
      for (const t of traces) add(PART.trace, t.name, t.bytes);
      syncHash(); // the view as it is now
      const state = enc.encode(location.hash); // core/report keeps up to 64 KiB of it
      if (state.length > 1 && state.length <= 65536) add(PART.state, '', state);
      const n = api.withCString(title, (tp) => M._st_wasm_report_build(s, tp));
      if (!n) throw new Error(M.UTF8ToString(M._st_wasm_report_error(s)));
      const p = M._st_wasm_report_data(s);
      return new Blob([M.HEAPU8.subarray(p, p + n)], { type: 'text/html' }); // (a copy)
    } finally {
      M._st_wasm_report_end(s);
    }
  }

  async function saveStandalone() {
    if (!shown || !shown.length) throw new Error('no trace from a file is open');
    const name = shown.length === 1 ? shown[0].name || 'trace' : `${shown.length} traces`;
    const [parts, ...raws] = await Promise.all([ownParts(), ...shown.map((s) => traceBytes(s.source))]);
    const traces = [];
    for (const [i, raw] of raws.entries()) traces.push({ bytes: await gzipIfPlain(raw), name: shown[i].name || 'trace' });
    const blob = await buildStandalone(parts, traces, name);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${name.replace(/(\.(json|gz|pb|perfetto-trace|pftrace|trace))+$/i, '') || 'trace'}.strata.html`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    return blob.size;
  }

  function addSaveButton() {
    const open = $('open-button');
    if (!open) return;
    saveButton = document.createElement('button');
    saveButton.id = 'save-html';
    saveButton.type = 'button';
    saveButton.textContent = 'Save HTML';
    saveButton.title = 'Save the open trace and the viewer as one HTML file that opens offline, with no server';
    saveButton.disabled = !shown; // the demo may already be shown (and savable)
    saveButton.addEventListener('click', () => {
      saveButton.disabled = true;
      const label = saveButton.textContent;
      saveButton.textContent = 'Saving…';
      saveStandalone()
        .catch((e) => {
          window.dispatchEvent(new CustomEvent('strata:error', { detail: `Save HTML: ${e.message || e}` }));
          const err = $('error');
          if (err) {
            err.textContent = `Could not save the standalone file: ${e.message || e}`;
            err.hidden = false;
            $('error-close').hidden = false;
          }
        })
        .finally(() => {
          saveButton.textContent = label;
          saveButton.disabled = !shown;
        });
    });
    open.after(saveButton);
  }

  function onMessage(e) {
    const d = e.data;
    if (d === 'PING') {
      if (e.source) e.source.postMessage('PONG', e.origin && e.origin !== 'null' ? e.origin : '*');
      return;
    }
    if (!d || typeof d !== 'object' || !api) return;
    const isBuf = (b) => b instanceof ArrayBuffer || ArrayBuffer.isView(b);
    let buffer = null;
    let name;
    if (d.strata && typeof d.strata === 'object' && Array.isArray(d.strata.buffers)) {
      // several files on one timeline: {strata: {buffers: [{buffer, name}, ...]}}
      const list = d.strata.buffers.filter((b) => b && typeof b === 'object' && isBuf(b.buffer));
      if (!list.length) return;
      const names = list.map((b) => (typeof b.name === 'string' && b.name ? b.name : 'trace'));
      const cmp = d.strata.compare;
      if (list.length === 2 && (cmp === 'side' || cmp === 'stacked')) {
        // two runs compared as window.strata.compare does (B aligned on A), in that layout
        window.strata.compare(list[0].buffer, list[1].buffer, { names })
          .then(() => { if (cmp === 'side') window.strata.setCompareLayout('side'); })
          .catch(() => {}); // shown in the page (error line) and told to the parent
        return;
      }
      api.openFromUi(list.map((b) => b.buffer), { names });
      return;
    }
    if (d.strata && typeof d.strata === 'object' && isBuf(d.strata.buffer)) {
      buffer = d.strata.buffer;
      name = d.strata.name;
    } else if (d.perfetto && typeof d.perfetto === 'object' && d.perfetto.buffer instanceof ArrayBuffer) {
      buffer = d.perfetto.buffer;
      name = d.perfetto.title;
    } else {
      return; // any other shape: not for us
    }
    api.openFromUi(buffer, { name: typeof name === 'string' && name ? name : 'trace' });
  }

  return {
    // Extra createStrataModule options: the inlined wasm of a standalone file.
    moduleOptions() {
      const w = $('strata-wasm');
      return w ? { wasmBinary: b64ToBytes(w.textContent) } : {};
    },
    // What to show first: {kind: 'open', source, opts} | {kind: 'demo'} | {kind: 'none'}.
    firstSource() {
      const ts = Array.from(document.querySelectorAll('script[id^="strata-trace"]'));
      if (ts.length > 1) {
        return { kind: 'open', source: ts.map((t) => b64ToBytes(t.textContent)), opts: { names: ts.map((t) => t.dataset.name || 'trace') } };
      }
      const t = ts[0];
      if (t) return { kind: 'open', source: b64ToBytes(t.textContent), opts: { name: t.dataset.name || 'trace' } };
      if (MANIFEST_PARAM) return { kind: 'open', source: MANIFEST_PARAM, opts: { manifest: true } };
      if (URL_PARAMS.length > 1) return { kind: 'open', source: URL_PARAMS, opts: {} };
      if (URL_PARAM) return { kind: 'open', source: URL_PARAM, opts: INDEX_PARAM ? { index: INDEX_PARAM } : {} };
      if (EMBED) {
        const empty = $('empty');
        if (empty) {
          empty.textContent = 'Waiting for a trace from the embedding page…';
          empty.hidden = false;
        }
        return { kind: 'none' };
      }
      return { kind: 'demo' };
    },
    // After every trace load (the demo included): the hash applies to the first.
    loaded() {
      if (!M) loadedEarly = true; // the demo, shown before ready(): applied there
      if (hashApplied || !M) return;
      hashApplied = true;
      lastHash = location.hash;
      applyHash();
    },
    // A trace opened through app.js's loader (kept for "Save HTML").
    opened(list) {
      shown = list && list.length && list.every((s) => s.source) ? list : null;
      if (saveButton) saveButton.disabled = !shown;
    },
    // The module is up and window.strata exists.
    ready(module, openApi) {
      M = module;
      api = openApi;
      addSaveButton();
      window.addEventListener('message', onMessage);
      window.addEventListener('hashchange', () => {
        if (!hashApplied || location.hash === lastHash) return; /* syncHash applied it already */
        lastHash = location.hash;
        applyHash();
      });
      window.addEventListener('strata:loaded', (e) => tellParents({ event: 'loaded', name: shown ? shown.map((s) => s.name).join(', ') : null, stats: e.detail }));
      window.addEventListener('strata:error', (e) => tellParents({ event: 'error', message: String(e.detail) }));
      setInterval(syncHash, 250);
      if (loadedEarly) this.loaded();
      tellParents({ event: 'ready' });
    },
  };
}
