// Interaction, part two: the issue-5 behaviours interaction.test.mjs does
// not drive. Real input only (page.mouse, page.keyboard, clicks on the DOM
// panels); outcomes through window.strata (view, selection, tool, marks,
// summary) and the DOM (#details, #summary, #search, #collapse-all, #help),
// plus screenshot pixels where the outcome is only drawn (timing mark on the
// axis, search dimming).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, decodePng, saveArtifact, privacyReport, GUTTER_PX, AXIS_PX } from './harness.mjs';

const ctx = useBrowser({ before, after });

// File times start at BASE us, so "start" in the details pane (relative to
// the trace start) differs from ts.
const BASE = 1_000_000;
const HLO = 'HloModule jit_step, entry_computation_layout={(f32[1024,1024])->f32[1024,1024]}\n\n' +
  'ENTRY main.4 {\n  p0 = f32[1024,1024]{1,0} parameter(0)\n' +
  '  ROOT dot.3 = f32[1024,1024]{1,0} dot(p0, p0), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n';
const ARGS = { k: 'v', n: 3, flag: true, nested: { list: [1, 2, { deep: 'x' }], label: 'inner' }, hlo: HLO };
const X = (pid, tid, name, ts, dur, args) => ({ name, cat: 'c', ph: 'X', pid, tid, ts: BASE + ts, dur, ...(args ? { args } : {}) });
// pid 1 "host": tid 1 "main": alpha [1000, 2000) (child inner [1200, 1500)), beta [3000, 4000),
//   alpha [5000, 6000), gamma [7000, 10000); tid 2: delta [2500, 3500)
// pid 2 "device": tid 1 "stream": kernel [0, 1500), kernel [6000, 6500)   (us from BASE)
const TRACE = {
  traceEvents: [
    { name: 'process_name', ph: 'M', pid: 1, args: { name: 'host' } },
    { name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 'main' } },
    { name: 'process_name', ph: 'M', pid: 2, args: { name: 'device' } },
    { name: 'thread_name', ph: 'M', pid: 2, tid: 1, args: { name: 'stream' } },
    X(1, 1, 'alpha', 1000, 1000, ARGS),
    X(1, 1, 'inner', 1200, 300),
    X(1, 1, 'beta', 3000, 1000),
    X(1, 1, 'alpha', 5000, 1000),
    X(1, 1, 'gamma', 7000, 3000),
    X(1, 2, 'delta', 2500, 1000),
    X(2, 1, 'kernel', 0, 1500),
    X(2, 1, 'kernel', 6000, 500),
  ],
};
// Layout (core/view/view.h): axis 28 px, section header 24, rows 20, 4 px after a track.
const P1_HEAD = AXIS_PX + 12;
const T1 = AXIS_PX + 24 + 10; // host/main, depth 0
const T1_D1 = T1 + 20; // host/main, depth 1 (inner)
const T2 = AXIS_PX + 24 + 40 + 4 + 10; // host/tid 2
const P2_HEAD = AXIS_PX + 24 + 40 + 4 + 20 + 4 + 12; // device header
const P2_T1 = P2_HEAD + 12 + 10; // device/stream

// Many threads (scrolling): 60 tracks of one event each.
const TALL = {
  traceEvents: Array.from({ length: 60 }, (_, i) => ({ name: `op${i}`, ph: 'X', pid: 1, tid: i + 1, ts: i * 10, dur: 500 })),
};

