// Many files on one timeline (issue 13): the file picker with several files,
// a drop of several files, a drop of a profile folder (walked through real
// FileSystemEntry objects: CDP Input.dispatchDragEvent with a directory
// path, as the OS would drop it), ?url=A&url=B, postMessage buffers,
// window.strata.open([...]) / traces() / setOffset(), the clocks lining the
// files up, moving a file with alt+drag on its group header, the offsets in
// the link, and the details pane naming the file an event came from (args
// read from that file).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { useBrowser, startServer, decodePng, saveArtifact, DIST, GUTTER_PX, AXIS_PX } from './harness.mjs';

const ctx = useBrowser({ before, after });

// A rank's trace: absolute microseconds from t0 (epoch-like when t0 is big),
// one process, a step and two ops; `only` names an event only this file has.
function rankTrace(rank, t0, only) {
  const tag = rank ? 'bravo' : 'alpha'; // same length: both files' events sit at the same offsets
  const ev = [
    { ph: 'M', name: 'process_name', pid: 100 + rank, tid: 1, args: { name: `host${rank}` } },
    { ph: 'X', name: 'ProfilerStep#1', cat: 'step', pid: 100 + rank, tid: 1, ts: t0, dur: 1000, args: { rank, tag } },
    { ph: 'X', name: 'matmul', cat: 'op', pid: 100 + rank, tid: 1, ts: t0 + 100, dur: 300, args: { rank, k: 'mm', tag } },
    { ph: 'X', name: only, cat: 'op', pid: 100 + rank, tid: 1, ts: t0 + 500, dur: 200, args: { rank, who: only, tag } },
  ];
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

const T0 = 1.7e15; // us since the epoch: an absolute clock
let dir, files, server;
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-ws-'));
  files = {
    a: path.join(dir, 'rank-0.trace.json'),
    b: path.join(dir, 'rank-1.trace.json.gz'),
    junk: path.join(dir, 'notes.txt'),
  };
  await fsp.writeFile(files.a, rankTrace(0, T0, 'only_a'));
  await fsp.writeFile(files.b, zlib.gzipSync(rankTrace(1, T0 + 500, 'only_b'))); // starts 500 us later
  await fsp.writeFile(files.junk, 'these are notes, not a trace\n');
  // a profile folder: two ranks (one in a sub-folder) and a file to skip
  await fsp.mkdir(path.join(dir, 'profile', 'run', 'sub'), { recursive: true });
  await fsp.copyFile(files.a, path.join(dir, 'profile', 'run', 'rank-0.trace.json'));
  await fsp.copyFile(files.b, path.join(dir, 'profile', 'run', 'sub', 'rank-1.trace.json.gz'));
  await fsp.copyFile(files.junk, path.join(dir, 'profile', 'run', 'notes.txt'));
  // the page and the traces from one server (for ?url=)
  const site = path.join(dir, 'site');
  await fsp.cp(DIST, site, { recursive: true });
  await fsp.mkdir(path.join(site, 'traces'));
  await fsp.copyFile(files.a, path.join(site, 'traces', 'rank-0.trace.json'));
  await fsp.copyFile(files.b, path.join(site, 'traces', 'rank-1.trace.json.gz'));
  server = await startServer({ root: site, prefix: '/' });
});
after(async () => {
  await server?.close();
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

// Two ranks merged: the stats hold each file's own numbers and their sums,
// traces() lists them in order, the clocks put rank 1 500 us after rank 0.
async function assertTwoRanks(app, names = ['rank-0.trace.json', 'rank-1.trace.json.gz']) {
  const s = await app.stats();
  assert.ok(Array.isArray(s.traces), `stats().traces is a list: ${JSON.stringify(s).slice(0, 300)}`);
  assert.equal(s.traces.length, 2);
  assert.deepEqual(s.traces.map((x) => x.events), [4, 4], 'each file\'s own event count');
  assert.equal(s.events, 8, 'the total is their sum');
  assert.equal(s.processes, 2);
  assert.deepEqual(s.traces.map((x) => !!x.compressed), [false, true]);
  const list = await app.page.evaluate(() => window.strata.traces());
  assert.deepEqual(list.map((t) => t.name), names);
  assert.deepEqual(list.map((t) => t.events), [4, 4]);
  assert.deepEqual(list.map((t) => t.offset_us), [0, 500], 'absolute clocks line the files up');
  assert.ok(list.every((t) => Number.isInteger(t.handle) && t.handle > 0), 'handles');
  return list;
}

test('file picker with several files: one timeline, a group per file, stats per file and in total', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const n = await app.eventCount();
  await app.page.setInputFiles('#file-input', [files.a, files.b]);
  const ev = await app.nextOutcome(n);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  await assertTwoRanks(app);
  assert.equal(await app.page.locator('#trace-name').textContent(), '2 traces');
  const box = await app.page.locator('#canvas').boundingBox();
  const hoverAt = async (x, y) => {
    await app.page.mouse.move(box.x + x, box.y + y);
    return app.page.evaluate(() => getComputedStyle(document.getElementById('canvas')).cursor);
  };
  assert.equal(await hoverAt(40, AXIS_PX + 13), 'pointer', 'the group header is clickable');
  assert.deepEqual(app.pageErrors, []);
});

test('drop several files: the traces open together, the file that is not a trace is listed as skipped', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const n = await app.eventCount();
  const payload = [files.a, files.b, files.junk].map((p) => ({ name: path.basename(p), b64: fs.readFileSync(p).toString('base64') }));
  await app.page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of list) {
      const bin = atob(b64);
      const u8 = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      dt.items.add(new File([u8], name));
    }
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt, clientX: 400, clientY: 300 }));
    }
  }, payload);
  const ev = await app.nextOutcome(n);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  await assertTwoRanks(app);
  const err = await app.page.locator('#error').textContent();
  assert.match(err, /Skipped 1 of 3 files/);
  assert.match(err, /notes\.txt/);
});

