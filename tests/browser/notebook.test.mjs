// Notebooks (issue 6), with the real thing: Debian's Jupyter Notebook.
// A temp Jupyter root gets a notebook that calls tools/python/strata_notebook.py's
// show() twice (the local dist/ through the server's /files/ route, and a
// "hosted" copy given by base_url on another origin); nbclient executes it,
// it is signed as `jupyter trust` would (so the notebook page runs the outputs' scripts),
// `jupyter notebook` serves it, and headless Chromium opens the notebook
// page: each iframe must show the fixture (window.strata.stats() inside the
// frame), and no request may leave 127.0.0.1.
// Needs: jupyter-notebook python3-nbclient python3-ipykernel (tools/scripts/setup).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startServer, launchBrowser, newApp, distExists, DIST, REPO_ROOT, writeFixtures } from './harness.mjs';

const run = promisify(execFile);
// Debian's Python (its Jupyter stack), whatever python3 comes first on PATH.
const PY = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const HAVE_JUPYTER = fs.existsSync('/usr/bin/jupyter-notebook');
const SKIP = !HAVE_JUPYTER && 'Jupyter not installed (apt-get install jupyter-notebook python3-nbclient python3-ipykernel; tools/scripts/setup does)';

let root, home, fx, hosted, browser, jupyter, jupyterOrigin, token, started;
const env = () => ({
  ...process.env,
  HOME: home, JUPYTER_CONFIG_DIR: path.join(home, 'config'), JUPYTER_DATA_DIR: path.join(home, 'data'),
  JUPYTER_RUNTIME_DIR: path.join(home, 'runtime'), IPYTHONDIR: path.join(home, 'ipython'), PYTHONDONTWRITEBYTECODE: '1',
});

function cell(src) {
  return { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: src };
}

