// Answers in the page (issue 18, part 1): window.strata.analyze() returns
// what `strata analyze FILE... --json` prints for the files open (generated
// ranks, a corpus Kineto trace and an XProf profile), the overview panel
// driven as a user drives it (files opened through the file input, the
// Overview button, figures clicked: the longest step, the largest idle gap
// of a planted-gap trace, an op's instances), "Use as step" in an event's
// details, and the ranks x steps heatmap: a slow rank marked as the
// straggler and a noise-only profile with none, a click on a cell zooming
// to that rank's step, and 256 ranks x 200 steps drawn in under 50 ms; the
// overview of a 1e6-event trace opened from the analysis made ahead.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, privacyReport, CLI, CORPUS, corpusMissing, syntheticAnalysis } from './harness.mjs';

const ctx = useBrowser({ before, after });
const GEN = path.join(path.dirname(CLI), 'strata-gen');

let dir;
const files = {};
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-analyze-'));
  const gen = (name, args) => {
    files[name] = path.join(dir, `${name}.json`);
    execFileSync(GEN, ['-n', '12000', '--steps', '8', ...args, '-o', files[name]], { stdio: 'ignore' });
  };
  // a profile of three ranks, rank 2 slow (every compute op 1.5x), each with its own noise
  gen('rank-0', ['--rank', '0', '--noise-seed', '1']);
  gen('rank-1', ['--rank', '1', '--noise-seed', '2']);
  gen('rank-2', ['--rank', '2', '--noise-seed', '3', '--slow-factor', '1.5']);
  // the same program three times with other durations only: no straggler
  gen('noise-0', ['--rank', '0', '--noise-seed', '4']);
  gen('noise-1', ['--rank', '1', '--noise-seed', '5']);
  gen('noise-2', ['--rank', '2', '--noise-seed', '6']);
  // each GPU idle exactly 5000 us in every 4th step
  gen('gaps', ['--idle-gap', '5000', '--idle-every', '4']);
});
after(async () => {
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

// The CLI's JSON for the same files, "file" named as the page names it (the
// file's name, not its path) and without analyze_ms / analyze_cpu_ms (the time it took)
// nor the collectives (issue 32: the page's are window.strata.collectives(),
// tests/browser/collectives.test.mjs).
function cliAnalyze(paths, extra = []) {
  const out = JSON.parse(execFileSync(CLI, ['analyze', ...paths, '--json', ...extra], { maxBuffer: 1 << 28 }).toString());
  delete out.analyze_ms;
  delete out.analyze_cpu_ms;
  for (const k of ['collectives', 'clock_offsets', 'unaligned', 'critical_path', 'what_if', 'collectives_summary']) delete out[k];
  for (const r of out.per_step) {
    delete r.waited_us;
    delete r.caused_us;
  }
  for (const t of out.traces) t.file = path.basename(t.file);
  return out;
}

async function openAll(app, paths) {
  const n = await app.eventCount();
  await app.page.setInputFiles('#file-input', paths);
  const ev = await app.nextOutcome(n, { timeout: 120_000 });
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  assert.equal((await app.page.evaluate(() => window.strata.traces().length)), paths.length);
}

const analyzeIn = (app, opts) => app.page.evaluate((o) => window.strata.analyze(o), opts);

// The view's window, and the window expected for events of file `part` of
// the view named `name` (the one of that file; a step's ProfilerStep#N).
async function eventWindow(app, name, part) {
  return app.page.evaluate(([name, part]) => {
    window.strata.selectName(name);
    const ev = window.strata.selection().filter((e) => (e.part ?? 0) === part);
    if (ev.length !== 1) return null;
    return { start_us: ev[0].ts_us, end_us: ev[0].ts_us + ev[0].dur_us };
  }, [name, part]);
}
const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-3 * Math.max(1, Math.abs(b) * 1e-6) + 2e-3, `${what}: ${a} vs ${b}`);

test('strata.analyze() equals `strata analyze --json` for a 3-rank profile, also with a step name', async () => {
  const app = await ctx.app();
  const paths = [files['rank-0'], files['rank-1'], files['rank-2']];
  await openAll(app, paths);
  const page = await analyzeIn(app);
  assert.equal(page.traces.length, 3);
  assert.ok(page.devices.length >= 3 && page.steps.length === 24, `${page.devices.length} devices, ${page.steps.length} steps`);
  assert.deepEqual(page, cliAnalyze(paths));
  // --step-name, --ops, --gaps
  const named = await analyzeIn(app, { stepName: 'block_until_ready', ops: 5, gaps: 3 });
  assert.ok(named.traces.every((t) => t.steps_from === 'named' && t.steps > 0));
  assert.deepEqual(named, cliAnalyze(paths, ['--step-name', 'block_until_ready', '--ops', '5', '--gaps', '3']));
  // files moved on the timeline: the answers stay in each file's own time
  await app.page.evaluate(() => window.strata.setOffset(window.strata.traces()[1].handle, 2500));
  assert.deepEqual(await analyzeIn(app), cliAnalyze(paths));
});

for (const name of ['hta__control.json.gz', 'xprof__34.83.195.179_6003.xplane.pb']) {
  const file = path.join(CORPUS, name);
  test(`strata.analyze() equals the CLI's on the corpus's ${name}`, { skip: corpusMissing(file) }, async () => {
    const app = await ctx.app();
    await openAll(app, [file]);
    const page = await analyzeIn(app);
    assert.ok(page.devices.length >= 1 && page.steps.length >= 1);
    assert.deepEqual(page, cliAnalyze([file]));
  });
}

test('the overview shows analyze()\'s figures, coloured, and each goes where it says', async () => {
  const app = await ctx.app();
  const paths = [files['rank-0'], files['rank-1'], files['rank-2']];
  await openAll(app, paths);
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#overview-devices tbody tr');
  const d = await analyzeIn(app);
  const cli = cliAnalyze(paths);
  // the devices' figures as shown: those of analyze() and the CLI
  const rows = await app.page.$$eval('#overview-devices tbody tr', (trs) => trs.map((tr) => {
    const cell = (k) => tr.querySelector(`td[data-fig="${k}"]`);
    const cls = (k) => { const c = cell(k); const b = c.querySelector('button'); return (b || c).className.replace('fig', '').trim(); };
    return {
      text: Object.fromEntries(['step_us', 'step_p50_us', 'step_p90_us', 'idle_pct', 'utilization_pct', 'comm_pct', 'overlap_pct'].map((k) => [k, cell(k).textContent])),
      idle: cls('idle_pct'), util: cls('utilization_pct'),
    };
  }));
  assert.equal(rows.length, cli.devices.length);
  const fmtUs = (us) => (us >= 1e3 ? `${(us / 1e3).toFixed(2)} ms` : `${us.toFixed(1)} us`);
  const band = (v, good, bad, highBad) => (highBad ? (v < good ? 'good' : v > bad ? 'bad' : 'warn') : (v > good ? 'good' : v < bad ? 'bad' : 'warn'));
  cli.devices.forEach((v, i) => {
    assert.equal(rows[i].text.step_us, fmtUs(v.step_us));
    assert.equal(rows[i].text.step_p50_us, fmtUs(v.step_p50_us));
    assert.equal(rows[i].text.step_p90_us, fmtUs(v.step_p90_us));
    assert.equal(rows[i].text.idle_pct, `${v.idle_pct.toFixed(1)} %`);
    assert.equal(rows[i].text.utilization_pct, `${v.utilization_pct.toFixed(1)} %`);
    assert.equal(rows[i].text.comm_pct, `${((100 * v.comm_us) / v.range_us).toFixed(1)} %`);
    assert.equal(rows[i].idle, band(v.idle_pct, 10, 30, true), `device ${i} idle ${v.idle_pct}`);
    assert.equal(rows[i].util, band(v.utilization_pct, 90, 70, false));
  });
  // the slow rank is the straggler, named in the panel and marked in the heatmap
  assert.deepEqual(d.stragglers.map((s) => s.trace), [2]);
  assert.match(await app.page.textContent('#overview-stragglers'), /rank 2/);
  const hm = await app.page.evaluate(() => window.strata.heatmap());
  assert.deepEqual(hm.rows.map((r) => r.straggler), [false, false, true]);
  assert.deepEqual(hm.steps, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(hm.cells, 24);
  assert.equal(hm.lo, Math.min(...cli.steps.map((s) => s.wall_us))); // cells: step time by default
  assert.equal(hm.hi, Math.max(...cli.steps.map((s) => s.wall_us)));

  // a step time: the view zooms to that device's longest step
  const dev = cli.devices.findIndex((v) => v.trace === 2);
  const worst = cli.per_step.filter((p) => p.device === dev).reduce((a, b) => (b.wall_us > a.wall_us ? b : a));
  await app.page.click(`#overview-devices tbody tr[data-device="${dev}"] td[data-fig="step_us"] button`);
  const v1 = await app.view();
  const w1 = await eventWindow(app, `ProfilerStep#${worst.step}`, 2);
  near(v1.start_us, w1.start_us, 'longest step start');
  near(v1.end_us, w1.end_us, 'longest step end');
  near(v1.end_us - v1.start_us, worst.wall_us, 'longest step length');

  // a heatmap cell: the timeline shows that rank's step
  const box = await app.page.locator('#heatmap-canvas').boundingBox();
  for (const [r, c] of [[1, 4], [0, 6]]) {
    await app.page.mouse.click(box.x + hm.cell.x + (c + 0.5) * hm.cell.w, box.y + hm.cell.y + (r + 0.5) * hm.cell.h);
    const v = await app.view();
    const w = await eventWindow(app, `ProfilerStep#${hm.steps[c]}`, r);
    near(v.start_us, w.start_us, `cell ${r},${c} start`);
    near(v.end_us, w.end_us, `cell ${r},${c} end`);
  }
  // hover shows the value
  await app.page.mouse.move(box.x + hm.cell.x + 2.5 * hm.cell.w, box.y + hm.cell.y + 2.5 * hm.cell.h);
  const tip = await app.page.textContent('.heatmap-tip');
  const step3 = cli.steps.find((s) => s.trace === 2 && s.step === 3);
  assert.ok(tip.includes('rank 2') && tip.includes('step 3') && tip.includes(fmtUs(step3.wall_us)), tip);

  // an op: all its instances are selected
  for (const i of [0, 3]) {
    await app.page.click(`#overview-ops tbody tr[data-op="${i}"] button`);
    const n = await app.page.evaluate(() => window.strata.selection().length);
    assert.equal(n, cli.ops[i].count, `op ${cli.ops[i].name}`);
  }
});

test('the idle figure zooms onto the planted idle gap', async () => {
  const app = await ctx.app();
  await openAll(app, [files.gaps]);
  await app.page.keyboard.press('o');
  await app.page.waitForSelector('#overview-devices tbody tr');
  const d = await analyzeIn(app, { gaps: 1000 });
  const gap = d.idle_gaps.find((g) => g.device === 0);
  assert.equal(gap.dur_us, 5000, 'the planted gap is the longest');
  const v0 = await app.view();
  await app.page.click('#overview-devices tbody tr[data-device="0"] td[data-fig="idle_pct"] button');
  const v = await app.view();
  assert.notDeepEqual(v, v0);
  const origin = (await app.stats()).ts_min_us; // one file: the view's us = the file's
  near(v.start_us, origin + gap.start_us - 1250, 'gap start');
  near(v.end_us, origin + gap.end_us + 1250, 'gap end');
});

test('"Use as step" in the details makes every event of that name a step', async () => {
  const app = await ctx.app();
  const paths = [files['rank-0'], files['rank-1'], files['rank-2']];
  await openAll(app, paths);
  await app.page.fill('#search', 'block_until_ready');
  await app.page.press('#search', 'Enter');
  await app.page.waitForSelector('#details button.use-as-step');
  await app.page.click('#details button.use-as-step');
  await app.page.waitForSelector('#overview:not([hidden])');
  assert.match(await app.page.textContent('#overview-steps'), /block_until_ready/);
  const shown = await app.page.evaluate(() => window.strata.overview(true));
  const cli = cliAnalyze(paths, ['--step-name', 'block_until_ready', '--gaps', '1000']);
  assert.deepEqual(shown, cli);
  assert.ok(shown.traces.every((t) => t.steps_from === 'named'));
});

// The overview's analysis is made in idle time after a trace's first frame
// and kept (core/app) until the files shown change or move: `o` on a 1e6
// trace then shows it within a frame or two, the CLI's figures; the kept one
// is not stale after the file moved, after "use as step", after new files.
test('the overview of a 1e6 trace opens from the analysis made ahead, the CLI\'s, never stale', async () => {
  const big = path.join(dir, 'lean1e6.json');
  execFileSync(GEN, ['-n', '1e6', '--lean', '-o', big], { stdio: 'ignore' });
  const app = await ctx.app();
  await openAll(app, [big]);
  // the idle callbacks queued after strata:loaded (the analysis made ahead) have run
  await app.page.evaluate(() => new Promise((r) => requestIdleCallback(() => requestIdleCallback(r, { timeout: 3000 }), { timeout: 3000 })));
  const ms = await app.page.evaluate(() => {
    const t0 = performance.now();
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'o', bubbles: true }));
    const open = performance.now() - t0;
    const t1 = performance.now();
    window.strata.analyze({ gaps: 999 }); // not kept: analysed now
    return { open, fresh: performance.now() - t1 };
  });
  assert.ok(ms.open < ms.fresh / 2, `o took ${ms.open.toFixed(1)} ms, a fresh analysis ${ms.fresh.toFixed(1)} ms`);
  const one = cliAnalyze([big], ['--gaps', '1000']);
  assert.deepEqual(await app.page.evaluate(() => window.strata.overview(true)), one);
  const ops = await app.page.$$eval('#overview-ops tbody tr td.name', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(ops, one.ops.map((o) => o.name));
  assert.equal(await app.page.$$eval('#overview-devices tbody tr', (trs) => trs.length), one.devices.length);
  // with a second file (several: one can be moved), the panel open meanwhile
  const two = [big, files['rank-0']];
  await openAll(app, two);
  const cli = cliAnalyze(two, ['--gaps', '1000']);
  assert.deepEqual(await app.page.evaluate(() => window.strata.overview()), cli);
  // moved on the timeline: the same figures (each file's own time)
  await app.page.evaluate(() => window.strata.setOffset(window.strata.traces()[1].handle, 1500));
  assert.deepEqual(await app.page.evaluate(() => window.strata.overview(true)), cli);
  // every train step's host call as the step: the panel's analysis is redone
  const named = await app.page.evaluate(() => window.strata.useAsStep('PjitFunction(train_step)'));
  assert.deepEqual(named, cliAnalyze(two, ['--step-name', 'PjitFunction(train_step)', '--gaps', '1000']));
  // other files: the panel shows theirs
  const paths = [files['rank-1'], files['rank-2']];
  await openAll(app, paths);
  assert.deepEqual(await app.page.evaluate(() => window.strata.overview(true)), cliAnalyze(paths, ['--gaps', '1000']));
  await app.page.evaluate(() => window.strata.overview(false));
  assert.deepEqual(await analyzeIn(app), cliAnalyze(paths));
});

