// Notes (issue 19 item 5): `n` then a click (a time) or a drag (a range) on
// the timeline and a typed text; window.strata.addNote; the Notes panel
// lists them and a click goes to one; the link keeps them (a reload with the
// hash restores them); "Save HTML" keeps them and the view (the file's view
// state, opened from file://); `strata export --note` writes them; a
// compare side by side shows them in both panes. Times are checked against
// the pixel the user clicked (the view's window and the canvas geometry).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { useBrowser, writeFixtures, CLI, DIST, GUTTER_PX, AXIS_PX, decodePng } from './harness.mjs';

const run = promisify(execFile);
const ctx = useBrowser({ before, after });
let fx, out;
before(async () => {
  fx = await writeFixtures();
  out = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-notes-'));
});
after(async () => {
  await fx?.cleanup();
  if (out) await fsp.rm(out, { recursive: true, force: true });
});

const NO_CLI = !fs.existsSync(CLI) && `native CLI not built (${CLI})`;
const EVIL = `</script><script>window.__pwned = 1</script> "q" 'a' <img src=x onerror="window.__pwned = 2"> & é`;
const close = (a, b, tol) => Math.abs(a - b) <= tol;
const noteList = (page) => page.evaluate(() => window.strata.notes());
// A note as the link keeps it: times to the ns (3 decimals of us, as t=).
const ns = (us) => Math.round(us * 1000) / 1000;
const strip = (list) => list.map(({ t0_us, t1_us, text }) => ({ t0_us: ns(t0_us), t1_us: ns(t1_us), text }));

/** The time (us) at canvas x of the view v on a canvas `width` wide, and us per px. */
const timeAt = (v, width, x) => v.start_us + ((x - GUTTER_PX) * (v.end_us - v.start_us)) / (width - GUTTER_PX);

async function canvasBox(page) {
  const box = await page.locator('#canvas').boundingBox();
  assert.ok(box, '#canvas is shown');
  return box;
}

/** `n`, then a click at canvas x (or a drag from x to x2), then the text and Enter. */
async function placeNote(page, x, text, x2) {
  const box = await canvasBox(page);
  await page.locator('#canvas').focus();
  await page.keyboard.press('n');
  const y = box.y + AXIS_PX + 60;
  await page.mouse.move(box.x + x, y);
  await page.mouse.down();
  if (x2 !== undefined) await page.mouse.move(box.x + x2, y, { steps: 6 });
  await page.mouse.up();
  await page.locator('#note-input').waitFor({ state: 'visible' });
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await page.locator('#note-input').waitFor({ state: 'detached' });
}

