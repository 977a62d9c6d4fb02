// Finding your way in many tracks (issue 19, items 2 and 4): processes without
// events are hidden and counted in Info (a Kineto trace names all eight GPUs of
// the machine; seven have nothing), with a button that shows them; typing in
// the track filter (key t) keeps only the tracks whose process, thread or track
// name contains the text, counted beside the box, Esc clears it; a track pinned
// (its label's pin mark, key p, window.strata.pin) stays at the top below the
// axis while the rest scrolls, and clicks on it select its events; the filter,
// the pins and the empty processes shown are kept in the link and reopen with it;
// search steps (Enter) skip the matches in tracks the filter hides, and the
// search count says how many it hides.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { startServer, launchBrowser, newApp, distExists, DIST, GUTTER_PX, AXIS_PX, CORPUS, corpusMissing } from './harness.mjs';

// GPU 0 (pid 0) with three streams of kernels; GPUs 1-7 (pids 1-7): process
// metadata only; the host process "python" (pid 4242): a main thread, 30
// workers (a layout taller than the page: it scrolls) and a watchdog.
const WORKERS = Array.from({ length: 30 }, (_, i) => `worker_${String(i).padStart(2, '0')}`);
const STREAMS = ['stream 7', 'stream 13', 'stream 20'];
function kineto() {
  const ev = [];
  for (let g = 0; g < 8; g++) {
    ev.push({ name: 'process_name', ph: 'M', pid: g, args: { name: 'python' } });
    ev.push({ name: 'process_labels', ph: 'M', pid: g, args: { labels: `GPU ${g}` } });
  }
  STREAMS.forEach((s, k) => {
    ev.push({ name: 'thread_name', ph: 'M', pid: 0, tid: 7 + k, args: { name: s } });
    for (let i = 0; i < 20; i++) ev.push({ name: `kernel_${k}_${i}`, ph: 'X', cat: 'kernel', pid: 0, tid: 7 + k, ts: 1000 + i * 500, dur: 300 });
  });
  ev.push({ name: 'process_name', ph: 'M', pid: 4242, args: { name: 'python' } });
  const threads = ['MainThread', ...WORKERS, 'nccl_watchdog'];
  threads.forEach((name, k) => {
    const tid = 5000 + k;
    ev.push({ name: 'thread_name', ph: 'M', pid: 4242, tid, args: { name } });
    ev.push({ name: `${name}_step`, ph: 'X', cat: 'cpu_op', pid: 4242, tid, ts: 1000 + k * 100, dur: 5000 });
  });
  return { traceEvents: ev };
}

let browser, site, server;
before(async () => {
  if (!distExists()) throw new Error(`no page to test: ${DIST}/index.html missing (run tools/build or set STRATA_DIST)`);
  site = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-tracks-'));
  await fsp.symlink(DIST, path.join(site, 'strata'));
  await fsp.mkdir(path.join(site, 'traces'));
  await fsp.writeFile(path.join(site, 'traces', 'kineto.json'), JSON.stringify(kineto()));
  server = await startServer({ root: site, prefix: '/' });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (site) await fsp.rm(site, { recursive: true, force: true });
});

const BASE = () => `${server.origin}/strata/?url=../traces/kineto.json`;
async function open(url) {
  const app = await newApp(browser, server);
  await app.page.goto(url, { waitUntil: 'load' });
  const ev = await app.nextOutcome(0);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  return app;
}
const state = (app) => app.page.evaluate(() => window.strata.trackState());
const tracks = (app) => app.page.evaluate(() => window.strata.tracks());

