// The page as a user first meets it: it loads cleanly, exposes window.strata,
// shows the built-in demo, and works from a sub-path (static hosts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  useBrowser, startServer, newApp, DIST, looksRendered, privacyReport,
  decodePng, saveArtifact, GUTTER_PX, AXIS_PX,
} from './harness.mjs';

const ctx = useBrowser({ before, after });

test('page loads with no console errors or page errors; window.strata and strata:ready', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  // Let the start-up trace finish loading so errors from that phase count too.
  await app.demoLoaded();
  const api = await app.page.evaluate(() => {
    const s = window.strata;
    return Object.fromEntries(['open', 'stats', 'view', 'setView', 'frameStats'].map((k) => [k, typeof s[k]]));
  });
  assert.deepEqual(api, { open: 'function', stats: 'function', view: 'function', setView: 'function', frameStats: 'function' },
    'window.strata must expose open/stats/view/setView/frameStats as functions');
  const readyEvents = (await app.events()).filter((e) => e.type === 'strata:ready');
  assert.ok(readyEvents.length >= 1, 'strata:ready must fire');
  for (const id of ['#canvas', '#file-input', '#error', '#progress', '#open-button']) {
    assert.equal(await app.page.locator(id).count(), 1, `element ${id} must exist exactly once`);
  }
  assert.equal(await app.page.locator('#file-input').getAttribute('type'), 'file', '#file-input is an <input type=file>');
  assert.equal(await app.page.locator('#canvas').evaluate((e) => e.tagName), 'CANVAS');
  assert.deepEqual(app.pageErrors, [], `page errors:\n${app.pageErrors.join('\n')}`);
  assert.deepEqual(app.failedResponses, [], 'no request of the page may fail (HTTP >= 400)');
  assert.deepEqual(app.consoleErrors, [], `console errors:\n${app.consoleErrors.join('\n')}`);
  assert.equal(await app.page.locator('#error').isVisible(), false, '#error must be hidden when nothing went wrong');
});

test('window.strata also has selection() and search() (contract 2)', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const r = await app.page.evaluate(() => ({
    selection: typeof window.strata.selection, search: typeof window.strata.search,
    sel: typeof window.strata.selection === 'function' ? window.strata.selection() : null,
  }));
  assert.equal(r.selection, 'function');
  assert.equal(r.search, 'function');
  assert.ok(Array.isArray(r.sel), 'selection() returns an array');
});

test('the built-in demo renders: > 10000 events and a non-blank timeline', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  const s = await app.demoLoaded();
  assert.ok(s.events > 10000, `demo stats().events = ${s.events}, expected > 10000`);
  assert.equal(s.format, 'chrome-json');
  const v = await app.view();
  assert.ok(Number.isFinite(v.start_us) && Number.isFinite(v.end_us) && v.end_us > v.start_us,
    `view() must be a non-empty window, got ${JSON.stringify(v)}`);
  const f0 = (await app.frameStats()).frames;
  await app.framesAfter(0, 1);
  const fs = await app.frameStats();
  assert.ok(fs.frames >= 1 && fs.rects > 0, `frameStats() after the demo: ${JSON.stringify(fs)} (frames before: ${f0})`);
  const shot = await app.timelineShot('demo');
  if (!looksRendered(shot.analysis)) {
    const p = await shot.save();
    assert.fail(`timeline area looks blank: ${JSON.stringify(shot.analysis)} (screenshot: ${p})`);
  }
});

