// Helpers for the browser tests: a static file server, a headless Chromium,
// a page wrapper that records what the page did (console errors, page errors,
// every request URL, the strata:* DOM events), a PNG decoder for screenshots,
// and small trace fixtures written at test time.
//
// Run from the repo root:  node --test tests/browser/
// Environment:
//   STRATA_DIST  the static site to serve (default <repo>/dist)
//   CHROMIUM     the browser binary (default /usr/bin/chromium)
//   STRATA_CLI   the native CLI (default <repo>/build/native/strata)
//   STRATA_BROWSER_ARTIFACTS  where failing screenshots go (default tests/browser/artifacts)

import http from 'node:http';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '..', '..');
export const DIST = path.resolve(process.env.STRATA_DIST || path.join(REPO_ROOT, 'dist'));
// The shared corpus of real traces: $STRATA_CORPUS, else ../shared/corpus
// beside the checkout. Tests that need one of its files skip (saying so)
// when it is missing.
export const CORPUS = path.resolve(process.env.STRATA_CORPUS || path.join(REPO_ROOT, '..', 'shared', 'corpus'));
export const corpusMissing = (file) => !fs.existsSync(file) && `corpus file missing: ${file}`;
export const CLI = path.resolve(process.env.STRATA_CLI || path.join(REPO_ROOT, 'build', 'native', 'strata'));
export const ARTIFACTS = path.resolve(process.env.STRATA_BROWSER_ARTIFACTS || path.join(HERE, 'artifacts'));

// Geometry of the timeline (DESIGN: label gutter on the left, time axis on top).
export const GUTTER_PX = 220;
export const AXIS_PX = 28;

// ---------------------------------------------------------------------------
// Static server
// ---------------------------------------------------------------------------

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.gz': 'application/gzip',
  '.webmanifest': 'application/manifest+json',
};

/**
 * Serve `root` on 127.0.0.1 at a random free port, under URL `prefix`
 * (e.g. '/' or '/some/sub/path/'). Resolves with {origin, url, port, hits, close}.
 * `url` is origin + prefix (the page's address); `hits` lists [status, path]
 * of every request the server answered.
 */
