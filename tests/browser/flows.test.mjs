// Flow arrows in the page: open a small flow fixture through the file input,
// click the producer slice, follow the flow link in #details to the
// consumer (window.strata.selection() is then the other end, centred), and
// switch the arrows' mode with the toolbar control and the l key (pixels
// change). The default mode is 'selection' (issue 19): no arrow until an
// event with flows is selected; tests/browser/flow-modes.test.mjs has the rest.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { useBrowser, decodePng, GUTTER_PX, AXIS_PX, REPO_ROOT } from './harness.mjs';

const ctx = useBrowser({ before, after });
const FIXTURE = path.join(REPO_ROOT, 'tests', 'fixtures', 'flows_v2_small.json');
// Layout (core/view/view.h): axis 28 px, section header 24 px, rows 20 px, 4 px after a track.
const ROW1_Y = AXIS_PX + 24 + 10; // tid 1 (launch, other)
const ROW2_Y = AXIS_PX + 24 + 20 + 4 + 10; // tid 2 (kernel)

test('flow link in the details jumps to the other end; arrows toggle', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const out = await app.openViaInput(FIXTURE);
  assert.equal(out.type, 'strata:loaded', JSON.stringify(out));
  assert.equal((await app.stats()).flows, 1);
  const page = app.page;
  const box = await page.locator('#canvas').boundingBox();
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  const xOf = async (us) => {
    const v = await app.view();
    return GUTTER_PX + ((us - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  };
  const shot = async () => decodePng(await page.locator('#canvas').screenshot());
  // the area between the two slices, where only the arrow runs
  const arrowPixels = (img) => {
    let n = 0;
    const x0 = Math.floor(box.width * 0.45), x1 = Math.floor(box.width * 0.6);
    for (let y = ROW1_Y; y <= ROW2_Y; y++)
      for (let x = x0; x < x1; x++) {
        const i = (y * img.width + x) * 4;
        if (img.data[i] < 200 || img.data[i + 1] < 200) n++;
      }
    return n;
  };
  await frame();
  // the default mode draws the selection's arrows only: none yet
  assert.equal(await page.locator('#flows').inputValue(), 'selection');
  assert.equal(arrowPixels(await shot()), 0, 'no arrow before a selection (mode selection)');
  // the control: all, the arrow between the producer and the consumer
  await page.selectOption('#flows', 'all');
  await frame();
  const on = await shot();
  if (process.env.STRATA_FLOW_SHOT) (await import('node:fs')).writeFileSync(process.env.STRATA_FLOW_SHOT, await page.locator('#canvas').screenshot());
  assert.ok(arrowPixels(on) > 0, 'an arrow is drawn between the producer and the consumer');

  // the l key: all -> off, the pixels between the slices are background
  await page.locator('#canvas').focus();
  await page.keyboard.press('l');
  await frame();
  assert.equal(await page.locator('#flows').inputValue(), 'off');
  const off = await shot();
  assert.equal(arrowPixels(off), 0, 'no arrow when off');
  // l: off -> selection (still none), l: selection -> all
  await page.keyboard.press('l');
  await page.keyboard.press('l');
  await frame();
  assert.equal(await page.locator('#flows').inputValue(), 'all');
  assert.ok(arrowPixels(await shot()) > 0);

  // click the producer; its flow shows in #details as a link
  await page.mouse.click(box.x + (await xOf(1500)), box.y + ROW1_Y);
  await frame();
  const sel = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => e.name), ['launch']);
  const link = page.locator('#details a.flow-link');
  assert.equal(await link.count(), 1);
  assert.match(await link.textContent(), /kernel/);
  // a selected event's flows are drawn in the selection mode (and not when off)
  await page.selectOption('#flows', 'selection');
  await frame();
  assert.ok(arrowPixels(await shot()) > 0, 'the selected event keeps its arrow');
  await page.selectOption('#flows', 'off');
  await frame();
  assert.equal(arrowPixels(await shot()), 0, 'off: not even the selected event\'s');
  await page.selectOption('#flows', 'selection');
  await link.click();
  await frame();
  const after = await page.evaluate(() => window.strata.selection());
  assert.deepEqual(after.map((e) => e.name), ['kernel']);
  assert.match(await page.locator('#details').textContent(), /flows in \(1\)/);
  assert.match(await page.locator('#details a.flow-link').textContent(), /launch/);
  // the other end is in view (centred)
  const v = await app.view();
  assert.ok(v.start_us < 7000 && v.end_us > 7000, JSON.stringify(v));
});
