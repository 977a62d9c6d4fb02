// Sharing (issue 6): static hosting under a sub-path (the harness server and
// `python3 -m http.server` from a parent folder), ?url= streaming with
// progress and CORS explanations, the CSP narrowed to ?url='s origin, the
// #t=..&sel=.. link kept up to date and restored, and hostile event names
// and args shown as text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import {
  startServer, launchBrowser, newApp, distExists, DIST, privacyReport, writeFixtures, bigTrace, GUTTER_PX, AXIS_PX,
} from './harness.mjs';

let browser, site, server, fx;
const allRequests = []; // every request of every page of this file
const origins = new Set(); // the servers this file started (the pages' own origins)

// <site>/strata -> dist (symlink), <site>/traces/ the fixtures.
before(async () => {
  if (!distExists()) throw new Error(`no page to test: ${DIST}/index.html missing (run tools/build or set STRATA_DIST)`);
  fx = await writeFixtures();
  site = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-share-'));
  await fsp.symlink(DIST, path.join(site, 'strata'));
  await fsp.mkdir(path.join(site, 'traces'));
  await fsp.copyFile(fx.paths.json, path.join(site, 'traces', 'small.trace.json'));
  await fsp.copyFile(fx.paths.gz, path.join(site, 'traces', 'small.trace.json.gz'));
  server = await startServer({ root: site, prefix: '/' });
  origins.add(server.origin);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await fx?.cleanup();
  if (site) await fsp.rm(site, { recursive: true, force: true });
});

async function page(url, opts = {}) {
  const app = await newApp(browser, server, { allRequests, ...opts });
  await app.page.goto(url, { waitUntil: 'load' });
  await app.ready();
  return app;
}

const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const KEYS = ['format', 'events', 'slices', 'instants', 'processes', 'threads', 'ts_min_us', 'ts_max_us'];

// `python3 -m http.server` in a parent folder of the copy: the viewer at /strata/.
async function pythonServer(root) {
  const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', root],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`python3 -m http.server did not start: ${out}`)), 120_000);
    const on = (d) => {
      out += d;
      const m = /port (\d+)/.exec(out);
      if (m) { clearTimeout(t); resolve(Number(m[1])); }
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.on('exit', (c) => reject(new Error(`python3 -m http.server exited ${c}: ${out}`)));
  });
  return { origin: `http://127.0.0.1:${port}`, close: () => child.kill() };
}

test('python3 -m http.server from a parent folder: the viewer at /strata/ opens its demo and a ?url= trace', async (t) => {
  const py = await pythonServer(site);
  t.after(() => py.close());
  origins.add(py.origin);
  const app = await newApp(browser, { url: py.origin + '/strata/' }, { allRequests });
  t.after(() => app.close());
  await app.page.goto(py.origin + '/strata/', { waitUntil: 'load' });
  await app.ready();
  const demo = await app.demoLoaded();
  assert.ok(demo.events > 10000, `demo events ${demo.events}`);
  const n = await app.eventCount();
  await app.page.goto(py.origin + '/strata/?url=../traces/small.trace.json.gz', { waitUntil: 'load' });
  await app.ready();
  const ev = await app.nextOutcome(0);
  assert.equal(ev.type, 'strata:loaded', `?url= under python's server: ${JSON.stringify(ev)}\n${app.diagnostics()}`);
  assert.deepEqual(pick(ev.detail, KEYS), pick(fx.trace.expect, KEYS));
  assert.equal(ev.detail.compressed, true);
  assert.ok(n >= 1);
  assert.deepEqual(app.failedResponses, [], 'every asset found under /strata/');
  assert.deepEqual(app.pageErrors, []);
  const outside = app.requests.filter((u) => u.startsWith(py.origin + '/') &&
    !u.startsWith(py.origin + '/strata/') && !u.startsWith(py.origin + '/traces/'));
  assert.deepEqual(outside, [], 'the page asks for nothing outside its folder');
});