export async function startServer({ root = DIST, prefix = '/' } = {}) {
  if (!prefix.startsWith('/')) prefix = '/' + prefix;
  if (!prefix.endsWith('/')) prefix += '/';
  const rootAbs = path.resolve(root);
  const hits = [];
  const server = http.createServer(async (req, res) => {
    const send = (status, body, headers = {}) => {
      hits.push([status, req.url]);
      res.writeHead(status, { 'Cache-Control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed');
      const u = new URL(req.url, 'http://127.0.0.1');
      let p = decodeURIComponent(u.pathname);
      if (p + '/' === prefix) return send(301, '', { Location: prefix + u.search });
      if (!p.startsWith(prefix)) return send(404, 'not found');
      p = p.slice(prefix.length);
      if (p === '' || p.endsWith('/')) p += 'index.html';
      const file = path.resolve(rootAbs, p);
      if (file !== rootAbs && !file.startsWith(rootAbs + path.sep)) return send(403, 'forbidden');
      let st;
      try { st = await fsp.stat(file); } catch { return send(404, 'not found'); }
      if (!st.isFile()) return send(404, 'not found');
      const body = await fsp.readFile(file);
      const type = MIME[path.extname(file).toLowerCase()] || 'application/octet-stream';
      return send(200, body, { 'Content-Type': type, 'Content-Length': body.length });
    } catch (e) {
      return send(500, String(e));
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = server.address().port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin, port, prefix, hits,
    url: origin + prefix,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
  };
}

// ---------------------------------------------------------------------------
// Browser
// ---------------------------------------------------------------------------

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--enable-unsafe-swiftshader', '--use-angle=swiftshader',
];

/**
 * Launch headless Chromium. playwright-core gives every launch() a fresh
 * --user-data-dir (mkdtemp in os.tmpdir(), removed on close); it refuses a
 * --user-data-dir in args, so we do not pass one. We do point TMPDIR at a
 * fresh temp dir of our own so the profile lives in a directory this run owns.
 */
export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set CHROMIUM, or run tools/scripts/setup)`);
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-btest-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    env: { ...process.env, TMPDIR: tmp },
    timeout: 120_000,
  });
  const close = browser.close.bind(browser);
  browser.close = async () => {
    try { await close(); } finally { await fsp.rm(tmp, { recursive: true, force: true }); }
  };
  return browser;
}

/**
 * A page in a browser with a profile on disk, as a user's browser has (the
 * contexts of launchBrowser are off the record: their storage, the Origin
 * Private File System too, is kept in memory and small). Closing the app
 * closes that browser and removes its profile. For benchmarks of what the
 * page keeps on disk (streaming mode's re-ordered copy).
 */
export async function newPersistentApp(server, { viewport = { width: 1280, height: 720 } } = {}) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-profile-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    timeout: 120_000,
  });
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(120_000);
  const app = new AppPage(context, page, server);
  await page.addInitScript(INIT_SCRIPT);
  const close = app.close.bind(app);
  app.close = async () => {
    try { await close(); } finally { await fsp.rm(dir, { recursive: true, force: true }); }
  };
  return app;
}

export function distExists(dist = DIST) {
  return fs.existsSync(path.join(dist, 'index.html'));
}

// Every request URL that is not the server's own origin. blob: and data: URLs
// of the page itself never touch the network and are allowed.
export function foreignRequests(urls, origin) {
  return urls.filter((u) =>
    !u.startsWith(origin + '/') && !u.startsWith(`blob:${origin}/`) && !u.startsWith('data:'));
}

const INIT_SCRIPT = () => {
  // Capture-phase listener on window sees the event wherever it is dispatched
  // (window, document or an element), bubbling or not.
  const log = (window.__strataEvents = []);
  for (const type of ['strata:ready', 'strata:loaded', 'strata:error']) {
    window.addEventListener(type, (e) => {
      let detail = null;
      try { detail = e.detail === undefined ? null : JSON.parse(JSON.stringify(e.detail)); }
      catch { detail = String(e.detail); }
      log.push({ type, detail, t: performance.now() });
    }, true);
  }
};

// An init script: the wasm module, captured as the page creates it, as
// window.__strataModule (for tests calling test-only exports; the page does
// not expose the module).
export const CAPTURE_MODULE = () => {
  let real;
  Object.defineProperty(window, 'createStrataModule', {
    configurable: true,
    get() { return real && ((arg) => real(arg).then((m) => (window.__strataModule = m))); },
    set(v) { real = v; },
  });
};

/**
 * A fresh browser context and page on the server, recording everything.
 * Returns an AppPage; call .goto() then .ready().
 */
export async function newApp(browser, server, { viewport = { width: 1280, height: 720 }, deviceScaleFactor = 1, allRequests, hasTouch = false } = {}) {
  const context = await browser.newContext({ viewport, deviceScaleFactor, hasTouch });
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  const app = new AppPage(context, page, server, allRequests);
  await page.addInitScript(INIT_SCRIPT);
  return app;
}

export class AppPage {
  constructor(context, page, server, allRequests) {
    this.context = context;
    this.page = page;
    this.server = server;
    this.consoleErrors = [];
    this.consoleAll = [];
    this.pageErrors = [];
    this.requests = [];            // every request URL, in order
    this.failedResponses = [];     // [status, url] for status >= 400
    this.failedRequests = [];      // [url, errorText]
    this.allRequests = allRequests; // optional shared array for a file-wide privacy check
    // Context-level so requests of workers and popups are seen too.
    context.on('request', (r) => { this.requests.push(r.url()); this.allRequests?.push(r.url()); });
    context.on('response', (r) => { if (r.status() >= 400) this.failedResponses.push([r.status(), r.url()]); });
    context.on('requestfailed', (r) => this.failedRequests.push([r.url(), r.failure()?.errorText]));
    page.on('console', (m) => {
      const line = `[${m.type()}] ${m.text()}`;
      this.consoleAll.push(line);
      if (m.type() === 'error') this.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => this.pageErrors.push(String(e && e.stack || e)));
  }

  async goto(query = '') {
    await this.page.goto(this.server.url + query, { waitUntil: 'load' });
  }

  async events() {
    return this.page.evaluate(() => window.__strataEvents.slice());
  }

  async eventCount() {
    return this.page.evaluate(() => window.__strataEvents.length);
  }

  /** Wait until window.strata exists and `strata:ready` fired. */
  async ready({ timeout = 120_000 } = {}) {
    try {
      await this.page.waitForFunction(
        () => typeof window.strata === 'object' && window.strata !== null &&
              window.__strataEvents.some((e) => e.type === 'strata:ready'),
        null, { timeout });
    } catch (e) {
      throw new Error(`page never became ready (window.strata + strata:ready): ${e.message}\n${this.diagnostics()}`);
    }
  }

  /** Wait for the demo (or whatever opens at start-up) to be loaded: stats().events > 0. */
  async demoLoaded({ timeout = 120_000 } = {}) {
    try {
      await this.page.waitForFunction(() => {
        try { const s = window.strata.stats(); return !!s && s.events > 0; } catch { return false; }
      }, null, { timeout });
    } catch (e) {
      throw new Error(`no trace loaded at start-up (stats().events > 0 never held): ${e.message}\n${this.diagnostics()}`);
    }
    return this.stats();
  }

  /** Wait for the first strata:loaded or strata:error at index >= since. */
  async nextOutcome(since, { timeout = 120_000 } = {}) {
    const h = await this.page.waitForFunction((n) => {
      const ev = window.__strataEvents.slice(n).find((e) => e.type === 'strata:loaded' || e.type === 'strata:error');
      return ev || null;
    }, since, { timeout });
    return h.jsonValue();
  }

  /** Open a file (or several: an array) through the real file input. Resolves with the strata:loaded / strata:error event. */
  async openViaInput(file, opts) {
    const n = await this.eventCount();
    await this.page.setInputFiles('#file-input', file);
    try {
      return await this.nextOutcome(n, opts);
    } catch (e) {
      throw new Error(`no strata:loaded/strata:error after choosing ${[].concat(file).map((f) => path.basename(f)).join(', ')} in #file-input: ${e.message}\n${this.diagnostics()}`);
    }
  }

  /** Drop a file (bytes) on document.body with real DragEvents. Resolves with the outcome event. */
  async dropFile(name, bytes, opts) {
    const n = await this.eventCount();
    await this.page.evaluate(async ({ name, b64 }) => {
      const bin = atob(b64);
      const u8 = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([u8], name, { type: name.endsWith('.gz') ? 'application/gzip' : 'application/json' }));
      const target = document.body;
      const r = target.getBoundingClientRect();
      const at = { clientX: Math.floor(r.width / 2), clientY: Math.floor(r.height / 2) };
      for (const type of ['dragenter', 'dragover', 'drop']) {
        target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: dt, ...at }));
      }
    }, { name, b64: Buffer.from(bytes).toString('base64') });
    try {
      return await this.nextOutcome(n, opts);
    } catch (e) {
      throw new Error(`no strata:loaded/strata:error after dropping ${name} on document.body: ${e.message}\n${this.diagnostics()}`);
    }
  }

  /** window.strata.open(ArrayBuffer) with the given bytes; resolves {ok, stats} or {ok:false, message}. */
  async openBuffer(bytes) {
    return this.page.evaluate(async (b64) => {
      const bin = atob(b64);
      const u8 = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      try {
        const s = await window.strata.open(u8.buffer);
        return { ok: true, stats: JSON.parse(JSON.stringify(s)) };
      } catch (e) {
        return { ok: false, message: String(e && e.message || e), isError: e instanceof Error };
      }
    }, Buffer.from(bytes).toString('base64'));
  }

  async stats() {
    return this.page.evaluate(() => JSON.parse(JSON.stringify(window.strata.stats())));
  }

  async view() {
    return this.page.evaluate(() => JSON.parse(JSON.stringify(window.strata.view())));
  }

  async frameStats() {
    return this.page.evaluate(() => JSON.parse(JSON.stringify(window.strata.frameStats())));
  }

  /** Wait until at least `n` more frames were drawn (frameStats().frames). */
  async framesAfter(f0, n = 1, { timeout = 120_000 } = {}) {
    await this.page.waitForFunction(([f0, n]) => window.strata.frameStats().frames >= f0 + n, [f0, n], { timeout });
  }

  /**
   * Holds `key` down for `ms` of the app's clock, pinned and stepped by the
   * test (the test-only export _st_wasm_test_clock; the page must have been
   * made with CAPTURE_MODULE): held keys move the view by the clock's time
   * between frames, so where the view goes depends on these steps only, not
   * on how fast the machine draws. Each step of `step` ms (at most the core's
   * 100 ms per frame) waits until a frame took the new time in (a frame
   * counted after it was set). Resolves with [[t_ms, view()]] from t = 0 (the
   * key just pressed) to `ms`; the real clock is given back after the key up.
   */
  async holdKey(key, ms, { step = 50 } = {}) {
    const S = (f, a) => this.page.evaluate(f, a);
    const T0 = 1_000_000; // any time: only its differences count
    if (!(await S(() => typeof window.__strataModule?._st_wasm_test_clock === 'function'))) {
      throw new Error('holdKey needs the page made with CAPTURE_MODULE (window.__strataModule)');
    }
    await S((t) => window.__strataModule._st_wasm_test_clock(t), T0);
    await this.page.keyboard.down(key);
    try {
      return await S(async ({ T0, ms, step }) => {
        const M = window.__strataModule;
        const frames = () => window.strata.frameStats().frames;
        const view = () => JSON.parse(JSON.stringify(window.strata.view()));
        const out = [[0, view()]];
        for (let t = step; t <= ms; t += step) {
          M._st_wasm_test_clock(T0 + t);
          const f0 = frames(); // read in the task that set the clock: a later frame saw it
          // animation frames until one is counted (one or two; thousands: the page stopped drawing)
          for (let i = 0; frames() <= f0; i++) {
            if (i > 3000) throw new Error(`no frame drawn while ${JSON.stringify(window.strata.view())} was held`);
            await new Promise((r) => requestAnimationFrame(r));
          }
          out.push([t, view()]);
        }
        return out;
      }, { T0, ms, step });
    } finally {
      await this.page.keyboard.up(key);
      await S(() => window.__strataModule._st_wasm_test_clock(-1));
    }
  }

  /**
   * Screenshot of the timeline area of #canvas (right of the label gutter,
   * below the axis), decoded.
   */
  async timelineShot(label = 'timeline') {
    // Two animation frames: whatever the page drew last is composited.
    await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const box = await this.page.locator('#canvas').boundingBox();
    if (!box) throw new Error('#canvas has no bounding box (not visible?)');
    const clip = {
      x: Math.ceil(box.x + GUTTER_PX), y: Math.ceil(box.y + AXIS_PX),
      width: Math.floor(box.width - GUTTER_PX), height: Math.floor(box.height - AXIS_PX),
    };
    if (clip.width < 10 || clip.height < 10) throw new Error(`#canvas too small for a timeline: ${JSON.stringify(box)}`);
    const png = await this.page.screenshot({ clip, animations: 'disabled', caret: 'initial' });
    const img = decodePng(png);
    return { png, img, clip, analysis: analyzeImage(img), save: () => saveArtifact(`${label}.png`, png) };
  }

  diagnostics() {
    const lines = [];
    if (this.pageErrors.length) lines.push('page errors:\n  ' + this.pageErrors.join('\n  '));
    if (this.consoleErrors.length) lines.push('console errors:\n  ' + this.consoleErrors.join('\n  '));
    if (this.failedResponses.length) lines.push('HTTP >= 400:\n  ' + this.failedResponses.map((x) => x.join(' ')).join('\n  '));
    if (this.failedRequests.length) lines.push('failed requests:\n  ' + this.failedRequests.map((x) => x.join(' ')).join('\n  '));
    const tail = this.consoleAll.slice(-15);
    if (tail.length) lines.push('console (last 15):\n  ' + tail.join('\n  '));
    return lines.join('\n');
  }

  async close() {
    await this.context.close().catch(() => {});
  }
}

