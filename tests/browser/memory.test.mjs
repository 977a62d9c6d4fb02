// When the files do not fit in memory (issue 13 item 6): the page runs out of
// memory at a chosen point through a test hook (wasm/heap_budget.h: the
// app's allocations are counted and refused past a budget, as malloc does
// when the 4 GB wasm heap is full), so these tests need megabytes, not
// gigabytes. The budget is calibrated in the page itself: what a file costs
// once shown (model + level-of-detail index + view) is measured first; it
// applies from now on, or from when the view of the files starts being built
// (after their loads).
//  - one file whose model loads but whose level-of-detail index does not
//    fit: the message names that stage, the file, its events and bytes read
//    (no "at byte 0"), and the files shown before stay shown and usable;
//  - several files whose view together does not fit: the last is left out,
//    the others are shown, and the page says which file and why;
//  - a file that does not fit while it is read: skipped with where its read
//    stopped, the others shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, newApp, CAPTURE_MODULE } from './harness.mjs';

const ctx = useBrowser({ before, after });

// n slices without args on 4 threads of process `pid` (~70 bytes per event).
function leanTrace(n, pid) {
  const ev = [JSON.stringify({ ph: 'M', name: 'process_name', pid, tid: 1, args: { name: `proc${pid}` } })];
  for (let i = 0; i < n; i++) {
    ev.push(`{"ph":"X","name":"k${i % 64}","pid":${pid},"tid":${1 + (i % 4)},"ts":${Math.floor(i / 4) * 10},"dur":8}`);
  }
  return `{"traceEvents":[\n${ev.join(',\n')}\n]}\n`;
}

// Small traces with a step and an op each (with args), to check they stay usable.
function smallTrace(pid, only) {
  return JSON.stringify({ traceEvents: [
    { ph: 'M', name: 'process_name', pid, tid: 1, args: { name: `small${pid}` } },
    { ph: 'X', name: 'ProfilerStep#1', pid, tid: 1, ts: 0, dur: 1000, args: { step: 1 } },
    { ph: 'X', name: 'matmul', pid, tid: 1, ts: 100, dur: 300, args: { who: only } },
  ] });
}