test('drop a profile folder (real directory entries): every trace in it, sub-folders too; the rest skipped and named', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const n = await app.eventCount();
  const cdp = await app.page.context().newCDPSession(app.page);
  const data = { items: [], files: [path.join(dir, 'profile', 'run')], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) {
    await cdp.send('Input.dispatchDragEvent', { type, x: 400, y: 300, data });
  }
  const ev = await app.nextOutcome(n);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  // sorted by path: run/rank-0..., run/sub/rank-1...
  await assertTwoRanks(app);
  const err = await app.page.locator('#error').textContent();
  assert.match(err, /Skipped 1 of 3 files: notes\.txt/);
});

test('?url=A&url=B opens both on one timeline; the offsets go into the link and a reopened link restores them', async (t) => {
  const app = await ctx.app({ server, query: '?url=traces/rank-0.trace.json&url=traces/rank-1.trace.json.gz' });
  t.after(() => app.close());
  await app.page.waitForFunction(() => window.strata.traces().length === 2, null, { timeout: 120_000 });
  const list = await assertTwoRanks(app);
  // move rank 1 to 1500 us (typed offset)
  const after = await app.page.evaluate((h) => window.strata.setOffset(h, 1500), list[1].handle);
  assert.deepEqual(after.map((x) => x.offset_us), [0, 1500]);
  // select rank 1's only_b (global rows: the link names it across files)
  await app.page.evaluate(() => window.strata.search('only_b'));
  await app.page.locator('#search').press('Enter');
  await app.page.waitForFunction(() => /&off=0,1500/.test(location.hash) && /&sel=\d+:\d+/.test(location.hash), null, { timeout: 120_000 });
  const hash = await app.page.evaluate(() => location.hash);
  // a stale handle fails
  await assert.rejects(app.page.evaluate(() => window.strata.setOffset(123456, 10)), /setOffset/);
  // so do numbers that are no handle, checked once where they enter the wasm (wasm/api.c
  // st_wasm_handle): h + 2^32 is h in 32 bits, h + 0.5 truncates to h; nothing moves
  const h1 = list[1].handle;
  for (const bad of [h1 + 2 ** 32, h1 + 0.5, -h1, NaN, 0]) {
    await assert.rejects(app.page.evaluate((x) => window.strata.setOffset(x, 10), bad), /setOffset/, String(bad));
  }
  assert.deepEqual((await app.page.evaluate(() => window.strata.traces())).map((x) => x.offset_us), [0, 1500]);
  const again = await ctx.app({ server, query: `?url=traces/rank-0.trace.json&url=traces/rank-1.trace.json.gz${hash}` });
  t.after(() => again.close());
  await again.page.waitForFunction(() => window.strata.traces().length === 2, null, { timeout: 120_000 });
  await again.page.waitForFunction(() => window.strata.traces()[1].offset_us === 1500, null, { timeout: 120_000 });
  const sel = await again.page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file]), [['only_b', 'rank-1']], 'the link selects the same event');
  const view = await again.page.evaluate(() => window.strata.view());
  const want = /t=([\d.e+-]+),([\d.e+-]+)/.exec(hash);
  assert.ok(Math.abs(view.start_us - Number(want[1])) < 1 && Math.abs(view.end_us - Number(want[2])) < 1, 'the view too');
});