export async function saveArtifact(name, data) {
  await fsp.mkdir(ARTIFACTS, { recursive: true });
  const p = path.join(ARTIFACTS, name.replace(/[^\w.-]+/g, '_'));
  await fsp.writeFile(p, data);
  return p;
}

// ---------------------------------------------------------------------------
// PNG (8-bit RGB / RGBA / grey / grey+alpha, non-interlaced) -> RGBA pixels
// ---------------------------------------------------------------------------

export function decodePng(buf) {
  const SIG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(SIG)) throw new Error('not a PNG');
  let off = 8, width = 0, height = 0, depth = 0, ctype = 0, interlace = 0;
  const idat = [];
  while (off + 8 <= buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    off += 12 + len;
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4);
      depth = data[8]; ctype = data[9]; interlace = data[12];
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
  }
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[ctype];
  if (depth !== 8 || !channels || interlace !== 0) {
    throw new Error(`unsupported PNG: depth ${depth}, colour type ${ctype}, interlace ${interlace}`);
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const bpp = channels, stride = width * bpp;
  if (raw.length < height * (stride + 1)) throw new Error('PNG data too short');
  const cur = Buffer.alloc(stride), prev = Buffer.alloc(stride);
  const out = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const base = y * (stride + 1), filter = raw[base];
    for (let i = 0; i < stride; i++) {
      const x = raw[base + 1 + i];
      const a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      let v;
      switch (filter) {
        case 0: v = x; break;
        case 1: v = x + a; break;
        case 2: v = x + b; break;
        case 3: v = x + ((a + b) >> 1); break;
        case 4: {
          const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: throw new Error(`bad PNG filter ${filter} on row ${y}`);
      }
      cur[i] = v & 0xff;
    }
    for (let px = 0; px < width; px++) {
      const o = (y * width + px) * 4, s = px * bpp;
      if (channels >= 3) { out[o] = cur[s]; out[o + 1] = cur[s + 1]; out[o + 2] = cur[s + 2]; }
      else { out[o] = out[o + 1] = out[o + 2] = cur[s]; }
      out[o + 3] = channels === 4 ? cur[s + 3] : channels === 2 ? cur[s + 1] : 255;
    }
    cur.copy(prev);
  }
  return { width, height, data: out };
}

