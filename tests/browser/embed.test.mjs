// Embedding (issue 6): a parent page on another origin holds the viewer in
// an iframe (?embed=1), hands it traces by postMessage ({strata: {buffer,
// name}} and Perfetto's {perfetto: {buffer, title}} after PING -> PONG),
// and hears back {strata: {event: 'ready'|'loaded'|'error'}}. Messages of
// any other shape change nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, newApp, distExists, DIST, writeFixtures } from './harness.mjs';

let browser, viewer, parentSrv, parentDir, fx;
const allRequests = [];

// The embedding page: records every message from the frame in window.__msgs;
// window.__post(msg, transfer) posts into the frame.
const PARENT_HTML = (src) => `<!doctype html><meta charset="utf-8"><title>parent</title>
<body><iframe id="f" src="${src}" width="900" height="500"></iframe>
<script>
window.__msgs = [];
window.addEventListener('message', (e) => {
  if (e.source !== document.getElementById('f').contentWindow) return;
  window.__msgs.push({ origin: e.origin, data: JSON.parse(JSON.stringify(e.data)) });
});
window.__post = (msg, transfer) => document.getElementById('f').contentWindow.postMessage(msg, '*', transfer || []);
window.__bytes = (b64) => { const s = atob(b64); const u = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i); return u.buffer; };
</script></body>`;

before(async () => {
  if (!distExists()) throw new Error(`no page to test: ${DIST}/index.html missing (run tools/build or set STRATA_DIST)`);
  fx = await writeFixtures();
  viewer = await startServer({ root: DIST, prefix: '/viewer/' });
  parentDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-embed-'));
  await fsp.writeFile(path.join(parentDir, 'index.html'), PARENT_HTML(`${viewer.url}?embed=1`));
  parentSrv = await startServer({ root: parentDir, prefix: '/' }); // another port: another origin
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await viewer?.close();
  await parentSrv?.close();
  await fx?.cleanup();
  if (parentDir) await fsp.rm(parentDir, { recursive: true, force: true });
});

async function openParent(t) {
  const app = await newApp(browser, parentSrv, { allRequests });
  t.after(() => app.close());
  await app.goto();
  const frame = () => app.page.frames().find((f) => f.url().startsWith(viewer.url));
  await app.page.waitForFunction(() => window.__msgs.some((m) => m.data && m.data.strata && m.data.strata.event === 'ready'), null, { timeout: 120_000 })
    .catch(async () => assert.fail(`no {strata:{event:'ready'}} from the frame: ${JSON.stringify(await app.page.evaluate(() => window.__msgs))}\n${app.diagnostics()}`));
  return { app, page: app.page, frame };
}

const msgs = (page) => page.evaluate(() => window.__msgs);
const waitMsg = (page, since, pred) => page.waitForFunction(
  ([n, p]) => window.__msgs.slice(n).find((m) => new Function('m', `return ${p}`)(m)) || null, [since, pred], { timeout: 120_000 })
  .then((h) => h.jsonValue());

test('iframe on another origin: ready, then {strata:{buffer,name}} (ArrayBuffer, transferred) loads and the parent hears loaded + stats', async (t) => {
  const { page, frame } = await openParent(t);
  const ready = (await msgs(page)).find((m) => m.data.strata?.event === 'ready');
  assert.equal(ready.origin, viewer.origin, 'ready comes from the viewer\'s origin');
  // ?embed=1: no demo, a waiting note, no brand/open/save chrome
  const f = frame();
  const chrome = await f.evaluate(() => ({
    stats: window.strata.stats(),
    brand: getComputedStyle(document.querySelector('.brand')).display,
    open: getComputedStyle(document.getElementById('open-button')).display,
    empty: document.getElementById('empty').hidden ? null : document.getElementById('empty').textContent,
  }));
  assert.equal(chrome.brand, 'none');
  assert.equal(chrome.open, 'none');
  assert.ok(chrome.stats === null || chrome.stats.events === 0 || chrome.stats.events === undefined,
    `no demo in an embed frame: ${JSON.stringify(chrome.stats)}`);
  assert.match(chrome.empty || '', /Waiting/);

  const n = (await msgs(page)).length;
  await page.evaluate((b64) => { const b = window.__bytes(b64); window.__post({ strata: { buffer: b, name: 'small.trace.json' } }, [b]); },
    fx.trace.bytes.toString('base64'));
  const loaded = await waitMsg(page, n, "m.data.strata && m.data.strata.event === 'loaded'");
  const e = fx.trace.expect;
  for (const k of ['format', 'events', 'slices', 'processes', 'threads']) assert.equal(loaded.data.strata.stats[k], e[k], k);
  assert.equal(loaded.data.strata.name, 'small.trace.json');
  const inFrame = await f.evaluate(() => ({ s: window.strata.stats(), name: document.getElementById('trace-name').textContent }));
  assert.deepEqual(inFrame.s.events, e.events);
  assert.equal(inFrame.name, 'small.trace.json');
  const shot = await page.screenshot();
  await fsp.mkdir(path.join(path.dirname(new URL(import.meta.url).pathname), 'artifacts'), { recursive: true });
  await fsp.writeFile(path.join(path.dirname(new URL(import.meta.url).pathname), 'artifacts', 'embed_parent.png'), shot);
});