test('alt+drag on a file\'s group header moves that file in time', async (t) => {
  const app = await ctx.app({ server, query: '?url=traces/rank-0.trace.json&url=traces/rank-1.trace.json.gz' });
  t.after(() => app.close());
  await app.page.waitForFunction(() => window.strata.traces().length === 2, null, { timeout: 120_000 });
  await assertTwoRanks(app);
  // collapse the first file (click its header): the second file's header is then right below
  const box = await app.page.locator('#canvas').boundingBox();
  await app.page.mouse.click(box.x + 60, box.y + AXIS_PX + 13);
  const v = await app.page.evaluate(() => window.strata.view());
  const nsPerPx = ((v.end_us - v.start_us) * 1000) / (box.width - GUTTER_PX);
  const y = box.y + AXIS_PX + 26 + 13;
  await app.page.keyboard.down('Alt');
  await app.page.mouse.move(box.x + 600, y);
  await app.page.mouse.down();
  await app.page.mouse.move(box.x + 650, y, { steps: 5 });
  await app.page.mouse.move(box.x + 700, y, { steps: 5 });
  await app.page.mouse.up();
  await app.page.keyboard.up('Alt');
  const list = await app.page.evaluate(() => window.strata.traces());
  const moved = list[1].offset_us - 500;
  assert.ok(Math.abs(moved - (100 * nsPerPx) / 1000) < 0.02 * (100 * nsPerPx) / 1000 + 0.01,
    `rank 1 moved by 100 px = ${(100 * nsPerPx) / 1000} us (moved ${moved})`);
  assert.equal(list[0].offset_us, 0, 'the other file stays');
});

test('postMessage {strata: {buffers: [...]}} and open([...]): merged, and the details pane names the file (args from that file)', async (t) => {
  const app = await ctx.app({ server, query: '?embed=1' });
  t.after(() => app.close());
  const n = await app.eventCount();
  const bufs = [files.a, files.b].map((p) => ({ name: path.basename(p), b64: fs.readFileSync(p).toString('base64') }));
  await app.page.evaluate((list) => {
    const buffers = list.map(({ name, b64 }) => {
      const bin = atob(b64);
      const u8 = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      return { buffer: u8.buffer, name };
    });
    window.postMessage({ strata: { buffers } }, '*', buffers.map((b) => b.buffer));
  }, bufs);
  const ev = await app.nextOutcome(n);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  await assertTwoRanks(app);
  // search across both files, then step to the event only the second file has
  const found = await app.page.evaluate(() => window.strata.search('only_b'));
  assert.equal(found.matches, 1);
  await app.page.locator('#search').press('Enter');
  await app.page.waitForFunction(() => /only_b/.test(document.getElementById('details').textContent) &&
    /who/.test(document.getElementById('details').textContent), null, { timeout: 120_000 });
  const details = await app.page.locator('#details').textContent();
  assert.match(details, /filerank-1\.trace\.json\.gz/, 'the details name the file');
  assert.match(details, /only_b/);
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.equal(sel.length, 1);
  assert.equal(sel[0].file, 'rank-1');
  assert.deepEqual(sel[0].args, { rank: 1, who: 'only_b', tag: 'bravo' }, 'args read from the second file');
  // open([...]) resolves with the merged stats
  const s = await app.page.evaluate(async (list) => {
    const u8s = list.map(({ b64 }) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
    const r = await window.strata.open(u8s, { names: list.map((x) => x.name) });
    return { events: r.events, traces: r.traces.map((x) => x.events) };
  }, bufs);
  assert.deepEqual(s, { events: 8, traces: [4, 4] });
});

test('Align: ctrl+click one event in each file, then Align: the files line up on them', async (t) => {
  const app = await ctx.app({ server, query: '?url=traces/rank-0.trace.json&url=traces/rank-1.trace.json.gz' });
  t.after(() => app.close());
  await app.page.waitForFunction(() => window.strata.traces().length === 2, null, { timeout: 120_000 });
  await assertTwoRanks(app);
  assert.equal(await app.page.locator('#align-button').isVisible(), true, 'Align is offered with several files');
  const box = await app.page.locator('#canvas').boundingBox();
  const v = await app.page.evaluate(() => window.strata.view());
  const t0 = v.start_us - 1.7e15; // rank 0's file time is scene time + 1.7e15 us
  const xOf = (sceneUs) => box.x + GUTTER_PX + ((sceneUs - t0) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  // rows: group 0 (26), hostA (24), its step row; rank 1 below: its depth-1 row,
  // a gap, group 1 (26), hostB (24), its step row
  const yA = box.y + AXIS_PX + 26 + 24 + 10;
  const yB = box.y + AXIS_PX + 26 + 24 + 20 + 20 + 4 + 26 + 24 + 10;
  await app.page.mouse.click(xOf(900), yA); // rank 0's ProfilerStep#1 [0, 1000)
  await app.page.keyboard.down('Control');
  await app.page.mouse.click(xOf(1400), yB); // ctrl+click: rank 1's [500, 1500)
  await app.page.keyboard.up('Control');
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file]), [['ProfilerStep#1', 'rank-0'], ['ProfilerStep#1', 'rank-1']]);
  await app.page.locator('#align-button').click();
  const list = await app.page.evaluate(() => window.strata.traces());
  assert.deepEqual(list.map((x) => x.offset_us), [0, 0], 'rank 1 moved 500 us earlier: both steps start together');
  // with nothing selected in two files, Align says what to do
  await app.page.keyboard.press('Escape');
  await app.page.locator('#align-button').click();
  assert.match(await app.page.locator('#error').textContent(), /select one event in at least two files/);
});