/** Distinct colours, the dominant (background) colour and the share of other pixels. */
export function analyzeImage(img) {
  const counts = new Map();
  const d = img.data;
  for (let i = 0; i < d.length; i += 4) {
    const k = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  let bg = 0, bgCount = -1;
  for (const [k, c] of counts) if (c > bgCount) { bg = k; bgCount = c; }
  const total = img.width * img.height;
  // "Non-background" means clearly different from the dominant colour (not
  // just off by one from compression or dithering).
  const br = bg >> 16, bgG = (bg >> 8) & 255, bb = bg & 255;
  let nonBg = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - br) + Math.abs(d[i + 1] - bgG) + Math.abs(d[i + 2] - bb) > 24) nonBg++;
  }
  // Columns that contain any non-background pixel: shows work spread across time.
  let cols = 0;
  for (let x = 0; x < img.width; x++) {
    for (let y = 0; y < img.height; y++) {
      const i = (y * img.width + x) * 4;
      if (Math.abs(d[i] - br) + Math.abs(d[i + 1] - bgG) + Math.abs(d[i + 2] - bb) > 24) { cols++; break; }
    }
  }
  return {
    width: img.width, height: img.height, distinctColors: counts.size,
    background: '#' + bg.toString(16).padStart(6, '0'),
    nonBackgroundFraction: nonBg / total, columnsWithContent: cols / img.width,
  };
}

