// Protobuf traces opened as a user does: XSpace (`*.xplane.pb`) and Perfetto
// (`.perfetto-trace`) corpus files, and gzip copies made here, dropped on the
// page; stats checked against `strata stats --json`, args of a slice selected
// by a real click checked against `strata args --at SRC`, and the corrupted
// XSpace in the corpus refused with a byte offset while the trace shown stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { useBrowser, CLI, CORPUS, AXIS_PX, GUTTER_PX, OFFSET_RE } from './harness.mjs';

const run = promisify(execFile);
const ctx = useBrowser({ before, after });

const XPLANE = path.join(CORPUS, 'xprof__34.83.195.179_6003.xplane.pb');
const PERFETTO = path.join(CORPUS, 'perfetto__nested_tracks.perfetto-trace');
const CORRUPT = path.join(CORPUS, 'xprof-head__tpu_inference_2.xplane.pb');
const HAVE = [XPLANE, PERFETTO, CORRUPT].every((f) => fs.existsSync(f));
const NO_CLI = !fs.existsSync(CLI) && `native CLI not built (${CLI})`;
const SKIP = NO_CLI || (!HAVE && 'corpus files missing');

let tmp;
const gzPath = (f) => path.join(tmp, `${path.basename(f)}.gz`);
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-pb-'));
  if (HAVE) for (const f of [XPLANE, PERFETTO]) fs.writeFileSync(gzPath(f), zlib.gzipSync(fs.readFileSync(f)));
});
after(() => { if (tmp) fs.rmSync(tmp, { recursive: true, force: true }); });

async function cliStats(file) {
  const { stdout } = await run(CLI, ['stats', file, '--json'], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout);
}
async function cliArgs(file, src) {
  const { stdout } = await run(CLI, ['args', file, '--at', String(src)], { maxBuffer: 16 << 20 });
  const [at, , text] = stdout.trimEnd().split('\t');
  assert.equal(Number(at), src);
  return JSON.parse(text);
}
const strip = ({ load_ms, heap_bytes, import_peak_bytes, ...rest }) => rest;

async function dropAndCheck(app, file, name, format) {
  const ev = await app.dropFile(name, fs.readFileSync(file));
  assert.equal(ev.type, 'strata:loaded', `${name}: ${JSON.stringify(ev).slice(0, 300)}\n${app.diagnostics()}`);
  const s = await app.stats();
  assert.equal(s.format, format, `${name}: format`);
  assert.equal(s.compressed, name.endsWith('.gz'), `${name}: compressed`);
  assert.deepEqual(strip(s), strip(await cliStats(file)), `${name}: page stats differ from the CLI's`);
}

for (const [file, format] of [[XPLANE, 'xplane'], [PERFETTO, 'perfetto-proto']]) {
  test(`drag-and-drop: ${path.basename(file)} and a gzip copy open as ${format} with the CLI's stats`, { skip: SKIP }, async (t) => {
    const app = await ctx.app();
    t.after(() => app.close());
    await app.demoLoaded();
    await dropAndCheck(app, file, path.basename(file), format);
    await dropAndCheck(app, gzPath(file), `${path.basename(file)}.gz`, format);
    assert.deepEqual(app.pageErrors, []);
  });
}

// XSpace layout (core/view/view.h: axis, section header 24 px, rows 20 px, 4 px after
// a track): /device:GPU:1 (one stream) comes first, then /device:GPU:4, whose
// second line is Stream #134(Compute).
const SECTION = 24;
const TRACK = 20 + 4;
const COMPUTE_Y = AXIS_PX + SECTION + TRACK + SECTION + TRACK + 10;

async function clickKernel(app, file) {
  const page = app.page;
  const box = await page.locator('#canvas').boundingBox();
  const tw = box.width - GUTTER_PX;
  // box-select the Compute stream over the whole trace: its kernels (pid 5, tid 134)
  await page.mouse.move(box.x + GUTTER_PX + 2, box.y + COMPUTE_Y - 6);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width - 2, box.y + COMPUTE_Y + 6, { steps: 8 });
  await page.mouse.up();
  const kernels = (await page.evaluate(() => window.strata.selection())).filter((e) => e.pid === 5 && e.tid === 134);
  assert.ok(kernels.length > 10, `box select on Stream #134(Compute) got ${kernels.length} kernels`);
  const k = kernels.reduce((a, b) => (b.dur_us > a.dur_us ? b : a));
  await page.keyboard.press('Escape');
  // zoom to it and click its middle
  await page.evaluate((w) => window.strata.setView(w), { start_us: k.ts_us - k.dur_us, end_us: k.ts_us + 2 * k.dur_us });
  const v = await app.view();
  const x = GUTTER_PX + ((k.ts_us + k.dur_us / 2 - v.start_us) / (v.end_us - v.start_us)) * tw;
  await page.mouse.click(box.x + x, box.y + COMPUTE_Y);
  const sel = await page.evaluate(() => window.strata.selection());
  assert.equal(sel.length, 1, `one event selected by the click: ${JSON.stringify(sel).slice(0, 300)}`);
  assert.equal(sel[0].src, k.src, 'the click selected the kernel');
  return sel[0];
}