test('the built-in demo: clicking an XLA op shows its args (HLO long_name, flops, source) in the details', async (t) => {
  const app = await ctx.app({ viewport: { width: 1400, height: 850 } });
  t.after(() => app.close());
  const s = await app.demoLoaded();
  const f0 = (await app.frameStats()).frames;
  await app.page.evaluate((t0) => window.strata.setView({ start_us: t0 + 100000, end_us: t0 + 117000 }), s.ts_min_us);
  await app.framesAfter(f0, 1);
  const box = await app.page.locator('#canvas').boundingBox();
  // GPU 0's "XLA Ops" row: axis 28 + section 24 + counter 40 + 4, Steps (its marker lane 20, its
  // slices 20) + 4, Modules 20 + 4 (the click lands 14 px into the row)
  await app.page.mouse.click(box.x + 700, box.y + AXIS_PX + 24 + 44 + 24 + 24 + 24 + 10);
  await app.page.waitForFunction(() => window.strata.selection().length === 1);
  const sel = await app.page.evaluate(() => window.strata.selection()[0]);
  await app.page.waitForFunction(() => /long_name/.test(document.getElementById('details').textContent), null, { timeout: 120_000 });
  const details = await app.page.locator('#details').textContent();
  assert.ok(details.includes(sel.name), `details name the selected op ${sel.name}`);
  for (const key of ['long_name', 'flops', 'bytes_accessed', 'source', 'hlo_module']) assert.ok(details.includes(key), `details show ${key}: ${details.slice(0, 300)}`);
  assert.match(details, /= [a-z0-9]+\[/, 'the HLO text itself');
});

// Labels must be drawn whole. Threads named "Steps", "Xteps", "Cteps" differ
// only in their first character, so the label gutter must look different for
// each; if the first glyph of a label is lost they render identically.
test('track labels are drawn whole: names differing only in the first character look different', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const crops = [];
  for (const first of ['S', 'X', 'C']) {
    const ev = [{ ph: 'M', name: 'process_name', pid: 1, tid: 1, args: { name: 'Proc' } }];
    for (let tid = 1; tid <= 3; tid++) {
      ev.push({ ph: 'M', name: 'thread_name', pid: 1, tid, args: { name: `${first}teps ${tid}` } });
      ev.push({ ph: 'X', name: 'work', cat: 'c', pid: 1, tid, ts: 0, dur: 1000 });
    }
    const r = await app.openBuffer(Buffer.from(JSON.stringify({ traceEvents: ev })));
    assert.ok(r.ok, `open() rejected: ${r.message}`);
    await app.page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
    const box = await app.page.locator('#canvas').boundingBox();
    const clip = { x: Math.ceil(box.x), y: Math.ceil(box.y + AXIS_PX), width: GUTTER_PX, height: Math.min(200, Math.floor(box.height - AXIS_PX)) };
    const png = await app.page.screenshot({ clip });
    crops.push({ first, png, px: decodePng(png).data });
  }
  for (let i = 0; i < crops.length; i++) {
    for (let j = i + 1; j < crops.length; j++) {
      // A different first glyph in three labels changes far more than 20 pixels strongly.
      const a = crops[i].px, b = crops[j].px;
      let strong = 0;
      for (let k = 0; k < a.length; k += 4) {
        if (Math.abs(a[k] - b[k]) + Math.abs(a[k + 1] - b[k + 1]) + Math.abs(a[k + 2] - b[k + 2]) > 48) strong++;
      }
      if (strong < 20) {
        for (const c of crops) await saveArtifact(`labels_${c.first}.png`, c.png);
        const [a, b] = [crops[i], crops[j]].map((c) => `artifacts/labels_${c.first}.png`);
        assert.fail(`threads named "${crops[i].first}teps N" and "${crops[j].first}teps N" draw the same labels (${strong} px differ): ` +
          `the first character of each label is not drawn (see ${a}, ${b})`);
      }
    }
  }
});

test('served from a sub-path (e.g. GitHub Pages /user/repo/) it loads all assets relative to it', async (t) => {
  const sub = await startServer({ root: DIST, prefix: '/some/sub/path/' });
  t.after(() => sub.close());
  const app = await newApp(ctx.browser, sub, { allRequests: [] });
  t.after(() => app.close());
  await app.goto();
  await app.ready();
  const s = await app.demoLoaded();
  assert.ok(s.events > 10000);
  const outside = app.requests.filter((u) => u.startsWith(sub.origin + '/') && !u.startsWith(sub.url));
  assert.deepEqual(outside, [], 'requests outside the sub-path');
  assert.deepEqual(app.failedResponses, [], 'no request may fail under a sub-path');
  assert.deepEqual(app.pageErrors, []);
  const { bad, message } = privacyReport(app.requests, sub.origin);
  assert.deepEqual(bad, [], message);
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const origin = ctx.server.origin;
  assert.ok(ctx.requests.some((u) => u === `${origin}/` || u.endsWith('/index.html')), 'the recorder saw the page itself');
  assert.ok(ctx.requests.some((u) => u.endsWith('.wasm')), 'the recorder saw the .wasm');
  const { bad, message } = privacyReport(ctx.requests, origin);
  assert.deepEqual(bad, [], message);
});

test('a narrow window (a notebook cell) with two files open: every top-bar control is on the bar and works', async (t) => {
  const app = await ctx.app({ viewport: { width: 800, height: 600 } });
  t.after(() => app.close());
  await app.demoLoaded();
  await app.page.evaluate(async () => {
    const mk = (pid, n) => new File([JSON.stringify({ traceEvents: [
      { ph: 'X', name: 'step', pid, tid: 1, ts: 0, dur: 100 }] })], n);
    await window.strata.open([mk(1, 'run-a.trace.json'), mk(2, 'run-b.trace.json')]);
  });
  // the controls wrap onto more lines; none is cut off by the bar's right or bottom edge
  const off = await app.page.evaluate(() => {
    const bar = document.getElementById('topbar').getBoundingClientRect();
    return [...document.getElementById('topbar').children]
      .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > bar.right + 0.5 || r.bottom > bar.bottom + 0.5); })
      .map((e) => e.id || e.className);
  });
  assert.deepEqual(off, [], 'controls outside the top bar');
  // the last ones, which a one-line bar cut off at this width, answer clicks
  await app.page.locator('#info-button').click();
  await app.page.waitForFunction(() => !document.getElementById('trace-info').hidden);
  await app.page.locator('#help-button').click();
  await app.page.locator('#layout-button').click();
  assert.equal(await app.page.evaluate(() => window.strata.compareLayout()), 'side');
  // and the timeline starts below the bar
  const [barBottom, canvasTop] = await app.page.evaluate(() => [
    document.getElementById('topbar').getBoundingClientRect().bottom,
    document.getElementById('canvas').getBoundingClientRect().top]);
  assert.ok(canvasTop >= barBottom, `canvas top ${canvasTop} under the bar's bottom ${barBottom}`);
  assert.deepEqual(app.pageErrors, []);
});
