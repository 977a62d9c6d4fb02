// The first view shows the work (issue 12, item 3): a trace whose one stray
// event lies a million seconds before the rest (as in a Fuchsia trace) opens
// fitted to where the events are, with a note saying how many events it
// leaves out; "Show all (0)" (a click) and the key 0 show everything. A
// trace without outliers opens on the whole trace, with no note.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, privacyReport, GUTTER_PX, AXIS_PX } from './harness.mjs';

const ctx = useBrowser({ before, after });

const FAR = 1e12; // us: a million seconds after the stray event at ts 1000
function fixture() {
  const ev = [
    { name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 'main' } },
    { name: 'clock_sync', ph: 'X', pid: 1, tid: 2, ts: 1000, dur: 5 },
  ];
  for (let i = 0; i < 300; i++) ev.push({ name: `work ${i % 7}`, ph: 'X', pid: 1, tid: 1, ts: FAR + i * 3000, dur: 2000 });
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}
const BULK_END = FAR + 299 * 3000 + 2000;

async function open(app, bytes) {
  const r = await app.openBuffer(bytes);
  assert.ok(r.ok, `open failed: ${r.message}`);
  await app.page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(() => res()))));
}

test('a stray event a million seconds early: the first view fits the work, says 1 event is left out, Show all / 0 show it', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  const page = app.page;
  await app.demoLoaded();
  await open(app, fixture());
  let v = await app.view();
  const span = BULK_END - FAR;
  assert.ok(v.start_us > FAR - 0.1 * span && v.start_us <= FAR, `starts at the work: ${JSON.stringify(v)}`);
  assert.ok(v.end_us >= BULK_END && v.end_us < BULK_END + 0.1 * span, `ends at the work: ${JSON.stringify(v)}`);
  assert.ok(await page.locator('#outliers').isVisible(), 'the note is shown');
  assert.match(await page.locator('#outliers').textContent(), /1 event far from the rest is not in this first view/);
  // the work is under the mouse in the middle of the timeline (main's row)
  const box = await page.locator('#canvas').boundingBox();
  const rowY = AXIS_PX + 24 + 10;
  await page.mouse.move(box.x + GUTTER_PX + (box.width - GUTTER_PX) / 2, box.y + rowY);
  await page.waitForFunction(() => !document.getElementById('tooltip').hidden && /work/.test(document.getElementById('tooltip').textContent));

  await page.getByRole('button', { name: /Show all/ }).click();
  v = await app.view();
  assert.ok(v.start_us <= 1000 && v.end_us >= BULK_END, `Show all: everything: ${JSON.stringify(v)}`);
  assert.equal(await page.locator('#outliers').isVisible(), false, 'the note goes');

  // again, with the key
  await open(app, fixture());
  assert.ok(await page.locator('#outliers').isVisible());
  v = await app.view();
  assert.ok(v.start_us > FAR - span, `the work again: ${JSON.stringify(v)}`);
  await page.mouse.click(box.x + box.width - 5, box.y + box.height - 5);
  await page.keyboard.press('0');
  v = await app.view();
  assert.ok(v.start_us <= 1000 && v.end_us >= BULK_END, `0: everything: ${JSON.stringify(v)}`);
  assert.equal(await page.locator('#outliers').isVisible(), false);
  assert.deepEqual(app.pageErrors, []);
});

test('no outliers: the whole trace, no note', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  assert.equal(await app.page.locator('#outliers').isVisible(), false);
  const ev = [];
  for (let i = 0; i < 300; i++) ev.push({ name: 'w', ph: 'X', pid: 1, tid: 1, ts: i * 3000, dur: 2000 });
  ev.push({ name: 'late', ph: 'X', pid: 1, tid: 2, ts: 1000000, dur: 10 }); // 0.1 s after: not far out
  await open(app, Buffer.from(JSON.stringify({ traceEvents: ev })));
  const v = await app.view();
  assert.ok(v.start_us <= 0 && v.end_us >= 1000010, `the whole trace: ${JSON.stringify(v)}`);
  assert.equal(await app.page.locator('#outliers').isVisible(), false);
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const { bad, message } = privacyReport(ctx.requests, ctx.server.origin);
  assert.deepEqual(bad, [], message);
});
