// Touch, as a finger on a touch screen sends it: raw touch events through
// the DevTools protocol (Input.dispatchTouchEvent) on a page with touch
// enabled. One finger drags the view (time and tracks), two fingers spread
// to zoom in around their midpoint, a tap selects the slice under it (and
// only once: the browser's compatibility mouse events are suppressed).
// The gesture logic is core/ui/touch.c (unit-tested natively); this checks the
// page routes touches to it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, GUTTER_PX, AXIS_PX } from './harness.mjs';

const ctx = useBrowser({ before, after });

// one thread, slices of 1 ms every 2 ms for 100 ms; 40 more threads so the
// tracks scroll
const TRACE = { traceEvents: [] };
for (let tid = 1; tid <= 41; tid++) {
  for (let i = 0; i < 50; i++) {
    TRACE.traceEvents.push({ name: `s${tid}`, ph: 'X', pid: 1, tid, ts: i * 2000, dur: 1000 });
  }
}
const ROW1_Y = AXIS_PX + 24 + 10; // middle of tid 1's row

async function setup() {
  const app = await ctx.app({ hasTouch: true });
  await app.demoLoaded();
  const r = await app.openBuffer(Buffer.from(JSON.stringify(TRACE)));
  assert.ok(r.ok, `open failed: ${r.message}`);
  const box = await app.page.locator('#canvas').boundingBox();
  const cdp = await app.context.newCDPSession(app.page);
  // touch points in canvas px
  const touch = (type, pts) => cdp.send('Input.dispatchTouchEvent', {
    type, touchPoints: pts.map(([x, y, id]) => ({ x: box.x + x, y: box.y + y, id })),
  });
  const frame = () => app.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  return { app, box, touch, frame };
}

test('touch: one finger drags time and tracks with it; two fingers spread zoom in around their midpoint', async () => {
  const { app, box, touch, frame } = await setup();
  const tw = box.width - GUTTER_PX;
  await app.page.evaluate(() => window.strata.setView({ start_us: 20000, end_us: 60000 }));
  let v = await app.view();
  const usPerPx = (v.end_us - v.start_us) / tw;
  // drag 200 px right and 60 px up in 10 moves
  const x0 = GUTTER_PX + 300, y0 = 300;
  await touch('touchStart', [[x0, y0, 1]]);
  for (let k = 1; k <= 10; k++) await touch('touchMove', [[x0 + 20 * k, y0 - 6 * k, 1]]);
  await touch('touchEnd', []);
  await frame();
  const v2 = await app.view();
  assert.ok(Math.abs((v.start_us - v2.start_us) - 200 * usPerPx) < 2 * usPerPx,
    `window moved ${(v.start_us - v2.start_us) / usPerPx} px, want 200 (earlier times)`);
  assert.ok(Math.abs(v2.scroll_y - v.scroll_y - 60) < 1, `scrolled ${v2.scroll_y - v.scroll_y}, want 60`);
  assert.equal((await app.page.evaluate(() => window.strata.selection())).length, 0, 'a drag selects nothing');
  // spread two fingers from 200 px apart to 400 px apart around x = mid
  v = v2;
  const mid = GUTTER_PX + tw / 2, y = 200;
  const midUs = v.start_us + (mid - GUTTER_PX) * (v.end_us - v.start_us) / tw;
  await touch('touchStart', [[mid - 100, y, 1], [mid + 100, y, 2]]);
  for (let k = 1; k <= 10; k++) await touch('touchMove', [[mid - 100 - 10 * k, y, 1], [mid + 100 + 10 * k, y, 2]]);
  await touch('touchEnd', []);
  await frame();
  const v3 = await app.view();
  const zoom = (v.end_us - v.start_us) / (v3.end_us - v3.start_us);
  assert.ok(zoom > 1.9 && zoom < 2.1, `zoomed ${zoom}x, want 2x`);
  const midUs3 = v3.start_us + (mid - GUTTER_PX) * (v3.end_us - v3.start_us) / tw;
  assert.ok(Math.abs(midUs3 - midUs) < 4 * (v3.end_us - v3.start_us) / tw, 'the time under the midpoint stays put');
  assert.deepEqual(app.pageErrors, []);
});

test('touch: a tap selects the slice under it, once', async () => {
  const { app, touch, frame } = await setup();
  await app.page.evaluate(() => window.strata.setView({ start_us: 0, end_us: 10000 }));
  await frame();
  // the slice s1 at [4000, 5000) us: x at 4500 us
  const box = await app.page.locator('#canvas').boundingBox();
  const x = GUTTER_PX + 0.45 * (box.width - GUTTER_PX);
  await touch('touchStart', [[x, ROW1_Y, 1]]);
  await touch('touchMove', [[x + 2, ROW1_Y + 1, 1]]); // a finger wobbles
  await touch('touchEnd', []);
  await frame();
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.equal(sel.length, 1, JSON.stringify(sel));
  assert.equal(sel[0].name, 's1');
  assert.equal(sel[0].ts_us, 4000);
  assert.match(await app.page.locator('#details').textContent(), /s1/);
  assert.deepEqual(app.pageErrors, []);
});