async function openFile(file) {
  const context = await ctx.browser.newContext({ viewport: { width: 1200, height: 700 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [], violations = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (/Content.Security.Policy|Refused/i.test(m.text())) violations.push(m.text()); });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForFunction(() => { try { return window.strata.stats().events > 0 && window.strata.notes().length > 0; } catch { return false; } }, null, { timeout: 120_000 })
    .catch(() => assert.fail(`${file}: no trace or no notes shown\npage errors: ${errors.join('\n')}\n${violations.join('\n')}`));
  return { page, errors, violations, close: () => context.close() };
}

test('n + click / drag, addNote; the panel lists, edits, deletes and goes to notes; a reload of the link restores them', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const { page } = app;
  const box = await canvasBox(page);
  const v = await app.view();
  const usPerPx = (v.end_us - v.start_us) / (box.width - GUTTER_PX);
  // a click: a time where the click was
  const x = GUTTER_PX + Math.round((box.width - GUTTER_PX) * 0.5);
  const sel0 = await page.evaluate(() => window.strata.selection().length);
  await placeNote(page, x, 'first note');
  let list = await noteList(page);
  assert.equal(list.length, 1);
  assert.ok(close(list[0].t0_us, timeAt(v, box.width, x), 1.5 * usPerPx), `${list[0].t0_us} vs ${timeAt(v, box.width, x)}`);
  assert.equal(list[0].t1_us, list[0].t0_us, 'a click is a time');
  assert.equal(list[0].text, 'first note');
  assert.equal(await page.evaluate(() => window.strata.selection().length), sel0, 'the click placed a note, it selected nothing');
  // a drag: a range
  const xa = GUTTER_PX + Math.round((box.width - GUTTER_PX) * 0.2), xb = GUTTER_PX + Math.round((box.width - GUTTER_PX) * 0.3);
  await placeNote(page, xa, 'a range', xb);
  list = await noteList(page);
  assert.equal(list.length, 2);
  const range = list[0]; // it starts first
  assert.equal(range.text, 'a range');
  assert.ok(close(range.t0_us, timeAt(v, box.width, xa), 1.5 * usPerPx) && close(range.t1_us, timeAt(v, box.width, xb), 1.5 * usPerPx),
    JSON.stringify(range));
  // the API, with a hostile text (never HTML)
  const third = await page.evaluate(([t, text]) => window.strata.addNote({ t0: t, text }), [v.start_us + 0.9 * (v.end_us - v.start_us), EVIL]);
  assert.equal(third.text, EVIL);
  assert.deepEqual((await noteList(page)).map((n) => n.text), ['a range', 'first note', EVIL]);
  // the panel: time, duration of a range, text; nothing of the text became HTML
  await page.locator('#notes-button').click();
  const rows = page.locator('#notes-list li');
  assert.equal(await rows.count(), 3);
  assert.equal(await rows.nth(2).locator('.note-text').inputValue(), EVIL);
  assert.match(await rows.nth(0).locator('.note-dur').textContent(), /\d (ns|us|ms|s)$/);
  assert.equal(await rows.nth(1).locator('.note-dur').textContent(), '');
  assert.equal(await page.evaluate(() => document.querySelectorAll('#notes img, #notes script').length + (window.__pwned || 0)), 0);
  // edit a text in the panel
  await rows.nth(1).locator('.note-text').fill('first note, edited');
  await rows.nth(1).locator('.note-text').press('Enter');
  await page.waitForFunction(() => window.strata.notes()[1].text === 'first note, edited');
  // a click on a note's time goes to it: the view holds it
  await page.evaluate(([a, b]) => window.strata.setView({ start_us: a, end_us: b }), [v.start_us, v.start_us + (v.end_us - v.start_us) / 1000]);
  await rows.nth(0).locator('.note-time').click();
  const w = await app.view();
  assert.ok(w.start_us <= range.t0_us && w.end_us >= range.t1_us && w.end_us - w.start_us < 2 * (range.t1_us - range.t0_us), JSON.stringify(w));
  // delete one in the panel
  await rows.nth(2).locator('.note-delete').click();
  await page.waitForFunction(() => window.strata.notes().length === 2);
  assert.equal(await rows.count(), 2);
  assert.equal(await page.evaluate((id) => window.strata.removeNote(id), third.id), false, 'gone already');
  // the link: notes= in the hash; a new page on that link has the same notes and view
  const before = strip(await noteList(page));
  await page.evaluate(() => window.strata.addNote({ t0: window.strata.view().start_us + 1, text: 'semi;colon, comma: colon % & #' }));
  before.splice(0, 0, strip(await noteList(page)).find((n) => n.text.startsWith('semi')));
  await page.waitForFunction(() => /[#&]notes=.*semi%3Bcolon/.test(location.hash));
  const hash = await page.evaluate(() => location.hash);
  const app2 = await ctx.app({ query: hash });
  t.after(() => app2.close());
  await app2.demoLoaded();
  await app2.page.waitForFunction(() => window.strata.notes().length === 3);
  assert.deepEqual(strip(await noteList(app2.page)).sort((a, b) => a.t0_us - b.t0_us),
    before.sort((a, b) => a.t0_us - b.t0_us));
  const w2 = await app2.view();
  assert.ok(close(w2.start_us, w.start_us, 0.01) && close(w2.end_us, w.end_us, 0.01), `${JSON.stringify(w2)} vs ${JSON.stringify(w)}`);
  assert.deepEqual(app.pageErrors, []);
  assert.deepEqual(app2.pageErrors, []);
});

test('"Save HTML" keeps the notes and the view: the saved file opens from file:// with them, and saves them again', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const { page } = app;
  await page.waitForFunction(() => !document.getElementById('save-html').disabled);
  const v = await app.view();
  const span = v.end_us - v.start_us;
  await page.evaluate(([v, span, evil]) => {
    window.strata.addNote({ t0: v.start_us + 0.3 * span, t1: v.start_us + 0.4 * span, text: evil });
    window.strata.addNote({ t0: v.start_us + 0.35 * span, text: 'inside' });
    window.strata.setView({ start_us: v.start_us + 0.25 * span, end_us: v.start_us + 0.45 * span });
  }, [v, span, EVIL]);
  const notes = strip(await noteList(page));
  const view = await app.view();
  await page.waitForFunction(() => /notes=/.test(location.hash));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('#save-html').click()]);
  const saved = path.join(out, 'saved.html');
  await dl.saveAs(saved);
  const html = await fsp.readFile(saved, 'utf8');
  const state = /<script type="application\/json" id="strata-state">([^<]*)<\/script>/.exec(html);
  assert.ok(state, 'the file holds its view state');
  assert.match(JSON.parse(state[1]).hash, /^#t=.*&notes=/);
  const p = await openFile(saved);
  t.after(() => p.close());
  assert.deepEqual(strip(await noteList(p.page)), notes);
  const pv = await p.page.evaluate(() => window.strata.view());
  assert.ok(close(pv.start_us, view.start_us, 0.01) && close(pv.end_us, view.end_us, 0.01), `${JSON.stringify(pv)} vs ${JSON.stringify(view)}`);
  assert.equal(await p.page.evaluate(() => window.__pwned || 0), 0);
  assert.deepEqual(await p.page.evaluate(() => [...document.querySelectorAll('script')].map((e) => e.id)),
    ['strata-wasm', 'strata-trace', 'strata-state', 'strata-js', 'strata-app'], 'no note text made or ended an element');
  assert.deepEqual(p.errors, []);
  assert.deepEqual(p.violations, []);
  // the saved file saves itself again, with a note more
  await p.page.evaluate(() => window.strata.addNote({ t0: window.strata.view().start_us + 2, text: 'added in the file' }));
  await p.page.waitForFunction(() => /added%20in%20the%20file/.test(location.hash));
  const [dl2] = await Promise.all([p.page.waitForEvent('download'), p.page.locator('#save-html').click()]);
  const again = path.join(out, 'again.html');
  await dl2.saveAs(again);
  const p2 = await openFile(again);
  t.after(() => p2.close());
  assert.deepEqual((await noteList(p2.page)).map((n) => n.text).sort(), [EVIL, 'added in the file', 'inside'].sort());
});