let dir, f;
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-mem-'));
  f = {
    s1: path.join(dir, 'small-1.json'),
    s2: path.join(dir, 'small-2.json'),
    big: path.join(dir, 'big.json'),
    c1: path.join(dir, 'part-1.json'),
    c2: path.join(dir, 'part-2.json'),
    c3: path.join(dir, 'part-3.json'),
  };
  await fsp.writeFile(f.s1, smallTrace(1, 'only_1'));
  await fsp.writeFile(f.s2, smallTrace(2, 'only_2'));
  await fsp.writeFile(f.big, leanTrace(200_000, 9));
  for (const [k, pid] of [['c1', 11], ['c2', 12], ['c3', 13]]) await fsp.writeFile(f[k], leanTrace(100_000, pid));
});
after(async () => {
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

async function memApp(t) {
  const app = await newApp(ctx.browser, ctx.server);
  ctx.apps.push(app);
  t.after(() => app.close());
  await app.page.addInitScript(CAPTURE_MODULE);
  await app.goto();
  await app.ready();
  await app.demoLoaded();
  // count from now on, no limit yet
  await app.page.evaluate(() => window.__strataModule._st_wasm_test_heap_budget(-1, 0));
  return app;
}

// Chooses files in the real file input; the outcome event.
async function choose(app, list) {
  const n = await app.eventCount();
  await app.page.setInputFiles('#file-input', list);
  return app.nextOutcome(n);
}

async function chooseOk(app, list) {
  const ev = await choose(app, list);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  return ev.detail;
}

// more: the bytes allowed on top of those counted now (< 0: no limit); atView:
// on top of those counted when the next batch's view starts being built.
const budget = (app, more, atView = 0) =>
  app.page.evaluate(([m, v]) => window.__strataModule._st_wasm_test_heap_budget(m, v), [more, atView]);
const live = (app) => budget(app, -1); // the bytes counted now (and no limit)
const banner = (app) => app.page.evaluate(() => {
  const e = document.getElementById('error');
  return e && !e.hidden ? e.textContent : '';
});
const traces = (app) => app.page.evaluate(() => window.strata.traces());

// What `file` costs once shown alone (its model, index and view: the bytes
// the hook counts, over those counted with the two small files shown, which
// are mostly the app's own: the count starts with the app), and its stats;
// the two small files are shown after it.
async function costOf(app, file) {
  await chooseOk(app, [f.s1, f.s2]);
  const small = await live(app);
  const stats = await chooseOk(app, [file]);
  const cost = (await live(app)) - small; // the small files were closed when it was shown
  await chooseOk(app, [f.s1, f.s2]);
  assert.ok(cost > 2 * small, `the file costs much more than the app with the small ones: ${cost} vs ${small}`);
  return { cost, stats };
}

// The small files are shown and usable: search, select with Enter, the details
// pane and the selected event's args read from its file.
async function assertSmallUsable(app) {
  assert.deepEqual((await traces(app)).map((x) => x.name), ['small-1.json', 'small-2.json']);
  assert.equal(await app.page.locator('#trace-name').textContent(), '2 traces');
  assert.equal(await app.page.evaluate(() => window.strata.search('matmul').matches), 2);
  assert.equal(await app.page.evaluate(() => window.strata.search('only_2', { args: true }).then((r) => r.matches)), 1);
  await app.page.evaluate(() => window.strata.search('only_2', { args: true }));
  await app.page.locator('#search').press('Enter');
  await app.page.waitForFunction(() => /only_2/.test(document.getElementById('details').textContent), null, { timeout: 120_000 });
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.equal(sel.length, 1);
  assert.equal(sel[0].name, 'matmul');
  assert.deepEqual(sel[0].args, { who: 'only_2' }, 'args read from small-2.json');
  const shot = await app.timelineShot('memory-small-usable');
  assert.ok(shot.analysis.distinctColors >= 2 && shot.analysis.nonBackgroundFraction > 0.001, 'the timeline is drawn');
}

test('one file whose level-of-detail index does not fit: the message names that stage and how far the load got; the files shown stay usable', async (t) => {
  const app = await memApp(t);
  const { cost, stats } = await costOf(app, f.big);
  const before = await traces(app);
  // its load fits, then the heap is full but for a tenth of what it costs
  // (its level-of-detail index alone needs more)
  await budget(app, Math.round(cost * 0.1), 1);
  const ev = await choose(app, [f.big]);
  await budget(app, -1);
  assert.equal(ev.type, 'strata:error', JSON.stringify(ev));
  const want = `out of memory building the level-of-detail index for big.json (after its ${stats.events.toLocaleString('en-US')} ` +
    `events, ${(stats.bytes_in / 1e6).toFixed(1)} MB read)`;
  assert.equal(ev.detail, want);
  assert.doesNotMatch(ev.detail, /byte/);
  assert.equal(await banner(app), want, 'the page shows it');
  assert.deepEqual(await traces(app), before, 'the files shown before stay, with the same handles');
  await assertSmallUsable(app);
  // and with the memory back, the file opens
  assert.equal((await chooseOk(app, [f.big])).events, stats.events);
  assert.deepEqual(app.pageErrors, []);
});

test('several files whose view together does not fit: the last is left out, the others are shown, and the page says which and why', async (t) => {
  const app = await memApp(t);
  const { cost, stats } = await costOf(app, f.c1);
  // the three load; then the heap is full but for half of what one costs: the
  // view of the three needs their three indexes (each ~1/3 of a file's cost),
  // the view of two less than the third file's model and index give back
  await budget(app, Math.round(cost * 0.5), 1);
  const ev = await choose(app, [f.c1, f.c2, f.c3]);
  await budget(app, -1);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  assert.deepEqual((await traces(app)).map((x) => x.name), ['part-1.json', 'part-2.json']);
  assert.equal(ev.detail.events, 2 * stats.events, 'the stats are those of the files shown');
  assert.equal(ev.detail.traces.length, 2);
  const why = `part-3.json: not shown: out of memory building the level-of-detail index of 3 files together ` +
    `(after its ${stats.events.toLocaleString('en-US')} events, ${(stats.bytes_in / 1e6).toFixed(1)} MB read)`;
  assert.equal(await banner(app), `Skipped 1 of 3 files: ${why}`);
  assert.equal(await app.page.locator('#trace-name').textContent(), '2 traces');
  assert.equal(await app.page.evaluate(() => window.strata.search('k7').matches), 2 * (100_000 / 64 | 0) + 2);
  assert.deepEqual(app.pageErrors, []);
});

test('a file that does not fit while it is read: skipped with where its read stopped, the others shown', async (t) => {
  const app = await memApp(t);
  const { cost, stats } = await costOf(app, f.big);
  await budget(app, Math.round(cost * 0.3));
  const ev = await choose(app, [f.s1, f.big, f.s2]);
  await budget(app, -1);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  const text = await banner(app);
  const m = /^Skipped 1 of 3 files: big\.json: out of memory.*\(at byte (\d+)/.exec(text);
  assert.ok(m, `the banner names the file and the byte its read stopped at: ${text}`);
  const at = Number(m[1]);
  assert.ok(at > 0 && at < stats.bytes_in, `stopped part-way through its ${stats.bytes_in} bytes: ${at}`);
  await assertSmallUsable(app);
  assert.deepEqual(app.pageErrors, []);
});

test('side by side without the memory for its second pane: the page says so and stays stacked; with the memory back, c opens it', async (t) => {
  const app = await memApp(t);
  await chooseOk(app, [f.s1, f.s2]);
  const layout = () => app.page.evaluate(() => window.strata.compareLayout());
  assert.equal(await layout(), 'stacked');
  await budget(app, 256); // the second pane's view needs far more
  await app.page.locator('#layout-button').click();
  await budget(app, -1);
  assert.equal(await layout(), 'stacked', 'no half-made second pane');
  assert.match(await banner(app), /^Side by side: out of memory for the second pane \(the view stays stacked/);
  assert.equal(await app.page.locator('#layout-button').textContent(), 'Side by side');
  await assertSmallUsable(app);
  await app.page.locator('#canvas').focus();
  await app.page.keyboard.press('c');
  assert.equal(await layout(), 'side');
  assert.equal(await app.page.locator('#layout-button').textContent(), 'Stacked');
  assert.deepEqual(app.pageErrors, []);
});