// A trace server on another origin: /big.json streamed in 16 slices with
// Content-Length, slowly enough to see progress; /nocors.json without CORS.
async function traceServer(body) {
  const hits = [];
  const srv = http.createServer(async (req, res) => {
    hits.push(req.url);
    if (req.url === '/big.json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length, 'Access-Control-Allow-Origin': '*' });
      const step = Math.ceil(body.length / 16);
      for (let off = 0; off < body.length; off += step) {
        res.write(body.subarray(off, off + step));
        await new Promise((r) => setTimeout(r, 150));
      }
      res.end();
    } else if (req.url === '/nocors.json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(body);
    } else {
      res.writeHead(404, { 'Access-Control-Allow-Origin': '*' });
      res.end('no');
    }
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${srv.address().port}`, hits, close: () => new Promise((r) => { srv.closeAllConnections?.(); srv.close(r); }) };
}

test('?url= on another origin streams with progress; the CSP then allows that origin only', async (t) => {
  const body = bigTrace(40000);
  const ts = await traceServer(body);
  t.after(() => ts.close());
  const other = await traceServer(body); // a third origin the page must not reach
  t.after(() => other.close());
  origins.add(ts.origin);
  const app = await newApp(browser, server, { allRequests });
  t.after(() => app.close());
  // Record the progress bar and status line as the page shows them.
  await app.page.addInitScript(() => {
    window.__progress = [];
    const tick = () => {
      const p = document.getElementById('progress');
      const s = document.getElementById('status');
      if (p && !p.hidden) window.__progress.push([p.value, s ? s.textContent : '']);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await app.page.goto(`${server.origin}/strata/?url=${encodeURIComponent(ts.origin + '/big.json')}`, { waitUntil: 'load' });
  await app.ready();
  const ev = await app.nextOutcome(0);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  assert.equal(ev.detail.events, 40000);
  const prog = await app.page.evaluate(() => window.__progress);
  const values = [...new Set(prog.map((p) => p[0]))].filter((v) => v > 0 && v < 1);
  assert.ok(values.length >= 3, `progress shown part-way at least 3 distinct values, saw ${JSON.stringify(values)}`);
  assert.ok(prog.some((p) => /Reading… \d+%/.test(p[1])), `status shows a percentage: ${JSON.stringify(prog.slice(0, 5))}`);
  assert.equal(await app.page.locator('#trace-name').textContent(), 'big.json');
  // The page may now connect to the trace's origin, and nowhere else.
  const probe = await app.page.evaluate(async ([a, b]) => {
    const viol = [];
    document.addEventListener('securitypolicyviolation', (e) => viol.push(e.blockedURI));
    const tryFetch = (u) => fetch(u).then((r) => r.status, (e) => 'blocked: ' + e.message);
    return { same: await tryFetch(a), other: await tryFetch(b), viol };
  }, [ts.origin + '/missing', other.origin + '/big.json']);
  assert.equal(probe.same, 404, 'the ?url= origin stays reachable');
  assert.match(String(probe.other), /^blocked/, `another origin is blocked by the CSP: ${JSON.stringify(probe)}`);
  assert.deepEqual(other.hits, [], 'no request reached the other origin');
});

test('?url= failures are explained: CORS, HTTP status', async (t) => {
  const ts = await traceServer(Buffer.from('{"traceEvents":[]}'));
  t.after(() => ts.close());
  origins.add(ts.origin);
  for (const [file, re] of [['/nocors.json', /CORS/], ['/missing.json', /HTTP 404/]]) {
    const app = await newApp(browser, server, { allRequests });
    await app.page.goto(`${server.origin}/strata/?url=${encodeURIComponent(ts.origin + file)}`, { waitUntil: 'load' });
    await app.ready();
    const ev = await app.nextOutcome(0);
    assert.equal(ev.type, 'strata:error', `${file}: ${JSON.stringify(ev)}`);
    assert.match(ev.detail, re);
    assert.match(await app.page.locator('#error').textContent(), re, `${file}: #error explains`);
    assert.equal(await app.page.locator('#error').isVisible(), true);
    await app.close();
  }
});

