// Op statistics, the duration histogram and the idle gaps (issue 18, items 3
// and 5), driven as a user: a generated trace with planted idle gaps
// (strata-gen --idle-gap 5000 --idle-every 10: each GPU idle exactly 5000 us
// in steps 1 and 11) opened through the file input; "Op stats" clicked and
// its rows checked against `strata analyze --json` (the same numbers); a
// row clicked, a histogram bar clicked and the selection checked (exactly
// that bin's instances); g pressed and the planted gaps checked in the list
// (against the CLI), on the canvas (pixels: the band's orange over the
// device row, and the draw list's band count) and by clicking one (the
// view then holds it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { useBrowser, CLI, privacyReport } from './harness.mjs';

const ctx = useBrowser({ before, after });
const GEN = path.join(path.dirname(CLI), 'strata-gen');
const NO_CLI = !(fs.existsSync(CLI) && fs.existsSync(GEN)) && `native CLI / strata-gen not built (${CLI})`;

let file = null;
function trace() {
  if (file) return file;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-opstats-'));
  file = path.join(dir, 'gaps.json');
  execFileSync(GEN, ['-n', '20000', '--steps', '20', '--idle-gap', '5000', '--idle-every', '10', '-o', file]);
  return file;
}
const cli = (...args) => JSON.parse(execFileSync(CLI, ['analyze', trace(), '--json', ...args], { maxBuffer: 64 << 20 }).toString());

async function opened() {
  const app = await ctx.app();
  await app.demoLoaded();
  const r = await app.openViaInput(trace());
  assert.equal(r.type, 'strata:loaded', JSON.stringify(r));
  return app;
}

const noKind = (ops) => ops.map(({ kind, ...o }) => o);

test('op stats: the rows are strata analyze\'s ops; sortable; other scopes', { skip: NO_CLI }, async () => {
  const app = await opened();
  const page = app.page;
  await page.click('#opstats-button');
  await page.waitForSelector('#opstats-body tr');
  const ours = await page.evaluate(() => window.strata.opStats({ scope: 'trace' }));
  const theirs = cli('--ops', '0');
  assert.equal(ours.names, theirs.op_names);
  // (the CLI's ops also carry each name's kind, issue 29; the page's table has no kinds)
  assert.deepEqual(ours.rows, noKind(theirs.ops));
  // the table shows them, by self time first; a click on "Count" sorts by count
  const first = await page.$eval('#opstats-body tr', (tr) => tr.dataset.name);
  assert.equal(first, theirs.ops[0].name);
  await page.click('#opstats thead button[data-key="count"]');
  const byCount = [...theirs.ops].sort((a, b) => b.count - a.count)[0];
  assert.equal(await page.$eval('#opstats-body tr td:nth-child(2)', (td) => td.textContent), byCount.count.toLocaleString('en-US'));
  // a step and the window, as the CLI's --step and --from/--to
  const step = await page.evaluate(() => window.strata.opStats({ scope: 'step', step: 11 }));
  assert.deepEqual(step.rows, noKind(cli('--ops', '0', '--step', '11').ops));
  // the window: the CLI's --from / --to are the trace's own us (from its first timestamp); the
  // page's view is in the file's timebase, so the offset is taken from the idle gaps of both
  const origin = await page.evaluate(() => window.strata.idleGaps().gaps[0].start_us) - cli('--gaps', '1').idle_gaps[0].start_us;
  const v = await page.evaluate((o) => { window.strata.setView({ start_us: o + 20000, end_us: o + 60000 }); return window.strata.opStats({ scope: 'window' }); }, origin);
  assert.deepEqual(v.rows, noKind(cli('--ops', '0', '--from', '20000', '--to', '60000').ops));
  // the scope menu as a user picks it
  await page.selectOption('#opstats-scope', 'window');
  assert.match(await page.textContent('#opstats-meta'), /visible window/);
});