test('Info: one block per file, and a typed offset moves that file', async (t) => {
  const app = await ctx.app({ server, query: '?url=traces/rank-0.trace.json&url=traces/rank-1.trace.json.gz' });
  t.after(() => app.close());
  await app.page.waitForFunction(() => window.strata.traces().length === 2, null, { timeout: 120_000 });
  await app.page.locator('#info-button').click();
  const blocks = app.page.locator('#trace-info .trace-block');
  assert.equal(await blocks.count(), 2);
  assert.deepEqual(await app.page.locator('#trace-info .trace-block-title').allTextContents(), ['rank-0', 'rank-1']);
  assert.match(await blocks.nth(1).textContent(), /rank-1\.trace\.json\.gz.*chrome-json \(gzip\)/s);
  const input = blocks.nth(1).locator('input.offset-input');
  assert.equal(await input.inputValue(), '500');
  await input.fill('250');
  await input.press('Enter');
  await app.page.waitForFunction(() => window.strata.traces()[1].offset_us === 250, null, { timeout: 120_000 });
});

test('Save HTML with several files holds every file; the saved page opens them on one timeline', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const n = await app.eventCount();
  await app.page.setInputFiles('#file-input', [files.a, files.b]);
  assert.equal((await app.nextOutcome(n)).type, 'strata:loaded');
  await app.page.waitForFunction(() => !document.getElementById('save-html').disabled);
  const [dl] = await Promise.all([app.page.waitForEvent('download'), app.page.locator('#save-html').click()]);
  const saved = path.join(dir, 'two.strata.html');
  await dl.saveAs(saved);
  const html = await fsp.readFile(saved, 'utf8');
  assert.equal((html.match(/<script type="application\/octet-stream" id="strata-trace(-\d+)?" class="strata-trace"/g) || []).length, 2);
  const context = await ctx.browser.newContext();
  t.after(() => context.close());
  const page = await context.newPage();
  await page.goto(`file://${saved}`);
  await page.waitForFunction(() => window.strata && window.strata.traces().length === 2, null, { timeout: 120_000 });
  const got = await page.evaluate(() => ({ list: window.strata.traces(), s: window.strata.stats() }));
  assert.deepEqual(got.list.map((x) => [x.name, x.events, x.offset_us]), [['rank-0.trace.json', 4, 0], ['rank-1.trace.json.gz', 4, 500]]);
  assert.deepEqual(got.s.traces.map((x) => x.events), [4, 4]);
});

test('search in args across files: each file\'s pass marks its own events only', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const n = await app.eventCount();
  await app.page.setInputFiles('#file-input', [files.a, files.b]);
  assert.equal((await app.nextOutcome(n)).type, 'strata:loaded');
  // the two files have the same layout, so their events sit at the same byte
  // offsets: a hit in rank 1's args must not mark rank 0's event at that offset
  const r = await app.page.evaluate(() => window.strata.search('bravo', { args: true }));
  assert.equal(r.matches, 3, 'rank 1\'s three events (step, matmul, only_b), none of rank 0\'s');
  await app.page.locator('#search').press('Enter');
  await app.page.waitForFunction(() => window.strata.selection().length === 1);
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.equal(sel[0].file, 'rank-1');
  const r0 = await app.page.evaluate(() => window.strata.search('mm', { args: true }));
  assert.equal(r0.matches, 2, 'matmul in both files');
});

