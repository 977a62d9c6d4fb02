// The README's run command (tools/run) serves the page with the Python package's
// server, run from the source tree (PYTHONPATH=tools/python python3 -m strata --dist
// dist --no-browser [TRACE]): with a trace path it prints a URL that opens that trace
// (served at /trace/<token>/<name>, streamed through ?url=). Started here as tools/run starts
// it (after its build step), on a free port, and driven in Chromium. The installed
// package (its bundled viewer, logdirs) is pypkg.test.mjs's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { launchBrowser, newApp, distExists, DIST, CORPUS, corpusMissing, REPO_ROOT, privacyReport } from './harness.mjs';
import { freePort, startStrata } from './pyvenv.mjs';

let browser;
before(async () => {
  if (!distExists()) throw new Error(`no page to test: ${DIST}/index.html missing (run tools/build)`);
  browser = await launchBrowser();
});
after(async () => { await browser?.close(); });

const ENV = { ...process.env, PYTHONPATH: path.join(REPO_ROOT, 'tools', 'python') };
const ARGS = ['--dist', DIST, '--no-browser'];
const serve = (args) => startStrata('python3', [...ARGS, ...args], { env: ENV });

const CONTROL = path.join(CORPUS, 'hta__control.json.gz');
test('tools/run\'s server TRACE: the printed URL opens that trace in the page', { skip: corpusMissing(CONTROL) }, async (t) => {
  const port = await freePort();
  const trace = CONTROL;
  const { child, url } = await serve(['--port', String(port), trace]);
  t.after(() => child.kill());
  assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?url=trace%2F[A-Za-z0-9_-]{22}%2Fhta__control\\.json\\.gz$`));
  const origin = `http://127.0.0.1:${port}`;
  const app = await newApp(browser, { url, origin });
  t.after(() => app.close());
  await app.page.goto(url, { waitUntil: 'load' });
  await app.ready();
  await app.page.waitForFunction(() => { const s = window.strata.stats(); return s && s.events === 109123; }, null, { timeout: 120_000 });
  const s = await app.stats();
  assert.equal(s.compressed, true);
  assert.equal(s.format, 'chrome-json');
  const { bad, message } = privacyReport(app.requests, origin);
  assert.deepEqual(bad, [], message);
});

test('tools/run\'s server on a port in use exits non-zero with a one-line hint', async (t) => {
  const port = await freePort();
  const first = await serve(['--port', String(port)]);
  t.after(() => first.child.kill());
  assert.equal(first.url, `http://127.0.0.1:${port}/`);
  const second = spawn('python3', ['-m', 'strata', ...ARGS, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'], env: ENV });
  let err = '';
  second.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((r) => second.on('exit', r));
  assert.notEqual(code, 0);
  assert.match(err, /cannot listen on 127\.0\.0\.1:\d+.*--port/);
});