async function setup(trace = TRACE, opts = {}) {
  const app = await ctx.app(opts);
  await app.demoLoaded();
  const r = await app.openBuffer(Buffer.from(JSON.stringify(trace)));
  assert.ok(r.ok, `open failed: ${r.message}`);
  const page = app.page;
  const box = await page.locator('#canvas').boundingBox();
  const tw = box.width - GUTTER_PX;
  // canvas px of a file time (us from BASE), from the current view; and back
  const xOf = async (us, base = BASE) => {
    const v = await app.view();
    return GUTTER_PX + ((base + us - v.start_us) / (v.end_us - v.start_us)) * tw;
  };
  const tAt = (v, x) => v.start_us + ((x - GUTTER_PX) / tw) * (v.end_us - v.start_us);
  const at = (x, y) => [box.x + x, box.y + y];
  const S = (expr, arg) => page.evaluate(expr, arg);
  const names = async () => (await S(() => window.strata.selection())).map((e) => e.name).sort();
  const frame = () => S(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  // a click on empty timeline (below the tracks) gives the canvas focus and selects nothing
  const focus = async () => {
    await page.mouse.click(...at(box.width - 300, box.height - 20));
    await page.keyboard.press('Escape');
  };
  // the time axis strip, decoded (right of the gutter)
  const axisShot = async () => {
    await frame();
    const png = await page.screenshot({ clip: { x: box.x + GUTTER_PX, y: box.y, width: tw, height: AXIS_PX } });
    return { png, img: decodePng(png) };
  };
  const pixel = (img, x, y) => {
    const i = (Math.round(y) * img.width + Math.round(x)) * 4;
    return [img.data[i], img.data[i + 1], img.data[i + 2]];
  };
  return { app, page, box, tw, xOf, tAt, at, S, names, frame, focus, axisShot, pixel };
}

const drag = async (page, from, to, steps = 6) => {
  await page.mouse.move(...from);
  await page.mouse.down();
  await page.mouse.move(...to, { steps });
  await page.mouse.up();
};

const diffPixels = (a, b) => {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]) > 30) n++;
  }
  return n;
};

test('W / S with the mouse off the timeline zoom around the centre', async (t) => {
  const { app, page, box, at, focus } = await setup();
  t.after(() => app.close());
  await focus();
  const centre = (v) => (v.start_us + v.end_us) / 2;
  for (const [where, pos] of [['over the label gutter', at(100, box.height - 40)], ['outside the canvas', [box.x + box.width / 2, box.y - 18]]]) {
    await page.mouse.move(...pos);
    const v0 = await app.view();
    await page.keyboard.press('w');
    const v1 = await app.view();
    assert.ok(v1.end_us - v1.start_us < (v0.end_us - v0.start_us) * 0.9, `W zooms in (${where})`);
    assert.ok(Math.abs(centre(v1) - centre(v0)) < 1e-3 * (v0.end_us - v0.start_us), `W keeps the centre (${where}): ${centre(v0)} -> ${centre(v1)}`);
    await page.keyboard.press('s');
    const v2 = await app.view();
    assert.ok(v2.end_us - v2.start_us > v1.end_us - v1.start_us, `S zooms out (${where})`);
    assert.ok(Math.abs(centre(v2) - centre(v1)) < 1e-3 * (v2.end_us - v2.start_us), `S keeps the centre (${where})`);
  }
});

test('A / D held: the pan speeds up the longer the key is held', async (t) => {
  // the app's clock pinned and stepped by the test (app.holdKey): the view at
  // each 50 ms of holding, whatever the machine's speed
  const { app, page, box, at, S, focus } = await setup(TRACE, { captureModule: true });
  t.after(() => app.close());
  await focus();
  await S((b) => window.strata.setView({ start_us: b, end_us: b + 40 }), BASE); // room to pan
  await page.mouse.move(...at(700, box.height - 40));
  const samples = (await app.holdKey('d', 1400)).map(([t, v]) => [t, v.start_us]);
  const startAt = (ms) => samples.find((s) => s[0] === ms);
  // distance per ms over two equal intervals, early and late in the hold
  const speed = (a, b) => {
    const [ta, xa] = startAt(a), [tb, xb] = startAt(b);
    return (xb - xa) / (tb - ta);
  };
  const early = speed(150, 450), late = speed(950, 1250);
  assert.ok(early > 0, `D pans later while held: ${early}`);
  assert.ok(late > 1.5 * early, `holding accelerates: ${early.toFixed(4)} -> ${late.toFixed(4)} us/ms (${samples.length} steps)`);
  const v = await app.view();
  const held = await app.holdKey('a', 300);
  assert.ok(held[held.length - 1][1].start_us < held[0][1].start_us, 'holding A pans earlier');
  assert.ok(held[0][1].start_us < v.start_us, 'pressing A pans earlier at once');
});

