// Search leads somewhere you can see (issue 12, item 1), driven with real
// keys and the mouse: `/`, type, Enter selects the first match AND makes it
// visible (a 7.6 us op in a 131 ms window is zoomed in on until it is at
// least a few pixels wide, its track scrolled into view: the mouse finds it
// there); Enter / shift+Enter / PageDown / PageUp step (the count reads
// "3 of 20"); the first Esc leaves the box with the search and selection
// kept, so f, W and A act on the match and Enter still steps; the second
// Esc clears.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, privacyReport, GUTTER_PX, AXIS_PX } from './harness.mjs';

const ctx = useBrowser({ before, after });

// 40 threads of "op" slices (50 us every 1 ms over 131 ms): taller than the
// canvas. 20 "fusion.N" ops of 7.6 us on threads 30..39 (below the fold).
function fixture() {
  const ev = [{ name: 'process_name', ph: 'M', pid: 1, args: { name: 'host' } }];
  for (let tid = 1; tid <= 40; tid++) {
    ev.push({ name: 'thread_name', ph: 'M', pid: 1, tid, args: { name: `worker ${tid}` } });
    for (let t = 0; t <= 131000; t += 1000) ev.push({ name: 'op', ph: 'X', pid: 1, tid, ts: t, dur: 50 });
  }
  for (let k = 0; k < 20; k++) {
    ev.push({ name: `fusion.${k}`, ph: 'X', pid: 1, tid: 30 + (k % 10), ts: 5000 + k * 6000 + 300, dur: 7.6 });
  }
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

test('search: Enter zooms to the match and scrolls its track into view; Esc hands the keys back, a second Esc clears', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  const page = app.page;
  await app.demoLoaded();
  const r = await app.openBuffer(fixture());
  assert.ok(r.ok, `open failed: ${r.message}`);
  const box = await page.locator('#canvas').boundingBox();
  const count = () => page.locator('#search-count').textContent();
  const frame = () => page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(() => res()))));
  const sel = () => page.evaluate(() => window.strata.selection());
  // where the selected event is drawn: canvas x range and the y of its row
  const placed = async () => {
    const [e] = await sel();
    const v = await app.view();
    const tracks = await page.evaluate(() => window.strata.tracks());
    const tr = tracks.find((k) => e.row >= k.first_row && e.row < k.first_row + k.rows);
    const usPx = (v.end_us - v.start_us) / (box.width - GUTTER_PX);
    const x0 = GUTTER_PX + (e.ts_us - v.start_us) / usPx;
    const x1 = GUTTER_PX + (e.ts_us + e.dur_us - v.start_us) / usPx;
    const y = AXIS_PX + tr.y + (e.row - tr.first_row) * 20 + 10 - v.scroll_y;
    return { e, v, x0, x1, y };
  };

  await page.mouse.click(box.x + box.width - 5, box.y + AXIS_PX + 5); // focus the timeline
  const v0 = await app.view();
  assert.ok(v0.end_us - v0.start_us > 130000, `the whole 131 ms at first: ${JSON.stringify(v0)}`);
  await page.keyboard.press('/');
  await page.waitForFunction(() => document.activeElement?.id === 'search');
  await page.keyboard.type('fusion');
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '20 matches');

  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '1 of 20');
  let p = await placed();
  assert.equal(p.e.name, 'fusion.0');
  assert.ok(p.x1 - p.x0 >= 3, `the 7.6 us match is at least a few px wide: ${p.x1 - p.x0} px (view ${JSON.stringify(p.v)})`);
  assert.ok(p.x0 > GUTTER_PX && p.x1 < box.width, `the match is inside the timeline: ${p.x0}..${p.x1}`);
  assert.ok(p.v.scroll_y > 0 && p.y > AXIS_PX && p.y < box.height, `its track was scrolled into view: y ${p.y}, scroll ${p.v.scroll_y}`);
  // the mouse finds it where it is drawn
  await page.mouse.move(box.x + (p.x0 + p.x1) / 2, box.y + p.y);
  await page.waitForFunction(() => /fusion\.0/.test(document.getElementById('tooltip').textContent) && !document.getElementById('tooltip').hidden);

  // stepping, in the box
  await page.keyboard.press('Enter');
  assert.equal(await count(), '2 of 20');
  assert.equal((await sel())[0].name, 'fusion.1');
  p = await placed();
  assert.ok(p.x1 - p.x0 >= 3 && p.y > AXIS_PX && p.y < box.height, 'each match is made visible');
  await page.keyboard.press('Shift+Enter');
  assert.equal(await count(), '1 of 20');
  await page.keyboard.press('PageDown');
  assert.equal(await count(), '11 of 20');
  assert.equal((await sel())[0].name, 'fusion.10');
  await page.keyboard.press('PageUp');
  assert.equal(await count(), '1 of 20');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  assert.equal(await count(), '3 of 20');

  // the first Esc: out of the box, search and selection kept
  await page.keyboard.press('Escape');
  await frame();
  assert.notEqual(await page.evaluate(() => document.activeElement?.id), 'search');
  assert.equal(await page.locator('#search').inputValue(), 'fusion');
  assert.equal(await count(), '3 of 20');
  assert.deepEqual((await sel()).map((e) => e.name), ['fusion.2']);
  // f acts on the match (and is not typed into the box)
  await page.keyboard.press('f');
  let v = await app.view();
  assert.equal(await page.locator('#search').inputValue(), 'fusion');
  const [m] = await sel();
  assert.ok(v.start_us <= m.ts_us && v.end_us >= m.ts_us + m.dur_us && v.end_us - v.start_us < 10, `f fits the match: ${JSON.stringify(v)}`);
  // W zooms, A pans
  await page.keyboard.press('0');
  await page.keyboard.press('Shift+Enter'); // back to the match (Enter keys the timeline too)
  assert.equal(await count(), '2 of 20');
  v = await app.view();
  await page.keyboard.press('w');
  const vw = await app.view();
  assert.ok(vw.end_us - vw.start_us < 0.9 * (v.end_us - v.start_us), 'W zooms in');
  await page.keyboard.press('a');
  const va = await app.view();
  assert.ok(va.start_us < vw.start_us, 'A pans');
  await page.keyboard.press('PageDown');
  assert.equal(await count(), '12 of 20');
  // Enter on a focused button is the button's, not a search step
  await page.focus('#summarize-window');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.getElementById('summary').hidden);
  assert.equal(await count(), '12 of 20');
  await page.mouse.click(box.x + box.width - 5, box.y + AXIS_PX + 5); // back to the timeline (a click off the events)

  // the second Esc clears the search and the selection
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '');
  assert.equal(await page.locator('#search').inputValue(), '');
  assert.deepEqual(await sel(), []);
  assert.deepEqual(app.pageErrors, []);
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const { bad, message } = privacyReport(ctx.requests, ctx.server.origin);
  assert.deepEqual(bad, [], message);
});