test('seven GPU processes without events: hidden, counted in Info, shown by its button', async (t) => {
  const app = await open(BASE());
  t.after(() => app.close());
  const st = await state(app);
  assert.equal(st.processes, 9);
  assert.equal(st.empty, 7);
  assert.equal(st.show_empty, false);
  assert.equal((await app.view()).tracks.empty, 7, 'view() reports it too');
  const all = await tracks(app);
  assert.deepEqual(all.map((k) => k.label), [...STREAMS, 'MainThread', ...WORKERS, 'nccl_watchdog']);
  assert.equal(st.tracks, all.length);
  // hidden: GPU 0's section then the host's, nothing between
  const main = all.find((k) => k.label === 'MainThread');
  assert.equal(main.y, 24 + 3 * 24 + 24, 'GPU 0 header, its 3 streams (20 px + 4 gap), the host header');
  // Info says so and shows them
  await app.page.click('#info-button');
  const line = app.page.locator('#empty-processes');
  assert.match(await line.textContent(), /^7 processes without events, hidden from the timeline\./);
  await app.page.click('#empty-processes-toggle');
  await app.page.waitForFunction(() => window.strata.trackState().show_empty === true);
  const main2 = (await tracks(app)).find((k) => k.label === 'MainThread');
  assert.equal(main2.y - main.y, 7 * 24, 'seven section headers (24 px each) now above the host');
  assert.match(await line.textContent(), /7 processes without events, shown\./);
  assert.equal(await app.page.locator('#empty-processes-toggle').textContent(), 'Hide them');
  // the link keeps it
  await app.page.waitForFunction(() => location.hash.includes('&empty=1'), null, { timeout: 120_000 });
  await app.page.evaluate(() => window.strata.setShowEmpty(false));
  assert.equal((await tracks(app)).find((k) => k.label === 'MainThread').y, main.y);
  assert.deepEqual(app.pageErrors, []);
});

test('the track filter: key t, typing keeps the matching tracks (counted), Esc clears', async (t) => {
  const app = await open(BASE());
  t.after(() => app.close());
  const before = await tracks(app);
  await app.page.locator('#canvas').focus();
  await app.page.keyboard.press('t');
  assert.equal(await app.page.evaluate(() => document.activeElement.id), 'track-filter');
  await app.page.keyboard.type('Worker_1');
  const want = before.filter((k) => k.label.toLowerCase().includes('worker_1')).map((k) => k.label);
  assert.equal(want.length, 10, 'worker_10 .. worker_19');
  await app.page.waitForFunction((n) => window.strata.tracks().length === n, want.length);
  assert.deepEqual((await tracks(app)).map((k) => k.label), want);
  assert.equal(await app.page.locator('#track-count').textContent(), `10 of ${before.length} tracks`);
  const st = await state(app);
  assert.equal(st.filter, 'Worker_1');
  assert.equal(st.shown, 10);
  // a process's name keeps its tracks: "python" is the host's and GPU 0's name
  await app.page.evaluate(() => window.strata.setTrackFilter('PYTHON'));
  assert.equal((await tracks(app)).length, before.length);
  // a stream's name
  await app.page.evaluate(() => window.strata.setTrackFilter('stream 1'));
  assert.deepEqual((await tracks(app)).map((k) => k.label), ['stream 13']);
  await app.page.evaluate(() => window.strata.setTrackFilter('no such track'));
  assert.deepEqual(await tracks(app), []);
  assert.equal(await app.page.locator('#track-count').textContent(), `0 of ${before.length} tracks`);
  // Esc in the box clears it and gives the keys back to the timeline
  await app.page.locator('#track-filter').focus();
  await app.page.keyboard.press('Escape');
  assert.equal((await state(app)).filter, '');
  assert.equal((await tracks(app)).length, before.length);
  assert.equal(await app.page.locator('#track-filter').inputValue(), '');
  assert.equal(await app.page.locator('#track-count').textContent(), '');
  assert.equal(await app.page.evaluate(() => document.activeElement.id), 'canvas');
  assert.deepEqual(app.pageErrors, []);
});