test('ctrl+wheel zooms at the cursor: the time under it stays', async (t) => {
  const { app, page, at, tAt } = await setup();
  t.after(() => app.close());
  for (const x of [400, 900]) {
    await page.mouse.move(...at(x, T1));
    const v0 = await app.view();
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -240);
    await page.keyboard.up('Control');
    const v1 = await app.view();
    assert.ok(v1.end_us - v1.start_us < (v0.end_us - v0.start_us) * 0.8, 'ctrl+wheel up zooms in');
    assert.ok(Math.abs(tAt(v1, x) - tAt(v0, x)) < 0.5, `time under x=${x}: ${tAt(v0, x)} -> ${tAt(v1, x)}`);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, 240);
    await page.keyboard.up('Control');
    const v2 = await app.view();
    assert.ok(v2.end_us - v2.start_us > v1.end_us - v1.start_us, 'ctrl+wheel down zooms out');
    assert.ok(Math.abs(tAt(v2, x) - tAt(v0, x)) < 0.5, 'and keeps the time under the cursor');
  }
});

test('plain wheel scrolls the tracks vertically; the pan tool drags in time and vertically', async (t) => {
  const { app, page, box, at, focus, frame } = await setup(TALL);
  t.after(() => app.close());
  await page.mouse.move(...at(700, 300));
  const v0 = await app.view();
  assert.equal(v0.scroll_y, 0);
  await page.mouse.wheel(0, 200);
  const v1 = await app.view();
  assert.ok(v1.scroll_y > 100, `wheel scrolls down: scroll_y ${v1.scroll_y}`);
  assert.equal(v1.start_us, v0.start_us, 'and does not move in time');
  await page.mouse.wheel(0, -100);
  assert.ok((await app.view()).scroll_y < v1.scroll_y, 'wheel up scrolls back');
  await focus();
  await page.keyboard.press('2');
  const v2 = await app.view();
  const usPerPx = (v2.end_us - v2.start_us) / (box.width - GUTTER_PX);
  await page.mouse.move(...at(800, 400));
  await frame();
  await drag(page, at(800, 400), at(650, 320));
  const v3 = await app.view();
  assert.ok(Math.abs(v3.scroll_y - v2.scroll_y - 80) < 2, `pan drag up 80 px scrolls 80 px: ${v2.scroll_y} -> ${v3.scroll_y}`);
  assert.ok(Math.abs(v3.start_us - v2.start_us - 150 * usPerPx) < 2 * usPerPx, `pan drag left 150 px moves later in time: ${JSON.stringify([v2, v3])}`);
  await page.keyboard.press('1');
});

test('tools: the visible selector, keys 1-4 and ! @ # $, strata.tool()/setTool()', async (t) => {
  const { app, page, S, focus, frame } = await setup();
  t.after(() => app.close());
  const tool = () => S(() => window.strata.tool());
  assert.equal(await tool(), 'select');
  assert.ok(await page.locator('#tool').isVisible(), 'the selector is on screen');
  for (const [value, want] of [['1', 'pan'], ['2', 'zoom'], ['3', 'timing'], ['0', 'select']]) {
    await page.selectOption('#tool', value);
    assert.equal(await tool(), want, `#tool option ${value}`);
  }
  await focus();
  for (const [key, want, sel] of [['@', 'pan', '1'], ['#', 'zoom', '2'], ['$', 'timing', '3'], ['!', 'select', '0'], ['3', 'zoom', '2'], ['1', 'select', '0']]) {
    await page.keyboard.press(key);
    await frame();
    assert.equal(await tool(), want, `key ${key}`);
    assert.equal(await page.locator('#tool').inputValue(), sel, `#tool follows key ${key}`);
  }
  assert.equal(await S(() => window.strata.setTool('timing')), 'timing');
  await frame();
  assert.equal(await page.locator('#tool').inputValue(), '3');
  assert.equal(await S(() => { try { window.strata.setTool('lasso'); return 'no error'; } catch (e) { return e.message; } }), 'strata.setTool: one of select, pan, zoom, timing');
});