test('a noise-only profile has no straggler', async () => {
  const app = await ctx.app();
  const paths = [files['noise-0'], files['noise-1'], files['noise-2']];
  await openAll(app, paths);
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#heatmap-canvas');
  const d = await analyzeIn(app);
  assert.equal(d.ranks.length, 3);
  assert.deepEqual(d.stragglers, []);
  assert.deepEqual(d, cliAnalyze(paths));
  const hm = await app.page.evaluate(() => window.strata.heatmap());
  assert.deepEqual(hm.rows.map((r) => r.straggler), [false, false, false]);
  assert.equal(await app.page.$('#overview-stragglers'), null);
  assert.equal(await app.page.textContent('.heatmap-stragglers'), 'no stragglers');
});

test('the heatmap of 256 ranks x 200 steps: every cell drawn for every figure, the straggler marked (its time: a diagnostic; the figure is tools/benchmarks/bench_heatmap.mjs)', async (t) => {
  const app = await ctx.app();
  await openAll(app, [files['noise-0'], files['noise-1']]);
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#heatmap-canvas');
  const R = 256;
  const S = 200;
  const r = await app.page.evaluate(({ an, R, S }) => {
    window.strata.heatmap(an); // once to warm up (the canvas sized, the code compiled)
    const first = window.strata.heatmap(an); // the analysis taken in, then drawn
    if (first.rows.length !== R || first.steps.length !== S) return { bad: [first.rows.length, first.steps.length] };
    const times = [first.draw_ms];
    for (const m of ['compute', 'idle', 'comm_wait', 'step', 'compute']) { // a redraw per figure
      const t0 = performance.now();
      window.strata.heatmap(m);
      times.push(performance.now() - t0);
    }
    const s = window.strata.heatmap();
    return { times, stragglers: s.rows.filter((x) => x.straggler).map((x) => x.name), cells: s.cells };
  }, { an: syntheticAnalysis(R, S), R, S });
  assert.ok(!r.bad, JSON.stringify(r));
  t.diagnostic(`draw ms: ${r.times.map((x) => x.toFixed(1)).join(', ')}`);
  assert.deepEqual(r.stragglers, ['rank 7']);
  assert.equal(r.cells, 256 * 200);
  assert.equal(r.times.length, 6); // the first draw and a redraw per figure all happened
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const origin = ctx.server.origin;
  assert.ok(ctx.requests.some((u) => u.endsWith('/overview.js')) && ctx.requests.some((u) => u.endsWith('/heatmap.js')));
  assert.ok(!ctx.requests.some((u) => /rank-\d|gaps\.json|hta__|xplane/.test(u)), 'no request names a file opened');
  const { bad, message } = privacyReport(ctx.requests, origin);
  assert.deepEqual(bad, [], message);
});
