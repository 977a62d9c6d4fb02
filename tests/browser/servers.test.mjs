// Issue 36: every strata HTTP server answers only requests that name it
// (Host 127.0.0.1:PORT, localhost:PORT or [::1]:PORT; anything else 403 with
// one line, and a line on the server's stderr), and serves traces only under
// its run's random token. The servers, started as users start them:
//   tools/run's (python3 -m strata from the source tree, as tools/run execs it),
//   tools/serve.py's folder at /data/<token>/,
//   strata.serve() in a notebook kernel (the page only: its traces travel by
//   postMessage, never by URL).
// The installed wheel's `python -m strata` is probed in pypkg.test.mjs; the
// pages opened through the printed URLs in run.test.mjs, pypkg.test.mjs,
// streaming.test.mjs and manifest.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { launchBrowser, newApp, distExists, DIST, REPO_ROOT, serveRanges, privacyReport } from './harness.mjs';
import { freePort, startStrata } from './pyvenv.mjs';
import { checkServerRefusals, rawGet } from './server_probe.mjs';

const ENV = { ...process.env, PYTHONPATH: path.join(REPO_ROOT, 'tools', 'python') };
let tmp;
let browser;
before(async () => {
  if (!distExists()) throw new Error(`no page to test: ${DIST}/index.html missing (run tools/build)`);
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-servers-'));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

/** A small trace whose bytes start with a marker no page or error carries. */
async function trace(dir, name, tag) {
  await fsp.mkdir(dir, { recursive: true });
  const f = path.join(dir, name);
  const events = [{ name: `secret-${tag}`, ph: 'X', ts: 1, dur: 5, pid: 1, tid: 1 }, { name: 'b', ph: 'X', ts: 10, dur: 5, pid: 1, tid: 1 }];
  await fsp.writeFile(f, JSON.stringify({ traceEvents: events }));
  return f;
}

test("tools/run's server: the printed URL's token names the traces; foreign hosts, missing and wrong tokens and traversal get nothing", async (t) => {
  const a = await trace(path.join(tmp, 'a'), 'rank.json', 'a');
  const b = await trace(path.join(tmp, 'b'), 'rank.json', 'b'); // the same name: /trace/<token>/1/rank.json
  const port = await freePort();
  const { child, url } = await startStrata('python3', ['--dist', DIST, '--no-browser', '--port', String(port), a, b], { env: ENV });
  t.after(() => child.kill());
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const m = new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?url=trace%2F([A-Za-z0-9_-]{22})%2Frank\\.json&url=trace%2F\\1%2F1%2Frank\\.json$`).exec(url);
  assert.ok(m, url);
  const token = m[1];
  await checkServerRefusals(port, { tracePath: `/trace/${token}/rank.json`, token, traceBytes: fs.readFileSync(a), stderr: () => err });
  await checkServerRefusals(port, { tracePath: `/trace/${token}/1/rank.json`, token, traceBytes: fs.readFileSync(b) });
  // a second run draws another token: the first run's URL names nothing there
  const port2 = await freePort();
  const second = await startStrata('python3', ['--dist', DIST, '--no-browser', '--port', String(port2), a], { env: ENV });
  t.after(() => second.child.kill());
  const token2 = /trace%2F([A-Za-z0-9_-]{22})%2F/.exec(second.url)[1];
  assert.notEqual(token2, token);
  assert.equal((await rawGet(port2, `/trace/${token}/rank.json`)).status, 404);
  assert.equal((await rawGet(port2, `/trace/${token2}/rank.json`)).status, 200);
  // the printed URL still opens both traces in the page
  const origin = `http://127.0.0.1:${port}`;
  const app = await newApp(browser, { url, origin });
  t.after(() => app.close());
  await app.page.goto(url, { waitUntil: 'load' });
  await app.ready();
  await app.page.waitForFunction(() => window.strata.traces().length === 2 && window.strata.stats()?.events === 4, null, { timeout: 120_000 });
  assert.deepEqual(await app.page.evaluate(() => window.strata.traces().map((x) => x.name)), ['rank.json', 'rank.json']);
  const { bad, message } = privacyReport(app.requests, origin);
  assert.deepEqual(bad, [], message);
});

test('tools/serve.py: the folder only at /data/<token>/, the Host checked on every request', async (t) => {
  const dir = path.join(tmp, 'served');
  const f = await trace(dir, 'run.trace.json', 'served');
  const srv = await serveRanges(dir);
  t.after(() => srv.close());
  assert.match(srv.data, /^data\/[A-Za-z0-9_-]{22}\/$/);
  await checkServerRefusals(srv.port, { tracePath: `/${srv.data}run.trace.json`, token: srv.token, traceBytes: fs.readFileSync(f), stderr: srv.stderr });
  // the whole folder without the token: nothing (no listing either)
  for (const p of ['/data/', '/data/run.trace.json', `/data/${srv.token}`]) {
    const r = await rawGet(srv.port, p);
    assert.ok(r.status === 404 || r.status === 301, `${p}: ${r.status}`);
    assert.equal(r.body.indexOf('secret-served'), -1);
  }
  const app = await newApp(browser, { url: srv.url, origin: srv.origin });
  t.after(() => app.close());
  await app.page.goto(`${srv.url}?url=${srv.data}run.trace.json`, { waitUntil: 'load' });
  await app.ready();
  await app.page.waitForFunction(() => window.strata.stats()?.events === 2, null, { timeout: 120_000 });
});

test('strata.serve() (the notebook helper): the page for this server\'s names only', async (t) => {
  const code = 'import strata, sys\nprint("serving at " + strata.serve(dist=sys.argv[1]), flush=True)\nsys.stdin.read()\n';
  const child = spawn('python3', ['-c', code, DIST], { stdio: ['pipe', 'pipe', 'pipe'], env: ENV });
  t.after(() => child.kill());
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /serving at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out); if (m) resolve(m[1]); });
    child.on('exit', (c) => reject(new Error(`exited ${c}: ${out}${err}`)));
  });
  const port = Number(/:(\d+)\//.exec(url)[1]);
  await checkServerRefusals(port, { stderr: () => err });
  for (const p of ['/trace/', '/trace/x/y.json']) assert.equal((await rawGet(port, p)).status, 404, `${p}: no trace route`);
});
