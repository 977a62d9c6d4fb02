#!/usr/bin/env node
// tools/benchmarks/bench_collectives.mjs: the page's collectives (issue 32) on
// a profile of R ranks x S steps from tools/gen/gen_collectives.py, opened
// through the file input: the time of window.strata.collectives() (each
// file's bytes read again for the args, the matching, offsets, replays) and
// of the Collectives table's render (a header click re-sorting every
// collective and laying out at most 2000 rows), REPS times, against one
// requestAnimationFrame tick measured in the same page (the frame budget).
//
//   node tools/benchmarks/bench_collectives.mjs [--ranks 256] [--steps 40] [--reps 10]
// (after tools/build; headless Chromium)
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, newApp } from '../../tests/browser/harness.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const R = arg('--ranks', 256);
const S = arg('--steps', 40);
const REPS = arg('--reps', 10);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-coll-bench-'));
execFileSync('python3', [path.join(root, 'tools', 'gen', 'gen_collectives.py'), tmp, '--ranks', String(R),
  '--steps', String(S)], { stdio: 'ignore' });
const files = Array.from({ length: R }, (_, r) => path.join(tmp, `rank-${r}.json`));
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const server = await startServer();
const browser = await launchBrowser();
try {
  const app = await newApp(browser, server, {});
  await app.goto('');
  await app.ready();
  const ev = await app.openViaInput(files, { timeout: 600_000 });
  if (ev.type !== 'strata:loaded') throw new Error(JSON.stringify(ev));
  const t = await app.page.evaluate(async () => {
    const t0 = performance.now();
    const d = await window.strata.collectives();
    return { ms: performance.now() - t0, n: d.collectives.length };
  });
  const renders = [];
  const keys = ['skew_us', 'busbw_gbps', 'dur_us', 'step'];
  for (let i = 0; i < REPS; i++) {
    await app.page.click(`#collectives-panel th[data-key="${keys[i % keys.length]}"]`);
    renders.push(Number(await app.page.getAttribute('#collectives-panel', 'data-render-ms')));
  }
  const frame = await app.page.evaluate(() => new Promise((res) => {
    const ts = [];
    const tick = (x) => { ts.push(x); if (ts.length < 31) requestAnimationFrame(tick); else res((ts[30] - ts[0]) / 30); };
    requestAnimationFrame(tick);
  }));
  console.log(`${R} ranks x ${S} steps: ${t.n} collectives; strata.collectives() ${t.ms.toFixed(0)} ms; ` +
    `table render median ${median(renders).toFixed(1)} ms, max ${Math.max(...renders).toFixed(1)} ms ` +
    `(${REPS} re-sorts); a frame ${frame.toFixed(1)} ms`);
  await app.close();
} finally {
  await browser.close();
  await server.close();
  await fsp.rm(tmp, { recursive: true, force: true });
}
