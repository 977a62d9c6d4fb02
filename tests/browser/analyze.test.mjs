// Answers in the page (issue 18, part 1): window.strata.analyze() returns
// what `strata analyze FILE... --json` prints for the files open (generated
// ranks, a corpus Kineto trace and an XProf profile), the overview panel
// driven as a user drives it (files opened through the file input, the
// Overview button, figures clicked: the longest step, the largest idle gap
// of a planted-gap trace, an op's instances), "Use as step" in an event's
// details, and the ranks x steps heatmap: a slow rank marked as the
// straggler and a noise-only profile with none, a click on a cell zooming
// to that rank's step, and 256 ranks x 200 steps drawn whole for every
// figure (how fast: tools/benchmarks/bench_heatmap.mjs); the overview of a
// 1e6-event trace opened from the analysis made ahead (a counter of
// analyses made; how fast: tools/benchmarks/bench_page.mjs --overview).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, newApp, CAPTURE_MODULE, privacyReport, CLI, CORPUS, corpusMissing, syntheticAnalysis } from './harness.mjs';

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
  // events of every kind (issue 29), the generator's truth in "strataGenKinds"
  gen('kinds', ['--kinds', '--rank', '0']);
  // honest empties: no steps; and steps where a device works in one of four,
  // with communication under 1 % of the range
  const ev = (name, cat, pid, tid, ts, dur) => ({ ph: 'X', name, cat, pid, tid, ts, dur });
  const meta = [
    { ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: 'trainer' } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: 'python' } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 7, args: { name: 'stream 7 ' } },
    { ph: 'M', name: 'process_name', pid: 2, tid: 0, args: { name: 'trainer' } },
    { ph: 'M', name: 'thread_name', pid: 2, tid: 9, args: { name: 'stream 9 ' } },
  ];
  const work = [];
  for (let k = 0; k < 4; k++) {
    work.push(ev(`ProfilerStep#${k + 1}`, 'user_annotation', 1, 1, k * 1000, 1000));
    work.push(ev('aten::mm', 'cpu_op', 1, 1, k * 1000 + 10, 100));
    work.push(ev('gemm', 'kernel', 1, 7, k * 1000 + 20, 900));
    work.push(ev('ncclKernel_AllReduce', 'kernel', 1, 7, k * 1000 + 930, 5));
  }
  work.push(ev('Memcpy HtoD', 'gpu_memcpy', 2, 9, 100, 50));
  files.sparse = path.join(dir, 'sparse.json');
  fs.writeFileSync(files.sparse, JSON.stringify({ traceEvents: [...meta, ...work] }));
  files.nosteps = path.join(dir, 'nosteps.json');
  fs.writeFileSync(files.nosteps, JSON.stringify({ traceEvents: [...meta, ...work.filter((e) => !e.name.startsWith('ProfilerStep'))] }));
});
after(async () => {
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

// The CLI's JSON for the same files, "file" named as the page names it (the
// file's name, not its path) and without analyze_ms / analyze_cpu_ms (the time it took),
// the efficiency (issue 33) nor the collectives (issue 32: the page's are
// window.strata.collectives(), tests/browser/collectives.test.mjs).
function cliAnalyze(paths, extra = []) {
  const out = JSON.parse(execFileSync(CLI, ['analyze', ...paths, '--json', ...extra], { maxBuffer: 1 << 28 }).toString());
  delete out.analyze_ms;
  delete out.analyze_cpu_ms;
  delete out.efficiency; // the page's is strata.efficiency() (args read asynchronously): roofline.test.mjs
  for (const k of ['collectives', 'clock_offsets', 'unaligned', 'critical_path', 'what_if', 'collectives_summary', 'waits']) delete out[k];
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
// The heatmap's figure that separates the ranks most, from an analysis JSON
// (web/guide/overview.md, the heatmap): per figure and rank the median over its steps of the
// mean over its devices; over the ranks med, MAD; score = the largest
// (v - med) / max(1.4826 MAD, 0.02 |med|, 1e-9); the highest score wins.
function separating(an) {
  const med = (v) => { const a = [...v].sort((x, y) => x - y); const n = a.length; return n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2; };
  const fig = {
    step: (k) => an.steps.filter((s) => s.trace === k).map((s) => s.wall_us),
    compute: (k) => byStep(k, (p) => p.compute_us),
    idle: (k) => byStep(k, (p) => p.idle_us),
    comm_wait: (k) => byStep(k, (p) => p.comm_us * (1 - (p.overlap_pct ?? 0) / 100)),
  };
  function byStep(k, f) {
    const by = new Map();
    for (const p of an.per_step.filter((q) => q.trace === k)) by.set(p.step, [...(by.get(p.step) || []), f(p)]);
    return [...by.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
  }
  let best = null;
  for (const [m, f] of Object.entries(fig)) {
    const per = an.traces.map((_, k) => f(k)).filter((v) => v.length).map(med);
    if (per.length < 3) continue;
    const c = med(per);
    const scale = Math.max(1.4826 * med(per.map((x) => Math.abs(x - c))), 0.02 * Math.abs(c), 1e-9);
    const score = Math.max(...per.map((x) => (x - c) / scale));
    if (!best || score > best.score) best = { metric: m, score };
  }
  return best;
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
  // issue 29: the heatmap opens on the figure that separates the ranks most,
  // and says so (computed here from the CLI's JSON: per rank the median over
  // its steps, the largest (v - median) / max(1.4826 MAD, 2 % median))
  const best = separating(cli);
  assert.equal(hm.metric, best.metric, JSON.stringify(best));
  assert.equal(best.metric, 'compute'); // rank 2's compute is 1.5x
  assert.match(hm.why, new RegExp(`^showing compute: the figure that separates the ranks most \\(straggler score ${best.score.toFixed(1)}\\)$`));
  assert.equal(await app.page.textContent('#heatmap-why'), hm.why);
  const perTrace = (k) => { // the mean over rank k's devices of each step's compute
    const by = new Map();
    for (const p of cli.per_step.filter((q) => q.trace === k)) by.set(p.step, [...(by.get(p.step) || []), p.compute_us]);
    return [...by.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
  };
  const all = [0, 1, 2].flatMap(perTrace);
  assert.ok(Math.abs(hm.lo - Math.min(...all)) < 1e-6 && Math.abs(hm.hi - Math.max(...all)) < 1e-6, `${hm.lo} .. ${hm.hi}`);

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
  const step3 = perTrace(2)[2]; // rank 2's step 3 (steps 1..8 in order): its compute
  assert.ok(tip.includes('rank 2') && tip.includes('step 3') && tip.includes(`compute ${fmtUs(step3)}`), `${tip} vs ${step3}`);

  // a kernel, a host op: all its instances are selected
  for (const [table, key, i] of [['kernels', 'kernels', 0], ['kernels', 'kernels', 3], ['host-ops', 'host_ops', 0]]) {
    await app.page.click(`#overview-${table} tbody tr[data-op="${i}"] button`);
    const n = await app.page.evaluate(() => window.strata.selection().length);
    assert.equal(n, cli[key][i].count, `${key} ${cli[key][i].name}`);
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

// issue 29: the overview's first lines say why each device is idle (its idle
// causes, summing to its idle time); its tables of kernels, host ops and
// runtime calls hold each its kind only (the generator's truth), never a
// wrapper or an annotation; a click on a cause zooms to its largest gap and
// shades exactly its gaps (the CLI's --cause-gaps); HTA's idle split under them; long names are cut in the middle, whole on hover.
test('the overview says why each device is idle, and its top tables hold no wrapper or annotation', async () => {
  const app = await ctx.app();
  await openAll(app, [files.kinds]);
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#overview-causes p.cause-line');
  const cli = cliAnalyze([files.kinds], ['--gaps', '1000']);
  const truth = JSON.parse(fs.readFileSync(files.kinds, 'utf8')).strataGenKinds;
  // the causes, first in the panel, as the CLI's JSON has them
  const first = await app.page.$eval('#overview-body', (b) => b.firstElementChild.id);
  assert.equal(first, 'overview-causes');
  const lines = await app.page.$$eval('#overview-causes p.cause-line', (ps) => ps.map((p) => p.textContent));
  assert.equal(lines.length, cli.devices.length);
  cli.devices.forEach((v, i) => {
    const sum = v.idle_causes.reduce((a, c) => a + c.us, 0);
    assert.ok(Math.abs(sum - v.idle_us) < 1e-6, `${v.name}: causes ${sum} vs idle ${v.idle_us}`);
    const c0 = v.idle_causes[0];
    assert.equal(c0.what, 'cudaStreamSynchronize'); // the host waits for the device
    assert.ok(lines[i].startsWith(`${v.name} idle ${v.idle_pct.toFixed(1)} %: ${c0.pct.toFixed(0)} % of it while the host ran cudaStreamSynchronize (in block_until_ready), `), lines[i]);
    for (const c of v.idle_causes) assert.ok(lines[i].includes(`${c.pct.toFixed(0)} % `), `${lines[i]} lacks ${c.what}`);
  });
  // the tables: each its kind only, as the generator wrote them
  for (const [id, kind, key] of [['kernels', 'kernel', 'kernels'], ['host-ops', 'host', 'host_ops'], ['runtime', 'runtime', 'runtime']]) {
    const names = await app.page.$$eval(`#overview-${id} tbody tr td.name:first-child`, (tds) => tds.map((td) => td.title));
    assert.deepEqual(names, cli[key].map((o) => o.name), id);
    assert.ok(names.length > 0, id);
    for (const n of names) assert.equal(truth[n], kind, `${id}: ${n}`);
  }
  // a long kernel name: cut in the middle (its end kept), whole on hover
  const sm = await app.page.$$eval('#overview-kernels tbody tr td.name:first-child', (tds) => tds.map((td) => [td.textContent, td.title]).find(([, t]) => t.startsWith('sm80_')));
  assert.ok(sm && sm[0].length <= 60 && sm[0].includes('…') && sm[0].endsWith('tensor16x8x8') && sm[1].length > 100, JSON.stringify(sm));
  // under each device's causes, HTA's idle split of the same idle time, as the CLI's
  const splits = await app.page.$$eval('#overview-causes p.cause-split', (ps) => ps.map((p) => p.textContent));
  assert.equal(splits.length, cli.devices.length);
  cli.devices.forEach((v, i) => {
    const q = (x) => `${((x / v.idle_us) * 100).toFixed(0)} %`;
    const sp = v.idle_split;
    assert.equal(splits[i], `idle split (HTA): host wait ${q(sp.host_wait_us)}, kernel wait ${q(sp.kernel_wait_us)}, other ${q(sp.other_us)}`);
  });
  // a cause's click: its largest gap, padded by a quarter, in view; exactly
  // its gaps shaded on the device's rows (the CLI's --cause-gaps "gap_list")
  const cg = cliAnalyze([files.kinds], ['--gaps', '1000', '--cause-gaps']);
  const c0 = cli.devices[0].idle_causes[0];
  await app.page.click('#overview-causes p.cause-line[data-device="0"] button[data-cause="0"]');
  const v = await app.view();
  const origin = (await app.stats()).ts_min_us;
  const pad = (c0.gap_end_us - c0.gap_start_us) * 0.25;
  near(v.start_us, origin + c0.gap_start_us - pad, 'cause gap start');
  near(v.end_us, origin + c0.gap_end_us + pad, 'cause gap end');
  const causes = cg.devices[0].idle_causes;
  const allGaps = (await app.page.evaluate(() => window.strata.idleGaps())).gaps.filter((g) => g.device === cli.devices[0].name).length;
  let fewer = 0;
  for (let j = 0; j < causes.length; j++) {
    const f0 = (await app.frameStats()).frames;
    await app.page.click(`#overview-causes p.cause-line[data-device="0"] button[data-cause="${j}"]`);
    const got = await app.page.evaluate(() => window.strata.causeGaps());
    assert.deepEqual(got, { device: 0, cause: j, gaps: causes[j].gap_list }, causes[j].what);
    assert.equal(got.gaps.length, causes[j].gaps, causes[j].what);
    fewer += got.gaps.length < allGaps;
    await app.framesAfter(f0);
    assert.ok((await app.frameStats()).bands >= 1, `${causes[j].what}: its gaps shaded`);
  }
  assert.ok(fewer > 0, `some cause covers fewer gaps than the device's ${allGaps}`);
  // `g` brings every gap back in place of the cause's
  await app.page.locator('#canvas').focus();
  await app.page.keyboard.press('g');
  assert.equal(await app.page.evaluate(() => window.strata.causeGaps()), null);
  assert.equal((await app.page.evaluate(() => window.strata.idleGaps())).shown, true);
});

test('honest empties: no steps, "-" and how to set them; no colour where a figure means nothing', async () => {
  const app = await ctx.app();
  await openAll(app, [files.nosteps]);
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#overview-devices tbody tr');
  const cells = await app.page.$$eval('#overview-devices tbody tr', (trs) => trs.map((tr) => ['step_us', 'step_p50_us', 'step_p90_us'].map((k) => tr.querySelector(`td[data-fig="${k}"]`).textContent)));
  assert.deepEqual(cells, [['-', '-', '-'], ['-', '-', '-']]);
  assert.match(await app.page.textContent('#overview-no-steps'), /Use as step/);
  assert.match(await app.page.textContent('#overview-meta'), /no steps/);
  // steps: device 2 works in one step of four (idle without a colour), device
  // 1's communication is 20 us of 4000 (overlap without a colour)
  await openAll(app, [files.sparse]);
  await app.page.evaluate(() => window.strata.overview(true));
  await app.page.waitForSelector('#overview-devices tbody tr[data-device="1"]');
  const cli = cliAnalyze([files.sparse]);
  assert.deepEqual(cli.devices.map((v) => [v.steps, v.steps_with_work]), [[4, 4], [4, 1]]);
  const cls = await app.page.$$eval('#overview-devices tbody tr', (trs) => trs.map((tr) => ({
    idle: tr.querySelector('td[data-fig="idle_pct"] button').className,
    overlap: tr.querySelector('td[data-fig="overlap_pct"]').className,
    step: tr.querySelector('td[data-fig="step_us"]').textContent,
  })));
  assert.equal(cls[0].idle, 'fig good'); // 1 - 3.75 % idle: coloured
  assert.equal(cls[1].idle, 'fig'); // 98.75 % idle but work in 1 of 4 steps: no colour
  assert.equal(cls[0].overlap, ''); // comm 0.5 % of the range
  assert.notEqual(cls[0].step, '-');
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
// trace then lays it out without analysing again (the app's count of
// analyses made, a test-only export, does not move), the CLI's figures; the
// kept one is not stale after the file moved, after "use as step", after new
// files. How long `o` takes is tools/benchmarks/bench_page.mjs --overview's.
test('the overview of a 1e6 trace opens from the analysis made ahead, the CLI\'s, never stale', async () => {
  const big = path.join(dir, 'lean1e6.json');
  execFileSync(GEN, ['-n', '1e6', '--lean', '-o', big], { stdio: 'ignore' });
  const app = await newApp(ctx.browser, ctx.server, { allRequests: ctx.requests });
  ctx.apps.push(app);
  await app.page.addInitScript(CAPTURE_MODULE);
  await app.goto('');
  await app.ready();
  await openAll(app, [big]);
  const made = () => app.page.evaluate(() => window.__strataModule._st_wasm_test_analyses_made());
  // the analysis made ahead, in idle time after the first frame
  await app.page.waitForFunction(() => window.__strataModule._st_wasm_test_analyses_made() >= 1, null, { timeout: 120_000 });
  const ahead = await made();
  assert.equal(ahead, 1, 'one analysis made ahead');
  await app.page.evaluate(() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'o', bubbles: true })));
  assert.equal(await app.page.evaluate(() => document.getElementById('overview').hidden), false, 'the panel is open');
  assert.equal(await made(), ahead, '`o` answered from the kept analysis, none made');
  await app.page.evaluate(() => window.strata.analyze({ gaps: 999 })); // not kept: analysed now
  assert.equal(await made(), ahead + 1, 'another question: a fresh analysis');
  const one = cliAnalyze([big], ['--gaps', '1000']);
  assert.deepEqual(await app.page.evaluate(() => window.strata.overview(true)), one);
  const ops = await app.page.$$eval('#overview-kernels tbody tr td.name', (tds) => tds.filter((td) => td.querySelector('button')).map((td) => td.title));
  assert.deepEqual(ops, one.kernels.map((o) => o.name));
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
  const r = await app.page.evaluate(({ json, R, S }) => {
    const an = JSON.parse(json); // as text: the protocol's own copy of 100,000 objects took 12 s
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
  }, { json: JSON.stringify(syntheticAnalysis(R, S)), R, S });
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