test('side by side: "in args" search marks the matches in both panes; Enter steps through both files; the other pane follows', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const n = await app.eventCount();
  await app.page.setInputFiles('#file-input', [files.a, files.b]);
  assert.equal((await app.nextOutcome(n)).type, 'strata:loaded');
  const page = app.page;
  await page.locator('#layout-button').click();
  assert.equal(await page.evaluate(() => window.strata.compareLayout()), 'side');
  const box = await page.locator('#canvas').boundingBox();
  const half = box.width / 2;
  // scene us -> page x in a pane (both panes show the same window); rows: group header 26, section 24
  const xOf = (v, pane, sceneUs) => box.x + pane * half + GUTTER_PX + ((sceneUs - (v.start_us - T0)) / (v.end_us - v.start_us)) * (half - GUTTER_PX);
  const yDepth = (d) => box.y + AXIS_PX + 26 + 24 + d * 20 + 4; // near a box's top: clear of its label
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  // the right pane (rank 1, scene +500): matmul [600, 900) at depth 1 matches "mm" by its args;
  // its step [500, 1500) at depth 0, at 950 (nothing under it), does not
  const colours = async () => {
    await frame();
    const v = await page.evaluate(() => window.strata.view());
    const img = decodePng(await page.screenshot());
    const px = (x, y) => { const i = (Math.round(y) * img.width + Math.round(x)) * 4; return [img.data[i], img.data[i + 1], img.data[i + 2]]; };
    return { img, matmul: px(xOf(v, 1, 750), yDepth(1)), step: px(xOf(v, 1, 950), yDepth(0)), leftStep: px(xOf(v, 0, 800), yDepth(0)) };
  };
  const before = await colours();
  // type in the box, tick "in args", press Enter: the pass runs over both files, then steps to the first match
  await page.locator('#search').click();
  await page.keyboard.type('mm');
  await page.locator('#search-args').check();
  await page.locator('#search').press('Enter');
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '1 of 2', null, { timeout: 120_000 });
  let sel = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file]), [['matmul', 'rank-0']], 'the first match in time: rank 0\'s matmul');
  const after = await colours();
  const dist = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]);
  if (dist(before.matmul, after.matmul) >= 10) await saveArtifact('side-args-search.png', await page.screenshot());
  assert.ok(dist(before.matmul, after.matmul) < 10, `the right pane's matmul (an args match) keeps its colour: ${before.matmul} -> ${after.matmul}`);
  assert.ok(dist(before.step, after.step) > 60, `the right pane's step (no match) is dimmed: ${before.step} -> ${after.step}`);
  assert.ok(dist(before.leftStep, after.leftStep) > 60, `the left pane's step is dimmed too: ${before.leftStep} -> ${after.leftStep}`);
  // Enter again: rank 1's matmul (shown in the right pane)
  await page.locator('#search').press('Enter');
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '2 of 2');
  sel = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file]), [['matmul', 'rank-1']]);
  // over the right pane (now the pane in use): the same matches (both files'), and the current one
  await page.mouse.move(box.x + half + GUTTER_PX + 40, box.y + box.height - 20);
  const st = await page.evaluate(() => window.strata.compareLayout());
  assert.equal(st, 'side');
  assert.equal(await page.locator('#search-count').textContent(), '2 of 2', 'the right pane has both matches and follows the step');
  // shift+Enter from there goes back to rank 0's matmul
  await page.locator('#search').press('Shift+Enter');
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '1 of 2');
  sel = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file]), [['matmul', 'rank-0']]);
  // unticking "in args": a name search again, in both panes (no name holds "mm")
  await page.locator('#search-args').uncheck();
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '0 matches');
  await page.mouse.move(box.x + GUTTER_PX + 40, box.y + box.height - 20); // the left pane
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '0 matches');
  // searched in args while stacked, then side by side (key c): the new pane has the args matches too
  await page.locator('#canvas').focus();
  await page.keyboard.press('c');
  assert.equal(await page.evaluate(() => window.strata.compareLayout()), 'stacked');
  await page.locator('#search-args').check();
  await page.locator('#search').press('Enter');
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '1 of 2', null, { timeout: 120_000 });
  await page.locator('#canvas').focus();
  await page.keyboard.press('c');
  assert.equal(await page.evaluate(() => window.strata.compareLayout()), 'side');
  await page.mouse.move(box.x + half + GUTTER_PX + 40, box.y + box.height - 20); // the new right pane
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '1 of 2');
  const right = await colours();
  assert.ok(dist(before.matmul, right.matmul) < 10, `the new right pane's matmul (an args match) keeps its colour: ${before.matmul} -> ${right.matmul}`);
  assert.ok(dist(before.step, right.step) > 60, `its step is dimmed: ${before.step} -> ${right.step}`);
  assert.deepEqual(app.pageErrors, []);
});

