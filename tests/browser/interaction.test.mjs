// Interaction as a user performs it: real mouse clicks, drags, wheel turns
// and key presses on the page (page.mouse, page.keyboard), with outcomes
// checked through window.strata (view(), selection(), search()) and the DOM
// panels (#tool, #search, #search-count, #details, #help, #tooltip).
// The state lives in C (core/ui/ui.h); this checks the page routes input to it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, GUTTER_PX, AXIS_PX } from './harness.mjs';

const ctx = useBrowser({ before, after });

// One process, one thread: alpha [0, 1000) beta [2000, 3000) alpha [4000, 5000)
// gamma [6000, 9000) (us); a second thread with delta [1500, 2500).
const TRACE = {
  traceEvents: [
    { name: 'process_name', ph: 'M', pid: 1, args: { name: 'host' } },
    { name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 'main' } },
    { name: 'alpha', cat: 'c', ph: 'X', pid: 1, tid: 1, ts: 0, dur: 1000, args: { k: 'v' } },
    { name: 'beta', cat: 'c', ph: 'X', pid: 1, tid: 1, ts: 2000, dur: 1000 },
    { name: 'alpha', cat: 'c', ph: 'X', pid: 1, tid: 1, ts: 4000, dur: 1000 },
    { name: 'gamma', cat: 'c', ph: 'X', pid: 1, tid: 1, ts: 6000, dur: 3000 },
    { name: 'delta', cat: 'c', ph: 'X', pid: 1, tid: 2, ts: 1500, dur: 1000 },
  ],
};
// Layout (core/view/view.h): axis 28 px, section header 24 px, rows 20 px, 4 px after a track.
const ROW1_Y = AXIS_PX + 24 + 10; // middle of tid 1's row
const ROW2_Y = AXIS_PX + 24 + 20 + 4 + 10; // middle of tid 2's row