before(async () => {
  if (SKIP) return;
  if (!distExists()) throw new Error(`no page to test: ${DIST}/index.html missing`);
  started = Date.now();
  fx = await writeFixtures();
  root = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-nb-'));
  home = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-nbhome-'));
  await fsp.copyFile(fx.paths.json, path.join(root, 'small.trace.json'));
  await fsp.copyFile(fx.paths.gz, path.join(root, 'other.trace.json.gz')); // a second file for show([a, b])
  hosted = await startServer({ root: DIST, prefix: '/strata/' }); // stands in for a GitHub Pages copy
  const tools = path.join(REPO_ROOT, 'tools', 'python');
  const nb = {
    nbformat: 4, nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: [
      cell(`import sys\nsys.path.insert(0, ${JSON.stringify(tools)})\nimport strata_notebook`),
      cell(`strata_notebook.show("small.trace.json", dist=${JSON.stringify(DIST)}, height=400)`),
      cell(`strata_notebook.show(open("small.trace.json", "rb").read(), base_url=${JSON.stringify(hosted.url)}, name="hosted copy", height=400)`),
      cell(`strata_notebook.show(["small.trace.json", "other.trace.json.gz"], dist=${JSON.stringify(DIST)}, height=400)`),
    ],
  };
  // (cells are ids-less nbformat 4.5; nbclient fills them in)
  await fsp.writeFile(path.join(root, 'nb.ipynb'), JSON.stringify(nb, null, 1));
  const t0 = Date.now();
  await run(PY, ['-c', `
import nbformat, nbclient, sys
p = sys.argv[1]
nb = nbformat.read(p, as_version=4)
nbclient.NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
# What \`jupyter trust\` does (Debian's nbformat has no jupyter-trust script): sign it in
# the notary database of JUPYTER_DATA_DIR, which the server below reads too.
from nbformat.sign import NotebookNotary
NotebookNotary().sign(nb)
nbformat.write(nb, p)
`, path.join(root, 'nb.ipynb'), root], { env: env(), cwd: root, timeout: 90_000 });
  const tExec = Date.now() - t0;
  token = crypto.randomBytes(16).toString('hex');
  const port = await freePort();
  jupyter = spawn(PY, ['-m', 'notebook', '--no-browser', '--ip=127.0.0.1', `--port=${port}`, '--port-retries=0',
    `--NotebookApp.token=${token}`, `--notebook-dir=${root}`, '--allow-root', '--NotebookApp.open_browser=False'],
  { env: env(), cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  jupyter.stdout.on('data', (d) => { log += d; });
  jupyter.stderr.on('data', (d) => { log += d; });
  jupyterOrigin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const r = await fetch(`${jupyterOrigin}/api/status?token=${token}`);
      if (r.ok) break;
    } catch { /* not yet */ }
    if (Date.now() > deadline || jupyter.exitCode !== null) throw new Error(`jupyter notebook did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  browser = await launchBrowser();
  console.log(`# notebook executed in ${tExec} ms; set-up ${Date.now() - started} ms`);
});

after(async () => {
  await browser?.close();
  if (jupyter && jupyter.exitCode === null) {
    jupyter.kill('SIGTERM');
    await new Promise((r) => { const t = setTimeout(() => { jupyter.kill('SIGKILL'); r(); }, 5000); jupyter.on('exit', () => { clearTimeout(t); r(); }); });
  }
  await hosted?.close();
  await fx?.cleanup();
  for (const d of [root, home]) if (d) await fsp.rm(d, { recursive: true, force: true });
});

async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

test('the executed notebook, opened in Jupyter, shows the trace in both iframes (local dist/ via /files/, and base_url), and show([a, b]) both files on one timeline', { skip: SKIP }, async (t) => {
  const requests = [];
  const app = await newApp(browser, { url: jupyterOrigin + '/' }, { viewport: { width: 1280, height: 1100 }, allRequests: requests });
  t.after(() => app.close());
  await app.page.goto(`${jupyterOrigin}/notebooks/nb.ipynb?token=${token}`, { waitUntil: 'load' });
  // Each output iframe reports the loaded stats on its element (set by show()'s script).
  await app.page.waitForFunction(() => document.querySelectorAll('iframe[data-strata-loaded]').length >= 3, null, { timeout: 60_000 })
    .catch(async () => {
      const state = await app.page.evaluate(() => [...document.querySelectorAll('iframe')].map((f) => [f.src, f.getAttribute('data-strata-loaded'), f.getAttribute('data-strata-error')]));
      await app.page.screenshot({ path: path.join(REPO_ROOT, 'tests/browser/artifacts/notebook_fail.png') }).catch(() => {});
      assert.fail(`the iframes did not load the trace: ${JSON.stringify(state)}\n${app.diagnostics()}`);
    });
  const e = fx.trace.expect;
  const all = app.page.frames().filter((f) => /strata-viewer\.html|\/strata\/\?embed=1/.test(f.url()));
  assert.equal(all.length, 3, `three viewer frames: ${app.page.frames().map((f) => f.url()).join(', ')}`);
  // the third cell's frame shows two files: show([a, b])
  const counts = await Promise.all(all.map((f) => f.evaluate(() => window.strata.traces().length)));
  const frames = all.filter((f, i) => counts[i] === 1);
  const two = all.filter((f, i) => counts[i] === 2);
  assert.equal(frames.length, 2);
  assert.equal(two.length, 1, 'show([a, b]): one frame with both files');
  const ts = await two[0].evaluate(() => ({ list: window.strata.traces(), s: window.strata.stats() }));
  assert.deepEqual(ts.list.map((x) => [x.name, x.events]), [['small.trace.json', e.events], ['other.trace.json.gz', e.events]]);
  assert.deepEqual(ts.s.traces.map((x) => x.events), [e.events, e.events]);
  assert.equal(ts.s.events, 2 * e.events, 'the total is the sum of the files\'');
  assert.equal(await two[0].evaluate(() => document.getElementById('trace-name').textContent), '2 traces');
  const local = frames.find((f) => f.url().includes('/files/strata-viewer.html'));
  const remote = frames.find((f) => f.url().startsWith(hosted.url));
  assert.ok(local, 'the local viewer is served by the notebook server\'s /files/ route');
  assert.ok(remote, 'the hosted viewer comes from base_url');
  for (const [label, f] of [['local', local], ['base_url', remote]]) {
    const s = await f.evaluate(() => window.strata.stats());
    for (const k of ['format', 'events', 'slices', 'processes', 'threads', 'ts_min_us', 'ts_max_us']) {
      assert.deepEqual(s[k], e[k], `${label} frame: stats().${k}`);
    }
  }
  assert.equal(await local.evaluate(() => document.getElementById('trace-name').textContent), 'small.trace.json');
  assert.equal(await remote.evaluate(() => document.getElementById('trace-name').textContent), 'hosted copy');
  await fsp.mkdir(path.join(REPO_ROOT, 'tests/browser/artifacts'), { recursive: true });
  await app.page.screenshot({ path: path.join(REPO_ROOT, 'tests/browser/artifacts/notebook.png'), fullPage: false });
  // Privacy: the notebook page, its kernel websocket and both viewers stayed on this machine.
  const off = requests.filter((u) => !/^(https?|wss?):\/\/127\.0\.0\.1[:/]/.test(u) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual([...new Set(off)], [], 'requests that left 127.0.0.1');
  // The local viewer made no request besides its own file.
  const viewerReqs = requests.filter((u) => u.startsWith(jupyterOrigin + '/files/'));
  assert.deepEqual([...new Set(viewerReqs.map((u) => u.split('?')[0]))], [`${jupyterOrigin}/files/strata-viewer.html`]);
  t.diagnostic(`total from set-up to here: ${Date.now() - started} ms`);
});

test('why not a copy of dist/ under /files/: the server sandboxes it (opaque origin), so its module script and wasm fetch fail', { skip: SKIP }, async (t) => {
  // Documents the rule in tools/python/strata_notebook.py with the real server.
  await fsp.cp(DIST, path.join(root, 'distcopy'), { recursive: true });
  const r = await fetch(`${jupyterOrigin}/files/distcopy/index.html?token=${token}`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-security-policy') || '', /sandbox allow-scripts/);
  const app = await newApp(browser, { url: jupyterOrigin + '/' }, { allRequests: [] });
  t.after(() => app.close());
  await app.page.goto(`${jupyterOrigin}/files/distcopy/index.html?token=${token}`, { waitUntil: 'load' });
  await app.page.waitForTimeout(1500);
  const hasApi = await app.page.evaluate(() => typeof window.strata === 'object' && window.strata !== null);
  assert.equal(hasApi, false, 'the multi-file copy does not start under /files/ (if this changes, the simpler rule works)');
});