test('strata export --note writes the notes into the report; it opens with them', { skip: NO_CLI }, async (t) => {
  const stats = JSON.parse((await run(CLI, ['stats', fx.paths.json, '--json'])).stdout);
  const t0 = stats.ts_min_us, t1 = stats.ts_max_us;
  const mid = Math.round((t0 + t1) / 2);
  const report = path.join(out, 'report.html');
  await run(CLI, ['export', fx.paths.json, '-o', report, '--dist', DIST, '--note', `${t0}=start`, '--note', `${mid}:${t1}=${EVIL}`]);
  const p = await openFile(report);
  t.after(() => p.close());
  assert.deepEqual(strip(await noteList(p.page)), [
    { t0_us: t0, t1_us: t0, text: 'start' },
    { t0_us: mid, t1_us: t1, text: EVIL },
  ]);
  assert.equal(await p.page.evaluate(() => window.__pwned || 0), 0);
  assert.deepEqual(p.errors, []);
});

/** Pixels of the notes' colour (rgb(170, 60, 200)) in canvas column x, below the axis. */
function noteColumn(img, x) {
  let n = 0;
  for (let y = AXIS_PX + 2; y < img.height; y++) {
    for (let dx = -1; dx <= 1; dx++) {
      const i = (y * img.width + x + dx) * 4;
      if (Math.abs(img.data[i] - 170) < 40 && Math.abs(img.data[i + 1] - 60) < 40 && Math.abs(img.data[i + 2] - 200) < 40) { n++; break; }
    }
  }
  return n;
}

test('a compare shows the notes in both panes side by side, at the same aligned time, and the link keeps them', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const { page } = app;
  const bytes = (await fsp.readFile(fx.paths.json)).toString('base64');
  await page.evaluate(async (b) => {
    const u = () => Uint8Array.from(atob(b), (c) => c.charCodeAt(0));
    await window.strata.compare(u(), u(), { names: ['a.json', 'b.json'] });
    window.strata.setCompareLayout('side');
  }, bytes);
  const v = await app.view();
  const at = v.start_us + 0.5 * (v.end_us - v.start_us);
  await page.evaluate((at) => window.strata.addNote({ t0: at, text: 'both panes' }), at);
  const box = await canvasBox(page);
  const half = box.width / 2;
  const x = Math.round(GUTTER_PX + 0.5 * (half - GUTTER_PX));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const img = decodePng(await page.locator('#canvas').screenshot());
  const left = noteColumn(img, x), right = noteColumn(img, Math.round(x + half));
  const elsewhere = noteColumn(img, Math.round(x + half / 4));
  t.diagnostic(`note pixels: left ${left}, right ${right}, elsewhere ${elsewhere}`);
  assert.ok(left > 100 && right > 100, `the note's line in both panes (left ${left}, right ${right})`);
  assert.ok(elsewhere < left / 4, 'and not everywhere');
  await page.waitForFunction(() => /cmp=side/.test(location.hash) && /notes=/.test(location.hash));
  assert.match(await page.evaluate(() => location.hash), /notes=[\d.]+:both%20panes/);
  assert.deepEqual(app.pageErrors, []);
});

test('privacy: every request of the served pages went to the page\'s own origin', () => {
  const bad = ctx.requests.filter((u) => !u.startsWith(ctx.server.origin + '/') && !u.startsWith(`blob:${ctx.server.origin}/`));
  assert.deepEqual([...new Set(bad)], []);
});
