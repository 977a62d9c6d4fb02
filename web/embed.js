// embed.js: how the page is shared and embedded (DESIGN.md contracts 2 and 3).
// app.js imports embedSetup() and calls its hooks; everything else here
// talks to the page only through window.strata, DOM events and the wasm
// module handed over in ready().
//
//   ?url=<trace url>   the first trace is fetched from there (by app.js's
//                      streaming loader). The Content-Security-Policy is
//                      tightened at start-up to connect-src 'self' plus that
//                      URL's origin (without ?url=: 'self' only).
//   #t=<start_us>,<end_us>&sel=<row>:<index>
//                      the view and the selected event; kept up to date
//                      (history.replaceState, at most ~4 times a second) and
//                      applied when the first trace has loaded, and on
//                      hashchange.
//   ?embed=1           a small frame: no demo, no brand or open/save buttons;
//                      waits for a trace by postMessage.
//   postMessage        a parent (iframe) or opener window may send
//                        {strata: {buffer: ArrayBuffer|TypedArray, name?: string}}
//                        {perfetto: {buffer: ArrayBuffer, title?: string}}  (Perfetto's)
//                        'PING'  -> answered with 'PONG' (Perfetto's handshake)
//                      anything else is ignored. The page tells its parent /
//                      opener (targetOrigin '*'; no trace content is sent):
//                        {strata: {event: 'ready'}}
//                        {strata: {event: 'loaded', name, stats}}
//                        {strata: {event: 'error', message}}
//   standalone file    `strata export` / the "Save HTML" button write one HTML
//                      file holding the page, strata.js, strata.wasm (base64)
//                      and the trace (base64, gzip-compressed): see
//                      buildStandalone() below for the exact layout.
//
// Event names and args are never put into the DOM as HTML (app.js uses
// textContent); nothing here reads them either.

const params = new URLSearchParams(location.search);
const EMBED = params.get('embed') === '1';
const URL_PARAMS = params.getAll('url').filter(Boolean);
const URL_PARAM = URL_PARAMS[0] || null;
const $ = (id) => document.getElementById(id);

// ---- standalone file layout ---------------------------------------------------
// Elements of a standalone file (also written by tools/cli/cli_export.c and
// tools/python/strata_notebook.py; keep the three in step):
//   <style id="strata-css">                      style.css
//   <script type="application/octet-stream" id="strata-wasm">   strata.wasm, base64
//   <script type="application/octet-stream" id="strata-trace" data-name="...">
//                                                the trace, base64 (gzip unless it
//                                                was compressed already); absent
//                                                in a viewer-only file
//   <script id="strata-js">                      strata.js
//   <script type="module" id="strata-app">       app.js with the modules it imports
//                                                inlined (inlineModules below)
// and a CSP of sha256 hashes of the three inline scripts/styles plus
// 'wasm-unsafe-eval', nothing else.
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

// Base64 of bytes, as an array of strings (no giant join for big traces).
function bytesToB64Parts(u8) {
  const parts = [];
  const STEP = 3 * 65536;
  for (let i = 0; i < u8.length; i += STEP) {
    const sub = u8.subarray(i, i + STEP);
    let bin = '';
    for (let k = 0; k < sub.length; k += 8192) bin += String.fromCharCode.apply(null, sub.subarray(k, k + 8192));
    parts.push(btoa(bin));
  }
  return parts;
}

// ---- CSP: connect only where ?url= points --------------------------------------
// The static policy in index.html allows connect-src http: https: because a
// meta tag cannot know the URL; this narrows it before anything is fetched.
// (Policies only ever add up: a second meta tag can tighten, never widen.)
function tightenCsp() {
  if (STANDALONE) return; // its own policy allows no connections at all
  let allow = "'self'";
  for (const p of URL_PARAMS) {
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

function parseHash(h) {
  const out = {};
  for (const part of h.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq)] = decodeURIComponent(part.slice(eq + 1));
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
  };
}

const fmtUs = (x) => String(+x.toFixed(3));

