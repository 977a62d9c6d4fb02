// CPU samples and the flame graph (issue 12, item 4), driven with the real
// mouse: a V8 profile (Profile + ProfileChunk events, as Chrome writes them)
// opens with a sample row under its thread showing a marker per sample;
// a box drag over that row selects the samples of a time range; the
// "Flame graph" button shows their call tree (exact counts); a click on a
// frame selects the samples whose stack passes through it; the same panel
// builds the tree of nested slices for a selected slice; two files with
// samples opened together give one tree of both and each sample's own call
// stack (issue 13). Outcomes through
// window.strata (stats, selection, flameShown), the DOM (#flame, its node
// boxes, #tooltip) and screenshot pixels for the markers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { useBrowser, decodePng, saveArtifact, privacyReport, GUTTER_PX, AXIS_PX, CORPUS, CLI, DIST, corpusMissing } from './harness.mjs';

const ctx = useBrowser({ before, after });

// The profile: 200 samples, one every 100 us from BASE + 100, on pid 1 tid 10
// ("main"), written by the profiler thread tid 11 in two chunks. Stacks by
// sample index i: i % 4 == 0: (root) > main > work > leaf; 1, 2: (root) >
// main > work; 3: (root) > (idle) [i < 100] or (root) > main > io [i >= 100].
const BASE = 5_000_000;
const N = 200;
const stackOf = (i) => (i % 4 === 0 ? 4 : i % 4 < 3 ? 3 : i < 100 ? 5 : 6); // node ids below
const NODES = [
  { id: 1, callFrame: { functionName: '(root)' } },
  { id: 2, parent: 1, callFrame: { functionName: 'main', url: 'app.js' } },
  { id: 3, parent: 2, callFrame: { functionName: 'work', url: 'app.js' } },
  { id: 4, parent: 3, callFrame: { functionName: 'leaf', url: 'app.js' } },
  { id: 5, parent: 1, callFrame: { functionName: '(idle)' } },
  { id: 6, parent: 2, callFrame: { functionName: 'io', url: 'app.js' } },
];
const chunk = (from, to, nodes) => ({
  name: 'ProfileChunk', ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', id: '0x1', pid: 1, tid: 11,
  ts: BASE + to * 100,
  args: { data: { cpuProfile: { nodes, samples: Array.from({ length: to - from }, (_, k) => stackOf(from + k)) }, timeDeltas: Array(to - from).fill(100) } },
});
// slices on the same thread: step [0, 10000) > fwd [1000, 4000) > mm [2000, 3000); bwd [5000, 9000)
const X = (name, ts, dur) => ({ name, cat: 'c', ph: 'X', pid: 1, tid: 10, ts: BASE + ts, dur });
const TRACE = {
  traceEvents: [
    { name: 'process_name', ph: 'M', pid: 1, args: { name: 'renderer' } },
    { name: 'thread_name', ph: 'M', pid: 1, tid: 10, args: { name: 'main' } },
    X('step', 0, 20100), X('fwd', 1000, 3000), X('mm', 2000, 1000), X('bwd', 5000, 4000),
    { name: 'Profile', ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', id: '0x1', pid: 1, tid: 10, ts: BASE, args: { data: { startTime: BASE } } },
    chunk(0, 100, NODES.slice(0, 5)),
    chunk(100, N, NODES.slice(5)),
  ],
};
const sampleUs = (i) => BASE + 100 * (i + 1); // file time of sample i
// Layout (core/view/view.h): axis, section header 24, rows of 20 (3 slice depths), 4 px after a track.
const SAMPLE_ROW_Y = AXIS_PX + 24 + 3 * 20 + 4 + 10;
const SLICE_ROW_Y = AXIS_PX + 24 + 10; // depth 0: step

async function setup(trace = TRACE) {
  const app = await ctx.app();
  await app.demoLoaded();
  const r = await app.openBuffer(Buffer.from(JSON.stringify(trace)));
  assert.ok(r.ok, `open failed: ${r.message}`);
  const page = app.page;
  const box = await page.locator('#canvas').boundingBox();
  const tw = box.width - GUTTER_PX;
  const S = (expr, arg) => page.evaluate(expr, arg);
  const xOf = async (us) => {
    const v = await app.view();
    return box.x + GUTTER_PX + ((us - v.start_us) / (v.end_us - v.start_us)) * tw;
  };
  const frame = () => S(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  return { app, page, box, tw, S, xOf, frame };
}

const drag = async (page, from, to) => {
  await page.mouse.move(...from);
  await page.mouse.down();
  await page.mouse.move(...to, { steps: 8 });
  await page.mouse.up();
};

// The tree as [name, depth, total, self] rows (node 0 is "all").
const rowsOf = (d) => d.tree.nodes.map((n) => [n.name, n.depth, n.total, n.self]);

test('a V8 profile: sample markers under the thread, a range of them selected, their flame graph, a frame clicked', async (t) => {
  const { app, page, box, tw, S, xOf, frame } = await setup();
  t.after(() => app.close());
  const st = await app.stats();
  assert.equal(st.samples, N, 'every sample of the two chunks is read');
  assert.equal(st.stack_frames, 6);
  assert.ok(!st.warnings.some((w) => w.kind === 'skipped_phase'), JSON.stringify(st.warnings));
  // the page's stats say so too (Info)
  await page.click('#info-button');
  await page.waitForSelector('#trace-info', { state: 'visible' });
  assert.match(await page.locator('#trace-info-body').textContent(), /CPU samples200 \(6 stack frames\)/);
  await page.click('#trace-info-close');

  // the markers: the sample row is drawn across the profile's span, empty before it
  await frame();
  const rowShot = async () => decodePng(await page.screenshot({ clip: { x: box.x + GUTTER_PX, y: box.y + SAMPLE_ROW_Y - 6, width: tw, height: 12 } }));
  const img = await rowShot();
  const x0 = Math.ceil((await xOf(sampleUs(0))) - box.x - GUTTER_PX) + 2;
  const x1 = Math.floor((await xOf(sampleUs(N - 1))) - box.x - GUTTER_PX) - 2;
  const inked = (cx) => {
    for (let y = 0; y < img.height; y++) {
      const i = (y * img.width + cx) * 4;
      if (img.data[i] + img.data[i + 1] + img.data[i + 2] < 600) return true; // not the white background
    }
    return false;
  };
  let covered = 0;
  for (let cx = x0; cx <= x1; cx++) covered += inked(cx) ? 1 : 0;
  if (covered < 0.9 * (x1 - x0 + 1)) await saveArtifact('samples-row.png', await page.screenshot());
  assert.ok(covered >= 0.9 * (x1 - x0 + 1), `sample markers cover the profile's span: ${covered} of ${x1 - x0 + 1} columns`);

  // hovering a marker names its function (the leaf frame): sample 2 is "work"
  const hx = await xOf(sampleUs(2));
  await page.mouse.move(hx, box.y + SAMPLE_ROW_Y);
  await page.waitForFunction(() => !document.getElementById('tooltip').hidden);
  assert.match(await page.locator('#tooltip').textContent(), /work/);
  // a click on a marker: its details list the call stack, leaf first (sample 4: leaf)
  await page.mouse.click(await xOf(sampleUs(4)), box.y + SAMPLE_ROW_Y);
  await page.waitForFunction(() => !document.getElementById('details').hidden);
  assert.equal(await page.locator('#details h2').textContent(), 'leaf');
  assert.deepEqual(await page.locator('#details td.stack div').allTextContents(), ['leaf', 'work', 'main', '(root)']);
  await page.keyboard.press('Escape');

  // a box over the sample row from sample 40 to sample 119 (80 samples), zoomed in enough for exact edges
  await S((v) => window.strata.setView(v), { start_us: BASE, end_us: BASE + 25000 });
  const a = await xOf(sampleUs(40) - 50), b = await xOf(sampleUs(119) + 50);
  await drag(page, [a, box.y + SAMPLE_ROW_Y - 8], [b, box.y + SAMPLE_ROW_Y + 8]);
  const sel = await S(() => window.strata.selection());
  assert.equal(sel.length, 80, 'the 80 samples in the box');
  assert.ok(sel.every((e) => e.tid === 10), 'on the sampled thread (not the profiler thread)');

  // the flame graph of the selection, samples 40..119: i % 4 == 0: 20 leaf; 1, 2: 40 work;
  // 3: 15 (idle) (43..99) and 5 io (103..119)
  await page.click('#flame-button');
  await page.waitForFunction(() => !document.getElementById('flame').hidden);
  const d = await S(() => window.strata.flameShown());
  assert.equal(d.from, 'selection');
  assert.equal(d.tree.source, 'samples');
  assert.equal(d.tree.events, 80);
  assert.deepEqual(rowsOf(d), [
    ['all', 0, 80, 0], ['(root)', 1, 80, 0], ['main', 2, 65, 0], ['work', 3, 60, 40], ['leaf', 4, 20, 20],
    ['io', 3, 5, 5], ['(idle)', 2, 15, 15],
  ]);
  assert.equal(d.tree.nodes[3].total_ns, 60 * 100_000, 'time = samples x the 100 us interval');
  // names are boxes of text in the panel
  const labels = await page.locator('#flame-tree .flame-node').allTextContents();
  for (const name of ['main', 'work', 'leaf', 'io', '(idle)']) assert.ok(labels.includes(name), `a box for ${name}: ${labels}`);

  // a click on "work": the 60 samples through it are selected on the timeline
  const work = page.locator('#flame-tree .flame-node', { hasText: /^work$/ });
  const wb = await work.boundingBox();
  await page.mouse.click(wb.x + wb.width * 0.3, wb.y + wb.height / 2);
  const picked = await S(() => window.strata.selection());
  assert.equal(picked.length, 60);
  assert.deepEqual([...new Set(picked.map((e) => e.name))].sort(), ['leaf', 'work']);
  assert.ok(picked.every((e) => e.ts_us >= sampleUs(40) && e.ts_us <= sampleUs(119)), 'within the range');
  assert.match(await page.locator('#flame-info').textContent(), /60 samples selected/);
  assert.ok(await work.evaluate((e) => e.classList.contains('active')));
  // and "leaf" (one row deeper): 20
  const leaf = page.locator('#flame-tree .flame-node', { hasText: /^leaf$/ });
  const lb = await leaf.boundingBox();
  await page.mouse.click(lb.x + lb.width / 2, lb.y + lb.height / 2);
  assert.equal((await S(() => window.strata.selection())).length, 20);
  assert.deepEqual([...new Set((await S(() => window.strata.selection())).map((e) => e.name))], ['leaf']);
});

test('the flame graph of a selected slice: the call tree of its nesting; a frame clicked selects those slices', async (t) => {
  const { app, page, box, S, xOf } = await setup();
  t.after(() => app.close());
  await page.mouse.click(await xOf(BASE + 15000), box.y + SLICE_ROW_Y); // step (only it covers 15 ms)
  assert.deepEqual((await S(() => window.strata.selection())).map((e) => e.name), ['step']);
  await page.click('#flame-button');
  await page.waitForFunction(() => !document.getElementById('flame').hidden);
  const d = await S(() => window.strata.flameShown());
  assert.equal(d.tree.source, 'slices');
  assert.deepEqual(rowsOf(d), [
    ['all', 0, 20100000, 0], ['step', 1, 20100000, 13100000], ['bwd', 2, 4000000, 4000000],
    ['fwd', 2, 3000000, 2000000], ['mm', 3, 1000000, 1000000],
  ]);
  const fwd = page.locator('#flame-tree .flame-node', { hasText: /^fwd$/ });
  const fb = await fwd.boundingBox();
  await page.mouse.click(fb.x + fb.width / 2, fb.y + fb.height / 2);
  assert.deepEqual((await S(() => window.strata.selection())).map((e) => e.name), ['fwd']);
  // the samples button: the same selection has no samples -> an empty tree, said so
  await page.click('#flame-samples');
  const e = await S(() => window.strata.flameShown());
  assert.equal(e.tree.source, 'samples');
  assert.equal(e.tree.events, 0);
  assert.match(await page.locator('#flame-info').textContent(), /no samples/);
  await page.click('#flame-close');
  assert.ok(await page.locator('#flame').isHidden());
});

test('the corpus V8 profile (Chrome M86): 50,294 samples on CrRendererMain, its flame graph of the view', async (t) => {
  const file = path.join(CORPUS, 'lighthouse__cpu-profiler-m86.trace.json');
  const missing = corpusMissing(file);
  if (missing) return t.skip(missing);
  const app = await ctx.app();
  await app.demoLoaded();
  const r = await app.openBuffer(fs.readFileSync(file));
  assert.ok(r.ok, r.message);
  t.after(() => app.close());
  assert.equal((await app.stats()).samples, 50294);
  await app.page.click('#flame-button');
  await app.page.waitForFunction(() => !document.getElementById('flame').hidden);
  const d = await app.page.evaluate(() => window.strata.flameShown());
  assert.equal(d.from, 'window');
  assert.equal(d.tree.events, 50294);
  const byName = Object.fromEntries(d.tree.nodes.filter((n) => n.depth === 2).map((n) => [n.name, n.total]));
  assert.equal(byName['(idle)'], 17606);
  assert.equal(byName['(program)'], 111);
});

test('the flame graph of the view, narrowed to one thread with the thread menu (top-level samples + stackFrames)', async (t) => {
  // two threads: tid 1 "js" 6 samples (run > tick x4, run x2), tid 2 "worker" 3 samples (gc), 1 ms apart
  const sample = (tid, i, sf) => ({ pid: 7, tid, ts: BASE + 1000 * i, sf, weight: 1, cpu: 0, name: '' });
  const trace = {
    traceEvents: [
      { name: 'thread_name', ph: 'M', pid: 7, tid: 1, args: { name: 'js' } },
      { name: 'thread_name', ph: 'M', pid: 7, tid: 2, args: { name: 'worker' } },
      { name: 'boot', ph: 'X', pid: 7, tid: 1, ts: BASE, dur: 10 },
    ],
    samples: [...[2, 2, 2, 2, 1, 1].map((sf, i) => sample(1, i, sf)), ...[3, 3, 3].map((sf, i) => sample(2, i, sf))],
    stackFrames: { 1: { name: 'run' }, 2: { name: 'tick', parent: 1 }, 3: { name: 'gc' } },
  };
  const { app, page, S } = await setup(trace);
  t.after(() => app.close());
  assert.equal((await app.stats()).samples, 9);
  await page.click('#flame-button'); // nothing selected, no mark: the view
  await page.waitForFunction(() => !document.getElementById('flame').hidden);
  let d = await S(() => window.strata.flameShown());
  assert.equal(d.from, 'window');
  assert.deepEqual(rowsOf(d), [['all', 0, 9, 0], ['run', 1, 6, 2], ['tick', 2, 4, 4], ['gc', 1, 3, 3]]);
  assert.ok(await page.locator('#flame-thread').isVisible());
  assert.deepEqual(await page.locator('#flame-thread option').allTextContents(),
    ['all threads', 'js samples (pid 7, tid 1)', 'worker samples (pid 7, tid 2)']);
  await page.selectOption('#flame-thread', { label: 'worker samples (pid 7, tid 2)' });
  await page.waitForFunction(() => window.strata.flameShown()?.tree.events === 3);
  d = await S(() => window.strata.flameShown());
  assert.deepEqual(rowsOf(d), [['all', 0, 3, 0], ['gc', 1, 3, 3]]);
  assert.equal(d.tree.nodes[1].total_ns, 3 * 1_000_000, '1 ms interval');
  await page.selectOption('#flame-thread', { label: 'all threads' });
  await page.waitForFunction(() => window.strata.flameShown()?.tree.events === 9);
});

test('a standalone report (strata export) has the flame graph too', async (t) => {
  if (!fs.existsSync(CLI)) return t.skip(`native CLI not built (${CLI})`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-samples-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const src = path.join(dir, 'profile.json');
  const report = path.join(dir, 'report.html');
  fs.writeFileSync(src, JSON.stringify(TRACE));
  await promisify(execFile)(CLI, ['export', src, '-o', report, '--dist', DIST]);
  const context = await ctx.browser.newContext({ viewport: { width: 1200, height: 700 } });
  t.after(() => context.close());
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });
  await page.waitForFunction(() => { try { return window.strata.stats().samples === 200; } catch { return false; } }, null, { timeout: 120_000 });
  await page.click('#flame-button');
  await page.waitForFunction(() => !document.getElementById('flame').hidden);
  const d = await page.evaluate(() => window.strata.flameShown());
  assert.equal(d.tree.events, N);
  assert.ok(await page.locator('#flame-tree .flame-node', { hasText: /^work$/ }).isVisible());
  assert.deepEqual(errors, []);
});

// Two files with CPU samples opened together (the file picker, both selected):
// alpha.json samples 40 times every 100 us, (root) > main > alpha_work
// (> alpha_leaf every 4th); bravo.json 20 times every 200 us, (root) > main
// > bravo_work or (root) > (idle), alternately. Both start at BASE (absolute
// time: they line up). The flame graph of the view is one tree of both
// files' samples, stacks merged by name ((root) > main is one frame); a click
// on bravo_work selects bravo's samples; a sample of each file lists its own
// file's call stack in the details.
const v8File = (tag, pid, interval, nodes, stacks) => JSON.stringify({
  traceEvents: [
    { name: 'process_name', ph: 'M', pid, args: { name: `proc-${tag}` } },
    { name: 'thread_name', ph: 'M', pid, tid: 10, args: { name: 'main' } },
    { name: `${tag}_step`, cat: 'c', ph: 'X', pid, tid: 10, ts: BASE, dur: interval * (stacks.length + 1) },
    { name: 'Profile', ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', id: '0x1', pid, tid: 10, ts: BASE, args: { data: { startTime: BASE } } },
    { name: 'ProfileChunk', ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', id: '0x1', pid, tid: 11, ts: BASE + interval * stacks.length,
      args: { data: { cpuProfile: { nodes, samples: stacks }, timeDeltas: Array(stacks.length).fill(interval) } } },
  ],
});
const ALPHA = v8File('alpha', 1, 100, [
  { id: 1, callFrame: { functionName: '(root)' } },
  { id: 2, parent: 1, callFrame: { functionName: 'main' } },
  { id: 3, parent: 2, callFrame: { functionName: 'alpha_work' } },
  { id: 4, parent: 3, callFrame: { functionName: 'alpha_leaf' } },
], Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? 4 : 3)));
const BRAVO = v8File('bravo', 2, 200, [ // other node ids for the same names: each file's own frames
  { id: 7, callFrame: { functionName: '(root)' } },
  { id: 8, parent: 7, callFrame: { functionName: '(idle)' } },
  { id: 9, parent: 7, callFrame: { functionName: 'main' } },
  { id: 5, parent: 9, callFrame: { functionName: 'bravo_work' } },
], Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 5 : 8)));