test('groups are named from the files\' metadata (Kineto distributedInfo.rank); the summary covers every file', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const kineto = (rank) => {
    const j = JSON.parse(rankTrace(rank, 1000 + rank * 100, `only_${rank}`).toString());
    j.distributedInfo = { backend: 'nccl', rank, world_size: 8 };
    return JSON.stringify(j);
  };
  const got = await app.page.evaluate(async ([a, b]) => {
    const enc = new TextEncoder();
    await window.strata.open([enc.encode(a), enc.encode(b)], { names: ['x.json', 'y.json'] });
    window.strata.setView({ start_us: 0, end_us: 1e7 });
    const s = window.strata.summarizeWindow();
    return { groups: window.strata.traces().map((x) => x.group), rows: s.rows.map((r) => [r.name, r.count]) };
  }, [kineto(3), kineto(5)]);
  assert.deepEqual(got.groups, ['rank 3', 'rank 5']);
  const rows = Object.fromEntries(got.rows);
  assert.equal(rows.matmul, 2, 'matmul of both files');
  assert.equal(rows['ProfilerStep#1'], 2);
  assert.equal(rows.only_3, 1);
  assert.equal(rows.only_5, 1);
});

// Two runs of the same program: B's matmul (8 instances, enough for a
// verdict: diff.h) takes twice as long, each has an op the other has not,
// and B was recorded 7 ms later (another clock time).
function runTrace(t0, mmDur, only, lead = 200) {
  const mm = [];
  for (let i = 0; i < 8; i++) {
    mm.push({ ph: 'X', name: 'matmul', cat: 'op', pid: 1, tid: 1, ts: t0 + lead + 100 + i * 80, dur: mmDur / 8 });
  }
  return Buffer.from(JSON.stringify({ traceEvents: [
    { ph: 'X', name: 'warmup', cat: 'host', pid: 1, tid: 1, ts: t0, dur: 50 },
    { ph: 'X', name: 'ProfilerStep#1', cat: 'step', pid: 1, tid: 1, ts: t0 + lead, dur: 1000 },
    ...mm,
    { ph: 'X', name: only, cat: 'op', pid: 1, tid: 1, ts: t0 + lead + 800, dur: 100 },
  ] }));
}