// ---- the standalone file ----------------------------------------------------------

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// SHA-256 in plain JS: crypto.subtle exists only in secure contexts, and a
// copy served over plain http from another machine is not one.
function sha256(data) {
  const n = data.length;
  const len = (((n + 9 + 63) >> 6) << 6);
  const m = new Uint8Array(len);
  m.set(data);
  m[n] = 0x80;
  const dv = new DataView(m.buffer);
  dv.setUint32(len - 8, Math.floor(n / 0x20000000));
  dv.setUint32(len - 4, (n << 3) >>> 0);
  const H = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, r) => (x >>> r) | (x << (32 - r));
  for (let off = 0; off < len; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      w[i] = (w[i - 16] + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + w[i - 7] + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10))) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = H;
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    H[0] += a; H[1] += b; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += h;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setUint32(4 * i, H[i]);
  return out;
}

const enc = new TextEncoder();
const hashOf = (text) => `'sha256-${bytesToB64Parts(sha256(enc.encode(text))).join('')}'`;
const escHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// Keeps inline script text from ending its element early (safe inside JS
// strings, regexes and comments, where such sequences can occur).
const escScript = (s) => s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

// One module text from app.js and the modules it imports: every line
// `import { a, b as c } from './name.js';` becomes
// `const { a, b: c } = (() => { <name.js, "export " dropped> return { a, b }; })();`
// (recursively). read(name) -> Promise<text>. The same rule is in
// tools/cli/cli_export.c and tools/python/strata_notebook.py.
const IMPORT_RE = /^import \{([^}]*)\} from '\.\/([\w.-]+\.js)';[ \t]*$/m;
async function inlineModules(text, read, depth = 0) {
  if (depth > 8) throw new Error('modules import each other too deeply');
  let out = '';
  for (let m; (m = IMPORT_RE.exec(text)); ) {
    const specs = m[1].split(',').map((x) => x.trim()).filter(Boolean).map((x) => x.split(/\s+as\s+/));
    const body = (await inlineModules(await read(m[2]), read, depth + 1)).replace(/^export /gm, '');
    const local = specs.map(([a, b]) => (b ? `${a}: ${b}` : a)).join(', ');
    const exported = specs.map(([a]) => a).join(', ');
    out += `${text.slice(0, m.index)}const { ${local} } = (() => {\n${body}\nreturn { ${exported} };\n})();`;
    text = text.slice(m.index + m[0].length);
  }
  return out + text;
}