// alpha.json and bravo.json opened together with the file picker.
async function openPair(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-samples2-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const files = [path.join(dir, 'alpha.json'), path.join(dir, 'bravo.json')];
  fs.writeFileSync(files[0], ALPHA);
  fs.writeFileSync(files[1], BRAVO);
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const n = await app.eventCount();
  await app.page.setInputFiles('#file-input', files);
  const ev = await app.nextOutcome(n);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  return app;
}

test('two files with samples: one flame graph of both (stacks merged by name), a frame of one file clicked, each sample\'s own call stack', async (t) => {
  const app = await openPair(t);
  const page = app.page;
  const S = (expr, arg) => page.evaluate(expr, arg);
  const st = await app.stats();
  assert.deepEqual(st.traces.map((x) => x.samples), [40, 20], 'each file\'s samples');
  const list = await S(() => window.strata.traces());
  assert.deepEqual(list.map((x) => x.offset_us), [0, 0], 'both start at BASE');

  // nothing selected: the Flame graph button shows the view's samples, both files'
  await page.click('#flame-button');
  await page.waitForFunction(() => !document.getElementById('flame').hidden);
  const d = await S(() => window.strata.flameShown());
  assert.equal(d.from, 'window');
  assert.equal(d.tree.source, 'samples', 'the merged view has samples');
  assert.equal(d.tree.events, 60);
  assert.deepEqual(rowsOf(d), [
    ['all', 0, 60, 0], ['(root)', 1, 60, 0], ['main', 2, 50, 0], ['alpha_work', 3, 40, 30],
    ['alpha_leaf', 4, 10, 10], ['bravo_work', 3, 10, 10], ['(idle)', 2, 10, 10],
  ]);
  assert.equal(d.tree.nodes[2].total_ns, 40 * 100_000 + 10 * 200_000, 'each file\'s own sampling interval');
  const labels = await page.locator('#flame-tree .flame-node').allTextContents();
  for (const name of ['main', 'alpha_work', 'alpha_leaf', 'bravo_work', '(idle)']) assert.ok(labels.includes(name), `a box for ${name}: ${labels}`);
  // the thread menu lists both files' sampled threads, each with its file; bravo's alone
  assert.deepEqual(await page.locator('#flame-thread option').allTextContents(), ['all threads',
    `main samples (${list[0].group}: pid 1, tid 10)`, `main samples (${list[1].group}: pid 2, tid 10)`]);
  await page.selectOption('#flame-thread', { label: `main samples (${list[1].group}: pid 2, tid 10)` });
  await page.waitForFunction(() => window.strata.flameShown()?.tree.events === 20);
  assert.deepEqual(rowsOf(await S(() => window.strata.flameShown())), [
    ['all', 0, 20, 0], ['(root)', 1, 20, 0], ['(idle)', 2, 10, 10], ['main', 2, 10, 0], ['bravo_work', 3, 10, 10],
  ]); // (idle) and main tie at 10: by name
  await page.selectOption('#flame-thread', { label: 'all threads' });
  await page.waitForFunction(() => window.strata.flameShown()?.tree.events === 60);

  // a click on bravo_work: bravo's 10 samples are selected on the timeline
  const bw = page.locator('#flame-tree .flame-node', { hasText: /^bravo_work$/ });
  const bb = await bw.boundingBox();
  await page.mouse.click(bb.x + bb.width / 2, bb.y + bb.height / 2);
  const picked = await S(() => window.strata.selection());
  assert.equal(picked.length, 10);
  assert.deepEqual([...new Set(picked.map((e) => e.name))], ['bravo_work']);
  assert.deepEqual([...new Set(picked.map((e) => e.file))], [list[1].group], 'from the second file');
  await page.click('#flame-close');
  await page.keyboard.press('Escape');

  // a sample of each file, clicked on its row: the details list that file's call stack
  await S((v) => window.strata.setView(v), { start_us: BASE, end_us: BASE + 2000 });
  const box = await page.locator('#canvas').boundingBox();
  const v = await app.view();
  const xOf = (us) => box.x + GUTTER_PX + ((us - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  const tracks = await S(() => window.strata.tracks());
  const rowY = (section) => {
    const tr = tracks.find((x) => x.section === section && /samples/.test(x.label));
    assert.ok(tr, `a samples row in ${section}: ${JSON.stringify(tracks)}`);
    return box.y + AXIS_PX + tr.y + 10 - v.scroll_y;
  };
  const stackOfClick = async (us, section) => {
    await page.mouse.click(xOf(us), rowY(section));
    await page.waitForFunction(() => !document.getElementById('details').hidden);
    return {
      name: await page.locator('#details h2').textContent(),
      stack: await page.locator('#details td.stack div').allTextContents(),
    };
  };
  assert.deepEqual(await stackOfClick(BASE + 200, 'proc-bravo'), // bravo's sample 0
    { name: 'bravo_work', stack: ['bravo_work', 'main', '(root)'] });
  assert.match(await page.locator('#details').textContent(), /bravo\.json/, 'the details name the file');
  assert.deepEqual(await stackOfClick(BASE + 100, 'proc-alpha'), // alpha's sample 0
    { name: 'alpha_leaf', stack: ['alpha_leaf', 'alpha_work', 'main', '(root)'] });
  assert.deepEqual(await stackOfClick(BASE + 400, 'proc-bravo'), // bravo's sample 1
    { name: '(idle)', stack: ['(idle)', '(root)'] });
  assert.deepEqual(app.pageErrors, []);
});

test('two files side by side: the flame graph of both, usable whichever pane the mouse was last over', async (t) => {
  const app = await openPair(t);
  const page = app.page;
  const S = (expr, arg) => page.evaluate(expr, arg);
  await page.locator('#layout-button').click();
  assert.equal(await S(() => window.strata.compareLayout()), 'side');
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.move(box.x + GUTTER_PX + 50, box.y + box.height - 30); // the left pane
  await page.click('#flame-button');
  await page.waitForFunction(() => !document.getElementById('flame').hidden);
  assert.equal((await S(() => window.strata.flameShown())).tree.events, 60, 'both files\' samples');
  // over the right pane (below the panel), then back to the panel: its frames still answer clicks
  await page.mouse.move(box.x + box.width / 2 + GUTTER_PX + 50, box.y + box.height - 30);
  const bw = page.locator('#flame-tree .flame-node', { hasText: /^bravo_work$/ });
  const bb = await bw.boundingBox();
  await page.mouse.click(bb.x + bb.width / 2, bb.y + bb.height / 2);
  const picked = await S(() => window.strata.selection());
  assert.equal(picked.length, 10);
  assert.deepEqual([...new Set(picked.map((e) => e.name))], ['bravo_work']);
  assert.match(await page.locator('#flame-info').textContent(), /10 samples selected/);
  assert.equal((await S(() => window.strata.flameShown())).tree.events, 60, 'the panel still shows its tree');
  assert.deepEqual(app.pageErrors, []);
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const { bad, message } = privacyReport(ctx.requests, ctx.server.origin);
  assert.deepEqual(bad, [], message);
});
