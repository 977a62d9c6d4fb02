// Flow arrow modes (issue 19 item 1): a Kineto-like trace with 3,000
// CPU-launch -> GPU-kernel flows (written here) and a real Kineto trace of
// the corpus. The first view draws no arrow (mode 'selection', nothing
// selected: switching to 'off' changes no pixel, where drawing them all on
// top changed 16.6 % of this canvas on hta__control); 'all' bundles them
// (every flow in view counted in a bundle or drawn alone, count labels) and
// draws them under the slices (every pixel that changes between 'off' and
// 'all' is background or grid in 'off': no slice is covered); clicking a
// slice draws its whole chain (two arrows through the middle event of a
// s -> t -> f flow), a box selection the chains of all its events, each
// arrow once (counted here from how the trace was written); the control,
// window.strata.setFlows, the key l and the link (#...&flows=all) set the
// mode, and the link round-trips it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { useBrowser, decodePng, privacyReport, GUTTER_PX, AXIS_PX, CORPUS, corpusMissing } from './harness.mjs';

const ctx = useBrowser({ before, after });
const KINETO = path.join(CORPUS, 'hta__control.json.gz');

// Kineto's shape: ProfilerStep#N > aten::op > cudaLaunchKernel on the CPU
// thread, each launch an "ac2g" flow (s on the launch, f bp e on the kernel)
// to a kernel on GPU stream 7; steps 3 ms long, 1 ms apart. In the first gap,
// a chain produce (tid 2) -> consume (tid 1) -> upload (stream 7), s / t / f.
const STEPS = 20;
const PER_STEP = 150;
const FLOWS = STEPS * PER_STEP + 2;
function kinetoLike() {
  const ev = [
    { ph: 'M', name: 'process_name', pid: 1, args: { name: 'python' } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: 'main' } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 2, args: { name: 'dataloader' } },
    { ph: 'M', name: 'process_name', pid: 2, args: { name: 'GPU 0' } },
    { ph: 'M', name: 'thread_name', pid: 2, tid: 7, args: { name: 'stream 7' } },
  ];
  let id = 1;
  for (let s = 0; s < STEPS; s++) {
    const t = s * 4000;
    ev.push({ ph: 'X', name: `ProfilerStep#${s}`, pid: 1, tid: 1, ts: t, dur: PER_STEP * 20 + 10 });
    for (let k = 0; k < PER_STEP; k++, id++) {
      const o = t + k * 20;
      ev.push({ ph: 'X', name: `aten::op${k % 7}`, pid: 1, tid: 1, ts: o + 1, dur: 15 });
      ev.push({ ph: 'X', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: o + 3, dur: 8 });
      ev.push({ ph: 's', id, pid: 1, tid: 1, ts: o + 4, cat: 'ac2g', name: 'ac2g' });
      ev.push({ ph: 'X', name: `kernel${k % 5}`, pid: 2, tid: 7, ts: o + 40, dur: 12 });
      ev.push({ ph: 'f', id, pid: 2, tid: 7, ts: o + 41, cat: 'ac2g', name: 'ac2g', bp: 'e' });
    }
  }
  ev.push({ ph: 'X', name: 'produce', pid: 1, tid: 2, ts: 3100, dur: 200 });
  ev.push({ ph: 's', id: 'chain', pid: 1, tid: 2, ts: 3150, cat: 'c', name: 'chain' });
  ev.push({ ph: 'X', name: 'consume', pid: 1, tid: 1, ts: 3400, dur: 200 });
  ev.push({ ph: 't', id: 'chain', pid: 1, tid: 1, ts: 3450, cat: 'c', name: 'chain' });
  ev.push({ ph: 'X', name: 'upload', pid: 2, tid: 7, ts: 3700, dur: 200 });
  ev.push({ ph: 'f', id: 'chain', pid: 2, tid: 7, ts: 3750, cat: 'c', name: 'chain', bp: 'e' });
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
const shot = async (page) => {
  await frame(page);
  return decodePng(await page.locator('#canvas').screenshot());
};
const flowStats = (page) => page.evaluate(() => window.strata.frameStats().flows);
// The canvas with the mode set by window.strata.setFlows.
const shotIn = async (page, mode) => {
  assert.equal(await page.evaluate((m) => window.strata.setFlows(m), mode), mode);
  return shot(page);
};
// Pixels that differ; and of those, how many are not background or grid in
// `base` (the page's background rgb(250,250,251), a grid line over it
// rgb(232,232,233), core/draw/draw.c COL_BG / COL_GRID): pixels of a slice,
// a label or a header that the other image drew something over.
function compare(base, other) {
  let changed = 0, covered = 0;
  for (let i = 0; i < base.data.length; i += 4) {
    const d = base.data;
    if (d[i] === other.data[i] && d[i + 1] === other.data[i + 1] && d[i + 2] === other.data[i + 2]) continue;
    changed++;
    const bg = (d[i] === 250 && d[i + 1] === 250 && d[i + 2] === 251) || (d[i] === 232 && d[i + 1] === 232 && d[i + 2] === 233);
    if (!bg) covered++;
  }
  return { changed, covered, fraction: changed / (base.data.length / 4) };
}
// The highlighted chain's colour (draw.c COL_FLOW_FOCUS rgb(230,110,0)), anti-aliased.
const orange = (img) => {
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) if (img.data[i] > 200 && img.data[i + 1] > 80 && img.data[i + 1] < 150 && img.data[i + 2] < 60) n++;
  return n;
};

