// The README's run command serves the page with tools/scripts/serve.py: with a trace
// path it prints a URL that opens that trace (served at /trace/<name>,
// streamed through ?url=). Started here as tools/run starts it (after its
// build step), on a free port, and driven in Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { launchBrowser, newApp, distExists, DIST, CORPUS, corpusMissing, REPO_ROOT, privacyReport } from './harness.mjs';

let browser;
before(async () => {
  if (!distExists()) throw new Error(`no page to test: ${DIST}/index.html missing (run tools/build)`);
  browser = await launchBrowser();
});
after(async () => { await browser?.close(); });

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  s.on('error', reject);
});

async function serve(args) {
  const child = spawn('python3', [path.join(REPO_ROOT, 'tools', 'scripts', 'serve.py'), '--dist', DIST, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`serve.py printed no URL: ${out}`)), 15_000);
    const on = (d) => {
      out += d;
      const m = /serving \S+ at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(out);
      if (m) { clearTimeout(t); resolve(m[1]); }
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.on('exit', (code) => reject(new Error(`serve.py exited ${code}: ${out}`)));
  });
  return { child, url };
}

const CONTROL = path.join(CORPUS, 'hta__control.json.gz');
test('tools/scripts/serve.py TRACE: the printed URL opens that trace in the page', { skip: corpusMissing(CONTROL) }, async (t) => {
  const port = await freePort();
  const trace = CONTROL;
  const { child, url } = await serve(['--port', String(port), '--trace', trace]);
  t.after(() => child.kill());
  assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?url=trace%2Fhta__control\\.json\\.gz$`));
  const origin = `http://127.0.0.1:${port}`;
  const app = await newApp(browser, { url, origin });
  t.after(() => app.close());
  await app.page.goto(url, { waitUntil: 'load' });
  await app.ready();
  await app.page.waitForFunction(() => { const s = window.strata.stats(); return s && s.events === 109123; }, null, { timeout: 60_000 });
  const s = await app.stats();
  assert.equal(s.compressed, true);
  assert.equal(s.format, 'chrome-json');
  const { bad, message } = privacyReport(app.requests, origin);
  assert.deepEqual(bad, [], message);
});

test('tools/scripts/serve.py on a port in use exits non-zero with a one-line hint', async (t) => {
  const port = await freePort();
  const first = await serve(['--port', String(port)]);
  t.after(() => first.child.kill());
  assert.equal(first.url, `http://127.0.0.1:${port}/`);
  const second = spawn('python3', [path.join(REPO_ROOT, 'tools', 'scripts', 'serve.py'), '--dist', DIST, '--port', String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  second.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((r) => second.on('exit', r));
  assert.notEqual(code, 0);
  assert.match(err, /cannot listen on 127\.0\.0\.1:\d+.*--port/);
});
