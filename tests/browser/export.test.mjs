// Standalone reports (issue 6): `strata export TRACE -o report.html` and the
// page's "Save HTML" button write one HTML file that opens from file:// with
// no server: stats equal the CLI's, args of a selected event are read from
// the embedded (gzip'd) trace, and the page makes no request at all besides
// the file itself. Its CSP is hashes + 'wasm-unsafe-eval' only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { useBrowser, writeFixtures, CLI, DIST, newApp } from './harness.mjs';

const run = promisify(execFile);
const ctx = useBrowser({ before, after });
let fx, out;
before(async () => {
  fx = await writeFixtures();
  out = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-export-'));
});
after(async () => {
  await fx?.cleanup();
  if (out) await fsp.rm(out, { recursive: true, force: true });
});

const NO_CLI = !fs.existsSync(CLI) && `native CLI not built (${CLI})`;
const strip = (s) => { const { load_ms, heap_bytes, import_peak_bytes, ...rest } = s; return rest; };
// Stats that do not depend on how the bytes were wrapped (export gzips a plain file).
const CONTENT = ['format', 'bytes_decoded', 'events', 'phases', 'slices', 'instants', 'counter_samples', 'async_slices',
  'flows', 'processes', 'threads', 'ts_min_us', 'ts_max_us', 'warnings'];
const pick = (o) => Object.fromEntries(CONTENT.map((k) => [k, o[k]]));

async function cliStats(file) {
  return JSON.parse((await run(CLI, ['stats', file, '--json'])).stdout);
}

/** Open a local file:// page in a fresh context, recording every request. */
async function openFile(file, hash = '') {
  const context = await ctx.browser.newContext({ viewport: { width: 1200, height: 700 }, acceptDownloads: true });
  const page = await context.newPage();
  const requests = [], errors = [], violations = [];
  context.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (/Content.Security.Policy|Refused/i.test(m.text())) violations.push(m.text()); });
  await page.goto(pathToFileURL(file).href + hash, { waitUntil: 'load' });
  await page.waitForFunction(() => { try { return window.strata.stats().events > 0; } catch { return false; } }, null, { timeout: 120_000 })
    .catch(() => assert.fail(`${file}: no trace shown\npage errors: ${errors.join('\n')}\n${violations.join('\n')}`));
  return { context, page, requests, errors, violations, close: () => context.close() };
}

function checkCsp(html) {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)[1];
  const dirs = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(dirs['default-src'], ["'none'"]);
  const h = (t) => `'sha256-${crypto.createHash('sha256').update(t, 'utf8').digest('base64')}'`;
  const js1 = /<script id="strata-js">([\s\S]*?)<\/script>/.exec(html)[1];
  const js2 = /<script type="module" id="strata-app">([\s\S]*?)<\/script>/.exec(html)[1];
  const css = /<style id="strata-css">([\s\S]*?)<\/style>/.exec(html)[1];
  assert.deepEqual(dirs['script-src'].sort(), [h(js1), h(js2), "'wasm-unsafe-eval'"].sort(), 'script-src: the two inline scripts + wasm');
  assert.deepEqual(dirs['style-src'], [h(css)]);
  assert.equal(dirs['connect-src'], undefined, 'no connect-src: default-src \'none\' forbids every fetch');
  return dirs;
}

test('strata export: one HTML file that opens from file:// with the CLI\'s stats and no request at all', { skip: NO_CLI }, async (t) => {
  for (const [label, src] of [['json', fx.paths.json], ['gz', fx.paths.gz]]) {
    const report = path.join(out, `report-${label}.html`);
    const r = await run(CLI, ['export', src, '-o', report, '--dist', DIST]);
    assert.match(r.stdout, /wrote .*report-/);
    const html = await fsp.readFile(report, 'utf8');
    checkCsp(html);
    assert.ok(!/<script[^>]*\bsrc=/.test(html) && !/<link[^>]*stylesheet/.test(html), 'nothing loaded from outside the file');
    const size = (await fsp.stat(report)).size;
    t.diagnostic(`${label}: report ${size} bytes (dist strata.wasm ${(await fsp.stat(path.join(DIST, 'strata.wasm'))).size})`);
    const want = await cliStats(src);
    const p = await openFile(report);
    t.after(() => p.close());
    const got = await p.page.evaluate(() => window.strata.stats());
    if (label === 'gz') assert.deepEqual(strip(got), strip(want), 'a .gz trace is embedded as is: every stat equal');
    else assert.deepEqual(pick(got), pick(want), 'a plain trace is embedded gzip\'d: the same content');
    assert.equal(got.compressed, true);
    assert.equal(await p.page.locator('#trace-name').textContent(), path.basename(src));
    assert.deepEqual(p.requests, [pathToFileURL(report).href], 'the only request is the file itself');
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.violations, [], 'no CSP violation');
  }
});