test('search steps skip the matches in tracks the filter hides; the count says how many; the filter stays', async (t) => {
  const app = await open(BASE());
  t.after(() => app.close());
  const page = app.page;
  // worked out from the trace written above: every thread of the host has a
  // "<thread>_step"; the filter "worker_1" keeps worker_10 .. worker_19
  const threads = ['MainThread', ...WORKERS, 'nccl_watchdog'];
  const all = threads.map((name, k) => ({ name: `${name}_step`, ts: 1000 + k * 100, thread: name }));
  const shown = all.filter((e) => e.thread.includes('worker_1')).sort((a, b) => a.ts - b.ts);
  const hidden = all.length - shown.length;
  assert.equal(shown.length, 10);
  await page.evaluate(() => window.strata.setTrackFilter('worker_1'));
  await page.fill('#search', 'step');
  await page.waitForFunction(() => /match/.test(document.getElementById('search-count').textContent));
  assert.equal(await page.locator('#search-count').textContent(), `10 matches (${hidden} hidden by the track filter)`);
  // Enter steps through the ten shown, in time order, and wraps round
  const visited = [];
  for (let k = 0; k <= shown.length; k++) {
    await page.press('#search', 'Enter');
    const sel = await page.evaluate(() => window.strata.selection());
    assert.equal(sel.length, 1);
    visited.push(sel[0].name);
    const n = (k % shown.length) + 1;
    assert.equal(await page.locator('#search-count').textContent(), `${n} of 10 (${hidden} hidden by the track filter)`);
  }
  assert.deepEqual(visited, [...shown.map((e) => e.name), shown[0].name]);
  // the filter stayed, and the match reached is on a track it shows
  assert.equal((await state(app)).filter, 'worker_1');
  assert.ok((await tracks(app)).some((k) => k.label === shown[0].thread));
  // shift+Enter goes back: the last shown one
  await page.press('#search', 'Shift+Enter');
  assert.equal((await page.evaluate(() => window.strata.selection()))[0].name, shown[shown.length - 1].name);
  // the filter cleared: every match counts again (the count follows the filter)
  await page.evaluate(() => window.strata.setTrackFilter(''));
  await page.waitForFunction((n) => new RegExp(`of ${n}$`).test(document.getElementById('search-count').textContent), all.length);
  const rank = all.sort((a, b) => a.ts - b.ts).findIndex((e) => e.name === shown[shown.length - 1].name);
  assert.equal(await page.locator('#search-count').textContent(), `${rank + 1} of ${all.length}`);
  // a filter hiding every match: Enter selects nothing new
  await page.evaluate(() => window.strata.setTrackFilter('stream'));
  await page.waitForFunction(() => /hidden/.test(document.getElementById('search-count').textContent));
  assert.equal(await page.locator('#search-count').textContent(), `0 matches (${all.length} hidden by the track filter)`);
  await page.press('#search', 'Enter');
  assert.equal((await page.evaluate(() => window.strata.selection()))[0].name, shown[shown.length - 1].name);
  assert.deepEqual(app.pageErrors, []);
});

