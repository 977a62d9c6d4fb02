// The platform wheel (issue 35): build/python/strata-*-manylinux_2_Y_x86_64.whl,
// the Python package with the native CLI inside, installed as a pip user
// installs it: a fresh venv, pip --no-index, used from a folder outside the
// clone with STRATA_CLI unset and no `strata` on PATH. Its tag checked
// against the binary by auditwheel's rules (read here with readelf, apart
// from tools/python/manylinux_check.py); strata.analyze / diff / stats and
// `python -m strata analyze|diff|stats|search` give the build's CLI answers;
// every JSON output is valid against the schemas the wheel ships
// (strata/schemas/, Ajv, draft 2020-12); `python -m strata view FILE --hash H`
// serves the page at that view state; errors name what a pip user has.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import Ajv2020 from 'ajv/dist/2020.js';
import { CORPUS, CLI, REPO_ROOT, launchBrowser, newApp } from './harness.mjs';
import { run, pyEnv, wheelPath, makeVenv, freePort, startStrata } from './pyvenv.mjs';

const CONTROL = path.join(CORPUS, 'hta__control.json.gz');
const OTHER = path.join(CORPUS, 'hta__overlaid_critical_path_trace.json.gz');
const FLOW = path.join(CORPUS, 'catapult__flow.json');
const SKIP = [CONTROL, OTHER, FLOW].some((f) => !fs.existsSync(f)) && `corpus files missing under ${CORPUS}`;
const PORTABLE = path.join(REPO_ROOT, 'build', 'native', 'strata-portable');

// a pip user's environment: no STRATA_CLI, no clone's CLI on PATH, no STRATA_DIST
function userEnv(extra = {}) {
  const env = pyEnv({ PATH: '/usr/bin:/bin', ...extra });
  delete env.STRATA_CLI;
  return env;
}