test('histogram: bins as the CLI\'s --hist; a bar click selects exactly its instances', { skip: NO_CLI }, async () => {
  const app = await opened();
  const page = app.page;
  await page.click('#opstats-button');
  await page.waitForSelector('#opstats-body tr');
  const ops = cli('--ops', '0').ops;
  const op = [...ops].sort((a, b) => b.count - a.count)[0]; // the most instances: several bins
  await page.click(`#opstats-body tr[data-name="${op.name.replace(/"/g, '\\"')}"]`);
  await page.waitForSelector('#opstats-hist .hist-bin');
  assert.equal(await page.$eval('#opstats-body tr.active', (tr) => tr.dataset.name), op.name);
  const h = await page.evaluate((name) => window.strata.histogram(name), op.name);
  const want = cli('--hist', op.name).histogram;
  assert.equal(h.name, want.name);
  assert.deepEqual(h.bins.map((b) => [b.lo_us, b.hi_us, b.count]), want.bins.map((b) => [b.lo_us, b.hi_us, b.count]));
  assert.equal(h.bins.reduce((s, b) => s + b.count, 0), op.count);
  assert.ok(h.bins.length >= 2, 'several bins');
  // the fullest bin, clicked
  let best = 0;
  h.bins.forEach((b, i) => { if (b.count > h.bins[best].count) best = i; });
  await page.click(`#opstats-hist .hist-bin[data-index="${best}"]`);
  const sel = await page.evaluate(() => window.strata.selection());
  const bin = h.bins[best];
  assert.equal(sel.length, bin.count);
  for (const e of sel) {
    assert.equal(e.name, op.name);
    const d = Math.round(e.dur_us * 1000);
    assert.ok(d >= Math.round(bin.lo_us * 1000) && d < Math.round(bin.hi_us * 1000), `${e.dur_us} us in [${bin.lo_us}, ${bin.hi_us})`);
  }
  // another bin: its instances instead
  const other = best === 0 ? 1 : 0;
  await page.click(`#opstats-hist .hist-bin[data-index="${other}"]`);
  assert.equal((await page.evaluate(() => window.strata.selection())).length, h.bins[other].count);
  // the selection scope, picked in the menu: the op stats of what is selected, and the
  // histogram of the whole selection (any name)
  await page.selectOption('#opstats-scope', 'selection');
  await page.waitForSelector('#opstats-hist .hist-bin');
  const s = await page.evaluate(() => window.strata.opStats({ scope: 'selection' }));
  assert.equal(s.rows.length, 1);
  assert.equal(s.rows[0].count, h.bins[other].count);
  const hs = await page.evaluate(() => window.strata.histogram(null, { scope: 'selection' }));
  assert.equal(hs.name, null);
  assert.equal(hs.bins.reduce((t, b) => t + b.count, 0), h.bins[other].count);
  // a box over several rows selects many names; the selection's histogram counts them all
  await page.evaluate(() => window.strata.setView({ start_us: window.strata.view().start_us, end_us: window.strata.view().start_us + 20000 }));
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.move(box.x + 300, box.y + 60);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width - 20, box.y + box.height - 20, { steps: 4 });
  await page.mouse.up();
  const many = (await page.evaluate(() => window.strata.selection())).filter((e) => e.dur_us !== undefined);
  const all = await page.evaluate(() => window.strata.opStats({ scope: 'selection' }));
  assert.ok(all.rows.length > 1, 'several names selected');
  const hAll = await page.evaluate(() => window.strata.histogram(null, { scope: 'selection' }));
  const n = all.rows.reduce((t, r) => t + r.count, 0);
  assert.equal(hAll.bins.reduce((t, b) => t + b.count, 0), n);
  assert.ok(n <= many.length);
  let top = 0;
  hAll.bins.forEach((b, i) => { if (b.count > hAll.bins[top].count) top = i; });
  await page.click(`#opstats-hist .hist-bin[data-index="${top}"]`);
  const narrowed = await page.evaluate(() => window.strata.selection());
  assert.equal(narrowed.length, hAll.bins[top].count);
  for (const e of narrowed) {
    const d = Math.round(e.dur_us * 1000);
    assert.ok(d >= Math.round(hAll.bins[top].lo_us * 1000) && d < Math.round(hAll.bins[top].hi_us * 1000));
  }
});

test('idle gaps: g highlights them, the list is the CLI\'s, a click goes there', { skip: NO_CLI }, async () => {
  const app = await opened();
  const page = app.page;
  const want = cli('--gaps', '20').idle_gaps;
  const planted = want.filter((g) => g.dur_us === 5000);
  assert.equal(planted.length, 4, '2 GPUs x steps 1 and 11');
  // off: no bands drawn
  assert.equal((await app.frameStats()).bands, 0);
  await page.locator('#canvas').focus();
  await page.keyboard.press('g');
  await page.waitForSelector('#idle-gaps:not([hidden]) li');
  assert.equal(await page.getAttribute('#idle-gaps-button', 'aria-pressed'), 'true');
  const list = await page.evaluate(() => window.strata.idleGaps());
  assert.equal(list.shown, true);
  assert.ok(list.highlighted >= 20);
  assert.deepEqual(list.gaps.map((g) => [g.dur_us, g.host.map((x) => x.name)]), want.map((g) => [g.dur_us, g.host.map((x) => x.name)]));
  const origin = list.gaps[0].start_us - want[0].start_us; // the view's timebase vs the file's own
  list.gaps.forEach((g, i) => assert.ok(Math.abs(g.start_us - origin - want[i].start_us) < 1e-3));
  // each planted gap: clicked in the list, the view holds it and the band is drawn over it
  for (let i = 0; i < 4; i++) {
    assert.equal(list.gaps[i].dur_us, 5000);
    const f0 = (await app.frameStats()).frames;
    await page.click(`#idle-gaps-list li[data-index="${i}"]`);
    await app.framesAfter(f0);
    const v = await app.view();
    assert.ok(v.start_us <= list.gaps[i].start_us && v.end_us >= list.gaps[i].end_us, `view ${JSON.stringify(v)} holds gap ${i}`);
    assert.ok(v.end_us - v.start_us < 3 * 5000, 'zoomed to it');
    assert.ok((await app.frameStats()).bands >= 1, 'bands drawn');
  }
  // pixels: the middle of the gap on screen, with the highlight and without
  const on = await app.timelineShot('gaps-on');
  const f1 = (await app.frameStats()).frames;
  await page.keyboard.press('g');
  await app.framesAfter(f1);
  assert.equal((await app.frameStats()).bands, 0);
  const off = await app.timelineShot('gaps-off');
  const x = Math.floor(on.img.width / 2);
  let orange = 0;
  for (let y = 0; y < on.img.height; y++) {
    const k = (y * on.img.width + x) * 4;
    const [r1, g1, b1] = [on.img.data[k], on.img.data[k + 1], on.img.data[k + 2]];
    const [r0, g0, b0] = [off.img.data[k], off.img.data[k + 1], off.img.data[k + 2]];
    if ((r1 !== r0 || g1 !== g0 || b1 !== b0) && b1 < b0 - 20 && r1 >= g1) orange++;
  }
  assert.ok(orange >= 10, `the gap's band over the device row (${orange} px)`);
});

test('privacy: every request went to the page\'s own origin', { skip: NO_CLI }, () => {
  const { bad, message } = privacyReport(ctx.requests, ctx.server.origin);
  assert.deepEqual(bad, [], message);
});