test('Perfetto\'s protocol: PING -> PONG, then {perfetto:{buffer,title}} (gzip) loads', async (t) => {
  const { page, frame } = await openParent(t);
  const n = (await msgs(page)).length;
  await page.evaluate(() => window.__post('PING'));
  const pong = await waitMsg(page, n, "m.data === 'PONG'");
  assert.equal(pong.origin, viewer.origin);
  const n2 = (await msgs(page)).length;
  await page.evaluate((b64) => window.__post({ perfetto: { buffer: window.__bytes(b64), title: 'from perfetto api' } }), fx.gz.toString('base64'));
  const loaded = await waitMsg(page, n2, "m.data.strata && m.data.strata.event === 'loaded'");
  assert.equal(loaded.data.strata.stats.events, fx.trace.expect.events);
  assert.equal(loaded.data.strata.stats.compressed, true);
  assert.equal(await frame().evaluate(() => document.getElementById('trace-name').textContent), 'from perfetto api');
});

test('messages of any other shape are ignored; a bad trace is reported as {event:error}', async (t) => {
  const { page, frame } = await openParent(t);
  const n = (await msgs(page)).length;
  await page.evaluate((b64) => window.__post({ strata: { buffer: window.__bytes(b64), name: 'first' } }), fx.trace.bytes.toString('base64'));
  await waitMsg(page, n, "m.data.strata && m.data.strata.event === 'loaded'");
  const f = frame();
  const before = await f.evaluate(() => ({ s: window.strata.stats(), ev: window.__strataEvents ? window.__strataEvents.length : null }));
  const n2 = (await msgs(page)).length;
  await page.evaluate(() => {
    const junk = [
      'hello', 'PONG', 42, null, [1, 2], { foo: 1 }, { strata: 'x' }, { strata: { buffer: 'not bytes' } },
      { strata: { event: 'loaded', stats: {} } }, { perfetto: { buffer: 'nope' } }, { perfetto: { title: 'no buffer' } },
      { strata: { buffer: { byteLength: 10 } } },
    ];
    for (const m of junk) window.__post(m);
    window.__post('PING'); // handled after every junk message: its PONG says they were all seen
  });
  await waitMsg(page, n2, "m.data === 'PONG'");
  const after = await f.evaluate(() => ({ s: window.strata.stats(), error: document.getElementById('error').hidden }));
  assert.deepEqual(after.s, before.s, 'the trace shown did not change');
  assert.equal(after.error, true, 'no error shown');
  assert.deepEqual((await msgs(page)).slice(n2).map((m) => m.data), ['PONG'], 'the frame answered none of them');
  // A buffer that is not a trace: the parent hears why.
  await page.evaluate(() => window.__post({ strata: { buffer: new TextEncoder().encode('garbage here').buffer, name: 'bad' } }));
  const err = await waitMsg(page, n2, "m.data.strata && m.data.strata.event === 'error'");
  assert.match(err.data.strata.message, /\S/);
  // nothing came late either: since the junk, only the PONG and this error
  assert.deepEqual((await msgs(page)).slice(n2).map((m) => m.data.strata?.event ?? m.data), ['PONG', 'error']);
  assert.deepEqual((await f.evaluate(() => window.strata.stats())).events, before.s.events, 'the previous trace stays');
});

test('a top-level page opened by another (window.open): PING -> PONG and a posted trace', async (t) => {
  const app = await newApp(browser, parentSrv, { allRequests });
  t.after(() => app.close());
  await app.goto();
  const [popup] = await Promise.all([
    app.context.waitForEvent('page'),
    app.page.evaluate((u) => { window.__w = window.open(u); window.__w2 = []; window.addEventListener('message', (e) => { if (e.source === window.__w) window.__w2.push(JSON.parse(JSON.stringify(e.data))); }); }, viewer.url),
  ]);
  await popup.waitForFunction(() => typeof window.strata === 'object' && window.strata && window.strata.stats() && window.strata.stats().events > 0, null, { timeout: 120_000 });
  await app.page.evaluate(() => window.__w.postMessage('PING', '*'));
  await app.page.waitForFunction(() => window.__w2.includes('PONG'));
  await app.page.evaluate((b64) => {
    const s = atob(b64); const u = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    window.__w.postMessage({ perfetto: { buffer: u.buffer, title: 'opened' } }, '*');
  }, fx.gz.toString('base64'));
  const loaded = await app.page.waitForFunction(() => window.__w2.find((m) => m && m.strata && m.strata.event === 'loaded') || null).then((h) => h.jsonValue());
  assert.equal(loaded.strata.stats.events, fx.trace.expect.events);
  assert.equal(await popup.evaluate(() => window.strata.stats().events), fx.trace.expect.events);
});

test('privacy: every request went to the parent\'s or the viewer\'s origin', () => {
  assert.ok(allRequests.some((u) => u.endsWith('.wasm')), 'the recorder saw the frame\'s .wasm');
  const bad = allRequests.filter((u) => !u.startsWith(viewer.origin + '/') && !u.startsWith(parentSrv.origin + '/'));
  assert.deepEqual([...new Set(bad)], []);
});