async function setup(opts = {}) {
  const app = await ctx.app(opts);
  await app.demoLoaded();
  const r = await app.openBuffer(Buffer.from(JSON.stringify(TRACE)));
  assert.ok(r.ok, `open failed: ${r.message}`);
  const page = app.page;
  const box = await page.locator('#canvas').boundingBox();
  // canvas px of a time (us, file timebase), from the current view
  const xOf = async (us) => {
    const v = await app.view();
    return GUTTER_PX + ((us - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  };
  const at = (x, y) => [box.x + x, box.y + y];
  const names = async () => (await page.evaluate(() => window.strata.selection())).map((e) => e.name);
  // panels are refreshed on the page's next animation frame: wait two
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  return { app, page, box, xOf, at, names, frame };
}

test('click selects, ctrl+click adds and removes, Esc clears; details pane shows the one event', async (t) => {
  const { app, page, xOf, at, names, frame } = await setup();
  t.after(() => app.close());
  await page.mouse.click(...at(await xOf(2500), ROW1_Y));
  assert.deepEqual(await names(), ['beta']);
  await frame();
  const details = await page.locator('#details').textContent();
  assert.match(details, /beta/);
  assert.match(details, /1 ms/); // duration
  await page.keyboard.down('Control');
  await page.mouse.click(...at(await xOf(7000), ROW1_Y));
  await page.keyboard.up('Control');
  assert.deepEqual((await names()).sort(), ['beta', 'gamma']);
  await frame();
  assert.match(await page.locator('#summary').textContent(), /2 events selected/); // the summary table (panels.js)
  await page.keyboard.down('Control');
  await page.mouse.click(...at(await xOf(2500), ROW1_Y));
  await page.keyboard.up('Control');
  assert.deepEqual(await names(), ['gamma']);
  await page.keyboard.press('Escape');
  assert.deepEqual(await names(), []);
});

test('box drag with the select tool selects every event in the box', async (t) => {
  const { app, page, xOf, at, names, frame } = await setup();
  t.after(() => app.close());
  await page.keyboard.press('1'); // the select tool
  await frame();
  assert.equal(await page.locator('#tool').inputValue(), '0');
  await page.mouse.move(...at(await xOf(500), ROW1_Y - 5));
  await frame();
  await page.mouse.down();
  await page.mouse.move(...at(await xOf(1800), ROW2_Y), { steps: 5 });
  await page.mouse.up();
  assert.deepEqual((await names()).sort(), ['alpha', 'delta']);
});

test('keys 1-4 pick the tool shown in #tool; pan drag, zoom drag', async (t) => {
  const { app, page, box, xOf, at, frame } = await setup();
  t.after(() => app.close());
  await page.mouse.click(...at(box.width - 5, box.height - 5)); // focus the canvas
  for (const [key, want] of [['2', '1'], ['3', '2'], ['4', '3'], ['1', '0']]) {
    await page.keyboard.press(key);
    await frame();
    assert.equal(await page.locator('#tool').inputValue(), want, `after key ${key}`);
  }
  // pan: dragging left by 200 px moves the window later in time by 200 px worth
  await page.keyboard.press('2');
  const v0 = await app.view();
  const usPerPx = (v0.end_us - v0.start_us) / (box.width - GUTTER_PX);
  await page.mouse.move(...at(800, ROW1_Y));
  await page.mouse.down();
  await page.mouse.move(...at(600, ROW1_Y), { steps: 4 });
  await page.mouse.up();
  const v1 = await app.view();
  assert.ok(Math.abs(v1.start_us - v0.start_us - 200 * usPerPx) < 2 * usPerPx, `pan: ${JSON.stringify([v0, v1])}`);
  // zoom: drag from t=2000 to t=5000 shows that range
  await page.keyboard.press('0');
  await page.keyboard.press('3');
  const xa = await xOf(2000), xb = await xOf(5000);
  await page.mouse.move(...at(xa, ROW1_Y));
  await page.mouse.down();
  await page.mouse.move(...at(xb, ROW1_Y), { steps: 4 });
  await page.mouse.up();
  const v2 = await app.view();
  assert.ok(Math.abs(v2.start_us - 2000) < 15 && Math.abs(v2.end_us - 5000) < 15, `zoom drag: ${JSON.stringify(v2)}`);
  await page.keyboard.press('1');
});

test('W / S zoom around the mouse, A / D pan and accelerate while held, 0 fits', async (t) => {
  const { app, page, box, at } = await setup({ captureModule: true }); // app.holdKey: the app's clock stepped by the test
  t.after(() => app.close());
  await page.mouse.click(...at(box.width - 5, box.height - 5));
  await page.keyboard.press('0');
  const x = 700;
  await page.mouse.move(...at(x, ROW1_Y + 40));
  const v0 = await app.view();
  const tAt = (v) => v.start_us + ((x - GUTTER_PX) / (box.width - GUTTER_PX)) * (v.end_us - v.start_us);
  await page.keyboard.press('w');
  const v1 = await app.view();
  assert.ok(v1.end_us - v1.start_us < (v0.end_us - v0.start_us) * 0.9, 'W zooms in');
  assert.ok(Math.abs(tAt(v1) - tAt(v0)) < 1, `the time under the mouse stays: ${tAt(v0)} -> ${tAt(v1)}`);
  await page.keyboard.press('s');
  const v2 = await app.view();
  assert.ok(v2.end_us - v2.start_us > v1.end_us - v1.start_us, 'S zooms out');
  // zoom in so there is room to pan, then tap D vs hold D
  for (let i = 0; i < 6; i++) await page.keyboard.press('w');
  const a = await app.view();
  await page.keyboard.press('d');
  const b = await app.view();
  const tap = b.start_us - a.start_us;
  assert.ok(tap > 0, 'D pans later');
  await app.holdKey('d', 400);
  const c = await app.view();
  assert.ok(c.start_us - b.start_us > 2 * tap, `holding D keeps panning: tap ${tap}, held ${c.start_us - b.start_us}`);
  await page.keyboard.press('a');
  assert.ok((await app.view()).start_us < c.start_us, 'A pans earlier');
  await page.keyboard.press('0');
  const f = await app.view();
  assert.ok(f.start_us <= 0 && f.end_us >= 9000, `0 fits: ${JSON.stringify(f)}`);
});

test('ctrl+wheel zooms at the cursor, shift+wheel pans, wheel scrolls', async (t) => {
  const { app, page, box, at } = await setup();
  t.after(() => app.close());
  await page.mouse.move(...at(600, ROW1_Y));
  const v0 = await app.view();
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -200);
  await page.keyboard.up('Control');
  const v1 = await app.view();
  assert.ok(v1.end_us - v1.start_us < v0.end_us - v0.start_us, 'ctrl+wheel zooms in');
  await page.keyboard.down('Shift');
  await page.mouse.wheel(0, 100);
  await page.keyboard.up('Shift');
  const v2 = await app.view();
  assert.ok(v2.start_us > v1.start_us && Math.abs((v2.end_us - v2.start_us) - (v1.end_us - v1.start_us)) < 1e-6 * v1.end_us + 1e-3, 'shift+wheel pans');
  await page.mouse.wheel(0, 100);
  const v3 = await app.view();
  assert.equal(v3.start_us, v2.start_us, 'plain wheel does not pan');
  assert.ok(box.height > 0);
});

test('search: / focuses the box, the count shows, Enter / Shift+Enter step in time order and select', async (t) => {
  const { app, page, box, at, names } = await setup();
  t.after(() => app.close());
  await page.mouse.click(...at(box.width - 5, box.height - 5));
  await page.keyboard.press('/');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'search', null, { timeout: 120_000 });
  await page.keyboard.type('ALPHA');
  await page.waitForFunction(() => /2 match/.test(document.getElementById('search-count').textContent));
  await page.keyboard.press('Enter');
  let sel = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.ts_us]), [['alpha', 0]]);
  await page.keyboard.press('Enter');
  sel = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.ts_us]), [['alpha', 4000]]);
  const v = await app.view();
  assert.ok(Math.abs((v.start_us + v.end_us) / 2 - 4500) < 5, 'the match is centred');
  await page.keyboard.press('Shift+Enter');
  assert.deepEqual((await page.evaluate(() => window.strata.selection())).map((e) => e.ts_us), [0]);
  assert.equal((await page.evaluate(() => window.strata.search('gam'))).matches, 1);
  assert.deepEqual(await names(), ['alpha']);
});