/** The timeline counts as drawn when it holds several colours and real coverage. */
export function looksRendered(a) {
  return a.distinctColors >= 6 && a.nonBackgroundFraction >= 0.02 && a.columnsWithContent >= 0.25;
}

// ---------------------------------------------------------------------------
// Fixtures (written at test time)
// ---------------------------------------------------------------------------

/**
 * A small Chrome-JSON trace with known numbers: 3 processes, 4 threads,
 * 3 M + 9 X + 3 B + 3 E + 1 i = 19 events, 12 slices (9 X + 3 B/E pairs).
 */
export function smallTrace() {
  const ev = [];
  const M = (pid, tid, name) => ev.push({ ph: 'M', name: 'process_name', pid, tid, args: { name } });
  const X = (pid, tid, name, ts, dur) => ev.push({ ph: 'X', name, cat: 'test', pid, tid, ts, dur, args: { n: ev.length } });
  const B = (pid, tid, name, ts) => ev.push({ ph: 'B', name, cat: 'test', pid, tid, ts });
  const E = (pid, tid, ts) => ev.push({ ph: 'E', pid, tid, ts });
  M(1, 1, 'alpha'); M(2, 1, 'beta'); M(3, 7, 'gamma');
  // pid 1 tid 1: 4 X (two nested)
  X(1, 1, 'load', 1000, 400); X(1, 1, 'parse', 1050, 100); X(1, 1, 'emit', 1500, 200); X(1, 1, 'flush', 1800, 50);
  // pid 1 tid 2: two nested B/E pairs
  B(1, 2, 'outer', 1100); B(1, 2, 'inner', 1150); E(1, 2, 1300); E(1, 2, 1400);
  // pid 2 tid 1: 3 X + 1 instant
  X(2, 1, 'kernel', 1200, 300); X(2, 1, 'kernel', 1600, 300); X(2, 1, 'copy', 1950, 25);
  ev.push({ ph: 'i', name: 'marker', cat: 'test', pid: 2, tid: 1, ts: 1700, s: 't' });
  // pid 3 tid 7: 1 B/E pair + 2 X (the last one ends the trace)
  B(3, 7, 'step', 1000); E(3, 7, 2000); X(3, 7, 'a', 1010, 90); X(3, 7, 'b', 2100, 400);
  const text = JSON.stringify({ traceEvents: ev, displayTimeUnit: 'ms' }, null, 1) + '\n';
  return {
    text,
    bytes: Buffer.from(text, 'utf8'),
    expect: {
      format: 'chrome-json', events: 19, slices: 12, instants: 1, processes: 3, threads: 4,
      phases: { M: 3, X: 9, B: 3, E: 3, i: 1 }, ts_min_us: 1000, ts_max_us: 2500,
    },
  };
}

