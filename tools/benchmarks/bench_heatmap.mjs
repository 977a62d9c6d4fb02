#!/usr/bin/env node
// tools/benchmarks/bench_heatmap.mjs: how long the overview's ranks x steps
// heatmap (web/heatmap.js) takes to draw a big profile in the real page.
// Issue 18 asks that it redraws "inside the frame budget" at 256 ranks x 200
// steps. The page's own panels are opened on two small generated ranks;
// then an analysis of R ranks x S steps (synthetic, one slow rank) is handed
// to window.strata.heatmap(analysis) and drawn for every cell figure, REPS
// times. Prints the median and max of each kind of draw (the first draw of a
// new analysis; a redraw with another figure) and, as the reference run in
// the same page, the time of one requestAnimationFrame tick (the budget).
//
//   node tools/benchmarks/bench_heatmap.mjs [--ranks 256] [--steps 200] [--reps 20]
// (after tools/build; headless Chromium, software WebGL: the canvas is 2D)
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, newApp, CLI, syntheticAnalysis } from '../../tests/browser/harness.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const R = arg('--ranks', 256);
const S = arg('--steps', 200);
const REPS = arg('--reps', 20);
const gen = path.join(path.dirname(CLI), 'strata-gen');
const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-heatmap-'));
const files = [0, 1].map((r) => {
  const f = path.join(tmp, `rank-${r}.pt.trace.json`);
  execFileSync(gen, ['-n', '4000', '--steps', '10', '--rank', String(r), '-o', f], { stdio: 'ignore' });
  return f;
});
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const server = await startServer();
const browser = await launchBrowser();
try {
  const app = await newApp(browser, server, { viewport: { width: 1400, height: 900 } });
  await app.goto();
  await app.ready();
  await app.openViaInput(files, { timeout: 120_000 });
  await app.page.keyboard.press('o');
  await app.page.waitForSelector('#heatmap-canvas');
  const r = await app.page.evaluate(async ({ an, REPS }) => {
    const frame = () => new Promise((res) => requestAnimationFrame((t0) => requestAnimationFrame((t1) => res(t1 - t0))));
    window.strata.heatmap(an); // warm-up: the canvas sized, the code compiled
    const first = [], redraw = [], ticks = [];
    for (let i = 0; i < REPS; i++) {
      first.push(window.strata.heatmap(an).draw_ms);
      for (const m of ['compute', 'idle', 'comm_wait', 'step']) {
        const t0 = performance.now();
        window.strata.heatmap(m);
        redraw.push(performance.now() - t0);
      }
      ticks.push(await frame());
    }
    return { first, redraw, ticks, cells: window.strata.heatmap().cells };
  }, { an: syntheticAnalysis(R, S), REPS });
  const fmt = (a) => `median ${median(a).toFixed(1)} ms, max ${Math.max(...a).toFixed(1)} ms (${a.length} draws)`;
  console.log(`heatmap ${R} ranks x ${S} steps (${r.cells} cells drawn)`);
  console.log(`  first draw of an analysis: ${fmt(r.first)}`);
  console.log(`  redraw with another figure: ${fmt(r.redraw)}`);
  console.log(`  reference: one animation frame in this page: median ${median(r.ticks).toFixed(1)} ms`);
  console.log(`  redraw median / frame: ${(median(r.redraw) / median(r.ticks)).toFixed(2)}`);
  await app.close();
} finally {
  await browser.close();
  await server.close();
  await fsp.rm(tmp, { recursive: true, force: true });
}