async function gzipIfPlain(u8) {
  const gz = u8.length > 2 && u8[0] === 0x1f && u8[1] === 0x8b;
  const zl = u8.length > 2 && u8[0] === 0x78 && ((u8[0] << 8) | u8[1]) % 31 === 0;
  if (gz || zl || typeof CompressionStream !== 'function') return u8;
  const s = new Blob([u8]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/**
 * One self-contained HTML file: {css, strataJs, appModule, wasmB64Parts, body}
 * plus the trace (Uint8Array or null) and its name. Returns Blob parts.
 */
export function standaloneParts({ css, strataJs, appModule, wasmB64Parts, body }, traces, name) {
  // one trace (Uint8Array, named `name`) or several: [{bytes, name}]
  if (traces && !Array.isArray(traces)) traces = [{ bytes: traces, name }];
  const js1 = escScript(strataJs);
  const js2 = escScript(appModule);
  const csp = `default-src 'none'; script-src ${hashOf(js1)} ${hashOf(js2)} 'wasm-unsafe-eval'; style-src ${hashOf(css)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const title = name ? `${name} – strata` : 'strata';
  const parts = [
    '<!doctype html>\n<!-- strata standalone file: the viewer, its wasm and the trace in one file. It opens from\n',
    '     disk with no server and makes no network request (see the Content-Security-Policy). -->\n',
    '<html lang="en">\n<head>\n<meta charset="utf-8">\n',
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">\n`,
    '<meta name="referrer" content="no-referrer">\n',
    `<title>${escHtml(title)}</title>\n<link rel="icon" href="data:,">\n`,
    `<style id="strata-css">${css}</style>\n</head>\n<body>\n${body.trim()}\n`,
    '<script type="application/octet-stream" id="strata-wasm">', ...wasmB64Parts, '</script>\n',
  ];
  for (const [i, t] of (traces || []).entries()) {
    parts.push(`<script type="application/octet-stream" id="strata-trace${i ? `-${i}` : ''}" class="strata-trace" data-name="${escHtml(t.name || 'trace')}">`,
      ...bytesToB64Parts(t.bytes), '</script>\n');
  }
  parts.push(`<script id="strata-js">${js1}</script>\n`, `<script type="module" id="strata-app">${js2}</script>\n</body>\n</html>\n`);
  return parts;
}

// ---- setup (called once by app.js, before anything else runs) ------------------------

export function embedSetup() {
  tightenCsp();
  // The body as parsed, before the page fills it in: the standalone file's body.
  const pristine = document.body.cloneNode(true);
  for (const s of pristine.querySelectorAll('script')) s.remove();
  const bodyHtml = pristine.innerHTML;
  if (EMBED) document.documentElement.classList.add('embed');

  let M = null;
  let api = null; // {open, openFromUi}
  let hashApplied = false;
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
    if (h.t && h.t[1] > h.t[0]) M._st_wasm_view_set(h.t[0], h.t[1]);
    if (h.sel) M._st_wasm_select(h.sel[0], h.sel[1]);
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

  // The page's own assets: from the standalone file's elements, or fetched
  // from where this page came from ('self' in the CSP).
  async function ownAssets() {
    if (STANDALONE) {
      return {
        css: $('strata-css').textContent,
        strataJs: $('strata-js').textContent,
        appModule: $('strata-app').textContent,
        wasmB64Parts: [$('strata-wasm').textContent.replace(/\s+/g, '')],
        body: bodyHtml,
      };
    }
    const get = async (name, type) => {
      const r = await fetch(new URL(name, import.meta.url), { credentials: 'same-origin' });
      if (!r.ok) throw new Error(`could not read the page's own ${name}: HTTP ${r.status}`);
      return type === 'bytes' ? new Uint8Array(await r.arrayBuffer()) : r.text();
    };
    const [css, strataJs, appModule, wasm] = await Promise.all([
      get('style.css'), get('strata.js'), get('app.js').then((t) => inlineModules(t, get)), get('strata.wasm', 'bytes'),
    ]);
    return { css, strataJs, appModule, wasmB64Parts: bytesToB64Parts(wasm), body: bodyHtml };
  }

  async function saveStandalone() {
    if (!shown || !shown.length) throw new Error('no trace from a file is open');
    const name = shown.length === 1 ? shown[0].name || 'trace' : `${shown.length} traces`;
    const [assets, ...raws] = await Promise.all([ownAssets(), ...shown.map((s) => traceBytes(s.source))]);
    const traces = [];
    for (const [i, raw] of raws.entries()) traces.push({ bytes: await gzipIfPlain(raw), name: shown[i].name || 'trace' });
    const blob = new Blob(standaloneParts(assets, traces, name), { type: 'text/html' });
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
      api.openFromUi(list.map((b) => b.buffer), { names: list.map((b) => (typeof b.name === 'string' && b.name ? b.name : 'trace')) });
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
      if (URL_PARAMS.length > 1) return { kind: 'open', source: URL_PARAMS, opts: {} };
      if (URL_PARAM) return { kind: 'open', source: URL_PARAM, opts: {} };
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
        if (!hashApplied) return;
        lastHash = location.hash;
        applyHash();
      });
      window.addEventListener('strata:loaded', (e) => tellParents({ event: 'loaded', name: shown ? shown.map((s) => s.name).join(', ') : null, stats: e.detail }));
      window.addEventListener('strata:error', (e) => tellParents({ event: 'error', message: String(e.detail) }));
      setInterval(syncHash, 250);
      tellParents({ event: 'ready' });
    },
  };
}