test('compare(a, b): B aligned on A at the first common step; the diff table sorts, marks, colours and selects in both', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const a = runTrace(T0, 300, 'only_in_a').toString('base64');
  const b = runTrace(T0 + 7000, 600, 'only_in_b', 350).toString('base64'); // its step 350 us into its file
  const r = await app.page.evaluate(async ([a, b]) => {
    const u = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
    const res = await window.strata.compare(u(a), u(b), { names: ['run-a.json', 'run-b.json'] });
    return { a: res.a.events, b: res.b.events, alignment: res.alignment, traces: window.strata.traces() };
  }, [a, b]);
  assert.deepEqual([r.a, r.b], [11, 11]);
  assert.equal(r.alignment.kind, 'profiler_step');
  // B's ProfilerStep#1 (350 us into B) starts with A's (200 us into A): A's time 0
  // is 150 us after B's (offsets are kept >= 0)
  assert.deepEqual(r.traces.map((x) => x.offset_us), [150, 0]);
  const d = await app.page.evaluate(() => window.strata.diff({ by: 'name' }));
  assert.equal(d.rows[0].name, 'matmul', 'the op that got slower is at the top');
  assert.equal(d.rows[0].total_us_a, 300);
  assert.equal(d.rows[0].total_us_b, 600);
  assert.equal(d.rows[0].regression, true);
  assert.ok(d.rows[0].p_value < 0.01, 'significant over its 8 + 8 instances');
  assert.equal(d.only_a, 1);
  assert.equal(d.only_b, 1);
  // the table: coloured regression row, marked one-sided rows
  assert.equal(await app.page.locator('#diff').isVisible(), true);
  const first = app.page.locator('#diff-body tr').first();
  assert.match(await first.getAttribute('class'), /regression/);
  assert.equal(await first.locator('td.name').textContent(), 'matmul');
  assert.equal(await app.page.locator('#diff-body tr.only-a').count(), 1);
  assert.equal(await app.page.locator('#diff-body tr.only-b').count(), 1);
  // sort by name (a click on its header), then back by Δ total
  await app.page.locator('#diff-head button[data-col="name"]').click();
  assert.deepEqual(await app.page.locator('#diff-body td.name').allTextContents(),
    ['matmul', 'only_in_a', 'only_in_b', 'ProfilerStep#1', 'warmup'].sort((x, y) => (x < y ? -1 : 1)));
  await app.page.locator('#diff-head button[data-col="d_total_us"]').click(); // largest increase first
  assert.equal(await app.page.locator('#diff-body td.name').first().textContent(), 'matmul');
  await app.page.locator('#diff-head button[data-col="d_total_us"]').click(); // again: ascending
  assert.equal(await app.page.locator('#diff-body td.name').first().textContent(), 'only_in_a');
  await app.page.locator('#diff-head button[data-col="d_total_us"]').click();
  // a click selects the row's events in both traces
  await app.page.locator('#diff-body tr').first().click();
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file, e.dur_us]),
    [...Array(8).fill(['matmul', 'run-a', 37.5]), ...Array(8).fill(['matmul', 'run-b', 75])]);
  // one step of each, and the category view
  const step = await app.page.evaluate(() => window.strata.diff({ by: 'cat', range: { step: 1 } }));
  assert.deepEqual(step.rows.map((x) => x.name).sort(), ['op', 'step']);
});

test('compare layouts: stacked / side by side with the button and the key c; the panes zoom together; a link reopens side by side', async (t) => {
  const app = await ctx.app({ server, query: '?url=traces/rank-0.trace.json&url=traces/rank-1.trace.json.gz' });
  t.after(() => app.close());
  await app.page.waitForFunction(() => window.strata.traces().length === 2, null, { timeout: 120_000 });
  assert.equal(await app.page.evaluate(() => window.strata.compareLayout()), 'stacked');
  await app.page.locator('#layout-button').click();
  assert.equal(await app.page.evaluate(() => window.strata.compareLayout()), 'side');
  assert.equal(await app.page.locator('#layout-button').getAttribute('aria-pressed'), 'true');
  const box = await app.page.locator('#canvas').boundingBox();
  const half = box.width / 2;
  const paneW = half - GUTTER_PX;
  const v = await app.page.evaluate(() => window.strata.view());
  const xOf = (pane, sceneUs) => box.x + pane * half + GUTTER_PX + ((sceneUs - (v.start_us - T0)) / (v.end_us - v.start_us)) * paneW;
  // the right pane shows rank 1 alone: its header, host1, then its rows
  const yStep = box.y + AXIS_PX + 26 + 24 + 10;
  await app.page.mouse.click(xOf(1, 900), yStep); // rank 1's ProfilerStep#1: scene [500, 1500)
  let sel = await app.page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file]), [['ProfilerStep#1', 'rank-1']]);
  // the panes share the selection: moving over the left pane keeps it
  await app.page.mouse.move(xOf(0, 300), yStep + 40);
  sel = await app.page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file]), [['ProfilerStep#1', 'rank-1']]);
  // the same height in the left pane is rank 0's step
  await app.page.mouse.click(xOf(0, 300), yStep);
  sel = await app.page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.file]), [['ProfilerStep#1', 'rank-0']]);
  // zoom in the left pane: the right pane shows the same time window
  await app.page.mouse.move(xOf(0, 400), yStep);
  await app.page.keyboard.down('Control');
  await app.page.mouse.wheel(0, -400);
  await app.page.keyboard.up('Control');
  const left = await app.page.evaluate(() => window.strata.view());
  assert.ok(left.end_us - left.start_us < (v.end_us - v.start_us) / 2, 'zoomed in');
  await app.page.mouse.move(box.x + half + GUTTER_PX + 50, yStep); // the right pane is now in use
  const right = await app.page.evaluate(() => window.strata.view());
  assert.ok(Math.abs(right.start_us - left.start_us) < 1e-3 && Math.abs(right.end_us - left.end_us) < 1e-3,
    `same window: ${JSON.stringify(left)} vs ${JSON.stringify(right)}`);
  // the link keeps the layout (and the offsets): reopened, it is side by side again
  await app.page.waitForFunction(() => /&cmp=side/.test(location.hash) && /&off=0,500/.test(location.hash), null, { timeout: 120_000 });
  const hash = await app.page.evaluate(() => location.hash);
  const again = await ctx.app({ server, query: `?url=traces/rank-0.trace.json&url=traces/rank-1.trace.json.gz${hash}` });
  t.after(() => again.close());
  await again.page.waitForFunction(() => window.strata.traces().length === 2 && window.strata.compareLayout() === 'side', null, { timeout: 120_000 });
  assert.equal(await again.page.locator('#layout-button').getAttribute('aria-pressed'), 'true');
  // c switches back to stacked
  await app.page.locator('#canvas').focus();
  await app.page.keyboard.press('c');
  assert.equal(await app.page.evaluate(() => window.strata.compareLayout()), 'stacked');
  assert.equal(await app.page.locator('#layout-button').textContent(), 'Side by side');
  assert.deepEqual(app.pageErrors, []);
});