/** Deterministic pseudo-random bytes that are neither JSON, gzip, zlib nor protobuf. */
export function garbageBytes(n = 4096, seed = 12345) {
  const b = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; b[i] = x & 0xff; }
  b[0] = 0x00; b[1] = 0xff; b[2] = 0xfe; // field number 0: invalid protobuf; not '{', '[', 1f 8b, 78
  return b;
}

/** Write fixtures into a fresh temp dir. Returns {dir, paths, trace, gz}. */
export async function writeFixtures() {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-fixtures-'));
  const trace = smallTrace();
  const gz = zlib.gzipSync(trace.bytes, { level: 9 });
  // A bigger trace (3000 X events), gzip'd, cut two ways:
  //  truncatedGz: 24 bytes, inside the first deflate block's header: nothing
  //    decodes, so there is no trace at all and the file must be refused;
  //  damagedGz: half the bytes: about half the events decode before the cut
  //    (a file "damaged part-way": see open.test.mjs and api.test.mjs).
  const big = bigTrace(3000);
  const bigGz = zlib.gzipSync(big, { level: 6 });
  const paths = {
    json: path.join(dir, 'small.trace.json'),
    gz: path.join(dir, 'small.trace.json.gz'),
    garbage: path.join(dir, 'garbage.json'),
    truncatedGz: path.join(dir, 'truncated.trace.json.gz'),
    damagedGz: path.join(dir, 'damaged.trace.json.gz'),
  };
  await fsp.writeFile(paths.json, trace.bytes);
  await fsp.writeFile(paths.gz, gz);
  await fsp.writeFile(paths.garbage, garbageBytes());
  await fsp.writeFile(paths.truncatedGz, bigGz.subarray(0, 24));
  await fsp.writeFile(paths.damagedGz, bigGz.subarray(0, Math.floor(bigGz.length / 2)));
  return { dir, paths, trace, gz, bigEvents: 3000, cleanup: () => fsp.rm(dir, { recursive: true, force: true }) };
}

