// Helpers for the Python package tests (pypkg.test.mjs, notebook.test.mjs):
// the wheel tools/build writes (build/python/strata-*.whl), a fresh virtual
// environment with it installed offline (pip --no-index), a JAX-like
// TensorBoard logdir built from corpus files, and `python -m strata` started
// on a free port. The Python is Debian's (/usr/bin/python3: Jupyter's),
// whatever python3 comes first on PATH.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { REPO_ROOT } from './harness.mjs';

export const run = promisify(execFile);
export const PY = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** The built wheel's path (throws, saying how to build it, when missing):
 *  kind 'any' the pure one (py3-none-any), 'platform' the one with the
 *  native CLI inside (py3-none-manylinux_2_Y_x86_64). */
export function wheelPath(kind = 'any') {
  const dir = path.join(REPO_ROOT, 'build', 'python');
  const re = kind === 'any' ? /^strata-.*-py3-none-any\.whl$/ : /^strata-.*-py3-none-manylinux_2_\d+_x86_64\.whl$/;
  const whl = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => re.test(f)) : [];
  if (whl.length !== 1) throw new Error(`expected one build/python/strata-*${kind === 'any' ? '-any' : '-manylinux_*'}.whl (run tools/build), found: ${whl.join(', ') || 'none'}`);
  return path.join(dir, whl[0]);
}

/** process.env without STRATA_DIST (the package's own viewer, not the test's), plus extra. */
export function pyEnv(extra = {}) {
  const env = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONDONTWRITEBYTECODE: '1', ...extra };
  delete env.STRATA_DIST;
  return env;
}

/** A fresh venv in a temp dir with `what` (a wheel or a folder) installed by
 *  pip --no-index. systemSite: see the system's packages (Jupyter's ipykernel). */
export async function makeVenv(what, { systemSite = false } = {}) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-venv-'));
  await run(PY, ['-m', 'venv', ...(systemSite ? ['--system-site-packages'] : []), dir], { timeout: 120_000 });
  const py = path.join(dir, 'bin', 'python');
  const r = await run(py, ['-m', 'pip', 'install', '--no-index', '--no-cache-dir', what], { env: pyEnv(), timeout: 180_000 });
  return { dir, py, log: r.stdout + r.stderr, cleanup: () => fsp.rm(dir, { recursive: true, force: true }) };
}

/** A JAX/TensorBoard logdir: plugins/profile/<run>/<host>.xplane.pb, two runs.
 *  The latest holds host0 and host1 (both a copy of `latest`), the older one
 *  `older` as host0; TensorBoard's other files lie beside them. */
export async function jaxLogdir(dir, { latest, older }) {
  const prof = path.join(dir, 'plugins', 'profile');
  const runs = { old: '2026_11_20_08_00_00', new: '2026_11_22_08_00_00' };
  await fsp.mkdir(path.join(prof, runs.old), { recursive: true });
  await fsp.mkdir(path.join(prof, runs.new), { recursive: true });
  await fsp.copyFile(older, path.join(prof, runs.old, 'host0.xplane.pb'));
  await fsp.copyFile(latest, path.join(prof, runs.new, 'host0.xplane.pb'));
  await fsp.copyFile(latest, path.join(prof, runs.new, 'host1.xplane.pb'));
  await fsp.writeFile(path.join(prof, runs.new, 'host0.memory_profile.json.gz'), 'not a trace');
  await fsp.writeFile(path.join(dir, 'events.out.tfevents.1700000000.host0'), 'not a trace');
  return runs;
}

export const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  s.on('error', reject);
});

/** Starts `py -m strata ...args` and resolves {child, url} once it printed its URL. */
export async function startStrata(py, args, { env = pyEnv(), cwd } = {}) {
  const child = spawn(py, ['-m', 'strata', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env, cwd });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`python -m strata printed no URL: ${out}`)), 120_000);
    const on = (d) => {
      out += d;
      const m = /serving \S+ at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(out);
      if (m) { clearTimeout(t); resolve(m[1]); }
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.on('exit', (code) => { clearTimeout(t); reject(new Error(`python -m strata exited ${code}: ${out}`)); });
  });
  return { child, url };
}