test('without ?url= the page can connect to its own origin only (CSP narrowed at start-up)', async (t) => {
  const ts = await traceServer(Buffer.from('{}'));
  t.after(() => ts.close());
  const app = await page(`${server.origin}/strata/`);
  t.after(() => app.close());
  await app.demoLoaded();
  const r = await app.page.evaluate(async (u) => {
    const metas = [...document.querySelectorAll('meta[http-equiv="Content-Security-Policy"]')].map((m) => m.content);
    const res = await fetch(u).then((x) => x.status, (e) => 'blocked: ' + e.message);
    return { metas, res };
  }, ts.origin + '/big.json');
  assert.match(String(r.res), /^blocked/, JSON.stringify(r));
  assert.ok(r.metas.some((c) => c.trim() === "connect-src 'self'"), `a narrowing policy: ${JSON.stringify(r.metas)}`);
  assert.deepEqual(ts.hits, []);
});

test('#t=..&sel=row:index: restored on open, kept up to date as the view and selection change', async (t) => {
  const base = `${server.origin}/strata/?url=../traces/small.trace.json`;
  // row 0, index 0 is the first event of the first row (pid 1 tid 1 'load' [1000, 1400])
  const app = await page(`${base}#t=1000,1600&sel=0:0`);
  t.after(() => app.close());
  const ev = await app.nextOutcome(0);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  await app.page.waitForFunction(() => window.strata.selection().length === 1);
  const v = await app.view();
  assert.ok(Math.abs(v.start_us - 1000) < 0.01 && Math.abs(v.end_us - 1600) < 0.01, `view from the hash: ${JSON.stringify(v)}`);
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.equal(sel.length, 1);
  assert.equal(sel[0].name, 'load');
  assert.equal(await app.page.locator('#details').isVisible(), true, 'the details pane shows the selected event');
  // Navigate: the hash follows (replaceState, throttled).
  await app.page.evaluate(() => window.strata.setView({ start_us: 1200, end_us: 1450 }));
  await app.page.waitForFunction(() => location.hash === '#t=1200,1450&sel=0:0', null, { timeout: 120_000 })
    .catch(async () => assert.fail(`hash not updated: ${await app.page.evaluate(() => location.hash)}`));
  const histLen = await app.page.evaluate(() => history.length);
  // Esc clears the selection: sel= leaves the hash.
  await app.page.locator('#canvas').focus();
  await app.page.keyboard.press('Escape');
  await app.page.waitForFunction(() => location.hash === '#t=1200,1450', null, { timeout: 120_000 })
    .catch(async () => assert.fail(`hash after Esc: ${await app.page.evaluate(() => location.hash)}`));
  assert.equal(await app.page.evaluate(() => history.length), histLen, 'replaceState: no history entries pile up');
  // A wheel zoom by the user changes the hash too.
  const box = await app.page.locator('#canvas').boundingBox();
  await app.page.mouse.move(box.x + GUTTER_PX + 200, box.y + AXIS_PX + 40);
  await app.page.keyboard.down('Control');
  await app.page.mouse.wheel(0, -400);
  await app.page.keyboard.up('Control');
  await app.page.waitForFunction(() => location.hash !== '#t=1200,1450' && /^#t=[\d.]+,[\d.]+$/.test(location.hash), null, { timeout: 120_000 });
  // Copy the address, open it elsewhere: the same view.
  await app.page.evaluate(() => window.strata.setView({ start_us: 1050, end_us: 1150 }));
  await app.page.waitForFunction(() => location.hash.startsWith('#t=1050,1150'));
  const link = app.page.url();
  const app2 = await page(link);
  t.after(() => app2.close());
  await app2.nextOutcome(0);
  const v2 = await app2.view();
  assert.ok(Math.abs(v2.start_us - 1050) < 0.01 && Math.abs(v2.end_us - 1150) < 0.01, `the link reopens the view: ${link} -> ${JSON.stringify(v2)}`);
  // A stale sel= (no such event) is ignored, the view still applies.
  const app3 = await page(`${base}#t=1100,1300&sel=99:99`);
  t.after(() => app3.close());
  await app3.nextOutcome(0);
  assert.deepEqual(await app3.page.evaluate(() => window.strata.selection().length), 0);
  const v3 = await app3.view();
  assert.ok(Math.abs(v3.start_us - 1100) < 0.01, JSON.stringify(v3));
  assert.deepEqual([...app.pageErrors, ...app2.pageErrors, ...app3.pageErrors], []);
});

test('hostile names and args (HTML/script payloads) render as text; nothing executes, nothing is fetched', async (t) => {
  const P = [
    '<img src=x onerror="window.__pwned=1">',
    '</script><script>window.__pwned=2</script>',
    '"><svg onload="window.__pwned=3">',
    '<iframe src="javascript:window.parent.__pwned=4"></iframe>',
  ];
  const ev = [
    { ph: 'M', name: 'process_name', pid: 1, args: { name: P[2] } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: P[3] } },
    { ph: 'X', name: P[0], cat: P[1], pid: 1, tid: 1, ts: 0, dur: 1000, args: { html: P[0], script: P[1], [P[2]]: { nested: P[3] } } },
    { ph: 'X', name: P[1], cat: 'c', pid: 1, tid: 1, ts: 1000, dur: 1000, args: { x: P[1] } },
  ];
  const app = await page(`${server.origin}/strata/`);
  t.after(() => app.close());
  await app.demoLoaded();
  const r0 = app.requests.length;
  const r = await app.openBuffer(Buffer.from(JSON.stringify({ traceEvents: ev })));
  assert.ok(r.ok, r.message);
  // Select the first event through the link hash (hashchange applies it).
  await app.page.evaluate(() => { location.hash = '#t=0,2000&sel=0:0'; });
  await app.page.waitForFunction(() => window.strata.selection().length === 1);
  await app.page.waitForFunction(() => !/reading/.test(document.getElementById('details').textContent), null, { timeout: 120_000 });
  const details = await app.page.locator('#details').textContent();
  assert.ok(details.includes(P[0]), `name shown as text in #details: ${details.slice(0, 300)}`);
  assert.ok(details.includes('window.__pwned=2'), 'args shown as text');
  // Hover the first event: its name in the tooltip, as text.
  const box = await app.page.locator('#canvas').boundingBox();
  let tip = null;
  for (let y = AXIS_PX + 4; y < AXIS_PX + 120 && !tip; y += 4) {
    await app.page.mouse.move(box.x + GUTTER_PX + (box.width - GUTTER_PX) * 0.25, box.y + y);
    // the hover is the move's (handled as it is dispatched); an animation frame after it, all the same
    await app.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    tip = await app.page.evaluate(() => {
      const el = document.getElementById('tooltip');
      return el && !el.hidden && el.textContent.includes('onerror') ? el.textContent : null;
    });
  }
  assert.ok(tip && tip.includes(P[0]), `tooltip shows the name as text: ${tip}`);
  await app.page.waitForTimeout(300);
  const dom = await app.page.evaluate(() => ({
    pwned: window.__pwned,
    imgs: document.querySelectorAll('img').length,
    svgs: document.querySelectorAll('svg').length,
    iframes: document.querySelectorAll('iframe').length,
    scripts: document.querySelectorAll('script').length,
  }));
  assert.deepEqual(dom, { pwned: undefined, imgs: 0, svgs: 0, iframes: 0, scripts: 2 }, 'no element was created from the payloads');
  const after = app.requests.slice(r0);
  assert.deepEqual(after.filter((u) => /\/x$|javascript:/.test(u)), [], 'no request to the payloads\' URLs');
  assert.deepEqual(after, [], `opening a local buffer makes no request at all: ${after.join(', ')}`);
  assert.deepEqual(app.pageErrors, []);
});

test('privacy: every request of this file\'s pages went to the pages\' own origins (this file\'s servers)', () => {
  assert.ok(allRequests.some((u) => u.endsWith('.wasm')), 'the recorder saw the .wasm');
  const bad = allRequests.filter((u) => ![...origins].some((o) => u.startsWith(o + '/')) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual([...new Set(bad)], [], 'requests to other origins');
  void privacyReport;
});