test('pinned tracks stay below the axis while the rest scrolls; clicks select on them; key p', async (t) => {
  const app = await open(BASE());
  t.after(() => app.close());
  const page = app.page;
  const box = await page.locator('#canvas').boundingBox();
  const s7 = (await tracks(app)).find((k) => k.label === 'stream 7');
  // its label's pin mark (the right end of the gutter) pins it
  await page.mouse.move(box.x + 60, box.y + s7.canvas_y + 10);
  await page.mouse.click(box.x + GUTTER_PX - 9, box.y + s7.canvas_y + 10);
  await page.waitForFunction(() => window.strata.trackState().pins.length === 1);
  assert.deepEqual((await state(app)).pins, [s7.id]);
  assert.equal(s7.id, '0.0.0', 'file 0, pid 0, its first track');
  // scroll to the bottom: the pinned track stays at the top, the rest moves
  await page.mouse.move(box.x + 600, box.y + 400);
  await page.mouse.wheel(0, 5000);
  await page.waitForFunction(() => window.strata.view().scroll_y > 0);
  const v = await app.view();
  const after = await tracks(app);
  const p7 = after.find((k) => k.label === 'stream 7');
  assert.equal(p7.pinned, true);
  assert.equal(p7.canvas_y, AXIS_PX, 'drawn right below the axis');
  assert.equal(after[0].label, 'stream 7', 'first in the list');
  const w0 = after.find((k) => k.label === 'worker_00');
  assert.equal(w0.canvas_y, AXIS_PX + w0.y - v.scroll_y, 'the others scroll');
  // the pixels: the pinned row's kernel is drawn there (a kernel's colour, not the background)
  const xOf = (us) => GUTTER_PX + ((us - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  const shot = await app.timelineShot('pinned');
  // (the shot starts at the timeline's top-left: x - GUTTER_PX, y - AXIS_PX)
  const pixel = (x, y) => { const i = (y * shot.img.width + x) * 4; return [...shot.img.data.slice(i, i + 3)]; };
  const px = pixel(Math.round(xOf(1150)) - GUTTER_PX, 10);
  const bg = pixel(Math.round(xOf(1400)) - GUTTER_PX, 10); // between two kernels
  assert.notDeepEqual(px, bg, `kernel ${JSON.stringify(px)} vs gap ${JSON.stringify(bg)}`);
  // a click on it selects its kernel
  await page.mouse.click(box.x + xOf(1150), box.y + AXIS_PX + 10);
  await page.waitForFunction(() => window.strata.selection().length === 1);
  assert.equal((await page.evaluate(() => window.strata.selection()))[0].name, 'kernel_0_0');
  // key p on the track under the mouse pins it too (a scrolled one: the watchdog, last)
  const wd = after.find((k) => k.label === 'nccl_watchdog');
  await page.mouse.move(box.x + 600, box.y + wd.canvas_y + 10);
  await page.locator('#canvas').focus();
  await page.keyboard.press('p');
  await page.waitForFunction(() => window.strata.trackState().pins.length === 2);
  assert.deepEqual((await state(app)).pins, [s7.id, wd.id]);
  const now = await tracks(app);
  assert.deepEqual(now.slice(0, 2).map((k) => [k.label, k.canvas_y]), [['stream 7', AXIS_PX], ['nccl_watchdog', AXIS_PX + 24]]);
  // unpinned by the same mark
  await page.mouse.click(box.x + GUTTER_PX - 9, box.y + AXIS_PX + 10);
  await page.waitForFunction(() => window.strata.trackState().pins.length === 1);
  assert.deepEqual((await state(app)).pins, [wd.id]);
  const err = await page.evaluate(() => { try { window.strata.pin('9.9.9'); return null; } catch (e) { return e.message; } });
  assert.match(err, /no track with id "9\.9\.9"/);
  assert.deepEqual(app.pageErrors, []);
});

test('the link keeps the filter, the pins and the empty processes; it reopens them', async (t) => {
  const app = await open(BASE());
  t.after(() => app.close());
  const all = await tracks(app);
  const wd = all.find((k) => k.label === 'nccl_watchdog');
  const s13 = all.find((k) => k.label === 'stream 13');
  await app.page.evaluate(([a, b]) => { window.strata.pin(a); window.strata.pin(b); window.strata.setTrackFilter('worker_2'); window.strata.setShowEmpty(true); }, [wd.id, s13.id]);
  await app.page.waitForFunction(() => /&tf=worker_2&pin=[\d.,-]+&empty=1$/.test(location.hash), null, { timeout: 120_000 })
    .catch(async () => assert.fail(`hash: ${await app.page.evaluate(() => location.hash)}`));
  const hash = await app.page.evaluate(() => location.hash);
  assert.ok(hash.includes(`&pin=${wd.id},${s13.id}`), hash);
  const want = await tracks(app);
  const link = app.page.url();
  const app2 = await open(link);
  t.after(() => app2.close());
  await app2.page.waitForFunction(() => window.strata.trackState().pins.length === 2, null, { timeout: 120_000 });
  const st2 = await state(app2);
  assert.equal(st2.filter, 'worker_2');
  assert.deepEqual(st2.pins, [wd.id, s13.id]);
  assert.equal(st2.show_empty, true);
  assert.deepEqual((await tracks(app2)).map((k) => [k.label, k.y]), want.map((k) => [k.label, k.y]));
  assert.equal(await app2.page.locator('#track-filter').inputValue(), 'worker_2');
  assert.equal(await app2.page.locator('#track-count').textContent(), `10 of ${all.length} tracks`);
  // editing the link back to none clears them
  await app2.page.evaluate(() => { location.hash = location.hash.replace(/&tf=.*$/, ''); });
  await app2.page.waitForFunction(() => window.strata.trackState().pins.length === 0 && window.strata.trackState().filter === '', null, { timeout: 120_000 });
  assert.deepEqual([...app.pageErrors, ...app2.pageErrors], []);
});

test('"Save HTML" keeps the filter, the pins, the empty processes and the arrows\' mode: the saved file opens with them', async (t) => {
  const app = await open(BASE());
  t.after(() => app.close());
  const all = await tracks(app);
  const wd = all.find((k) => k.label === 'nccl_watchdog');
  await app.page.evaluate((id) => { window.strata.pin(id); window.strata.setTrackFilter('worker_1'); window.strata.setShowEmpty(true); window.strata.setFlows('all'); }, wd.id);
  await app.page.waitForFunction(() => /&tf=worker_1&pin=[\d.,-]+&empty=1/.test(location.hash) && /flows=all/.test(location.hash), null, { timeout: 120_000 })
    .catch(async () => assert.fail(`hash: ${await app.page.evaluate(() => location.hash)}`));
  const want = (await tracks(app)).map((k) => [k.label, k.y]);
  await app.page.waitForFunction(() => !document.getElementById('save-html').disabled);
  const [dl] = await Promise.all([app.page.waitForEvent('download'), app.page.locator('#save-html').click()]);
  const saved = path.join(site, 'saved.html');
  await dl.saveAs(saved);
  const context = await browser.newContext({ viewport: { width: 1200, height: 700 } });
  t.after(() => context.close());
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(saved).href, { waitUntil: 'load' });
  await page.waitForFunction(() => { try { return window.strata.stats().events > 0 && window.strata.trackState().pins.length === 1; } catch { return false; } }, null, { timeout: 120_000 })
    .catch(() => assert.fail(`the saved file did not reopen the pins: ${errors.join('; ')}`));
  const st = await page.evaluate(() => window.strata.trackState());
  assert.equal(st.filter, 'worker_1');
  assert.deepEqual(st.pins, [wd.id]);
  assert.equal(st.show_empty, true);
  assert.equal(await page.evaluate(() => window.strata.flows()), 'all');
  assert.deepEqual((await page.evaluate(() => window.strata.tracks())).map((k) => [k.label, k.y]), want);
  assert.deepEqual([...errors, ...app.pageErrors], []);
});

// Real Kineto traces (HTA's samples): the processes the file names that carry no
// event of their own (only metadata: process_name, labels, sort index; flow ends
// are not drawn on their own; a global instant, s: 'g', is drawn on the
// trace-wide row, not in its pid's section: Kineto's "Traces" and "" pids),
// counted here from the JSON, are the ones Info counts.
const REAL = [
  'hta__benchmark_result_924719_1679055439_trace.json.gz',
  'hta__control.json.gz',
  'hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz',
];
for (const name of REAL) {
  const file = path.join(CORPUS, name);
  test(`real Kineto trace ${name}: its processes without events are hidden and counted`, { skip: corpusMissing(file) }, async (t) => {
    const bytes = await fsp.readFile(file);
    const j = JSON.parse(zlib.gunzipSync(bytes).toString());
    const all = new Set(), busy = new Set();
    for (const e of j.traceEvents) {
      if (e.pid === undefined) continue;
      all.add(String(e.pid));
      const global = (e.ph === 'i' || e.ph === 'I') && e.s === 'g'; // drawn on the trace-wide row
      if (e.ph !== 'M' && !['s', 't', 'f'].includes(e.ph) && !global) busy.add(String(e.pid));
    }
    const empty = all.size - busy.size;
    assert.ok(empty >= 7, `${name}: ${empty} empty of ${all.size}`);
    const app = await newApp(browser, server);
    t.after(() => app.close());
    await app.page.goto(`${server.origin}/strata/`, { waitUntil: 'load' });
    await app.demoLoaded();
    const r = await app.openBuffer(bytes);
    assert.ok(r.ok, `open failed: ${r.message}`);
    const st = await state(app);
    assert.equal(st.empty, empty);
    await app.page.click('#info-button');
    assert.match(await app.page.locator('#empty-processes').textContent(), new RegExp(`^${empty} processes without events, hidden`));
    // shown, each is a header: the layout grows by one header each
    const h0 = await app.page.evaluate(() => { const k = window.strata.tracks(); return k.length ? k[k.length - 1].y : 0; });
    await app.page.evaluate(() => window.strata.setShowEmpty(true));
    const h1 = await app.page.evaluate(() => { const k = window.strata.tracks(); return k.length ? k[k.length - 1].y : 0; });
    assert.equal(h1 - h0, 24 * empty);
    assert.deepEqual(app.pageErrors, []);
  });
}