test('the exported file restores #t=..&sel=.. and reads args from the embedded gzip', { skip: NO_CLI }, async (t) => {
  const report = path.join(out, 'report-args.html');
  await run(CLI, ['export', fx.paths.json, '-o', report]); // dist found next to the executable / $STRATA_DIST
  const p = await openFile(report, '#t=1000,1600&sel=0:0');
  t.after(() => p.close());
  await p.page.waitForFunction(() => window.strata.selection().length === 1);
  const v = await p.page.evaluate(() => window.strata.view());
  assert.ok(Math.abs(v.start_us - 1000) < 0.01 && Math.abs(v.end_us - 1600) < 0.01, JSON.stringify(v));
  await p.page.waitForFunction(() => !/reading/i.test(document.getElementById('details').textContent), null, { timeout: 120_000 });
  const args = await p.page.evaluate(async () => {
    const s = window.strata.selection()[0];
    return window.strata.argsOf(s.src);
  });
  assert.deepEqual(args.args, { n: 3 }, `args of 'load' from the gzip'd copy: ${JSON.stringify(args)}`);
  assert.deepEqual(p.requests, [pathToFileURL(report).href]);
});

test('strata export refuses a file it cannot read (one line, no output)', { skip: NO_CLI }, async () => {
  const report = path.join(out, 'garbage.html');
  await assert.rejects(run(CLI, ['export', fx.paths.garbage, '-o', report]), (e) => {
    assert.equal(e.code, 1);
    assert.match(e.stderr, /garbage\.json/);
    assert.equal(e.stderr.trim().split('\n').length, 1);
    return true;
  });
  assert.equal(fs.existsSync(report), false);
  await assert.rejects(run(CLI, ['export', fx.paths.json, '-o', report, '--dist', '/nonexistent']), /no viewer at \/nonexistent/);
});

test('"Save HTML" on the served page downloads the same kind of file; it opens from file:// and can save itself again', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  // the built-in demo's bytes are kept (as a Blob, for its args), so it can be saved too
  await app.page.waitForFunction(() => !document.getElementById('save-html').disabled);
  const ev = await app.openViaInput(fx.paths.json);
  assert.equal(ev.type, 'strata:loaded');
  const r0 = app.requests.length;
  const [dl] = await Promise.all([app.page.waitForEvent('download'), app.page.locator('#save-html').click()]);
  assert.equal(dl.suggestedFilename(), 'small.strata.html');
  const saved = path.join(out, 'saved.html');
  await dl.saveAs(saved);
  const html = await fsp.readFile(saved, 'utf8');
  checkCsp(html);
  // The page fetched only its own assets to build it.
  const fetched = app.requests.slice(r0).filter((u) => !u.startsWith('blob:'));
  assert.ok(fetched.every((u) => u.startsWith(ctx.server.origin + '/')), fetched.join('\n'));
  t.diagnostic(`saved file: ${html.length} bytes`);
  const p = await openFile(saved);
  t.after(() => p.close());
  const got = await p.page.evaluate(() => window.strata.stats());
  assert.deepEqual(pick(got), pick(ev.detail), 'the saved file shows the same trace');
  assert.equal(await p.page.locator('#trace-name').textContent(), 'small.trace.json');
  assert.deepEqual(p.requests, [pathToFileURL(saved).href]);
  assert.deepEqual(p.errors, []);
  // The saved file saves itself again (from its own inline parts).
  const [dl2] = await Promise.all([p.page.waitForEvent('download'), p.page.locator('#save-html').click()]);
  const again = path.join(out, 'again.html');
  await dl2.saveAs(again);
  checkCsp(await fsp.readFile(again, 'utf8'));
  const p2 = await openFile(again);
  t.after(() => p2.close());
  assert.deepEqual(pick(await p2.page.evaluate(() => window.strata.stats())), pick(ev.detail));
  assert.deepEqual(p2.requests, [pathToFileURL(again).href]);
  assert.ok(p.requests.every((u) => u.startsWith('file:') || u.startsWith('blob:')), p.requests.join('\n'));
});

test('privacy: every request of the served pages went to the page\'s own origin', () => {
  const bad = ctx.requests.filter((u) => !u.startsWith(ctx.server.origin + '/') && !u.startsWith(`blob:${ctx.server.origin}/`));
  assert.deepEqual([...new Set(bad)], []);
  void newApp;
});