test('open([a, b]) resolves with each file\'s own stats, the same numbers as opening it alone, and their sums', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const bufs = [files.a, files.b].map((p) => fs.readFileSync(p).toString('base64'));
  const r = await app.page.evaluate(async (list) => {
    const u = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
    const single = [];
    for (const b of list) single.push(await window.strata.open(u(b)));
    const both = await window.strata.open(list.map(u));
    return { single, both };
  }, bufs);
  const strip = (s) => { const { load_ms, heap_bytes, import_peak_bytes, traces, ...rest } = s; return rest; };
  assert.equal(r.both.traces.length, 2);
  for (let i = 0; i < 2; i++) assert.deepEqual(strip(r.both.traces[i]), strip(r.single[i]), `file ${i}: its own stats`);
  for (const k of ['events', 'bytes_in', 'bytes_decoded', 'slices', 'instants', 'flows', 'processes', 'threads']) {
    assert.equal(r.both[k], r.single[0][k] + r.single[1][k], `total ${k}`);
  }
  assert.equal(r.both.ts_min_us, Math.min(r.single[0].ts_min_us, r.single[1].ts_min_us));
  assert.equal(r.both.ts_max_us, Math.max(r.single[0].ts_max_us, r.single[1].ts_max_us));
  assert.equal(r.both.format, 'chrome-json');
  // the diff over the visible window only: before rank 1 starts, rank 0's events alone
  const d = await app.page.evaluate(() => {
    window.strata.setView({ start_us: 1.7e15, end_us: 1.7e15 + 450 });
    return window.strata.diff({ range: 'window' });
  });
  const names = Object.fromEntries(d.rows.map((x) => [x.name, [x.count_a, x.count_b]]));
  assert.deepEqual(names.matmul, [1, 0], 'rank 1\'s matmul (at 600 us) is outside the window');
  assert.deepEqual(names['ProfilerStep#1'], [1, 0]);
});

test('handles: a closed trace\'s handle fails validation even when its slot holds a new trace', async (t) => {
  const app = await ctx.app({ server });
  t.after(() => app.close());
  await app.demoLoaded();
  const bufs = [files.a, files.b].map((p) => fs.readFileSync(p).toString('base64'));
  const r = await app.page.evaluate(async (list) => {
    const u = () => list.map((s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));
    await window.strata.open(u());
    const first = window.strata.traces().map((x) => x.handle);
    await window.strata.open(u()); // other slots while the first pair is still open
    await window.strata.open(u()); // the first pair's slots again, a new generation
    const third = window.strata.traces().map((x) => x.handle);
    const stale = [];
    for (const h of first) {
      try { window.strata.setOffset(h, 10); stale.push('accepted'); } catch (e) { stale.push('refused'); }
    }
    const fresh = window.strata.setOffset(third[1], 10).map((x) => x.offset_us);
    return { first, third, stale, fresh };
  }, bufs);
  assert.deepEqual(r.third.map((h) => h & 255), r.first.map((h) => h & 255), 'the same slots');
  assert.notDeepEqual(r.third, r.first, 'new handles');
  assert.deepEqual(r.stale, ['refused', 'refused']);
  assert.deepEqual(r.fresh, [0, 10]);
});