test('? shows the help; double-click zooms to a slice; hover shows a tooltip; f fits the selection', async (t) => {
  const { app, page, box, xOf, at, frame } = await setup();
  t.after(() => app.close());
  await page.mouse.click(...at(box.width - 5, box.height - 5));
  await page.keyboard.press('?');
  await frame();
  assert.equal(await page.locator('#help').isVisible(), true);
  await page.keyboard.press('Escape');
  await frame();
  assert.equal(await page.locator('#help').isVisible(), false);
  await page.mouse.move(...at(await xOf(7500), ROW1_Y));
  await page.waitForFunction(() => !document.getElementById('tooltip').hidden);
  assert.match(await page.locator('#tooltip').textContent(), /gamma.*3 ms/);
  await page.mouse.dblclick(...at(await xOf(7500), ROW1_Y));
  const v = await app.view();
  assert.ok(v.start_us < 6000 && v.start_us > 5500 && v.end_us > 9000 && v.end_us < 9500, `double-click: ${JSON.stringify(v)}`);
  await page.keyboard.press('0');
  await page.mouse.click(...at(await xOf(2500), ROW1_Y));
  await page.keyboard.press('f');
  const w = await app.view();
  assert.ok(w.start_us < 2000 && w.start_us > 1800 && w.end_us > 3000 && w.end_us < 3200, `f: ${JSON.stringify(w)}`);
});