test('timing tool: a drag marks the interval and its duration is drawn on the axis', async (t) => {
  const { app, page, xOf, at, S, focus, axisShot } = await setup();
  t.after(() => app.close());
  await focus();
  await page.keyboard.press('4');
  assert.deepEqual(await S(() => window.strata.marks()), []);
  const before = await axisShot();
  await drag(page, at(await xOf(2000), T2 + 60), at(await xOf(5000), T2 + 60));
  const marks = await S(() => window.strata.marks());
  assert.equal(marks.length, 1);
  const m = marks[0];
  assert.ok(Math.abs(m.start_us - (BASE + 2000)) < 20 && Math.abs(m.end_us - (BASE + 5000)) < 20, JSON.stringify(m));
  assert.ok(Math.abs(m.dur_ns - 3e6) < 4e4, `dur_ns ${m.dur_ns}`);
  assert.match(m.dur_text, /^(2\.9\d*|3(\.0\d*)?) ms$/);
  assert.deepEqual(await S(() => window.strata.selection()), [], 'a timing drag selects nothing');
  const after = await axisShot();
  await saveArtifact('timing-axis.png', after.png);
  const changed = diffPixels(before.img, after.img);
  assert.ok(changed > 200, `the axis shows the mark (${changed} pixels changed)`);
  await page.keyboard.press('1');
});

test('m marks the selection span with its duration; f fits it; Esc clears selection and mark', async (t) => {
  const { app, page, xOf, at, S, names, focus, axisShot } = await setup();
  t.after(() => app.close());
  await focus();
  const before = await axisShot();
  await page.mouse.click(...at(await xOf(3500), T1));
  await page.keyboard.down('Control');
  await page.mouse.click(...at(await xOf(3000), T2)); // delta [2500, 3500)
  await page.keyboard.up('Control');
  assert.deepEqual(await names(), ['beta', 'delta']);
  await page.keyboard.press('m');
  const [m] = await S(() => window.strata.marks());
  assert.equal(m.start_us, BASE + 2500);
  assert.equal(m.end_us, BASE + 4000);
  assert.equal(m.dur_text, '1.5 ms');
  const marked = await axisShot();
  await saveArtifact('m-axis.png', marked.png);
  assert.ok(diffPixels(before.img, marked.img) > 200, 'the mark and its duration are drawn on the axis');
  await page.keyboard.press('f');
  const v = await app.view();
  assert.ok(v.start_us <= BASE + 2500 && v.start_us > BASE + 2300 && v.end_us >= BASE + 4000 && v.end_us < BASE + 4200, `f: ${JSON.stringify(v)}`);
  await page.keyboard.press('Escape');
  assert.deepEqual(await names(), []);
  assert.deepEqual(await S(() => window.strata.marks()), []);
});

test('details pane: name, category, process, thread, start from trace start, duration, self time, nested args, long text with copy', async (t) => {
  const { app, page, xOf, at, S, frame } = await setup();
  t.after(() => app.close());
  await app.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.server.origin });
  await page.mouse.click(...at(await xOf(1800), T1)); // alpha, outside its child
  await page.waitForSelector('#details .args table.kv');
  await frame();
  const d = page.locator('#details');
  assert.equal(await d.locator('h2').textContent(), 'alpha');
  const fields = Object.fromEntries(await d.locator(':scope > table tr').evaluateAll((trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent])));
  assert.equal(fields.category, 'c');
  assert.equal(fields.process, 'host (pid 1)');
  assert.equal(fields.thread, 'main (tid 1)');
  assert.equal(fields.start, '1 ms', 'start is relative to the trace start');
  assert.equal(fields.duration, '1 ms');
  assert.equal(fields['self time'], '700 us', 'self time excludes the child');
  assert.equal(fields['ts (file)'], `${BASE + 1000} us`);
  // args: nested values as nested tables
  const kv = await d.locator('.args table.kv').first().evaluate((tb) => {
    const walk = (t) => Object.fromEntries([...t.rows].map((r) => {
      const inner = r.cells[1].querySelector(':scope > table.kv');
      return [r.cells[0].textContent, inner ? walk(inner) : r.cells[1].textContent];
    }));
    return walk(tb);
  });
  assert.equal(kv.k, 'v');
  assert.equal(kv.n, '3');
  assert.equal(kv.flag, 'true');
  assert.deepEqual(kv.nested, { list: { 0: '1', 1: '2', 2: { deep: 'x' } }, label: 'inner' });
  // long text: monospace, with a copy button that copies it
  const pre = d.locator('.longtext pre');
  assert.equal(await pre.textContent(), HLO);
  assert.match(await pre.evaluate((e) => getComputedStyle(e).fontFamily), /mono|Menlo|Consolas/i);
  await d.locator('.longtext button.copy').click();
  await page.waitForFunction(() => document.querySelector('#details .longtext button.copy').textContent === 'Copied');
  assert.equal(await S(() => navigator.clipboard.readText()), HLO);
  await d.locator('.args-head button.copy').click();
  assert.deepEqual(JSON.parse(await S(() => navigator.clipboard.readText())), ARGS);
  // args in selection() once decoded
  const sel = await S(() => window.strata.selection());
  assert.equal(sel.length, 1);
  assert.deepEqual(sel[0].args, ARGS);
  await saveArtifact('details.png', await page.screenshot());
});

