// The Python package (issue 22), installed as a user installs it: the wheel
// tools/build writes (build/python/strata-*.whl) into a fresh venv of Debian's
// Python with pip --no-index (no network, no other package: the standard
// library only), then `import strata` there, and `python -m strata LOGDIR
// --no-browser` served and opened in headless Chromium (the latest profile run
// of a JAX-like logdir, and --run). Also `pip install tools/python` (the folder,
// through its in-tree build backend), strata.analyze() with the native CLI, and
// a torch.profiler.profile look-alike (recognised by its module, exported with
// export_chrome_trace; torch never imported).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launchBrowser, newApp, distExists, DIST, CORPUS, CLI, REPO_ROOT, privacyReport, writeFixtures } from './harness.mjs';
import { run, pyEnv, wheelPath, makeVenv, jaxLogdir, freePort, startStrata } from './pyvenv.mjs';
import { checkServerRefusals } from './server_probe.mjs';

// (the corpus's other xplane file is one strata refuses: it cannot stand in for a host)
const XPLANE = path.join(CORPUS, 'xprof__34.83.195.179_6003.xplane.pb');
const CONTROL = path.join(CORPUS, 'hta__control.json.gz');
const SKIP = [XPLANE, CONTROL].some((f) => !fs.existsSync(f)) && `corpus files missing under ${CORPUS}`;

