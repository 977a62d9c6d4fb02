// Rendering of a known small trace (issue 4 item 5): pixels where slices must
// be, and background where they must not be: two depth-0 slices with a gap,
// a child under the second only, and an instant marker on its own track.
// Layout (core/view/view.h): axis 28 px, section header 24 px, rows 20 px,
// 4 px after each track.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, decodePng, GUTTER_PX, AXIS_PX } from './harness.mjs';

const ctx = useBrowser({ before, after });
const ROW0_Y = AXIS_PX + 24 + 10; // middle of depth 0 of tid 1
const ROW1_Y = AXIS_PX + 24 + 20 + 10; // middle of depth 1 of tid 1
const TID2_Y = AXIS_PX + 24 + 2 * 20 + 4 + 10; // tid 2's only row

const trace = {
  traceEvents: [
    { ph: 'M', name: 'process_name', pid: 1, args: { name: 'P' } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: 'T' } },
    { ph: 'X', name: 'first', pid: 1, tid: 1, ts: 0, dur: 1000 },
    { ph: 'X', name: 'second', pid: 1, tid: 1, ts: 2000, dur: 1000 },
    { ph: 'X', name: 'child', pid: 1, tid: 1, ts: 2200, dur: 600 },
    { ph: 'X', name: 'tiny', pid: 1, tid: 2, ts: 5000, dur: 0.01 }, // 10 ns
  ],
};

test('a known trace: slices drawn exactly where they are, background elsewhere, at any zoom', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-render-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'known.json');
  fs.writeFileSync(file, JSON.stringify(trace));
  const app = await ctx.app({ viewport: { width: 1220, height: 400 } });
  t.after(() => app.close());
  await app.demoLoaded();
  const out = await app.openViaInput(file);
  assert.equal(out.type, 'strata:loaded', JSON.stringify(out));
  const page = app.page;
  const box = await page.locator('#canvas').boundingBox();
  const tw = box.width - GUTTER_PX;
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

  for (const [s0, e0] of [[-500, 3500], [1900, 3100], [0, 3000], [0, 400000]]) {
    await page.evaluate(([s, e]) => window.strata.setView({ start_us: s, end_us: e }), [s0, e0]);
    await frame();
    // the page may clamp a view far wider than the trace: use the one shown
    const { start_us: start, end_us: end } = await app.view();
    const png = await page.locator('#canvas').screenshot();
    if (process.env.RENDER_SHOT) fs.writeFileSync(`${process.env.RENDER_SHOT}-${s0}-${e0}.png`, png);
    const img = decodePng(png);
    const xOf = (us) => Math.round(GUTTER_PX + ((us - start) / (end - start)) * tw);
    const px = (us, y) => {
      const x = xOf(us), o = (y * img.width + x) * 4;
      return [img.data[o], img.data[o + 1], img.data[o + 2]];
    };
    // the empty background at the same x, below every track (grid lines included)
    const bg = (us) => px(us, ROW0_Y + 100);
    const same = (a, b) => a.every((v, i) => Math.abs(v - b[i]) <= 6);
    const at = `view ${start}..${end} us`;
    // exact checks where a microsecond is at least a pixel; zoomed far out only the summary rule
    const inside = (us) => us > start && us < end && end - start < 10000;
    const drawn = (us, y, what) => { if (inside(us)) assert.ok(!same(px(us, y), bg(us)), `${at}: ${what}`); };
    const empty = (us, y, what) => { if (inside(us)) assert.ok(same(px(us, y), bg(us)), `${at}: ${what}`); };
    drawn(500, ROW0_Y, "'first' drawn at 500 us");
    empty(1500, ROW0_Y, 'nothing in the gap at 1500 us');
    drawn(2100, ROW0_Y, "'second' drawn at 2100 us");
    drawn(2500, ROW1_Y, "'child' drawn under 'second'");
    empty(500, ROW1_Y, "no child under 'first'");
    empty(2100, ROW1_Y, "nothing at depth 1 before 'child' starts");
    empty(2900, ROW1_Y, "nothing at depth 1 after 'child' ends");
    empty(3300, ROW0_Y, 'nothing after the trace ends');
    // a 10 ns event still marks its pixel when a pixel is 400 us wide
    empty(4000, TID2_Y, 'tid 2 empty before its event');
    if (end - start >= 10000) { // a pixel is > 10 us wide, the event 10 ns
      assert.ok(!same(px(5000, TID2_Y), bg(5000)), `${at}: the 10 ns event marks its pixel column`);
      assert.ok(same(px(3500, TID2_Y), bg(3500)), `${at}: nothing beside it`);
    }
    // 'first' and 'second' have different names, so different colours
    if (inside(500) && inside(2100)) assert.ok(!same(px(500, ROW0_Y), px(2100, ROW0_Y)), `${at}: colour per name`);
  }
});