test('summary table: by name, sortable by each column, a row click selects those events', async (t) => {
  const { app, page, box, xOf, at, S, names, frame } = await setup();
  t.after(() => app.close());
  // box-select host's two threads over the whole trace: alpha x2, inner, beta, gamma, delta
  await drag(page, at(await xOf(500), P1_HEAD + 8), at(box.width - 4, T2 + 8));
  assert.deepEqual(await names(), ['alpha', 'alpha', 'beta', 'delta', 'gamma', 'inner']);
  await frame();
  const pane = page.locator('#summary');
  assert.ok(await pane.isVisible(), 'the summary shows for a multi-selection');
  assert.equal(await page.locator('#details').isVisible(), false, 'the details pane is for one event');
  assert.match(await page.locator('#summary-title').textContent(), /6 events selected/);
  const tableRows = () => page.locator('#summary-body tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  let rows = await tableRows();
  assert.deepEqual(rows.map((r) => r[0]), ['gamma', 'alpha', 'beta', 'delta', 'inner'], 'by total, largest first');
  assert.deepEqual(rows[1], ['alpha', '2', '2 ms', '1.7 ms', '1 ms', '1 ms', '1 ms']);
  const sum = await S(() => window.strata.summary());
  assert.equal(sum.source, 'selection');
  assert.equal(sum.events, 6);
  const alpha = sum.rows.find((r) => r.name === 'alpha');
  assert.deepEqual([alpha.count, alpha.total_ns, alpha.self_ns, alpha.min_ns, alpha.max_ns, alpha.avg_ns], [2, 2e6, 1.7e6, 1e6, 1e6, 1e6]);
  // every column sorts; a second click reverses
  const keys = ['name', 'count', 'total_ns', 'self_ns', 'avg_ns', 'min_ns', 'max_ns'];
  const cmp = (a, b, k) => (k === 'name' ? a.name.localeCompare(b.name) : a[k] - b[k]);
  for (let c = 0; c < 7; c++) {
    const k = keys[c];
    let lastSort = null;
    for (const click of [1, 2]) {
      await page.locator(`#summary-head th[data-col="${c}"] button`).click();
      const s = await S(() => window.strata.summary());
      const sort = await page.locator(`#summary-head th[data-col="${c}"]`).getAttribute('aria-sort');
      assert.ok(sort === 'ascending' || sort === 'descending', `column ${k} click ${click}: aria-sort ${sort}`);
      const dir = sort === 'ascending' ? 1 : -1;
      for (let i = 1; i < s.rows.length; i++) {
        assert.ok(dir * cmp(s.rows[i], s.rows[i - 1], k) >= 0, `column ${k} ${sort}: ${s.rows.map((r) => r[k]).join(',')}`);
      }
      rows = await tableRows();
      assert.deepEqual(rows.map((r) => r[0]), s.rows.map((r) => r.name), `the table shows the ${k} order`);
      if (click === 2) assert.notEqual(sort, lastSort, `second click on ${k} reverses`);
      lastSort = sort;
    }
  }
  // row click: those events; another row: that name (from the same set); again: the whole set
  await page.locator('#summary-body tr', { hasText: 'alpha' }).click();
  assert.deepEqual(await names(), ['alpha', 'alpha']);
  assert.ok(await page.locator('#summary-body tr.active', { hasText: 'alpha' }).count() === 1, 'the row is highlighted');
  assert.ok(await pane.isVisible(), 'the table stays');
  await page.locator('#summary-body tr', { hasText: 'gamma' }).click();
  assert.deepEqual(await names(), ['gamma']);
  await frame();
  assert.equal(await page.locator('#details h2').textContent(), 'gamma', 'one event: its details show beside the table');
  await saveArtifact('summary.png', await page.screenshot());
  await page.locator('#summary-body tr', { hasText: 'gamma' }).click();
  assert.equal((await names()).length, 6, 'clicking the active row again selects the whole set');
  assert.equal(await page.locator('#summary-body tr.active').count(), 0);
  await page.locator('#summary-close').click();
  assert.equal(await pane.isVisible(), false);
});

test('"Summarise view" aggregates every event in the visible window', async (t) => {
  const { app, page, at, S, names, frame } = await setup();
  t.after(() => app.close());
  await S((b) => window.strata.setView({ start_us: b + 2200, end_us: b + 5500 }), BASE);
  await page.locator('#summarize-window').click();
  await frame();
  const s = await S(() => window.strata.summary());
  assert.equal(s.source, 'window');
  assert.deepEqual(s.rows.map((r) => [r.name, r.count]).sort(), [['alpha', 1], ['beta', 1], ['delta', 1]]);
  assert.match(await page.locator('#summary-title').textContent(), /Visible window/);
  assert.match(await page.locator('#summary-meta').textContent(), /3\.3 ms · 3 events · 3 names/);
  await page.locator('#summary-body tr', { hasText: 'alpha' }).click();
  const sel = await S(() => window.strata.selection());
  assert.deepEqual(sel.map((e) => [e.name, e.ts_us]), [['alpha', BASE + 5000]], 'the row selects its events in the window');
  // the API does the same; a fresh view gives a fresh table
  await S((b) => window.strata.setView({ start_us: b, end_us: b + 1400 }), BASE);
  const w = await S(() => window.strata.summarizeWindow());
  assert.deepEqual(w.rows.map((r) => r.name).sort(), ['alpha', 'inner', 'kernel']);
  await page.mouse.click(...at(300, 10)); // the axis: nothing selected, the window table stays
  assert.ok(await page.locator('#summary').isVisible());
  assert.deepEqual(await names(), ['alpha']);
});

test('search: ctrl+F focuses "Find events…", the count shows, non-matches are dimmed', async (t) => {
  const { app, page, xOf, at, S, focus, frame } = await setup();
  t.after(() => app.close());
  assert.match(await page.locator('#search').getAttribute('placeholder'), /^Find events/);
  await focus();
  const shot = async () => decodePng(await page.screenshot({ clip: { x: 0, y: 0, width: 1280, height: 720 } }));
  const xBeta = (await xOf(3500)) + (await page.locator('#canvas').boundingBox()).x;
  const xAlpha = (await xOf(5500)) + (await page.locator('#canvas').boundingBox()).x;
  const yRow = (await page.locator('#canvas').boundingBox()).y + T1 + 5;
  const img0 = await shot();
  await page.keyboard.press('Control+f');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'search');
  await page.keyboard.type('ALP');
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '2 matches');
  await frame();
  const img1 = await shot();
  const [pb0, pb1] = [img0, img1].map((im) => {
    const i = (Math.round(yRow) * im.width + Math.round(xBeta)) * 4;
    return [im.data[i], im.data[i + 1], im.data[i + 2]];
  });
  const [pa0, pa1] = [img0, img1].map((im) => {
    const i = (Math.round(yRow) * im.width + Math.round(xAlpha)) * 4;
    return [im.data[i], im.data[i + 1], im.data[i + 2]];
  });
  const dist = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]);
  assert.ok(dist(pb0, pb1) > 60, `beta (no match) is dimmed: ${pb0} -> ${pb1}`);
  assert.ok(dist(pa0, pa1) < 10, `alpha (a match) keeps its colour: ${pa0} -> ${pa1}`);
  await page.keyboard.press('Enter');
  assert.deepEqual((await S(() => window.strata.selection())).map((e) => e.ts_us), [BASE + 1000]);
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '1 of 2');
  await page.keyboard.press('Escape'); // in the box: back to the timeline, the search kept
  await page.waitForFunction(() => document.activeElement?.id !== 'search');
  assert.equal(await page.locator('#search-count').textContent(), '1 of 2');
  await page.keyboard.press('Escape'); // on the timeline: clears it
  await page.waitForFunction(() => document.getElementById('search-count').textContent === '');
  assert.ok(at);
});