export function bigTrace(n) {
  const ev = [];
  for (let i = 0; i < n; i++) ev.push({ ph: 'X', name: `op${i % 17}`, cat: 'big', pid: 1 + (i % 2), tid: 1 + (i % 5), ts: i * 10, dur: 7, args: { i } });
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

// ---------------------------------------------------------------------------
// Per-file set-up: one server + one browser per test file, a fresh page per test
// ---------------------------------------------------------------------------

/**
 * Registers before/after hooks (node:test) and returns a context object:
 * {server, browser, requests, app(opts)}. `requests` collects every request
 * URL of every page of the file, for the file's privacy check.
 */
export function useBrowser({ before, after }, { prefix = '/' } = {}) {
  const ctx = { server: null, browser: null, requests: [], apps: [] };
  before(async () => {
    if (!distExists()) {
      throw new Error(`no page to test: ${path.join(DIST, 'index.html')} does not exist ` +
        '(run tools/build, or set STRATA_DIST to a built dist/ folder)');
    }
    ctx.server = await startServer({ root: DIST, prefix });
    ctx.browser = await launchBrowser();
  });
  after(async () => {
    for (const a of ctx.apps) await a.close();
    await ctx.browser?.close();
    await ctx.server?.close();
  });
  /** A fresh page, navigated and ready (window.strata + strata:ready);
   * captureModule: the wasm module as window.__strataModule (CAPTURE_MODULE). */
  ctx.app = async (opts = {}) => {
    const { query = '', server = ctx.server, captureModule = false, ...rest } = opts;
    const a = await newApp(ctx.browser, server, { ...rest, allRequests: ctx.requests });
    ctx.apps.push(a);
    if (captureModule) await a.page.addInitScript(CAPTURE_MODULE);
    await a.goto(query);
    await a.ready();
    return a;
  };
  return ctx;
}

/** Assertion message helper: the requests that left the page's origin. */
export function privacyReport(urls, origin) {
  const bad = [...new Set(foreignRequests(urls, origin))];
  return { bad, message: bad.length ? `requests to other origins than ${origin}/:\n  ${bad.join('\n  ')}` : '' };
}

// A one-line diagnosis that names a byte offset (DESIGN contract 1/2).
export const OFFSET_RE = /\b(byte|offset)s?\b\D{0,24}(\d+)/i;

// A synthetic `strata analyze --json` object of `ranks` files x `steps`
// steps (one GPU each; rank `slow` 500 us slower and marked the straggler),
// for the heatmap's test and benchmark (window.strata.heatmap(analysis)).
export function syntheticAnalysis(ranks, steps, slow = 7) {
  const an = { traces: [], steps: [], devices: [], per_step: [], idle_gaps: [], ranks: [], stragglers: [], memory: [], ops: [], op_names: 0 };
  for (let k = 0; k < ranks; k++) {
    an.traces.push({ file: `rank-${k}.json`, group: `rank ${k}`, steps_from: 'profiler_step', steps, devices: 1 });
    an.devices.push({ trace: k, name: '/device:GPU:0', steps });
    an.ranks.push({ trace: k, value_us: 100, score: k === slow ? 9 : 0, straggler: k === slow });
    for (let j = 0; j < steps; j++) {
      const wall = 1000 + ((k * 31 + j * 17) % 97) + (k === slow ? 500 : 0);
      an.steps.push({ trace: k, step: j + 1, start_us: j * 2000, end_us: j * 2000 + wall, wall_us: wall, host_us: wall });
      an.per_step.push({ trace: k, device: k, step: j + 1, start_us: j * 2000, wall_us: wall, busy_us: wall * 0.9, idle_us: wall * 0.1, idle_pct: 10, compute_us: wall * 0.8, comm_us: wall * 0.1, memcpy_us: 0, overlap_pct: 50 });
    }
  }
  return an;
}

// tools/serve.py (HTTP Range) on a free port: the viewer (DIST) at /, dirPath
// at /data/<token>/ (the token drawn by the server for its run); extra: its
// options (--no-range). Resolves {url, origin, data: 'data/<token>/' (the
// folder's path, for ?url=), token, port, stderr(), close}.
export async function serveRanges(dirPath, extra = []) {
  const { spawn } = await import('node:child_process');
  const p = spawn('python3', [path.join(REPO_ROOT, 'tools', 'serve.py'), dirPath, '--port', '0', '--site', DIST, ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => { err += d; process.stderr.write(d); });
  const m = await new Promise((resolve, reject) => {
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
      const hit = out.match(/at (http:\/\/127\.0\.0\.1:(\d+)\/) and .* at http:\/\/127\.0\.0\.1:\d+\/(data\/([A-Za-z0-9_-]+)\/)/);
      if (hit) resolve(hit);
    });
    p.on('exit', (c) => reject(new Error(`serve.py exited ${c}: ${out}${err}`)));
  });
  const url = m[1];
  return { url, origin: url.replace(/\/$/, ''), port: Number(m[2]), data: m[3], token: m[4], stderr: () => err, close: () => p.kill() };
}