let venv, tmp;
before(async () => {
  if (SKIP) return;
  venv = await makeVenv(wheelPath('platform'));
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-pywheel-'));
});
after(async () => {
  await venv?.cleanup();
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

const py = (args, opts = {}) => run(venv.py, args, { cwd: tmp, env: userEnv(), timeout: 180_000, maxBuffer: 1 << 28, ...opts });
const cliJson = (...args) => JSON.parse(execFileSync(CLI, args, { maxBuffer: 1 << 28 }).toString());
// what differs between two runs of the same command: the times it took
const TIMES = new Set(['analyze_ms', 'analyze_cpu_ms', 'load_ms', 'wall_ms', 'heap_bytes', 'names_ms', 'args_ms', 'open_ms', 'window_ms']);
const untimed = (x) => JSON.parse(JSON.stringify(x, (k, v) => (TIMES.has(k) ? undefined : v)));

function schemas(dir) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  for (const f of fs.readdirSync(dir)) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  return (id, value) => {
    const v = ajv.getSchema(id);
    assert.ok(v, `schema ${id}`);
    assert.ok(v(value), `${id}: ${ajv.errorsText(v.errors)}`);
  };
}

test('the platform wheel\'s tag is what its CLI needs: only libc/libm, glibc symbol versions up to the tag\'s', { skip: SKIP }, async () => {
  const name = path.basename(wheelPath('platform'));
  const m = /-py3-none-manylinux_2_(\d+)_x86_64\.whl$/.exec(name);
  assert.ok(m, name);
  const { stdout: where } = await py(['-c', 'import strata.native as n; print(n.BUNDLED)']);
  const bin = where.trim();
  assert.ok(bin.startsWith(venv.dir), `the CLI is the venv's: ${bin}`);
  fs.accessSync(bin, fs.constants.X_OK);
  assert.ok(fs.readFileSync(bin).equals(fs.readFileSync(PORTABLE)), 'the wheel holds build/native/strata-portable');
  const needed = [...execFileSync('readelf', ['-d', bin]).toString().matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((x) => x[1]);
  // auditwheel's manylinux_2_x allowed libraries that a C program could need
  const allowed = new Set(['libc.so.6', 'libm.so.6', 'libpthread.so.0', 'libdl.so.2', 'librt.so.1', 'libgcc_s.so.1']);
  assert.deepEqual(needed.filter((n) => !allowed.has(n)), [], `NEEDED: ${needed.join(' ')}`);
  assert.ok(!needed.includes('libz.so.1'), 'zlib is linked in');
  const versions = [...execFileSync('objdump', ['-T', bin]).toString().matchAll(/GLIBC_2\.(\d+)/g)].map((x) => Number(x[1]));
  assert.equal(Math.max(...versions), Number(m[1]), 'the tag is the highest glibc symbol version the CLI uses');
  const glibc = /(\d+)\.(\d+)/.exec(execFileSync('ldd', ['--version']).toString());
  assert.ok(Number(m[1]) <= Number(glibc[2]), `runs on this glibc (${glibc[0]})`);
  const { stdout: tag } = await run('python3', [path.join(REPO_ROOT, 'tools', 'python', 'manylinux_check.py'), bin]);
  assert.equal(tag.trim(), `manylinux_2_${m[1]}_x86_64`);
  // the clone's CLI (SDL2, GLESv2, libz) is refused, saying why
  await assert.rejects(run('python3', [path.join(REPO_ROOT, 'tools', 'python', 'manylinux_check.py'), CLI]),
    (e) => { assert.match(e.stderr, /needs libz\.so\.1.*not a library manylinux allows/); return true; });
});

test('strata.analyze / diff / stats in the fresh venv (no clone, no STRATA_CLI) equal the CLI\'s, valid against the shipped schemas', { skip: SKIP }, async () => {
  const { stdout } = await py(['-c', `
import json, os, strata
print(json.dumps({"schemas": os.path.join(os.path.dirname(strata.__file__), "schemas"),
  "analyze": strata.analyze(${JSON.stringify(CONTROL)}), "diff": strata.diff(${JSON.stringify(CONTROL)}, ${JSON.stringify(OTHER)}),
  "stats": strata.stats(${JSON.stringify(CONTROL)}), "many": strata.stats([${JSON.stringify(CONTROL)}, ${JSON.stringify(FLOW)}]),
  "search": strata.native.search(${JSON.stringify(CONTROL)}, "nccl")}))`]);
  const r = JSON.parse(stdout);
  assert.ok(r.schemas.startsWith(venv.dir));
  const valid = schemas(r.schemas);
  assert.deepEqual(untimed(r.analyze), untimed(cliJson('analyze', '--json', CONTROL)));
  assert.deepEqual(untimed(r.diff), untimed(cliJson('diff', CONTROL, OTHER, '--json')));
  assert.deepEqual(untimed(r.stats), untimed(cliJson('stats', '--json', CONTROL)));
  assert.deepEqual(untimed(r.many), untimed(cliJson('stats', '--json', CONTROL, FLOW)));
  assert.equal(r.analyze.schema, 'strata.analyze/1');
  assert.equal(r.diff.schema, 'strata.diff/1');
  assert.ok(r.diff.rows.some((x) => x.verdict === 'regression'), 'verdicts are there');
  valid('strata.analyze/1', r.analyze);
  valid('strata.diff/1', r.diff);
  valid('strata.stats/1', r.stats);
  valid('strata.stats/1', r.many);
  valid('strata.search/1', r.search);
  valid('strata.window/1', cliJson('window', CONTROL, '--from', '1661203462602000', '--to', '1661203462603000', '--json', '--events', '--resident'));
  // and every corpus trace the CLI reads (Chrome JSON, gzip, xplane, Perfetto, ...)
  let n = 0;
  for (const f of fs.readdirSync(CORPUS).filter((x) => x !== 'README.md')) {
    let st;
    try { st = cliJson('stats', '--json', path.join(CORPUS, f)); } catch { continue; } // one it refuses
    valid('strata.stats/1', st);
    valid('strata.analyze/1', cliJson('analyze', '--json', path.join(CORPUS, f)));
    n++;
  }
  assert.ok(n >= 20, `${n} corpus traces`);
});

test('python -m strata analyze|diff|stats|search run the bundled CLI; a bad file exits 1 with its one line', { skip: SKIP }, async () => {
  const j = async (...args) => JSON.parse((await py(['-m', 'strata', ...args])).stdout);
  assert.deepEqual(untimed(await j('analyze', CONTROL, '--json', '--ops', '5')), untimed(cliJson('analyze', CONTROL, '--json', '--ops', '5')));
  assert.deepEqual(untimed(await j('stats', CONTROL, '--json')), untimed(cliJson('stats', CONTROL, '--json')));
  assert.deepEqual(untimed(await j('search', CONTROL, 'nccl', '--json')), untimed(cliJson('search', CONTROL, 'nccl', '--json')));
  // diff exits 3 with --fail-on-regression, as the CLI
  await assert.rejects(py(['-m', 'strata', 'diff', CONTROL, OTHER, '--fail-on-regression']), (e) => e.code === 3);
  await assert.rejects(py(['-m', 'strata', 'stats', 'missing.json']), (e) => {
    assert.equal(e.code, 1);
    assert.match(e.stderr, /^strata: missing\.json: /m);
    return true;
  });
  // the native window is not in the wheel: it says what to use instead
  const { stdout: where } = await py(['-c', 'import strata.native as n; print(n.BUNDLED)']);
  await assert.rejects(run(where.trim(), ['view', CONTROL], { cwd: tmp, env: userEnv() }), (e) => {
    assert.equal(e.code, 2);
    assert.match(e.stderr, /python -m strata view FILE/);
    assert.doesNotMatch(e.stderr, /tools\/build/);
    return true;
  });
});

test('python -m strata view FILE --hash H serves the page at that view state: the event of sel= selected, the view t=', { skip: SKIP }, async (t) => {
  const hit = cliJson('search', CONTROL, 'nccl:all_to_all', '--json', '--limit', '1').first[0];
  const t0 = cliJson('stats', CONTROL, '--json').ts_min_us + hit.start_ns / 1000;
  const hash = `#t=${t0 - 50},${t0 + 200}&sel=${hit.row}:${hit.index}`;
  const port = await freePort();
  const { child, url } = await startStrata(venv.py, ['view', CONTROL, '--no-browser', '--port', String(port), '--hash', hash], { cwd: tmp, env: userEnv() });
  t.after(() => child.kill());
  assert.ok(url.endsWith(hash), url);
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const app = await newApp(browser, { url, origin: `http://127.0.0.1:${port}` });
  await app.page.goto(url, { waitUntil: 'load' });
  await app.ready();
  await app.page.waitForFunction(() => window.strata.selection()?.length === 1, null, { timeout: 120_000 });
  const s = await app.page.evaluate(() => ({ sel: window.strata.selection(), view: window.strata.view() }));
  assert.equal(s.sel[0].name, hit.name);
  assert.equal(s.sel[0].ts_us, t0);
  assert.ok(Math.abs(s.view.start_us - (t0 - 50)) < 1e-3 && Math.abs(s.view.end_us - (t0 + 200)) < 1e-3, JSON.stringify(s.view));
});