test('sections collapse by clicking the header; "Collapse all" toggles every section', async (t) => {
  const { app, page, xOf, at, S, names, frame } = await setup();
  t.after(() => app.close());
  const x = await xOf(700); // kernel [0, 1500) on device/stream
  await page.mouse.click(...at(x, P2_T1));
  assert.deepEqual(await names(), ['kernel']);
  await page.keyboard.press('Escape');
  await page.mouse.click(...at(600, P2_HEAD)); // the device header: collapse
  await page.mouse.click(...at(x, P2_T1));
  assert.deepEqual(await names(), [], 'a collapsed section shows no rows');
  await page.mouse.click(...at(600, P2_HEAD)); // expand
  await page.mouse.click(...at(x, P2_T1));
  assert.deepEqual(await names(), ['kernel']);
  // collapsing host moves device up under it
  await page.mouse.click(...at(600, P1_HEAD));
  await page.mouse.click(...at(x, AXIS_PX + 24 + 24 + 10));
  assert.deepEqual(await names(), ['kernel'], 'device\'s row right under the collapsed host header');
  await page.mouse.click(...at(600, P1_HEAD));
  // the toggle
  const btn = page.locator('#collapse-all');
  assert.equal(await btn.textContent(), 'Collapse all');
  await btn.click();
  await frame();
  assert.equal(await btn.textContent(), 'Expand all');
  assert.equal(await btn.getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('Escape');
  await page.mouse.click(...at(await xOf(3000), T2)); // delta's row, below both headers now
  assert.deepEqual(await names(), [], 'every section collapsed');
  await btn.click();
  await frame();
  assert.equal(await btn.textContent(), 'Collapse all');
  await page.mouse.click(...at(await xOf(3000), T2));
  assert.deepEqual(await names(), ['delta']);
  assert.equal(await S(() => window.strata.collapseAll()), true);
  await frame();
  assert.equal(await btn.textContent(), 'Expand all', 'the button follows the API');
  assert.equal(await S(() => window.strata.collapseAll()), false);
});

test('? opens the help, which lists every shortcut; the ? button toggles it too', async (t) => {
  const { app, page, S, focus, frame } = await setup();
  t.after(() => app.close());
  await focus();
  await page.keyboard.press('?');
  await frame();
  const help = page.locator('#help');
  assert.ok(await help.isVisible());
  const text = (await help.textContent()).replace(/\s+/g, ' ');
  for (const want of ['W / S', 'A / D', 'ctrl + wheel', 'pinch', 'shift + wheel', 'wheel', '0', 'double-click', '1 2 3 4', '! @ # $',
    'click', 'ctrl + click', 'drag', 'middle drag', 'm', 'f', '/ or ctrl + F', 'Enter / shift + Enter', 'Esc', '?', 'timing', 'zoom', 'pan', 'select',
    'collapse', '↑ / ↓', '← / →']) {
    assert.ok(text.includes(want), `help mentions "${want}": ${text}`);
  }
  await saveArtifact('help.png', await page.screenshot());
  await page.keyboard.press('?');
  await frame();
  assert.equal(await help.isVisible(), false);
  await page.locator('#help-button').click();
  await frame();
  assert.ok(await help.isVisible());
  await page.locator('#help-button').click();
  await frame();
  assert.equal(await help.isVisible(), false);
  assert.ok(S);
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const { bad, message } = privacyReport(ctx.requests, ctx.server.origin);
  assert.ok(ctx.requests.some((u) => u.endsWith('.wasm')), 'the recorder saw the .wasm');
  assert.deepEqual(bad, [], message);
});