let venv, browser, tmp, runs, fx;
before(async () => {
  if (SKIP) return;
  if (!distExists()) throw new Error(`no page to test: ${DIST}/index.html missing (run tools/build)`);
  venv = await makeVenv(wheelPath());
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-pypkg-'));
  runs = await jaxLogdir(path.join(tmp, 'logs'), { latest: XPLANE, older: XPLANE });
  fx = await writeFixtures();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await venv?.cleanup();
  await fx?.cleanup();
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

const py = (code, env = {}) => run(venv.py, ['-c', code], { cwd: tmp, env: pyEnv(env), timeout: 120_000 });

test('the wheel installs offline into a fresh venv; import strata needs nothing but the standard library', { skip: SKIP }, async () => {
  const { stdout } = await py(`
import json, sys, strata
print(json.dumps({"file": strata.__file__, "site": strata.find_dist(), "version": strata.__version__,
  "ipython": "IPython" in sys.modules, "viewer": len(strata.viewer_html())}))`);
  const r = JSON.parse(stdout);
  const sp = path.join(venv.dir, 'lib');
  assert.ok(r.file.startsWith(sp) && r.file.includes('site-packages'), `imported from the venv: ${r.file}`);
  assert.ok(r.site.startsWith(sp), `the bundled viewer: ${r.site}`);
  assert.equal(r.ipython, false, 'IPython is not imported by import strata');
  assert.equal(r.viewer, fs.readFileSync(path.join(DIST, 'strata-viewer.html'), 'utf8').length, 'the packed viewer of the build is inside');
  for (const f of ['index.html', 'strata.wasm', 'app.js', 'embed.js', 'strata_parse.wasm', 'strata_parse.js', 'parse_worker.js', 'par_load.js']) assert.ok(fs.existsSync(path.join(r.site, f)), f);
  const { stdout: pipList } = await run(venv.py, ['-m', 'pip', 'list', '--format=freeze'], { env: pyEnv() });
  assert.deepEqual(pipList.split('\n').filter((l) => l && !/^(pip|setuptools)==/.test(l)), [`strata==${r.version}`]);
});

test('pip install tools/python (the folder) works offline too, through its in-tree build backend', { skip: SKIP }, async () => {
  const v = await makeVenv(path.join(REPO_ROOT, 'tools', 'python'));
  try {
    const { stdout } = await run(v.py, ['-c', 'import strata; print(strata.find_dist())'], { cwd: os.tmpdir(), env: pyEnv() });
    assert.match(stdout.trim(), /site-packages\/strata\/site$/);
  } finally {
    await v.cleanup();
  }
  assert.equal(fs.existsSync(path.join(REPO_ROOT, 'tools', 'python', 'build')), false, 'no build/ left in the source folder');
});

test('python -m strata LOGDIR --no-browser: the printed URL opens the latest profile run (both hosts) in the page', { skip: SKIP }, async (t) => {
  const port = await freePort();
  const { child, url } = await startStrata(venv.py, ['logs', '--no-browser', '--port', String(port)], { cwd: tmp });
  t.after(() => child.kill());
  const m = new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?url=trace%2F([A-Za-z0-9_-]{22})%2Fhost0\\.xplane\\.pb&url=trace%2F\\1%2Fhost1\\.xplane\\.pb$`).exec(url);
  assert.ok(m, `the printed URL names both hosts under one token: ${url}`);
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  await checkServerRefusals(port, { tracePath: `/trace/${m[1]}/host1.xplane.pb`, token: m[1], traceBytes: fs.readFileSync(XPLANE), stderr: () => err });
  const origin = `http://127.0.0.1:${port}`;
  const app = await newApp(browser, { url, origin });
  t.after(() => app.close());
  await app.page.goto(url, { waitUntil: 'load' });
  await app.ready();
  await app.page.waitForFunction(() => window.strata.traces().length === 2 && window.strata.stats()?.events > 0, null, { timeout: 120_000 })
    .catch(async () => assert.fail(`the two hosts did not load: ${JSON.stringify(await app.page.evaluate(() => [window.strata.traces(), window.strata.stats(), document.getElementById("error").textContent, document.getElementById("status").textContent]))}\n${app.diagnostics()}`));
  const s = await app.page.evaluate(() => ({ traces: window.strata.traces(), stats: window.strata.stats() }));
  assert.deepEqual(s.traces.map((x) => x.format), ['xplane', 'xplane']);
  assert.equal(s.traces[0].events, s.traces[1].events, 'two copies of one file');
  assert.equal(s.stats.events, 2 * s.traces[0].events);
  const { bad, message } = privacyReport(app.requests, origin);
  assert.deepEqual(bad, [], message);
});

test('python -m strata LOGDIR --run RUN opens that run; a missing run or file exits non-zero saying why', { skip: SKIP }, async (t) => {
  const port = await freePort();
  const { child, url } = await startStrata(venv.py, ['logs', '--run', runs.old, '--no-browser', '--port', String(port)], { cwd: tmp });
  t.after(() => child.kill());
  const app = await newApp(browser, { url, origin: `http://127.0.0.1:${port}` });
  t.after(() => app.close());
  await app.page.goto(url, { waitUntil: 'load' });
  await app.ready();
  await app.page.waitForFunction(() => window.strata.stats()?.events > 0, null, { timeout: 120_000 });
  const list = await app.page.evaluate(() => window.strata.traces());
  assert.deepEqual(list.map((x) => x.name), ['host0.xplane.pb']);
  assert.equal(list[0].events, JSON.parse(execStats(XPLANE)).events, 'the older run\'s file');
  for (const [args, re] of [[['logs', '--run', 'nope'], /no profile run 'nope' \(runs: 2026_11_20_08_00_00, 2026_11_22_08_00_00\)/],
    [['missing.json'], /missing\.json: no such file or folder/]]) {
    await assert.rejects(run(venv.py, ['-m', 'strata', ...args, '--no-browser'], { cwd: tmp, env: pyEnv() }), (e) => { assert.match(e.stderr, re); return true; });
  }
});

function execStats(file) {
  return execFileSync(CLI, ['stats', '--json', file], { encoding: 'utf8' });
}

test('strata.analyze runs the native CLI (STRATA_CLI, else PATH) and returns its JSON; without it a clear error', { skip: SKIP }, async () => {
  const { stdout } = await py(`
import json, strata
a = strata.analyze(${JSON.stringify(CONTROL)})
print(json.dumps({"traces": a["traces"], "steps": len(a["steps"])}))`, { STRATA_CLI: CLI });
  const a = JSON.parse(stdout);
  assert.equal(a.traces.length, 1);
  assert.equal(a.traces[0].file, CONTROL);
  assert.equal(a.steps, a.traces[0].steps);
  assert.ok(a.steps > 0);
  const { stdout: viaPath } = await py('import strata; print(len(strata.analyze(open(' + JSON.stringify(fx.paths.json) + ', "rb").read())["traces"]))',
    { PATH: `${path.dirname(CLI)}:${process.env.PATH}`, STRATA_CLI: '' });
  assert.equal(viaPath.trim(), '1', 'bytes go to the CLI through a temporary file; the CLI found on PATH');
  await assert.rejects(py('import strata; strata.analyze(' + JSON.stringify(CONTROL) + ')', { PATH: '/usr/bin:/bin', STRATA_CLI: '' }),
    (e) => {
      // the pure wheel holds no CLI: the error names what a pip user has (the platform wheel), not tools/build
      assert.match(e.stderr, /FileNotFoundError: this needs the native strata CLI, which this strata package does not hold.*platform wheel.*STRATA_CLI/);
      assert.doesNotMatch(e.stderr, /tools\/build/);
      return true;
    });
});

test('a torch.profiler.profile (a look-alike of its module) is exported with export_chrome_trace; torch is never imported', { skip: SKIP }, async () => {
  const { stdout } = await py(`
import json, shutil, sys
from strata.sources import resolve
class profile:
    def export_chrome_trace(self, path):
        shutil.copyfile(${JSON.stringify(fx.paths.json)}, path)
profile.__module__ = "torch.profiler.profiler"
class other:
    def export_chrome_trace(self, path): raise AssertionError("not a torch profile")
ts = resolve([profile(), ${JSON.stringify(fx.paths.gz)}])
try:
    resolve(other())
    err = None
except TypeError as e:
    err = str(e)
print(json.dumps({"names": [t.name for t in ts], "n": len(ts[0].read()), "torch": "torch" in sys.modules, "err": err}))`);
  const r = JSON.parse(stdout);
  assert.deepEqual(r.names, ['torch-profile.pt.trace.json', 'small.trace.json.gz']);
  assert.equal(r.n, fs.statSync(fx.paths.json).size);
  assert.equal(r.torch, false);
  assert.match(r.err, /cannot show a other/);
});

test('strata.serve() serves the bundled viewer from this process; later cells point their frame at it (no viewer in the cell)', { skip: SKIP }, async () => {
  const { stdout } = await py(`
import json, urllib.request, strata
from strata.notebook import render
from strata.sources import resolve
before = strata.served_url()
url = strata.serve()
page = urllib.request.urlopen(url + "index.html").read().decode()
html = render(resolve(${JSON.stringify(fx.paths.json)}), base_url=strata.served_url())
print(json.dumps({"before": before, "url": url, "again": strata.serve(), "page": "strata" in page, "html": html}))`, { STRATA_URL: '' });
  const r = JSON.parse(stdout);
  assert.equal(r.before, null);
  assert.match(r.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.equal(r.again, r.url, 'one server per process');
  assert.ok(r.page);
  assert.ok(r.html.includes(`src="${r.url}?embed=1"`));
  assert.ok(!r.html.includes('strata-wasm') && r.html.length < 20_000, `${r.html.length} chars`);
});