// A page with kinetoLike() open (after the demo).
async function openKinetoLike(t) {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const out = await app.openBuffer(kinetoLike());
  assert.ok(out.ok, JSON.stringify(out));
  assert.equal(out.stats.flows, FLOWS);
  return { app, page: app.page };
}

test('Kineto-like trace: no arrow at first, all bundled under the slices, the chain of a click, control, l and link', async (t) => {
  const { app, page } = await openKinetoLike(t);

  // the first view: mode 'selection' (the default), nothing selected, no arrow
  assert.equal(await page.evaluate(() => window.strata.flows()), 'selection');
  assert.equal(await page.locator('#flows').inputValue(), 'selection');
  const first = await shot(page);
  let fs = await flowStats(page);
  assert.deepEqual(fs, { mode: 'selection', drawn: 0, bundles: 0, bundled: 0, labels: 0, chain: 0, capped: 0 });
  const off = await shotIn(page, 'off');
  assert.equal(compare(first, off).changed, 0, 'the first view draws no arrow: switching them off changes nothing');

  // 'all': every flow in view is in a drawn bundle or drawn alone; far fewer
  // arrows than flows; count labels; under the slices
  const all = await shotIn(page, 'all');
  fs = await flowStats(page);
  assert.equal(fs.mode, 'all');
  assert.equal(fs.capped, 0);
  assert.equal(fs.drawn - fs.bundles + fs.bundled, FLOWS, `every flow counted once: ${JSON.stringify(fs)}`);
  assert.ok(fs.bundles > 0 && fs.labels > 0, `bundles with count labels: ${JSON.stringify(fs)}`);
  // at most one arrow per pair of 24 px columns of the same tracks: 3 track
  // pairs (main -> stream 7, dataloader -> main, main -> stream 7 of the chain)
  const columns = Math.ceil((1280 - GUTTER_PX) / 24) + 1;
  assert.ok(fs.drawn < FLOWS / 10 && fs.drawn <= 3 * columns, `far fewer arrows than flows: ${JSON.stringify(fs)}`);
  const c = compare(off, all);
  assert.ok(c.changed > 0, 'the arrows show in the gaps');
  assert.equal(c.covered, 0, `no slice, label or header is drawn over: ${JSON.stringify(c)}`);
  assert.ok(c.fraction < 0.05, `the arrows take ${(100 * c.fraction).toFixed(2)} % of the canvas`);

  // a click on the middle of a chain draws the whole chain, highlighted
  await page.evaluate(() => window.strata.setView({ start_us: 3000, end_us: 4000 }));
  await shotIn(page, 'selection');
  const box = await page.locator('#canvas').boundingBox();
  const v = await app.view();
  const tracks = await page.evaluate(() => window.strata.tracks());
  const main = tracks.find((k) => /main/.test(k.label));
  assert.ok(main, JSON.stringify(tracks.map((k) => k.label)));
  const x = GUTTER_PX + ((3500 - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  await page.mouse.click(box.x + x, box.y + AXIS_PX + main.y - v.scroll_y + 10);
  assert.deepEqual((await page.evaluate(() => window.strata.selection())).map((e) => e.name), ['consume']);
  const chain = await shot(page);
  fs = await flowStats(page);
  assert.equal(fs.chain, 2, `produce -> consume -> upload: ${JSON.stringify(fs)}`);
  assert.equal(fs.drawn, 2);
  assert.ok(orange(chain) > 50, 'the chain is highlighted');
  // 'off': not even the selection's
  const none = await shotIn(page, 'off');
  assert.equal((await flowStats(page)).drawn, 0);
  assert.equal(orange(none), 0);

  // the control
  await page.selectOption('#flows', 'all');
  assert.equal(await page.evaluate(() => window.strata.flows()), 'all');
  await frame(page);
  assert.equal((await flowStats(page)).chain, 2, 'the selection\'s chain, over the rest');
  // the key l cycles all -> off -> selection -> all, the control follows
  await page.locator('#canvas').focus();
  for (const want of ['off', 'selection', 'all']) {
    await page.keyboard.press('l');
    assert.equal(await page.evaluate(() => window.strata.flows()), want);
    assert.equal(await page.locator('#flows').inputValue(), want);
  }
  await assert.rejects(page.evaluate(() => window.strata.setFlows('some')), /setFlows: one of off, selection, all/);

  // the link keeps a mode other than the default...
  await page.waitForFunction(() => /&flows=all$/.test(location.hash), null, { timeout: 120_000 })
    .catch(async () => assert.fail(`hash: ${await page.evaluate(() => location.hash)}`));
  await page.evaluate(() => window.strata.setFlows('selection'));
  await page.waitForFunction(() => location.hash.startsWith('#t=') && !/flows=/.test(location.hash), null, { timeout: 120_000 })
    .catch(async () => assert.fail(`hash: ${await page.evaluate(() => location.hash)}`));
  // ...and a link edited by hand applies (hashchange)
  await page.evaluate(() => { location.hash = `${location.hash}&flows=off`; });
  await page.waitForFunction(() => window.strata.flows() === 'off', null, { timeout: 120_000 });
  assert.equal(await page.locator('#flows').inputValue(), 'off');
});

// The arrows of kinetoLike() as "tid@ts" of the events they join, worked
// out from how the trace was written (a launch's s binds to the launch, the
// f bp e to the kernel it starts in), and the chain of a set of events
// (core/index/flow_chain.h): downstream from every arrow leaving one of
// them, upstream from every arrow arriving at one, each arrow once.
function kinetoLikeArrows() {
  const arrows = [];
  for (let s = 0; s < STEPS; s++)
    for (let k = 0; k < PER_STEP; k++) {
      const o = s * 4000 + k * 20;
      arrows.push([`1@${o + 3}`, `7@${o + 40}`]);
    }
  arrows.push(['2@3100', '1@3400'], ['1@3400', '7@3700']);
  return arrows;
}
function chainOf(arrows, events) {
  const found = new Set();
  for (const [end, other] of [[0, 1], [1, 0]]) {
    const seen = new Set();
    let front = new Set(events);
    while (front.size) {
      const next = new Set();
      arrows.forEach((a, i) => {
        if (!front.has(a[end]) || seen.has(i)) return;
        seen.add(i);
        found.add(i);
        next.add(a[other]);
      });
      front = next;
    }
  }
  return found.size;
}

test('a box selection draws the chains of all its events, each arrow once', async (t) => {
  const { app, page } = await openKinetoLike(t);
  await page.evaluate(() => window.strata.setView({ start_us: 2800, end_us: 3800 }));
  await frame(page);
  const box = await page.locator('#canvas').boundingBox();
  const v = await app.view();
  const tracks = await page.evaluate(() => window.strata.tracks());
  const main = tracks.find((k) => /main/.test(k.label));
  const loader = tracks.find((k) => /dataloader/.test(k.label));
  assert.ok(main && loader, JSON.stringify(tracks.map((k) => k.label)));
  const xOf = (us) => box.x + GUTTER_PX + ((us - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  const yOf = (y) => box.y + AXIS_PX + y - v.scroll_y;
  // from the last launches of step 0 on main to produce and consume:
  // launch -> kernel chains and produce -> consume -> upload
  const top = Math.min(main.y, loader.y) + 2, bottom = Math.max(main.y + main.h, loader.y + loader.h) - 2;
  await page.mouse.move(xOf(2955), yOf(top));
  await page.mouse.down();
  await page.mouse.move(xOf(3500), yOf(bottom), { steps: 6 });
  await page.mouse.up();
  const sel = await page.evaluate(() => window.strata.selection());
  const names = sel.map((e) => e.name);
  assert.ok(names.includes('produce') && names.includes('consume'), names.join());
  assert.ok(names.filter((n) => n === 'cudaLaunchKernel').length >= 2, names.join());
  await frame(page);
  const fs = await flowStats(page);
  const want = chainOf(kinetoLikeArrows(), sel.map((e) => `${e.tid}@${Math.round(e.ts_us)}`));
  assert.ok(want >= 4, `two launch -> kernel arrows and the chain's two: ${want}`);
  assert.equal(fs.chain, want, `the union of the chains: ${JSON.stringify(fs)} for ${names.join()}`);
  assert.equal(fs.drawn, want, 'selection mode: the chains alone, each arrow once');
  assert.equal(fs.capped, 0);
  assert.ok(orange(await shot(page)) > 50, 'highlighted');
  // 'all': the same chains over the bundles
  await shotIn(page, 'all');
  assert.equal((await flowStats(page)).chain, want);
});

test('a link with flows=all opens the trace in that mode; the hash keeps it, the next file too', async (t) => {
  const app = await ctx.app({ query: '#flows=all' });
  t.after(() => app.close());
  await app.demoLoaded(); // the link applies to the first trace opened after the demo
  const page = app.page;
  const out = await app.openBuffer(kinetoLike());
  assert.ok(out.ok, JSON.stringify(out));
  await page.waitForFunction(() => window.strata.flows() === 'all', null, { timeout: 120_000 });
  assert.equal(await page.locator('#flows').inputValue(), 'all');
  await page.waitForFunction(() => /^#t=[\d.e-]+,[\d.e-]+&flows=all$/.test(location.hash), null, { timeout: 120_000 })
    .catch(async () => assert.fail(`hash: ${await page.evaluate(() => location.hash)}`));
  await frame(page);
  assert.ok((await flowStats(page)).drawn > 0);
  // the mode stays for the next file opened
  assert.ok((await app.openBuffer(kinetoLike())).ok);
  await frame(page);
  const fs = await flowStats(page);
  assert.equal(fs.mode, 'all');
  assert.ok(fs.drawn > 0 && fs.bundles > 0, JSON.stringify(fs));
});

test('a real Kineto trace (hta__control, 9,450 flows): first view without arrows, all of them under the slices', { skip: corpusMissing(KINETO) }, async (t) => {
  const app = await ctx.app({ viewport: { width: 1400, height: 850 } });
  t.after(() => app.close());
  await app.demoLoaded();
  const out = await app.openViaInput(KINETO, { timeout: 120_000 });
  assert.equal(out.type, 'strata:loaded', JSON.stringify(out));
  const page = app.page;
  const first = await shot(page);
  const off = await shotIn(page, 'off');
  // drawn all on top, as before, the arrows changed 16.6 % of this canvas
  assert.equal(compare(first, off).changed, 0, 'the first view draws no arrow');
  const all = await shotIn(page, 'all');
  const fs = await flowStats(page);
  const c = compare(off, all);
  assert.ok(fs.bundles > 0 && fs.labels > 0 && fs.drawn < 1000, JSON.stringify(fs));
  assert.equal(c.covered, 0, `no slice is drawn over: ${JSON.stringify(c)}`);
  assert.ok(c.changed > 0 && c.fraction < 0.05, `all the arrows take ${(100 * c.fraction).toFixed(2)} % of the canvas`);
});

test('privacy: every request of these pages went to their own origin', () => {
  const { bad, message } = privacyReport(ctx.requests, ctx.server.origin);
  assert.deepEqual(bad, [], message);
});