test('xplane: clicking a GPU kernel shows its stats as args in #details, as `strata args` decodes them', { skip: SKIP }, async (t) => {
  const app = await ctx.app({ viewport: { width: 1400, height: 900 } });
  t.after(() => app.close());
  await app.demoLoaded();
  for (const file of [XPLANE, gzPath(XPLANE)]) {
    const ev = await app.dropFile(path.basename(file), fs.readFileSync(file));
    assert.equal(ev.type, 'strata:loaded');
    const k = await clickKernel(app, file);
    const d = app.page.locator('#details');
    await d.waitFor({ state: 'visible' });
    await app.page.waitForFunction(() => /kernel_details/.test(document.querySelector('#details').textContent), null, { timeout: 120_000 });
    const text = await d.textContent();
    for (const key of ['correlation_id', 'kernel_details', 'annotation', 'group_id']) assert.ok(text.includes(key), `#details shows ${key}: ${text.slice(0, 400)}`);
    assert.ok(!/args:\s*(the|no|an?)\s/.test(text), `no args error in #details: ${text.slice(0, 400)}`);
    const res = await app.page.evaluate((src) => window.strata.argsOf(src), k.src);
    assert.equal(res.error, undefined, `argsOf: ${res.error}`);
    assert.deepEqual(res.args, await cliArgs(file, k.src), 'page and CLI decode the same args');
    assert.match(res.args.kernel_details, /^regs:\d+ /, 'kernel_details is the stat text');
  }
  assert.deepEqual(app.pageErrors, []);
});

test('perfetto: argsOf(src) of slices agrees with `strata args` (plain and gzip)', { skip: SKIP }, async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  for (const file of [PERFETTO, gzPath(PERFETTO)]) {
    await app.dropFile(path.basename(file), fs.readFileSync(file));
    await app.page.locator('#search').fill('L3 Slice');
    await app.page.locator('#search').press('Enter');
    const sel = await app.page.evaluate(() => window.strata.selection());
    assert.ok(sel.length >= 1, 'search selected a slice');
    const res = await app.page.evaluate((src) => window.strata.argsOf(src), sel[0].src);
    assert.equal(res.error, undefined, `argsOf: ${res.error}`);
    assert.deepEqual(res.args, await cliArgs(file, sel[0].src));
  }
  assert.deepEqual(app.pageErrors, []);
});

test('the corrupted corpus XSpace is refused with a byte offset; the trace shown stays', { skip: SKIP }, async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  await app.dropFile(path.basename(XPLANE), fs.readFileSync(XPLANE));
  const s0 = await app.stats();
  const ev = await app.dropFile(path.basename(CORRUPT), fs.readFileSync(CORRUPT));
  assert.equal(ev.type, 'strata:error', `expected strata:error, got ${JSON.stringify(ev).slice(0, 300)}`);
  const msg = typeof ev.detail === 'string' ? ev.detail : ev.detail?.message;
  assert.match(msg, OFFSET_RE, `the diagnosis names a byte offset: ${msg}`);
  const err = app.page.locator('#error');
  await err.waitFor({ state: 'visible', timeout: 120_000 });
  assert.match(await err.innerText(), OFFSET_RE);
  const { heap_bytes: _a, import_peak_bytes: _ia, ...keep0 } = s0;
  const { heap_bytes: _b, import_peak_bytes: _ib, ...keep1 } = await app.stats();
  assert.deepEqual(keep1, keep0, 'stats() unchanged: the xplane trace is still shown');
  // args still come from the trace shown (its args source was kept)
  await app.page.locator('#search').fill('FillPhilox');
  await app.page.locator('#search').press('Enter');
  const sel = await app.page.evaluate(() => window.strata.selection());
  const res = await app.page.evaluate((src) => window.strata.argsOf(src), sel[0].src);
  assert.ok(res.args && 'correlation_id' in res.args, `args after the failed open: ${JSON.stringify(res)}`);
  assert.deepEqual(app.pageErrors, []);
});
