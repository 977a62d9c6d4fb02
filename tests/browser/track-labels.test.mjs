// Rows that say what they are (issue 12, item 2): a thread's instant events
// are the marker lane at the top of the thread's own track, under its one
// label (not a second row reading "thread 25738 (python)" again), and two
// threads of a section with the same name get their tid. Checked on the
// gutter labels the page draws (window.strata.tracks()) and with the mouse:
// the marker lane above the slices holds the instants, the row under it the
// thread's slices.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, privacyReport, GUTTER_PX, AXIS_PX } from './harness.mjs';

const ctx = useBrowser({ before, after });

// Kineto-like: the python thread carries slices and "[memory]" instants;
// two more threads are both named "python".
const KINETO = {
  traceEvents: [
    { name: 'process_name', ph: 'M', pid: 25738, args: { name: 'python' } },
    { name: 'thread_name', ph: 'M', pid: 25738, tid: 25738, args: { name: 'thread 25738 (python)' } },
    { name: 'thread_name', ph: 'M', pid: 25738, tid: 25800, args: { name: 'python' } },
    { name: 'thread_name', ph: 'M', pid: 25738, tid: 25801, args: { name: 'python' } },
    { name: 'aten::linear', ph: 'X', cat: 'cpu_op', pid: 25738, tid: 25738, ts: 1000, dur: 4000 },
    { name: 'aten::relu', ph: 'X', cat: 'cpu_op', pid: 25738, tid: 25738, ts: 6000, dur: 3000 },
    { name: '[memory]', ph: 'i', s: 't', cat: 'cpu_instant_event', pid: 25738, tid: 25738, ts: 2000, args: { Bytes: 4096 } },
    { name: '[memory]', ph: 'i', s: 't', cat: 'cpu_instant_event', pid: 25738, tid: 25738, ts: 7000, args: { Bytes: -4096 } },
    { name: 'backward', ph: 'X', pid: 25738, tid: 25800, ts: 1000, dur: 2000 },
    { name: 'optimizer', ph: 'X', pid: 25738, tid: 25801, ts: 4000, dur: 2000 },
  ],
};

const dupes = (tracks) => {
  const seen = new Map();
  const out = [];
  for (const k of tracks) {
    const key = `${k.pid}\u0000${k.label}`;
    if (seen.has(key)) out.push(`${k.section} (pid ${k.pid}): "${k.label}"`);
    seen.set(key, true);
  }
  return out;
};

test("a thread's instants are the marker lane of its own track; same-named threads get their tid", async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  const page = app.page;
  await app.demoLoaded();
  const r = await app.openBuffer(Buffer.from(JSON.stringify(KINETO)));
  assert.ok(r.ok, `open failed: ${r.message}`);
  const tracks = await page.evaluate(() => window.strata.tracks());
  const labels = tracks.map((k) => k.label);
  // (issue 34: the [memory] events' running sum of Bytes is the CPU's allocated counter)
  assert.deepEqual(labels, ['thread 25738 (python)', 'python (tid 25800)', 'python (tid 25801)', 'Memory allocated (CPU)']);
  assert.deepEqual(dupes(tracks), []);
  // one track of two rows: the marker lane on top, the slices under it
  const py = tracks[0];
  assert.equal(py.rows, 2);
  assert.equal(py.h, 40);
  const box = await page.locator('#canvas').boundingBox();
  const v = await app.view();
  const xOf = (us) => GUTTER_PX + ((us - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  const yOf = (row) => AXIS_PX + py.y + row * 20 + 10 - v.scroll_y;
  await page.mouse.click(box.x + xOf(2000), box.y + yOf(0)); // a marker in the top lane
  let sel = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.ts_us, e.tid]), [['[memory]', 2000, 25738]]);
  await page.mouse.click(box.x + xOf(2000), box.y + yOf(1)); // the slice under it
  sel = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.tid]), [['aten::linear', 25738]]);
  assert.deepEqual(app.pageErrors, []);
});

test('the demo: "Steps" reads once per GPU, no two rows of a section read the same', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const tracks = await app.page.evaluate(() => window.strata.tracks());
  assert.ok(tracks.length > 10, `the demo has tracks: ${tracks.length}`);
  assert.deepEqual(dupes(tracks), []);
  const steps = tracks.filter((k) => k.label === 'Steps');
  assert.ok(steps.length >= 2, 'a Steps track per GPU');
  for (const k of steps) assert.ok(k.rows >= 2, `Steps: its markers and slices are one track (${JSON.stringify(k)})`);
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const { bad, message } = privacyReport(ctx.requests, ctx.server.origin);
  assert.deepEqual(bad, [], message);
});
