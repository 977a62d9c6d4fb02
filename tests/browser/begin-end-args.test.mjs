// B/E slices (Chrome JSON "B" / "E" pairs): the slice's args are the B's
// merged with the E's, the E winning on a duplicate key (the spec, catapult,
// Perfetto). Open tests/fixtures/begin_end_args.json (plain and gzip'd),
// click the slices as a user does and read #details; then "in args" search
// for a value present only on an E: it finds the slice.
//
//   step  B ts 10 {step, phase, shared: "from B"}  E ts 20 {shared: "from E", result: {loss}}
//   inner B ts 12 (no args)                         E ts 14 {only_on_end: "Quokkafinch"}
//   op    X ts 15 dur 2 {x: 1}
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { useBrowser, GUTTER_PX, AXIS_PX, REPO_ROOT, privacyReport } from './harness.mjs';

const ctx = useBrowser({ before, after });
const FIXTURE = path.join(REPO_ROOT, 'tests', 'fixtures', 'begin_end_args.json');
// Layout (core/view/view.h): axis 28 px, section header 24 px, rows 20 px.
const DEPTH0_Y = AXIS_PX + 24 + 10; // step
const DEPTH1_Y = AXIS_PX + 24 + 20 + 10; // inner, op
const STEP_ARGS = { step: 1, phase: 'begin', shared: 'from E', result: { loss: 0.5 } };

let dir;
let gz;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-be-args-'));
  gz = path.join(dir, 'begin_end_args.json.gz');
  fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(FIXTURE)));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function check(file) {
  const app = await ctx.app();
  try {
    await app.demoLoaded();
    const ev = await app.openViaInput(file);
    assert.equal(ev.type, 'strata:loaded', app.diagnostics());
    const page = app.page;
    const box = await page.locator('#canvas').boundingBox();
    const xOf = async (us) => {
      const v = await app.view();
      return GUTTER_PX + ((us - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
    };
    const details = page.locator('#details');
    const clickAndRead = async (us, y, name) => {
      await page.mouse.click(box.x + (await xOf(us)), box.y + y);
      await page.waitForFunction((n) => (window.strata.selection() || []).map((e) => e.name).join() === n, name);
      await details.waitFor({ state: 'visible' });
      // the args are read from the file after the click: wait until they are shown
      await page.waitForFunction(() => {
        const a = document.querySelector('#details .args');
        return a && !/reading/.test(a.textContent);
      }, null, { timeout: 120_000 });
      return details.textContent();
    };

    // the outer slice: B's keys, the E's keys, and the E's value of "shared"
    let text = await clickAndRead(18.5, DEPTH0_Y, 'step');
    for (const s of ['phase', 'begin', 'shared', 'from E', 'result', 'loss']) assert.ok(text.includes(s), `#details shows ${s}: ${text}`);
    assert.ok(!text.includes('from B'), `the E wins on "shared": ${text}`);
    let sel = await page.evaluate(() => window.strata.selection());
    assert.deepEqual(sel[0].args, STEP_ARGS, 'selection().args is the merged object');
    assert.deepEqual((await page.evaluate((s) => window.strata.argsOf(s), sel[0].src)).args, STEP_ARGS);

    // the inner slice: no args on its B, one on its E
    text = await clickAndRead(13, DEPTH1_Y, 'inner');
    assert.ok(text.includes('only_on_end') && text.includes('Quokkafinch'), `#details shows the E's args: ${text}`);
    sel = await page.evaluate(() => window.strata.selection());
    assert.deepEqual(sel[0].args, { only_on_end: 'Quokkafinch' });

    // an X is unchanged
    await clickAndRead(16, DEPTH1_Y, 'op');
    assert.deepEqual((await page.evaluate(() => window.strata.selection()))[0].args, { x: 1 });
    await page.keyboard.press('Escape');

    // search in args: values only on an E find their slice
    assert.deepEqual(await page.evaluate(() => window.strata.search('quokkafinch')), { matches: 0 });
    let r = await page.evaluate(() => window.strata.search('quokkafinch', { args: true }));
    assert.equal(r.matches, 1, JSON.stringify(r));
    r = await page.evaluate(() => window.strata.search('LOSS', { args: true }));
    assert.equal(r.matches, 1, JSON.stringify(r));
    // through the UI: type with "in args" ticked, Enter selects the slice
    await page.evaluate(() => window.strata.search(''));
    await page.locator('#search-args').check();
    await page.locator('#search').fill('Quokkafinch');
    await page.locator('#search').press('Enter');
    await page.waitForFunction(() => (window.strata.selection() || []).length === 1, null, { timeout: 120_000 });
    await page.waitForFunction(() => document.getElementById('search-count').textContent === '1 of 1');
    assert.equal((await page.evaluate(() => window.strata.selection()))[0].name, 'inner');
    assert.deepEqual(app.pageErrors, []);
    const { bad, message } = privacyReport(app.requests, ctx.server.origin);
    assert.deepEqual(bad, [], message);
  } finally {
    await app.close();
  }
}

test('B/E slice: #details shows the B and E args merged (E wins); in-args search finds an E-only value', () => check(FIXTURE));
test('B/E slice args and search through gzip', () => check(gz));
